"""`vllm-doctor index update` on small wheels the tests build: it adds what the index lacks and the
readers use it at once, it changes nothing the second time, an update killed midway or two at once
leave an index whole, and readers never see half of one."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bot.diagnose import diagnose
from bot.diagnose.knowledge import data_copies
from bot.diagnose.knowledge.stack import stack_index
from bot.diagnose.knowledge.vllm import index, installed
from bot.diagnose.knowledge.vllm.build import wheels
from bot.watch import cli, publish, update

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("child.py")
NEW_MESSAGE = "RuntimeError: CUDA graph capture failed for batch size 8: out of memory"


def child(data_dir: Path, packaged: Path, *args: str, kill_at: str | None = None,
          env: dict | None = None) -> subprocess.Popen:
    """`vllm-doctor index ARGS` in a child process (child.py) on the test's data folder and packaged index."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TEST_PACKAGED": str(packaged),
           "TEST_PACKAGED_STACK": str(stack_index.COPIES.packaged), "VLLM_DOCTOR_DATA_DIR": str(data_dir.parent),
           **(env or {})}
    if kill_at:
        env["TEST_KILL_AT"] = kill_at
    return subprocess.Popen([sys.executable, str(CHILD), *args], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def folder_of(tmp_path: Path, release_wheels: dict, versions: list[str]) -> Path:
    folder = tmp_path / ("wheels-" + "-".join(versions))
    folder.mkdir()
    for v in versions:
        (folder / release_wheels[v].name).write_bytes(release_wheels[v].read_bytes())
    return folder


def copies(data_dir: Path) -> list[str]:
    return sorted(p.name for p in data_dir.iterdir() if p.is_dir() and not p.name.startswith("."))


def test_an_update_adds_what_the_index_lacks_and_readers_use_it(data_dir, new_wheels, release_wheels, tmp_path):
    assert index.load().versions == ["0.1.0", "0.2.0"] and index.load().match(NEW_MESSAGE) == []
    result = update.run(update.FromFolder(new_wheels), tmp_path / "cache")
    assert result.added == ["0.2.1", "0.3.0"] and result.whole == ["0.2.1", "0.3.0"]
    idx = index.load()
    assert idx.versions == ["0.1.0", "0.2.0", "0.2.1", "0.3.0"] and idx.releases == ["0.1.0", "0.2.1", "0.3.0"]
    assert idx.match(NEW_MESSAGE)[0].site.releases == ["0.3.0"]
    assert installed.choose()[1] == "data" and Path(idx._path) == result.path
    # the same index as one built from every release at once
    at_once = wheels.merge([wheels.extract(release_wheels[v]) for v in ("0.1.0", "0.2.1", "0.3.0")],
                           [wheels.extract(release_wheels["0.2.0"], names_only=True)])
    wheels.write(at_once, tmp_path / "at-once" / "index.json.gz")
    for name, part in wheels.part_paths(result.path).items():
        assert part.read_bytes() == wheels.part_paths(tmp_path / "at-once" / "index.json.gz")[name].read_bytes()


def test_a_second_update_changes_nothing(data_dir, new_wheels, tmp_path):
    update.run(update.FromFolder(new_wheels), tmp_path / "cache")
    pointer = (data_dir / "current.json").read_bytes()
    again = update.run(update.FromFolder(new_wheels), tmp_path / "cache")
    assert again.added == [] and again.data is None and again.path is None
    assert (data_dir / "current.json").read_bytes() == pointer and len(copies(data_dir)) == 1


@pytest.mark.parametrize("point", ["scan", "write", "switch"])
def test_an_update_killed_midway_leaves_the_old_index_in_use(point, data_dir, packaged_index, release_wheels,
                                                              tmp_path):
    first = update.run(update.FromFolder(folder_of(tmp_path, release_wheels, ["0.2.1"])), tmp_path / "cache")
    pointer = (data_dir / "current.json").read_bytes()
    later = folder_of(tmp_path, release_wheels, ["0.2.1", "0.3.0"])
    proc = child(data_dir, packaged_index, "update", "--from", str(later), "--cache", str(tmp_path / "c2"),
                 kill_at=point)
    proc.communicate(timeout=120)
    assert proc.returncode == -9                            # SIGKILL: nothing cleaned up
    if point == "write":
        assert list(data_dir.glob(".tmp-*"))                # it died with a copy half written
    orphans = [c for c in copies(data_dir) if c != first.path.parent.name]
    assert len(orphans) == (1 if point == "switch" else 0)  # "switch": whole, never made the one in use
    assert (data_dir / "current.json").read_bytes() == pointer
    idx = index.load()
    assert idx.versions == ["0.1.0", "0.2.0", "0.2.1"] and Path(idx._path) == first.path
    # the lock died with it, and the next update finishes the work and clears what it left
    done = update.run(update.FromFolder(later), tmp_path / "cache")
    assert done.added == ["0.3.0"] and index.load().versions[-1] == "0.3.0"
    assert list(data_dir.glob(".tmp-*")) == [] and not set(orphans) & set(copies(data_dir))


def test_two_updates_at_once_make_one_whole_copy(data_dir, packaged_index, new_wheels, tmp_path):
    procs = [child(data_dir, packaged_index, "update", "--from", str(new_wheels), "--cache", str(tmp_path / f"c{i}"))
             for i in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    said = sorted("added" if "added (whole)" in out else "unchanged" if "unchanged" in out else out for out, _ in outs)
    assert said == ["added", "unchanged"]                   # the second waited, then found nothing to do
    assert len(copies(data_dir)) == 1 and index.load().versions[-1] == "0.3.0"


def test_an_update_does_not_wait_when_asked_not_to(data_dir, new_wheels, tmp_path):
    with publish.lock() as had:
        assert had
        assert update.run(update.FromFolder(new_wheels), tmp_path / "cache", blocking=False) is None
    assert update.run(update.FromFolder(new_wheels), tmp_path / "cache", blocking=False).added


def test_diagnoses_during_updates_switch_without_a_restart_and_never_see_half_an_index(data_dir, new_wheels,
                                                                                       tmp_path):
    allowed = ({"0.1.0", "0.2.0"}, {"0.1.0", "0.2.0", "0.2.1", "0.3.0"})
    errors, seen, stop = [], set(), threading.Event()
    paste = ("Traceback (most recent call last):\n  File \"/app/serve.py\", line 3, in <module>\n    main()\n"
             f"{NEW_MESSAGE}\n")

    def read():
        while not stop.is_set():
            try:
                idx = index.load()
                assert set(idx.versions) in allowed, idx.versions
                got = idx.match("ValueError: GPU memory utilization must be less than 1.0. Got 1.5.")
                assert got and got[0].site.where, "no site"                 # the `where` part
                assert idx.arg("--max-model-len").name == "max_model_len"   # the facts part
                seen.add(idx.versions[-1])
                best = diagnose(paste).best         # vLLM's own check, from the copy in use
                if best is not None and best.vllm_source:
                    assert best.vllm_source["file"] == "vllm/v1/worker/gpu_worker.py", best.vllm_source
                    seen.add("answered from the new copy")
            except Exception as e:  # noqa: BLE001 - collected for the assertion below
                errors.append(repr(e))
            # a breath between diagnoses: three readers spinning on the GIL starved the updates
            # they run beside (9 minutes of CI), and a reader still sees every copy published
            stop.wait(0.01)

    readers = [threading.Thread(target=read) for _ in range(3)]
    for r in readers:
        r.start()
    try:
        time.sleep(0.2)
        update.run(update.FromFolder(new_wheels), tmp_path / "cache")
        for _ in range(4):          # each rescan publishes a new copy, deleting the one before last
            update.run(update.FromFolder(new_wheels), tmp_path / "cache", rescan=["0.1.0"])
        time.sleep(0.2)
    finally:
        stop.set()
        for r in readers:
            r.join()
    assert errors == []
    # the readers moved to the new index while running, and their diagnoses with them
    assert seen == {"0.2.0", "0.3.0", "answered from the new copy"}


def test_readers_look_for_a_new_copy_at_most_once_a_minute(data_dir, new_wheels, tmp_path, monkeypatch):
    monkeypatch.setattr(installed.COPIES, "recheck_s", 60.0)
    assert index.load().versions[-1] == "0.2.0"
    update.run(update.FromFolder(new_wheels), tmp_path / "cache")
    assert index.load().versions[-1] == "0.2.0"             # looked a moment ago
    now = time.monotonic()
    monkeypatch.setattr(data_copies.time, "monotonic", lambda: now + 61)
    assert index.load().versions[-1] == "0.3.0"


def test_a_copy_from_another_packages_index_is_used_only_while_it_is_newer(data_dir, release_wheels, tmp_path):
    # vllm-doctor was upgraded since the copy was made (another packaged index: another digest)
    old = wheels.merge([wheels.extract(release_wheels[v]) for v in ("0.1.0", "0.2.1")],
                       [wheels.extract(release_wheels["0.2.0"], names_only=True)])
    with publish.lock():
        publish.publish(old, base="0" * 16, added=["0.2.1"])
    assert installed.choose()[1] == "data"                  # it knows 0.2.1, the package does not
    with publish.lock():
        publish.publish(wheels.merge([wheels.extract(release_wheels["0.1.0"])]), base="0" * 16, added=[])
    assert installed.choose()[1] == "packaged"              # the package knows more


def test_an_update_starts_again_from_a_newer_package(data_dir, release_wheels, new_wheels, tmp_path):
    stale = wheels.merge([wheels.extract(release_wheels["0.1.0"])])
    with publish.lock():
        publish.publish(stale, base="0" * 16, added=[])
    result = update.run(update.FromFolder(new_wheels), tmp_path / "cache")
    # built on the package's 0.1.0 + 0.2.0, not on the stale copy's 0.1.0 alone
    assert result.added == ["0.2.1", "0.3.0"] and index.load().versions == ["0.1.0", "0.2.0", "0.2.1", "0.3.0"]


def test_status_says_which_index_is_in_use(data_dir, new_wheels, tmp_path, capsys):
    before = cli.status()
    assert before["in_use"] == "packaged" and before["newest"] == "0.2.0" and "copy" not in before
    update.run(update.FromFolder(new_wheels), tmp_path / "cache")
    after = cli.status()
    assert after["in_use"] == "data" and after["newest"] == "0.3.0" and after["releases"] == 3
    assert after["copy"]["added"] == ["0.2.1", "0.3.0"] and after["copy"]["made_from_this_package"]
    assert cli.main(["status"]) == 0
    out = capsys.readouterr().out
    assert "in use: the data folder's copy" in out and "added 0.2.1, 0.3.0" in out


def test_maintainers_extend_an_index_file_in_place(packaged_index, new_wheels, tmp_path):
    out = tmp_path / "index.json.gz"
    for part in wheels.part_paths(packaged_index).values():
        (tmp_path / part.name).write_bytes(part.read_bytes())
    assert cli.main(["update", "--from", str(new_wheels), "--out", str(out), "--cache", str(tmp_path / "c")]) == 0
    assert index.load(out).versions[-1] == "0.3.0"


def test_a_reader_keeps_reading_the_copy_it_loaded_after_it_is_deleted(data_dir, new_wheels, tmp_path):
    update.run(update.FromFolder(new_wheels), tmp_path / "cache")
    idx = index.load()                      # its two parts are read on first use, not yet
    for _ in range(2):                      # two newer copies: the one it loaded is deleted
        update.run(update.FromFolder(new_wheels), tmp_path / "cache", rescan=["0.1.0"])
    assert not Path(idx._path).exists()
    assert idx.match(NEW_MESSAGE)[0].site.where[0]["file"] == "vllm/v1/worker/gpu_worker.py"
    assert idx.arg("--max-model-len").name == "max_model_len"
