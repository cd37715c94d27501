"""The container image as an operator runs it: scripts/build-image.sh builds deploy/Containerfile
from a Debian base made here with mmdebstrap, with the project's wheel installed; in it
`vllm-doctor diagnose --example` answers, and `serve --http` migrates the real PostgreSQL and
answers /readyz.

Needs buildah, mmdebstrap and podman (Debian packages; .ci/run installs them): without them the
test is skipped with the reason, and under CI that is a failure.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TAG = "localhost/vllm-doctor:pytest"
TOOLS = ("buildah", "mmdebstrap", "podman")

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.timeout(900)]


def podman_run() -> list[str]:
    """`podman run` as this machine allows it. A container sandbox like this one (no
    CAP_SYS_RESOURCE, hybrid cgroups) refuses podman's defaults: raising the open-file and process
    limits to their maximum, and crun. The limits asked for here are what the caller has, and runc
    is used where it is installed. On an ordinary host plain `podman run` does the same."""
    soft_files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    runtime = ["--runtime", "runc"] if shutil.which("runc") else []
    return ["podman", *runtime, "run", "--rm", "--ulimit", f"nofile={soft_files}:{soft_files}",
            "--ulimit", "nproc=4096:4096"]


@pytest.fixture(scope="module")
def image():
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        reason = f"the image test needs {', '.join(missing)} (apt-get install mmdebstrap buildah podman runc)"
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"CI requires them: {reason}", pytrace=False)
        pytest.skip(reason)
    started = time.monotonic()
    build = subprocess.run(["bash", str(ROOT / "scripts" / "build-image.sh"), TAG], capture_output=True, text=True,
                           env={**os.environ, "PYTHON": sys.executable}, timeout=840)
    assert build.returncode == 0, build.stderr[-4000:]
    assert build.stdout.strip() == TAG
    print(f"image built in {time.monotonic() - started:.0f} s: {build.stderr.strip().splitlines()[-1]}")
    yield TAG
    subprocess.run(["buildah", "rmi", "--prune"], capture_output=True, timeout=120)   # the layers it replaced


def test_the_image_diagnoses_the_bundled_example(image):
    r = subprocess.run([*podman_run(), image, "vllm-doctor", "diagnose", "--example", "--json"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    [answer] = [json.loads(line) for line in r.stdout.splitlines()]
    assert answer["diagnoses"][0]["rule_id"] == "cpu-memory-reservation"


def test_the_image_runs_as_an_unprivileged_user_with_the_wheel_installed(image):
    r = subprocess.run([*podman_run(), image, "python", "-c",
                        "import os, bot, bot.base.resources as r; print(os.getuid(), bot.__file__, r.rules_dir())"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    uid, package, rules = r.stdout.split()
    assert uid == "10001"
    assert package.startswith("/opt/vllm-doctor/venv/lib/python3.11/site-packages/bot/")
    assert rules.startswith("/opt/vllm-doctor/venv/lib/python3.11/site-packages/bot/rules")


def test_serve_http_in_the_image_migrates_and_answers_readyz(image, pg_url):
    name = f"vllm-doctor-pytest-{uuid.uuid4().hex[:8]}"
    # The host's network, so the container reaches this machine's PostgreSQL and the test its port.
    serve = subprocess.Popen([*podman_run(), "--name", name, "--network", "host",
                              "-e", "SLACK_BOT_TOKEN=xoxb-image-check", "-e", "SLACK_SIGNING_SECRET=image-check",
                              "-e", f"DATABASE_URL={pg_url}", image,
                              "vllm-doctor", "serve", "--http", "--migrate", "--host", "127.0.0.1", "--port", "0"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        log: list[str] = []
        port = None
        deadline = time.monotonic() + 120
        while port is None and time.monotonic() < deadline:
            line = serve.stderr.readline()
            if not line:
                break
            log.append(line)
            found = re.search(r"listening on http://127\.0\.0\.1:(\d+)/slack/events", line)
            port = found and found.group(1)
        assert port, "".join(log)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=10) as reply:
            assert reply.status == 200
            ready = json.loads(reply.read())
        assert ready["ready"] is True and ready["rules"] > 80, ready
        assert any("upgraded from an empty database" in line for line in log), log
        subprocess.run(["podman", "stop", "--time", "30", name], capture_output=True, timeout=60)
        assert serve.wait(timeout=60) == 0                  # SIGTERM: a clean stop
        assert "Traceback" not in "".join(log) + serve.stderr.read()
    finally:
        if serve.poll() is None:
            subprocess.run(["podman", "rm", "--force", name], capture_output=True, timeout=60)
            serve.kill()
