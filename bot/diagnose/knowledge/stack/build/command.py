"""`python -m bot.diagnose.knowledge.stack.build`: build the stack index from the packages on PyPI.

    python -m bot.diagnose.knowledge.stack.build [--out DIR] [--cache DIR] [--offline]

Reads what PyPI serves (release lists, METADATA, members of wheels through ranged requests; one
NCCL library is downloaded whole the first time), the build machine's CPython, glibc and bash
(errno, signals, limits, loader messages) and Debian's libstdc++ manual through apt. What is read
from a file on PyPI is cached under --cache (default: the user cache folder), so a rebuild asks
PyPI only for its release lists and reads what a new release brings; the same inputs give the
same bytes. Prints counts, time, requests and bytes. The data is DIR/<block>.json.gz, one file per table, each read
on its first lookup (stack_index.py).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from pathlib import Path

from . import abi, caches, cuda_codes, drivers, nccl_codes, nvml_codes, os_tables, pins, sonames, stack_sites
from .pypi import PyPI

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
FORMAT = 1


def build(pypi: PyPI, log=print) -> dict:
    """Every block of the index."""
    blocks: dict[str, dict] = {}
    t = time.perf_counter()

    def step(name: str, make):
        nonlocal t
        blocks[name] = make()
        log(f"{name:24} {time.perf_counter() - t:6.1f} s  {pypi.http.stats['requests']:5} requests "
            f"{pypi.http.stats['bytes'] / 1e6:8.1f} MB so far")
        t = time.perf_counter()

    step("cuda", lambda: cuda_codes.build(pypi))
    step("nccl", lambda: nccl_codes.build(pypi))
    step("nvml", lambda: nvml_codes.build(pypi))
    for name, table in os_tables.build().items():
        blocks[name] = table
    step("vllm_pins", lambda: pins.vllm_pins(pypi))
    step("torch", lambda: pins.torch_releases(pypi, pins.exact_pins(blocks["vllm_pins"], "torch")))
    blocks["drivers"] = drivers.build()
    step("sonames", lambda: sonames.build(pypi, blocks["torch"]))
    step("gcc", lambda: abi.gcc_table(pypi))
    step("manylinux", lambda: abi.manylinux(pypi))
    step("pip", lambda: stack_sites.pip_references(pypi))
    step("transformers", lambda: stack_sites.transformers_tables(pypi, log))
    for package in stack_sites.PACKAGES:
        step(f"sites:{package}", lambda: stack_sites.build_package(pypi, package, log))
        # a match reads the templates; where a site is raised, and the names (env vars read,
        # exception classes), have blocks of their own, read when first asked for
        blocks[f"places:{package}"] = blocks[f"sites:{package}"].pop("places")
        blocks[f"names:{package}"] = {"envs": blocks[f"sites:{package}"].pop("envs"),
                                      "classes": blocks[f"sites:{package}"].pop("classes"),
                                      "files": blocks[f"sites:{package}"]["files"],
                                      "releases": blocks[f"sites:{package}"]["releases"]}
    envs = {p: blocks[f"names:{p}"]["envs"] for p in stack_sites.PACKAGES}
    step("caches", lambda: caches.build(pypi, envs))
    blocks["meta"] = {"format": FORMAT, "blocks": sorted([*blocks, "meta"]), "counts": counts(blocks),
                      "sources": {name: b["source"] for name, b in sorted(blocks.items()) if isinstance(b, dict) and b.get("source")},
                      "packages": sorted(stack_sites.PACKAGES)}
    return blocks


def counts(blocks: dict) -> dict[str, int]:
    """Rows per table, for the build's output and the index's `counts`."""
    out = {
        "cuda runtime codes": len(blocks["cuda"]["runtime"]), "cuda driver codes": len(blocks["cuda"]["driver"]),
        "nccl codes": len(blocks["nccl"]["codes"]), "nvml codes": len(blocks["nvml"]["codes"]),
        "errno": len(blocks["errno"]["rows"]), "signals": len(blocks["signals"]["rows"]),
        "rlimits": len(blocks["rlimits"]["rows"]), "loader shapes": len(blocks["loader"]["rows"]),
        "vllm releases (pins)": len(blocks["vllm_pins"]["releases"]), "torch releases (cuda, pins)": len(blocks["torch"]["releases"]),
        "cuda → driver": len(blocks["drivers"]["toolkit"]), "sonames": len(blocks["sonames"]["sonames"]),
        "glibcxx/cxxabi labels": len(blocks["gcc"]["introduced"]), "manylinux policies": len(blocks["manylinux"]["policies"]),
        "pip references": len(blocks["pip"]["codes"]),
        "transformers releases (tables)": len(blocks["transformers"]["releases"]),
        "model types": len(blocks["transformers"]["model_types"]), "gguf architectures": len(blocks["transformers"]["gguf"]),
        "cache dirs": len(blocks["caches"]["caches"]),
    }
    for package in stack_sites.PACKAGES:
        b = blocks.get(f"sites:{package}")
        if b:
            out[f"{package} releases (sites)"] = len(b["releases"])
            out[f"{package} sites"] = len(b["exc"])
            out[f"{package} env vars"] = len(blocks[f"names:{package}"]["envs"])
            out[f"{package} exception classes"] = len(blocks[f"names:{package}"]["classes"])
    return out


def write(blocks: dict, out: Path) -> int:
    """Each block as DIR/<name>.json.gz (sites:torch → sites.torch.json.gz), written only when
    its bytes change (mtime 0: the same facts give the same bytes); blocks the build no longer
    makes are removed. Returns the bytes of the data, all files together."""
    out.mkdir(parents=True, exist_ok=True)
    names = set()
    for name, value in blocks.items():
        path = out / (name.replace(":", ".") + ".json.gz")
        names.add(path.name)
        raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=False).encode()
        data = gzip.compress(raw, compresslevel=9, mtime=0)
        if not path.exists() or path.read_bytes() != data:
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
    for stale in out.glob("*.json.gz"):
        if stale.name not in names:
            stale.unlink()
    return sum(p.stat().st_size for p in out.glob("*.json.gz"))


def default_cache() -> Path:
    from platformdirs import user_cache_dir
    return Path(user_cache_dir("vllm-doctor")) / "stack-build"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="vllm-doctor index build-stack",
                                description="Build the index of the stack beneath vLLM from the packages on PyPI.")
    p.add_argument("--out", default=str(DATA_DIR), help="folder of the data files (default: %(default)s)")
    p.add_argument("--cache", default=None, help="cache of what was read from PyPI (default: the user cache folder)")
    p.add_argument("--offline", action="store_true",
                   help="use the cached release lists instead of asking PyPI (what is not cached still is fetched)")
    args = p.parse_args(argv)
    cache = Path(args.cache) if args.cache else default_cache()
    pypi = PyPI(cache, offline=args.offline)
    start = time.perf_counter()
    blocks = build(pypi)
    size = write(blocks, Path(args.out))
    print()
    for name, n in blocks["meta"]["counts"].items():
        print(f"  {name:34} {n:6}")
    print(f"{args.out}: {len(blocks)} files, {size / 1e6:.2f} MB; {time.perf_counter() - start:.1f} s; "
          f"{pypi.http.stats['requests']} requests, {pypi.http.stats['bytes'] / 1e6:.1f} MB downloaded (cache: {cache})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
