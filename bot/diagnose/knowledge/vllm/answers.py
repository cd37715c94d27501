"""The values a family rule's text is filled with, read from the index of vLLM's releases.

Each filler takes the index, the candidate's `families.Hit`, the log's facts and the reader's language,
and returns {name: text} for the rule's `{placeholders}`; a value the index does not have is left
out, so the paragraph that needs it is dropped (report.fill). vLLM's own help texts and messages are
quoted as vLLM wrote them, in English.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote_plus

from bot.base.nearest import nearest, nearest_few

from . import conditions, direction, knobs, load_index, missing, reads
from .families import Hit, _squeezed, place
from .releases import runs, version_key

MAX_SETTINGS = 5
HELP_CHARS = 220

_L = {
    "en": {"default": "default", "type": "type", "range": "range", "choices": "one of", "env": "environment variable",
           "field_of": "a field of `{cls}`", "set_with": "set it with `{flag} '{{\"{field}\": …}}'`",
           "not_in": "not in vLLM {release} (in {runs})", "llm": "`LLM({kw}=…)`", "no_flag": "no command-line flag",
           "yours_named": " **You set it to `{value}`, which the message names.**",
           "run_named": " **Your run has it at `{value}`, which the message names.**",
           "yours_set": " You set it to `{value}`.",
           "nearest_choice": " Nearest accepted value: `{close}`.",
           "nearest_help": " Nearest of the values vLLM {release}'s help for it describes: `{close}`.",
           "read_as": "- {name} (what the check reads): {why}",
           "successor": " Deprecated in this release; vLLM names `{flag}` as its successor.",
           "warns": " vLLM {release} warns: “{text}”",
           "of_indexed": "indexed releases", "unknown_version": "The log does not show its vLLM version: this describes vLLM {release}, the newest indexed release that has it.",
           "frames_version": "The log does not show its vLLM version, but its traceback raised at the file and line where vLLM {releases} raises it: this describes vLLM {release}.",
           "other_release": "In vLLM {release} (not your release): {words}"},
    "zh": {"default": "默认", "type": "类型", "range": "范围", "choices": "可选", "env": "环境变量",
           "field_of": "`{cls}` 的字段", "set_with": "用 `{flag} '{{\"{field}\": …}}'` 设置",
           "not_in": "vLLM {release} 中没有（存在于 {runs}）", "llm": "`LLM({kw}=…)`", "no_flag": "没有命令行参数",
           "yours_named": " **你把它设成了 `{value}`，报错里提到的正是这个值。**",
           "run_named": " **你这次运行里它的值是 `{value}`，报错里提到的正是这个值。**",
           "yours_set": " 你把它设成了 `{value}`。",
           "nearest_choice": " 最接近的可选值：`{close}`。",
           "nearest_help": " vLLM {release} 对它的帮助说明里描述的值中最接近的：`{close}`。",
           "read_as": "- {name}（检查读取的值）：{why}",
           "successor": " 该版本中已弃用；vLLM 指定的替代是 `{flag}`。",
           "warns": " vLLM {release} 的警告：“{text}”",
           "of_indexed": "已索引的版本", "unknown_version": "日志里没有 vLLM 版本号：以下按 vLLM {release}（有这条报错的最新已索引版本）说明。",
           "frames_version": "日志里没有 vLLM 版本号，但它的 traceback 抛错的文件和行号与 vLLM {releases} 抛出这条报错的位置一致：以下按 vLLM {release} 说明。",
           "other_release": "在 vLLM {release}（不是你的版本）中：{words}"},
}


def values(c, facts: dict, lang: str) -> dict:
    """Texts for a family rule's candidate `c` (its `source` is a Hit)."""
    hit: Hit = c.source
    idx = load_index()
    if idx is None or hit is None:
        return {}
    filler = _FILLERS.get(hit.family)
    out = filler(idx, hit, facts, lang if lang in _L else "en") if filler else {}
    if hit.site is not None:
        out.update(site_values(idx, hit.site, facts, lang, hit.captures))
        if hit.info.get("twin_releases"):        # the same text raised as another class elsewhere
            both = set(hit.site.releases) | set(hit.info["twin_releases"])
            out["site_releases"] = runs([r for r in idx.releases if r in both], idx.releases)
        if hit.family == "raise-site" and hit.captures:
            out["captured"] = captured(hit.captures)
    return out


def captured(captures: dict, limit: int = 5) -> str:
    """The values the message filled in, each with the expression vLLM formatted there."""
    rows = []
    for expr, value in list(captures.items())[:limit]:
        value = " ".join(str(value).split())
        if value:
            rows.append(f"`{expr[:60]}` = `{value[:80]}{'…' if len(value) > 80 else ''}`")
    return ", ".join(rows)


# --- shared pieces ---------------------------------------------------------------------------------

def first_sentence(text: str | None, limit: int = HELP_CHARS) -> str:
    flat = " ".join((text or "").split())
    m = re.match(r"(.+?[.!?])(?:\s|$)", flat)
    s = m.group(1) if m else flat
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def _show(value) -> str:
    return repr(value) if isinstance(value, (bool, type(None))) else str(value)


def _constraints(info, lang: str) -> list[str]:
    t = _L[lang]
    parts = []
    if info.type:
        parts.append(f"{t['type']} `{info.type}`")
    bounds = [f"> {info.gt}" if info.gt is not None else None, f"≥ {info.ge}" if info.ge is not None else None,
              f"< {info.lt}" if info.lt is not None else None, f"≤ {info.le}" if info.le is not None else None]
    bounds = [b for b in bounds if b]
    if bounds:
        parts.append(f"{t['range']} {' '.join(bounds)}")
    if info.choices:
        shown = ", ".join(f"`{c}`" for c in list(info.choices)[:10])
        parts.append(f"{t['choices']} {shown}{' …' if len(info.choices) > 10 else ''}")
    default = info.llm_default if getattr(info, "llm_default", None) is not None else info.default
    if default is not None or info.default_expr is None:
        parts.append(f"{t['default']} `{_show(default)}`")
    elif info.default_expr:
        parts.append(f"{t['default']} `{info.default_expr}`")
    return parts


def _class_of(idx, owner: str | None) -> str | None:
    """`cache_config` → "CacheConfig" (and a class name as it is), as the index spells it."""
    if not owner:
        return None
    if owner in idx.config_classes():
        return owner
    want = owner.replace("_", "").lower()
    return next((name for name in idx.config_classes() if name.lower() == want), None)


def _class_flag(idx, cls: str, release: str | None) -> str | None:
    """The flag that takes a whole config class as JSON (`--compilation-config`), if any."""
    snake = re.sub(r"(?<!^)(?=[A-Z][a-z])", "_", cls).lower()
    info = idx.arg(snake, release)
    return info.flag if info and info.flag else None


