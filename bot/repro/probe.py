"""The probe: the child process that meets vLLM, one configuration per process.

It runs under the GPU host's own vLLM interpreter (VLLM_PYTHON), never the bot's, so it uses the
standard library and vllm only and must not import `bot`. The caller keeps its whole output and
diagnoses it like a pasted log; the last line starting with MARKER is the machine-readable result.

    python probe.py preflight MODEL SETTINGS_JSON [SETTINGS_JSON ...] [--search]
        Build vLLM's engine configuration for each settings set in turn, without starting an
        engine, and stop at the first that fails. No accelerator is touched, so configuration
        errors (max_model_len, dtype, a bad path) are answered in seconds. With --search the
        first set is the whole configuration and the rest are only checked when it fails (the
        settings added back one at a time, to find the one that breaks it), all in this process.
    python probe.py session MODEL
        Import vLLM once, then answer configuration checks read from stdin, one JSON line each:
        {"settings": [SETTINGS, ...], "search": bool}, each answered like `preflight` and ended by
        {"event": "done", "rc": 0|1}. A plan's configuration-only checks (the whole configuration,
        the culprit search, the fix) then pay for one import instead of one per check. Exits at the
        end of input.
    python probe.py run MODEL SETTINGS_JSON [--max-tokens N]
        LLM(model=MODEL, **settings), then generate a few tokens at temperature 0.

Result lines (one per settings set for preflight, one for run):
    @@vllm-doctor-probe@@ {"mode", "index", "settings", "ok", "error_type", "error", "seconds", ...}
and before each preflight attempt a begin line, so the caller can cut the output per attempt:
    @@vllm-doctor-probe@@ {"event": "begin", "index": i}
Exit status: 0 when every attempt passed, 1 when one failed, 2 for bad usage.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time
import traceback

MARKER = "@@vllm-doctor-probe@@"
PROMPT = "a b c d"
ERROR_CHARS = 4000

# Offline and quiet: a probe must not phone home or fetch a model from the Hub behind our back
# (a missing local folder would otherwise turn into a download attempt).
QUIET_ENV = {
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
}


def emit(record: dict) -> None:
    sys.stderr.flush()
    sys.stdout.write(MARKER + " " + json.dumps(record, default=str) + "\n")
    sys.stdout.flush()


def die_with_parent() -> None:
    """Die with the worker, even when it is SIGKILLed: an orphaned probe would keep holding the
    GPU the next job waits for. vLLM's engine processes watch their own parent (this probe)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent was gone before prctl took effect
        os._exit(128 + signal.SIGKILL)


def error_record(exc: BaseException) -> dict:
    return {"error_type": type(exc).__name__, "error": str(exc)[:ERROR_CHARS]}


def nvidia_driver() -> str | None:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = out.stdout.strip().splitlines()
    return lines[0].strip() if out.returncode == 0 and lines else None


