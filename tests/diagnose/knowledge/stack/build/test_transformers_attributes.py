"""What the base classes of transformers' objects answer to, read from their files (synthetic sources
in the shapes the wheels use: 4.x's SpecialTokensMixin, 5.x's backends and aliases)."""

from __future__ import annotations

from bot.diagnose.knowledge.stack.build import transformers_attributes as ta
from tests.diagnose.knowledge.stack.build.test_transformers_exports import _Wheel

BASE_4 = '''
from .utils import PushToHubMixin
class SpecialTokensMixin:
    SPECIAL_TOKENS_ATTRIBUTES = ["bos_token", "additional_special_tokens"]
    def __init__(self, **kwargs):
        self._special_tokens_map = {}
        self.verbose = kwargs.pop("verbose", False)
    @property
    def all_special_tokens_extended(self):
        return []
class PreTrainedTokenizerBase(SpecialTokensMixin, PushToHubMixin):
    padding_side: str = "right"
    def batch_encode_plus(self, texts):
        setattr(self, "_in_target_context_manager", False)
'''
FAST_4 = '''
from .tokenization_utils_base import PreTrainedTokenizerBase
class PreTrainedTokenizerFast(PreTrainedTokenizerBase):
    def __init__(self):
        self._tokenizer, self.slow = None, None
'''
HUB = '''
class PushToHubMixin:
    def push_to_hub(self):
        pass
'''
BASE_5 = '''
from .utils import PushToHubMixin
class PreTrainedTokenizerBase(PushToHubMixin):
    SPECIAL_TOKENS_ATTRIBUTES = ["bos_token"]
    def __getattr__(self, key):
        if key == "extra_special_tokens":
            return []
        raise AttributeError(f"{self.__class__.__name__} has no attribute {key}")
'''
TOKENIZERS_5 = '''
from .tokenization_utils_base import PreTrainedTokenizerBase
class TokenizersBackend(PreTrainedTokenizerBase):
    def __init__(self):
        self._tokenizer = None
PreTrainedTokenizerFast = TokenizersBackend
'''


def _release(files: dict[str, str]) -> dict[str, list[str]]:
    scans = {p: ta.scan_file(p, t) for p, t in files.items()}
    return ta.release_attributes(scans.get, set(files))


def test_a_class_gives_its_methods_fields_self_assignments_and_special_tokens():
    names = set(_release({"transformers/tokenization_utils_base.py": BASE_4,
                          "transformers/utils/__init__.py": HUB})["tokenizer"])
    assert {"all_special_tokens_extended", "batch_encode_plus", "padding_side", "verbose",
            "_special_tokens_map", "_in_target_context_manager", "SPECIAL_TOKENS_ATTRIBUTES"} <= names
    # what __getattr__ serves from SPECIAL_TOKENS_ATTRIBUTES, with the id forms
    assert {"bos_token", "bos_token_id", "additional_special_tokens", "additional_special_tokens_ids"} <= names
    assert "push_to_hub" in names            # a base followed into another file through its import
    assert "__init__" not in names


def test_5x_backends_and_aliases_and_getattr_keys():
    names = set(_release({"transformers/tokenization_utils_base.py": BASE_5,
                          "transformers/tokenization_utils_tokenizers.py": TOKENIZERS_5})["tokenizer"])
    assert {"_tokenizer", "bos_token_id", "extra_special_tokens", "extra_special_tokens_ids"} <= names
    assert "all_special_tokens_extended" not in names and "additional_special_tokens" not in names


def test_a_4x_alias_root_is_read_through_its_class():
    fam = _release({"transformers/tokenization_utils_base.py": BASE_4,
                    "transformers/tokenization_utils_fast.py": FAST_4})
    assert {"slow", "_tokenizer", "batch_encode_plus"} <= set(fam["tokenizer"])
    assert "config" not in fam                 # no config file in this release: no family


def test_only_the_names_some_release_lacks_are_kept():
    assert ta.changing({"a": 0b111, "b": 0b011, "c": 0b110}) == {"b": 0b011, "c": 0b110}


CONFIG_BASE = "class PretrainedConfig:\n    def __init__(self, **kw):\n        self.pad_token_id = None\n"
LLAMA_CONFIG = '''
from ...configuration_utils import PretrainedConfig
class LlamaConfig(PretrainedConfig):
    attribute_map = {"n_head": "num_attention_heads"}
    def __init__(self, rope_theta=10000.0, **kw):
        self.rope_theta = rope_theta
        super().__init__(**kw)
'''
MISTRAL_CONFIG = '''
from ..llama.configuration_llama import LlamaConfig
class MistralConfig(LlamaConfig):
    sliding_window: int = 4096
class MistralOnnxConfig:
    pass
'''
VL_CONFIG = '''
from ...configuration_utils import PretrainedConfig
class QwenVLConfig(PretrainedConfig):
    def __init__(self, text_config=None, **kw):
        self.text_config = text_config
    def __getattribute__(self, key):
        return super().__getattribute__(key)
'''


