"""Every table of the stack index, from the packages the build is handed (packages.py), and the
data folder they are written to.

The data is DIR/<block>.json.gz, one file per table, each read on its first lookup (stack_index.py);
the same facts give the same bytes. `vllm-doctor index build-stack` (bot/watch/stack_build.py) runs
build() over what PyPI serves and write()s the result; `index update` reads a folder back (read())
and adds the pins of vLLM's new releases (pins.py).
"""

from __future__ import annotations

import gzip
import json
import os
import time
from pathlib import Path

from . import (abi, amdsmi_codes, ascend_codes, caches, cuda_codes, cuda_library_codes, distributions, drivers, gpu_archs, hip_codes, level_zero_codes,
               nccl_codes, nvml_codes, os_tables, pins, sonames,
               stack_sites, systemd_exit_codes, transformers_attributes, transformers_exports, vllm_wheels, xid_codes)
from .packages import Packages

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
Unreadable = stack_sites.Unreadable
FORMAT = 1


def build(pypi: Packages, log=print, stats=lambda: (0, 0)) -> dict:
    """Every block of the index. stats(): (requests, bytes) so far, for the log."""
    blocks: dict[str, dict] = {}
    t = time.perf_counter()

    def step(name: str, make):
        nonlocal t
        blocks[name] = make()
        requests, received = stats()
        log(f"{name:24} {time.perf_counter() - t:6.1f} s  {requests:5} requests {received / 1e6:8.1f} MB so far")
        t = time.perf_counter()

    step("cuda", lambda: cuda_codes.build(pypi))
    step("cuda_libraries", lambda: cuda_library_codes.build(pypi))
    step("nccl", lambda: nccl_codes.build(pypi))
    step("nvml", lambda: nvml_codes.build(pypi))
    step("hip", lambda: hip_codes.build(pypi))
    step("amdsmi", lambda: amdsmi_codes.build(pypi))
    step("level_zero", lambda: level_zero_codes.build(pypi))
    step("ascend", lambda: ascend_codes.build(pypi))
    for name, table in os_tables.build().items():
        blocks[name] = table
    step("vllm_pins", lambda: pins.vllm_pins(pypi))
    step("torch", lambda: pins.torch_releases(pypi, pins.exact_pins(blocks["vllm_pins"], "torch")))
    blocks["drivers"] = drivers.build()
    blocks["gpu_archs"] = gpu_archs.build()
    blocks["xid"] = xid_codes.build()
    blocks["systemd_exit"] = systemd_exit_codes.build()
    step("sonames", lambda: sonames.build(pypi, blocks["torch"]))
    step("gcc", lambda: abi.gcc_table(pypi))
    step("manylinux", lambda: abi.manylinux(pypi))
    step("vllm_wheels", lambda: vllm_wheels.build(pypi))
    # which distribution an import name is, whether a vLLM release requires it, where it has wheels
    step("modules", lambda: distributions.build(pypi, log))
    step("pip", lambda: stack_sites.pip_references(pypi))
    step("transformers", lambda: stack_sites.transformers_tables(pypi, log))
    # what each of those releases lets a program import (read when such an ImportError is pasted)
    step("exports:transformers", lambda: transformers_exports.build(pypi, stack_sites.TABLE_SINCE, log))
    # and what its tokenizers, configs, models and processors answer to (read on such an AttributeError)
    step("attributes:transformers", lambda: transformers_attributes.build(pypi, stack_sites.TABLE_SINCE, log))
    for package in stack_sites.PACKAGES:
        step(f"sites:{package}", lambda: stack_sites.build_package(pypi, package, log))
        blocks.update(_split(package, blocks.pop(f"sites:{package}")))
    envs = {p: blocks[f"names:{p}"]["envs"] for p in stack_sites.PACKAGES}
    step("caches", lambda: caches.build(pypi, envs))
    blocks["meta"] = meta(blocks)
    return blocks


def _split(package: str, block: dict) -> dict[str, dict]:
    """A package's merged sites as its three blocks: a match reads the templates (sites:); where a
    site is raised (places:), and the names (env vars read, exception classes; names:), have blocks
    of their own, read when first asked for."""
    places, envs, classes = block.pop("places"), block.pop("envs"), block.pop("classes")
    return {f"sites:{package}": block, f"places:{package}": places,
            f"names:{package}": {"envs": envs, "classes": classes, "files": block["files"],
                                 "releases": block["releases"]}}


