import sys

from vllm import LLM, SamplingParams

# The same user script with vLLM's defaults (dtype, gpu_memory_utilization 0.9, max_model_len from the
# model): the broken environments must read the same when the engine reserves most of the GPU.
if __name__ == "__main__":
    llm = LLM(model=sys.argv[1] if len(sys.argv) > 1 else "/models/tiny")
    out = llm.generate(["a b c d"], SamplingParams(max_tokens=5))
    print("GENERATED", repr(out[0].outputs[0].text))
