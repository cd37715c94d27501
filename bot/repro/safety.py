"""What a repro may touch: which model folders, which LLM() settings, how many jobs per person.

A repro runs someone else's configuration on a shared GPU host, so everything it takes is checked
here before any process starts: the model path must resolve (symlinks and `..` followed) to a
folder under the operator's model roots, every setting must be a known LLM() argument with a value
of the right type and range, and settings that run code from the model folder
(`trust_remote_code`) are refused unless the operator allows them.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any, Callable

from bot.base.nearest import nearest

ENV_ROOTS = "MODEL_ROOTS"
ENV_ALLOW_REMOTE_CODE = "REPRO_ALLOW_REMOTE_CODE"
ENV_MAX_QUEUED = "REPRO_MAX_QUEUED_PER_USER"
DEFAULT_MAX_QUEUED = 3
MAX_SETTINGS = 24


class ReproRefused(ValueError):
    """A request we will not run, with a reason a person can act on."""

    def __init__(self, reason: str, *, rule_id: str | None = None, advice: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.rule_id = rule_id
        self.advice = advice


# --- model path ------------------------------------------------------------------------------

def model_roots(extra: list[str] | None = None, env: dict | None = None) -> list[str]:
    """The operator's model roots: MODEL_ROOTS (os.pathsep- or comma-separated) plus `extra`."""
    env = os.environ if env is None else env
    raw = env.get(ENV_ROOTS, "")
    parts = [p for chunk in raw.split(os.pathsep) for p in chunk.split(",")]
    parts += list(extra or [])
    return [os.path.realpath(os.path.expanduser(p.strip())) for p in parts if p and p.strip()]


