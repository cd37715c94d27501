import textwrap

import pytest

from bot.diagnose.knowledge import rulebook
from bot.diagnose.knowledge.rulebook.book import required_literal


def write(tmp_path, name, body):
    d = tmp_path / "r"
    d.mkdir(exist_ok=True)
    (d / f"{name}.yaml").write_text(textwrap.dedent(body))
    return d


GOOD = """
    id: ok-rule
    level: root
    title: {en: t, zh: t}
    match: {patterns: ['abc']}
    cause: {en: c, zh: c}
    fix: {en: f, zh: f}
"""


@pytest.mark.parametrize("change, expected", [
    (("level: root", "level: fatal"), "ok-rule.yaml: level:"),
    (("id: ok-rule", "id: other-rule"), "id: 'other-rule' differs from the file name"),
    (("patterns: ['abc']", "patterns: ['ab(c']"), "match.patterns[0]: does not compile"),
    (("fix: {en: f, zh: f}", "fix: {en: f}"), "fix.zh: missing or empty"),
    (("cause: {en: c, zh: c}", "cause: {en: c, zh: c}\n    colour: red"), "unknown field(s) ['colour']"),
    (("match: {patterns: ['abc']}", "match: {patterns: ['abc'], when: {gpu_count: 2}}"), "match.when.gpu_count: unknown fact"),
    (("match: {patterns: ['abc']}", "match: {patterns: ['abc']}\n    versions: 'latest'"), "versions: 'latest' is not a PEP 440"),
    (("fix: {en: f, zh: f}", "fix: {en: '[vllm latest] f', zh: '[vllm latest] f'}"), "fix.en: guard '[vllm latest]': 'latest' is not a PEP 440"),
    (("fix: {en: f, zh: f}", "fix: {en: '[vLLM >=0.7] f', zh: '[vLLM >=0.7] f'}"), "must read [vllm SPECIFIER]"),
    (("fix: {en: f, zh: f}", "fix: {en: '[vllm >=0.7]', zh: '[vllm >=0.7]'}"), "guards an empty paragraph"),
    (("fix: {en: f, zh: f}", "fix: {en: 'f [vllm >=0.7] g', zh: 'f'}"), "must start its paragraph"),
    (("cause: {en: c, zh: c}", "cause: {en: '[vllm >=0.7] c', zh: 'c'}"), "cause: the en and zh texts guard different releases"),
    (("match: {patterns: ['abc']}", "match: {patterns: ['abc'], cleared_by: 'done'}"), "only for a hint or a wrapper"),
    (("match: {patterns: ['abc']}", "match: {patterns: ['abc'], cleared_before: 'next'}"), "only beside cleared_by"),
    (("level: root\n    title", "level: hint\n    title"), None),
])
def test_errors_name_file_and_field(tmp_path, change, expected):
    if expected is None:
        # a hint's cleared_by must compile too
        change = ("match: {patterns: ['abc']}", "match: {patterns: ['abc'], cleared_by: 'do(ne'}")
        expected = "match.cleared_by: does not compile"
        d = write(tmp_path, "ok-rule", GOOD.replace("level: root", "level: hint").replace(*change))
    else:
        d = write(tmp_path, "ok-rule", GOOD.replace(*change))
    book = rulebook.load_rulebook(d, use_cache=False)
    assert not book.rules
    assert len(book.errors) == 1 and expected in book.errors[0], book.errors


def test_bad_yaml_does_not_stop_the_others(tmp_path):
    d = write(tmp_path, "ok-rule", GOOD)
    (d / "broken.yaml").write_text("id: [unclosed\n")
    book = rulebook.load_rulebook(d, use_cache=False)
    assert list(book.rules) == ["ok-rule"]
    assert book.errors[0].startswith("broken.yaml: not valid YAML")


def test_cache_is_used_and_invalidated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    d = write(tmp_path, "ok-rule", GOOD)
    first = rulebook.load_rulebook(d)
    assert list((tmp_path / "cache" / "vllm-doctor").glob("rulebook-*.marshal"))
    second = rulebook.load_rulebook(d)
    assert second.version == first.version and second.rules["ok-rule"].patterns[0].pattern == "abc"
    (d / "ok-rule.yaml").write_text(textwrap.dedent(GOOD.replace("'abc'", "'abcd'")))
    third = rulebook.load_rulebook(d)
    assert third.version != first.version and third.rules["ok-rule"].patterns[0].pattern == "abcd"


