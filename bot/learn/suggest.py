"""Draft rules from what the bot could not answer.

Unanswered pastes (verdict other than 'diagnosed') are grouped by the failure signature of their
root error. Each group seen often enough becomes a draft for a person to finish:

    <out>/rules/<draft-id>.yaml                     status: shadow, pattern from the signature,
                                                    title/cause/fix left as TODO, counts in comments
    <out>/tests/fixtures/logs/<draft-id>/<n>.log    the real (redacted) excerpts, with a #=SOURCE=# header

The layout mirrors the repository, so a finished draft moves over as it is. A draft stays
`status: shadow` until `rules stats` shows it would have done well.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.diagnose.reading.signature import PLACEHOLDER
from bot.store.models import Diagnosis, DiagnosisCandidate

MAX_FIXTURES = 5
# Fixtures are looked for among this many of a cluster's first pastes, a batch at a time.
FIXTURE_SCAN = 200
FIXTURE_BATCH = 20
# The pattern keeps the stable first part of the message: vLLM rewrites the tails of its
# messages between releases (rules/README.md, "Authoring guidelines").
PATTERN_LITERAL_CHARS = 160
_META = set(".^$*+?()[]{}|\\`")


@dataclass
class Paste:
    """What suggest needs of an unanswered paste (its excerpt is read only for fixtures)."""

    id: int
    created_at: dt.datetime
    source: str
    verdict: str
    vllm_version: str | None
    root_text: str | None
    shadow_rules: list[str] = field(default_factory=list)     # shadow rules that matched it


@dataclass
class Cluster:
    signature: str
    diagnoses: list[Paste] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.diagnoses)


@dataclass
class Draft:
    id: str
    cluster: Cluster
    pattern: str
    matches: int                       # examples the pattern finds
    rule_path: Path | None = None
    fixture_paths: list[Path] = field(default_factory=list)


@dataclass
class Skipped:
    signature: str
    count: int
    reason: str


def clusters(session: Session, signature: str | None = None) -> list[Cluster]:
    """Unanswered pastes with a root error, grouped by signature, biggest group first (or only
    the group of `signature`), oldest paste first within each."""
    d, c = Diagnosis, DiagnosisCandidate
    where = [d.verdict != "diagnosed", d.signature.is_not(None)]
    if signature is not None:
        where.append(d.signature == signature)
    shadows: dict[int, list[str]] = {}
    for diagnosis_id, rule_id in session.execute(
            select(c.diagnosis_id, c.rule_id).join(d, d.id == c.diagnosis_id).where(c.status == "shadow", *where)
            .order_by(c.diagnosis_id, c.rank)):
        shadows.setdefault(diagnosis_id, []).append(rule_id)
    groups: dict[str, Cluster] = {}
    for row in session.execute(select(d.id, d.created_at, d.source, d.verdict, d.vllm_version, d.root_text,
                                      d.signature).where(*where).order_by(d.created_at, d.id)):
        paste = Paste(row.id, row.created_at, row.source, row.verdict, row.vllm_version, row.root_text,
                      shadows.get(row.id, []))
        groups.setdefault(row.signature, Cluster(row.signature)).diagnoses.append(paste)
    return sorted(groups.values(), key=lambda c: (-c.count, c.signature))


def suggest(session: Session, out: Path, *, min_count: int = 2, rulebook=None,
            today: dt.date | None = None) -> tuple[list[Draft], list[Skipped]]:
    drafts: list[Draft] = []
    skipped: list[Skipped] = []
    for cluster in clusters(session):
        if cluster.count < min_count:
            continue
        outcome = draft_for(cluster, rulebook)
        if isinstance(outcome, Skipped):
            skipped.append(outcome)
            continue
        _write(session, outcome, out, today or dt.date.today())
        drafts.append(outcome)
    return drafts, skipped


def draft_for(cluster: Cluster, rulebook=None) -> Draft | Skipped:
    """The draft rule for one cluster, or why none is needed."""
    covered = _covered_by(cluster, rulebook)
    if covered:
        return Skipped(cluster.signature, cluster.count, covered)
    pattern = pattern_from_signature(cluster.signature)
    if not pattern:
        return Skipped(cluster.signature, cluster.count, "the signature has no stable text")
    rx = re.compile(pattern)
    matches = sum(1 for d in cluster.diagnoses if d.root_text and rx.search(d.root_text))
    return Draft(draft_id(cluster.signature), cluster, pattern, matches)


def pattern_from_signature(sig: str, limit: int = PATTERN_LITERAL_CHARS) -> str:
    """A regex for the stable part of a signature: its literal pieces, escaped, with `.+?` where
    a masked part was; trimmed to about `limit` literal characters, never ending in a gap."""
    pieces = PLACEHOLDER.split(sig)
    out: list[str] = []
    used = 0
    for i, piece in enumerate(pieces):
        if i and out:
            out.append(".+?")
        if used + len(piece) > limit:
            cut = piece[: limit - used]
            cut = cut[: cut.rfind(" ")] if " " in cut else cut
            out.append(_escape(cut.rstrip()))
            break
        out.append(_escape(piece))
        used += len(piece)
    while out and out[-1] in (".+?", ""):
        out.pop()
    while out and out[0] in (".+?", ""):
        out.pop(0)
    return "".join(out).strip()


def draft_id(sig: str) -> str:
    """`draft-` + the first words of the message + a short hash, so two drafts never collide
    and re-running suggest rewrites the same file."""
    text = PLACEHOLDER.sub(" ", sig)
    text = re.sub(r"^\s*[A-Za-z_]\w*(?:Error|Exception):", " ", text)      # the class says little
    words = re.findall(r"[a-z0-9]+", text.lower())[:5] or ["error"]
    digest = hashlib.sha1(sig.encode()).hexdigest()[:6]
    return "-".join(["draft", *words, digest])


def _escape(text: str) -> str:
    return "".join("\\" + ch if ch in _META else ch for ch in text)


def _covered_by(cluster: Cluster, rulebook) -> str | None:
    """Why no draft is needed: a rule now matches these lines, or a shadow rule is already proving itself."""
    examples = [d.root_text for d in cluster.diagnoses if d.root_text]
    if rulebook is not None and examples:
        for rule in rulebook.rules.values():
            if any(all(p.search(t) for t in examples) for p in rule.patterns):
                return f"rule {rule.id} ({rule.status}) now matches these lines"
    shadows = Counter(rule_id for d in cluster.diagnoses for rule_id in d.shadow_rules)
    for rule_id, n in shadows.items():
        if n == cluster.count:
            return f"shadow rule {rule_id} already matched all {n}"
    return None


def _write(session: Session, draft: Draft, out: Path, today: dt.date) -> None:
    fixtures = out / "tests" / "fixtures" / "logs" / draft.id
    for old in fixtures.glob("*.log"):     # a re-run replaces what the previous one wrote
        old.unlink()
    for relative, text in draft_files(session, draft, today).items():
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if relative.startswith("rules/"):
            draft.rule_path = path
        else:
            draft.fixture_paths.append(path)


def draft_files(session: Session, draft: Draft, today: dt.date) -> dict[str, str]:
    """What `suggest` writes for a draft, by path relative to the output folder (the layout of
    the repository): the rule file, then up to MAX_FIXTURES distinct excerpts of the cluster's
    first FIXTURE_SCAN pastes as fixtures."""
    files = {f"rules/{draft.id}.yaml": _rule_yaml(draft, today)}
    seen: set[str] = set()
    first = draft.cluster.diagnoses[:FIXTURE_SCAN]
    for start in range(0, len(first), FIXTURE_BATCH):
        batch = first[start:start + FIXTURE_BATCH]
        excerpts = dict(session.execute(select(Diagnosis.id, Diagnosis.excerpt)
                                        .where(Diagnosis.id.in_([d.id for d in batch]))).all())
        for d in batch:
            if len(files) > MAX_FIXTURES:
                return files
            # A "#=" line inside the paste would read as a fixture header.
            text = "\n".join(line for line in (excerpts.get(d.id) or d.root_text or "").split("\n")
                             if not line.startswith("#=")).strip("\n")
            if not text or text in seen:
                continue
            seen.add(text)
            files[f"tests/fixtures/logs/{draft.id}/{len(files)}.log"] = _fixture(d, draft.id, text)
    return files


def _fixture(d: Paste, rule_id: str, text: str) -> str:
    when = d.created_at.date().isoformat() if d.created_at else "unknown date"
    version = f"vLLM {d.vllm_version}" if d.vllm_version else "vLLM version not in the log"
    return (f"#=SOURCE=# vllm-doctor store, diagnosis {d.id} ({d.source} paste, {when}, {version}; "
            f"redacted excerpt)\n#=EXPECT=# {rule_id}\n{text}\n")


def _rule_yaml(draft: Draft, today: dt.date) -> str:
    ds = draft.cluster.diagnoses
    first = min(d.created_at for d in ds).date().isoformat()
    last = max(d.created_at for d in ds).date().isoformat()
    versions = Counter(d.vllm_version or "unknown" for d in ds)
    verdicts = Counter(d.verdict for d in ds)
    src = from_source([d.root_text for d in ds if d.root_text])
    patterns = [draft.pattern] + ([src["pattern"]] if src.get("pattern") else [])
    return "\n".join([
        f"# Draft from `vllm-doctor rules suggest`, {today.isoformat()}.",
        f"# {draft.cluster.count} unanswered pastes share this failure ({_counts(verdicts)}),",
        f"# first seen {first}, last seen {last}; vLLM versions: {_counts(versions)}.",
        f"# The pattern finds {draft.matches} of the {draft.cluster.count} root error lines.",
        f"# signature: {_comment(draft.cluster.signature)}",
        *src.get("comments", []),
        "# To finish: write title, cause and fix (en and zh), check the pattern against the fixtures,",
        "# set `versions:`, then move this file to rules/ and its fixtures to tests/fixtures/logs/.",
        "# Keep `status: shadow` until `vllm-doctor rules stats` shows it would have done well.",
        f"id: {draft.id}",
        "level: root",
        "status: shadow",
        "title:",
        '  en: "TODO: one line naming the failure"',
        '  zh: "TODO"',
        "match:",
        "  patterns:",
        *(f"    - {_single_quoted(p)}" for p in patterns),
        *(["  fuzzy:", f"    - {_single_quoted(src['fuzzy'])}"] if src.get("fuzzy") else []),
        "cause:",
        *_texts(src.get("cause"), "TODO: why it happens"),
        "fix:",
        *_texts(src.get("fix"), "TODO: how to fix it"),
        *([f"versions: {_single_quoted(src['versions'])}"] if src.get("versions") else []),
        "",
    ])


def _texts(drafted: dict | None, todo: str) -> list[str]:
    if not drafted:
        return [f'  en: "{todo}"', '  zh: "TODO"']
    out = []
    for lang in ("en", "zh"):
        out.append(f"  {lang}: |")
        out += [f"    {line}" if line else "" for line in drafted[lang].split("\n")]
    return out


# --- what vLLM's source says about the message -----------------------------------------------------

SOURCE_EXAMPLES = 5


def from_source(root_texts: list[str]) -> dict:
    """A head start from the index of vLLM's releases, when it knows the message: where vLLM raises
    it and which releases have it (comments and `versions`), the check in words and as code, and
    the settings it reads (a drafted cause and fix), the template as a pattern with captures and a
    fuzzy sentence. Empty when the index is not installed or does not know the message."""
    from bot.diagnose.knowledge.vllm import index
    idx = index.load()
    sites: dict = {}                    # site id -> (site, how many examples it explains)
    for text in root_texts[:SOURCE_EXAMPLES] if idx is not None else []:
        found = idx.match(text, limit=1)
        if found:
            site = found[0].site
            sites[site.id] = (site, sites.get(site.id, (site, 0))[1] + 1)
    if not sites:
        return {}
    from bot.diagnose.knowledge.vllm import conditions
    from bot.diagnose.knowledge.vllm.answers import runs, settings_of
    from bot.diagnose.knowledge.vllm.synthesis import synthesise
    ranked = sorted(sites.values(), key=lambda sn: -sn[1])
    site, w = ranked[0][0], ranked[0][0].latest_where()
    out: dict = {"comments": []}
    for other, n in ranked:         # the same failure worded differently in other releases
        ow = other.latest_where()
        out["comments"] += [
            f"# From vLLM's source ({n} of the examples): `{other.exc}` raised in {ow['file']}, function "
            f"{ow['function'] or '<module>'} (line {ow['line']} in vLLM {ow['release']}); indexed releases that "
            f"have it: {runs(other.releases, idx.releases)}.",
            f"# vLLM's template: {_comment(other.template)[:300]}"]
    have = sorted({r for other, _ in ranked for r in other.releases}, key=idx.releases.index)
    first, last = have[0], have[-1]
    newer = idx.releases[idx.releases.index(last) + 1:]
    out["versions"] = f">={first}" + (f",<{newer[0]}" if newer else "")
    older = "older releases are not indexed" if first == idx.releases[0] else "check the wheels in between"
    out["comments"].append(f"# versions: the first indexed release with it is {first}"
                           + (f", the first without it {newer[0]}" if newer else "")
                           + f" ({older}: `pip download --no-deps vllm==X`).")
    cond = w.get("condition")
    cause = {"en": [], "zh": []}
    if cond:
        for lang in ("en", "zh"):
            said = conditions.words(cond, lang)
            if said:
                cause[lang].append(_braces(said))
            cause[lang].append(f"`{_braces(cond)}`" + (" (vLLM's check)" if lang == "en" else "（vLLM 的检查）"))
    cause["en"].append("TODO: why it happens, in words a user understands.")
    cause["zh"].append("TODO：为什么会这样，用用户能懂的话写。")
    out["cause"] = {lang: "\n\n".join(parts) for lang, parts in cause.items()}
    fix = {}
    for lang in ("en", "zh"):
        lines = settings_of(idx, site, w, last, lang)
        head = ("TODO: how to fix it. The settings the check reads, as vLLM " + last + " defines them:") if lang == "en" \
            else ("TODO：怎么修复。检查涉及的设置（按 vLLM " + last + " 的定义）：")
        fix[lang] = _braces(head + "\n" + "\n".join(lines)) if lines else ("TODO: how to fix it" if lang == "en" else "TODO")
    out["fix"] = fix
    pattern = template_pattern(site.parts)
    if pattern and all(re.search(pattern, t) for t in root_texts[:SOURCE_EXAMPLES]):
        out["pattern"] = pattern
    out["fuzzy"] = " ".join(synthesise(site).split())[:200] if site.literal_chars >= 20 else None
    return out


def _braces(text: str) -> str:
    """Literal braces in a rule text are doubled: `{x}` there is a placeholder."""
    return text.replace("{", "{{").replace("}", "}}")


def template_pattern(parts: list[tuple[str, str]], limit: int = PATTERN_LITERAL_CHARS) -> str | None:
    """vLLM's template as a pattern whose placeholders are named captures (`(?P<max_model_len>...)`),
    up to about `limit` literal characters; None when it has no placeholder before that point."""
    out, used, names = [], 0, set()
    for kind, value in parts:
        if kind == "lit":
            if used + len(value) > limit:
                cut = value[: limit - used]
                out.append(_escape(cut[: cut.rfind(" ")] if " " in cut else cut))
                break
            out.append(_escape(value))
            used += len(value)
        else:
            name = re.sub(r"\W+", "_", value.split(".")[-1].split("(")[-1]).strip("_").lower() or "value"
            name = name if name[0].isalpha() and name not in names else f"v{len(names)}_{name}"[:30]
            names.add(name)
            out.append(f"(?P<{name}>.{{1,200}}?)")
    while out and out[-1].startswith("(?P<"):
        out.pop()                          # a trailing capture would match one character
    pattern = "".join(out).strip()
    return pattern if "(?P<" in pattern else None


def _counts(counter: Counter) -> str:
    return ", ".join(f"{k} ({n})" for k, n in counter.most_common())


def _comment(text: str) -> str:
    return " ".join(text.split())


def _single_quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
