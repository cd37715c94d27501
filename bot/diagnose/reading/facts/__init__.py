"""Facts a log gives away about its environment: versions, GPU, engine arguments, engine starts, the stack beneath
vLLM, and the program that printed it. extract(text) builds the facts dict the rules, guards and answers read.

Each module reads one part of it:
  patterns          how a fact's patterns are searched: only the lines that hold their literals; the per-paste memo
  markers           the lower-case words of other programs, frameworks' modes and vLLM's hosts: one pass finds them
  stated_versions   the vLLM, torch and CUDA releases the paste states
  hardware          the GPU, its driver and capability, torch's build for it, the platform vLLM detected or why none
  arguments         how the user ran vLLM: the server or LLM(), the arguments they set, the model's sizes
  vllm_run          vLLM's own run: its engine starts, phases, stops, a native crash, its warnings
  traceback_frames  a traceback's frames: which code raised, vLLM's own frames, the asserts that failed
  distributed       NCCL, Ray, and the weight-sync group between an RL trainer and vLLM
  install           pip or uv installing or building vLLM itself
  machine           the machine beneath the process: the loader's libraries, limits, the OS, /dev/shm
  containers        a container the paste runs: its image, whether it asks for the GPU
  pip_uv            what pip and uv say: conflicts, wheels and their platform, a package index that failed
  hub               the Hugging Face Hub's client: offline, its HTTP and connection errors, its endpoint
  stack_beneath     environment(): the facts of the stack beneath vLLM, as the stack index's keys
  other_programs    other programs, by their log's shape or what they do where nothing names them
  vllm_signs        what shows vLLM: its own lines, its server's answer relayed, a mention, a framework hosting it
  program           foreign_context(): the program that printed the paste, when it is evidently not vLLM
"""

from __future__ import annotations

import re

from bot.diagnose.reading import gpus

from .arguments import (
    _ENGINE_CONFIG, _MODEL_IN_CALL, _NON_DEFAULT_ARGS, _OFFLINE_MARKS, _SERVER_MARKS, _SERVE_MODULE, _all_args,
    chat_template_shown, model_sizes, user_args,
)
from .containers import container_gpu_command, container_gpu_request, container_image
from .distributed import (
    _NCCL_CUDA_FAILURE, _NCCL_LAST_ERROR, _NCCL_SOCKET_IFNAME, _RAY_LOCAL_INSTANCE, _RAY_LOCAL_SENTENCE,
    _VLLM_NCCL_SO_PATH, nccl_bootstrap, nccl_shm_register, nccl_versions, ray_local_gpus, ray_pg_wait, weight_sync,
)
from .hardware import (
    _ASCEND_CALL_CODE, _ASCEND_SHOWN, _CAPABILITY, _DRIVER, _GPU, _GPU_TOTAL, _HPU_SHOWN, _PLATFORM, _ROCM_SHOWN,
    _TORCH_GPU_UNSUPPORTED, _TORCH_MIN_CC, _TORCH_SUGGESTS_CUDA, gpu_xids, platform_probe, torch_archs, torch_build,
    torch_range_floor, vllm_cpu_wheel,
)
from .hub import hf_endpoint, hub_client_error
from .install import _NO_COMMIT_FILE, cuda_build, vllm_install, vllm_sdist
from .machine import dev_shm_df_mb, dev_shm_mb, host, set_limit
from .other_programs import foreign_shape, program_sign
from .patterns import _first
from .pip_uv import (
    index_failure, pip_conflicts, pip_installing_full, pip_python_ignored, platform_arch, platform_os,
    uv_unchecked_index,
)
from .program import collected_bare, env_only_mention, foreign_context
from .stack_beneath import environment
from .stated_versions import _CUDA, _TORCH, _vllm_version
from .traceback_frames import (
    _DYNAMO_ASSERT, _TRITON_ABSENT, _asserts, _failed_assert_rows, _sites, assert_sites, failed_asserts, frames,
    site_package, traceback_paths, vllm_ext_import, vllm_frames,
)
from .vllm_run import (
    NATIVE_CRASH_REPORT, _FAILED_WRITE, _SHUTDOWN_ASKED, batch_done_at_exit, batch_done_before, engine_core_silent,
    engine_starts, long_max_model_len, native_crash_report, offline_batch, phase_marks, run_starts, stopped_spans,
    unknown_vllm_env,
)
from .vllm_signs import (
    _VLLM_SERVER_ERROR, _hosts_vllm, _mentions_vllm, rl_trainer, vllm_as_library, vllm_mode, vllm_printed,
)

# What other modules and the tests read as facts.<name>; each is defined in the module it is imported from above
__all__ = [
    "extract", "NATIVE_CRASH_REPORT", "assert_sites", "batch_done_before", "collected_bare", "container_gpu_command",
    "container_gpu_request", "container_image", "engine_core_silent", "engine_starts", "env_only_mention",
    "failed_asserts", "foreign_context", "foreign_shape", "frames", "hf_endpoint", "host", "hub_client_error",
    "index_failure", "model_sizes", "native_crash_report", "nccl_shm_register", "offline_batch", "phase_marks",
    "pip_conflicts", "pip_installing_full", "pip_python_ignored", "platform_arch", "platform_os", "platform_probe",
    "program_sign", "rl_trainer", "run_starts", "set_limit", "site_package", "stopped_spans", "traceback_paths",
    "user_args", "uv_unchecked_index", "vllm_as_library", "vllm_ext_import", "vllm_frames", "vllm_install",
    "vllm_printed",
]


# Versions, GPU and arguments are printed when a process starts (or in a collect_env paste at either
# end), and the GPU's name, capability and memory in the error messages themselves: reading a window
# at each end plus the error lines keeps a long paste from costing a scan per fact. vLLM's start,
# through its engine config, fits in the first 30 KB; a collect_env report in 20 KB.
WINDOW = 64 * 1024
TAIL_WINDOW = 32 * 1024


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