def setting_line(idx, name: str, owner: str | None, release: str | None, lang: str) -> str | None:
    """One markdown bullet: an engine argument, config field or environment variable as `release`
    defines it (flag, `LLM()` keyword, type, range, default, vLLM's own help)."""
    t = _L[lang]
    if name.startswith("VLLM_"):
        env = idx.env(name, release)
        if env is None:
            known = idx.env(name)
            return f"- `{name}` ({t['env']}): {t['not_in'].format(release=release, runs=runs(known.releases, idx.versions))}" \
                if known and release else None
        facts = [t["env"]] + ([f"{t['default']} `{env.default}`"] if env.default not in (None, "") else [])
        return f"- `{name}` ({', '.join(facts)}): {first_sentence(env.doc)}".rstrip(": ")
    info = idx.arg(name, release)
    if owner == "" and info is None:
        return None                     # a local variable, not a setting of this release
    if info is not None:
        names = [f"`{info.flag}`"] if info.flag else []
        if info.flag and info.no_flag:
            names.append(f"`{info.no_flag}`")      # the release's own way to turn it off
        if info.keyword:
            names.append(t["llm"].format(kw=info.name))
        names += other_forms(idx, info.name, release)
        head = " / ".join(names) or f"`{info.name}`"
        line = f"- {head} ({', '.join(_constraints(info, lang))}): {first_sentence(info.help)}".rstrip(": ")
        successor = idx.arg(info.replaced_by, release) if info.deprecated and info.replaced_by else None
        if successor is not None and successor.name != info.name:
            # `--task` in 0.10.2: deprecated, and its successor `--runner` is there already
            line += t["successor"].format(flag=successor.flag or successor.name)
        notice = direction.flag_notice(idx, info, release)
        if notice:
            # 0.33's --mamba-cache-mode "has no effect: Mamba prefix caching follows --enable-prefix-caching"
            line += t["warns"].format(release=release, text=notice)
        return line
    cls = _class_of(idx, owner)
    field = idx.config_field(cls, name, release) if cls else None
    if field is None:
        # An engine argument of that name from other releases is no answer when the check reads a
        # config field: SpeculativeConfig.num_speculative_tokens exists in 0.33, set through
        # --speculative-config, although the flag --num-speculative-tokens went after 0.7.3.
        if release and idx.arg(name) is not None:
            return f"- `{name}`: {t['not_in'].format(release=release, runs=runs(idx.arg(name).releases, idx.versions))}"
        return None
    arg = engine_arg(idx, cls, name, release)
    if arg is not None and arg.name != name:
        line = setting_line(idx, arg.name, None, release, lang)     # `cache_dtype` is set by --kv-cache-dtype
        return line and line.replace(" (", f" → `{cls}.{name}` (", 1)
    how = [t["field_of"].format(cls=cls)]
    flag = _class_flag(idx, cls, release)
    how.append(t["set_with"].format(flag=flag, field=name) if flag else t["no_flag"])
    return f"- `{name}` ({'; '.join(how)}; {', '.join(_constraints(field, lang))}): {first_sentence(field.help)}".rstrip(": ")


_BOTH_FORMS = re.compile(r"^- (`--[\w.-]+`(?: / `--no-[\w.-]+`)?) / (`LLM\(\w+=…\)`)")


def in_form(line: str, invocation: str | None) -> str:
    """A setting's line with the user's own form first: the `LLM()` keyword for an offline script
    (the log's `invocation` is "llm"), the flag for a server."""
    return _BOTH_FORMS.sub(r"- \2 / \1", line, count=1) if invocation == "llm" else line


def other_forms(idx, name: str, release: str | None) -> list[str]:
    """The other ways the release takes an engine argument's name per call: an `LLM` method's
    keyword (`llm.chat(chat_template=…)`) and an OpenAI-compatible request's field."""
    if "_" not in name or release is None:
        return []
    out = [f"`llm.{m}({name}=…)`" for m in knobs.call_methods(idx, name, release)]
    if name in knobs.sendable(idx, release):
        out.append(f'`"{name}"` in a request')
    return out


def engine_arg(idx, cls: str, field: str, release: str | None):
    """The engine argument that sets a config class's field in that release (`--kv-cache-dtype`
    sets `CacheConfig.cache_dtype`), or None."""
    info = idx.arg(field, release)
    if info is not None and info.config_class in (cls, None):
        return info
    found = idx.config_field(cls, field, release)
    return idx.arg(found.flag, release) if found is not None and found.flag else None


def _json_owner(idx, name: str, release: str) -> str | None:
    """The one config class that has `name` as a field in `release` and a flag that takes it as
    JSON (`num_speculative_tokens`: SpeculativeConfig, `--speculative-config`), or None when no
    class or several do: a message of VllmConfig's that names another class's field."""
    owners = [cls for cls in idx.config_classes()
              if idx.config_field(cls, name, release) is not None and _class_flag(idx, cls, release)]
    return owners[0] if len(owners) == 1 else None


