"""What the names a vLLM check reads stand for, when no engine argument has their name.

A check compares `self.local_rank < torch.accelerator.device_count()`: neither name is a flag, yet
the user chose both, with `CUDA_VISIBLE_DEVICES` and the parallel sizes. `parallel_config.world_size`
is `--tensor-parallel-size` × `--pipeline-parallel-size`; `self.kv_cache_dtype` inside an attention
backend is `--kv-cache-dtype`; `hf_config.num_attention_heads` is the model's own, which no setting
changes. Saying "none of these names is a setting of yours" there is false or useless (a real H100
log was told so), so this table maps them, as data: a pattern over one name as vLLM wrote it, the
knobs behind it, and why. Counted over the index's raise sites of every release (the names that
left a check with no setting named, most frequent first), not per message.

A knob is an engine argument (lower case), a vLLM variable (`VLLM_*`), a variable of the stack
(other upper case), or MODEL / CHECKPOINT: the model's `config.json`, or the quantization config
its checkpoint was made with, which are no setting and are said to be none.
"""

from __future__ import annotations

import ast
import builtins
import re
from typing import NamedTuple

from .conditions import _parse as parse_condition

MODEL, CHECKPOINT = "@model", "@checkpoint"


class Read(NamedTuple):
    pattern: re.Pattern      # fullmatched against a name: `self.` is read as the class it is in
    knobs: tuple             # knob names; "\\1" is the pattern's first group (the same name)
    why: dict                # {lang: one line}
    files: re.Pattern | None = None     # only in these files (a `config` there is the model's)
    functions: re.Pattern | None = None  # only in these functions (a local name that means one thing there)
    same: bool = False      # the name holds the knob's own value (`tp`, `max_num_reqs`), not one derived
                            # from it: a check comparing it says which way to move the knob (direction.py)

    def applies(self, file: str | None, function: str | None) -> bool:
        return (self.files is None or self.files.search(file or "") is not None) and \
            (self.functions is None or self.functions.search(function or "") is not None)


def _r(pattern: str, knobs: tuple, en: str, zh: str, files: str | None = None, functions: str | None = None,
       same: bool = False) -> Read:
    return Read(re.compile(pattern), knobs, {"en": en, "zh": zh}, re.compile(files) if files else None,
                re.compile(functions) if functions else None, same)


_OWN = ("the model's own value (its `config.json`), not a setting: no flag changes it.",
        "模型自己的值（来自它的 `config.json`），不是设置项：没有参数能改它。")
_ANY = r"(?:[\w\[\]'\"]+\.)*"        # any receiver: `self.`, `vllm_config.cache_config.`, `spec.`
_GROUPS = (r"(?:get_(?:tp|tensor_model_parallel|world|pp|dp|dcp|pcp)_group\(\)\.)?")

