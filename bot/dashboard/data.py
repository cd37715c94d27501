"""What each page shows, read from the store.

Each function runs a few grouped queries that the covering indexes of migration 0003 answer
without reading the wide rows (excerpts, facts), and folds their rows into plain data for the
templates. Per-rule numbers come from bot.learn.stats and drafts from bot.learn.suggest, so the
page, `rules stats` and `rules suggest` never disagree.

A paste's outcome, as the Overview splits it: answered (a rule answered it), not vLLM (another
program printed the log), no error (nothing failed in it) and unsure (the rest: no rule was sure
enough, or only the wrapper at the end matched).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version
from sqlalchemy import and_, case, func, select
from sqlalchemy.orm import Session, selectinload

from bot.learn.stats import count_if, precision, total
from bot.learn.suggest import draft_id, pattern_from_signature
from bot.store.models import Diagnosis, Feedback, Job

OUTCOMES = ("answered", "unsure", "not_vllm", "no_error")
UNANSWERED = and_(Diagnosis.verdict != "diagnosed", Diagnosis.signature.is_not(None))
CLUSTERS_PER_PAGE = 50
TOP_FAILURES = 10
RECENT_JOBS = 50


def outcome(verdict: str, other_program: bool) -> str:
    if verdict == "diagnosed":
        return "answered"
    if other_program:
        return "not_vllm"
    return "no_error" if verdict == "no_error" else "unsure"


def day_of(column, dialect: str):
    """The UTC calendar day of a stored time, in SQL (SQLite keeps naive UTC text)."""
    if dialect == "postgresql":
        return func.date(func.timezone("UTC", column))
    return func.date(column)


def as_date(value) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value)[:10])


# -- Overview ------------------------------------------------------------------------------------

@dataclass
class Overview:
    days: list[dict]                 # {"day", "answered", "unsure", "not_vllm", "no_error", "total"}
    weeks: list[dict]                # {"start", "end", "pastes", "answered", "answer_rate", "votes", "precision", ...}
    top: list[dict]                  # {"kind", "key", "this_week", "last_week"}
    totals: dict


def overview(session: Session, dialect: str, today: dt.date, *, days: int = 30, weeks: int = 12) -> Overview:
    d = Diagnosis
    first_week = today - dt.timedelta(days=7 * weeks - 1)
    start = min(first_week, today - dt.timedelta(days=days - 1))
    day = day_of(d.created_at, dialect)
    has_rule = d.top_rule_id.is_not(None)
    per_day: dict[dt.date, Counter] = defaultdict(Counter)
    for row in session.execute(
            select(day.label("day"), d.verdict, d.other_program.is_not(None).label("other"), func.count().label("n"),
                   *(total(case((has_rule, getattr(d, f"votes_{k}")), else_=0)).label(k)
                     for k in ("fixed", "wrong", "partly")))
            .where(d.created_at >= _midnight(start)).group_by(day, d.verdict, d.other_program.is_not(None))):
        counts = per_day[as_date(row.day)]
        counts[outcome(row.verdict, row.other)] += row.n
        for k in ("fixed", "wrong", "partly"):
            counts[k] += getattr(row, k)

    day_rows = []
    for i in range(days):
        when = today - dt.timedelta(days=days - 1 - i)
        c = per_day.get(when, Counter())
        day_rows.append({"day": when, **{k: c[k] for k in OUTCOMES}, "total": sum(c[k] for k in OUTCOMES)})
    week_rows = []
    for w in range(weeks):
        begin = first_week + dt.timedelta(days=7 * w)
        c = sum((per_day.get(begin + dt.timedelta(days=i), Counter()) for i in range(7)), Counter())
        pastes = sum(c[k] for k in OUTCOMES)
        votes = c["fixed"] + c["wrong"] + c["partly"]
        week_rows.append({"start": begin, "end": begin + dt.timedelta(days=6), "pastes": pastes,
                          "answered": c["answered"], "answer_rate": c["answered"] / pastes if pastes else None,
                          "votes": votes, "fixed": c["fixed"], "wrong": c["wrong"], "partly": c["partly"],
                          "precision": precision(c["fixed"], c["wrong"], c["partly"])})

    # One pass over ix_diagnoses_created_outcome, which holds every column this reads.
    count, answered, fixed, wrong, partly = session.execute(
        select(func.count(), count_if(d.verdict == "diagnosed"),
               *(total(case((has_rule, getattr(d, f"votes_{k}")), else_=0)) for k in ("fixed", "wrong", "partly")))
        .select_from(d)).one()
    totals = {"diagnoses": count, "answered": answered, "answer_rate": answered / count if count else None,
              "votes": fixed + wrong + partly, "precision": precision(fixed, wrong, partly),
              "last_7_days": sum(r["total"] for r in day_rows[-7:])}
    return Overview(day_rows, week_rows, top_failures(session, today), totals)


def top_failures(session: Session, today: dt.date, n: int = TOP_FAILURES) -> list[dict]:
    """The failures of the last 7 days against the 7 before: the rule that answered, or for an
    unanswered paste its failure signature. Logs of other programs are not vLLM failures."""
    d = Diagnosis
    this_week = _midnight(today - dt.timedelta(days=6))
    last_week = _midnight(today - dt.timedelta(days=13))
    answered = d.verdict == "diagnosed"
    key = case((answered, d.top_rule_id), else_=d.signature)
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    recent = d.created_at >= this_week          # one object: grouped by the very same bound value
    for was_answered, failure, is_recent, count in session.execute(
            select(answered, key, recent, func.count())
            .where(d.created_at >= last_week, d.other_program.is_(None), key.is_not(None))
            .group_by(answered, key, recent)):
        counts[("rule" if was_answered else "unanswered", failure)][0 if is_recent else 1] += count
    rows = [{"kind": kind, "key": key, "this_week": now, "last_week": before}
            for (kind, key), (now, before) in counts.items()]
    rows.sort(key=lambda r: (-r["this_week"], -r["last_week"], r["key"]))
    return rows[:n]


# -- Rules ---------------------------------------------------------------------------------------

RULE_SORTS = {
    "rule": lambda r: r.rule_id,
    "hits": lambda r: r.hits,
    "fixed": lambda r: r.fixed,
    "wrong": lambda r: r.wrong,
    "partly": lambda r: r.partly,
    "votes": lambda r: r.votes,
    "precision": lambda r: -1 if r.precision is None else r.precision,
    "low": lambda r: -1 if r.precision_low is None else r.precision_low,
    "last": lambda r: r.last_hit.timestamp() if r.last_hit else 0,
    "flags": lambda r: flag_count(r),
}


def flag_count(r) -> int:
    return int(r.flagged) + int(r.precision_dropping) + int(bool(r.outside_versions))


def sort_rules(rules: list, key: str, descending: bool) -> list:
    """Sorted by one column; ties by rule id, always ascending, so the order is stable."""
    by_id = sorted(rules, key=lambda r: r.rule_id)
    return sorted(by_id, key=RULE_SORTS[key], reverse=descending) if key != "rule" else \
        (list(reversed(by_id)) if descending else by_id)


def rule_hits_by_week(session: Session, dialect: str, rule_id: str, today: dt.date, weeks: int = 26) -> list[dict]:
    d = Diagnosis
    first = today - dt.timedelta(days=7 * weeks - 1)
    day = day_of(d.created_at, dialect)
    per_day = {as_date(when): n for when, n in session.execute(
        select(day, func.count()).where(d.top_rule_id == rule_id, d.created_at >= _midnight(first)).group_by(day))}
    rows = []
    for w in range(weeks):
        begin = first + dt.timedelta(days=7 * w)
        rows.append({"start": begin, "end": begin + dt.timedelta(days=6),
                     "hits": sum(per_day.get(begin + dt.timedelta(days=i), 0) for i in range(7))})
    return rows


def feedback_reasons(session: Session, rule_id: str, limit: int = 50) -> tuple[list[dict], int]:
    """What people wrote when they voted on this rule's answers, newest first, and how many did."""
    d, f = Diagnosis, Feedback
    where = (d.top_rule_id == rule_id, f.reason.is_not(None), f.reason != "")
    rows = session.execute(select(f.created_at, f.verdict, f.reason, d.vllm_version).join(d, d.id == f.diagnosis_id)
                           .where(*where).order_by(f.created_at.desc(), f.id.desc()).limit(limit))
    count = session.scalar(select(func.count()).select_from(f).join(d, d.id == f.diagnosis_id).where(*where))
    return [{"at": at, "verdict": verdict, "reason": reason, "vllm": vllm} for at, verdict, reason, vllm in rows], count


