"""Which launcher's or worker's files show another program: a web UI's launch.py and FastChat's model worker
do; the launchers of torch, accelerate and DeepSpeed are no web UI, and FastChat's vLLM worker, built on its
base_model_worker.py, runs vLLM."""

import pytest

from bot.diagnose.reading import facts

FRAME = '  File "{}", line 10, in main\n'
ERROR = "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\n"


@pytest.mark.parametrize("path", ["/usr/local/lib/python3.10/dist-packages/torch/distributed/launch.py",
                                  "/opt/conda/lib/python3.11/site-packages/accelerate/commands/launch.py",
                                  "/usr/local/lib/python3.10/dist-packages/deepspeed/launcher/launch.py",
                                  "C:\\Python310\\Lib\\site-packages\\torch\\distributed\\launch.py"])
def test_a_distributed_launcher_is_no_web_ui(path):
    assert facts.program_sign(FRAME.format(path) + ERROR) is None


def test_a_web_uis_launch_py_still_is():
    assert facts.program_sign(FRAME.format("/home/u/stable-diffusion-webui/launch.py") + ERROR) is not None


def test_torchs_launcher_by_its_file_is_a_pytorch_distributed_run():
    # the deprecation warning `python -m torch.distributed.launch` prints, without the command
    text = ("/usr/local/lib/python3.10/dist-packages/torch/distributed/launch.py:181: FutureWarning: The module "
            "torch.distributed.launch is deprecated\n" + ERROR)
    assert facts.foreign_context(text)[0] == "a PyTorch distributed run (torchrun, accelerate launch)"


def test_fastchats_vllm_worker_on_its_base_worker_is_not_fastchats_own_model_worker():
    text = (FRAME.format("/usr/local/lib/python3.10/dist-packages/fastchat/serve/base_model_worker.py")
            + FRAME.format("/usr/local/lib/python3.10/dist-packages/fastchat/serve/vllm_worker.py")
            + FRAME.format("/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py")
            + "vllm.engine.async_llm_engine.AsyncEngineDeadError: Background loop has errored already.\n")
    assert facts.foreign_context(text)[0] is None


@pytest.mark.parametrize("text", [
    FRAME.format("/usr/local/lib/python3.10/dist-packages/fastchat/serve/model_worker.py"),
    FRAME.format("/home/u/LLaVA/llava/serve/model_worker.py"),
    "python3 -m fastchat.serve.model_worker --model-path lmsys/vicuna-7b-v1.5\n",
    "python -m llava.serve.model_worker --host 0.0.0.0 --controller http://localhost:10000\n",
])
def test_fastchats_model_worker_wherever_copied_is_fastchat(text):
    assert facts.foreign_context(text + ERROR)[0] == "FastChat"
