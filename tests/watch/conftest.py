"""A small packaged index (two fake releases) and wheels of newer ones, for `index update`: the
code under test reads them where it would read the shipped index and PyPI's wheels."""

from __future__ import annotations

import pytest

from bot.diagnose.knowledge import data_copies
from bot.diagnose.knowledge.stack import stack_index
from bot.diagnose.knowledge.stack.build import tables
from bot.diagnose.knowledge.vllm import installed
from bot.diagnose.knowledge.vllm.build import wheels
from tests.diagnose.knowledge.vllm.build.test_extend import V1, V2, V2_1
from tests.diagnose.knowledge.vllm.build.test_wheels import write_wheel

# 0.3.0: a new minor with a message of its own
V3 = {**V2_1, "vllm/v1/worker/gpu_worker.py":
      'raise RuntimeError(f"CUDA graph capture failed for batch size {size}: out of memory")'}


@pytest.fixture(scope="session")
def release_wheels(tmp_path_factory):
    """{version: wheel}: 0.1.0 and 0.2.0 (in the packaged index), 0.2.1 and 0.3.0 (new)."""
    folder = tmp_path_factory.mktemp("release-wheels")
    return {v: write_wheel(folder, v, files) for v, files in
            (("0.1.0", V1), ("0.2.0", V2), ("0.2.1", V2_1), ("0.3.0", V3))}


@pytest.fixture(scope="session")
def packaged_index(tmp_path_factory, release_wheels):
    out = tmp_path_factory.mktemp("packaged") / "index.json.gz"
    wheels.write(wheels.merge([wheels.extract(release_wheels[v]) for v in ("0.1.0", "0.2.0")]), out)
    return out


@pytest.fixture(scope="session")
def packaged_stack(tmp_path_factory):
    """The shipped stack index as it would be without the releases above: the pins of 0.1.0 and
    0.2.0 only, and no torch 2.5.1 (which 0.2.1 and 0.3.0 pin)."""
    blocks = tables.read(stack_index.DATA_DIR)
    blocks["vllm_pins"]["releases"] = {"0.1.0": [["torch", "==2.4.0", None, None]],
                                       "0.2.0": [["torch", "==2.4.0", None, None]]}
    del blocks["torch"]["releases"]["2.5.1"]
    blocks["meta"] = tables.meta(blocks)
    out = tmp_path_factory.mktemp("packaged-stack")
    tables.write(blocks, out)
    return out


@pytest.fixture
def new_wheels(tmp_path, release_wheels):
    """A folder holding every wheel (an --from DIR)."""
    folder = tmp_path / "wheels"
    folder.mkdir()
    for w in release_wheels.values():
        (folder / w.name).write_bytes(w.read_bytes())
    return folder


@pytest.fixture
def data_dir(tmp_path, monkeypatch, packaged_index, packaged_stack):
    """The small indexes as the packaged ones, a fresh data folder, readers that look every time."""
    folder = tmp_path / "data"
    monkeypatch.setenv("VLLM_DOCTOR_DATA_DIR", str(folder))
    monkeypatch.setattr(installed.COPIES, "packaged", packaged_index)
    monkeypatch.setattr(installed.COPIES, "recheck_s", 0.0)
    monkeypatch.setattr(installed.COPIES, "state", data_copies.State())
    monkeypatch.setattr(stack_index.COPIES, "packaged", packaged_stack)
    monkeypatch.setattr(stack_index.COPIES, "recheck_s", 0.0)
    monkeypatch.setattr(stack_index.COPIES, "state", data_copies.State())
    return folder / "vllm-index"
