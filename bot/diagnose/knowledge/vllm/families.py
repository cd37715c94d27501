"""Answers from vLLM's own source, after the hand-written rules.

The index of vLLM's releases (index.py, package data in data/) knows every message vLLM raises, its
engine arguments and environment variables per release, and which of its modules import which
optional packages. A *family* rule (rules/*.yaml with `family:`) answers from it:

    raise-site        a message vLLM raises itself (matched to its template)
    config-invalid    pydantic rejected a field of one of vLLM's config classes
    name-unknown      a config field or vLLM environment variable this release does not have
    optional-package  `No module named X` where vLLM imported X

A family answers only a paste no hand-written rule answers (a wrapper such as "Engine core
initialization failed" does not count: the family answers the error it wraps), and there the FIRST
real error it knows. A hand-written rule always wins: on the ~300 real logs of the fixtures, the
one paste where an earlier message was vLLM's own (another request's 400, before the crash the rule
explains) the rule's answer was the better one. So the index is loaded only for a paste no rule
answers: a paste a rule answers never pays for it.
"""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe
from bot.base.record import Factory, Record
from bot.diagnose.knowledge import Candidate
from bot.diagnose.reading.facts.traceback_frames import site_package
from bot.diagnose.reading.tracebacks import EXCEPTION_LINE, RELAY, Message, strip_prefixes

from . import load_index, modules
from .releases import plain, raised_at, version_key

MAX_TRIED = 20                  # real errors looked up per paste (a hostile paste has thousands)
# Confidence of a family answer: always below a hand-written rule's (0.95 for a root cause).
FAMILY_CONFIDENCE = 0.8
SITE_CONFIDENCE = (0.5, 0.8)    # an index score of 80 .. 100 maps onto this range


class Hit(Record):
    """What a family found in one message."""
    family: str
    site: object = None          # the index's RaiseSite, when the message is vLLM's own
    score: float = 100.0
    by: str = "template"         # template | fuzzy | parsed
    captures: dict = Factory(dict)
    info: dict = Factory(dict)   # family facts: the config class and field, the unknown name, the package


# --- which messages a family may answer ------------------------------------------------------------

def _real(m: Message) -> bool:
    exc = m.exc_type or ""
    return bool(exc or m.inner) and m.level != "WARNING" and not exc.endswith("Warning")


# What the index cannot know, asked before it is loaded (a cold start pays about 30 ms to read it): vLLM raises
# builtins and classes of its own, so an exception another package defines (`aiohttp.client_exceptions.
# ClientConnectorError`, `zmq.error.ZMQError`) is none of its raise sites (index.match takes FOREIGN_PENALTY off any
# such score, below MIN_SCORE), pydantic's ValidationError of a vLLM config class aside; nor is an OSError whose
# message is the operating system's own sentence ("[Errno 13] Permission denied: '/x'"), the stack's to answer.
_OWN_PACKAGES = ("vllm", "pydantic", "pydantic_core")
_OS_SENTENCE = LazyRe(r"^(?:[\w.]+: )?\[(?:Errno|WinError) -?\d+\] ")


def _index_may_know(m: Message) -> bool:
    exc = m.exc_type or ""
    if "." in exc and exc.split(".", 1)[0] not in _OWN_PACKAGES:
        return False
    return _OS_SENTENCE.match(m.text) is None


def _logged_exception(m: Message, lines: list[str]) -> bool:
    """vLLM's `logger.exception(e)` (V0's engine process: `ERROR ... [engine.py:467] CPU backend only
    supports V1.`, then `ERROR ... [engine.py:467] Traceback (most recent call last):`): an ERROR record
    of vLLM's logger whose next line opens the traceback is the exception's own message, without its
    class, which a paste cut before the traceback's end shows nowhere else."""
    return (m.level == "ERROR" and not m.exc_type and bool(m.header) and 0 < m.line_no < len(lines)
            and "Traceback (most recent call last)" in lines[m.line_no])


