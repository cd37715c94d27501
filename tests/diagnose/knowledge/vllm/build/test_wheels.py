"""The index builder on small synthetic "vllm" wheels written here (not vLLM's code): every way a
message, an argument, an env var and an import is written that the builder must read."""

from __future__ import annotations

import textwrap
import zipfile
from pathlib import Path

import pytest

from bot.diagnose.knowledge.vllm.build import wheels
from bot.diagnose.knowledge.vllm import index

CONFIG_V1 = '''
from dataclasses import dataclass, field
from typing import Literal, Optional
from pydantic import Field

CacheDType = Literal["auto", "fp8", "fp8_e5m2"]

@dataclass
class CacheConfig:
    """Configuration for the KV cache."""
    block_size: int = Field(default=16, gt=0)
    """Size of a contiguous cache block in number of tokens."""
    gpu_memory_utilization: float = Field(default=0.9, gt=0, le=1)
    """The fraction of GPU memory to be used for the model executor."""
    cache_dtype: CacheDType = "auto"
    """Data type for kv cache storage."""
    swap_space: float = 4
    """Size of the CPU swap space per GPU (in GiB)."""
    enable_prefix_caching: bool = False
    """Whether to enable prefix caching."""

    def verify(self, total: int) -> None:
        if self.gpu_memory_utilization > 1.0:
            raise ValueError(
                "GPU memory utilization must be less than 1.0. Got "
                f"{self.gpu_memory_utilization}.")
        msg = f"Too large swap space. {self.swap_space:.2f} GiB out of the {total} GiB total"
        msg += " CPU memory is allocated for the swap space."
        if self.swap_space > total:
            raise ValueError(msg)
        else:
            raise RuntimeError("Block size %d is not supported by backend %s" % (self.block_size, "flash"))


@dataclass
class CompilationConfig:
    level: int | None = None
    """Level is deprecated and will be removed in the next release. Please use mode."""
    mode: int | None = None
    """The compilation mode."""


def runner_for(task):
    msg_prefix = "The 'task' option has been deprecated and will be removed in v0.2.0."
    msg_hint = "Please remove this option."
    if task == "embed":
        msg_hint = ("Please replace this option with `--runner pooling` to continue using this model "
                    "as a pooling model.")
    logger.warning(msg_prefix + " " + msg_hint)
'''

ARG_UTILS_V1 = '''
import argparse
from dataclasses import dataclass, fields
from vllm.config import CacheConfig

def get_kwargs(cls):
    kwargs = {}
    for field in fields(cls):
        if field.type is bool:
            kwargs[field.name] = {"action": argparse.BooleanOptionalAction}
    return kwargs

@dataclass
class EngineArgs:
    model: str = "facebook/opt-125m"
    max_model_len: int | None = None
    gpu_memory_utilization: float = CacheConfig.gpu_memory_utilization
    swap_space: float = CacheConfig.swap_space
    kv_cache_dtype: str = CacheConfig.cache_dtype
    enforce_eager: bool = False
    task: str = "auto"
    runner: str = "auto"

    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--model", type=str, default=EngineArgs.model,
                            help="Name or path of the huggingface model to use.")
        parser.add_argument("--max-model-len", type=int, default=EngineArgs.max_model_len,
                            help="Model context length.")
        parser.add_argument("--enforce-eager", action="store_true", help="Always use eager-mode PyTorch.")
        cache_kwargs = get_kwargs(CacheConfig)
        parser.add_argument("--gpu-memory-utilization", "-gmu", **cache_kwargs["gpu_memory_utilization"])
        parser.add_argument("--swap-space", **cache_kwargs["swap_space"])
        parser.add_argument("--kv-cache-dtype", **cache_kwargs["cache_dtype"])
        parser.add_argument("--enable-prefix-caching", **cache_kwargs["enable_prefix_caching"])
        parser.add_argument("--kv-block", **cache_kwargs["block_size"])
        parser.add_argument("--block-size", type=int, choices=[8, 16, 32], default=16, help="Token block size.")
        parser.add_argument("--task", type=str, default="auto", help="The task to use the model for.")
        parser.add_argument("--runner", type=str, default="auto", help="The model runner to use.")
        return parser

    def create_engine_config(self):
        return CacheConfig(block_size=self.block_size)
'''

