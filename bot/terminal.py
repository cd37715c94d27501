"""A Report as text for a terminal (colour only on a tty)."""

from __future__ import annotations

from .diagnose.report import source_line

HEAD = {"en": {"cause": "Cause", "fix": "Fix", "evidence": "Evidence", "caveats": "Caveat",
               "alternatives": "Also possible", "facts": "From the log", "none": "No diagnosis",
               "verified": "verified on", "raised": "Raised in vLLM"},
        "zh": {"cause": "原因", "fix": "解法", "evidence": "证据", "caveats": "注意",
               "alternatives": "其他可能", "facts": "日志信息", "none": "没有诊断结果",
               "verified": "验证环境", "raised": "vLLM 抛出位置"}}



class _Style:
    def __init__(self, color: bool):
        self.color = color

    def __call__(self, code: str, s: str) -> str:
        return f"\x1b[{code}m{s}\x1b[0m" if self.color else s


def _facts_line(facts: dict) -> str:
    keys = [("vllm_version", "vLLM"), ("torch_version", "torch"), ("cuda_version", "CUDA"),
            ("driver_version", "driver"), ("gpu_name", "GPU"), ("compute_capability", "sm")]
    parts = [f"{label} {facts[k]}" for k, label in keys if facts.get(k)]
    if facts.get("engine_starts", 0) > 1:
        parts.append(f"engine starts in one process: {facts['engine_starts']}")
    return ", ".join(parts)


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
        out.append(report.next_step)
    else:
        out.append(s("1;32" if best.level == "root" else "1;33", f"{best.title}") +
                   s("2", f"  [{best.rule_id}, {best.confidence:.0%}]"))
        out.append(s("2", f"{h['evidence']} (line {best.line_no}): ") + best.evidence)
        if best.vllm_source:
            out.append(s("2", f"{h['raised']}: {source_line(best.vllm_source)}"))
        out.append("")
        out.append(s("1", h["cause"]))
        out.append(best.cause)
        out.append("")
        out.append(s("1", h["fix"]))
        out.append(best.fix)
        for c in best.caveats:
            out.append(s("33", f"{h['caveats']}: {c}"))
        if best.verified:
            v = ", ".join(f"{k} {val}" for k, val in best.verified.items() if k != "date")
            out.append(s("2", f"({h['verified']}: {v})"))
        if report.verdict == "wrapper_only":
            out.append("")
            out.append(report.next_step)
        if len(report.diagnoses) > 1:
            out.append("")
            out.append(s("1", h["alternatives"]))
            for d in report.diagnoses[1:6]:
                out.append(f"  - {d.title} [{d.rule_id}, {d.confidence:.0%}] line {d.line_no}")
    facts = _facts_line(report.facts)
    if facts:
        out.append(s("2", f"{h['facts']}: {facts}"))
    return "\n".join(out) + "\n"
