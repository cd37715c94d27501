"""`rules lint` checks the flags, keywords and VLLM_* variables a rule's text names against the index
of vLLM's releases, over the rule's `versions`, paragraph by paragraph (guards narrow it)."""

from __future__ import annotations

import textwrap

import pytest

from bot.diagnose.knowledge.rulebook.named import names, role
from bot.diagnose.knowledge.rulebook import load_rulebook
from bot.learn.lint_names import problems
from bot.diagnose.knowledge.vllm import index

RULE = """
    id: {id}
    level: root
    title: {{en: "T", zh: "T"}}
    match:
      patterns: ['Some message for the test']
    cause:
      en: |
        {cause}
      zh: |
        {cause}
    fix:
      en: |
        {fix}
      zh: |
        {fix}
    versions: "{versions}"
"""


@pytest.fixture(scope="module")
def idx():
    return index.load()


def lint(tmp_path, cause="A cause.", fix="A fix.", versions=">=0.5", **extra):
    text = textwrap.dedent(RULE).format(id="r", cause=cause.replace("\n", "\n    "),
                                        fix=fix.replace("\n", "\n    "), versions=versions)
    text += "".join(f"{k}: {v}\n" for k, v in extra.items())
    (tmp_path / "r.yaml").write_text(text)
    book = load_rulebook(str(tmp_path), use_cache=False)
    assert not book.errors, book.errors
    return problems(book, index.load())


def test_a_flag_missing_in_part_of_the_range_fails_with_the_guard_that_fits(tmp_path):
    found = lint(tmp_path, fix="Pass `--kv-cache-memory-bytes 8G`.")
    assert len(found) == 1 and "`--kv-cache-memory-bytes`" in found[0]
    assert "guard the paragraph with [vllm >=0.10.2]" in found[0]
    assert lint(tmp_path, fix="[vllm >=0.10.2] Pass `--kv-cache-memory-bytes 8G`.") == []
    assert lint(tmp_path, fix="Pass `--kv-cache-memory-bytes 8G`.", versions=">=0.11") == []


def test_a_removed_variable_and_an_llm_keyword_are_checked_too(tmp_path):
    found = lint(tmp_path, fix="Set `VLLM_ATTENTION_BACKEND=FLASHINFER`, or `LLM(model=M, swap_space=4)`.",
                 versions=">=0.20")
    assert any("`VLLM_ATTENTION_BACKEND`" in p and "drop it" in p for p in found)
    assert any("`swap_space`" in p for p in found)
    assert lint(tmp_path, fix="`--foo-not-vllm` and `pip install --force-reinstall vllm`.") == []


def test_history_is_no_advice_but_a_successor_in_the_fix_is(tmp_path):
    cause = "Flags change: `--task` became `--runner`; `--guided-decoding-backend` was removed."
    assert lint(tmp_path, cause=cause) == []
    found = lint(tmp_path, fix="Rename it: `--task embed` → `--runner pooling`.")
    assert len(found) == 1 and "`--runner`" in found[0] and "[vllm >=0.10.1]" in found[0]


def test_settings_suggested_to_every_release_of_the_range_must_exist_there(tmp_path):
    found = lint(tmp_path, fix_settings="{swap_space: 4}", versions=">=0.10")
    assert found and "fix_settings names `swap_space`" in found[0] and "narrow the rule's `versions`" in found[0]


def test_roles_and_other_programs():
    text = "Leave `VLLM_X` out; `--task` became `--runner`/`--convert`; use `--max-model-len 8`."
    assert [(n.shown, role(text, n)) for n in names(text)] == [
        ("VLLM_X", "old"), ("--task", "old"), ("--runner", "successor"), ("--convert", "successor"),
        ("--max-model-len", None)]
    shown = [n.shown for n in names("python bench.py --config x; docker run --gpus all vllm/vllm-openai --dtype half")]
    assert shown == ["--dtype"]