TABLE: tuple[Read, ...] = (
    # --- the devices a process sees ------------------------------------------------------------------
    _r(r"(?:\w+\.)*(?:device_count|get_device_count|cuda_device_count_stateless)\(\)|"
       r"(?:\w+\.)*(?:visible_device_count|visible_device_ids|cuda_device_count|device_count|num_gpus|"
       r"num_visible_devices|device_control_env_var|available_gpus)",
       ("CUDA_VISIBLE_DEVICES", "tensor_parallel_size", "pipeline_parallel_size"),
       "the GPUs this process can see, which `CUDA_VISIBLE_DEVICES` chooses (`HIP_VISIBLE_DEVICES` on ROCm, "
       "`ZE_AFFINITY_MASK` on Intel XPU; unset means all, a repeated or missing index leaves fewer), and the "
       "parallel sizes say how many one node must have.",
       "本进程能看到的 GPU：由 `CUDA_VISIBLE_DEVICES` 决定（ROCm 上是 `HIP_VISIBLE_DEVICES`，Intel XPU 上是 "
       "`ZE_AFFINITY_MASK`；不设置即全部可见，重复或不存在的编号会让可见的卡变少），并行规模决定一个节点需要几张。"),
    # --- the parallel sizes, under the names the distributed code gives them --------------------------
    _r(_ANY + r"(?:parallel_config|ParallelConfig)\.world_size|(?:\w+\.)*(?:replica_world_size|torch_world_size)|"
       r"get_world_group\(\)\.world_size|(?:torch\.)?distributed\.get_world_size\(\)|_WORLD\.world_size",
       ("tensor_parallel_size", "pipeline_parallel_size"),
       "vLLM's world size: `--tensor-parallel-size` × `--pipeline-parallel-size` (× the context-parallel "
       "sizes where the release has them), the GPUs one engine uses.",
       "vLLM 的 world size：`--tensor-parallel-size` × `--pipeline-parallel-size`（版本支持时再乘上下文并行规模），"
       "即一个引擎使用的 GPU 数。"),
    _r(_ANY + r"(?:dp_size_local|local_dp_size)",
       ("data_parallel_size_local",),
       "the data-parallel ranks to run on this node (`--data-parallel-size-local`).",
       "本节点上运行的数据并行副本数（`--data-parallel-size-local`）。", same=True),
    _r(_ANY + r"(?:dp_size|dp_world_size|_dp_size)|get_dp_group\(\)\.world_size",
       ("data_parallel_size",),
       "the data-parallel size (`--data-parallel-size`): how many engine replicas run.",
       "数据并行规模（`--data-parallel-size`）：运行的引擎副本数。", same=True),
    _r(_ANY + r"world_size_across_dp",
       ("data_parallel_size", "tensor_parallel_size", "pipeline_parallel_size"),
       "the GPUs of all data-parallel replicas: the data-parallel size times each replica's world size "
       "(tensor × pipeline parallel size).",
       "所有数据并行副本的 GPU 总数：数据并行规模 × 每个副本的 world size（张量并行 × 流水线并行规模）。"),
    _r(_ANY + r"(?:local_world_size|local_rank|rank_in_node)",
       ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size_local"),
       "this node's share of the workers: tensor × pipeline parallel size over the nodes, times the data-parallel "
       "ranks on this node; each worker's `local_rank` indexes the GPUs `CUDA_VISIBLE_DEVICES` leaves visible.",
       "本节点上的 worker：张量并行 × 流水线并行规模按节点分摊，再乘本节点的数据并行副本数；每个 worker 的 "
       "`local_rank` 是它在 `CUDA_VISIBLE_DEVICES` 可见 GPU 中的编号。"),
    _r(_ANY + r"(?:tp_size|tp_world_size|local_tp_size|tensor_model_parallel_size|"
       r"tensor_model_parallel_world_size)|get_tensor_model_parallel_world_size\(\)|get_tp_group\(\)\.world_size",
       ("tensor_parallel_size",),
       "the tensor-parallel size (`--tensor-parallel-size`; for a disaggregated pair, each side's own).",
       "张量并行规模（`--tensor-parallel-size`；P/D 分离时是各自一侧的设置）。", same=True),
    _r(_ANY + r"remote_tp_size",
       ("tensor_parallel_size",),
       "the tensor-parallel size of the other side of a disaggregated pair (its own `--tensor-parallel-size`).",
       "P/D 分离时另一侧的张量并行规模（那一侧自己的 `--tensor-parallel-size`）。"),
    _r(_ANY + r"(?:output_size_per_partition|input_size_per_partition|num_heads_per_partition|"
       r"num_kv_heads_per_partition|intermediate_size_per_partition)",
       ("tensor_parallel_size",),
       "a layer's size split over the tensor-parallel ranks: the model's own size divided by "
       "`--tensor-parallel-size`, so another tensor-parallel size gives another share.",
       "按张量并行切分后的层大小：模型自身的大小除以 `--tensor-parallel-size`，换一个张量并行规模，每份大小就不同。"),
    _r(_ANY + r"(?:pp_size|pp_world_size|pipeline_model_parallel_size)|get_pp_group\(\)\.world_size",
       ("pipeline_parallel_size",),
       "the pipeline-parallel size (`--pipeline-parallel-size`).",
       "流水线并行规模（`--pipeline-parallel-size`）。", same=True),
    _r(_ANY + r"(?:dcp_world_size|dcp_size|total_cp_world_size)|get_dcp_group\(\)\.world_size",
       ("decode_context_parallel_size",),
       "the decode context-parallel size (`--decode-context-parallel-size`).",
       "解码上下文并行规模（`--decode-context-parallel-size`）。"),
    _r(_ANY + r"pcp_world_size|get_pcp_group\(\)\.world_size",
       ("prefill_context_parallel_size",),
       "the prefill context-parallel size (`--prefill-context-parallel-size`).",
       "预填充上下文并行规模（`--prefill-context-parallel-size`）。", same=True),
    # --- the short names vLLM's config classes give the parallel sizes (0.26+ `_validate_parallel_config`:
    # `tp = self.tensor_parallel_size`, `pcp = ...`, `dcp = ...`; `VllmConfig`'s `tp = parallel.tensor_parallel_size`)
    _r(r"tp", ("tensor_parallel_size",),
       "the tensor-parallel size (`--tensor-parallel-size`).", "张量并行规模（`--tensor-parallel-size`）。",
       files=r"/config/(?:parallel|vllm)\.py$", same=True),
    _r(r"dcp", ("decode_context_parallel_size",),
       "the decode context-parallel size (`--decode-context-parallel-size`).",
       "解码上下文并行规模（`--decode-context-parallel-size`）。", files=r"/config/(?:parallel|vllm)\.py$", same=True),
    _r(r"pcp", ("prefill_context_parallel_size",),
       "the prefill context-parallel size (`--prefill-context-parallel-size`).",
       "预填充上下文并行规模（`--prefill-context-parallel-size`）。", files=r"/config/(?:parallel|vllm)\.py$",
       same=True),
    # `executor_backend = self.parallel_config.distributed_executor_backend` and whether its class supports
    # async scheduling (VllmConfig.__post_init__, 0.11+): "`ray` does not support async scheduling yet."
    _r(r"executor_backend|executor_supports_async_sched|executor_class",
       ("distributed_executor_backend", "async_scheduling"),
       "the executor that runs the workers, `--distributed-executor-backend` (`mp`, `uni`, `ray`, "
       "`external_launcher`; vLLM chooses when it is unset), and whether that executor can schedule "
       "asynchronously, which `--async-scheduling` asks for.",
       "运行 worker 的执行器，即 `--distributed-executor-backend`（`mp`、`uni`、`ray`、`external_launcher`；"
       "不设置时由 vLLM 选择），以及这个执行器能否异步调度：`--async-scheduling` 要求异步调度。",
       files=r"/config/vllm\.py$"),
    # the features of this configuration the chosen model runner lacks (VllmConfig._validate_v1_model_runner,
    # _validate_v2_model_runner, 0.23+: "Model Runner V1 does not support: pipeline parallelism with async
    # scheduling"): each comes from a setting the message names; the variable chooses the runner
    _r(r"unsupported", ("VLLM_USE_V2_MODEL_RUNNER",),
       "the features of this configuration that the model runner in use lacks, each from a setting of yours the "
       "message names (drop it, or use the other runner); `VLLM_USE_V2_MODEL_RUNNER` chooses the runner (`1` V2, "
       "`0` V1; unset, the release decides: later ones take V2 where Triton is installed and the features allow).",
       "当前使用的 model runner 不支持的本配置中的功能，每一项都来自你的某个设置，消息里写明了（去掉它，或者换另一个 "
       "runner）；`VLLM_USE_V2_MODEL_RUNNER` 选择 runner（`1` 为 V2，`0` 为 V1；不设置时由版本决定：较新的版本在装有 "
       "Triton 且功能允许时用 V2）。",
       files=r"/config/vllm\.py$", functions=r"\._validate_v[12]_model_runner$"),
    # --- engine arguments read off the objects that carry them ------------------------------------------
    _r(_ANY + r"(max_model_len|max_num_seqs|max_num_batched_tokens|kv_cache_dtype|gpu_memory_utilization|"
       r"enforce_eager|enable_prefix_caching|max_loras|max_lora_rank|max_cpu_loras|swap_space|cpu_offload_gb|"
       r"max_logprobs|num_gpu_blocks_override|kv_cache_memory_bytes|max_num_partial_prefills|"
       r"dcp_kv_cache_interleave_size|tokenizer_mode|served_model_name|num_scheduler_steps)",
       ("\\1",), "", "", same=True),
    _r(_ANY + r"(?:cache_dtype|kv_cache_torch_dtype|kv_cache_quantized_dtype|fp8_kv|is_fp8_kv_cache|kv_quant_mode)|"
       r"(?:\w+\.)*is_quantized_kv_cache\(.*\)", ("kv_cache_dtype",),
       "the KV cache's data type, which `--kv-cache-dtype` sets.", "KV cache 的数据类型，由 `--kv-cache-dtype` 设置。"),
    # ModelConfig's checks of the data type it resolved (`_check_valid_dtype`: `dtype == torch.float16`
    # for gemma3, "The model type gemma3 does not support float16"): that is --dtype.
    _r(r"(?:ModelConfig\.|(?:\w+\.)*model_config\.)?dtype", ("dtype",),
       "the model's data type, which `--dtype` sets (`auto`, the default, resolves it from the checkpoint's "
       "`torch_dtype` in its `config.json` and the data types the GPU supports).",
       "模型的数据类型，由 `--dtype` 设置（默认 `auto` 根据检查点 `config.json` 里的 `torch_dtype` 和 GPU 支持的数据类型来决定）。",
       files=r"vllm/config/model\.py$|vllm/config\.py$"),
    _r(r"(?:\w+\.)*(?:model_type|config_dtype)", (MODEL,), *_OWN, files=r"vllm/config/model\.py$|vllm/config\.py$"),
    _r(_ANY + r"(?:max_num_reqs)", ("max_num_seqs",),
       "the most requests a step schedules, `--max-num-seqs`.", "每步最多调度的请求数，即 `--max-num-seqs`。",
       same=True),
    _r(_ANY + r"(?:max_num_tokens)", ("max_num_batched_tokens",),
       "the most tokens a step schedules, `--max-num-batched-tokens`.", "每步最多调度的 token 数，即 `--max-num-batched-tokens`。",
       files=r"/worker/|/v1/core/|/v1/spec_decode/", same=True),
    _r(_ANY + r"(?:chunked_prefill_enabled|enable_chunked_prefill)", ("enable_chunked_prefill",),
       "whether chunked prefill is on, `--enable-chunked-prefill`.",
       "是否开启分块预填充，即 `--enable-chunked-prefill`。"),
    _r(r"(?:\w+\.)*(?:cache_config|CacheConfig|kv_cache_spec|spec|mamba_spec|attn_spec)\.block_size|"
       r"(?:\w+\.)*(?:kv_manager_)?block_size", ("block_size",),
       "the KV cache's block size, which `--block-size` sets (an attention backend or a hybrid model may "
       "require or choose another).",
       "KV cache 的块大小，由 `--block-size` 设置（某些注意力后端或混合模型会要求或另选一个值）。",
       files=r"/attention/|/v1/core/|/v1/worker/|/worker/|kv_cache|/config/cache|/core/block|/kv_transfer/|"
             r"/platforms/"),
    _r(_ANY + r"model_config\.quantization|(?:\w+\.)*quant_config\.get_name\(\)", ("quantization",),
       "the quantization method: the checkpoint's own, or `--quantization`.", "量化方法：检查点自带的，或 `--quantization` 指定的。"),
    # the fused MoE LoRA kernels' `rank = lora_a_stacked[0].shape[2]`: the buffers vLLM sizes by max_lora_rank
    _r(r"rank", ("max_lora_rank",),
       "the rank of vLLM's LoRA weight buffers, which `--max-lora-rank` sizes (divided by the tensor-parallel "
       "size where `--fully-sharded-loras` shards them), not each adapter's own rank.",
       "vLLM 的 LoRA 权重缓冲区的秩，由 `--max-lora-rank` 决定（开启 `--fully-sharded-loras` 时再除以张量并行大小），而不是每个适配器自己的秩。",
       files=r"vllm/lora/ops/", functions=r"^_run_fused_moe_lora"),
    # ROCm's AITER switches: _aiter_ops.py's class attributes, each read from a vLLM variable
    _r(r"(?:\w+\.)*rocm_aiter_ops\.is_shuffle_kv_cache_enabled\(\)", ("VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT",),
       "whether the ROCm AITER shuffled KV cache layout is on: `VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT`.",
       "ROCm AITER 的 shuffle KV cache 布局是否开启：由 `VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT` 决定。"),
    _r(r"(?:\w+\.)*rocm_aiter_ops\.is_fused_moe_enabled\(\)", ("VLLM_ROCM_USE_AITER", "VLLM_ROCM_USE_AITER_MOE"),
       "whether ROCm AITER's fused MoE is on: `VLLM_ROCM_USE_AITER` and `VLLM_ROCM_USE_AITER_MOE` both set.",
       "ROCm AITER 的 fused MoE 是否开启：需同时设置 `VLLM_ROCM_USE_AITER` 和 `VLLM_ROCM_USE_AITER_MOE`。"),
    _r(r"(?:\w+\.)*rocm_aiter_ops\.is_enabled\(\)", ("VLLM_ROCM_USE_AITER",),
       "whether ROCm AITER is on: `VLLM_ROCM_USE_AITER`.", "ROCm AITER 是否开启：由 `VLLM_ROCM_USE_AITER` 决定。"),
    # a video loader's `backend` keyword: VideoMediaIO passes --media-io-kwargs' "video" dict (or a request's)
    _r(r"backend", ("media_io_kwargs",),
       "the video decoding backend, which the `backend` key of `--media-io-kwargs`' `video` entry (or of a "
       "request's `media_io_kwargs`) chooses.",
       "视频解码后端，由 `--media-io-kwargs` 中 `video` 项的 `backend` 键（或请求里 `media_io_kwargs` 的）选择。",
       files=r"vllm/multimodal/video", functions=r"\.load_bytes$"),
    # the video loader VideoMediaIO asks the registry for: envs.VLLM_VIDEO_LOADER_BACKEND (0.9 and on)
    _r(r"cls_name", ("VLLM_VIDEO_LOADER_BACKEND",),
       "the video loader's name, which `VLLM_VIDEO_LOADER_BACKEND` chooses.", "视频加载器的名字，由 `VLLM_VIDEO_LOADER_BACKEND` 选择。",
       functions=r"^VideoLoaderRegistry\.load$"),
    # Platform.verify_quantization(cls, quant): ModelConfig passes its resolved `quantization`
    _r(r"quant", ("quantization",),
       "the quantization method: the checkpoint's own, or `--quantization`.", "量化方法：检查点自带的，或 `--quantization` 指定的。",
       functions=r"(?:^|\.)verify_quantization$"),
    # vLLM sets a Mamba model's cache mode from prefix caching (models/config.py: 'align' when it is on,
    # 'none' when off); from 0.33 --mamba-cache-mode "has no effect"
    _r(_ANY + r"mamba_cache_mode", ("enable_prefix_caching", "mamba_cache_mode"),
       "the Mamba layers' cache mode, which vLLM derives from prefix caching (`none` when "
       "`--enable-prefix-caching` is off, `align` by default when it is on).",
       "Mamba 层的缓存模式，vLLM 按前缀缓存决定（关闭 `--enable-prefix-caching` 时为 `none`，打开时默认 `align`）。"),
    _r(_ANY + r"(?:use_v1|USE_V1)", ("VLLM_USE_V1",),
       "which engine runs, V1 or the older V0: `VLLM_USE_V1` (`1` V1, `0` V0; unset lets vLLM choose, in "
       "the releases that have both).",
       "运行哪个引擎（V1 还是旧的 V0）：`VLLM_USE_V1`（`1` 为 V1，`0` 为 V0；不设置则由 vLLM 选择，仅限两者并存的版本）。"),
    # --- what a model's attention layers ask of the attention backend in use -------------------------
    # (`if alibi_slopes is not None: raise ValueError("FlashAttention does not support alibi")`, `attn_type !=
    # AttentionType.DECODER` in TritonAttentionImpl, `head_size not in supported_head_sizes`): the model's
    # own, but the backend is a choice; its knob lines come from the index per release
    _r(_ANY + r"(?:attn_type|alibi_slopes|sliding_window|logits_soft_cap|blocksparse_params|"
       r"kv_sharing_target_layer_name|sinks|head_size|output_scale|output_block_scale)|"
       r"unsupported_features",
       ("attention_backend", "VLLM_ATTENTION_BACKEND"),
       "what the model's attention layers ask of the attention backend in use (encoder or cross-attention, "
       "ALiBi slopes, a sliding window, soft-capped logits, block-sparse or shared-KV layers, attention sinks, "
       "a head size, fused output quantization): the model's own, which this backend does not support. Another "
       "backend may: vLLM picks one from the GPU, the model and the KV cache's data type unless you name one "
       "with the setting below (a platform with a single backend, such as CPU, offers no other).",
       "模型的注意力层对当前注意力后端的要求（编码器或交叉注意力、ALiBi、滑动窗口、logits soft cap、块稀疏或共享 KV 的层、"
       "attention sink、head size、融合的输出量化）：这是模型自己的，当前后端不支持。别的后端可能支持：vLLM 根据 GPU、"
       "模型和 KV cache 的数据类型选择后端，除非你用下面的设置指定一个（只有一个后端的平台，如 CPU，没有别的可选）。",
       files=r"/attention/backends/"),
    # --- the steps a V0 model runner was asked to run at once (`num_steps > 1`: "... does not support
    # multi-step execution"): multi-step scheduling, `--num-scheduler-steps`
    _r(r"num_steps", ("num_scheduler_steps",),
       "the scheduler steps run at once (multi-step scheduling), which `--num-scheduler-steps` sets.",
       "一次运行的调度步数（multi-step 调度），由 `--num-scheduler-steps` 设置。",
       files=r"/worker/\w*model_runner\.py$", same=True),
    # --- the GPU's free memory around vLLM's profiling run ------------------------------------------------
    # (`assert init_free_memory >= free_gpu_memory`: "Error in memory profiling. Initial free memory ...")
    _r(_ANY + r"(?:init_free_memory|free_gpu_memory|init_gpu_memory|free_memory|cuda_memory)",
       ("CUDA_VISIBLE_DEVICES",),
       "the GPU's free (or used) memory, measured before and after vLLM profiles the model: another process on the "
       "same GPU that takes or frees memory in between (a second engine starting, a trainer) breaks the measure. "
       "Give each engine its own GPU, or start them one after another.",
       "GPU 的空闲（或已用）显存，在 vLLM 对模型做 profiling 前后各测一次：同一块 GPU 上的其他进程在这期间占用或释放显存"
       "（另一个正在启动的引擎、训练进程）会让测量失真。让每个引擎用自己的 GPU，或者依次启动它们。",
       files=r"/worker/(?:gpu_)?worker\.py$", functions=r"determine_available_memory|memory_footprint|profile"),
    # --- switches of vLLM's configs that stand for a setting of another name -----------------------------
    # (ModelConfig.use_mla: `if envs.VLLM_MLA_DISABLE: return False`, then the architecture decides; "MLA is not
    # supported on CPU" was told that no flag or variable changes it)
    _r(_ANY + r"use_mla", ("VLLM_MLA_DISABLE",),
       "whether the model runs with MLA (multi-head latent attention, as DeepSeek-V2/V3 and their kin do): the "
       "model's architecture decides, unless `VLLM_MLA_DISABLE=1` turns it off (vLLM then runs the model with "
       "ordinary multi-head attention, whose KV cache takes more memory).",
       "模型是否使用 MLA（多头潜在注意力，DeepSeek-V2/V3 等模型使用）：由模型架构决定，除非 `VLLM_MLA_DISABLE=1` 关闭它"
       "（vLLM 随后用普通多头注意力运行该模型，KV cache 占用更多显存）。"),
    # SchedulerConfig.is_multi_step (0.5-0.9): `num_scheduler_steps > 1`
    _r(_ANY + r"is_multi_step", ("num_scheduler_steps",),
       "multi-step scheduling, on when the scheduler steps setting below is above 1.",
       "multi-step 调度：下面的调度步数设置大于 1 时开启。"),
    # VllmConfig.use_v2_model_runner (0.23+): the variable when set, else the release decides
    _r(_ANY + r"use_v2_model_runner", ("VLLM_USE_V2_MODEL_RUNNER",),
       "whether the V2 model runner runs: `VLLM_USE_V2_MODEL_RUNNER` chooses (`1` V2, `0` V1); unset, the release "
       "decides from the features in use, and some features require V2.",
       "是否使用 V2 model runner：由 `VLLM_USE_V2_MODEL_RUNNER` 选择（`1` 为 V2，`0` 为 V1）；不设置时由版本根据所用功能决定，"
       "有些功能要求 V2。"),
    # ParallelConfig.use_ubatching: `self.enable_dbo or self.ubatch_size > 1`
    _r(_ANY + r"use_ubatching", ("enable_dbo", "ubatch_size"),
       "micro-batching, on when the settings below ask for it (dual-batch overlap on, or a micro-batch size above 1).",
       "微批处理：下面的设置要求时开启（打开 dual-batch overlap，或微批大小大于 1）。"),
    # ModelConfig.runner_type: `_get_runner_type(architectures, self.runner, ...)`
    _r(_ANY + r"model_config\.runner_type", ("runner", "task"),
       "the runner vLLM uses for the model (`generate` or `pooling`): the model's architecture decides, unless the "
       "setting below names one.",
       "vLLM 运行该模型所用的 runner（`generate` 或 `pooling`）：由模型架构决定，除非下面的设置指定了一个。"),
    # the draft model of speculative decoding is the user's choice, its values are its own `config.json`'s
    _r(_ANY + r"draft_model_config(?:\.\w+)+(?:\(.*\))?", ("speculative_config",),
       "a value of the draft model's (from its own `config.json`): the draft model is the one the speculative "
       "decoding setting below names; choose another draft model or method, or run without speculative decoding.",
       "草稿模型的值（来自它自己的 `config.json`）：草稿模型由下面的投机解码设置指定；换一个草稿模型或方法，或者不用投机解码。"),
    # --- what vLLM's class for the model's architecture implements -------------------------------------
    # ("Qwen2VLForConditionalGeneration does not support LoRA yet.": `not supports_lora(model)`, reached only
    # when LoRA is on)
    _r(r"supports_lora\(.*\)|isinstance\(\w+, SupportsLoRA\)|(?:\w+\.)*supported_lora_modules|"
       r"hasattr\(.*'supported_lora_modules'\)", ("enable_lora",),
       "whether vLLM's implementation of the model's architecture supports LoRA adapters: the model's own, which "
       "no flag adds. LoRA is on because of the setting below: leave it out to serve the model without adapters, "
       "or serve a model whose architecture vLLM's LoRA support covers (its supported-models list marks them).",
       "vLLM 对该模型架构的实现是否支持 LoRA 适配器：这是模型自己的，没有参数能加上。LoRA 是因下面的设置而开启的："
       "去掉它就不带适配器运行模型，或者换一个 vLLM 的 LoRA 支持覆盖的架构（支持模型列表里有标注）。"),
    _r(r"supports_eagle3\(.*\)", ("speculative_config",),
       "whether vLLM's implementation of the target model's architecture supports EAGLE-3 (it must hand the draft its "
       "auxiliary hidden states): the model's own. The speculative decoding setting below asks for EAGLE-3: use "
       "another method, or a target model that supports it.",
       "vLLM 对目标模型架构的实现是否支持 EAGLE-3（需要把辅助隐藏状态交给草稿模型）：这是模型自己的。下面的投机解码设置"
       "要求 EAGLE-3：换一种方法，或者换一个支持它的目标模型。"),
    _r(r"supports_(?:mrope|xdrope)\(.*\)", (MODEL,),
       "whether vLLM's implementation of the model's architecture computes these rotary positions: the model's "
       "own, not a setting: no flag changes it.",
       "vLLM 对该模型架构的实现是否计算这种旋转位置编码：这是模型自己的，不是设置项：没有参数能改它。"),
    # --- the tool-call and reasoning parsers' own tokens --------------------------------------------------
    # ("DeepSeek-V3.1 Tool parser could not locate tool call start/end tokens in the tokenizer!": a parser
    # chosen for another model family, or another model's tokenizer)
    _r(r"(?:\w+\.)*\w*token_ids?", ("tool_call_parser", "tokenizer"),
       "the special tokens this tool-call parser looks up in the tokenizer vLLM loaded, which mark a tool call in "
       "the model's output: only the model family the parser was written for has them. Choose the parser that "
       "matches your model with the setting below; if the tokenizer setting names another model's tokenizer, use "
       "the model's own.",
       "这个工具调用解析器在 vLLM 加载的分词器里查找的特殊 token（它们在模型输出里标记工具调用）：只有该解析器所针对的"
       "模型系列才有。用下面的设置选择与你的模型相符的解析器；如果分词器设置指向了别的模型的分词器，请改用模型自己的。",
       functions=r"ToolParser\.__init__$"),
    _r(r"(?:\w+\.)*\w*token_ids?", ("reasoning_parser", "tokenizer"),
       "the special tokens this reasoning parser looks up in the tokenizer vLLM loaded, which mark the reasoning "
       "in the model's output: only the model family the parser was written for has them. Choose the parser that "
       "matches your model with the setting below; if the tokenizer setting names another model's tokenizer, use "
       "the model's own.",
       "这个推理解析器在 vLLM 加载的分词器里查找的特殊 token（它们在模型输出里标记推理内容）：只有该解析器所针对的"
       "模型系列才有。用下面的设置选择与你的模型相符的解析器；如果分词器设置指向了别的模型的分词器，请改用模型自己的。",
       functions=r"ReasoningParser\.__init__$"),
    # --- the tokenizer and the vocabulary token ids are checked against --------------------------------
    # ("Token id 32768 is out of vocabulary": `max_input_id > max(tokenizer.max_token_id, model_vocab_size - 1)`)
    _r(r"(?:\w+\.)*(?:tokenizer|model_tokenizer)\.(?:max_token_id|vocab_size|vocab|get_vocab\(\)|all_special_ids|"
       r"eos_token_id|bos_token_id|pad_token_id|unk_token_id|added_tokens_encoder|get_added_vocab\(\))|"
       r"len\((?:\w+\.)*tokenizer\)|(?:\w+\.)*model_config\.tokenizer",
       ("tokenizer", "tokenizer_mode"),
       "the tokenizer vLLM loaded: the model's own files unless `--tokenizer` names another, loaded as "
       "`--tokenizer-mode` says; the token ids a request sends (`prompt_token_ids`, `allowed_token_ids`, "
       "`logit_bias` keys) must come from this tokenizer's vocabulary.",
       "vLLM 加载的分词器：默认是模型自带的文件，`--tokenizer` 可指定另一个，加载方式由 `--tokenizer-mode` 决定；"
       "请求里发送的 token id（`prompt_token_ids`、`allowed_token_ids`、`logit_bias` 的键）必须来自这个分词器的词表。"),
    _r(r"(?:\w+\.)*(?:model_|draft_|target_|org_)?vocab_size|(?:\w+\.)*get_vocab_size\(\)", (MODEL,),
       *_OWN),
    # --- the model's own configuration: no setting --------------------------------------------------
    _r(r"(?:\w+\.)*(?:hf_config|hf_text_config|text_config|hf_vision_config|vision_config)(?:\.\w+)+(?:\(.*\))?|"
       r"(?:\w+\.)*model_config\.(?:get_num_attention_heads|get_num_kv_heads|get_total_num_kv_heads|get_hidden_size|"
       r"get_head_size|get_vocab_size|get_num_layers|get_num_experts|get_layers_start_end_indices)\(.*\)|"
       r"(?:\w+\.)*model_config\.(?:is_multimodal_model|is_encoder_decoder|architecture|architectures|is_hybrid|"
       r"is_attention_free|has_inner_state|is_cross_encoder|hf_config|hf_text_config|is_moe|"
       r"is_diffusion|uses_mrope|embedding_mode)|"
       r"(?:\w+\.)*(?:total_num_attention_heads|total_num_kv_heads|num_attention_heads|num_key_value_heads)",
       (MODEL,),
       *_OWN),
    _r(r"architectures|(?:\w+\.)*hf_config\.architectures", ("hf_overrides",),
       "the model's `architectures` list in its `config.json`, which names the model class vLLM loads; "
       "`--hf-overrides '{\"architectures\": [\"…ForCausalLM\"]}'` replaces it without editing the file.",
       "模型 `config.json` 里的 `architectures` 列表，决定 vLLM 加载哪个模型类；"
       "`--hf-overrides '{\"architectures\": [\"…ForCausalLM\"]}'` 可以不改文件直接替换它。",
       files=r"/models/registry"),
    _r(r"\w*Config\.\w+|(?:\w+\.)*config\.\w+", (MODEL,),
       *_OWN,
       files=r"/transformers_utils/configs/|/model_executor/models/"),
    _r(r"(?:\w+\.)*(?:quant_config|config|layer_config|weight_quant|\w+Config)\.(?:weight_bits|group_size|bits|num_bits|"
       r"pack_factor|is_sym|sym|desc_act|quant_type|zero_point|has_zp|strategy|is_checkpoint_fp8_serialized|"
       r"activation_scheme|weight_block_size|packing_format|lm_head_quantized)|"
       r"(?:\w+\.)*(?:weight_bits|group_size|num_bits|pack_factor|is_sym|desc_act|has_zp|zero_point)",
       (CHECKPOINT,),
       "a field of the checkpoint's quantization config (`quantization_config` in its `config.json`, or "
       "`quantize_config.json`), fixed when the model was quantized: no flag changes it; use a checkpoint "
       "quantized the way the check accepts.",
       "检查点量化配置里的字段（`config.json` 的 `quantization_config` 或 `quantize_config.json`），在量化模型时就已确定："
       "没有参数能改它；请换一个按检查要求量化的检查点。",
       files=r"/quantization/"),
)


