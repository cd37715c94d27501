"""The names a check reads that stand for a knob of another name (reads.py's table), and the answers
built from them: the knob named with its flag or variable, the model's own values said to be no
setting, and "none of the names ... is a knob" only where that is true."""

import pytest

from bot.diagnose import diagnose
from bot.diagnose.knowledge.vllm import load_index, reads
from bot.diagnose.knowledge.vllm.synthesis import synthesise

NO_KNOB = "None of the names this check reads"
MODEL_SAYS = "the model's own value (its `config.json`)"
CHECKPOINT_SAYS = "the checkpoint's quantization config"


def knobs_of(condition, placeholders=(), function="Worker.init_device", file="vllm/v1/worker/gpu_worker.py"):
    return [f.knobs for f in reads.find(condition, list(placeholders), function, file)]


def test_the_devices_a_process_sees_are_cuda_visible_devices_and_the_parallel_sizes():
    found = knobs_of("self.local_rank < torch.accelerator.device_count()")
    assert found[0] == ("CUDA_VISIBLE_DEVICES", "tensor_parallel_size", "pipeline_parallel_size")
    assert knobs_of("torch.cuda.device_count() < world_size")[0][0] == "CUDA_VISIBLE_DEVICES"
    assert knobs_of("x < current_platform.device_count()")[0][0] == "CUDA_VISIBLE_DEVICES"


def test_the_parallel_sizes_under_the_names_the_distributed_code_gives_them():
    assert knobs_of("assert self.parallel_config.world_size == 1") == [("tensor_parallel_size", "pipeline_parallel_size")]
    assert knobs_of("self.world_size > 1", function="ParallelConfig.__post_init__",
                    file="vllm/config/parallel.py") == [("tensor_parallel_size", "pipeline_parallel_size")]
    assert knobs_of("assert get_tensor_model_parallel_world_size() == 2") == [("tensor_parallel_size",)]
    assert knobs_of("assert dp_size > 1") == [("data_parallel_size",)]
    # a group's own size (any group, in the communicator) is no knob
    assert knobs_of("src >= self.world_size", function="GroupCoordinator.send",
                    file="vllm/distributed/parallel_state.py") == []
    # the rank a user sets is its own engine argument, not the size
    assert knobs_of("not 0 <= self.data_parallel_rank < 4") == []



def test_the_short_names_the_config_classes_give_the_parallel_sizes_and_the_executor():
    # ParallelConfig._validate_parallel_config (0.26+): `tp = self.tensor_parallel_size`, `dcp = ...`
    assert knobs_of("tp % dcp != 0", function="ParallelConfig._validate_parallel_config",
                    file="vllm/config/parallel.py") == [("tensor_parallel_size",), ("decode_context_parallel_size",)]
    assert knobs_of("dcp not in (1, pcp, tp * pcp)", function="ParallelConfig._validate_parallel_config",
                    file="vllm/config/parallel.py") == [("tensor_parallel_size",), ("decode_context_parallel_size",),
                                                        ("prefill_context_parallel_size",)]
    assert knobs_of("not executor_supports_async_sched", function="VllmConfig.__post_init__",
                    file="vllm/config/vllm.py") == [("distributed_executor_backend", "async_scheduling")]
    # the features the model runner in use lacks: the variable that chooses it, only where the check is that
    assert knobs_of("unsupported", function="VllmConfig._validate_v1_model_runner",
                    file="vllm/config/vllm.py") == [("VLLM_USE_V2_MODEL_RUNNER",)]
    assert knobs_of("unsupported", function="VllmConfig._validate_return_routed_experts",
                    file="vllm/config/vllm.py") == []
    # elsewhere a bare `tp` is no knob of the table's
    assert knobs_of("tp % 2 != 0", file="vllm/model_executor/layers/linear.py") == []

def test_engine_arguments_read_off_the_objects_that_carry_them():
    assert knobs_of("self.kv_cache_dtype.startswith('fp8')", function="TritonMLAImpl.__init__",
                    file="vllm/v1/attention/backends/mla/triton_mla.py") == [("kv_cache_dtype",)]
    assert knobs_of("fp8_kv", file="vllm/v1/attention/backends/cpu_attn.py") == [("kv_cache_dtype",)]
    assert knobs_of("assert spec.block_size % bs == 0", file="vllm/v1/kv_cache_interface.py") == [("block_size",)]
    # a quantization block is no KV cache block
    assert knobs_of("self.block_size != 128", function="Fp8Config.__init__",
                    file="vllm/model_executor/layers/quantization/fp8.py") == []
    assert knobs_of("not self.scheduler_config.chunked_prefill_enabled") == [("enable_chunked_prefill",)]


