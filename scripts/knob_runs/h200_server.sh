#!/usr/bin/env bash
# On the H200 (vLLM 0.26.0 from .gpu/p6, plus the server's own packages the image lacks): the
# server's knobs vLLM's checks refuse, one server per case (issue 22). Logs go to $OUT/server.tgz.
P6=.gpu/p6; A=/tmp/server; mkdir -p $A; PY=python3
pack() { tar czf $OUT/server.tgz -C $A . 2>/dev/null; }
export VLLM_NO_USAGE_STATS=1 PYTHONUNBUFFERED=1 VLLM_USE_FLASHINFER_SAMPLER=0 HF_HUB_OFFLINE=1
run() { local n=$1; shift; local t0=$(date +%s); ( timeout ${T:-120} "$@" ) > $A/$n.log 2>&1; echo "$n rc=$? s=$(( $(date +%s)-t0 ))" >> $A/rc.txt; pack; }
( bash $P6/install.sh $P6 > $A/install.log 2>&1 && $PY -m pip install -q --no-index --no-deps $P6/uvicorn-*.whl $P6/h11-*.whl \
    $P6/click-*.whl $P6/prometheus_client-*.whl $P6/prometheus_fastapi_instrumentator-*.whl $P6/python_multipart-*.whl \
    $P6/httptools-*.whl $P6/uvloop-*.whl >> $A/install.log 2>&1; echo "install rc=$?" >> $A/rc.txt ) || exit 1
$PY scripts/make_tiny_model.py /models/tiny --max-position-embeddings 2048 > $A/make-model.log 2>&1
# the image lacks some of the server's own requirements: install each missing one from the wheels
# carried in /root/p7 until the server's module imports
for i in $(seq 1 20); do
  $PY -c "import vllm.entrypoints.openai.api_server" > $A/import.log 2>&1 && break
  mod=$(grep -oP "No module named '\K[^'.]+" $A/import.log | tail -1); [ -n "$mod" ] || break
  case $mod in pythonjsonlogger) pkg=python-json-logger;; *) pkg=$mod;; esac
  echo "missing $mod -> $pkg" >> $A/rc.txt
  $PY -m pip install -q --no-index --find-links /root/p7 --find-links $P6 $pkg >> $A/install.log 2>&1 || break
done
$PY -c "import vllm.entrypoints.openai.api_server" >> $A/import.log 2>&1; echo "import rc=$?" >> $A/rc.txt
pack
M=/models/tiny; SRV="$PY -m vllm.entrypoints.openai.api_server --model $M --gpu-memory-utilization 0.2 --max-model-len 512 --enforce-eager"
run tool-parser-unknown $SRV --port 18201 --enable-auto-tool-choice --tool-call-parser qwen3x &
run tool-choice-no-parser $SRV --port 18202 --enable-auto-tool-choice &
run reasoning-parser-unknown $SRV --port 18203 --reasoning-parser deepseek_r2 &
run attn-backend-unknown $SRV --port 18204 --attention-backend FLASH_ATTN_V3 &
run chat-template-missing $SRV --port 18205 --chat-template /tmp/templates/chatml.jinja &
wait
# a default the server applies to every request, refused when the first request arrives
( $SRV --port 18210 --override-generation-config '{"top_p": 1.5}' > $A/override-top-p.log 2>&1 & echo $! > $A/srv.pid
  for i in $(seq 1 150); do $PY -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:18210/health')" 2>/dev/null && break; sleep 1; done
  $PY -c "
import json, urllib.request, urllib.error
req = urllib.request.Request('http://127.0.0.1:18210/v1/completions', json.dumps({'model': '$M', 'prompt': 'hello', 'max_tokens': 5}).encode(), {'Content-Type': 'application/json'})
try:
    print(urllib.request.urlopen(req).read().decode())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode())
" > $A/override-top-p.client.txt 2>&1
  sleep 2; cp $A/override-top-p.log $A/override-top-p.before-stop.log; kill $(cat $A/srv.pid) )
echo "override done" >> $A/rc.txt; pack; cat $A/rc.txt