class Found(NamedTuple):
    names: tuple       # as vLLM wrote them
    read: Read
    knobs: tuple       # resolved ("\\1" replaced)

    @property
    def of_model(self) -> bool:
        """The model's or its checkpoint's own value: no setting."""
        return self.knobs[0] in (MODEL, CHECKPOINT)


def names(condition: str | None, placeholders: list[str], function: str | None) -> list[str]:
    """The names a check and its message read, in order: attribute chains, calls, locals."""
    trees = []
    parsed = parse_condition(condition) if condition and not condition.startswith("except ") else None
    if parsed is not None:
        trees.append(parsed[1])
    for ph in placeholders:
        expr = re.split(r"(?<![!=<>])[!:](?![=])", ph, maxsplit=1)[0].strip()     # `{x:.2f}`, `{x!r}`
        try:
            trees.append(ast.parse(expr, mode="eval").body)
        except (SyntaxError, ValueError, RecursionError):
            continue
    out: list[str] = []
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Attribute, ast.Name, ast.Call)):
                text = ast.unparse(node)
                if len(text) <= 120:
                    out.append(text)
    return list(dict.fromkeys(out))


def _as_read(name: str, function: str | None) -> str:
    """`self.x` inside `ParallelConfig.__post_init__` reads as `ParallelConfig.x`."""
    cls = (function or "").split(".")[0] if "." in (function or "") else ""
    return re.sub(r"^(?:self|cls)\.", cls + ".", name) if cls else name