def test_the_models_own_values_and_the_checkpoints_are_said_to_be_no_setting():
    assert knobs_of("self.hf_config.model_type == 'x'") == [(reads.MODEL,)]
    assert knobs_of("self.num_attention_heads % self.num_key_value_heads", function="DoryConfig.__init__",
                    file="vllm/transformers_utils/configs/dory.py") == [(reads.MODEL,)]
    assert knobs_of("self.weight_bits not in [4, 8]", function="GPTQBitBLASConfig.__init__",
                    file="vllm/model_executor/layers/quantization/gptq_bitblas.py") == [(reads.CHECKPOINT,)]
    # `config.x` is the model's only in a model's own code
    assert knobs_of("config.weight_bits == 4", file="vllm/engine/arg_utils.py") == []


def _paste(site, release: str) -> str:
    return (f"INFO 12-05 10:00:00 [api_server.py:1] vLLM API server version {release}\n"
            "Traceback (most recent call last):\n  File \"/app/serve.py\", line 3, in <module>\n    main()\n"
            f"{site.exc}: {synthesise(site)}\n")


# 30 raise sites, 5 per class of name, drawn at random (seed 9) from the sites of each class that no
# hand-written rule answers; each message synthesised from its template. Before reads.py, 19 of them
# were told that none of the names the check reads is a knob.
# Two devices rows went when world-size-exceeds-gpus took their messages (the worker's local_world_size
# check and the XPU worker's rewording of it): 28 remain.
SAMPLE = [
    ('devices', 'ValueError', 'TP/PP/PCP replica size ({replica_world_size}) exceeds the number of visible XPU devices ({visible_device_count}), but nnodes_within_dp is 1. Configure the multi-node topology, or ensure every DP rank can see all devices on its node.', '0.34.0', '`CUDA_VISIBLE_DEVICES`'),  # before: no setting named
    ('devices', 'ValueError', 'Invalid device index {device}, must be in range [0, {device_count})', '0.34.0', '`CUDA_VISIBLE_DEVICES`'),  # before: no setting named
    ('devices', 'IndexError', 'visible device ordinal {device_id} is out of range for {cls.device_control_env_var}={device_control_env}', '0.34.0', '`CUDA_VISIBLE_DEVICES`'),  # before: no setting named
    ('world', 'AssertionError', "Given number of CPU id list {omp_cpuids_list} doesn't match local world size {local_world_size}.", '0.34.0', '`--tensor-parallel-size`'),  # before: no setting named
    ('world', 'ValueError', "mm_tensor_ipc='torch_shm' is not supported with data_parallel_size > 1 or tensor_parallel_size > 1 or pipeline_parallel_size > 1.", '0.34.0', '`--data-parallel-size`'),  # before: a setting named
    ('world', 'AssertionError', 'Coordinator only used for data parallel', '0.34.0', '`--data-parallel-size`'),  # before: no setting named
    ('world', 'RuntimeError', 'NIXL KV-head re-sharding is not supported for NVFP4 KV cache (local TP {transfer_topo.tp_size}, remote TP {remote_tp_size}). Use matching TP sizes on prefill and decode.', '0.34.0', '`--tensor-parallel-size`'),  # before: no setting named
    ('world', 'AssertionError', 'TP > 1 is only supported under SPMD.', '0.13.0', '`--tensor-parallel-size`'),  # before: no setting named
    ('config_obj', 'NotImplementedError', 'FP8 Triton MLA not yet supported', '0.17.1', '`--kv-cache-dtype`'),  # before: no setting named
    ('config_obj', 'AssertionError', 'max_num_seqs must be set by this point', '0.34.0', '`--max-num-seqs`'),  # before: a setting named
    ('config_obj', 'AssertionError', 'Block_size({cache_config.block_size}) should be greater than or equal to and divisible by dcp_kv_cache_interleave_size ({parallel_config.dcp_kv_cache_interleave_size}).', '0.11.2', '`--block-size`'),  # before: a setting named
    ('config_obj', 'AssertionError', 'Kernel block size {bs} must divide KV cache block size {spec.block_size}.', '0.34.0', '`--block-size`'),  # before: a setting named
    ('config_obj', 'AssertionError', 'SlidingWindowManager does not support fine-grained (partial) cache hits', '0.29.0', '`--block-size`'),  # before: no setting named
    ('model', 'ValueError', "DeepSeek V4.1 has no classic-MTP draft: its checkpoints ship DSpark stages under mtp.* (main_proj/markov_head/confidence_head) and carry no e_proj/h_proj/enorm/hnorm/hc_head weights. Use speculative method 'dspark' instead of 'mtp'.", '0.34.0', 'MODEL'),  # before: no setting named
    ('model', 'ValueError', 'num_attention_heads must be divisible by num_key_value_heads', '0.34.0', 'MODEL'),  # before: no setting named
    ('model', 'NotImplementedError', 'MRV2 sparse MLA PCP supports CUDA graphs only for DeepSeek-V3.2 and GLM-5.2/5.3. Set -cc.cudagraph_mode=NONE.', '0.34.0', '`--decode-context-parallel-size`'),  # before: a setting named
    ('model', 'ValueError', 'Attention dimensions must be positive integers', '0.34.0', 'MODEL'),  # before: no setting named
    ('model', 'NotImplementedError', 'Mamba with speculative decoding is not supported yet.', '0.16.0', '`--speculative-config`'),  # before: a setting named
    ('quant_ckpt', 'ValueError', 'BitBLAS does not support weight_bits = {weight_bits}. Only weight_bits = {GPTQ_BITBLAS_SUPPORTED_NUM_BITS} are supported.', '0.15.1', 'CHECKPOINT'),  # before: no setting named
    ('quant_ckpt', 'ValueError', 'Weight output_size_per_partition = {output_size_per_partition} is not divisible by pack_factor = {quant_config.pack_factor}.', '0.15.1', '`--tensor-parallel-size`'),  # before: no setting named; the partition is the model's size over TP
    ('quant_ckpt', 'AssertionError', 'INC MXFP only supports bits=4 or bits=8, but found bits={weight_bits}.', '0.34.0', 'CHECKPOINT'),  # before: no setting named
    ('quant_ckpt', 'ValueError', 'Unsupported quantization config: bits={config.weight_bits}, sym={config.is_sym}', '0.34.0', 'CHECKPOINT'),  # before: no setting named
    ('quant_ckpt', 'AssertionError', 'INC block-wise FP8 only supports bits=8, but found bits={weight_bits}.', '0.34.0', 'CHECKPOINT'),  # before: no setting named
    ('envs', 'NotImplementedError', 'Multi-step scheduling is not supported (and not needed) on vLLM V1. Please launch without --num-scheduler-steps.', '0.9.2', '`VLLM_USE_V1`'),  # before: a setting named
    ('envs', 'NotImplementedError', 'Speculative decoding is not yet supported on VLLM V1.', '0.7.3', '`VLLM_USE_V1`'),  # before: a setting named
    ('envs', 'ValueError', 'VLLM_ATTENTION_BACKEND is set to FLASHINFER, but flashinfer module was not found. See https://github.com/vllm-project/vllm/blob/main/docker/Dockerfile for instructions on how to install it.', '0.12.0', '`VLLM_ATTENTION_BACKEND`'),  # before: a setting named
    ('envs', 'ValueError', 'Using V0 AsyncLLMEngine, but envs.VLLM_USE_V1=True. This should not happen. As a workaround, try using AsyncLLMEngine.from_vllm_config(...) or explicitly set VLLM_USE_V1=0 or 1 and report this issue on Github.', '0.10.2', '`VLLM_USE_V1`'),  # before: a setting named
    ('envs', 'TypeError', 'Object of type {type(obj)} is not serializableSet VLLM_ALLOW_INSECURE_SERIALIZATION=1 to allow fallback to pickle-based serialization.', '0.34.0', '`VLLM_ALLOW_INSECURE_SERIALIZATION`'),  # before: a setting named
]


