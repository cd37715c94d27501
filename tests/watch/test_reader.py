"""The one reader of what a package index serves (bot/watch/pypi.py), against one on loopback: a
wheel's members through ranges, or through the whole file when the server ignores them; a member
streamed to disk; damage caught by the CRC; kept-alive connections, one closed under it, retries,
a proxy; the simple API's listing and METADATA beside a wheel or inside it."""

from __future__ import annotations

import random
import zipfile

import pytest

from bot.watch import pypi
from tests.watch.fakepypi import FakePyPI

LIBRARY = 3 << 20


@pytest.fixture(scope="module")
def pkg(tmp_path_factory):
    """pkg 1.0: twenty Python modules, a stored library of 3 MiB (random: it does not compress),
    a deflated one, and METADATA."""
    path = tmp_path_factory.mktemp("pkg") / "pkg-1.0-py3-none-manylinux_2_28_x86_64.whl"
    rnd = random.Random(0)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(20):
            z.writestr(f"pkg/m{i}.py", f"x = {i}\n" * 5000)
        z.writestr(zipfile.ZipInfo("pkg/lib/libpkg.so.1"), rnd.randbytes(LIBRARY), compress_type=zipfile.ZIP_STORED)
        z.writestr("pkg/lib/libtext.so.2", b"ELF text " * 100_000)
        z.writestr("pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n"
                                                 "Requires-Dist: torch==2.8.0\n")
    return path


def index(fake, **transfer) -> pypi.PyPI:
    return pypi.PyPI(pypi.Transfer(**transfer), fake.url)


@pytest.mark.parametrize("ranges", [True, False], ids=["ranges", "no-ranges"])
def test_members_are_read_through_ranges_or_from_the_whole_file(ranges, pkg, tmp_path):
    with FakePyPI({}, projects={"pkg": {"1.0": pkg}}, ranges=ranges) as fake:
        p = index(fake)
        assert p.releases("pkg") == ["1.0"]
        wheel = p.wheel("pkg", "1.0")
        assert wheel["url"].endswith("/files/" + pkg.name)          # the listing's relative URL, made whole
        z = p.remote(wheel)
        assert "pkg/lib/libpkg.so.1" in z.namelist()
        texts = z.texts(["pkg/m3.py", "pkg/m4.py"])
        assert texts["pkg/m3.py"] == "x = 3\n" * 5000
        saved = z.save("pkg/lib/libpkg.so.1", tmp_path / "libpkg.so.1")
        z.save("pkg/lib/libtext.so.2", tmp_path / "libtext.so.2")
        with zipfile.ZipFile(pkg) as original:
            assert saved.read_bytes() == original.read("pkg/lib/libpkg.so.1")
            assert (tmp_path / "libtext.so.2").read_bytes() == original.read("pkg/lib/libtext.so.2")
        small = z.copy(["pkg/m1.py", "pkg-1.0.dist-info/METADATA"], tmp_path / "small.zip")
        with zipfile.ZipFile(small) as s:
            assert s.namelist() == ["pkg/m1.py", "pkg-1.0.dist-info/METADATA"] and s.testzip() is None
    size = pkg.stat().st_size
    received_before_library = fake.sent - LIBRARY if ranges else fake.sent
    if ranges:      # the table of contents, the two modules, each library once; nothing twice
        assert received_before_library < size * 0.1 and len(fake.connections) == 1
    else:           # the whole wheel once, every member read from it
        assert [r for r in fake.requests if "/files/" in r] == [f"/files/{pkg.name} bytes={size - (64 << 10)}-{size - 1}"]


def test_a_damaged_member_is_caught_by_its_crc(pkg, tmp_path):
    with FakePyPI({}, projects={"pkg": {"1.0": pkg}}, corrupt=True) as fake:
        z = index(fake).remote(index(fake).wheel("pkg", "1.0"))
        with pytest.raises(pypi.Unavailable, match="came back damaged"):
            z.texts(["pkg/m3.py"])
        with pytest.raises(pypi.Unavailable, match="came back damaged"):
            z.save("pkg/lib/libpkg.so.1", tmp_path / "lib.so")
        with pytest.raises(pypi.Unavailable, match="came back damaged"):
            z.copy(["pkg/m3.py"], tmp_path / "small.zip")
    assert list(tmp_path.iterdir()) == []                   # nothing half written


def test_metadata_is_read_beside_the_wheel_or_from_it(pkg):
    for served in (True, False):
        with FakePyPI({}, projects={"pkg": {"1.0": pkg}}, metadata=served) as fake:
            p = index(fake)
            assert "Requires-Dist: torch==2.8.0" in p.metadata(p.wheel("pkg", "1.0"))
        assert any(r.endswith(".metadata") for r in fake.requests)
        assert any("bytes=" in r for r in fake.requests) != served


def test_a_connection_the_server_closed_is_opened_again_without_a_retry(pkg):
    with FakePyPI({}, projects={"pkg": {"1.0": pkg}}, drop_idle=True) as fake:
        p = index(fake, retries=0)
        for _ in range(3):
            p.metadata(p.wheel("pkg", "1.0"))
    assert len(fake.connections) == 4 and len(fake.requests) == 4


@pytest.mark.parametrize("retries,asked", [(0, 1), (2, 3)])
def test_retries_are_asked_for(retries, asked, pkg):
    with FakePyPI({}, projects={"pkg": {"1.0": pkg}}, fail=503, fail_times=2) as fake:
        p = index(fake, retries=retries, pause_s=0.0)
        if retries:
            assert p.releases("pkg") == ["1.0"]
        else:
            with pytest.raises(pypi.Unavailable, match="answered 503"):
                p.releases("pkg")
    assert len(fake.requests) == asked


def test_a_proxy_is_used_as_urllib_would(pkg, monkeypatch):
    with FakePyPI({}, projects={"pkg": {"1.0": pkg}}) as fake:
        monkeypatch.setenv("http_proxy", f"http://{fake.address}")
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        p = pypi.PyPI(pypi.Transfer(), "http://index.invalid/simple")
        assert p.releases("pkg") == ["1.0"]
    assert fake.targets == ["http://index.invalid/simple/pkg/"]


@pytest.mark.parametrize("given,url", [
    ("", "https://pypi.org/simple"), ("https://mirror.example/simple/", "https://mirror.example/simple"),
    ("https://pypi.org/pypi", "https://pypi.org/simple"),         # the JSON API's base, asked before
    ("https://art.example/api/pypi/remote/pypi", "https://art.example/api/pypi/remote/simple"),
    ("https://devpi.example/root/pypi/+simple", "https://devpi.example/root/pypi/+simple")])
def test_the_index_setting(given, url, monkeypatch):
    monkeypatch.setenv("VLLM_DOCTOR_PYPI_URL", given)
    assert pypi.base_url() == url


def test_file_versions():
    assert str(pypi.file_version("torch-2.8.0-cp311-cp311-manylinux_2_28_x86_64.whl")) == "2.8.0"
    assert str(pypi.file_version("vllm-0.9.2.tar.gz")) == "0.9.2" and pypi.file_version("README") is None
