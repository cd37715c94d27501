"""What a transformers release exports, read from its files (synthetic sources in the shapes the
wheels use: a plain module, a backend check, a lazy package of 4.x and of 5.x)."""

from __future__ import annotations

from bot.diagnose.knowledge.stack.build import transformers_exports as te


def _scan(files: dict[str, str]) -> dict[str, list[str]]:
    return te.release_exports({p: te.scan_file(p, t) for p, t in files.items()})


MODELING = '''
import torch
from torch import nn
from ...utils import logging, is_flash_attn_2_available
if is_flash_attn_2_available():
    from flash_attn import flash_attn_func
try:
    from .fast import FastThing
except ImportError:
    FastThing = None
if TYPE_CHECKING:
    from ...cache_utils import OnlyForTypes
logger = logging.get_logger(__name__)
LLAMA_ATTENTION_CLASSES: dict = {}
class LlamaAttention(nn.Module):
    def inner(self):
        hidden = 1
def apply_rotary_pos_emb(q, k):
    local = 2
__all__ = ["LlamaAttention"]
'''


def test_a_module_exports_its_top_level_names_and_imports_not_type_checking_ones():
    names = set(_scan({"transformers/models/llama/modeling_llama.py": MODELING})[
        "transformers.models.llama.modeling_llama"])
    assert {"torch", "nn", "logging", "is_flash_attn_2_available", "flash_attn_func", "FastThing", "logger",
            "LLAMA_ATTENTION_CLASSES", "LlamaAttention", "apply_rotary_pos_emb"} <= names
    assert not names & {"OnlyForTypes", "inner", "hidden", "local"}


def test_a_star_import_adds_the_other_modules_public_names():
    table = _scan({"transformers/utils/__init__.py": "from .generic import *\nfrom .hub import cached_file\n",
                   "transformers/utils/generic.py": "def is_tensor(x): pass\ndef _private(): pass\n",
                   "transformers/utils/hub.py": "def cached_file(): pass\n"})
    assert table["transformers.utils"] == ["cached_file", "is_tensor"]


LAZY_4 = '''
_import_structure = {"configuration_utils": ["PretrainedConfig"], "models.llama": ["LlamaConfig"]}
try:
    if not is_torch_available():
        raise OptionalDependencyNotAvailable()
except OptionalDependencyNotAvailable:
    _import_structure["utils.dummy_pt_objects"] = [n for n in dir(dummy_pt_objects)]
else:
    _import_structure["models.llama"].extend(["LlamaForCausalLM", "LlamaModel"])
    _import_structure["cache_utils"] = ["DynamicCache"]
    _import_structure["generation"].append("GenerationMixin")
from .utils import logging
logger = logging.get_logger(__name__)
sys.modules[__name__] = _LazyModule(__name__, globals()["__file__"], _import_structure, extra_objects={"__version__": __version__})
'''

LAZY_5 = '''
_import_structure = {"configuration_utils": ["PreTrainedConfig", "PretrainedConfig"]}
import_structure = define_import_structure(Path(__file__).parent / "models", prefix="models")
sys.modules[__name__] = _LazyModule(__name__, globals()["__file__"], import_structure)
_create_tokenization_alias(f"{__name__}.tokenization_utils_fast", ".tokenization_utils_tokenizers")
'''
MODEL_PACKAGE_5 = '''
if TYPE_CHECKING:
    from .modeling_llama import *
else:
    _file = globals()["__file__"]
    sys.modules[__name__] = _LazyModule(__name__, _file, define_import_structure(_file), module_spec=__spec__)
'''


def test_a_lazy_package_of_4x_exports_its_import_structure_only():
    top = _scan({"transformers/__init__.py": LAZY_4})["transformers"]
    assert top == sorted(["PretrainedConfig", "LlamaConfig", "LlamaForCausalLM", "LlamaModel", "DynamicCache",
                          "GenerationMixin", "__version__"])
    assert "logger" not in top                 # the module is replaced: its own globals are gone


