"""Load, validate and compile the rule book (rules/*.yaml, one rule per file), and the team
rule packs loaded on top of it (see packs.py).

Parsing YAML costs more than the rest of a CLI call, so each validated folder of rules is cached
as JSON keyed on the files' names, sizes and mtimes; a changed file rebuilds the cache. Errors
name the file and the field.
"""

from __future__ import annotations

import marshal
import os
import re

from bot.base import marshal_cache, regex_cache
from bot.base.record import Factory, Record
from bot.base.versions import valid_specifier
from bot.diagnose.knowledge import STACK_FAMILIES, VLLM_FAMILIES

from . import guards

LEVELS = ("root", "wrapper", "hint")
STATUSES = ("active", "shadow")
SCOPES = ("errors", "any", "tail")
LANGS = ("en", "zh")
WHEN_KEYS = ("engine_starts", "vllm_version", "torch_version", "cuda_version", "compute_capability",
             "torch_gpu_unsupported",
             "platform", "has_traceback", "vllm_context", "stack_context", "vllm_printed", "frames", "asserts",
             "vllm_ext_import",
             "assert_sites",
             "ray_vllm_context", "ray_pg_pending", "vllm_checkout",
             # the stack beneath vLLM (reading/facts/stack_beneath.py environment())
             "torch_cuda", "cuda_runtime", "driver_cuda", "driver_version", "python_version", "glibc_version",
             "os_hint", "container", "container_gpu_request", "vllm_install", "cuda_build", "torch_build", "hub_offline", "hub_http_error", "hub_client_error", "modelscope_on", "modelscope_ignored",
             "transformers_version",
             # the first `<Tokenizer> has no attribute <name>` names an attribute the stack index saw transformers'
             # tokenizer base classes gain or lose (pipeline.py, from knowledge/stack/attribute_names.py)
             "tokenizer_attr_versioned",
             "ascend_shown", "ascend_call_code", "engine_core_stopped", "engine_core_silent", "native_crash_report", "triton_absent", "chat_template_shown", "weight_sync",
             # NCCL 2.19+ failing its shared-memory segment at a CUDA call (its registration, not /dev/shm's room)
             "nccl_shm_register")
TOP_KEYS = {"id", "level", "status", "title", "match", "supersedes", "cause", "fix", "verified",
            "versions", "related", "repro", "fix_settings", "fix_env", "references", "notes", "family",
            "points_above"}
# A family rule is answered from an index (vLLM's own source, or the stack beneath vLLM): it needs no patterns, and
# ranks below the rules written by hand.
FAMILIES = VLLM_FAMILIES + STACK_FAMILIES
MATCH_KEYS = {"patterns", "fuzzy", "scope", "when", "cleared_by", "cleared_before"}
_ID = regex_cache.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_CACHE_FORMAT = 12


class RuleError(ValueError):
    """A rule file that does not follow rules/README.md."""


class _Kept:
    """A rule text (cause, fix) as the rule-book cache hands it over: marshalled bytes, decoded on first read. The two
    are three quarters of the cache (1.5 MB with their Chinese), and a diagnosis reads them for the one or two rules
    that answer: decoding them all was 4 ms of every cold start."""

    def __set_name__(self, owner, name: str):
        self.name = name

    def __get__(self, rule, owner=None):
        if rule is None:
            return self
        value = rule.__dict__[self.name]
        if type(value) is bytes:
            value = rule.__dict__[self.name] = marshal.loads(value)
        return value

    def __set__(self, rule, value) -> None:
        rule.__dict__[self.name] = value


class _KeptTexts:
    # (on a base class: in Rule's own body they would read as the fields' defaults, and a rule without them would load)
    cause = _Kept()
    fix = _Kept()


