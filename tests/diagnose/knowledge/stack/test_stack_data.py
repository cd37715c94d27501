"""The shipped data stays small, and importing the index reads none of it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
DATA = ROOT / "bot" / "diagnose" / "knowledge" / "stack" / "data"
LIMIT = 5 * 1024 * 1024


def test_the_data_is_at_most_5_mb():
    files = list(DATA.glob("*.json.gz"))
    assert files, f"no data in {DATA}"
    assert sum(p.stat().st_size for p in files) <= LIMIT


def test_importing_the_index_reads_no_data(tmp_path):
    # A fresh process: reading a file is watched from before the import. Importing reads no data;
    # load() reads the small meta file alone; a lookup reads its own table and no other. The next
    # process reads the marshal copies the first kept in the user's cache, and no table file.
    probe = r"""
import pathlib, sys
read = []
real_read = pathlib.Path.read_bytes
pathlib.Path.read_bytes = lambda self: (read.append(self.name), real_read(self))[1]
from bot.diagnose.knowledge.stack import stack_index
assert read == [], read
assert "rapidfuzz" not in sys.modules and "bot.diagnose.knowledge.vllm.index" not in sys.modules
ix = stack_index.load()
assert read == sys.argv[1:2], read
assert ix.errno(28).name == "ENOSPC"
assert read == sys.argv[1:], read
print("ok")
"""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    for read in (["meta.json.gz", "errno.json.gz"], []):
        run = subprocess.run([sys.executable, "-c", probe, *read], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=60)
        assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


def test_missing_data_is_none(tmp_path):
    from bot.diagnose.knowledge.stack import stack_index
    assert stack_index.load(tmp_path / "absent") is None