_TEMPLATE_NAMES = re.compile(r"--[a-z][a-z0-9-]+|\bVLLM_[A-Z0-9_]+|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def settings_of(idx, site, w: dict, release: str | None, lang: str, captures: dict | None = None,
                given: dict | None = None, mapped: list | None = None, user: dict | None = None) -> list[str]:
    """Bullets for the settings the check reads and the message names: the knobs that are no
    engine argument first (knobs.py: request fields, parsers, sizes the check divides by). `mapped`:
    reads.find's rows for this check, where the caller has them already."""
    found: dict[str, str | None] = dict(conditions.names(w.get("condition"), w.get("function")))
    for config in conditions.configs_read(w.get("condition")):        # `not self.lora_config`
        found.setdefault(config, None)
    # a name the message speaks of inside a config class is that class's field first
    # (SpeculativeConfig's num_speculative_tokens, set through --speculative-config in 0.32, not the
    # flag of that name 0.8.2 dropped)
    cls = (w.get("function") or "").split(".")[0]
    cls = cls if cls in idx.config_classes() else None
    for expr in site.placeholders:              # "The supplied chat template string ({chat_template}) ..."
        parts = [p.strip() for p in expr.split(".")]
        for name in dict.fromkeys((parts[-1], parts[0])):     # {kv_transfer_config.kv_connector}
            if name.isidentifier() and "_" in name and idx.arg(name, release) is None and \
                    idx.arg(name + "_name_or_path", release) is not None:
                name += "_name_or_path"     # 0.5's loader: `{qlora_adapter}` is --qlora-adapter-name-or-path
            if name.isidentifier() and "_" in name and idx.arg(name, release) is not None:
                found.setdefault(name, None)
                break
            if name.isidentifier() and cls and parts[0] in (name, "self") and \
                    idx.config_field(cls, name, release) is not None:
                # ModelConfig's "... when task is set to {task}": its own field, a one-word setting
                # (`--task`) the underscore test above leaves out
                found.setdefault(name, cls)
                break
    literal = " ".join(v for k, v in site.parts if k == "lit")
    # a validator of a request's JSON body ('normalize' in data): the names its message speaks of are
    # the client's keys, not the server's config fields of the same name (--pooler-config's use_activation)
    of_body = bool(knobs.body_keys(w.get("condition"), w.get("function"), w.get("file")))
    for token in _TEMPLATE_NAMES.findall(literal):
        name = token.lstrip("-").replace("-", "_") if token.startswith("--") else token
        if token.startswith("--no-") and idx.arg(name) is None:
            name = name.removeprefix("no_")          # `--no-enable-chunked-prefill` turns one off
        if cls and not token.startswith("--") and idx.config_field(cls, name, release) is not None:
            if found.get(name) == "":
                found[name] = cls           # read off `self`, a local's owner "" said too little
            found.setdefault(name, cls)
        elif not token.startswith("--") and release and idx.arg(name, release) is None and not found.get(name) \
                and not of_body and (owner := _json_owner(idx, name, release)) is not None:
            # VllmConfig's "decrease num_speculative_tokens": --speculative-config's field; the model
            # runner's local `cudagraph_mode` of "please try cudagraph_mode=PIECEWISE": --compilation-config's
            found[name] = owner
        elif name.startswith("VLLM_") or idx.arg(name) is not None:
            found.setdefault(name, None)
    # a value the user set that the message names ("current platform cpu does not support ray." for
    # distributed_executor_backend='ray'): that setting is in play, whatever the check reads
    for value in (captures or {}).values():
        # a vLLM variable the message fills in (0.34's "{env} has been removed." of the environment the
        # process was started with): the user's own variable
        if re.fullmatch(r"VLLM_[A-Z0-9_]+", str(value).strip()):
            found.setdefault(str(value).strip(), None)
    said = f"{literal} {' '.join(str(v) for v in (captures or {}).values())}".lower()
    yours: dict[str, str] = {}
    for name, value in (given or {}).items():
        if isinstance(value, str) and 2 <= len(value) <= 40 and "/" not in value and idx.arg(name, release) is not None \
                and re.search(rf"(?<![\w.-]){re.escape(value.lower())}(?![\w-])", said):
            found.setdefault(name, None)
            yours[name] = value
    lines = knobs.lines(idx, site, w, captures, release, lang, given)
    # names that stand for a knob of another name (`torch.accelerator.device_count()`:
    # CUDA_VISIBLE_DEVICES; `parallel_config.world_size`: the parallel sizes), reads.py's table
    if mapped is None:
        mapped = reads.find(w.get("condition"), site.placeholders, w.get("function"), w.get("file"))
    lines += [line for line in read_lines(idx, mapped, release, lang) if line not in lines]
    covered = {reads.last_attr(n) for f in mapped for n in f.names}
    for name, owner in found.items():
        if name in covered and name not in yours:
            continue                    # said through the table (world_size is no flag of its own)
        if name.endswith("_config") and idx.arg(name, release) is None:
            # A whole config object: its fields are the settings; one that exists only when a flag
            # turns it on is that flag (`lora_config` is --enable-lora; vllm#3044 was told the
            # check names no setting of the user's).
            switch = "enable_" + name.removesuffix("_config")
            if idx.arg(switch, release) is None:
                continue
            name, owner = switch, None
        if any(_head(known) == f"- `{name}`" for known in lines):
            continue                    # a request field knobs.py has said already
        line = setting_line(idx, name, owner, release, lang)
        if line and any(_head(known) == re.split(r" \(|（", line, maxsplit=1)[0] for known in lines):
            continue                    # the knob's own line (a parser's registry) said it already
        if line and name in yours:
            # "you set it" only of what the user set (vLLM's non-default args, their call or command
            # line): a whole argument dump holds the defaults too
            said_as = "yours_named" if user is None or name in user else "run_named"
            plain, line = line, line + _L[lang][said_as].format(value=yours[name]) \
                + nearest_value(idx, name, yours[name], release, lang)
            if plain in lines:          # the table said this knob already: say there that it is yours
                lines[lines.index(plain)] = line
        elif line and name in (user or {}) and _shown(user[name]):
            line += _L[lang]["yours_set"].format(value=_shown(user[name]))
        if line and line not in lines:
            lines.append(line)
        if len(lines) >= MAX_SETTINGS:
            break
    return lines


# A value a help text describes, as vLLM's docstrings list them: `- "safetensors" will load ...`.
_HELP_VALUE = re.compile(r'^\s*-\s*"([\w.+-]{1,40})"', re.M)


def nearest_value(idx, name: str, value, release: str | None, lang: str) -> str:
    """" Nearest accepted value: `x`." for a value of the user's that the release's choices for the
    setting lack; where the index has no closed choices (`str | LoadFormats` takes registered plugins too),
    the values its help text describes, said as such. Empty when none is close."""
    info = idx.arg(name, release) if release else None
    given = str(value or "").strip().strip("'\"")
    if info is None or not given:
        return ""
    choices, key = [str(c) for c in info.choices or []], "nearest_choice"
    if not choices:
        choices, key = _HELP_VALUE.findall(info.help or ""), "nearest_help"
    if not choices or given in choices:
        return ""
    close = nearest(given, choices)
    return _L[lang][key].format(close=close, release=release) if close else ""


def _shown(value) -> str | None:
    """A value of the user's as a short literal, or None when it is too long to repeat."""
    text = " ".join(str(value).split())
    return text if text and len(text) <= 60 else None


MAX_READS = 3           # rows of reads.py's table said per check
MAX_NAMES_SHOWN = 4


def _read_names(found) -> str:
    return ", ".join(f"`{n}`" for n in found.names[:MAX_NAMES_SHOWN])


def _knob_line(idx, knob: str, release: str | None, lang: str) -> str | None:
    """One knob of reads.py's table as `release` has it: a variable of the stack, of vLLM, or an
    engine argument (None when the release lacks it)."""
    if knob.isupper() and not knob.startswith("VLLM_"):
        return knobs.env_line(knob, lang)
    if knob.startswith("VLLM_"):
        return setting_line(idx, knob, None, release, lang) if idx.env(knob, release) is not None else None
    return setting_line(idx, knob, None, release, lang) if idx.arg(knob, release) is not None else None


def read_lines(idx, mapped: list, release: str | None, lang: str) -> list[str]:
    """Bullets for the names a check reads that stand for knobs of other names: what the name is,
    then each knob with its flag, range and default."""
    t = _L[lang if lang in _L else "en"]
    out: list[str] = []
    for found in [f for f in mapped if not f.of_model][:MAX_READS]:
        said = [line for line in (_knob_line(idx, k, release, lang) for k in found.knobs) if line]
        if not said:
            continue                    # a size this release does not have (decode context parallel)
        why = found.read.why.get(lang) or found.read.why["en"]
        if why:
            out.append(t["read_as"].format(name=_read_names(found), why=why))
        out += said
    return list(dict.fromkeys(out))


def model_lines(mapped: list, lang: str) -> list[str]:
    """Bullets for the model's and the checkpoint's own values a check reads: no setting."""
    t = _L[lang if lang in _L else "en"]
    by_why: dict[str, list[str]] = {}           # one line per reason (`config.json`'s, the checkpoint's)
    for f in mapped:
        if f.of_model:
            names = by_why.setdefault(f.read.why.get(lang) or f.read.why["en"], [])
            names += [n for n in f.names if n not in names]
    return [t["read_as"].format(name=", ".join(f"`{n}`" for n in names[:MAX_NAMES_SHOWN]), why=why)
            for why, names in by_why.items()]


# A flag or an assignment of a variable the message spells out: the user's own knob, or the one the
# message tells them to set (`--no-async-scheduling`, `MOONCAKE_CONFIG_PATH=...`, docker's `--shm-size`).
_MESSAGE_KNOB = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?==)")


def message_knobs(site, captures: dict | None, settings: list[str]) -> str:
    """The flags and variables the message names that no settings line speaks of."""
    said = " ".join(v for k, v in site.parts if k == "lit") + " " + " ".join(str(v) for v in (captures or {}).values())
    text = "\n".join(settings)
    names = [n for n in dict.fromkeys(_MESSAGE_KNOB.findall(said))
             if n not in text and n.lstrip("-").replace("-", "_") not in text]
    return ", ".join(f"`{n}`" for n in names[:MAX_NAMES_SHOWN])