class Rule(_KeptTexts, Record):
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
    pack: str = "shipped"              # the rule pack it comes from (packs.py)
    family: str | None = None          # answered from vLLM's source (FAMILIES), not by patterns
    points_above: bool = False         # a hint that, like a wrapper, reports an error printed above it
    cleared_by: str | None = None      # a line after the message's last time that shows it resolved
    cleared_before: str | None = None  # a line that starts another run: a cleared_by line after it is not this run's
    literals: list[str] = Factory(list)
    pattern_when: list[dict] = Factory(list)
    _compiled: dict = Factory(dict)

    @property
    def pointer(self) -> bool:
        """Whether its message points at an error printed above it (a wrapper; a hint with
        `points_above`, such as a worker's death): when the paste shows that error, it is the answer."""
        return self.level == "wrapper" or self.points_above

    @property
    def everyones(self) -> bool:
        """Whether it answers a message any program prints the same (the stack's), so a paste that
        shows no program at all may get it: a stack family, or `stack_context` among its conditions."""
        return self.family in STACK_FAMILIES or "stack_context" in self.when \
            or any("stack_context" in w for w in self.pattern_when if w)

    @property
    def named(self) -> bool:
        """Whether a pattern of it captures a value by name (what its text can fill in)."""
        return any("(?P<" in src for src in self.pattern_sources)

    @property
    def flags(self) -> set[str]:
        """The captures its text only asks about (`{?memcg}`), never shows (`{memcg}`): their words do not matter."""
        texts = " ".join(str(t) for d in (self.cause, self.fix) for t in (d or {}).values())
        return set(re.findall(r"\{[?!](\w+)\}", texts)) - set(re.findall(r"\{(\w+)\}", texts))

    @property
    def patterns(self) -> list[re.Pattern[str]]:
        return [self._pattern(i) for i in range(len(self.pattern_sources))]

    def _pattern(self, i: int) -> re.Pattern[str]:
        rx = self._compiled.get(i)
        if rx is None:
            rx = self._compiled[i] = regex_cache.compile(self.pattern_sources[i])
        return rx

    def search(self, text: str, holds=None) -> dict | None:
        """Captures of the first pattern that hits, or None. A pattern is compiled only once a
        literal it cannot match without is found in the text: compiling the whole rule book costs
        more than diagnosing a small log. `holds(when)` checks a pattern's own conditions."""
        for i, literal in enumerate(self.literals):
            if literal and literal not in text:
                continue
            when = self.pattern_when[i] if i < len(self.pattern_when) else None
            if when and (holds is None or not holds(when)):
                continue
            m = self._pattern(i).search(text)
            if m:
                return {k: v for k, v in m.groupdict().items() if v is not None}
        return None

    def cleared(self, text: str, message: str) -> bool:
        """Whether the log shows the message resolved: a `cleared_by` line after the last time it
        was printed (a warning that stops once slow start-up work ends is not a failure)."""
        if not self.cleared_by:
            return False
        last = text.rfind(message[:120].strip())
        if last < 0:
            return False
        start = last + len(message[:120].strip())
        # a paste of several processes (each node of a cluster): the line that clears must be this run's own
        end = len(text)
        if self.cleared_before:
            other = self._regex("cleared_before").search(text, start)
            end = other.start() if other else end
        return self._regex("cleared_by").search(text, start, end) is not None

    def _regex(self, key: str) -> re.Pattern[str]:
        rx = self._compiled.get(key)
        if rx is None:
            rx = self._compiled[key] = regex_cache.compile(getattr(self, key), re.M)
        return rx

    def to_json(self) -> dict:
        return self.to_dict()


class RuleBook(Record):
    rules: dict[str, Rule]
    version: str
    errors: list[str]
    directory: str                     # the base book's folder
    packs: list = Factory(list)        # packs.Pack records, the base book first
    replaced: dict = Factory(dict)     # rule id -> the pack whose rule of that id a later pack replaced

    def __iter__(self):
        return iter(self.rules.values())

    @property
    def families(self) -> bool:
        """Whether some active rule answers from vLLM's source (VLLM_FAMILIES)."""
        return any(r.family in VLLM_FAMILIES and r.status == "active" for r in self.rules.values())

    @property
    def stack_families(self) -> bool:
        """Whether some active rule answers from the stack index (STACK_FAMILIES)."""
        return any(r.family in STACK_FAMILIES and r.status == "active" for r in self.rules.values())

    def __len__(self) -> int:
        return len(self.rules)


