"""`vllm-doctor index build`: the index of vLLM's error surface, from vLLM's released wheels.

    vllm-doctor index build [--releases 0.5.5,0.8.5.post1,...] [--versions 0.5.0,...] [--wheels DIR]
                            [--out PATH] [--cache DIR] [--download]

--releases are indexed whole (raise sites, imports, names); --versions, the other releases, for
their names only (arguments, config fields, env vars, deprecation notices).

Each wheel (`pip download --no-deps vllm==X -d DIR`) is read with zipfile: its `vllm/**/*.py`
files are parsed with `ast` (vLLM is never imported or installed) and its METADATA gives the
dependencies. One release's facts are cached as JSON, keyed by the scanners' own source, so a
rerun only parses what changed; the releases are then merged into the index's three files (write()),
shipped as package data. It holds derived facts (messages, names, defaults, line numbers), not vLLM's code.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import json
import os
import re
import sys
import time
import zipfile
from pathlib import Path

from packaging.version import Version

from bot.diagnose.knowledge import scan_raises
from bot.diagnose.knowledge.scan_raises import MIN_LITERAL_CHARS, MIN_LITERAL_WORDS, PYTHON_TEXTS
from bot.diagnose.knowledge.vllm import pack
from bot.diagnose.knowledge.vllm.index import literal_words

from . import scan_args, scan_deprecations, scan_envs, scan_imports, scan_knobs, successors

# The last patch of every minor release PyPI serves from 0.5 on (`pip index versions vllm`): a
# version of one of these minors is described by its last patch (releases.py).
DEFAULT_RELEASES = ("0.5.5", "0.6.6.post1", "0.7.3", "0.8.5.post1", "0.9.2", "0.10.2", "0.11.2", "0.12.0",
                    "0.13.0", "0.14.1", "0.15.1", "0.16.0", "0.17.1", "0.18.1", "0.19.1", "0.20.2", "0.21.0",
                    "0.22.1", "0.23.0", "0.24.0", "0.25.1", "0.26.0", "0.27.1", "0.28.0", "0.29.0", "0.30.0",
                    "0.31.0", "0.32.0", "0.33.0", "0.34.0")
# Every other release PyPI serves from 0.5.0 on: only their arguments, config fields, env vars and
# deprecation notices are read, so "your release has it" and "gone in X" are exact for each. Before
# 0.12 a patch release often added or dropped flags (0.10.1 brought --runner, 0.11.1 --nnodes).
DEFAULT_VERSIONS = ("0.5.0", "0.5.0.post1", "0.5.1", "0.5.2", "0.5.3", "0.5.3.post1", "0.5.4", "0.6.0", "0.6.1",
                    "0.6.1.post1", "0.6.1.post2", "0.6.2", "0.6.3", "0.6.3.post1", "0.6.4", "0.6.4.post1", "0.6.5",
                    "0.6.6", "0.7.0", "0.7.1", "0.7.2", "0.8.0", "0.8.1", "0.8.2", "0.8.3", "0.8.4", "0.8.5", "0.9.0",
                    "0.9.0.1", "0.9.1", "0.10.0", "0.10.1", "0.10.1.1", "0.11.0", "0.11.1", "0.14.0", "0.15.0",
                    "0.17.0", "0.18.0", "0.19.0", "0.20.0", "0.20.1", "0.22.0", "0.25.0", "0.27.0")
DATA_PATH = Path(__file__).parent.parent / "data" / "index.json.gz"     # bot/diagnose/knowledge/vllm/data
FORMAT = 3

# Folders a configuration, the environment or a request can reach; a site's folder is the first
# prefix its file starts with (top-level modules such as vllm/config.py and vllm/envs.py count).
USER_FACING = ("vllm/config", "vllm/engine", "vllm/entrypoints", "vllm/v1", "vllm/worker", "vllm/executor",
               "vllm/distributed", "vllm/platforms", "vllm/model_executor/model_loader", "vllm/transformers_utils",
               "vllm/lora", "vllm/model_executor/layers/quantization", "vllm/multimodal", "vllm/attention",
               "vllm/utils")
# Code vLLM vendors from other projects: not vLLM's messages.
VENDORED = ("vllm/third_party/", "vllm/vllm_flash_attn/", "vllm/benchmarks/", "vllm/tests/")


def is_user_facing(path: str) -> bool:
    return path.startswith(USER_FACING) or path.count("/") == 1


def wheel_for(release: str, wheels: Path) -> Path | None:
    for p in sorted(wheels.glob(f"vllm-{release}-*.whl")):
        return p
    return None


def _scanner_key() -> str:
    h = hashlib.sha1()
    for mod in (scan_args, scan_deprecations, scan_envs, scan_imports, scan_knobs, scan_raises):
        h.update(Path(mod.__file__).read_bytes())
    h.update(repr((USER_FACING, VENDORED, MIN_LITERAL_WORDS, MIN_LITERAL_CHARS, PYTHON_TEXTS.pattern)).encode())
    return h.hexdigest()[:16]


def names_module(path: str) -> bool:
    """A module that defines arguments, config fields, env vars, their deprecation notices or
    another knob (a parser's registration, a request's fields)."""
    return (scan_args.wanted(path) or scan_deprecations.is_notice_module(path) or path == "vllm/envs.py"
            or scan_knobs.wanted(path))


def extract(wheel: Path, names_only: bool = False) -> dict:
    """One release's facts, straight from its wheel; with names_only, only the arguments, config
    fields, env vars and deprecation notices (a few dozen modules instead of thousands)."""
    out: dict = {"raises": [], "imports": {}, "deprecations": [], "counts": {}}
    counts = {"files": 0, "sites": 0, "asserts": 0, "no_message": 0, "mostly_placeholder": 0, "kept": 0,
              "user_facing": 0, "user_facing_kept": 0, "unparsed": 0, "python_text": 0}
    config_trees: dict[str, ast.Module] = {}
    knob_trees: dict[str, ast.Module] = {}
    raw_sites: list[tuple[str, dict]] = []
    classes: dict[str, dict] = {}
    with zipfile.ZipFile(wheel) as z:
        meta = next((n for n in z.namelist() if n.endswith(".dist-info/METADATA")), None)
        metadata = z.read(meta).decode("utf-8", "replace") if meta else ""
        out["release"] = re.search(r"^Version:\s*(\S+)", metadata, re.M).group(1)
        out["requires"] = scan_imports.requirements(metadata)
        for name in sorted(z.namelist()):
            if not (name.startswith("vllm/") and name.endswith(".py")) or name.startswith(VENDORED):
                continue
            if names_only and not names_module(name):
                continue
            source = z.read(name).decode("utf-8", "replace")
            try:
                tree = ast.parse(source)
            except SyntaxError:
                counts["unparsed"] += 1
                continue
            counts["files"] += 1
            raw_sites += [(name, site) for site in scan_raises.scan(tree)]
            classes.update(scan_raises.exception_messages(tree))
            module = name[:-3].replace("/", ".").removesuffix(".__init__")
            for pkg, rec in scan_imports.scan(tree).items():
                out["imports"].setdefault(pkg, {})[module] = rec
            if scan_args.wanted(name):
                config_trees[name] = tree
            if scan_knobs.wanted(name):
                knob_trees[name] = tree
            if scan_deprecations.is_notice_module(name):
                out["deprecations"] += [{**n, "file": name} for n in scan_deprecations.scan(tree)]
            if name == "vllm/envs.py":
                out["envs"] = scan_envs.scan(tree, source)
    out.update(scan_args.scan(config_trees))
    out["knobs"] = scan_knobs.scan_trees(knob_trees)
    if names_only:
        out.update(raises=[], imports={}, names_only=True, counts=counts)
        return out
    for path, site in raw_sites:
        _keep(path, site, classes, out["raises"], counts)
    out["counts"] = counts
    return out


def _keep(path: str, site: dict, classes: dict[str, dict], out: list, counts: dict) -> None:
    """Count a raw site, and keep it when its message is distinctive enough to match."""
    user_facing = is_user_facing(path)
    counts["sites"] += 1
    counts["user_facing"] += user_facing
    if (site["condition"] or "").startswith("assert "):
        counts["asserts"] += 1
    parts = scan_raises.own_wording(site, classes) or site.pop("parts")
    site.pop("parts", None)
    site.pop("call", None)
    if not parts:
        counts["no_message"] += 1
        return
    words, chars = scan_raises.literal_stats(parts)
    if words < MIN_LITERAL_WORDS or chars < MIN_LITERAL_CHARS:
        counts["mostly_placeholder"] += 1
        return
    template = scan_raises.render(parts)
    if PYTHON_TEXTS.fullmatch(shape(template)):
        counts["python_text"] += 1
        return
    counts["kept"] += 1
    counts["user_facing_kept"] += user_facing
    site["template"] = template
    site["file"] = path
    out.append(site)


def extract_cached(wheel: Path, cache: Path, names_only: bool = False) -> dict:
    kind = "names" if names_only else "all"
    key = f"{wheel.name}-{wheel.stat().st_size}-{_scanner_key()}-{kind}"
    path = cache / (key + ".json")
    if path.exists():
        return json.loads(path.read_text())
    facts = extract(wheel, names_only)
    cache.mkdir(parents=True, exist_ok=True)
    for stale in cache.glob(f"{wheel.name}-*.json"):      # facts of this kind from older scanners
        if stale.name[len(wheel.name) + 1:-5].split("-")[2:] in ([], [kind]):
            stale.unlink()
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(facts, default=str))
    os.replace(tmp, path)
    return facts


# --- merging releases ---------------------------------------------------------------------------
#
# A set of releases is a bitmask of their positions in `releases` (bit i: releases[i]); a fact that
# sits at one line in several releases is stored once, with the mask of those releases.

def mask(ids) -> int:
    out = 0
    for i in ids:
        out |= 1 << i
    return out


def by_value(pairs) -> list:
    """[(release id, value), ...] → [mask, value, mask, value, ...]: releases sharing a value share
    one entry (a value may be a tuple: its items follow the mask)."""
    groups: dict = {}
    for ri, value in pairs:
        groups[value] = groups.get(value, 0) | 1 << ri
    out: list = []
    for value, m in groups.items():
        out.append(m)
        out.extend(value if isinstance(value, tuple) else (value,))
    return out


class Files:
    """A table of file paths, referenced by index."""

    def __init__(self):
        self.paths: list[str] = []
        self._ids: dict[str, int] = {}

    def id(self, path: str) -> int:
        if path not in self._ids:
            self._ids[path] = len(self.paths)
            self.paths.append(path)
        return self._ids[path]


def _variants(per_release: list[tuple[int, dict]], files: Files) -> list:
    """[[releases mask, facts, [mask, file id, line, ...]], ...]: identical facts (apart from where
    they sit) share one entry."""
    groups: dict[str, list] = {}
    for ri, rec in per_release:
        rec = dict(rec)
        file, line = rec.pop("file", None), rec.pop("line", None)
        key = json.dumps(rec, sort_keys=True, default=str)
        g = groups.setdefault(key, [0, rec, []])
        g[0] |= 1 << ri
        g[2].append((ri, (files.id(file) if file else -1, line or 0)))
    return [[m, rec, by_value(src)] for m, rec, src in groups.values()]


FIRST_WORDS = 6
WHERE_BLOCK = 256           # sites per block of the `where` part: the first place looked up reads one


def shape(template: str) -> str:
    """A template with its placeholders unnamed: what a user can tell apart."""
    return re.sub(r"\{[^{}]*\}", "{}", template.replace("{{", "\x01").replace("}}", "\x02"))


def _sites(sites: dict[tuple[str, str], dict]) -> tuple[dict, dict, list]:
    """The sites as columns, the anchor postings, and each site's places.

    columns: {"exc": [...], "template": [...]}. postings: {anchor word: "site id site id ..."}. A
    site's anchors are its rarest literal word, which any full message of it holds, and the rarest
    of its first words, which a message cut short still holds: the matcher only looks at sites whose
    anchor the message has, a few dozen instead of thousands. places: per site, [[file id, function,
    condition, [mask, line, mask, line, ...]], ...]."""
    words = {key: literal_words(key[1]) for key in sites}
    df: dict[str, int] = {}
    for ws in words.values():
        for w in set(ws):
            df[w] = df.get(w, 0) + 1
    rarity = lambda w: (df[w], -len(w))
    columns: dict[str, list] = {"exc": [], "template": []}
    postings: dict[str, list[str]] = {}
    places = []
    for i, (key, groups) in enumerate(sites.items()):
        ws = list(dict.fromkeys(words[key]))
        for w in {min(ws, key=rarity), min(ws[:FIRST_WORDS], key=rarity)} if ws else ():
            postings.setdefault(w, []).append(str(i))
        columns["exc"].append(key[0])
        columns["template"].append(key[1])
        places.append([[fi, fn, cond, by_value(lines)] for (fi, fn, cond), lines in groups.items()])
    return columns, {w: " ".join(ids) for w, ids in sorted(postings.items())}, places


def _paths(facts: list[dict], everything: list[dict]) -> set[str]:
    """Every file a merge refers to: of raise sites (whole releases), notices, arguments, config
    classes and env vars (every version)."""
    out = {s["file"] for f in facts for s in f["raises"]}
    for f in everything:
        out |= {n["file"] for n in f["deprecations"]}
        out |= {rec["file"] for rec in f.get("args", {}).values() if rec.get("file")}
        out |= {cls["file"] for cls in f.get("classes", {}).values()}
        if f.get("envs"):
            out.add("vllm/envs.py")
    return out


def merge(facts: list[dict], names: list[dict] = ()) -> dict:
    """One index from the facts of the fully indexed releases and the names-only facts of the other
    versions. Masks of raise sites, imports and dependencies count `releases`; masks of arguments,
    env vars, config fields and deprecation notices count `versions` (all of them)."""
    facts = sorted(facts, key=lambda f: Version(f["release"]))
    releases = [f["release"] for f in facts]
    everything = sorted([*facts, *(f for f in names if f["release"] not in releases)], key=lambda f: Version(f["release"]))
    versions = [f["release"] for f in everything]
    # File ids are the sorted paths, so an index merged in steps (extend.py) numbers its files as
    # one merged at once does.
    files = Files()
    for path in sorted(_paths(facts, everything)):
        files.id(path)
    # One site per message a user can see: the same class and literal text, whatever the names of
    # its formatted fields (`{dtype}` in one file, `{head_dtype}` in another). The newest wording of
    # the placeholders names it.
    sites: dict[tuple[str, str], dict] = {}
    templates: dict[tuple[str, str], str] = {}
    for ri, f in enumerate(facts):
        for s in f["raises"]:
            key = (s["exc"], shape(s["template"]))
            templates[key] = s["template"]
            groups = sites.setdefault(key, {})
            groups.setdefault((files.id(s["file"]), s["function"], s["condition"]), []).append((ri, s["line"]))
    sites = {(exc, templates[(exc, sh)]): groups for (exc, sh), groups in sites.items()}
    args: dict[str, list] = {}
    envs: dict[str, list] = {}
    classes: dict[str, dict[str, list]] = {}
    for ri, f in enumerate(everything):
        for name, rec in f.get("args", {}).items():
            args.setdefault(name, []).append((ri, rec))
        for name, rec in (f.get("envs") or {}).items():
            envs.setdefault(name, []).append((ri, {**rec, "file": "vllm/envs.py"}))
        for cname, cls in f.get("classes", {}).items():
            for field, rec in cls["fields"].items():
                classes.setdefault(cname, {}).setdefault(field, []).append((ri, {**rec, "file": cls["file"]}))
    knobs: dict[str, dict[str, int]] = {}
    for ri, f in enumerate(everything):
        for kind, found in (f.get("knobs") or {}).items():
            per = knobs.setdefault(kind, {})
            for name in found:
                per[name] = per.get(name, 0) | 1 << ri
    # names in order, whatever order the releases listed them in: the successors come out the same
    args, envs = dict(sorted(args.items())), dict(sorted(envs.items()))
    classes = {c: dict(sorted(fields.items())) for c, fields in sorted(classes.items())}
    imports: dict[str, dict] = {}
    for ri, f in enumerate(facts):
        for pkg, mods in f["imports"].items():
            for module, rec in mods.items():
                imports.setdefault(pkg, {}).setdefault((module, ",".join(sorted(rec["guards"]))), []).append(
                    (ri, rec["line"]))
    dists: dict[str, dict] = {}
    for ri, f in enumerate(facts):
        for norm, rec in f["requires"].items():
            d = dists.setdefault(norm, {"name": rec["name"], "required": 0, "extras": {}})
            if rec.get("required"):
                d["required"] |= 1 << ri
            for extra in rec["extras"]:
                d["extras"][extra] = d["extras"].get(extra, 0) | 1 << ri
    notices: dict[str, list] = {}
    for ri, f in enumerate(everything):
        for n in f["deprecations"]:
            entry = notices.setdefault(n["text"], [0, n["subjects"], n.get("replacement"), []])
            entry[0] |= 1 << ri
            entry[3].append((ri, (files.id(n["file"]), n["line"])))
    deprecations = [[m, subj, rep, text, by_value(where)] for text, (m, subj, rep, where) in notices.items()]
    columns, postings, places = _sites(sites)
    n = len(versions)
    class_files = {cname: {files.id(rec["file"]) for per in fields.values() for _, rec in per}
                   for cname, fields in classes.items()}
    blocks = {
        "args": {name: _variants(v, files) for name, v in sorted(args.items())},
        "envs": {name: _variants(v, files) for name, v in sorted(envs.items())},
        "imports": {p: [[m, g, by_value(w)] for (m, g), w in sorted(mods.items())] for p, mods in sorted(imports.items())},
        "dists": dists,
        "pip_names": scan_imports.PIP_NAMES,
        "deprecations": deprecations,
        "successors": successors.find_all(args, envs, classes, class_files, deprecations, n),
        # a config class's fields are read when a lookup names that class: one block each
        "classes": sorted(classes),
        # the other knobs (scan_knobs.py): {kind: {name: mask of versions}}
        "knobs": {kind: dict(sorted(per.items())) for kind, per in sorted(knobs.items())},
    }
    for cname, fields in sorted(classes.items()):
        blocks["class:" + cname] = {fld: _variants(v, files) for fld, v in sorted(fields.items())}
    return {
        "format": FORMAT,
        "source": "vLLM's released wheels on PyPI (Apache-2.0); derived facts only",
        "releases": releases,
        "versions": versions,
        "user_facing": list(USER_FACING),
        "counts": {f["release"]: f["counts"] for f in facts},
        "files": files.paths,
        "sites": columns,
        "postings": postings,
        "where_block": WHERE_BLOCK,
        "places": places,
        "facts": blocks,
    }


def resuccess(out: Path) -> dict:
    """Derive the successors of an existing index again, from the facts it holds (every release's
    names, help texts, config fields and deprecation notices), and rewrite its facts part: a change
    to successors.py needs no wheels. Returns the new successors block."""
    from bot.diagnose.knowledge.raise_sites import bits
    facts = pack.Pack(part_paths(out)["facts"])
    blocks = {name: facts.get(name) for name in facts.names()}

    def expand(variants: list) -> list[tuple[int, dict]]:
        per = []
        for m, rec, src in variants:
            for ri in bits(m):
                per.append((ri, rec))
        return sorted(per, key=lambda x: x[0])

    def files_of(variants: list) -> set[int]:
        return {src[j + 1] for _, _, src in variants for j in range(0, len(src), 3) if src[j + 1] >= 0}

    core = json.loads(gzip.decompress(out.read_bytes()))
    args = {name: expand(v) for name, v in blocks["args"].items()}
    envs = {name: expand(v) for name, v in blocks["envs"].items()}
    classes = {c: {f: expand(v) for f, v in blocks["class:" + c].items()} for c in blocks["classes"]}
    class_files = {c: set().union(*(files_of(v) for v in blocks["class:" + c].values())) for c in blocks["classes"]}
    blocks["successors"] = successors.find_all(args, envs, classes, class_files, blocks["deprecations"],
                                               len(core["versions"]))
    pack.write(part_paths(out)["facts"], blocks)
    return blocks["successors"]


def part_paths(out: Path) -> dict[str, Path]:
    """The files of an index: the core (what matching needs) and two parts read on first use."""
    stem = out.name.removesuffix(".json.gz")
    return {"core": out, "where": out.with_name(f"{stem}.where.pack"), "facts": out.with_name(f"{stem}.facts.pack")}


def write(data: dict, out: Path) -> int:
    """Write the index: the core (releases, templates, anchors) that a match needs as gzip'd JSON,
    and two packs of blocks (pack.py), each block read on first use: the places of each site,
    WHERE_BLOCK sites a block, and the facts (args, env vars, each config class, imports). Returns
    the bytes on disk, all parts together."""
    paths = part_paths(out)
    core = {k: v for k, v in data.items() if k not in ("places", "facts")}
    out.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(core, separators=(",", ":"), ensure_ascii=False, default=str).encode()
    tmp = paths["core"].with_suffix(".tmp")
    with open(tmp, "wb") as f:
        # mtime=0: the same facts give the same bytes, so a rebuild without changes is no diff
        with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=9, mtime=0) as gz:
            gz.write(raw)
    os.replace(tmp, paths["core"])
    places, size = data["places"], data["where_block"]
    pack.write(paths["where"], {str(i // size): places[i: i + size] for i in range(0, len(places), size)})
    pack.write(paths["facts"], data["facts"])
    return sum(p.stat().st_size for p in paths.values())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="vllm-doctor index", description="Build the index of vLLM's error surface.")
    sub = p.add_subparsers(dest="action", required=True)
    b = sub.add_parser("build", help="parse vLLM's wheels into the shipped index")
    b.add_argument("--releases", default=",".join(DEFAULT_RELEASES),
                   help="comma-separated vLLM releases indexed whole (default: %(default)s)")
    b.add_argument("--versions", default=",".join(DEFAULT_VERSIONS),
                   help="comma-separated vLLM releases indexed for their names only (default: %(default)s)")
    b.add_argument("--wheels", default=os.environ.get("VLLM_WHEELS", "/work/wheels"),
                   help="folder of vllm-X-*.whl files (pip download --no-deps vllm==X -d DIR)")
    b.add_argument("--out", default=str(DATA_PATH))
    b.add_argument("--cache", default=None, help="per-release cache (default: the user cache folder)")
    b.add_argument("--download", action="store_true", help="pip download the wheels that are missing")
    b.add_argument("--successors-only", action="store_true",
                   help="only derive the successors again, from the facts the index at --out holds (no wheels)")
    args = p.parse_args(argv)
    if args.successors_only:
        found = resuccess(Path(args.out))
        print(f"successors: {len(found['args'])} args, {len(found['envs'])} env vars, "
              f"{sum(len(v) for v in found['classes'].values())} config fields → {args.out}")
        return 0
    wheels = Path(args.wheels)
    cache = Path(args.cache) if args.cache else default_cache()
    facts, names = [], []
    releases = [r.strip() for r in args.releases.split(",") if r.strip()]
    versions = [v.strip() for v in args.versions.split(",") if v.strip() and v.strip() not in releases]
    for release in [*releases, *versions]:
        wheel = wheel_for(release, wheels)
        if wheel is None and args.download:
            _download(release, wheels)
            wheel = wheel_for(release, wheels)
        if wheel is None:
            print(f"vllm-doctor index: no wheel for vllm {release} in {wheels} "
                  f"(pip download --no-deps vllm=={release} -d {wheels}, or --download)", file=sys.stderr)
            return 2
        t = time.perf_counter()
        whole = release in releases
        f = extract_cached(wheel, cache, names_only=not whole)
        c = f["counts"]
        sites = (f"{c['files']:5} files {c['sites']:6} sites, {c['kept']:6} kept ({c['user_facing_kept']} user-facing), "
                 f"{c['mostly_placeholder']} mostly placeholder, ") if whole else f"{c['files']:5} files (names only), "
        print(f"{release:12} {sites}{len(f.get('args', {}))} args, {len(f.get('envs') or {})} env vars  "
              f"{time.perf_counter() - t:.1f} s", flush=True)
        (facts if whole else names).append(f)
    data = merge(facts, names)
    size = write(data, Path(args.out))
    part = data["facts"]
    print(f"{len(data['releases'])} releases whole, {len(data['versions'])} for names; "
          f"{len(data['sites']['exc'])} distinct sites, {len(part['args'])} args, {len(part['envs'])} env vars, "
          f"{len(part['classes'])} config classes, {len(part['imports'])} packages → {args.out} ({size / 1e6:.2f} MB)")
    return 0


def default_cache() -> Path:
    from platformdirs import user_cache_dir
    return Path(user_cache_dir("vllm-doctor")) / "index-build"


def _download(release: str, wheels: Path) -> None:
    import subprocess
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", f"vllm=={release}",
                    "-d", str(wheels)], check=False)


if __name__ == "__main__":
    sys.exit(main())
