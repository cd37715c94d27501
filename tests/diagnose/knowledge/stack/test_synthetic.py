"""The synthetic pastes of tests/bench_stack_answers.py (every CUDA, NCCL and NVML code, errno,
loader shape and huggingface_hub error of the stack index, in a vLLM engine core's traceback): at
least 85 % of the first answers name what failed (issue 21)."""

import pytest

from bot.diagnose import diagnose
from bot.diagnose.knowledge.stack import stack_index
from tests.bench_stack_answers import cases, named


def test_at_least_85_percent_of_the_tables_are_answered_by_name():
    ix = stack_index.load()
    if ix is None:
        pytest.skip("the stack index's data is not installed")
    all_cases = cases(ix)
    kinds = {k for k, *_ in all_cases}
    assert {"cuda runtime", "cuda driver", "nccl", "nvml", "errno", "loader", "hub"} <= kinds
    ok = sum(named(diagnose(text), words) for _, _, text, words in all_cases)
    assert ok / len(all_cases) >= 0.85, f"{ok}/{len(all_cases)}"
