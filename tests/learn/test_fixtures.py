"""A fixture's SAYS and NEVER lines are checked against the answer a user reads."""

from pathlib import Path

from bot.diagnose import diagnose
from bot.learn import fixtures

REAL = sorted((Path(__file__).parents[1] / "fixtures" / "logs" / "cuda-oom").glob("*.log"))[0]


def _problems(tmp_path, header: bytes) -> list[str]:
    path = tmp_path / "x.log"
    path.write_bytes(header + b"\n" + REAL.read_bytes())
    fx = fixtures.read(path)
    return fixtures.check(fx, diagnose(fx.data))


def test_says_and_never_pass_when_the_answer_agrees(tmp_path):
    assert _problems(tmp_path, b"#=SAYS=# out of memory\n#=NEVER=# tensor_parallel_size=0") == []


def test_a_missing_says_is_a_problem(tmp_path):
    got = _problems(tmp_path, b"#=SAYS=# a sentence no answer has")
    assert got == ["tmp_path/x.log: the answer does not say 'a sentence no answer has'".replace("tmp_path", tmp_path.name)]


def test_a_present_never_is_a_problem(tmp_path):
    got = _problems(tmp_path, b"#=NEVER=# Memory")
    assert len(got) == 1 and "the answer says 'Memory'" in got[0]


def test_headers_are_not_part_of_the_log(tmp_path):
    path = tmp_path / "x.log"
    path.write_bytes(b"#=SAYS=# y\n" + REAL.read_bytes())
    assert b"#=SAYS" not in fixtures.read(path).data