# The next release: swap_space is gone (with a deprecation notice naming its successor), a new
# flag replaces it, a message is reworded and a new env var appears; --task is gone (its notice's
# hint names --runner), and an env var gives way to a flag of the new AttentionConfig (a helper
# words the notice).
CONFIG_V2 = CONFIG_V1.replace('''    swap_space: float = 4
    """Size of the CPU swap space per GPU (in GiB)."""
''', '''    kv_offloading_size: float = 0
    """Size of the KV cache offloading buffer (in GiB)."""
''').replace("self.swap_space", "self.kv_offloading_size") + '''

@dataclass
class AttentionConfig:
    backend: str | None = None
    """Attention backend to use."""

    def _set_from_env_if_set(self, field_name, env_var_name):
        if os.environ.get(env_var_name):
            logger.warning_once(
                "Using %s environment variable is deprecated and will be removed in v0.3.0. "
                "Please use --attention-config.%s command line argument instead.",
                env_var_name, field_name)

    def __post_init__(self):
        self._set_from_env_if_set("backend", "VLLM_ATTENTION_BACKEND")
'''

ARG_UTILS_V2 = ARG_UTILS_V1.replace('''    swap_space: float = CacheConfig.swap_space
''', '''    kv_offloading_size: float = CacheConfig.kv_offloading_size
''').replace('''        parser.add_argument("--swap-space", **cache_kwargs["swap_space"])
''', '''        parser.add_argument("--kv-offloading-size", **cache_kwargs["kv_offloading_size"])
''').replace('"--kv-block"', '"--cache-block-size"').replace('''    task: str = "auto"
''', '''    attention_backend: str | None = None
    attention_config: AttentionConfig = field(default_factory=AttentionConfig)
''').replace('''        parser.add_argument("--task", type=str, default="auto", help="The task to use the model for.")
''', '''        attention_kwargs = get_kwargs(AttentionConfig)
        parser.add_argument("--attention-backend", **attention_kwargs["backend"])
        parser.add_argument("--attention-config", type=AttentionConfig, help="Attention configuration.")
''') + '''
SWAP_NOTICE = "--swap-space is deprecated and has been removed. Use --kv-offloading-size instead."
'''

ENVS_V1 = '''
import os
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    VLLM_HOST_IP: str = ""
    VLLM_USE_V1: bool = True

environment_variables = {
    # ================== Runtime Env Vars ==================

    # used in distributed environment to determine the ip address
    # of the current node
    "VLLM_HOST_IP":
    lambda: os.getenv("VLLM_HOST_IP", ""),

    # If set, use the V1 code path.
    "VLLM_USE_V1":
    lambda: bool(int(os.getenv("VLLM_USE_V1", "1"))),
    # Space for the KV cache of the CPU backend, in GiB; the default is 4 GiB
    "VLLM_CPU_KVCACHE_SPACE": lambda: int(os.getenv("VLLM_CPU_KVCACHE_SPACE", "4")),
    # Attention backend to use
    "VLLM_ATTENTION_BACKEND": env_with_choices("VLLM_ATTENTION_BACKEND", None, ["FLASH_ATTN", "XFORMERS"]),
}
'''
# `vllm serve` adds its own flags (0.6–0.9)
SCRIPTS = '''
def main():
    serve_parser = subparsers.add_parser("serve")
    serve_parser.add_argument("model_tag", type=str, help="The model tag to serve")
    serve_parser.add_argument("--config", type=str, default="", help="Read CLI options from a config file.")
    serve_parser = make_arg_parser(serve_parser)
    chat_parser = subparsers.add_parser("chat")
    chat_parser.add_argument("--system-prompt", type=str, help="Not a flag of the engine.")
'''
ENVS_V2 = ENVS_V1.replace('"VLLM_CPU_KVCACHE_SPACE": lambda: int(os.getenv("VLLM_CPU_KVCACHE_SPACE"',
                          '"VLLM_CPU_KV_CACHE_GIB": lambda: int(os.getenv("VLLM_CPU_KV_CACHE_GIB"').replace('''    # If set, use the V1 code path.
    "VLLM_USE_V1":
    lambda: bool(int(os.getenv("VLLM_USE_V1", "1"))),
''', '''    # Seconds to wait for the engine core to start
    "VLLM_ENGINE_READY_TIMEOUT_S": lambda: int(os.getenv("VLLM_ENGINE_READY_TIMEOUT_S", "600")),
''')

