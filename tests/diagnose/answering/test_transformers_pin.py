"""transformers-version-mismatch and tokenizer-load-failed read the log's vLLM's transformers pin
from the stack index: a direction (older, newer, excluded, inside) only when the paste shows both
the vLLM release and the installed transformers."""

from __future__ import annotations

import pytest

from bot.diagnose.answering import advice


def mismatch(**facts) -> dict:
    return advice.derive("transformers-version-mismatch", {"symbol": "X"}, facts)


@pytest.mark.parametrize("installed, pin, side", [
    ("4.51.3", ">=4.56.0,<5", "older"),
    ("5.3.0", "<5,>=4.56.0", "newer"),
    ("4.57.1", "<5,>=4.56.0", "inside"),
    ("5.3.0", "!=5.0.*,!=5.1.*,!=5.2.*,!=5.3.*,>=4.56.0", "excluded"),
    ("5.19.0", "<5.18.0,>=5.10.4", "newer"),
    ("5.0.0.dev0+abc", "<5", None),
])
def test_where_the_installed_release_stands(installed, pin, side):
    assert advice._against_pin(installed, pin) == side


def test_the_pin_and_the_direction():
    assert mismatch(vllm_version="0.12.0", transformers_installed="5.3.0") == {
        "tf_pin": "<5,>=4.56.0", "tf_installed": "5.3.0", "tf_newer": "yes"}
    assert mismatch(vllm_version="0.10.2", transformers_installed="4.51.3") == {
        "tf_pin": ">=4.55.2", "tf_installed": "4.51.3", "tf_older": "yes"}


def test_no_direction_without_the_installed_release_and_nothing_without_the_vllm_release():
    assert mismatch(vllm_version="0.12.0") == {"tf_pin": "<5,>=4.56.0"}
    assert mismatch(transformers_installed="5.3.0") == {}


def test_a_shadowing_copy_or_a_dependency_check_tells_its_own_story():
    assert mismatch(vllm_version="0.12.0", transformers_installed="5.3.0", shadowed_root="/tmp/tf") == {}
    assert advice.derive("transformers-version-mismatch", {"dep": "tokenizers"},
                         {"vllm_version": "0.12.0", "transformers_installed": "5.3.0"}) == {}


def tokenizer(cls: str, **facts) -> dict:
    return advice.derive("tokenizer-load-failed", {"tokenizer_class": cls}, facts)


def test_tokenizers_backend_against_the_pin():
    assert tokenizer("TokenizersBackend", vllm_version="0.19.0") == {
        "tc_first": "5.0.0", "tc_vllm_pin": "<5,>=4.56.0", "tc_vllm_allowing": "0.19.1"}
    # 0.24 pins transformers>=5.5.3: the class is there, no pin claim
    assert tokenizer("TokenizersBackend", vllm_version="0.24.0", transformers_installed="4.57.6") == {
        "tc_first": "5.0.0", "tc_installed": "4.57.6"}


def test_other_classes_get_no_release_claim():
    assert tokenizer("QWenTokenizer", vllm_version="0.19.0") == {}
