"""torch's warning that its build has no kernels for the GPU, above the error the engine died of: the root
where that error is its consequence (a kernel missing or unusable, or only a wrapper whose error the paste
leaves out), not where the run died of something else."""

from bot.diagnose import diagnose

HEAD = "INFO 07-28 15:07:13 [api_server.py:1755] vLLM API server version 0.10.0\n"
WARNING = """/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:287: UserWarning:
NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.
If you want to use the NVIDIA GeForce RTX 5070 Ti GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/

  warnings.warn(
"""
WRAPPER = """Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/utils.py", line 691, in wait_for_engine_startup
    raise RuntimeError("Engine core initialization failed. "
RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
"""


def _died_of(error: str) -> str:
    return ("ERROR 07-28 15:07:22 [core.py:632] EngineCore failed to start.\n"
            "ERROR 07-28 15:07:22 [core.py:632] Traceback (most recent call last):\n"
            'ERROR 07-28 15:07:22 [core.py:632]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 623, in run_engine_core\n'
            f"ERROR 07-28 15:07:22 [core.py:632] {error}\n")


def top(report):
    return report.diagnoses[0].rule_id if report.diagnoses else None


def test_a_wrapper_whose_error_is_left_out_is_answered_by_the_warning():
    r = diagnose(HEAD + WARNING + WRAPPER)
    assert top(r) == "no-kernel-image" and r.verdict == "diagnosed"
    assert "sm_120" in r.diagnoses[0].cause


def test_a_traceback_no_wrapper_rule_knows_is_not_taken_for_a_wrapper():
    # a hint (no answer) and the user's own KeyError, which no rule knows: the paste shows an error, not only a
    # wrapper's pointer, so the warning does not become its cause
    stall = ("INFO 08-13 04:40:39 [shm_broadcast.py:430] No available shared memory broadcast block found in 60 second. "
             "This typically happens when some processes are hanging.\n")
    own = ('Traceback (most recent call last):\n  File "/app/my_server.py", line 40, in handle\n'
           "    prompt = templates[name]\nKeyError: 'summarize'\n")
    assert top(diagnose(HEAD + WARNING + stall + own)) != "no-kernel-image"
    # the same hint beside a wrapper whose error is left out: the warning is the cause the paste shows
    assert top(diagnose(HEAD + WARNING + stall + WRAPPER)) == "no-kernel-image"


def test_a_wrapper_alone_stays_a_wrapper():
    assert diagnose(HEAD + WRAPPER).verdict == "wrapper_only"


def test_a_kernel_the_gpu_cannot_run_is_the_warnings_consequence():
    for error in ("RuntimeError: CUDA error: invalid device function",
                  "RuntimeError: Triton Error [CUDA]: device kernel image is invalid",
                  "RuntimeError: CUDA error: a PTX JIT compilation failed"):
        assert top(diagnose(HEAD + WARNING + _died_of(error))) == "no-kernel-image", error
    # a fault of another kind says nothing of the architecture
    assert top(diagnose(HEAD + WARNING + _died_of("RuntimeError: CUDA error: an illegal memory access was encountered"))) \
        != "no-kernel-image"


def test_the_same_code_without_the_warning_is_the_stacks():
    r = diagnose(HEAD + _died_of("RuntimeError: CUDA error: invalid device function"))
    assert top(r) != "no-kernel-image"


def test_another_error_the_run_died_of_answers_not_the_warning():
    kv = ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
          "when initializing the engine.")
    assert top(diagnose(HEAD + WARNING + _died_of(kv) + WRAPPER)) != "no-kernel-image"
    # an error no rule knows is quoted, not answered by the warning
    r = diagnose(HEAD + WARNING + _died_of("KeyError: 'model.layers.0.mlp.gate_proj.weight'") + WRAPPER)
    assert top(r) != "no-kernel-image"


def test_a_volta_gpu_under_a_torch_built_without_it_is_told_which_build_has_it():
    env = ("Versions of relevant libraries:\n[pip3] torch==2.11.0+cu130\n\n"
           "GPU models and configuration: GPU 0: Tesla V100-SXM2-32GB\n")
    error = _died_of("torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device")
    d = diagnose(env + error).diagnoses[0]
    assert d.rule_id == "no-kernel-image" and "(`sm_70`)" in d.cause and "below compute capability 7.5" in d.cause.replace("\n", " ")
    assert "whl/cu126" in d.fix
    # a T4 (sm_75) is still among CUDA 13's targets
    t4 = diagnose(env.replace("Tesla V100-SXM2-32GB", "Tesla T4") + error).diagnoses[0]
    assert "below compute capability 7.5" not in t4.cause.replace("\n", " ")
    # torch's CUDA 12.6 builds still have Volta
    older = diagnose(env.replace("2.11.0+cu130", "2.7.1+cu126") + error).diagnoses[0]
    assert "below compute capability 7.5" not in older.cause.replace("\n", " ")


RANGE = ("/usr/local/lib/python3.10/site-packages/torch/cuda/__init__.py:283: UserWarning:\n"
         "    Found GPU0 {name} which is of cuda capability {cc}.\n"
         "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
         "    ({lo}) - ({hi})\n\n  warnings.warn(\n")
SUGGESTS = ("/usr/local/lib/python3.10/site-packages/torch/cuda/__init__.py:304: UserWarning:\n"
            "    Please install PyTorch with a following CUDA\n    configurations:  12.6 following instructions at\n"
            "    https://pytorch.org/get-started/locally/\n")


def test_torch_29s_range_answers_a_gpu_below_it_with_the_build_torch_names():
    d = diagnose(RANGE.format(name="NVIDIA GeForce MX350", cc="6.1", lo="7.0", hi="12.0") + SUGGESTS).diagnoses[0]
    assert d.rule_id == "no-kernel-image" and "7.0 (`sm_70`) and newer" in d.cause.replace("\n", " ")
    assert "whl/cu126" in d.fix


def test_torch_29s_range_answers_a_newer_major_but_not_a_newer_minor():
    newer = diagnose(RANGE.format(name="NVIDIA GeForce RTX 5090", cc="12.0", lo="5.0", hi="9.0"))
    assert newer.diagnoses and newer.diagnoses[0].rule_id == "no-kernel-image"
    assert not diagnose(RANGE.format(name="NVIDIA GB10", cc="12.1", lo="8.0", hi="12.0")).diagnoses
