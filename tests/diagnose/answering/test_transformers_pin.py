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
    assert mismatch(vllm_version="0.12.0", transformers_version="5.3.0") == {
        "tf_pin": "<5,>=4.56.0", "tf_installed": "5.3.0", "tf_newer": "yes", "tf_pin_fix": "<5,>=4.56.0"}
    # a pin without a ceiling from a vLLM made for transformers 4 (up to 0.11.0): the range to install stays below 5.0.0,
    # which every such release fails on as it starts (get_cached_tokenizer's `all_special_tokens_extended`)
    assert mismatch(vllm_version="0.10.2", transformers_version="4.51.3") == {
        "tf_pin": ">=4.55.2", "tf_installed": "4.51.3", "tf_older": "yes", "tf_unbounded": "yes",
        "tf_pin_fix": ">=4.55.2,<5.0.0"}


def test_no_direction_without_the_installed_release_and_nothing_without_the_vllm_release():
    assert mismatch(vllm_version="0.12.0") == {"tf_pin": "<5,>=4.56.0", "tf_pin_fix": "<5,>=4.56.0"}
    assert mismatch(vllm_version="0.12.0", transformers_version="4.57.1") == {
        "tf_pin": "<5,>=4.56.0", "tf_installed": "4.57.1", "tf_inside": "yes"}


def test_a_pin_without_an_upper_bound_says_nothing_of_a_newer_transformers():
    # vLLM 0.11.0 with transformers 5.1.0 (es-at-scale#41): it meets ">=4.55.2" and still lacks what 0.11 reads
    assert mismatch(vllm_version="0.11.0", transformers_version="5.1.0") == {
        "tf_pin": ">=4.55.2", "tf_unbounded": "yes"}
    assert mismatch(transformers_version="5.3.0") == {}


def test_a_shadowing_copy_or_a_dependency_check_tells_its_own_story():
    assert mismatch(vllm_version="0.12.0", transformers_version="5.3.0", shadowed_root="/tmp/tf") == {}
    assert advice.derive("transformers-version-mismatch", {"dep": "tokenizers"},
                         {"vllm_version": "0.12.0", "transformers_version": "5.3.0"}) == {}


def tokenizer(cls: str, **facts) -> dict:
    return advice.derive("tokenizer-load-failed", {"tokenizer_class": cls}, facts)


def test_tokenizers_backend_against_the_pin():
    # a class only a newer transformers has: no trust_remote_code to paste (remote code would not bring it)
    assert tokenizer("TokenizersBackend", vllm_version="0.19.0") == {
        "tc_first": "5.0.0", "tc_generic": "yes", "tc_vllm_pin": "<5,>=4.56.0", "tc_vllm_allowing": "0.19.1", "suggest": {}}
    # 0.11.0's pin has no ceiling, but it fails on transformers 5 as it starts: none it runs with has the class
    assert tokenizer("TokenizersBackend", vllm_version="0.11.0") == {
        "tc_first": "5.0.0", "tc_generic": "yes", "tc_vllm_open": ">=4.55.2", "tc_vllm_below": "5.0.0", "tc_vllm_allowing": "0.19.1",
        "suggest": {}}
    # 0.24 pins transformers>=5.5.3: the class is there, no pin claim
    assert tokenizer("TokenizersBackend", vllm_version="0.24.0", transformers_version="4.57.6") == {
        "tc_first": "5.0.0", "tc_generic": "yes", "tc_installed": "4.57.6", "suggest": {}}


def test_other_classes_get_no_release_claim():
    assert tokenizer("QWenTokenizer", vllm_version="0.19.0") == {}       # remote code's: no release has it
    assert tokenizer("Qwen2Tokenizer", vllm_version="0.19.0") == {}      # every release has it
    # added, then removed again (4.54.0 - 4.57.6): no floor to tell
    assert tokenizer("MistralCommonTokenizer", vllm_version="0.19.0") == {}


def test_a_model_tokenizer_class_of_a_later_release_by_the_exports_table():
    # Qwen3_5Tokenizer: `from transformers import` gives it from 5.2.0 on (the stack index's exports table)
    assert tokenizer("Qwen3_5Tokenizer", vllm_version="0.19.0") == {
        "tc_first": "5.2.0", "tc_vllm_pin": "<5,>=4.56.0", "tc_vllm_allowing": "0.19.1", "suggest": {}}


