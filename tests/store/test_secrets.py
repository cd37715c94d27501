"""Seed real-looking secrets into pastes, store everything, then search the whole database."""

import json

import pytest
from sqlalchemy import select

from bot.store.models import Base, Job, JobStep

from .helpers import diagnose, fixture_logs, load_book, make_book, read

SECRETS = {
    "hf": "hf_QmVYkTzLpXcRwNbA7sD9fG2hJ4kL6zX8cV",
    "openai": "sk-proj-T3BlbkFJx9Qw2Er4Ty6Ui8Op0AsDfGhJkLzXcVbNm12",
    "anthropic": "sk-ant-api03-Zx8Cv7Bn6Mm5Ll4Kk3Jj2Hh1Gg0Ff9Dd8Ss7Aa6Qq5Ww4Ee3Rr-AbCdEf",
    "slack": "xoxb-2213987654321-6543210987654-Zq8Wx7Ec6Rv5Tb4Yn3Um2Ik1",
    "aws_id": "AKIAZ7QW3ERT5YUI8OPA",
    "aws_secret": "u8Jk2Lm9Np4Qr7St1Uv6Wx3Yz5Ab0Cd8Ef2Gh4Ij",
    "github": "ghp_R4nD0mT0k3nV4lu3F0rT3st1ngOnly12345",
    "bearer": "c2VydmVyLXRva2VuLWZvci12bGxtLWRvY3Rvcg",
    "db_password": "Sup3r-S3cret_pw",
    "engine_arg": "vllm-server-key-7Hq2Lz9",
    "pem": "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0",
    # issue 24's gaps: names that do not end in a secret word, passwords with `/` and `@` unencoded
    "mysql_pwd": "My5qlPwd-9kQz2Lr8",
    "db_pass": "DbPass-4Tx7Wq1Ze3",
    "passwd": "PassWd-8Hn3Vb6Xc1",
    "url_odd": "Od/d@Pa:ss#w0rd-2Jk5",
}


def _seeded_paste() -> str:
    s = SECRETS
    log = read(fixture_logs("config-json-missing")[1]).split("\n")
    args = next(i for i, line in enumerate(log) if "non-default args" in line)
    log[args] = log[args].replace(
        "'port': 8092,", f"'port': 8092, 'api_key': '{s['engine_arg']}', 'hf_token': '{s['hf']}',")
    shell = [
        f"$ export HF_TOKEN={s['hf']} OPENAI_API_KEY={s['openai']}",
        f"$ export AWS_ACCESS_KEY_ID={s['aws_id']} AWS_SECRET_ACCESS_KEY={s['aws_secret']}",
        f"$ DATABASE_URL=postgresql://vd:{s['db_password']}@db.internal:5432/vd SLACK_BOT_TOKEN={s['slack']} \\",
        f"    vllm serve Qwen/Qwen-Image-Edit-2509 --port 8092 --api-key {s['engine_arg']}",
        f"$ MYSQL_PWD={s['mysql_pwd']} DB_PASS={s['db_pass']} SMTP_PASSWD_FILE={s['passwd']} ./eval.sh",
        f"$ export RESULTS_URL=postgresql://eval:{s['url_odd']}@results.internal:5432/runs",
    ]
    after = [
        f"$ curl -H 'Authorization: Bearer {s['bearer']}' http://127.0.0.1:8092/v1/models",
        f"$ git clone https://{s['github']}@github.com/acme/serving.git",
        f"ANTHROPIC_API_KEY={s['anthropic']}",
        "-----BEGIN RSA PRIVATE KEY-----", s["pem"], s["pem"][::-1], "-----END RSA PRIVATE KEY-----",
    ]
    return "\n".join(shell + log + after)


def _unanswered_paste_with_a_key_in_the_error() -> str:
    return "\n".join([
        "INFO 11-30 09:12:01 [api_server.py:1839] vLLM API server version 0.11.0",
        "Traceback (most recent call last):",
        '  File "/srv/eval/run.py", line 41, in <module>',
        "    resp.raise_for_status()",
        "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: "
        f"http://10.0.0.7:8000/v1/models?api_key={SECRETS['openai']}&token={SECRETS['hf']}",
    ])


def _needles() -> dict[str, list[str]]:
    # the whole secret, and a distinctive slice of it: a partial leak is a leak
    return {name: [value, value[len(value) // 3: len(value) // 3 + 12]] for name, value in SECRETS.items()}


def _everything_in(store) -> list[tuple[str, str, str]]:
    cells = []
    with store.engine.connect() as connection:
        for table in Base.metadata.sorted_tables:
            for row in connection.execute(select(table)).mappings():
                for column, value in row.items():
                    if value is None:
                        continue
                    text = value if isinstance(value, str) else json.dumps(value, default=str)
                    cells.append((table.name, column, text))
    return cells


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    return load_book(make_book(tmp_path_factory.mktemp("rules")))


def test_seeded_secrets_are_found_nowhere_in_the_database(store, book):
    paste = _seeded_paste()
    report = diagnose(paste, book)
    assert report.verdict == "diagnosed"
    assert report.facts["engine_args"]["api_key"] == SECRETS["engine_arg"]   # the secret did reach the facts
    diagnosis_id = store.record_diagnosis(report, source="slack", text=paste, channel="C1", user="U1")

    unanswered = _unanswered_paste_with_a_key_in_the_error()
    report2 = diagnose(unanswered, book)
    assert SECRETS["openai"] in report2.root.text                             # ...and the root error
    store.record_diagnosis(report2, source="cli", text=unanswered)

    store.record_feedback(diagnosis_id, "wrong", user="U2",
                          reason=f"it was the token, I had HF_TOKEN={SECRETS['hf']} set to {SECRETS['github']}")
    with store.session() as s:
        job = Job(model_path=f"https://user:{SECRETS['db_password']}@models.internal/qwen", source="slack",
                  settings={"hf_token": SECRETS["hf"], "max_model_len": 4096},
                  error=f"OSError: 401 for {SECRETS['hf']}", result={"env": {"OPENAI_API_KEY": SECRETS["openai"]}})
        job.steps.append(JobStep(step_no=0, kind="bare", settings={"api_key": SECRETS["engine_arg"]},
                                 output_excerpt=f"Authorization: Bearer {SECRETS['bearer']}\n{SECRETS['slack']}"))
        s.add(job)

    cells = _everything_in(store)
    assert len(cells) > 40
    assert any("[REDACTED:" in text for _, _, text in cells)
    leaks = [(table, column, name) for table, column, text in cells
             for name, needles in _needles().items() if any(n in text for n in needles)]
    assert leaks == []
    # the diagnosis itself survived redaction
    excerpts = [text for table, column, text in cells if (table, column) == ("diagnoses", "excerpt")]
    assert any("Could not detect config format" in e for e in excerpts)
    assert any("401 Client Error" in e for e in excerpts)


def test_spooled_records_hold_no_secrets_either(tmp_path, book):
    from bot.store import Store

    down = Store("postgresql://postgres@127.0.0.1:1/none", spool_path=tmp_path / "spool.jsonl")
    paste = _seeded_paste()
    assert down.record_diagnosis(diagnose(paste, book), source="slack", text=paste) is None
    assert down.record_feedback(1, "fixed", user="U1", reason=f"key {SECRETS['anthropic']}") is None
    spooled = down.spool.path.read_text()
    assert "[REDACTED:" in spooled
    assert [name for name, needles in _needles().items() if any(n in spooled for n in needles)] == []
