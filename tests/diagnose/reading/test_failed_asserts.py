"""The asserts a traceback shows failing: a bare AssertionError's line, and the one Dynamo found false while tracing."""

from bot.diagnose.reading import facts, tracebacks

TAG = "(EngineCore pid=3740) ERROR 12-06 18:05:40 [core.py:1330] "
ATTN = "/opt/venv/lib/python3.12/site-packages/vllm/model_executor/layers/attention/attention.py"
DYNAMO = "\n".join(TAG + line for line in [
    "torch._dynamo.exc.Unsupported: Data-dependent assertion failed (cannot compile partial graph)",
    "  Explanation: Dynamo has determined when encountering a data-dependent assert failure that it should not compile.",
    "  Hint: Remove the assert statement.",
    "",
    "from user code:",
    '   File "/opt/venv/lib/python3.12/site-packages/vllm/model_executor/models/llama.py", line 229, in forward',
    "    attn_output = self.attn(q, k, v)",
    f'  File "{ATTN}", line 520, in forward',
    '    assert self.kv_cache_dtype in {"fp8", "fp8_e4m3", "nvfp4"}',
    "",
    "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace",
])


def test_dynamo_block_last_frame_is_the_failed_assert():
    assert facts.failed_asserts(DYNAMO) == ['self.kv_cache_dtype in {"fp8", "fp8_e4m3", "nvfp4"}']
    assert facts.assert_sites(DYNAMO) == [
        'vllm/model_executor/layers/attention/attention.py:forward: self.kv_cache_dtype in {"fp8", "fp8_e4m3", "nvfp4"}']


def test_dynamo_block_without_an_assert_last_gives_none():
    text = DYNAMO.replace('assert self.kv_cache_dtype in {"fp8", "fp8_e4m3", "nvfp4"}', "return self.impl(q)")
    assert facts.failed_asserts(text) == [] and facts.assert_sites(text) == []


def test_bare_assert_under_a_process_tag_and_record_header():
    text = "\n".join(TAG + line for line in [
        "Traceback (most recent call last):",
        '  File "/x/site-packages/vllm/model_executor/layers/vocab_parallel_embedding.py", line 465, in weight_loader',
        "    assert loaded_weight.shape[output_dim] == self.org_vocab_size",
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "AssertionError"])
    assert facts.failed_asserts(text) == ["loaded_weight.shape[output_dim] == self.org_vocab_size"]
    assert facts.assert_sites(text)[0].startswith("vllm/model_executor/layers/vocab_parallel_embedding.py:weight_loader: ")


def test_frame_sources_reads_the_code_each_frame_ran():
    text = "\n".join([
        "Traceback (most recent call last):",
        '  File "/x/site-packages/vllm/engine/arg_utils.py", line 787, in __post_init__',
        "    self.tokenizer = get_model_path(self.tokenizer, self.tokenizer_revision)",
        "                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        '  File "/x/site-packages/huggingface_hub/utils/_validators.py", line 133, in validate_repo_id',
        "    raise HFValidationError(",
        "huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name': '/models/x'."])
    assert tracebacks.frame_sources(text, 7) == [
        "self.tokenizer = get_model_path(self.tokenizer, self.tokenizer_revision)", "raise HFValidationError("]
