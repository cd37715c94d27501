"""The marshal cache: kept under its stamp, None for another stamp or a broken file, never an error."""

from __future__ import annotations

import os

from bot.base import marshal_cache


def test_a_value_comes_back_under_its_stamp_only(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache = marshal_cache.path("thing", str(tmp_path / "source.json"))
    assert cache.startswith(str(tmp_path / "vllm-doctor")) and cache.endswith(".marshal")
    assert marshal_cache.load(cache, (1, 2)) is None                    # nothing kept yet
    marshal_cache.store(cache, (1, 2), {"rules": ["a", {"b": 1}]})
    assert marshal_cache.load(cache, (1, 2)) == {"rules": ["a", {"b": 1}]}
    assert marshal_cache.load(cache, (1, 3)) is None                    # the source changed
    for junk in (open(cache, "rb").read()[:7], b"\x00junk", b""):       # cut short, foreign, empty
        with open(cache, "wb") as f:
            f.write(junk)
        assert marshal_cache.load(cache, (1, 2)) is None
    assert not [n for n in os.listdir(os.path.dirname(cache)) if n.endswith(".tmp")]


def test_an_unwritable_cache_folder_is_no_error(tmp_path, monkeypatch):
    (tmp_path / "vllm-doctor").write_text("a file where the folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache = marshal_cache.path("thing", "x")
    marshal_cache.store(cache, 1, {"a": 1})
    assert marshal_cache.load(cache, 1) is None


def test_the_rule_books_map_of_vllms_source_is_read_again_when_it_changes(tmp_path, monkeypatch):
    from bot.diagnose.knowledge.vllm import rulebook_map
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / rulebook_map.FILE).write_text('{"format": 3, "releases": ["0.1.0"]}')
    assert rulebook_map._read(str(folder / rulebook_map.FILE))["releases"] == ["0.1.0"]
    (folder / rulebook_map.FILE).write_text('{"format": 3, "releases": ["0.2.0", "0.3.0"]}')
    os.utime(folder / rulebook_map.FILE, ns=(1, 1))
    assert rulebook_map._read(str(folder / rulebook_map.FILE))["releases"] == ["0.2.0", "0.3.0"]
    (folder / rulebook_map.FILE).write_text('{"format": 2}')
    assert rulebook_map._read(str(folder / rulebook_map.FILE)) is None   # another format: no map


def test_the_maps_sites_stay_marshalled_until_asked_for(tmp_path, monkeypatch):
    import json

    from bot.diagnose.knowledge.vllm import rulebook_map
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(rulebook_map, "_CACHE", {})
    folder = tmp_path / "rules"
    folder.mkdir()
    sites = {"some-rule": [{"regex": "x", "exc": "ValueError", "at": {"0.1.0": [["a.py", "f", 1]]}}]}
    (folder / rulebook_map.FILE).write_text(json.dumps({"format": 3, "releases": ["0.1.0"], "names": {}, "sites": sites}))
    assert rulebook_map.load(str(folder))["sites"] == sites            # parsed, and its copy kept
    monkeypatch.setattr(rulebook_map, "_CACHE", {})                     # as the next process
    names = rulebook_map.load(str(folder), sites=False)
    assert names["releases"] == ["0.1.0"] and isinstance(names["sites"], bytes)
    assert rulebook_map.load(str(folder))["sites"] == sites
