"""NCCL's own WARN line: the source file it names is the part of NCCL that failed, and the answer
gives that part's paragraphs and knob only. The lines are real, from public threads."""

import pytest

from bot.diagnose import diagnose, load_rulebook
from bot.diagnose.answering import advice
from bot.diagnose.reading import facts

BOOK = load_rulebook(use_cache=False)

# part -> (a real WARN line of it, words its cause says, its knob in the fix)
LINES = {
    # vllm#9369
    "nvls": ("kmaker-54-033138205093:44712:44746 [2] transport/nvls.cc:246 NCCL WARN Cuda failure 3 "
             "'initialization error'", "NVLink SHARP", "NCCL_NVLS_ENABLE=0"),
    # ray-project/ray_lightning#24
    "p2p": ("z-pc:909608:910337 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : 217 peer "
            "access is not supported between these two devices", "peer-to-peer", "NCCL_P2P_DISABLE=1"),
    # NVIDIA/nccl#2190
    "shm": ("[2026-05-22 10:26:17] d4fde3314201:13740:13740 [7] misc/shmutils.cc:132 NCCL WARN Error while "
            "attaching to shared memory segment /dev/shm/nccl- (size 0), error: No such file or directory (2)",
            "shared-memory", "NCCL_SHM_DISABLE=1"),
    # NVIDIA/nccl#1657
    "ib": ("aigc-maas-instance-leader-0:1639:1915 [0] misc/ibvwrap.cc:206 NCCL WARN Call to ibv_modify_qp "
           "failed with error No such device errno 19", "InfiniBand", "NCCL_IB_HCA"),
    # NVIDIA/nccl-tests#166
    "socket": ("ubuntu:39964:40075 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to "
               "10.0.0.2<45763> failed : Software caused connection abort", "TCP", "NCCL_SOCKET_IFNAME"),
    # vllm#7201
    "graph": ("iZ1pp06qu51oiorg7t0nrwZ:3615176:3615176 [0] misc/strongstream.cc:53 NCCL WARN NCCL cannot be "
              "captured in a graph if either it wasn't built with CUDA runtime >= 11.3 or if the installed CUDA "
              "driver < R465.", "CUDA graph", "--enforce-eager"),
}


@pytest.mark.parametrize("src,area", [
    ("transport/nvls", "nvls"), ("transport/p2p", "p2p"), ("transport/shm", "shm"), ("misc/shmutils", "shm"),
    ("transport/net_ib", "ib"), ("transport/net_ib/connect", "ib"), ("misc/ibvwrap", "ib"),
    ("transport/net_socket", "socket"), ("misc/socket", "socket"), ("bootstrap", "socket"),
    ("misc/strongstream", "graph"),
])
def test_the_source_file_names_its_part(src, area):
    out = advice.derive("nccl-error", {"nccl_src": src}, {})
    assert out["nccl_area"] == area and out[f"nccl_{area}"] == "yes"
    assert ("suggest" in out) == (area == "graph")


def test_no_part_without_a_known_file():
    """The generic "NCCL error: unhandled system error" names no file: no part, no suggestion (only its code)."""
    assert advice.derive("nccl-error", {"nccl_error": "unhandled system error"}, {}) == {"error_code": "`ncclSystemError` (2)"}
    assert advice.derive("nccl-error", {"nccl_src": "transport/p2pfoo"}, {}) == {}


@pytest.mark.parametrize("area", list(LINES))
def test_each_part_says_its_own_paragraph_and_knob(area):
    line, words, knob = LINES[area]
    d = diagnose(line, book=BOOK).best
    assert d is not None and d.rule_id == "nccl-error"
    assert words in d.cause and knob in d.fix + d.command
    others = [LINES[a][2] for a in LINES if a != area and LINES[a][2] not in LINES[area][2]]
    assert not any(k in d.fix for k in others), "only the paragraphs of this part"
    assert "NCCL_DEBUG=INFO" not in d.fix, "NCCL already said why: no generic steps"


@pytest.mark.parametrize("area", list(LINES))
def test_chinese_answers_name_the_same_knob(area):
    line, _, knob = LINES[area]
    d = diagnose(line, lang="zh", book=BOOK).best
    assert d.rule_id == "nccl-error" and knob in d.fix + d.command


def test_graph_capture_offers_eager_mode_in_the_users_call():
    d = diagnose(LINES["graph"][0], book=BOOK).best
    assert d.suggested == {"enforce_eager": True} and "--enforce-eager" in d.command