def find(condition: str | None, placeholders: list[str], function: str | None, file: str | None) -> list[Found]:
    """The table's rows the check's names match, in the table's order (the devices before the sizes
    they must hold), each with every name that matched it."""
    hits: dict[tuple, list[str]] = {}
    for name in names(condition, placeholders, function):
        read_as = _as_read(name, function)
        for i, row in enumerate(TABLE):
            if not row.applies(file, function):
                continue
            m = row.pattern.fullmatch(read_as)
            if m is None:
                continue
            knobs = tuple(m.group(1) if k == "\\1" else k for k in row.knobs)
            found = hits.setdefault((i, knobs), [])
            if not any(other.startswith((name + ".", name + "(")) or other.endswith("." + name)
                       or name.endswith("." + other) for other in found):
                found.append(name)      # `x.device_count()` says it; `x.device_count`, `device_count` add nothing
            break
    return [Found(tuple(v), TABLE[i], knobs) for (i, knobs), v in sorted(hits.items(), key=lambda kv: kv[0][0])]


def last_attr(name: str) -> str:
    """`self.parallel_config.world_size` → `world_size`; a call keeps its function's name."""
    return re.sub(r"\(.*\)$", "", name).rsplit(".", 1)[-1]


_BUILTINS = frozenset(dir(builtins)) | {"self", "cls", "torch", "np", "os", "sys", "math", "envs", "current_platform"}