def site_values(idx, site, facts: dict, lang: str, captures: dict | None = None) -> dict:
    """Where vLLM raises the message, which releases print it, what it checked, the settings named."""
    version = facts.get("vllm_version")
    release = idx.nearest_release(str(version)) if version else None
    # a release older than every indexed one (vLLM 0.4 against an index from 0.5.0): the oldest
    # release that prints it describes it best, not the newest
    older = bool(version) and release is None and version_key(str(version)) is not None
    w, matched = place(site, str(version) if older else release, facts.get("vllm_frames"))
    in_release = release is not None and w["release"] == release
    # the settings as the log's own release defines them (every release's names are indexed)
    described = (idx.nearest_version(str(version)) or release) if in_release else w["release"]
    out = {"site_file": w["file"], "site_function": w["function"] or "<module>", "site_line": w["line"],
           "site_release": w["release"], "site_exc": site.exc,
           "site_releases": runs(site.releases, idx.releases),
           "indexed_releases": runs(idx.releases, idx.releases),
           "site_template": " ".join(site.template.split())[:300],
           "search_url": "https://github.com/vllm-project/vllm/issues?q=" + quote_plus(_search_words(site))}
    if not version and matched:
        out["version_note"] = _L[lang]["frames_version"].format(releases=runs(matched, idx.releases), release=w["release"])
    elif not version:
        out["version_note"] = _L[lang]["unknown_version"].format(release=w["release"])
    elif older:
        out["version_older"] = "yes"
        out["indexed_first"] = idx.releases[0]
    elif not in_release:
        out["version_outside"] = "yes"
    cond = w.get("condition")
    if cond and conditions.explains(cond, site.template, lambda n: _is_setting(idx, n, described)):
        out["condition_code"] = cond.removeprefix("assert ") if len(cond) <= 400 else cond[:399] + "…"
        said = conditions.words(cond, lang)
        if said and version and not in_release:
            # the check of another release (its limits, its names): told as that release's, not as the log's
            said = _L[lang]["other_release"].format(release=w["release"], words=said)
        if said:
            out["condition_words"] = said
    mapped = reads.find(cond, site.placeholders, w.get("function"), w.get("file"))
    settings = settings_of(idx, site, w, described, lang, captures, facts.get("engine_args"), mapped,
                           facts.get("user_args"))
    if settings:
        out["settings"] = "\n".join(in_form(line, facts.get("invocation")) for line in settings)
        out["settings_release"] = described
        said = direction.way(idx, w, described, lang, config_arg(idx, described), captures,
                             facts.get("engine_args"), facts.get("invocation"))
        if said:
            out["direction"] = said
        # an on/off setting has its two values, but no range to stay within once the way is said
        if _BOUNDED.search(out["settings"]) or (not said and _ON_OFF.search(out["settings"])):
            out["settings_bounded"] = "yes"
    of_model = model_lines(mapped, lang)
    if of_model:
        out["model_reads"] = "\n".join(of_model)
        rest = reads.unmapped(cond, w.get("function"), w.get("file"), mapped)
        if rest and not settings:
            # `not 1 <= dspark_draft_topk <= draft_vocab_size`: the model's vocabulary is not all the
            # check reads, so "no flag changes it" would be false of the check
            out["model_partial"] = ", ".join(f"`{n}`" for n in rest[:MAX_NAMES_SHOWN])
    named = message_knobs(site, captures, settings)
    if named:
        out["message_knobs"] = named
    out.update(install_values(idx, site, w, captures))
    return out


# A settings line that lists what the setting may be (a range, its choices, the names a registry
# has, the values a check accepts, the sizes that divide): "within the range and choices listed
# above" is said only where one is listed; a bare `--speculative-config` line lists none.
_BOUNDED = re.compile(r"\b(?:range|one of|accepts a value|registers \d+|divisible by)\b|范围|可选|检查接受|注册了|整除")
# an on/off setting: "the index knows no range or choices for it to list" is false of it
_ON_OFF = re.compile(r"(?:type|类型) `(?:Optional\[)?bool\b")


def config_arg(idx, release: str | None):
    """direction.py's view of a config's field: (the engine argument that sets it, or None; the JSON
    flag's form where no argument of its own does, or None), None when the owner is no config class."""
    def find(owner: str, field: str):
        cls = _class_of(idx, owner)
        if cls is None:
            return None
        arg = engine_arg(idx, cls, field, release)
        flag = _class_flag(idx, cls, release) if arg is None and idx.config_field(cls, field, release) else None
        return arg, (f"`{flag} '{{\"{field}\": …}}'`" if flag else None)
    return find


def install_values(idx, site, w: dict, captures: dict | None = None) -> dict:
    """The package to install when the check stands for an optional import that failed (missing.py)."""
    gone = missing.find(idx, site, w, captures)
    if gone is None:
        return {}
    out = {"install_module": gone.package}
    if gone.outdated and missing.distribution(gone.spec):
        out["install_outdated"] = missing.distribution(gone.spec)
    if gone.importer:
        out["install_importer"] = gone.importer
    if gone.spec:
        out["install_pip"] = gone.spec
    return out


def _head(line: str) -> str:
    """A bullet's knob, before its colon (either language's)."""
    return re.split(r"[:：]", line, maxsplit=1)[0]


def _is_setting(idx, name: str, release: str | None) -> bool:
    """A name a user sets: an engine argument, a vLLM variable, a request's field, a config object
    a flag turns on (`lora_config`: --enable-lora)."""
    return (idx.arg(name) is not None or name.startswith("VLLM_")
            or name in idx.knob_fields("sampling", "SamplingParams", release)
            or (name.endswith("_config") and idx.arg("enable_" + name.removesuffix("_config")) is not None))


def _search_words(site) -> str:
    """The message's own words, without its variable parts: what to search vLLM's issues for."""
    words = re.findall(r"[A-Za-z][\w-]*", " ".join(v for k, v in site.parts if k == "lit"))
    return " ".join(words[:10]) or site.exc


# --- config-invalid ---------------------------------------------------------------------------------

