"""Block Kit for an answer, built with slack_sdk.models so Slack's limits are checked here.

Short first: title and confidence, cause, fix, caveats, the evidence line, other possibilities
folded into one line, feedback buttons. Every part has a budget so the message stays well under
the size where Slack refuses it (`msg_blocks_too_long`, around 12k characters); when something
is cut, or the first error is long, the whole diagnosis goes into an attached file instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from bot.diagnose.answering.report import source_line, verified_for
from bot.slack import mrkdwn
from bot.slack.texts import t
from bot.store.redact import redact, redact_obj

SECTION_LIMIT = 2900  # Slack's limit is 3000; leave room for a closing fence
HEADER_LIMIT = 150
CAUSE_BUDGET = 1200
FIX_BUDGET = 3000
CAVEATS_BUDGET = 800
EVIDENCE_BUDGET = 300
NOTES_BUDGET = 600
ALTERNATIVES_SHOWN = 3
LONG_ROOT_CHARS = 1500  # a first error longer than this goes into the attached file
MAX_BLOCKS = 50
FEEDBACK_BLOCK = "feedback"
FEEDBACK_ACTIONS = {"fixed": "feedback_fixed", "wrong": "feedback_wrong", "partly": "feedback_partly"}
FACT_LABELS = (("vllm_version", "vLLM"), ("torch_version", "torch"), ("cuda_version", "CUDA"), ("gpu_name", ""))


@dataclass
class Rendered:
    """A message ready to post. It is redacted as it is made, the way the stored copy is: the
    evidence, the quoted first error, the ready-to-paste command and the attached file all quote
    the paste, and a token in it must not be echoed into the channel."""

    text: str  # notification and fallback text
    blocks: list[dict]
    # (filename, content) of the full diagnosis when the message had to leave parts out
    attachment: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        self.text = redact(self.text)
        self.blocks = redact_obj(self.blocks)
        if self.attachment is not None:
            self.attachment = (self.attachment[0], redact(self.attachment[1]))


RUN_REPRO_ACTION = "run_repro"
BUTTON_VALUE_LIMIT = 2000          # Slack's limit for a button's value


def render(report: Any, *, lang: str, diagnosis_id: int | None = None, notes: list[str] | tuple = (),
           repro: dict | None = None) -> Rendered:
    if report.verdict == "diagnosed" and report.diagnoses:
        return render_diagnosis(report, lang=lang, diagnosis_id=diagnosis_id, notes=notes, repro=repro)
    return render_not_diagnosed(report, lang=lang, notes=notes)


def render_diagnosis(report: Any, *, lang: str, diagnosis_id: int | None, notes: list[str] | tuple = (),
                     repro: dict | None = None) -> Rendered:
    best = report.diagnoses[0]
    cut = False
    blocks: list[Block] = [
        HeaderBlock(text=PlainTextObject(text=mrkdwn.shorten(best.title or best.rule_id, HEADER_LIMIT))),
        _context(_headline(best, report, lang)),
    ]
    cause, was_cut = _budget(mrkdwn.from_markdown(best.cause or ""), CAUSE_BUDGET, lang)
    cut |= was_cut
    if cause:
        blocks += _sections(f"{t('cause', lang)}\n{cause}")
    fix, was_cut = _budget(mrkdwn.from_markdown(best.fix or ""), FIX_BUDGET, lang)
    cut |= was_cut
    if fix:
        blocks += _sections(f"{t('fix', lang)}\n{fix}")
    if best.caveats:
        caveats = "\n".join(f"• {mrkdwn.from_markdown(c)}" for c in best.caveats)
        caveats, was_cut = _budget(caveats, CAVEATS_BUDGET, lang)
        cut |= was_cut
        blocks += _sections(f"{t('caveats', lang)}\n{caveats}")
    if best.evidence:
        cut |= len(best.evidence) > EVIDENCE_BUDGET
        evidence = mrkdwn.code_block(mrkdwn.shorten(best.evidence.strip(), EVIDENCE_BUDGET))
        blocks.append(_context(f"{t('evidence', lang, line_no=best.line_no)}\n{evidence}"))
    if getattr(best, "vllm_source", None):
        blocks.append(_context(t("raised", lang, where=f"`{mrkdwn.escape(source_line(best.vllm_source, lang))}`")))
    verified = verified_for(report, best, lang)
    if verified:
        blocks.append(_context(mrkdwn.escape(verified)))
    alternatives = report.diagnoses[1 : 1 + ALTERNATIVES_SHOWN]
    if alternatives:
        items = " · ".join(f"{mrkdwn.escape(d.title)} ({_pct(d.confidence)}%)" for d in alternatives)
        blocks.append(_context(t("alternatives", lang, items=items)))
    root_text = report.root.text if report.root is not None else ""
    attach = cut or len(root_text) > LONG_ROOT_CHARS
    note_lines = [*notes, *(report.notes or [])]
    if attach:
        note_lines.append(t("full_in_file", lang))
    if note_lines:
        blocks.append(_context(mrkdwn.shorten("\n".join(note_lines), NOTES_BUDGET)))
    if diagnosis_id is not None:
        blocks += [DividerBlock(), feedback_buttons(diagnosis_id, lang, repro)]
    text = f"{best.title} ({t('confidence', lang, pct=_pct(best.confidence))})"
    attachment = (f"vllm-doctor-{diagnosis_id or best.rule_id}.md", full_text(report, lang)) if attach else None
    return Rendered(text=text, blocks=_to_dicts(blocks), attachment=attachment)


def render_not_diagnosed(report: Any, *, lang: str, notes: list[str] | tuple = ()) -> Rendered:
    """For `/vllm diagnose`, where the user asked and deserves an answer even when unsure."""
    title = t("no_diagnosis_title", lang)
    blocks: list[Block] = [HeaderBlock(text=PlainTextObject(text=title))]
    advice, _ = _budget(mrkdwn.from_markdown(report.next_step or ""), FIX_BUDGET, lang)
    if advice:
        blocks += _sections(advice)
    if report.diagnoses:
        items = " · ".join(f"{mrkdwn.escape(d.title)} ({_pct(d.confidence)}%)"
                           for d in report.diagnoses[:ALTERNATIVES_SHOWN])
        blocks.append(_context(t("possible", lang, items=items)))
    note_lines = [*notes, *(report.notes or [])]
    if note_lines:
        blocks.append(_context(mrkdwn.shorten("\n".join(note_lines), NOTES_BUDGET)))
    return Rendered(text=title, blocks=_to_dicts(blocks))


def render_notice(text: str) -> Rendered:
    """A one-paragraph message (help, errors, refusals) in the same shape as an answer."""
    return Rendered(text=text, blocks=_to_dicts(_sections(text)))


def feedback_buttons(diagnosis_id: int, lang: str, repro: dict | None = None) -> ActionsBlock:
    # The language rides in block_id so the "received" line can be written in it later.
    elements = [
        ButtonElement(text=t(verdict, lang), action_id=action_id, value=str(diagnosis_id),
                      style="primary" if verdict == "fixed" else None)
        for verdict, action_id in FEEDBACK_ACTIONS.items()
    ]
    value = json.dumps(repro, separators=(",", ":")) if repro else ""
    if repro and len(value) > BUTTON_VALUE_LIMIT:      # too many settings to carry: the model alone
        value = json.dumps({"model": repro["model"], "settings": {}}, separators=(",", ":"))
    if repro and len(value) <= BUTTON_VALUE_LIMIT:
        elements.append(ButtonElement(text=t("run_repro", lang), action_id=RUN_REPRO_ACTION, value=value))
    return ActionsBlock(block_id=f"{FEEDBACK_BLOCK}-{lang}", elements=elements)


def feedback_lang(block_id: str | None) -> str:
    lang = (block_id or "").rpartition("-")[2]
    return lang if lang in ("en", "zh") else "en"


def with_feedback_received(blocks: list[dict], *, verdict: str, user: str, lang: str) -> list[dict]:
    """The message's blocks with the buttons replaced by a line saying the feedback arrived."""
    received = feedback_received(verdict=verdict, user=user, lang=lang)
    out = []
    for block in blocks:
        if str(block.get("block_id", "")).startswith(FEEDBACK_BLOCK):
            out.append(received)
        else:
            out.append(block)
    if received not in out:
        out.append(received)
    return out


