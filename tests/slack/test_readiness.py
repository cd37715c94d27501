"""/readyz says whether the bot can answer (database reachable and at the newest migration, rule
book loaded); /healthz only that the process is alive. Real HTTP, the real PostgreSQL."""

from __future__ import annotations

import pytest

from bot.store import migrate

pytestmark = [pytest.mark.timeout(60), pytest.mark.postgres]


def test_ready_when_migrated_with_the_rule_book_loaded(pg_bot):
    reply = pg_bot.driver.get("/readyz")
    assert reply.status == 200 and reply.headers["Content-Type"] == "application/json"
    body = reply.json()
    assert body["ready"] is True and body["database"] == migrate.head() and body["rules"] >= 60


def test_not_ready_on_a_database_behind_the_newest_migration(pg_bot):
    pg_bot.store.downgrade("-1")
    reply = pg_bot.driver.get("/readyz")
    assert reply.status == 503
    assert reply.json()["ready"] is False and "run `vllm-doctor db upgrade`" in reply.json()["reason"]
    assert pg_bot.driver.get("/healthz").status == 200            # alive all the same
    pg_bot.store.upgrade()
    assert pg_bot.driver.get("/readyz").status == 200


def test_not_ready_while_the_database_is_unreachable(start, pg_relay):
    url, relay = pg_relay
    bot = start(url)
    assert bot.driver.get("/readyz").status == 200
    relay.cut()
    reply = bot.driver.get("/readyz")
    assert reply.status == 503 and reply.json()["reason"].startswith("the database is unreachable")
    assert bot.driver.get("/healthz").status == 200
    relay.restore()
    assert bot.driver.get("/readyz").status == 200


def test_not_ready_without_rules(start, pg_url, tmp_path, monkeypatch):
    monkeypatch.setenv("VLLM_DOCTOR_RULES", str(tmp_path))        # a rule book folder with no rules in it
    bot = start(pg_url)
    reply = bot.driver.get("/readyz")
    assert reply.status == 503 and reply.json() == {"ready": False, "reason": "the rule book is not loaded"}
