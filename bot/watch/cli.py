"""`vllm-doctor index build | build-stack | update | status`: the indexes of vLLM's releases and
of the stack beneath it.

    vllm-doctor index build ...       every release from its wheels (knowledge/vllm/build/wheels.py)
    vllm-doctor index build-stack ... the stack index from the packages on PyPI (stack_build.py)
    vllm-doctor index update [--from DIR] [--rescan 0.11.0,...] [--out PATH] [--cache DIR] [--rescan-knobs]
    vllm-doctor index status [--json]

`update` writes a new copy to the data folder (installed.py), which the CLI and the bot then use
instead of the packaged one, and a new copy of the stack index with the pins of the releases it
lacks (stack_build.update); `--out PATH` extends that index file in place instead (maintainers:
the copy shipped in the package; the stack's is rebuilt with build-stack). Exit codes: 0 done (or nothing to do), 1 PyPI or the file host
failed (nothing changed), 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from datetime import datetime, timezone
from pathlib import Path

from bot.base.errors import Parser
from bot.diagnose.knowledge.vllm import installed
from bot.diagnose.knowledge.vllm.build import extend, wheels

from . import pypi, update


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="vllm-doctor index", description="The indexes of vLLM's releases and of the stack beneath it.")
    sub = p.add_subparsers(dest="action", required=True)
    sub.add_parser("build", help="build it from every release's wheel (see `index build --help`)", add_help=False)
    sub.add_parser("build-stack", help="build the stack index from the packages on PyPI (see `index build-stack "
                                       "--help`)", add_help=False)
    u = sub.add_parser("update", help="add the releases PyPI serves that the index lacks, one wheel each")
    u.add_argument("--from", dest="folder", metavar="DIR",
                   help="take the wheels (vllm-X-*.whl) from this folder instead of PyPI")
    u.add_argument("--rescan", default="", metavar="VERSIONS",
                   help="comma-separated releases the index has, to scan again (after a fix to the scanners)")
    u.add_argument("--rescan-knobs", action="store_true",
                   help="with --out: scan every version's knobs again (parser registries, request fields, "
                        "LLM() arguments) from those modules alone, after a fix to that scanner")
    u.add_argument("--out", default=None, metavar="PATH",
                   help="extend this index file in place (e.g. the packaged copy) instead of writing a new "
                        "copy to the data folder")
    u.add_argument("--cache", default=None, help="fetched sources and per-release facts (default: the user cache)")
    s = sub.add_parser("status", help="which index is in use, its releases and its age")
    s.add_argument("--json", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["build"]:
        return wheels.main(argv)
    if argv[:1] == ["build-stack"]:
        from . import stack_build
        return stack_build.main(argv[1:])
    args = _parser().parse_args(argv)
    if args.action == "status":
        return _status(args.json)
    return _update(args)


def _update(args) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    cache = Path(args.cache) if args.cache else wheels.default_cache()
    source = update.FromFolder(Path(args.folder)) if args.folder else update.FromPyPI(cache / "wheels")
    rescan = [v.strip() for v in args.rescan.split(",") if v.strip()]
    try:
        if args.rescan_knobs:
            if not args.out:
                print("vllm-doctor index update: --rescan-knobs needs --out PATH", file=sys.stderr)
                return 2
            out = Path(args.out)
            wheels.write(update.rescan_knobs(extend.read(out), source), out)
            print(f"knobs of every version rescanned → {out}; {source.bytes / 1e6:.1f} MB downloaded")
            return 0
        if args.out:
            out = Path(args.out)
            result = update.update(extend.read(out), source, cache, rescan)
            if result.data is not None:
                wheels.write(result.data, out)
                result.path = out
        else:
            result = update.run(source, cache, rescan)
    except pypi.Unavailable as e:
        print(f"vllm-doctor index update: {e}; the index is unchanged", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"vllm-doctor index update: {e}", file=sys.stderr)
        return 2
    where = f"in {args.folder}" if args.folder else "PyPI serves"
    if result.data is None:
        print(f"the index has every release {where}: unchanged ({result.bytes / 1e6:.2f} MB downloaded, "
              f"{result.seconds:.1f} s)")
    else:
        for v in [*result.added, *result.rescanned]:
            how = "whole" if v in result.whole else "names"
            print(f"vLLM {v}: {'rescanned' if v in result.rescanned else 'added'} ({how})")
        if not result.added and not result.rescanned:
            print("no new release; the index now says when PyPI got each release")
        print(f"{len(result.data['releases'])} releases whole, {len(result.data['versions'])} for their names → "
              f"{result.path}; {result.bytes / 1e6:.1f} MB downloaded, {result.seconds:.0f} s")
    return _stack_said(result)


def _stack_said(result) -> int:
    """What the update did to the stack index, said last (the watch logs the last line: an update
    of the stack alone is an update); 1 when it could not be updated."""
    if result.stack_error:
        print(f"vllm-doctor index update: the stack index is not updated: {result.stack_error}", file=sys.stderr)
        return 1
    added = result.stack
    if added is not None:
        what = [f"the pins of vLLM {', '.join(added.vllm)}" if added.vllm else "",
                f"torch {', '.join(added.torch)}" if added.torch else "",
                f"the libraries of {', '.join(added.libraries)}" if added.libraries else ""]
        missed = f"; not read, for the next update: {', '.join(added.missed)}" if added.missed else ""
        print(f"stack index: {', '.join(w for w in what if w)} added → {added.path}{missed} "
              f"({added.bytes / 1e6:.2f} MB downloaded, {added.seconds:.1f} s)")
    return 0


def status() -> dict:
    """What `index status` says, as data."""
    from bot.diagnose.knowledge.vllm import index
    path, kind, info = installed.choose()
    idx = index.load(path)
    out: dict = {"in_use": kind, "path": str(path), "data_folder": str(installed.root())}
    if idx is None:
        out["error"] = "the index cannot be read"
        return out
    newest = idx.versions[-1]
    out.update(releases=len(idx.releases), versions=len(idx.versions), newest=newest,
               oldest=idx.versions[0], whole=[idx.releases[0], idx.releases[-1]],
               newest_uploaded=idx.uploaded.get(newest))
    if info is not None:
        out["copy"] = {"updated": info.get("updated"), "added": info.get("added", []), "newest": info.get("newest"),
                       "made_from_this_package": info.get("base") == installed.packaged_digest()}
    checked = installed.last_checked()
    if checked:
        out["pypi_checked"] = checked
    out["stack"] = _stack_status()
    return out


def _stack_status() -> dict:
    from bot.diagnose.knowledge.stack import stack_index
    path, kind, info = stack_index.COPIES.choose()
    ix = stack_index.load(path)
    out: dict = {"in_use": kind, "path": str(path)}
    if ix is None:
        out["error"] = "the stack index cannot be read"
        return out
    out["vllm_releases"] = len(ix.vllm_releases())
    out["newest"] = ix.vllm_releases()[-1] if ix.vllm_releases() else None
    if info is not None:
        out["copy"] = {"updated": info.get("updated"), "added": info.get("added", []),
                       "made_from_this_package": info.get("base") == stack_index.COPIES.packaged_digest()}
    return out


def _age(iso: str | None) -> str:
    if not iso:
        return ""
    try:
        then = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return ""
    days = (datetime.now(timezone.utc) - then).total_seconds() / 86400
    return f" ({days:.0f} days ago)" if days >= 1 else f" ({days * 24:.0f} hours ago)"


def _status(as_json: bool) -> int:
    s = status()
    if as_json:
        print(json.dumps(s))
        return 0 if "error" not in s else 1
    which = "the data folder's copy (index update)" if s["in_use"] == "data" else "the copy shipped with vllm-doctor"
    print(f"in use: {which}\n  {s['path']}")
    if "error" in s:
        print(f"  {s['error']}")
        return 1
    print(f"releases: {s['releases']} indexed whole ({s['whole'][0]} … {s['whole'][1]}), "
          f"{s['versions']} for their names ({s['oldest']} … {s['newest']})")
    print(f"newest: vLLM {s['newest']}" + (f", on PyPI since {s['newest_uploaded'][:10]}{_age(s['newest_uploaded'])}"
                                          if s.get("newest_uploaded") else ""))
    copy = s.get("copy")
    if copy:
        made = "from this package's index" if copy["made_from_this_package"] else "from another package's index"
        added = ", ".join(copy["added"]) or "none"
        print(f"data folder copy: updated {copy['updated']}{_age(copy['updated'])}, {made}; added {added}")
    else:
        print(f"data folder copy: none yet ({s['data_folder']}; `vllm-doctor index update` makes one)")
    if s.get("pypi_checked"):
        print(f"PyPI last asked: {s['pypi_checked']['at']}{_age(s['pypi_checked']['at'])}, "
              f"newest it served: {s['pypi_checked'].get('newest')}")
    stack = s["stack"]
    which = "the data folder's copy" if stack["in_use"] == "data" else "the copy shipped with vllm-doctor"
    said = stack.get("error") or f"the pins of {stack['vllm_releases']} vLLM releases (… {stack['newest']})"
    copy = stack.get("copy")
    if copy:
        said += f"; data folder copy updated {copy['updated']}{_age(copy['updated'])}, added {', '.join(copy['added'])}"
    print(f"stack index: {which}, {said}\n  {stack['path']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
