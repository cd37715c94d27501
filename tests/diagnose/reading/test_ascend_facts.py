"""Whether a paste shows Huawei Ascend or Intel Gaudi, and whether torch_npu's check of a call printed the code it returned."""

import pytest

from bot.diagnose.reading import facts


@pytest.mark.parametrize("fact, text, shown", [
    ("ascend_shown", "INFO 01-16 11:40:00 [__init__.py:239] Platform plugin ascend is activated\n", True),
    ("ascend_shown", '  File "/usr/local/python3.11.13/lib/python3.11/site-packages/torch_npu/utils/__init__.py", line 1\n', True),
    ("ascend_shown", "source /usr/local/Ascend/ascend-toolkit/set_env.sh\n", True),
    ("ascend_shown", "pip install vllm-ascend==0.9.1\n", True),
    # a CUDA run's own plugin, and words that only hold the letters
    ("ascend_shown", "INFO 06-01 10:00:00 [__init__.py:239] Automatically detected platform cuda.\n", False),
    ("ascend_shown", "the loss is on a steady descending curve\n", False),
    # HabanaAI/vllm-fork#666's collect_env (a Gaudi 3 host running PyPI's CUDA torch): only the HPU lines tell
    ("hpu_shown", "PyTorch version: 2.5.1+cu124\nHPU devices: 8x HL-325L\nHPU driver version: 1.19.0-2427ed8\n", True),
    ("hpu_shown", "PyTorch version: 2.6.0+hpu_1.21.4-3.gitabf798b\n", True),
    ("hpu_shown", '  File "/usr/local/lib/python3.10/dist-packages/habana_frameworks/torch/core/__init__.py", line 1\n', True),
    ("hpu_shown", "INFO 06-01 10:00:00 [__init__.py:239] Automatically detected platform cuda.\n", False),
])
def test_accelerator_shown(fact, text, shown):
    assert facts.extract(text)[fact] is shown


@pytest.mark.parametrize("text, code", [
    ("torch.OutOfMemoryError: allocate_host_memory_slowpath:../torch_npu/csrc/core/npu/CachingHostAllocator.cpp:252 "
     "NPU function error: aclrtMallocHostWithCfg, error code is 207001\n", True),
    ("RuntimeError: HCCL function error: HcclAllreduce(input, output), error code is 9\n", True),
    ("RuntimeError: NPU error, error code is 507899\n", True),
    # the warning torch_npu prints as it tears down, and its task queue's pointer, name no call's code
    ("[W723 10:35:58.297759598 compiler_depend.ts:526] Warning: NPU warning, error code is 507034\n", False),
    ("RuntimeError: The Inner error is reported as above. The process exits for this inner error, and the current "
     "working operator name is aclnnRmsNorm.\n", False),
])
def test_ascend_call_code(text, code):
    assert facts.extract(text)["ascend_call_code"] is code

