"""A traceback's frames: "path:function" from the package on (which code raised), vLLM's own frames with their line
numbers, the asserts that failed and where, the files of Python's, a notebook's or rich's frames, the package a
site-packages path is in; vLLM's compiled extension or Triton failing to import.
"""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe

from .patterns import _P


# (a native frame written Python's way, `File "<unknown>", line 0, in cudaMemcpyAsync`, as tvm_ffi's crash report and
# torch's symbolized C++ stacks print them, is no Python code's: Python names no file "<unknown>")
_FRAME_PATH = LazyRe(r'File "(?!<unknown>")([^"]+)", line \d+')
_FRAME = LazyRe(r'File "(?!<unknown>")([^"\n]{1,400})", line \d+, in ([\w<>.]{1,80})')
_PACKAGE_ROOT = LazyRe(r"^.*[/\\](?:site-packages|dist-packages)[/\\]")
MAX_FRAMES = 200


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