SHIPPED = "shipped"
def default_directory() -> str:
    """The shipped rule book ($VLLM_DOCTOR_RULES replaces it: a whole other book, for its authors)."""
    env = os.environ.get("VLLM_DOCTOR_RULES")
    if env:
        return env
    from bot.base import resources
    return resources.rules_dir()


def _lang_text(data: dict, key: str, where: str) -> dict:
    value = data.get(key)
    if not isinstance(value, dict):
        raise RuleError(f"{where}: {key}: must be a mapping with 'en' and 'zh' texts")
    for lang in LANGS:
        if not isinstance(value.get(lang), str) or not value[lang].strip():
            raise RuleError(f"{where}: {key}.{lang}: missing or empty")
    return {lang: value[lang].strip() for lang in LANGS}


def _guards(text: dict, key: str, where: str) -> None:
    """Each paragraph's version guard is well formed, and both languages guard the same releases."""
    found = {}
    for lang in LANGS:
        specs = []
        for para in re.split(r"\n[ \t]*\n", text[lang]):
            bad = guards.problem(para)
            if bad:
                raise RuleError(f"{where}: {key}.{lang}: {bad}")
            spec = guards.split(para)[0]
            if spec is not None:
                specs.append(spec.replace(" ", ""))
        found[lang] = specs
    if found["en"] != found["zh"]:
        raise RuleError(f"{where}: {key}: the en and zh texts guard different releases "
                        f"({found['en']} vs {found['zh']}); give each guarded paragraph its translation")


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


def required_literal(pattern: str) -> str:
    """The longest run of plain characters every match of `pattern` must contain ('' if none): read through
    the groups every match passes (a named capture around the message's words), and inside a repeat that
    matches at least once; an alternation, a class or an optional part ends a run."""
    import re._parser as sre_parse
    from re._constants import LITERAL, MAX_REPEAT, MIN_REPEAT, SUBPATTERN
    parsed = sre_parse.parse(pattern)
    if parsed.state.flags & re.IGNORECASE:
        return ""
    best = [""]

    def walk(seq, run: list) -> list:
        for op, av in seq:
            if op is LITERAL:
                run.append(chr(av))
            elif op is SUBPATTERN and not av[1] & re.IGNORECASE:
                run = walk(av[3], run)          # a group is its parts in sequence
            else:
                best[0] = max(best[0], "".join(run), key=len)
                run = []
                if op in (MAX_REPEAT, MIN_REPEAT) and av[0] >= 1:
                    inner = "".join(walk(av[2], []))
                    best[0] = max(best[0], inner, key=len)
        return run

    tail = "".join(walk(parsed, []))           # (walked before best[0] is read: the walk updates it)
    found = max(best[0], tail, key=len)
    return found if len(found) >= 4 else ""


def _conditions(value, where: str) -> dict:
    when = _mapping(value, where)
    for key in when:
        if key not in WHEN_KEYS:
            raise RuleError(f"{where}.{key}: unknown fact (known: {', '.join(WHEN_KEYS)})")
    for key in ("frames", "asserts", "assert_sites"):
        if key in when:
            try:
                regex_cache.compile(str(when[key]).removeprefix("!"))
            except re.error as e:
                raise RuleError(f"{where}.{key}: does not compile: {e}") from None
    return {k: str(v) if not isinstance(v, (bool, int, float)) else v for k, v in when.items()}


