"""The user's knobs behind a check: request fields, parser registries, sizes, the stack's variables."""

from bot.diagnose.knowledge.vllm import knobs, load_index
from bot.diagnose.knowledge.vllm.knobs import _L

EN = _L["en"]


class Site:
    """The two things knobs reads of a raise site: its template and its literal parts."""

    def __init__(self, template: str):
        self.template = template
        self.parts = [("lit", template)]


def test_the_fields_a_sampling_check_reads():
    assert knobs.request_fields("not 0.0 < self.top_p <= 1.0", "SamplingParams._verify_args") == ["top_p"]
    assert knobs.request_fields("self.top_k < -1 or self.top_k == 0", "SamplingParams._verify_args") == ["top_k"]


def test_a_check_outside_the_request_classes_reads_no_request_field():
    assert knobs.request_fields("self.top_p < 0", "ModelConfig.verify") == []
    assert knobs.request_fields(None, "SamplingParams._verify_args") == []


def test_the_values_a_single_comparison_accepts():
    assert knobs.accepted("not 0.0 < self.top_p <= 1.0") == "0.0 < top_p <= 1.0"
    assert knobs.accepted("self.temperature < 0.0") == "temperature >= 0.0"
    assert knobs.accepted("self.n > self.best_of") == "n <= best_of"
    # a compound test is not solved: it is quoted as vLLM wrote it
    assert knobs.accepted("self.top_k < -1 or self.top_k == 0") is None
    assert knobs.accepted("not valid python (") is None


def test_the_values_accepted_read_the_test_as_direction_solves_it():
    # one parser and one negation table (direction.tested, conditions._NEGATE): the text here is the
    # comparison direction.py solves for a knob's move, whatever `not`s or `assert` wrap it
    from bot.diagnose.knowledge.vllm import direction
    for condition in ("self.n > self.best_of", "not self.n > 1", "not not self.n > 1", "assert self.n >= 1",
                      "assert not self.n < 1", "not self.max_loras <= self.max_cpu_loras"):
        left, op, right, _ = direction.accepted(condition)
        assert knobs.accepted(condition) == direction.code(left, op, right), condition
    # equality is negated here (direction.py leaves it: no knob's move satisfies it)
    assert knobs.accepted("self.n == 0") == "n != 0" and knobs.accepted("self.n != 1") == "n == 1"
    assert direction.accepted("self.n == 0") is None
    assert knobs.accepted("assert not self.n == 0") == "n != 0"
    # a membership or identity test raised is not negated into code
    assert knobs.accepted("self.name in names") is None and knobs.accepted("self.x is None") is None


def test_an_assert_accepts_its_own_test():
    # `assert 0 < self.top_p <= 1` holds for the values it accepts: nothing to invert
    assert knobs.accepted("assert 0.0 < self.top_p <= 1.0") == "0.0 < top_p <= 1.0"
    assert knobs.accepted("assert self.n >= 1") == "n >= 1"
    assert knobs.request_fields("assert self.n >= 1", "SamplingParams._verify_args") == ["n"]


def test_a_request_field_line_names_each_form_the_release_has():
    idx = load_index()
    w = {"condition": "self.temperature < 0.0", "function": "SamplingParams._verify_args"}
    [line] = knobs.lines(idx, Site("temperature must be non-negative, got {self.temperature}."), w, {}, "0.32.0", "en")
    assert "SamplingParams(temperature=…)" in line and "temperature >= 0.0" in line
    assert '"temperature"` in an OpenAI-compatible request' in line and "--override-generation-config" in line
    zh = knobs.lines(idx, Site("temperature must be non-negative"), w, {}, "0.32.0", "zh")
    assert "字段" in zh[0] and "temperature >= 0.0" in zh[0]


def test_only_generation_config_keys_are_said_to_take_the_servers_default():
    idx = load_index()
    w = {"condition": "not params.allowed_token_ids", "function": "InputProcessor._validate_sampling_params"}
    [line] = knobs.lines(idx, Site("allowed_token_ids is not None and empty!"), w, {}, "0.16.0", "en")
    assert "SamplingParams(allowed_token_ids=…)" in line
    assert "--override-generation-config" not in line


