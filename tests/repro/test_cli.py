import json

import pytest

from bot.repro.cli import main


@pytest.mark.vllm
@pytest.mark.slow
def test_healthy_run_json(vllm_python, tiny_model, model_root, cpu_share, capsys):
    rc = main(["repro", str(tiny_model), "--set", "max_num_seqs=4", "--json", "--python", vllm_python,
               "--model-root", str(model_root), "--timeout", "600"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0, out
    assert out["verdict"] == "ok" and out["culprit"] is None and out["diagnosis"] is None
    assert out["fix_confirmed"] is None
    assert [(s["kind"], s["ok"]) for s in out["steps"]] == [("preflight", True), ("bare", True), ("add", True)]
    assert all({"settings", "ok", "seconds", "rule_id"} <= set(s) for s in out["steps"])
    assert out["engine_starts"] == 2                                  # k = 1 setting: k + 1 starts
    assert out["steps"][2]["settings"]["max_num_seqs"] == 4
    # on CPU every engine start runs in float32, so the suite passes where bf16 kernels crash
    assert all(s["settings"]["dtype"] == "float32" for s in out["steps"] if s["kind"] != "preflight")
    assert any("dtype='float32'" in n and "SIGILL" in n for n in out["notes"])
    assert out["env"]["vllm"] and out["env"]["torch"] and out["env"]["platform"] == "cpu"


def test_refusals_happen_before_any_launch(standin_python, tmp_path, monkeypatch, capsys):
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("STANDIN_LOG", str(log))
    monkeypatch.delenv("MODEL_ROOTS", raising=False)
    root = tmp_path / "models"
    (root / "llama").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    common = ["--python", str(standin_python), "--model-root", str(root), "--json"]

    assert main(["repro", str(root / "missing"), *common]) == 2
    answer = json.loads(capsys.readouterr().out)
    assert answer["verdict"] == "refused" and answer["rule_id"] == "model-path-not-found"
    assert "os.path.isdir" in answer["advice"]

    assert main(["repro", str(tmp_path / "outside"), *common]) == 2
    assert "outside the model roots" in json.loads(capsys.readouterr().out)["reason"]

    assert main(["repro", str(root / "llama"), "--set", "max_num_seq=4", *common]) == 2
    reason = json.loads(capsys.readouterr().out)["reason"]
    assert "Unknown setting 'max_num_seq'" in reason and "max_num_seqs" in reason

    assert not log.exists(), "a refused request started a probe"


def test_readable_refusal_on_stderr(tmp_path, capsys):
    assert main(["repro", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "Repo id must be in the form" in err


def test_unusable_interpreter_is_reported_not_blamed_on_a_setting(tmp_path, capsys):
    (tmp_path / "m").mkdir()
    rc = main(["repro", str(tmp_path / "m"), "--set", "max_num_seqs=4", "--python", str(tmp_path / "no-python"),
               "--json"])
    answer = json.loads(capsys.readouterr().out)
    assert rc == 2 and answer["verdict"] == "refused" and "cannot start the vLLM interpreter" in answer["reason"]
