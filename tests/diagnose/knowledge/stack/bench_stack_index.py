"""How much the stack index costs: data on disk, a fresh process's import and first lookups, the
first use of each table, and a lookup after that. Each figure is printed beside a baseline measured
in the same run (a fresh `python -c "import yaml, rapidfuzz"`, the diagnosis's own cold start
reference; `import bot.diagnose`, which importing the index pulls in first).

    python tests/diagnose/knowledge/stack/bench_stack_index.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT))

from bot.diagnose.knowledge.stack import stack_index as stack  # noqa: E402


# Bytecode is written and read as an installed package's is: a shell with PYTHONDONTWRITEBYTECODE
# would otherwise time the compiler on every run.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def fresh(code: str, runs: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of a fresh interpreter running `code` in the checkout, after one
    run that compiles what it imports. CPU time (user + system) moves less on a shared machine."""
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, env=ENV)
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, env=ENV)
        wall.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(wall), statistics.median(cpu)


def synthesise(site) -> str:
    """A message of a site with each field filled by a plain value: a number for a name of a size,
    count or index, else a word (a stand-in for what the package would print)."""
    value = lambda name: "4096" if any(w in name.lower() for w in ("size", "num", "count", "len", "idx", "rank")) \
        else "qwen2"
    return "".join(v if k == "lit" else value(v) for k, v in site.parts)


def per_call(fn, n: int = 2000) -> float:
    """Microseconds per call, after the first."""
    fn()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n * 1e6


LOOKUPS = {
    "cuda_error(35)": lambda ix: ix.cuda_error(35),
    "cuda_error(text)": lambda ix: ix.cuda_error("CUDA error: forward compatibility was attempted on non supported HW"),
    "codes_in(line)": lambda ix: ix.codes_in("RuntimeError: CUDA error: no kernel image is available for execution on the device"),
    "nccl(2)": lambda ix: ix.nccl(2),
    "nvml(name)": lambda ix: ix.nvml("NVMLError_DriverNotLoaded"),
    "errno_in(line)": lambda ix: ix.errno_in("OSError: [Errno 28] No space left on device: '/tmp/x'"),
    "signal_for_exit(137)": lambda ix: ix.signal_for_exit(137),
    "rlimit('-n')": lambda ix: ix.rlimit("-n"),
    "loader_match(line)": lambda ix: ix.loader_match(
        "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory"),
    "pins('0.10.2')": lambda ix: ix.pins("0.10.2"),
    "torch_cuda('2.8.0')": lambda ix: ix.torch_cuda("2.8.0"),
    "manifest('0.10.2')": lambda ix: ix.manifest("0.10.2"),
    "min_driver('12.8')": lambda ix: ix.min_driver("12.8"),
    "wheel_for_soname": lambda ix: ix.wheel_for_soname("libcudart.so.12"),
    "gcc_for(GLIBCXX_3.4.30)": lambda ix: ix.gcc_for("GLIBCXX_3.4.30"),
    "manylinux('manylinux2014')": lambda ix: ix.manylinux("manylinux2014"),
    "cache_dir_for(path)": lambda ix: ix.cache_dir_for("/root/.cache/huggingface/hub/models--a--b/blobs/c"),
    "model_type_first('qwen3')": lambda ix: ix.model_type_first("qwen3"),
    "env_var('HF_HUB_OFFLINE')": lambda ix: ix.env_var("HF_HUB_OFFLINE"),
    "match(transformers, msg)": lambda ix: ix.match("transformers", (
        "The checkpoint you are trying to load has model type `qwen3` but Transformers does not recognize this "
        "architecture. This could be because of an issue with the checkpoint, or because your version of "
        "Transformers is out of date.")),
    "match(torch, msg)": lambda ix: ix.match("torch", "Torch not compiled with CUDA enabled", "AssertionError"),
}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=7)
    runs = p.parse_args().runs
    files = sorted(stack.DATA_DIR.glob("*.json.gz"), key=lambda f: -f.stat().st_size)
    size = sum(f.stat().st_size for f in files)
    print(f"data on disk: {size / 1e6:.2f} MB in {len(files)} files (largest: "
          f"{', '.join(f'{f.name} {f.stat().st_size / 1e3:.0f} kB' for f in files[:4])}); limit 5 MB")

    print(f"\nfresh process, median of {runs}: CPU time (wall clock)")
    base = fresh("import yaml, rapidfuzz", runs)
    diag = fresh("import bot.diagnose", runs)
    rows = [
        ("python -c 'import yaml, rapidfuzz' (baseline)", base),
        ("python -c 'import bot.diagnose' (the index's parents)", diag),
        ("import the index", fresh("from bot.diagnose.knowledge.stack import stack_index", runs)),
        ("import + load() + errno(28)", fresh(
            "from bot.diagnose.knowledge.stack import stack_index as index; index.load().errno(28)", runs)),
        ("import + load() + manifest('0.10.2')", fresh(
            "from bot.diagnose.knowledge.stack import stack_index as index; index.load().manifest('0.10.2')", runs)),
        ("import + load() + codes_in(line)", fresh(
            "from bot.diagnose.knowledge.stack import stack_index as index; index.load().codes_in('CUDA error: out of memory')", runs)),
        ("import + load() + match(transformers, msg)", fresh(
            "from bot.diagnose.knowledge.stack import stack_index as index; index.load().match('transformers', "
            "'Unrecognized model in /m. Should have a `model_type` key in its config.json')", runs)),
    ]
    for name, (wall, cpu) in rows:
        print(f"  {name:55} {cpu * 1e3:6.1f} ms ({wall * 1e3:5.1f})  {cpu / base[1]:5.2f}x baseline  "
              f"{(cpu - diag[1]) * 1e3:+6.1f} ms over bot.diagnose")

    print("\nin this process: first use of each lookup (its table decompressed and prepared), then per call:")
    t = time.perf_counter()
    ix = stack.load()
    print(f"  load(){'':49} {(time.perf_counter() - t) * 1e3:7.2f} ms")
    for name, fn in LOOKUPS.items():
        t = time.perf_counter()
        fn(ix)
        first = (time.perf_counter() - t) * 1e3
        n = 200 if name.startswith(("match", "codes_in")) else 2000
        print(f"  {name:30} first {first:7.2f} ms   then {per_call(lambda fn=fn: fn(ix), n):8.2f} µs/call")
    for package in stack.SITE_PACKAGES:
        sites = ix._sites(package)
        texts = [synthesise(sites.site(i)) for i in range(0, len(sites), max(1, len(sites) // 300))]
        t = time.perf_counter()
        named = sum(bool(ix.match(package, text)) for text in texts)
        per = (time.perf_counter() - t) / len(texts) * 1e6
        print(f"  match({package}) over {len(texts)} of its own messages, each new: {per:7.1f} µs/message, "
              f"{named} matched")
    print("\ncounts:", ", ".join(f"{k} {v}" for k, v in ix.counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
