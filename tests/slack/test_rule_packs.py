"""A team's rule pack answers in Slack: the bot loads $VLLM_DOCTOR_LOCAL_RULES (or serve --rules) on
top of the shipped book. Real HTTP both ways, the real PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from bot.diagnose.knowledge.rulebook import load_rulebook
from bot.store.models import Diagnosis
from tests.slack.fakeslack import CHANNEL

pytestmark = [pytest.mark.timeout(120), pytest.mark.postgres]

PACK = Path(__file__).resolve().parents[2] / "deploy" / "rule-pack-example"


def test_a_team_rule_answers_and_a_replaced_rule_speaks_with_the_teams_words(start, pg_url, fake, botlog):
    bot = start(pg_url, rule_packs=(str(PACK / "rules"),))
    slurm = (PACK / "tests/fixtures/logs/slurm-time-limit/zetta-utils-job-step.log").read_text()
    missing = (PACK / "tests/fixtures/logs/model-path-not-found/v0.6-docker-cpu-raw-hfvalidation.log").read_text()
    for paste, rule in ((slurm, "slurm-time-limit"), (missing, "model-path-not-found")):
        event = bot.driver.message_event(paste)
        bot.driver.send_event(event)
        assert botlog.outcome(CHANNEL, event["ts"]).startswith(f"answered: {rule}")
    posts = fake.ok_calls("chat.postMessage")
    assert "Slurm killed the job at its time limit" in posts[0].params["text"]
    assert "/mnt/models" in posts[1].params["text"]
    with bot.store.session() as session:
        versions = set(session.scalars(select(Diagnosis.rulebook_version)))
    assert versions == {load_rulebook(packs=[str(PACK / "rules")]).version} != {load_rulebook(packs=[]).version}