def _config_invalid(idx, hit: Hit, facts: dict, lang: str) -> dict:
    info = hit.info
    version = facts.get("vllm_version")
    release = idx.nearest_version(str(version)) if version else None
    cls = info["config_class"]
    field = idx.config_field(cls, info["field"], release) or idx.config_field(cls, info["field"])
    if field is None:
        return {}
    problem = info["problem"]
    out = {"field": info["field"], "config_class": cls, "problem": problem, "field_release": field.release,
           "problem_short": problem if len(problem) <= 70 else problem[:69].rstrip(" ,'") + "…"}
    if not version:
        out["version_note"] = _L[lang]["unknown_version"].format(release=field.release)
    lines = [setting_line(idx, e["field"], cls, field.release, lang) for e in info.get("errors") or [info]]
    out["settings"] = "\n".join(dict.fromkeys(in_form(line, facts.get("invocation")) for line in lines if line))
    others = [e for e in info.get("errors", []) if e["field"] != info["field"]]
    if others:
        out["other_errors"] = "; ".join(f"`{e['field']}`: {e['problem']}" for e in others)
    # The engine argument that sets the field is what the user typed (kv_cache_dtype for
    # CacheConfig.cache_dtype); its own default says what happens when it is left out.
    arg = engine_arg(idx, cls, info["field"], field.release)
    setting = arg.name if arg is not None else info["field"]
    out["setting"] = setting
    if arg is not None and arg.flag:
        out["field_flag"] = arg.flag
    valid = valid_value(arg or field, info.get("value"))
    inside = _given_in_json(idx, cls, info["field"], field.release, facts)
    if inside is not None:
        # set as a key of the class's JSON flag (`--speculative-config '{"method": ...}'`): the key is what to
        # change; the field's own flag beside it is refused ("--spec-method and --speculative-config['method']
        # are mutually exclusive", 0.32)
        flag, key, given = inside
        out.pop("field_flag", None)
        out.update(setting=f'{flag.lstrip("-").replace("-", "_")}["{key}"]', json_key=key,
                   json_flag=f"`{flag}`" if facts.get("invocation") != "llm" else
                   f"`LLM({flag.lstrip('-').replace('-', '_')}=…)`")
        if valid is not _UNSET and valid is not None:
            out["json_valid"] = json.dumps(valid)
            out["suggest"] = {flag.lstrip("-").replace("-", "_"): {**given, key: valid}}
        return out
    if valid is _UNSET:
        out["leave_unset"] = "yes"
        if setting in (facts.get("user_args") or {}):
            out["suggest"] = {setting: None}
    elif valid is not None:
        out["valid_value"] = _show(valid)
        if arg is not None:
            out["suggest"] = {setting: valid}
    return out


def _given_in_json(idx, cls: str, field: str, release: str | None, facts: dict):
    """(the class's JSON flag, the key, the whole dict) where the user set the field as a key of that flag."""
    flag = _class_flag(idx, cls, release)
    given = (facts.get("user_args") or {}).get(flag.lstrip("-").replace("-", "_")) if flag else None
    if not isinstance(given, dict):
        return None
    key = next((k for k in given if str(k).replace("-", "_") == field), None)
    return (flag, key, given) if key is not None else None


_UNSET = object()       # the field's default is "unset": vLLM chooses the value


def valid_value(field, given: str | None):
    """A value the field accepts in that release: its default when that is valid and differs from
    what was given (_UNSET when the default is to leave it unset), else the nearest bound inside the
    range, else a choice; None when the index cannot tell."""
    default = field.default
    if field.choices:
        choices = list(field.choices)
        return default if default in choices and str(default) != given else choices[0]
    if isinstance(default, bool) or field.type == "bool":
        return None
    if default is None and field.default_expr is None and not field.factory:
        return _UNSET
    if not any(b is not None for b in (field.ge, field.gt, field.le, field.lt)):
        return None

    def ok(v) -> bool:
        try:
            v = float(v)
        except (TypeError, ValueError):
            return False
        return ((field.ge is None or v >= field.ge) and (field.gt is None or v > field.gt)
                and (field.le is None or v <= field.le) and (field.lt is None or v < field.lt))
    if default is not None and ok(default) and str(default) != str(given):
        return default
    for bound in (field.le, field.ge):
        if bound is not None and ok(bound):
            return bound
    return None


# --- name-unknown: arguments, fields and variables a release does not have -------------------------

_NL = {
    "en": {
        "never": "No vLLM release ({span}) has {what}.",
        "closest": "Names close to it in vLLM {release}: {names}.",
        "gone": "{what} existed in vLLM {runs} and is gone from {removed} on; your vLLM {release} does not have it.",
        "gone_nover": "{what} existed in vLLM {runs} and is gone from {removed} on.",
        "newer": "{what} first appears in vLLM {first}: your vLLM {release} predates it. Upgrade vLLM to {first} or later, or leave it out.",
        "newer_unseen": "{what} is not in your vLLM {release}; vLLM {first} has it (the index holds no release between them, so it may have come a little earlier). Upgrade vLLM to {first} or later, or leave it out.",
        "present": "vLLM {release} does have {what}: what rejected it is another class or program (a `SamplingParams` field, a tool's own API) or a subcommand that does not take it.",
        "exists": "{what} exists in vLLM {runs}.",
        "notice": "vLLM's own notice when it was deprecated: “{text}”",
        "replaced": "Its replacement: {new}{present}.",
        "replaced_missing": " (not in vLLM {release} either)",
        "no_replacement": "vLLM's notice names no successor.",
        "no_successor": "vLLM names no successor.",
        "added_between": "{what} is not in vLLM {lo} and is in {hi} (the indexed releases around yours): whether your vLLM {release} has it, `--help` of that release shows.",
        "removed_between": "{what} is in vLLM {lo} and gone from {hi} on (the indexed releases around yours): whether your vLLM {release} still has it, `--help` of that release shows.",
        "arg": "the engine argument `{name}`", "flag": "the flag `{name}`", "env": "the environment variable `{name}`",
        "field": "the field `{name}` of `{cls}`",
    },
    "zh": {
        "never": "vLLM 各版本（{span}）都没有{what}。",
        "closest": "vLLM {release} 中相近的名字：{names}。",
        "gone": "{what}存在于 vLLM {runs}，从 {removed} 起已删除；你的 vLLM {release} 没有它。",
        "gone_nover": "{what}存在于 vLLM {runs}，从 {removed} 起已删除。",
        "newer": "{what}从 vLLM {first} 起才有：你的 vLLM {release} 更早。请把 vLLM 升级到 {first} 或更新，或者去掉它。",
        "newer_unseen": "你的 vLLM {release} 没有{what}；vLLM {first} 有（索引里没有两者之间的版本，所以它可能更早一点就有了）。请把 vLLM 升级到 {first} 或更新，或者去掉它。",
        "present": "vLLM {release} 确实有{what}：拒绝它的是别的类或程序（`SamplingParams` 的字段、某个工具自己的 API），或不接受它的子命令。",
        "exists": "{what}存在于 vLLM {runs}。",
        "notice": "vLLM 弃用它时的提示：“{text}”",
        "replaced": "替代它的是：{new}{present}。",
        "replaced_missing": "（vLLM {release} 也没有）",
        "no_replacement": "vLLM 的提示没有给出替代项。",
        "no_successor": "vLLM 没有给出替代项。",
        "added_between": "vLLM {lo} 没有{what}，{hi} 有（与你的版本相邻的已索引版本）：你的 vLLM {release} 有没有它，看该版本的 `--help`。",
        "removed_between": "vLLM {lo} 有{what}，从 {hi} 起没有了（与你的版本相邻的已索引版本）：你的 vLLM {release} 是否还有它，看该版本的 `--help`。",
        "arg": "引擎参数 `{name}`", "flag": "命令行参数 `{name}`", "env": "环境变量 `{name}`",
        "field": "`{cls}` 的字段 `{name}`",
    },
}


