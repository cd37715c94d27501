"""arch-unsupported and transformers-backend-class-missing name the vLLM releases whose model registry
has the architecture: the index's `architecture` knob, read from every indexed release's wheel
(`_..._MODELS` tables of vllm/model_executor/models/registry.py, before 0.6.1 models/__init__.py)."""

from __future__ import annotations

from bot.diagnose.answering import advice
from bot.diagnose.knowledge.vllm import load_index
from bot.diagnose.knowledge.vllm.build import scan_knobs


def arch(architectures: str, **facts) -> dict:
    return {k: v for k, v in advice.derive("arch-unsupported", {"architectures": architectures}, facts).items()
            if k.startswith("arch")}


def test_the_index_holds_each_release_registry():
    ix = load_index()
    assert ix.knob_versions("architecture", "DeepseekV3ForCausalLM")[0] == "0.6.6"
    assert ix.knob_versions("architecture", "Qwen3ForCausalLM")[0] == "0.8.4"
    assert ix.knob_versions("architecture", "LlamaForCausalLM")[0] == ix.versions[0]


def test_an_older_vllm_gets_the_first_release_with_the_architecture():
    assert arch("['MiniMaxM2ForCausalLM']", vllm_version="0.11.0") == {
        "arch": "MiniMaxM2ForCausalLM", "arch_first": "0.11.1", "arch_older": "yes"}


def test_without_the_release_the_first_is_said_only_for_an_architecture_vllm_kept():
    assert arch("['GlmForCausalLM']") == {"arch": "GlmForCausalLM", "arch_first": "0.6.5"}
    assert arch("['MiniMaxText01ForCausalLM']") == {}       # dropped after 0.23.0: a newer vLLM's error too
    assert arch("['LlamaForCausalLM']") == {}               # there from the first indexed release


def test_a_release_newer_than_the_last_with_it_is_told_vllm_dropped_it():
    assert arch("['MiniMaxM1ForCausalLM']", vllm_version="0.32.0") == {
        "arch": "MiniMaxM1ForCausalLM", "arch_last": "0.23.0"}


def test_a_name_no_registry_has_is_a_custom_name_unless_a_suffix_twin_is_registered():
    got = arch("['TTLlamaForCausalLM']", vllm_version="0.6.3")
    assert got["arch_none"] == "yes" and got["arch_newest"] == load_index().versions[-1]
    # 0.10+ run `Qwen3ForSequenceClassification` as a converted Qwen3ForCausalLM: no claim either way
    assert arch("['Qwen3ForSequenceClassification']", vllm_version="0.20.0") == {}
    assert arch("['FooBarModel']") == {"arch": "FooBarModel", "arch_none": "yes", "arch_newest": load_index().versions[-1]}


def test_a_release_that_has_it_gets_no_claim():
    assert arch("['Qwen3ForCausalLM']", vllm_version="0.10.2") == {}


def test_the_scanner_reads_registry_tables_but_not_removed_or_platform_tables():
    src = '''
_TEXT_GENERATION_MODELS = {"AModelForCausalLM": ("a", "A"), "BForCausalLM": ("b", "B")}
_MULTIMODAL_MODELS: dict[str, tuple[str, str]] = {"CForConditionalGeneration": ("c", "C")}
_PREVIOUSLY_SUPPORTED_MODELS = {"OldForCausalLM": "0.10.0"}
_ROCM_UNSUPPORTED_MODELS = {"BForCausalLM": "x"}
_VLLM_MODELS = {**_TEXT_GENERATION_MODELS}
'''
    got = scan_knobs.scan({"vllm/model_executor/models/registry.py": src})["architecture"]
    assert got == ["AModelForCausalLM", "BForCausalLM", "CForConditionalGeneration"]
