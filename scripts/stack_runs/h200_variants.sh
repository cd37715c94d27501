#!/usr/bin/env bash
# On the H200 (vLLM 0.26.0 installed from .gpu/p6): variants of h200.sh's broken environments (other
# limits, other caches, another proxy answer; `h200_variants.sh 2`: other users, homes, caches and Hub failures),
# to see the same failures worded as other values make them.
# Every log is packed into $OUT/h200-variants.tgz as soon as it exists (a lent machine can be taken back).
P6=.gpu/p6; S=$PWD/scripts/stack_runs; A=/tmp/h200v; mkdir -p $A; PY=python3
pack() { tar czf $OUT/h200-variants.tgz -C $A . 2>/dev/null; }
export VLLM_NO_USAGE_STATS=1 PYTHONUNBUFFERED=1 VLLM_USE_FLASHINFER_SAMPLER=0
T=${LIMIT:-100}; START=$(date +%s)
run() { local n=$1; shift; if [ $(( $(date +%s)-START )) -gt 470 ]; then echo "$n skipped" >> $A/rc.txt; return; fi; local t0=$(date +%s); ( timeout $T "$@" ) > $A/$n.log 2>&1; echo "$n rc=$? s=$(( $(date +%s)-t0 ))" >> $A/rc.txt; pack; }
( bash $P6/install.sh $P6 > $A/install.log 2>&1; echo "install rc=$?" >> $A/rc.txt ) || exit 1
pack
mkdir -p /models /tmp/vd-work && chmod 1777 /tmp/vd-work
HF_HUB_OFFLINE=1 $PY scripts/make_tiny_model.py /models/tiny --max-position-embeddings 2048 > $A/make-model.log 2>&1
chmod -R a+rX /models; cp $S/user_script.py /tmp/vd-work/; M=/models/tiny; U=user_script.py; cd /tmp/vd-work
if [ "${1:-1}" = 2 ]; then     # the second set: users, homes, caches that cannot be written, the Hub
  cp $S/asuser.py /tmp/vd-work/; AS="$PY /tmp/vd-work/asuser.py"; chmod 644 /tmp/vd-work/asuser.py
  mkdir -p /tmp/h12345 && chown 12345:12345 /tmp/h12345; mkdir -p /ro && chmod 555 /ro
  run dns env HF_ENDPOINT=http://hub.invalid HF_HUB_ETAG_TIMEOUT=5 HF_HOME=/tmp/vd-hf8 $PY $U Qwen/Qwen2.5-0.5B-Instruct & P1=$!
  run proxy-closed env HTTPS_PROXY=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 HF_HOME=/tmp/vd-hf9 $PY $U Qwen/Qwen2.5-0.5B-Instruct & P2=$!
  wait $P1 $P2
  export HF_HUB_OFFLINE=1
  run nouser-user-set $AS 12345 12345 -u HOME -u LOGNAME USER=u12345 -- $PY $U $M
  run nouser-home-set $AS 12345 12345 -u USER -u LOGNAME HOME=/tmp/h12345 -- $PY $U $M
  run home-read-only $AS 65534 65534 HOME=/ro USER=nobody -- $PY $U $M
  run home-slash $AS 65534 65534 HOME=/ USER=nobody -- $PY $U $M
  run inductor-cache-unwritable $AS 12345 12345 HOME=/tmp/h12345 USER=u12345 TORCHINDUCTOR_CACHE_DIR=/ro/inductor -- $PY $U $M
  run triton-cache-unwritable $AS 12345 12345 HOME=/tmp/h12345 USER=u12345 TRITON_CACHE_DIR=/ro/triton -- $PY $U $M
  pack; cat $A/rc.txt; exit 0
fi
# group A: each fails before the GPU is used; side by side
rm -rf /tmp/vd-cfg && cp -r $M /tmp/vd-cfg && $PY -c "import os; p='/tmp/vd-cfg/config.json'; os.truncate(p, os.path.getsize(p)//2)"
rm -rf /tmp/vd-tok0 && cp -r $M /tmp/vd-tok0 && : > /tmp/vd-tok0/tokenizer.json
$PY $S/deny_proxy.py 18932 407 & PROXY=$!
run config-trunc $PY $U /tmp/vd-cfg & P1=$!
run tokenizer-empty $PY $U /tmp/vd-tok0 & P2=$!
run proxy-407 env HTTPS_PROXY=http://127.0.0.1:18932 https_proxy=http://127.0.0.1:18932 HF_HOME=/tmp/vd-hf7 $PY $U Qwen/Qwen2.5-0.5B-Instruct & P3=$!
wait $P1 $P2 $P3; kill $PROXY 2>/dev/null
# group B: these reach the engine; one at a time on the one GPU
export HF_HUB_OFFLINE=1
for v in 8000000 32000000 64000000; do run vmem-$v bash -c "ulimit -v $v; exec $PY $U $M"; done
for n in 20 100 256; do run nofile-$n bash -c "ulimit -n $n; exec $PY $U $M"; done
mkdir -p /tmp/vd-full && mount -t tmpfs -o size=4m tmpfs /tmp/vd-full && { dd if=/dev/zero of=/tmp/vd-full/fill bs=64k 2>/dev/null; df -h /tmp/vd-full > $A/fulldisk-df.txt; }
run vllm-cache-full env VLLM_CACHE_ROOT=/tmp/vd-full/vllm $PY $U $M
pack; cat $A/rc.txt