def find(book, cands: list, strong: list[Message], text: str, facts: dict) -> list:
    """A family candidate for the first real error a family knows (at most one), when no
    hand-written rule answers. `cands` are the hand-written candidates, best first."""
    families = {r.family: r for r in book if r.family and r.status == "active"}
    if not families or any(not c.points_above and c.rule.status == "active" for c in cands):
        return []
    explained = {id(c.message) for c in cands}
    wrappers = [r for r in book if r.pointer and not r.family]
    lines: list[str] = []
    tried = 0
    for pos, m in enumerate(strong):
        if not lines:           # split when a message is read: a paste with none (10 MB of blank lines) pays nothing
            lines = text.split("\n")
        real = _real(m) or _CLI_ARG.search(m.text) is not None
        logged = not real and _logged_exception(m, lines)
        if id(m) in explained or not (real or logged) \
                or any(r.search(m.text) is not None for r in wrappers) or RELAY.search(m.text):
            continue            # a relay of a worker's error: its unwrapped inner message is the error
        hit = _hit(m, lines, facts, families) if _index_may_know(m) else None
        if hit is not None and logged and hit.by == "fuzzy":
            hit = None          # a log record's own words, not an exception's: only vLLM's exact text is one
        if hit is not None:
            rule = families[hit.family]
            return [Candidate(rule, m, pos, _confidence(hit), "index", dict(hit.captures), source=hit)]
        tried += 1
        if tried >= MAX_TRIED:
            break
    return []


def _confidence(hit: Hit) -> float:
    if hit.by == "parsed":
        return FAMILY_CONFIDENCE
    lo, hi = SITE_CONFIDENCE
    return round(lo + (hi - lo) * max(0.0, min(1.0, (hit.score - 80) / 20)), 3)


def _hit(m: Message, lines: list[str], facts: dict, families: dict) -> Hit | None:
    """The most specific family that knows this message, or None."""
    idx = load_index()
    if idx is None:
        return None
    for family, finder in _FINDERS:
        if family in families:
            hit = finder(idx, m, lines, facts)
            if hit is not None:
                return hit
    return None


# --- name-unknown: a config field or environment variable the release does not have ----------------

_FIELD_NOT_FOUND = LazyRe(r"Field '(?P<name>\w+)' not found in (?P<cls>\w+)")
_UNKNOWN_ENV = LazyRe(r"Unknown vLLM environment variable detected: (?P<name>VLLM_\w+)")


def _name_unknown(idx, m: Message, lines, facts) -> Hit | None:
    found = _UNKNOWN_ENV.search(m.text)
    if found:
        return _unknown(idx, m, "env", found.group("name"), None)
    found = _FIELD_NOT_FOUND.search(m.text)
    if found and found.group("cls") in idx.config_classes():
        return _unknown(idx, m, "field", found.group("name"), found.group("cls"))
    cls = _validated_class(m, lines)
    if cls in idx.config_classes():
        for field, _, kind, _ in _pydantic_errors(lines, m.line_no):
            if kind == "extra_forbidden" and field:      # pydantic's word for a field the class lacks
                return _unknown(idx, m, "field", field.split(".")[0], cls)
    return None


def _unknown(idx, m: Message, kind: str, name: str, cls: str | None) -> Hit:
    site = _site_of(idx, m)[0]
    caps = {"name": name, **({"config_class": cls} if cls else {})}
    return Hit("name-unknown", site.site if site else None, site.score if site else 100.0, "parsed", caps,
               {"kind": kind, "name": name, "config_class": cls})


# --- config-invalid: pydantic rejected a field of a vLLM config class --------------------------------

_VALIDATION = LazyRe(r"(?P<count>\d+) validation errors? for (?P<cls>[A-Z]\w*)\s*$")
_PROBLEM = LazyRe(r"^\s+(?P<problem>[A-Z][^\[]*?)\s*(?:\[type=(?P<type>\w+)(?:, input_value=(?P<value>.*?))?"
                  r"(?:, input_type=\w+)?\])?\s*$")
_FIELD_LINE = LazyRe(r"^(?P<field>[a-z_][\w.]*)\s*$")


def _validated_class(m: Message, lines: list[str]) -> str | None:
    """The class a pydantic ValidationError names, read from its own line (a message joins the
    lines that follow, sometimes without a space)."""
    if "validation error" not in m.text:
        return None
    found = _VALIDATION.search(lines[m.line_no - 1]) if 0 < m.line_no <= len(lines) else None
    return found.group("cls") if found else None