def environment() -> dict:
    """What the answer depends on: versions, accelerator, platform. Never fails."""
    env: dict = {"python": platform.python_version(), "os": platform.platform(),
                 "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}
    try:
        import vllm

        env["vllm"] = getattr(vllm, "__version__", None)
    except Exception as e:  # noqa: BLE001 - an environment report reports, it does not raise
        env["vllm_import_error"] = f"{type(e).__name__}: {e}"[:500]
    try:
        import torch

        env["torch"] = torch.__version__
        env["cuda"] = torch.version.cuda
        env["hip"] = getattr(torch.version, "hip", None)
        if torch.cuda.is_available():
            env["gpu_count"] = torch.cuda.device_count()
            env["gpu_name"] = torch.cuda.get_device_name(0)
            major, minor = torch.cuda.get_device_capability(0)
            env["compute_capability"] = f"{major}.{minor}"
    except Exception as e:  # noqa: BLE001
        env["torch_error"] = f"{type(e).__name__}: {e}"[:500]
    try:
        from vllm.platforms import current_platform

        env["platform"] = current_platform.device_type
    except Exception:  # noqa: BLE001
        env["platform"] = None
    env["driver"] = nvidia_driver()
    return env


def import_engine_args(settings: dict):
    """vLLM's EngineArgs and the import time, or None after reporting why vLLM does not import."""
    started = time.monotonic()
    try:
        from vllm.engine.arg_utils import EngineArgs
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        emit({"mode": "preflight", "index": 0, "settings": settings, "ok": False,
              "stage": "import", **error_record(e), "env": environment()})
        return None, 0.0
    return EngineArgs, time.monotonic() - started


def preflight(model: str, settings_list: list[dict], search: bool = False) -> int:
    EngineArgs, import_s = import_engine_args(settings_list[0])
    if EngineArgs is None:
        return 1
    return check_configurations(EngineArgs, model, settings_list, search, import_s, environment())


def session(model: str, commands) -> int:
    """Configuration checks read line by line from `commands`, all in this one process."""
    EngineArgs = env = None
    import_s = 0.0
    for line in commands:
        if not line.strip():
            continue
        try:
            command = json.loads(line)
            settings_list = [s for s in command["settings"] if isinstance(s, dict)]
            if not settings_list or len(settings_list) != len(command["settings"]):
                raise ValueError("settings must be a non-empty list of JSON objects")
        except (ValueError, KeyError, TypeError) as e:
            print(f"probe: bad session command: {e}", file=sys.stderr)
            return 2
        if EngineArgs is None:
            EngineArgs, import_s = import_engine_args(settings_list[0])
            if EngineArgs is None:
                emit({"event": "done", "rc": 1})
                return 1
            env = environment()
        rc = check_configurations(EngineArgs, model, settings_list, bool(command.get("search")), import_s, env)
        import_s = 0.0          # the import is paid once, by the first command's first attempt
        emit({"event": "done", "rc": rc})
    return 0


def check_configurations(EngineArgs, model: str, settings_list: list[dict], search: bool, import_s: float,
                         env: dict) -> int:
    failed = False
    for index, settings in enumerate(settings_list):
        emit({"event": "begin", "index": index})
        t0 = time.monotonic()
        record = {"mode": "preflight", "index": index, "settings": settings, "import_s": round(import_s, 3)}
        try:
            EngineArgs(model=model, **settings).create_engine_config()
        except Exception as e:  # noqa: BLE001 - every failure is the answer we came for
            traceback.print_exc()
            emit({**record, "ok": False, "stage": "config", **error_record(e),
                  "seconds": round(time.monotonic() - t0, 3), "env": env})
            if search and index == 0:
                failed = True
                continue
            return 1
        emit({**record, "ok": True, "seconds": round(time.monotonic() - t0, 3), "env": env})
        if search and index == 0:
            return 0
    return 1 if failed else 0


def run(model: str, settings: dict, max_tokens: int) -> int:
    record: dict = {"mode": "run", "index": 0, "settings": settings}
    timings: dict = {}
    stage = "import"
    t0 = time.monotonic()
    try:
        from vllm import LLM, SamplingParams

        timings["import_s"] = round(time.monotonic() - t0, 3)
        stage, t1 = "engine", time.monotonic()
        llm = LLM(model=model, **settings)
        timings["engine_s"] = round(time.monotonic() - t1, 3)
        stage, t2 = "generate", time.monotonic()
        outputs = llm.generate([PROMPT], SamplingParams(max_tokens=max_tokens, temperature=0))
        timings["generate_s"] = round(time.monotonic() - t2, 3)
        completion = outputs[0].outputs[0]
        record.update(ok=True, tokens=len(completion.token_ids), text=completion.text[:200])
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        record.update(ok=False, stage=stage, **error_record(e))
    record.update(seconds=round(time.monotonic() - t0, 3), timings=timings, env=environment())
    emit(record)
    # A normal exit lets vLLM stop its engine processes; if that hangs, the caller's time limit
    # kills the whole process group.
    return 0 if record["ok"] else 1


def parse_settings(text: str) -> dict:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("settings must be a JSON object")
    return value


def main(argv: list[str]) -> int:
    usage = ("usage: probe.py preflight MODEL SETTINGS_JSON... [--search] | session MODEL"
             " | run MODEL SETTINGS_JSON [--max-tokens N]")
    if len(argv) == 2 and argv[0] == "session":
        for key, value in QUIET_ENV.items():
            os.environ.setdefault(key, value)
        die_with_parent()
        return session(argv[1], iter(sys.stdin.readline, ""))
    if len(argv) < 3 or argv[0] not in ("preflight", "run"):
        print(usage, file=sys.stderr)
        return 2
    mode, model, rest = argv[0], argv[1], argv[2:]
    max_tokens = 5
    search = "--search" in rest
    rest = [a for a in rest if a != "--search"]
    if "--max-tokens" in rest:
        i = rest.index("--max-tokens")
        max_tokens = int(rest[i + 1])
        rest = rest[:i] + rest[i + 2:]
    try:
        settings_list = [parse_settings(s) for s in rest]
    except ValueError as e:
        print(f"probe: bad settings: {e}\n{usage}", file=sys.stderr)
        return 2
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    die_with_parent()
    if mode == "preflight":
        return preflight(model, settings_list, search)
    if len(settings_list) != 1:
        print("probe: run takes exactly one settings set: one configuration per process", file=sys.stderr)
        return 2
    return run(model, settings_list[0], max_tokens)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
