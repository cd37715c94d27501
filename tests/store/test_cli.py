from bot.store import migrate
from bot.store.cli import main


def test_db_upgrade_and_current(store_url, capsys):
    assert main(["--db", store_url, "current"]) == 0
    assert "no revision (empty database)" in capsys.readouterr().out

    assert main(["--db", store_url, "upgrade"]) == 0
    assert f"upgraded from an empty database to {migrate.head()}" in capsys.readouterr().out
    assert main(["--db", store_url, "upgrade"]) == 0
    assert f"already at {migrate.head()}" in capsys.readouterr().out

    assert main(["--db", store_url, "current"]) == 0
    assert f"{migrate.head()} (up to date)" in capsys.readouterr().out


def test_db_reads_database_url(sqlite_url, monkeypatch, capsys):
    monkeypatch.setenv("DATABASE_URL", sqlite_url)
    assert main(["upgrade", "0001"]) == 0
    assert main(["current"]) == 0
    assert f"0001 (newest is {migrate.head()}" in capsys.readouterr().out


def test_unreachable_database_is_one_line_and_exit_2(capsys):
    assert main(["--db", "postgresql://postgres:hunter2@127.0.0.1:1/vd", "current"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("vllm-doctor db: postgresql+psycopg://postgres:***@127.0.0.1:1/vd: OperationalError")
    assert "hunter2" not in line


def test_usage_errors_return_instead_of_exiting(capsys):
    assert main(["frobnicate"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "invalid choice: 'frobnicate'" in line and line.endswith("(see vllm-doctor db --help)")