def name_history(idx, name: str, kind: str, release: str | None, lang: str, cls: str | None = None,
                 version: str | None = None) -> dict:
    """What the releases say about an argument, field or variable someone used: {name_history:
    markdown, name_replacement: the name the release uses instead (if any), name_gone: yes}.
    `release` is the version of the index (idx.versions: every release PyPI serves) that describes
    the log's vLLM `version`; the text names the log's own version."""
    t = _NL[lang if lang in _NL else "en"]
    yours = _plain_version(version) or release
    if kind == "env":
        info, latest = idx.env(name, release) if release else None, idx.env(name)
        present = idx.has_env(name, release) if release else None
    elif kind == "field":
        info, latest = (idx.config_field(cls, name, release) if release else None), idx.config_field(cls, name)
        present = info is not None if release else None
    else:
        info, latest = idx.arg(name, release) if release else None, idx.arg(name)
        present = idx.has_arg(name, release) if release else None
    shown = (latest.flag if kind == "flag" and latest and latest.flag else name)
    what = t[kind if kind in ("env", "field", "flag") else "arg"].format(name=shown, cls=cls)
    what = what[0].upper() + what[1:] if lang == "en" else what
    out: dict = {}
    if latest is None:
        parts = [t["never"].format(span=runs(idx.versions, idx.versions).replace(" – ", "–"), what=what[0].lower() + what[1:] if lang == "en" else what)]
        close = _closest(idx, name, kind, release, cls)
        if close:
            parts.append(t["closest"].format(release=release or idx.releases[-1], names=", ".join(f"`{c}`" for c in close)))
        out["name_history"] = " ".join(parts)
        out["name_unknown_everywhere"] = "yes"
        return out
    span = runs(latest.releases, idx.versions)
    after = _next_release(idx, release, version)
    if after is not None and present is not None and _has_name(idx, kind, name, after, cls) != present:
        # The log's vLLM lies between two indexed releases that disagree: the index cannot say.
        key = "removed_between" if present else "added_between"
        out["name_history"] = t[key].format(what=what, lo=release, hi=after, release=yours)
        return out
    if present:
        out["name_history"] = t["present"].format(release=yours, what=what[0].lower() + what[1:] if lang == "en" else what)
        out["name_present"] = "yes"
        return out
    first = latest.releases[0]
    from bot.base.versions import in_range
    if release and present is False and in_range(release, f"<{first}"):
        # releases PyPI served between the log's and the first indexed one that has it are not indexed: the
        # name may have come in any of them, so `first` is where it is known to be, not where it began
        unseen = yours and any(in_range(v, f">{yours},<{first}") and v not in idx.releases for v in idx.versions)
        out["name_history"] = t["newer_unseen" if unseen else "newer"].format(what=what, first=first, release=yours)
        out["name_newer"] = first
        return out
    parts = []
    if latest.removed_in:
        key = "gone" if release else "gone_nover"
        parts.append(t[key].format(what=what, runs=span, removed=latest.removed_in, release=yours))
        out["name_gone"] = latest.removed_in
    else:
        parts.append(t["exists"].format(what=what, runs=span))
    if latest.notice:
        parts.append(t["notice"].format(text=first_sentence(latest.notice, 300)))
    rep = latest.replaced_by
    if rep:
        shown, missing = _successor(idx, rep, kind, release, cls)
        parts.append(t["replaced"].format(new=f"`{shown}`",
                                          present=t["replaced_missing"].format(release=release) if missing else ""))
        if not missing:
            out["name_replacement"] = shown
    elif latest.removed_in:
        parts.append(t["no_replacement"] if latest.notice else t["no_successor"])
    out["name_history"] = " ".join(parts)
    return out


def _successor(idx, rep: str, kind: str, release: str | None, cls: str | None) -> tuple[str, bool]:
    """(the successor as the user would write it, whether `release` lacks it). A flag or an
    environment variable is replaced on the command line: an argument shows as its flag. A dotted
    successor (`attention_config.flash_attn_version`, from vLLM's `--attention-config.flash_attn_version`)
    is a field of the config an argument takes: the flag with the field (or, for an `LLM()` keyword,
    the keyword with a dict), present when that argument and its class's field both are."""
    if rep.startswith("VLLM_"):
        return rep, bool(release) and idx.env(rep, release) is None
    if kind == "field" and cls and idx.config_field(cls, rep):
        return rep, bool(release) and idx.config_field(cls, rep, release) is None
    head, _, field = rep.partition(".")
    info = idx.arg(head, release) if release else idx.arg(head)
    if info is None:
        return rep, bool(release)
    if field:
        # the class the argument takes (its type names it: `AttentionConfig`, `AttentionConfig | None`)
        taken = [c for c in re.findall(r"\b[A-Z]\w*Config\b", f"{info.type or ''} {info.factory or ''}")
                 if c in idx.config_classes()]
        missing = bool(release) and bool(taken) and idx.config_field(taken[0], field, release) is None
        if kind == "arg":
            return f'{info.name}={{"{field}": ...}}', missing
        return f"{info.flag or '--' + info.name.replace('_', '-')}.{field}", missing
    if kind != "arg" and info.flag:
        return info.flag, False
    return info.name, False


def _plain_version(version) -> str | None:
    """The log's vLLM version without its local build tag (`0.10.1.1+cpu...` → `0.10.1.1`)."""
    return str(version).split("+")[0] if version else None


def _next_release(idx, release: str | None, version) -> str | None:
    """The indexed release after `release` when the log's version lies between them: a minor the
    index lacks (a version of an indexed minor is described by that minor's indexed patch)."""
    around = idx.releases_around(_plain_version(version)) if version and release else None
    return around[1] if around and around[0] == release else None


def _has_name(idx, kind: str, name: str, release: str, cls: str | None) -> bool:
    if kind == "env":
        return bool(idx.has_env(name, release))
    if kind == "field":
        return idx.config_field(cls, name, release) is not None
    return bool(idx.has_arg(name, release))


def _closest(idx, name: str, kind: str, release: str | None, cls: str | None) -> list[str]:
    rel = release or idx.releases[-1]
    if kind == "env":
        pool = [n for n in idx.env_names() if idx.has_env(n, rel)]
    elif kind == "field" and cls:
        pool = [f for f in idx.config_fields(cls) if idx.config_field(cls, f, rel)]
    else:
        pool = [n for n in idx.arg_names() if idx.has_arg(n, rel)]
    key = name.lstrip("-").replace("-", "_")
    found = nearest_few(key, pool)
    if kind == "flag":
        return [idx.arg(n, rel).flag or n for n in found]
    return found


def _name_unknown(idx, hit: Hit, facts: dict, lang: str) -> dict:
    info = hit.info
    version = facts.get("vllm_version")
    release = idx.nearest_version(str(version)) if version else None
    out = name_history(idx, info["name"], info["kind"], release, lang, info.get("config_class"), version)
    out["name"] = info["name"]
    if info.get("config_class"):
        out["config_class"] = info["config_class"]
    return out


# --- optional-package --------------------------------------------------------------------------------

_PL = {
    "en": {"top": "imports it when the module loads", "function": "imports it when that code runs",
           "try": "tries to import it and carries on without it", "conditional": "imports it only under a condition",
           "placeholder": "imports it lazily: fails only when it is used", "typing": "names it for type checking only",
           "dynamic": "imports it by name at run time", "lazy": "imports it lazily",
           "choose": "If you do not need {feature}, choose another {setting} (vLLM {release}: {default}).",
           "chosen": "{label}, which vLLM imported although your `{flag}` is `{value}`"},
    "zh": {"top": "模块加载时导入", "function": "那段代码运行时导入", "try": "尝试导入，失败也继续",
           "conditional": "只在某个条件下导入", "placeholder": "延迟导入：用到时才失败", "typing": "只用于类型检查",
           "dynamic": "运行时按名字导入", "lazy": "延迟导入",
           "choose": "如果不需要{feature}，换一个 {setting}（vLLM {release}：{default}）。",
           "chosen": "{label}（虽然你的 `{flag}` 是 `{value}`，vLLM 仍导入了它）"},
}
_GUARD_ORDER = ("placeholder", "try", "conditional", "dynamic", "lazy", "function", "top", "typing")
# What a vLLM module is for, from its path, and the engine argument that picks it.
_FEATURES = (("model_loader", "model loader", "load_format"), ("quantization", "quantization method", "quantization"),
             ("attention", "attention backend", "attention_backend"), ("tool_parsers", "tool parser", "tool_call_parser"),
             ("reasoning", "reasoning parser", "reasoning_parser"),
             ("structured_output", "structured-output backend", "structured_outputs_config"),
             ("guided_decoding", "guided-decoding backend", "guided_decoding_backend"),
             ("kv_connector", "KV connector", "kv_transfer_config"), ("lora", "LoRA", "enable_lora"),
             ("models", "model", None), ("device_communicators", "communicator", None),
             ("multimodal", "multimodal input", None), ("tokenizers", "tokenizer mode", "tokenizer_mode"))


