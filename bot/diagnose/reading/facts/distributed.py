"""NCCL, Ray and weight sync: NCCL's versions, its errors beneath torch's and its bootstrap, the interfaces it was told
to use, the NCCL library vLLM was pointed at; Ray's local instance and vLLM's wait for its placement group; the
weight-sync group between an RL trainer and vLLM's workers.
"""

from __future__ import annotations

from bot.base.lazyre import LazyRe

from .markers import _WEIGHT_SYNC, _markers_present
from .patterns import _P, _all


# The CUDA error beneath NCCL's generic "unhandled cuda error", in NCCL's own words: its WARN line
# ("init.cc:1234 NCCL WARN Cuda failure 'invalid argument'"; "Cuda failure 1 'invalid argument'" from
# NCCL 2.19 on), or the last error torch appends on a line of its own after "Last error:"
# (NVIDIA/nccl#1410), whatever prefix a rank, a Ray worker or a host put before it. Only the
# nccl-error answer reads it, once an NCCL error matched.
_NCCL_CUDA_FAILURE = [_P(r"(?<![\w/])(?:Cuda|HIP) failure (?:\d+ )?'([^'\n]{1,80})'",
                         literals=("Cuda failure", "HIP failure"))]
# NCCL's own reason, which torch appends to its "NCCL error in: ..." after "Last error:" (NCCL 2.13+: the text of its
# last WARN line, without the source file), on the same line or the next one, after a rank's or worker's prefix.
# Only those two lines: where NCCL kept no reason the line is empty, and what follows it is torch's own trace
# ("Exception raised from getNCCLComm at ...", "frame #0: ...") or the next traceback, not NCCL's words.
_NCCL_LAST_ERROR = [_P(r"Last error:[ \t]*(?:\r?\n[ \t]*)?(?:\[(?:rank\d+|[\w.-]{1,40}\|\d+)\]:[ \t]*|\([^)\n]{1,80}\)[ \t]*"
                       r"|(?:ERROR|WARNING|INFO) [\d-]+ [\d:]+ \[?[\w.]+:\d+\][ \t]*)*"
                       r"(?!Exception raised from |frame #\d|Traceback \(most recent)([^\s\[(][^\n]{2,200})",
                       literals=("Last error:",), span=400)]
# The NCCL the ranks loaded, as vLLM ("vLLM is using nccl==2.21.5") or NCCL itself ("NCCL version 2.21.5+cuda12.4")
# prints it: two versions in one paste are ranks (a trainer and vLLM's workers, two nodes) whose NCCLs differ.
_NCCL_VERSIONS = (_P(r"vLLM is using nccl==(\d+\.\d+\.\d+)", literals=("using nccl==",)),
                  _P(r"\bNCCL version (\d+\.\d+\.\d+)(?:\+(?:cuda|hip)[\d.]+)?", literals=("NCCL version",)))
# The interface and address NCCL's bootstrap picked (NCCL_DEBUG=INFO: "NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
# later "Bootstrap: Using ..."): where the other ranks must connect.
_NCCL_BOOTSTRAP = _P(r"NCCL INFO Bootstrap ?: Using ([A-Za-z][\w.-]{0,30}:[0-9A-Fa-f.:%]{3,45})<\d+>",
                     literals=("Bootstrap",))


# The interfaces NCCL was told to use (NCCL_DEBUG=INFO: "NCCL INFO NCCL_SOCKET_IFNAME set by environment to ^lo,docker";
# or the variable as the paste sets it: `export NCCL_SOCKET_IFNAME=eth0`, `NCCL_SOCKET_IFNAME=ib0 vllm serve ...`,
# `-e NCCL_SOCKET_IFNAME=...`)
_NCCL_SOCKET_IFNAME = [_P(r"\bNCCL_SOCKET_IFNAME(?: set by environment to |=)['\"]?([\^=]?[\w.,^=:-]{1,60})",
                          literals=("NCCL_SOCKET_IFNAME",))]


# Ray's driver (worker.py, Ray 1.x - 2.x) when its ray.init() found no cluster to join (no address given, no `ray start`
# on this machine or in this container) and started one of its own: vLLM's engine then sees only this machine's devices
_RAY_LOCAL_SENTENCE = "Started a local Ray instance"
_RAY_LOCAL_INSTANCE = LazyRe(r"\b" + _RAY_LOCAL_SENTENCE + r"\b")
# vLLM's own warning before it asks Ray for a placement group (vllm/v1/executor/ray_utils.py initialize_ray_cluster,
# 0.32): the ranks asked for against the GPUs torch counts on this machine
_RAY_LOCAL_GPUS = LazyRe(r"Tensor parallel size \((\d+)\) exceeds available GPUs \((\d+)\)\. This may result in Ray "
                         r"placement group allocation failures")
