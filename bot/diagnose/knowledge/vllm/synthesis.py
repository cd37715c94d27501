"""Messages as vLLM would print them, synthesised from the index's templates: each placeholder
filled with a plausible value for its name (a number for a size, a dtype for a dtype, a path for a
path, ...). Used by the coverage benchmark and by maintainer commands that run rules over every
site's message; the values are chosen by rules on the placeholder's name, never per site.

    from bot.diagnose.knowledge.vllm.synthesis import synthesise, in_traceback
    text = synthesise(site)                     # site: index.RaiseSite
    paste = in_traceback(site.exc, text)        # frames are the user's, not the raise site's
"""

from __future__ import annotations

import random
import re

_NUMBERS = ("4096", "8", "32768", "2", "128")
# what an `{e}` is filled with: an error of its own, which a rule on that error matches
ERROR_VALUES = ("[Errno 2] No such file or directory", "CUDA error: invalid argument")
# (words in the placeholder's name, values to choose from); the first rule whose word appears wins
_RULES: list[tuple[tuple[str, ...], tuple[str, ...]]] = [
    (("dtype",), ("torch.float16", "bfloat16", "float32", "fp8_e4m3")),
    (("model_name", "model_path", "model_id", "repo", "model)", "model"), (
        "meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen2.5-7B-Instruct", "/models/mistral-7b")),
    (("path", "dir", "file", "url"), ("/data/models/llama/config.json", "/tmp/adapter", "/root/.cache/huggingface")),
    (("quant", "method"), ("awq", "gptq", "fp8", "bitsandbytes")),
    (("backend",), ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "xgrammar")),
    (("device",), ("cuda:0", "cuda", "cpu")),
    (("arch", "architecture", "cls", "class"), ("LlamaForCausalLM", "Qwen2VLForConditionalGeneration")),
    (("type(",), ("<class 'dict'>", "<class 'NoneType'>")),
    (("modality",), ("image", "video", "audio")),
    (("util", "ratio", "fraction", "frac", "scale", "temperature", "top_p"), ("0.9", "0.5", "1.5")),
    (("size", "len", "num", "count", "tokens", "blocks", "rank", "idx", "index", "dim", "bits", "max", "min",
      "limit", "step", "seq", "batch", "world", "port", "id", "capacity", "version", "n_", "shape"), _NUMBERS),
    (("keys", "names", "list", "modules", "choices", "supported", "layers", "weights", "items"),
     ("['q_proj', 'k_proj']", "{'lm_head.weight'}", "['auto', 'fp8']")),
    (("e", "err", "exc", "error", "str(e)", "msg", "reason"), ERROR_VALUES),
]
_DEFAULT = ("foo", "qwen2", "llama", "default")
# A name whose last word is a count or a size (`max_model_len`, `format_gib(needed_memory)`) is a
# number, whatever it names before: the `model` of max_model_len is not a model's name.
_NUMBER_LAST = frozenset({"len", "length", "size", "num", "count", "tokens", "blocks", "rank", "idx", "dim",
                          "bits", "limit", "step", "seqs", "batch", "port", "capacity", "bytes", "memory", "gib"})


def value_for(name: str, rng: random.Random) -> str:
    low = name.lower()
    words = [t for t in re.split(r"[^a-z0-9]+", low) if t]
    if words and words[-1] in _NUMBER_LAST:
        return rng.choice(_NUMBERS)
    tokens = set(words)
    for words, values in _RULES:
        for w in words:
            if (len(w) <= 3 and w in tokens) or (len(w) > 3 and w in low):
                return rng.choice(values)
    return rng.choice(_DEFAULT)


def synthesise(site, seed: int = 0) -> str:
    """The message of a RaiseSite with each placeholder filled."""
    rng = random.Random(f"{seed}:{site.exc}:{site.template}")
    return "".join(v if k == "lit" else value_for(v, rng) for k, v in site.parts)


def in_traceback(exc: str, message: str) -> str:
    """A minimal traceback whose frames are the user's, not the raise site's."""
    return ("Traceback (most recent call last):\n"
            '  File "/app/serve.py", line 3, in <module>\n'
            "    main()\n"
            f"{exc}: {message}\n")
