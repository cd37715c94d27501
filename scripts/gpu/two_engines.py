"""The seed's entry 4: two LLM() engines in one process, each asking for more than half the GPU."""
import sys

if __name__ == "__main__":
    from vllm import LLM, SamplingParams
    a = LLM(model=sys.argv[1], enforce_eager=True, gpu_memory_utilization=0.6)
    b = LLM(model=sys.argv[1], enforce_eager=True, gpu_memory_utilization=0.6)
    print(b.generate(["a b c"], SamplingParams(max_tokens=5))[0].outputs[0].text)
