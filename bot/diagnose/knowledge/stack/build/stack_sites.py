"""Raise sites and environment variables of the packages under vLLM, per minor release.

The environment-facing parts of torch, transformers, tokenizers, huggingface_hub and triton (the
folders and files in PACKAGES) are read out of one wheel per minor release (its last patch) with
ranged requests, parsed with `ast` (nothing is imported or installed) and scanned as vLLM's own
releases are (extract_sites). Each package's sites then merge into the layout its matcher reads
(site_match.SiteIndex).

Also per release of transformers (every one from 4.40, not only the last patch of a minor): the
model types of CONFIG_MAPPING_NAMES and the GGUF architectures of GGUF_CONFIG_MAPPING; and the
`reference = "..."` error codes of the newest pip's exceptions.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

from packaging.version import Version

from .. import site_match
from . import extract_sites, scan_env_reads
from .packages import Packages

# project on PyPI, the first minor indexed, the parts read (a folder ends with "/"), whether the
# smallest wheel will do (its Python files are the same on every platform)
PACKAGES = {
    "torch": {"project": "torch", "since": "2.1", "smallest": True, "parts": (
        "torch/cuda/", "torch/utils/cpp_extension.py", "torch/distributed/", "torch/_inductor/runtime/",
        "torch/_dynamo/exc.py", "torch/hub.py", "torch/serialization.py", "torch/_inductor/config.py",
        "torch/_inductor/codecache.py", "torch/_inductor/cpp_builder.py")},
    "transformers": {"project": "transformers", "since": "4.40", "smallest": True, "parts": (
        "transformers/configuration_utils.py", "transformers/tokenization_utils_base.py",
        "transformers/tokenization_utils_fast.py", "transformers/modeling_utils.py", "transformers/models/auto/",
        "transformers/integrations/ggml.py", "transformers/integrations/gguf/", "transformers/utils/hub.py",
        "transformers/modeling_gguf_pytorch_utils.py", "transformers/dynamic_module_utils.py",
        "transformers/utils/import_utils.py")},
    "tokenizers": {"project": "tokenizers", "since": "0.19", "smallest": True, "parts": ("tokenizers/",)},
    "huggingface_hub": {"project": "huggingface-hub", "since": "0.23", "smallest": True, "parts": (
        "huggingface_hub/errors.py", "huggingface_hub/utils/_errors.py", "huggingface_hub/file_download.py",
        "huggingface_hub/utils/_http.py", "huggingface_hub/constants.py", "huggingface_hub/utils/_validators.py",
        "huggingface_hub/_snapshot_download.py", "huggingface_hub/utils/_auth.py",
        "huggingface_hub/utils/_headers.py", "huggingface_hub/utils/_cache_manager.py")},
    "triton": {"project": "triton", "since": "2.1", "smallest": True, "parts": (
        "triton/runtime/", "triton/compiler/", "triton/backends/nvidia/driver.py", "triton/backends/nvidia/compiler.py",
        "triton/knobs.py", "triton/common/build.py", "triton/common/backend.py", "triton/backends/compiler.py")},
}
TABLE_SINCE = "4.40.0"           # transformers' model types and GGUF architectures, every release from here
MODEL_TYPES = (("CONFIG_MAPPING_NAMES",), ("transformers/models/auto/configuration_auto.py",
                                           "transformers/models/auto/auto_mappings.py"))
# From 5.17 some GGUF configs are built by a function of their own, listed in GGUF_CONFIG_ARCHS
# beside GGUF_CONFIG_MAPPING (qwen35 first): an architecture in either is converted.
GGUF_ARCHS = (("GGUF_CONFIG_MAPPING", "GGUF_CONFIG_ARCHS"), ("transformers/integrations/ggml.py",
                                                            "transformers/integrations/gguf/gguf_config_mapping.py"))
NOT_ARCHITECTURES = {"general", "tokenizer"}  # GGUF_CONFIG_MAPPING's metadata blocks, not architectures


class Unreadable(Exception):
    """A release an index names that the package index serves no wheel of (a rescan needs them all)."""


def scanner_key(*extra) -> str:
    """Cached facts are keyed by the scanners' source (and what else decides them), so a change
    to a scanner rescans, and a change to how facts are merged does not."""
    h = hashlib.sha1()
    for path in (extract_sites.scan_raises.__file__, scan_env_reads.__file__, extract_sites.__file__):
        h.update(Path(path).read_bytes())
    h.update(repr(extra).encode())
    return h.hexdigest()[:12]


def tables_key() -> str:
    """transformers' tables are read with scan_env_reads.literal_keys alone."""
    h = hashlib.sha1(Path(scan_env_reads.__file__).read_bytes())
    h.update(repr((MODEL_TYPES, GGUF_ARCHS)).encode())
    return h.hexdigest()[:12]


