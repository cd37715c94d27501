"""Adding releases to a built index (extend.py): the same index as one merged from every release at
once, from the new release's wheel alone."""

from __future__ import annotations

import json

import pytest

from bot.diagnose.knowledge.vllm import index
from bot.diagnose.knowledge.vllm.build import extend, wheels
from tests.diagnose.knowledge.vllm.build.test_wheels import (ARG_UTILS_V1, ARG_UTILS_V2, CLI_ARGS, CONFIG_V1, CONFIG_V2, ENVS_V1,
                                          ENVS_V2, LLM_PY, LOADER, write_wheel)

COMMON = {"vllm/__init__.py": "", "vllm/entrypoints/llm.py": LLM_PY, "vllm/entrypoints/openai/cli_args.py": CLI_ARGS,
          "vllm/model_executor/model_loader/default_loader.py": LOADER}
V1 = {**COMMON, "vllm/config.py": CONFIG_V1, "vllm/engine/arg_utils.py": ARG_UTILS_V1, "vllm/envs.py": ENVS_V1}
# 0.2.0 moves CacheConfig's messages to a new file and brings a message in a file that sorts before it
V2 = {**COMMON, "vllm/config/cache.py": CONFIG_V2, "vllm/config/__init__.py": "",
      "vllm/engine/arg_utils.py": ARG_UTILS_V2, "vllm/envs.py": ENVS_V2,
      "vllm/attention/selector.py": 'raise ValueError("Invalid attention backend for this platform: " + name)'}
# a patch of 0.2 with a new message in a new file and one moved: 0.2.0 becomes a names-only version
V2_1 = {**V2, "vllm/v1/engine/core.py": 'raise RuntimeError("Engine core stopped before it was ready to serve")',
        "vllm/config/cache.py": "\n\n" + CONFIG_V2}


def same(a: dict, b: dict) -> bool:
    """The same index, down to the order of its keys and file numbers: the same bytes on disk."""
    return json.dumps(a, default=str) == json.dumps(b, default=str)


@pytest.fixture(scope="module")
def wheelfiles(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheels")
    return {v: write_wheel(tmp, v, files) for v, files in (("0.1.0", V1), ("0.2.0", V2), ("0.2.1", V2_1))}


def facts(files, version, names_only=False):
    return wheels.extract(files[version], names_only=names_only)


def test_unmerge_then_merge_is_the_same_index(wheelfiles, tmp_path):
    data = wheels.merge([facts(wheelfiles, "0.1.0"), facts(wheelfiles, "0.2.1")], [facts(wheelfiles, "0.2.0", names_only=True)])
    out = tmp_path / "index.json.gz"
    wheels.write(data, out)
    read = extend.read(out)
    assert same(read, data)                     # the three files hold all of it
    per = extend.unmerge(read)
    assert [f["release"] for f in per] == ["0.1.0", "0.2.0", "0.2.1"]
    assert "raises" not in per[1] and per[2]["raises"]
    again = wheels.merge([per[0], per[2]], [per[1]])
    assert same(again, data)


def test_a_new_release_added_alone_gives_the_index_built_from_all(wheelfiles):
    everything = wheels.merge([facts(wheelfiles, "0.1.0"), facts(wheelfiles, "0.2.0")])
    stepwise = wheels.merge([facts(wheelfiles, "0.1.0")])
    stepwise = extend.extend(stepwise, [facts(wheelfiles, "0.2.0")])
    assert stepwise["versions"] == ["0.1.0", "0.2.0"] and same(stepwise, everything)


def test_a_new_patch_makes_the_old_patch_a_names_only_version(wheelfiles):
    # as `index build` does it: the last patch of each minor whole, the others for their names
    everything = wheels.merge([facts(wheelfiles, "0.1.0"), facts(wheelfiles, "0.2.1")], [facts(wheelfiles, "0.2.0", names_only=True)])
    stepwise = extend.extend(wheels.merge([facts(wheelfiles, "0.1.0"), facts(wheelfiles, "0.2.0")]), [facts(wheelfiles, "0.2.1")])
    assert stepwise["releases"] == ["0.1.0", "0.2.1"] and stepwise["versions"] == ["0.1.0", "0.2.0", "0.2.1"]
    assert same(stepwise, everything)
    idx = index.Index(stepwise)
    assert idx.nearest_release("0.2.0") == "0.2.1" and idx.nearest_version("0.2.0") == "0.2.0"


def test_an_older_patch_arriving_late_is_a_names_only_version(wheelfiles):
    everything = wheels.merge([facts(wheelfiles, "0.1.0"), facts(wheelfiles, "0.2.1")], [facts(wheelfiles, "0.2.0", names_only=True)])
    late = extend.extend(wheels.merge([facts(wheelfiles, "0.1.0"), facts(wheelfiles, "0.2.1")]),
                         [facts(wheelfiles, "0.2.0", names_only=True)])
    assert same(late, everything)


def test_rescanning_replaces_a_releases_facts(wheelfiles):
    # 0.1.0's facts as an older scanner saw them (a flag missing); its wheel scanned again fixes it
    stale = facts(wheelfiles, "0.1.0")
    del stale["args"]["swap_space"]
    data = wheels.merge([stale, facts(wheelfiles, "0.2.0")])
    assert "swap_space" not in data["facts"]["args"]
    fixed = extend.extend(data, [facts(wheelfiles, "0.1.0")])
    assert same(fixed, wheels.merge([facts(wheelfiles, "0.1.0"), facts(wheelfiles, "0.2.0")]))
    # names-only facts of a release indexed whole replace its names and keep its raise sites
    names = extend.extend(data, [facts(wheelfiles, "0.1.0", names_only=True)])
    assert same(names, fixed)


def test_a_last_patch_needs_its_whole_facts(wheelfiles):
    data = wheels.merge([facts(wheelfiles, "0.1.0")])
    with pytest.raises(ValueError, match="0.2.0 is the last patch of its minor"):
        extend.extend(data, [facts(wheelfiles, "0.2.0", names_only=True)])


def test_whole_releases_are_the_last_patch_of_each_minor():
    assert extend.whole_releases(["0.8.5", "0.8.5.post1", "0.9.0.1", "0.9.2", "0.10.1.1", "0.10.0"]) == {
        "0.8.5.post1", "0.9.2", "0.10.1.1"}
