from types import SimpleNamespace

from bot.diagnose.answering.rank import rank
from bot.diagnose.knowledge import Candidate
from bot.diagnose.reading.tracebacks import Message


def _cand(rule_id: str, line: int, supersedes: list[str]) -> Candidate:
    rule = SimpleNamespace(id=rule_id, level="hint", supersedes=supersedes, pointer=False)
    return Candidate(rule, Message(line, rule_id), line, 0.75, "pattern")


def test_supersedes_is_followed_through_a_chain_whatever_the_lines_order():
    # ray-worker-died supersedes worker-died, which supersedes shm-broadcast-stall: with the stall first in the log,
    # one pass moved worker-died above the stall after ray-worker-died's turn had passed, and it stayed first
    cands = [_cand("shm-broadcast-stall", 48, []), _cand("ray-worker-died", 53, ["worker-died"]),
             _cand("worker-died", 54, ["shm-broadcast-stall"])]
    assert [c.rule.id for c in rank(cands)] == ["ray-worker-died", "worker-died", "shm-broadcast-stall"]


def test_two_rules_that_supersede_each_other_do_not_loop():
    cands = [_cand("a", 1, ["b"]), _cand("b", 2, ["a"])]
    assert sorted(c.rule.id for c in rank(cands)) == ["a", "b"]
