"""The data folder: VLLM_DOCTOR_DATA_DIR, else platformdirs' user data folder (computed without
importing it on Linux, and the same)."""

from __future__ import annotations

import platformdirs
import pytest

from bot.base import dirs


@pytest.mark.parametrize("xdg", [None, "/srv/xdg", "  "])
def test_the_default_is_platformdirs_own(xdg, monkeypatch):
    monkeypatch.delenv("VLLM_DOCTOR_DATA_DIR", raising=False)
    if xdg is None:
        monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_DATA_HOME", xdg)
    assert str(dirs.data_dir()) == platformdirs.user_data_dir("vllm-doctor", appauthor=False)


def test_the_setting_moves_it(monkeypatch, tmp_path):
    monkeypatch.setenv("VLLM_DOCTOR_DATA_DIR", str(tmp_path / "data"))
    assert dirs.data_dir() == tmp_path / "data"
    from bot.store.engine import default_url
    assert default_url().database == str(tmp_path / "data" / "vllm-doctor.db")     # the SQLite default too