@pytest.mark.parametrize("line", [
    # NVIDIA/nccl#1297: NCCL goes on and uses the device
    "master:608:608 [0] transport/net_ib.cc:115 NCCL WARN Could not find real path of rxe0 "
    "(/sys/class/infiniband/rxe0/device)",
    # NVIDIA/nccl-tests#166: NCCL falls back to the runtime's driver entry points
    "ubuntu:9621:9621 [0] misc/cudawrap.cc:179 NCCL WARN Failed to find CUDA library libcuda.so "
    "(NCCL_CUDA_PATH='') : ",
    # NVIDIA/nccl#1528: enqueue.cc relays a CUDA error of the launch, no part of NCCL with a knob
    "c76d92cccb6e:72:456 [0] enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'",
])
def test_lines_of_no_failing_part_are_not_answered_as_nccl(line):
    assert all(d.rule_id != "nccl-error" for d in diagnose(line, book=BOOK).diagnoses)


def test_the_generic_line_alone_is_answered_on_nccls_terms_but_not_in_another_programs_log():
    """A bare line means the same NCCL failure whoever printed it (with the word that no vLLM shows);
    SGLang's copy of pynccl prints the same line, and its log, which shows SGLang, is not vLLM's."""
    line = "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"
    bare = diagnose(line, book=BOOK)
    assert bare.diagnoses[0].rule_id == "nccl-error"
    assert any("shows no line of vLLM's own" in c for c in bare.diagnoses[0].caveats)
    sglang = ('  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/distributed/device_communicators/'
              'pynccl.py", line 99, in __init__\n' + line)
    assert all(d.rule_id != "nccl-error" for d in diagnose(sglang, book=BOOK).diagnoses)


def test_the_capture_refusal_names_its_part_without_a_file():
    """Quoted without its file (strongstream.cc), the refusal's own words still say it is graph capture."""
    warn = ("NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 or if the "
            "installed CUDA driver < R465.")
    out = advice.derive("nccl-error", {"nccl_warn": warn}, {})
    assert out["nccl_area"] == "graph" and out["suggest"] == {"enforce_eager": True}
    assert advice.derive("nccl-error", {"nccl_warn": "Cuda failure 'invalid argument'"}, {}) == {}


def test_a_remote_error_points_at_the_peer():
    """ncclRemoteError: this rank saw its peer go, the answer sends the reader to the peer's log."""
    assert advice.derive("nccl-error", {"nccl_error": "remote process exited or there was a network error"},
                         {}) == {"nccl_remote": "yes", "error_code": "`ncclRemoteError` (6)"}
    d = diagnose("(RayWorkerWrapper pid=336) ERROR 09-01 10:00:05 [worker_base.py:620] RuntimeError: NCCL error: "
                 "remote process exited or there was a network error (run with NCCL_DEBUG=INFO for details)",
                 book=BOOK).best
    assert d.rule_id == "nccl-error" and "messenger" in d.cause and "dmesg" in d.fix


# The CUDA error beneath "unhandled cuda error", as torch appends NCCL's last error (
# NVIDIA/nccl#1410 from NCCL 2.19 on with the code) or as a relaying WARN line prints it (vllm#6732's
# file, init.cc, relays): named in the answer; without it, the answer says how to get it.
UNHANDLED = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, "
             "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1\n")


@pytest.mark.parametrize("tail", [
    "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'invalid argument'\n",
    "[rank5]: ncclUnhandledCudaError: Call to CUDA function failed.\n[rank5]: Last error:\n[rank5]: Cuda failure 1 'invalid argument'\n",
    "(RayWorkerVllm pid=4028887) ncclUnhandledCudaError: Call to CUDA function failed.\n(RayWorkerVllm pid=4028887) Last error:\n"
    "(RayWorkerVllm pid=4028887) Cuda failure 'invalid argument'\n",
    "(RayWorkerVllm pid=4028888) Cuda failure 'invalid argument' [repeated 3x across cluster]\n",
])
def test_the_cuda_failure_nccl_quotes_is_named(tail):
    log = "INFO 03-28 21:37:50 llm_engine.py:87] Initializing an LLM engine (v0.3.3) with config: model='m'\n" + UNHANDLED + tail
    d = diagnose(log, book=BOOK).diagnoses[0]
    assert d.rule_id == "nccl-error"
    assert "failed with `invalid argument`" in d.cause


