#!/usr/bin/env bash
# A torch that cannot use the GPU under vLLM, each run for real and logged (issue 21): the logs under
# tests/fixtures/logs/torch-not-cuda-build/vllm-*.log, device-infer-failed/vllm-0.30-*.log,
# stack-error-code/vllm-0.30-*.log and torchvision-torch-mismatch/vllm-0.30-*.log come from here.
# usage: cpu_torch_runs.sh OUT_DIR [no-gpu|nvidia-host|old-vllm ...]
#   no-gpu       vLLM 0.30.0's PyPI (CUDA) wheel installed over torch 2.13.0+cpu on this GPU-less machine: first
#                with the torchvision pip brings (a CUDA build), then without it, plain and with DEBUG logging
#   nvidia-host  the same beside stand-in libnvidia-ml.so.1 / libcuda.so.1 that report one GPU, so that vLLM takes
#                its CUDA platform as on an NVIDIA host: what vLLM and the loader print there is their own
#   old-vllm     vLLM 0.6.3.post1's wheel (without its pins) beside torch 2.13.0+cpu, same stand-ins
# The stand-ins only answer NVML's and the driver's entry points; nothing of vLLM or torch is changed.
set -uo pipefail
OUT=${1:?usage: $0 OUT_DIR [names...]}; shift
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
work=${WORK:-/tmp/vd-cputorch}; mkdir -p "$work"
NAMES=("$@")
want() { [ ${#NAMES[@]} -eq 0 ] && return 0; for w in "${NAMES[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
quiet() { grep -v "WARNING: Location\|^Looking in"; }
offline='from vllm import LLM
LLM(model="'"$work"'/llama-tiny", skip_tokenizer_init=True, max_model_len=128)'

stubs() {   # $1: folder; $2: what the stand-in cuInit returns (vLLM 0.30 and 0.6.3 fail before they call it)
  mkdir -p "$1"
  cat > "$1/nvml.c" <<'C'
#include <string.h>
typedef void *dev_t_; typedef struct { unsigned long long total, free, used; } mem_t;
static int dev;
int nvmlInit_v2(void) { return 0; } int nvmlInit(void) { return 0; } int nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(int r) { return "Unknown Error"; }
int nvmlDeviceGetCount_v2(unsigned int *c) { *c = 1; return 0; } int nvmlDeviceGetCount(unsigned int *c) { *c = 1; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, dev_t_ *d) { if (i) return 2; *d = &dev; return 0; }
int nvmlDeviceGetHandleByIndex(unsigned int i, dev_t_ *d) { if (i) return 2; *d = &dev; return 0; }
int nvmlDeviceGetName(dev_t_ d, char *n, unsigned int l) { strncpy(n, "NVIDIA H100 80GB HBM3", l); return 0; }
int nvmlDeviceGetCudaComputeCapability(dev_t_ d, int *a, int *b) { *a = 9; *b = 0; return 0; }
int nvmlDeviceGetUUID(dev_t_ d, char *u, unsigned int l) { strncpy(u, "GPU-00000000-0000-0000-0000-000000000000", l); return 0; }
int nvmlDeviceGetMemoryInfo(dev_t_ d, mem_t *m) { m->total = m->free = 85899345920ULL; m->used = 0; return 0; }
int nvmlSystemGetDriverVersion(char *v, unsigned int l) { strncpy(v, "570.133.20", l); return 0; }
int nvmlDeviceGetIndex(dev_t_ d, unsigned int *i) { *i = 0; return 0; }
C
  cat > "$1/cuda.c" <<C
#include <string.h>
static int init(unsigned int f) { return $2; }
static int version(int *v) { *v = 13000; return 0; }
static int missing(void) { return 500; }
int cuInit(unsigned int f) { return init(f); }
int cuDriverGetVersion(int *v) { return version(v); }
static void *find(const char *s) { return !strcmp(s, "cuInit") ? (void *)init : !strcmp(s, "cuDriverGetVersion") ? (void *)version : (void *)missing; }
int cuGetProcAddress(const char *s, void **p, int v, unsigned long long f) { *p = find(s); return 0; }
int cuGetProcAddress_v2(const char *s, void **p, int v, unsigned long long f, int *st) { *p = find(s); if (st) *st = 0; return 0; }
C
  gcc -shared -fPIC -o "$1/libnvidia-ml.so.1" "$1/nvml.c" && gcc -shared -fPIC -o "$1/libcuda.so.1" "$1/cuda.c"
}

if want no-gpu || want nvidia-host || want old-vllm; then
  # a CPU build of torch 2.13.0 (this machine's pip finds one among its local wheels; elsewhere add
  # --index-url https://download.pytorch.org/whl/cpu), then vLLM's wheel, whose torch==2.13.0 pin it satisfies
  python3 -m venv "$work/cpu" && "$work/cpu/bin/pip" install -q "torch==2.13.0+cpu" 2>&1 | quiet
  "$work/cpu/bin/pip" install vllm==0.30.0 > "$OUT/pip-install.log" 2>&1
  "$work/cpu/bin/python" - "$work/llama-tiny" <<'PY'
import sys
from transformers import LlamaConfig, LlamaForCausalLM
LlamaForCausalLM(LlamaConfig(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256)).save_pretrained(sys.argv[1])
PY
fi
if want no-gpu; then
  (cd "$work" && "$work/cpu/bin/python" -c "$offline") > "$OUT/no-gpu-pypi-torchvision.log" 2>&1
  "$work/cpu/bin/pip" uninstall -q -y torchvision torchaudio torchcodec
  (cd "$work" && "$work/cpu/bin/python" -c "$offline") > "$OUT/no-gpu.log" 2>&1
  (cd "$work" && VLLM_LOGGING_LEVEL=DEBUG "$work/cpu/bin/python" -c "$offline") > "$OUT/no-gpu-debug.log" 2>&1
fi
if want nvidia-host; then
  stubs "$work/host" 100
  (cd "$work" && LD_LIBRARY_PATH="$work/host" "$work/cpu/bin/python" -c "$offline") > "$OUT/nvidia-host-offline.log" 2>&1
  (echo '$ pip list | grep -E "^(torch|vllm) "'; "$work/cpu/bin/pip" list 2>/dev/null | grep -E "^(torch|vllm) "
   echo '$ vllm serve /models/llama-tiny --max-model-len 128'
   cd "$work" && LD_LIBRARY_PATH="$work/host" "$work/cpu/bin/vllm" serve "$work/llama-tiny" --max-model-len 128 2>&1) \
    > "$OUT/nvidia-host-serve.log"
fi
if want old-vllm; then
  stubs "$work/host" 100
  python3 -m venv "$work/old" && "$work/old/bin/pip" install -q "torch==2.13.0+cpu" 2>&1 | quiet
  "$work/old/bin/pip" download -q --no-deps vllm==0.6.3.post1 -d "$work/old-wheel" 2>&1 | quiet
  unzip -p "$work"/old-wheel/vllm-*.whl '*/METADATA' | sed -n 's/^Requires-Dist: //p' | grep -v "extra ==" \
    | grep -viE "^(torch|torchvision|xformers|vllm-flash-attn|ray)\b" | sed 's/^transformers>=4.45.2$/transformers==4.46.3/' \
    > "$work/old-reqs.txt"
  "$work/old/bin/pip" install -q -r "$work/old-reqs.txt" 2>&1 | quiet
  "$work/old/bin/pip" install -q --no-deps "$work"/old-wheel/vllm-*.whl 2>&1 | quiet
  (echo '$ pip list 2>/dev/null | grep -E "^(torch|vllm) "'; "$work/old/bin/pip" list 2>/dev/null | grep -E "^(torch|vllm) "
   echo '$ python offline.py'; cd "$work" && LD_LIBRARY_PATH="$work/host" "$work/old/bin/python" -c "$offline" 2>&1) \
    > "$OUT/old-vllm.log"
fi
ls -la "$OUT"
