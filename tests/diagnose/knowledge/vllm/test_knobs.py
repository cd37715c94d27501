"""A check inside a per-request parameter class reads the user's own request fields."""

from bot.diagnose.knowledge.vllm import knobs


def test_the_fields_a_sampling_check_reads():
    assert knobs.request_fields("not 0.0 < self.top_p <= 1.0", "SamplingParams._verify_args") == ["top_p"]
    assert knobs.request_fields("self.top_k < -1 or self.top_k == 0", "SamplingParams._verify_args") == ["top_k"]


def test_a_check_outside_the_request_classes_reads_no_request_field():
    assert knobs.request_fields("self.top_p < 0", "ModelConfig.verify") == []
    assert knobs.request_fields(None, "SamplingParams._verify_args") == []


def test_the_values_a_single_comparison_accepts():
    assert knobs.accepted("not 0.0 < self.top_p <= 1.0") == "0.0 < top_p <= 1.0"
    assert knobs.accepted("self.temperature < 0.0") == "temperature >= 0.0"
    assert knobs.accepted("self.n > self.best_of") == "n <= best_of"
    # a compound test is not solved: it is quoted as vLLM wrote it
    assert knobs.accepted("self.top_k < -1 or self.top_k == 0") is None
    assert knobs.accepted("not valid python (") is None


def test_lines_name_the_ways_to_set_the_field_in_both_languages():
    en = knobs.lines("self.temperature < 0.0", "SamplingParams._verify_args", "en")
    assert len(en) == 1 and "SamplingParams(temperature=…)" in en[0] and "temperature >= 0.0" in en[0]
    zh = knobs.lines("self.temperature < 0.0", "SamplingParams._verify_args", "zh")
    assert "字段" in zh[0] and "temperature >= 0.0" in zh[0]


def test_an_assert_accepts_its_own_test():
    # `assert 0 < self.top_p <= 1` holds for the values it accepts: nothing to invert
    assert knobs.accepted("assert 0.0 < self.top_p <= 1.0") == "0.0 < top_p <= 1.0"
    assert knobs.accepted("assert self.n >= 1") == "n >= 1"
    assert knobs.request_fields("assert self.n >= 1", "SamplingParams._verify_args") == ["n"]
