"""The index of vLLM's error surface: what vLLM's own releases say, looked up at diagnosis time.

Built by `vllm-doctor index build` (build/wheels.py) from vLLM's released wheels and
shipped as package data: data/index.json.gz (what matching needs), and beside it index.where.pack
(where each message is raised) and index.facts.pack (arguments, env vars, config classes, imports),
packs of blocks each read on its first use (pack.py). Nothing is read until the first `load()`; the result is cached per process.
Standard library and rapidfuzz only.

    from bot.diagnose.knowledge.vllm import index as vsrc
    idx = vsrc.load()                   # None when the data file is absent (or unreadable)
    idx.releases    # ["0.5.5", "0.6.6.post1", ..., "0.34.0"]: the last patch of every minor, whose raise
                    # sites and imports the index holds
    idx.versions    # ["0.5.0", "0.5.0.post1", ..., "0.34.0"]: every release PyPI serves from 0.5.0 on,
                    # whose arguments, config fields, env vars and deprecation notices it holds
    idx.uploaded    # {"0.34.0": "2026-11-16T23:51:23Z", ...}: when each reached PyPI (when known)

Messages → raise sites (precision first: an empty list means "not vLLM's message, as far as the
index knows"; it abstains rather than guesses):

    idx.match(message, exc_type=None, limit=3) -> list[SiteMatch], best first
        SiteMatch.site      RaiseSite
        SiteMatch.score     0-100 (an exact template match of a distinctive message is 100)
        SiteMatch.captures  {placeholder: value} (exact matches only)
        SiteMatch.by        "template" (the template's regex matched) | "fuzzy" (reworded, cut short)
    RaiseSite: exc, template, placeholders, releases, where (list of {release, file, line, function,
        condition}), folder, user_facing; .latest_where(), .where_for(release)
        `condition` is the enclosing `if` test's source (`not (...)` in its else branch; after an
        `if/elif` chain, or `return` guards, every test negated: `x not in ('a', 'b')`, `not (a) and
        b is None`, cut visibly with `…`), or "except X" inside a handler, or "assert <test>" for an
        assert's message.

Arguments, config fields and environment variables, exact for every release PyPI serves. `release`
is any vLLM version, described by the entry of `versions` it is (or the nearest, releases.py:
"0.10.1.dev3+gabc" by 0.10.1, an unreleased 0.33.1 by 0.33.0); release=None: the newest version that
has the name.

    idx.arg("max_model_len" | "--max-model-len" | "max-model-len" | "-tp", release=None) -> ArgInfo | None
        name, flag, aliases, no_flag, keyword (an LLM() keyword), type, default, default_expr,
        llm_default, choices, ge, le, gt, lt, help, config_class, config_field, deprecated, notice,
        releases (the versions that have it), removed_in (the first version without it after the
        last that has it), replaced_by, replaced_by_source (successors.py: "deprecation notice":
        vLLM says so; "deprecation in its help" / "... doc": its own help says to use another;
        "field of the renamed config class": it set a field of a config class vLLM renamed, now
        set through the argument that takes the new class (`structured_outputs_config.backend`);
        "same config field" / "same help text": a name that appeared when it went and does the same),
        release (the version described), file, line
    idx.has_arg(name_or_flag, release) -> bool | None
    idx.config_field("CacheConfig", "gpu_memory_utilization", release=None) -> ArgInfo | None
        (name is the field, flag the CLI flag that sets it in that release, if any)
    idx.env("VLLM_USE_V1", release=None) -> EnvInfo | None
        name, default, default_expr, choices, type, doc, releases, removed_in, replaced_by,
        replaced_by_source, notice, release, file, line
    idx.has_env(name, release) -> bool | None
        None: the release is outside the indexed span (older than 0.5.0, of a minor newer than the
        newest).
    idx.importers("mistral_common", release=None) -> list[ImportSite]   (releases: of `releases`)
        package, module, releases, guarded, guards, pip_name, extras, required, lines
    idx.pip_name("lmformatenforcer") -> "lm-format-enforcer"
    idx.nearest_release("0.20.1") -> "0.20.2": the entry of `releases` that describes a version,
        for its raise sites: its minor's last patch (0.8.5 → 0.8.5.post1, 0.10.1 → 0.10.2); a
        version newer than every indexed minor gets the newest, an older one None
    idx.nearest_version("0.20.1") -> "0.20.1": the entry of `versions` that describes it
    idx.releases_around(version) -> (older, newer) | None: for a version of a minor the index
        lacks (none from 0.5 to the newest), the versions it lies between
    idx.notices(name) -> [{"text", "replacement", "releases", "file", "line"}]: deprecation sentences

Versions are normalised: "0.8.5.post1" and "0.10.1.dev0+g6d8d" compare by their numbers.

Data layout (build.py): a set of releases is a bitmask of positions in `releases` (raise sites,
imports) or in `versions` (arguments, env vars, config fields, notices); a fact with the same value
in several releases is stored once as [mask, value, ...].
"""