def test_without_the_quoted_cuda_failure_the_answer_says_how_to_get_it():
    log = "INFO 03-28 21:37:50 llm_engine.py:87] Initializing an LLM engine (v0.3.3) with config: model='m'\n" + UNHANDLED
    d = diagnose(log, book=BOOK).diagnoses[0]
    assert d.rule_id == "nccl-error" and "Beneath it" not in d.cause and "NCCL_DEBUG=INFO" in d.fix


def test_a_kernel_fault_reported_at_the_custom_all_reduce_check_is_not_an_ipc_failure():
    # vLLM's debugging blog: a rotary kernel's illegal memory access read as custom_all_reduce.cuh:453
    log = ("INFO 08-10 10:00:00 [core.py:71] Initializing a V1 LLM engine (v0.10.1) with config: model='m'\n"
           "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:453 'an illegal memory access was encountered'\n")
    assert diagnose(log, book=BOOK).diagnoses[0].rule_id == "illegal-memory-access"
    ipc = log.replace("an illegal memory access was encountered", "invalid argument")
    assert diagnose(ipc, book=BOOK).diagnoses[0].rule_id == "cuda-ipc-custom-allreduce"


def test_the_cuda_failure_of_a_relaying_warn_line_is_named():
    # vllm#20226: init.cc relays the CUDA error; the pynccl message says only "unhandled cuda error"
    log = ("INFO 08-11 10:45:30 [core.py:71] Initializing a V1 LLM engine (v0.10.0) with config: model='m'\n"
           "server:2699411:2699411 [0] init.cc:416 NCCL WARN Cuda failure 'operation not supported'\n"
           "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n")
    d = diagnose(log, book=BOOK).diagnoses[0]
    assert d.rule_id == "nccl-error" and "failed with `operation not supported`" in d.cause


def test_a_part_of_nccl_that_names_the_failure_is_not_repeated():
    log = ("INFO 07-24 08:25:45 pynccl.py:63] vLLM is using nccl==2.20.5\n"
           "h100:843:843 [5] transport/nvls.cc:157 NCCL WARN Cuda failure 1 'invalid argument'\n"
           "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n")
    d = diagnose(log, book=BOOK).diagnoses[0]
    assert d.rule_id == "nccl-error" and "NVLink SHARP" in d.cause and "Beneath it" not in d.cause


V1 = "INFO 11-20 10:00:00 [core.py:71] Initializing a V1 LLM engine (v0.8.5) with config: model='m'\n"
CUDART_TAIL = ('    raise RuntimeError(f"CUDART error: {error_str}")\n'
               "RuntimeError: CUDART error: invalid argument\n")


def _cudart(frames: str) -> str:
    return V1 + "Traceback (most recent call last):\n" + frames + CUDART_TAIL


def test_vllm_cuda_runtime_wrapper_failing_to_open_a_peer_buffer_is_the_ipc_answer():
    # custom_all_reduce.py's create_shared_buffer -> cuda_wrapper.py's cudaIpcOpenMemHandle (vllm#9774's call)
    log = _cudart(
        '  File "/usr/lib/python3.12/site-packages/vllm/distributed/device_communicators/custom_all_reduce.py", line 270, in create_shared_buffer\n'
        '    pointers.append(lib.cudaIpcOpenMemHandle(h).value)\n'
        '  File "/usr/lib/python3.12/site-packages/vllm/distributed/device_communicators/cuda_wrapper.py", line 171, in cudaIpcOpenMemHandle\n'
        '    self.CUDART_CHECK(self.funcs["cudaIpcOpenMemHandle"](\n'
        '  File "/usr/lib/python3.12/site-packages/vllm/distributed/device_communicators/cuda_wrapper.py", line 141, in CUDART_CHECK\n')
    d = diagnose(log, book=BOOK).diagnoses[0]
    assert d.rule_id == "cuda-ipc-custom-allreduce" and "`invalid argument`" in d.cause
    assert "custom_all_reduce.cuh:" not in d.cause


def test_the_same_wrapper_under_the_sleep_mode_allocator_is_not_an_ipc_failure():
    log = _cudart(
        '  File "/usr/lib/python3.12/site-packages/vllm/device_allocator/cumem.py", line 210, in wake_up\n'
        '    libcudart.cudaMemset(ptr, 0, size)\n'
        '  File "/usr/lib/python3.12/site-packages/vllm/distributed/device_communicators/cuda_wrapper.py", line 141, in CUDART_CHECK\n')
    assert all(d.rule_id != "cuda-ipc-custom-allreduce" for d in diagnose(log, book=BOOK).diagnoses)


