"""The dashboard as one WSGI application: routes, the sign-in gate, and the pages.

    /                       Overview
    /rules                  Rules (?sort=column&dir=asc|desc)
    /rules/<id>             one rule
    /unanswered             unanswered pastes by failure signature (?page=N)
    /unanswered/draft       the draft `rules suggest` writes for one (?signature=…; .yaml and .zip too)
    /releases               by vLLM release and GPU
    /repro                  the repro queue and recent jobs
    /vllm                   vLLM's releases as the index knows them: messages new, changed, gone; drift
    /vllm/<release>         one release: its new, changed and gone messages, the rules they leave behind
    /login, /logout, /auth/slack/start, /auth/slack/callback, /static/style.css

Templates are Jinja2 with autoescaping on: every value a page shows (pastes, rule ids, signatures,
reasons people typed) is escaped unless a template says otherwise, and none does.
"""

from __future__ import annotations

import datetime as dt
import io
import logging
import time
import zipfile
from collections.abc import Callable, Iterable
from importlib import resources
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from bot.store.models import utcnow

from . import charts, data, hosts as host_check
from .auth import Refused, SlackSignIn
from .web import Request, Response, redirect

log = logging.getLogger(__name__)

NAV = [("/", "Overview"), ("/rules", "Rules"), ("/unanswered", "Unanswered"),
       ("/releases", "By release and GPU"), ("/repro", "Repro"), ("/vllm", "vLLM releases")]
OUTCOME_NAMES = {"answered": "answered", "unsure": "unsure", "not_vllm": "not vLLM", "no_error": "no error found"}
PUBLIC = ("/static/", "/login", "/auth/slack/")
MAX_PAGE = 1_000_000


