"""The knob scanner reads registrations and fields the ways vLLM's releases wrote them."""

from bot.diagnose.knowledge.vllm.build import scan_knobs

DECORATED = '''
@ToolParserManager.register_module(["hermes", "hermes2"])
class Hermes2ProToolParser(ToolParser):
    pass

@ToolParserManager.register_module(name="mistral")
class MistralToolParser(ToolParser):
    pass
'''
TABLE = '''
_REASONING_PARSERS_TO_REGISTER = {
    "deepseek_r1": ("deepseek_r1_reasoning_parser", "DeepSeekR1ReasoningParser"),
    "qwen3": ("qwen3_reasoning_parser", "Qwen3ReasoningParser"),
}
ReasoningParserManager.register_lazy_module("granite", "vllm.reasoning.granite", "GraniteReasoningParser")
'''
PARAMS = '''
class SamplingParams(msgspec.Struct):
    n: int = 1
    top_p: float = 1.0
    _real_n: int | None = None
    kind: ClassVar[str] = "x"

class PoolingParams:
    def __init__(self, dimensions=None, *, normalize=None):
        pass

class ChatCompletionRequest(OpenAIBaseModel):
    messages: list
    chat_template: str | None = None

class _Backend(enum.Enum):
    FLASH_ATTN = enum.auto()
    TORCH_SDPA = enum.auto()
'''
LLM = '''
class LLM:
    def __init__(self, model, *, tensor_parallel_size=1, **kwargs):
        pass
    def chat(self, messages, sampling_params=None, chat_template=None):
        pass
    def _private(self, x):
        pass
'''


def test_parsers_registered_by_decorator_table_and_lazy_call():
    found = scan_knobs.scan({"vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py": DECORATED,
                             "vllm/reasoning/__init__.py": TABLE})
    assert found["tool_parser"] == ["hermes", "hermes2", "mistral"]
    assert found["reasoning_parser"] == ["deepseek_r1", "granite", "qwen3"]


def test_fields_of_parameter_and_request_classes_and_backend_members():
    found = scan_knobs.scan({"vllm/entrypoints/openai/protocol.py": PARAMS})
    assert found["sampling"] == ["PoolingParams.dimensions", "PoolingParams.normalize",
                                 "SamplingParams.n", "SamplingParams.top_p"]
    assert found["request"] == ["ChatCompletionRequest.chat_template", "ChatCompletionRequest.messages"]
    assert found["attention_backend"] == ["FLASH_ATTN", "TORCH_SDPA"]


def test_the_llm_methods_arguments():
    found = scan_knobs.scan({"vllm/entrypoints/llm.py": LLM})
    assert "LLM.__init__.tensor_parallel_size" in found["llm"] and "LLM.chat.chat_template" in found["llm"]
    assert not any("_private" in n for n in found["llm"])


def test_which_modules_are_read_and_broken_source_is_skipped():
    assert scan_knobs.wanted("vllm/tool_parsers/__init__.py") and scan_knobs.wanted("vllm/entrypoints/llm.py")
    assert not scan_knobs.wanted("vllm/config/model.py")
    assert scan_knobs.scan({"vllm/reasoning/x.py": "def ("}) == {}
