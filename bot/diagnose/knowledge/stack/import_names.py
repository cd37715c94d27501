"""A name missing from transformers: `ImportError: cannot import name 'X' from 'transformers...'` and
`AttributeError: module 'transformers...' has no attribute 'X'`, against the stack index's table of
what each transformers release exports (build/transformers_exports.py).

history() gives the values both answers are filled with: the hand-written
`transformers-version-mismatch` (vLLM printed the log; advice.py's deriver) and the stack family
`transformers-name-missing` (any paste that shows vLLM, or a bare line): which releases export the
name, whether the transformers the paste shows is too old or too new for it, and the transformers
range that has it and that the log's vLLM allows.
"""

from __future__ import annotations


from bot.base import regex_cache
from bot.base.versions import in_range

from .stack_index import vkey

# Python's wordings. "from partially initialized module 'transformers'" (a circular import, a file
# named transformers.py) and "from 'transformers_modules.<repo>'" (a model's remote code) are not
# these: the module is quoted right after "from" and ends at the quote.
_IMPORT = regex_cache.compile(r"cannot import name '(?P<name>\w+)' from '(?P<module>transformers(?:\.\w+){0,6})'")
_ATTRIBUTE = regex_cache.compile(r"(?<!initialized )module '(?P<module>transformers(?:\.\w+){0,6})' has no attribute '(?P<name>\w+)'")
MAX_ELSEWHERE = 3


def missing_name(text: str) -> tuple[str, str] | None:
    """(module, name) of the first such message in a text; None when it names none."""
    if "transformers" not in text:
        return None
    found = _IMPORT.search(text) or _ATTRIBUTE.search(text)
    return (found.group("module"), found.group("name")) if found else None


# The package of a frame: the folder below site-packages, or the first part of a frame as facts.frames()
# writes it ("lmformatenforcer/integrations/transformers.py:<module>").
_FRAME_PACKAGE = regex_cache.compile(r"(?:^|[/\\](?:site|dist)-packages[/\\])([A-Za-z_]\w*)[/\\]")
# Not another package: vLLM's own code (transformers-version-mismatch's main story), transformers itself
# (its lazy module re-raising), the import machinery.
_NOT_IMPORTER = regex_cache.compile(r"^(?:vllm\w*|transformers|importlib|torch)$")


def frame_package(frame: str | None) -> str | None:
    """The package a frame's file is in (the folder below site-packages, or a frame's first part)."""
    found = _FRAME_PACKAGE.search(frame or "")
    return found.group(1) if found else None


def importer(ix, frame: str | None, vllm_version=None) -> dict:
    """{nm_importer, nm_importer_dist} when the frame that imported the name is another package's
    code that the index knows as a distribution (lm-format-enforcer importing `LogitsWarper`, removed
    in 4.49): that package's release, not vLLM, was written for another transformers. With the
    log's vLLM, `nm_importer_pin`: the release of it that vLLM requires (`==0.11.3`)."""
    package = frame_package(frame)
    if not package or _NOT_IMPORTER.match(package):
        return {}
    known = ix.distributions_of(package)
    if not known or known[0] != package or not known[1]:
        return {}
    out = {"nm_importer": known[0], "nm_importer_dist": known[1][0]}
    pins = [p for p in ix.requirements_of(str(vllm_version), known[1][0]) if p.specifier and not p.extra
            and not p.marker] if vllm_version else []
    if pins:
        out["nm_importer_pin"] = pins[0].specifier
    return out


def history(ix, module: str, name: str, facts: dict) -> dict:
    """{nm_*: value} for a name missing from a transformers module; {} when the table does not hold
    the module. `nm_known` is set when the table saw the name come or go: only then is the release
    that ran what lacks it (a name every indexed release exports says nothing about the version)."""
    rec = ix.import_name(module, name)
    if rec is None:
        return {}
    return describe(ix, rec, ix.export_releases(), facts)


