# Stand-in for the vLLM interpreter in queue tests (see conftest.standin_python): called exactly
# as the runner calls the real one, `PYTHON -u -c BOOTSTRAP probe.py MODE MODEL SETTINGS...`.
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.environ.get("STANDIN_REPO", "."))
from bot.repro.probe import MARKER, die_with_parent  # noqa: E402

args = sys.argv[1:]
rest = args[args.index("-c") + 3:]          # after -c BOOTSTRAP probe.py
mode, model = rest[0], rest[1]
settings = [json.loads(a) for a in rest[2:] if a.startswith("{")]
die_with_parent()

if mode == "session":
    # The preflight session: one process, one JSON command a line; each command is logged as a
    # preflight call, sleeps like one, and passes (the stand-in fails engine starts only).
    for line in iter(sys.stdin.readline, ""):
        checks = json.loads(line)["settings"]
        with open(os.environ["STANDIN_LOG"], "a") as log:
            log.write(json.dumps({"pid": os.getpid(), "child": None, "mode": "preflight", "model": model,
                                  "settings": checks[0], "cuda": os.environ.get("CUDA_VISIBLE_DEVICES"),
                                  "worker": os.environ.get("STANDIN_WORKER")}) + "\n")
        time.sleep(float(os.environ.get("STANDIN_SLEEP", "0.1")))
        print(MARKER + " " + json.dumps({"event": "begin", "index": 0}), flush=True)
        print(MARKER + " " + json.dumps({"mode": "preflight", "index": 0, "settings": checks[0], "ok": True,
                                         "seconds": 0.1, "env": {"vllm": "stand-in", "platform": "cpu"}}), flush=True)
        print(MARKER + " " + json.dumps({"event": "done", "rc": 0}), flush=True)
    sys.exit(0)

child = None
if os.environ.get("STANDIN_CHILD"):
    # Like vLLM's engine process: a grandchild in the same process group.
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(os.environ["STANDIN_LOG"], "a") as log:
    log.write(json.dumps({"pid": os.getpid(), "child": child.pid if child else None, "mode": mode,
                          "model": model, "settings": settings[0] if settings else None,
                          "cuda": os.environ.get("CUDA_VISIBLE_DEVICES"),
                          "worker": os.environ.get("STANDIN_WORKER"), "start": time.time()}) + "\n")
print("INFO stand-in probe starting", flush=True)
time.sleep(float(os.environ.get("STANDIN_SLEEP", "0.1")))
# STANDIN_FAIL='{"key": value}': an engine start with exactly that setting fails with
# STANDIN_ERROR printed the way vLLM prints an exception.
fail = json.loads(os.environ.get("STANDIN_FAIL", "{}"))
ran = settings[0] if settings else {}
failed = mode == "run" and any(ran.get(k, object()) == v for k, v in fail.items())
if failed:
    error = os.environ.get("STANDIN_ERROR", "ValueError: stand-in failure")
    print("Traceback (most recent call last):\n  File \"probe.py\", line 1, in run\n" + error,
          file=sys.stderr, flush=True)
record = {"mode": mode, "index": 0, "settings": ran, "ok": not failed, "seconds": 0.1,
          "env": {"vllm": "stand-in", "platform": "cpu"}}
if failed:
    record.update(stage="engine", error_type=error.split(":")[0], error=error.split(": ", 1)[-1])
print(MARKER + " " + json.dumps(record), flush=True)
time.sleep(float(os.environ.get("STANDIN_LINGER", "0")))     # like a vLLM shutdown that hangs
sys.exit(1 if failed else 0)
