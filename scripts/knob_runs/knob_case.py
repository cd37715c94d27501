"""One user setting that vLLM's own checks refuse, in a fresh process each (issue 22's real runs).

    python knob_case.py MODEL_DIR CASE

The call is a user's plain `LLM(...)` script with one knob turned; the traceback it ends with is the
log a user pastes.
"""
import os
import sys

from vllm import LLM, SamplingParams

BASE = dict(gpu_memory_utilization=0.2, max_model_len=512, enforce_eager=True)

if __name__ == "__main__":
    model, case = sys.argv[1], sys.argv[2]
    if case == "temperature":
        SamplingParams(temperature=-0.5)
    elif case == "top-p":
        SamplingParams(top_p=1.5)
    elif case == "tp-two-on-one":
        LLM(model=model, tensor_parallel_size=2, **BASE)
    elif case == "pp-two-on-one":
        LLM(model=model, pipeline_parallel_size=2, **BASE)
    elif case == "tp-three":
        LLM(model=model, tensor_parallel_size=3, **BASE)
    elif case == "allowed-token-ids":
        llm = LLM(model=model, **BASE)
        llm.generate(["hello"], SamplingParams(max_tokens=5, allowed_token_ids=[3, 5000]))
    elif case == "sleep-expandable":
        # PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True is set by the caller
        llm = LLM(model=model, enable_sleep_mode=True, **BASE)
        print(llm.generate(["hello"], SamplingParams(max_tokens=5))[0].outputs[0].text)
    elif case == "healthy-compile":
        # VLLM_RINGBUFFER_WARNING_INTERVAL is set short by the caller: the compile warm-up prints
        # the shared-memory broadcast warning, and the run then finishes
        llm = LLM(model=model, gpu_memory_utilization=0.2, max_model_len=512)
        for out in llm.generate(["hello world"] * 4, SamplingParams(max_tokens=16, temperature=0)):
            print(out.outputs[0].text)
    else:
        sys.exit(f"unknown case {case}")
    print("no error", os.getpid())
