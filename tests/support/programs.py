"""A paste that shows another program: the reading names that program, and the diagnosis stays silent."""

from bot.diagnose import diagnose
from bot.diagnose.reading import facts


def assert_shows_program(paste: str, program: str) -> dict:
    f = facts.extract(paste)
    assert program in (f["foreign_context"] or ""), f["foreign_context"]
    assert diagnose(paste).diagnoses == []
    return f
