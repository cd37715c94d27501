import sys

from vllm import LLM, SamplingParams

# A healthy offline run under one feature users turn on, for negatives (logs that must get no answer).
# Usage: healthy_features.py MODEL FEATURE [DIR]; FEATURE is one of the keys of RUNS below.
BASE = {"dtype": "float32", "gpu_memory_utilization": 0.1, "max_model_len": 512}
LONG = " ".join("abcdefghijklmnopqrstuvwxyz"[i % 26] for i in range(400))


def n2_logprobs(llm):
    out = llm.generate(["a b c d"], SamplingParams(n=2, max_tokens=5, logprobs=3, prompt_logprobs=2, seed=0))
    print("GENERATED", [o.text for o in out[0].outputs], len(out[0].outputs[0].logprobs))


def beam(llm):
    from vllm.sampling_params import BeamSearchParams
    out = llm.beam_search([{"prompt": "a b c d"}], BeamSearchParams(beam_width=3, max_tokens=5))
    print("GENERATED", [s.text for s in out[0].sequences])


def embed(llm):
    out = llm.embed(["a b c d", "e f g"])
    print("EMBEDDED", len(out), len(out[0].outputs.embedding))


def make_adapter(model, out_dir, rank=8):
    # a LoRA adapter as peft saves one (adapter_config.json, adapter_model.safetensors), without peft
    import json
    import os

    import torch
    from safetensors.torch import save_file
    cfg = json.load(open(os.path.join(model, "config.json")))
    hidden, layers = cfg["hidden_size"], cfg["num_hidden_layers"]
    os.makedirs(out_dir, exist_ok=True)
    weights = {}
    for i in range(layers):
        for proj in ("q_proj", "v_proj"):
            key = f"base_model.model.model.layers.{i}.self_attn.{proj}"
            weights[f"{key}.lora_A.weight"] = torch.randn(rank, hidden) * 0.01
            weights[f"{key}.lora_B.weight"] = torch.randn(hidden, rank) * 0.01
    save_file(weights, os.path.join(out_dir, "adapter_model.safetensors"))
    json.dump({"peft_type": "LORA", "task_type": "CAUSAL_LM", "r": rank, "lora_alpha": 16, "lora_dropout": 0.0,
               "target_modules": ["q_proj", "v_proj"], "bias": "none", "base_model_name_or_path": model},
              open(os.path.join(out_dir, "adapter_config.json"), "w"))
    return out_dir


def lora_adapter(llm):
    from vllm.lora.request import LoRARequest
    adapter = make_adapter(llm.llm_engine.model_config.model, sys.argv[3])
    params = SamplingParams(max_tokens=5, temperature=0)
    out = llm.generate(["a b c d", "e f g"], params, lora_request=LoRARequest("tiny-adapter", 1, adapter))
    base = llm.generate(["a b c d"], params)
    print("GENERATED", [o.outputs[0].text for o in out], repr(base[0].outputs[0].text))


def prefix(llm):
    shared = " ".join(["a b c d e f g h"] * 20)
    for _ in range(3):
        out = llm.generate([shared + " x", shared + " y", shared + " z"], SamplingParams(max_tokens=5, temperature=0))
    print("GENERATED", [o.outputs[0].text for o in out])


def chunked(llm):
    out = llm.generate([LONG], SamplingParams(max_tokens=5, temperature=0))
    print("GENERATED", repr(out[0].outputs[0].text))


def long_generation(llm):
    # long enough to be stopped with Ctrl-C in the middle
    print("GENERATING", flush=True)
    out = llm.generate(["a b c"] * 256, SamplingParams(max_tokens=500, min_tokens=500, ignore_eos=True))
    print("GENERATED", len(out))


RUNS = {
    "n2_logprobs": ({}, n2_logprobs),
    "beam": ({}, beam),
    "embed": ({"runner": "pooling"}, embed),
    "lora_adapter": ({"enable_lora": True, "max_lora_rank": 8}, lora_adapter),  # argv[3]: where to write the adapter
    "prefix": ({"enable_prefix_caching": True}, prefix),
    "chunked": ({"enable_chunked_prefill": True, "max_num_batched_tokens": 128}, chunked),
    "long": ({}, long_generation),
}

if __name__ == "__main__":
    model, feature = sys.argv[1], sys.argv[2]
    extra, run = RUNS[feature]
    run(LLM(model=model, **{**BASE, **extra}))
