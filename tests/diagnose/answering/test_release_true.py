"""Advice true for the log's release: what a release lacks is left out of the call and named, with
its successor or none; the rule book's map answers without the index."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bot.diagnose import diagnose, load_rulebook

ROOT = Path(__file__).resolve().parents[3]
RULE = """
    id: small-swap
    level: root
    title: {en: "Swap space too small", zh: "交换空间太小"}
    match:
      patterns: ['Not enough swap space for the test']
    cause: {en: "The CPU swap space is too small.", zh: "CPU 交换空间太小。"}
    fix:
      en: |
        Raise it: `--swap-space 8`, or `--disable-log-requests`.
      zh: |
        调大：`--swap-space 8`，或者 `--disable-log-requests`。
    fix_settings: {swap_space: 8, max_model_len: 4096}
    versions: ">=0.5"
"""
ERROR = "RuntimeError: Not enough swap space for the test\n"


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pack")
    (folder / "small-swap.yaml").write_text(textwrap.dedent(RULE))
    return load_rulebook(str(folder), use_cache=False)


def test_what_the_release_lacks_leaves_the_call_and_is_named(pack):
    d = diagnose("vLLM API server version 0.26.0\n" + ERROR, book=pack).best
    assert d.suggested == {"max_model_len": 4096}
    assert "swap" not in d.command and "--max-model-len 4096" in d.command
    assert any("vLLM 0.26.0 has no `--swap-space`" in c and "no replacement" in c for c in d.caveats)
    # a renamed flag in the text: the caveat names the one the release uses
    assert any("`--disable-log-requests`" in c and "uses `--enable-log-requests` instead" in c for c in d.caveats)


def test_a_release_that_has_it_keeps_it_and_no_version_changes_nothing(pack):
    old = diagnose("vLLM API server version 0.8.5\n" + ERROR, book=pack).best
    assert old.suggested == {"swap_space": 8, "max_model_len": 4096} and old.caveats == []
    assert diagnose(ERROR, book=pack).best.suggested == {"swap_space": 8, "max_model_len": 4096}


def test_a_pasted_command_loses_what_the_release_rejected(pack):
    paste = ("$ vllm serve /m --swap-space 4 --max-model-len 100\nvLLM API server version 0.26.0\n" + ERROR)
    d = diagnose(paste, book=pack).best
    assert d.command == "vllm serve /m --max-model-len 4096"


def test_the_shipped_book_answers_from_its_map_without_the_index():
    code = ("import sys, json; from bot.diagnose import diagnose; d = diagnose(open(sys.argv[1], 'rb').read()).best; "
            "print(json.dumps([d.rule_id, d.command, 'bot.diagnose.knowledge.vllm.index' in sys.modules]))")
    log = ROOT / "tests" / "fixtures" / "bench" / "failure.log"
    rule_id, command, loaded = json.loads(subprocess.run([sys.executable, "-c", code, str(log)], capture_output=True,
                                                         text=True, cwd=ROOT, check=True).stdout)
    assert rule_id == "cpu-memory-reservation" and command and not loaded


def test_a_successor_that_is_a_field_of_a_config_is_named_with_its_flag(tmp_path):
    # --guided-decoding-backend went in 0.12.0; its field lives on in StructuredOutputsConfig
    rule = RULE.replace("`--disable-log-requests`", "`--guided-decoding-backend xgrammar`")
    (tmp_path / "small-swap.yaml").write_text(textwrap.dedent(rule))
    d = diagnose("vLLM API server version 0.26.0\n" + ERROR, book=load_rulebook(str(tmp_path), use_cache=False)).best
    assert any("guided_decoding_backend" in c and "uses `--structured-outputs-config.backend` instead" in c
               for c in d.caveats), d.caveats
