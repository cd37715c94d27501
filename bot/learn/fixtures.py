"""Rule fixtures: real logs with their expected result written inside the file.

    #=SOURCE=# https://github.com/vllm-project/vllm/issues/10439 (vLLM 0.6.3, user paste, trimmed)
    #=EXPECT=# kv-cache-no-memory
    #=ALSO=# cuda-oom
    #=SAYS=# --tensor-parallel-size 2
    #=NEVER=# names no setting of yours

`SAYS` and `NEVER` hold what the first answer's text (title, evidence, cause, fix, caveats and the
ready-to-paste command, in English) must and must not contain, case-insensitive: the answer a user reads, not only its rule.
In a log that must give no diagnosis, they hold what the reply says instead (the first error, where a crash struck).
"""

from __future__ import annotations

from pathlib import Path

from bot.base.record import Record


# a Record, not a dataclass: `vllm-doctor diagnose FILE` reads its input through here, and importing
# dataclasses cost the CLI's cold start about 8 ms
class Fixture(Record):
    path: Path
    source: str
    expect: str | None          # None: the log must give no diagnosis
    also: list[str]
    data: bytes                 # the log itself, headers removed
    says: list[str] = ()        # what the first answer's text must contain
    never: list[str] = ()       # and must not


def read(path: Path) -> Fixture:
    source, expect, also, body, says, never = "", None, [], [], [], []
    raw = path.read_bytes()
    for line in raw.splitlines(keepends=True):
        if line.startswith(b"#=SOURCE=#"):
            source = line[10:].decode("utf-8", "replace").strip()
        elif line.startswith(b"#=EXPECT=#"):
            value = line[10:].decode().strip()
            expect = None if value == "none" else value
        elif line.startswith(b"#=ALSO=#"):
            also += line[8:].decode().split()
        elif line.startswith(b"#=SAYS=#"):
            says.append(line[8:].decode().strip())
        elif line.startswith(b"#=NEVER=#"):
            never.append(line[9:].decode().strip())
        else:
            body.append(line)
    return Fixture(path, source, expect, also, b"".join(body), says, never)


def all_fixtures(root: Path) -> list[Fixture]:
    """Every `<root>/<rule-id>/*.log` (`_negative/` holds logs that must give no diagnosis)."""
    return [read(p) for p in sorted(root.glob("*/*.log"))]


def check(fx: Fixture, report) -> list[str]:
    """Problems with one fixture's result; empty when it gives what it names."""
    got = [d.rule_id for d in report.diagnoses]
    name = f"{fx.path.parent.name}/{fx.path.name}"
    problems = []
    if not fx.source:
        problems.append(f"{name}: no #=SOURCE=# header")
    if fx.expect is None:
        if got:
            problems.append(f"{name}: must give no diagnosis, gave {got}")
        elif fx.says or fx.never:       # what the reply says instead: the first error, the crash site
            text = (report.next_step or "").lower()
            problems += [f"{name}: the reply does not say {s!r}" for s in fx.says if s.lower() not in text]
            problems += [f"{name}: the reply says {s!r}" for s in fx.never if s.lower() in text]
        return problems
    if not got or got[0] != fx.expect:
        problems.append(f"{name}: expected {fx.expect} first, got {got or 'nothing'}")
    unnamed = [g for g in got if g != fx.expect and g not in fx.also]
    if unnamed:
        problems.append(f"{name}: gave rules it does not name: {unnamed}")
    if (fx.says or fx.never) and got:
        text = answer_text(report.diagnoses[0]).lower()
        problems += [f"{name}: the answer does not say {s!r}" for s in fx.says if s.lower() not in text]
        problems += [f"{name}: the answer says {s!r}" for s in fx.never if s.lower() in text]
    return problems


def answer_text(d) -> str:
    """All the words of one diagnosis a reader sees."""
    parts = [d.title, d.evidence, d.cause, d.fix, *(d.caveats or []), d.command]
    return "\n".join(str(p) for p in parts if p)
