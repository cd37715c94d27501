"""The command line: `vllm-doctor` dispatches to the command's own module (main.py), and renders
reports for a terminal (terminal.py)."""

from .main import main

__all__ = ["main"]
