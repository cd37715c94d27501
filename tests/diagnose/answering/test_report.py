import re
from pathlib import Path


def test_verified_on_another_minor_says_which_was_verified_and_which_the_log_is():
    from bot.diagnose.answering.report import verified_line
    v = {"vllm": "0.33.0", "source": "vllm source"}
    assert verified_line(v, "en") == "Verified on vLLM 0.33.0 (from vLLM's source)."
    assert verified_line(v, "en", "0.33.1") == "Verified on vLLM 0.33.0 (from vLLM's source)."
    other = verified_line(v, "en", "0.32.0+cpu", ">=0.5")
    assert other.startswith("This rule was verified on vLLM 0.33.0") and "Your log is vLLM 0.32.0" in other
    # outside the rule's versions nothing claims it holds there
    assert "Your log" not in verified_line(v, "en", "0.4.0", ">=0.5")


# A lower-case English word standing alone (not part of a name such as llama.cpp, kohya_ss or nccl-tests),
# outside backticks: prose a Chinese reader should not get. pip and conda are names.
_PROSE = re.compile(r"(?<![\w.'/-])[a-z]{2,}(?![\w.'/-])")
_LOWER_NAMES = {"pip", "conda"}


def _prose(text: str) -> set[str]:
    return set(_PROSE.findall(re.sub(r"`[^`]*`", "", text))) - _LOWER_NAMES


def test_every_other_program_reads_in_chinese_or_is_a_plain_name():
    from bot.diagnose.answering.report import program_name
    from bot.diagnose.reading.facts import foreign_context, markers, other_programs
    from bot.learn import fixtures
    described = {name for name, *_ in (*markers._FOREIGN, *markers._OTHER_MODES, *markers._FOREIGN_RUNNERS,
                                       *other_programs._FOREIGN_SHAPES, *other_programs._PROGRAM_SIGNS)}
    for path in sorted(Path("tests/fixtures/logs").rglob("*.log")):
        data = fixtures.read(path).data
        described.add(foreign_context(data.decode("utf-8", "replace") if isinstance(data, bytes) else data)[0])
    described.discard(None)
    untold = sorted(d for d in described if _prose(d) and program_name(d, "zh").strip() == d)
    assert not untold, untold
    # the loader's and the package's shapes keep the name and say the rest in Chinese
    assert program_name("`autotrain` (a package that is neither vLLM nor the stack beneath it)", "zh") \
        == " `autotrain`（既不是 vLLM 也不是其下层软件栈的包）"
    assert program_name("SGLang", "zh") == " SGLang" and program_name("SGLang", "en") == "SGLang"


def test_not_vllm_verdict_in_chinese_has_no_english_prose():
    from bot.diagnose import diagnose
    paste = ('Traceback (most recent call last):\n'
             '  File "/home/u/app/main.py", line 10, in <module>\n    run()\n'
             '  File "/home/u/app/worker.py", line 5, in run\n    load()\n'
             'RuntimeError: the checkpoint shard is missing\n')
    en, zh = diagnose(paste, "en"), diagnose(paste, "zh")
    assert "a Python program that is not vLLM" in en.next_step
    assert "来自一个不是 vLLM 的 Python 程序（它的 traceback 里没有 vLLM 的帧）" in zh.next_step
    assert _prose(zh.next_step) <= {"traceback"}, zh.next_step


def test_fill_keeps_a_capability_or_version_as_the_log_wrote_it():
    """A count printed as a float loses its `.0`; a compute capability or CUDA version keeps it (the bf16 refusal
    of a V100 said "compute capability 7." before)."""
    from bot.diagnose.answering.report import fill
    out = fill("cc {cc}, CUDA {cuda}, {tokens} tokens, {seqs} seqs", {"cc": "7.0", "cuda": "12.0", "tokens": "2048.0", "seqs": "256.0"})
    assert out == "cc 7.0, CUDA 12.0, 2048 tokens, 256 seqs"