# vLLM's Ray executor waiting for its placement group (ray_utils.py _wait_until_pg_ready's INFO, repeated at 10, 30, 70 ...
# seconds, and initialize_ray_cluster's warning that the cluster counts fewer devices than ranks, 0.7+), and what shows
# the wait ended: the workers vLLM places in the group print (RayWorkerWrapper's own lines), the weights load, the server
# or the batch runs. Only vLLM prints these, so the wait is vLLM's own.
_RAY_PG_WAIT = LazyRe(r"Waiting for creating a placement group of specs for (\d+) seconds\.(?: specs=(\[[^\]]{0,600}\]))?"
                      r"|The number of required \w+?s exceeds the total\b(?! number of available \w+?s in the cluster)")
_RAY_PG_SETTLED = LazyRe(r"\((?:RayWorkerWrapper|RayWorkerProc) pid=|Loading weights took|Model loading took"
                         r"|Application startup complete|init engine \(profile|Avg prompt throughput|Processed prompts")


# the NCCL library a user pointed vLLM's wrapper at (vLLM's nccl.py: "Found nccl from environment variable
# VLLM_NCCL_SO_PATH=/path/libnccl.so.2")
_VLLM_NCCL_SO_PATH = [_P(r"Found nccl from environment variable VLLM_NCCL_SO_PATH=(\S{1,300})",
                         literals=("VLLM_NCCL_SO_PATH",)),
                      # the person's own setting, on the command line that ran vLLM, an `export`, or a container's `-e`
                      _P(r"(?:^|[\s'\"])VLLM_NCCL_SO_PATH=['\"]?([^\s'\"]{1,300})", literals=("VLLM_NCCL_SO_PATH",))]


def nccl_versions(text: str) -> list[str]:
    """Each NCCL version the paste shows, once, in order."""
    return list(dict.fromkeys(m.group(1) for p in _NCCL_VERSIONS for m in _all(p, text)))


# NCCL's result for a CUDA call that failed, in torch's, vLLM's and cupy's words
_NCCL_UNHANDLED_CUDA = ("ncclUnhandledCudaError", "unhandled cuda error", "NCCL_ERROR_UNHANDLED_CUDA_ERROR")


def nccl_shm_register(text: str) -> bool:
    """NCCL failed to make its shared-memory segment at a CUDA call, in a release that reserves the segment's room
    first: NCCL 2.19+ (src/misc/shmutils.cc) fallocates the file, so a /dev/shm without room fails there as
    ncclSystemError, and a CUDA failure after it (ncclUnhandledCudaError) is cudaHostRegister refusing to pin the
    mapped file for the GPU: pinned memory the platform limits (WSL2 above all), not /dev/shm's size. Releases 2.13 to
    2.18 only ftruncate the file, so there a full /dev/shm surfaces at the registration too: not those."""
    if "shared memory segment" not in text or not any(w in text for w in _NCCL_UNHANDLED_CUDA):
        return False
    versions = [tuple(int(x) for x in v.split(".")[:2]) for v in nccl_versions(text)]
    return bool(versions) and all(v >= (2, 19) for v in versions)


def nccl_bootstrap(text: str) -> list[str]:
    """Each interface:address NCCL's bootstrap used, once, in order."""
    return list(dict.fromkeys(m.group(1) for m in _all(_NCCL_BOOTSTRAP, text)))


def weight_sync(low: str) -> str | None:
    """Whose weight-sync group with vLLM's workers the paste shows: "server" (TRL, ms-swift: the vLLM server sets it
    up), "trainer" (OpenRLHF, verl, vLLM's weight-transfer engine: the trainer does) or "group" (such a group, whoever
    set it up)."""
    present = _markers_present(low)
    return next((kind for kind, markers in _WEIGHT_SYNC if present(markers)), None)


def ray_local_gpus(text: str) -> dict:
    """vLLM's warning that it asks Ray for more ranks than this machine's GPUs: {"ray_world_size", "ray_local_gpus"}."""
    m = _RAY_LOCAL_GPUS.search(text) if "exceeds available GPUs" in text else None
    return {"ray_world_size": m.group(1) if m else None, "ray_local_gpus": m.group(2) if m else None}


def ray_pg_wait(text: str) -> dict:
    """vLLM's Ray executor waiting for its placement group: whether the paste ends inside that wait ("ray_pg_pending":
    True, no line after the last wait shows its workers or the model running; False where one does; None where the paste
    shows no such wait), and the last wait's figures ("ray_pg_waited" seconds, "ray_pg_specs" the bundles)."""
    last = None
    if "placement group" in text or "exceeds the total" in text:
        for last in _RAY_PG_WAIT.finditer(text):
            pass
    if last is None:
        return {"ray_pg_pending": None, "ray_pg_waited": None, "ray_pg_specs": None}
    return {"ray_pg_pending": _RAY_PG_SETTLED.search(text, last.end()) is None,
            "ray_pg_waited": last.group(1), "ray_pg_specs": last.group(2)}
