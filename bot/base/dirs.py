"""Where vllm-doctor keeps what it writes: the data folder (the SQLite default, the spool, the
index of vLLM's releases that `index update` keeps up to date).

    VLLM_DOCTOR_DATA_DIR   the folder itself (default: the user data folder, through platformdirs)
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "VLLM_DOCTOR_DATA_DIR"


def data_dir() -> Path:
    given = os.environ.get(DATA_DIR_ENV, "").strip()
    if given:
        return Path(given).expanduser()
    import platformdirs         # only when needed: the diagnosis reads this on every cold start
    return Path(platformdirs.user_data_dir("vllm-doctor", appauthor=False))
