

def test_verified_on_another_minor_says_which_was_verified_and_which_the_log_is():
    from bot.diagnose.answering.report import verified_line
    v = {"vllm": "0.33.0", "source": "vllm source"}
    assert verified_line(v, "en") == "Verified on vLLM 0.33.0 (from vLLM's source)."
    assert verified_line(v, "en", "0.33.1") == "Verified on vLLM 0.33.0 (from vLLM's source)."
    other = verified_line(v, "en", "0.32.0+cpu", ">=0.5")
    assert other.startswith("This rule was verified on vLLM 0.33.0") and "Your log is vLLM 0.32.0" in other
    # outside the rule's versions nothing claims it holds there
    assert "Your log" not in verified_line(v, "en", "0.4.0", ">=0.5")
