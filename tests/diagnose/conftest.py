import textwrap

import pytest

from bot.diagnose.knowledge.rulebook import load_rulebook

RULES = {
    "no-cache-memory": """
        id: no-cache-memory
        level: root
        title: {en: No memory for the KV cache, zh: 显存不够给 KV cache}
        match:
          patterns: ['No available memory for the cache blocks']
          fuzzy: ['No available memory for the cache blocks. Try increasing gpu_memory_utilization when initializing the engine']
        cause: {en: Weights left no room., zh: 权重占满了。}
        fix:
          en: |
            Raise gpu_memory_utilization.

            Your log asked for {gpu_memory_utilization}.
          zh: 提高 gpu_memory_utilization。
        versions: ">=0.5"
        verified: {vllm: 0.30.0}
    """,
    "two-engines": """
        id: two-engines
        level: root
        title: {en: Second engine in one process, zh: 同进程第二个引擎}
        match:
          patterns: ['No available memory for the cache blocks']
          when: {engine_starts: ">=2"}
        supersedes: [no-cache-memory]
        cause: {en: The first engine still holds memory., zh: 第一个引擎没释放显存。}
        fix: {en: One configuration per process., zh: 一个配置一个进程。}
    """,
    "lora-rank": """
        id: lora-rank
        level: root
        title: {en: LoRA rank above max_lora_rank, zh: LoRA rank 超过上限}
        match:
          patterns: ['LoRA rank (?P<rank>\\d+) is greater than max_lora_rank (?P<max>\\d+)']
        cause: {en: "Adapter rank {rank} > {max}.", zh: "rank {rank} > {max}。"}
        fix: {en: "Set max_lora_rank={rank}.", zh: "设置 max_lora_rank={rank}。"}
        versions: ">=0.8"
    """,
    "engine-wrapper": """
        id: engine-wrapper
        level: wrapper
        title: {en: The engine core died, zh: 引擎子进程崩了}
        match:
          patterns: ['Engine core initialization failed\\. See root cause above']
        cause: {en: A wrapper., zh: 包装层。}
        fix: {en: Look above., zh: 往上看。}
    """,
    "capture-hang": """
        id: capture-hang
        level: hint
        title: {en: Stuck in CUDA graph capture, zh: 卡在 CUDA graph capture}
        match:
          patterns: ['^Capturing CUDA graphs']
          scope: tail
        cause: {en: Capture is slow., zh: 编译慢。}
        fix: {en: enforce_eager=True, zh: enforce_eager=True}
    """,
    "shadow-rule": """
        id: shadow-rule
        level: root
        status: shadow
        title: {en: A new rule on trial, zh: 试用规则}
        match:
          patterns: ['Something brand new happened']
        cause: {en: x, zh: x}
        fix: {en: y, zh: y}
    """,
}


@pytest.fixture
def make_book(tmp_path):
    def make(rules: dict[str, str] = RULES):
        d = tmp_path / "rules"
        d.mkdir(exist_ok=True)
        for rid, body in rules.items():
            (d / f"{rid}.yaml").write_text(textwrap.dedent(body))
        return load_rulebook(d, use_cache=False)
    return make


@pytest.fixture
def book(make_book):
    return make_book()