class Dashboard:
    """The WSGI app. `sign_in` None means open: only `vllm-doctor dashboard` on a loopback
    address makes one (see cli.py); everything else requires Sign in with Slack."""

    def __init__(self, store, *, rulebook=None, sign_in: SlackSignIn | None = None,
                 clock: Callable[[], dt.datetime] = utcnow, hosts: Iterable[str] = ()):
        self.store = store
        # Host names answered besides loopback's and DASHBOARD_URL's (hosts.py): the bound address.
        self.hosts = tuple(hosts)
        self.rulebook = rulebook
        self.sign_in = sign_in
        self.clock = clock
        self.templates = Environment(loader=PackageLoader("bot.dashboard", "templates"),
                                     autoescape=select_autoescape(default=True), undefined=StrictUndefined,
                                     trim_blocks=True, lstrip_blocks=True)
        self.templates.filters.update(pct=_pct, when=_when, day=_day, q=lambda s: quote(str(s), safe=""))
        static = resources.files("bot.dashboard").joinpath("static")
        self.static_files = {"/static/style.css": (static.joinpath("style.css").read_bytes(), "text/css; charset=utf-8"),
                             "/static/favicon.svg": (static.joinpath("favicon.svg").read_bytes(), "image/svg+xml")}
        self.routes: dict[str, Callable[[Request], Response]] = {
            "/": self.overview, "/rules": self.rules, "/unanswered": self.unanswered,
            "/unanswered/draft": self.draft, "/unanswered/draft.yaml": self.draft_yaml,
            "/unanswered/draft.zip": self.draft_zip, "/releases": self.releases, "/repro": self.repro,
            "/vllm": self.vllm_releases,
            "/login": self.login, "/static/style.css": self.static, "/static/favicon.svg": self.static,
        }
        self._history_cache, self._history_for = None, None

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        request = Request(environ)
        started = time.perf_counter()
        public_url = self.sign_in.settings.public_url if self.sign_in is not None else None
        refused = host_check.refusal(environ, host_check.configured(public_url=public_url, extra=self.hosts))
        if refused is not None:
            log.info("dashboard: refused %s %s: %s (%d)", request.method, request.path[:200], refused[1], refused[0])
            return Response(refused[1] + "\n", status=refused[0],
                            content_type="text/plain; charset=utf-8")(environ, start_response)
        try:
            response = self.handle(request)
        except Refused as e:
            response = self.page(request, "message.html", status=e.status, title="Sign-in refused", message=str(e))
        except Exception:       # noqa: BLE001 - one broken page must not show a traceback to a browser
            log.exception("dashboard: %s %s failed", request.method, request.path)
            response = self.page(request, "message.html", status=500, title="Something went wrong",
                                 message="This page could not be built; the server's log says why.")
        log.debug("dashboard: %s %s %s in %.0f ms", request.method, request.path, response.status,
                  (time.perf_counter() - started) * 1000)
        return response(environ, start_response)

    def handle(self, request: Request) -> Response:
        path = request.path.rstrip("/") or "/"
        if path == "/logout" and request.method == "POST":
            return self.sign_in.sign_out(request) if self.sign_in else redirect(request.url("/"))
        if request.method not in ("GET", "HEAD"):
            return Response("Only GET here.\n", status=405, content_type="text/plain; charset=utf-8",
                            headers=[("Allow", "GET, HEAD")])
        if self.sign_in is not None:
            if path == "/auth/slack/start":
                return self.sign_in.start(request)
            if path == "/auth/slack/callback":
                return self.sign_in.callback(request)
            request.user = self.sign_in.user(request)
            if request.user is None and not path.startswith(PUBLIC) and path != "/login":
                return redirect(request.url("/login") + "?next=" + quote(request.full_path, safe=""))
        else:
            request.user = None
        handler = self.routes.get(path)
        if handler is None and path.startswith("/rules/"):
            return self.rule(request, path[len("/rules/"):])
        if handler is None and path.startswith("/vllm/"):
            return self.vllm_release(request, path[len("/vllm/"):])
        if handler is None:
            return self.page(request, "message.html", status=404, title="Not found",
                             message="There is no such page here.")
        return handler(request)

    # -- rendering -------------------------------------------------------------------------------

    def page(self, request: Request, template: str, *, status: int = 200, **context) -> Response:
        context.setdefault("title", "")
        html = self.templates.get_template(template).render(
            request=request, root=request.root, nav=NAV, path=request.path.rstrip("/") or "/",
            user=getattr(request, "user", None), signed_in_required=self.sign_in is not None,
            outcome_names=OUTCOME_NAMES, now=self.clock(), **context)
        return Response(html, status=status)

    def static(self, request: Request) -> Response:
        # Routed by the path without its trailing slash: /static/style.css/ is the same file.
        body, content_type = self.static_files[request.path.rstrip("/")]
        return Response(body, content_type=content_type, cache="max-age=3600")

    def login(self, request: Request) -> Response:
        if self.sign_in is None or getattr(request, "user", None) is not None:
            return redirect(request.url("/"))
        return self.page(request, "login.html", title="Sign in",
                         start=request.url("/auth/slack/start") + "?next=" + quote(request.arg("next"), safe=""))

    # -- pages -----------------------------------------------------------------------------------

    def overview(self, request: Request) -> Response:
        today = self.clock().date()
        with self.store.session() as session:
            o = data.overview(session, self.store.dialect, today)
        series = [(k, OUTCOME_NAMES[k]) for k in data.OUTCOMES]
        daily = charts.stacked_bars(o.days, series, lambda r: _day(r["day"]))
        weekly = charts.lines(o.weeks, [("answer_rate", "answer rate"), ("precision", "feedback precision")],
                              lambda r: _day(r["start"]))
        return self.page(request, "overview.html", title="Overview", o=o, daily=daily, weekly=weekly, series=series,
                         legend=[(key, name, "box") for key, name in series])

    def rules(self, request: Request) -> Response:
        sort = request.arg("sort", "hits")
        sort = sort if sort in data.RULE_SORTS else "hits"
        descending = request.arg("dir", "asc" if sort == "rule" else "desc") != "asc"
        stats = self._stats()
        active = [r for r in stats.rules if r.status != "shadow"]
        shadows = [r for r in stats.rules if r.status == "shadow"]
        return self.page(request, "rules.html", title="Rules", stats=stats, sort=sort, descending=descending,
                         rules=data.sort_rules(active, sort, descending), shadows=shadows, flag_count=data.flag_count)

    def rule(self, request: Request, rule_id: str) -> Response:
        stats = self._stats(only=rule_id)
        rs = next((r for r in stats.rules if r.rule_id == rule_id), None)
        rule = self.rulebook.rules.get(rule_id) if self.rulebook is not None else None
        if rs is None:
            return self.page(request, "message.html", status=404, title="No such rule",
                             message="No rule with that id is in the rule book or the store.")
        today = self.clock().date()
        with self.store.session() as session:
            weeks = data.rule_hits_by_week(session, self.store.dialect, rule_id, today)
            reasons, reason_count = data.feedback_reasons(session, rule_id)
        chart = charts.bars(weeks, "hits", lambda r: _day(r["start"]), "hits")
        return self.page(request, "rule.html", title=f"Rule {rule_id}", rs=rs, rule=rule, weeks=weeks, chart=chart,
                         reasons=reasons, reason_count=reason_count, source=_rule_source(rule),
                         stats=stats)

    def unanswered(self, request: Request) -> Response:
        page = _int(request.arg("page"), 0)
        # A page past any the store could fill is not a query: its offset would overflow the
        # database's integer (a 500 with a traceback, once).
        if page > MAX_PAGE:
            return self._no_such_page(request)
        with self.store.session() as session:
            rows, total = data.clusters(session, page=page)
        pages = max(1, -(-total // data.CLUSTERS_PER_PAGE))
        if page >= pages:
            return self._no_such_page(request)
        return self.page(request, "unanswered.html", title="Unanswered", clusters=rows, total=total, page=page,
                         pages=pages, per_page=data.CLUSTERS_PER_PAGE, excerpt_around=data.excerpt_around,
                         min_count=2)

    def draft(self, request: Request) -> Response:
        found = self._draft(request)
        if isinstance(found, Response):
            return found
        cluster, outcome, files = found
        return self.page(request, "draft.html", title="Draft rule", cluster=cluster, outcome=outcome, files=files,
                         signature=cluster.signature)

    def draft_yaml(self, request: Request) -> Response:
        found = self._draft(request)
        if isinstance(found, Response):
            return found
        _cluster, outcome, files = found
        if not files:
            return Response(f"No draft: {outcome.reason}\n", status=404, content_type="text/plain; charset=utf-8")
        name, text = next(iter(files.items()))
        return Response(text, content_type="application/yaml; charset=utf-8",
                        headers=[("Content-Disposition", f'attachment; filename="{name.split("/")[-1]}"')])

    def draft_zip(self, request: Request) -> Response:
        found = self._draft(request)
        if isinstance(found, Response):
            return found
        _cluster, outcome, files = found
        if not files:
            return Response(f"No draft: {outcome.reason}\n", status=404, content_type="text/plain; charset=utf-8")
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            for name, text in files.items():
                z.writestr(name, text)
        return Response(buffer.getvalue(), content_type="application/zip",
                        headers=[("Content-Disposition", f'attachment; filename="{outcome.id}.zip"')])

    def releases(self, request: Request) -> Response:
        with self.store.session() as session:
            by_release, by_gpu = data.by_release_and_gpu(session)
        return self.page(request, "releases.html", title="By release and GPU", releases=by_release, gpus=by_gpu,
                         new=data.first_seen_in(by_release), outcomes=data.OUTCOMES)

    def repro(self, request: Request) -> Response:
        with self.store.session() as session:
            r = data.repro(session)
        return self.page(request, "repro.html", title="Repro", r=r)

    def vllm_releases(self, request: Request) -> Response:
        found = self._history(request)
        if isinstance(found, Response):
            return found
        history, copy = found
        shown = [r for r in history.releases if r.previous]
        series = [("new", "new"), ("changed", "changed"), ("gone", "gone")]
        rows = [{"version": r.version, **r.counts} for r in shown]
        chart = charts.stacked_bars(rows, series, lambda row: row["version"], every=3)
        return self.page(request, "vllm.html", title="vLLM releases", history=history, releases=shown[::-1],
                         chart=chart, copy=copy, legend=[(key, name, "box") for key, name in series])

    def vllm_release(self, request: Request, version: str) -> Response:
        found = self._history(request)
        if isinstance(found, Response):
            return found
        history, copy = found
        release = history.release(version)
        if release is None or release.previous is None:
            return self.page(request, "message.html", status=404, title="No such release",
                             message="The index of vLLM's releases compares no release of that number with "
                                     "the one before it.")
        return self.page(request, "vllm_release.html", title=f"vLLM {version}", r=release, history=history,
                         copy=copy)

    # -- helpers ---------------------------------------------------------------------------------

    def _no_such_page(self, request: Request) -> Response:
        return self.page(request, "message.html", status=404, title="No such page",
                         message="There are not that many pages of unanswered pastes.")

    def _history(self, request: Request):
        """(what each vLLM release changed, which index copy is in use), or the page that says the
        index is missing. Computed once per copy of the index and rule book: an update of the index
        (installed.py) is a new copy, and the next page shows it."""
        from bot.diagnose.knowledge.vllm import index, installed
        from bot.learn.vllm_releases import history

        idx = index.load()
        if idx is None:
            return self.page(request, "message.html", status=503, title="No index of vLLM's releases",
                             message="The index of vLLM's releases is not installed here.")
        book = self.rulebook
        if book is None:
            from bot.diagnose.knowledge.rulebook import load_rulebook
            book = load_rulebook()
        key = (str(idx._path), book.version)
        if self._history_for != key:
            self._history_cache, self._history_for = history(idx, book), key
        _path, kind, info = installed.choose()
        copy = {"in_use": kind, "updated": info.get("updated") if info and kind == "data" else None,
                "added": info.get("added", []) if info and kind == "data" else []}
        return self._history_cache, copy

    def _stats(self, only: str | None = None):
        from bot.learn.stats import compute

        with self.store.session() as session:
            return compute(session, self.rulebook, now=self.clock(), only=only)

    def _draft(self, request: Request):
        from bot.learn.suggest import Skipped, clusters, draft_for, draft_files

        signature = request.arg("signature")
        with self.store.session() as session:
            found = clusters(session, signature) if signature else []
            if not found:
                return self.page(request, "message.html", status=404, title="No such failure",
                                 message="No unanswered paste has that failure signature.")
            cluster = found[0]
            outcome = draft_for(cluster, self.rulebook)
            files = {} if isinstance(outcome, Skipped) else draft_files(session, outcome, self.clock().date())
        return cluster, outcome, files


def _rule_source(rule) -> str | None:
    if rule is None:
        return None
    try:
        with open(rule.path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def _int(text: str, default: int) -> int:
    try:
        return max(0, int(text))
    except ValueError:
        return default


def _pct(value) -> str:
    return "–" if value is None else f"{value:.0%}"


def _when(value) -> str:
    return "–" if value is None else value.strftime("%Y-%m-%d %H:%M UTC")


def _day(value) -> str:
    return value.strftime("%m-%d") if value else "–"
