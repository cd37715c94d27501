import sys

import torch
from vllm import LLM, SamplingParams

# The user's script that touches the GPU before it builds the engine (a warm-up tensor, a device check)
if __name__ == "__main__":
    torch.zeros(1, device="cuda")
    llm = LLM(model=sys.argv[1], dtype="float32", gpu_memory_utilization=0.2, max_model_len=512)
    out = llm.generate(["a b c d"], SamplingParams(max_tokens=5, temperature=0))
    print("GENERATED", repr(out[0].outputs[0].text))
