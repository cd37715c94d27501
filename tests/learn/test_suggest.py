import re

from bot.diagnose.knowledge.rulebook import load_rulebook
from bot.learn.cli import main
from bot.learn.suggest import clusters, draft_id, pattern_from_signature, suggest

from tests.store.helpers import diagnose, fixture_logs, load_book, make_book, read


def test_unanswered_pastes_become_a_draft_rule_with_fixtures(recorded, tmp_path):
    out = tmp_path / "drafts"
    # a second person pastes the same LoRA failure: a cluster of two, both caught by the shadow rule
    lora = read(fixture_logs("lora-rank-too-large")[-1])
    recorded.store.record_diagnosis(diagnose(lora, recorded.book), source="cli", text=lora)
    with recorded.store.session() as s:
        drafts, skipped = suggest(s, out, min_count=2, rulebook=recorded.book)

    # the five kv-cache pastes (vLLM 0.7 to 0.30, three different tails) are one failure
    [draft] = drafts
    assert draft.cluster.count == len(recorded.ids["kv-cache-no-memory"]) == 5
    assert draft.id.startswith("draft-no-available-memory-for-the-")
    assert draft.matches == 5
    # the lora pastes were unanswered too, but a shadow rule is already proving itself on them
    assert [s.reason for s in skipped] == ["rule lora-rank-too-large (shadow) now matches these lines"]
    with recorded.store.session() as s:     # without a rule book, what was recorded says the same
        _, skipped = suggest(s, tmp_path / "other", rulebook=None)
    assert [s.reason for s in skipped] == ["shadow rule lora-rank-too-large already matched all 2"]

    # the draft is a valid rule file, shadow, with the work left for a person
    book = load_rulebook(out / "rules", use_cache=False)
    assert book.errors == []
    rule = book.rules[draft.id]
    assert rule.status == "shadow" and rule.title["en"].startswith("TODO")
    assert rule.pattern_sources == [r"ValueError: No available memory for the cache blocks"]
    yaml_text = draft.rule_path.read_text()
    assert "5 unanswered pastes" in yaml_text and "# signature: ValueError: No available memory" in yaml_text
    # prefilled from vLLM's source: where it is raised, the releases that have it, the check
    # (the pastes come from vLLM 0.7 to 0.30: two wordings, two places, one range of releases)
    assert yaml_text.count("# From vLLM's source") == 2 and "kv_cache_utils.py" in yaml_text
    # (0.34.0 words the message with another hint: none of these pastes' wordings is in it)
    assert rule.versions == ">=0.5.5,<0.34.0"
    assert "(vLLM's check)" in rule.cause["en"] and "TODO" in rule.cause["en"]

    # fixtures: real, redacted lines with their source, and the drafted rule finds its own fixtures
    assert len(draft.fixture_paths) == 5
    combined = load_book(make_book(tmp_path / "with-draft"))
    combined.rules[draft.id] = rule
    for path in draft.fixture_paths:
        text = path.read_text(encoding="utf-8")
        assert text.count("#=SOURCE=#") == 1 and text.count("#=EXPECT=#") == 1
        assert text.startswith("#=SOURCE=# vllm-doctor store, diagnosis ")
        assert f"#=EXPECT=# {draft.id}\n" in text
        assert "No available memory for the cache blocks" in text
        assert draft.id in [d.rule_id for d in diagnose(text, combined).shadow]


def test_running_suggest_again_rewrites_the_same_drafts(recorded, tmp_path):
    out = tmp_path / "drafts"
    with recorded.store.session() as s:
        first, _ = suggest(s, out, rulebook=recorded.book)
        second, _ = suggest(s, out, rulebook=recorded.book)
    assert [d.id for d in first] == [d.id for d in second]
    assert sorted(p.name for p in out.rglob("*.log")) == sorted(p.name for p in second[0].fixture_paths)


def test_a_failure_a_rule_now_covers_gets_no_draft(recorded, tmp_path):
    book = load_book(make_book(tmp_path / "rules", extra={"kv-cache-no-memory": {}}))
    with recorded.store.session() as s:
        drafts, skipped = suggest(s, tmp_path / "drafts", rulebook=book)
    assert drafts == []
    assert any("rule kv-cache-no-memory (active) now matches" in s.reason for s in skipped)


def test_min_count(recorded, tmp_path):
    with recorded.store.session() as s:
        assert [c.count for c in clusters(s)][0] == 5
        assert sum(c.count for c in clusters(s)) == sum(
            len(recorded.ids[k]) for k in ("kv-cache-no-memory", "lora-rank-too-large"))
        drafts, _ = suggest(s, tmp_path / "drafts", min_count=6, rulebook=recorded.book)
    assert drafts == []


def test_suggest_command(recorded, tmp_path, capsys, monkeypatch):
    out = tmp_path / "review"
    monkeypatch.setenv("VLLM_DOCTOR_RULES", str(recorded.rules_dir))     # the test's book instead of the shipped one
    assert main(["suggest", "--db", recorded.url, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "(5 pastes, 5 fixture(s), pattern finds 5)" in printed
    assert len(list((out / "rules").glob("draft-*.yaml"))) == 1
    assert len(list((out / "tests" / "fixtures" / "logs").glob("draft-*/*.log"))) == 5


def test_pattern_keeps_the_stable_part_escaped():
    sig = "RuntimeError: NCCL error in: <path>:<num>, unhandled cuda error (run with NCCL_DEBUG=INFO for details)"
    pattern = pattern_from_signature(sig)
    assert pattern == r"RuntimeError: NCCL error in: .+?:.+?, unhandled cuda error \(run with NCCL_DEBUG=INFO for details\)"
    raw = ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda "
           "error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5")
    assert re.search(pattern, raw)
    assert pattern_from_signature("<path> <num>") == ""
    long = "ValueError: " + " ".join(f"word{i}" for i in range(80))
    assert len(pattern_from_signature(long)) <= 160
    assert re.fullmatch(r"draft(-[a-z0-9]+)+", draft_id(sig))
    assert draft_id(sig) != draft_id(sig.replace("cuda", "system"))


def test_a_draft_from_vllms_source_captures_the_templates_values_and_names_the_settings(tmp_path):
    from bot.learn.suggest import from_source, template_pattern
    from bot.diagnose.knowledge.vllm import index
    paste = ("ValueError: max_num_batched_tokens (2048) is smaller than max_model_len (8192). This effectively "
             "limits the maximum sequence length to max_num_batched_tokens and makes vLLM reject longer sequences.")
    src = from_source([paste])
    assert re.search(src["pattern"], paste).groupdict() == {"max_num_batched_tokens": "2048", "max_model_len": "8192"}
    assert "`--max-num-batched-tokens` / `LLM(max_num_batched_tokens=…)`" in src["fix"]["en"]
    assert "`max_num_batched_tokens` is less than `max_model_len`" in src["cause"]["en"]
    assert "小于" in src["cause"]["zh"]
    assert from_source(["RuntimeError: something no vLLM release says"]) == {}
    site = index.load().match("ValueError: Load format `x` is not supported")[0].site
    assert template_pattern(site.parts) == r"Load format \`(?P<load_format>.{1,200}?)\` is not supported"

