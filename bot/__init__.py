"""vllm-doctor: finds the real error in a failing vLLM log and explains it."""

__version__ = "0.1.0"
