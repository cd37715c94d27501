# Shared fixtures live in tests/support/ as plugins, so each part of the suite owns its own file.
import os
import tempfile
from pathlib import Path

# The suite never reads the user's data folder: an index `vllm-doctor index update` put there would
# change every answer the tests check. One fresh folder for the run (subprocesses inherit it).
os.environ.pop("VLLM_DOCTOR_DATA_DIR", None)
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="vllm-doctor-tests-")
# Nor does it reach PyPI: a bot it starts does not watch for vLLM releases, and anything that would
# ask PyPI anyway asks a loopback port nothing listens on (tests/watch serve their own PyPI).
os.environ["INDEX_WATCH_HOURS"] = "0"
os.environ["VLLM_DOCTOR_PYPI_URL"] = "http://127.0.0.1:9/pypi"

pytest_plugins = [f"tests.support.{p.stem}" for p in sorted((Path(__file__).parent / "support").glob("[!_]*.py"))]
