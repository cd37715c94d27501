#!/usr/bin/env bash
# On the H200 (vLLM 0.26.0 installed from .gpu/p6): the user script under one broken environment each.
# Every log is packed into $OUT/h200.tgz as soon as it exists (a lent machine can be taken back).
P6=.gpu/p6; P6ABS=$PWD/.gpu/p6; A=/tmp/h200; mkdir -p $A; PY=python3
pack() { tar czf $OUT/h200.tgz -C $A . 2>/dev/null; }
export VLLM_NO_USAGE_STATS=1 PYTHONUNBUFFERED=1 VLLM_USE_FLASHINFER_SAMPLER=0
T=${LIMIT:-110}; START=$(date +%s)
run() { local n=$1; shift; if [ $(( $(date +%s)-START )) -gt 480 ]; then echo "$n skipped" >> $A/rc.txt; return; fi; local t0=$(date +%s); ( timeout $T "$@" ) > $A/$n.log 2>&1; echo "$n rc=$? s=$(( $(date +%s)-t0 ))" >> $A/rc.txt; pack; }
nvidia-smi > $A/nvidia-smi.txt 2>&1
( bash $P6/install.sh $P6 > $A/install.log 2>&1; echo "install rc=$?" >> $A/rc.txt ) || exit 1
pack
mkdir -p /models /tmp/vd-work && chmod 1777 /tmp/vd-work
HF_HUB_OFFLINE=1 $PY scripts/make_tiny_model.py /models/tiny --max-position-embeddings 2048 > $A/make-model.log 2>&1
chmod -R a+rX /models; cp $P6/user_script.py /tmp/vd-work/; chmod 644 /tmp/vd-work/user_script.py
M=/models/tiny; S=user_script.py; cd /tmp/vd-work
# group A: each fails before the GPU is used; run side by side
$PY -m pip install -q --no-index --no-deps --target /tmp/tf-old $P6ABS/transformers-4.57.1-py3-none-any.whl > $A/tf-old-install.log 2>&1
rm -rf /tmp/vd-trunc && cp -r $M /tmp/vd-trunc && $PY -c "import os; p='/tmp/vd-trunc/tokenizer.json'; os.truncate(p, os.path.getsize(p)//2)"
$PY $P6ABS/deny_proxy.py 18931 & PROXY=$!
run tokenizer $PY $S /tmp/vd-trunc &
run oldtf env PYTHONPATH=/tmp/tf-old $PY $S $M &
run hub env HF_ENDPOINT=http://127.0.0.1:9 HF_HOME=/tmp/vd-hf $PY $S Qwen/Qwen2.5-0.5B-Instruct &
run offline env HF_HUB_OFFLINE=1 HF_HOME=/tmp/vd-hf $PY $S Qwen/Qwen2.5-0.5B-Instruct &
run proxy env HTTPS_PROXY=http://127.0.0.1:18931 https_proxy=http://127.0.0.1:18931 HF_HOME=/tmp/vd-hf $PY $S Qwen/Qwen2.5-0.5B-Instruct &
( $PY -m vllm.collect_env > $A/collect-env-vllm.txt 2>&1; $PY -m torch.utils.collect_env > $A/collect-env-torch.txt 2>&1 ) &
# group B: these reach the engine; one at a time on the one GPU
export HF_HUB_OFFLINE=1
run vmem bash -c "ulimit -v 16000000; exec $PY $S $M"
run nofile bash -c "ulimit -n 40; exec $PY $S $M"
run nouser $PY $P6ABS/asuser.py 12345 12345 -u HOME -u USER -u LOGNAME -- $PY $S $M
run nohome $PY $P6ABS/asuser.py 65534 65534 HOME=/nonexistent USER=nobody -- $PY $S $M
mkdir -p /tmp/vd-full && mount -t tmpfs -o size=4m tmpfs /tmp/vd-full && mkdir -p /tmp/vd-full/home/.cache && { dd if=/dev/zero of=/tmp/vd-full/fill bs=64k 2>/dev/null; df -h /tmp/vd-full > $A/fulldisk-df.txt; }
run fulldisk env HOME=/tmp/vd-full/home $PY $S $M
wait; kill $PROXY 2>/dev/null; pack; cat $A/rc.txt
