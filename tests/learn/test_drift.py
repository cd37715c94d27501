"""Rules left behind by vLLM's rewording (bot/learn/drift.py), on two small releases written here:
a message reworded in its place that its rule no longer matches, one reworded that it still does,
a message gone with its twin raised elsewhere from the next release on, another check beside a
rule's message (reviewed), a literal turned into a placeholder, and a rule that matches a message
only through a filled-in error; then the shipped rule book against the shipped index."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.diagnose.knowledge.rulebook import load_rulebook
from bot.diagnose.knowledge.rulebook.packs import fixtures_beside
from bot.diagnose.knowledge.vllm import index, rulebook_map
from bot.diagnose.knowledge.vllm.build import wheels
from bot.learn import drift, vllm_map
from tests.diagnose.knowledge.vllm.build.test_wheels import write_wheel
from tests.learn.test_vllm_releases import rule

OLD = '''
def check_shm(shm_path, required_size, free_size):
    if required_size > free_size:
        raise RuntimeError(f"Insufficient space in {shm_path}: {required_size} MiB required, {free_size} MiB free.")

def check_rank(lora, config):
    if lora.rank > config.max_lora_rank:
        raise ValueError(f"LoRA rank {lora.rank} is greater than max_lora_rank {config.max_lora_rank}.")

def start(err):
    raise RuntimeError(f"Engine core initialization failed with {err}. See the root cause above for details.")

def attention(kv_cache_dtype):
    if kv_cache_dtype.startswith("fp8"):
        raise NotImplementedError("FlashAttention does not support fp8 kv-cache on this device.")
'''
RUNNER_OLD = '''
def pick_drafter(method):
    raise ValueError(f"Unknown speculative decoding method: {method}")
'''
NEW = '''
def check_shm(shm_path, allocation_name, required_size, free_size):
    if required_size > free_size:
        raise RuntimeError(f"Insufficient space in {shm_path} for {allocation_name}: {required_size} MiB required, {free_size} MiB free.")

def check_rank(lora, config):
    if lora.rank > config.max_lora_rank:
        raise ValueError(f"LoRA rank {lora.rank} exceeds max_lora_rank {config.max_lora_rank}.")
    if lora.extra_vocab_size > config.lora_extra_vocab_size:
        raise ValueError(f"LoRA added vocab size {lora.extra_vocab_size} is greater than lora_extra_vocab_size {config.lora_extra_vocab_size}.")

def start(err):
    raise RuntimeError(f"Engine core initialization failed with {err}. See the root cause above for details.")

def attention(kv_cache_dtype):
    if kv_cache_dtype.startswith("fp8"):
        raise NotImplementedError(f"FlashAttention does not support {kv_cache_dtype} kv-cache on this device.")
'''
SPECULATOR_NEW = '''
def get_method_config_class(method):
    raise ValueError(f"Unknown speculative method: '{method}'")
'''


RULES = {
    # anchored on the old wording: 0.2.0's "for <allocation>" slips past it
    "shm-too-small": r"Insufficient space in \S+: (?P<needed>\d+) MiB required",
    # widened already: matches both wordings of the rank check
    "lora-rank-too-large": r"LoRA rank \d+ (?:is greater than|exceeds) max_lora_rank",
    # the runner's message moved to another file in 0.2.0 and was reworded
    "spec-decode-unsupported": r"Unknown speculative decoding method: (?P<method>\S+)",
    # the dtype became a placeholder in 0.2.0: the new wording, read over the old message, says fp8
    "fp8-kv-cache-unsupported": r"FlashAttention does not support (?P<kv_dtype>fp8\w*) kv-cache",
    # an error inside `{err}`: a synthesised "CUDA error: ..." would match, the site is not its own
    "cuda-error": r"CUDA error: (?P<what>[a-z ]+)",
}
REVIEWED = """
lora-rank-too-large:
  - new: "LoRA added vocab size"
    why: "another limit, not the rank"
