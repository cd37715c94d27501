from bot.base.nearest import nearest


def test_a_typo_finds_the_name_meant():
    assert nearest("safetensor", ["auto", "pt", "safetensors", "npcache"]) == "safetensors"
    assert nearest("VLLM_ALLOW_LONG_MAX_MODEL_LENGTH", ["VLLM_ALLOW_LONG_MAX_MODEL_LEN", "VLLM_USE_V1"]) \
        == "VLLM_ALLOW_LONG_MAX_MODEL_LEN"


def test_a_kin_of_several_names_is_not_a_typo():
    assert nearest("float", ["float16", "bfloat16"]) is None
    assert nearest("dummy", ["auto", "safetensors"]) is None


def test_the_cutoff_is_the_callers():
    assert nearest("flaot32", ("auto", "half", "float16", "bfloat16", "float", "float32")) == "float32"
    assert nearest("tnsrizr", ["tensorizer", "sharded_state"]) is None
    assert nearest("tnsrizr", ["tensorizer", "sharded_state"], cutoff=75) == "tensorizer"


def test_no_names_no_answer():
    assert nearest("anything", []) is None


def test_a_few_kin_best_first_and_none_below_the_cutoff():
    from bot.base.nearest import nearest_few
    names = ["stream_options", "stream", "stop", "max_tokens"]
    assert nearest_few("stream_otpions", names) == ["stream_options"]
    assert nearest_few("strem", names)[0] == "stream"
    assert nearest_few("temperature", names) == []