def _config_invalid(idx, m: Message, lines, facts) -> Hit | None:
    cls = _validated_class(m, lines)
    if cls not in idx.config_classes():
        return None
    errors = []
    for field, problem, kind, value in _pydantic_errors(lines, m.line_no):
        if kind in ("value_error", "assertion_error", "extra_forbidden") or not field:
            continue                    # a validator's own message: the raise-site family reads it
        name = field.split(".")[0]
        if idx.config_field(cls, name) is not None:
            errors.append({"field": name, "problem": problem, "type": kind, "value": value})
    if not errors:
        errors, cls = _whole_argument(idx, m, lines, cls, facts)
    if not errors:
        return None
    # The field the user set comes first: vLLM derives others from it (max_num_seqs=0 also makes
    # max_num_batched_tokens 0, and pydantic reports that one first).
    given = {k.removeprefix("kv_") for k in facts.get("user_args") or {}} | set(facts.get("user_args") or {})
    errors.sort(key=lambda e: e["field"] not in given)
    first = errors[0]
    caps = {"config_class": cls, "field": first["field"], "problem": first["problem"]}
    if first["value"] is not None:
        caps["input_value"] = first["value"]
    return Hit("config-invalid", None, 100.0, "parsed", caps, {"config_class": cls, **first, "errors": errors})


# vLLM's CLI parses a JSON argument into its config class: pydantic rejects the whole value, with
# no field line ("argument --compilation-config/-O: 1 validation error for CompilationConfig").
_CLI_ARG = LazyRe(r"\berror: argument (?P<flag>--[\w-]+)(?:/-\w+)?: \d+ validation errors? for (?P<cls>\w+)")


def _whole_argument(idx, m: Message, lines, cls: str, facts: dict) -> tuple[list, str]:
    """The argument whose whole value pydantic rejected, as an error of the field it sets."""
    found = _CLI_ARG.search(m.text)
    if found is None or found.group("cls") != cls:
        return [], cls
    version = facts.get("vllm_version")
    arg = idx.arg(found.group("flag"), idx.nearest_version(str(version)) if version else None)
    if arg is None or not arg.config_class or arg.type != cls:
        return [], cls
    whole = [(problem, kind, value) for field, problem, kind, value in _pydantic_errors(lines, m.line_no)
             if field is None and kind not in ("value_error", "assertion_error")]
    if not whole:
        return [], cls
    problem, kind, value = whole[0]
    return [{"field": arg.config_field, "problem": problem, "type": kind, "value": value}], arg.config_class


def _pydantic_errors(lines: list[str], line_no: int):
    """(field, problem, error type, input value) of a pydantic ValidationError printed at line_no:

        1 validation error for CacheConfig
        gpu_memory_utilization
          Input should be less than or equal to 1 [type=less_than_equal, input_value=1.5, input_type=float]
    """
    field = None
    for raw in lines[line_no: line_no + 40]:
        _, _, body = strip_prefixes(raw)
        rest = raw[raw.find(body):] if body else ""
        if not body or body.startswith("For further information"):
            continue
        fm = _FIELD_LINE.match(body)
        if fm and not raw[:1].isspace() and rest == body:
            field = fm.group("field")
            continue
        pm = _PROBLEM.match(" " + body) if raw[:1].isspace() or field else None
        if pm and field is not None:
            yield field, pm.group("problem").strip(), pm.group("type") or "", _plain_value(pm.group("value"))
            field = None
            continue
        if body.startswith("Value error,"):
            yield None, body, "value_error", None
            continue
        if pm and pm.group("type") and not _FIELD_LINE.match(body):
            # no field line: the whole input was rejected ("Input should be an object")
            yield None, pm.group("problem").strip(), pm.group("type"), _plain_value(pm.group("value"))
            continue
        break


def _plain_value(value: str | None) -> str | None:
    if value is None:
        return None
    return value.strip()[:200]


# --- optional-package: vLLM imported a package that is not installed -------------------------------

# typographic quotes too: a person retyping the line (macOS, a chat client) writes ‘triton’
_NO_MODULE = LazyRe(r"No module named ['‘’](?P<module>[\w.]+)['‘’]")
_VLLM_FILE = LazyRe(r"(?:^|[/\\])(vllm[/\\][\w/\\]+?)\.py$")


