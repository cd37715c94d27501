#!/usr/bin/env bash
# Issue 6, second pass: raw logs of the preflight errors and the KV-cache error on the H200.
set -u
A=/tmp/acc2; mkdir -p $A
pack() { tar czf "$OUT/acc2.tgz" -C $A . 2>/dev/null; }
step() { local name=$1; shift; local t0=$(date +%s.%N)
  timeout "${LIMIT:-200}" "$@" > "$A/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc seconds=$(awk "BEGIN{print $(date +%s.%N) - $t0}")" | tee -a $A/steps.txt; pack; }
export VLLM_NO_USAGE_STATS=1 HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1 VLLM_USE_FLASHINFER_SAMPLER=0
export PYTHONPATH=$PWD VLLM_PYTHON=python3 MODEL_ROOTS=/models
step install bash .gpu/p6/install.sh .gpu/p6
python3 -m pip install -q --no-index --find-links .gpu/p6 rapidfuzz >> $A/install.log 2>&1
mkdir -p /models
step make-model python3 scripts/make_tiny_model.py /models/tiny --max-position-embeddings 2048
step plan-dtype python3 -m bot.cli repro /models/tiny --set dtype=float64 --json
step raw-dtype python3 .gpu/p6/llm_run.py /models/tiny dtype=float64
step raw-max-model-len python3 .gpu/p6/llm_run.py /models/tiny max_model_len=100000
step raw-kv-util python3 .gpu/p6/llm_run.py /models/tiny enforce_eager=True gpu_memory_utilization=0.001
pack
cat $A/steps.txt
