"""A Report as text for a terminal (colour only on a tty)."""

from __future__ import annotations

import re

from bot.base import regex_cache
from bot.diagnose.answering.report import source_line, verified_for

HEAD = {"en": {"cause": "Cause", "fix": "Fix", "evidence": "Evidence (line {n}): ", "caveats": "Caveat: ",
               "alternatives": "Also possible", "line": "line {n}", "facts": "From the log: ",
               "none": "No diagnosis", "starts": "engine starts in one process: {n}", "driver": "driver",
               "raised": "Raised in vLLM: "},
        "zh": {"cause": "原因", "fix": "解法", "evidence": "证据（第 {n} 行）：", "caveats": "注意：",
               "alternatives": "其他可能", "line": "第 {n} 行", "facts": "日志信息：",
               "none": "没有诊断结果", "starts": "同一进程启动引擎 {n} 次", "driver": "驱动",
               "raised": "vLLM 抛出位置："}}


class _Style:
    def __init__(self, color: bool):
        self.color = color

    def __call__(self, code: str, s: str) -> str:
        return f"\x1b[{code}m{s}\x1b[0m" if self.color else s


_FENCE = regex_cache.compile(r"^[ \t]*```[\w-]*[ \t]*\n(.*?)^[ \t]*```[ \t]*$", re.M | re.S)
# Markdown's bold: "**" against a word, never a run of three stars (abseil's crash banner "*** SIGSEGV ... ***")
_BOLD = regex_cache.compile(r"(?<!\*)\*\*(?=[^\s*])(.+?)(?<=[^\s*])\*\*(?!\*)")
_LINK = regex_cache.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)")


def plain(text: str, s=lambda code, t: t) -> str:
    """The answers' Markdown as a terminal shows it: a fenced block indented (the fences printed
    literally read as noise and break copy-paste) and kept as it is, bold as bold, a link as its text and address."""
    text, out, last = text or "", [], 0
    for m in _FENCE.finditer(text):
        out.append(_prose(text[last:m.start()], s))
        out.append("\n".join("    " + line for line in m.group(1).rstrip("\n").split("\n")))
        last = m.end()
    out.append(_prose(text[last:], s))
    return "".join(out)


def _prose(text: str, s) -> str:
    text = _BOLD.sub(lambda m: s("1", m.group(1)), text)
    return _LINK.sub(lambda m: f"{m.group(1)} <{m.group(2)}>", text)


def _facts_line(facts: dict, h: dict) -> str:
    keys = [("vllm_version", "vLLM"), ("torch_version", "torch"), ("cuda_version", "CUDA"),
            ("driver_version", h["driver"]), ("gpu_name", "GPU"), ("compute_capability", "sm")]
    parts = [f"{label} {facts[k]}" for k, label in keys if facts.get(k)]
    if facts.get("engine_starts", 0) > 1:
        parts.append(h["starts"].format(n=facts["engine_starts"]))
    return ("，" if h is HEAD["zh"] else ", ").join(parts)


def render(report, name: str | None = None, color: bool = False) -> str:
    s, h = _Style(color), HEAD[report.lang]
    out = []
    if name:
        out.append(s("2", f"── {name}"))
    for note in report.notes:
        out.append(s("33", f"! {note}"))
    best = report.best
    if best is None or report.verdict in ("unsure", "no_error"):
        out.append(s("1", h["none"]))
        out.append(plain(report.next_step, s))
    else:
        out.append(s("1;32" if best.level == "root" else "1;33", f"{best.title}") +
                   s("2", f"  [{best.rule_id}, {best.confidence:.0%}]"))
        out.append(s("2", h["evidence"].format(n=best.line_no)) + best.evidence)
        if best.vllm_source:
            out.append(s("2", h["raised"] + source_line(best.vllm_source, report.lang)))
        out.append("")
        out.append(s("1", h["cause"]))
        out.append(plain(best.cause, s))
        out.append("")
        out.append(s("1", h["fix"]))
        out.append(plain(best.fix, s))
        for c in best.caveats:
            out.append(s("33", h["caveats"] + plain(c)))
        verified = verified_for(report, best, report.lang)
        if verified:
            out.append(s("2", verified))
        if report.verdict == "wrapper_only":
            out.append("")
            out.append(plain(report.next_step, s))
        if len(report.diagnoses) > 1:
            out.append("")
            out.append(s("1", h["alternatives"]))
            for d in report.diagnoses[1:6]:
                out.append(f"  - {d.title} [{d.rule_id}, {d.confidence:.0%}] " + h["line"].format(n=d.line_no))
    facts = _facts_line(report.facts, h)
    if facts:
        out.append(s("2", h["facts"] + facts))
    return "\n".join(out) + "\n"