def _optional_package(idx, m: Message, lines, facts) -> Hit | None:
    if (m.exc_type or "").rsplit(".", 1)[-1] not in ("ModuleNotFoundError", "ImportError"):
        return None
    found = _NO_MODULE.search(m.text)
    if not found:
        return None
    module = found.group("module")
    package = module.split(".")[0]
    if package in ("vllm", "torch"):
        return None                     # vLLM's own module or torch missing: a broken install, not an extra
    if package == "transformers_modules":
        return None                     # transformers' namespace for a model's remote code: no package to install
    frames = frames_before(lines, m.line_no)
    importer = _importing_vllm_module(frames)
    if frames and importer is None:
        return None                     # the import failed in another package's code
    if importer is None and not facts.get("vllm_printed"):
        return None
    release = _release(idx, facts)
    sites = idx.importers(package, release) or idx.importers(package)
    if not sites:
        return None
    path = [vllm_module(p) for p, _ in frames]
    return Hit("optional-package", None, 100.0, "parsed", {"module": module, "package": package},
               {"package": package, "module": module, "importer": importer, "sites": sites,
                "path": [p for p in path if p]})


_FRAME = LazyRe(r'^\s*File "(?P<path>[^"]+)", line \d+, in (?P<func>[\w<>.]+)')


def frames_before(lines: list[str], line_no: int, limit: int = 200) -> list[tuple[str, str]]:
    """(path, function) of the traceback printed just above line `line_no` (1-based), outermost first.
    Everything between its frames (the quoted code, `^^^` markers) is skipped; an exception line
    or the start of the traceback ends it."""
    out = []
    for raw in reversed(lines[max(0, line_no - 1 - limit): line_no - 1]):
        _, _, body = strip_prefixes(raw)
        if body.startswith(("Traceback (most recent call last)", "During handling", "The above exception")):
            break
        fm = _FRAME.match(body)
        if fm:
            out.append((fm.group("path").replace("\\", "/"), fm.group("func")))
        elif EXCEPTION_LINE.match(body) and not raw[:1].isspace():
            break
    return out[::-1]


# vLLM's lazy-import helpers: the module that asked for the package is the frame before them.
_IMPORT_HELPERS = ("vllm.utils.import_utils", "vllm.utils", "vllm.utils.__init__")


def _importing_vllm_module(frames: list[tuple[str, str]]) -> str | None:
    """The vLLM module whose import failed: the innermost frame that is not importlib's own or
    vLLM's lazy-import helper, when it is in vLLM (an import inside another package is that
    package's dependency)."""
    helper = None
    for path, _ in reversed(frames):
        if path.startswith("<frozen") or "/importlib/" in path:
            continue
        module = vllm_module(path)
        if module in _IMPORT_HELPERS:
            helper = helper or module       # all the paste shows may be the helper: still vLLM's import
            continue
        return module
    return helper


def vllm_module(path: str) -> str | None:
    """`.../site-packages/vllm/v1/worker/gpu_worker.py` → `vllm.v1.worker.gpu_worker`; None outside vLLM."""
    found = _VLLM_FILE.search(path)
    if not found:
        return None
    module = found.group(1).replace("/", ".").replace("\\", ".").removesuffix(".__init__")
    # a source checkout in a folder itself named vllm (`.../vllm/vllm/engine/...`): the package is the inner one
    while module.startswith("vllm.vllm."):
        module = module[len("vllm."):]
    return module


# --- module-gone: a framework imports a vLLM module or name this release no longer (or not yet) has --

_NO_VLLM_MODULE = LazyRe(r"No module named ['‘’](?P<module>vllm(?:\.\w+)+)['‘’]")
# CPython's words; `(unknown location)` is a bare folder named vllm (vllm-namespace-shadow) and a
# `partially initialized module` is a circular import: neither is a release without the name
_NO_VLLM_NAME = LazyRe(r"cannot import name ['‘’](?P<name>\w+)['‘’] from ['‘’](?P<module>vllm(?:\.\w+)*)['‘’]"
                       r"(?! \(unknown location\))")


def _module_gone(idx, m: Message, lines, facts) -> Hit | None:
    if (m.exc_type or "").rsplit(".", 1)[-1] not in ("ModuleNotFoundError", "ImportError"):
        return None
    if "partially initialized" in m.text:
        return None
    frames = frames_before(lines, m.line_no)
    if _importing_vllm_module(frames) is not None:
        return None     # vLLM's own import of its own module failed: a broken or mixed install, not a release gap
    found = _NO_VLLM_MODULE.search(m.text)
    if found:
        module, name = found.group("module"), None
        releases = modules.module_releases(idx, module)
    else:
        found = _NO_VLLM_NAME.search(m.text)
        if not found:
            return None
        module, name = found.group("module"), found.group("name")
        releases = modules.name_releases(idx, module, name)
    story = modules.history(idx, releases, facts.get("vllm_version"))
    if story is None:
        return None     # never seen (a typo, or a module that raises nothing), or the log's release has it
    caps = {"module": module, **({"name": name} if name else {})}
    return Hit("module-gone", None, 100.0, "parsed", caps,
               {"module": module, "name": name, "releases": releases, "importer": _importer(frames), **story})


