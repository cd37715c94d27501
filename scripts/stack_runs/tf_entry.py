"""The code paths a user reaches vLLM's transformers through, one per mode (tf_runs.sh runs them).

    python tf_entry.py llm|llm_ids|tok|cfg|chat MODEL_DIR

llm: `LLM(model=...)` under `if __name__ == "__main__":`; llm_ids: the same with `skip_tokenizer_init=True` and token ids
as the prompt (as a trainer that tokenizes itself calls it: the engine reaches the model's code); tok: vLLM's own `get_tokenizer()` then an encode;
cfg: `EngineArgs(model=...).create_engine_config()`; chat: `get_tokenizer()` then `apply_chat_template`.
"""
import sys


def main(mode: str, model: str) -> None:
    if mode == "llm":
        from vllm import LLM, SamplingParams

        llm = LLM(model=model, dtype="float32", max_model_len=512)
        print(llm.generate(["hello world"], SamplingParams(max_tokens=8))[0].outputs[0].text)
    elif mode == "llm_ids":
        from vllm import LLM, SamplingParams

        llm = LLM(model=model, dtype="float32", max_model_len=512, skip_tokenizer_init=True)
        print(llm.generate([{"prompt_token_ids": [5, 6, 7]}], SamplingParams(max_tokens=8, detokenize=False)))
    elif mode in ("tok", "chat"):
        from vllm.transformers_utils.tokenizer import get_tokenizer

        tokenizer = get_tokenizer(model)
        print(type(tokenizer).__name__, tokenizer.encode("hello world"))
        if mode == "chat":
            print(tokenizer.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False,
                                                add_generation_prompt=True))
    elif mode == "cfg":
        from vllm.engine.arg_utils import EngineArgs

        config = EngineArgs(model=model, dtype="float32", max_model_len=512).create_engine_config()
        print(config.model_config.hf_config.model_type, config.model_config.max_model_len)
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
