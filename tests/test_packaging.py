"""vllm-doctor as a user installs it: a wheel built from the sdist, installed in a fresh venv
outside the checkout, must find its rule book, migrations and examples; and an editable install
keeps reading the checkout's live files."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_an_editable_install_or_a_checkout_reads_the_live_top_level_files():
    from bot.base import resources

    assert not (ROOT / "bot" / "rules").exists(), "rules/ must stay at the top of the checkout"
    assert Path(resources.rules_dir()) == ROOT / "rules"
    assert Path(resources.migrations_dir()) == ROOT / "migrations"
    assert Path(resources.alembic_ini()) == ROOT / "alembic.ini"


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.timeout(900)
def test_the_wheel_installs_and_runs_outside_the_checkout(tmp_path, pg_url):
    pytest.importorskip("build", reason="the wheel check needs the `build` package (pip install -e '.[test]')")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VLLM_DOCTOR_RULES")}
    env.update(PYTHON=sys.executable, DATABASE_URL=pg_url)
    work = tmp_path / "wheel-check"
    run = subprocess.run(["bash", str(ROOT / "scripts" / "check-wheel.sh"), str(work)], env=env,
                         capture_output=True, text=True, timeout=840)
    out = run.stdout
    assert run.returncode == 0, out[-3000:] + run.stderr[-3000:]

    [wheel] = (work / "dist").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {f"bot/rules/{p.name}" for p in (ROOT / "rules").glob("*.yaml")} | {"bot/rules/_vllm_source.json"}
    shipped |= {f"bot/migrations/versions/{p.name}" for p in (ROOT / "migrations" / "versions").glob("*.py")}
    shipped |= {"bot/migrations/env.py", "bot/migrations/script.py.mako", "bot/alembic.ini",
                "bot/examples/engine-core-failed.log"}
    shipped |= {f"bot/vllm_source/data/{p.name}" for p in (ROOT / "bot" / "vllm_source" / "data").glob("*")}
    assert shipped <= names, sorted(shipped - names)

    assert "[cpu-memory-reservation" in out                     # diagnose --example
    n_rules = len([p for p in (ROOT / "rules").glob("*.yaml") if not p.name.startswith("_")])   # `_*.yaml`: not rules
    assert f"{n_rules} rules" in out                            # rules list
    assert "upgraded from an empty database to" in out          # db upgrade
    assert "(up to date)" in out                                # db current
    assert '{"ready": true' in out                              # serve --http, /readyz
    site = work / "venv" / "lib"
    for line in out.split("== where the shipped files were read from", 1)[1].split():
        assert Path(line).is_relative_to(site), line


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("containerfile", ["deploy/worker/Containerfile"])
def test_the_files_a_containerfile_copies_build_a_complete_wheel(tmp_path, containerfile):
    """The worker's image starts FROM vLLM's, which cannot be pulled here, so it is not built; its
    install step is: the files it COPYs, alone in a folder, must build a wheel that carries the
    rule book and migrations. (The bot's image is built and run: tests/test_image.py.)"""
    import re
    import shutil

    text = (ROOT / containerfile).read_text()
    root = Path(re.search(r"pip install (?:--no-cache-dir )?(/\S+)", text).group(1))   # where the image installs from
    src = tmp_path / "src"
    for sources, dest in re.findall(r"^COPY (.+) (\S+)$", text, re.M):
        for name in sources.split():
            target = src / (Path(dest) / name if dest.endswith("/") else Path(dest)).relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if (ROOT / name).is_dir() else shutil.copy2)(ROOT / name, target)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(src), "-w", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=540)
    assert r.returncode == 0, r.stderr[-2000:]
    [wheel] = (tmp_path / "out").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"bot/alembic.ini", "bot/migrations/env.py", "bot/rules/cuda-oom.yaml"} <= names