def _importer(frames: list[tuple[str, str]]) -> str | None:
    """The installed package whose code made the import (verl, trl, ...), from its innermost frame."""
    for path, _ in reversed(frames):
        package = site_package(path)
        if package and not path.startswith("<frozen"):
            return package
    return None


# --- raise-site: any message vLLM raises -----------------------------------------------------------

def _site_of(idx, m: Message, facts: dict | None = None) -> tuple:
    """(the best raise site of the message, the releases of its twins). Where vLLM raised the very
    same text as another class in other releases (ValueError up to 0.22, VLLMValidationError
    after), a message that does not name its class (a client's relayed body, pydantic's "Value
    error, ...") matches both equally: the one the log's release raises is taken, and the twins'
    releases are said too."""
    found = idx.match(m.text, m.exc_type, limit=4)
    if not found:
        return None, []
    best = found[0]
    twins = [f for f in found if f.score == best.score and f.site.template == best.site.template]
    if len(twins) > 1:
        release = _release(idx, facts or {})
        best = next((f for f in twins if release and f.site.where_for(release)), best)
    return best, sorted({r for f in twins if f is not best for r in f.site.releases})


def _raise_site(idx, m: Message, lines, facts) -> Hit | None:
    found, twin_releases = _site_of(idx, m, facts)
    if found is None or _rewraps(found.site, facts) or _predates(idx, found, facts) \
            or _another_models_check(idx, found.site, lines, facts):
        return None
    info = {"twin_releases": twin_releases} if twin_releases else {}
    return Hit("raise-site", found.site, found.score, found.by, found.captures, info)


# Handlers that catch anything: a message raised there re-raises whatever failed under vLLM's words
# ("Loading lora X failed" from `except Exception as e: raise RuntimeError(...) from e`). The
# failed check is the caught error's, printed above it or lost with the lines the user left out.
_CATCH_ALL = frozenset({"except", "except Exception", "except BaseException"})


# A final release as PyPI numbers it ("0.8.2", "0.6.3.post1"; a local tag like "+cu121" aside): a dev or
# rc build ("0.10.1rc2.dev158+g88491c1b6") may already carry messages of the release after it.
_FINAL = LazyRe(r"\d+(?:\.\d+)+(?:\.post\d+)?")


def _predates(idx, found, facts: dict) -> bool:
    """The log's vLLM is a final release no newer than an indexed release that lacks this exact text, and
    older than every release that raises it: that vLLM cannot have printed it. Another package raised the
    same words (vLLM copies transformers' image-processor checks: "size must contain 'shortest_edge' and
    'longest_edge' keys." is transformers' Qwen2-VL processor in a vLLM 0.8 log, vLLM's HunYuan copy from
    0.12 on). A reworded (fuzzy) match, or a traceback through the site's own file, still answers."""
    version = facts.get("vllm_version")
    if found.by != "template" or not version or not _FINAL.fullmatch(plain(str(version))):
        return False
    releases = idx.releases
    first = found.site.releases[0] if found.site.releases else None
    if first not in releases or releases.index(first) == 0:
        return False
    if frame_releases(found.site.where, facts.get("vllm_frames")):
        return False
    log, lacking = version_key(plain(str(version))), version_key(releases[releases.index(first) - 1])
    return log is not None and lacking is not None and log <= lacking


# Code of one architecture: a model's own file, its config or processor class (vLLM keeps copies of
# transformers' config classes there, with transformers' validation messages). The folders' shared
# modules are no one model's.
_MODEL_FILE = LazyRe(r"^vllm/(?:model_executor/models|transformers_utils/(?:configs|processors))/(?P<stem>\w+)\.py$"
                     r"|^vllm/models/(?P<folder>\w+)/")
_SHARED_MODEL_FILES = frozenset({"__init__", "adapters", "config", "interfaces", "interfaces_base", "module_mapping",
                                 "registry", "utils", "vision", "common"})