# -- Unanswered ----------------------------------------------------------------------------------

@dataclass
class ClusterRow:
    signature: str
    count: int
    first_seen: dt.datetime
    last_seen: dt.datetime
    releases: list[tuple[str, int]] = field(default_factory=list)
    latest_id: int | None = None
    other_program: str | None = None        # when another program printed these logs
    root_text: str | None = None
    excerpt: str | None = None

    @property
    def draft_id(self) -> str:
        return draft_id(self.signature)

    @property
    def pattern(self) -> str:
        return pattern_from_signature(self.signature)


def clusters(session: Session, *, page: int = 0, per_page: int = CLUSTERS_PER_PAGE) -> tuple[list[ClusterRow], int]:
    """Unanswered pastes grouped by failure signature, as `rules suggest` groups them (biggest
    first), one page of them, and how many clusters there are."""
    d = Diagnosis
    n = func.count().label("n")
    rows = session.execute(select(d.signature, n, func.min(d.created_at), func.max(d.created_at), func.max(d.id),
                                  func.max(d.other_program))
                           .where(UNANSWERED).group_by(d.signature).order_by(n.desc(), d.signature)
                           .limit(per_page).offset(page * per_page)).all()
    out = [ClusterRow(sig, count, first, last, latest_id=latest, other_program=other)
           for sig, count, first, last, latest, other in rows]
    if out:
        by_sig = {c.signature: c for c in out}
        releases: dict[str, Counter] = defaultdict(Counter)
        for sig, version, count in session.execute(
                select(d.signature, d.vllm_version, func.count()).where(UNANSWERED, d.signature.in_(by_sig))
                .group_by(d.signature, d.vllm_version)):
            releases[sig][version or "unknown"] += count
        for sig, cluster in by_sig.items():
            cluster.releases = sorted(releases[sig].items(), key=lambda kv: release_key(kv[0]), reverse=True)
        for row_id, root_text, excerpt in session.execute(
                select(d.id, d.root_text, d.excerpt).where(d.id.in_([c.latest_id for c in out]))):
            cluster = next(c for c in out if c.latest_id == row_id)
            cluster.root_text, cluster.excerpt = root_text, excerpt
    total_clusters = session.scalar(select(func.count(func.distinct(d.signature))).where(UNANSWERED))
    return out, total_clusters


