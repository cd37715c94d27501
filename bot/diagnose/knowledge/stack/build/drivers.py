"""CUDA release → the Linux driver it needs. Written by hand: NVIDIA publishes these in its CUDA
Toolkit Release Notes and in redistrib_<version>.json manifests on its own download site, which
the build cannot reach, and no PyPI package carries them.

- MINOR_COMPAT: the least driver that runs any CUDA release of a major through minor-version
  compatibility (CUDA Toolkit Release Notes, Table 2 "CUDA Toolkit and Minimum Required Driver
  Version for CUDA Minor Version Compatibility", Linux x86_64). Features a newer minor added
  (and PTX JIT of its kernels) need the full driver below.
- TOOLKIT_DRIVER: the driver each CUDA minor's GA release ships with and asks for every feature of
  (the same notes, Table 3 "CUDA Toolkit and Corresponding Driver Versions", Linux x86_64, GA).
"""

from __future__ import annotations

MINOR_COMPAT = {"11": "450.80.02", "12": "525.60.13", "13": "580"}
TOOLKIT_DRIVER = {
    "11.0": "450.51.05", "11.1": "455.23", "11.2": "460.27.03", "11.3": "465.19.01", "11.4": "470.42.01",
    "11.5": "495.29.05", "11.6": "510.39.01", "11.7": "515.43.04", "11.8": "520.61.05",
    "12.0": "525.60.13", "12.1": "530.30.02", "12.2": "535.54.03", "12.3": "545.23.06", "12.4": "550.54.14",
    "12.5": "555.42.02", "12.6": "560.28.03", "12.8": "570.26", "12.9": "575.51.03",
    "13.0": "580.65.06",
}
SOURCE = ("NVIDIA CUDA Toolkit Release Notes, Table 2 (minor-version compatibility) and Table 3 "
          "(toolkit driver, GA releases), Linux x86_64, by hand")


def build() -> dict:
    return {"minor_compat": MINOR_COMPAT, "toolkit": TOOLKIT_DRIVER, "source": SOURCE}