CLI_ARGS = '''
from dataclasses import dataclass

@dataclass
class FrontendArgs:
    host: str | None = None
    """Host name."""
    port: int = 8000
    """Port number."""
    disable_fastapi_docs: bool = False
    """Disable FastAPI's OpenAPI schema."""

    @staticmethod
    def add_cli_args(parser):
        from vllm.engine.arg_utils import get_kwargs
        frontend_kwargs = get_kwargs(FrontendArgs)
        group = parser.add_argument_group("Frontend")
        for key, value in frontend_kwargs.items():
            group.add_argument(f"--{key.replace('_', '-')}", **value)
        return parser
'''

LLM_PY = '''
class LLM:
    def __init__(self, model: str, *, tokenizer: str | None = None, gpu_memory_utilization: float = 0.9,
                 **kwargs):
        pass
'''

LOADER = '''
import json
try:
    import mistral_common
except ImportError:
    mistral_common = None
import torch
from vllm.utils import PlaceholderModule

try:
    import tensorizer
except ImportError:
    tensorizer = PlaceholderModule("tensorizer")


class DefaultModelLoader:
    def load_weights(self, model, weights_not_loaded):
        import lmformatenforcer
        if weights_not_loaded:
            raise ValueError("Following weights were not initialized from "
                             f"checkpoint: {weights_not_loaded}")
        assert model is not None, "Model {} could not be loaded from {}".format(model, self.path)
        raise ValueError(f"{model}")             # nearly all placeholder: counted, not kept
        raise NotImplementedError                 # no message

    def check(self, e):
        try:
            pass
        except KeyError:
            raise RuntimeError("Cannot find any model weights with `%s`" % self.path) from None
'''

METADATA = """Metadata-Version: 2.1
Name: vllm
Version: {version}
Requires-Dist: torch==2.5.1
Requires-Dist: lm-format-enforcer<0.11,>=0.10.9
Requires-Dist: mistral_common[opencv]>=1.5.4
Requires-Dist: tensorizer>=2.9.0; extra == "tensorizer"
"""


def write_wheel(folder: Path, version: str, files: dict[str, str]) -> Path:
    path = folder / f"vllm-{version}-cp38-abi3-manylinux1_x86_64.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, textwrap.dedent(text))
        z.writestr(f"vllm-{version}.dist-info/METADATA", METADATA.format(version=version))
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[index.Index, list[dict]]:
    tmp = tmp_path_factory.mktemp("wheels")
    common = {"vllm/__init__.py": "", "vllm/entrypoints/llm.py": LLM_PY, "vllm/entrypoints/openai/cli_args.py": CLI_ARGS,
              "vllm/scripts.py": SCRIPTS,
              "vllm/model_executor/model_loader/default_loader.py": LOADER,
              "vllm/third_party/vendored.py": 'raise ValueError("a vendored library message, not vLLM\'s own")'}
    w1 = write_wheel(tmp, "0.1.0", {**common, "vllm/config.py": CONFIG_V1, "vllm/engine/arg_utils.py": ARG_UTILS_V1,
                                     "vllm/envs.py": ENVS_V1})
    w2 = write_wheel(tmp, "0.2.0", {**common, "vllm/config/cache.py": CONFIG_V2, "vllm/config/__init__.py": "",
                                     "vllm/engine/arg_utils.py": ARG_UTILS_V2, "vllm/envs.py": ENVS_V2})
    facts = [wheels.extract_cached(w, tmp / "cache") for w in (w2, w1)]
    out = tmp / "index.json.gz"
    wheels.write(wheels.merge(facts), out)
    return index.load(out), facts


