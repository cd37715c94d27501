"""`vllm-doctor index build | update`: the index of vLLM's releases.

    vllm-doctor index build ...                  every release from its wheels (knowledge/vllm/build/wheels.py)
    vllm-doctor index update [--from DIR] [--rescan 0.11.0,...] [--out PATH] [--cache DIR]
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from bot.diagnose.knowledge.vllm.build import extend, wheels

from . import pypi, update


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vllm-doctor index", description="The index of vLLM's releases.")
    sub = p.add_subparsers(dest="action", required=True)
    sub.add_parser("build", help="build it from every release's wheel (see `index build --help`)", add_help=False)
    u = sub.add_parser("update", help="add the releases PyPI serves that the index lacks, one wheel each")
    u.add_argument("--from", dest="folder", metavar="DIR",
                   help="take the wheels (vllm-X-*.whl) from this folder instead of PyPI")
    u.add_argument("--rescan", default="", metavar="VERSIONS",
                   help="comma-separated releases the index has, to scan again (after a fix to the scanners)")
    u.add_argument("--out", default=str(wheels.DATA_PATH), help="the index to extend, in place (default: %(default)s)")
    u.add_argument("--cache", default=None, help="fetched sources and per-release facts (default: the user cache)")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["build"]:
        return wheels.main(argv)
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    cache = Path(args.cache) if args.cache else wheels.default_cache()
    out = Path(args.out)
    source = update.FromFolder(Path(args.folder)) if args.folder else update.FromPyPI(cache / "wheels")
    rescan = [v.strip() for v in args.rescan.split(",") if v.strip()]
    try:
        result = update.update(extend.read(out), source, cache, rescan)
    except pypi.Unavailable as e:
        print(f"vllm-doctor index update: {e}; the index is unchanged", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"vllm-doctor index update: {e}", file=sys.stderr)
        return 2
    if result.data is None:
        print(f"the index has every release {'in ' + args.folder if args.folder else 'PyPI serves'}; unchanged")
        return 0
    size = wheels.write(result.data, out)
    for v in [*result.added, *result.rescanned]:
        how = "whole" if v in result.whole else "names"
        print(f"vLLM {v}: {'rescanned' if v in result.rescanned else 'added'} ({how})")
    print(f"{len(result.data['releases'])} releases whole, {len(result.data['versions'])} for names → {out} "
          f"({size / 1e6:.2f} MB); {result.bytes / 1e6:.1f} MB downloaded, {result.seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
