import sys

from vllm import LLM, SamplingParams

# The user script with the multiprocess executor forced at one GPU: the engine and its worker then talk
# through vLLM's shared-memory message queue in /dev/shm, as they do at tensor_parallel_size > 1.
if __name__ == "__main__":
    llm = LLM(model=sys.argv[1] if len(sys.argv) > 1 else "/models/tiny", dtype="float32",
              gpu_memory_utilization=0.2, max_model_len=512, distributed_executor_backend="mp")
    out = llm.generate(["a b c d"], SamplingParams(max_tokens=5, temperature=0))
    print("GENERATED", repr(out[0].outputs[0].text))