from __future__ import annotations

import gc
import gzip
import heapq
import json
import re
from pathlib import Path

from bot.base import marshal_cache, regex_cache

from ..raise_sites import SiteMatch, Template, bits
from . import installed
from .pack import Pack
from .releases import locate, version_key

DATA_PATH = installed.PACKAGED                 # the copy shipped in the package (data/)
FORMAT = 3                # the data layout this loader reads (build.FORMAT)

MIN_SCORE = 80            # below it, match() abstains
FUZZY_CUTOFF = 88         # rapidfuzz ratio of masked texts needed for a reworded message
MIN_FUZZY_LITERAL = 40    # a template needs this many literal characters to be matched fuzzily
CANDIDATES = 10           # templates verified per message
FUZZY_MIN_SIMILARITY = 0.5  # word-set F1 of message and template below which fuzzy scoring is not tried
CLASS_PENALTY = 12        # the message's exception class is not the one the site raises
FOREIGN_PENALTY = 30      # ... and it lives in another package
MAX_CAPTURE = 1000
MAX_REPEATS = 20         # a literal piece seen more often than this in a message: no regex
MAX_MESSAGE = 4000


def load(path: str | Path | None = None) -> "Index | None":
    """The index, read once per process; None when the data file is absent or unreadable. Without
    a path, the copy in use (installed.py): the packaged one, or the newer one `index update` put
    in the data folder, to which a running process switches within a minute of the update."""
    return installed.COPIES.load(_open, path)


def _open(path: Path) -> "Index | None":
    try:
        data = _read(path)
        return Index(data, path) if data.get("format") == FORMAT else None
    except (OSError, ValueError, EOFError, KeyError, TypeError):
        return None


def _read(path: Path):
    """The index's core: from the marshal cache kept for this copy of the file (about 3 ms), else parsed from its
    gzip'd JSON (about 25 ms, a tenth of a cold start's diagnosis) and kept for the next process."""
    st = path.stat()
    stamp = (FORMAT, st.st_size, st.st_mtime_ns)
    cache = marshal_cache.path("vllm-index", str(path))
    collecting = gc.isenabled()
    gc.disable()            # parsing makes many objects and no cycles: the collector only slows it
    try:
        data = marshal_cache.load(cache, stamp)
        if data is None:
            with gzip.open(path, "rb") as f:
                data = json.loads(f.read())
            marshal_cache.store(cache, stamp, data)
        return data
    finally:
        if collecting:
            gc.enable()


def _part(core: Path, name: str) -> Path:
    """index.json.gz → index.where.pack / index.facts.pack, read on first use."""
    return core.with_name(core.name.removesuffix(".json.gz") + f".{name}.pack")


# --- templates -----------------------------------------------------------------------------------

_PLACEHOLDER = regex_cache.compile(r"\{[^{}]*\}")
_SPACE = regex_cache.compile(r"\s+")
_EXC_PREFIX = regex_cache.compile(r"^((?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*(?:Error|Exception|Warning|Exit|Interrupt|Failure)"
                         r"|Exception)):\s*")      # a bare `raise Exception(...)` too
_MASK = regex_cache.compile(r"'[^'\n]{0,200}'|\"[^\"\n]{0,200}\"|\[[^\[\]]{0,500}\]|\{[^{}]{0,500}\}|\([^()]{0,200}\d[^()]{0,200}\)"
                   r"|(?<!\S)\S*[\d/\\]\S*|\x00")
_WORDS = regex_cache.compile(r"[a-z][a-z0-9_]{2,}")
# vLLM's VLLMValidationError words its own message: "<message> (parameter=top_p, value=0.0)", or
# with only the one it was given: "(parameter=image)" (vllm/exceptions.py, __str__).
_VALIDATION_SUFFIX = regex_cache.compile(r"\s*\((?:parameter=[^()]{1,200}?(?:, value=[^()]{0,400})?|value=[^()]{0,400})\)\s*$")


def literal_words(template: str) -> list[str]:
    """The lower-cased words (3+ characters) of a template's literal text, in order: the build
    picks a site's anchors among them, the matcher compares them with a message's words."""
    return _WORDS.findall(_PLACEHOLDER.sub(" ", template.replace("{{", "").replace("}}", "")).lower())


