"""Huawei Ascend's rules against what else a paste shows: the code torch_npu's check printed above its task
queue's "inner error" line, and library names that are CANN's only where the paste shows Ascend."""

from pathlib import Path

import pytest

from bot.diagnose import diagnose, load_rulebook
from bot.learn import fixtures

BOOK = load_rulebook(use_cache=False)
LOGS = Path(BOOK.directory).parent / "tests" / "fixtures" / "logs"
INNER = LOGS / "acl-runtime-error" / "vllm-ascend6190-v0110-serving-inner-error-rmsnorm.log"
LIBATB = LOGS / "ascend-cann-libs-missing" / "vllm-ascend130-v071-import-torch-npu-libatb-missing.log"
TAG = "(Worker_TP0 pid=415) ERROR 01-16 11:51:23 [multiproc_executor.py:671] "


def best(text: str):
    return diagnose(text, book=BOOK).best


def paste(path: Path) -> str:
    return fixtures.read(path).data.decode()


def _with_above_inner_error(line: str) -> str:
    """The real task-queue paste with torch_npu's check of a call printed above its "inner error" line."""
    text = paste(INNER)
    at = text.index(TAG + "RuntimeError: The Inner error is reported as above")
    return text[:at] + TAG + line + "\n" + text[at:]


@pytest.mark.parametrize("line, title", [
    # torch_npu's wording of a failed pinned-host allocation and of an HCCL timeout
    ("RuntimeError: NPU function error: aclrtMallocHostWithCfg, error code is 207001", "207001"),
    ("RuntimeError: HCCL function error: HcclAllreduce(input, output, count, dataType, op, comm, stream), "
     "error code is 9", "HCCL_E_TIMEOUT"),
])
def test_the_code_above_the_task_queues_inner_error_answers(line, title):
    d = best(_with_above_inner_error(line))
    assert d is not None and d.rule_id == "stack-error-code" and title in d.title, d and d.title


def test_the_task_queues_inner_error_alone_names_its_operator():
    d = best(paste(INNER))
    assert d is not None and d.rule_id == "acl-runtime-error" and "aclnnRmsNorm" in d.cause


@pytest.mark.parametrize("lib", ["libruntime.so", "libgraph.so", "libplatform.so", "libc_sec.so"])
def test_a_generic_library_name_is_canns_where_the_paste_shows_ascend(lib):
    d = best(paste(LIBATB).replace("libatb.so", lib))
    assert d is not None and d.rule_id == "ascend-cann-libs-missing" and lib in d.title


def test_a_generic_library_name_elsewhere_is_not_canns():
    # a platform plugin of vLLM's CUDA run missing its own libruntime.so: no NPU, torch_npu or CANN in sight
    log = """\
INFO 06-01 10:00:00 [__init__.py:239] Automatically detected platform cuda.
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/platforms/__init__.py", line 120, in resolve_current_platform_cls_qualname
    platform_cls_qualname = func()
  File "/opt/plugins/my_plugin/__init__.py", line 10, in register
    import my_runtime_ext
ImportError: libruntime.so: cannot open shared object file: No such file or directory
"""
    d = best(log)
    assert d is None or d.rule_id != "ascend-cann-libs-missing"


@pytest.mark.parametrize("code, rule", [
    ("507035", "acl-runtime-error"),        # the device's own failure, reported at the stream wait
    ("507011", "acl-runtime-error"),
    ("207001", "stack-error-code"),         # memory: the code family names it, not "a failed kernel"
])
def test_a_stream_waits_code_is_a_failed_kernel_only_when_the_device_failed(code, rule):
    line = f"RuntimeError: NPU function error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is {code}"
    d = best("INFO 03-01 10:00:00 [__init__.py:30] Platform plugin ascend is activated\n" + line + "\n")
    assert d is not None and d.rule_id == rule and code in d.cause + d.title


# vllm-ascend's worker paste whose HCCL check the lines below stand in for (gpustack#4652: code 5 on a 300I Duo)
INIT = LOGS / "hccl-init-failed" / "gpustack4652-300i-duo-vllm-initrootinfoconfig-5.log"
# HCCL's own log line (op_base.cc: "[Init][CommRootInfoConfig]errNo[0x%016llx]HcclCommInitRootInfo failed.", the errNo
# HCCL_ERROR_CODE(ret): module 5, HcclResult in the low 16 bits) as plog or ASCEND_SLOG_PRINT_TO_STDOUT=1 prints it
HCCL_LOG = ("[ERROR] HCCL(48,{proc}):2025-02-24-17:09:23.001.002 [op_base.cc:974][52][Init][CommRootInfoConfig]"
            "errNo[0x00000000050000{code}]HcclCommInitRootInfo failed.")


def test_hccls_own_log_line_names_the_communicator_and_its_code():
    text = paste(INIT)
    line = HCCL_LOG.format(proc="python3", code="0b")
    d = best(line + "\n" + text)
    assert d.rule_id == "hccl-init-failed"
    alone = best(line)
    assert alone is not None and alone.rule_id == "hccl-init-failed" and "HCCL_E_TCP_CONNECT" in alone.cause


def test_mindies_hccl_log_line_is_another_programs():
    # the same line under MindIE's backend process (its tag names the process) is MindIE's, not vLLM's
    assert best(HCCL_LOG.format(proc="mindie_llm_backend_connector", code="02")) is None


def test_vllm_ascends_own_hccl_communicator_failing_to_start():
    # vllm-ascend's PyHcclCommunicator (pyhccl_wrapper.py raises "HCCL error: " + HcclGetErrorString's text), as a
    # trainer's weight-sync group meets it: the frames are vllm-ascend's and TRL's, the text HCCL's for code 11
    text = ("[rank0]: Traceback (most recent call last):\n"
            '[rank0]:   File "/usr/local/lib/python3.11/site-packages/trl/extras/vllm_client.py", line 250, in init_communicator\n'
            "[rank0]:     self.pynccl_comm = PyHcclCommunicator(pg, device=0)\n"
            '[rank0]:   File "/vllm-workspace/vllm-ascend/vllm_ascend/distributed/device_communicators/pyhccl.py", line 100, in __init__\n'
            "[rank0]:     self.comm: hcclComm_t = self.hccl.hcclCommInitRank(\n"
            '[rank0]:   File "/vllm-workspace/vllm-ascend/vllm_ascend/distributed/device_communicators/pyhccl_wrapper.py", line 190, in hcclCommInitRank\n'
            "[rank0]:     self.HCCL_CHECK(\n"
            '[rank0]:   File "/vllm-workspace/vllm-ascend/vllm_ascend/distributed/device_communicators/pyhccl_wrapper.py", line 176, in HCCL_CHECK\n'
            '[rank0]:     raise RuntimeError(f"HCCL error: {error_str}")\n'
            "[rank0]: RuntimeError: HCCL error: tcp connect fail\n")
    d = best(text)
    assert d.rule_id == "hccl-init-failed"
    assert "PyHcclCommunicator" in d.cause and "HCCL_E_TCP_CONNECT" in d.cause
    # the same words without vllm-ascend's frames are no communicator's start
    assert best("RuntimeError: HCCL error: tcp connect fail") is None or \
        best("RuntimeError: HCCL error: tcp connect fail").rule_id != "hccl-init-failed"
