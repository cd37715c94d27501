"""Tables of the operating system a vLLM process meets: errno, signals, resource limits and the
dynamic loader's messages. Read from the build machine (Linux, glibc) through CPython itself:

- errno: every name of CPython's `errno` module, its number, `os.strerror` (glibc's text, as an
  OSError prints it: "[Errno 28] No space left on device") and the OSError subclass CPython raises
  for it (`type(OSError(n, ""))`: PermissionError, FileNotFoundError, ...).
- signals: `signal.Signals`, `signal.strsignal`; a process a signal ends exits 128+n in a shell
  and has returncode -n in Python's subprocess.
- rlimits: CPython's `resource.RLIMIT_*`, with util-linux `prlimit`'s description and unit, and the
  flag of bash's `ulimit` with bash's own words (`help ulimit`). Which flag sets which limit is
  bash's builtins/ulimit.def table, repeated in ULIMIT_FLAGS by hand.
- loader shapes: the messages glibc's ld.so and dlerror() print, as regexes with named groups,
  written by hand from glibc's elf/dl-load.c, dl-version.c, dl-lookup.c and dl-tls.c; the build
  checks that each shape's fixed words are in the build machine's ld.so or libc (`seen` says
  which), so a glibc that rewords one shows up in the build's output.
"""

from __future__ import annotations

import errno
import os
import re
import resource
import shutil
import signal
import subprocess
from pathlib import Path

# bash builtins/ulimit.def, limits[]: the option letter of each RLIMIT_* (Linux has these).
ULIMIT_FLAGS = {"CORE": "c", "DATA": "d", "NICE": "e", "FSIZE": "f", "SIGPENDING": "i", "MEMLOCK": "l",
                "RSS": "m", "NOFILE": "n", "MSGQUEUE": "q", "RTPRIO": "r", "STACK": "s", "CPU": "t",
                "NPROC": "u", "AS": "v", "LOCKS": "x", "RTTIME": "R"}

# (name, regex, the fixed words the loader prints, what it means). The path groups stop at white
# space: libraries and programs with spaces in their paths are rare in these logs.
LOADER_SHAPES = [
    # " (deleted)": a path read from /proc/self/maps (vLLM's find_loaded_library, for libcudart) whose file was
    # unlinked after the process mapped it; the kernel appends the words, and dlopen of that string fails
    ("cannot_open", r"(?P<library>[^\s:'\"]+)(?P<deleted> \(deleted\))?: cannot open shared object file: "
     r"(?P<reason>[^\n'\"]+?)(?=['\"]|$|\n)",
     "cannot open shared object file", "the loader did not find the library on its search path, or could not read it"),
    ("error_while_loading", r"(?P<program>\S+): error while loading shared libraries: (?P<library>[^\s:]+): "
     r"(?P<reason>[^\n]+)", "error while loading shared libraries",
     "a program could not start: a library it needs did not load"),
    # "(required by ...)" is often cut by a wrapper (vLLM's "Failed to import from vllm._C with
    # ImportError(...)") or by the person pasting; the symbol version alone still says what is missing
    ("version_not_found", r"(?P<library>[^\s'\"(]+): version [`'](?P<version>[^'`]+)' not found(?: \(required by "
     r"(?P<required_by>[^)]+)\))?", "' not found", "the library that was loaded is older than the one "
     "the requiring file was built against: it lacks that symbol version"),
    # dl-lookup.c writes "undefined symbol: %s%s%s": the name, then ", version " and the symbol's version when the
    # needing file asked for a versioned one (a library's soname as its tag: "cudaGetDriverEntryPointByVersion,
    # version libcudart.so.12"): the version names the library that should have defined it
    ("undefined_symbol", r"(?P<library>[^\s:'\"]+): undefined symbol: (?P<symbol>[^\s'\",]+)"
     r"(?:, version (?P<symbol_lib>[^\s'\"]+))?", "undefined symbol: ",
     "the library needs a symbol no loaded library defines: it was built against another release of one"),
    ("symbol_lookup_error", r"(?P<program>\S+): symbol lookup error: (?P<library>[^\s:]+): undefined symbol: "
     r"(?P<symbol>[^\s,]+)(?:, version (?P<symbol_lib>\S+))?", "symbol lookup error",
     "a running program called a symbol no loaded library defines"),
    ("wrong_elf_class", r"(?P<library>[^\s:'\"]+): wrong ELF class: (?P<elf_class>ELFCLASS\d+)", "wrong ELF class",
     "the library is built for a 32-bit (or 64-bit) process, not this one"),
    ("invalid_elf_header", r"(?P<library>[^\s:'\"]+): invalid ELF header", "invalid ELF header",
     "the file is not a shared library (a text stub, a Git LFS pointer, another platform's file)"),
    ("file_too_short", r"(?P<library>[^\s:'\"]+): file too short", "file too short",
     "the library file is truncated or empty"),
    # dl-load.c's read of the file's ELF header failed: "Is a directory" for a folder given where a library file
    # belongs (ctypes.CDLL on VLLM_NCCL_SO_PATH=/usr/lib/x86_64-linux-gnu/), otherwise an I/O error
    ("cannot_read", r"(?P<library>[^\s:'\"]+): cannot read file data: (?P<reason>[^\n'\"]+?)(?=['\"]|$|\n)",
     "cannot read file data", "the loader could not read the file: the path is a folder, or the file cannot be read"),
    ("failed_to_map", r"(?P<library>[^\s:'\"]+): failed to map segment from shared object(?:: (?P<reason>[^\n'\"]+?))?"
     r"(?=['\"]|$|\n)", "failed to map segment from shared object", "the loader could not map the library into memory "
     "(an address-space limit, memory exhausted, or a filesystem mounted noexec)"),
    ("static_tls", r"(?P<library>[^\s:'\"]+): cannot allocate memory in static TLS block", "static TLS block",
     "a library loaded late needs static thread-local storage that is already used up"),
    ("executable_stack", r"(?P<library>[^\s:'\"]+): cannot enable executable stack as shared object requires: "
     r"(?P<reason>[^\n]+)", "cannot enable executable stack", "the library asks for an executable stack, which "
     "this glibc or kernel refuses"),
    ("no_version_information", r"(?P<library>\S+): no version information available \(required by "
     r"(?P<required_by>[^)]+)\)", "no version information available",
     "a warning: the library has no symbol versions the requiring file expects"),
]