def test_a_field_the_message_names_is_a_knob_even_when_the_check_reads_a_local():
    idx = load_index()
    w = {"condition": "invalid_token_ids", "function": "SamplingParams._validate_allowed_token_ids"}
    lines = knobs.lines(idx, Site("allowed_token_ids contains out-of-vocab token id!"), w, {}, "0.32.0", "en")
    assert len(lines) == 1 and "SamplingParams(allowed_token_ids=…)" in lines[0]
    assert "invalid_token_ids" not in lines[0]


def test_a_parser_name_is_checked_against_that_releases_registry():
    idx = load_index()
    w = {"condition": "", "function": "ToolParserManager.get_tool_parser",
         "file": "vllm/entrypoints/openai/tool_parsers/abstract_tool_parser.py"}
    site = Site("tool helper: '{name}' not found in tool_parsers")
    [line] = knobs.lines(idx, site, w, {"name": "qwen3"}, "0.10.2", "en")
    assert line.startswith("- `--tool-call-parser`") and "is not registered in vLLM 0.10.2" in line
    assert "Closest to `qwen3`: `qwen3_coder`" in line
    # a release before qwen3_coder was registered does not offer it
    [old] = knobs.lines(idx, site, w, {"name": "qwen3"}, "0.8.5.post1", "en")
    assert "qwen3_coder" not in old
    [known] = knobs.lines(idx, site, w, {"name": "hermes"}, "0.10.2", "en")
    assert "`hermes` is registered" in known and "Closest" not in known


def test_a_size_the_check_divides_by_gets_the_sizes_that_divide():
    idx = load_index()
    w = {"condition": "total_num_attention_heads % tensor_parallel_size != 0", "function": "ModelConfig.verify_with_parallel_config"}
    site = Site("Total number of attention heads ({total_num_attention_heads}) must be divisible by tensor parallel size ({tensor_parallel_size}).")
    lines = knobs.lines(idx, site, w, {"total_num_attention_heads": "28", "tensor_parallel_size": "8"}, "0.32.0", "en")
    assert any("`--tensor-parallel-size`" in l and "`1`, `2`, `4`, `7`, `14`, `28`" in l for l in lines)
    assert knobs.lines(idx, site, w, {"tensor_parallel_size": "8"}, "0.32.0", "en") == []


def test_a_variable_of_the_stack_is_named_as_the_stacks():
    [line] = knobs.stack_env_lines(Site("CUDA_VISIBLE_DEVICES is set to empty string, which means GPU support is disabled."), None, EN)
    assert line.startswith("- `CUDA_VISIBLE_DEVICES` (environment variable of CUDA, not one of vLLM's)")
    assert knobs.stack_env_lines(Site("VLLM_USE_V1 is not supported"), None, EN) == []


def test_an_allocator_option_the_check_looks_for_is_pytorchs_variable():
    cond = "assert 'expandable_segments:True' not in conf"
    [line] = knobs.stack_env_lines(Site("Expandable segments are not compatible with memory pool."), cond, EN)
    assert line.startswith("- `PYTORCH_CUDA_ALLOC_CONF` (environment variable of PyTorch") and "`expandable_segments`" in line


def test_the_users_own_form_comes_first():
    from bot.diagnose.knowledge.vllm.answers import in_form
    line = "- `--tensor-parallel-size` / `LLM(tensor_parallel_size=…)`: the check needs it to divide."
    assert in_form(line, "llm").startswith("- `LLM(tensor_parallel_size=…)` / `--tensor-parallel-size`")
    assert in_form(line, "serve") == line and in_form(line, None) == line


def test_a_lora_requests_field_is_set_on_the_request_object_not_sent():
    idx = load_index()
    w = {"condition": "self.lora_int_id < 1", "function": "LoRARequest.__post_init__"}
    [line] = knobs.lines(idx, Site("id must be > 0, got {lora_int_id}"), w, {}, "0.34.0", "en")
    assert "`LoRARequest(lora_int_id=…)`" in line and "lora_int_id >= 1" in line
    # UnloadLoRAAdapterRequest has the field, but a generation request does not
    assert "OpenAI-compatible request" not in line


