"""Run the Alembic migrations from code, from any working directory.

The migrations and alembic.ini are found by bot.base.resources: inside an installed wheel, or at the
top of a checkout. The URL and, in tests, an open connection travel in `Config.attributes`, never
through `set_main_option`, whose ConfigParser interpolation breaks on the `%` of an encoded
password.
"""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import URL, Connection

from bot.base import resources


def alembic_config(url: URL | str | None = None, connection: Connection | None = None) -> Config:
    cfg = Config(resources.alembic_ini())
    # The ini says %(here)s/migrations, which holds in a checkout and in a wheel alike; naming the
    # folder resources found keeps the two from ever disagreeing.
    cfg.set_main_option("script_location", resources.migrations_dir().replace("%", "%%"))
    # For the `alembic` command line only: the application has its own logging, and its imports
    # must not start looking in whatever the working directory is.
    cfg.attributes["keep_logging"] = True
    cfg.set_main_option("prepend_sys_path", "")
    if url is not None:
        cfg.attributes["url"] = url
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def upgrade(connection: Connection, revision: str = "head") -> None:
    command.upgrade(alembic_config(connection=connection), revision)


def downgrade(connection: Connection, revision: str) -> None:
    command.downgrade(alembic_config(connection=connection), revision)


def current(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def head() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()
