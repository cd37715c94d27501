"""Which indexed release or version describes a vLLM version (bot/vllm_source/releases.py)."""

from __future__ import annotations

import pytest

from bot.diagnose.knowledge.vllm.releases import locate, plain, release_for

# the last patch of some minors (0.7 and 0.9-0.19 left out here, to test a minor the list lacks)
RELEASES = ["0.5.5", "0.6.6.post1", "0.8.5.post1", "0.20.2", "0.21.0", "0.33.0"]
# every version of a few minors
VERSIONS = ["0.6.0", "0.6.3", "0.6.3.post1", "0.6.6", "0.6.6.post1", "0.10.0", "0.10.1", "0.10.1.1", "0.10.2"]


@pytest.mark.parametrize("version,expected", [
    ("0.20.2", (3, 3)),                     # itself
    ("0.20.1", (3, 3)),                     # another version of its minor: that minor's last patch
    ("0.20.0", (3, 3)),
    ("0.20.1.dev3+gabc", (3, 3)),
    ("v0.8.5", (2, 2)),                     # 0.8.5 is described by 0.8.5.post1
    ("0.6.3.post1", (1, 1)),
    ("0.33.1", (5, 5)),                     # a later patch of the newest minor
    ("0.7.3", (1, 2)),                      # a minor the list lacks: between its neighbours
    ("0.15.1", (2, 3)),
    ("0.4.3", None),                        # older than every minor of the list
    ("0.34.0", None),                       # newer than every minor of the list
    ("unknown", None),
    (None, None),
])
def test_locate_in_the_last_patches(version, expected):
    assert locate(RELEASES, version) == expected


@pytest.mark.parametrize("version,expected", [
    ("0.10.1", "0.10.1"),                   # every version PyPI serves is itself
    ("0.10.1.1", "0.10.1.1"),
    ("0.10.1.dev0+g6d8d", "0.10.1"),        # a dev build: the release with its numbers
    ("v0.6.3.post1+cu118", "0.6.3.post1"),
    ("0.6.4", "0.6.3.post1"),               # not in the list: the newest of its minor before it
    ("0.10.3", "0.10.2"),
])
def test_locate_in_every_version(version, expected):
    found = locate(VERSIONS, version)
    assert found[0] == found[1] and VERSIONS[found[0]] == expected


def test_release_for_and_plain():
    assert release_for(RELEASES, "0.20.1") == "0.20.2"
    assert release_for(RELEASES, "0.8.5") == "0.8.5.post1"
    assert release_for(RELEASES, "0.15.1") == "0.8.5.post1"      # the older neighbour
    assert release_for(RELEASES, "0.34.0") is None
    assert plain(" v0.8.5+cu121 ") == "0.8.5"
