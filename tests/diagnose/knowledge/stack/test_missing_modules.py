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
