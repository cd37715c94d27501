"""What a diagnosis says, in the reader's language: the Report and the texts it is made of."""

from __future__ import annotations

import re

from bot.base import regex_cache
from bot.base.lazyre import LazyRe
from bot.base.record import Factory, Record
from bot.base.versions import in_range
from bot.diagnose.knowledge.rulebook import guards
from bot.diagnose.knowledge.vllm.releases import plain, version_key

_PLACEHOLDER = regex_cache.compile(r"(?<!\{)\{([a-z_][a-z0-9_]*)\}(?!\})")
# {?name}: keep the paragraph only when the log gave `name`; {!name}: only when it did not.
# Both print nothing: they choose between a generic paragraph and one that would be wrong here.
_PRESENCE = regex_cache.compile(r"(?<!\{)\{([?!])([a-z_][a-z0-9_]*)\}[ \t]?")
_PARAGRAPH_BREAK = LazyRe(r"\n[ \t]*\n")


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
    matched_by: str = "pattern"          # pattern | fuzzy | index | environment
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
    for para in _PARAGRAPH_BREAK.split(template):
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
    return _renumber("\n\n".join(kept).strip())


_ITEM = regex_cache.compile(r"^(\d{1,2})\. ", re.M)


def _renumber(text: str) -> str:
    """A numbered list whose middle steps were dropped with their paragraphs (kept only for some logs) is
    numbered again, so "1." is not followed by "4.". Only a list that rises with gaps is touched: numbers that
    repeat or start over are several lists or alternatives, as the rule wrote them."""
    nums = [int(m.group(1)) for m in _ITEM.finditer(text)]
    if len(nums) < 2 or nums[0] != 1 or nums == list(range(1, len(nums) + 1)) \
            or any(b <= a for a, b in zip(nums, nums[1:])):
        return text
    count = iter(range(1, len(nums) + 1))
    return _ITEM.sub(lambda m: f"{next(count)}. ", text)


