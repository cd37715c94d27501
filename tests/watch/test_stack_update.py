"""`index update` keeps the stack index up to date as it does the index of vLLM's releases: the pins
of the releases it adds, the torch releases those pin (their CUDA, from PyPI on loopback) and the
libraries of the nvidia-* projects those pin go into a copy of the stack index in the data folder,
which the readers then prefer; what PyPI does not answer for comes with the next update. And the
build's cache keeps what it was given."""

from __future__ import annotations

import zipfile

import pytest

from bot.diagnose.knowledge.stack import stack_index
from bot.diagnose.knowledge.stack.build import tables
from bot.watch import cli, publish, stack_build, update
from tests.watch.fakepypi import FakePyPI

TORCH_METADATA = """Metadata-Version: 2.1
Name: torch
Version: 2.5.1
Requires-Dist: filelock
Requires-Dist: nvidia-cuda-runtime-cu12==12.4.127; platform_system == "Linux" and platform_machine == "x86_64"
Requires-Dist: nvidia-fakelib-cu12==1.0.0; platform_system == "Linux" and platform_machine == "x86_64"
Requires-Dist: triton==3.1.0; platform_system == "Linux" and platform_machine == "x86_64"
"""


def _wheel(folder, filename, members):
    path = folder / filename
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in members.items():
            z.writestr(name, text)
    return path


@pytest.fixture(scope="module")
def stack_projects(tmp_path_factory):
    """torch 2.5.1 (CUDA 12.4 by its pins) and an nvidia-* project it pins that the soname table
    does not list, as PyPI would serve them."""
    folder = tmp_path_factory.mktemp("stack-projects")
    torch = _wheel(folder, "torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl",
                   {"torch/__init__.py": "", "torch/version.py": "cuda = '12.4'\n",
                    "torch-2.5.1.dist-info/METADATA": TORCH_METADATA})
    fakelib = _wheel(folder, "nvidia_fakelib_cu12-1.0.0-py3-none-manylinux2014_x86_64.whl",
                     {"nvidia/fakelib/lib/libfake.so.1": "ELF",
                      "nvidia_fakelib_cu12-1.0.0.dist-info/METADATA": "Name: nvidia-fakelib-cu12\nVersion: 1.0.0\n"})
    return {"torch": {"2.5.1": torch}, "nvidia-fakelib-cu12": {"1.0.0": fakelib}}


def test_an_update_adds_the_new_releases_pins_and_what_they_lead_to(data_dir, new_wheels, stack_projects, tmp_path,
                                                                      monkeypatch):
    before = stack_index.load()
    assert before.vllm_releases() == ["0.1.0", "0.2.0"] and before.torch_cuda("2.5.1") is None
    with FakePyPI({}, projects=stack_projects) as fake:
        monkeypatch.setenv("VLLM_DOCTOR_PYPI_URL", fake.url)
        result = update.run(update.FromFolder(new_wheels), tmp_path / "cache")
    added = result.stack
    assert (added.vllm, added.torch, added.libraries, added.missed) == (["0.2.1", "0.3.0"], ["2.5.1"],
                                                                        ["nvidia-fakelib-cu12"], [])
    assert not any("nvidia-cuda-runtime-cu12" in r for r in fake.requests)     # the table lists it already
    ix = stack_index.load()                     # the readers take the new copy, without a restart
    assert ix is not before and ix.path == added.path and stack_index.COPIES.choose()[1] == "data"
    assert ix.vllm_releases() == ["0.1.0", "0.2.0", "0.2.1", "0.3.0"]
    assert ix.pins("0.3.0") == {"torch": "==2.5.1"}                  # the watched packages, not lm-format-enforcer
    assert ix.torch_cuda("2.5.1") == "12.4" and ix.manifest("0.3.0")["cuda"] == "12.4"
    assert ix.manifest("0.3.0")["min_driver"] == "525.60.13"
    assert [s.package for s in ix.wheel_for_soname("libfake.so.1")] == ["nvidia-fakelib-cu12"]
    assert ix.counts["vllm releases (pins)"] == 4 and ix.errno(28).name == "ENOSPC"    # the rest as it was
    for block in ("errno", "sites.torch", "cuda"):
        name = f"{block}.json.gz"
        assert (added.path / name).read_bytes() == (stack_index.COPIES.packaged / name).read_bytes()

    again = update.run(update.FromFolder(new_wheels), tmp_path / "cache")
    assert again.stack is None and stack_index.load().path == added.path      # nothing new: no new copy


