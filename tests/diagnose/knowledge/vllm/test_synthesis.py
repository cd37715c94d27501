"""Synthesised messages: every placeholder filled with a value that fits its name, and a paste
the diagnosis's cleaner cuts back to the same message."""

from __future__ import annotations

import random

from bot.diagnose.reading import tracebacks
from bot.diagnose.knowledge.vllm import index as vsrc
from bot.diagnose.knowledge.vllm.synthesis import in_traceback, synthesise, value_for


def test_values_fit_the_placeholder_names():
    rng = random.Random(0)
    assert value_for("max_num_batched_tokens", rng).isdigit()
    assert value_for("model_config.dtype", rng) in ("torch.float16", "bfloat16", "float32", "fp8_e4m3")
    assert "/" in value_for("lora_path", rng)
    assert value_for("gpu_memory_utilization", rng).replace(".", "").isdigit()


def test_a_synthesised_paste_cuts_back_to_its_site():
    idx = vsrc.load()
    site = next(s for s in idx.sites if s.template.startswith("max_num_batched_tokens ({max_num_batched_tokens})"))
    text = synthesise(site)
    assert "{" not in text and text.startswith("max_num_batched_tokens (")
    msg = next(m for m in tracebacks.messages(in_traceback(site.exc, text)) if m.exc_type)
    assert msg.exc_type == site.exc
    assert idx.match(msg.text, msg.exc_type)[0].site is site
