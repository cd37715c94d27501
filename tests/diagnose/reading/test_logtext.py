from bot.diagnose.reading import logtext


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


def test_json_log_records_unfold_into_the_lines_a_text_formatter_prints():
    # The shape of GPUStack #1079 / python-json-logger: the message, then the traceback in exc_info.
    raw = ('INFO plain line\n'
           '{"levelname": "ERROR", "message": "Please install x", "exc_info": "Traceback (most recent call last):'
           '\\n  File \\"/v/vllm/a.py\\", line 1, in f\\n    import x\\nModuleNotFoundError: No module named \'x\'"}\n'
           'svc-1  | {"log":"RuntimeError: boom\\n","stream":"stderr"}\n'
           'after')
    text = logtext.clean(raw).text
    assert text.split("\n") == [
        "INFO plain line", "ERROR:    Please install x", "Traceback (most recent call last):",
        '  File "/v/vllm/a.py", line 1, in f', "    import x", "ModuleNotFoundError: No module named 'x'",
        "svc-1  | RuntimeError: boom", "after"]


def test_a_json_record_cut_short_is_read_up_to_where_it_stops():
    raw = '{"message": "m", "exc_info": "Traceback (most recent call last):\\n  File \\"/x.py\\", line 1, in f\\n    g(\\u00e9\\'
    assert logtext.clean(raw).text.split("\n") == [
        "m", "Traceback (most recent call last):", '  File "/x.py", line 1, in f', "    g(\u00e9"]


def test_text_that_only_quotes_json_or_escapes_is_left_alone():
    for raw in ('INFO Received request: prompt: \'{"message": "a\\nb"}\', params: x',  # quoted, not a record
                '{"object":"error","message":"\\"auto\\" tool choice requires it","code":400}',  # no newline
                '{"a": "x\\ny", "message": "one line"}'):                          # the newline is in no text field
        assert logtext.clean(raw).text == raw


def test_a_double_spaced_paste_is_single_spaced_again():
    # The shape of weicj/vLLM-2080Ti-Definitive#12: an issue tool put a blank line after every line.
    raw = ('  File "/v/pydantic/_dataclasses.py", line 121, in __init__\n\n'
           '    s.__pydantic_validator__.validate_python(ArgsKwargs(args, kwargs), self_instance=s)\n\n'
           'pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n\n'
           '  Value error, Model architectures [\'X\'] failed to be inspected. [type=value_error]\n\n\n\n'
           'next paragraph')
    assert logtext.clean(raw).text.split("\n") == [
        '  File "/v/pydantic/_dataclasses.py", line 121, in __init__',
        '    s.__pydantic_validator__.validate_python(ArgsKwargs(args, kwargs), self_instance=s)',
        'pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig',
        "  Value error, Model architectures ['X'] failed to be inspected. [type=value_error]",
        "", "next paragraph"]


def test_prose_in_paragraphs_keeps_its_blank_lines():
    raw = ("I get this error:\n\nValueError: No available memory for the cache blocks.\n\n"
           "But I already set it:\n\nLLM(gpu_memory_utilization=0.9)\n\nAny idea?")
    assert logtext.clean(raw).text == raw


def test_an_opening_fence_drops_the_language_it_names():
    # LLM_Foreign_Block#1: "```python" above a bare message; the word "python" was read as the
    # start of the message ("python vLLM V1 does not support ...").
    text = logtext.clean("```python\nvLLM V1 does not support per request user provided logits processors.\n```").text
    assert "python" not in text and "vLLM V1 does not support" in text
    # A fence whose line goes on is the message itself, class names included.
    assert "ValueError: x" in logtext.clean("```ValueError: x```").text
    assert "Traceback (most recent call last):" in logtext.clean("```Traceback (most recent call last):\n").text


def test_markdown_links_a_rendered_page_put_in_the_log_are_read_as_their_text():
    from bot.diagnose.reading.logtext import clean
    text = ("Error while creating shared memory segment [/dev/shm/nccl-EoOvZr](https://runai.example.net/dev/shm/nccl-EoOvZr)"
            " (size 7340384)\nsee [the docs](https://docs.vllm.ai/x) and [1, 2](3)")
    got = clean(text).text
    assert "segment /dev/shm/nccl-EoOvZr (size 7340384)" in got
    assert "see the docs and [1, 2](3)" in got           # only links to an address are unwrapped