"""


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("drift")
    built = [wheels.extract(write_wheel(tmp, v, files)) for v, files in (
        ("0.1.0", {"vllm/distributed/shm.py": OLD, "vllm/v1/worker/runner.py": RUNNER_OLD}),
        ("0.2.0", {"vllm/distributed/shm.py": NEW, "vllm/v1/worker/speculator_config.py": SPECULATOR_NEW}))]
    out = tmp / "index.json.gz"
    wheels.write(wheels.merge(built), out)
    idx = index.load(out)
    rules = tmp / "rules"
    rules.mkdir()
    for rid, pattern in RULES.items():
        (rules / f"{rid}.yaml").write_text(rule(rid, pattern), encoding="utf-8")
    (rules / drift.REVIEWED).write_text(REVIEWED, encoding="utf-8")
    book = load_rulebook(rules, packs=[], use_cache=False)
    assert book.errors == []
    book_map = vllm_map.build(book, idx, None)      # the rule book's map, as `rules sources` writes it
    return drift.find(idx, book, book_map, None, drift.load_reviewed(rules))


def by_rule(found, rule_id):
    return [f for f in found if f.rule_id == rule_id]


def test_a_reworded_message_its_rule_no_longer_matches(found):
    [f] = by_rule(found, "shm-too-small")
    assert f.open and not f.matched and f.kind == "continues" and f.near == "function"
    assert f.old.releases == ["0.1.0"] and f.new.releases == ["0.2.0"]
    assert "for {allocation_name}" in f.new.template and f.score >= drift.SAME_PLACE


def test_a_message_gone_whose_twin_another_file_raises_from_the_next_release(found):
    [f] = by_rule(found, "spec-decode-unsupported")
    assert f.open and f.near == "next release" and f.new.template.startswith("Unknown speculative method")


def test_a_rewording_the_rule_still_matches_and_a_reviewed_other_check(found):
    # "exceeds" is the rule's own already (its pattern takes both wordings): not a twin to report
    assert [f.new.template.split(" {")[0] for f in by_rule(found, "lora-rank-too-large")] == ["LoRA added vocab size"]
    [other] = by_rule(found, "lora-rank-too-large")
    assert other.reviewed == "another limit, not the rank" and not other.matched and not other.open
    # a value turned into a placeholder: the synthesis may fill another dtype, the old message says fp8
    [fp8] = by_rule(found, "fp8-kv-cache-unsupported")
    assert fp8.matched and not fp8.open and "{kv_cache_dtype}" in fp8.new.template


def test_a_match_inside_a_filled_in_error_is_not_the_rules_message(found):
    assert by_rule(found, "cuda-error") == []


def test_the_report_says_rule_old_and_new_wording_releases_and_whether_a_pattern_matches(found):
    text = "\n".join(drift.report(found))
    assert "shm-too-small: continues" in text and "NO PATTERN MATCHES THE NEW WORDING" in text
    assert "old (0.1.0): RuntimeError: Insufficient space in {shm_path}:" in text
    assert "new (0.2.0): RuntimeError: Insufficient space in {shm_path} for {allocation_name}:" in text
    assert "lora-rank-too-large" not in text                 # matched or reviewed: only with --all
    everything = "\n".join(drift.report(found, show_all=True))
    assert "a pattern matches the new wording" in everything and "reviewed: another limit" in everything
    assert drift.unused_reviews({"lora-rank-too-large": [{"new": "LoRA dropout", "why": "-"}]}, found) == \
        ["lora-rank-too-large: LoRA dropout"]


def test_the_shipped_rule_book_has_no_unexplained_drift():
    book = load_rulebook(use_cache=False)
    reviewed = drift.load_reviewed(book.directory)
    found = drift.find(index.load(), book, rulebook_map.load(book.directory), Path(fixtures_beside(book.directory)),
                       reviewed)
    assert drift.report(found) == []
    assert drift.unused_reviews(reviewed, found) == []
    # the rewordings fixed in the rules, by the check that found them
    matched = {(f.rule_id, f.new.template[:30]) for f in found if f.matched}
    assert ("prompt-too-long", "The {prompt_type} prompt (leng") in matched
    # weights-key-mismatch's 0.15+ wording ("... The available parameters belonging to ...") was such a rewording
    # until a real 0.26 run became its fixture: the map now holds it as the rule's own site
    assert not any(rule == "weights-key-mismatch" for rule, _ in matched)