def errno_table() -> list[list]:
    """[[number, name, strerror, OSError subclass, aliases]]"""
    names: dict[int, list[str]] = {}
    for name in dir(errno):
        value = getattr(errno, name)
        if name.startswith("E") and name.isupper() and isinstance(value, int):
            names.setdefault(value, []).append(name)
    out = []
    for number, all_names in sorted(names.items()):
        main = errno.errorcode.get(number, sorted(all_names)[0])
        out.append([number, main, os.strerror(number), type(OSError(number, "")).__name__,
                    sorted(n for n in all_names if n != main)])
    return out


def signal_table() -> list[list]:
    """[[number, name, description]] (exit code 128+n, returncode -n: the lookup derives them)"""
    return [[s.value, s.name, signal.strsignal(s.value)] for s in sorted(signal.Signals, key=lambda s: s.value)]


def _prlimit() -> dict[str, tuple[str, str]]:
    if not shutil.which("prlimit"):
        return {}
    out = subprocess.run(["prlimit", "--noheadings", "--raw", "--output", "RESOURCE,DESCRIPTION,UNITS"],
                         capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2:
            # --raw separates columns with one space and escapes spaces inside a column as \x20
            cols = [c.replace("\\x20", " ") for c in line.split(" ")]
            rows[cols[0]] = (cols[1] if len(cols) > 1 else "", cols[2] if len(cols) > 2 else "")
    return rows


def _bash_ulimit() -> dict[str, str]:
    if not shutil.which("bash"):
        return {}
    text = subprocess.run(["bash", "-c", "help ulimit"], capture_output=True, text=True).stdout
    return dict(re.findall(r"^\s+-([A-Za-z])\t(.+)$", text, re.M))


def rlimit_table() -> list[list]:
    """[[number, RLIMIT_ name, description, unit, ulimit flag, bash's words]]"""
    described, bash = _prlimit(), _bash_ulimit()
    out = []
    for name in sorted(n for n in dir(resource) if n.startswith("RLIMIT_")):
        short = name.removeprefix("RLIMIT_")
        desc, unit = described.get(short, ("", ""))
        flag = ULIMIT_FLAGS.get(short)
        out.append([getattr(resource, name), name, desc or None, unit or None, flag and f"-{flag}",
                    bash.get(flag) if flag else None])
    return sorted(out)


def _loader_texts() -> bytes:
    data = b""
    for path in ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "/lib/x86_64-linux-gnu/libc.so.6",
                 "/lib/aarch64-linux-gnu/libc.so.6"):
        if Path(path).exists():
            data += Path(path).read_bytes()
    return data


def loader_shapes() -> list[list]:
    """[[name, regex, meaning, seen in the build machine's glibc]]"""
    texts = _loader_texts()
    out = []
    for name, rx, words, meaning in LOADER_SHAPES:
        re.compile(rx)
        out.append([name, rx, meaning, words.encode() in texts if texts else None])
    return out


def build() -> dict:
    import platform
    where = f"CPython {platform.python_version()} on {platform.system()} {platform.machine()}, " \
            f"glibc {platform.libc_ver()[1]}"
    return {
        "errno": {"rows": errno_table(), "source": f"{where}: errno, os.strerror, OSError subclasses"},
        "signals": {"rows": signal_table(), "source": f"{where}: signal.Signals, signal.strsignal"},
        "rlimits": {"rows": rlimit_table(), "source": f"{where}: resource.RLIMIT_*; util-linux prlimit; bash "
                                                      "help ulimit; flags from bash builtins/ulimit.def, by hand"},
        "loader": {"rows": loader_shapes(), "source": "glibc elf/dl-load.c, dl-version.c, dl-lookup.c, dl-tls.c, "
                                                      "by hand; fixed words checked against the build machine's "
                                                      "ld.so and libc"},
    }
