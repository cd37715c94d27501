"""`/vllm …` over real HTTP: signed form POSTs in, response_url and Web API calls out."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import select

from bot.slack import modals
from bot.slack.listeners.commands import parse
from bot.store.models import Diagnosis, UserPref
from tests.slack.conftest import fixture_log, start_bot
from tests.slack.fakeslack import CHANNEL, USER

pytestmark = pytest.mark.timeout(60)


def hook_payloads(fake, form: dict, n: int = 1) -> list[dict]:
    """What the bot POSTed to this command's response_url."""
    hook_id = form["response_url"].rsplit("/", 1)[1]
    fake.wait_for(lambda calls: len([c for c in calls if c.path == f"/hooks/{hook_id}" and c.status == 200]) >= n)
    return fake.hooks[hook_id]


@pytest.mark.parametrize("text, expected", [
    ("", ("", "")),
    ("help", ("help", "")),
    ("DIAGNOSE  ValueError: x\n  next line", ("diagnose", "ValueError: x\n  next line")),
    ("repro /models/qwen max_model_len=4096", ("repro", "/models/qwen max_model_len=4096")),
])
def test_parse_keeps_the_log_lines_intact(text, expected):
    assert parse(text) == expected


def test_help_is_answered_in_the_ack_itself(bot, fake):
    reply, _ = bot.driver.send_command("help")
    assert reply.status == 200
    body = reply.json()
    assert "/vllm diagnose" in body["text"] and "/vllm repro" in body["text"]
    assert reply.elapsed < 3.0


def test_diagnose_with_text_answers_the_user_privately_with_feedback_buttons(bot, fake):
    reply, form = bot.driver.send_command("diagnose " + fixture_log("kv-cache-no-memory"))
    assert reply.status == 200 and reply.elapsed < 3.0
    [payload] = hook_payloads(fake, form)
    assert payload["response_type"] == "ephemeral"
    assert "KV cache" in payload["text"]
    actions = [b for b in payload["blocks"] if b["type"] == "actions"]
    assert [e["action_id"] for e in actions[0]["elements"]] == ["feedback_fixed", "feedback_wrong", "feedback_partly"]
    with bot.store.session() as session:
        [row] = session.scalars(select(Diagnosis))
        assert (row.user_id, row.channel, row.source, row.answered) == (USER, CHANNEL, "slack", True)


def test_diagnose_with_text_it_cannot_place_still_gets_an_answer(bot, fake):
    _, form = bot.driver.send_command("diagnose Traceback (most recent call last):\nFluxError: capacitor misaligned")
    [payload] = hook_payloads(fake, form)
    assert payload["text"] == "No confident diagnosis"
    assert "FluxError: capacitor misaligned" in str(payload["blocks"])
    assert not [b for b in payload["blocks"] if b["type"] == "actions"]


class RecordingStore:
    """The real store, plus a note of every call made to it."""

    def __init__(self, store):
        self._store = store
        self.calls: list[str] = []

    def __getattr__(self, name):
        attr = getattr(self._store, name)
        if callable(attr):
            def recorded(*args, **kwargs):
                self.calls.append(name)
                return attr(*args, **kwargs)
            return recorded
        return attr


def test_diagnose_without_text_opens_the_modal_before_touching_the_database(fake, sqlite_url, tmp_path):
    from bot.slack.app import build_app
    from bot.http.server import stop_server
    from bot.slack.http import make_server
    from tests.slack.conftest import bot_settings, make_store
    from tests.slack.fakeslack import SlackDriver

    store = RecordingStore(make_store(sqlite_url, tmp_path / "spool.jsonl"))
    settings = bot_settings(fake, sqlite_url)
    app = build_app(settings, store=store)
    server = make_server(app, signing_secret=settings.signing_secret, host="127.0.0.1", port=0)
    runner = threading.Thread(target=server.run, daemon=True)
    runner.start()
    try:
        driver = SlackDriver(f"http://127.0.0.1:{server.effective_port}", fake)
        reply, form = driver.send_command("diagnose")
        assert reply.status == 200
        [opened] = fake.wait_calls("views.open")
        assert opened.params["trigger_id"] == form["trigger_id"]
        assert store.calls == []
        view = fake.views[0]
        assert view["callback_id"] == modals.DIAGNOSE_VIEW
        [paste, upload] = view["blocks"]
        assert paste["element"]["type"] == "plain_text_input" and paste["element"]["max_length"] == 3000
        assert upload["element"]["type"] == "file_input"
    finally:
        stop_server(server)
        runner.join(10)
        app.listener_runner.listener_executor.shutdown(wait=True)
        store.dispose()


def test_an_expired_trigger_gets_a_clear_message(bot, fake):
    fake.trigger_ttl_s = -1.0  # every trigger has already expired
    _, form = bot.driver.send_command("diagnose")
    [payload] = hook_payloads(fake, form)
    assert "expired_trigger_id" in payload["text"] and "/vllm diagnose <log text>" in payload["text"]


def test_lang_zh_makes_the_next_answer_chinese(bot, fake):
    _, form = bot.driver.send_command("lang zh")
    [payload] = hook_payloads(fake, form)
    assert payload["text"] == "之后用中文回答你。"
    with bot.store.session() as session:
        assert session.get(UserPref, USER).lang == "zh"
    _, form = bot.driver.send_command("diagnose " + fixture_log("kv-cache-no-memory"))
    [answer] = hook_payloads(fake, form)
    assert "*原因*" in str(answer["blocks"])


def test_lang_choice_beats_the_language_of_the_words(bot, fake):
    bot.driver.send_command("lang en")
    fake.wait_for(lambda calls: any(c.method == "response_url" for c in calls))
    _, form = bot.driver.send_command("diagnose 帮忙看看这个报错,谢谢大家\n" + fixture_log("kv-cache-no-memory"))
    [answer] = hook_payloads(fake, form)
    assert "*Cause*" in str(answer["blocks"])


def test_bad_lang_and_unknown_subcommands_explain_themselves(bot, fake):
    _, form = bot.driver.send_command("lang fr")
    assert "/vllm lang en" in hook_payloads(fake, form)[0]["text"]
    _, form = bot.driver.send_command("frobnicate now")
    assert "/vllm frobnicate" in hook_payloads(fake, form)[0]["text"]


def test_a_huge_command_text_gets_an_answer_not_a_crash(bot, fake):
    # Slack caps command text far below this; a proxy or a replay might not.
    noise = "INFO 11-09 12:00:00 [loader.py:120] still loading\n" * 20000
    _, form = bot.driver.send_command("diagnose " + noise + fixture_log("cuda-oom"))
    [payload] = hook_payloads(fake, form)
    assert payload["blocks"]


def test_commands_from_any_channel_are_answered(fake, sqlite_url, tmp_path):
    # GPU_HELP_CHANNELS limits where pastes are watched, not where /vllm works.
    running = start_bot(fake, sqlite_url, tmp_path / "spool.jsonl", channels=frozenset({"C0OTHER"}))
    try:
        _, form = running.driver.send_command("diagnose " + fixture_log("cuda-oom"), channel=CHANNEL)
        assert hook_payloads(fake, form)[0]["blocks"]
    finally:
        running.close()
