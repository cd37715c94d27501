"""Per-rule statistics from the outcome store: how often each rule answered and how it went.

- hits: pastes the rule answered first (the answer people saw);
- feedback on those answers, one vote per person per paste (their latest), as fixed/wrong/partly;
- precision = (fixed + partly/2) / votes, with a 95% Wilson score interval, which stays honest
  for the handful of votes a rule usually has (a normal interval would claim 100% ± 0 after 2
  votes);
- the vLLM versions of the logs a rule fired on that fall outside the versions it claims
  (`versions:`) or, when it claims none, differ from the version it was verified on;
- shadow rules: how they would have done had they been shown (see ShadowOutcome);
- flagged: rules whose "wrong" share is above a threshold once they have enough votes;
- precision dropping: the last few weeks' pastes got worse votes than the earlier ones, by more
  than chance explains (the recent interval's upper end is below the earlier precision).
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import asdict, dataclass, field

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version
from sqlalchemy import Integer, and_, case, cast, func, or_, select
from sqlalchemy.orm import Session

from bot.store.models import Diagnosis, DiagnosisCandidate, as_utc, utcnow

Z95 = 1.959963984540054
# "Recent" for the precision trend: four weeks, long enough to gather a few votes per rule.
RECENT_DAYS = 28


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float] | None:
    """95% Wilson score interval of a proportion; None without observations."""
    if n <= 0:
        return None
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class ShadowOutcome:
    """What a shadow rule would have done: it is recorded but never shown.

    would_be_first: it scored at least as high as the answer shown (or nothing was shown);
    fills_gap:      of those, pastes nobody answered;
    displaced_fixed: of those, pastes whose shown answer people said fixed it (it would likely
                     have replaced a good answer);
    shown_was_wrong: of those, pastes whose shown answer people said was wrong (it might have
                     done better).
    """

    matched: int = 0
    would_be_first: int = 0
    fills_gap: int = 0
    displaced_fixed: int = 0
    shown_was_wrong: int = 0


@dataclass
class RuleStats:
    rule_id: str
    status: str                      # active | shadow | missing (in the store, not the rule book)
    pack: str | None = None          # the rule pack it comes from (None: not in the rule book)
    hits: int = 0
    also_matched: int = 0            # matched, but another rule was shown first
    fixed: int = 0
    wrong: int = 0
    partly: int = 0
    precision: float | None = None
    precision_low: float | None = None
    precision_high: float | None = None
    wrong_rate: float | None = None
    flagged: bool = False
    flag_reason: str | None = None
    versions: str | None = None
    verified_vllm: str | None = None
    versions_seen: dict[str, int] = field(default_factory=dict)
    outside_versions: dict[str, int] = field(default_factory=dict)
    shadow: ShadowOutcome | None = None
    last_hit: dt.datetime | None = None
    recent_votes: int = 0            # votes on pastes of the last `recent_days`
    recent_precision: float | None = None
    earlier_precision: float | None = None
    precision_dropping: bool = False
    _recent: tuple = field(default=(0, 0, 0), repr=False)      # fixed, wrong, partly

    @property
    def votes(self) -> int:
        return self.fixed + self.wrong + self.partly

    def to_dict(self) -> dict:
        d = asdict(self)
        del d["_recent"]
        d["votes"] = self.votes
        d["last_hit"] = self.last_hit.isoformat() if self.last_hit else None
        return d


@dataclass
class Stats:
    diagnoses: int
    answered: int
    rulebook_version: str | None
    rules: list[RuleStats]
    wrong_threshold: float
    min_feedback: int
    recent_days: int = RECENT_DAYS

    @property
    def flagged(self) -> list[RuleStats]:
        return [r for r in self.rules if r.flagged]

    def to_dict(self) -> dict:
        return {
            "diagnoses": self.diagnoses,
            "answered": self.answered,
            "rulebook_version": self.rulebook_version,
            "wrong_threshold": self.wrong_threshold,
            "min_feedback": self.min_feedback,
            "recent_days": self.recent_days,
            "flagged": [r.rule_id for r in self.flagged],
            "rules": [r.to_dict() for r in self.rules],
        }


def count_if(condition):
    """COUNT of the rows where `condition` holds, in one pass (works on SQLite and PostgreSQL)."""
    return total(case((condition, 1), else_=0))


def total(expr):
    """SUM as an integer, 0 for no rows (PostgreSQL sums bigints into numeric)."""
    return cast(func.coalesce(func.sum(expr), 0), Integer)


def precision(fixed: float, wrong: float, partly: float) -> float | None:
    """The share of votes that say the answer helped, a partial fix counting half."""
    n = fixed + wrong + partly
    return (fixed + 0.5 * partly) / n if n else None


def compute(session: Session, rulebook=None, *, wrong_threshold: float = 0.3, min_feedback: int = 3,
            recent_days: int = RECENT_DAYS, now: dt.datetime | None = None, only: str | None = None) -> Stats:
    """Per-rule statistics, aggregated by the database in a few grouped queries that covering
    indexes answer (the maintainers' dashboard renders them for 100,000 pastes).

    A rule is a candidate of a paste at most once (matcher: one candidate per rule), and a paste's
    top_rule_id is its first active candidate; so a rule's hits are the pastes it is the top rule
    of, and what it matched without being shown is its active candidates less its hits.

    only: the statistics of that one rule (the same numbers, for a page about it).
    """
    rules: dict[str, RuleStats] = {}
    for rule in (rulebook.rules.values() if rulebook is not None else ()):
        if only is not None and rule.id != only:
            continue
        rules[rule.id] = RuleStats(
            rule.id, rule.status, rule.pack,
            versions=str(rule.versions) if rule.versions is not None else None,
            verified_vllm=(rule.verified or {}).get("vllm"))

    def stats_for(rule_id: str, status: str) -> RuleStats:
        if rule_id not in rules:
            rules[rule_id] = RuleStats(rule_id, "missing" if rulebook is not None else status)
        return rules[rule_id]

    d, c = Diagnosis, DiagnosisCandidate
    recent_from = (now or utcnow()) - dt.timedelta(days=recent_days)
    for row in session.execute(_hits(recent_from, only)):
        rs = stats_for(row.rule_id, "active")
        rs.hits += row.n
        rs.fixed += row.fixed
        rs.wrong += row.wrong
        rs.partly += row.partly
        rs._recent = _add(rs._recent, (row.recent_fixed, row.recent_wrong, row.recent_partly))
        rs.recent_votes = sum(rs._recent)
        _count_version(rs, row.vllm_version, row.n)
        last = as_utc(row.last_hit)
        rs.last_hit = max(rs.last_hit, last) if rs.last_hit else last
    active = select(c.rule_id, func.count()).where(c.status == "active").group_by(c.rule_id)
    for rule_id, n in session.execute(active if only is None else active.where(c.rule_id == only)):
        rs = stats_for(rule_id, "active")
        rs.also_matched = n - rs.hits
    for row in session.execute(_shadow_outcomes(only)):
        rs = stats_for(row.rule_id, "shadow")
        outcome = rs.shadow = rs.shadow or ShadowOutcome()
        outcome.matched += row.n
        outcome.would_be_first += row.first
        outcome.fills_gap += row.fills_gap
        outcome.displaced_fixed += row.displaced_fixed
        outcome.shown_was_wrong += row.shown_was_wrong
        _count_version(rs, row.vllm_version, row.n)

    for rs in rules.values():
        _finish(rs, wrong_threshold, min_feedback)
    ordered = sorted(rules.values(), key=lambda r: (-r.hits, -(r.shadow.matched if r.shadow else 0), r.rule_id))
    diagnoses, answered = session.execute(
        select(func.count(), count_if(d.verdict == "diagnosed")).select_from(d)).one()
    return Stats(
        diagnoses=diagnoses, answered=answered,
        rulebook_version=getattr(rulebook, "version", None),
        rules=ordered, wrong_threshold=wrong_threshold, min_feedback=min_feedback, recent_days=recent_days)


def _hits(recent_from: dt.datetime, only: str | None = None):
    """Per rule and vLLM version: the pastes it answered first, their votes (all, and on the pastes
    since `recent_from`) and the last one."""
    d = Diagnosis
    recent = d.created_at >= recent_from
    votes = {"fixed": d.votes_fixed, "wrong": d.votes_wrong, "partly": d.votes_partly}
    return (select(d.top_rule_id.label("rule_id"), d.vllm_version, func.count().label("n"),
                   func.max(d.created_at).label("last_hit"),
                   *(total(column).label(k) for k, column in votes.items()),
                   *(total(case((recent, column), else_=0)).label("recent_" + k) for k, column in votes.items()))
            .where(d.top_rule_id.is_not(None) if only is None else d.top_rule_id == only)
            .group_by(d.top_rule_id, d.vllm_version))


def _add(a: tuple, b: tuple) -> tuple:
    return tuple(x + y for x, y in zip(a, b))


def _shadow_outcomes(only: str | None = None):
    """Shadow candidates by rule and vLLM version, with what they would have done (ShadowOutcome)."""
    c, d = DiagnosisCandidate, Diagnosis
    fixed, wrong = d.votes_fixed, d.votes_wrong
    # The confidence of the answer people saw; NULL when nothing was shown.
    shown = case((d.verdict == "diagnosed", d.top_confidence), else_=None)
    first = or_(shown.is_(None), c.confidence >= shown)
    return (select(c.rule_id, d.vllm_version, func.count().label("n"),
                   count_if(first).label("first"),
                   count_if(and_(first, shown.is_(None))).label("fills_gap"),
                   count_if(and_(first, shown.is_not(None), fixed > wrong)).label("displaced_fixed"),
                   count_if(and_(first, shown.is_not(None), wrong > fixed)).label("shown_was_wrong"))
            .join(d, d.id == c.diagnosis_id)
            .where(c.status == "shadow", *([] if only is None else [c.rule_id == only]))
            .group_by(c.rule_id, d.vllm_version))


def _count_version(rs: RuleStats, version: str | None, n: int) -> None:
    rs.versions_seen[version or "unknown"] = rs.versions_seen.get(version or "unknown", 0) + n


def _finish(rs: RuleStats, wrong_threshold: float, min_feedback: int) -> None:
    if rs.shadow is None and rs.status == "shadow":
        rs.shadow = ShadowOutcome()
    n = rs.votes
    if n:
        rs.precision = precision(rs.fixed, rs.wrong, rs.partly)
        rs.precision_low, rs.precision_high = wilson(rs.fixed + 0.5 * rs.partly, n)
        rs.wrong_rate = rs.wrong / n
        if n >= min_feedback and rs.wrong_rate > wrong_threshold:
            rs.flagged = True
            rs.flag_reason = f"wrong in {rs.wrong} of {n} votes ({rs.wrong_rate:.0%} > {wrong_threshold:.0%})"
    recent = rs._recent
    earlier = (rs.fixed - recent[0], rs.wrong - recent[1], rs.partly - recent[2])
    rs.recent_precision = precision(*recent)
    rs.earlier_precision = precision(*earlier)
    if sum(recent) >= min_feedback and sum(earlier) >= min_feedback:
        _low, high = wilson(recent[0] + 0.5 * recent[2], sum(recent))
        rs.precision_dropping = high < rs.earlier_precision
    rs.outside_versions = _outside(rs.versions_seen, rs.versions, rs.verified_vllm)


def _outside(seen: dict[str, int], versions: str | None, verified: str | None) -> dict[str, int]:
    """Versions hit that the rule does not claim; when it claims no range, the verified version is the range."""
    spec = None
    if versions:
        try:
            spec = SpecifierSet(str(versions))
        except InvalidSpecifier:
            spec = None
    if spec is None and verified:
        try:
            spec = SpecifierSet(f"=={Version(verified)}")
        except InvalidVersion:
            return {}
    if spec is None:
        return {}
    outside = {}
    for text, count in seen.items():
        try:
            version = Version(text)
        except InvalidVersion:
            continue          # "unknown", or something a log printed that is not PEP 440
        if not spec.contains(version, prereleases=True):
            outside[text] = count
    return outside
