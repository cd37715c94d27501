"""The vLLM release pages over real HTTP: their numbers are bot/learn/vllm_releases.py's, a rule
that drifts is named, and a copy of the index `index update` writes shows without a restart."""

from __future__ import annotations

import pytest

from bot.diagnose.knowledge.rulebook import load_rulebook
from bot.diagnose.knowledge.vllm import index
from bot.learn.vllm_releases import history
from bot.watch import update
from tests.watch.conftest import data_dir, new_wheels, packaged_index, packaged_stack, release_wheels  # noqa: F401 - fixtures

from .conftest import serve
from .page import Browser, marked


@pytest.fixture
def shipped_dashboard(recorded):
    """The dashboard with the shipped rule book, whose map of vLLM's source says which rules drift."""
    running = serve(recorded.store, rulebook=load_rulebook())
    yield running
    running.close()


def test_the_releases_page_shows_what_each_release_changed(shipped_dashboard):
    h = history(index.load(), load_rulebook())
    reply = Browser().get(shipped_dashboard.url + "/vllm")
    assert reply.status == 200 and "<script" not in reply.body
    rows = marked(reply.body, "data-col", row_attr="data-release")
    compared = [r for r in h.releases if r.previous]
    assert list(rows) == [r.version for r in reversed(compared)]                # newest first
    for r in compared:
        row = rows[r.version]
        assert {k: int(row[k]) for k in ("new", "changed", "gone", "drift")} == r.counts, r.version
    figures = marked(reply.body, "data-figure")
    assert figures["newest"] == h.newest and figures["in_use"] == "shipped copy"
    assert 'id="changes-t"' in reply.body and "Messages new, changed and gone per vLLM release" in reply.body
    stale = marked(reply.body, "data-rule")
    assert {"bnb-prequant-tensor-parallel", "mm-limit-on-text-model"} <= set(stale)


def test_a_release_page_names_the_rules_it_leaves_behind(shipped_dashboard):
    r = history(index.load(), load_rulebook()).release("0.34.0")
    reply = Browser().get(shipped_dashboard.url + "/vllm/0.34.0")
    assert reply.status == 200
    figures = marked(reply.body, "data-figure")
    assert {k: int(figures[k]) for k in ("new", "changed", "gone", "drift")} == r.counts
    drift = reply.body[reply.body.index('id="drift-table"'):]
    assert 'data-rule="spec-decode-unsupported"' in drift and "Unknown speculative decoding method" in drift
    assert reply.body.count("<tr><td class=\"text\"><code>", reply.body.index('id="new-table"')) >= len(r.new)
    assert Browser().get(shipped_dashboard.url + "/vllm/9.9.9").status == 404
    assert Browser().get(shipped_dashboard.url + "/vllm/" + index.load().releases[0]).status == 404   # none before it


def test_an_updated_index_shows_without_a_restart(recorded, data_dir, new_wheels, tmp_path):  # noqa: F811
    running = serve(recorded.store, rulebook=load_rulebook())
    try:
        before = marked(Browser().get(running.url + "/vllm").body, "data-col", row_attr="data-release")
        assert list(before) == ["0.2.0"]
        update.run(update.FromFolder(new_wheels), tmp_path / "cache")
        page = Browser().get(running.url + "/vllm").body
        assert list(marked(page, "data-col", row_attr="data-release")) == ["0.3.0", "0.2.1"]
        assert marked(page, "data-figure")["in_use"] == "updated copy" and "which added 0.2.1, 0.3.0" in page
        assert int(marked(Browser().get(running.url + "/vllm/0.3.0").body, "data-figure")["new"]) == 1
    finally:
        running.close()