@pytest.mark.parametrize("kind,exc,template,release,knob", SAMPLE, ids=[f"{r[0]}-{r[2][:30]}" for r in SAMPLE])
def test_the_sample_names_the_knob_of_its_class(kind, exc, template, release, knob):
    idx = load_index()
    site = next((s for s in idx.sites if s.exc == exc and s.template == template), None)
    if site is None:
        pytest.skip("the index no longer has this template")
    report = diagnose(_paste(site, release))
    d = report.diagnoses[0]
    assert d.rule_id == "vllm-check-failed"
    said = d.cause + d.fix
    assert NO_KNOB not in d.fix
    if knob == "MODEL":
        assert MODEL_SAYS in d.cause and "What the check reads is the model's own" in d.fix
    elif knob == "CHECKPOINT":
        assert CHECKPOINT_SAYS in d.cause and "What the check reads is the model's own" in d.fix
    else:
        assert knob in said


def test_a_flag_the_message_names_is_never_called_no_setting():
    # `--no-enable-chunked-prefill` turns a flag off: it is that flag
    idx = load_index()
    site = next(s for s in idx.sites if "--no-enable-chunked-prefill" in s.template)
    d = diagnose(_paste(site, site.latest_where()["release"])).diagnoses[0]
    assert NO_KNOB not in d.fix and "--enable-chunked-prefill" in d.cause


