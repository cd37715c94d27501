"""Add vLLM releases to a built index without the wheels of the releases it already holds.

Part of the index build. An index is the merge (wheels.merge) of one record of facts per release;
`unmerge` reads those records back out of the index's three files, exactly as merge needs them
(raise sites, imports, dependencies and counts of the releases indexed whole; arguments, config
fields, env vars and deprecation notices of every version), so

    merge(unmerge(index)) == index          and
    extend(merge(a), b) == merge(a + b)

and a new release costs one wheel, not all of them. `extend` also keeps the build's rule for which
releases are indexed whole: the last patch of each minor (0.34.1 arriving makes 0.34.0 a
names-only version, as `index build` would have made it).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from packaging.version import Version

from bot.diagnose.knowledge.vllm import pack
from bot.diagnose.knowledge.raise_sites import bits

# What merge reads of a names-only version: a whole release demoted to one keeps only these.
NAME_KEYS = ("release", "args", "envs", "classes", "deprecations", "knobs")


def read(core: Path) -> dict:
    """An index as merge returned it: the core with its places and facts parts read back in."""
    from .wheels import part_paths
    paths = part_paths(core)
    data = json.loads(gzip.decompress(core.read_bytes()))
    where = pack.Pack(paths["where"])
    data["places"] = [p for name in sorted(where.names(), key=int) for p in where.get(name)]
    facts = pack.Pack(paths["facts"])
    data["facts"] = {name: facts.get(name) for name in facts.names()}
    return data


def unmerge(data: dict) -> list[dict]:
    """The per-release facts an index was merged from, oldest first: one record per entry of
    `versions`, with `raises`, `imports`, `requires` and `counts` for the entries of `releases`."""
    releases, versions, files = data["releases"], data["versions"], data["files"]
    blocks = data["facts"]
    out = [{"release": v, "args": {}, "envs": {}, "classes": {}, "deprecations": [], "knobs": {}} for v in versions]
    whole = {r: out[versions.index(r)] for r in releases}
    for rec in whole.values():
        rec.update(raises=[], imports={}, requires={}, counts=data["counts"].get(rec["release"], {}))

    def release_facts(mask: int) -> list[dict]:
        return [whole[releases[ri]] for ri in bits(mask)]

    # raise sites, in site order: merge numbers sites by first appearance, so this keeps their ids
    for exc, template, groups in zip(data["sites"]["exc"], data["sites"]["template"], data["places"]):
        for fi, function, condition, lines in groups:
            for j in range(0, len(lines), 2):
                for rec in release_facts(lines[j]):
                    rec["raises"].append({"exc": exc, "template": template, "file": files[fi], "line": lines[j + 1],
                                          "function": function, "condition": condition})
    for pkg, rows in blocks["imports"].items():
        for module, guards, lines in rows:
            for j in range(0, len(lines), 2):
                for rec in release_facts(lines[j]):
                    rec["imports"].setdefault(pkg, {})[module] = {"line": lines[j + 1], "guards": guards.split(",")}
    for norm, dist in blocks["dists"].items():
        present = dist["required"]
        for m in dist["extras"].values():
            present |= m
        for ri in bits(present):
            req = whole[releases[ri]]["requires"].setdefault(norm, {"name": dist["name"], "extras": []})
            if dist["required"] >> ri & 1:
                req["required"] = True
            req["extras"] += [e for e, m in dist["extras"].items() if m >> ri & 1]

    # names: masks count `versions`
    def per_version(variants: list):
        for m, rec, src in variants:
            for vi in bits(m):
                file, line = _source(src, vi, files)
                yield vi, {**rec, "file": file, "line": line}

    for name, variants in blocks["args"].items():
        for vi, rec in per_version(variants):
            out[vi]["args"][name] = rec
    for name, variants in blocks["envs"].items():
        for vi, rec in per_version(variants):
            rec.pop("file")             # always vllm/envs.py: merge says so itself
            out[vi]["envs"][name] = rec
    for cname in blocks["classes"]:
        for field, variants in blocks["class:" + cname].items():
            for vi, rec in per_version(variants):
                file = rec.pop("file")
                cls = out[vi]["classes"].setdefault(cname, {"file": file, "fields": {}})
                cls["fields"][field] = rec
    for kind, per in blocks.get("knobs", {}).items():
        for name, m in per.items():
            for vi in bits(m):
                out[vi]["knobs"].setdefault(kind, []).append(name)
    for m, subjects, replacement, text, where in blocks["deprecations"]:
        for j in range(0, len(where), 3):
            for vi in bits(where[j]):
                out[vi]["deprecations"].append({"text": text, "subjects": subjects, "replacement": replacement,
                                                "file": files[where[j + 1]], "line": where[j + 2]})
    return out


def _source(src: list, vi: int, files: list[str]) -> tuple[str | None, int | None]:
    for j in range(0, len(src), 3):
        if src[j] >> vi & 1:
            return (files[src[j + 1]] if src[j + 1] >= 0 else None), src[j + 2] or None
    return None, None


def whole_releases(versions) -> set[str]:
    """The versions indexed whole: the last patch of each minor (what `index build` indexes whole)."""
    last: dict[tuple[int, ...], str] = {}
    for v in sorted(versions, key=Version):
        last[Version(v).release[:2]] = v
    return set(last.values())


def extend(data: dict, new: list[dict]) -> dict:
    """The index with the releases of `new` added (or, for a release it has, replaced by the new
    facts: a rescan). A new fact record that is names-only and whose release the rule makes whole
    is refused: its raise sites would be missing."""
    from .wheels import merge
    by_release = {rec["release"]: rec for rec in unmerge(data)}
    for rec in new:
        old = by_release.get(rec["release"])
        if rec.get("names_only") and old is not None and "raises" in old:
            rec = {**old, **{k: rec[k] for k in NAME_KEYS}}     # names rescanned, raise sites kept
        by_release[rec["release"]] = rec
    whole = whole_releases(by_release)
    facts, names = [], []
    for release, rec in by_release.items():
        if release in whole:
            if rec.get("names_only"):
                raise ValueError(f"vLLM {release} is the last patch of its minor: it needs its whole facts, "
                                 f"not only its names")
            facts.append(rec)
        else:
            names.append({k: rec[k] for k in NAME_KEYS if k in rec})
    out = merge(facts, names)
    if "uploaded" in data:          # when PyPI says each release was uploaded (index update adds them)
        out["uploaded"] = {v: data["uploaded"][v] for v in out["versions"] if v in data["uploaded"]}
    return out
