"""`index update` against a PyPI on loopback: only the sources of a wheel are downloaded when the
server answers ranges, the whole wheel when it does not, and a PyPI that fails or cannot be reached
changes nothing and says so in one line."""

from __future__ import annotations

import os
import socket
import textwrap
import zipfile

import pytest

from bot.diagnose.knowledge.vllm import index, installed
from bot.watch import pypi, update
from tests.watch.conftest import V3
from tests.watch.fakepypi import FakePyPI
from tests.watch.test_update import NEW_MESSAGE, child

KERNELS = 3 << 20           # a wheel is mostly compiled kernels the index never reads


def fat_wheel(folder, version, files):
    """A wheel like vLLM's: its Python files, then megabytes of a compiled library."""
    path = folder / f"vllm-{version}-cp38-abi3-manylinux1_x86_64.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            z.writestr(name, textwrap.dedent(text))
        z.writestr(f"vllm-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n"
                                                          "Requires-Dist: torch==2.5.1\n")
        z.writestr(zipfile.ZipInfo("vllm/_C.abi3.so"), os.urandom(KERNELS), compress_type=zipfile.ZIP_STORED)
    return path


@pytest.fixture
def served(tmp_path, release_wheels):
    """What the fake PyPI serves: the packaged releases and a fat 0.3.0."""
    folder = tmp_path / "served"
    folder.mkdir()
    return {"0.1.0": release_wheels["0.1.0"], "0.2.0": release_wheels["0.2.0"],
            "0.3.0": fat_wheel(folder, "0.3.0", V3)}


@pytest.mark.parametrize("ranges", [True, False], ids=["ranges", "no-ranges"])
def test_an_update_from_pypi_reads_only_the_sources_it_scans(ranges, data_dir, served, tmp_path, monkeypatch):
    with FakePyPI(served, ranges=ranges) as fake:
        monkeypatch.setenv("VLLM_DOCTOR_PYPI_URL", fake.url)
        source = update.FromPyPI(tmp_path / "cache" / "wheels")
        result = update.run(source, tmp_path / "cache")
    assert result.added == ["0.3.0"] and index.load().match(NEW_MESSAGE)
    wheel = served["0.3.0"].stat().st_size
    if ranges:      # the table of contents (the last MiB) and the Python files; not the kernels
        assert result.bytes < wheel * 0.5 and any("bytes=" in r for r in fake.requests)
    else:           # the server sent the whole wheel: it still works
        assert result.bytes >= wheel
    assert index.load().uploaded["0.3.0"] == "2026-03-15T12:00:00Z"      # when PyPI says it came
    assert installed.last_checked()["newest"] == "0.3.0"


def test_a_damaged_download_changes_nothing(data_dir, served, tmp_path, monkeypatch):
    with FakePyPI(served, corrupt=True) as fake:
        monkeypatch.setenv("VLLM_DOCTOR_PYPI_URL", fake.url)
        with pytest.raises(pypi.Unavailable, match="came back damaged"):
            update.run(update.FromPyPI(tmp_path / "cache" / "wheels"), tmp_path / "cache")
    assert installed.current() is None and index.load().versions[-1] == "0.2.0"
    assert list((tmp_path / "cache" / "wheels").glob("*.zip")) == []     # nothing half kept for next time


def refused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]       # closed on leaving: nothing listens there


@pytest.mark.parametrize("how", ["failing", "refusing"])
def test_an_offline_or_failing_pypi_changes_nothing_and_says_so_once(how, data_dir, packaged_index, served, tmp_path):
    def run(url):
        proc = child(data_dir, packaged_index, "update", "--cache", str(tmp_path / "c"),
                     env={"VLLM_DOCTOR_PYPI_URL": url})
        return proc, proc.communicate(timeout=120)

    if how == "failing":
        with FakePyPI(served, fail=503) as fake:
            proc, (out, err) = run(fake.url)
        assert fake.requests == ["/simple/vllm/"]                # asked once, no retry storm
    else:
        proc, (out, err) = run(f"http://127.0.0.1:{refused_port()}/pypi")
    assert proc.returncode == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith("the index is unchanged")
    assert ("503" in lines[0]) if how == "failing" else ("could not be reached" in lines[0])
    assert installed.current() is None and index.load().versions == ["0.1.0", "0.2.0"]
