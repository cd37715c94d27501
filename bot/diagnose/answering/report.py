"""What a diagnosis says, in the reader's language: the Report and the texts it is made of."""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe
from bot.base.record import Factory, Record
from bot.base.versions import in_range
from bot.diagnose.knowledge.rulebook import guards
from bot.diagnose.knowledge.vllm.releases import plain, version_key

_PLACEHOLDER = re.compile(r"(?<!\{)\{([a-z_][a-z0-9_]*)\}(?!\})")
# {?name}: keep the paragraph only when the log gave `name`; {!name}: only when it did not.
# Both print nothing: they choose between a generic paragraph and one that would be wrong here.
_PRESENCE = re.compile(r"(?<!\{)\{([?!])([a-z_][a-z0-9_]*)\}[ \t]?")


class Diagnosis(Record):
    rule_id: str
    confidence: float
    level: str
    status: str
    title: str
    cause: str
    fix: str
    caveats: list[str]
    evidence: str
    line_no: int
    captures: dict = Factory(dict)
    repro: dict = Factory(dict)
    fix_settings: dict = Factory(dict)
    fix_env: dict = Factory(dict)
    verified: dict = Factory(dict)
    versions: str | None = None
    matched_by: str = "pattern"          # pattern | fuzzy
    suggested: dict = Factory(dict)      # the settings the fix changes, with values from the log
    command: str = ""                    # the user's call with those settings, ready to paste
    vllm_source: dict | None = None      # where vLLM raises the message: file, function, line, releases


class RootError(Record):
    text: str
    line_no: int
    exc_type: str | None
    proc: str | None


class Report(Record):
    diagnoses: list[Diagnosis]
    shadow: list[Diagnosis]
    facts: dict
    root: RootError | None
    verdict: str                          # diagnosed | wrapper_only | unsure | no_error
    next_step: str
    notes: list[str]
    rulebook_version: str
    lang: str = "en"

    @property
    def best(self) -> Diagnosis | None:
        return self.diagnoses[0] if self.diagnoses else None

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "diagnoses": [d.to_dict() for d in self.diagnoses],
            "shadow": [d.to_dict() for d in self.shadow],
            "facts": self.facts,
            "root": self.root.to_dict() if self.root else None,
            "next_step": self.next_step,
            "notes": self.notes,
            "rulebook_version": self.rulebook_version,
            "lang": self.lang,
        }


def fill(template: str, values: dict, lang: str = "en") -> str:
    """Fill {name} placeholders; a paragraph naming a value we don't have is dropped whole,
    so a rule writes a generic paragraph first and a specific one after it. `{?name}` / `{!name}`
    keep a paragraph only when `name` is / is not known. A paragraph that starts with a version
    guard (`[vllm >=0.11.2]`) is kept only for the releases it names."""
    kept = []
    version = values.get("vllm_version")
    for para in re.split(r"\n[ \t]*\n", template):
        if any((values.get(n) in (None, "")) == (mark == "?") for mark, n in _PRESENCE.findall(para)):
            continue
        para = guards.apply(_PRESENCE.sub("", para), str(version) if version else None, lang)
        if para is None:
            continue
        names = _PLACEHOLDER.findall(para)
        if any(values.get(n) in (None, "") for n in names):
            continue
        text = _PLACEHOLDER.sub(lambda m: _show(values[m.group(1)]), para)
        kept.append(text.replace("{{", "{").replace("}}", "}"))
    return "\n\n".join(kept).strip()


def _show(value) -> str:
    if isinstance(value, float):                 # 0.001 stays 0.001; 83.8812 becomes 83.88
        text = f"{value:.2f}" if abs(value) >= 1 else f"{value:.4g}"
        return text.rstrip("0").rstrip(".") if "." in text and "e" not in text else text
    text = str(value)
    return text[:-2] if text.endswith(".0") and text[:-2].isdigit() else text   # "2048.0" -> "2048"


def source_line(src: dict | None, lang: str = "en") -> str:
    """`vllm/config/cache.py:123 CacheConfig.__post_init__ (vLLM 0.26.0; in 0.8.5 … 0.33.0)`."""
    if not src:
        return ""
    rels = src.get("releases") or []
    span = rels[0] if len(rels) == 1 else f"{rels[0]} … {rels[-1]}" if rels else ""
    where = f"{src['file']}:{src['line']}" + (f" {src['function']}" if src.get("function") else "")
    if not span:
        return where
    if lang == "zh":
        return f"{where}（vLLM {src.get('release')}；出现于 {span}）"
    return f"{where} (vLLM {src.get('release')}; in {span})"