def _patterns(value, where: str) -> tuple[list[str], list[dict]]:
    """Each pattern is a regex, or {pattern: regex, when: {...}} when only some wordings need a
    condition (a bare seed quote must match; the same text from a generic library needs context)."""
    if value is None:
        return [], []
    if not isinstance(value, list):
        raise RuleError(f"{where}: must be a list")
    sources, conditions = [], []
    for i, item in enumerate(value):
        if isinstance(item, dict):
            unknown = set(item) - {"pattern", "when"}
            if unknown or not isinstance(item.get("pattern"), str):
                raise RuleError(f"{where}[{i}]: a mapping needs 'pattern' (and optional 'when') only")
            sources.append(item["pattern"])
            conditions.append(_conditions(item.get("when"), f"{where}[{i}].when"))
        elif isinstance(item, str):
            sources.append(item)
            conditions.append({})
        else:
            raise RuleError(f"{where}[{i}]: must be a regex string or a mapping")
        try:
            regex_cache.compile(sources[-1])
        except re.error as e:
            raise RuleError(f"{where}[{i}]: does not compile: {e}") from None
    return sources, conditions


def _env(value, where: str) -> dict:
    env = _mapping(value, where)
    for k, v in env.items():
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", str(k)) or isinstance(v, (dict, list)):
            raise RuleError(f"{where}.{k}: must map an environment variable NAME to a value")
    return {k: str(v) for k, v in env.items()}


def validate(data, path) -> Rule:
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
    patterns, pattern_when = _patterns(match.get("patterns"), f"{where}: match.patterns")
    fuzzy = _str_list(match.get("fuzzy"), f"{where}: match.fuzzy")
    family = data.get("family")
    if family is not None and family not in FAMILIES:
        raise RuleError(f"{where}: family: must be one of {FAMILIES}")
    if family and level != "root":
        raise RuleError(f"{where}: family: a family rule is a root cause (level: root)")
    if family and (patterns or fuzzy):
        raise RuleError(f"{where}: match: a family rule's messages are found in vLLM's source, not by patterns")
    if not patterns and not fuzzy and not family:
        raise RuleError(f"{where}: match: needs patterns or fuzzy sentences")
    for i, s in enumerate(fuzzy):
        if len(s) < 20:
            raise RuleError(f"{where}: match.fuzzy[{i}]: too short to score reliably (< 20 chars)")
    scope = match.get("scope", "errors")
    if scope not in SCOPES:
        raise RuleError(f"{where}: match.scope: must be one of {SCOPES}")
    when = _conditions(match.get("when"), f"{where}: match.when")
    cleared_by = match.get("cleared_by")
    if cleared_by is not None:
        if not isinstance(cleared_by, str) or level == "root":
            raise RuleError(f"{where}: match.cleared_by: a regex, and only for a hint or a wrapper "
                            "(a root cause does not clear)")
        _compiles(cleared_by, f"{where}: match.cleared_by")
    cleared_before = match.get("cleared_before")
    if cleared_before is not None:
        if not isinstance(cleared_before, str) or cleared_by is None:
            raise RuleError(f"{where}: match.cleared_before: a regex, and only beside cleared_by")
        _compiles(cleared_before, f"{where}: match.cleared_before")
    versions = data.get("versions")
    if versions is not None:
        versions = str(versions)
        if not valid_specifier(versions):
            raise RuleError(f"{where}: versions: '{versions}' is not a PEP 440 specifier")
    verified = _mapping(data.get("verified"), f"{where}: verified")
    points_above = data.get("points_above", False)
    if not isinstance(points_above, bool) or (points_above and level != "hint"):
        raise RuleError(f"{where}: points_above: true or false, and only for a hint (a wrapper always points above)")
    texts = {key: _lang_text(data, key, where) for key in ("title", "cause", "fix")}
    for key, text in texts.items():
        _guards(text, key, where)
    return Rule(
        id=rid, level=level, status=status,
        title=texts["title"], cause=texts["cause"], fix=texts["fix"],
        pattern_sources=patterns, fuzzy=fuzzy, scope=scope,
        when=when, pattern_when=pattern_when,
        supersedes=_str_list(data.get("supersedes"), f"{where}: supersedes"),
        verified={k: str(v) for k, v in verified.items()},
        versions=versions,
        related=_str_list(data.get("related"), f"{where}: related"),
        repro=_mapping(data.get("repro"), f"{where}: repro"),
        fix_settings=_mapping(data.get("fix_settings"), f"{where}: fix_settings"),
        fix_env=_env(data.get("fix_env"), f"{where}: fix_env"),
        references=_str_list(data.get("references"), f"{where}: references"),
        path=str(path),
        family=family,
        points_above=points_above,
        cleared_by=cleared_by,
        cleared_before=cleared_before,
        literals=[required_literal(p) for p in patterns],
    )


