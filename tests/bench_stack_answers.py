"""Synthetic pastes from the stack index's own tables, through the whole diagnose(): every CUDA
runtime and driver code, NCCL and NVML code, HIP/HSA code, Level Zero, Unified Runtime and AMD SMI code, status of CUDA's math libraries (cuBLAS, cuDNN,
cuSOLVER, cuSPARSE, cuRAND, cuFFT), errno, loader shape and huggingface_hub error, each in the form
a vLLM log prints it (an engine core's traceback), and whether the first answer names it: the code's
number with its name or text, the status's name, the errno's name or text, the library the loader
refused, the Hub's exception class (or a hand-written rule for the Hub's cause); every attribute a
base class of transformers' tokenizers, configs, models and processors, DynamicCache or a model's config class
lost, whose answer must name the release that removed it; and a CPU-only torch under each vLLM release (the answer must give the
install command for the torch that release pins, from the index of its CUDA), and torch's failed CUDA
start under vLLM's device errors.

    python tests/bench_stack_answers.py [--sample 12] [--seed 3]

Target (issue 21): ≥ 85 % named. A random sample of answers is printed for a person to check.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.diagnose import diagnose  # noqa: E402
from bot.diagnose.knowledge.stack import stack_index  # noqa: E402

HEAD = ("INFO 12-02 10:00:00 [api_utils.py:273] non-default args: {'model': '/models/m'}\n"
        "(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] EngineCore failed to start.\n"
        "(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] Traceback (most recent call last):\n"
        '(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 1320, in run_engine_core\n'
        "(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330]     engine_core = EngineCoreProc(*args, **kwargs)\n")
FRAME = '(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330]   File "/usr/local/lib/python3.12/dist-packages/{file}", line {line}, in {func}\n'
LAST = "(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] {message}\n"
TAIL = ("Traceback (most recent call last):\n"
        '  File "/app/serve.py", line 9, in <module>\n'
        "    llm = LLM(model='/models/m')\n"
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n")


def paste(message: str, frames: list[tuple[str, int, str]]) -> str:
    return HEAD + "".join(FRAME.format(file=f, line=n, func=fn) for f, n, fn in frames) + \
        LAST.format(message=message) + TAIL


CUDA_FRAMES = [("vllm/v1/worker/gpu_worker.py", 240, "init_device"), ("torch/cuda/__init__.py", 567, "set_device")]
NCCL_FRAMES = [("vllm/distributed/device_communicators/pynccl.py", 120, "__init__")]
NVML_FRAMES = [("vllm/platforms/cuda.py", 520, "get_device_name"), ("pynvml.py", 2468, "_nvmlCheckReturn")]
OS_FRAMES = [("vllm/model_executor/models/registry.py", 941, "_save_modelinfo_to_cache"), ("vllm/utils/__init__.py", 20, "atomic_writer")]
LOADER_FRAMES = [("vllm/platforms/__init__.py", 40, "cuda_platform_plugin"), ("vllm/_custom_ops.py", 14, "<module>")]
GEMM_FRAMES = [("vllm/model_executor/layers/linear.py", 230, "apply"), ("vllm/model_executor/layers/utils.py", 100, "default_unquantized_gemm")]
CONV_FRAMES = [("vllm/model_executor/models/qwen2_5_vl.py", 420, "forward"), ("torch/nn/modules/conv.py", 720, "_conv_forward")]
HUB_FRAMES = [("vllm/transformers_utils/config.py", 600, "get_config")]     # then the site's own frame

# One message of each of the loader's shapes, as glibc's loader words them.
LOADER_SAMPLES = {
    "cannot_open": ("ImportError: libcudart.so.12: cannot open shared object file: No such file or directory", "libcudart.so.12"),
    "version_not_found": ("ImportError: /opt/conda/lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so)", "GLIBCXX_3.4.30"),
    "undefined_symbol": ("ImportError: /usr/local/lib/python3.12/dist-packages/flash_attn_2_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEi", "_ZN3c104cuda9SetDeviceEi"),
    "symbol_lookup_error": ("python3: symbol lookup error: /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommInitRankConfig", "ncclCommInitRankConfig"),
    "wrong_elf_class": ("ImportError: /opt/lib/libnccl.so.2: wrong ELF class: ELFCLASS32", "libnccl.so.2"),
    "invalid_elf_header": ("ImportError: /opt/lib/libcublas.so.12: invalid ELF header", "libcublas.so.12"),
    "file_too_short": ("ImportError: /usr/local/lib/python3.12/dist-packages/nvidia/cudnn/lib/libcudnn.so.9: file too short", "libcudnn.so.9"),
    "cannot_read": ("OSError: /usr/lib/x86_64-linux-gnu/: cannot read file data: Is a directory", "/usr/lib/x86_64-linux-gnu/"),
    "failed_to_map": ("ImportError: /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so: failed to map segment from shared object", "libtorch_cuda.so"),
    "static_tls": ("ImportError: /usr/lib/aarch64-linux-gnu/libgomp.so.1: cannot allocate memory in static TLS block", "libgomp.so.1"),
    "executable_stack": ("ImportError: /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cpu.so: cannot enable executable stack as shared object requires: Invalid argument", "libtorch_cpu.so"),
    "error_while_loading": ("/usr/bin/python3: error while loading shared libraries: libpython3.12.so.1.0: cannot open shared object file: No such file or directory", "libpython3.12.so.1.0"),
    "no_version_information": ("/usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so: no version information available (required by /usr/bin/python3)", "_C.abi3.so"),
}


# How torch prints each math library's status (aten/src/ATen/cuda: CUDABlas, cuDNN's and cuSOLVER's checks,
# CuFFTUtils): the status's name, in these words; cuSPARSE's and cuRAND's are printed likewise by name.
LIBRARY_MESSAGES = {
    "cublas": ("RuntimeError: CUDA error: {name} when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, "
               "CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, CUDA_R_16BF, ldc, compute_type, "
               "CUBLAS_GEMM_DEFAULT_TENSOR_OP)`", GEMM_FRAMES),
    "cudnn": ("RuntimeError: cuDNN error: {name}", CONV_FRAMES),
    "cusolver": ("RuntimeError: cusolver error: {name}, when calling `cusolverDnCreate(handle)`", GEMM_FRAMES),
    "cusparse": ("RuntimeError: CUDA error: {name} when calling `cusparseSpMM(handle, opA, opB, &alpha, matA, matB, "
                 "&beta, matC, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, dBuffer)`", GEMM_FRAMES),
    "curand": ("RuntimeError: cuRAND error: {name}", GEMM_FRAMES),
    "cufft": ("RuntimeError: cuFFT error: {name}", [("vllm/model_executor/models/whisper.py", 300, "forward"),
                                                   ("torch/functional.py", 700, "stft")]),
}


def cases(ix) -> list[tuple[str, str, str, list[str]]]:
    """(kind, key, paste, words any of which the answer must contain)."""
    out = []
    seen = set()
    for rec in ix._cuda()["runtime"]:
        if rec.number == 0 or not rec.text:
            continue
        out.append(("cuda runtime", rec.name, paste(f"torch.AcceleratorError: CUDA error: {rec.text}", CUDA_FRAMES),
                    [rec.name, rec.text]))
    for rec in ix._cuda()["driver"]:
        if rec.number == 0:
            continue
        out.append(("cuda driver", rec.name, paste(f"RuntimeError: Triton Error [CUDA]: {rec.name}", CUDA_FRAMES),
                    [rec.name] + ([rec.text] if rec.text else [])))
    for rec in {r.number: r for r in ix._nccl().values()}.values():
        if rec.number == 0:
            continue
        out.append(("nccl", rec.name, paste(f"RuntimeError: NCCL error: {rec.text}", NCCL_FRAMES),
                    [rec.name, rec.text, rec.text.split(" (")[0]]))
    for rec in {r.number: r for r in ix._nvml().values()}.values():
        if rec.number == 0 or not rec.exception:
            continue
        out.append(("nvml", rec.name, paste(f"pynvml.{rec.exception}: {rec.text or rec.name}", NVML_FRAMES),
                    [rec.name, rec.exception] + ([rec.text] if rec.text else [])))
    for rec in {r.name: r for r in ix._hip().values()}.values():
        if rec.number == 0 or rec.deprecated or "_ERROR" not in rec.name and rec.api == "hsa":     # not errors
            continue
        # torch for ROCm prints "HIP error: <text>"; a code without a known text is named, as HIP's own log does
        message = f"RuntimeError: HIP error: {rec.text}" if rec.text else \
            f"RuntimeError: {rec.name}: {rec.doc or 'failed'}" if rec.api == "hip" else f"RuntimeError: {rec.name}: {rec.doc}"
        out.append((rec.api, rec.name, paste(message, CUDA_FRAMES), [rec.name] + ([rec.text] if rec.text else [])))
    # Intel's stack names its codes as oneCCL and the SYCL runtime print them; AMD SMI as its exception does
    for rec in ix._platform_codes().values():
        if rec.number == 0 or "_ERROR" not in rec.name and rec.kind != "amdsmi":
            continue
        message = {"level_zero": f"RuntimeError: oneCCL: ze_call.cpp:28 do_call: EXCEPTION: ze error at zeMemAllocDevice, code: {rec.name}",
                   "unified_runtime": f"RuntimeError: level_zero backend failed with error: {rec.number} ({rec.name})",
                   "amdsmi": f"amdsmi.amdsmi_exception.AmdSmiLibraryException: Error code:\n\t{rec.number} | {rec.name} - {rec.text}"}[rec.kind]
        out.append((rec.kind, rec.name, paste(message, CUDA_FRAMES), [rec.name]))
    # Huawei Ascend: torch_npu's checks of an ACL and an HCCL call, with its own code under them
    for key, rec in ix._ascend().items():
        if not isinstance(key, tuple) or key[0] == "torch_npu" or rec.number == 0:
            continue
        message = {"acl": f"RuntimeError: Initialize:torch_npu/csrc/core/npu/sys_ctrl/npu_sys_ctrl.cpp:146 NPU function error: "
                          f"aclrtSetDevice(device_id_), error code is {rec.number}\n[ERROR] 2025-07-01-08:38:50 (PID:114020, "
                          f"Device:-1, RankID:1) ERR00100 PTA call acl api failed",
                   "hccl": f"RuntimeError: HcclAllreduce:torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:3120 HCCL function error: "
                           f"HcclAllReduce(input, output, count, type, op, comm, stream), error code is {rec.number}\n[ERROR] "
                           f"2025-07-01-08:38:50 (PID:114020, Device:0, RankID:1) ERR02200 DIST call hccl api failed"}[rec.kind]
        out.append((rec.kind, rec.name, paste(message, CUDA_FRAMES), [rec.name]))
    for rec in ix._libraries().values():
        if rec.number == 0:
            continue
        message, frames = LIBRARY_MESSAGES[rec.library]
        out.append((rec.library, rec.name, paste(message.format(name=rec.name), frames), [rec.name]))
    for rec in {r.number: r for r in ix._errno()["keys"].values()}.values():
        if rec.number == 0:
            continue
        exc = rec.exception or "OSError"
        msg = f"{exc}: [Errno {rec.number}] {rec.strerror}: '/root/.cache/vllm/modelinfos/m.json'"
        out.append(("errno", rec.name, paste(msg, OS_FRAMES), [rec.name, f"[Errno {rec.number}]", rec.strerror]))
    for shape, _rx, _meaning in ix.loader_shapes():
        message, key = LOADER_SAMPLES[shape]
        out.append(("loader", shape, paste(message, LOADER_FRAMES), [key]))
    out += torch_build_cases(ix)
    hub = ix._sites("huggingface_hub")
    hub_classes = {c.name for n in set(hub.exc) for c in ix.exception_class(n) if c.package == "huggingface_hub"}
    for i in range(len(hub)):
        site = hub.site(i)
        if site.exc not in hub_classes or (site.exc, site.template) in seen or site.literal_chars < 20:
            continue
        seen.add((site.exc, site.template))
        text = "".join(v if k == "lit" else "Qwen/Qwen2.5-7B" for k, v in site.parts)
        # the frame printed last above an exception is where it was raised: the site's own file
        where = site.where[-1]
        frames = HUB_FRAMES + [(where["file"], where["line"], where["function"] or "<module>")]
        out.append(("hub", site.exc, paste(f"huggingface_hub.errors.{site.exc}: {text}", frames),
                    [site.exc, "Hugging Face"]))
    out += attribute_cases(ix)
    out += signal_cases(ix)
    out += unit_exit_cases(ix)
    return out


def unit_exit_cases(ix) -> list[tuple[str, str, str, list[str]]]:
    """Every exit status of systemd's own, as the journal and `systemctl status` print it for a vLLM service whose
    process systemd could not set up: the answer must name the status."""
    out = []
    for n in range(200, 256):
        status = ix.systemd_exit(n)
        if status is None:
            continue
        code = f"code=exited, status={n}/{status.name}"
        out.append(("unit exit", f"journal {status.name}",
                    f"Dec 08 10:00:00 gpu-node-1 systemd[1]: Started vllm.service - vLLM server.\n"
                    f"Dec 08 10:00:00 gpu-node-1 systemd[1]: vllm.service: Main process exited, {code}\n"
                    f"Dec 08 10:00:00 gpu-node-1 systemd[1]: vllm.service: Failed with result 'exit-code'.\n",
                    [f"{n}/{status.name}"]))
        out.append(("unit exit", f"systemctl {status.name}",
                    "× vllm.service - vLLM server\n"
                    "     Loaded: loaded (/etc/systemd/system/vllm.service; enabled; preset: enabled)\n"
                    f"     Active: failed (Result: exit-code) since Tue 2026-12-08 10:00:00 UTC; 5s ago\n"
                    f"    Process: 2176 ExecStart=/opt/vllm/bin/vllm serve /models/m ({code})\n"
                    f"   Main PID: 2176 ({code})\n", [f"{n}/{status.name}"]))
    return out


# A vLLM run that got as far as serving, then died: what the shell (bash's strsignal() words, a script's "line N:" form),
# CPython's faulthandler and a launcher (Python's subprocess) print for a process a signal ended.
RUN = ("INFO 12-02 10:00:00 [api_utils.py:273] non-default args: {'model': '/models/m'}\n"
       "INFO 12-02 10:00:40 [api_server.py:1900] Starting vLLM API server 0 on http://0.0.0.0:8000\n")
SHELL_WORDS = ("Segmentation fault", "Bus error", "Aborted", "Illegal instruction", "Floating point exception", "Killed")
FAULTS = ("Segmentation fault", "Bus error", "Aborted", "Illegal instruction", "Floating point exception")


def signal_cases(ix) -> list[tuple[str, str, str, list[str]]]:
    """Every signal of the table as a launcher reports it, and the fatal ones as the shell and faulthandler do: the
    answer must name the signal (SIGKILL beside vLLM is the OOM killer's rule, which names the kill)."""
    out = []
    for n in range(1, 32):
        sig = ix.signal(n)
        if sig is None:
            continue
        out.append(("signal", sig.name, RUN + "Traceback (most recent call last):\n"
                    '  File "/usr/lib/python3.12/subprocess.py", line 571, in run\n'
                    "    raise CalledProcessError(retcode, process.args,\n"
                    f"subprocess.CalledProcessError: Command '['vllm', 'serve', '/models/m']' died with "
                    f"<Signals.{sig.name}: {n}>.\n", [sig.name]))
    for words in SHELL_WORDS:
        sig = ix.signal(words)
        out.append(("signal", f"shell {sig.name}", RUN + f"./serve.sh: line 3:  4242 {words}"
                    f"{' (core dumped)' if words != 'Killed' else ''}     vllm serve /models/m\n",
                    [sig.name, "killed", "OOM"]))
    for words in FAULTS:
        sig = ix.signal(words)
        out.append(("signal", f"faulthandler {sig.name}", RUN + f"Fatal Python error: {words}\n\n"
                    "Thread 0x00007f3c5e6f7740 (most recent call first):\n"
                    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 900, in run_busy_loop\n',
                    [sig.name]))
    return out


# An object of each family as vLLM meets one, and the lookup that misses: the tokenizer's own
# __getattr__ (its wording), the config's __getattribute__, torch's Module.__getattr__ for a model,
# and a processor's plain attribute.
ATTRIBUTE_PASTES = {
    "tokenizer": ("{name}", "Qwen2Tokenizer has no attribute {name}",
                  [("vllm/transformers_utils/tokenizer.py", 99, "get_cached_tokenizer"),
                   ("transformers/tokenization_utils_base.py", 1293, "__getattr__")]),
    "config": ("{name}", "'Qwen2Config' object has no attribute '{name}'",
               [("vllm/config/model.py", 700, "__post_init__"), ("transformers/configuration_utils.py", 164, "__getattribute__")]),
    "model": ("{name}", "'Qwen2ForCausalLM' object has no attribute '{name}'",
              [("vllm/model_executor/models/transformers.py", 300, "__init__"), ("torch/nn/modules/module.py", 1940, "__getattr__")]),
    "processor": ("{name}", "'Qwen2VLProcessor' object has no attribute '{name}'",
                  [("vllm/multimodal/processing.py", 900, "__init__")]),
    "cache": ("{name}", "'DynamicCache' object has no attribute '{name}'",
              [("vllm/model_executor/models/transformers.py", 300, "forward")]),
    # config:<Class>: a model's config class against its own fields, read by vLLM as it builds the config
    "config:": ("{name}", "'{cls}' object has no attribute '{name}'",
                [("vllm/config/model.py", 700, "__post_init__"), ("transformers/configuration_utils.py", 164, "__getattribute__")]),
}


_WORDING_CLASS = __import__("re").compile(r"^'?(\w+)")


def attribute_cases(ix) -> list[tuple[str, str, str, list[str]]]:
    """Every name a base class of transformers' objects lost, that the table's first release had: the
    answer must name the release that removed it."""
    from bot.diagnose.knowledge.stack.attribute_names import history
    from bot.diagnose.knowledge.stack.stack_index import _unpack
    out = []
    for family, packed in ix._attributes().get("families", {}).items():
        kind, _, cls = family.partition(":")
        _key, wording, frames = ATTRIBUTE_PASTES[f"{kind}:" if cls else kind]
        for positions, names in _unpack(packed):
            for name in names.split(","):
                # a class's own row read with its bases', as the answer reads it (a name the base took up stays)
                v = history(ix, kind, cls or _WORDING_CLASS.search(wording).group(1), name, {})
                if v.get("at_removed") and not v.get("at_added") and not v.get("at_gap"):
                    out.append(("attribute", f"{family}.{name}",
                                paste("AttributeError: " + wording.format(name=name, cls=cls), frames), [v["at_removed"]]))
    return out


# vLLM's own lines that say which release ran and that it found an NVIDIA GPU (its CUDA platform).
STARTED = ("INFO 12-02 10:00:00 [__init__.py:239] Automatically detected platform cuda.\n"
           "INFO 12-02 10:00:00 [api_server.py:1043] vLLM API server version {vllm}\n")
# torch's warning as CUDA fails to start, then what vLLM says next in its releases' words
CUDA_INIT = ("/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: "
             "CUDA driver initialization failed, you might not have a CUDA gpu. (Triggered internally at "
             "/pytorch/c10/cuda/CUDAFunctions.cpp:109.)\n  return torch._C._cuda_getDeviceCount() > 0\n")
AFTER_INIT = {"infer": ("RuntimeError: Failed to infer device type", [("vllm/engine/arg_utils.py", 1090, "create_engine_config"),
                                                                     ("vllm/config.py", 1700, "__init__")]),
              "empty device": ("RuntimeError: Device string must not be empty", [("vllm/engine/arg_utils.py", 2052, "create_engine_config"),
                                                                                 ("vllm/config/device.py", 78, "__post_init__")]),
              "no gpus": ("RuntimeError: No CUDA GPUs are available", CUDA_FRAMES)}


def torch_build_cases(ix) -> list[tuple[str, str, str, list[str]]]:
    """A CPU-only torch under each vLLM release whose pins name a torch and its CUDA (the answer must give the
    install command: that torch from the index of its CUDA), and torch's failed CUDA start under vLLM's
    device errors (the answer must name the code torch's words stand for)."""
    out = []
    for release in ix.vllm_releases():
        m = ix.manifest(release)
        if not (m.get("torch") and m.get("cuda")):
            continue
        key = stack_index.vkey(m["cuda"])
        command = f'pip install "torch=={m["torch"]}" --index-url https://download.pytorch.org/whl/cu{key[0]}{key[1] if len(key) > 1 else 0}'
        text = STARTED.format(vllm=release) + paste("AssertionError: Torch not compiled with CUDA enabled", CUDA_FRAMES)
        out.append(("torch build", release, text, [command]))
    for key, (message, frames) in AFTER_INIT.items():
        out.append(("cuda init", key, CUDA_INIT + paste(message, frames), ["cudaErrorInitializationError"]))
    return out


def named(report, words: list[str]) -> bool:
    if not report.diagnoses:
        return False
    d = report.diagnoses[0]
    text = "\n".join((d.title, d.cause, d.fix, d.evidence))
    answer = "\n".join((d.title, d.cause, d.fix))
    return any(w and w in answer for w in words) and bool(text)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sample", type=int, default=12)
    p.add_argument("--seed", type=int, default=3)
    args = p.parse_args(argv)
    ix = stack_index.load()
    if ix is None:
        print("the stack index's data is not installed")
        return 1
    per_kind: dict[str, Counter] = defaultdict(Counter)
    by_rule: Counter = Counter()
    answered = []
    for kind, key, text, words in cases(ix):
        report = diagnose(text)
        ok = named(report, words)
        per_kind[kind]["ok" if ok else "no"] += 1
        top = report.diagnoses[0].rule_id if report.diagnoses else "-"
        by_rule[top] += 1
        answered.append((kind, key, top, ok, report))
    total = sum(sum(c.values()) for c in per_kind.values())
    ok = sum(c["ok"] for c in per_kind.values())
    print(f"{'kind':14} {'pastes':>6} {'named':>6}")
    for kind, c in per_kind.items():
        n = sum(c.values())
        print(f"{kind:14} {n:6} {c['ok']:6}  {c['ok'] / n:.1%}")
    print(f"{'all':14} {total:6} {ok:6}  {ok / total:.1%}   (target >= 85%)")
    print("first answers by rule: " + ", ".join(f"{r} {n}" for r, n in by_rule.most_common()))
    misses = [(k, key, top) for k, key, top, good, _ in answered if not good]
    if misses:
        print("not named: " + ", ".join(f"{k}:{key}→{top}" for k, key, top in misses[:40]))
    rng = random.Random(args.seed)
    print(f"\na sample of {args.sample} answers, for a person to check:")
    for kind, key, top, good, report in rng.sample(answered, min(args.sample, len(answered))):
        d = report.diagnoses[0] if report.diagnoses else None
        print(f"- [{kind}] {key}: {top} {'(named)' if good else '(NOT named)'}: {d.title if d else report.verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
