"""`vllm-doctor index build`: the index of vLLM's error surface, from vLLM's released wheels.

    vllm-doctor index build [--releases 0.5.5,0.8.5,...] [--wheels DIR] [--out PATH] [--cache DIR]

Each wheel (`pip download --no-deps vllm==X -d DIR`) is read with zipfile: its `vllm/**/*.py`
files are parsed with `ast` (vLLM is never imported or installed) and its METADATA gives the
dependencies. One release's facts are cached as JSON, keyed by the scanners' own source, so a
rerun only parses what changed; the releases are then merged into one gzip'd JSON file, shipped
as package data. It holds derived facts (messages, names, defaults, line numbers), not vLLM's code.
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

from . import scan_args, scan_deprecations, scan_envs, scan_imports, scan_raises
from .index import literal_words

DEFAULT_RELEASES = ("0.5.5", "0.6.6.post1", "0.7.3", "0.8.5", "0.9.2", "0.10.2", "0.11.2", "0.15.1",
                    "0.20.2", "0.26.0", "0.30.0", "0.32.0", "0.33.0")
DATA_PATH = Path(__file__).parent / "data" / "index.json.gz"
FORMAT = 2

# Folders a configuration, the environment or a request can reach; a site's folder is the first
# prefix its file starts with (top-level modules such as vllm/config.py and vllm/envs.py count).
USER_FACING = ("vllm/config", "vllm/engine", "vllm/entrypoints", "vllm/v1", "vllm/worker", "vllm/executor",
               "vllm/distributed", "vllm/platforms", "vllm/model_executor/model_loader", "vllm/transformers_utils",
               "vllm/lora", "vllm/model_executor/layers/quantization", "vllm/multimodal", "vllm/attention",
               "vllm/utils")
# Code vLLM vendors from other projects: not vLLM's messages.
VENDORED = ("vllm/third_party/", "vllm/vllm_flash_attn/", "vllm/benchmarks/", "vllm/tests/")
MIN_LITERAL_WORDS = 2
MIN_LITERAL_CHARS = 12
# Messages vLLM words exactly as Python itself does (CPython's import system, getattr, enum): a
# user's "No module named 'x'" almost never comes from vLLM's copy of it.
PYTHON_TEXTS = re.compile("|".join(f"(?:{p})" for p in (
    r"No module named '?\{\}'?\.?",
    r"module '?\{\}'? has no attribute '?\{\}'?",
    r"'?\{\}'? object has no attribute '?\{\}'?",
    r"'?\{\}'? object is not (?:callable|subscriptable|iterable)",
    r"\{\} is not a valid \{\}",
    r"cannot import name '?\{\}'? from '?\{\}'?",
)))


def is_user_facing(path: str) -> bool:
    return path.startswith(USER_FACING) or path.count("/") == 1


def wheel_for(release: str, wheels: Path) -> Path | None:
    for p in sorted(wheels.glob(f"vllm-{release}-*.whl")):
        return p
    return None


def _scanner_key() -> str:
    h = hashlib.sha1()
    for mod in (scan_args, scan_deprecations, scan_envs, scan_imports, scan_raises):
        h.update(Path(mod.__file__).read_bytes())
    h.update(repr((USER_FACING, VENDORED, MIN_LITERAL_WORDS, MIN_LITERAL_CHARS, PYTHON_TEXTS.pattern)).encode())
    return h.hexdigest()[:16]


def extract(wheel: Path) -> dict:
    """One release's facts, straight from its wheel."""
    out: dict = {"raises": [], "imports": {}, "deprecations": [], "counts": {}}
    counts = {"files": 0, "sites": 0, "asserts": 0, "no_message": 0, "mostly_placeholder": 0, "kept": 0,
              "user_facing": 0, "user_facing_kept": 0, "unparsed": 0, "python_text": 0}
    config_trees: dict[str, ast.Module] = {}
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
            if scan_args.is_config_module(name) or name == "vllm/entrypoints/llm.py":
                config_trees[name] = tree
            if scan_deprecations.is_notice_module(name):
                out["deprecations"] += [{**n, "file": name} for n in scan_deprecations.scan(tree)]
            if name == "vllm/envs.py":
                out["envs"] = scan_envs.scan(tree, source)
    out.update(scan_args.scan(config_trees))
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


