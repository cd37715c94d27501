import json
import sys

from vllm import LLM, SamplingParams

# The user script with settings of one's own on top of the base ones: argv model, a JSON object of LLM() arguments
if __name__ == "__main__":
    model, extra = sys.argv[1], json.loads(sys.argv[2])
    llm = LLM(model=model, **{"dtype": "float32", "gpu_memory_utilization": 0.2, "max_model_len": 512, **extra})
    out = llm.generate(["a b c d"], SamplingParams(max_tokens=5, temperature=0))
    print("GENERATED", repr(out[0].outputs[0].text))