def feedback_received(*, verdict: str, user: str, lang: str) -> dict:
    return _context(t("feedback_received", lang, user=user, verdict=t(verdict, lang))).to_dict()


def full_text(report: Any, lang: str) -> str:
    """The whole diagnosis as a Markdown file: nothing cut."""
    best = report.diagnoses[0]
    parts = [f"# {best.title}", f"{t('confidence', lang, pct=_pct(best.confidence))} · {t('rule', lang, rule_id=best.rule_id)}"]
    parts += [best.cause or "", best.fix or ""]
    parts += [f"- {c}" for c in best.caveats or []]
    parts.append(verified_for(report, best, lang))
    if best.evidence:
        parts.append(f"{t('evidence_plain', lang, line_no=best.line_no)}\n```\n{best.evidence}\n```")
    if getattr(best, "vllm_source", None):
        parts.append(t("raised_plain", lang, where=f"`{source_line(best.vllm_source, lang)}`"))
    if report.root is not None:
        parts.append(f"{t('first_error', lang, line_no=report.root.line_no)}\n```\n{report.root.text}\n```")
    for d in report.diagnoses[1:]:
        parts.append(t("also_possible", lang, title=d.title, pct=_pct(d.confidence), rule_id=d.rule_id))
    facts = _facts_line(report.facts)
    if facts:
        parts.append(facts)
    parts.append(t("rulebook", lang, version=report.rulebook_version))
    return "\n\n".join(p for p in parts if p) + "\n"


def _headline(best: Any, report: Any, lang: str) -> str:
    parts = [t("confidence", lang, pct=_pct(best.confidence)), t("rule", lang, rule_id=best.rule_id)]
    facts = _facts_line(report.facts)
    if facts:
        parts.append(mrkdwn.escape(facts))
    return " · ".join(parts)


def _facts_line(facts: dict | None) -> str:
    facts = facts or {}
    return " / ".join(f"{label} {facts[key]}".strip() for key, label in FACT_LABELS if facts.get(key))


def _pct(confidence: float) -> int:
    return round(max(0.0, min(1.0, float(confidence))) * 100)


def _budget(text: str, limit: int, lang: str) -> tuple[str, bool]:
    return mrkdwn.clip(text, limit, t("cut", lang))


def _sections(text: str) -> list[SectionBlock]:
    return [SectionBlock(text=MarkdownTextObject(text=piece)) for piece in mrkdwn.split(text, SECTION_LIMIT)]


def _context(text: str) -> ContextBlock:
    return ContextBlock(elements=[MarkdownTextObject(text=text)])


def _to_dicts(blocks: list[Block]) -> list[dict]:
    # to_dict() runs slack_sdk's validation (lengths, counts) and raises if a limit is broken.
    dicts = [b.to_dict() for b in blocks]
    if len(dicts) > MAX_BLOCKS:
        dicts = dicts[: MAX_BLOCKS - 1] + [dicts[-1]]
    return dicts