def rescan_sites(pypi: Packages, folder: Path, log=print) -> dict:
    """The blocks of a data folder with only its packages' sites scanned again (sites:, places:,
    names: of each package of stack_sites.PACKAGES), from the same releases it names, after a fix
    to the raise scanner (knowledge/scan_raises.py) or extract_sites.py. Reads only the wheels'
    Python files those scanners read (ranged requests, cached as a build caches them); every other
    block is the folder's own, so write() leaves its file as it was. The caches block, which reads
    the names: blocks' env vars, is not made again: a scanner fix that changes which variables a
    release reads needs a whole build."""
    blocks = read(folder)
    for package in stack_sites.PACKAGES:
        releases = blocks[f"sites:{package}"]["releases"]
        t = time.perf_counter()
        block = stack_sites.build_package(pypi, package, log, releases=releases)
        blocks.update(_split(package, block))
        log(f"sites:{package:18} {time.perf_counter() - t:6.1f} s  {len(releases)} releases")
    blocks["meta"] = meta(blocks)
    return blocks


def rescan_transformers(pypi: Packages, folder: Path, log=print) -> dict:
    """The blocks of a data folder with only the exports:transformers and attributes:transformers tables made
    again, from the transformers releases they already name (the same bit stays the same release as in the
    other transformers tables), after a fix to their scanners (transformers_exports.py,
    transformers_attributes.py). Every other block is the folder's own, so write() leaves its file as it was."""
    blocks = read(folder)
    for name, module in (("exports:transformers", transformers_exports), ("attributes:transformers", transformers_attributes)):
        t = time.perf_counter()
        releases = blocks[name]["releases"]
        blocks[name] = module.build(pypi, stack_sites.TABLE_SINCE, log, releases=releases)
        log(f"{name:24} {time.perf_counter() - t:6.1f} s  {len(releases)} releases")
    blocks["meta"] = meta(blocks)
    return blocks


def meta(blocks: dict) -> dict:
    """The meta block of the others: the format, the blocks, their counts and sources."""
    others = {name: b for name, b in blocks.items() if name != "meta"}
    return {"format": FORMAT, "blocks": sorted([*others, "meta"]), "counts": counts(others),
            "sources": {name: b["source"] for name, b in sorted(others.items()) if isinstance(b, dict) and b.get("source")},
            "packages": sorted(stack_sites.PACKAGES)}


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
    if "hip" in blocks:
        out["hip codes"] = len(blocks["hip"]["hip"])
        out["hsa statuses"] = len(blocks["hip"]["hsa"])
    if "xid" in blocks:
        out["nvidia driver xids"] = len(blocks["xid"]["codes"])
    if "systemd_exit" in blocks:
        out["systemd exit statuses"] = len(blocks["systemd_exit"]["codes"])
    if "gpu_archs" in blocks:
        out["cuda releases (gpu architectures)"] = len(blocks["gpu_archs"]["ptxas"])
    if "amdsmi" in blocks:
        out["amdsmi statuses"] = len(blocks["amdsmi"]["codes"])
    if "level_zero" in blocks:
        out["level zero results"] = len(blocks["level_zero"]["codes"])
    if "ascend" in blocks:
        out["acl codes (ascend)"] = len(blocks["ascend"]["acl"])
        out["hccl results (ascend)"] = len(blocks["ascend"]["hccl"])
    for key, lib in (blocks.get("cuda_libraries") or {}).get("libraries", {}).items():
        out[f"{lib['label']} statuses"] = len(lib["codes"])
    if "vllm_wheels" in blocks:
        for project, rows in blocks["vllm_wheels"]["projects"].items():
            out[f"{project} releases (wheels)"] = len(rows)
    if "modules" in blocks:
        out["import names (distributions)"] = len(blocks["modules"]["imports"])
        out["vllm releases (requirements)"] = len(blocks["modules"]["requires"])
    if "exports:transformers" in blocks:
        out["transformers releases (exports)"] = len(blocks["exports:transformers"]["releases"])
        out["transformers modules (exports)"] = len(blocks["exports:transformers"]["modules"])
    if "attributes:transformers" in blocks:
        out["transformers releases (attributes)"] = len(blocks["attributes:transformers"]["releases"])
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


def read(folder: Path) -> dict:
    """The blocks of a data folder, as write() wrote them (sites.torch.json.gz → sites:torch)."""
    return {_block_name(p): json.loads(gzip.decompress(p.read_bytes())) for p in sorted(folder.glob("*.json.gz"))}


def read_block(folder: Path, name: str) -> dict | None:
    """One block of a data folder; None when it is absent or unreadable."""
    try:
        return json.loads(gzip.decompress((folder / (name.replace(":", ".") + ".json.gz")).read_bytes()))
    except (OSError, ValueError, EOFError):
        return None


def _block_name(path: Path) -> str:
    stem = path.name[: -len(".json.gz")]
    kind, _, package = stem.partition(".")
    return f"{kind}:{package}" if package else stem