def test_a_lazy_package_of_5x_exports_the_all_of_its_folders_files_and_aliases_modules():
    table = _scan({
        "transformers/__init__.py": LAZY_5,
        "transformers/models/__init__.py": "from . import llama\n",
        "transformers/models/llama/__init__.py": MODEL_PACKAGE_5,
        "transformers/models/llama/modeling_llama.py": MODELING,
        "transformers/models/llama/configuration_llama.py":
            "@requires(backends=('torch',))\nclass LlamaConfig: pass\nclass Hidden: pass\n",
        "transformers/tokenization_utils_tokenizers.py": "class TokenizersBackend: pass\n",
    })
    assert table["transformers"] == ["LlamaAttention", "LlamaConfig", "PreTrainedConfig", "PretrainedConfig"]
    assert table["transformers.models.llama"] == ["LlamaAttention", "LlamaConfig"]
    assert table["transformers.tokenization_utils_fast"] == ["TokenizersBackend"]


def test_the_module_that_defines_lazy_module_is_not_one():
    # utils/import_utils.py defines `class _LazyModule(ModuleType):`; only a package that puts one in
    # sys.modules is lazy. Read as one, it exported nothing and is_torch_fx_available (removed in 5.0.0) read as
    # never released.
    text = ("import sys\nfrom types import ModuleType\n\ndef is_torch_fx_available():\n    return True\n\n"
            "class _LazyModule(ModuleType):\n    pass\n")
    table = _scan({"transformers/utils/import_utils.py": text})
    assert table["transformers.utils.import_utils"] == ["ModuleType", "_LazyModule", "is_torch_fx_available", "sys"]


def test_scripts_and_doubles_are_not_read():
    assert te.wanted("transformers/models/llama/modeling_llama.py")
    assert te.wanted("transformers/utils/import_utils.py")
    for skipped in ("transformers/models/llama/convert_llama_weights_to_hf.py",
                    "transformers/models/llama/modular_llama.py", "transformers/utils/dummy_pt_objects.py",
                    "transformers/commands/serving.py", "transformers/cli/serve.py"):
        assert not te.wanted(skipped), skipped


def test_names_are_packed_by_the_releases_that_have_them():
    assert te.runs(0b1110011) == "0-1+4-6"
    assert te.runs(1) == "0"
    packed = te.pack({"A": 0b111, "B": 0b111, "C": 0b011})
    assert packed == "0-2:A,B;0-1:C"


class _Wheel:
    def __init__(self, files):
        self.files = files

    def namelist(self):
        return list(self.files)

    def texts(self, names):
        return {n: self.files[n] for n in names}


class _PyPI:
    """Three releases: a name removed in the second, another added in the third."""
    RELEASES = {"4.40.0": "LLAMA_ATTENTION_CLASSES = {}\nclass LlamaAttention: pass\n",
                "4.41.0": "class LlamaAttention: pass\n",
                "4.42.0": "class LlamaAttention: pass\nclass LlamaRotaryEmbedding: pass\n"}

    def releases(self, name, since=None, until=None):
        return list(self.RELEASES)

    def wheel(self, name, version, smallest=False):
        return {"filename": f"transformers-{version}-py3-none-any.whl", "version": version}

    def remote(self, wheel):
        return _Wheel({"transformers/__init__.py": "__version__ = '1'\n",
                       "transformers/models/llama/modeling_llama.py": self.RELEASES[wheel["version"]]})

    def prune(self, prefix, current):
        pass

    def memo(self, kind, key, make, compress=False):
        return make()


def test_the_table_keeps_each_names_releases():
    table = te.build(_PyPI(), "4.40.0")
    assert table["releases"] == ["4.40.0", "4.41.0", "4.42.0"]
    assert table["modules"]["transformers.models.llama.modeling_llama"] == \
        "0:LLAMA_ATTENTION_CLASSES;2:LlamaRotaryEmbedding;0-2:LlamaAttention"
    assert table["source"].startswith("transformers wheels on PyPI, every release from 4.40.0")