def _compiles(regex: str, where: str) -> None:
    try:
        regex_cache.compile(regex)
    except re.error as e:
        raise RuleError(f"{where}: does not compile: {e}") from None


def _parse_yaml(path):
    import yaml
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path, "rb") as f:
        return yaml.load(f, Loader=loader)


# The code that reads and checks the rules (this package and bot/base beneath it): a cache written by another version of it is stale too (a changed
# validator once kept serving rules compiled by the old one until a rule file was touched).
def _code_files() -> list[str]:
    here = os.path.dirname(__file__)
    base = os.path.join(here, os.pardir, os.pardir, os.pardir, "base")     # bot/base: versions, records, lazy regexes
    return sorted(os.path.join(d, n) for d in (here, base) for n in os.listdir(d) if n.endswith(".py"))


_CODE = _code_files()


def _stamp(files: list[str]) -> str:
    parts = [str(_CACHE_FORMAT)]
    for p in [*_CODE, *files]:
        st = os.stat(p)
        parts.append(f"{os.path.basename(p)}:{st.st_size}:{st.st_mtime_ns}")
    return ";".join(parts)


def _content_version(files: list[str]) -> str:
    """The rule book's version, stored with every diagnosis: a hash of the rule files' contents."""
    import hashlib
    h = hashlib.sha1()
    for p in files:
        h.update(os.path.basename(p).encode())
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


def _build(files: list[str]) -> tuple[dict[str, Rule], list[str]]:
    from pathlib import Path
    rules: dict[str, Rule] = {}
    errors: list[str] = []
    for path in map(Path, files):
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


def rule_files(directory: str) -> list[str]:
    """The rule files of a folder: every *.yaml but `_pack.yaml` and other names starting with '_'."""
    return sorted(os.path.join(directory, n) for n in os.listdir(directory)
                  if n.endswith(".yaml") and not n.startswith("_"))


def load_folder(directory: str, *, use_cache: bool = True) -> tuple[dict[str, Rule], str, list[str]]:
    """One folder's rules, its content version and the problems of the files that did not load."""
    files = rule_files(directory)
    stamp = _stamp(files)
    cache = marshal_cache.path("rulebook", directory)
    kept = marshal_cache.load(cache, stamp) if use_cache else None
    if isinstance(kept, dict):
        return {d["id"]: _kept_rule(d) for d in kept["rules"]}, kept["version"], kept["errors"]
    rules, errors = _build(files)
    version = _content_version(files)
    if use_cache:
        marshal_cache.store(cache, stamp, {"version": version, "errors": errors,
                                           "rules": [_packed(r) for r in rules.values()]})
    return rules, version, errors


def _kept_rule(fields: dict) -> Rule:
    """Rule(**fields) for a rule the cache kept, its private fields (Record.to_dict leaves them out) fresh: the fields
    were checked when it was validated, and Record's check of each field again was 2 ms of every cold start."""
    rule = Rule.__new__(Rule)
    rule.__dict__.update(fields)
    rule._compiled = {}
    return rule


def _packed(rule: Rule) -> dict:
    """A rule's fields for the cache, its cause and fix marshalled apart (read on first use: _Kept)."""
    fields = rule.to_json()
    for key in ("cause", "fix"):
        fields[key] = marshal.dumps(fields[key])
    return fields
