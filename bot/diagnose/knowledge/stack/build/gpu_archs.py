"""CUDA release → the GPU architectures its compiler targets, for nvcc's "Unsupported gpu architecture 'compute_120'".

- PTXAS: the `sm_*` values each toolkit's ptxas lists as allowed for `--gpu-name` (`ptxas --help`), read from the
  ptxas of NVIDIA's own wheels on PyPI: nvidia-cuda-nvcc-cu11 11.7.99 and 11.8.89, nvidia-cuda-nvcc-cu12 12.0.140,
  12.4.131, 12.6.85, 12.8.93 and 12.9.86, nvidia-cuda-nvcc 13.0.88 (the toolkit's own ptxas, the same release), 13.1.115,
  13.2.86, 13.3.73, 13.4.92 and 13.5.37. nvcc and ptxas of one toolkit take the same architectures: each 13.x's
  `nvcc --list-gpu-arch` names the same bases (13.4 added sm_107), and nvcc prints "nvcc fatal   : Unsupported gpu
  architecture '<arch>'" (its own string, `strings nvcc`) for any other. Every change of the list falls between two adjacent releases of the table (11.7 → 11.8,
  11.8 → 12.0, 12.6 → 12.8, there being no 12.7, 12.8 → 12.9, 12.9 → 13.0, 13.3 → 13.4), so the first and last
  releases it gives are exact.
- FIRST_BEFORE: the first toolkit of architectures already in the oldest release read, from NVIDIA's CUDA Toolkit
  release notes (11.0 brought sm_80, 11.1 sm_86, 11.4 sm_87).

Written by hand from those runs (the build does not download toolkits); to add a release, unzip its wheel's ptxas, run
`ptxas --help`, and take the quoted `sm_*` values allowed for `--gpu-name`.
"""

from __future__ import annotations

_TURING_UP = ["sm_75", "sm_80", "sm_86", "sm_87"]
_MAXWELL_TO_VOLTA = ["sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72"]
_HOPPER = ["sm_89", "sm_90"]
_BLACKWELL_128 = ["sm_100", "sm_100a", "sm_101", "sm_101a", "sm_120", "sm_120a"]
_BLACKWELL_129 = ["sm_100", "sm_100a", "sm_100f", "sm_101", "sm_101a", "sm_101f", "sm_103", "sm_103a", "sm_103f",
                  "sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f"]
_CUDA_13 = ["sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f",
            "sm_103", "sm_103a", "sm_103f", "sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a", "sm_120f", "sm_121",
            "sm_121a", "sm_121f"]

PTXAS = {
    "11.7": ["sm_35", "sm_37", *_MAXWELL_TO_VOLTA, *_TURING_UP],
    "11.8": ["sm_35", "sm_37", *_MAXWELL_TO_VOLTA, *_TURING_UP, *_HOPPER],
    "12.0": [*_MAXWELL_TO_VOLTA, *_TURING_UP, *_HOPPER, "sm_90a"],
    "12.4": [*_MAXWELL_TO_VOLTA, *_TURING_UP, *_HOPPER, "sm_90a"],
    "12.6": [*_MAXWELL_TO_VOLTA, *_TURING_UP, *_HOPPER, "sm_90a"],
    "12.8": [*_MAXWELL_TO_VOLTA, *_TURING_UP, *_HOPPER, "sm_90a", *_BLACKWELL_128],
    "12.9": [*_MAXWELL_TO_VOLTA, *_TURING_UP, *_HOPPER, "sm_90a", *_BLACKWELL_129],
    "13.0": _CUDA_13, "13.1": _CUDA_13, "13.2": _CUDA_13, "13.3": _CUDA_13,
    "13.4": sorted([*_CUDA_13, "sm_107", "sm_107a", "sm_107f"], key=lambda s: (int(s[3:].rstrip("af")), s)),
    "13.5": sorted([*_CUDA_13, "sm_107", "sm_107a", "sm_107f"], key=lambda s: (int(s[3:].rstrip("af")), s)),
}
FIRST_BEFORE = {"sm_80": "11.0", "sm_86": "11.1", "sm_87": "11.4"}
RELEASES = ["nvidia-cuda-nvcc-cu11 11.7.99, 11.8.89", "nvidia-cuda-nvcc-cu12 12.0.140, 12.4.131, 12.6.85, 12.8.93, 12.9.86",
            "nvidia-cuda-nvcc 13.0.88, 13.1.115, 13.2.86, 13.3.73, 13.4.92, 13.5.37"]
SOURCE = ("ptxas --help (--gpu-name's allowed values) of " + "; ".join(RELEASES)
          + "; NVIDIA CUDA Toolkit release notes for sm_80 (11.0), sm_86 (11.1), sm_87 (11.4)")


def build() -> dict:
    return {"ptxas": PTXAS, "first_before": FIRST_BEFORE, "source": SOURCE}