def literal_word_set(template: str) -> frozenset[str]:
    return frozenset(literal_words(template))


def _regex(parts: list[tuple[str, str]]) -> tuple[re.Pattern, list[int], list[str]]:
    """A template's regex: literal text escaped (any run of white space may be none or several: a
    paste's wrapping), each field a lazy bounded capture, the last one the rest of the message (a
    list of weights can be long). Fields that touch ({a}{b}) share one capture: no text can tell
    them apart, and two lazy captures side by side try every split. Also returns which field each
    capture fills, and the literal pieces, which must all appear in order for the regex to match."""
    out: list[str] = []
    fields: list[int] = []
    pieces: list[str] = []
    n_fields = 0
    for i, (kind, value) in enumerate(parts):
        if kind == "lit":
            if not value.strip() and 0 < i < len(parts) - 1:
                out.append(r"\s+")     # two fields apart: "At most {limit} {modality}(s)" keeps 8 from image
                continue
            out.append(r"\s*".join(re.escape(p) for p in _SPACE.split(value)))
            pieces += [p for p in value.split() if p]
            continue
        if i > 0 and parts[i - 1][0] == "ph":
            n_fields += 1
            continue
        out.append("(.*)" if i == len(parts) - 1 else f"(.{{0,{MAX_CAPTURE}}}?)")
        fields.append(n_fields)
        n_fields += 1
    return re.compile("".join(out), re.S), fields, pieces


def _in_order(text: str, pieces: list[str]) -> bool:
    """Whether every literal piece appears, in order, and none so often that a regex would try too
    many splits (a paste made of one repeated phrase)."""
    pos = 0
    for p in pieces:
        pos = text.find(p, pos)
        if pos < 0:
            return False
        pos += len(p)
    return all(text.count(p) <= MAX_REPEATS for p in pieces if len(p) > 3)


def _prose_subject(site, captures: dict, text: str) -> bool:
    """Whether a template that opens with a placeholder matched only because the placeholder took a
    whole phrase of another program's sentence: the name a vLLM message opens with is one token or a
    quoted list, not three plain words, and its own words must then be most of the message."""
    if not captures or not site.regex.pattern.startswith("(") or site.literal_chars * 2 >= len(text):
        return False
    first = next(iter(captures.values()))
    return len(first.split()) >= 3 and not any(c in first for c in "[]{}()'\",=:/")


def _masked(text: str) -> str:
    return " ".join(_MASK.sub("\x01", text).split())


# --- records -------------------------------------------------------------------------------------

class RaiseSite(Template):
    """One message vLLM raises (an exception class and template), with every place that raises it."""

    __slots__ = ("index", "id", "exc", "template", "_where", "_parts", "_regex", "_masked", "_literal")

    def __init__(self, index: "Index", i: int):
        self.index, self.id = index, i
        self.exc, self.template = index._exc[i], index._template[i]
        self._where = self._parts = self._regex = self._masked = self._literal = None

    @property
    def words(self) -> frozenset[str]:
        """The lower-cased words of the literal text."""
        return self.index._words(self.id)

    @property
    def placeholders(self) -> list[str]:
        return [v for k, v in self.parts if k == "ph"]

    @property
    def regex(self) -> re.Pattern:
        return self._compiled()[0]

    def _compiled(self) -> tuple[re.Pattern, list[int], list[str]]:
        if self._regex is None:
            self._regex = _regex(self.parts)
        return self._regex

    def fullmatch(self, text: str) -> dict | None:
        """{placeholder: value} when the whole message is this template, else None."""
        return self._captures(text, full=True)

    def prefix_match(self, text: str) -> tuple[int, dict] | None:
        """(end, captures) when the message starts with this template."""
        return self._captures(text, full=False)

    def _captures(self, text: str, full: bool):
        rx, fields, pieces = self._compiled()
        if not _in_order(text, pieces):
            return None
        m = rx.fullmatch(text) if full else rx.match(text)
        if m is None:
            return None
        names = self.placeholders
        captures: dict = {}
        for value, f in zip(m.groups(), fields):
            captures.setdefault(names[f], value.strip())
        return captures if full else (m.end(), captures)

    @property
    def masked(self) -> str:
        if self._masked is None:
            self._masked = _masked("".join(v if k == "lit" else "\x00" for k, v in self.parts))
        return self._masked

    def _groups(self) -> list:
        """[[file id, function, condition, [mask, line, mask, line, ...]], ...]"""
        if self._where is None:
            self._where = self.index._places(self.id)
        return self._where

    @property
    def where(self) -> list[dict]:
        rels, files = self.index.releases, self.index.files
        out = []
        for fi, fn, cond, lines in self._groups():
            for j in range(0, len(lines), 2):
                for ri in bits(lines[j]):
                    out.append((ri, files[fi], {"release": rels[ri], "file": files[fi], "line": lines[j + 1],
                                                "function": fn, "condition": cond}))
        out.sort(key=lambda w: w[:2])
        return [w for _, _, w in out]

    @property
    def releases(self) -> list[str]:
        m = 0
        for _, _, _, lines in self._groups():
            for j in range(0, len(lines), 2):
                m |= lines[j]
        return [self.index.releases[i] for i in bits(m)]

    def latest_where(self) -> dict:
        return self.where[-1]

    def where_for(self, release: str) -> list[dict]:
        """Where the given release (the indexed release that describes it) raises it."""
        rel = self.index.nearest_release(release)
        return [w for w in self.where if w["release"] == rel]

    @property
    def folder(self) -> str:
        return self.index.folder(self.latest_where()["file"])

    @property
    def user_facing(self) -> bool:
        return any(self.index.user_facing_file(w["file"]) for w in self.where)

    def __repr__(self) -> str:
        return f"RaiseSite({self.exc}: {self.template[:60]!r}, {self.latest_where()['file']})"


