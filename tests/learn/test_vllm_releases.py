"""What each vLLM release changed (bot/learn/vllm_releases.py), on two small releases written here:
a message reworded in its place, one gone, one new, and the rules each leaves behind."""

from __future__ import annotations

import textwrap

import pytest

from bot.diagnose.knowledge.rulebook import load_rulebook
from bot.diagnose.knowledge.vllm import index
from bot.diagnose.knowledge.vllm.build import wheels
from bot.learn import vllm_map
from bot.learn.vllm_releases import history
from tests.diagnose.knowledge.vllm.build.test_wheels import write_wheel

OLD = '''
def check(config):
    if config.block_size > 32:
        raise ValueError(f"Block size {config.block_size} is too large for this attention backend")
    raise ValueError("Engine core did not start within the timeout; raise the timeout")

def legacy(config):
    raise RuntimeError("The legacy scheduler cannot run with chunked prefill enabled")
'''
NEW = '''
def check(config):
    if config.block_size > 32:
        raise ValueError(f"block_size={config.block_size} exceeds the largest block this backend supports")
    raise ValueError("Engine core did not start within the timeout; raise the timeout")

def speculative(config):
    raise ValueError("Speculative decoding needs the path of a draft model")
'''


def rule(rule_id: str, pattern: str, versions: str | None = None) -> str:
    """A rule file of one pattern (and the vLLM releases it is written for, when given)."""
    text = textwrap.dedent(f'''\
        id: {rule_id}
        level: root
        title: {{en: "{rule_id}", zh: "{rule_id}"}}
        match:
          patterns: ['{pattern}']
        cause: {{en: "Why.", zh: "原因。"}}
        fix: {{en: "What to do.", zh: "怎么办。"}}
        ''')
    return text + (f'versions: "{versions}"\n' if versions else "")


@pytest.fixture(scope="module")
def changes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("releases")
    built = [wheels.extract(write_wheel(tmp, v, {"vllm/config.py": text})) for v, text in (("0.1.0", OLD), ("0.2.0", NEW))]
    out = tmp / "index.json.gz"
    wheels.write(wheels.merge(built), out)
    idx = index.load(out)
    rules = tmp / "rules"
    rules.mkdir()
    for rid, pattern, versions in (("block-size-too-large", r"Block size \d+ is too large", ">=0.1"),
                                   ("engine-timeout", "Engine core did not start", ">=0.1"),
                                   ("legacy-scheduler", "legacy scheduler cannot run", ">=0.1,<0.2")):
        (rules / f"{rid}.yaml").write_text(rule(rid, pattern, versions), encoding="utf-8")
    book = load_rulebook(rules, packs=[], use_cache=False)
    assert book.errors == []
    vllm_map.write(book, idx, None)         # the rule book's map, as `rules sources` writes it
    return history(idx, book)


def test_a_release_against_the_one_before(changes):
    assert [r.version for r in changes.releases] == ["0.1.0", "0.2.0"] and changes.releases[0].previous is None
    r = changes.release("0.2.0")
    assert [(old.template[:10], new.template[:10]) for old, new in r.changed] == [("Block size", "block_size")]
    assert [s.template for s in r.gone] == ["The legacy scheduler cannot run with chunked prefill enabled"]
    assert [s.template for s in r.new] == ["Speculative decoding needs the path of a draft model"]
    assert r.counts == {"new": 1, "changed": 1, "gone": 1, "drift": 2}


def test_rules_left_behind(changes):
    r = changes.release("0.2.0")
    drift = {d.rule_id: d for d in r.drift}
    # its pattern does not match the reworded message, which the rule run over it shows
    reworded = drift["block-size-too-large"]
    assert reworded.new.template.startswith("block_size=") and not reworded.nearest
    assert reworded.message.startswith("ValueError: block_size=")
    assert drift["legacy-scheduler"].new is None            # gone, nothing reads like it
    assert "engine-timeout" not in drift                    # its message did not change
    assert r.ending == ["legacy-scheduler"]
    assert changes.stale_versions == [("legacy-scheduler", ">=0.1,<0.2", "0.1.0")]


def test_the_shipped_index_and_rule_book():
    h = history(index.load(), load_rulebook())
    newest = h.release(h.newest)
    assert newest.previous and newest.counts["new"] > 100 and newest.counts["changed"] > 10
    # 0.34.0 no longer says "Unknown speculative decoding method": spec-decode-unsupported's patterns
    # match none of its new wordings
    assert "spec-decode-unsupported" in {d.rule_id for d in h.release("0.34.0").drift}
    assert {rid for rid, _, _ in h.stale_versions} >= {"bnb-prequant-tensor-parallel", "mm-limit-on-text-model"}