TEXTS = {
    "ready_to_paste": {"en": "Ready to paste:", "zh": "可直接粘贴："},
    "outside_versions": {
        "en": "This message is known from vLLM {versions}; your log shows {vllm_version}, so the advice may not hold as written.",
        "zh": "这条报错已知出现在 vLLM {versions}；你的日志是 {vllm_version}，建议未必完全适用。",
    },
    "no_version": {
        "en": "The log does not show its vLLM version; this rule was verified on vLLM {verified}.",
        "zh": "日志里没有 vLLM 版本号；这条规则在 vLLM {verified} 上验证过。",
    },
    "unsure": {
        "en": ("I could not match this error to a known cause with confidence.\n\n"
               "The first error in the log (line {line_no}):\n```\n{root}\n```\n\n"
               "Next: 1) read the FIRST traceback, not the last line: vLLM wraps the real error several "
               "times. 2) Shrink to a minimal repro: `LLM(model=MODEL)` with nothing else; if it starts, "
               "add your settings back one at a time, one process per configuration (`/vllm repro` does "
               "this for you). 3) Check the usual suspects: memory (`gpu_memory_utilization` with "
               "`max_model_len`), versions (vLLM / torch / CUDA), paths (model folder, tokenizer files)."),
        "zh": ("没能以足够把握把这个报错对应到已知原因。\n\n"
               "日志里的第一个错误（第 {line_no} 行）：\n```\n{root}\n```\n\n"
               "下一步：① 看第一条 traceback，不要看最后一行：vLLM 会把真实错误包装好几层。"
               "② 缩小到最小复现：只写 `LLM(model=MODEL)`；能起来就逐个加回参数，一个配置一个进程"
               "（`/vllm repro` 会替你做）。③ 先查三个高频元凶：显存（`gpu_memory_utilization` 与 "
               "`max_model_len`）、版本（vLLM / torch / CUDA）、路径（模型目录、tokenizer 文件）。"),
    },
    "wrapper_only": {
        "en": ("The log shows only a wrapper message: the real error was printed ABOVE it, in the engine "
               "core or worker process. Paste the lines above it, from the first `Traceback (most recent "
               "call last)` or the first `ERROR` line, e.g. `grep -n -B5 -A30 'Traceback\\|ERROR' vllm.log | head -120`."),
        "zh": ("日志里只有包装层的报错：真正的错误打印在它上面（EngineCore 或 Worker 进程里）。"
               "请把它上面的内容贴出来，从第一条 `Traceback (most recent call last)` 或第一条 `ERROR` 开始，"
               "例如 `grep -n -B5 -A30 'Traceback\\|ERROR' vllm.log | head -120`。"),
    },
    "no_vllm_shown": {
        "en": ("Your paste shows no line of vLLM's own, so this explains the error itself, whichever program "
               "printed it; the vLLM settings named here apply only if it was vLLM."),
        "zh": "这段粘贴里没有 vLLM 自己的输出，所以这里解释的是报错本身（无论来自哪个程序）；其中提到的 vLLM 设置只在报错来自 vLLM 时适用。",
    },
    "not_vllm": {
        "en": ("This log looks like it comes from {program}, not from vLLM, so the vLLM rule book does "
               "not apply. If vLLM is involved, paste the vLLM part of the log (its own lines and first "
               "traceback)."),
        "zh": "这份日志看起来来自 {program}，而不是 vLLM，所以 vLLM 规则库不适用。如果确实涉及 vLLM，请贴出 vLLM 自己的日志和第一条 traceback。",
    },
    "no_error": {
        "en": ("I found no error in this text. Paste the whole log from the start of the run, including "
               "the first `Traceback`; long logs can be attached as a file."),
        "zh": "这段文字里没有找到错误。请贴出从启动开始的完整日志，包括第一条 `Traceback`；长日志可以作为文件上传。",
    },
}


