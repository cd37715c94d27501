#!/usr/bin/env bash
# Issue 6 on the H200: real CUDA vLLM 0.26.0 through the repro worker's own probe and plan.
set -u
A=/tmp/acc; mkdir -p $A
pack() { tar czf "$OUT/acc.tgz" -C $A . 2>/dev/null; }
step() { local name=$1; shift; local t0=$(date +%s.%N)
  timeout "${LIMIT:-240}" "$@" > "$A/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc seconds=$(awk "BEGIN{print $(date +%s.%N) - $t0}")" | tee -a $A/steps.txt; pack; }
export VLLM_NO_USAGE_STATS=1 HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1 VLLM_USE_FLASHINFER_SAMPLER=0
export PYTHONPATH=$PWD VLLM_PYTHON=python3 MODEL_ROOTS=/models
step install bash .gpu/p6/install.sh .gpu/p6
python3 -m pip install -q --no-index --find-links .gpu/p6 rapidfuzz >> $A/install.log 2>&1
nvidia-smi > $A/nvidia-smi.txt 2>&1; python3 -c "import torch;print(torch.__version__, torch.version.cuda)" >> $A/nvidia-smi.txt
mkdir -p /models
step make-model python3 scripts/make_tiny_model.py /models/tiny --max-position-embeddings 2048
step preflight-max-model-len python3 -m bot.cli repro /models/tiny --set max_model_len=100000 --json
step preflight-dtype python3 -m bot.cli repro /models/tiny --set dtype=float64 --json
LIMIT=300 step plan-util python3 -m bot.cli repro /models/tiny --set dtype=float16 --set max_num_seqs=8 --set gpu_memory_utilization=0.001 --json --write-repro $A/repro-util.py
LIMIT=150 step two-engines python3 .gpu/p6/two_engines.py /models/tiny
step bare-graphs python3 .gpu/p6/llm_run.py /models/tiny enforce_eager=False
step flashinfer-default env -u VLLM_USE_FLASHINFER_SAMPLER python3 .gpu/p6/llm_run.py /models/tiny enforce_eager=True --sample
step bare-eager python3 .gpu/p6/llm_run.py /models/tiny enforce_eager=True
pack
cat $A/steps.txt