def test_a_paste_indented_as_a_whole_is_read_at_its_margin():
    # Markdown's indented code block: every line four spaces in, inner indentation kept
    text = logtext.clean("    Traceback (most recent call last):\n      File \"x.py\", line 1, in <module>\n"
                 "    OSError: [Errno 28] No space left on device\n").text
    assert text.startswith("Traceback") and "\n  File" in text and "\nOSError" in text
    # a log whose first line alone is indented keeps its lines where they were
    assert logtext.clean("  a\nb\n").text == "  a\nb\n"


def test_lines_a_bare_carriage_return_started_are_numbered_as_the_paste_numbers_them():
    clean = logtext.clean("a\rb\r\nc\rd\re\nf")
    assert clean.text.split("\n") == ["a", "b", "c", "d", "e", "f"]
    # the paste's lines: "a\rb", "c\rd\re", "f"
    assert [clean.paste_line(n) for n in range(1, 7)] == [1, 1, 2, 2, 2, 3]
    assert logtext.clean("a\r\nb\nc").cr_lines == []


def test_docker_buildkit_step_times_are_taken_off_the_lines_a_run_printed():
    # BuildKit's plain progress ("#9 54.11 ") and the summary of a failed step ("54.11 "), as `docker build` prints
    # them around pip's resolver: pip's lines are read at their margin, their own indentation kept
    plain = ("#9 54.11 The conflict is caused by:\n#9 54.11     vllm 0.8.3 depends on transformers>=4.51.0\n"
             "#9 DONE 0.1s\n")
    assert logtext.clean(plain).text == ("The conflict is caused by:\n    vllm 0.8.3 depends on transformers>=4.51.0\n"
                                 "#9 DONE 0.1s\n")
    summary = (" > [4/6] RUN pip install -r requirements.txt:\n54.11 ERROR: ResolutionImpossible: for help\n"
               "54.11\n------\nERROR: failed to solve: process \"/bin/sh -c pip install\" did not complete "
               "successfully: exit code: 1\n")
    assert "\nERROR: ResolutionImpossible: for help\n\n------\n" in logtext.clean(summary).text
    # a number at the start of a line is kept where the paste shows no BuildKit summary
    assert logtext.clean("12.5 GiB free\n3.14 seconds\n").text == "12.5 GiB free\n3.14 seconds\n"


def test_buildkit_prefixes_cost_the_lines_they_are_on_not_every_line_of_the_paste():
    import time
    # one step time above 10 MB of blank lines: the rewrite walked every line in Python (about 25 s here)
    paste = "#1 1.0 x\n" + "\n" * 10_000_000
    t = time.perf_counter()
    text = logtext.clean(paste).text
    assert time.perf_counter() - t < 5.0 and text.startswith("x\n") and len(text) == len(paste) - 7
    # a run indented as a whole goes back to the margin, its inner indentation and the lines around it kept
    run = "a\n#3 1.5     b\n#3 1.6       c\n#3 1.7\n  d\n"
    assert logtext.clean(run).text == "a\nb\n  c\n\n  d\n"


def test_a_paste_of_carriage_returns_is_not_numbered_line_by_line_in_python():
    import time
    # 10 MB of progress-bar redraws: numbering each in a Python loop took about 3 s here; beyond a bound the lines
    # are numbered as read
    paste = "x\r" * 5_000_000
    t = time.perf_counter()
    clean = logtext.clean(paste)
    assert time.perf_counter() - t < 1.0 and clean.text.count("\n") == 5_000_000
    assert logtext.clean("a\rb\nc").cr_lines == [2]


def test_a_page_s_html_escapes_of_quotes_are_undone_but_not_a_bare_name():
    raw = "ValueError: model=&#39;m&#39; dtype=&quot;half&quot; &#x27;x&#x27;&nbsp;y &amp;#39; ?a=1&para=2"
    assert logtext.clean(raw).text == "ValueError: model='m' dtype=\"half\" 'x' y &#39; ?a=1&para=2"


def test_a_traceback_in_an_escaped_string_that_is_no_json_record_is_unfolded():
    raw = ('detail: "Traceback (most recent call last):\\n  File \\"/x/vllm/engine.py\\", line 12, in run\\n'
           '    raise ValueError(msg)\\nValueError: bad \\"value\\"\\n"\nnext line\n')
    text = logtext.clean(raw).text
    assert '  File "/x/vllm/engine.py", line 12, in run\n' in text
    assert '\nValueError: bad "value"\n' in text and text.endswith("\nnext line\n")
    # a prompt quoted with escaped newlines, with no traceback in it, is left as it is
    prompt = "INFO Received request: prompt: 'a\\nb\\nc', params: ...\n"
    assert logtext.clean(prompt).text == prompt


