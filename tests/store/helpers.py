"""Real reports for the store and learn tests.

Reports come from the real `bot.diagnose.diagnose` on real fixture logs. The rule book is a small
copy of real rules from rules/, so these tests do not change meaning whenever the rule book
grows: with it, kv-cache-no-memory pastes are *unanswered* (its rule is left out) and
lora-rank-too-large is a *shadow* rule.
"""

from __future__ import annotations

from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "logs"

# rule id -> fields changed in the copy
BOOK_RULES = {
    "cuda-oom": {},
    "bf16-unsupported-gpu": {"versions": ">=0.6"},        # so the vLLM 0.5.4 paste is "outside"
    "config-json-missing": {},
    "engine-core-init-failed": {},
    "lora-rank-too-large": {"status": "shadow"},
}


def make_book(directory: Path, extra: dict[str, dict] | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for rule_id, changes in {**BOOK_RULES, **(extra or {})}.items():
        data = yaml.safe_load((REPO / "rules" / f"{rule_id}.yaml").read_text(encoding="utf-8"))
        data.update(changes)
        (directory / f"{rule_id}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return directory


def load_book(directory: Path):
    from bot.diagnose.knowledge.rulebook import load_rulebook

    book = load_rulebook(directory, use_cache=False)
    assert not book.errors, book.errors
    return book


# The real pastes these tests store, named, so their counts do not move when the rule book gains
# fixtures (each still must give its rule: tests/rules checks every fixture).
SAMPLE = {
    "cuda-oom": ["v0.6-ray-worker-sampler-sort.log", "v0.6-vllmworkerprocess-aria.log", "v0.8-v1-engine-core.log"],
    "bf16-unsupported-gpu": ["rtx2080ti-vllm.log", "t4-xinference.log", "v100-transformerlab-vllm054.log"],
    "lora-rank-too-large": ["v0.11-worker-failed-wrapper.log", "v0.1x-add-lora-utility-call.log", "v0.3-valueerror.log"],
    "kv-cache-no-memory": ["seed-0.30-two-llm-code-only.log", "seed-0.30-util-0.01.log",
                           "v0.2x-enginecore-docs-link.log", "v0.7-rl-swarm-nccl-warning.log",
                           "v0.7-v1-two-containers.log"],
    "config-json-missing": ["vllm-omni-cache-snapshot.log", "vllm011-could-not-detect.log",
                            "vllm07-no-supported-format.log"],
}


def fixture_logs(rule_id: str) -> list[Path]:
    logs = [FIXTURES / rule_id / name for name in SAMPLE[rule_id]] if rule_id in SAMPLE \
        else sorted((FIXTURES / rule_id).glob("*.log"))
    assert logs and all(p.exists() for p in logs), f"missing fixtures for {rule_id}"
    return logs


def read(path: Path) -> str:
    """The paste as its author sent it: the fixture without its #= header lines."""
    lines = path.read_text(encoding="utf-8").split("\n")
    return "\n".join(line for line in lines if not line.startswith("#="))


def diagnose(text: str, book):
    from bot.diagnose import diagnose as run

    return run(text, book=book)