def _pin_values(got: dict) -> dict:
    return {k: v for k, v in got.items() if k.startswith("tf_")}


def test_a_transformers_5_class_in_the_message_is_a_transformers_5_install():
    got = advice.derive("transformers-version-mismatch", {"symbol": "all_special_tokens_extended",
                                                          "cls": "TokenizersBackend"}, {"vllm_version": "0.11.0"})
    assert _pin_values(got) == {"tf_pin": ">=4.55.2", "tf_unbounded": "yes"}   # no upper bound: nothing to say
    got = advice.derive("transformers-version-mismatch", {"symbol": "all_special_tokens_extended",
                                                          "cls": "TokenizersBackend"}, {"vllm_version": "0.12.0"})
    assert _pin_values(got) == {"tf_pin": "<5,>=4.56.0", "tf_pin_fix": "<5,>=4.56.0", "tf_class": "TokenizersBackend",
                                "tf_floor": "5.0.0"}
    got = advice.derive("transformers-version-mismatch", {"symbol": "all_special_tokens_extended",
                                                          "cls": "Qwen2Tokenizer"}, {"vllm_version": "0.12.0"})
    assert _pin_values(got) == {"tf_pin": "<5,>=4.56.0", "tf_pin_fix": "<5,>=4.56.0"}


def test_the_tokenizers_attribute_gets_the_releases_that_have_it():
    # the stack index's table of the tokenizer base classes (attribute_names.py): gone in 5.0.0
    got = advice.derive("transformers-version-mismatch", {"symbol": "all_special_tokens_extended",
                                                          "cls": "Qwen2Tokenizer"}, {"vllm_version": "0.12.0"})
    assert got["nm_attribute"] and got["nm_removed"] == "5.0.0" and got["nm_fix_spec"] == ">=4.56.0,<5.0.0"


def test_the_range_to_install_of_a_ceiling_less_pin():
    from bot.diagnose.knowledge.stack.import_names import installable_pin
    assert installable_pin(">=4.55.2") == ">=4.55.2,<5.0.0"
    assert installable_pin(">=4.40.0") == ">=4.40.0,<5.0.0"
    # a 5.x floor (0.24.0 - 0.30.0), a ceiling of its own, an exclusion list: left as they are
    assert installable_pin(">=5.5.3") == ">=5.5.3"
    assert installable_pin("<5,>=4.56.0") == "<5,>=4.56.0"
    assert installable_pin("!=5.0.*,!=5.1.*,>=4.56.0") == "!=5.0.*,!=5.1.*,>=4.56.0"
    assert installable_pin(None) is None


def submodule(module: str, **facts) -> dict:
    got = advice.derive("transformers-version-mismatch", {"tf_submodule": module}, facts)
    return {k: v for k, v in got.items() if k.startswith("ms_")}


def test_a_transformers_module_of_some_releases_by_the_exports_table():
    # transformers/onnx/ is in the 4.x wheels only: removed in 5.0.0
    assert submodule("transformers.onnx", transformers_version="5.19.0") == {
        "ms_known": "yes", "ms_span": "≤ 4.57.6", "ms_removed": "5.0.0", "ms_installed": "5.19.0", "ms_fix": "<5.0.0"}
    # under a vLLM that pins transformers 5: no release it allows has it
    assert submodule("transformers.onnx", vllm_version="0.24.0") == {
        "ms_known": "yes", "ms_span": "≤ 4.57.6", "ms_removed": "5.0.0", "ms_vllm_pin": ">=5.5.3", "ms_pin_none": "yes"}
    # tokenization_python came with 5.0.0: a 4.x install is older
    got = submodule("transformers.tokenization_python", transformers_version="4.57.6")
    assert got["ms_first"] == "5.0.0" and got["ms_installed"] == "4.57.6" and got["ms_fix"] == ">=5.0.0"
    # a module every release has, or none: nothing to say
    assert submodule("transformers.configuration_utils") == {}
    assert submodule("transformers.no_such_module") == {}
    # the transformers that ran has it: not its release
    assert submodule("transformers.onnx", transformers_version="4.51.3") == {}