def extract_cached(wheel: Path, cache: Path) -> dict:
    key = f"{wheel.name}-{wheel.stat().st_size}-{_scanner_key()}"
    path = cache / (key + ".json")
    if path.exists():
        return json.loads(path.read_text())
    facts = extract(wheel)
    cache.mkdir(parents=True, exist_ok=True)
    for stale in cache.glob(f"{wheel.name}-*.json"):      # facts from older scanners
        stale.unlink()
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(facts, default=str))
    os.replace(tmp, path)
    return facts


# --- merging releases ---------------------------------------------------------------------------

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
    """[[release ids, facts, [[release id, file id, line], ...]], ...]: identical facts (apart from
    where they sit) share one entry."""
    groups: dict[str, list] = {}
    for ri, rec in per_release:
        rec = dict(rec)
        file, line = rec.pop("file", None), rec.pop("line", None)
        key = json.dumps(rec, sort_keys=True, default=str)
        g = groups.setdefault(key, [[], rec, []])
        g[0].append(ri)
        g[2].append([ri, files.id(file) if file else -1, line or 0])
    return list(groups.values())


FIRST_WORDS = 6


def shape(template: str) -> str:
    """A template with its placeholders unnamed: what a user can tell apart."""
    return re.sub(r"\{[^{}]*\}", "{}", template.replace("{{", "\x01").replace("}}", "\x02"))


def _sites(sites: dict[tuple[str, str], dict]) -> tuple[dict, dict]:
    """The sites as columns, and the anchor postings.

    sites: {"exc": [...], "template": [...], "where": [JSON text of [[file id, function, condition,
    [release id, line, ...]], ...]]}: `where` stays text until a site is looked at, so loading
    costs little. postings: {anchor word: "site id site id ..."}. A site's anchors are its rarest
    literal word, which any full message of it holds, and the rarest of its first words, which a
    message cut short still holds: the matcher only looks at sites whose anchor the message has,
    a few dozen instead of thousands."""
    words = {key: literal_words(key[1]) for key in sites}
    df: dict[str, int] = {}
    for ws in words.values():
        for w in set(ws):
            df[w] = df.get(w, 0) + 1
    rarity = lambda w: (df[w], -len(w))
    columns: dict[str, list] = {"exc": [], "template": [], "where": []}
    postings: dict[str, list[str]] = {}
    for i, (key, groups) in enumerate(sites.items()):
        ws = list(dict.fromkeys(words[key]))
        for w in {min(ws, key=rarity), min(ws[:FIRST_WORDS], key=rarity)} if ws else ():
            postings.setdefault(w, []).append(str(i))
        columns["exc"].append(key[0])
        columns["template"].append(key[1])
        columns["where"].append(json.dumps([[fi, fn, cond, lines] for (fi, fn, cond), lines in groups.items()],
                                           separators=(",", ":"), ensure_ascii=False))
    return columns, {w: " ".join(ids) for w, ids in sorted(postings.items())}


def successors(named: dict[str, list[tuple[int, dict]]], n_releases: int, text_key: str) -> dict[str, list[str]]:
    """{removed name: [the name that took its place, why]} for a name that goes in release R when
    one that appears in R sets the same config field, or says the same (help text or comment)."""
    from rapidfuzz import fuzz
    present: dict[int, set[str]] = {}
    for name, per_release in named.items():
        for ri, _ in per_release:
            present.setdefault(ri, set()).add(name)
    out: dict[str, list[str]] = {}
    for name, per_release in named.items():
        last, rec = max(per_release, key=lambda x: x[0])
        if last + 1 >= n_releases:
            continue
        newcomers = present.get(last + 1, set()) - present.get(last, set())
        text = rec.get(text_key) or ""
        for other in sorted(newcomers):
            new = next(r for ri, r in named[other] if ri == last + 1)
            if rec.get("config") and new.get("config") == rec["config"]:
                out[name] = [other, "same config field"]
                break
            if len(text) >= 30 and fuzz.token_set_ratio(text, new.get(text_key) or "") >= 90:
                out[name] = [other, f"same {text_key} text"]
                break
    return out


