"""The command line's parser: one-line usage errors, and help laid out for the terminal's width
without shutil (whose import costs every cold start 3 ms)."""

import subprocess
import sys
from pathlib import Path

import pytest

from bot.base.errors import USAGE_EXIT, Parser


def test_help_wraps_at_columns(monkeypatch):
    p = Parser(prog="x", description="word " * 40)
    monkeypatch.setenv("COLUMNS", "40")
    assert max(len(line) for line in p.format_help().splitlines()) <= 40
    monkeypatch.setenv("COLUMNS", "200")
    assert max(len(line) for line in p.format_help().splitlines()) > 100


def test_a_usage_mistake_is_one_line(capsys):
    p = Parser(prog="x")
    p.add_argument("--n", type=int)
    with pytest.raises(SystemExit) as e:
        p.parse_args(["--n", "many"])
    assert e.value.code == USAGE_EXIT
    assert capsys.readouterr().err.count("\n") == 1


def test_diagnosing_a_file_does_not_import_shutil():
    example = Path(__file__).resolve().parents[2] / "bot" / "examples" / "engine-core-failed.log"
    code = (f"import sys, runpy; sys.argv = ['vllm-doctor', 'diagnose', {str(example)!r}]\n"
            "try:\n    runpy.run_module('bot.cli', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "print('shutil' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "False"
