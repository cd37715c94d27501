"""One LLM() start + a few tokens, timed. usage: llm_run.py MODEL [key=value ...] [--sample]"""
import ast
import sys
import time

if __name__ == "__main__":
    t0 = time.time()
    from vllm import LLM, SamplingParams
    kw = {"model": sys.argv[1]}
    sample = "--sample" in sys.argv
    for a in sys.argv[2:]:
        if a.startswith("--"):
            continue
        k, v = a.split("=", 1)
        try:
            kw[k] = ast.literal_eval(v)
        except (ValueError, SyntaxError):
            kw[k] = v
    llm = LLM(**kw)
    t1 = time.time()
    params = SamplingParams(max_tokens=5, temperature=0.8, top_p=0.9, top_k=50) if sample else \
        SamplingParams(max_tokens=5, temperature=0)
    out = llm.generate(["a b c d"], params)
    print("GENERATED", repr(out[0].outputs[0].text))
    print(f"TIMING start={t1 - t0:.1f}s total={time.time() - t0:.1f}s settings={kw}")
