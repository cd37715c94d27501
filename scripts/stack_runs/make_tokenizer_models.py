"""Tiny checkpoints of several model types, each with its family's own tokenizer class, offline.

    PYTHONPATH=/tmp/tf-4.57.6 HF_HUB_OFFLINE=1 PYTHON make_tokenizer_models.py OUT_ROOT [types...]

Types: llama (PreTrainedTokenizerFast, as scripts/make_tiny_model.py), qwen2 (Qwen2TokenizerFast, a byte-level
BPE), mistral (LlamaTokenizerFast), gemma (GemmaTokenizerFast), llama3-rope (llama with Llama 3's
`rope_scaling`). The tokenizers are built from a WordLevel/BPE `tokenizers` model and saved by whatever
transformers runs the script (4.57 writes what most Hub checkpoints carry; 5.x writes its own
`tokenizer_config.json`). Weights are random float32, two layers, head size 64.
"""
from __future__ import annotations

import os
import sys

VOCAB = 1000


def _words() -> list[str]:
    return [chr(ord("a") + i) for i in range(26)] + [f"w{i}" for i in range(VOCAB - 40)]


def _wordlevel(specials: list[str], unk: str):
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {t: i for i, t in enumerate(specials + _words())}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token=unk))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    return core, len(vocab)


def _bytelevel_bpe(specials: list[str]):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    from transformers.convert_slow_tokenizer import bytes_to_unicode

    alphabet = sorted(set(bytes_to_unicode().values()))
    vocab = {c: i for i, c in enumerate(alphabet)}
    merges = []
    for a, b in [("w", "0"), ("w", "1"), ("h", "e"), ("l", "l"), ("he", "ll")]:
        merges.append((a, b))
        vocab.setdefault(a + b, len(vocab))
    core = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    core.add_special_tokens(specials)
    return core, len(vocab) + len(specials)


def make(kind: str, out: str) -> None:
    import torch
    import transformers as tf

    torch.manual_seed(0)
    os.makedirs(out, exist_ok=True)
    common = dict(hidden_size=256, intermediate_size=512, num_attention_heads=4, num_key_value_heads=4,
                  num_hidden_layers=2, max_position_embeddings=2048)
    if kind in ("llama", "llama3-rope"):
        core, n = _wordlevel(["<unk>", "<s>", "</s>", "<pad>"], "<unk>")
        tok = tf.PreTrainedTokenizerFast(tokenizer_object=core, unk_token="<unk>", bos_token="<s>",
                                         eos_token="</s>", pad_token="<pad>")
        extra = {}
        if kind == "llama3-rope":
            extra["rope_scaling"] = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                     "high_freq_factor": 4.0, "original_max_position_embeddings": 1024}
            extra["rope_theta"] = 500000.0
        cfg = tf.LlamaConfig(vocab_size=n, bos_token_id=1, eos_token_id=2, pad_token_id=3, **common, **extra)
        model = tf.LlamaForCausalLM(cfg)
    elif kind == "qwen2":
        core, n = _bytelevel_bpe(["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
        tok = tf.Qwen2TokenizerFast(tokenizer_object=core, unk_token=None, bos_token=None,
                                    eos_token="<|im_end|>", pad_token="<|endoftext|>")
        cfg = tf.Qwen2Config(vocab_size=n, eos_token_id=n - 1, **common)
        model = tf.Qwen2ForCausalLM(cfg)
    elif kind == "mistral":
        core, n = _wordlevel(["<unk>", "<s>", "</s>", "[INST]", "[/INST]"], "<unk>")
        tok = tf.LlamaTokenizerFast(tokenizer_object=core, unk_token="<unk>", bos_token="<s>", eos_token="</s>")
        cfg = tf.MistralConfig(vocab_size=n, bos_token_id=1, eos_token_id=2, **common)
        model = tf.MistralForCausalLM(cfg)
    elif kind == "gemma":
        core, n = _wordlevel(["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"], "<unk>")
        tok = tf.GemmaTokenizerFast(tokenizer_object=core, unk_token="<unk>", bos_token="<bos>",
                                    eos_token="<eos>", pad_token="<pad>")
        cfg = tf.GemmaConfig(vocab_size=n, bos_token_id=2, eos_token_id=1, pad_token_id=0, head_dim=64, **common)
        model = tf.GemmaForCausalLM(cfg)
    else:
        raise SystemExit(f"unknown type {kind}")
    tok.chat_template = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
                         "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
    tok.save_pretrained(out)
    model.save_pretrained(out)
    print(kind, out, type(tok).__name__, tf.__version__)


def main() -> int:
    root = sys.argv[1]
    kinds = sys.argv[2:] or ["llama", "qwen2", "mistral", "gemma", "llama3-rope"]
    for kind in kinds:
        make(kind, os.path.join(root, kind))
    return 0


if __name__ == "__main__":
    sys.exit(main())
