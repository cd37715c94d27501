from bot.repro.render import render_result_markdown, render_text

FAILED = {
    "verdict": "fails", "model": "/models/qwen", "settings": {"dtype": "half", "max_model_len": 200000},
    "culprit": {"key": "max_model_len", "value": 200000}, "phase": "preflight",
    "summary": "Adding max_model_len=200000 makes it fail (configuration check).",
    "diagnosis": {"rule_id": "max-model-len-too-large", "title": "max_model_len is larger than the model's context",
                  "cause": "The model allows 128000.", "fix": "Set `max_model_len` to 128000 or less."},
    "fix_confirmed": True, "fix_settings": {"max_model_len": None},
    "steps": [
        {"kind": "preflight", "label": "preflight: all settings", "settings": {"enforce_eager": True, "dtype": "half",
         "max_model_len": 200000}, "ok": False, "seconds": 9.2, "rule_id": "max-model-len-too-large"},
        {"kind": "fix", "label": "fix: max_model_len unset", "settings": {"enforce_eager": True, "dtype": "half"},
         "ok": True, "seconds": 7.1, "rule_id": None},
    ],
    "env": {"vllm": "0.32.0", "torch": "2.13.0+cu130", "cuda": "13.0", "gpu_name": "NVIDIA H200"},
    "engine_starts": 0, "seconds": 16.3, "notes": ["a note"],
}


def test_markdown_names_culprit_diagnosis_fix_and_steps():
    text = render_result_markdown(FAILED)
    assert "The culprit is max_model_len=200000." in text
    assert "`max-model-len-too-large`" in text and "Set `max_model_len` to 128000 or less." in text
    assert "Fix tried (max_model_len unset): it cures it." in text
    assert "| 1 | preflight: all settings |" in text and "FAILS `max-model-len-too-large`" in text
    assert "vLLM 0.32.0, torch 2.13.0+cu130, CUDA 13.0, GPU NVIDIA H200" in text
    assert "_Note: a note_" in text


def test_text_for_an_ok_run_and_a_failure_without_diagnosis():
    ok = {"verdict": "ok", "steps": [{"kind": "bare", "ok": True, "seconds": 30.0}], "env": {}, "engine_starts": 1}
    assert render_text(ok).startswith("vLLM starts and generates with all your settings")
    bare = {"verdict": "fails", "culprit": None, "summary": "The bare start fails: the model or the environment.",
            "diagnosis": None, "error": {"message": "RuntimeError: boom", "root": "OSError: weights missing"},
            "steps": [{"kind": "bare", "ok": False, "seconds": 3.0, "timed_out": True}], "env": {}}
    text = render_text(bare)
    assert "The bare start fails" in text and "First error: OSError: weights missing" in text
    assert "timed out" in text
    md = render_result_markdown(bare)
    assert "```\nOSError: weights missing\n```" in md