def merge(facts: list[dict]) -> dict:
    facts = sorted(facts, key=lambda f: Version(f["release"]))
    releases = [f["release"] for f in facts]
    files = Files()
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
            group = groups.setdefault((files.id(s["file"]), s["function"], s["condition"]), [])
            group += [ri, s["line"]]
    sites = {(exc, templates[(exc, sh)]): groups for (exc, sh), groups in sites.items()}
    args: dict[str, list] = {}
    envs: dict[str, list] = {}
    classes: dict[str, dict[str, list]] = {}
    for ri, f in enumerate(facts):
        for name, rec in f.get("args", {}).items():
            args.setdefault(name, []).append((ri, rec))
        for name, rec in (f.get("envs") or {}).items():
            envs.setdefault(name, []).append((ri, rec))
        for cname, cls in f.get("classes", {}).items():
            for field, rec in cls["fields"].items():
                classes.setdefault(cname, {}).setdefault(field, []).append((ri, {**rec, "file": cls["file"]}))
    imports: dict[str, list] = {}
    for ri, f in enumerate(facts):
        for pkg, mods in f["imports"].items():
            for module, rec in mods.items():
                imports.setdefault(pkg, {}).setdefault((module, ",".join(sorted(rec["guards"]))), []).append(
                    [ri, rec["line"]])
    dists: dict[str, dict] = {}
    for ri, f in enumerate(facts):
        for norm, rec in f["requires"].items():
            d = dists.setdefault(norm, {"name": rec["name"], "required": [], "extras": {}})
            if rec.get("required"):
                d["required"].append(ri)
            for extra in rec["extras"]:
                d["extras"].setdefault(extra, []).append(ri)
    notices: dict[str, list] = {}
    for ri, f in enumerate(facts):
        for n in f["deprecations"]:
            entry = notices.setdefault(n["text"], [[], n["subjects"], n.get("replacement"), []])
            entry[0].append(ri)
            entry[3].append([ri, files.id(n["file"]), n["line"]])
    columns, postings = _sites(sites)
    facts_part = {
        "args": {n: _variants(v, files) for n, v in sorted(args.items())},
        "envs": {n: _variants(v, files) for n, v in sorted(envs.items())},
        "classes": {c: {fld: _variants(v, files) for fld, v in sorted(fs.items())} for c, fs in sorted(classes.items())},
        "imports": {p: [[m, g, w] for (m, g), w in sorted(mods.items())] for p, mods in sorted(imports.items())},
        "dists": dists,
        "pip_names": scan_imports.PIP_NAMES,
        "deprecations": [[rel, subj, rep, text, where] for text, (rel, subj, rep, where) in notices.items()],
        "successors": {"args": successors(args, len(releases), "help"),
                       "envs": successors(envs, len(releases), "doc")},
    }
    return {
        "format": FORMAT,
        "source": "vLLM's released wheels on PyPI (Apache-2.0); derived facts only",
        "releases": releases,
        "user_facing": list(USER_FACING),
        "counts": {f["release"]: f["counts"] for f in facts},
        "files": files.paths,
        "sites": columns,
        "postings": postings,
        # Arguments, env vars, config classes and imports each stay JSON text until the first
        # lookup that needs them: matching a message never pays for parsing them.
        "facts": {k: json.dumps(v, separators=(",", ":"), ensure_ascii=False, default=str)
                  for k, v in facts_part.items()},
    }


