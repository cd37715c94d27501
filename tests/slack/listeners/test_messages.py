"""Pastes in a help channel, end to end: signed event POSTs to the bot over loopback HTTP, the
bot's Web API calls land in the fake Slack, the outcome lands in the database."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import select

from bot.store.models import Diagnosis, SeenEvent
from tests.slack.conftest import fixture_log, start_bot
from tests.slack.fakeslack import BOT_TOKEN, BOT_USER_ID, CHANNEL

pytestmark = pytest.mark.timeout(120)


def diagnoses(store) -> list[Diagnosis]:
    with store.session() as session:
        return list(session.scalars(select(Diagnosis).order_by(Diagnosis.id)))


def replies_in(fake, thread_ts: str) -> list:
    return [c for c in fake.ok_calls("chat.postMessage") if c.params.get("thread_ts") == thread_ts]


def test_paste_is_answered_once_in_its_thread_even_when_slack_retries(bot, fake, botlog):
    event = bot.driver.message_event("vllm won't start:\n```" + fixture_log("kv-cache-no-memory") + "```")
    first, event_id = bot.driver.send_event(event)
    assert first.status == 200
    for retry in (1, 2):
        again, _ = bot.driver.send_event(event, event_id=event_id, retry_num=retry)
        assert again.status == 200
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered: kv-cache-no-memory")
    botlog.wait(rf"message {CHANNEL}/{event['ts']}: duplicate delivery", count=2)

    [reply] = replies_in(fake, event["ts"])
    assert reply.params["channel"] == CHANNEL
    assert "KV cache" in reply.params["text"]
    [row] = diagnoses(bot.store)
    assert (row.message_ts, row.thread_ts, row.answered, row.top_rule_id) == (event["ts"], event["ts"], True,
                                                                              "kv-cache-no-memory")
    buttons = [b for b in reply.params["blocks"] if b["type"] == "actions"][0]["elements"]
    assert {b["value"] for b in buttons} == {str(row.id)}


def test_first_delivery_arriving_as_a_retry_is_still_answered(bot, fake, botlog):
    # Slack retries when it thinks a delivery failed; if the first one never reached us, the
    # retry is the only copy and must be answered.
    event = bot.driver.message_event(fixture_log("port-in-use"))
    bot.driver.send_event(event, retry_num=1)
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered: port-in-use")
    assert len(replies_in(fake, event["ts"])) == 1


def test_reply_goes_to_the_parent_thread_when_the_paste_is_itself_a_reply(bot, fake, botlog):
    parent = fake.new_ts()
    event = bot.driver.message_event(fixture_log("cuda-oom"), thread_ts=parent)
    bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered")
    assert len(replies_in(fake, parent)) == 1
    assert replies_in(fake, event["ts"]) == []


@pytest.mark.postgres
def test_two_replicas_sharing_postgresql_answer_a_message_once(fake, pg_url, tmp_path, botlog):
    replicas = [start_bot(fake, pg_url, tmp_path / f"spool{i}.jsonl") for i in range(2)]
    try:
        event = replicas[0].driver.message_event(fixture_log("kv-cache-no-memory"))
        envelope_id = replicas[0].driver.new_event_id()
        # Slack's first delivery goes to one replica, its retry to the other, at the same time.
        senders = [threading.Thread(target=r.driver.send_event, args=(event,),
                                    kwargs={"event_id": envelope_id, "retry_num": n or None})
                   for n, r in enumerate(replicas * 2)]
        for s in senders:
            s.start()
        for s in senders:
            s.join(30)
        botlog.wait(rf"message {CHANNEL}/{event['ts']}: answered")
        botlog.wait(rf"message {CHANNEL}/{event['ts']}: duplicate delivery", count=3)
        assert len(replies_in(fake, event["ts"])) == 1
        assert len(diagnoses(replicas[0].store)) == 1
        with replicas[1].store.session() as session:
            assert session.get(SeenEvent, envelope_id) is not None
    finally:
        for r in replicas:
            r.close()


def test_chatter_gets_no_answer_and_is_not_stored(bot, fake, botlog):
    event = bot.driver.message_event("anyone up for lunch at noon? the new place across the street")
    bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]) == "quiet: no_error (diagnosis None)"
    assert replies_in(fake, event["ts"]) == []
    assert diagnoses(bot.store) == []


def test_paste_without_a_confident_diagnosis_is_stored_unanswered(bot, fake, botlog):
    log = "Traceback (most recent call last):\n  File \"serve.py\", line 3, in <module>\nFluxError: capacitor misaligned"
    event = bot.driver.message_event(f"```{log}```")
    bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("quiet: unsure")
    assert replies_in(fake, event["ts"]) == []
    [row] = diagnoses(bot.store)
    assert (row.answered, row.verdict, row.root_exc_type) == (False, "unsure", "FluxError")


@pytest.mark.parametrize("change", [
    {"subtype": "message_changed"},
    {"subtype": "bot_message", "bot_id": "BOTHER01"},
    {"bot_id": "BOTHER02"},
    {"user": BOT_USER_ID},
    {"channel": "C0ELSEWHERE"},
])
def test_edits_bots_and_other_channels_are_ignored(bot, fake, botlog, change):
    event = bot.driver.message_event(fixture_log("kv-cache-no-memory"), **change)
    bot.driver.send_event(event)
    # A real paste sent after it is answered; by then the ignored one has been looked at.
    marker = bot.driver.message_event(fixture_log("port-in-use"))
    bot.driver.send_event(marker)
    botlog.outcome(CHANNEL, marker["ts"])
    assert replies_in(fake, event["ts"]) == []
    assert len(diagnoses(bot.store)) == 1


def test_with_no_channels_configured_every_channel_the_bot_is_in_is_watched(fake, sqlite_url, tmp_path, botlog):
    running = start_bot(fake, sqlite_url, tmp_path / "spool.jsonl", channels=frozenset())
    try:
        event = running.driver.message_event(fixture_log("cuda-oom"), channel="G0PRIVATE", channel_type="group")
        running.driver.send_event(event)
        assert botlog.outcome("G0PRIVATE", event["ts"]).startswith("answered: cuda-oom")
    finally:
        running.close()


def test_the_bots_own_reply_echoed_back_does_not_start_a_loop(bot, fake, botlog):
    event = bot.driver.message_event(fixture_log("kv-cache-no-memory"))
    bot.driver.send_event(event)
    botlog.outcome(CHANNEL, event["ts"])
    [reply] = replies_in(fake, event["ts"])
    echo = bot.driver.bot_echo_event({**reply.answer["message"], "thread_ts": event["ts"]})
    bot.driver.send_event(echo)
    marker = bot.driver.message_event(fixture_log("port-in-use"))
    bot.driver.send_event(marker)
    botlog.outcome(CHANNEL, marker["ts"])
    assert len(replies_in(fake, event["ts"])) == 1


def test_attached_log_file_is_downloaded_with_the_bot_token_and_answered(bot, fake, botlog):
    f = fake.add_file("vllm-serve.log", fixture_log("max-model-len-too-large"))
    event = bot.driver.message_event("it dies at startup, log attached", files=[f])
    bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered: max-model-len-too-large")
    [download] = [c for c in fake.calls if c.path.startswith("/files-pri/")]
    assert download.headers["authorization"] == f"Bearer {BOT_TOKEN}"
    assert download.path.endswith("/download/vllm-serve.log")


def test_snippet_is_read_like_a_file(bot, fake, botlog):
    f = fake.add_file("Untitled", fixture_log("cuda-oom"), mode="snippet", filetype="python")
    event = bot.driver.message_event("", files=[f])
    bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered: cuda-oom")


def test_images_are_not_downloaded(bot, fake, botlog):
    f = fake.add_file("screenshot.png", b"\x89PNG\r\n", filetype="png", mimetype="image/png")
    event = bot.driver.message_event("see screenshot", files=[f])
    bot.driver.send_event(event)
    botlog.outcome(CHANNEL, event["ts"])
    assert [c for c in fake.calls if c.path.startswith("/files-pri/")] == []


def test_a_sign_in_page_instead_of_the_file_is_explained_not_diagnosed(bot, fake, botlog):
    f = fake.add_file("vllm.log", fixture_log("cuda-oom"), serve="login")
    event = bot.driver.message_event("", files=[f])
    bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered: file problem")
    [reply] = replies_in(fake, event["ts"])
    assert "sign-in page" in reply.params["text"] and "files:read" in reply.params["text"]
    assert diagnoses(bot.store) == []


def test_a_redirect_is_not_followed_with_the_token(bot, fake, botlog):
    f = fake.add_file("vllm.log", fixture_log("cuda-oom"), serve="redirect")
    event = bot.driver.message_event("", files=[f])
    bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered: file problem")
    [reply] = replies_in(fake, event["ts"])
    assert "redirect" in reply.params["text"]


def test_files_on_hosts_outside_the_allow_list_are_not_fetched(fake, sqlite_url, tmp_path, botlog):
    running = start_bot(fake, sqlite_url, tmp_path / "spool.jsonl", file_hosts=("files.slack.com",))
    try:
        f = fake.add_file("vllm.log", fixture_log("cuda-oom"))
        event = running.driver.message_event("", files=[f])
        running.driver.send_event(event)
        assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered: file problem")
        assert [c for c in fake.calls if c.path.startswith("/files-pri/")] == []
        assert "allowed Slack file host" in replies_in(fake, event["ts"])[0].params["text"]
    finally:
        running.close()


def test_a_file_over_the_size_cap_gets_a_short_answer_without_a_download(fake, sqlite_url, tmp_path, botlog):
    running = start_bot(fake, sqlite_url, tmp_path / "spool.jsonl", max_file_bytes=1024 * 1024)
    try:
        f = fake.add_file("huge.log", b"x" * (2 * 1024 * 1024))
        event = running.driver.message_event("", files=[f])
        running.driver.send_event(event)
        assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered: file problem")
        [reply] = replies_in(fake, event["ts"])
        assert "2.0 MB" in reply.params["text"] and "1 MB" in reply.params["text"]
        assert [c for c in fake.calls if c.path.startswith("/files-pri/")] == []
    finally:
        running.close()


@pytest.mark.slow
def test_a_ten_megabyte_paste_gets_a_clear_short_answer(bot, fake, botlog):
    noise = "INFO 11-09 12:00:00 [loader.py:120] Loading safetensors checkpoint shards: 42% Completed\n"
    big = noise * (12 * 1024 * 1024 // len(noise)) + fixture_log("kv-cache-no-memory")
    f = fake.add_file("big-vllm.log", big)
    event = bot.driver.message_event("full log attached", files=[f])
    bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"], timeout=60).startswith("answered: kv-cache-no-memory")
    [reply] = replies_in(fake, event["ts"])
    text = " ".join(str(b) for b in reply.params["blocks"])
    assert "MB" in text and "were read" in text  # it says the input was cut
    assert len(str(reply.params["blocks"])) < 8000


def test_long_evidence_goes_into_an_attached_file_in_the_thread(bot, fake, botlog):
    log = fixture_log("kv-cache-no-memory").replace(
        "No available memory for the cache blocks.",
        "No available memory for the cache blocks. " + "(detail) " * 80, 1)
    event = bot.driver.message_event(log)
    bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered")
    [complete] = fake.wait_calls("files.completeUploadExternal")
    assert complete.params["thread_ts"] == event["ts"] and complete.params["channel_id"] == CHANNEL
    [upload] = [u for u in fake.uploads.values() if u.get("completed")]
    assert b"(detail) (detail)" in upload["content"]
    assert upload["filename"].endswith(".md")


def test_rate_limited_post_is_retried_after_retry_after(bot, fake, botlog):
    fake.inject("chat.postMessage", 429, retry_after=1)
    event = bot.driver.message_event(fixture_log("cuda-oom"))
    bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered")
    limited, ok = fake.calls_to("chat.postMessage")
    assert (limited.status, ok.status) == (429, 200)
    assert ok.t - limited.t >= 1.0
    assert len(replies_in(fake, event["ts"])) == 1


def test_a_server_error_from_slack_is_retried(bot, fake, botlog):
    fake.inject("chat.postMessage", 500)
    event = bot.driver.message_event(fixture_log("cuda-oom"))
    bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered")
    assert [c.status for c in fake.calls_to("chat.postMessage")] == [500, 200]


def test_chinese_words_around_the_log_get_a_chinese_answer(bot, fake, botlog):
    event = bot.driver.message_event("大家好,启动 vllm 就挂了,帮忙看下这个报错:\n```"
                                     + fixture_log("kv-cache-no-memory") + "```")
    bot.driver.send_event(event)
    botlog.outcome(CHANNEL, event["ts"])
    [reply] = replies_in(fake, event["ts"])
    blocks = str(reply.params["blocks"])
    assert "*原因*" in blocks and "解决了" in blocks
    assert diagnoses(bot.store)[0].lang == "zh"
