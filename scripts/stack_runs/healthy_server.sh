#!/bin/bash
# A healthy vLLM OpenAI server's whole life, for negatives (logs that must get no answer): start, a few
# completions (one streamed, one whose client hangs up mid-stream), then stopped with Ctrl-C (SIGINT).
# Usage: healthy_server.sh PYTHON MODEL PORT LOG [extra server args...]
# Optional: REQUESTS=FILE, bash sourced after the usual requests ($U is /v1, $MODEL the model), for a feature's
# own requests; STOP=TERM to stop it the way a container runtime or systemd does (default INT, Ctrl-C).
PY=$1; MODEL=$2; PORT=$3; LOG=$4; shift 4
export VLLM_NO_USAGE_STATS=1 HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
$PY -m vllm.entrypoints.openai.api_server --model "$MODEL" --port "$PORT" --dtype float32 --max-model-len 512 \
    --gpu-memory-utilization 0.1 "$@" > "$LOG" 2>&1 &
SERVER=$!
for _ in $(seq 180); do curl -sf "http://127.0.0.1:$PORT/health" > /dev/null && break; sleep 1; done
V="http://127.0.0.1:$PORT/v1"; U="$V/completions"
curl -s "$U" -H 'Content-Type: application/json' -d "{\"model\":\"$MODEL\",\"prompt\":\"a b c\",\"max_tokens\":5}" > /dev/null
curl -s "$U" -H 'Content-Type: application/json' -d "{\"model\":\"$MODEL\",\"prompt\":\"a b c\",\"max_tokens\":5,\"stream\":true}" > /dev/null
# a client that gives up mid-stream (a timeout, a closed browser tab)
curl -s -m 1 "$U" -H 'Content-Type: application/json' -d "{\"model\":\"$MODEL\",\"prompt\":\"a b c\",\"max_tokens\":400,\"min_tokens\":400,\"stream\":true}" > /dev/null
[ -n "$REQUESTS" ] && . "$REQUESTS"
sleep 2
kill -"${STOP:-INT}" $SERVER; wait $SERVER; echo "server rc=$?" >> "$LOG"
