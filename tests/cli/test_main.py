"""The `vllm-doctor` command as a user runs it: a real process, real files, stdin, exit codes."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "bot" / "examples" / "engine-core-failed.log"


def run(*args, stdin: bytes | None = None, env_extra: dict | None = None):
    env = {**os.environ, "NO_COLOR": "1", **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], input=stdin, capture_output=True,
                          cwd=ROOT, env=env, timeout=120)


def test_diagnose_the_bundled_example_reads_past_the_wrapper():
    r = run("diagnose", str(EXAMPLE))
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    assert "[cpu-memory-reservation" in out
    assert "Engine core initialization failed" not in out.splitlines()[0]
    assert "gpu_memory_utilization=0.15" in out          # the number comes from this log


def test_json_is_one_object_per_file_per_line(tmp_path):
    chatter = tmp_path / "chatter.txt"
    chatter.write_text("hello, anyone around for lunch?\n")
    r = run("diagnose", "--json", str(EXAMPLE), str(chatter))
    assert r.returncode == 0
    lines = r.stdout.decode().splitlines()
    assert len(lines) == 2
    first, second = map(json.loads, lines)
    assert first["file"] == str(EXAMPLE) and first["diagnoses"][0]["rule_id"] == "cpu-memory-reservation"
    d = first["diagnoses"][0]
    assert {"rule_id", "confidence", "level", "title", "evidence", "cause", "fix", "caveats"} <= set(d)
    assert 0 < d["confidence"] <= 1
    assert second["diagnoses"] == [] and second["verdict"] == "no_error"


def test_stdin_chinese_and_slack_escapes():
    paste = ("ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8) "
             "&amp;&amp; see &lt;docs&gt;").encode()
    r = run("diagnose", "--lang", "zh", "--json", "-", stdin=paste)
    d = json.loads(r.stdout)["diagnoses"][0]
    assert d["rule_id"] == "tp-heads-not-divisible" and "1, 2, 4, 7, 14" in d["cause"] + d["fix"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in d["title"])


def test_binary_and_invalid_utf8_answer_cleanly():
    r = run("diagnose", "--json", "-", stdin=os.urandom(200_000) + b"\xff\xfe ValueError: \xc3(")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["diagnoses"] == []


def test_usage_errors_exit_2():
    assert run("diagnose", "/no/such/file.log").returncode == 2
    assert run("diagnose", "--lang", "fr", str(EXAMPLE)).returncode == 2
    assert run().returncode == 2


def test_rules_list_and_lint():
    listed = run("rules", "list", "--json")
    rows = json.loads(listed.stdout)
    assert len(rows) >= 60 and {"id", "level", "title"} <= set(rows[0])
    lint = run("rules", "lint")
    assert lint.returncode == 0, lint.stdout.decode()[-2000:]
    assert b"0 problem(s)" in lint.stdout


def test_lint_fails_on_a_broken_rule(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "bad-rule.yaml").write_text("id: bad-rule\nlevel: root\nmatch: {patterns: ['(a+)+$']}\n"
                                         "title: {en: t, zh: t}\ncause: {en: c, zh: c}\nfix: {en: f, zh: f}\n")
    r = run("rules", "lint", env_extra={"VLLM_DOCTOR_RULES": str(rules)})
    out = r.stdout.decode()
    assert r.returncode == 1
    assert "catastrophic backtracking" in out and "bad-rule: has no fixture" in out


def test_the_bundled_example_is_read_from_the_package(tmp_path):
    r = subprocess.run([sys.executable, "-m", "bot.cli", "diagnose", "--example", "--json"], capture_output=True,
                       cwd=tmp_path, env={**os.environ, "NO_COLOR": "1"}, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["diagnoses"][0]["rule_id"] == "cpu-memory-reservation"
    assert run("diagnose", "--example", str(EXAMPLE)).returncode == 2


PACK = ROOT / "deploy" / "rule-pack-example" / "rules"
PACK_LOGS = ROOT / "deploy" / "rule-pack-example" / "tests" / "fixtures" / "logs"


def test_a_team_pack_from_the_command_line_or_the_environment_answers_and_is_listed():
    slurm = str(PACK_LOGS / "slurm-time-limit" / "toil-batch-log.log")
    assert json.loads(run("diagnose", "--json", slurm).stdout)["diagnoses"] == []
    for extra_args, env in ((["--rules", str(PACK)], None), ([], {"VLLM_DOCTOR_LOCAL_RULES": str(PACK)})):
        r = run("diagnose", "--json", *extra_args, slurm, env_extra=env)
        assert json.loads(r.stdout)["diagnoses"][0]["rule_id"] == "slurm-time-limit", r.stderr
        rows = {row["id"]: row for row in json.loads(run("rules", "list", "--json", *extra_args, env_extra=env).stdout)}
        assert rows["slurm-time-limit"]["pack"] == "acme-gpu" and rows["cuda-oom"]["pack"] == "shipped"
        assert rows["model-path-not-found"]["replaces"] == "shipped"
    table = run("rules", "list", "--rules", str(PACK)).stdout.decode()
    assert "[replaces shipped's rule]" in table and f"pack acme-gpu: 2 rules from {PACK}" in table


def test_lint_checks_a_pack_with_its_own_fixtures():
    r = run("rules", "lint", "--rules", str(PACK))
    out = r.stdout.decode()
    assert r.returncode == 0, out[-2000:]
    assert "model-path-not-found/seed-0.30-repo-id.log: not run, model-path-not-found is now acme-gpu's rule" in out


def test_lint_flags_a_pack_rule_without_fixtures_or_that_fires_on_shipped_logs(tmp_path):
    team = tmp_path / "team" / "rules"
    team.mkdir(parents=True)
    # Far too broad: every CUDA out-of-memory paste in the shipped fixtures now also gives it.
    (team / "team-oom.yaml").write_text("id: team-oom\nlevel: root\nmatch: {patterns: ['out of memory']}\n"
                                        "title: {en: t, zh: t}\ncause: {en: c, zh: c}\nfix: {en: f, zh: f}\n")
    r = run("rules", "lint", "--rules", str(team))
    out = r.stdout.decode()
    assert r.returncode == 1
    assert f"team: team-oom: has no fixture under {tmp_path / 'team' / 'tests' / 'fixtures' / 'logs'}/team-oom/" in out
    assert "cuda-oom/" in out and "gave rules it does not name: ['team-oom']" in out


def test_a_pack_that_is_not_a_folder_is_a_usage_error(tmp_path):
    r = run("diagnose", "--rules", str(tmp_path / "nope"), str(EXAMPLE))
    assert r.returncode == 2 and b"is not a folder of rules" in r.stderr


def one_line(r) -> str:
    """A usage error: exit 2, one line on stderr, no traceback."""
    err = r.stderr.decode()
    assert r.returncode == 2, (r.returncode, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_closed_stdin_is_one_line():
    r = subprocess.run(["bash", "-c", f"{sys.executable} -m bot.cli diagnose <&-"], capture_output=True, cwd=ROOT,
                       timeout=60)
    assert "stdin is closed" in one_line(r)


def test_a_reader_that_leaves_early_is_one_line():
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "rules", "list"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"})
    proc.stdout.close()                                       # `| head -1` that is already gone
    err = proc.stderr.read()
    proc.stderr.close()
    r = subprocess.CompletedProcess(proc.args, proc.wait(timeout=60), b"", err)
    assert "broken pipe" in one_line(r)


def test_a_malformed_database_url_is_one_line():
    for url in ("postgres//no-scheme-colon", "postgresql://u:p@host:notaport/db", "mysql://u@h/db"):
        for args in (["db", "upgrade"], ["rules", "stats"], ["diagnose", "--record", str(EXAMPLE)]):
            err = one_line(run(*args, env_extra={"DATABASE_URL": url}))
            assert "database URL" in err and "p@host" not in err


def test_an_unknown_language_in_the_environment_is_one_line():
    assert "VLLM_DOCTOR_LANG=fr" in one_line(run("diagnose", str(EXAMPLE), env_extra={"VLLM_DOCTOR_LANG": "fr"}))
    assert run("diagnose", str(EXAMPLE), env_extra={"VLLM_DOCTOR_LANG": "zh"}).returncode == 0


def test_serve_on_a_port_in_use_is_one_line():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        r = run("serve", "--http", "--host", "127.0.0.1", "--port", str(port), "--migrate",
                env_extra={"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s",
                           "DATABASE_URL": f"sqlite:///{ROOT / '.cache' / 'port-test.db'}"})
    err = r.stderr.decode()
    assert r.returncode == 2 and "Traceback" not in err
    assert f"port {port} on 127.0.0.1 is already in use" in err.splitlines()[-1]
    assert "upgraded" not in err                              # found before anything was migrated


SERVE_ENV = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s"}


def test_a_port_outside_1_to_65535_is_one_line_not_another_port():
    # The kernel takes 70000 modulo 65536: it used to listen on 4464 and say nothing.
    for args in (["--port", "70000"], ["--port", "-5"], ["--port", "http"]):
        err = one_line(run("serve", "--http", *args, env_extra=SERVE_ENV))
        assert err.startswith("vllm-doctor serve: argument --port: ") and "(1-65535)" in err, err
        err = one_line(run("dashboard", *args))
        assert err.startswith("vllm-doctor dashboard: argument --port: ") and "(1-65535)" in err, err


def test_a_port_variable_that_is_not_a_port_is_named_in_one_line():
    for value in ("abc", "70000", "-5"):
        err = one_line(run("serve", "--http", env_extra={**SERVE_ENV, "PORT": value}))
        assert err.startswith(f"vllm-doctor serve: PORT={value}: ") and "(1-65535)" in err, err


def test_the_dashboard_on_a_busy_port_is_one_line(tmp_path):
    import socket

    db = f"sqlite:///{tmp_path / 'vd.db'}"
    assert run("db", "--db", db, "upgrade").returncode == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        err = one_line(run("dashboard", "--port", str(port), "--db", db, env_extra={"SLACK_CLIENT_ID": ""}))
    assert err == (f"vllm-doctor dashboard: port {port} on 127.0.0.1 is already in use (another vllm-doctor?); "
                   "choose another with --port\n")


def test_a_bad_log_level_is_one_line_for_serve_and_the_dashboard(tmp_path):
    assert "LOG_LEVEL=CHATTY is not a level" in one_line(run("serve", "--http", env_extra={**SERVE_ENV,
                                                                                         "LOG_LEVEL": "chatty"}))
    assert "LOG_LEVEL=CHATTY is not a level" in one_line(run("dashboard", env_extra={"LOG_LEVEL": "chatty"}))


def test_bare_diagnose_on_a_terminal_says_it_waits_for_a_paste():
    import pty
    import select

    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "diagnose", "--json"], stdin=follower,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env={**os.environ, "NO_COLOR": "1"})
    os.close(follower)
    try:
        ready, _, _ = select.select([proc.stderr], [], [], 60)
        assert ready, "diagnose said nothing while waiting on the terminal"
        assert b"reading a log from the terminal; paste it, then press Ctrl-D" in proc.stderr.readline()
        os.write(leader, b"ValueError: Total number of attention heads (28) must be divisible by tensor parallel "
                         b"size (8)\n\x04")
        out, _ = proc.communicate(timeout=60)
        assert json.loads(out)["diagnoses"][0]["rule_id"] == "tp-heads-not-divisible"
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)


def test_a_pipe_gets_no_terminal_hint():
    r = run("diagnose", "--json", stdin=b"hello")
    assert r.returncode == 0 and r.stderr == b""


def test_rules_drift_finds_no_unexplained_rewording_in_the_shipped_book():
    r = run("rules", "drift", "--all")
    assert r.returncode == 0, r.stdout.decode()[-2000:]
    out = r.stdout.decode()
    assert "0 no rule matches, unexplained" in out
    assert "prompt-too-long: continues" in out and "a pattern matches the new wording" in out