def test_a_release_whose_check_prints_no_cuda_error_lead_in():
    log = V1 + "Failed: /workspace/csrc/custom_all_reduce.cuh:368 'invalid argument' [repeated 7x across cluster]\n"
    d = diagnose(log, book=BOOK).diagnoses[0]
    assert d.rule_id == "cuda-ipc-custom-allreduce" and "custom_all_reduce.cuh:368" in d.cause


# --- where the communicator was: a trainer's weight-sync group, ROCm's RCCL; NCCL's invalid usage ----------

def test_a_weight_sync_group_rocm_and_invalid_usage_each_set_their_flag():
    out = advice.derive("nccl-error", {"nccl_error": "invalid usage"}, {"weight_sync": True, "rocm_shown": True})
    assert out == {"nccl_weight_sync": "yes", "nccl_rocm": "yes", "nccl_invalid_usage": "yes",
                   "error_code": "`ncclInvalidUsage` (5)"}
    assert advice.derive("nccl-error", {"nccl_error": "unhandled system error"}, {"weight_sync": False}) == \
        {"error_code": "`ncclSystemError` (2)"}


@pytest.mark.parametrize("values,facts", [
    # init.cc's WARN line, as the pattern captures it
    ({"nccl_warn": "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 40"}, {}),
    # torch relays it after "Last error:"
    ({"nccl_error": "invalid usage"}, {"nccl_last_error": "Duplicate GPU detected : rank 3 and rank 0 both on CUDA device f000"}),
])
def test_nccls_own_duplicate_gpu_check_is_an_invalid_usage_with_its_own_words(values, facts):
    out = advice.derive("nccl-error", values, facts)
    assert out["nccl_invalid_usage"] == out["nccl_duplicate_gpu"] == "yes"


# TRL's client on the server's GPU (huggingface/trl#3706, as trl#3762 quotes the server's line)
TRL_SERVER = ('INFO:     127.0.0.1:39744 - "POST /init_communicator/ HTTP/1.1" 200 OK\n'
              "ERROR 07-08 10:09:09 [core.py:583] RuntimeError: Worker failed with error 'NCCL error: invalid usage "
              "(run with NCCL_DEBUG=WARN for details)', please check the stack trace above for the root cause\n")
# RCCL's WARN line with its hipified source path (ROCm/vllm#390)
RCCL_P2P = ("supllm:461:502 [1] /longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles"
            "/src/out/ubuntu-22.04/22.04/build/rccl/hipify/src/transport/p2p.cc:239 NCCL WARN hipIpcGetMemHandle "
            "failed : invalid argument\n")


# (paste, words its cause says, knobs its fix gives, words its fix leaves out)
@pytest.mark.parametrize("paste,said,knobs,unsaid", [
    # a weight-sync group gets both sides' knobs, not the generic list
    (TRL_SERVER, ("weight-sync group", "two ranks of one communicator on the same GPU"),
     ("CUDA_VISIBLE_DEVICES", "vllm_group_port"), ("--shm-size=16g",)),
    # RCCL's hipified path names the part, and ROCm gets its own knobs, not CUDA's
    (RCCL_P2P, ("RCCL", "peer-to-peer"), ("HSA_FORCE_FINE_GRAIN_PCIE=1", "iommu=pt"),
     ("nvidia-smi topo", "nvidia-nccl-cu12")),
])
def test_where_the_communicator_was_sets_its_own_paragraphs(paste, said, knobs, unsaid):
    d = diagnose(paste, book=BOOK).best
    assert d is not None and d.rule_id == "nccl-error"
    assert all(w in d.cause for w in said) and all(k in d.fix for k in knobs)
    assert not any(w in d.fix for w in unsaid)