# Where a rule's `verified` entry says its knowledge came from, as a person says it. A rule's
# `source` is free text ("issue threads (vllm#1, #2) + vllm source registry.py"): only the kinds it
# names are read out, the citations stay in the rule file.
_SOURCE_KINDS = (
    ("seed cheat sheet", {"en": "the seed cheat sheet", "zh": "种子速查表"}),
    ("issue thread", {"en": "issue threads", "zh": "issue 讨论"}),
    ("vllm source", {"en": "vLLM's source", "zh": "vLLM 源码"}),
    ("vllm pr", {"en": "a vLLM pull request", "zh": "vLLM 的 PR"}),
    ("real run", {"en": "real runs", "zh": "实际运行"}),
    ("vllm's released wheels", {"en": "vLLM's released wheels", "zh": "vLLM 发布的 wheel"}),
    # the stack's families and rules: tables and raise sites of the packages beneath vLLM, not vLLM's
    ("stack index", {"en": "the index of the packages beneath vLLM", "zh": "vLLM 下层软件包的索引"}),
)
_VERIFIED = {
    "en": {"on": "Verified on vLLM {vllm}", "torch": " with torch {torch}", "gpu": " on {gpu}",
           "from": " (from {kinds})", "and": " and ", "sep": ", ", "end": ".",
           "h200": "Real run on an H200, vLLM {version}.", "checked": "Checked against {kinds}.",
           "on_other": "This rule was verified on vLLM {vllm}", "yours": " Your log is vLLM {log}, within the releases the rule is written for."},
    "zh": {"on": "已验证：vLLM {vllm}", "torch": "，torch {torch}", "gpu": "，{gpu}",
           "from": "（依据{kinds}）", "and": "和", "sep": "、", "end": "。",
           "h200": "H200 实测：vLLM {version}。", "checked": "已对照{kinds}核对。",
           "on_other": "这条规则验证于 vLLM {vllm}", "yours": "你的日志是 vLLM {log}，在这条规则适用的版本范围内。"},
}
_H200_VERSION = LazyRe(r"vLLM (\S+?),")


def verified_line(verified: dict | None, lang: str, log_vllm=None, versions: str | None = None) -> str:
    """'Verified on vLLM 0.33.0 (from vLLM's source).' from a rule's `verified` entry; '' without one.
    Under an answer to a log of another vLLM, it says which release was verified and which the log
    is: "Verified on vLLM 0.33.0" beneath a 0.32 log read as if 0.32 had been checked."""
    if not verified:
        return ""
    other = bool(log_vllm and verified.get("vllm")) and _minor(log_vllm) != _minor(verified["vllm"])
    log_vllm = plain(log_vllm) if log_vllm else None
    w = _VERIFIED[lang if lang in _VERIFIED else "en"]
    source = str(verified.get("source") or "").lower()
    kinds = [names[lang if lang in names else "en"] for key, names in _SOURCE_KINDS if key in source]
    listed = kinds[0] if len(kinds) == 1 else w["sep"].join(kinds[:-1]) + w["and"] + kinds[-1] if kinds else ""
    if not verified.get("vllm"):
        said = w["checked"].format(kinds=listed) if kinds else ""
        return _space_latin(said) if lang == "zh" else said
    said = w["on_other" if other else "on"].format(vllm=verified["vllm"])
    if verified.get("torch"):
        said += w["torch"].format(torch=verified["torch"])
    if verified.get("gpu"):
        gpu = str(verified["gpu"])
        said += w["gpu"].format(gpu=gpu if lang == "zh" else f"{_article(gpu)} {gpu}")
    if kinds:
        said += w["from"].format(kinds=listed)
    said += w["end"]
    if other and versions and in_range(log_vllm, versions):
        said += w["yours"].format(log=log_vllm)
    h200 = _H200_VERSION.search(str(verified.get("h200") or ""))
    if h200:
        said += ("" if lang == "zh" else " ") + w["h200"].format(version=h200.group(1))
    return _space_latin(said) if lang == "zh" else said


def _article(name: str) -> str:
    """'an RTX 5070', 'an H200', 'a Tesla V100': by how the first letter is said."""
    word = name.split()[0]
    spelled = word.isupper() or any(ch.isdigit() for ch in word)     # an initialism, read letter by letter
    vowel_sound = "AEFHILMNORSX" if spelled else "AEIOU"
    return "an" if word[:1].upper() in vowel_sound else "a"


_CJK_LATIN = LazyRe(r"(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[\u4e00-\u9fff])")


def _space_latin(text: str) -> str:
    """Chinese text puts a space between Chinese and Latin words: '依据 vLLM 源码'."""
    return _CJK_LATIN.sub(" ", text)


def text(key: str, lang: str, **values) -> str:
    lang = lang if lang in ("en", "zh") else "en"
    return fill(TEXTS[key][lang], values, lang)


def verified_for(report, d, lang: str) -> str:
    """verified_line for diagnosis `d` of `report`, against the vLLM the report's log shows."""
    return verified_line(d.verified, lang, (report.facts or {}).get("vllm_version"), d.versions)


def _minor(version) -> tuple:
    """(0, 32) for "0.32.0+cpu": releases of one minor share their advice."""
    key = version_key(str(version))
    return key[:2] if key else (str(version),)
