from bot.diagnose import logtext


def test_slack_escapes_and_links_are_undone():
    raw = "ValueError: x &lt;= 1 &amp;&amp; y &gt; 2 see <https://docs.vllm.ai/x|the docs> and <https://a.b/c>"
    assert logtext.clean(raw).text == "ValueError: x <= 1 && y > 2 see the docs and https://a.b/c"


def test_code_fences_ansi_and_carriage_returns():
    raw = ("```\x1b[1;36m(EngineCore_DP0 pid=87)\x1b[0;0m ERROR boom\r\n"
           "[1;36m(EngineCore_DP0 pid=87)[0;0m WARNING lost escape byte\r"
           "Capturing CUDA graphs: 10%\r```")
    text = logtext.clean(raw).text
    assert "\x1b" not in text and "[1;36m" not in text and "[0;0m" not in text and "```" not in text
    assert "(EngineCore_DP0 pid=87) ERROR boom\n(EngineCore_DP0 pid=87) WARNING lost escape byte\nCapturing" in text


def test_bracketed_text_that_is_not_a_colour_survives():
    text = logtext.clean("model=[m1, m2] took [5ms]").text
    assert text == "model=[m1, m2] took [5ms]"


def test_invalid_utf8_and_binary_never_raise():
    out = logtext.clean(b"\xff\xfe\x00garbage\x00" * 1000)
    assert isinstance(out.text, str)
    out = logtext.clean(bytes(range(256)) * 400)
    assert any("binary" in n for n in out.notes)
    out = logtext.clean(b"ValueError: caf\xe9 is not utf-8")
    assert out.text.startswith("ValueError: caf")


def test_oversized_input_keeps_the_part_with_errors():
    limit = 1000
    text = "INFO noise\n" * 500 + "ValueError: the real one\n" + "INFO after\n" * 20
    bounded, notes = logtext.bound(text, limit)
    assert len(bounded) <= limit
    assert "ValueError: the real one" in bounded
    assert notes and "only the last" in notes[0]