def _under(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives, or a mix of absolute and relative
        return False


def missing_model_advice(path: str) -> str:
    """The rule book's answer for a missing model folder (the seed's first error), in short."""
    try:
        from bot.diagnose.knowledge.rulebook import load_rulebook

        rule = load_rulebook().rules.get("model-path-not-found")
    except Exception:  # noqa: BLE001 - advice is a courtesy; the refusal stands without it
        rule = None
    if rule is not None:
        return rule.fix["en"]
    return ("Check the path from where vLLM runs and pass it absolute; "
            f"`os.path.isdir({path!r})` must be true before `LLM(model=...)`.")


def resolve_model_path(path: str, roots: list[str] | None) -> str:
    """The real path of a model folder that lies under one of `roots`.

    `roots=None` means no restriction (the local CLI on the user's own machine); an empty list
    means the operator configured none, and everything is refused.
    """
    if not isinstance(path, str) or not path.strip():
        raise ReproRefused("No model path given: `repro <model-path> [key=value ...]`.")
    if "\x00" in path:
        raise ReproRefused("The model path contains a NUL byte.")
    if not os.path.isabs(os.path.expanduser(path)):
        raise ReproRefused(f"The model path must be absolute, not {path!r}: the worker has its own working directory.")
    real = os.path.realpath(os.path.expanduser(path))
    if roots is not None:
        if not roots:
            raise ReproRefused(f"No model roots are configured ({ENV_ROOTS}), so no model path is allowed.")
        if not any(_under(real, root) for root in roots):
            raise ReproRefused(
                f"{path} is outside the model roots this worker may read ({', '.join(roots)}). "
                "Copy or link the model under one of them, or ask the operator to add a root.")
    if not os.path.isdir(real):
        what = "is a file, not a folder" if os.path.exists(real) else "does not exist"
        raise ReproRefused(
            f"Model folder {path} {what}. vLLM would take the string for a Hugging Face repo id and fail "
            "with `Repo id must be in the form 'repo_name' or 'namespace/repo_name'`.",
            rule_id="model-path-not-found", advice=missing_model_advice(path))
    return real


# --- settings --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Setting:
    kind: str                                   # bool | int | float | choice | str | json | path
    check: Callable[[Any], str | None] | None = None   # returns a complaint, or None when fine
    choices: tuple[str, ...] = ()
    help: str = ""


def _at_least(n):
    return lambda v: None if v >= n else f"must be at least {n}"


def _between(lo, hi, lo_open=False):
    def check(v):
        ok = (lo < v if lo_open else lo <= v) and v <= hi
        return None if ok else f"must be in {'(' if lo_open else '['}{lo}, {hi}]"
    return check


def _power_of_two_upto(hi):
    return lambda v: None if 1 <= v <= hi and v & (v - 1) == 0 else f"must be a power of two up to {hi}"


def _mm_limits(v):
    if not isinstance(v, dict) or not v:
        return 'must be a JSON object like {"image": 2}'
    for key, n in v.items():
        if not isinstance(key, str):
            return "keys must be modality names"
        count = n.get("count") if isinstance(n, dict) else n
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            return f"the limit for {key!r} must be a whole number >= 0"
    return None


def _json_object(v):
    return None if isinstance(v, dict) else "must be a JSON object"


QUANTIZATIONS = (
    "awq", "awq_marlin", "gptq", "gptq_marlin", "gptq_marlin_24", "marlin", "fp8", "fbgemm_fp8",
    "compressed-tensors", "bitsandbytes", "gguf", "modelopt", "modelopt_fp4", "experts_int8",
    "mxfp4", "deepspeedfp", "tpu_int8", "ipex", "inc", "torchao", "quark", "moe_wna16", "hqq",
    "fp_quant", "petit_nvfp4", "aqlm", "squeezellm", "ptpc_fp8", "bitblas", "gptq_bitblas",
)

# LLM()'s keyword arguments that a repro may set. Anything else is refused: an unknown key would
# only fail inside vLLM, and some arguments (worker classes, logits processors, custom code
# paths) load arbitrary code on the worker.
SETTINGS: dict[str, Setting] = {
    # vLLM checks the dtype itself when it builds the config, so a wrong one is answered by the
    # preflight with vLLM's own message (no engine start, no GPU): only its shape is checked here.
    "dtype": Setting("str", check=lambda v: None if re.fullmatch(r"[A-Za-z0-9_.]{1,32}", v) else
                     "must be a dtype name such as auto, half, bfloat16"),
    "quantization": Setting("choice", choices=QUANTIZATIONS),
    "kv_cache_dtype": Setting("choice", choices=("auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc",
                                                 "fp8_ds_mla")),
    "gpu_memory_utilization": Setting("float", _between(0, 1, lo_open=True)),
    "max_model_len": Setting("int", _at_least(1)),
    "tensor_parallel_size": Setting("int", _between(1, 64)),
    "pipeline_parallel_size": Setting("int", _between(1, 64)),
    "enforce_eager": Setting("bool"),
    "max_num_seqs": Setting("int", _at_least(1)),
    "max_num_batched_tokens": Setting("int", _at_least(1)),
    "enable_prefix_caching": Setting("bool"),
    "enable_chunked_prefill": Setting("bool"),
    "swap_space": Setting("float", _between(0, 1024)),
    "cpu_offload_gb": Setting("float", _between(0, 4096)),
    "kv_cache_memory_bytes": Setting("int", _at_least(0)),
    "block_size": Setting("int", _power_of_two_upto(1024)),
    "seed": Setting("int", _at_least(0)),
    "enable_lora": Setting("bool"),
    "max_lora_rank": Setting("int", _between(1, 1024)),
    "max_loras": Setting("int", _between(1, 1024)),
    "limit_mm_per_prompt": Setting("json", _mm_limits),
    "mm_processor_kwargs": Setting("json", _json_object),
    "max_logprobs": Setting("int", _at_least(0)),
    "disable_custom_all_reduce": Setting("bool"),
    "disable_sliding_window": Setting("bool"),
    "disable_log_stats": Setting("bool"),
    "enable_expert_parallel": Setting("bool"),
    "load_format": Setting("choice", choices=("auto", "pt", "safetensors", "npcache", "dummy", "gguf",
                                              "bitsandbytes", "sharded_state", "mistral", "runai_streamer")),
    "tokenizer_mode": Setting("choice", choices=("auto", "slow", "mistral")),
    "tokenizer": Setting("path"),
    "runner": Setting("choice", choices=("auto", "generate", "pooling", "draft")),
    "model_impl": Setting("choice", choices=("auto", "vllm", "transformers")),
    "distributed_executor_backend": Setting("choice", choices=("mp", "uni", "ray")),
    "compilation_config": Setting("int", _between(0, 3)),
    "trust_remote_code": Setting("bool"),
}
REMOTE_CODE_KEYS = ("trust_remote_code",)


def normalise_key(key: str) -> str:
    """`--max-model-len`, `max-model-len` and `max_model_len` all name the same setting."""
    return key.strip().lstrip("-").replace("-", "_")


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def _coerce(key: str, spec: Setting, value: Any) -> Any:
    """The value in the type LLM() expects; strings (from `key=value`) are parsed."""
    kind = spec.kind
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise ReproRefused(f"{key} takes true or false, not {value!r}.")
    if kind == "int":
        if isinstance(value, bool):
            raise ReproRefused(f"{key} takes a whole number, not {value!r}.")
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            text = value.strip().replace("_", "")
            if text.lstrip("-").isdigit():
                return int(text)
        raise ReproRefused(f"{key} takes a whole number, not {value!r}.")
    if kind == "float":
        if isinstance(value, bool):
            raise ReproRefused(f"{key} takes a number, not {value!r}.")
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                number = float(value.strip())
            except ValueError:
                number = None
            if number is not None and number == number and number not in (float("inf"), float("-inf")):
                return number
        raise ReproRefused(f"{key} takes a number, not {value!r}.")
    if kind == "choice":
        if isinstance(value, str) and value.strip() in spec.choices:
            return value.strip()
        raise ReproRefused(f"{key} must be one of {', '.join(spec.choices)}; got {value!r}.")
    if kind == "json":
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError as e:
                raise ReproRefused(f"{key} takes JSON, e.g. {key}='{{\"image\": 2}}': {e.msg}.") from None
        return value
    if kind in ("str", "path"):
        if isinstance(value, str) and value.strip():
            return value.strip()
        raise ReproRefused(f"{key} takes a text value, not {value!r}.")
    raise AssertionError(f"unknown setting kind {kind}")


def _unknown(key: str) -> ReproRefused:
    close = nearest(key, SETTINGS, cutoff=70)
    hint = f" Did you mean {close}?" if close else ""
    return ReproRefused(
        f"Unknown setting {key!r}.{hint} A repro takes only these LLM() arguments: "
        f"{', '.join(sorted(SETTINGS))}.")


def remote_code_allowed(env: dict | None = None) -> bool:
    env = os.environ if env is None else env
    return env.get(ENV_ALLOW_REMOTE_CODE, "").strip().lower() in _TRUE


def validate_settings(settings: dict, *, roots: list[str] | None = None,
                      allow_remote_code: bool | None = None) -> dict:
    """Checked, typed settings in the order given; raises ReproRefused on the first bad one."""
    if not isinstance(settings, dict):
        raise ReproRefused("Settings must be key=value pairs.")
    if len(settings) > MAX_SETTINGS:
        raise ReproRefused(f"At most {MAX_SETTINGS} settings per repro.")
    if allow_remote_code is None:
        allow_remote_code = remote_code_allowed()
    out: dict = {}
    for raw_key, raw_value in settings.items():
        key = normalise_key(str(raw_key))
        spec = SETTINGS.get(key)
        if spec is None:
            raise _unknown(key)
        if key in out:
            raise ReproRefused(f"{key} is given twice.")
        value = _coerce(key, spec, raw_value)
        complaint = spec.check(value) if spec.check else None
        if complaint:
            raise ReproRefused(f"{key}={value!r}: {complaint}.")
        if key in REMOTE_CODE_KEYS and value and not allow_remote_code:
            raise ReproRefused(
                f"{key}=true runs Python code from the model folder on the worker; this worker's operator "
                f"has not allowed that ({ENV_ALLOW_REMOTE_CODE}=1).")
        if spec.kind == "path":
            value = resolve_model_path(value, roots)
        out[key] = value
    return out


def parse_assignments(items: list[str]) -> dict:
    """`["max_model_len=4096", "enforce_eager=true"]` -> {"max_model_len": "4096", ...} (raw text)."""
    out: dict = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ReproRefused(f"Settings are key=value, e.g. max_model_len=4096; got {item!r}.")
        key = normalise_key(key)
        if key in out:
            raise ReproRefused(f"{key} is given twice.")
        out[key] = value
    return out


def parse_settings(items: list[str], *, roots: list[str] | None = None,
                   allow_remote_code: bool | None = None) -> dict:
    return validate_settings(parse_assignments(items), roots=roots, allow_remote_code=allow_remote_code)


def max_queued_per_user(env: dict | None = None) -> int:
    env = os.environ if env is None else env
    try:
        return max(1, int(env.get(ENV_MAX_QUEUED, DEFAULT_MAX_QUEUED)))
    except ValueError:
        return DEFAULT_MAX_QUEUED


def parse_command(text: str) -> tuple[str, dict]:
    """`/vllm repro <model-path> [key=value ...]` after the word `repro`: (path, raw settings).

    Quotes work as in a shell (`limit_mm_per_prompt='{"image": 2}'`), but nothing is run by one:
    this only splits words. Slack's &lt;/&gt;/&amp; escapes must be undone by the caller.
    """
    import shlex

    try:
        words = shlex.split(text or "")
    except ValueError as e:
        raise ReproRefused(f"Could not read the request: {e}. Quote values that hold spaces.") from None
    if not words:
        raise ReproRefused("Usage: repro <model-path> [key=value ...], e.g. repro /models/qwen max_model_len=4096")
    return words[0], parse_assignments(words[1:])


def repro_candidate(path: str | None, roots: list[str] | None = None) -> str | None:
    """The resolved model folder when a repro of it would be accepted, else None (no reason
    given): for offering a "Run repro" button under a diagnosis that names a model path."""
    if not path:
        return None
    try:
        return resolve_model_path(path, model_roots() if roots is None else roots)
    except ReproRefused:
        return None
