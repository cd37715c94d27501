#!/usr/bin/env bash
# On the H200 (vLLM 0.26.0 installed from .gpu/p6): knobs vLLM's checks refuse, one per fresh process
# (issue 22). Every log is packed into $OUT/knobs.tgz as soon as it exists.
P6=.gpu/p6; A=/tmp/knobs; mkdir -p $A; PY=python3; HERE=$PWD/scripts/knob_runs
pack() { tar czf $OUT/knobs.tgz -C $A . 2>/dev/null; }
export VLLM_NO_USAGE_STATS=1 PYTHONUNBUFFERED=1 VLLM_USE_FLASHINFER_SAMPLER=0 HF_HUB_OFFLINE=1
run() { local n=$1; shift; local t0=$(date +%s); ( timeout ${T:-150} "$@" ) > $A/$n.log 2>&1; echo "$n rc=$? s=$(( $(date +%s)-t0 ))" >> $A/rc.txt; pack; }
( bash $P6/install.sh $P6 > $A/install.log 2>&1; echo "install rc=$?" >> $A/rc.txt ) || exit 1
$PY scripts/make_tiny_model.py /models/tiny --max-position-embeddings 2048 > $A/make-model.log 2>&1
M=/models/tiny; C="$PY $HERE/knob_case.py $M"; SRV="$PY -m vllm.entrypoints.openai.api_server --model $M --port 18123 --gpu-memory-utilization 0.2 --max-model-len 512 --enforce-eager"
pack
# config-time refusals (no GPU work): side by side
run temperature $C temperature &
run top-p $C top-p &
run tp-two-on-one $C tp-two-on-one &
run pp-two-on-one $C pp-two-on-one &
run tp-three $C tp-three &
run tool-parser-unknown $SRV --enable-auto-tool-choice --tool-call-parser qwen3x &
run tool-choice-no-parser $SRV --enable-auto-tool-choice &
run reasoning-parser-unknown $SRV --reasoning-parser deepseek_r2 &
run attn-backend-unknown $SRV --attention-backend FLASH_ATTN_V3 &
wait
# engine starts: one at a time on the one GPU
run allowed-token-ids $C allowed-token-ids
run sleep-expandable env PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True $C sleep-expandable
T=240 run healthy-compile env VLLM_RINGBUFFER_WARNING_INTERVAL=1 $C healthy-compile
pack; cat $A/rc.txt
