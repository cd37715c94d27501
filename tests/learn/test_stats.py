import json
import re

import pytest

from bot.learn.cli import main
from bot.learn.stats import compute, wilson


def test_wilson_interval_matches_the_textbook():
    # 8 successes in 10: 95% Wilson interval 0.490-0.943 (Newcombe 1998, table I)
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0) is None
    low, high = wilson(2, 2)
    assert high == 1.0 and low < 0.4          # two votes prove little


def test_stats_per_rule(recorded):
    with recorded.store.session() as s:
        stats = compute(s, recorded.book, wrong_threshold=0.3, min_feedback=3)
    by_id = {r.rule_id: r for r in stats.rules}
    assert stats.diagnoses == sum(len(v) for v in recorded.ids.values())
    assert stats.answered == 3 + 3 + 3           # cuda-oom, bf16, config-json-missing pastes

    oom = by_id["cuda-oom"]
    assert (oom.hits, oom.fixed, oom.wrong, oom.partly) == (3, 3, 0, 1)   # U1's later vote counts once
    assert oom.precision == pytest.approx(3.5 / 4)
    assert (oom.precision_low, oom.precision_high) == pytest.approx(wilson(3.5, 4))
    assert oom.flagged is False

    bf16 = by_id["bf16-unsupported-gpu"]
    assert (bf16.hits, bf16.wrong, bf16.votes) == (3, 3, 3)
    assert bf16.flagged and "wrong in 3 of 3" in bf16.flag_reason
    assert bf16.outside_versions == {"0.5.4": 1}           # the test book says ">=0.6"
    assert stats.flagged == [bf16]

    lora = by_id["lora-rank-too-large"]
    assert lora.status == "shadow" and lora.hits == 0
    assert (lora.shadow.matched, lora.shadow.would_be_first, lora.shadow.fills_gap) == (3, 3, 3)

    assert by_id["config-json-missing"].hits == 3 and by_id["config-json-missing"].precision is None


def test_threshold_and_minimum_votes_decide_the_flag(recorded):
    with recorded.store.session() as s:
        assert compute(s, recorded.book, min_feedback=4).flagged == []
        lenient = compute(s, recorded.book, wrong_threshold=1.0)
        assert lenient.flagged == []


def test_rules_no_longer_in_the_book_are_reported(recorded, tmp_path):
    from bot.diagnose.knowledge.rulebook import load_rulebook
    from tests.store.helpers import make_book

    smaller = tmp_path / "smaller"
    make_book(smaller)
    (smaller / "cuda-oom.yaml").unlink()
    with recorded.store.session() as s:
        stats = compute(s, load_rulebook(smaller, use_cache=False))
    assert {r.rule_id: r.status for r in stats.rules}["cuda-oom"] == "missing"


def test_stats_command_table_and_json(recorded, capsys, monkeypatch):
    monkeypatch.setenv("VLLM_DOCTOR_RULES", str(recorded.rules_dir))     # the test's book instead of the shipped one
    args = ["--db", recorded.url]
    assert main(["stats", *args]) == 0
    out = capsys.readouterr().out
    assert "FLAGGED: wrong in 3 of 3 votes" in out
    assert "hit outside versions >=0.6: 0.5.4 (1)" in out
    assert "lora-rank-too-large" in out and "shadow rule" in out

    assert main(["stats", "--json", "--wrong-threshold", "0.5", "--min-feedback", "2", *args]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["flagged"] == ["bf16-unsupported-gpu"] and data["wrong_threshold"] == 0.5
    oom = next(r for r in data["rules"] if r["rule_id"] == "cuda-oom")
    assert oom["votes"] == 4 and oom["fixed"] == 3


def test_stats_command_on_a_database_that_was_never_migrated(sqlite_url, capsys):
    # The command line's one convention (bot/errors.py): it could not do what was asked, exit 2.
    assert main(["stats", "--db", sqlite_url]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("vllm-doctor rules stats: ") and "vllm-doctor db upgrade" in line


def test_stats_command_on_an_unreachable_database_is_one_line(capsys):
    assert main(["stats", "--db", "postgresql://postgres:hunter2@127.0.0.1:1/vd"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("vllm-doctor rules stats: cannot read postgresql+psycopg://postgres:***@127.0.0.1:1/vd")
    assert "hunter2" not in line


def test_bad_options_are_usage_errors(capsys):
    assert main(["stats", "--wrong-threshold", "2"]) == 2
    assert "between 0 and 1" in capsys.readouterr().err
    assert main(["stats", "--min-feedback", "many"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line == ("vllm-doctor rules stats: argument --min-feedback: 'many' is not a whole number "
                    "(see vllm-doctor rules stats --help)")


def test_stats_show_each_rules_pack(recorded, capsys):
    from pathlib import Path

    pack = Path(__file__).resolve().parents[2] / "deploy" / "rule-pack-example" / "rules"
    assert main(["stats", "--json", "--db", recorded.url, "--rules", str(pack)]) == 0
    rules = {r["rule_id"]: r for r in json.loads(capsys.readouterr().out)["rules"]}
    assert rules["slurm-time-limit"]["pack"] == "acme-gpu" and rules["cuda-oom"]["pack"] == "shipped"
    assert main(["stats", "--db", recorded.url, "--rules", str(pack)]) == 0
    assert re.search(r"^cuda-oom\s+shipped\s+\d", capsys.readouterr().out, re.M)


def test_precision_dropping_compares_recent_votes_with_earlier_ones(recorded):
    """cuda-oom: 3.5 of 4 votes good on the stored pastes; seen from 60 days later, those are the
    earlier ones, and three fresh pastes all voted wrong make the recent window."""
    import datetime as dt

    from tests.store.helpers import diagnose, fixture_logs, read

    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=60)
    store = recorded.store
    with store.session() as s:
        before = {r.rule_id: r for r in compute(s, recorded.book, now=later).rules}["cuda-oom"]
    assert before.precision_dropping is False and before.recent_votes == 0
    assert before.last_hit is not None and before.last_hit <= dt.datetime.now(dt.timezone.utc)

    text = read(fixture_logs("cuda-oom")[0])
    for i in range(3):
        new = store.record_diagnosis(diagnose(text, recorded.book), source="slack", text=text)
        store.record_feedback(new, "wrong", user=f"U9{i}")
    with store.session() as s:
        # "now" is today: the 4 old votes and the 3 new ones are all recent; nothing to compare
        assert not {r.rule_id: r for r in compute(s, recorded.book).rules}["cuda-oom"].precision_dropping
    from bot.store.models import Diagnosis
    from sqlalchemy import update
    with store.session() as s:          # the first pastes were stored 60 days earlier
        s.execute(update(Diagnosis).where(Diagnosis.id.in_(recorded.ids["cuda-oom"]))
                  .values(created_at=dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=60)))
    with store.session() as s:
        oom = {r.rule_id: r for r in compute(s, recorded.book).rules}["cuda-oom"]
    assert (oom.earlier_precision, oom.recent_precision, oom.recent_votes) == (3.5 / 4, 0.0, 3)
    assert oom.precision_dropping is True


def test_one_rules_statistics_are_the_same_as_among_all(recorded):
    with recorded.store.session() as s:
        everything = {r.rule_id: r for r in compute(s, recorded.book).rules}
        for rule_id in ("cuda-oom", "bf16-unsupported-gpu", "lora-rank-too-large", "config-json-missing"):
            [alone] = compute(s, recorded.book, only=rule_id).rules
            assert alone == everything[rule_id]
