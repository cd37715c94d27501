"""The build of the stack index (only `python -m bot.diagnose.knowledge.stack.build` and
`vllm-doctor index build-stack` import it): command.py runs it, one module per table beside it."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    from .command import main as run
    return run(argv)
