"""Which copy of the index of vLLM's releases is in use: the one shipped in the package, or the newer
one `vllm-doctor index update` wrote to the data folder (knowledge/data_copies.py says how a copy is
chosen, and how readers switch to a new one without a restart).

    <data folder>/vllm-index/
        current.json                 {"dir", "newest", "base", "updated", "added"}: the copy in use
        20261202T150102Z-4711/       a copy: index.json.gz, index.where.pack, index.facts.pack
        lock                         held (flock) by the update that is writing a copy
        checked.json                 when PyPI was last asked, and what it served

The copies are written by bot/watch/publish.py.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from ..data_copies import DataCopies
from .releases import version_key

PACKAGED = Path(__file__).parent / "data" / "index.json.gz"
CORE = "index.json.gz"


def _newest(path: Path) -> str:
    return json.loads(gzip.decompress(path.read_bytes()))["versions"][-1]


COPIES = DataCopies("vllm-index", PACKAGED, CORE, _newest, version_key)
root, current, choose, in_use, last_checked = COPIES.root, COPIES.current, COPIES.choose, COPIES.in_use, COPIES.last_checked
packaged_digest = COPIES.packaged_digest