# ROCm's own paragraphs are about the platform's GPU-to-GPU path (IOMMU, PCIe P2P, BAR): not for a peer that went
# away, nor for NCCL's network or NVLS parts, whose knobs RCCL reads the same
@pytest.mark.parametrize("values,rocm", [
    ({"nccl_error": "unhandled system error"}, True),
    ({"nccl_error": "unhandled system error", "nccl_src": "transport/p2p", "nccl_warn": "hipIpcGetMemHandle failed"}, True),
    ({"nccl_error": "unhandled system error", "nccl_src": "misc/shmutils", "nccl_warn": "Error while creating"}, True),
    ({"nccl_error": "remote process exited or there was a network error"}, False),
    ({"nccl_error": "unhandled system error", "nccl_src": "misc/socket", "nccl_warn": "Connect to 10.0.0.2 failed"}, False),
    ({"nccl_error": "unhandled system error", "nccl_src": "transport/net_ib", "nccl_warn": "ibv_modify_qp failed"}, False),
])
def test_rccls_platform_paragraphs_only_where_the_gpu_to_gpu_path_failed(values, rocm):
    assert ("nccl_rocm" in advice.derive("nccl-error", values, {"rocm_shown": True})) is rocm


# a multi-node MI300 job whose peer went away: the messenger's answer, without Radeon's P2P knobs
ROCM_REMOTE = ("INFO 05-28 12:26:46 [__init__.py:243] Automatically detected platform rocm.\n"
               "(RayWorkerWrapper pid=4521, ip=10.1.0.12) ERROR 05-28 12:40:02 [worker_base.py:620] torch.distributed."
               "DistBackendError: NCCL error in: /app/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote "
               "process exited or there was a network error, NCCL version 2.21.5\n"
               "(RayWorkerWrapper pid=4521, ip=10.1.0.12) ERROR 05-28 12:40:02 [worker_base.py:620] Last error:\n"
               "(RayWorkerWrapper pid=4521, ip=10.1.0.12) ERROR 05-28 12:40:02 [worker_base.py:620] socketProgressOpt: "
               "Call to recv from 10.1.0.11<33759> failed : Connection closed by remote peer\n")


def test_a_peer_that_went_away_on_rocm_gets_the_messengers_answer_only():
    d = diagnose(ROCM_REMOTE, book=BOOK).best
    assert d is not None and d.rule_id == "nccl-error" and "only the messenger" in d.cause
    assert "RCCL" not in d.cause and "NCCL_P2P_DISABLE" not in d.fix and "nvidia-nccl-cu12" not in d.fix


def test_the_same_nccl_error_on_cuda_gets_no_rocm_or_weight_sync_words():
    d = diagnose("RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n",
                 book=BOOK).best
    assert d is not None and d.rule_id == "nccl-error"
    assert "RCCL" not in d.cause and "weight-sync" not in d.cause and "HSA_" not in d.fix


# torch relays NCCL's reason after "Last error:" (no source file): it names the part where no WARN line did
LAST_SOCKET = ("[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
               "ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL "
               "version 2.20.5\n[rank1]: ncclSystemError: System call (e.g. socket, malloc) or external library call "
               "failed or device error. \n[rank1]: Last error:\n[rank1]: socketStartConnect: Connect to "
               "10.0.0.2<45763> failed : Software caused connection abort\n")
# NVIDIA/nccl#2076: the peer went away; the reset connection is its symptom, not the interface's
LAST_PEER_GONE = ("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp"
                  ":268, remote process exited or there was a network error, NCCL version 2.21.5\nncclRemoteError: A "
                  "call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\n"
                  "socketProgressOpt: Call to recv from 172.16.0.5<33759> failed : Connection reset by peer\n")


def test_torchs_last_error_names_the_socket_part():
    d = diagnose(LAST_SOCKET, book=BOOK).best
    assert d is not None and d.rule_id == "nccl-error"
    assert "socketStartConnect: Connect to 10.0.0.2<45763> failed" in d.cause and "TCP layer" in d.cause
    assert "NCCL_SOCKET_IFNAME" in d.fix


def test_a_peer_that_went_away_is_the_messengers_case_not_the_sockets():
    d = diagnose(LAST_PEER_GONE, book=BOOK).best
    assert d is not None and d.rule_id == "nccl-error"
    assert "only the messenger" in d.cause and "Connection reset by peer" in d.cause
    assert "TCP layer" not in d.cause


def test_a_cuda_failure_as_last_error_stays_the_cuda_paragraph():
    text = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333,"
            " unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1\nncclUnhandledCudaError: "
            "Call to CUDA function failed.\nLast error:\nCuda failure 'invalid argument'\n")
    d = diagnose(text, book=BOOK).best
    assert d is not None and d.rule_id == "nccl-error"
    assert d.cause.count("invalid argument") >= 1 and "printed why it failed" not in d.cause