def test_templates_from_every_way_a_message_is_written(built):
    idx, _ = built
    templates = {s.template: s for s in idx.sites}
    assert "GPU memory utilization must be less than 1.0. Got {gpu_memory_utilization}." in templates   # f-string
    assert "Block size {block_size} is not supported by backend flash" in templates                   # % tuple
    assert "Model {model} could not be loaded from {path}" in templates                                 # .format
    assert "Cannot find any model weights with `{path}`" in templates
    # msg = ...; msg += ...; raise X(msg). 0.2.0 renamed the field: one site, named as the newest release does
    local = "Too large swap space. {kv_offloading_size} GiB out of the {total} GiB total CPU memory is allocated for the swap space."
    assert local in templates and templates[local].releases == ["0.1.0", "0.2.0"]
    assert "Following weights were not initialized from checkpoint: {weights_not_loaded}" in templates
    assert not any("vendored" in t for t in templates)                      # vendored code is not vLLM's
    assert not any(t == "{model}" for t in templates)                       # nearly all placeholder: skipped


def test_conditions_functions_and_sources(built):
    idx, facts = built
    site = next(s for s in idx.sites if s.template.startswith("GPU memory utilization must"))
    w = site.latest_where()
    assert (w["release"], w["file"], w["function"]) == ("0.2.0", "vllm/config/cache.py", "CacheConfig.verify")
    assert w["condition"] == "self.gpu_memory_utilization > 1.0"
    assert [x["file"] for x in site.where_for("0.1.0")] == ["vllm/config.py"]      # moved, still one site
    assert site.releases == ["0.1.0", "0.2.0"]
    other = next(s for s in idx.sites if s.template.startswith("Block size"))
    assert other.latest_where()["condition"] == "not (self.kv_offloading_size > total)"
    asserted = next(s for s in idx.sites if s.exc == "AssertionError")
    assert asserted.latest_where()["condition"] == "assert model is not None"
    caught = next(s for s in idx.sites if s.template.startswith("Cannot find any model weights"))
    assert caught.latest_where()["condition"] == "except KeyError"
    assert caught.folder == "model_executor/model_loader" and caught.user_facing
    counts = next(f for f in facts if f["release"] == "0.1.0")["counts"]
    assert counts["mostly_placeholder"] == 1 and counts["no_message"] == 1


def test_match_message_to_site_with_captures(built):
    idx, _ = built
    got = idx.match("ValueError: GPU memory utilization must be less than 1.0. Got 1.5.")
    assert got and got[0].by == "template" and got[0].captures == {"gpu_memory_utilization": "1.5"}
    assert got[0].site.latest_where()["function"] == "CacheConfig.verify"
    assert idx.match("Something unrelated went wrong in a library") == []


def test_engine_arguments(built):
    idx, _ = built
    gmu = idx.arg("--gpu-memory-utilization")
    assert (gmu.name, gmu.default, gmu.gt, gmu.le) == ("gpu_memory_utilization", 0.9, 0, 1)
    assert (gmu.config_class, gmu.config_field) == ("CacheConfig", "gpu_memory_utilization")
    assert gmu.help.startswith("The fraction of GPU memory") and gmu.keyword is True
    assert idx.arg("-gmu").name == "gpu_memory_utilization"
    dtype = idx.arg("kv-cache-dtype")
    assert dtype.choices == ["auto", "fp8", "fp8_e5m2"] and dtype.config_field == "cache_dtype"
    assert idx.arg("--block-size").choices == [8, 16, 32]
    assert idx.arg("--block-size").config_class == "CacheConfig"      # from create_engine_config
    eager = idx.arg("--enforce-eager")
    assert eager.type == "bool" and eager.default is False and eager.help == "Always use eager-mode PyTorch."
    assert idx.arg("max_model_len").help == "Model context length."
    assert idx.arg("tokenizer").keyword is True and idx.arg("tokenizer").flag is None    # LLM() only


def test_server_flags_from_a_loop_over_a_dataclass_and_no_forms(built):
    idx, _ = built
    port = idx.arg("--port")
    assert (port.default, port.help, port.keyword, port.file) == (8000, "Port number.", False,
                                                                  "vllm/entrypoints/openai/cli_args.py")
    assert idx.arg("--no-disable-fastapi-docs").name == "disable_fastapi_docs"
    assert idx.arg("--enable-prefix-caching").no_flag == "--no-enable-prefix-caching"
    assert idx.arg("--enforce-eager").no_flag is None          # store_true: no --no- form


