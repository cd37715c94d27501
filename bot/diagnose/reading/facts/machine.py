"""The machine beneath the process: the shared libraries the dynamic loader names, resource limits (ulimit, RLIMIT, the
pids cgroup), the OS (native Windows, WSL, macOS) and the container kind, and how much /dev/shm had.
"""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe

from .patterns import _P, _all, _first, _line_starts
from .traceback_frames import MAX_FRAMES, _FRAME_PATH


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
