"""transformers-unknown-model-type's values come from the stack index's table of model types per
transformers release: the first release that registers the type, or none, and the vLLM pins."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bot.diagnose import diagnose
from bot.diagnose.answering import advice

ROOT = Path(__file__).resolve().parents[3]


def derive(model_type: str, **facts) -> dict:
    return advice.derive("transformers-unknown-model-type", {"model_type": model_type}, facts)


def test_the_first_transformers_release_that_registers_the_type():
    assert derive("qwen3_moe") == {"mt_first": "4.51.0"}
    assert derive("qwen2_5_vl") == {"mt_first": "4.49.0"}


def test_a_type_older_than_the_table_is_said_to_be_there_by_its_first_release():
    assert derive("llama") == {"mt_by": "4.40.0"}


def test_a_type_no_release_registers_is_a_custom_name():
    got = derive("openvla")
    assert got["mt_none"] == "yes" and got["mt_newest"]


def test_a_vllm_whose_pin_rules_out_every_release_that_knows_it_gets_the_first_that_allows_one():
    # vLLM 0.14.0 requires transformers <5; qwen3_5 is registered from 5.2.0
    assert derive("qwen3_5", vllm_version="0.14.0") == {
        "mt_first": "5.2.0", "mt_vllm_pin": "<5,>=4.56.0", "mt_vllm_allowing": "0.19.1"}
    assert "mt_vllm_pin" not in derive("qwen3_moe", vllm_version="0.10.2")


def test_a_ceiling_less_pin_of_a_vllm_made_for_transformers_4_rules_out_what_only_5_knows():
    # vLLM 0.11.0 requires transformers >=4.55.2 and fails on 5.x as it starts (all_special_tokens_extended)
    assert derive("qwen3_5", vllm_version="0.11.0") == {
        "mt_first": "5.2.0", "mt_vllm_open": ">=4.55.2", "mt_vllm_below": "5.0.0", "mt_vllm_allowing": "0.19.1"}
    # a 5.x floor without a ceiling (0.24.0) is not capped
    assert "mt_vllm_open" not in derive("qwen3_5", vllm_version="0.24.0")


def test_the_answer_says_the_release_and_a_bare_line_says_it_shows_no_vllm():
    line = ("The checkpoint you are trying to load has model type `qwen3_next` but Transformers does not "
            "recognize this architecture. This could be because of an issue with the checkpoint, or because "
            "your version of Transformers is out of date.\n")
    best = diagnose(line).diagnoses[0]
    assert best.rule_id == "transformers-unknown-model-type"
    assert "from transformers\n4.57.1 on" in best.cause or "from transformers 4.57.1 on" in best.cause
    assert 'transformers>=4.57.1' in best.fix
    assert any("shows no line of vLLM's own" in c for c in best.caveats)


def test_the_index_is_loaded_only_when_the_rule_answers():
    code = ("import sys\nfrom bot.diagnose.answering import advice\n"
            "print(any(m.startswith('bot.diagnose.knowledge.stack.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"