class Info:
    """A plain record whose fields are set from a dict (missing ones read as None)."""

    _fields: tuple[str, ...] = ()

    def __init__(self, **kw):
        for f in self._fields:          # extra keys (facts a newer build adds) are ignored
            setattr(self, f, kw.get(f))

    def to_dict(self) -> dict:
        return {f: getattr(self, f) for f in self._fields}

    def __repr__(self) -> str:
        body = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields[:6])
        return f"{type(self).__name__}({body})"


class ArgInfo(Info):
    _fields = ("name", "flag", "aliases", "no_flag", "keyword", "type", "default", "default_expr", "llm_default",
               "factory", "choices", "ge", "le", "gt", "lt", "help", "config_class", "config_field",
               "deprecated", "notice", "releases", "removed_in", "replaced_by", "replaced_by_source", "release",
               "file", "line")


class EnvInfo(Info):
    _fields = ("name", "default", "default_expr", "choices", "type", "doc", "releases", "removed_in",
               "replaced_by", "replaced_by_source", "notice", "release", "file", "line")


class ImportSite(Info):
    _fields = ("package", "module", "releases", "guarded", "guards", "pip_name", "extras", "required", "lines")


# --- the index -----------------------------------------------------------------------------------

class Index:
    def __init__(self, data: dict, path: Path | None = None):
        self.releases: list[str] = data["releases"]
        self.versions: list[str] = data.get("versions") or self.releases
        self.files: list[str] = data["files"]
        self.counts: dict = data.get("counts", {})
        self.uploaded: dict[str, str] = data.get("uploaded", {})   # version -> when PyPI got it (ISO 8601)
        self._user_facing = tuple(data.get("user_facing", ()))
        columns = data["sites"]
        self._path = path
        self._exc, self._template = columns["exc"], columns["template"]
        self._sites: list[RaiseSite | None] = [None] * len(self._exc)
        self._site_words: list[frozenset | None] = [None] * len(self._exc)
        self._postings_text: dict[str, str] = data["postings"]
        self._postings: dict[str, list[int]] = {}
        self._where_block: int = data["where_block"]
        self._where_pack = Pack(_part(path, "where")) if path else None
        self._facts_pack = Pack(_part(path, "facts")) if path else None
        self._class_names: set[str] | None = None
        self._aliases: dict[str, str] | None = None
        self._notice_keys: dict[str, list[int]] | None = None
        self._memo: dict[tuple[str, str | None, int], list[SiteMatch]] = {}

    def site(self, i: int) -> RaiseSite:
        s = self._sites[i]
        if s is None:
            s = self._sites[i] = RaiseSite(self, i)
        return s

    @property
    def sites(self) -> list[RaiseSite]:
        return [self.site(i) for i in range(len(self._sites))]

    def _fact(self, key: str):
        """One block of the facts part: args, envs, imports, dists, pip_names, deprecations, successors."""
        return self._facts_pack.get(key)

    def _class(self, name: str) -> dict:
        """{field: variants} of one config class (its own block)."""
        if self._class_names is None:
            self._class_names = set(self._fact("classes"))
        return self._facts_pack.get("class:" + name) if name in self._class_names else {}

    def _places(self, i: int) -> list:
        return self._where_pack.get(str(i // self._where_block))[i % self._where_block]

    @property
    def site_count(self) -> int:
        return len(self._exc)

    def import_rows(self) -> list:
        """Every optional-package import as stored: [[module, guards, [mask, line, ...]], ...] per package."""
        return list(self._fact("imports").values())

    def places(self, i: int) -> list:
        """Site i's places as stored: [[file id, function, condition, [mask, line, ...]], ...], the
        masks counting `releases` (for whole-index passes that would make a dict per place)."""
        return self._places(i)

    # releases

    def nearest_release(self, version: str) -> str | None:
        """The indexed release (of `releases`) that describes `version` (releases.py): its minor's
        indexed patch, else the newest indexed release before it; the newest for a version newer
        than all."""
        return self._nearest(self.releases, version)

    def nearest_version(self, version: str) -> str | None:
        """The entry of `versions` that describes `version`: itself for a release PyPI serves."""
        return self._nearest(self.versions, version)

    @staticmethod
    def _nearest(names: list[str], version: str) -> str | None:
        found = locate(names, version)
        if found is not None:
            return names[found[0]]
        key = version_key(version) if version else None
        return names[-1] if key is not None and key > version_key(names[-1]) else None

    def releases_around(self, version: str) -> tuple[str, str] | None:
        """(older, newer): the versions a version lies between when the index lacks its minor;
        None when one describes it, or it is outside the indexed span."""
        found = locate(self.versions, version)
        return (self.versions[found[0]], self.versions[found[1]]) if found and found[0] != found[1] else None

    def folder(self, file: str) -> str:
        for prefix in self._user_facing:
            if file.startswith(prefix + "/") or file == prefix + ".py":
                return prefix.removeprefix("vllm/")
        parts = file.split("/")
        return "/".join(parts[1:-1]) if len(parts) > 2 else ""

    def user_facing_file(self, file: str) -> bool:
        return file.startswith(tuple(p + "/" for p in self._user_facing)) or file.count("/") == 1 \
            or file.removesuffix(".py") in self._user_facing

    # messages → raise sites

    def match(self, message: str, exc_type: str | None = None, limit: int = 3) -> list[SiteMatch]:
        if not message:
            return []
        memo_key = (message, exc_type, limit)
        if memo_key in self._memo:
            return self._memo[memo_key]
        text = " ".join(message[:MAX_MESSAGE].split())
        if len(text) > 2 and text[0] == text[-1] and text[0] in "'\"" and _EXC_PREFIX.match(text[1:]):
            text = text[1:-1]       # a whole exception line quoted in prose: "ValueError: ..."
        m = _EXC_PREFIX.match(text)
        if m:
            exc_type = exc_type or m.group(1)
            text = text[m.end():]
        exc = exc_type.rsplit(".", 1)[-1] if exc_type else None
        # vLLM raises builtins and its own classes; `openai.error.InvalidRequestError` or
        # `torch.OutOfMemoryError` was raised by another package, whatever its text.
        foreign = bool(exc_type) and "." in exc_type and exc_type.split(".", 1)[0] != "vllm"
        if exc == "KeyError" and len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1]
        if "(parameter=" in text or "(value=" in text:
            text = _VALIDATION_SUFFIX.sub("", text)
        out = self._match(text, exc, foreign)[:limit]
        if len(self._memo) > 4096:
            self._memo.clear()
        self._memo[memo_key] = out
        return out

    def _candidates(self, words: set[str]) -> list[tuple[float, int, bool]]:
        """(similarity, site, whether the message holds all the template's words) of the sites
        most like the message. The anchor postings give the sites whose rarest word (or rarest
        first word) the message holds; they are ranked by how well the words of message and template
        agree both ways (an F1 of the word sets), so a long template whose message was cut short
        still beats a short one that happens to share three words."""
        pool: set[int] = set()
        for w in words:
            post = self._posting(w)
            if post:
                pool.update(post)
        ranked = []
        site_words, n = self._site_words, len(words)
        for i in pool:
            tw = site_words[i] or self._words(i)
            common = len(tw & words)
            if common:
                p, r = common / n, common / len(tw)
                ranked.append((2 * p * r / (p + r), i, common == len(tw)))
        return heapq.nlargest(CANDIDATES, ranked)

    def _words(self, i: int) -> frozenset[str]:
        tw = self._site_words[i]
        if tw is None:
            tw = self._site_words[i] = literal_word_set(self._template[i])
        return tw

    def _posting(self, word: str) -> list[int] | None:
        post = self._postings.get(word)
        if post is None:
            text = self._postings_text.get(word)
            if text is None:
                return None
            post = self._postings[word] = [int(i) for i in text.split()]
        return post

    def _match(self, text: str, exc: str | None, foreign: bool = False) -> list[SiteMatch]:
        found: list[SiteMatch] = []
        masked_text = None
        trimmed = text.rstrip(" .:")
        exact = False
        for similarity, i, complete in self._candidates(set(_WORDS.findall(text.lower()))):
            site = self.site(i)
            specific = min(1.0, site.literal_chars / 30)
            captures = None
            if complete:            # a template's regex can only match a message holding all its words
                captures = site.fullmatch(text)
                if captures is None and trimmed != text:
                    captures = site.fullmatch(trimmed)
            if captures is not None and _prose_subject(site, captures, text):
                captures = None     # "{method} is not supported yet." is not "GGUF model with ... is not supported yet."
            if captures is not None:
                score, by = 90 + 10 * specific, "template"
                exact = True
            else:
                prefix = site.prefix_match(text) if complete else None
                if prefix and _prose_subject(site, prefix[1], text):
                    prefix = None   # the same phrase taken by the placeholder, with the message's own tail
                if prefix and prefix[0] >= len(text) * 0.6:      # vLLM's message, then text appended after it
                    captures = prefix[1]
                    score, by = 85 + 8 * specific - 10 * (1 - prefix[0] / len(text)), "template"
                else:
                    if exact or similarity < FUZZY_MIN_SIMILARITY or site.literal_chars < MIN_FUZZY_LITERAL:
                        continue        # a fuzzy score cannot beat an exact match
                    if masked_text is None:
                        masked_text = _masked(text)
                    score = _fuzzy(masked_text, site.masked)
                    if score < FUZZY_CUTOFF:
                        continue
                    score, by = score * 0.95, "fuzzy"
            if foreign:
                score -= FOREIGN_PENALTY
            elif exc and site.exc != exc:
                score -= CLASS_PENALTY
            if score >= MIN_SCORE:
                found.append(SiteMatch(site, round(score, 1), captures or {}, by))
        found.sort(key=lambda s: (s.score, s.site.literal_chars, s.site.exc == exc), reverse=True)
        return found

    # arguments, config fields, env vars

    def _alias_map(self) -> dict[str, str]:
        if self._aliases is None:
            self._aliases = {}
            for name, variants in self._fact("args").items():
                for _, rec, _ in variants:
                    for flag in [rec.get("flag"), rec.get("no_flag"), *(rec.get("aliases") or [])]:
                        if flag:
                            self._aliases.setdefault(flag, name)
        return self._aliases

    def _arg_name(self, name_or_flag: str) -> str | None:
        s = name_or_flag.strip().split("=", 1)[0]
        if s in self._alias_map():
            return self._alias_map()[s]
        name = s.lstrip("-").replace("-", "_")
        if name in self._fact("args"):
            return name
        if name.startswith("no_") and name[3:] in self._fact("args"):
            return name[3:]
        return None

    def _pick(self, variants: list, release: str | None) -> tuple[int, dict, list] | None:
        """(version id, facts, [mask, file id, line, ...]) of the variant for `release` (the
        version that describes it), or of the newest version that has it."""
        if release is None:
            ri = max(m.bit_length() for m, _, _ in variants) - 1
        else:
            rel = self.nearest_version(release)
            if rel is None:
                return None
            ri = self.versions.index(rel)
        for m, rec, src in variants:
            if m >> ri & 1:
                return ri, rec, src
        return None

    def _lifetime(self, variants: list) -> tuple[list[str], str | None]:
        m = 0
        for v in variants:
            m |= v[0]
        last = m.bit_length() - 1
        removed = self.versions[last + 1] if last + 1 < len(self.versions) else None
        return [self.versions[i] for i in bits(m)], removed

    def _source(self, src: list, ri: int) -> tuple[str | None, int | None]:
        for j in range(0, len(src), 3):
            if src[j] >> ri & 1:
                fi, line = src[j + 1], src[j + 2]
                return (self.files[fi] if fi >= 0 else None), line
        return None, None

    def _describe(self, variants: list | None, release: str | None, name: str,
                  successor: list | None = None) -> dict | None:
        """The facts of one name in one release, with its lifetime, source and successor."""
        picked = self._pick(variants, release) if variants else None
        if picked is None:
            return None
        ri, rec, src = picked
        releases, removed = self._lifetime(variants)
        file, line = self._source(src, ri)
        replaced_by, why = successor or (None, None)
        notice = self._notice_for(name, rec.get("flag"), why)
        choices = rec.get("choices")
        if choices and any(isinstance(c, int) and not isinstance(c, bool) for c in choices) \
                and any(isinstance(c, str) for c in choices):
            # an Enum whose members are numbers and tuples (`CUDAGraphMode`: NONE = 0, ...,
            # FULL_DECODE_ONLY = (FULL, NONE)), read as the numbers and the tuples' names: users write
            # the members' names, of which the numbers are none, so the list would misquote them
            rec = {**rec, "choices": None}
        return {**rec, "name": name, "releases": releases, "removed_in": removed, "replaced_by": replaced_by,
                "replaced_by_source": why, "notice": notice and notice["text"],
                "release": self.versions[ri], "file": file, "line": line}

    def arg(self, name_or_flag: str, release: str | None = None) -> ArgInfo | None:
        name = self._arg_name(name_or_flag)
        facts = self._describe(self._fact("args")[name], release, name,
                               self._fact("successors")["args"].get(name)) if name else None
        if facts is None:
            return None
        config = facts.get("config") or [None, None]
        facts.update(config_class=config[0], config_field=config[1], aliases=facts.get("aliases") or [])
        return ArgInfo(**facts)

    def has_arg(self, name_or_flag: str, release: str) -> bool | None:
        """Whether `release` has the argument; a flag, only where the release spells it so: an
        argument 0.5 had as `--enable-chunked-prefill` got its `--no-enable-chunked-prefill` with 0.8."""
        name = self._arg_name(name_or_flag)
        variants = self._fact("args")[name] if name else ()
        spelled = name_or_flag.strip().split("=", 1)[0]
        if spelled.startswith("-") and variants:
            variants = [v for v in variants if _spells(v[1], spelled)]
        return self._presence(variants, release)

    def _presence(self, variants, release: str) -> bool | None:
        found = locate(self.versions, release)
        if found is None:
            return None
        m = 0
        for v in variants:
            m |= v[0]
        a, b = bool(m >> found[0] & 1), bool(m >> found[1] & 1)
        return a if a == b else None

    def config_field(self, class_name: str, field: str, release: str | None = None) -> ArgInfo | None:
        successor = self._fact("successors")["classes"].get(class_name, {}).get(field)
        facts = self._describe(self._class(class_name).get(field), release, field, successor)
        if facts is None:
            return None
        ri = self.versions.index(facts["release"])
        flag: dict = {}
        for arg_variants in self._fact("args").values():
            for m, a, _ in arg_variants:
                if m >> ri & 1 and a.get("config") == [class_name, field] and a.get("flag"):
                    flag = a
        facts.update(config_class=class_name, config_field=field, help=facts.get("doc"), keyword=None,
                     flag=flag.get("flag"), no_flag=flag.get("no_flag"), aliases=flag.get("aliases") or [])
        return ArgInfo(**facts)

    def env(self, name: str, release: str | None = None) -> EnvInfo | None:
        name = name.strip()
        facts = self._describe(self._fact("envs").get(name), release, name,
                               self._fact("successors")["envs"].get(name))
        return EnvInfo(**facts) if facts else None

    def has_env(self, name: str, release: str) -> bool | None:
        return self._presence(self._fact("envs").get(name.strip(), ()), release)

    # the other knobs (build/scan_knobs.py): parser registries, attention backends, request fields

    def knob_names(self, kind: str, release: str | None = None) -> list[str]:
        """The names of one kind ("tool_parser", "request", ...) that `release` has (an entry of
        `versions`), or that any version has."""
        per = (self._fact("knobs") or {}).get(kind, {})
        if release is None:
            return list(per)
        if release not in self.versions:
            return []
        bit = 1 << self.versions.index(release)
        return [name for name, mask in per.items() if mask & bit]

    def knob_versions(self, kind: str, name: str) -> list[str]:
        """The entries of `versions` (oldest first) whose `kind` has `name` ("architecture",
        "Qwen3ForCausalLM"); [] when none does, or the index predates the kind."""
        m = (self._fact("knobs") or {}).get(kind, {}).get(name, 0)
        return [v for i, v in enumerate(self.versions) if m >> i & 1]

    def has_knob_kind(self, kind: str) -> bool:
        return bool((self._fact("knobs") or {}).get(kind))

    def knob_fields(self, kind: str, cls: str, release: str | None = None) -> set[str]:
        """The fields of one class among a kind's `Class.field` names ("sampling", "SamplingParams")."""
        return {name.split(".", 1)[1] for name in self.knob_names(kind, release) if name.startswith(cls + ".")}

    # what there is (for "did you mean", and to tell vLLM's config classes from other programs')

    def arg_names(self) -> list[str]:
        return list(self._fact("args"))

    def env_names(self) -> list[str]:
        return list(self._fact("envs"))

    def config_classes(self) -> list[str]:
        return list(self._fact("classes"))

    def config_fields(self, class_name: str) -> list[str]:
        return list(self._class(class_name))

    # deprecations

    def notices(self, name: str) -> list[dict]:
        """Deprecation sentences that name `name` (a flag, keyword, field or env var), newest first."""
        notices = self._fact("deprecations")
        keys = self._notice_keys
        if keys is None:
            # each subject under the three names it is asked by (as written, as a keyword, a dotted
            # name's last part): a lookup, where scanning every notice for each name a rule's text
            # shows took most of `rules lint`
            keys = self._notice_keys = {}
            for i, (_, subjects, _, _, _) in enumerate(notices):
                for s in subjects:
                    for key in {s, s.lstrip("-").replace("-", "_"), s.split(".")[-1]}:
                        found = keys.setdefault(key, [])
                        if not found or found[-1] != i:
                            found.append(i)
        hits = sorted({i for key in {name, name.lstrip("-").replace("-", "_")} for i in keys.get(key, ())})
        out = []
        for i in hits:
            m, _, replacement, text, where = notices[i]
            last = max(range(0, len(where), 3), key=lambda j: where[j].bit_length())
            out.append({"text": text, "replacement": replacement, "releases": [self.versions[r] for r in bits(m)],
                        "file": self.files[where[last + 1]], "line": where[last + 2]})
        out.sort(key=lambda n: version_key(n["releases"][-1]), reverse=True)
        return out

    def _notice_for(self, name: str, flag: str | None, why: str | None = "deprecation notice") -> dict | None:
        """The newest notice about the name, one naming a successor first. When no notice gave
        the name its successor (`why`, successors.py), a notice that names one is about something
        else of that name (the config field `DecodingConfig.guided_decoding_backend` "renamed to
        `backend`", not the engine argument `guided_decoding_backend`): only a notice without a
        successor is its own."""
        found = self.notices(name) or (self.notices(flag) if flag else [])
        with_rep = [n for n in found if n["replacement"]]
        if why != "deprecation notice":
            return next((n for n in found if not n["replacement"]), None)
        return (with_rep or found or [None])[0]

    # optional imports

    def pip_name(self, package: str) -> str:
        if package in self._fact("pip_names"):
            return self._fact("pip_names")[package]
        norm = re.sub(r"[-_.]+", "_", package).lower()
        dist = self._fact("dists").get(norm)
        return re.sub(r"[-_.]+", "-", dist["name"]).lower() if dist else package

    def importers(self, package: str, release: str | None = None) -> list[ImportSite]:
        rows = self._fact("imports").get(package.split(".")[0], [])
        ri = None
        if release is not None:
            rel = self.nearest_release(release)
            if rel is None:
                return []
            ri = self.releases.index(rel)
        pip = self.pip_name(package.split(".")[0])
        dist = self._fact("dists").get(re.sub(r"[-_.]+", "_", pip).lower(), {})
        out = []
        for module, guards, lines in rows:
            at = {ri_: lines[j + 1] for j in range(0, len(lines), 2) for ri_ in bits(lines[j])}
            if ri is not None and ri not in at:
                continue
            kinds = guards.split(",")
            extras = sorted(e for e, m in dist.get("extras", {}).items() if ri is None or m >> ri & 1)
            required = bool(dist.get("required", 0) >> (ri if ri is not None else max(at)) & 1)
            out.append(ImportSite(package=package, module=module, releases=[self.releases[r] for r in sorted(at)],
                                  guarded=kinds != ["top"], guards=kinds, pip_name=pip, extras=extras,
                                  required=required, lines={self.releases[r]: at[r] for r in sorted(at)}))
        return out


def _spells(rec: dict, flag: str) -> bool:
    """Whether an argument's facts in some releases spell it `flag` (its flag, its `--no-` form or an
    alias; vLLM's parser takes `_` for `-` in a long flag)."""
    spellings = [rec.get("flag"), rec.get("no_flag"), *(rec.get("aliases") or ())]
    if not any(spellings):
        return True                     # no flag recorded: the index cannot tell spellings apart
    if flag.startswith("--"):
        flag = "--" + flag[2:].replace("_", "-")
    return flag in spellings


def _fuzzy(masked_text: str, masked_template: str) -> float:
    from rapidfuzz import fuzz
    n, t = len(masked_text), len(masked_template)
    if n < t * 0.8 and n >= 40:        # a message cut short: compare it with the template's start
        return fuzz.ratio(masked_text, masked_template[: n + 8])
    return fuzz.ratio(masked_text, masked_template)
