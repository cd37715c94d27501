"""Version guards in rule text: `[vllm SPEC]` paragraphs shown only for the releases they name."""

import pytest

from bot.diagnose import load_rulebook
from bot.diagnose.answering.report import fill

TEXT = ("Always true.\n\n"
        "[vllm >=0.11.2] Use `--attention-backend TRITON_ATTN`.\n\n"
        "[vllm <0.11.2] Use `VLLM_ATTENTION_BACKEND=XFORMERS`.")


@pytest.mark.parametrize("version, shown, hidden", [
    ("0.15.1", "Use `--attention-backend TRITON_ATTN`.", "XFORMERS"),
    ("0.11.2", "Use `--attention-backend TRITON_ATTN`.", "XFORMERS"),
    ("0.11.1", "Use `VLLM_ATTENTION_BACKEND=XFORMERS`.", "--attention-backend"),
    ("0.10.1.dev0+g6d8d", "XFORMERS", "--attention-backend"),       # a local build: packaging's rules
])
def test_known_release_keeps_only_its_paragraphs_without_the_guard(version, shown, hidden):
    out = fill(TEXT, {"vllm_version": version})
    assert out.startswith("Always true.") and shown in out and hidden not in out
    assert "[vllm" not in out and "vLLM ≥" not in out


@pytest.mark.parametrize("lang, prefix_new, prefix_old", [
    ("en", "vLLM ≥ 0.11.2: Use `--attention-backend", "vLLM < 0.11.2: Use `VLLM_ATTENTION_BACKEND"),
    ("zh", "vLLM ≥ 0.11.2：Use `--attention-backend", "vLLM < 0.11.2：Use `VLLM_ATTENTION_BACKEND"),
])
def test_unknown_release_shows_each_guard_as_a_readable_prefix(lang, prefix_new, prefix_old):
    for values in ({}, {"vllm_version": "not-a-version"}):
        out = fill(TEXT, values, lang)
        assert prefix_new in out and prefix_old in out and "[vllm" not in out


def test_prefix_goes_inside_a_list_item_and_above_a_code_block():
    text = "1. first\n\n[vllm >=0.7,<0.11] 2. second\n\n[vllm >=0.7] ```bash\nvllm serve M\n```"
    out = fill(text, {})
    assert "2. vLLM ≥ 0.7 and < 0.11: second" in out
    assert "vLLM ≥ 0.7:\n```bash\nvllm serve M\n```" in out


def test_guard_and_missing_value_both_apply():
    text = "[vllm >=0.7] Set {value}.\n\n[vllm >=0.7] Plain."
    assert fill(text, {"vllm_version": "0.8.5"}) == "Plain."
    assert fill(text, {"vllm_version": "0.8.5", "value": 3}) == "Set 3.\n\nPlain."


def test_every_rule_text_survives_every_release():
    """No rule loses its whole fix on any release it claims: each keeps an unguarded paragraph."""
    book = load_rulebook(use_cache=False)
    for rule in book:
        for version in ("0.5.5", "0.7.3", "0.11.0", "0.22.0", "0.33.0"):
            for lang in ("en", "zh"):
                assert fill(rule.fix[lang], {"vllm_version": version}, lang).strip(), (rule.id, version)



def test_presence_markers_choose_a_paragraph_and_print_nothing():
    text = "{!listed} 1. Upgrade vLLM.\n\n{?listed} Fix the import of {listed}.\n\nAlways."
    assert fill(text, {}) == "1. Upgrade vLLM.\n\nAlways."
    assert fill(text, {"listed": "LlamaForCausalLM"}) == "Fix the import of LlamaForCausalLM.\n\nAlways."
    guarded = "[vllm >=0.7.2] {!listed} 2. Try `--model-impl transformers`."
    assert fill(guarded, {}) == "2. vLLM ≥ 0.7.2: Try `--model-impl transformers`."
    assert fill(guarded, {"vllm_version": "0.6.3"}) == ""