def describe(ix, rec, rels: list[str], facts: dict) -> dict:
    """The nm_* values of one name's record (stack_index.ImportName) against the table's releases:
    shared by the names a module exports and the attributes of transformers' base classes
    (attribute_names.py)."""
    name, module = rec.name, rec.module
    out: dict = {"nm_name": name, "nm_module": module, "nm_oldest": rels[0], "nm_newest": rels[-1]}
    if not rec.releases:
        out["nm_never"] = "yes"
        if getattr(rec, "module_releases", None):
            out["nm_module_first"] = rec.module_releases[0]
        return out
    runs = _runs(rec.releases, rels)
    out["nm_span"] = ", ".join(_span(run, rels) for run in runs)
    gaps = _gaps(runs, rels)
    if gaps:
        out["nm_gap"] = ", ".join(gaps)
    if rec.added:
        out["nm_added"] = rec.added
    if rec.removed:
        out["nm_removed"] = rec.removed
        if rec.elsewhere:
            out["nm_elsewhere"] = ", ".join(f"`{m}`" for m in rec.elsewhere[:MAX_ELSEWHERE])
    if rec.added or rec.removed or gaps:
        out["nm_known"] = "yes"
    else:
        out["nm_always"] = "yes"
    out.update(_installed(rec, facts.get("transformers_version"), rels))
    out.update(_fix(ix, rec, rels, facts.get("vllm_version")))
    return out


def _runs(have: list[str], rels: list[str]) -> list[list[str]]:
    """The releases that have the name, cut where releases between lack it (transformers 5.0 – 5.3
    dropped `ALLOWED_LAYER_TYPES`, 5.4 brought it back): [[4.53.0 … 4.57.6], [5.4.0 … 5.25.0]]."""
    at = {r: i for i, r in enumerate(rels)}
    runs: list[list[str]] = []
    for r in have:
        if runs and at.get(r, -2) == at.get(runs[-1][-1], -9) + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    return runs


def _gaps(runs: list[list[str]], rels: list[str]) -> list[str]:
    """The releases between two runs, which lack the name: "5.0.0 – 5.3.0"."""
    out = []
    for before, after in zip(runs, runs[1:]):
        lacking = rels[rels.index(before[-1]) + 1:rels.index(after[0])]
        out.append(lacking[0] if len(lacking) == 1 else f"{lacking[0]} – {lacking[-1]}")
    return out


def _span(have: list[str], rels: list[str]) -> str:
    """"4.49.0 – 4.52.4"; "≤ 4.47.1" when the table's first release has it (the table starts there:
    earlier ones may have it too); "≥ 4.57.1" when its newest does."""
    if have[0] == rels[0] and have[-1] != rels[-1]:
        return f"≤ {have[-1]}"
    if have[-1] == rels[-1] and have[0] != rels[0]:
        return f"≥ {have[0]}"
    return have[0] if len(have) == 1 else f"{have[0]} – {have[-1]}"


def _installed(rec, installed: str | None, rels: list[str]) -> dict:
    """Where the transformers the paste shows stands: before the name came, after it went, between
    two releases that have it among those that lack it, or one that has it (then the version is not
    the cause: another copy ran, or the import is not transformers' own)."""
    key = vkey(str(installed or "").split("+")[0])
    if not key:
        return {}
    out = {"nm_installed": installed}
    runs = _runs(rec.releases, rels)
    if rec.added and key < vkey(rec.added):
        out["nm_too_old"] = "yes"
    elif rec.removed and key >= vkey(rec.removed):
        out["nm_too_new"] = "yes"
    elif any(vkey(a[-1]) < key < vkey(b[0]) for a, b in zip(runs, runs[1:])):
        out["nm_in_gap"] = "yes"
    elif vkey(rec.releases[0]) <= key <= vkey(rec.releases[-1]) and (rec.added or rec.removed or len(runs) > 1):
        out["nm_has"] = "yes"
    else:
        return {}
    return out


# vLLM's transformers pin had no ceiling up to 0.11.0 (">=4.55.2"), and those releases predate transformers 5 and read
# what 5.0.0 removed: get_cached_tokenizer reads the tokenizer's `all_special_tokens_extended` unconditionally (the 0.5.0,
# 0.8.5 and 0.11.0 wheels' transformers_utils/tokenizer.py; 0.11.1 capped the pin at "<5"). A range to install drawn from
# such a pin stays below 5.0.0, or pip picks a 5.x release that fails as vLLM starts. A pin without a ceiling whose floor
# is a 5.x release (0.24.0 - 0.30.0) is left as it is.
_TF5 = "5.0.0"