def _optional_package(idx, hit: Hit, facts: dict, lang: str) -> dict:
    info = hit.info
    sites, path = info["sites"], info.get("path") or []
    version = facts.get("vllm_version")
    release = idx.nearest_version(str(version)) if version else None
    importing = {s.module: s for s in sites}
    here = next((m for m in reversed(path) if m in importing), info.get("importer"))
    ordered = sorted(sites, key=lambda s: (s.module != here, s.module))
    t = _PL[lang if lang in _PL else "en"]
    rows = []
    for s in ordered[:6]:
        guard = min(s.guards, key=lambda g: _GUARD_ORDER.index(g) if g in _GUARD_ORDER else 99)
        rows.append(f"- `{s.module}` ({t.get(guard, guard)})")
    out = {"package": info["package"], "module": info["module"], "importers": "\n".join(rows),
           "pip_name": sites[0].pip_name}
    if len(sites) > len(rows):
        out["importers_more"] = len(sites) - len(rows)
    if here:
        out["importer"] = here
    if any(s.required for s in sites):
        out["required"] = "yes"
        # requirements are indexed for the last patch of each minor: name the release they are of
        # when the log's vLLM is another, or does not say (then the newest that imports it)
        indexed = idx.nearest_release(str(version)) if version else max(
            (s.releases[-1] for s in sites), key=idx.releases.index)
        if indexed != _plain_version(version):
            out["required_release"] = indexed
    else:
        extras = sorted({e for s in sites for e in s.extras})
        if extras:
            out["extras"] = ",".join(extras)
    # the traceback's own modules first; else what the only importer the index knows is for
    feature = _feature(path or ([here] if here else [])) or (_feature([sites[0].module]) if len(sites) == 1 else None)
    if feature:
        label, setting = feature
        out["feature"] = label
        arg = idx.arg(setting, release) if setting else None
        given = (facts.get("engine_args") or {}).get(setting) if setting else None
        module = label.split("`")[1] if "`" in label else None
        flat = _squeezed(str(given or ""))
        # a value of one word (`gptq`), not a config object's repr (`KVTransferConfig(kv_connector=...)`)
        scalar = re.fullmatch(r"[\w.\-]+", str(given or "")) is not None
        if arg is not None and flat and scalar and any(flat in _squeezed(n) or _squeezed(n) in flat
                                                       for n in (info["package"], sites[0].pip_name or "") if n):
            # the user's own value is what needs the package (`--load-format fastsafetensors`, whose
            # iterator lives in weight_utils): it is the feature, not a module vLLM imported instead
            label = f"{label.split('`')[0].rstrip()} `{given}`"
            module = str(given)
            out["feature"] = label
        if arg is not None and given not in (None, "", module) and module and scalar \
                and _squeezed(module) not in flat and flat not in _squeezed(module):
            # the module that imported it is not the one the user chose (auto_awq imported while
            # vLLM loaded every quantization method; the user set gptq): say both, and do not
            # suggest choosing another value, which would not avoid the import
            out["feature"] = t["chosen"].format(label=label, flag=arg.flag or arg.name, value=given)
            return out
        if arg is not None and not out.get("required"):
            shown = arg.flag or arg.name
            default = f"{_L[lang]['default']} `{_show(arg.default)}`" if arg.default is not None else ""
            out["avoid"] = t["choose"].format(feature=label, setting=f"`{shown}`", release=arg.release,
                                              default=default).replace(" ()", "").replace("()", "").replace(": )", ")")
    return out


def _feature(path: list[str]) -> tuple[str, str | None] | None:
    """(what the innermost recognisable vLLM module is for, the engine argument that selects it)."""
    for module in reversed(path):
        parts = module.split(".")
        for marker, label, setting in _FEATURES:
            if marker in parts[:-1]:
                return f"{label} `{parts[-1]}`", setting
            # a feature's package itself (`vllm.model_executor.layers.quantization`, loading every
            # method): no method of the user's is named, and "for the quantization method" would
            # pin an import chain vLLM walks on every start (pyzmq's) on a feature; look further out
    return None


def _module_gone(idx, hit: Hit, facts: dict, lang: str) -> dict:
    """The releases that had the module (or the name in it), and where the log's vLLM stands: after
    the last of them (removed: the framework was written for an older vLLM) or before the first."""
    info = hit.info
    module, name = info["module"], info.get("name")
    out = {"module": module, "what": f"`{name}` (from `{module}`)" if name else f"`{module}`",
           "mg_seen": runs(info["releases"], idx.releases), "mg_first": info["first"], "mg_last": info["last"]}
    if name:
        out["name"] = name
    if info.get("gone_after"):
        out["mg_gone"] = info["gone_after"]
    if info.get("added_in"):
        out["mg_added"] = info["added_in"]
    if info.get("release"):
        out["mg_release"] = info["release"]
    if info.get("importer"):
        out["mg_importer"] = info["importer"]
    return out


_FILLERS = {"config-invalid": _config_invalid, "name-unknown": _name_unknown,
            "optional-package": _optional_package, "module-gone": _module_gone}


# --- hand-written rules whose text the index completes ----------------------------------------------

_ENGINE_CALLEES = ("EngineArgs", "AsyncEngineArgs", "LLM", "LLMEngine", "AsyncLLMEngine", None)
_FLAG_TOKEN = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
MAX_NAMES = 3


def _parsers(values: dict, facts: dict) -> dict:
    """The tool-call parsers the log's release registers (the newest release's when it does not
    say), closest to the name given first."""
    idx = load_index()
    version = facts.get("vllm_version")
    release = (idx.nearest_version(str(version)) if version else None) or (idx.versions[-1] if idx else None)
    names = idx.knob_names("tool_parser", release) if idx else []
    if not names:
        return {}
    given = str(values.get("parser") or "")
    close = knobs.closest(given, names) if given and given not in names else []
    return {"parsers": knobs.shown(close + [n for n in names if n not in close]), "parsers_release": release}


