"""The terminal answer in Chinese is Chinese: no English template words around the log's own text."""

from __future__ import annotations

import re
from pathlib import Path

from bot.cli import terminal
from bot.diagnose import diagnose
from bot.diagnose.answering.report import verified_line
from bot.learn.fixtures import read

LOGS = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "logs").glob("*/*.log"))
# What the renderers themselves say (the log's text and the rules' code are allowed to be English).
TEMPLATE_WORDS = re.compile(r"\b(?:line \d|Evidence|Cause|Fix|Caveat|Also possible|From the log|verified on|"
                            r"Verified on|source|engine starts|Ready to paste|First error|Rule book|No diagnosis|"
                            r"The input|driver )", re.I)


def _own_words(rendered: str) -> str:
    """The renderer's text: code blocks (indented four spaces on a terminal) and the evidence line
    (the log's own words) removed."""
    return "\n".join(line for line in rendered.splitlines() if not line.startswith(("证据", "    ")))


def test_chinese_answers_have_no_english_template_words():
    for path in LOGS:
        # the paste alone: a fixture's header lines are the test's, and one that names vLLM would make the paste vLLM's
        report = diagnose(read(path).data, lang="zh")
        text = _own_words(terminal.render(report))
        for rule_text in (t for d in report.diagnoses[:1] for t in (d.cause, d.fix)):
            text = text.replace(terminal.plain(rule_text), "")        # rule texts are checked by the rule-book tests
        text = re.sub(r"`[^`\n]*`", "", text)      # inline code (a command, a path) is not the renderer's words
        assert not TEMPLATE_WORDS.search(text), (path, TEMPLATE_WORDS.search(text).group(0))


def test_the_verified_footer_reads_as_a_person_says_it():
    source = {"vllm": "0.33.0", "source": "vllm source", "date": "2026-11-30"}
    assert verified_line(source, "en") == "Verified on vLLM 0.33.0 (from vLLM's source)."
    assert verified_line(source, "zh") == "已验证：vLLM 0.33.0（依据 vLLM 源码）。"
    seed = {"vllm": "0.30.0", "torch": "2.13.0+cu130", "gpu": "RTX 5070 Ti 16GB", "date": "2026-11-09",
            "source": "seed cheat sheet + issue threads",
            "h200": "vLLM 0.26.0, torch 2.11.0+cu130, NVIDIA H200, real run 2026-11-30"}
    assert verified_line(seed, "en") == ("Verified on vLLM 0.30.0 with torch 2.13.0+cu130 on an RTX 5070 Ti 16GB "
                                         "(from the seed cheat sheet and issue threads). Real run on an H200, vLLM 0.26.0.")
    zh = verified_line(seed, "zh")
    assert zh == "已验证：vLLM 0.30.0，torch 2.13.0+cu130，RTX 5070 Ti 16GB（依据种子速查表和 issue 讨论）。H200 实测：vLLM 0.26.0。"
    assert not re.search(r"[(),:;]", zh.replace("2.13.0+cu130", ""))      # full-width punctuation only
    assert verified_line({}, "en") == ""
    # a stack answer's knowledge is the packages beneath vLLM, never "vLLM's released wheels"
    stack = {"source": "the raise sites of huggingface_hub's and transformers' released wheels (the stack index)"}
    assert verified_line(stack, "en") == "Checked against the index of the packages beneath vLLM."
    index = {"source": "vLLM's released wheels (the index, bot/vllm_source)"}
    assert verified_line(index, "en") == "Checked against vLLM's released wheels."


def test_markdown_reads_as_terminal_text():
    from bot.cli.terminal import plain
    text = "Ready to paste:\n```bash\nvllm serve m --max-model-len 4096\n```\nSee **this** and [the issue](https://github.com/vllm-project/vllm/issues/1)."
    got = plain(text)
    assert "```" not in got and "**" not in got
    assert "    vllm serve m --max-model-len 4096" in got
    assert "the issue <https://github.com/vllm-project/vllm/issues/1>" in got


def test_the_example_prints_no_fence():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "bot.cli", "diagnose", "--example"], capture_output=True, text=True, check=True).stdout
    assert "Ready to paste" in out and "```" not in out


def test_a_fenced_block_and_a_crash_banner_are_printed_as_they_are():
    from bot.cli.terminal import plain
    banner = "*** SIGSEGV received at time=1722289279 on cpu 61 ***"
    got = plain(f"The first error:\n```\n{banner}\n**kept**\n```\nSee **this** and {banner}", lambda c, t: f"<{t}>")
    assert f"    {banner}\n    **kept**" in got and f"See <this> and {banner}" in got