def test_what_pypi_does_not_answer_for_comes_with_the_next_update(data_dir, new_wheels, stack_projects, tmp_path,
                                                                   monkeypatch, capsys):
    with FakePyPI({}, projects=stack_projects, fail=503) as fake:
        monkeypatch.setenv("VLLM_DOCTOR_PYPI_URL", fake.url)
        assert cli.main(["update", "--from", str(new_wheels), "--cache", str(tmp_path / "cache")]) == 0
    said = capsys.readouterr().out
    assert "stack index: the pins of vLLM 0.2.1, 0.3.0 added" in said and "not read, for the next update: torch 2.5.1" in said
    ix = stack_index.load()
    assert ix.pins("0.3.0") == {"torch": "==2.5.1"} and ix.torch_cuda("2.5.1") is None
    with FakePyPI({}, projects=stack_projects) as fake:
        monkeypatch.setenv("VLLM_DOCTOR_PYPI_URL", fake.url)
        result = update.run(update.FromFolder(new_wheels), tmp_path / "cache")
    assert result.added == [] and (result.stack.vllm, result.stack.torch) == ([], ["2.5.1"])
    assert stack_index.load().torch_cuda("2.5.1") == "12.4"
    status = cli.status()["stack"]
    assert status["in_use"] == "data" and status["newest"] == "0.3.0" and status["copy"]["made_from_this_package"]


def test_a_stack_copy_from_another_packages_data_is_used_only_while_it_is_newer(data_dir, tmp_path):
    copies = stack_index.COPIES
    blocks = tables.read(copies.packaged)
    for newest, used in (("0.3.0", "data"), ("0.1.5", "packaged")):
        blocks["vllm_pins"]["releases"][newest] = []
        with publish.lock(copies=copies):
            publish.publish_copy(copies, lambda tmp: tables.write(blocks, tmp), newest, "0" * 16, [newest])
        del blocks["vllm_pins"]["releases"][newest]
        assert copies.choose()[1] == used


def test_the_build_cache_gives_back_what_it_kept(tmp_path):
    cached = stack_build.CachedPyPI(tmp_path)
    first = cached.memo("kind", "key", lambda: {"b": 1, "a": [2, {"d": 3, "c": 4}]})
    again = cached.memo("kind", "key", lambda: None)
    assert first == again and list(first) == list(again) == ["a", "b"]
    assert cached.memo("kind", "zipped", lambda: {"x": "y" * 1000}, compress=True) == {"x": "y" * 1000}


def test_a_reader_whose_copy_is_gone_takes_the_one_in_use_at_once(data_dir, new_wheels, stack_projects, tmp_path,
                                                                   monkeypatch):
    """The stack index reads a table on its first lookup, not at load: a process that loaded a copy
    two updates ago (the second deleted it) is given the copy in use by its next load()."""
    monkeypatch.setattr(stack_index.COPIES, "recheck_s", 3600.0)
    with FakePyPI({}, projects=stack_projects, fail=503) as fake:
        monkeypatch.setenv("VLLM_DOCTOR_PYPI_URL", fake.url)
        first = update.run(update.FromFolder(new_wheels), tmp_path / "cache").stack.path
    assert stack_index.load().path == first
    with FakePyPI({}, projects=stack_projects) as fake:
        monkeypatch.setenv("VLLM_DOCTOR_PYPI_URL", fake.url)
        update.run(update.FromFolder(new_wheels), tmp_path / "cache")          # torch 2.5.1: a second copy
        blocks = tables.read(stack_index.COPIES.current()["path"])
        with publish.lock(copies=stack_index.COPIES):                          # a third: the first is deleted
            last = publish.publish_copy(stack_index.COPIES, lambda tmp: tables.write(blocks, tmp), "0.3.0",
                                        stack_index.COPIES.packaged_digest(), [])
    assert not first.exists()
    ix = stack_index.load()
    assert ix.path == last and ix.torch_cuda("2.5.1") == "12.4"


def test_rescan_sites_writes_the_folder_it_read_or_nothing(tmp_path, monkeypatch, capsys):
    """`build-stack --rescan-sites` reads the --out folder and writes it back (tables.rescan_sites
    is tested in tests/diagnose/knowledge/stack/test_stack_build.py); a release without a wheel
    writes nothing and exits 1."""
    (tmp_path / "data").mkdir()
    seen = []

    def rescan(source, folder, log=print):
        seen.append((folder, source.offline))
        return {"meta": {"counts": {}}}

    monkeypatch.setattr(tables, "rescan_sites", rescan)
    args = ["--rescan-sites", "--offline", "--out", str(tmp_path / "data"), "--cache", str(tmp_path / "cache")]
    assert stack_build.main(args) == 0
    assert seen == [(tmp_path / "data", True)] and (tmp_path / "data" / "meta.json.gz").exists()

    def missing(source, folder, log=print):
        raise tables.Unreadable("torch 2.1.2: no wheel on the package index to rescan")

    monkeypatch.setattr(tables, "rescan_sites", missing)
    (tmp_path / "data" / "meta.json.gz").unlink()
    assert stack_build.main(args) == 1
    assert "torch 2.1.2" in capsys.readouterr().err and not (tmp_path / "data" / "meta.json.gz").exists()