def test_registering_memory_refused_is_the_locked_memory_limit():
    """NVIDIA/nccl-tests#206: ibv_reg_mr's ENOMEM is RLIMIT_MEMLOCK (the issue's `ulimit -l` was 8192); the
    limit the paste shows is quoted, and a verbs call failing otherwise gets no memlock paragraph."""
    warn = "Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory"
    out = advice.derive("nccl-error", {"nccl_src": "misc/ibvwrap", "nccl_warn": warn}, {"rlimits": {"l": "8192"}})
    assert out["nccl_memlock"] == "yes" and out["memlock_kb"] == "8192"
    other = advice.derive("nccl-error", {"nccl_src": "misc/ibvwrap", "nccl_warn": LINES["ib"][0]}, {})
    assert "nccl_memlock" not in other
    d = diagnose("node:1:2 [0] misc/ibvwrap.cc:278 NCCL WARN " + warn, book=BOOK).best
    assert d.rule_id == "nccl-error" and "locked-memory limit" in d.cause and "memlock=-1" in d.fix


# torch prints "Last error:" and an empty line where NCCL kept no reason; what follows is torch's own trace
@pytest.mark.parametrize("empty", [
    "Last error:\n\nException raised from getNCCLComm at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356"
    " (most recent call first):\nframe #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96\n",
    "[rank0]: Last error:\n[rank0]: \n[rank0]: Exception raised from getNCCLComm at /pytorch/torch/csrc/distributed/"
    "c10d/ProcessGroupNCCL.cpp:3356 (most recent call first):\n",
    "Last error:\nframe #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96\n",
    "Last error:\n\nTraceback (most recent call last):\n  File \"/app/run.py\", line 3, in <module>\n",
])
def test_an_empty_last_error_takes_nothing_from_the_lines_below_it(empty):
    head = ("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL"
            ".cpp:3356, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n")
    assert facts.extract(head + empty)["nccl_last_error"] is None
    d = diagnose(head + empty, book=BOOK).best
    assert d is not None and d.rule_id == "nccl-error" and "printed why it failed" not in d.cause


# --- what the paste says of its NCCLs: the bootstrap's interface, two releases on the two sides of a weight sync ------

def test_the_bootstrap_address_is_named_where_the_failure_can_be_the_networks():
    facts = {"nccl_bootstrap": ["br0:192.168.1.178", "eth0:10.0.0.2"]}
    assert advice.derive("nccl-error", {"nccl_error": "unhandled system error"}, facts)["nccl_bootstrap"] == \
        "br0:192.168.1.178`, `eth0:10.0.0.2"
    # a peer-to-peer or shared-memory failure is one machine's: its address is beside the point
    p2p = {"nccl_src": "transport/p2p", "nccl_warn": "Cuda failure 'invalid argument'"}
    assert "nccl_bootstrap" not in advice.derive("nccl-error", p2p, facts)


def test_two_nccl_releases_are_two_sides_only_in_a_weight_sync_group():
    facts = {"nccl_versions": ["2.21.5", "2.27.3"]}
    values = {"nccl_error": "unhandled system error"}
    assert "nccl_versions_differ" not in advice.derive("nccl-error", values, facts)
    out = advice.derive("nccl-error", values, {**facts, "weight_sync": "server"})
    assert out["nccl_versions_differ"] == "2.21.5`, `2.27.3"


def test_no_interface_found_is_the_interface_not_two_ranks_on_one_gpu_even_when_the_runtimeerror_is_answered():
    # the real H100 run (NCCL_SOCKET_IFNAME=nosuch0), with the line NCCL_DEBUG=INFO prints before the WARN: the
    # WARN line then joins that INFO record, and the error the rule answers is pynccl's RuntimeError below it
    from pathlib import Path
    from bot.learn import fixtures
    path = Path(BOOK.directory).parent / "tests/fixtures/logs/nccl-error/h100-weight-sync-socket-ifname-no-interface.log"
    text = fixtures.read(path).data.decode()
    info = "vm:855:855 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to nosuch0\n"
    text = text.replace("[2026-12-06 04:27:07] vm:855:855 [0] bootstrap.cc", info + "vm:855:855 [0] bootstrap.cc")
    assert facts.extract(text)["nccl_socket_ifname"] == "nosuch0"
    d = diagnose(text, book=BOOK).best
    assert d.rule_id == "nccl-error"
    assert "found no network interface" in d.cause and "NCCL_SOCKET_IFNAME=nosuch0" in d.cause
    assert "List the interfaces" in d.fix
    assert "Give every rank its own GPU" not in d.fix