def part_paths(out: Path) -> dict[str, Path]:
    """The files of an index: the core (what matching needs) and two parts read on first use."""
    stem = out.name.removesuffix(".json.gz")
    return {"core": out, "where": out.with_name(f"{stem}.where.json.gz"), "facts": out.with_name(f"{stem}.facts.json.gz")}


def write(data: dict, out: Path) -> int:
    """Write the index as three gzip'd JSON files: the core (releases, templates, anchors) that a
    match needs, the places of each site, and the facts (args, env vars, config classes, imports).
    A match reads only the core; returns the bytes on disk, all parts together."""
    paths = part_paths(out)
    sites = dict(data["sites"])
    core = {**data, "sites": {k: v for k, v in sites.items() if k != "where"}}
    core.pop("facts")
    parts = {"core": core, "where": sites["where"], "facts": data["facts"]}
    out.parent.mkdir(parents=True, exist_ok=True)
    for name, value in parts.items():
        raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str).encode()
        tmp = paths[name].with_suffix(".tmp")
        with open(tmp, "wb") as f:
            # mtime=0: the same facts give the same bytes, so a rebuild without changes is no diff
            with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=9, mtime=0) as gz:
                gz.write(raw)
        os.replace(tmp, paths[name])
    return sum(p.stat().st_size for p in paths.values())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="vllm-doctor index", description="Build the index of vLLM's error surface.")
    sub = p.add_subparsers(dest="action", required=True)
    b = sub.add_parser("build", help="parse vLLM's wheels into the shipped index")
    b.add_argument("--releases", default=",".join(DEFAULT_RELEASES),
                   help="comma-separated vLLM releases (default: %(default)s)")
    b.add_argument("--wheels", default=os.environ.get("VLLM_WHEELS", "/work/wheels"),
                   help="folder of vllm-X-*.whl files (pip download --no-deps vllm==X -d DIR)")
    b.add_argument("--out", default=str(DATA_PATH))
    b.add_argument("--cache", default=None, help="per-release cache (default: the user cache folder)")
    b.add_argument("--download", action="store_true", help="pip download the wheels that are missing")
    args = p.parse_args(argv)
    wheels = Path(args.wheels)
    cache = Path(args.cache) if args.cache else _default_cache()
    facts = []
    for release in [r.strip() for r in args.releases.split(",") if r.strip()]:
        wheel = wheel_for(release, wheels)
        if wheel is None and args.download:
            _download(release, wheels)
            wheel = wheel_for(release, wheels)
        if wheel is None:
            print(f"vllm-doctor index: no wheel for vllm {release} in {wheels} "
                  f"(pip download --no-deps vllm=={release} -d {wheels}, or --download)", file=sys.stderr)
            return 2
        t = time.perf_counter()
        f = extract_cached(wheel, cache)
        c = f["counts"]
        print(f"{release:12} {c['files']:5} files {c['sites']:6} sites, {c['kept']:6} kept "
              f"({c['user_facing_kept']} user-facing), {c['mostly_placeholder']} mostly placeholder, "
              f"{len(f.get('args', {}))} args, {len(f.get('envs') or {})} env vars  "
              f"{time.perf_counter() - t:.1f} s")
        facts.append(f)
    data = merge(facts)
    size = write(data, Path(args.out))
    part = {k: json.loads(v) for k, v in data["facts"].items()}
    print(f"{len(data['sites']['exc'])} distinct sites, {len(part['args'])} args, {len(part['envs'])} env vars, "
          f"{len(part['classes'])} config classes, {len(part['imports'])} packages → {args.out} ({size / 1e6:.2f} MB)")
    return 0


def _default_cache() -> Path:
    from platformdirs import user_cache_dir
    return Path(user_cache_dir("vllm-doctor")) / "index-build"


def _download(release: str, wheels: Path) -> None:
    import subprocess
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", f"vllm=={release}",
                    "-d", str(wheels)], check=False)


if __name__ == "__main__":
    sys.exit(main())