def test_the_answer_in_chinese_names_the_same_knob():
    idx = load_index()
    site = next(s for s in idx.sites if s.template.startswith("Invalid device index {device}"))
    d = diagnose(_paste(site, site.latest_where()["release"]), lang="zh").diagnoses[0]
    assert "`CUDA_VISIBLE_DEVICES`" in d.cause and "检查读取的值" in d.cause


def test_the_tokenizer_and_the_vocabulary_token_ids_are_checked_against():
    found = knobs_of("max_input_id > max(tokenizer.max_token_id, model_vocab_size - 1)",
                     function="InputProcessor._validate_model_input", file="vllm/v1/engine/input_processor.py")
    assert found == [("tokenizer", "tokenizer_mode"), (reads.MODEL,)]
    # `--lora-extra-vocab-size` is an engine argument, not the model's vocabulary
    assert knobs_of("self.lora_extra_vocab_size not in (256, 512)", file="vllm/config/lora.py") == []


def test_a_layers_share_of_a_tensor_parallel_split_is_the_tensor_parallel_size():
    assert knobs_of("output_size_per_partition % self.quant_config.pack_factor != 0",
                    file="vllm/model_executor/layers/quantization/gptq_marlin_24.py") == \
        [("tensor_parallel_size",), (reads.CHECKPOINT,)]


def test_the_names_no_row_maps_are_what_keeps_a_check_from_being_the_models_alone():
    assert reads.unmapped("not 1 <= dspark_draft_topk <= draft_vocab_size", "X.f", "vllm/config/speculative.py") == \
        ["dspark_draft_topk"]
    assert reads.unmapped("target is not None and target.hf_config.model_type == 'x'", "X.f", "vllm/v1/x.py") == []
    assert reads.unmapped("any((n <= 0 for n in (self.head_dim, self.num_attention_heads)))", "DoryConfig.f",
                          "vllm/transformers_utils/configs/dory.py") == []


def test_the_engine_version_and_the_architectures_a_check_reads():
    assert knobs_of("not use_v1", function="CpuPlatform.get_attn_backend_cls", file="vllm/platforms/cpu.py") == \
        [("VLLM_USE_V1",)]
    assert knobs_of("not architectures", function="_ModelRegistry.resolve_model_cls",
                    file="vllm/model_executor/models/registry.py") == [("hf_overrides",)]
    # elsewhere a list of architectures is no invitation to override the model's
    assert knobs_of("arch not in architectures", file="vllm/config/parallel.py") == []


