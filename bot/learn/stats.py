"""Per-rule statistics from the outcome store: how often each rule answered and how it went.

- hits: pastes the rule answered first (the answer people saw);
- feedback on those answers, one vote per person per paste (their latest), as fixed/wrong/partly;
- precision = (fixed + partly/2) / votes, with a 95% Wilson score interval, which stays honest
  for the handful of votes a rule usually has (a normal interval would claim 100% ± 0 after 2
  votes);
- the vLLM versions of the logs a rule fired on that fall outside the versions it claims
  (`versions:`) or, when it claims none, differ from the version it was verified on;
- shadow rules: how they would have done had they been shown (see ShadowOutcome);
- flagged: rules whose "wrong" share is above a threshold once they have enough votes.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, field

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version
from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.store.models import Diagnosis, DiagnosisCandidate, Feedback

Z95 = 1.959963984540054


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

    @property
    def votes(self) -> int:
        return self.fixed + self.wrong + self.partly

    def to_dict(self) -> dict:
        d = asdict(self)
        d["votes"] = self.votes
        return d


@dataclass
class Stats:
    diagnoses: int
    answered: int
    rulebook_version: str | None
    rules: list[RuleStats]
    wrong_threshold: float
    min_feedback: int

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
            "flagged": [r.rule_id for r in self.flagged],
            "rules": [r.to_dict() for r in self.rules],
        }


@dataclass
class _Paste:
    verdict: str
    top_rule_id: str | None
    top_confidence: float | None
    vllm_version: str | None
    votes: Counter = field(default_factory=Counter)


def compute(session: Session, rulebook=None, *, wrong_threshold: float = 0.3, min_feedback: int = 3) -> Stats:
    pastes = _pastes(session)
    rules: dict[str, RuleStats] = {}
    for rule in (rulebook.rules.values() if rulebook is not None else ()):
        rules[rule.id] = RuleStats(
            rule.id, rule.status, rule.pack,
            versions=str(rule.versions) if rule.versions is not None else None,
            verified_vllm=(rule.verified or {}).get("vllm"))

    def stats_for(rule_id: str, status: str) -> RuleStats:
        if rule_id not in rules:
            rules[rule_id] = RuleStats(rule_id, "missing" if rulebook is not None else status)
        return rules[rule_id]

    rows = session.execute(select(DiagnosisCandidate.diagnosis_id, DiagnosisCandidate.rule_id,
                                  DiagnosisCandidate.status, DiagnosisCandidate.confidence))
    for diagnosis_id, rule_id, status, confidence in rows:
        paste = pastes[diagnosis_id]
        rs = stats_for(rule_id, status)
        if status == "shadow":
            _count_shadow(rs, paste, confidence)
            _count_version(rs, paste.vllm_version)
        elif paste.top_rule_id == rule_id:
            rs.hits += 1
            rs.fixed += paste.votes["fixed"]
            rs.wrong += paste.votes["wrong"]
            rs.partly += paste.votes["partly"]
            _count_version(rs, paste.vllm_version)
        else:
            rs.also_matched += 1

    for rs in rules.values():
        _finish(rs, wrong_threshold, min_feedback)
    ordered = sorted(rules.values(), key=lambda r: (-r.hits, -(r.shadow.matched if r.shadow else 0), r.rule_id))
    return Stats(
        diagnoses=len(pastes),
        answered=sum(1 for p in pastes.values() if p.verdict == "diagnosed"),
        rulebook_version=getattr(rulebook, "version", None),
        rules=ordered, wrong_threshold=wrong_threshold, min_feedback=min_feedback)


def _pastes(session: Session) -> dict[int, _Paste]:
    pastes = {
        row.id: _Paste(row.verdict, row.top_rule_id, row.top_confidence, row.vllm_version)
        for row in session.execute(select(Diagnosis.id, Diagnosis.verdict, Diagnosis.top_rule_id,
                                          Diagnosis.top_confidence, Diagnosis.vllm_version))
    }
    # One vote per person per paste: people change their mind, and a double click is not two votes.
    latest: dict[tuple[int, str], str] = {}
    for diagnosis_id, user_id, verdict in session.execute(
            select(Feedback.diagnosis_id, Feedback.user_id, Feedback.verdict)
            .order_by(Feedback.created_at, Feedback.id)):
        latest[(diagnosis_id, user_id)] = verdict
    for (diagnosis_id, _user), verdict in latest.items():
        if diagnosis_id in pastes:
            pastes[diagnosis_id].votes[verdict] += 1
    return pastes


def _count_shadow(rs: RuleStats, paste: _Paste, confidence: float) -> None:
    outcome = rs.shadow = rs.shadow or ShadowOutcome()
    outcome.matched += 1
    shown = paste.top_confidence if paste.verdict == "diagnosed" else None
    if shown is not None and confidence < shown:
        return
    outcome.would_be_first += 1
    if shown is None:
        outcome.fills_gap += 1
    elif paste.votes["fixed"] > paste.votes["wrong"]:
        outcome.displaced_fixed += 1
    elif paste.votes["wrong"] > paste.votes["fixed"]:
        outcome.shown_was_wrong += 1


def _count_version(rs: RuleStats, version: str | None) -> None:
    rs.versions_seen[version or "unknown"] = rs.versions_seen.get(version or "unknown", 0) + 1


def _finish(rs: RuleStats, wrong_threshold: float, min_feedback: int) -> None:
    if rs.shadow is None and rs.status == "shadow":
        rs.shadow = ShadowOutcome()
    n = rs.votes
    if n:
        rs.precision = (rs.fixed + 0.5 * rs.partly) / n
        rs.precision_low, rs.precision_high = wilson(rs.fixed + 0.5 * rs.partly, n)
        rs.wrong_rate = rs.wrong / n
        if n >= min_feedback and rs.wrong_rate > wrong_threshold:
            rs.flagged = True
            rs.flag_reason = f"wrong in {rs.wrong} of {n} votes ({rs.wrong_rate:.0%} > {wrong_threshold:.0%})"
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