def excerpt_around(excerpt: str | None, root_text: str | None, lines: int = 12) -> str:
    """A few lines of the stored (redacted) excerpt, around the root error."""
    if not excerpt:
        return root_text or ""
    rows = excerpt.split("\n")
    needle = (root_text or "").strip().split("\n")[0][:60]
    at = next((i for i, line in enumerate(rows) if needle and needle in line), len(rows) - 1)
    first = max(0, at - lines + 3)
    return "\n".join(line[:400] for line in rows[first:first + lines])


# -- By release and GPU --------------------------------------------------------------------------

@dataclass
class Breakdown:
    """Pastes of one vLLM release (or one GPU): outcomes and the failures among them."""
    name: str
    outcomes: Counter = field(default_factory=Counter)
    failures: Counter = field(default_factory=Counter)      # (kind, key) -> pastes

    @property
    def total(self) -> int:
        return sum(self.outcomes.values())

    @property
    def answer_rate(self) -> float | None:
        return self.outcomes["answered"] / self.total if self.total else None


def by_release_and_gpu(session: Session) -> tuple[list[Breakdown], list[Breakdown]]:
    d = Diagnosis
    releases: dict[str, Breakdown] = {}
    gpus: dict[str, Breakdown] = {}

    def add(version, gpu, bucket: str, key, count: int) -> None:
        for table, name in ((releases, version or "unknown"), (gpus, gpu or "unknown")):
            b = table.get(name)
            if b is None:
                b = table[name] = Breakdown(name)
            (b.outcomes if bucket == "outcome" else b.failures)[key] += count

    # Plain columns in the order of ix_diagnoses_release_gpu, so the rows come grouped already.
    columns = (d.vllm_version, d.gpu_name, d.verdict, d.other_program, d.top_rule_id)
    for version, gpu, verdict, other, rule_id, count in session.execute(
            select(*columns, func.count()).group_by(*columns)):
        add(version, gpu, "outcome", outcome(verdict, other is not None), count)
        if rule_id and verdict == "diagnosed":
            add(version, gpu, "failure", ("rule", rule_id), count)
    for sig, version, gpu, count in session.execute(
            select(d.signature, d.vllm_version, d.gpu_name, func.count())
            .where(UNANSWERED, d.other_program.is_(None)).group_by(d.signature, d.vllm_version, d.gpu_name)):
        add(version, gpu, "failure", ("unanswered", sig), count)
    return (sorted(releases.values(), key=lambda b: release_key(b.name), reverse=True),
            sorted(gpus.values(), key=lambda b: (b.name == "unknown", -b.total, b.name)))


