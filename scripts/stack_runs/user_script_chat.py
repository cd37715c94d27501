import json
import sys

from vllm import LLM, SamplingParams

# The user's chat script: argv model, then the messages as JSON (LLM.chat renders them with the model's template)
if __name__ == "__main__":
    model, messages = sys.argv[1], json.loads(sys.argv[2])
    llm = LLM(model=model, dtype="float32", gpu_memory_utilization=0.2, max_model_len=512)
    out = llm.chat(messages, SamplingParams(max_tokens=5, temperature=0))
    print("GENERATED", repr(out[0].outputs[0].text))
