#!/usr/bin/env bash
# One broken environment per run of the same user script (user_script.py: LLM(model=...).generate()).
# usage: scenarios.sh PYTHON MODEL_DIR OUT_DIR [names...]
PY=$1; MODEL=$2; OUT=$3; shift 3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
export VLLM_NO_USAGE_STATS=1 PYTHONUNBUFFERED=1
LIMIT=${LIMIT:-400}
run() { local name=$1; shift; echo "== $name: $*" >&2; ( timeout "$LIMIT" "$@" ) > "$OUT/$name.log" 2>&1; echo "$name rc=$?" >> "$OUT/rc.txt"; ${AFTER:-true}; }
want() { [ $# -eq 0 ] && return 0; for w in "${NAMES[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
NAMES=("$@"); all=$([ ${#NAMES[@]} -eq 0 ] && echo 1)
sel() { [ -n "$all" ] || want "$1"; }
S=$here/user_script.py
mkdir -p /tmp/vd-work && chmod 1777 /tmp/vd-work
cp "$S" /tmp/vd-work/user_script.py && chmod 644 /tmp/vd-work/user_script.py
if sel nouser; then   # a uid with no /etc/passwd entry, HOME unset (docker --user 12345)
  (cd /tmp/vd-work && run nouser setpriv --reuid 12345 --regid 12345 --clear-groups env -u HOME -u USER -u LOGNAME "$PY" user_script.py "$MODEL"); fi
if sel nohome; then   # nobody, whose HOME (/nonexistent) cannot be created
  (cd /tmp/vd-work && run nohome setpriv --reuid 65534 --regid 65534 --clear-groups env HOME=/nonexistent USER=nobody "$PY" user_script.py "$MODEL"); fi
if sel fulldisk; then # HOME's caches on a full filesystem
  mkdir -p /tmp/vd-full && mount -t tmpfs -o size=4m tmpfs /tmp/vd-full && mkdir -p /tmp/vd-full/home/.cache \
    && (dd if=/dev/zero of=/tmp/vd-full/fill bs=64k 2>/dev/null; true) && df -h /tmp/vd-full >&2
  (cd /tmp/vd-work && run fulldisk env HOME=/tmp/vd-full/home "$PY" user_script.py "$MODEL")
  umount /tmp/vd-full; fi
if sel nofile; then   # ulimit -n 40
  (cd /tmp/vd-work && ulimit -n 40 && run nofile "$PY" user_script.py "$MODEL"); fi
if sel tokenizer; then # a truncated tokenizer.json
  rm -rf /tmp/vd-trunc && cp -r "$MODEL" /tmp/vd-trunc && python3 - <<'PY'
import os; p = "/tmp/vd-trunc/tokenizer.json"; n = os.path.getsize(p); os.truncate(p, n // 2)
PY
  (cd /tmp/vd-work && run tokenizer "$PY" user_script.py /tmp/vd-trunc); fi
if sel oldtf; then    # an older transformers ahead on PYTHONPATH
  (cd /tmp/vd-work && run oldtf env PYTHONPATH=$TF_OLD "$PY" user_script.py "$MODEL"); fi
if sel vmem; then     # ulimit -v
  (cd /tmp/vd-work && ulimit -v ${VMEM_KB:-8000000} && run vmem "$PY" user_script.py "$MODEL"); fi
if sel hub; then      # the Hub unreachable: HF_ENDPOINT on a closed loopback port, a model id not in the cache
  (cd /tmp/vd-work && run hub env HF_ENDPOINT=http://127.0.0.1:9 HF_HOME=/tmp/vd-hf "$PY" user_script.py Qwen/Qwen2.5-0.5B-Instruct); fi
if sel offline; then  # HF_HUB_OFFLINE with a model id not in the cache
  (cd /tmp/vd-work && run offline env HF_HUB_OFFLINE=1 HF_HOME=/tmp/vd-hf "$PY" user_script.py Qwen/Qwen2.5-0.5B-Instruct); fi
if sel proxy; then    # a proxy that refuses the tunnel (CONNECT -> 403)
  python3 "$here/deny_proxy.py" 18931 & pp=$!; sleep 1
  (cd /tmp/vd-work && run proxy env HTTPS_PROXY=http://127.0.0.1:18931 https_proxy=http://127.0.0.1:18931 HF_HOME=/tmp/vd-hf "$PY" user_script.py Qwen/Qwen2.5-0.5B-Instruct)
  kill $pp; fi
