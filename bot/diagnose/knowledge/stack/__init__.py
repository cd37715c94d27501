"""Knowledge of the stack beneath vLLM: error codes, pins per release, ABI tables, OS tables and
the raise sites of torch, transformers, tokenizers, huggingface_hub and triton. stack_index.py
looks them up (site_match.py matches a package's messages); build/ makes data/ from the packages
themselves."""
