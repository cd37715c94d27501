"""Knowledge of the stack beneath vLLM: error codes, pins per release, ABI tables, OS tables and
the raise sites of torch, transformers, huggingface_hub, tokenizers and triton. index.py looks
them up; build/ makes data/stack.pack from the packages themselves."""