def test_a_rows_own_words_name_only_flags_every_release_it_speaks_for_has():
    # a row's reason is shown with its knobs' lines, in any release that has one of those knobs;
    # a flag or variable it spells out must exist there (`--no-enable-chunked-prefill` did not
    # before 0.8): the release's own spellings belong in the knob lines, which come from the index
    import re
    idx = load_index()
    by_release: dict[str, set] = {}
    for site in idx.sites:
        for w in site.where:
            by_release.setdefault(w["release"], set()).add(w["file"])
    spelled = re.compile(r"`(--[a-z][\w-]*)|\b(VLLM_[A-Z0-9_]+)\b")
    wrong = []
    for row in reads.TABLE:
        for why in row.why.values():
            names = [a or b for a, b in spelled.findall(why)]
            for release in idx.releases:
                if row.files is not None and not any(row.files.search(f) for f in by_release.get(release, ())):
                    continue            # the row reads files this release does not have
                shown = any(idx.env(k, release) is not None if k.startswith("VLLM_") else
                            k.isupper() or idx.arg(k, release) is not None
                            for k in row.knobs if not k.startswith("@") and k != "\\1")
                wrong += [(row.pattern.pattern[:40], n, release) for n in names if shown and not (
                    idx.has_env(n, release) if n.startswith("VLLM_") else idx.has_arg(n, release))]
    assert wrong == []


def test_what_a_models_layers_ask_of_the_attention_backend_is_the_backends_choice():
    # "Encoder self-attention ... not implemented for TritonAttentionImpl" (`attn_type != AttentionType.DECODER`),
    # "ROCmFlashAttention does not support attention logits soft capping": the model's own, but the backend
    # is a choice; the answer said none of the names was a knob
    backend = ("attention_backend", "VLLM_ATTENTION_BACKEND")
    assert knobs_of("attn_type != AttentionType.DECODER", function="TritonAttentionImpl.__init__",
                    file="vllm/v1/attention/backends/triton_attn.py") == [backend]
    assert knobs_of("logits_soft_cap is not None", function="ROCmFlashAttentionImpl.__init__",
                    file="vllm/attention/backends/rocm_flash_attn.py") == [backend]
    assert knobs_of("any(unsupported_features)", function="TritonMLAImpl.__init__",
                    file="vllm/v1/attention/backends/mla/triton_mla.py") == [backend]
    # outside a backend a sliding window is no backend's
    assert knobs_of("sliding_window is not None", function="f", file="vllm/config/model.py") == []
    idx = load_index()
    site = next(s for s in idx.sites if s.template.startswith(
        "Encoder self-attention and encoder/decoder cross-attention are not implemented for TritonAttentionIm"))
    d = diagnose(_paste(site, site.latest_where()["release"])).diagnoses[0]
    assert NO_KNOB not in d.fix and "VLLM_ATTENTION_BACKEND" in d.cause


def test_the_gpus_free_memory_around_profiling_is_the_gpu_this_process_sees():
    # "Error in memory profiling. Initial free memory ..., current free memory ...": another process on the
    # same GPU (vllm-0.26-h200-memory-profiling-concurrent-starts)
    assert knobs_of("assert init_free_memory >= free_gpu_memory", function="Worker.determine_available_memory",
                    file="vllm/v1/worker/gpu_worker.py") == [("CUDA_VISIBLE_DEVICES",)]
    # an XPU worker's devices are not chosen with CUDA_VISIBLE_DEVICES
    assert knobs_of("assert self.init_gpu_memory > free_gpu_memory", function="XPUWorker.determine_available_memory",
                    file="vllm/v1/worker/xpu_worker.py") == []
    log = "tests/fixtures/logs/vllm-check-failed/vllm-0.26-h200-memory-profiling-concurrent-starts.log"
    d = diagnose(open(log).read()).diagnoses[0]
    assert NO_KNOB not in d.fix and "`CUDA_VISIBLE_DEVICES`" in d.cause and "another process on the same GPU" in d.cause


def test_the_steps_a_v0_model_runner_runs_at_once_are_multi_step_scheduling():
    assert knobs_of("num_steps > 1", function="ModelRunner.execute_model",
                    file="vllm/worker/model_runner.py") == [("num_scheduler_steps",)]