def test_a_quoted_peer_access_failure_leads_with_the_p2p_fix():
    # the CUDA failure NCCL quotes under "Last error:" (the text of stack-error-code's dynamo#1229 and vllm#406
    # fixtures) is P2P's own: its fix paragraph comes first, not the generic list with NCCL_P2P_DISABLE third
    log = ("INFO 03-28 21:37:50 llm_engine.py:87] Initializing an LLM engine (v0.3.3) with config: model='m'\n" + UNHANDLED
           + "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n"
           "Cuda failure 217 'peer access is not supported between these two devices'\n")
    d = diagnose(log, book=BOOK).diagnoses[0]
    assert d.rule_id == "nccl-error" and "peer access is not supported" in d.cause
    assert d.fix.lstrip().startswith("1. `NCCL_P2P_DISABLE=1`")
    assert "--shm-size=16g" not in d.fix.split("\n")[0]
    # an "invalid argument" beneath it names no part: the generic list stays
    d = diagnose(log.replace("217 'peer access is not supported between these two devices'", "'invalid argument'"),
                 book=BOOK).diagnoses[0]
    assert d.rule_id == "nccl-error" and not d.fix.lstrip().startswith("1. `NCCL_P2P_DISABLE=1`")


def test_a_segment_that_fails_at_a_cuda_call_is_its_registration_not_only_the_size():
    """shmutils.cc: fallocate's failure is ncclSystemError, cudaHostRegister's (after the segment was made) is
    ncclUnhandledCudaError; both then print "Error while creating shared memory segment"."""
    last = "Error while creating shared memory segment /dev/shm/nccl-g0wGsu (size 9637888), Traceback (most recent call last):"
    out = advice.derive("nccl-error", {"nccl_error": "unhandled cuda error"},
                        {"nccl_last_error": last, "nccl_shm_register": True})
    assert out["nccl_area"] == "shm" and out["nccl_shm_register"] == "yes"
    assert out["nccl_warn"].endswith("(size 9637888)")        # vLLM's own ", Traceback ..." left off
    system = advice.derive("nccl-error", {"nccl_error": "unhandled system error"}, {"nccl_last_error": last})
    assert system["nccl_area"] == "shm" and "nccl_shm_register" not in system



@pytest.mark.parametrize("version, register", [("2.20.5", True), ("2.19.3", True), ("2.18.1", False), (None, False)])
def test_the_registration_is_told_from_the_room_by_ncclss_release(version, register):
    """NCCL 2.19+ fallocates the segment (a /dev/shm without room is a system error there); 2.13-2.18 only ftruncate
    it, so a full /dev/shm surfaces at cudaHostRegister as a CUDA error too."""
    text = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
            "unhandled cuda error (run with NCCL_DEBUG=INFO for details)" + (f", NCCL version {version}" if version else "")
            + "\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n"
            "Error while creating shared memory segment /dev/shm/nccl-g0wGsu (size 9637888)\n")
    assert facts.nccl_shm_register(text) is register
    assert facts.nccl_shm_register(text.replace("unhandled cuda error", "unhandled system error")
                                   .replace("ncclUnhandledCudaError", "ncclSystemError")) is False


# vLLM's workers under WSL2 (vLLM 0.6's multiprocessing wrapper, NCCL 2.20.5 through torch), the shape of the
# WSL2 threads: no NCCL_DEBUG, torch's "Last error:" naming the segment
WSL_WORKER = """\
WARNING 01-15 02:47:20 utils.py:721] Using 'pin_memory=False' as WSL is detected. This may slow down the performance.
(VllmWorkerProcess pid=3985) ERROR 01-15 02:47:32 multiproc_worker_utils.py:226] Exception in worker VllmWorkerProcess \
while processing method determine_num_available_blocks: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, \
unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5
(VllmWorkerProcess pid=3985) ERROR 01-15 02:47:32 multiproc_worker_utils.py:226] ncclUnhandledCudaError: Call to CUDA function failed.
(VllmWorkerProcess pid=3985) ERROR 01-15 02:47:32 multiproc_worker_utils.py:226] Last error:
(VllmWorkerProcess pid=3985) ERROR 01-15 02:47:32 multiproc_worker_utils.py:226] Error while creating shared memory \
segment /dev/shm/nccl-g0wGsu (size 9637888), Traceback (most recent call last):
"""


