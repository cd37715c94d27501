import sys

from vllm import LLM, SamplingParams

# The user script with a prompt of one's own: for failures that depend on what is asked (token ids past the
# model's vocabulary, positions past what it was trained on). argv: model, prompt, [dtype], ["eager"]
if __name__ == "__main__":
    model, prompt = sys.argv[1], sys.argv[2]
    dtype = sys.argv[3] if len(sys.argv) > 3 else "float32"
    eager = len(sys.argv) > 4 and sys.argv[4] == "eager"
    llm = LLM(model=model, dtype=dtype, gpu_memory_utilization=0.2, max_model_len=512, enforce_eager=eager)
    out = llm.generate([prompt], SamplingParams(max_tokens=5, temperature=0))
    print("GENERATED", repr(out[0].outputs[0].text))
