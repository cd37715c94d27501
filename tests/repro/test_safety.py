import os

import pytest

from bot.repro.safety import (
    ReproRefused, model_roots, parse_assignments, parse_command, parse_settings, repro_candidate,
    resolve_model_path, validate_settings,
)


@pytest.fixture
def roots(tmp_path):
    root = tmp_path / "models"
    (root / "llama").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    return [str(root)]


def test_settings_are_typed_and_kept_in_order():
    got = parse_settings(["--max-model-len=4096", "enforce-eager=true", "gpu_memory_utilization=0.5",
                          'limit_mm_per_prompt={"image": 2}', "dtype=bfloat16"])
    assert list(got) == ["max_model_len", "enforce_eager", "gpu_memory_utilization", "limit_mm_per_prompt", "dtype"]
    assert got == {"max_model_len": 4096, "enforce_eager": True, "gpu_memory_utilization": 0.5,
                   "limit_mm_per_prompt": {"image": 2}, "dtype": "bfloat16"}


@pytest.mark.parametrize("item, words", [
    ("max_modl_len=4096", ["Unknown setting 'max_modl_len'", "Did you mean max_model_len?"]),
    ("worker_cls=evil.Worker", ["Unknown setting 'worker_cls'"]),
    ("gpu_memory_utilization=1.5", ["(0, 1]"]),
    ("gpu_memory_utilization=0", ["(0, 1]"]),
    ("gpu_memory_utilization=nan", ["takes a number"]),
    ("max_model_len=-1", ["at least 1"]),
    ("max_model_len=4k", ["whole number"]),
    ("dtype=float64;rm -rf /", ["must be a dtype name"]),
    ("dtype=" + "x" * 40, ["must be a dtype name"]),
    ("quantization=magic", ["must be one of"]),
    ("enforce_eager=maybe", ["true or false"]),
    ("limit_mm_per_prompt={image: 2}", ["takes JSON"]),
    ("limit_mm_per_prompt={\"image\": -1}", ["whole number >= 0"]),
    ("block_size=24", ["power of two"]),
    ("no-equals-sign", ["key=value"]),
])
def test_bad_settings_are_refused_with_a_reason(item, words):
    with pytest.raises(ReproRefused) as e:
        parse_settings([item])
    for word in words:
        assert word in e.value.reason


def test_a_wrong_dtype_name_is_left_to_vllms_own_check():
    # vLLM refuses it in the preflight with its own message, which the dtype-invalid rule answers
    assert parse_settings(["dtype=float64"]) == {"dtype": "float64"}


def test_a_setting_given_twice_is_refused():
    with pytest.raises(ReproRefused, match="given twice"):
        parse_assignments(["max_model_len=1", "max-model-len=2"])


def test_remote_code_only_when_the_operator_allows_it(monkeypatch):
    monkeypatch.delenv("REPRO_ALLOW_REMOTE_CODE", raising=False)
    with pytest.raises(ReproRefused, match="REPRO_ALLOW_REMOTE_CODE"):
        parse_settings(["trust_remote_code=true"])
    assert parse_settings(["trust_remote_code=false"]) == {"trust_remote_code": False}
    monkeypatch.setenv("REPRO_ALLOW_REMOTE_CODE", "1")
    assert parse_settings(["trust_remote_code=true"]) == {"trust_remote_code": True}


def test_model_path_must_lie_under_a_root(roots, tmp_path):
    llama = os.path.join(roots[0], "llama")
    assert resolve_model_path(llama, roots) == os.path.realpath(llama)
    with pytest.raises(ReproRefused, match="outside the model roots"):
        resolve_model_path(str(tmp_path / "elsewhere"), roots)
    # `..` and symlinks are resolved before the check
    with pytest.raises(ReproRefused, match="outside the model roots"):
        resolve_model_path(os.path.join(roots[0], "..", "elsewhere"), roots)
    os.symlink(tmp_path / "elsewhere", os.path.join(roots[0], "sneaky"))
    with pytest.raises(ReproRefused, match="outside the model roots"):
        resolve_model_path(os.path.join(roots[0], "sneaky"), roots)
    # a root that is a prefix of another folder's name is not that folder's parent
    (tmp_path / "models-private").mkdir()
    with pytest.raises(ReproRefused, match="outside the model roots"):
        resolve_model_path(str(tmp_path / "models-private"), roots)


def test_missing_model_folder_gets_the_seed_advice(roots):
    with pytest.raises(ReproRefused) as e:
        resolve_model_path(os.path.join(roots[0], "does-not-exist"), roots)
    assert e.value.rule_id == "model-path-not-found"
    assert "Repo id must be in the form" in e.value.reason
    assert "os.path.isdir" in e.value.advice


def test_no_roots_configured_refuses_everything(roots):
    with pytest.raises(ReproRefused, match="No model roots"):
        resolve_model_path(os.path.join(roots[0], "llama"), [])


def test_relative_path_refused(roots):
    with pytest.raises(ReproRefused, match="absolute"):
        resolve_model_path("models/llama", roots)


def test_roots_from_env_accept_pathsep_and_commas(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    env = {"MODEL_ROOTS": f"{a}{os.pathsep}{b},{c}"}
    assert model_roots(["/extra"], env=env) == [str(a), str(b), str(c), "/extra"]


def test_tokenizer_path_is_checked_like_the_model(roots, tmp_path):
    with pytest.raises(ReproRefused, match="outside the model roots"):
        validate_settings({"tokenizer": str(tmp_path / "elsewhere")}, roots=roots)
    ok = validate_settings({"tokenizer": os.path.join(roots[0], "llama")}, roots=roots)
    assert ok["tokenizer"].endswith("llama")


def test_parse_command_splits_words_and_quoted_json():
    path, raw = parse_command("""/models/qwen max_model_len=4096 limit_mm_per_prompt='{"image": 2}'""")
    assert path == "/models/qwen"
    assert validate_settings(raw) == {"max_model_len": 4096, "limit_mm_per_prompt": {"image": 2}}
    with pytest.raises(ReproRefused, match="Usage"):
        parse_command("   ")
    with pytest.raises(ReproRefused, match="Quote"):
        parse_command("/models/x dtype='half")


def test_repro_candidate_only_for_allowed_folders(roots, tmp_path):
    assert repro_candidate(os.path.join(roots[0], "llama"), roots).endswith("llama")
    assert repro_candidate(str(tmp_path / "elsewhere"), roots) is None
    assert repro_candidate(os.path.join(roots[0], "missing"), roots) is None
    assert repro_candidate(None, roots) is None