def test_a_check_of_an_openai_request_names_the_fields_it_reads_as_sent():
    # ChatCompletionRequest.check_tool_usage reads `data['tools']`; the message names `tool_choice`:
    # both are fields of the request's JSON body (not "a field of ChatCompletionRequest; no command-line flag")
    idx = load_index()
    w = {"condition": "'tools' not in data or data['tools'] is None", "function": "ChatCompletionRequest.check_tool_usage"}
    lines = knobs.lines(idx, Site("When using `tool_choice`, `tools` must be set."), w, {}, "0.32.0", "en")
    assert lines[0].startswith("- `tools`: a field of the OpenAI-compatible request `ChatCompletionRequest`")
    assert '`"tool_choice"` in its JSON body (one of `none`, `auto`, `required`' in lines[1]
    # a single comparison is solved for the field it reads
    w = {"condition": "top_logprobs < 0", "function": "ChatCompletionRequest.check_logprobs"}
    [line] = knobs.lines(idx, Site("`top_logprobs` must be a positive value."), w, {}, "0.13.0", "en")
    assert "`top_logprobs`" in line and "top_logprobs >= 0" in line
    assert knobs.body_fields(idx, "x > 1", "ModelConfig.verify", "", "0.32.0") == []


def test_a_field_the_message_spells_out_in_words_is_that_field():
    # CPULogitBiasState.add_request: "Too many allowed token IDs: {n}. The max size is {max}" reads a local
    # count; the words are the request's `allowed_token_ids`
    idx = load_index()
    w = {"condition": "num_allowed_token_ids > MAX_NUM_ALLOWED_TOKEN_IDS", "function": "CPULogitBiasState.add_request"}
    [line] = knobs.lines(idx, Site("Too many allowed token IDs: {num_allowed_token_ids}. The max size is {MAX}"),
                         w, {}, "0.34.0", "en")
    assert "SamplingParams(allowed_token_ids=…)" in line
    assert knobs.spelled_out("the top p value", {"top_p"}) == ["top_p"]
    assert knobs.spelled_out("allowed tokens", {"allowed_token_ids"}) == []
    # the words inside another field's own name are not that field
    assert knobs.spelled_out("ids in prompt_logprob_token_ids, max", {"logprob_token_ids"}) == []


# --- the honesty audit of December 7 (seed 2027 sample): false statements, by class ---------------------

def _answer(version, exc_line, path, func):
    from bot.diagnose import diagnose
    text = (f"INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version {version}\n"
            "Traceback (most recent call last):\n"
            '  File "/app/serve.py", line 3, in <module>\n    main()\n'
            f'  File "/usr/lib/python3.12/site-packages/vllm/{path}", line 10, in {func}\n    x()\n'
            f"{exc_line}\n")
    return diagnose(text).best


def test_an_enum_member_or_a_backend_name_is_no_environment_variable():
    # 0.18.1 mm_encoder_attention.py: `self.attn_backend not in (AttentionBackendEnum.TRITON_ATTN, ...,
    # AttentionBackendEnum.TORCH_SDPA)` was told "`TRITON_ATTN` (environment variable of Triton)"
    idx = load_index()
    cond = ("not self.is_flash_attn_backend and self.attn_backend not in (AttentionBackendEnum.TRITON_ATTN, "
            "AttentionBackendEnum.FLASHINFER, AttentionBackendEnum.TORCH_SDPA)")
    site = Site("Unsupported multi-modal encoder attention backend for CUDA: ")
    assert knobs.stack_env_lines(site, cond, EN) == []
    # a backend's name said bare in a message is the release's backend, not a variable
    names = idx.knob_names("attention_backend", "0.18.1")
    assert knobs.stack_env_lines(Site("TORCH_SDPA does not support this"), None, EN, names) == []
    # a real variable still is one
    [line] = knobs.stack_env_lines(Site("TORCH_CUDA_ARCH_LIST is not set"), None, EN, names)
    assert "`TORCH_CUDA_ARCH_LIST` (environment variable of PyTorch" in line


