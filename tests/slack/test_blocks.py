"""Answers as Block Kit: every real fixture log, in both languages, renders within Slack's limits
(checked by slack_sdk's models and again by the fake's own checks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.diagnose import diagnose
from bot.slack import blocks
from bot.diagnose.knowledge.vllm import index
from tests.slack.fakeslack.webapi import block_text_lengths, check_message

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
LOGS = sorted(p for p in FIXTURES.glob("*/*.log") if not p.parent.name.startswith("_"))


def total_text(rendered: blocks.Rendered) -> int:
    return sum(n for b in rendered.blocks for _, n in block_text_lengths(b))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("path", LOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_renders_within_slacks_limits(path, lang):
    report = diagnose(path.read_bytes(), lang=lang)
    rendered = blocks.render(report, lang=lang, diagnosis_id=42)
    assert check_message({"blocks": rendered.blocks}) is None
    assert len(rendered.blocks) <= 50 and total_text(rendered) < 8000
    for block in rendered.blocks:
        if block["type"] == "section":
            assert len(block["text"]["text"]) <= 3000
            assert block["text"]["text"].count("```") % 2 == 0
    if report.verdict == "diagnosed":
        assert rendered.blocks[0]["type"] == "header"
        assert [b for b in rendered.blocks if b["type"] == "actions"][0]["block_id"] == f"feedback-{lang}"


def long_report():
    log = (FIXTURES / "kv-cache-no-memory").glob("*.log").__next__().read_text()
    report = diagnose(log)
    best = report.diagnoses[0]
    best.fix = "Do this:\n\n```\n" + "\n".join(f"vllm serve --option-{i} value" for i in range(400)) + "\n```\n"
    best.caveats = [f"caveat {i} " + "words " * 30 for i in range(40)]
    best.evidence = "ValueError: " + "detail " * 200
    return report


def test_a_long_diagnosis_is_cut_and_the_whole_of_it_attached():
    report = long_report()
    rendered = blocks.render(report, lang="en", diagnosis_id=7)
    assert check_message({"blocks": rendered.blocks}) is None and total_text(rendered) < 8000
    assert "The full text is in the attached file" in json.dumps(rendered.blocks)
    name, content = rendered.attachment
    assert name == "vllm-doctor-7.md"
    assert "--option-399" in content and "caveat 39" in content and content.count("detail") == 200


def test_a_short_diagnosis_has_no_attachment():
    log = (FIXTURES / "port-in-use").glob("*.log").__next__().read_text()
    rendered = blocks.render(diagnose(log), lang="en", diagnosis_id=1)
    assert rendered.attachment is None


def test_where_vllm_raised_the_error_is_one_context_line():
    log = (FIXTURES / "vllm-check-failed" / "vllm-0.26-h200-load-format-typo.log").read_text()
    where = "vllm/model_executor/model_loader/__init__.py:126 get_model_loader"
    newest = index.load().releases[-1]           # the shipped index's newest release still raises it
    for lang, label, tail in (("en", "*Raised in vLLM*", f" (vLLM 0.26.0; in 0.10.2 … {newest})"),
                              ("zh", "*vLLM 抛出位置*", f"（vLLM 0.26.0；出现于 0.10.2 … {newest}）")):
        rendered = blocks.render(diagnose(log, lang=lang), lang=lang, diagnosis_id=1)
        lines = [e["text"] for b in rendered.blocks if b["type"] == "context" for e in b["elements"]
                 if e["text"].startswith(label)]
        assert lines == [f"{label} `{where}{tail}`"]


def test_without_a_stored_diagnosis_there_are_no_buttons():
    log = (FIXTURES / "port-in-use").glob("*.log").__next__().read_text()
    rendered = blocks.render(diagnose(log), lang="en", diagnosis_id=None)
    assert not [b for b in rendered.blocks if b["type"] == "actions"]


def test_feedback_buttons_carry_the_diagnosis_id():
    block = blocks.feedback_buttons(1234, "zh").to_dict()
    assert [(e["action_id"], e["value"], e["text"]["text"]) for e in block["elements"]] == [
        ("feedback_fixed", "1234", "解决了"), ("feedback_wrong", "1234", "不对"), ("feedback_partly", "1234", "部分对")]
    assert blocks.feedback_lang(block["block_id"]) == "zh"
    assert blocks.feedback_lang("something-else") == "en"


def test_received_feedback_replaces_only_the_buttons():
    log = (FIXTURES / "port-in-use").glob("*.log").__next__().read_text()
    original = blocks.render(diagnose(log), lang="en", diagnosis_id=5).blocks
    updated = blocks.with_feedback_received(original, verdict="wrong", user="U1", lang="en")
    assert len(updated) == len(original)
    assert not [b for b in updated if b["type"] == "actions"]
    assert updated[:-1] == original[:-1]
    assert updated[-1]["elements"][0]["text"] == "Feedback received from <@U1>: *Wrong*. Thank you."


def test_not_diagnosed_shows_the_next_step_and_the_guesses():
    report = diagnose("Traceback (most recent call last):\nFluxError: capacitor misaligned")
    rendered = blocks.render(report, lang="zh")
    assert rendered.text == "没有把握的诊断"
    assert "FluxError" in json.dumps(rendered.blocks, ensure_ascii=False)


def test_notes_are_shown():
    log = (FIXTURES / "port-in-use").glob("*.log").__next__().read_text()
    rendered = blocks.render(diagnose(log), lang="en", diagnosis_id=1, notes=["`a.log` could not be read"])
    assert "`a.log` could not be read" in json.dumps(rendered.blocks)


def test_chinese_answers_and_their_file_have_no_english_template_words():
    import re
    words = re.compile(r"\b(?:line \d|Evidence|First error|Also possible|Rule book|rule `|Verified on|source)")
    for path in LOGS:
        report = diagnose(path.read_bytes(), lang="zh")
        if report.verdict != "diagnosed":
            continue
        rendered = blocks.render(report, lang="zh", diagnosis_id=1)
        texts = [json.dumps(b, ensure_ascii=False) for b in rendered.blocks]
        full = blocks.full_text(report, "zh")
        for text in [*texts, full]:
            text = re.sub(r"```.*?```", "", text.replace("\\n", "\n"), flags=re.S)
            text = re.sub(r"(?<!rule )`[^`\n]*`", "", text)     # inline code quotes the log's own words
            best = report.diagnoses[0]
            for own in (best.cause, best.fix, best.title, *(d.title for d in report.diagnoses)):
                text = text.replace(own, "")
            assert not words.search(text), (path, words.search(text).group(0))
        footer = blocks.verified_for(report, report.diagnoses[0], "zh")
        assert footer in full and footer in "".join(texts)
