"""Which releases had a vLLM module or a name in one (modules.py), and the family answer built on it."""

from __future__ import annotations

from bot.diagnose import diagnose, load_rulebook
from bot.diagnose.knowledge.vllm import index as vsrc
from bot.diagnose.knowledge.vllm import modules

IDX = vsrc.load()
BOOK = load_rulebook(use_cache=False)


def _tb(line: str, frame: str = "/opt/venv/lib/python3.11/site-packages/verl/workers/rollout.py") -> str:
    return ("Traceback (most recent call last):\n"
            f'  File "{frame}", line 3, in <module>\n'
            "    from vllm.worker.worker import Worker\n" + line + "\n")


def test_a_package_is_seen_wherever_one_of_its_modules_is():
    assert modules.module_releases(IDX, "vllm.worker") == modules.module_releases(IDX, "vllm.worker.worker")
    assert modules.module_releases(IDX, "vllm.worker")[-1] == "0.10.2"
    assert modules.module_releases(IDX, "vllm.workr") == []


def test_a_name_is_seen_in_the_releases_whose_raise_sites_it_holds():
    assert modules.name_releases(IDX, "vllm.logits_process", "NoBadWordsLogitsProcessor")[-1] == "0.30.0"
    assert modules.name_releases(IDX, "vllm.config", "NoSuchConfigZ") == []


def test_the_logs_release_after_the_last_is_gone_before_the_first_is_added_between_is_unknown():
    seen = ["0.9.2", "0.10.2"]
    assert modules.history(IDX, seen, "0.32.0")["gone_after"] == "0.11.2"
    assert modules.history(IDX, seen, "0.8.5")["added_in"] == "0.9.2"
    assert modules.history(IDX, seen, "0.10.1") is None
    assert modules.history(IDX, seen, None)["release"] is None             # gone from the newest: still said
    assert modules.history(IDX, ["0.33.0", IDX.releases[-1]], None) is None  # may still be there: unknown
    assert modules.history(IDX, [], "0.32.0") is None


def test_a_framework_importing_a_removed_module_is_answered_with_the_releases_that_had_it():
    text = "vllm                                     0.32.0\n" + _tb("ModuleNotFoundError: No module named 'vllm.worker'")
    d = diagnose(text, book=BOOK).diagnoses[0]
    assert d.rule_id == "vllm-module-gone"
    assert "0.10.2" in d.cause and "`verl`" in d.cause
    zh = diagnose(text, lang="zh", book=BOOK).diagnoses[0]
    assert "0.10.2" in zh.cause and "最后见于" in zh.cause


def test_vllms_own_import_of_its_own_module_a_bare_folder_or_a_circular_import_is_not_a_release_gap():
    inside = _tb("ModuleNotFoundError: No module named 'vllm.worker'",
                 frame="/opt/venv/lib/python3.11/site-packages/vllm/engine/llm_engine.py")
    shadow = _tb("ImportError: cannot import name 'NoBadWordsLogitsProcessor' from 'vllm.logits_process' (unknown location)")
    circular = _tb("ImportError: cannot import name 'NoBadWordsLogitsProcessor' from partially initialized module "
                   "'vllm.logits_process' (most likely due to a circular import)")
    for text in (inside, shadow, circular):
        got = [d.rule_id for d in diagnose("vllm    0.32.0\n" + text, book=BOOK).diagnoses]
        assert "vllm-module-gone" not in got, text