# (condition, function, file, the knobs found): names that stand for a setting of another name, or the model's
READ_AS = [
    # ModelConfig.use_mla is False under VLLM_MLA_DISABLE=1: "no flag or variable changes it" was false
    ("attn_selector_config.use_mla", "CpuPlatform.get_attn_backend_cls", "vllm/platforms/cpu.py",
     [("VLLM_MLA_DISABLE",)]),
    ("scheduler_config.is_multi_step", "HpuPlatform.check_and_update_config", "vllm/platforms/hpu.py",
     [("num_scheduler_steps",)]),
    ("not self.use_v2_model_runner", "VllmConfig._verify_trace_replay_config", "vllm/config/vllm.py",
     [("VLLM_USE_V2_MODEL_RUNNER",)]),
    ("self.parallel_config.use_ubatching", "VllmConfig.validate_mamba_cached_kernel", "vllm/config/vllm.py",
     [("enable_dbo", "ubatch_size")]),
    ("self.model_config.runner_type != 'generate'", "VllmConfig.f", "vllm/config/vllm.py", [("runner", "task")]),
    # the draft model is the user's choice (--speculative-config), not the served model's own value
    ("self.draft_model_config.uses_mrope", "DraftModelProposer._raise_if_mrope", "vllm/v1/spec_decode/draft_model.py",
     [("speculative_config",)]),
    ("not self.model_config.is_moe", "VllmConfig.f", "vllm/config/vllm.py", [(reads.MODEL,)]),
    # what vLLM's class for the architecture implements, and the setting that asks for it
    ("not supports_lora(model)", "LoRAModelRunnerMixin.load_lora_model", "vllm/v1/worker/lora_model_runner_mixin.py",
     [("enable_lora",)]),
    ("not isinstance(model, SupportsLoRA)", "create_lora_manager", "vllm/lora/model_manager.py", [("enable_lora",)]),
    ("not supports_eagle3(model)", "set_eagle3_aux_hidden_state_layers",
     "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py", [("speculative_config",)]),
    ("assert supports_mrope(model)", "GPUModelRunner._init_mrope_positions", "vllm/v1/worker/gpu_model_runner.py",
     [(reads.MODEL,)]),
]


@pytest.mark.parametrize("condition,function,file,expected", READ_AS, ids=[r[0][:40] for r in READ_AS])
def test_names_that_stand_for_a_setting_of_another_name_or_the_models(condition, function, file, expected):
    assert knobs_of(condition, function=function, file=file) == expected


def test_a_parsers_own_tokens_are_the_parser_chosen_and_the_tokenizer():
    cond = "self.tool_calls_start_token_id is None or self.tool_calls_end_token_id is None"
    assert knobs_of(cond, function="DeepSeekV31ToolParser.__init__",
                    file="vllm/tool_parsers/deepseekv31_tool_parser.py") == [("tool_call_parser", "tokenizer")]
    assert knobs_of("self.start_token_id is None or self.end_token_id is None",
                    function="DeepSeekR1ReasoningParser.__init__",
                    file="vllm/reasoning/deepseek_r1_reasoning_parser.py") == [("reasoning_parser", "tokenizer")]
    # a token id elsewhere is no parser's
    assert knobs_of("token_id is None", function="Foo.__init__", file="vllm/v1/engine/x.py") == []


# real messages of the index (vLLM's own templates), each told before that none of the names was a knob
# (or, for MLA, that no flag or variable changes what the check reads)
NAMED = [
    ("DeepSeek-V3.1 Tool parser could not locate tool call start/end tokens in the tokenizer!", "`--tool-call-parser`"),
    ("DeepSeek R1 reasoning parser could not locate think start/end tokens in the tokenizer!", "`--reasoning-parser`"),
    ("{model.__class__.__name__} does not support LoRA yet.", "`--enable-lora`"),
    ("MLA is not supported on CPU.", "`VLLM_MLA_DISABLE`"),
    ("Multi-step execution is not implemented for HPU", "`--num-scheduler-steps`"),
    ("FlashInfer ReplaySSM does not support microbatching", "`--enable-dbo`"),
    ("Speculative Decoding with draft models does not support M-RoPE yet", "`--speculative-config`"),
]


@pytest.mark.parametrize("template,knob", NAMED, ids=[t[:30] for t, _ in NAMED])
def test_real_messages_name_the_knob_behind_what_the_check_reads(template, knob):
    idx = load_index()
    site = next((s for s in idx.sites if s.template == template), None)
    if site is None:
        pytest.skip("the index no longer has this template")
    d = diagnose(_paste(site, site.latest_where()["release"])).diagnoses[0]
    assert d.rule_id == "vllm-check-failed"
    assert NO_KNOB not in d.fix and knob in d.cause
    assert "What the check reads is the model's own" not in d.fix


# --- the honesty audit of December 7 (seed 2027 sample): "none of the names is a knob" where one is ------

