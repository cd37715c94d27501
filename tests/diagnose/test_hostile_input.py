"""diagnose() answers any input: shuffled real log lines, random bytes, odd unicode, huge lines."""

import random
from pathlib import Path

from bot.learn import fixtures
from bot.diagnose import diagnose, load_rulebook

BOOK = load_rulebook()
LINES = [line for fx in fixtures.all_fixtures(Path(BOOK.directory).parent / "tests" / "fixtures" / "logs")
         for line in fx.data.split(b"\n")]
ODD = ["\u202e", "\ufeff", "\x00", "\ud7ff", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "\r", "\t" * 50, "[" * 300, "(" * 300,
       "'" * 100, "```", "&lt;&gt;&amp;", "<https://x|", "\x1b[", "[0;36m", " " * 5000,
       '{"message": "a\\n', '{"exc_info": "\\u00', '\\"\\n"}']


def test_thousand_random_pastes_never_crash_and_stay_consistent():
    rng = random.Random(20261130)
    for _ in range(1000):
        parts = []
        for _ in range(rng.randint(1, 40)):
            pick = rng.random()
            if pick < 0.6:
                parts.append(rng.choice(LINES))
            elif pick < 0.8:
                parts.append(rng.choice(ODD).encode("utf-8", "surrogatepass"))
            else:
                parts.append(rng.randbytes(rng.randint(1, 200)))
        data = b"\n".join(parts)
        report = diagnose(data, book=BOOK)
        assert report.verdict in ("diagnosed", "wrapper_only", "unsure", "no_error")
        assert all(0 < d.confidence <= 1 for d in report.diagnoses)
        assert len({d.rule_id for d in report.diagnoses}) == len(report.diagnoses)
        if report.verdict == "diagnosed":
            assert report.diagnoses and report.diagnoses[0].level != "wrapper"
        report.to_dict()