def test_removed_argument_and_its_replacement(built):
    idx, _ = built
    swap = idx.arg("--swap-space")
    assert swap.releases == ["0.1.0"] and swap.removed_in == "0.2.0" and swap.release == "0.1.0"
    assert swap.replaced_by == "kv_offloading_size"
    assert "deprecated" in swap.notice
    assert idx.has_arg("--swap-space", "0.1.0") is True
    assert idx.has_arg("--swap-space", "0.2.0") is False
    assert idx.has_arg("--swap-space", "0.1.5") is True          # a patch of 0.1: described by 0.1.0
    assert idx.has_arg("--model", "0.1.5") is True               # both neighbours have it
    assert idx.has_arg("--model", "0.3.0") is None               # outside the indexed span
    assert idx.arg("--swap-space", release="0.2.0") is None


def test_successors_from_split_notices_and_help_texts(built):
    idx, _ = built
    task = idx.arg("--task")                # the notice's hint, another string of its function
    assert (task.removed_in, task.replaced_by, task.replaced_by_source) == ("0.2.0", "runner", "deprecation notice")
    assert "--runner pooling" in task.notice
    env = idx.env("VLLM_ATTENTION_BACKEND")  # a helper's notice, the flag of the config field
    assert (env.replaced_by, env.replaced_by_source) == ("attention_backend", "deprecation notice")
    assert idx.arg(env.replaced_by).flag == "--attention-backend"
    level = idx.config_field("CompilationConfig", "level")    # only its own doc names the successor
    assert (level.replaced_by, level.replaced_by_source) == ("mode", "deprecation in its doc")
    assert idx.config_field("CompilationConfig", "mode").replaced_by is None


def test_serve_subcommand_flags(built):
    idx, _ = built
    config = idx.arg("--config")
    assert config.file == "vllm/scripts.py" and config.keyword is False and config.releases == ["0.1.0", "0.2.0"]
    assert idx.arg("--system-prompt") is None                # another subcommand's flag


def test_validation_error_suffix_is_not_part_of_the_message(built):
    idx, _ = built
    plain = idx.match("ValueError: GPU memory utilization must be less than 1.0. Got 1.5.")
    got = idx.match("ValueError: GPU memory utilization must be less than 1.0. Got 1.5. "
                    "(parameter=gpu_memory_utilization, value=1.5)")
    assert got and got[0].site is plain[0].site and got[0].score == plain[0].score
    assert got[0].captures == {"gpu_memory_utilization": "1.5"}


def test_a_renamed_name_without_a_notice(built):
    idx, _ = built
    old = idx.arg("--kv-block")
    assert (old.removed_in, old.replaced_by, old.replaced_by_source) == ("0.2.0", "cache_block_size", "same config field")
    env = idx.env("VLLM_CPU_KVCACHE_SPACE")
    assert (env.replaced_by, env.replaced_by_source) == ("VLLM_CPU_KV_CACHE_GIB", "same doc text")
    assert idx.arg("--swap-space").replaced_by_source == "deprecation notice"
    assert idx.env("VLLM_USE_V1").replaced_by is None


def test_config_fields(built):
    idx, _ = built
    f = idx.config_field("CacheConfig", "gpu_memory_utilization", "0.2.0")
    assert (f.default, f.gt, f.le, f.flag) == (0.9, 0, 1, "--gpu-memory-utilization")
    assert f.file == "vllm/config/cache.py"
    assert idx.config_field("CacheConfig", "swap_space").removed_in == "0.2.0"


def test_environment_variables(built):
    idx, _ = built
    host = idx.env("VLLM_HOST_IP")
    assert host.default == "" and host.type == "str" and host.file == "vllm/envs.py" and host.line
    assert host.doc == "used in distributed environment to determine the ip address of the current node"
    v1 = idx.env("VLLM_USE_V1")
    assert v1.default == "1" and v1.doc == "If set, use the V1 code path." and v1.removed_in == "0.2.0"
    assert idx.env("VLLM_ATTENTION_BACKEND").choices == ["FLASH_ATTN", "XFORMERS"]
    assert idx.has_env("VLLM_ENGINE_READY_TIMEOUT_S", "0.1.0") is False
    assert idx.env("VLLM_ENGINE_READY_TIMEOUT_S").default == "600"


