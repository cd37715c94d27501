"""A weight name that starts with a vision-language model's top-level module (`visual.`, `language_model.`):
the answer explains the layout, and names the Qwen2-VL / transformers 4.52 renaming (fixed in vLLM 0.9.1) only
where nothing in the paste says the model is another one."""

from bot.diagnose.answering import advice


def _derived(key: str, arch: str | None = None, frames: list | None = None) -> dict:
    return advice._weights_key({"key": key, "arch": arch}, {"vllm_frames": frames or []})


def test_a_qwen2_language_model_frame_keeps_the_qwen_renaming():
    out = _derived("visual.patch_embed.proj.weight", frames=[["vllm/model_executor/models/qwen2.py", 405, "load_weights"]])
    assert out == {"vl_prefix": "visual.", "qwen_vl_names": True}


def test_another_model_in_the_frames_or_the_class_leaves_qwen_out():
    assert _derived("language_model.model.norm.weight", frames=[["vllm/model_executor/models/gemma3.py", 1, "f"]]) \
        == {"vl_prefix": "language_model."}
    assert _derived("language_model.model.norm.weight", arch="Gemma3ForCausalLM") == {"vl_prefix": "language_model."}


def test_a_plain_layer_name_is_no_vision_language_layout():
    assert _derived("model.layers.0.mlp.experts.w13_weight") == {}


def test_an_eagle_draft_class_says_the_draft_is_not_an_eagle_head_and_eagle_2_5_vl_does_not():
    from bot.diagnose.answering import advice
    assert advice.derive("weights-key-mismatch", {"key": "lm_head", "arch": "Eagle3LlamaForCausalLM"}, {}) == \
        {"eagle_draft": "Eagle3LlamaForCausalLM"}
    # NVIDIA's Eagle 2.5 is a vision-language model, not a speculative-decoding draft
    assert "eagle_draft" not in advice.derive("weights-key-mismatch",
                                              {"key": "mlp1.0.weight", "arch": "Eagle2_5_VLForConditionalGeneration"}, {})
