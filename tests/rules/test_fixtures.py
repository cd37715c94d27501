"""Every real fixture gives its own rule first and nothing it does not name; every rule has one."""

import re
from pathlib import Path

import pytest

from bot.learn import fixtures
from bot.diagnose import diagnose
from bot.diagnose.knowledge.rulebook.packs import fixtures_beside
from bot.diagnose.knowledge.rulebook import load_rulebook

BOOK = load_rulebook(use_cache=False)
ROOT = Path(fixtures_beside(BOOK.directory))
ALL = fixtures.all_fixtures(ROOT)
PLACEHOLDER = re.compile(r"(?<!\{)\{[a-z_][a-z0-9_]*\}(?!\})")


@pytest.mark.parametrize("fx", ALL, ids=[f"{f.path.parent.name}/{f.path.stem}" for f in ALL])
def test_fixture_gives_what_it_names(fx):
    assert fx.source, "every fixture says where it came from"
    assert not fixtures.check(fx, diagnose(fx.data, book=BOOK))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_fixtures_answer_in_both_languages_without_template_marks(lang):
    for fx in ALL:
        for d in diagnose(fx.data, lang=lang, book=BOOK).diagnoses:
            for text in (d.title, d.cause, d.fix):
                assert text and not PLACEHOLDER.search(text), (fx.path, text)


def test_every_rule_has_a_real_fixture():
    named = {fx.expect for fx in ALL if fx.expect}
    assert sorted(set(BOOK.rules) - named) == []


def test_there_are_negative_fixtures():
    assert sum(fx.expect is None for fx in ALL) >= 4


def test_seed_ids_exist():
    seed = {"model-path-not-found", "max-model-len-too-large", "kv-cache-no-memory", "second-engine-same-process",
            "dtype-invalid", "engine-core-init-failed", "flashinfer-sampler", "port-in-use", "mm-limit-exceeded",
            "cuda-graph-capture-slow"}
    assert seed <= set(BOOK.rules)
    assert BOOK.rules["engine-core-init-failed"].level == "wrapper"
