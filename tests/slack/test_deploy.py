"""The deploy files agree with the code: the environment they set is what the bot reads, the
commands they run exist, and compose starts the bot only after the database is migrated."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bot.slack.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
SETTINGS_SOURCE = (ROOT / "bot" / "slack" / "settings.py").read_text()


def bot_env_names() -> set[str]:
    return set(re.findall(r'env\.get\("([A-Z_]+)"', SETTINGS_SOURCE))


def test_compose_runs_the_bot_beside_postgresql_16_after_migrating():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert services["db"]["image"].endswith("postgres:16")
    assert services["migrate"]["command"] == ["vllm-doctor", "db", "upgrade"]
    assert services["migrate"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert services["bot"]["command"] == ["vllm-doctor", "serve"]
    assert services["bot"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    # The image scripts/build-image.sh builds (compose cannot: the build needs its wheels first).
    assert services["bot"]["image"] == services["migrate"]["image"] == "localhost/vllm-doctor:latest"
    assert "build" not in services["bot"] and "build" not in services["migrate"]


def test_settings_read_every_variable_the_issue_names():
    assert {"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_API_URL", "GPU_HELP_CHANNELS",
            "DATABASE_URL", "SLACK_FILE_HOSTS", "MODEL_ROOTS", "SLACK_MAX_FILE_MB"} <= bot_env_names()
    Settings.from_env({name: "1" for name in bot_env_names()})  # every one of them parses


def test_containerfile_installs_the_wheels_the_build_script_makes_and_serves():
    text = (DEPLOY / "Containerfile").read_text()
    script = (ROOT / "scripts" / "build-image.sh").read_text()
    # Its only input is what scripts/build-image.sh puts in the build context: the wheels.
    assert re.findall(r"^COPY (.+?) \S+$", text, re.M) == ["wheels/"]
    assert 'pip wheel --wheel-dir "$context/wheels"' in script and '-f "$ROOT/deploy/Containerfile"' in script
    assert '-m build --outdir "$context/dist" "$ROOT"' in script      # from the sdist, not a stale build/
    # A plain install from those wheels alone: the rule book and the migrations ship inside the package.
    assert re.search(r"pip install --quiet --no-index --find-links /tmp/wheels vllm-doctor", text)
    assert 'CMD ["vllm-doctor", "serve"]' in text and re.search(r"^USER 10001", text, re.M)


def test_systemd_unit_migrates_then_serves():
    unit = (DEPLOY / "vllm-doctor-bot.service").read_text()
    assert re.search(r"^ExecStartPre=\S+/vllm-doctor db upgrade$", unit, re.M)
    assert re.search(r"^ExecStart=\S+/vllm-doctor serve$", unit, re.M)
    assert re.search(r"^EnvironmentFile=/etc/vllm-doctor/bot.env$", unit, re.M)
    assert "deploy/bot.env.example /etc/vllm-doctor/bot.env" in unit
    assert "[Install]" in unit and "WantedBy=multi-user.target" in unit


def test_the_bot_and_worker_units_agree_on_where_vllm_doctor_is_installed():
    venvs = set()
    for unit in (DEPLOY / "vllm-doctor-bot.service", DEPLOY / "worker" / "vllm-doctor-worker.service"):
        text = unit.read_text()
        commands = re.findall(r"^Exec\w*=(\S+)/bin/vllm-doctor ", text + "\n", re.M)
        created = re.findall(r"-m venv (\S+)$", text, re.M)
        installed = re.findall(r"^#\s+sudo (\S+)/bin/pip install ", text, re.M)
        assert commands and set(commands) == set(created) == set(installed), (unit.name, commands, created, installed)
        venvs |= set(commands)
    assert venvs == {"/opt/vllm-doctor/venv"}
