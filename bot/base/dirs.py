"""Where vllm-doctor keeps what it writes: the data folder (the SQLite default, the spool, the
index of vLLM's releases that `index update` keeps up to date).

    VLLM_DOCTOR_DATA_DIR   the folder itself (default: the user data folder, through platformdirs)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DATA_DIR_ENV = "VLLM_DOCTOR_DATA_DIR"


def data_dir() -> Path:
    given = os.environ.get(DATA_DIR_ENV, "").strip()
    if given:
        return Path(given).expanduser()
    if sys.platform.startswith("linux"):
        # platformdirs' own rule on Linux, without its 6 ms import: a diagnosis answered from the
        # index of vLLM's releases asks this on its cold start
        return Path(os.environ.get("XDG_DATA_HOME", "").strip() or os.path.expanduser("~/.local/share")) / "vllm-doctor"
    import platformdirs
    return Path(platformdirs.user_data_dir("vllm-doctor", appauthor=False))
