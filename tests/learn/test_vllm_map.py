"""The rule book's map of vLLM's source (bot/learn/vllm_map.py), as shipped in rules/_vllm_source.json."""

from __future__ import annotations

from bot.diagnose.knowledge.rulebook import load_rulebook
from bot.diagnose.knowledge.vllm import rulebook_map


def test_a_message_two_releases_build_differently_is_placed_in_the_logs_release():
    # vLLM 0.28 began cutting the start-up wrapper's failed processes at 1000 characters: two templates of one text.
    # A 0.26 log's wrapper is 0.26's raise, not the newest release's (which once read "in 0.28.0 ... 0.34.0")
    data = rulebook_map.load(load_rulebook().directory)
    wrapper = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"
    for rule in ("engine-core-died", "engine-core-init-failed"):
        old = rulebook_map.site(data, rule, wrapper, "0.26.0")
        assert old["release"] == "0.26.0" and "0.9.2" in old["releases"], rule
        new = rulebook_map.site(data, rule, wrapper, "0.32.0")
        assert new["release"] == "0.32.0", rule