def test_the_quantization_a_platform_rejects_is_the_quantization_setting():
    # 0.34.0 platforms/interface.py Platform.verify_quantization(cls, quant), called with ModelConfig's
    # resolved `quantization`: "bitsandbytes quantization is currently not supported in cpu."
    assert knobs_of("cls.supported_quantization and quant not in cls.supported_quantization",
                    function="Platform.verify_quantization", file="vllm/platforms/interface.py") == [("quantization",)]
    assert knobs_of("quant not in supported", function="Foo.check", file="vllm/platforms/interface.py") == []


def test_the_mamba_cache_mode_is_what_prefix_caching_makes_it():
    # 0.33.0 config/vllm.py VllmConfig.validate_mamba_cached_kernel: `self.cache_config.mamba_cache_mode != 'none'`
    # ("use --disable-prefix-caching"); models/config.py sets the mode from enable_prefix_caching
    found = knobs_of("self.cache_config.mamba_cache_mode != 'none'", function="VllmConfig.validate_mamba_cached_kernel",
                     file="vllm/config/vllm.py")
    assert found == [("enable_prefix_caching", "mamba_cache_mode")]


def test_rocm_aiters_switches_are_its_variables():
    # 0.17.1 rocm_aiter_fa.py: `assert not rocm_aiter_ops.is_shuffle_kv_cache_enabled()`, which returns
    # envs.VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT (_aiter_ops.py)
    assert knobs_of("assert not rocm_aiter_ops.is_shuffle_kv_cache_enabled()", function="AiterFlashAttentionImpl.forward",
                    file="vllm/v1/attention/backends/rocm_aiter_fa.py") == [("VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT",)]
    assert knobs_of("not rocm_aiter_ops.is_fused_moe_enabled()") == [("VLLM_ROCM_USE_AITER", "VLLM_ROCM_USE_AITER_MOE")]
    d = diagnose("INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.17.1\n"
                 "Traceback (most recent call last):\n  File \"/app/serve.py\", line 3, in <module>\n    main()\n"
                 "AssertionError: Shuffle KV cache layout is not supported with sliding window or speculative "
                 "decoding (multi-token decode).\n").best
    assert d.rule_id == "vllm-check-failed"
    assert "`VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT` (environment variable" in d.cause and NO_KNOB not in d.fix


def test_the_video_loader_and_codec_names_are_the_users_choice():
    # 0.9.2 multimodal/video.py VideoLoaderRegistry.load(cls_name): VideoMediaIO passes
    # envs.VLLM_VIDEO_LOADER_BACKEND; 0.25.1 VideoBackend.load_bytes(backend=...): --media-io-kwargs' video dict
    assert knobs_of("assert cls is not None", ["cls_name"], function="VideoLoaderRegistry.load",
                    file="vllm/multimodal/video.py") == [("VLLM_VIDEO_LOADER_BACKEND",)]
    assert knobs_of("backend not in ('opencv', 'pyav', 'torchcodec') and backend != PYNVVIDEOCODEC_VIDEO_BACKEND",
                    ["backend"], function="VideoBackend.load_bytes", file="vllm/multimodal/video.py") == [("media_io_kwargs",)]


def test_the_rank_of_the_fused_moe_lora_kernels_is_max_lora_rank():
    # 0.32.0 lora/ops/triton_ops/fused_moe_lora_op.py: `rank = A0.shape[2]` of lora_a_stacked, which
    # the MoE LoRA layer allocates with lora_config.max_lora_rank; `assert rank <= 64`
    assert knobs_of("assert rank <= 64", function="_run_fused_moe_lora_small_batch",
                    file="vllm/lora/ops/triton_ops/fused_moe_lora_op.py") == [("max_lora_rank",)]
    assert knobs_of("assert rank <= 64", function="other", file="vllm/lora/ops/triton_ops/x.py") == []


def test_the_local_data_parallel_size_under_its_local_name():
    # 0.18.1 v1/engine/utils.py CoreEngineActorManager.create_dp_placement_groups:
    # `dp_size_local = vllm_config.parallel_config.data_parallel_size_local`; "Not enough resources to
    # allocate {dp_size_local} DP ranks on DP master node ..." was told no knob
    assert knobs_of("dp_size_available < dp_size_local", function="CoreEngineActorManager.create_dp_placement_groups",
                    file="vllm/v1/engine/utils.py") == [("data_parallel_size_local",)]