def installable_pin(pin: str | None) -> str | None:
    """The log's vLLM's transformers pin as a range to install: a ceiling-less pin with a 4.x floor gets "<5.0.0"."""
    clauses = [c.strip() for c in (pin or "").split(",") if c.strip()]
    if not clauses or any(c.startswith(("<", "==", "~=", "!=")) for c in clauses):
        return pin
    floors = [c.lstrip(">=").strip() for c in clauses if c.startswith(">")]
    if floors and all(vkey(f) < vkey(_TF5) for f in floors):
        return f"{pin},<{_TF5}"
    return pin


def _fix(ix, rec, rels: list[str], vllm_version) -> dict:
    """The transformers range to install: the releases that export the name and that the log's vLLM
    allows (below 5.0.0 for a vLLM made for transformers 4, installable_pin); when it allows none, the vLLM
    releases whose pin allows one."""
    shown = ix.pin(str(vllm_version), "transformers") if vllm_version else None
    pin = installable_pin(shown)
    ok = [r for r in rec.releases if not pin or in_range(r, pin)]
    out: dict = {}
    if shown:
        out["nm_vllm_pin"] = shown
    if pin != shown:
        out["nm_pin_ceiling"] = _TF5
    if not ok:
        out["nm_pin_none"] = "yes"
        allowed = [r for r in rels if in_range(r, pin)]
        if allowed and rec.removed and vkey(allowed[0]) >= vkey(rec.removed):
            out["nm_pin_past"] = "yes"          # every release it allows came after the name went
        elif allowed and rec.added and vkey(allowed[-1]) < vkey(rec.added):
            out["nm_pin_before"] = "yes"        # every release it allows came before the name
        later, earlier = _vllm_allowing(ix, rec.releases, vllm_version)
        if later:
            out["nm_vllm_later"] = later
        if earlier:
            out["nm_vllm_earlier"] = earlier
        return out
    runs = _runs(ok, rels)
    # releases that lack the name lie between those that have it: one run to install, the newest the
    # pin's ceiling allows (with no ceiling, the first); without the log's vLLM, both the oldest and the
    # newest run, since which one the importing code can use depends on that vLLM
    ok = runs[-1] if pin and "<" in pin else runs[0]
    spec = _run_spec(ok, rels, pin)
    if spec:
        out["nm_fix_spec"] = spec
    if not pin and len(runs) > 1:
        out["nm_fix_spec_alt"] = _run_spec(runs[-1], rels, pin)
    return out


def _run_spec(run: list[str], rels: list[str], pin: str | None) -> str:
    """">=4.53.0,<5.0.0": the releases of one run, as pip's specifier ("" when it is every release)."""
    clauses = []
    if run[0] != rels[0]:
        clauses.append(f">={run[0]}")
    after = rels.index(run[-1]) + 1
    if after < len(rels):
        clauses.append(f"<{rels[after]}")
    elif pin:       # the newest release indexed has it: the pin's own ceiling still holds
        clauses += [c.strip() for c in pin.split(",") if c.strip().startswith("<")]
    return ",".join(clauses)


def _vllm_allowing(ix, having: list[str], vllm_version) -> tuple[str | None, str | None]:
    """(the first vLLM after the log's whose transformers pin allows a release that has the name,
    the newest one before it that does)."""
    key = vkey(str(vllm_version))
    answered: dict[str, bool] = {}      # by pin: most vLLM releases share theirs with the next

    def allows(v: str) -> bool:
        p = ix.pin(v, "transformers")
        if p and p not in answered:
            answered[p] = any(in_range(r, p) for r in having)
        return bool(p) and answered[p]

    releases = sorted(ix.vllm_releases(), key=vkey)
    later = next((v for v in releases if vkey(v) > key and allows(v)), None)
    earlier = next((v for v in reversed(releases) if vkey(v) < key and allows(v)), None)
    return later, earlier
