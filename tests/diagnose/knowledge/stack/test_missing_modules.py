"""`No module named X` against the table of import names: the distribution, vLLM's requirement, the fix."""

from bot.diagnose.knowledge.stack import stack_index
from bot.diagnose.knowledge.stack.missing_modules import describe


def _d(module, vllm=None):
    return describe(stack_index.load(), module, {"vllm_version": vllm} if vllm else {})


def test_a_plain_requirement_names_the_distribution_and_its_specifier():
    v = _d("zmq", "0.32.0")
    assert v["mm_dist"] == "pyzmq" and v["mm_named"] and v["mm_required"]
    assert v["mm_fix"] == 'pip install "pyzmq>=25.0.0"'
    v = _d("msgspec", "0.32.0")
    assert v["mm_fix"] == "pip install msgspec" and "mm_named" not in v


def test_a_marker_and_a_requirement_through_torch():
    v = _d("xformers", "0.6.0")
    assert v["mm_req"] == "xformers==0.0.27.post2" and "x86_64" in v["mm_marker"] and "mm_required" not in v
    v = _d("triton", "0.6.3")
    assert v["mm_through"] == "torch 2.4.0" and v["mm_req"] == "triton==3.0.0"
    assert v["mm_platforms"] == "Linux x86_64" and v["mm_fix"] == 'pip install "triton==3.0.0"'


def test_an_extra_gives_vllms_extra_as_the_fix():
    ix = stack_index.load()
    release = next(r for r in ix.vllm_releases()
                   if any(p.extra for p in ix.requirements_of(r, "librosa")) and not
                   any(not p.extra for p in ix.requirements_of(r, "librosa")))
    v = _d("librosa", release)
    assert v["mm_extra"] and v["mm_fix"] == f'pip install "vllm[{v["mm_extra"]}]=={release}"'


def test_not_required_by_this_release_and_unknown_modules():
    v = _d("librosa", "0.32.0")
    assert v["mm_not_required"] and "mm_req" not in v
    assert _d("my_prompt_utils", "0.32.0") == {}
    v = _d("msgspec")
    assert "mm_release" not in v and v["mm_fix"] == "pip install msgspec"


# --- the module-missing family, through the pipeline --------------------------------------------------

from bot.diagnose import diagnose  # noqa: E402

_TORCH_IMPORTS_TRITON = '''INFO 10-20 08:00:00 api_server.py:500] vLLM API server version 0.6.3
Traceback (most recent call last):
  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py", line 12, in <module>
    import torch._inductor.config
  File "/usr/local/lib/python3.10/dist-packages/torch/_inductor/runtime/triton_heuristics.py", line 40, in <module>
    import triton
ModuleNotFoundError: No module named 'triton'
'''


def test_a_module_another_package_imports_is_answered_through_the_pin_that_brings_it():
    d = diagnose(_TORCH_IMPORTS_TRITON).best
    assert d.rule_id == "stack-module-missing"
    assert "it pins torch 2.4.0, which requires `triton==3.0.0` only where" in d.cause
    assert "has wheels for Linux x86_64 only" in d.cause and '`pip install "triton==3.0.0"`' in d.fix


def test_no_answer_for_a_module_no_vllm_needs_or_vllms_own_import():
    own = _TORCH_IMPORTS_TRITON.replace("'triton'", "'my_kernels'").replace("import triton", "import my_kernels")
    assert diagnose(own).best is None or diagnose(own).best.rule_id != "stack-module-missing"
    sub = _TORCH_IMPORTS_TRITON.replace("'triton'", "'triton.language'")
    assert diagnose(sub).best is None or diagnose(sub).best.rule_id != "stack-module-missing"
    vllm_own = _TORCH_IMPORTS_TRITON.replace("torch/_inductor/runtime/triton_heuristics.py", "vllm/triton_utils/importing.py")
    assert diagnose(vllm_own).best is None or diagnose(vllm_own).best.rule_id != "stack-module-missing"


def test_a_host_no_distribution_has_wheels_for():
    ix = stack_index.load()
    v = describe(ix, "triton", {"os_hint": "macos"})
    assert v["mm_host"] == "macOS" and v["mm_host_dist"] == "triton" and "Linux x86_64" in v["mm_platforms"]
    # triton-windows ships Windows wheels, WSL runs Linux ones: nothing to say there
    assert "mm_host" not in describe(ix, "triton", {"os_hint": "windows"})
    assert "mm_host" not in describe(ix, "triton", {"os_hint": "wsl"})
    assert "mm_host" not in describe(ix, "zmq", {"os_hint": "macos"})


def test_on_vllms_cpu_build_torchs_packages_come_from_pytorchs_cpu_index():
    ix = stack_index.load()
    cuda = describe(ix, "torchvision", {"vllm_version": "0.32.0"})
    assert cuda["mm_required"] and "--index-url" not in cuda["mm_fix"]
    # the CUDA wheel's pin is the CPU torch's pair only when the log's torch is the one that wheel pins
    cpu = describe(ix, "torchvision", {"vllm_version": "0.32.0+cpu", "vllm_cpu_wheel": True, "torch_version": "2.13.0+cpu"})
    assert cpu["mm_cpu_wheel"] and not cpu.get("mm_required")
    assert cpu["mm_fix"] == f'pip install "{cpu["mm_req"]}" --index-url https://download.pytorch.org/whl/cpu'
    other = describe(ix, "torchvision", {"vllm_version": "0.32.0", "vllm_cpu_wheel": True, "torch_version": "2.9.1+cpu"})
    assert not other.get("mm_cpu_pair") and other["mm_fix"].startswith("pip install torchvision --index-url")
