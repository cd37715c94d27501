"""Checkpoints that load but fail at the first forward, from the tiny model of scripts/make_tiny_model.py.

    python make_variant_models.py TINY_DIR OUT_ROOT

- `vocab-big`: the tiny Llama (1000 embeddings) with a tokenizer of 2000 tokens, as when a tokenizer with
  added tokens is shipped beside a checkpoint whose embeddings were never resized: prompts with the new
  tokens index past the embedding table.
- `gpt2-64`: a tiny GPT-2 with 64 learned positions (absolute position embeddings), for a max_model_len
  forced above it with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.
"""
import os
import shutil
import sys


def main(tiny: str, root: str) -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import make_tiny_model as tiny_model

    big = os.path.join(root, "vocab-big")
    shutil.copytree(tiny, big, dirs_exist_ok=True)
    for name in os.listdir(big):
        if name.startswith(("tokenizer", "special_tokens")):
            os.remove(os.path.join(big, name))
    tiny_model.VOCAB_SIZE = 2000
    tiny_model.make_tokenizer(big)

    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    gpt2 = os.path.join(root, "gpt2-64")
    GPT2LMHeadModel(GPT2Config(n_embd=256, n_head=4, n_layer=2, n_positions=64, vocab_size=1000,
                               bos_token_id=1, eos_token_id=2)).save_pretrained(gpt2)
    tiny_model.VOCAB_SIZE = 1000
    tiny_model.make_tokenizer(gpt2)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