def test_a_paste_hard_wrapped_at_a_terminal_s_width_is_rejoined():
    lines = ["(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] " + "x" * n for n in (30, 90, 150, 200)]
    lines.append("(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] RuntimeError: HSA_STATUS_ERROR_INVALID_ARGUMENT: "
                 "One of the actual arguments does not meet a precondition")
    log = "\n".join(lines) + "\n"
    wrapped = "\n".join(line[i:i + 80] for line in log.split("\n") for i in range(0, max(len(line), 1), 80))
    assert logtext.clean(wrapped).text.strip() == log.strip()
    # a log whose longest line merely happens to be 120 characters long is not joined
    plain = "\n".join(["a" * 120, "b" * 100, "c" * 90, "d" * 70, "e" * 120]) + "\n"
    assert logtext.clean(plain).text == plain


def test_lines_drawn_to_the_terminal_s_width_are_not_rejoined():
    # rich's traceback box and pytest's rules fill the terminal's width by design: each is a line of its own
    box = ["╭" + "─" * 78 + "╮"] + ["│ " + f"/x/vllm/engine.py:{n} in run".ljust(76) + " │" for n in range(4)] \
        + ["╰" + "─" * 78 + "╯", "ValueError: Unknown quantization method: foo"]
    log = "\n".join(box) + "\n"
    assert logtext.clean(log).text == log
    rules = "\n".join(["=" * 30 + " test session starts " + "=" * 29, "collected 1 item",
                       "=" * 35 + " FAILURES " + "=" * 35, "_" * 33 + " test_model " + "_" * 35,
                       "E       ValueError: Bfloat16 is only supported on GPUs",
                       "=" * 27 + " short test summary info " + "=" * 28,
                       "FAILED tests/test_model.py::test_model - ValueError: x", "=" * 80]) + "\n"
    assert logtext.clean(rules).text == rules


def test_a_paste_of_nothing_but_full_lines_is_rejoined_in_bounded_lines():
    # (bench_diagnose's "10 MB of open brackets and quotes": 200-column lines, every one full; joined into one 10 MB
    # line by repeated += the clean took quadratic time, 15 s and more)
    text = ("([{'\"" * 40 + "\n") * 20000
    lines = logtext.clean(text).text.split("\n")
    assert max(map(len, lines)) <= logtext.MAX_REJOINED + 200
    assert sum(map(len, lines)) == 200 * 20000


def _fixture(rel: str) -> str:
    from pathlib import Path

    from bot.learn.fixtures import read
    return read(Path(__file__).parents[2] / "fixtures/logs" / rel).data.decode()


def test_a_whole_log_pasted_as_one_json_string_reads_as_its_lines():
    # json.dumps of a log, or a log copied out of a JSON field: read as one line, a healthy run's last 8 KB read as
    # what a hung run printed last (graph capture) and the NVIDIA image's banner as the container's error
    import json

    from bot.diagnose import diagnose
    for rel in ("_negative/h100-healthy-expandable-segments-sleep-mode.log", "_negative/h100-healthy-cpu-offload-huge.log",
                "_negative/nvdocker1548-banner-with-gpus-all-wsl.log"):
        log = _fixture(rel)
        string = json.dumps(log)[1:-1]
        assert "\n" not in string
        assert logtext.clean(string).text == logtext.clean(log).text
        assert diagnose(string).diagnoses == []
    # a short one: a file's text ends in its last line's escaped newline
    log = "$ vllm serve m --foo 1\nvllm: error: unrecognized arguments: --foo 1\n"
    assert logtext.clean(json.dumps(log)[1:-1]).text == log
    # a line that only quotes an escaped newline or two is left as it is
    for raw in ("ValueError: stop=['\\n'] is not allowed", "INFO x: text='a\\nb' done\nINFO next line\n"):
        assert logtext.clean(raw).text == raw