def test_optional_imports(built):
    idx, _ = built
    mc = idx.importers("mistral_common")
    assert [(s.module, s.guards) for s in mc] == [("vllm.model_executor.model_loader.default_loader", ["try"])]
    assert mc[0].guarded and mc[0].pip_name == "mistral-common" and mc[0].required
    tz = idx.importers("tensorizer")[0]
    assert set(tz.guards) == {"try", "placeholder"} and tz.extras == ["tensorizer"] and not tz.required
    lmfe = idx.importers("lmformatenforcer")[0]
    assert lmfe.guards == ["function"] and lmfe.pip_name == "lm-format-enforcer"
    assert idx.importers("json") == []                      # the standard library is not a dependency
    assert idx.importers("torch")[0].guards == ["top"]


def test_versions():
    assert index.version_key("0.10.1.dev0+g6d8d") == (0, 10, 1)
    assert index.version_key("v0.8.5.post1") == (0, 8, 5)
    assert index.version_key("0.9") == (0, 9, 0)
    assert index.version_key("unknown") is None


def test_nearest_release(built):
    idx, _ = built
    assert idx.releases == ["0.1.0", "0.2.0"]
    assert idx.nearest_release("0.1.9.dev0+gabc") == "0.1.0"
    assert idx.nearest_release("0.2.0.post1") == "0.2.0"
    assert idx.nearest_release("0.0.9") is None
    assert idx.nearest_release("0.3.0") == "0.2.0"           # newer than all: the newest
    assert idx.releases_around("0.1.5") is None              # its minor is indexed


def test_a_rerun_reads_the_cache(tmp_path, monkeypatch):
    wheel = write_wheel(tmp_path, "0.1.0", {"vllm/envs.py": ENVS_V1})
    first = wheels.extract_cached(wheel, tmp_path / "cache")
    monkeypatch.setattr(wheels, "extract", lambda *a, **k: pytest.fail("parsed again"))
    assert wheels.extract_cached(wheel, tmp_path / "cache") == first


def test_load_absent_file(tmp_path):
    assert index.load(tmp_path / "missing.json.gz") is None


def test_an_exception_that_words_its_own_message(tmp_path):
    exceptions = '''
class VLLMNotFoundError(Exception):
    pass

class LoRAAdapterNotFoundError(VLLMNotFoundError):
    def __init__(self, lora_name: str, lora_path: str) -> None:
        message = f"Loading lora {lora_name} failed: No adapter found for {lora_path}"
        self.message = message

class StaleAdapterError(LoRAAdapterNotFoundError):
    pass

class PassThroughError(Exception):
    def __init__(self, message, *, parameter=None):
        super().__init__(message)
'''
    manager = '''
from vllm.exceptions import LoRAAdapterNotFoundError, PassThroughError, StaleAdapterError

def load(lora_request):
    if lora_request is None:
        raise PassThroughError("No LoRA request was given to the worker", parameter="lora")
    try:
        pass
    except FileNotFoundError as e:
        raise LoRAAdapterNotFoundError(lora_request.lora_name, lora_request.lora_path) from e
    raise StaleAdapterError("stale", lora_path="/adapters/x")
'''
    wheel = write_wheel(tmp_path, "0.1.0", {"vllm/exceptions.py": exceptions, "vllm/lora/worker_manager.py": manager})
    templates = {(s["exc"], s["template"]) for s in wheels.extract(wheel)["raises"]}
    assert ("LoRAAdapterNotFoundError",
            "Loading lora {lora_request.lora_name} failed: No adapter found for {lora_request.lora_path}") in templates
    assert ("StaleAdapterError", "Loading lora stale failed: No adapter found for /adapters/x") in templates
    assert ("PassThroughError", "No LoRA request was given to the worker") in templates