def test_each_model_config_class_gets_its_own_fields_and_attribute_map_keys():
    fam = _release({"transformers/configuration_utils.py": CONFIG_BASE,
                    "transformers/models/llama/configuration_llama.py": LLAMA_CONFIG,
                    "transformers/models/mistral/configuration_mistral.py": MISTRAL_CONFIG,
                    "transformers/models/qwen_vl/configuration_qwen_vl.py": VL_CONFIG})
    assert fam["config:LlamaConfig"] == ["attribute_map", "n_head", "rope_theta"]
    # a base in another model's file, up to the config root (whose names are the config family's)
    assert fam["config:MistralConfig"] == ["attribute_map", "n_head", "rope_theta", "sliding_window"]
    assert "config:MistralOnnxConfig" not in fam and "pad_token_id" not in fam["config:LlamaConfig"]
    # a class with its own lookup is marked, and build() leaves it out
    assert ta.DELEGATES in fam["config:QwenVLConfig"]


def test_dynamiccache_is_a_root():
    cache = "class Cache:\n    def update(self):\n        pass\nclass DynamicCache(Cache):\n    def __init__(self):\n        self.key_cache = []\n"
    fam = _release({"transformers/cache_utils.py": cache})
    assert fam["cache"] == ["key_cache", "update"]


def test_a_config_class_row_is_read_with_its_config_roots():
    # releases 0-2; the root has to_dict in all three, pad_token_id and eos_token_id in 0-1, sub_configs in 1-2
    root = {"to_dict": 0b111, "pad_token_id": 0b011, "eos_token_id": 0b011, "sub_configs": 0b110}
    row = {"to_dict": 0b011, "rope_theta": 0b011, "model_type": 0b111, "pad_token_id": 0b100, "eos_token_id": 0b111,
           "sub_configs": 0b010}
    # by its own names alone, the override the class dropped in release 2 would read as a removal
    assert ta.changing(row) == {"to_dict": 0b011, "rope_theta": 0b011, "pad_token_id": 0b100, "sub_configs": 0b010}
    # with the root's: to_dict is had throughout and goes; rope_theta, the class's own, is a removal; pad_token_id,
    # the root's and then the class's own, stays with all the class's releases (else the root's removal would
    # answer for the class); eos_token_id, the class's throughout, is left to the root's row as before
    assert ta.own_changing(row, root) == {"rope_theta": 0b011, "pad_token_id": 0b111, "sub_configs": 0b110}
    # only the releases the class is in: a class of releases 1-2 does not gain to_dict in release 0 (its other
    # names would all read as added in release 1)
    assert ta.own_changing({"to_dict": 0b010, "n_layer": 0b110}, root) == {}
    assert ta.own_changing({"to_dict": 0b010, "n_layer": 0b100}, root) == {"n_layer": 0b100}


ROOT_4 = "class PretrainedConfig:\n    def to_dict(self):\n        pass\n    def __init__(self, **kw):\n        self.bos_token_id = None\n"
ROOT_5 = "class PreTrainedConfig:\n    def to_dict(self):\n        pass\n"
DPT_4 = '''
from ...configuration_utils import PretrainedConfig
class DPTConfig(PretrainedConfig):
    def __init__(self, rope_theta=1.0, **kw):
        self.rope_theta = rope_theta
    def to_dict(self):
        return {}
'''
DPT_5 = '''
from ...configuration_utils import PreTrainedConfig
class DPTConfig(PreTrainedConfig):
    model_type = "dpt"
'''


class _PyPI:
    """4.57.6: DPTConfig overrides to_dict and sets rope_theta; 5.0.0: it does neither (the root's to_dict serves)."""
    RELEASES = {"4.57.6": {"transformers/configuration_utils.py": ROOT_4, "transformers/models/dpt/configuration_dpt.py": DPT_4},
                "5.0.0": {"transformers/configuration_utils.py": ROOT_5, "transformers/models/dpt/configuration_dpt.py": DPT_5}}

    def wheel(self, name, version, smallest=False):
        return {"filename": f"transformers-{version}-py3-none-any.whl", "version": version}

    def remote(self, wheel):
        return _Wheel(self.RELEASES[wheel["version"]])

    def prune(self, prefix, current):
        pass

    def memo(self, kind, key, make, compress=False):
        return make()


def test_build_reads_a_config_class_with_its_roots():
    table = ta.build(_PyPI(), "4.57.6", log=lambda *a: None, releases=list(_PyPI.RELEASES))
    assert table["releases"] == ["4.57.6", "5.0.0"]
    assert table["families"]["config:DPTConfig"] == "0:rope_theta;1:model_type"
    assert table["families"]["config"] == "0:bos_token_id"