def _show(value) -> str:
    if isinstance(value, float):                 # 0.001 stays 0.001; 83.8812 becomes 83.88
        text = f"{value:.2f}" if abs(value) >= 1 else f"{value:.4g}"
        return text.rstrip("0").rstrip(".") if "." in text and "e" not in text else text
    text = str(value)
    # a count printed as a float, "2048.0" -> "2048"; one or two digits before ".0" are a capability or a
    # version as the log wrote it ("compute capability 7.0", "CUDA 12.0"), kept whole
    whole = text[:-2]
    return whole if text.endswith(".0") and whole.isdigit() and len(whole) > 2 else text


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
    "root_ignored": {
        "en": ("Python printed this exception and went on (`Exception ignored in ...`): it escaped a destructor or a "
               "callback, most often at shutdown from an object that was already half torn down. It is seldom the "
               "failure itself: if the run did fail, its first error is above this one, cut from the paste."),
        "zh": ("这个异常 Python 打印后就忽略了（`Exception ignored in ...`）：它来自析构函数或回调，多半是退出时对象已被"
               "拆到一半。它很少是失败本身：如果运行确实失败了，第一个错误在它上面，没有贴进来。"),
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
    "cut_traceback": {
        "en": ("Your paste ends inside a traceback, before its last line: the exception that names the error (a line "
               "such as `RuntimeError: ...` under the last `File ...` frame) is cut off, so there is no error here to "
               "match. The last frame shown (line {line_no}):\n```\n{root}\n```\n\n"
               "Paste the traceback to its end, down to the exception line and the lines after it; long logs can be "
               "attached as a file (`grep -n -A40 'Traceback' vllm.log` shows where each one ends)."),
        "zh": ("你贴的内容停在一条 traceback 中间，缺了它的最后一行：说明错误的那一行异常（最后一个 `File ...` 帧下面"
               "类似 `RuntimeError: ...` 的一行）被截掉了，所以这里没有可以对应的错误。贴出的最后一帧（第 {line_no} 行）："
               "\n```\n{root}\n```\n\n"
               "请把这条 traceback 贴完整，一直到异常那一行及其后的几行；长日志可以作为文件上传"
               "（`grep -n -A40 'Traceback' vllm.log` 能看到每条 traceback 在哪里结束）。"),
    },
    "cut_below": {
        "en": ("The paste ends inside a traceback (its last frame is line {line_no}), before the exception that "
               "names its error: paste that traceback to its end, down to the exception line and the lines after it."),
        "zh": "这段粘贴停在一条 traceback 中间（最后一帧在第 {line_no} 行），缺了说明错误的那一行异常：请把这条 traceback 贴完整，一直到异常那一行及其后的几行。",
    },
    "native_crash": {
        "en": ("The process died of a signal ({signal}) in compiled code called from `{func}` (`{path}`, line {line}). "
               "No Python error explains it: the crash is in that code or a library it calls. Try the run without the "
               "feature that calls it."),
        "zh": ("进程因信号（{signal}）死在从 `{func}`（`{path}` 第 {line} 行）调用的编译代码里。没有 Python 报错能解释它："
               "崩溃发生在这段代码或它调用的库中。试试不用调用它的那个功能运行。"),
    },
    "native_crash_pkg": {
        "en": ("The process died of a signal ({signal}) in compiled code called from `{func}` (`{path}`, line {line}), "
               "`{package}`'s. No Python error explains it: the crash is in `{package}` or a library it calls. Try the "
               "run without the feature that uses `{package}`, and check that the installed `{package}` was built for "
               "the torch and CUDA installed (reinstall the build that matches them)."),
        "zh": ("进程因信号（{signal}）死在从 `{func}`（`{path}` 第 {line} 行，属于 `{package}`）调用的编译代码里。没有 Python 报错能解释它："
               "崩溃发生在 `{package}` 或它调用的库中。试试不用依赖 `{package}` 的那个功能运行，并确认已安装的 `{package}` 是为已安装的 "
               "torch 和 CUDA 构建的（重装与之匹配的版本）。"),
    },
    # abseil's or glog's crash report (crash_site.py): the function its "PC:" line names, else the first its
    # stack names below the way down of an abort; the library only where the function's name says it
    "native_crash_pc": {
        "en": ("The process died of a signal ({signal}) in compiled code: the crash report's `PC:` line names `{func}`, "
               "the function the signal struck. No Python error explains it: the crash is in that function or in what "
               "called it. Try the run without the feature that calls it."),
        "zh": ("进程因信号（{signal}）死在编译代码里：崩溃报告的 `PC:` 行指出信号发生在函数 `{func}` 中。没有 Python 报错能解释它："
               "崩溃发生在这个函数或调用它的代码中。试试不用调用它的那个功能运行。"),
    },
    "native_crash_pc_lib": {
        "en": ("The process died of a signal ({signal}) in compiled code: the crash report's `PC:` line names `{func}`, "
               "{library}'s, the function the signal struck. No Python error explains it: the crash is in {library} or "
               "in what called it. Try the run without the feature that uses {library}."),
        "zh": ("进程因信号（{signal}）死在编译代码里：崩溃报告的 `PC:` 行指出信号发生在 {library} 的函数 `{func}` 中。没有 Python "
               "报错能解释它：崩溃发生在 {library} 或调用它的代码中。试试不用依赖 {library} 的那个功能运行。"),
    },
    "native_crash_frame": {
        "en": ("The process died of a signal ({signal}) in compiled code: the first function the crash report's stack "
               "names is `{func}`. No Python error explains it: the crash is in that code or a library it calls. Try "
               "the run without the feature that calls it."),
        "zh": ("进程因信号（{signal}）死在编译代码里：崩溃报告的调用栈里第一个有名字的函数是 `{func}`。没有 Python 报错能解释它："
               "崩溃发生在这段代码或它调用的库中。试试不用调用它的那个功能运行。"),
    },
    "native_crash_frame_lib": {
        "en": ("The process died of a signal ({signal}) in compiled code: the first function the crash report's stack "
               "names is `{func}`, {library}'s. No Python error explains it: the crash is in {library} or a library "
               "it calls. Try the run without the feature that uses {library}."),
        "zh": ("进程因信号（{signal}）死在编译代码里：崩溃报告的调用栈里第一个有名字的函数是 {library} 的 `{func}`。没有 Python "
               "报错能解释它：崩溃发生在 {library} 或它调用的库中。试试不用依赖 {library} 的那个功能运行。"),
    },
    # tvm_ffi's crash report (crash_site.py): the first function its stack names, the one the signal struck; for a
    # call into CUDA, the function that made it
    "native_crash_top": {
        "en": ("The process died of a signal ({signal}) in compiled code: the first function the crash report's stack "
               "names is `{func}`, the one the signal struck. No Python error explains it: the crash is in that "
               "function or in what called it. Try the run without the feature that calls it."),
        "zh": ("进程因信号（{signal}）死在编译代码里：崩溃报告的调用栈里第一个有名字的函数是 `{func}`，信号就发生在它里面。没有 Python "
               "报错能解释它：崩溃发生在这个函数或调用它的代码中。试试不用调用它的那个功能运行。"),
    },
    "native_crash_top_lib": {
        "en": ("The process died of a signal ({signal}) in compiled code: the first function the crash report's stack "
               "names is `{func}`, {library}'s, the one the signal struck. No Python error explains it: the crash is "
               "in {library} or in what called it. Try the run without the feature that uses {library}."),
        "zh": ("进程因信号（{signal}）死在编译代码里：崩溃报告的调用栈里第一个有名字的函数是 {library} 的 `{func}`，信号就发生在它里面。"
               "没有 Python 报错能解释它：崩溃发生在 {library} 或调用它的代码中。试试不用依赖 {library} 的那个功能运行。"),
    },
    "native_crash_top_called": {
        "en": ("The process died of a signal ({signal}) in compiled code: the crash report's stack names `{func}`, "
               "{library}'s, called from `{caller}`. No Python error explains it: {library} crashed on the call "
               "`{caller}` made (the memory or sizes it was given), or `{caller}` itself is at fault. Try the run "
               "without the feature that calls `{caller}`."),
        "zh": ("进程因信号（{signal}）死在编译代码里：崩溃报告的调用栈指出 {library} 的 `{func}`，由 `{caller}` 调用。没有 Python "
               "报错能解释它：{library} 在执行 `{caller}` 发起的调用时崩溃（传给它的内存或大小），或者 `{caller}` 本身有问题。"
               "试试不用调用 `{caller}` 的那个功能运行。"),
    },
    "wrapper_only": {
        "en": ("The log shows only a wrapper message: the real error was printed ABOVE it, in the engine "
               "core or worker process. Paste the lines above it, from the first `Traceback (most recent "
               "call last)` or the first `ERROR` line, e.g. `grep -n -B5 -A30 'Traceback\\|ERROR' vllm.log | head -120`."),
        "zh": ("日志里只有包装层的报错：真正的错误打印在它上面（EngineCore 或 Worker 进程里）。"
               "请把它上面的内容贴出来，从第一条 `Traceback (most recent call last)` 或第一条 `ERROR` 开始，"
               "例如 `grep -n -B5 -A30 'Traceback\\|ERROR' vllm.log | head -120`。"),
    },
    "env_misspelt": {
        "en": ("The log warns that `{given}` is unknown to vLLM, which ignores it; the variable named here is "
               "`{meant}`, and a setting meant for it has to use that exact name."),
        "zh": "日志警告 `{given}` 不是 vLLM 认识的变量，vLLM 会忽略它：这里说的变量是 `{meant}`，要设置它，必须用这个准确的名字。",
    },
    "no_vllm_shown": {
        "en": ("Your paste shows no line of vLLM's own, so this explains the error itself, whichever program "
               "printed it; the vLLM settings named here apply only if it was vLLM."),
        "zh": "这段粘贴里没有 vLLM 自己的输出，所以这里解释的是报错本身（无论来自哪个程序）；其中提到的 vLLM 设置只在报错来自 vLLM 时适用。",
    },
    "from_environment": {
        "en": ("No error line in your paste names this: the versions it shows cannot work together, which is reason "
               "enough for the run to fail. If the run printed an error, paste it too: it may say more."),
        "zh": "你贴出的内容里没有哪一行报错直接说明这一点：是它显示的版本彼此无法配合，这本身就足以让运行失败。如果运行打印了报错，也请一并贴出：它可能说明得更多。",
    },
    "not_vllm": {
        "en": ("This log looks like it comes from {program}, not from vLLM, so the vLLM rule book does "
               "not apply. If vLLM is involved, paste the vLLM part of the log (its own lines and first "
               "traceback)."),
        "zh": "这份日志看起来来自{program}，而不是 vLLM，所以 vLLM 规则库不适用。如果确实涉及 vLLM，请贴出 vLLM 自己的日志和第一条 traceback。",
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


# The other programs of a not_vllm verdict, in Chinese: the reading layer describes them in English (facts'
# _FOREIGN, _OTHER_MODES, _FOREIGN_RUNNERS, _FOREIGN_SHAPES, _PROGRAM_SIGNS and foreign_context's own phrases),
# keyed here by that English. A bare name (SGLang, ComfyUI, pip) is the same in both languages and is not listed.
_PROGRAMS_ZH = {
    "AutoAWQ or llm-awq (their own AWQ kernels)": "AutoAWQ 或 llm-awq（它们自己的 AWQ 内核）",
    "BasicSR or a model built on it": "BasicSR 或基于它的模型",
    "NVIDIA DALI (a data-loading pipeline)": "NVIDIA DALI（数据加载流水线）",
    "Caffe or MXNet": "Caffe 或 MXNet",
    "DCGM or another GPU monitoring agent": "DCGM 或其他 GPU 监控代理",
    "DeepSpeed (its `[date] [LEVEL] [file.py:line:function]` log)":
        "DeepSpeed（它的 `[date] [LEVEL] [file.py:line:function]` 日志格式）",
    "FastChat (its `date | LEVEL | logger |` log)": "FastChat（它的 `date | LEVEL | logger |` 日志格式）",
    "GroundingDINO or a detector built on it": "GroundingDINO 或基于它的检测器",
    "LLaMA-Factory's Hugging Face backend": "LLaMA-Factory 的 Hugging Face 后端",
    "LocalAI (its gRPC backend log)": "LocalAI（它的 gRPC 后端日志）",
    "LLaMA-Factory's training": "LLaMA-Factory 的训练",
    "Lua Torch or a PyTorch older than any vLLM (its THC library)": "Lua Torch 或比任何 vLLM 都旧的 PyTorch（它的 THC 库）",
    "MLC LLM or Apache TVM": "MLC LLM 或 Apache TVM",
    "Nano-vLLM (a small engine modelled on vLLM)": "Nano-vLLM（一个仿照 vLLM 写的小型推理引擎）",
    "OpenCompass' Hugging Face models": "OpenCompass 的 Hugging Face 模型",
    "OpenRLHF's training": "OpenRLHF 的训练",
    "Ollama or another Go server (its `level=... source=file.go` log)":
        "Ollama 或其他 Go 服务（它的 `level=... source=file.go` 日志格式）",
    "ComfyUI or an app on its model manager (Forge, Fooocus, SwarmUI: its `Requested to load` lines)":
        "ComfyUI 或基于它的模型管理的应用（Forge、Fooocus、SwarmUI：它的 `Requested to load` 日志行）",
    "FramePack (its `Loaded ... as complete.` lines)": "FramePack（它的 `Loaded ... as complete.` 日志行）",
    "LangChain or LlamaIndex running a transformers model": "在本进程里运行 transformers 模型的 LangChain 或 LlamaIndex",
    "SD.Next (its `| sd | LEVEL | module |` log)": "SD.Next（它的 `| sd | LEVEL | module |` 日志格式）",
    "SD.Next or kohya_ss's GUI (their `Torch backend:` and `Torch detected GPU:` lines)":
        "SD.Next 或 kohya_ss 的图形界面（它们的 `Torch backend:` 和 `Torch detected GPU:` 日志行）",
    "SD.Next or text-generation-webui (their `HH:MM:SS-micro LEVEL` log)":
        "SD.Next 或 text-generation-webui（它们的 `HH:MM:SS-micro LEVEL` 日志格式）",
    "SGLang (its `[date TP0]` log records)": "SGLang（它的 `[date TP0]` 日志记录）",
    "SGLang (its `[gpu_id=N]` log records)": "SGLang（它的 `[gpu_id=N]` 日志记录）",
    "FFmpeg or a media tool built on it (its `[component @ 0x...]` log)":
        "FFmpeg 或基于它的媒体工具（它的 `[component @ 0x...]` 日志格式）",
    "TRL's training": "TRL 的训练",
    "Xinference's transformers engine": "Xinference 的 transformers 引擎",
    "a Go program (its `time=... level=... msg=` log)": "Go 程序（它的 `time=... level=... msg=` 日志格式）",
    "a Go program (its panic or log format)": "Go 程序（它的 panic 或日志格式）",
    "a C++ test program (GoogleTest)": "C++ 测试程序（GoogleTest）",
    "a Gradio app": "Gradio 应用",
    "a Jupyter server (its `[I time ServerApp]` log)": "Jupyter 服务（它的 `[I time ServerApp]` 日志格式）",
    "a Lua program (its `stack traceback:`)": "Lua 程序（它的 `stack traceback:`）",
    "a training run (the paste says it was training a model)": "训练任务（粘贴内容说它当时在训练模型）",
    "an image or video generator (the paste says it was generating one)": "图像或视频生成程序（粘贴内容说它当时在生成图像或视频）",
    "a Celery worker (its `[date: LEVEL/process]` records)": "Celery worker（它的 `[date: LEVEL/process]` 日志记录）",
    "a Flask app (its `[date] LEVEL in module:` records)": "Flask 应用（它的 `[date] LEVEL in module:` 日志记录）",
    "a PyTorch distributed run (torchrun, accelerate launch)": "PyTorch 分布式运行（torchrun、accelerate launch）",
    "a Python program that is not vLLM (no vLLM frame in its traceback)":
        "一个不是 vLLM 的 Python 程序（它的 traceback 里没有 vLLM 的帧）",
    "a Python program that is not vLLM (its traceback runs through an app's own modules)":
        "一个不是 vLLM 的 Python 程序（它的 traceback 经过某个应用自己的模块）",
    "a Ray Tune, Train or RLlib job": "Ray Tune、Train 或 RLlib 任务",
    "a Rust program (its panic)": "Rust 程序（它的 panic）",
    "a Taskcluster task": "Taskcluster 任务",
    "a diffusion LoRA trainer (SimpleTuner, ai-toolkit, musubi-tuner, diffusion-pipe, EveryDream)":
        "扩散模型的 LoRA 训练器（SimpleTuner、ai-toolkit、musubi-tuner、diffusion-pipe、EveryDream）",
    "a diffusion model trainer": "扩散模型训练器",
    "a model trainer (its training log records)": "模型训练器（它的训练日志记录）",
    "a Python program that logs through loguru (its `date | LEVEL | module:function:line - ` records)":
        "通过 loguru 记录日志的 Python 程序（它的 `date | LEVEL | module:function:line - ` 日志记录）",
    "a program that logs through rich (its `time LEVEL message  file.py:line` records)":
        "通过 rich 记录日志的程序（它的 `time LEVEL message  file.py:line` 日志记录）",
    "a program on native Windows, where vLLM does not run": "原生 Windows 上的程序（vLLM 不能在原生 Windows 上运行）",
    "a program with its vLLM switched off (use_vllm false)": "关闭了 vLLM 的程序（use_vllm false）",
    "a script that trains a model (its backward pass or optimizer step)": "训练模型的脚本（它的反向传播或优化器 step）",
    "a training framework that does not run vLLM (XTuner, torchtune, LitGPT, Lightning, OpenMMLab, ...)":
        "不运行 vLLM 的训练框架（XTuner、torchtune、LitGPT、Lightning、OpenMMLab 等）",
    "a training or transcription loop (its progress bar)": "训练或语音转写循环（它的进度条）",
    "a text-to-speech toolkit (Coqui TTS, XTTS, CosyVoice, Fish Speech)":
        "文本转语音工具包（Coqui TTS、XTTS、CosyVoice、Fish Speech）",
    "a training loop (its epoch counter)": "训练循环（它的 epoch 计数行）",
    "a training loop (its epoch or step lines with a loss)": "训练循环（它带 loss 的 epoch 或 step 日志行）",
    "a video encoder (NVENC)": "视频编码器（NVENC）",
    "a training run tracked by Weights & Biases": "由 Weights & Biases 跟踪的训练任务",
    "a training script, a model's demo or a web UI (the script it runs)": "训练脚本、模型演示或 Web UI（它运行的脚本）",
    "a voice conversion app (RVC, Applio, so-vits-svc)": "变声应用（RVC、Applio、so-vits-svc）",
    "Infinity (an embedding server)": "Infinity（一个嵌入模型服务）",
    "uWSGI or an app it serves (SearXNG, ...)": "uWSGI 或它运行的应用（SearXNG 等）",
    "ExLlama or TabbyAPI": "ExLlama 或 TabbyAPI",
    "an image, video or voice app (Fooocus, InvokeAI, SD.Next, SwarmUI, Forge, Pinokio, a portable ComfyUI, ...)":
        "图像、视频或语音应用（Fooocus、InvokeAI、SD.Next、SwarmUI、Forge、Pinokio、便携版 ComfyUI 等）",
    "diffusers (an image or video generation pipeline)": "diffusers（图像或视频生成管线）",
    "h2oGPT or H2O LLM Studio": "h2oGPT 或 H2O LLM Studio",
    "ipex-llm's transformers": "ipex-llm 的 transformers 接口",
    "lighteval's transformers model": "lighteval 的 transformers 模型",
    "llama.cpp or a binding of it": "llama.cpp 或它的某个绑定",
    "llama.cpp or another GGML program": "llama.cpp 或其他 GGML 程序",
    "lm-evaluation-harness' transformers model": "lm-evaluation-harness 的 transformers 模型",
    "ms-swift's PyTorch backend": "ms-swift 的 PyTorch 后端",
    "ms-swift's training": "ms-swift 的训练",
    "text-generation-webui or another one-click web UI": "text-generation-webui 或其他一键式 Web UI",
    "the OpenAI API": "OpenAI API",
    "verl's training": "verl 的训练",
}
# foreign_context's `name` (what it is) shapes, by their parenthetical
_PROGRAM_ROLES_ZH = {
    "the program the dynamic loader could not start": "动态加载器无法启动的程序",
    "a package that is neither vLLM nor the stack beneath it": "既不是 vLLM 也不是其下层软件栈的包",
    "a container image that is not vLLM's": "不是 vLLM 的容器镜像",
    "the logger its log records name": "其日志记录所署的 logger 名",
}
_NAMED_ROLE = LazyRe(r"^(`[^`\n]+`) \(([^()]+)\)$")


def program_name(program: str, lang: str) -> str:
    """The other program of a not_vllm verdict as the reader's language says it; in Chinese led by a space where
    it starts with a Latin word ("来自 SGLang", "来自一个不是 vLLM 的 Python 程序")."""
    if lang != "zh":
        return program
    said = _PROGRAMS_ZH.get(program)
    if said is None:
        m = _NAMED_ROLE.match(program)
        role = _PROGRAM_ROLES_ZH.get(m.group(2)) if m else None
        said = f"{m.group(1)}（{role}）" if role else program
    return said if "\u4e00" <= said[:1] <= "\u9fff" else " " + said


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
