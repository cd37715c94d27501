"""Engines that look like vLLM or copied it (KTransformers, LightLLM, Nano-vLLM, Aphrodite's vLLM-style log header):
their logs are theirs, while a vLLM log that names them, and a bare line from an environment named after one, are
still answered."""
import pytest

from bot.diagnose import diagnose
from bot.diagnose.reading import facts
from tests.support.programs import assert_shows_program

# lines from the threads of tests/fixtures/logs/_negative/foreign11-*
LOOKALIKES = {
    "KTransformers": "python -m ktransformers.local_chat --model_path deepseek-ai/DeepSeek-V2-Lite-Chat\n"
                     "Injecting model as ktransformers.operators.models . KDeepseekV2Model\n"
                     "RuntimeError: CUDA error: unknown error\n",
    "LightLLM": "python -m lightllm.server.api_server --model_dir baichuan-13B-v2-1500 -tp 2\n"
                "RuntimeError: CUDA error: no kernel image is available for execution on the device\n",
    "Nano-vLLM": '  File "/w/ACE-Step-1.5/acestep/llm_inference.py", line 687, in _initialize_5hz_lm_vllm\n'
                 '  File "/w/.venv/lib/python3.11/site-packages/nanovllm/engine/model_runner.py", line 111, in __init__\n'
                 "RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasGemmEx( handle, opa)`\n",
}


@pytest.mark.parametrize("program", sorted(LOOKALIKES))
def test_a_lookalike_engines_log_shows_its_program(program):
    assert_shows_program(LOOKALIKES[program], program)


def test_an_engine_that_copied_vllms_log_header_is_not_vllm_by_that_header():
    # LightLLM's logger has vLLM's format (lightllm/utils/log_utils.py): with its package named, that header is its own
    paste = ("INFO 12-02 09:36:21 [api_start.py:58] start\n"
             '  File "/opt/lightllm/lightllm/server/router/model_infer/model_rpc.py", line 104, in forward\n'
             "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    assert not facts.vllm_printed(paste)
    assert diagnose(paste).diagnoses == []
    # the same header with nothing else named is vLLM's
    assert facts.vllm_printed(paste.replace("lightllm", "app"))
    # Aphrodite's older releases, by the engine file in the header; a vLLM log serving a model named after the
    # goddess is still vLLM's
    assert not facts.vllm_printed("INFO 12-15 11:52:48 aphrodite_engine.py:73] Initializing the Aphrodite Engine\n")
    assert facts.vllm_printed("INFO 05-05 10:54:15 api_server.py:151] vLLM API server version 0.4.1\n"
                              "INFO 05-05 10:54:15 llm_engine.py:98] model='someone/aphrodite-7b'\n")


def test_a_vllm_log_that_names_them_stays_vllms():
    own = ("(EngineCore_DP0 pid=1) INFO 10-25 13:08:41 [core.py:77] Initializing a V1 LLM engine (v0.11.0)\n"
           "(compared with nano-vllm, lightllm and ktransformers on the same GPU)\n"
           "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    assert diagnose(own).diagnoses[0].rule_id == "no-kernel-image"


def test_an_environment_named_after_ktransformers_is_no_sign_of_it():
    # a conda environment's name and the compiled extension's file name show no program running (stack-loader's
    # fixture bare-ktransformers439, the balance_serve thread #1062): a bare error stays answered
    bare = ("ImportError: /home/u/anaconda3/envs/ktransformers-0.3/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.32' "
            "not found (required by /home/u/anaconda3/envs/ktransformers-0.3/lib/python3.11/site-packages/"
            "KTransformersOps.cpython-311-x86_64-linux-gnu.so)\n")
    assert facts.extract(bare)["foreign_context"] is None


def test_a_forks_copy_of_vllms_message_is_not_vllms_by_its_option_names():
    # Aphrodite Engine copied vLLM's KV-cache check with its option names (the fixture aphrodite-sonar362-*): a named
    # program whose log mentions only vLLM's option names, not vLLM itself, stays that program's
    fork = ("python -m aphrodite.endpoints.openai.api_server --model m -tp 2 --max-model-len 16000\n"
            "ValueError: The model's max seq len (16000) is larger than the maximum number of tokens that can be "
            "stored in KV cache (96). Try increasing 'gpu_memory_utilization' or decreasing 'max_model_len' when "
            "initializing the engine\n")
    assert facts.extract(fork)["foreign_strict"]
    assert diagnose(fork).diagnoses == []
    # vLLM's own name keeps it vLLM's: a paste that runs vLLM beside the fork, or names it
    named = fork.replace("python -m aphrodite", "(tried vllm too) python -m aphrodite")
    assert not facts.extract(named)["foreign_strict"]
    assert diagnose(named).diagnoses[0].rule_id == "kv-cache-too-small"
