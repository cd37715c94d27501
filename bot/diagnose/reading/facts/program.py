"""foreign_context(): the program that printed the paste, when it is evidently not vLLM (a named stack, another
program's log or traceback, native Windows), read from the markers, the signs of vLLM and of other programs; and a
paste whose lines a log collector prefixed, read again without the prefixes.
"""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe
from bot.diagnose.reading.tracebacks import COLLECTORS

from .install import vllm_install
from .machine import _POSIX_ONLY, _WINDOWS_RUN, _ran_on_posix
from .markers import (
    _FOREIGN, _FOREIGN_RUNNERS, _OTHER_MODES, _ROLLOUT_TRAINERS, _VLLM_MENTIONED, _VLLM_MODES, _markers_present,
)
from .other_programs import _OTHER_ENGINES, _rust_program, foreign_shape, loader_program, program_sign
from .traceback_frames import _STACK_PACKAGES, site_package, traceback_paths
from .vllm_signs import (
    _VLLM_SERVER_ERROR, _mentions_vllm, _relayed_actor_fate, _relayed_server_error, _vllm_ran, names_vllm,
    vllm_as_library, vllm_printed,
)


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