def minors(pypi: Packages, project: str, since: str) -> list[str]:
    """The last patch of every minor release from `since` on."""
    last: dict[tuple, str] = {}
    for v in pypi.releases(project, since=since):
        last[Version(v).release[:2]] = v
    return [last[k] for k in sorted(last)]


def wanted(name: str, parts: tuple[str, ...]) -> bool:
    return name.endswith(".py") and any(name.startswith(p) if p.endswith("/") else name == p for p in parts)


def release_facts(pypi: Packages, package: str, version: str) -> dict | None:
    """One release's facts. The source of the files read is cached on its own (gzip'd), so a
    change to a scanner rescans without downloading anything again."""
    spec = PACKAGES[package]
    wheel = pypi.wheel(spec["project"], version, smallest=spec["smallest"])
    if wheel is None:
        return None
    parts_key = hashlib.sha1(repr(spec["parts"]).encode()).hexdigest()[:8]

    def sources():
        z = pypi.remote(wheel)
        return z.texts([n for n in z.namelist() if wanted(n, spec["parts"])])

    def make():
        facts = extract_sites.extract(pypi.memo("sources", f"{wheel['filename']}-{parts_key}", sources, compress=True))
        facts["wheel"] = wheel["filename"]
        return facts

    kind = f"sites-{package}-{scanner_key(spec['parts'])}"
    pypi.prune(f"sites-{package}-", kind)
    return pypi.memo(kind, wheel["filename"], make)


def _masked(pairs) -> list:
    """[(release id, value), ...] → [mask, value, mask, value, ...]: releases sharing a value
    share one entry (bit i of a mask: the package's i-th release)."""
    groups: dict = {}
    for ri, value in pairs:
        groups[value] = groups.get(value, 0) | 1 << ri
    return [x for value, mask in groups.items() for x in (mask, value)]


def anchors(templates: list[str]) -> dict[str, str]:
    """{word: "site id site id ..."}: each site under its rarest literal word (any full message of
    it holds that) and the rarest of its first words (a message cut short still holds those)."""
    words = [list(dict.fromkeys(site_match.literal_words(t))) for t in templates]
    df: dict[str, int] = {}
    for ws in words:
        for w in ws:
            df[w] = df.get(w, 0) + 1
    rarity = lambda w: (df[w], -len(w))
    postings: dict[str, list[str]] = {}
    for i, ws in enumerate(words):
        for w in {min(ws, key=rarity), min(ws[:site_match.FIRST_WORDS], key=rarity)} if ws else ():
            postings.setdefault(w, []).append(str(i))
    return {w: " ".join(ids) for w, ids in sorted(postings.items())}


def merge(package: str, per_release: list[tuple[str, dict]]) -> dict:
    """One package's sites, each message once (one class and literal text, whatever its fields are
    named; the newest release's names win), with its places; its env vars {name: [releases
    mask, [file ids], default in the newest release]} and exception classes {name: [mask, bases,
    file id]}. The layout site_match.SiteIndex reads."""
    releases = [v for v, _ in per_release]
    files: list[str] = []
    file_ids: dict[str, int] = {}

    def fid(path: str) -> int:
        if path not in file_ids:
            file_ids[path] = len(files)
            files.append(path)
        return file_ids[path]

    sites: dict[tuple[str, str], dict] = {}
    templates: dict[tuple[str, str], str] = {}
    envs: dict[str, list] = {}
    classes: dict[str, list] = {}
    for ri, (_, facts) in enumerate(per_release):
        for s in facts["raises"]:
            key = (s["exc"], site_match.shape(s["template"]))
            templates[key] = s["template"]
            groups = sites.setdefault(key, {})
            groups.setdefault((fid(s["file"]), s["function"], s["condition"]), []).append((ri, s["line"]))
        for e in facts["envs"]:
            row = envs.setdefault(e["name"], [0, set(), None])
            row[0] |= 1 << ri
            row[1].add(fid(e["file"]))
            row[2] = e["default"] if e["default"] is not None else row[2]
        for name, rec in facts.get("classes", {}).items():
            row = classes.setdefault(name, [0, rec["bases"], fid(rec["file"])])
            row[0] |= 1 << ri
            row[1:] = [rec["bases"], fid(rec["file"])]          # the newest release's
    keys = list(sites)
    return {
        "package": package, "releases": releases, "files": files,
        "exc": [k[0] for k in keys], "template": [templates[k] for k in keys],
        "postings": anchors([templates[k] for k in keys]),
        "places": [[[f, fn, cond, _masked(lines)] for (f, fn, cond), lines in sites[k].items()] for k in keys],
        "counts": {v: f["counts"] for v, f in per_release},
        "envs": {name: [m, sorted(fids), default] for name, (m, fids, default) in sorted(envs.items())},
        "classes": dict(sorted(classes.items())),
    }


