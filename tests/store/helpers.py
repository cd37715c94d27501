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
    from bot.diagnose.rulebook import load_rulebook

    book = load_rulebook(directory, use_cache=False)
    assert not book.errors, book.errors
    return book


def fixture_logs(rule_id: str) -> list[Path]:
    logs = sorted((FIXTURES / rule_id).glob("*.log"))
    assert logs, f"no fixtures for {rule_id}"
    return logs


def read(path: Path) -> str:
    """The paste as its author sent it: the fixture without its #= header lines."""
    lines = path.read_text(encoding="utf-8").split("\n")
    return "\n".join(line for line in lines if not line.startswith("#="))


def diagnose(text: str, book):
    from bot.diagnose import diagnose as run

    return run(text, book=book)
