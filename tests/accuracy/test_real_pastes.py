"""The set of real pastes the rule book was not written from (real_pastes.yaml): well formed, and
no answer on it is wrong. The figures themselves: `python tests/accuracy/measure.py`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.diagnose import load_rulebook
from bot.learn.fixtures import read
from tests.accuracy.measure import MANIFEST, ROOT, figures, load, run

CASES = load(MANIFEST)


@pytest.fixture(scope="module")
def results():
    return run(CASES)


def test_every_case_is_a_real_paste_with_its_source_and_expectation():
    rules = set(load_rulebook().rules) | {"none"}
    for c in CASES:
        path = ROOT / c.file
        assert path.is_file(), c.file
        fx = read(path)
        assert fx.source.startswith("https://"), f"{c.file}: #=SOURCE=# must be the thread's address"
        assert (fx.expect or "none") == c.expect, f"{c.file}: #=EXPECT=# and the manifest disagree"
        assert {c.expect, *c.accept} <= rules, f"{c.file}: names a rule the book does not have"
        assert c.cause, f"{c.file}: say what the thread shows"


def test_a_thread_a_rule_cites_is_marked():
    # The headline figures are on threads the rule book was not written from: a rule that starts
    # citing a thread of the set (or stops) must be reflected in `cited_by`.
    cited: dict[str, set[str]] = {}
    for rule in sorted((ROOT / "rules").glob("*.yaml")):
        for url in re.findall(r"https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+", rule.read_text()):
            cited.setdefault(url, set()).add(rule.stem)
    for c in CASES:
        found = re.search(r"https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+", read(ROOT / c.file).source)
        want = sorted(cited.get(found.group(0), ())) if found else []
        assert sorted(c.cited_by) == want, f"{c.file}: cited_by should be {want}"


def test_a_case_among_the_fixtures_sits_under_its_rule():
    for c in CASES:
        parts = Path(c.file).parts
        if parts[:3] == ("tests", "fixtures", "logs"):
            assert parts[3] == ("_negative" if c.expect == "none" else c.expect), c.file


def test_every_paste_kept_outside_the_fixtures_is_in_the_set():
    named = {c.file for c in CASES}
    for path in sorted((ROOT / "tests/accuracy/pastes").glob("*.log")):
        assert str(path.relative_to(ROOT)) in named, path.name


def test_no_answer_on_the_real_pastes_is_wrong(results):
    wrong = [f"{Path(r.case.file).name}: answered {r.got} ({r.why})" for r in results if r.outcome == "wrong"]
    assert not wrong, "\n".join(wrong)


def test_the_figures_add_up(results):
    f = figures(results)
    assert f["right"] + f["weaker"] + f["wrong"] + f["unsure"] + f["missed"] == f["cases"] == len(CASES)
    assert f["precision"] == 1.0
