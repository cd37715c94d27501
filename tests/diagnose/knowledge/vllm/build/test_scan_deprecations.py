"""Deprecation sentences as vLLM writes them: who is deprecated, and what replaces it."""

from __future__ import annotations

import pytest

from bot.diagnose.knowledge.vllm.build.scan_deprecations import parse_notice


@pytest.mark.parametrize("text,subjects,replacement", [
    ("`guided_decoding_backend` is deprecated and has been renamed to `backend`.", ["guided_decoding_backend"],
     "backend"),
    ("--cuda-graph-sizes is deprecated and will be removed in v0.13.0. Please use --cudagraph-capture-sizes instead.",
     ["--cuda-graph-sizes"], "--cudagraph-capture-sizes"),
    ("VLLM_ALL2ALL_BACKEND environment variable is deprecated and will be removed in a future release. "
     "Please use the --all2all-backend command-line argument instead.", ["VLLM_ALL2ALL_BACKEND"], "--all2all-backend"),
    ("`disable_log_requests` is deprecated and has been replaced with `enable_log_requests`.",
     ["disable_log_requests"], "enable_log_requests"),
    ("The 'swap_space' parameter is deprecated and ignored.", ["swap_space"], None),
    # a help text's leading tag is not the notice: the sentence after it says what is deprecated
    ("[DEPRECATED] The `--enable-reasoning` flag is deprecated as of v0.9.0. Use `--reasoning-parser` instead.",
     ["--enable-reasoning"], "--reasoning-parser"),
    ("(Deprecated) --eplb-window-size will be removed in v0.12.0.", ["--eplb-window-size"], None),
])
def test_subject_and_replacement(text, subjects, replacement):
    notice = parse_notice(text)
    assert notice["subjects"] == subjects and notice.get("replacement") == replacement


@pytest.mark.parametrize("text", [
    "This option is deprecated, use it with care",          # no name it is about
    "--allow-deprecated-quantization",                       # the word inside a flag's name
    "Loading weights took 3.2 seconds",
    "[DEPRECATED] Ignored.",
])
def test_not_a_notice_about_a_name(text):
    assert parse_notice(text) is None
