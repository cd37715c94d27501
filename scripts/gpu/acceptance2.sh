#!/usr/bin/env bash
# Issue 6, second pass: raw logs of the preflight errors and the KV-cache error on the H200.
set -u
A=/tmp/acc2 PACK=acc2.tgz
source "$(dirname "$0")/lib.sh"
step plan-dtype python3 -m bot.cli repro /models/tiny --set dtype=float64 --json
step raw-dtype python3 .gpu/p6/llm_run.py /models/tiny dtype=float64
step raw-max-model-len python3 .gpu/p6/llm_run.py /models/tiny max_model_len=100000
step raw-kv-util python3 .gpu/p6/llm_run.py /models/tiny enforce_eager=True gpu_memory_utilization=0.001
pack
cat $A/steps.txt
