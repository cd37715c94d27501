"""The compute capability of an NVIDIA GPU named in a log (nvidia-smi's table, collect_env's "GPU 0:",
torch's warning), for a paste that names the GPU but not its capability.

NVIDIA's table of compute capabilities (CUDA C++ Programming Guide, "CUDA-Enabled GPUs"): a GPU's
capability is fixed by its chip, so the name decides it. Only names that cannot be mistaken are listed;
a name none of these fits gives nothing.
"""

from __future__ import annotations

import functools
import re

from bot.base import regex_cache

# (name pattern, capability); the first that matches wins, so the more specific names come first: the workstation
# cards, whose four-digit numbers read like a GeForce series ("Quadro RTX 5000" is Turing, "RTX 5000 Ada Generation"
# Ada, neither an RTX 50 card), ahead of the GeForce series, whose numbers never end in 00 (2060 ... 5090; the RTX 2050 is
# an Ampere chip, left out)
_TABLE = [
    (r"\bGB10\b|\bDGX Spark\b", "12.1"),
    (r"RTX PRO \d{4} Blackwell", "12.0"),
    (r"\bQuadro RTX\b|\bTITAN RTX\b", "7.5"),
    (r"\bRTX \d{3,4}E?(?: SFF)? Ada\b|\bRTX Ada\b", "8.9"),
    (r"\bRTX A\d{3,4}\b", "8.6"),
    (r"\bRTX 50[5-9]0\b", "12.0"),
    (r"\bG?B200\b", "10.0"),
    (r"\bH[12]00\b|\bH20\b|\bH800\b|\bGH200\b", "9.0"),
    (r"\bL4\b|\bL40S?\b|\bL20\b|\bRTX 40[5-9]0\b", "8.9"),
    (r"\bA100\b|\bA800\b|\bA30\b", "8.0"),
    (r"\bA10G?\b|\bA40\b|\bA16\b|\bA2\b|\bRTX 30[5-9]0\b", "8.6"),
    (r"\bT4\b|\bRTX 20[6-8]0\b|\bGTX 16\d0\b", "7.5"),
    (r"\bV100[A-Z]?\b|\bTITAN V\b", "7.0"),
    (r"\bP100\b", "6.0"),
    (r"\bP40\b|\bP4\b|\bGTX 10\d0\b|\bTITAN Xp\b", "6.1"),
    (r"\bM40\b|\bM60\b|\bGTX 9[5-8]0\b", "5.2"),
    (r"\bK80\b", "3.7"),
]


@functools.cache
def _compiled() -> list[tuple[re.Pattern, str]]:
    # compiled on the first GPU name, not at import: most pastes name none (a cold start pays for what it reads)
    return [(regex_cache.compile(rx, re.I), cc) for rx, cc in _TABLE]


def capability(name: str | None) -> str | None:
    """"7.0" for "Tesla V100-SXM2-32GB"; None for a name the table does not know (or an AMD GPU)."""
    if not name or re.search(r"\b(?:AMD|Radeon|Instinct|MI\d{3})\b", name):
        return None
    return next((cc for rx, cc in _compiled() if rx.search(name)), None)


def cc_label(cc: str | tuple | None) -> str | None:
    """"7.5 (`sm_75`)" for "7.5", "75", (7, 5) or "sm_75": a compute capability as the answers write it."""
    if isinstance(cc, tuple):
        cc = ".".join(str(x) for x in cc[:2])
    m = re.fullmatch(r"(?:sm_)?(\d+)\.?(\d)a?", str(cc or "").strip())
    return f"{int(m.group(1))}.{m.group(2)} (`sm_{int(m.group(1))}{m.group(2)}`)" if m else None


# The GPUs people name for each compute capability (the same chips as _TABLE), for "this GPU" in an answer where
# the log gives only the number.
_NAMED = {"6.0": "P100", "6.1": "P40, P4, GTX 10xx", "7.0": "V100, Titan V", "7.5": "T4, RTX 20xx, Quadro RTX",
          "8.0": "A100, A30", "8.6": "A10, A40, RTX 30xx, RTX A6000", "8.7": "Jetson Orin", "8.9": "L4, L40S, RTX 40xx"}


def named(cc: str | int | None) -> str | None:
    """"T4, RTX 20xx, Quadro RTX" for 75 or "7.5"; None for a capability without a list here."""
    m = re.fullmatch(r"(\d+)\.?(\d)", str(cc or "").strip())
    return _NAMED.get(f"{int(m.group(1))}.{m.group(2)}") if m else None
