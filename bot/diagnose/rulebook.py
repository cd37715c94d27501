"""Load, validate and compile the rule book (rules/*.yaml, one rule per file).

Parsing YAML costs more than the rest of a CLI call, so the validated rule book is cached as JSON
keyed on the files' names, sizes and mtimes; a changed file rebuilds the cache. Errors name the
file and the field.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

LEVELS = ("root", "wrapper", "hint")
STATUSES = ("active", "shadow")
SCOPES = ("errors", "any", "tail")
LANGS = ("en", "zh")
WHEN_KEYS = ("engine_starts", "vllm_version", "torch_version", "cuda_version", "compute_capability",
             "platform", "has_traceback", "vllm_context")
TOP_KEYS = {"id", "level", "status", "title", "match", "supersedes", "cause", "fix", "verified",
            "versions", "related", "repro", "fix_settings", "fix_env", "references", "notes"}
MATCH_KEYS = {"patterns", "fuzzy", "scope", "when"}
_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_CACHE_FORMAT = 3


class RuleError(ValueError):
    """A rule file that does not follow rules/README.md."""


@dataclass
class Rule:
    id: str
    level: str
    status: str
    title: dict
    cause: dict
    fix: dict
    pattern_sources: list[str]
    fuzzy: list[str]
    scope: str
    when: dict
    supersedes: list[str]
    verified: dict
    versions: str | None
    related: list[str]
    repro: dict
    fix_settings: dict
    fix_env: dict
    references: list[str]
    path: str
    patterns: list[re.Pattern[str]] = field(default_factory=list, repr=False)

    def compile(self) -> "Rule":
        self.patterns = [re.compile(p) for p in self.pattern_sources]
        return self

    def to_json(self) -> dict:
        d = dict(self.__dict__)
        d.pop("patterns")
        return d


@dataclass
class RuleBook:
    rules: dict[str, Rule]
    version: str
    errors: list[str]
    directory: str

    def __iter__(self):
        return iter(self.rules.values())

    def __len__(self) -> int:
        return len(self.rules)


def default_directory() -> Path:
    env = os.environ.get("VLLM_DOCTOR_RULES")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent.parent / "rules"


def _lang_text(data: dict, key: str, where: str) -> dict:
    value = data.get(key)
    if not isinstance(value, dict):
        raise RuleError(f"{where}: {key}: must be a mapping with 'en' and 'zh' texts")
    for lang in LANGS:
        if not isinstance(value.get(lang), str) or not value[lang].strip():
            raise RuleError(f"{where}: {key}.{lang}: missing or empty")
    return {lang: value[lang].strip() for lang in LANGS}


def _str_list(value, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RuleError(f"{where}: must be a list of strings")
    return value


def _mapping(value, where: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RuleError(f"{where}: must be a mapping")
    return value


def _env(value, where: str) -> dict:
    env = _mapping(value, where)
    for k, v in env.items():
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", str(k)) or isinstance(v, (dict, list)):
            raise RuleError(f"{where}.{k}: must map an environment variable NAME to a value")
    return {k: str(v) for k, v in env.items()}


def validate(data, path: Path) -> Rule:
    """Check one parsed rule file; raise RuleError naming the file and field."""
    where = path.name
    if not isinstance(data, dict):
        raise RuleError(f"{where}: the file must hold one mapping (a rule)")
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise RuleError(f"{where}: unknown field(s) {sorted(unknown)}")
    rid = data.get("id")
    if not isinstance(rid, str) or not _ID.match(rid):
        raise RuleError(f"{where}: id: must be lowercase words joined by '-'")
    if rid != path.stem:
        raise RuleError(f"{where}: id: '{rid}' differs from the file name '{path.stem}'")
    level = data.get("level")
    if level not in LEVELS:
        raise RuleError(f"{where}: level: must be one of {LEVELS}")
    status = data.get("status", "active")
    if status not in STATUSES:
        raise RuleError(f"{where}: status: must be one of {STATUSES}")
    match = _mapping(data.get("match"), f"{where}: match")
    unknown = set(match) - MATCH_KEYS
    if unknown:
        raise RuleError(f"{where}: match: unknown field(s) {sorted(unknown)}")
    patterns = _str_list(match.get("patterns"), f"{where}: match.patterns")
    fuzzy = _str_list(match.get("fuzzy"), f"{where}: match.fuzzy")
    if not patterns and not fuzzy:
        raise RuleError(f"{where}: match: needs patterns or fuzzy sentences")
    for i, p in enumerate(patterns):
        try:
            re.compile(p)
        except re.error as e:
            raise RuleError(f"{where}: match.patterns[{i}]: does not compile: {e}") from None
    for i, s in enumerate(fuzzy):
        if len(s) < 20:
            raise RuleError(f"{where}: match.fuzzy[{i}]: too short to score reliably (< 20 chars)")
    scope = match.get("scope", "errors")
    if scope not in SCOPES:
        raise RuleError(f"{where}: match.scope: must be one of {SCOPES}")
    when = _mapping(match.get("when"), f"{where}: match.when")
    for key in when:
        if key not in WHEN_KEYS:
            raise RuleError(f"{where}: match.when.{key}: unknown fact (known: {', '.join(WHEN_KEYS)})")
    versions = data.get("versions")
    if versions is not None:
        versions = str(versions)
        from packaging.specifiers import InvalidSpecifier, SpecifierSet
        try:
            SpecifierSet(versions)
        except InvalidSpecifier:
            raise RuleError(f"{where}: versions: '{versions}' is not a PEP 440 specifier") from None
    verified = _mapping(data.get("verified"), f"{where}: verified")
    return Rule(
        id=rid, level=level, status=status,
        title=_lang_text(data, "title", where),
        cause=_lang_text(data, "cause", where),
        fix=_lang_text(data, "fix", where),
        pattern_sources=patterns, fuzzy=fuzzy, scope=scope,
        when={k: str(v) if not isinstance(v, (bool, int, float)) else v for k, v in when.items()},
        supersedes=_str_list(data.get("supersedes"), f"{where}: supersedes"),
        verified={k: str(v) for k, v in verified.items()},
        versions=versions,
        related=_str_list(data.get("related"), f"{where}: related"),
        repro=_mapping(data.get("repro"), f"{where}: repro"),
        fix_settings=_mapping(data.get("fix_settings"), f"{where}: fix_settings"),
        fix_env=_env(data.get("fix_env"), f"{where}: fix_env"),
        references=_str_list(data.get("references"), f"{where}: references"),
        path=str(path),
    )


def _parse_yaml(path: Path):
    import yaml
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path, "rb") as f:
        return yaml.load(f, Loader=loader)


def _stamp(files: list[Path]) -> str:
    h = hashlib.sha1(str(_CACHE_FORMAT).encode())
    for p in files:
        st = p.stat()
        h.update(f"{p.name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


def _cache_path(directory: Path) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    key = hashlib.sha1(str(directory.resolve()).encode()).hexdigest()[:16]
    return Path(base) / "vllm-doctor" / f"rulebook-{key}.json"


def _content_version(files: list[Path]) -> str:
    h = hashlib.sha1()
    for p in files:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


def _build(directory: Path, files: list[Path]) -> tuple[dict[str, Rule], list[str]]:
    rules: dict[str, Rule] = {}
    errors: list[str] = []
    for path in files:
        try:
            rule = validate(_parse_yaml(path), path)
        except RuleError as e:
            errors.append(str(e))
            continue
        except Exception as e:  # a YAML syntax error names the line; keep loading the others
            errors.append(f"{path.name}: not valid YAML: {e}")
            continue
        rules[rule.id] = rule
    return rules, errors


def load_rulebook(directory: str | Path | None = None, *, use_cache: bool = True) -> RuleBook:
    directory = Path(directory) if directory else default_directory()
    files = sorted(directory.glob("*.yaml"))
    stamp = _stamp(files)
    cache = _cache_path(directory)
    if use_cache:
        try:
            data = json.loads(cache.read_text())
            if data.get("stamp") == stamp:
                rules = {d["id"]: Rule(**d).compile() for d in data["rules"]}
                return RuleBook(rules, data["version"], data["errors"], str(directory))
        except (OSError, ValueError, KeyError, TypeError):
            pass
    rules, errors = _build(directory, files)
    for rule in rules.values():
        rule.compile()
    version = _content_version(files)
    if use_cache:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"stamp": stamp, "version": version, "errors": errors,
                                       "rules": [r.to_json() for r in rules.values()]}))
            os.replace(tmp, cache)
        except OSError:
            pass
    return RuleBook(rules, version, errors, str(directory))
