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


def test_unreachable_database_is_a_clear_error_not_a_traceback(capsys):
    assert main(["--db", "postgresql://postgres:hunter2@127.0.0.1:1/vd", "current"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: postgresql+psycopg://postgres:***@127.0.0.1:1/vd")
    assert "hunter2" not in err and "Traceback" not in err


def test_usage_errors_return_instead_of_exiting(capsys):
    assert main(["frobnicate"]) == 2
    assert "invalid choice" in capsys.readouterr().err
