"""A name missing from transformers, against the index's table of what each release exports."""

from __future__ import annotations

from bot.diagnose.knowledge.stack import stack_index
from bot.diagnose.knowledge.stack.import_names import history, importer, missing_name


def test_the_messages_are_read_and_others_are_not():
    assert missing_name("ImportError: cannot import name 'DynamicCache' from 'transformers' (/x/__init__.py)") == \
        ("transformers", "DynamicCache")
    assert missing_name("AttributeError: module 'transformers.utils' has no attribute 'LossKwargs'") == \
        ("transformers.utils", "LossKwargs")
    for other in ("cannot import name 'X' from 'transformers_modules.repo.modeling'",
                  "cannot import name 'X' from partially initialized module 'transformers' (most likely due to a circular import)",
                  "AttributeError: partially initialized module 'transformers' has no attribute 'X'",
                  "cannot import name 'LlavaLlamaForCausalLM' from 'llava.model'"):
        assert missing_name(other) is None, other


def test_the_shipped_table_knows_removed_and_added_names():
    ix = stack_index.load()
    rec = ix.import_name("transformers.models.llama.modeling_llama", "LlamaFlashAttention2")
    assert rec.removed == "4.48.0" and rec.releases[-1] == "4.47.1" and rec.added is None
    rec = ix.import_name("transformers", "Qwen3VLForConditionalGeneration")
    assert rec.added and rec.added.startswith("4.57") and rec.removed is None
    assert ix.import_name("transformers", "GenerationConfig").releases == ix.export_releases()
    assert ix.import_name("transformers", "NoSuchName").releases == []
    assert ix.import_name("transformers.no_such_module", "X") is None
    assert ix.export_releases() == ix.transformers_releases()


def test_history_says_too_new_and_names_the_range_without_vllm():
    ix = stack_index.load()
    v = history(ix, "transformers.models.llama.modeling_llama", "LlamaFlashAttention2",
                {"transformers_version": "4.57.1"})
    assert v["nm_known"] and v["nm_too_new"] and v["nm_removed"] == "4.48.0"
    assert v["nm_span"] == "≤ 4.47.1" and v["nm_fix_spec"] == "<4.48.0"


def test_history_fits_the_range_to_the_logs_vllm_pin():
    ix = stack_index.load()
    # vLLM 0.8.5 requires transformers>=4.51.1: TransformersKwargs (4.54.0 on) fits it, up to the pin's
    # own ceiling if it has one
    pin = ix.pin("0.8.5", "transformers")
    v = history(ix, "transformers.utils", "TransformersKwargs", {"vllm_version": "0.8.5"})
    assert v["nm_vllm_pin"] == pin and v["nm_fix_spec"].startswith(">=4.54.0")


def test_a_pin_that_allows_no_release_with_the_name_points_at_vllm_releases():
    ix = stack_index.load()
    newest = max(ix.vllm_releases(), key=stack_index.vkey)
    v = history(ix, "transformers.models.llama.modeling_llama", "LlamaFlashAttention2", {"vllm_version": newest})
    assert v["nm_pin_none"] and v["nm_pin_past"] and "nm_fix_spec" not in v and "nm_vllm_later" not in v
    assert v["nm_vllm_earlier"]          # an older vLLM's pin still allows transformers <= 4.47
    assert ix.pin(v["nm_vllm_earlier"], "transformers")


def test_a_name_every_release_has_or_none_had_is_not_known():
    ix = stack_index.load()
    assert "nm_known" not in history(ix, "transformers", "GenerationConfig", {})
    assert history(ix, "transformers", "NoSuchName", {}).get("nm_never")
    assert history(ix, "transformers.no_such_module", "X", {}) == {}


def test_releases_between_that_lack_the_name_are_a_gap_not_an_upper_bound():
    # transformers 5.0 - 5.3 dropped ALLOWED_LAYER_TYPES (vLLM imports it), 5.4 brought it back
    ix = stack_index.load()
    v = history(ix, "transformers.configuration_utils", "ALLOWED_LAYER_TYPES", {"transformers_version": "5.2.0"})
    assert v["nm_known"] and v["nm_in_gap"] and v["nm_gap"] == "5.0.0 – 5.3.0"
    assert v["nm_span"] == "4.53.0 – 4.57.6, ≥ 5.4.0"
    # without the log's vLLM both runs are offered; the first as the fix
    assert v["nm_fix_spec"] == ">=4.53.0,<5.0.0" and v["nm_fix_spec_alt"] == ">=5.4.0"
    # a release inside a run has it: the version is not the cause
    assert history(ix, "transformers.configuration_utils", "ALLOWED_LAYER_TYPES",
                   {"transformers_version": "4.57.1"}).get("nm_has")


def test_a_gap_is_fitted_to_the_logs_vllm_pin():
    ix = stack_index.load()
    pin = ix.pin("0.32.0", "transformers")          # <5.20.0,>=5.16.1: the run after the gap
    v = history(ix, "transformers.configuration_utils", "ALLOWED_LAYER_TYPES",
                {"transformers_version": "5.2.0", "vllm_version": "0.32.0"})
    assert v["nm_vllm_pin"] == pin and v["nm_fix_spec"] == ">=5.16.1,<5.20.0" and "nm_fix_spec_alt" not in v


def test_another_packages_import_names_that_package_and_the_release_vllm_requires():
    ix = stack_index.load()
    frame = "/usr/lib/python3/dist-packages/lmformatenforcer/integrations/transformers.py"
    assert importer(ix, frame) == {"nm_importer": "lmformatenforcer", "nm_importer_dist": "lm-format-enforcer"}
    pinned = importer(ix, "lmformatenforcer/integrations/transformers.py:<module>", "0.32.0")
    assert pinned["nm_importer_pin"] == ix.requirements_of("0.32.0", "lm-format-enforcer")[0].specifier
    # vLLM's own code, transformers re-raising, and a user's script are not another package's import
    for other in ("/x/site-packages/vllm/config/model.py", "vllm/transformers_utils/config.py:<module>",
                  "/x/site-packages/transformers/utils/import_utils.py", "/home/u/run.py:<module>", None):
        assert importer(ix, other) == {}, other
