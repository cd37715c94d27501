"""Whether a paste shows Intel Gaudi (HPU) where vLLM's platform line is not in it: the platform fact and torch's build."""

import pytest

from bot.diagnose.reading import facts


@pytest.mark.parametrize("text, platform, build", [
    # vllm-project/vllm-gaudi#86: collect_env on Gaudi3, torch built by Habana (no CUDA, no ROCm, yet no CPU build)
    ("PyTorch version              : 2.6.0+hpu_1.21.3-57.gitabf798b\nIs debug build               : False\n"
     "CUDA used to build PyTorch   : None\nROCM used to build PyTorch   : N/A\n", "hpu", "hpu"),
    # HabanaAI/vllm-fork#216: the fork's Ray executor for HPU in the traceback
    ('  File "/workspace/vllm/vllm/executor/ray_habana_executor.py", line 64, in _init_executor\n'
     "    self._init_workers_ray(placement_group)\n", "hpu", None),
    # opea-project/Enterprise-RAG#84: the Gaudi build of vLLM by its version tag
    ('  File "/usr/local/lib/python3.10/dist-packages/vllm-0.7.2+gaudi000-py3.10.egg/vllm/entrypoints/openai/'
     'api_server.py", line 1129, in <module>\n', "hpu", None),
    # HabanaAI/vllm-fork#484: Synapse's status in the error
    ("[rank0]: RuntimeError: Graph compile failed. synStatus=synStatus 26 [Generic failure].\n", "hpu", None),
    # the platform line itself wins, whatever else the paste shows
    ("INFO 08-26 14:56:36 [__init__.py:232] Platform plugin hpu is activated\n", "hpu", None),
    ("INFO 02-23 00:50:03 __init__.py:187] No platform detected, vLLM is running on UnspecifiedPlatform\n"
     "HABANA_VISIBLE_DEVICES=all\n", "unspecified", None),
    # a CUDA run, and a CPU build of torch, stay what they are
    ("INFO 06-01 10:00:00 [__init__.py:239] Automatically detected platform cuda.\n", "cuda", None),
    ("PyTorch version: 2.5.1+cpu\nCUDA used to build PyTorch: None\nROCM used to build PyTorch: N/A\n", None, "cpu"),
])
def test_gaudi_is_shown_by_its_torch_fork_build_or_synapse(text, platform, build):
    got = facts.extract(text)
    assert (got["platform"], got["torch_build"]) == (platform, build)
