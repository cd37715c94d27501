"""Packaging beyond what pyproject.toml can say: the rule book and the migrations ship inside the
package, while the checkout keeps them at the top (the product card fixes the top level).

At build time `rules/` becomes `bot/rules/`, `migrations/` becomes `bot/migrations/` and
`alembic.ini` becomes `bot/alembic.ini`, so an installed wheel holds the same layout under `bot/`
that a checkout holds at its top; bot/resources.py looks in the package first, then beside it.
An editable install builds nothing into bot/, so it keeps reading the live top-level files.
"""

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

MAPPED = {"bot.rules": "rules", "bot.migrations": "migrations", "bot.migrations.versions": "migrations/versions"}


class BuildPyWithAlembicIni(build_py):
    """alembic.ini is one file at the top of the checkout, not in any package folder."""

    def run(self):
        super().run()
        if not self.editable_mode:
            self.copy_file("alembic.ini", f"{self.build_lib}/bot/alembic.ini")


setup(
    packages=find_packages(include=["bot", "bot.*"]) + list(MAPPED),
    package_dir=MAPPED,
    package_data={
        "bot": ["examples/*.log", "diagnose/knowledge/vllm/data/*", "diagnose/knowledge/stack/data/*",
                "dashboard/templates/*.html", "dashboard/static/*.css", "dashboard/static/*.svg"],
        "bot.rules": ["*.yaml", "_vllm_source.json", "README.md"],
        "bot.migrations": ["script.py.mako"],
    },
    cmdclass={"build_py": BuildPyWithAlembicIni},
)
