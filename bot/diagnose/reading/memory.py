"""The memory numbers vLLM prints while it sizes the KV cache, for the run that failed.

vLLM gives the KV cache what is left of its budget (gpu_memory_utilization x the GPU's total memory) after
the weights, the activation peak of a profiling forward pass, and the memory that grew outside torch
since the engine started; that last part is measured from the GPU's free memory, so another process
growing on the same GPU while this one profiles is counted as this engine's. Each release prints some
of these numbers (checked in the wheels' source):

- 0.6.4 - 0.6.6 (V0 worker.py): "Memory profiling results: ... total_gpu_memory=T GiB ...
  peak_torch_memory=P GiB ... non_torch_memory=N GiB, kv_cache_size=K GiB, gpu_memory_utilization=U"
  (P holds the weights and the activation peak; N all of the GPU's memory outside this process's torch);
- 0.7 - 0.10 (V0 worker.py): "Memory profiling takes S seconds / the current vLLM instance can use
  total_gpu_memory (T GiB) x gpu_memory_utilization (U) = B GiB / model weights take W GiB;
  non_torch_memory takes N GiB; PyTorch activation peak memory takes A GiB; the rest of the memory
  reserved for KV Cache is K GiB.";
- V1 0.9+ (gpu_worker.py): "Available KV cache memory: K GiB" (negative when nothing was left), after the
  model runner's "Model loading took W GiB"; the split of the rest is printed at DEBUG only;
- V0 up to 0.7: "Loading model weights took W GB" (GiB, whatever the unit says);
- V1 0.10+ at DEBUG (VLLM_LOGGING_LEVEL=DEBUG): "Requested memory: U (util), B GiB" and the profiling
  result "... torch peak memory increase: A GiB; non-torch forward increase memory: N GiB; weights memory:
  W GiB." (0.10 - 0.31; later releases print the total consumed instead of N).

A paste may hold several runs (a server restarted, two engines' logs one after the other): only the
lines of the run that raised the error count, from the last run start above it to the error.
"""

from __future__ import annotations

import re

from bot.diagnose.reading.facts.vllm_run import run_starts

_NUM = r"(-?\d+(?:\.\d+)?) ?Gi?B"
# key -> patterns; a line may give several keys (the 0.6.4 line gives five)
_LINES = {
    "weights": (re.compile(r"Model loading took " + _NUM), re.compile(r"Loading model weights took " + _NUM),
                re.compile(r"model weights take " + _NUM), re.compile(r"; weights memory: " + _NUM)),
    "total": (re.compile(r"total_gpu_memory \(" + _NUM + r"\)"), re.compile(r"total_gpu_memory=" + _NUM)),
    "util": (re.compile(r"gpu_memory_utilization \((\d+(?:\.\d+)?)\) ="), re.compile(r"Requested memory: ([\d.]+) \(util\)"),
             re.compile(r"kv_cache_size=[-\d.]+ ?GiB,? gpu_memory_utilization=(\d+(?:\.\d+)?)")),
    "budget": (re.compile(r"gpu_memory_utilization \([\d.]+\) = " + _NUM),
               re.compile(r"Requested memory: [\d.]+ \(util\), " + _NUM)),
    "non_torch": (re.compile(r"non_torch_memory takes " + _NUM), re.compile(r"non_torch_memory=" + _NUM),
                  re.compile(r"non-torch forward increase memory: " + _NUM)),
    "activation": (re.compile(r"PyTorch activation peak memory takes " + _NUM),
                   re.compile(r"torch peak memory increase: " + _NUM)),
    "peak_torch": (re.compile(r"peak_torch_memory=" + _NUM),),
    "kv": (re.compile(r"the rest of the memory reserved for KV Cache is " + _NUM),
           re.compile(r"Available KV cache memory: " + _NUM), re.compile(r"kv_cache_size=" + _NUM)),
}
_LITERALS = ("took", "total_gpu_memory", "non_torch_memory", "activation peak", "KV Cache is", "KV cache memory:",
             "kv_cache_size=", "Requested memory:", "weights memory:")


def _read(line: str) -> dict:
    out = {}
    for key, patterns in _LINES.items():
        for rx in patterns:
            m = rx.search(line)
            if m:
                out[key] = float(m.group(1))
                break
    return out


def profile(text: str, line_no: int) -> dict:
    """The memory numbers (GiB; `util` a fraction) of the run whose error is at `line_no` (1-based): the
    sizing whose KV cache was smallest (the rank that failed, under tensor parallelism), with the weights
    and budget printed before it. Empty when the run printed none."""
    lines = text.split("\n")[:max(0, line_no)]
    start = max((s for s in run_starts(text) if s <= line_no), default=1)
    current: dict = {}
    worst: dict = {}
    for line in lines[start - 1:]:
        if not any(lit in line for lit in _LITERALS):
            continue
        got = _read(line)
        current.update(got)
        if "kv" in got and ("kv" not in worst or current["kv"] < worst["kv"]):
            worst = dict(current)
    found = worst or {k: v for k, v in current.items() if k == "weights"}
    if "peak_torch" in found and "weights" in found and "activation" not in found:
        # 0.6.4 - 0.6.6: the torch peak holds the weights and the activations
        found["activation"] = round(max(0.0, found["peak_torch"] - found["weights"]), 2)
    if "budget" not in found and "total" in found and "util" in found:
        found["budget"] = round(found["total"] * found["util"], 2)
    found.pop("peak_torch", None)
    return found