def release_key(name: str) -> tuple:
    """Newest release first when sorted in reverse; what is not a version ('unknown') last."""
    try:
        return (1, Version(name))
    except InvalidVersion:
        return (0, Version("0"))


def first_seen_in(breakdowns: list[Breakdown]) -> dict[str, list[tuple]]:
    """Per release: the failures no older release had (a new failure with an upgrade)."""
    known = sorted((b for b in breakdowns if release_key(b.name)[0]), key=lambda b: release_key(b.name))
    seen: set = set(known[0].failures) if known else set()
    out = {}
    for b in known[1:]:           # everything is "new" in the oldest release stored: nothing to say
        new = [f for f in b.failures if f not in seen]
        out[b.name] = sorted(new, key=lambda f: -b.failures[f])
        seen.update(b.failures)
    return out


# -- Repro ---------------------------------------------------------------------------------------

def repro(session: Session, limit: int = RECENT_JOBS) -> dict:
    states = dict(session.execute(select(Job.status, func.count()).group_by(Job.status)).all())
    oldest = session.scalar(select(func.min(Job.created_at)).where(Job.status == "queued"))
    jobs = session.scalars(select(Job).options(selectinload(Job.steps)).order_by(Job.id.desc()).limit(limit)).all()
    return {"states": states, "queued": states.get("queued", 0), "running": states.get("running", 0),
            "oldest_queued": oldest, "jobs": [_job(j) for j in jobs]}


def _job(job: Job) -> dict:
    result = job.result if isinstance(job.result, dict) else {}
    env = result.get("env") if isinstance(result.get("env"), dict) else {}
    culprit = result.get("culprit") if isinstance(result.get("culprit"), dict) else None
    diagnosis = result.get("diagnosis") if isinstance(result.get("diagnosis"), dict) else {}
    base = next((s.settings or {} for s in job.steps if s.kind == "bare"), {})
    return {
        "id": job.id, "created_at": job.created_at, "status": job.status, "model": job.model_path,
        "settings": job.settings or {}, "verdict": result.get("verdict"), "summary": result.get("summary"),
        "culprit": f"{culprit.get('key')}={culprit.get('value')!r}" if culprit else None,
        "rule_id": diagnosis.get("rule_id"), "fix_confirmed": result.get("fix_confirmed"),
        "gpu": env.get("gpu_name") or env.get("platform"), "error": job.error,
        "seconds": sum(s.seconds or 0 for s in job.steps),
        "steps": [{"no": s.step_no, "kind": s.kind, "changed": _changed(s, base), "ok": s.ok, "seconds": s.seconds,
                   "rule_id": s.rule_id} for s in job.steps],
    }


def _changed(step, base: dict) -> dict:
    """What a step ran beyond the bare start: the setting an `add` step added, a fix's values."""
    if step.kind not in ("add", "fix"):
        return {}
    return {k: v for k, v in (step.settings or {}).items() if base.get(k, _MISSING) != v}


_MISSING = object()


def _midnight(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), tzinfo=dt.timezone.utc)

