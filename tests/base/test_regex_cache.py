"""Compiled regexes kept between runs: the same pattern object as re.compile's, read back by the next process, and a
broken or foreign file is only a lost saving."""

from __future__ import annotations

import json
import marshal
import os
import re
import subprocess
import sys

import pytest

from bot.base import marshal_cache, regex_cache
from bot.diagnose.pipeline import _default_book

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLES = ["RuntimeError: CUDA error: out of memory\n", "OSError: [Errno 28] No space left on device: '/root/.cache'",
           "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens (4096)",
           "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity",
           "  File \"/usr/lib/python3/dist-packages/vllm/engine/arg_utils.py\", line 1200, in create_engine_config",
           "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory", "日本語 é ü"]


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(regex_cache, "_kept", None)
    monkeypatch.setattr(regex_cache, "_new", {})
    return tmp_path


def _same(a: re.Pattern, b: re.Pattern) -> None:
    assert (a.pattern, a.flags, a.groups, a.groupindex) == (b.pattern, b.flags, b.groups, b.groupindex)
    for text in SAMPLES:
        ma, mb = a.search(text), b.search(text)
        assert (ma and (ma.span(), ma.groups(), ma.groupdict())) == (mb and (mb.span(), mb.groups(), mb.groupdict()))


def test_every_rules_pattern_compiles_as_re_does_fresh_and_kept(fresh):
    patterns = [(p, 0) for rule in _default_book() for p in rule.pattern_sources]
    patterns += [(r"^(?P<level>INFO|ERROR) +(?P<msg>.+)$", re.M), (r"cuda\s+error", re.I | re.S), (r"\bé\w+", re.A)]
    assert len(patterns) > 800
    fresh_ones = [regex_cache.compile(p, f) for p, f in patterns]
    for (p, f), rx in zip(patterns, fresh_ones):
        _same(rx, re.compile(p, f))
    regex_cache.save()
    regex_cache._kept = None                        # as the next process: every one read from the file
    assert set(patterns) <= set(regex_cache._load())   # with the modules' own, compiled as they were imported
    for p, f in patterns:
        _same(regex_cache.compile(p, f), re.compile(p, f))
    assert not regex_cache._new                     # nothing compiled afresh


def test_the_next_process_reads_what_the_first_compiled(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "PYTHONPATH": ROOT}
    probe = ("import json; from bot.base import regex_cache as r; kept = (r'(?P<n>\\d+) GiB', 0) in r._load(); "
             "m = r.compile(r'(?P<n>\\d+) GiB').search('2 GiB'); print(json.dumps([kept, m['n'], len(r._new)]))")
    first = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    second = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert json.loads(first.stdout) == [False, "2", 1]
    assert json.loads(second.stdout) == [True, "2", 0]


def test_a_broken_or_foreign_file_costs_only_the_saving(fresh):
    cache = regex_cache._path()
    os.makedirs(os.path.dirname(cache))
    for junk in (b"\x00junk", b""):
        with open(cache, "wb") as f:
            f.write(junk)
        regex_cache._kept = None
        assert regex_cache.compile(r"No space left (?:on device)?").search("No space left on device")
    marshal_cache.store(cache, "another python", {("x", 0): (32, [1, 2, 3], 0, {}, (None,))})
    regex_cache._kept = None
    assert regex_cache.compile("x").fullmatch("x") and regex_cache._load() == {}
    regex_cache.save()                              # the foreign file replaced by this Python's
    kept = marshal_cache.load(cache, regex_cache._STAMP)
    assert {k: marshal.loads(v) for k, v in kept.items()} == {
        ("No space left (?:on device)?", 0): regex_cache._compiled("No space left (?:on device)?", 0),
        ("x", 0): regex_cache._compiled("x", 0)}


def test_an_entry_the_engine_refuses_is_compiled_afresh(fresh):
    regex_cache._kept = {("a+b", 0): marshal.dumps((32, [999999], 0, {}, (None,))),    # not code _sre accepts
                         ("c+d", 0): b"\x00cut"}                                       # not marshal's
    assert regex_cache.compile("a+b").fullmatch("aab") and regex_cache.compile("c+d").fullmatch("ccd")


def test_a_bad_pattern_raises_as_re_compile_does(fresh):
    with pytest.raises(re.error):
        regex_cache.compile(r"(unclosed")
    assert not regex_cache._new


def test_the_file_keeps_at_most_max_kept(fresh, monkeypatch):
    monkeypatch.setattr(regex_cache, "MAX_KEPT", 5)
    for i in range(4):
        regex_cache.compile(f"first{i}")
    regex_cache.save()
    for i in range(3):
        regex_cache.compile(f"second{i}")
    regex_cache.save()
    kept = marshal_cache.load(regex_cache._path(), regex_cache._STAMP)
    assert len(kept) == 5 and all((f"second{i}", 0) in kept for i in range(3))
