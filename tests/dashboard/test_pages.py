"""The pages over real HTTP, from a store filled through the real diagnose() and Store: every
page answers, its numbers are the store's and `rules stats`', and nothing a paste holds runs."""

from __future__ import annotations

import io
import zipfile
from urllib.parse import quote

import pytest
from sqlalchemy import func, select

from bot.learn.stats import compute
from bot.learn.suggest import clusters, suggest
from bot.store.models import Diagnosis

from .page import Browser, marked, row_order

PAGES = ["/", "/rules", "/rules/cuda-oom", "/unanswered", "/releases", "/repro", "/vllm", "/vllm/0.34.0"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_answers_with_html_and_the_security_headers(open_dashboard, path):
    reply = Browser().get(open_dashboard.url + path)
    assert reply.status == 200, reply.body[:2000]
    assert reply.header("Content-Type") == "text/html; charset=utf-8"
    assert "script-src" not in reply.header("Content-Security-Policy")      # default-src 'none': no script
    assert "default-src 'none'" in reply.header("Content-Security-Policy")
    assert reply.header("X-Frame-Options") == "DENY" and reply.header("Cache-Control") == "no-store"
    assert "<script" not in reply.body and " style=" not in reply.body      # nothing the CSP would block
    assert 'aria-current="page"' in reply.body


def test_rules_page_shows_what_rules_stats_computes(open_dashboard, recorded):
    with recorded.store.session() as session:
        stats = compute(session, recorded.book)
    html = Browser().get(open_dashboard.url + "/rules").body
    shown = marked(html, "data-col", row_attr="data-rule")
    active = [r for r in stats.rules if r.status != "shadow"]
    assert set(shown) == {r.rule_id for r in active}
    for r in active:
        row = shown[r.rule_id]
        assert (int(row["hits"]), int(row["fixed"]), int(row["wrong"]), int(row["partly"])) == \
            (r.hits, r.fixed, r.wrong, r.partly), r.rule_id
        assert row["precision"] == ("–" if r.precision is None else f"{r.precision:.0%}")
        assert row["low"] == ("–" if r.precision_low is None else f"{r.precision_low:.0%}")
    # the flags say what is wrong in words, not only in colour
    assert "wrong in 3 of 3 votes" in shown["bf16-unsupported-gpu"]["flags"]
    assert "used outside its versions >=0.6: 0.5.4 (1)" in shown["bf16-unsupported-gpu"]["flags"]
    # the shadow rule's would-be results
    lora = next(r for r in stats.rules if r.rule_id == "lora-rank-too-large")
    assert 'id="shadow-table"' in html and f"<td>{lora.shadow.matched}</td><td>{lora.shadow.would_be_first}</td>" in html


def test_rules_sort_by_any_column_without_javascript(open_dashboard, recorded):
    with recorded.store.session() as session:
        stats = compute(session, recorded.book)
    active = [r for r in stats.rules if r.status != "shadow"]
    def order(query):      # the rows of the active rules' table, not the shadow rules' below it
        return row_order(Browser().get(open_dashboard.url + "/rules?" + query).body.split('id="shadow')[0], "data-rule")

    by_wrong = order("sort=wrong&dir=desc")
    assert by_wrong == [r.rule_id for r in sorted(sorted(active, key=lambda r: r.rule_id), key=lambda r: -r.wrong)]
    by_name = order("sort=rule&dir=asc")
    assert by_name == sorted(by_name)
    # an unknown column falls back to hits; the header of the sorted column says so
    html = Browser().get(open_dashboard.url + "/rules?sort=%3Cscript%3E").body
    assert 'aria-sort="descending"' in html and "<script" not in html


def test_a_rule_page_has_its_text_hits_and_feedback_reasons(open_dashboard, recorded):
    html = Browser().get(open_dashboard.url + "/rules/bf16-unsupported-gpu").body
    figures = marked(html, "data-figure")
    assert figures["hits"] == "3" and figures["votes"] == "0 / 3 / 0"
    assert "it was the driver" in html                   # the reasons people gave
    assert "id: bf16-unsupported-gpu" in html           # the rule file itself
    assert 'id="hits-table"' in html and html.count("<td>", html.index('id="hits-table"'),
                                                      html.index("</table>", html.index('id="hits-table"'))) == 26
    assert Browser().get(open_dashboard.url + "/rules/no-such-rule").status == 404


def test_unanswered_lists_what_rules_suggest_clusters_and_offers_its_draft(open_dashboard, recorded, tmp_path):
    with recorded.store.session() as session:
        expected = clusters(session)
        drafts, _ = suggest(session, tmp_path / "drafts", rulebook=recorded.book)
    html = Browser().get(open_dashboard.url + "/unanswered").body
    assert html.count('class="cluster"') == len(expected)
    counts = [int(c) for c in _all(html, 'data-figure="count">', "<")]
    assert counts == [c.count for c in expected]

    [draft] = drafts                                     # the kv-cache failure, seen five times
    url = open_dashboard.url + "/unanswered/draft.yaml?signature=" + quote(draft.cluster.signature, safe="")
    reply = Browser().get(url)
    assert reply.status == 200 and "attachment" in reply.header("Content-Disposition")
    assert reply.body == draft.rule_path.read_text(encoding="utf-8")
    page = Browser().get(url.replace("draft.yaml", "draft")).body
    assert f"rules/{draft.id}.yaml" in page and "status: shadow" in page


def test_the_draft_zip_holds_the_files_suggest_writes(open_dashboard, recorded, tmp_path):
    import urllib.request

    with recorded.store.session() as session:
        [draft], _ = suggest(session, tmp_path / "drafts", rulebook=recorded.book)
    url = open_dashboard.url + "/unanswered/draft.zip?signature=" + quote(draft.cluster.signature, safe="")
    with urllib.request.urlopen(url, timeout=30) as resp:
        data = resp.read()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        files = {name: z.read(name).decode() for name in z.namelist()}
    written = {str(p.relative_to(tmp_path / "drafts")): p.read_text(encoding="utf-8")
               for p in [draft.rule_path, *draft.fixture_paths]}
    assert files == written


def test_a_failure_a_rule_now_covers_gets_no_draft(open_dashboard, recorded):
    with recorded.store.session() as session:
        lora = next(c for c in clusters(session) if c.diagnoses[0].shadow_rules)
    url = open_dashboard.url + "/unanswered/draft.yaml?signature=" + quote(lora.signature, safe="")
    reply = Browser().get(url)
    assert reply.status == 404 and "rule lora-rank-too-large (shadow) now matches these lines" in reply.body


def test_releases_page_counts_are_the_stores(open_dashboard, recorded):
    html = Browser().get(open_dashboard.url + "/releases").body
    rows = marked(html.split('id="gpu-table"')[0], "data-col", row_attr="data-name")
    with recorded.store.session() as session:
        by_version = dict(session.execute(
            select(Diagnosis.vllm_version, func.count()).group_by(Diagnosis.vllm_version)).all())
        answered = dict(session.execute(select(Diagnosis.vllm_version, func.count())
                                        .where(Diagnosis.verdict == "diagnosed").group_by(Diagnosis.vllm_version)).all())
    for version, n in by_version.items():
        row = rows[version or "unknown"]
        assert int(row["total"]) == n and int(row["answered"]) == answered.get(version, 0)


def test_overview_figures_are_the_stores(open_dashboard, recorded):
    html = Browser().get(open_dashboard.url + "/").body
    figures = marked(html, "data-figure")
    with recorded.store.session() as session:
        stats = compute(session, recorded.book)
    votes = sum(r.votes for r in stats.rules)
    assert int(figures["diagnoses"]) == stats.diagnoses and int(figures["answered"]) == stats.answered
    assert int(figures["votes"]) == votes
    fixed, partly = sum(r.fixed for r in stats.rules), sum(r.partly for r in stats.rules)
    assert figures["precision"] == f"{(fixed + partly / 2) / votes:.0%}"
    # every paste of the test was stored today: the last bar holds them all, split by outcome
    per_day = marked(html, "data-outcome")              # the last row's cells win
    assert sum(int(v) for v in per_day.values()) == stats.diagnoses
    assert 'role="img"' in html and "<title id=" in html and "<desc id=" in html


def test_a_hostile_paste_is_shown_as_text_never_run(open_dashboard, recorded):
    from tests.store.helpers import diagnose

    hostile = ('Traceback (most recent call last):\n  File "/x/vllm/engine.py", line 1, in <module>\n'
               'ValueError: bad <script>alert("pwned")</script> "><img src=x onerror=alert(1)> in the engine config\n')
    store = recorded.store
    diagnosis_id = store.record_diagnosis(diagnose(hostile, recorded.book), source="slack", text=hostile)
    store.record_diagnosis(diagnose(hostile, recorded.book), source="slack", text=hostile)
    store.record_feedback(recorded.ids["cuda-oom"][0], "partly", user="U0EVIL",
                          reason="<script>document.location='//evil'</script>")
    assert diagnosis_id is not None
    for path in ["/", "/unanswered", "/rules/cuda-oom", "/releases"]:
        html = Browser().get(open_dashboard.url + path).body
        assert "<script" not in html and "<img" not in html, path
    unanswered = Browser().get(open_dashboard.url + "/unanswered").body
    assert "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;" in unanswered
    assert "&lt;script&gt;document.location=&#39;//evil&#39;&lt;/script&gt;" in Browser().get(
        open_dashboard.url + "/rules/cuda-oom").body


def test_unknown_pages_methods_and_head(open_dashboard):
    b = Browser()
    assert b.get(open_dashboard.url + "/nope").status == 404
    assert b.get(open_dashboard.url + "/rules", method="POST", data=b"x=1").status == 405
    head = b.get(open_dashboard.url + "/rules", method="HEAD")
    assert head.status == 200 and head.body == ""
    root = b.get(open_dashboard.url.rsplit("/dashboard", 1)[0] + "/")
    assert root.status == 302 and root.header("Location") == "/dashboard/"
    css = b.get(open_dashboard.url + "/static/style.css")
    assert css.status == 200 and css.header("Content-Type").startswith("text/css")


def _all(html: str, start: str, end: str) -> list[str]:
    out, at = [], 0
    while (i := html.find(start, at)) >= 0:
        j = html.find(end, i + len(start))
        out.append(html[i + len(start):j])
        at = j
    return out



@pytest.mark.parametrize("path, status", [
    ("/static/style.css/", 200),                        # the same file, not a 500
    ("/unanswered?page=" + "9" * 30, 404),               # an offset no database integer holds
    ("/unanswered?page=" + "9" * 5000, 200),             # not a number Python reads: the first page
    ("/unanswered?page=999", 404),
    ("/unanswered?page=-3", 200),
])
def test_malformed_requests_get_an_answer_not_a_500(open_dashboard, recorded, caplog, path, status):
    reply = Browser().get(open_dashboard.url + path)
    assert reply.status == status, reply.body[:500]
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= 40], caplog.text[-2000:]
