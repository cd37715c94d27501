from __future__ import annotations

import pytest

from bot.slack.mrkdwn import clip, code_block, escape, from_markdown, split, unwrap


def test_markup_characters_are_escaped_everywhere():
    assert escape("a < b && c > d") == "a &lt; b &amp;&amp; c &gt; d"
    out = from_markdown("Set `--model <path>` then\n\n```\nvllm serve <model> & wait\n```")
    assert "`--model &lt;path&gt;`" in out and "vllm serve &lt;model&gt; &amp; wait" in out


def test_markdown_becomes_slack_mrkdwn():
    md = "## Why\n**Bold** and [the docs](https://docs.vllm.ai/en/latest/?a=1&b=2).\n- one\n* two"
    assert from_markdown(md) == "*Why*\n*Bold* and <https://docs.vllm.ai/en/latest/?a=1&amp;b=2|the docs>.\n• one\n• two"


def test_code_blocks_keep_their_lines_and_lose_the_language_tag():
    out = from_markdown("Run:\n```bash\npip install -U vllm\nvllm serve m\n```\ndone")
    assert out == "Run:\n```\npip install -U vllm\nvllm serve m\n```\ndone"


def test_hard_wrapped_paragraphs_are_joined_but_lists_are_not():
    assert unwrap("one line\nwrapped here\n\n- item\n- item two\n  indented") == \
        "one line wrapped here\n\n- item\n- item two\n  indented"


def test_tables_become_aligned_code():
    out = from_markdown("| # | step |\n|---|---|\n| 1 | `bare` |\n| 2 | + max_model_len |")
    assert out == "```\n#  step\n1  bare\n2  + max_model_len\n```"


@pytest.mark.parametrize("limit", [200, 500, 2900])
def test_split_respects_the_limit_and_keeps_code_blocks_closed(limit):
    text = ("Intro paragraph.\n\n```\n" + "\n".join(f"line {i} " + "x" * 40 for i in range(200)) + "\n```\n\nEnd.")
    pieces = split(text, limit)
    assert len(pieces) > 1
    for piece in pieces:
        assert len(piece) <= limit
        assert piece.count("```") % 2 == 0
    assert "line 199" in pieces[-1] and pieces[-1].endswith("End.")


def test_clip_says_whether_it_cut():
    assert clip("short", 100) == ("short", False)
    text, cut = clip("```\n" + "y\n" * 500 + "```", 100, "(cut)")
    assert cut and len(text) <= 100 and text.endswith("(cut)") and text.count("```") == 2


def test_code_block_cannot_be_broken_out_of():
    assert code_block("a ``` b <x>") == "```\na ''' b &lt;x&gt;\n```"


def test_chinese_lines_of_a_paragraph_join_without_a_space():
    assert unwrap("连接中途断开、\n超时或被拒绝") == "连接中途断开、超时或被拒绝"
    assert unwrap("中文\n中文") == "中文中文"
    assert unwrap("用 vLLM\n运行") == "用 vLLM 运行"          # Latin beside CJK keeps its space
    assert unwrap("a wrapped\nline") == "a wrapped line"


def test_a_crash_banners_stars_are_no_bold_and_a_span_after_code_is_no_bullet():
    banner = "*** SIGSEGV received at time=1722289279 on cpu 61 ***"
    assert from_markdown(banner) == banner and from_markdown(f"`{banner}`") == f"`{banner}`"
    assert from_markdown("**Repro of `x`** and **this**") == "*Repro of `x`* and *this*"