# A shape vLLM 0.11 used: deprecated flags added in a loop over a literal list, their type and help
# filled from each item.
LOOPED_FLAGS = '''
from dataclasses import dataclass

@dataclass
class EngineArgs:
    old_backend: str | None = None
    old_fallback: bool | None = None
    level: int = 0

    @staticmethod
    def add_cli_args(parser):
        group = parser.add_argument_group("Old")
        for arg, type in [
            ("--old-backend", str),
            ("--old-fallback", bool),
        ]:
            group.add_argument(arg, type=type, help=f"[DEPRECATED] {arg} will be removed in v0.3.0.",
                               deprecated=True)
        for flag in ("--quiet", "-q"):
            group.add_argument(flag, action="store_true")
        for level in [1, 2]:
            group.add_argument("--level", type=int, default=level)    # the loop does not name the flag
        return parser
'''


def test_flags_added_in_a_loop_over_a_literal_list(tmp_path):
    wheel = write_wheel(tmp_path, "0.1.0", {"vllm/engine/arg_utils.py": LOOPED_FLAGS})
    args = wheels.extract(wheel, names_only=True)["args"]
    backend = args["old_backend"]
    assert (backend["flag"], backend["type"], backend["deprecated"]) == ("--old-backend", "str", True)
    assert backend["help"] == "[DEPRECATED] --old-backend will be removed in v0.3.0."
    assert (args["old_fallback"]["flag"], args["old_fallback"]["type"]) == ("--old-fallback", "bool")
    assert args["quiet"]["flag"] == "--quiet" and args["q"]["flag"] == "-q"
    assert args["level"]["flag"] == "--level" and args["level"]["default_expr"] == "level"


# A shape vLLM 0.10.1-0.11.0 used: one function warns about several names, each notice with its
# own hint; only a hint that is no other name's notice completes a notice without a successor.
NEIGHBOUR_NOTICES = '''
import warnings
from dataclasses import dataclass

@dataclass
class ModelConfig:
    task: str | None = None
    rope_scaling: dict | None = None

    def __post_init__(self):
        if self.rope_scaling:
            overrides = {"rope_scaling": self.rope_scaling}
            msg = ("`--rope-scaling` will be removed in a future release. "
                   f"Please instead use `--hf-overrides '{overrides}'`")
            warnings.warn(DeprecationWarning(msg))
        if self.task is not None:
            msg_prefix = "The 'task' option has been deprecated and will be removed in v0.3.0."
            msg_hint = "Please remove this option."
            if self.task == "generate":
                msg_hint = "Please replace this option with `--runner generate` to keep using this model."
            logger.warning("%s %s", msg_prefix, msg_hint)
'''


def test_a_hint_belongs_to_its_own_notice_not_a_neighbours(tmp_path):
    wheel = write_wheel(tmp_path, "0.1.0", {"vllm/config/model.py": NEIGHBOUR_NOTICES})
    notices = {tuple(n["subjects"]): n for n in wheels.extract(wheel, names_only=True)["deprecations"]}
    task = notices[("task",)]
    assert task["replacement"] == "--runner" and "--runner generate" in task["text"]
    assert "--hf-overrides" not in task["text"]
    assert notices[("--rope-scaling",)]["replacement"] == "--hf-overrides"


def test_a_notice_is_about_the_name_that_lived_when_it_was_printed(tmp_path):
    # 0.1.0 deprecates ModelConfig.task (the notice's hint names --runner); 0.2.0 drops it, and a
    # new PoolerConfig.task in the same file is another thing of that name
    old = NEIGHBOUR_NOTICES + '''
@dataclass
class PoolerConfig:
    normalize: bool = True
'''
    new = '''
from dataclasses import dataclass

@dataclass
class ModelConfig:
    runner: str = "auto"

@dataclass
class PoolerConfig:
    normalize: bool = True
    task: str | None = None
    """The task used for pooling."""
'''
    args = '''
class EngineArgs:
    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--runner", type=str, default="auto")
        return parser
'''
    files = [write_wheel(tmp_path, "0.1.0", {"vllm/config/model.py": old, "vllm/engine/arg_utils.py": args}),
             write_wheel(tmp_path, "0.2.0", {"vllm/config/model.py": new, "vllm/engine/arg_utils.py": args})]
    out = tmp_path / "index.json.gz"
    wheels.write(wheels.merge([wheels.extract(w) for w in files]), out)
    idx = index.load(out)
    assert idx.config_field("ModelConfig", "task").replaced_by == "runner"
    assert idx.config_field("PoolerConfig", "task").replaced_by is None
