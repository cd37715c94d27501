from __future__ import annotations

import pytest

from bot.slack.lang import choose, guess, surrounding_words

LOG = """INFO 11-09 12:00:00 [core.py:12] Initializing a V1 LLM engine
(EngineCore_DP0 pid=87) ERROR 11-09 12:00:05 [core.py:700] EngineCore failed to start.
Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/vllm/engine.py", line 12, in run
ValueError: No available memory for the cache blocks."""


@pytest.mark.parametrize("text, expected", [
    ("大家好,vllm 启动就挂了,帮忙看下:\n```" + LOG + "```", "zh"),
    ("帮忙看看\n" + LOG, "zh"),
    ("hi all, vllm dies at startup, any idea?\n```" + LOG + "```", "en"),
    ("```" + LOG + "```", None),
    (LOG, None),
    ("用的是 Qwen2.5-VL-7B-AWQ,显存 16G", "zh"),
    ("It fails on my 显卡 again, tried everything", "en"),
])
def test_the_words_around_the_log_decide(text, expected):
    assert guess(text) == expected


def test_log_lines_are_not_words():
    assert surrounding_words("please help\n" + LOG) == "please help"


def test_a_users_choice_wins_over_the_words():
    assert choose("en", "帮忙看看这个报错") == "en"
    assert choose("zh", "please help") == "zh"
    assert choose(None, "帮忙看看这个报错") == "zh"
    assert choose(None, LOG) == "en"
    assert choose("fr", "please") == "en"
