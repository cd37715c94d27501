"""A run's hf_overrides: the config.json values a check reads may be the user's own."""

from bot.diagnose.answering import advice


def test_overrides_shown_and_the_message_value_they_set():
    out = advice.hf_overrides_values({"num_heads": "4", "num_kv_heads": "3"},
                                     {"engine_args": {"hf_overrides": {"num_key_value_heads": 3}}})
    assert out["hf_overrides_set"] == '`{{"num_key_value_heads": 3}}`'
    assert "`num_kv_heads` = `3`" in out["hf_overrides_hit"]["en"] and "num_key_value_heads" in out["hf_overrides_hit"]["en"]


def test_nested_override_and_a_json_string_from_the_command_line():
    out = advice.hf_overrides_values({"scaling_type": "nope"},
                                     {"user_args": {"hf_overrides": '{"rope_scaling": {"rope_type": "nope"}}'}})
    assert "`rope_scaling.rope_type`" in out["hf_overrides_hit"]["en"]


def test_no_overrides_no_values():
    assert advice.hf_overrides_values({"x": "3"}, {"engine_args": {"dtype": "float32"}}) == {}


def test_tokenizer_path_told_by_the_frame_that_looked_it_up():
    sources = lambda: ["self.tokenizer = get_model_path(self.tokenizer, self.tokenizer_revision)"]  # noqa: E731
    got = advice.derive("model-path-not-found", {"model": "/models/nope", "frame_sources": sources}, {"invocation": "llm"})
    assert got["path_is_tokenizer"] == "yes" and got["tokenizer_knob"] == "`LLM(tokenizer=…)`"
    model = lambda: ["self.model = get_model_path(self.model, self.revision)"]  # noqa: E731
    assert advice.derive("model-path-not-found", {"model": "/models/nope", "frame_sources": model}, {}) == {}


def test_a_value_alone_is_no_link_to_an_override():
    # 32 sequences and 32 attention heads: the same number, not the same setting
    out = advice.hf_overrides_values({"max_num_seqs": "32"},
                                     {"engine_args": {"hf_overrides": {"num_attention_heads": 32}}})
    assert "hf_overrides_set" in out and "hf_overrides_hit" not in out
    # the same value under a name that shares a word with the override's key is the link
    out = advice.hf_overrides_values({"self.num_attention_heads": "32"},
                                     {"engine_args": {"hf_overrides": {"text_config": {"num_attention_heads": 32}}}})
    assert "`text_config.num_attention_heads`" in out["hf_overrides_hit"]["en"]
