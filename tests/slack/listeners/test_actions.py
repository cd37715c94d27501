"""Feedback buttons: a click is acknowledged, stored against the diagnosis, and the answer shows
it was received; "wrong"/"partly" ask why in a modal."""

from __future__ import annotations

import copy

import pytest
from sqlalchemy import select

from bot.slack import modals
from bot.store.models import Feedback
from tests.slack.conftest import fixture_log
from tests.slack.fakeslack import CHANNEL, USER

pytestmark = pytest.mark.timeout(60)


def feedback_rows(store) -> list[Feedback]:
    with store.session() as session:
        return list(session.scalars(select(Feedback).order_by(Feedback.id)))


def posted_answer(bot, fake, botlog) -> dict:
    event = bot.driver.message_event(fixture_log("kv-cache-no-memory"))
    bot.driver.send_event(event)
    botlog.outcome(CHANNEL, event["ts"])
    [call] = fake.ok_calls("chat.postMessage")
    return copy.deepcopy(fake.messages[(CHANNEL, call.answer["ts"])])


def diagnosis_id_of(message: dict) -> int:
    [actions] = [b for b in message["blocks"] if b["type"] == "actions"]
    return int(actions["elements"][0]["value"])


def test_fixed_it_is_stored_and_the_answer_says_so(bot, fake, botlog):
    message = posted_answer(bot, fake, botlog)
    reply, _ = bot.driver.click(message, "feedback_fixed")
    assert reply.status == 200 and reply.elapsed < 3.0
    [update] = fake.wait_calls("chat.update")
    assert update.params["ts"] == message["ts"]
    [row] = fake.wait_for(lambda _: feedback_rows(bot.store))
    assert (row.diagnosis_id, row.verdict, row.user_id, row.reason) == (diagnosis_id_of(message), "fixed", USER, None)
    blocks = fake.messages[(CHANNEL, message["ts"])]["blocks"]
    assert not [b for b in blocks if b["type"] == "actions"]
    assert f"Feedback received from <@{USER}>: *Fixed it*" in str(blocks)
    assert blocks[0]["type"] == "header"  # the answer itself stays
    assert fake.views == []


def test_wrong_asks_why_and_stores_the_reason(bot, fake, botlog):
    message = posted_answer(bot, fake, botlog)
    bot.driver.click(message, "feedback_wrong")
    [opened] = fake.wait_calls("views.open")
    view = fake.views[0]
    assert view["callback_id"] == modals.REASON_VIEW and view["notify_on_close"] is True
    fake.wait_calls("chat.update")  # the click is shown as received right away
    assert feedback_rows(bot.store) == []  # stored when the modal is answered, with the reason
    reply = bot.driver.submit_view(view, {modals.REASON_BLOCK: {modals.REASON_ACTION: {
        "type": "plain_text_input", "value": "it was the NCCL version, not memory"}}})
    assert reply.status == 200
    [row] = fake.wait_for(lambda _: feedback_rows(bot.store))
    assert (row.verdict, row.reason, row.diagnosis_id) == ("wrong", "it was the NCCL version, not memory",
                                                           diagnosis_id_of(message))


def test_partly_then_closing_the_modal_still_counts(bot, fake, botlog):
    message = posted_answer(bot, fake, botlog)
    bot.driver.click(message, "feedback_partly")
    fake.wait_calls("views.open")
    assert bot.driver.close_view(fake.views[0]).status == 200
    [row] = fake.wait_for(lambda _: feedback_rows(bot.store))
    assert (row.verdict, row.reason) == ("partly", None)


def test_wrong_without_a_usable_trigger_is_stored_without_a_reason(bot, fake, botlog):
    message = posted_answer(bot, fake, botlog)
    fake.trigger_ttl_s = -1.0
    bot.driver.click(message, "feedback_wrong")
    [row] = fake.wait_for(lambda _: feedback_rows(bot.store))
    assert (row.verdict, row.reason) == ("wrong", None)


def test_feedback_on_a_private_answer_replaces_it_through_its_response_url(bot, fake):
    _, form = bot.driver.send_command("diagnose " + fixture_log("cuda-oom"))
    hook = form["response_url"].rsplit("/", 1)[1]
    fake.wait_for(lambda _: fake.hooks[hook])
    answer = fake.hooks[hook][0]
    message = {"ts": fake.new_ts(), "blocks": answer["blocks"], "text": answer["text"]}
    reply, payload = bot.driver.click(message, "feedback_fixed", ephemeral=True)
    payload_hook = payload["response_url"].rsplit("/", 1)[1]
    fake.wait_for(lambda _: fake.hooks[payload_hook])
    [replaced] = fake.hooks[payload_hook]
    assert replaced["replace_original"] is True
    assert "Feedback received" in str(replaced["blocks"]) and replaced["blocks"][0]["type"] == "header"
    assert fake.wait_for(lambda _: feedback_rows(bot.store))[0].verdict == "fixed"


def test_feedback_on_a_private_answer_slack_left_out_keeps_the_answer(bot, fake):
    _, form = bot.driver.send_command("diagnose " + fixture_log("cuda-oom"))
    hook = form["response_url"].rsplit("/", 1)[1]
    fake.wait_for(lambda _: fake.hooks[hook])
    answer = fake.hooks[hook][0]
    message = {"ts": fake.new_ts(), "blocks": answer["blocks"], "text": answer["text"]}
    _, payload = bot.driver.click(message, "feedback_partly", ephemeral=True, include_message=False)
    payload_hook = payload["response_url"].rsplit("/", 1)[1]
    fake.wait_for(lambda _: fake.hooks[payload_hook])
    [said] = fake.hooks[payload_hook]
    assert said["replace_original"] is False and "Feedback received" in said["text"]


def test_a_button_with_a_bad_value_is_acked_and_ignored(bot, fake, botlog):
    message = posted_answer(bot, fake, botlog)
    for block in message["blocks"]:
        for el in block.get("elements", []):
            if el.get("type") == "button":
                el["value"] = "not-a-number"
    reply, _ = bot.driver.click(message, "feedback_fixed")
    assert reply.status == 200
    botlog.wait("feedback button without a diagnosis id")
    assert feedback_rows(bot.store) == []
