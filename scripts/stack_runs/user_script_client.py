"""user_script.py's LLM run on a local model, then a request to another OpenAI-compatible server (a judge, a second
vLLM) with the openai client, which sends it over httpx: `user_script_client.py MODEL BASE_URL`. Where BASE_URL does
not answer, the client's traceback holds httpx's connection error beside vLLM's log: not the Hub's (a negative)."""
import sys

from vllm import LLM, SamplingParams

if __name__ == "__main__":
    llm = LLM(model=sys.argv[1], dtype="float32", gpu_memory_utilization=0.2, max_model_len=512)
    out = llm.generate(["a b c d"], SamplingParams(max_tokens=5, temperature=0))
    print("GENERATED", repr(out[0].outputs[0].text))
    import openai
    judge = openai.OpenAI(base_url=sys.argv[2], api_key="EMPTY", max_retries=0, timeout=3)
    print(judge.chat.completions.create(model="judge", messages=[{"role": "user", "content": out[0].outputs[0].text}]))