def unmapped(condition: str | None, function: str | None, file: str | None, found: list | None = None) -> list[str]:
    """The names a check's test reads that no row of the table maps (`dspark_draft_topk`,
    `tensor_name`): a value of the model's beside them does not make the whole check the model's.
    `found`: find()'s rows for this check, where the caller has them already."""
    parsed = parse_condition(condition) if condition and not condition.startswith("except ") else None
    if parsed is None:
        return []
    tree = parsed[1]
    calls = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    bound = {t.id for c in ast.walk(tree) if isinstance(c, ast.comprehension)
             for t in ast.walk(c.target) if isinstance(t, ast.Name)}      # `for n in (...)`
    if found is None:
        found = find(condition, [], function, file)
    mapped = [n for f in found for n in f.names]
    out = []
    for node in ast.walk(tree):
        if id(node) in calls or id(node) in inner or not isinstance(node, (ast.Name, ast.Attribute)):
            continue
        if isinstance(node, ast.Name) and (node.id in bound or any(m.startswith(node.id + ".") for m in mapped)):
            continue            # a loop variable; `target` of `target is not None and target.hf_config...`
        text = ast.unparse(node)
        root = text.split(".")[0]
        if root in _BUILTINS or text.split(".")[-1].isupper() or root.isupper() or len(text) > 120:
            continue            # a builtin, a module, a constant
        read_as = _as_read(text, function)
        if not any(row.applies(file, function) and row.pattern.fullmatch(read_as) for row in TABLE):
            out.append(text)
    return list(dict.fromkeys(out))
