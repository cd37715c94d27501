"""pip-index-unreachable and build-requirements-missing: the flags and values their texts are chosen by."""

import pytest

from bot.diagnose.answering import advice
from bot.diagnose.knowledge.stack import stack_index


def test_an_unreachable_index_says_which_and_why():
    out = advice.derive("pip-index-unreachable", {}, {"index_failure": {
        "index_url": "https://pypi.org/simple/vllm/", "index_host": "pypi.org", "index_error": "tls_eof"}})
    assert out == {"index_url": "https://pypi.org/simple/vllm/", "index_host": "pypi.org", "index_tls_eof": "yes"}
    assert advice.derive("pip-index-unreachable", {}, {"index_failure": {}}) == {}


@pytest.mark.skipif(stack_index.load() is None, reason="the stack index's data is not installed")
def test_a_build_requirement_missing_names_the_torch_to_build_against():
    out = advice.derive("build-requirements-missing", {}, {"vllm_sdist": "0.9.2", "no_build_isolation": True})
    assert out == {"no_build_isolation": "yes", "pin_torch": "==2.7.0"}
    assert advice.derive("build-requirements-missing", {}, {"no_build_isolation": False}) == {}


def test_a_local_cuda_tag_says_which_cuda():
    assert advice.derive("vllm-sdist-local-version", {"cuda_digits": "130"}, {})["cuda_words"] == "13.0 (`cu130`)"
    assert "cuda_words" not in advice.derive("vllm-sdist-local-version", {"local": "cpu"}, {})