def test_a_multimodal_encoders_attention_backend_is_its_own_flag():
    # 0.18.1: MMEncoderAttention's backend comes from get_vit_attn_backend, which reads
    # multimodal_config.mm_encoder_attn_backend (--mm-encoder-attn-backend), not --attention-backend
    d = _answer("0.18.1", "ValueError: Unsupported multi-modal encoder attention backend for CUDA: FLASHINFER.",
                "model_executor/layers/attention/mm_encoder_attention.py", "forward_cuda")
    assert d.rule_id == "vllm-check-failed"
    assert "`--mm-encoder-attn-backend`" in d.cause and "`--attention-backend`" not in d.cause
    assert "environment variable of" not in d.cause
    # the decoder's own backend check keeps --attention-backend
    idx = load_index()
    w = {"condition": "", "function": "FlashAttentionImpl.__init__", "file": "vllm/v1/attention/backends/flash_attn.py"}
    lines = knobs.registry_lines(idx, Site("Unsupported attention backend {backend}"), w, {"backend": "FOO"}, "0.18.1", EN)
    assert lines and lines[0].startswith("- `--attention-backend`")


def test_a_name_the_message_speaks_of_is_the_raising_config_classes_field_first():
    # 0.21.0 config/pooler.py PoolerConfig.__post_init__: "Cannot set both `logit_bias` and `logit_mean`."
    # `logit_bias` there is PoolerConfig's deprecated field (--pooler-config), not SamplingParams'
    d = _answer("0.21.0", "ValueError: Cannot set both `logit_bias` and `logit_mean`. `logit_bias` is deprecated, "
                "use `logit_mean` instead.", "config/pooler.py", "__post_init__")
    assert d.rule_id == "vllm-check-failed"
    assert "a field of `SamplingParams`" not in d.cause
    assert "--pooler-config '{\"logit_bias\": …}'" in d.cause


def test_a_validator_of_a_requests_body_names_the_key_the_client_sent():
    # 0.27.1 entrypoints/pooling/base/protocol.py reject_removed_pooling_parameters: `'normalize' in data`
    # of a request's JSON; it was told to set --pooler-config '{"use_activation": …}', a server setting
    assert knobs.body_keys("'normalize' in data", "reject_removed_pooling_parameters",
                           "vllm/entrypoints/pooling/base/protocol.py") == ["normalize"]
    assert knobs.body_keys("'normalize' in values", "PoolerConfig.reject_removed_parameters",
                           "vllm/config/pooler.py") == []
    d = _answer("0.27.1", "vllm.exceptions.VLLMValidationError: Parameter `normalize` was removed; use "
                "`use_activation` instead.", "entrypoints/pooling/base/protocol.py", "reject_removed_pooling_parameters")
    assert d.rule_id == "vllm-check-failed"
    assert "- `normalize`: a key of the request's JSON body" in d.cause
    assert "--pooler-config" not in d.cause


def test_an_llm_methods_own_helper_names_that_method_only():
    # 0.13.0 entrypoints/llm.py LLM._get_beam_search_lora_requests: "Invalid lora_request type ..." was
    # said to be what the user passed to llm.beam_search, llm.chat or llm.classify; only beam_search calls it
    idx = load_index()
    [line] = knobs.call_lines(idx, "Invalid lora_request type ", "0.13.0", EN, "LLM._get_beam_search_lora_requests")
    assert "`llm.beam_search(lora_request=…)`" in line and "llm.chat" not in line
    [line] = knobs.call_lines(idx, "Invalid lora_request type ", "0.13.0", EN, "LLM._validate_and_add_requests")
    assert "llm.chat" in line


def test_a_request_fields_literals_are_not_all_it_takes_when_its_type_has_a_class():
    # 0.6.6.post1 entrypoints/openai/protocol.py ChatCompletionRequest.tool_choice:
    # Optional[Union[Literal["none"], Literal["auto"], ChatCompletionNamedToolChoiceParam]]; the check
    # `data.get('tool_choice', 'none') not in ('none', 'auto')` reads exactly the named choice that
    # "one of `none`, `auto`" left out
    assert knobs._open_members("Optional[Union[Literal['none'], Literal['auto'], ChatCompletionNamedToolChoiceParam]]") \
        == ["ChatCompletionNamedToolChoiceParam"]
    assert knobs._open_members("Literal['text', 'tokens'] | None") == []
    idx = load_index()
    [line] = knobs.body_lines(idx, "guide_count > 1 and data.get('tool_choice', 'none') not in ('none', 'auto')",
                              "ChatCompletionRequest.check_guided_decoding_count", "", "0.6.6.post1", EN)
    assert "one of `none`, `auto`, or a `ChatCompletionNamedToolChoiceParam`" in line
