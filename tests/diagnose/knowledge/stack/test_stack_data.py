"""The shipped data stays small, and importing the index reads none of it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
DATA = ROOT / "bot" / "diagnose" / "knowledge" / "stack" / "data"
LIMIT = 5 * 1024 * 1024


def test_the_data_is_at_most_5_mb():
    files = [p for p in DATA.iterdir() if p.is_file()]
    assert files, f"no data in {DATA}"
    assert sum(p.stat().st_size for p in files) <= LIMIT


def test_importing_the_index_reads_no_data():
    # A fresh process: opening a file is watched from before the import; the module must open
    # nothing, load() must open nothing, and the first lookup reads the pack.
    probe = r"""
import builtins, io, pathlib, sys
opened = []
real_open = io.open
def watch(file, *a, **k):
    opened.append(str(file))
    return real_open(file, *a, **k)
builtins.open = io.open = watch
real_read = pathlib.Path.read_bytes
pathlib.Path.read_bytes = lambda self: (opened.append(str(self)), real_read(self))[1]
from bot.diagnose.knowledge.stack import index
assert not [f for f in opened if f.endswith(".pack")], opened
assert "bot.vllm_source.pack" not in sys.modules and "rapidfuzz" not in sys.modules
ix = index.load()
assert not [f for f in opened if f.endswith(".pack")], opened
assert ix.errno(28).name == "ENOSPC"
assert [f for f in opened if f.endswith("stack.pack")], opened
print("ok")
"""
    run = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


def test_a_missing_data_file_is_none(tmp_path):
    from bot.diagnose.knowledge.stack import index
    assert index.load(tmp_path / "absent.pack") is None