# msgspec says only "Unexpected keyword argument 'x'": vLLM's msgspec structs a caller fills with
# keywords are the request parameters (SamplingParams from 0.5.5, PoolingParams), never EngineArgs.
_PARAM_STRUCTS = ("SamplingParams", "PoolingParams")
_PH = {
    "en": {"gone": "`{cls}` has no field `{name}` from vLLM {removed} on ({last} is the last release with it){yours}.",
           "yours": "; your vLLM {release} is one of those",
           "never": "No vLLM release from {first} to {newest} has a field `{name}` in `SamplingParams` or `PoolingParams`, "
                    "the request parameters that refuse unknown keywords this way.",
           "closest": " Fields close to it in vLLM {release}: {names}."},
    "zh": {"gone": "从 vLLM {removed} 起 `{cls}` 没有字段 `{name}`（最后一个有它的版本是 {last}）{yours}。",
           "yours": "；你的 vLLM {release} 也在其中",
           "never": "vLLM {first} 到 {newest} 的各版本里，`SamplingParams` 和 `PoolingParams` 都没有字段 `{name}`"
                    "（以这种方式拒绝未知参数的就是这两个请求参数类）。",
           "closest": " vLLM {release} 中相近的字段：{names}。"},
}


def _params_history(name: str, facts: dict, lang: str) -> dict:
    """{arg_history} for msgspec's refusal: which releases' SamplingParams (or PoolingParams) had the
    field; nothing where the log's release has it (another struct refused it then)."""
    idx = load_index()
    if idx is None:
        return {}
    t = _PH[lang if lang in _PH else "en"]
    version = facts.get("vllm_version")
    release = idx.nearest_version(str(version)) if version else None
    for cls in _PARAM_STRUCTS:
        latest = idx.config_field(cls, name)
        if latest is not None:
            break
    else:
        first = idx.config_field("SamplingParams", "n")
        if first is None:
            return {}
        text = t["never"].format(first=first.releases[0], newest=idx.versions[-1], name=name)
        close = _closest(idx, name, "field", release, "SamplingParams")
        if close:
            text += t["closest"].format(release=release or idx.releases[-1], names=", ".join(f"`{c}`" for c in close))
        return {"arg_history": text}
    if release is not None and idx.config_field(cls, name, release) is not None:
        return {}
    if latest.removed_in:
        from bot.base.versions import in_range
        gone_here = release is not None and in_range(release, f">={latest.removed_in}")
        yours = t["yours"].format(release=_plain_version(version)) if gone_here else ""
        return {"arg_history": t["gone"].format(cls=cls, name=name, removed=latest.removed_in,
                                                last=latest.releases[-1], yours=yours)}
    found = name_history(idx, name, "field", release, lang, cls, version)
    return {"arg_history": found["name_history"]} if found.get("name_newer") else {}


# The request classes a client's key is looked up in, the endpoint each serves.
_BODY_CLASSES = (("ChatCompletionRequest", "/v1/chat/completions"), ("CompletionRequest", "/v1/completions"),
                 ("EmbeddingCompletionRequest", "/v1/embeddings"), ("EmbeddingRequest", "/v1/embeddings"))
_RF = {
    "en": {"has": "In vLLM's releases `{name}` is a field of {where}: a server older than that, or a request to "
                  "another endpoint, refuses it.",
           "class": "`{cls}` ({endpoint}) from {first} on", "always": "`{cls}` ({endpoint}) in every indexed release ({first} on)",
           "never": "No vLLM release ({span}) has a request field `{name}`.", "closest": " Close to it: {names}."},
    "zh": {"has": "在 vLLM 的各版本中，`{name}` 是{where}的字段：比这更早的服务端，或发到其他接口的请求，都会拒绝它。",
           "class": "`{cls}`（{endpoint}，{first} 起）", "always": "`{cls}`（{endpoint}，所有已索引版本，{first} 起）",
           "never": "vLLM 各版本（{span}）的请求都没有字段 `{name}`。", "closest": " 相近的字段：{names}。"},
}


def _request_field_history(name: str, facts: dict, lang: str) -> dict:
    """{field_history} for a top-level request key an old server refused: the request classes that have
    it and from which release, or the sendable fields close to it when no release has it."""
    idx = load_index()
    if idx is None or not idx.versions:
        return {}
    t = _RF[lang if lang in _RF else "en"]
    first_indexed = idx.versions[0]
    where = []
    for cls, endpoint in _BODY_CLASSES:
        info = idx.config_field(cls, name)
        if info is None or not info.releases or any(w.startswith(f"`{cls}`") for w in where):
            continue
        key = "always" if info.releases[0] == first_indexed else "class"
        where.append(t[key].format(cls=cls, endpoint=endpoint, first=info.releases[0]))
    if where:
        return {"field_history": t["has"].format(name=name, where=", ".join(where))}
    version = facts.get("vllm_version")
    release = (idx.nearest_version(str(version)) if version else None) or idx.versions[-1]
    text = t["never"].format(span=runs(idx.versions, idx.versions).replace(" – ", "–"), name=name)
    close = nearest_few(name, sorted(knobs.sendable(idx, release)))
    if close:
        text += t["closest"].format(names=", ".join(f"`{c}`" for c in close))
    return {"field_history": text}


def for_rule(rule_id: str, values: dict, facts: dict, lang: str) -> dict:
    """Index-filled values for the hand-written rules about names a release does not have:
    `unexpected-keyword-argument` ({arg}) and `cli-bad-args` ({args}): which releases had it,
    when it went, what replaced it."""
    if rule_id == "tool-call-parser-missing":
        return _parsers(values, facts)
    if rule_id == "tool-call-parse-failed":
        # the parsers of the newest release would mislead a user of an older one: only the log's own release
        return _parsers(values, facts) if facts.get("vllm_version") else {}
    if rule_id == "request-field-forbidden":
        return _request_field_history(str(values["field"]), facts, lang) if values.get("field") else {}
    if rule_id == "unexpected-keyword-argument":
        if values.get("msgspec") and values.get("arg"):
            # msgspec's own words: a request-parameter struct refused it, not an engine argument
            return _params_history(str(values["arg"]), facts, lang)
        if values.get("callee") not in _ENGINE_CALLEES or not values.get("arg"):
            return {}
        names = [(str(values["arg"]), "arg")]
    elif rule_id == "cli-bad-args" and values.get("args"):
        if values.get("entry_word"):
            return {}       # a command given as arguments to vLLM's server: its words are no flags of vLLM's
        names = [(tok.split("=")[0], "flag") for tok in _FLAG_TOKEN.findall(str(values["args"]))]
    else:
        return {}
    idx = load_index()
    if idx is None or not names:
        return {}
    version = facts.get("vllm_version")
    release = idx.nearest_version(str(version)) if version else None
    texts, replacements, redundant = [], [], []
    given = {str(k).replace("-", "_") for k in facts.get("user_args") or {}}
    for name, kind in list(dict.fromkeys(names))[:MAX_NAMES]:
        found = name_history(idx, name, kind, release, lang, version=version)
        if found.get("name_history"):
            texts.append(found["name_history"])
        successor = found.get("name_replacement")
        # a successor that was rejected too is no rename (the release that parsed these lacks it:
        # upgrade, or drop the flag); one the command already passes leaves the old flag nothing to do
        if not successor or successor in {n for n, _ in names}:
            continue
        if successor.lstrip("-").replace("-", "_") in given:
            redundant.append(f"`{name}` (`{successor}`)")
        else:
            replacements.append(f"`{name}` → `{successor}`")
    out = {}
    if texts:
        out["arg_history"] = "\n\n".join(texts)
    if replacements:
        out["arg_replacement"] = ", ".join(replacements)
    if redundant:
        out["arg_redundant"] = ", ".join(redundant)
    return out