def test_the_cached_book_is_the_validated_one(tmp_path, monkeypatch):
    # the cache hands its rules over unchecked (checked when they were validated), their cause and fix still
    # marshalled: read, every field is what validating the files gives
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    validated = rulebook.load_rulebook(use_cache=False)
    rulebook.load_rulebook()
    cached = rulebook.load_rulebook()
    assert list(cached.rules) == list(validated.rules) and cached.version == validated.version
    rule = cached.rules["cuda-oom"]
    assert isinstance(rule.__dict__["cause"], bytes) and isinstance(rule.__dict__["fix"], bytes)
    assert rule.cause == validated.rules["cuda-oom"].cause and isinstance(rule.__dict__["cause"], dict)
    for rule_id, rule in cached.rules.items():
        assert rule == validated.rules[rule_id], rule_id


def test_a_cache_written_by_other_rule_book_code_is_not_used(tmp_path, monkeypatch):
    from bot.diagnose.knowledge.rulebook import book
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    d = write(tmp_path, "ok-rule", GOOD)
    files = sorted(str(p) for p in d.glob("*.yaml"))
    before = book._stamp(files)
    # the reading code changed since (another install, an edit): its own files are part of the stamp
    code = tmp_path / "validator.py"
    code.write_text("x = 1\n")
    monkeypatch.setattr(book, "_CODE", [*book._CODE, str(code)])
    assert book._stamp(files) != before


def test_the_real_rule_book_loads_clean():
    book = rulebook.load_rulebook(use_cache=False)
    assert book.errors == []
    assert len(book) >= 60


def test_a_warning_is_cleared_only_by_a_line_after_its_last_time(tmp_path):
    d = write(tmp_path, "ok-rule", GOOD.replace("level: root", "level: hint").replace(
        "match: {patterns: ['abc']}", "match: {patterns: ['stalled'], scope: any, cleared_by: 'startup complete'}"))
    [rule] = list(rulebook.load_rulebook(d, use_cache=False))
    assert rule.cleared("WARN stalled\nWARN stalled\nINFO startup complete\n", "stalled")
    assert not rule.cleared("WARN stalled\nINFO startup complete\nWARN stalled\n", "stalled")
    assert not rule.cleared("INFO startup complete\n", "stalled")       # never printed: nothing to clear


def test_a_line_of_another_process_clears_nothing(tmp_path):
    # two nodes' terminals in one paste: the head's start after a worker's failed tries is not the worker's
    d = write(tmp_path, "ok-rule", GOOD.replace("level: root", "level: hint").replace(
        "match: {patterns: ['abc']}",
        "match: {patterns: ['no head'], cleared_by: 'runtime started', cleared_before: 'Local node IP'}"))
    [rule] = list(rulebook.load_rulebook(d, use_cache=False))
    assert rule.cleared("Local node IP: a\nW no head\nW no head\nRay runtime started\n", "no head")
    assert not rule.cleared("Local node IP: a\nW no head\nLocal node IP: b\nRay runtime started\n", "no head")


@pytest.mark.parametrize("pattern, literal", [
    (r"No available memory for the cache blocks", "No available memory for the cache blocks"),
    # through a named capture and a group every match passes, and inside a repeat taken at least once
    (r"(?P<reason>System role not supported)\b", "System role not supported"),
    (r"(?P<r>(?:After the optional system message, )?[Cc]onversation roles must alternate)", "onversation roles must alternate"),
    (r"(?:error code: )+\d+", "error code: "),
    # an optional part, an alternation or a case-blind group gives no literal of its own
    (r"(?:Cannot find the model )?x", ""),
    (r"(?:alpha beta|gamma delta)", ""),
    (r"(?i:CUDA out of memory)", ""),
])
def test_the_literal_every_match_holds(pattern, literal):
    assert required_literal(pattern) == literal


def test_the_families_the_book_checks_are_the_ones_each_source_answers():
    # one table for each source's families (bot.diagnose.knowledge), not a copy in the book and another in the source
    from bot.diagnose import knowledge
    from bot.diagnose.knowledge import stack, vllm
    from bot.diagnose.knowledge.rulebook import book
    assert vllm.VLLM_FAMILIES is knowledge.VLLM_FAMILIES and stack.FAMILIES is knowledge.STACK_FAMILIES
    assert book.FAMILIES == knowledge.VLLM_FAMILIES + knowledge.STACK_FAMILIES
    # and the shipped rules use families of both sources
    used = {r.family for r in rulebook.load_rulebook() if r.family}
    assert used & set(knowledge.VLLM_FAMILIES) and used & set(knowledge.STACK_FAMILIES)


def test_a_broken_cache_is_rebuilt(tmp_path, monkeypatch):
    # a cache cut short (a full disk, a killed process) or written by another Python's marshal is read as stale
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    d = write(tmp_path, "ok-rule", GOOD)
    rulebook.load_rulebook(d)
    (cache,) = (tmp_path / "cache" / "vllm-doctor").glob("rulebook-*.marshal")
    for junk in (cache.read_bytes()[:100], b"\x00garbage", b""):
        cache.write_bytes(junk)
        assert list(rulebook.load_rulebook(d).rules) == ["ok-rule"]
    assert len(cache.read_bytes()) > 100