def test_under_wsl_the_segment_is_wsls_pinned_memory_and_the_fix_takes_nccl_off_wsls_limits():
    d = diagnose(WSL_WORKER, book=BOOK).best
    assert d is not None and d.rule_id == "nccl-error"
    assert "WSL2" in d.cause and "cudaHostRegister" in d.cause
    assert "NCCL_SHM_DISABLE=1" in d.fix and "NCCL_P2P_DISABLE=1" in d.fix and "--disable-custom-all-reduce" in d.fix


def test_outside_wsl_no_wsl_paragraph():
    d = diagnose(WSL_WORKER.replace("as WSL is detected", "as configured"), book=BOOK).best
    assert d is not None and "WSL2. There" not in d.cause and "Under WSL2" not in d.fix


def test_registering_memory_refused_as_torchs_last_error_is_the_locked_memory_limit_too():
    """The same ibv_reg_mr ENOMEM where no WARN line was pasted, only torch's "Last error:" after ncclSystemError."""
    last = "Call to ibv_reg_mr failed with error Cannot allocate memory"
    out = advice.derive("nccl-error", {"nccl_error": "unhandled system error"}, {"nccl_last_error": last})
    assert out["nccl_area"] == "ib" and out["nccl_memlock"] == "yes"


def test_a_shared_memory_cuda_failure_217_is_the_cumem_host_import_not_the_segments_room():
    """NVIDIA/nccl#1838 (vLLM's DP test on 4xL4): shm.cc:590's cuMemImportFromShareableHandle refused with
    CUDA_ERROR_PEER_ACCESS_UNSUPPORTED; the way out is NCCL_CUMEM_HOST_ENABLE=0, not a bigger /dev/shm."""
    warn = "Cuda failure 217 'peer access is not supported between these two devices'"
    out = advice.derive("nccl-error", {"nccl_src": "transport/shm", "nccl_warn": warn}, {"nccl_shm_register": True})
    assert out["nccl_cumem_host"] == "yes" and "nccl_shm_register" not in out
    other = advice.derive("nccl-error", {"nccl_src": "transport/shm",
                                         "nccl_warn": "Error while creating shared memory segment /dev/shm/nccl-x"}, {})
    assert "nccl_cumem_host" not in other
    d = diagnose("h:1:2 [0] transport/shm.cc:590 NCCL WARN " + warn, book=BOOK).best
    assert d.rule_id == "nccl-error" and "NCCL_CUMEM_HOST_ENABLE=0" in d.fix and "--shm-size" not in d.fix.split("\n")[0]


@pytest.mark.parametrize("facts_, values", [
    ({"nccl_cuda_failure": "out of memory"}, {"nccl_error": "unhandled cuda error"}),
    ({"nccl_last_error": "Cuda failure 2 'out of memory'"}, {"nccl_error": "unhandled cuda error"}),
    ({}, {"nccl_src": "transport/p2p", "nccl_warn": "Failed to CUDA calloc 6291456 bytes"}),
])
def test_an_allocation_nccl_made_that_failed_is_room_on_the_gpu(facts_, values):
    out = advice.derive("nccl-error", values, facts_)
    assert out["nccl_cuda_oom"] == "yes"
    assert "nccl_cuda_oom" not in advice.derive("nccl-error", {"nccl_error": "unhandled cuda error"},
                                                {"nccl_cuda_failure": "invalid argument"})


@pytest.mark.parametrize("line, said", [
    # torch 2.2-2.5 (ProcessGroupNCCL::heartbeatMonitor's error line), then 2.6 on (the watchdog's words alone)
    ("[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 2 Rank 0] Heartbeat monitor timed out! Process will be terminated after "
     "dumping debug info. workMetaList_.size()=9", "stopped making progress"),
    ("[rank1]:[E429 13:55:49.384372190 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 1] "
     "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. "
     "This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog", "480 seconds"),
])
def test_the_heartbeat_monitors_abort_is_a_stuck_watchdog(line, said):
    d = diagnose(line, book=BOOK).best
    assert d is not None and d.rule_id == "nccl-collective-timeout"
    assert said in d.cause and "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC" in d.fix and "xid" in d.fix
    assert "ran for" not in d.cause
