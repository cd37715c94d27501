"""Whether the paste is pip or uv installing, building or resolving vLLM itself, whose failure a vLLM help channel
answers (pip installing other packages is not); the sdist it built, a CUDA build, a source checkout.
"""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe

from .markers import _BUILDING, _PIP_INSTALLS_VLLM, _VLLM_INSTALL_MARKS, _markers_present
from .patterns import _P, _all


# pip's own words naming vLLM as what it cannot find, or as the package whose pin it is fetching ("Collecting
# vllm" alone is not: another package's install pulls vLLM in, and fails on its own)
_PIP_INSTALL_VLLM_COMMAND = _P(r"\b(?:uv )?pip3?(?: -m pip)? install\b[^\n]{0,200}?(?<![\w/.-])vllm\b(?![/.-]\w)",
                               literals=("pip install", "pip3 install"))
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