def build_package(pypi: Packages, package: str, log=print, releases: list[str] | None = None) -> dict:
    """One package's sites block, from the last patch of each minor on PyPI, or from `releases`
    (the ones an index already names: a rescan after a fix to a scanner, `build-stack --rescan-sites`).
    A release of `releases` whose wheel cannot be read fails the rescan rather than leave it out."""
    spec = PACKAGES[package]
    per_release = []
    for version in releases if releases is not None else minors(pypi, spec["project"], spec["since"]):
        facts = release_facts(pypi, package, version)
        if facts is None:
            if releases is not None:
                raise Unreadable(f"{spec['project']} {version}: no wheel on the package index to rescan")
            continue
        c = facts["counts"]
        log(f"  {package} {version}: {c['files']} files, {c['sites']} sites, {c['kept']} kept, "
            f"{len(facts['envs'])} env reads")
        per_release.append((version, facts))
    block = merge(package, per_release)
    block["source"] = f"{spec['project']} wheels on PyPI, the last patch of each minor from {spec['since']} " \
                      f"({', '.join(v for v, _ in per_release)}): " + ", ".join(spec["parts"])
    return block


# --- transformers' tables ---------------------------------------------------------------------------

def _table(z, variables: tuple[str, ...], candidates: tuple[str, ...]) -> list[str] | None:
    """The keys of the tables named `variables`, together, wherever among the candidate files they
    are defined (5.17+ keeps GGUF_CONFIG_MAPPING in ggml.py and GGUF_CONFIG_ARCHS beside it in
    gguf/); None when no candidate defines any of them."""
    names = set(z.namelist())
    present = [c for c in candidates if c in names]
    keys, found = {}, False
    for path, text in z.texts(present).items():
        tree = ast.parse(text)
        for variable in variables:
            table = scan_env_reads.literal_keys(tree, variable)
            if table is not None:
                found = True
                keys.update(dict.fromkeys(table))
    return list(keys) if found else None


def transformers_tables(pypi: Packages, log=print) -> dict:
    """{"releases": [...], "model_types": {type: mask}, "gguf": {arch: mask}, "source"}"""
    releases, model_types, gguf = [], {}, {}
    for version in pypi.releases("transformers", since=TABLE_SINCE):
        wheel = pypi.wheel("transformers", version, smallest=True)
        if wheel is None:
            continue

        def make():
            z = pypi.remote(wheel)
            return {"model_types": _table(z, *MODEL_TYPES), "gguf": _table(z, *GGUF_ARCHS)}

        kind = f"transformers-tables-{tables_key()}"
        pypi.prune("transformers-tables-", kind)
        facts = pypi.memo(kind, wheel["filename"], make)
        if facts["model_types"] is None:
            log(f"  transformers {version}: no CONFIG_MAPPING_NAMES found; skipped")
            continue
        ri = len(releases)
        releases.append(version)
        for t in facts["model_types"]:
            model_types[t] = model_types.get(t, 0) | 1 << ri
        for a in facts["gguf"] or ():
            if a not in NOT_ARCHITECTURES:
                gguf[a] = gguf.get(a, 0) | 1 << ri
    return {"releases": releases, "model_types": dict(sorted(model_types.items())), "gguf": dict(sorted(gguf.items())),
            "source": f"transformers wheels on PyPI, every release from {TABLE_SINCE}: {' and '.join(MODEL_TYPES[0])} "
                      f"({' or '.join(MODEL_TYPES[1])}), {' and '.join(GGUF_ARCHS[0])} ({' or '.join(GGUF_ARCHS[1])})"}


# --- pip's reference codes ---------------------------------------------------------------------------

PIP_EXCEPTIONS = ("pip/_internal/exceptions.py", "pip/_internal/exceptions/")   # a module, later a package


def pip_references(pypi: Packages) -> dict:
    """{"codes": [[reference, exception class, its bases, file]], "source"}: pip's diagnostic
    errors print `error: <reference>` (subprocess-exited-with-error, externally-managed-environment)."""
    version = pypi.releases("pip")[-1]
    wheel = pypi.wheel("pip", version)

    def make():
        z = pypi.remote(wheel)
        out = []
        for path, text in z.texts(n for n in z.namelist() if wanted(n, PIP_EXCEPTIONS)).items():
            out += _references(ast.parse(text), path)
        return sorted(out)

    return {"codes": pypi.memo(f"pip-references-{scanner_key()}", wheel["filename"], make),
            "source": f"pip=={version} ({', '.join(PIP_EXCEPTIONS)})"}


def _references(tree: ast.Module, path: str) -> list[list]:
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for st in node.body:
            target = st.targets[0] if isinstance(st, ast.Assign) and len(st.targets) == 1 else \
                st.target if isinstance(st, ast.AnnAssign) else None
            if isinstance(target, ast.Name) and target.id == "reference" and isinstance(st.value, ast.Constant):
                out.append([st.value.value, node.name, [ast.unparse(b) for b in node.bases], path])
    return out