def test_a_log_s_records_in_an_escaped_string_within_a_paste_are_unfolded():
    records = ("INFO 12-06 17:58:35 [loader.py:1] Loading weights took 1.0 seconds\\n"
               "(EngineCore pid=1) INFO 12-06 17:58:36 [gpu.py:2] Capturing CUDA graphs\\n"
               "(EngineCore pid=1) INFO 12-06 17:58:40 [gpu.py:3] Graph capturing finished\\n")
    raw = "The job's output field:\n" + '"output": "' + records + '",\n' + "more\n" + "x" * 2000 + "\n"
    text = logtext.clean(raw).text
    assert "\n(EngineCore pid=1) INFO 12-06 17:58:36 [gpu.py:2] Capturing CUDA graphs\n" in text
    # one record head after an escaped newline is no log (a message quoting a line)
    one = "ValueError: bad line 'x\\nINFO 12-06 17:58:35 [a.py:1] y'\nnext\n" + "x" * 2000 + "\n"
    assert logtext.clean(one).text == one


def test_an_escaped_traceback_whose_frames_carry_a_prefix_is_unfolded():
    # torch elastic's "[rank0]: " before every line: the frames do not start the escaped lines, the opening does
    raw = ('[rank0]: Traceback (most recent call last):\\n[rank0]:   File \\"/x/hub.py\\", line 470, in f\\n'
           '[rank0]:     g()\\n[rank0]: ValueError: bad\\n"\nnext line\n' + "x" * 2000 + "\n")
    text = logtext.clean(raw).text
    assert '\n[rank0]:   File "/x/hub.py", line 470, in f\n' in text and "\n[rank0]: ValueError: bad\n" in text


def test_escapes_decode_as_json_does_and_unknown_ones_stay():
    from bot.diagnose.reading.jsonlog import _unescape_text
    assert _unescape_text('a\\nb\\t\\"c\\" C:\\\\Users\\\\me \\\\n \\x41 \\u00e9 \\u12') == \
        'a\nb\t"c" C:\\Users\\me \\n \\x41 \u00e9 \\u12'
    assert _unescape_text("a\\r\\nb\\\\\\nc") == "a\nb\\\nc"


def test_a_paste_of_millions_of_escaped_newlines_is_read_in_one_pass():
    import time
    # each search for an escaped log stops at every escaped newline: a text of millions of them and no mark of a
    # traceback or a log's records is not searched; one that is a whole escaped string is unfolded once
    for paste, lines in (("a\\nb\\nc\n" * 1_300_000, 1_300_000), ("a\\n" * 3_400_000, 3_400_000)):
        t = time.perf_counter()
        text = logtext.clean(paste).text
        assert time.perf_counter() - t < 2.0
        assert text.count("\n") == lines


RUN_TOGETHER = (
    "(EngineCore_DP0 pid=7) INFO 12-07 06:59:02 [core.py:93] Initializing a V1 LLM engine (v0.11.0) with config: "
    + "model='/models/m', " * 30
    + "(EngineCore_DP0 pid=7) ERROR 12-07 06:59:03 [core.py:708] EngineCore failed to start. "
    "Traceback (most recent call last): "
    'File "/usr/lib/python3/dist-packages/vllm/v1/engine/core.py", line 699, in run_engine_core '
    "engine_core = EngineCoreProc(*args, **kwargs) "
    'File "/usr/lib/python3/dist-packages/vllm/config.py", line 274, in __init__ '
    "raise ValueError(msg) ValueError: No supported config format found in /models/m "
)


def test_a_log_run_together_into_one_line_gets_its_lines_back():
    lines = logtext.clean(RUN_TOGETHER).text.split("\n")
    assert lines[0].startswith("(EngineCore_DP0 pid=7) INFO 12-07")
    assert lines[1].startswith("(EngineCore_DP0 pid=7) ERROR 12-07") and lines[1].endswith("failed to start.")
    assert lines[2] == "Traceback (most recent call last):"
    assert lines[3].startswith('  File "/usr/lib/python3/dist-packages/vllm/v1/engine/core.py", line 699')
    # the frame's code line ran on into the exception: the exception is a line of its own again
    assert lines[-2].endswith("raise ValueError(msg)")
    assert lines[-1] == "ValueError: No supported config format found in /models/m"


def test_only_a_run_together_log_is_split():
    # a long line with no log lines inside it (an engine config), and a log whose lines are short on average
    config = "INFO 12-07 06:59:02 [core.py:93] config: " + "model='/models/m', " * 60
    assert logtext.clean(config).text == config
    log = RUN_TOGETHER + "\n" + "INFO 12-07 06:59:02 [core.py:1] ok\n" * 40
    assert logtext.clean(log).text == log
