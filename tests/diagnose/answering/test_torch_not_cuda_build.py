"""torch-not-cuda-build: a CPU-only torch where vLLM wants CUDA, answered with the torch the log's vLLM
pins and the CUDA index its CUDA build comes from (the stack index); no answer where the platform has
no CUDA by design (an NPU, a TPU, vLLM's CPU build) or for a bare torch line."""

from pathlib import Path

import pytest

from bot.diagnose import diagnose, load_rulebook
from bot.diagnose.answering import advice
from bot.diagnose.knowledge.stack import stack_index
from bot.learn import fixtures

BOOK = load_rulebook(use_cache=False)
LOGS = Path(BOOK.directory).parent / "tests" / "fixtures" / "logs"
IX = stack_index.load()

pytestmark = pytest.mark.skipif(IX is None, reason="the stack index's data is not installed")

ASSERTION = ('  File "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py", line 310, in _lazy_init\n'
             '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
             "AssertionError: Torch not compiled with CUDA enabled\n")
WORKER = ("Traceback (most recent call last):\n"
          '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 140, in init_device\n'
          "    torch.cuda.set_device(self.device)\n")


def best(text: str, lang: str = "en"):
    report = diagnose(text, lang=lang, book=BOOK)
    return report.diagnoses[0] if report.diagnoses else None


def test_cuda_platform_with_a_cpu_torch_names_the_pinned_torch_and_its_cuda_index():
    d = best("INFO 05-07 05:58:40 __init__.py:190] Automatically detected platform cuda.\n"
             "INFO 05-07 05:58:41 api_server.py:840] vLLM API server version 0.8.5\n" + WORKER + ASSERTION)
    assert d.rule_id == "torch-not-cuda-build"
    pin = IX.manifest("0.8.5")
    index = "cu" + pin["cuda"].replace(".", "")
    assert f'pip install "torch=={pin["torch"]}" --index-url https://download.pytorch.org/whl/{index}' in d.fix
    assert 'pip install "vllm==0.8.5"' in d.fix


def test_a_cpu_tag_in_pip_list_is_enough_without_a_platform_line():
    # vLLM 0.8.5 pins torch 2.6.0: a 2.5.1+cpu beside it was put there by another install
    d = best("torch                    2.5.1+cpu\nvllm                     0.8.5\n" + WORKER + ASSERTION)
    assert d.rule_id == "torch-not-cuda-build"
    assert "2.5.1+cpu" in d.cause and "pip replaced it" in d.cause
    same = advice.derive("torch-not-cuda-build", {}, {"torch_version": "2.6.0+cpu", "vllm_version": "0.8.5"})
    assert "torch_differs" not in same


def test_without_vllm_the_same_torch_release_is_installed_from_its_cuda_index():
    out = advice.derive("torch-not-cuda-build", {}, {"torch_version": "2.6.0+cpu"})
    assert out["torch_want"] == "2.6.0" and out["cuda_index"] == "cu" + IX.torch_cuda("2.6.0").replace(".", "")
    assert "pin_vllm" not in out


def test_a_driver_too_old_for_that_cuda_is_said():
    out = advice.derive("torch-not-cuda-build", {}, {"torch_version": "2.13.0+cpu", "vllm_version": "0.30.0",
                                                     "driver_cuda": "12.4"})
    assert out.get("driver_short") and out["host_cuda"] == "12.4"


@pytest.mark.parametrize("head", [
    "INFO 02-08 04:33:39 __init__.py:190] Automatically detected platform tpu.\n",
    "INFO 02-08 04:33:39 __init__.py:190] Automatically detected platform cpu.\ntorch 2.5.1+cpu\n",
    "INFO 02-08 04:33:39 __init__.py:259] Platform plugin ascend is activated\ntorch 2.5.1+cpu\n",
    "",                                   # no sign that CUDA was wanted
])
def test_no_answer_where_the_platform_has_no_cuda_or_nothing_says_cuda_was_wanted(head):
    assert best(head + WORKER + ASSERTION) is None or best(head + WORKER + ASSERTION).rule_id != "torch-not-cuda-build"


def test_a_bare_line_is_not_answered():
    assert best("AssertionError: Torch not compiled with CUDA enabled\n") is None


def test_chinese_keeps_the_install_command():
    text = fixtures.read(LOGS / "torch-not-cuda-build/vllm-0.30-serve-cpu-torch-libtorch-cuda-missing.log").data
    d = best(text, lang="zh")
    assert "https://download.pytorch.org/whl/cu130" in d.fix
