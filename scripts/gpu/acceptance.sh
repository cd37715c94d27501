#!/usr/bin/env bash
# Issue 6 on the H200: real CUDA vLLM 0.26.0 through the repro worker's own probe and plan.
set -u
A=/tmp/acc PACK=acc.tgz
source "$(dirname "$0")/lib.sh"
step preflight-max-model-len python3 -m bot.cli repro /models/tiny --set max_model_len=100000 --json
step preflight-dtype python3 -m bot.cli repro /models/tiny --set dtype=float64 --json
LIMIT=300 step plan-util python3 -m bot.cli repro /models/tiny --set dtype=float16 --set max_num_seqs=8 --set gpu_memory_utilization=0.001 --json --write-repro $A/repro-util.py
LIMIT=150 step two-engines python3 .gpu/p6/two_engines.py /models/tiny
step bare-graphs python3 .gpu/p6/llm_run.py /models/tiny enforce_eager=False
step flashinfer-default env -u VLLM_USE_FLASHINFER_SAMPLER python3 .gpu/p6/llm_run.py /models/tiny enforce_eager=True --sample
step bare-eager python3 .gpu/p6/llm_run.py /models/tiny enforce_eager=True
pack
cat $A/steps.txt
