import sys

from vllm import LLM, SamplingParams

if __name__ == "__main__":
    model = sys.argv[1] if len(sys.argv) > 1 else "/models/tiny"
    llm = LLM(model=model, dtype="float32", gpu_memory_utilization=0.2, max_model_len=512)
    out = llm.generate(["a b c d"], SamplingParams(max_tokens=5, temperature=0))
    print("GENERATED", repr(out[0].outputs[0].text))