def _architecture(file: str) -> str | None:
    """The architecture a file of vLLM is the code of (`blip2`, `nemotron`), None for shared code."""
    found = _MODEL_FILE.match(file)
    name = found and (found.group("stem") or found.group("folder"))
    return None if not name or name in _SHARED_MODEL_FILES else name


def _squeezed(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


# shorter names ("opt", "phi", "bert") are the beginnings of ordinary words
_MIN_NAME = 5


def _names_architecture(names, tokens: list[str]) -> bool:
    """A word of the paste is one of these architectures' names, or begins with it (`DeepseekV2Config`)."""
    return any(t.startswith(n) for n in names if len(n) >= _MIN_NAME for t in tokens)


def _another_models_check(idx, site, lines: list[str], facts: dict) -> bool:
    """vLLM raises this text only in the code of some architectures, and the paste is about another one
    it has code for: another package raised the same words for that model (transformers' own config
    classes: Llama's `rope_scaling must be a dictionary with two fields` is vLLM's Nemotron copy too,
    its hidden-size check vLLM's BLIP-2 Q-Former's). A paste that names no architecture keeps the answer."""
    files = {w["file"] for w in site.where}
    names = {_architecture(f) for f in files}
    if None in names:
        return False
    frames = facts.get("vllm_frames") or ()
    if any(path.endswith(f) for f in files for path, _, _ in frames):
        return False
    text = "\n".join(lines)
    squeezed = _squeezed(text)
    if any(_squeezed(n) in squeezed for n in names):
        return False
    tokens = [t.replace("_", "") for t in re.findall(r"[a-z][a-z0-9_]*", text.lower())]
    others = {_squeezed(a) for a in map(_architecture, idx.files) if a} - {_squeezed(n) for n in names}
    return _names_architecture(others, tokens)


def _rewraps(site, facts: dict) -> bool:
    version = facts.get("vllm_version")
    places = (site.where_for(str(version)) if version else []) or site.where
    return all((w.get("condition") or "") in _CATCH_ALL for w in places)


_FINDERS = (("name-unknown", _name_unknown), ("config-invalid", _config_invalid),
            ("optional-package", _optional_package), ("module-gone", _module_gone), ("raise-site", _raise_site))


# --- releases ---------------------------------------------------------------------------------------

def _release(idx, facts: dict) -> str | None:
    """The indexed release that describes the log's vLLM (None when the log does not say)."""
    version = facts.get("vllm_version")
    return idx.nearest_release(str(version)) if version else None


def frame_releases(rows, frames) -> list[str]:
    """The releases whose raise site is where the traceback raised (releases.raised_at)."""
    return list(dict.fromkeys(w["release"] for w in rows if raised_at(w["file"], w["line"], frames)))


def place(site, version: str | None, frames=()) -> tuple[dict, list[str]]:
    """(the where row that describes the log, the releases its frames match): the log's release's
    row, else the newest release whose row is the traceback's own frame, else the newest row. One
    row, so its file, function and line are one entry's."""
    rows = site.where_for(version) if version else []
    every = site.where
    matched = [] if version else frame_releases(every, frames)
    if matched:
        rows = [w for w in every if w["release"] == matched[-1]]
    key = version_key(version) if version and not rows else None
    if key is not None:
        # the log's release does not print it (an older one, vLLM 0.4 before the index's first release, or
        # one of a gap): the release that does nearest to it, the newest not newer, else the oldest
        rels = [r for r in dict.fromkeys(w["release"] for w in every) if version_key(r) is not None]
        before = [r for r in rels if version_key(r) <= key]
        pick = before[-1] if before else (rels[0] if rels else None)
        rows = [w for w in every if w["release"] == pick]
    if frames and len(rows) > 1:        # one release raising it in several places: the frame's own
        rows = sorted(rows, key=lambda w: not raised_at(w["file"], w["line"], frames))
    return (rows[0] if rows else every[-1]), matched


def where(site, version: str | None, frames=()) -> dict:
    """`vllm_source` of a diagnosis: where the log's release (or the release its frames match, or
    the newest that has it) raises it."""
    w, matched = place(site, version, frames)
    out = {"file": w["file"], "function": w["function"], "line": w["line"], "releases": site.releases,
           "release": w["release"], "exception": site.exc}
    if matched:
        out["frame_releases"] = matched
    return out
