"""Modal submissions: the log form opened by `/vllm diagnose` (text box or file) and its
validation. (The feedback-reason modal is exercised with the buttons in test_actions.py.)"""

from __future__ import annotations

import pytest

from bot.slack import modals
from tests.slack.conftest import fixture_log

pytestmark = pytest.mark.timeout(60)


def hook_payloads(fake, form: dict, n: int = 1) -> list[dict]:
    hook_id = form["response_url"].rsplit("/", 1)[1]
    fake.wait_for(lambda calls: len([c for c in calls if c.path == f"/hooks/{hook_id}" and c.status == 200]) >= n)
    return fake.hooks[hook_id]


def test_modal_submission_with_text_is_diagnosed_and_answered_privately(bot, fake):
    _, form = bot.driver.send_command("diagnose")
    fake.wait_calls("views.open")
    log = fixture_log("port-in-use")[:3000]
    reply = bot.driver.submit_view(fake.views[0], {
        modals.PASTE_BLOCK: {modals.PASTE_ACTION: {"type": "plain_text_input", "value": log}},
        modals.FILE_BLOCK: {modals.FILE_ACTION: {"type": "file_input", "files": []}}})
    assert reply.status == 200 and reply.body in (b"", b"{}")  # the modal closes
    [payload] = hook_payloads(fake, form)
    assert payload["response_type"] == "ephemeral"
    assert "port" in payload["text"].lower()


def test_modal_submission_with_a_file_reads_the_file(bot, fake):
    _, form = bot.driver.send_command("diagnose")
    fake.wait_calls("views.open")
    f = fake.add_file("engine.log", fixture_log("kv-cache-no-memory"))
    # A file_input hands over file ids; the bot looks up the download link with files.info.
    bot.driver.submit_view(fake.views[0], {
        modals.PASTE_BLOCK: {modals.PASTE_ACTION: {"type": "plain_text_input", "value": None}},
        modals.FILE_BLOCK: {modals.FILE_ACTION: {"type": "file_input", "files": [{"id": f["id"], "name": f["name"]}]}}})
    [payload] = hook_payloads(fake, form)
    assert "KV cache" in payload["text"]
    assert fake.ok_calls("files.info")


def test_empty_modal_submission_is_refused_in_the_modal(bot, fake):
    bot.driver.send_command("diagnose")
    fake.wait_calls("views.open")
    reply = bot.driver.submit_view(fake.views[0], {
        modals.PASTE_BLOCK: {modals.PASTE_ACTION: {"type": "plain_text_input", "value": "  "}},
        modals.FILE_BLOCK: {modals.FILE_ACTION: {"type": "file_input", "files": []}}})
    assert reply.json() == {"response_action": "errors", "errors": {modals.PASTE_BLOCK: "Paste some log text or upload a file."}}


def test_a_file_the_bot_cannot_read_is_explained(bot, fake):
    _, form = bot.driver.send_command("diagnose")
    fake.wait_calls("views.open")
    f = fake.add_file("engine.log", fixture_log("cuda-oom"), serve="login")
    bot.driver.submit_view(fake.views[0], {
        modals.FILE_BLOCK: {modals.FILE_ACTION: {"type": "file_input", "files": [f]}}})
    [payload] = hook_payloads(fake, form)
    assert "sign-in page" in payload["text"]


def test_without_a_usable_response_url_the_answer_goes_to_a_dm(bot, fake):
    bot.driver.send_command("diagnose")
    fake.wait_calls("views.open")
    view = {**fake.views[0], "private_metadata": '{"channel": "C0GPUHELP", "response_url": null}'}
    bot.driver.submit_view(view, {
        modals.PASTE_BLOCK: {modals.PASTE_ACTION: {"type": "plain_text_input", "value": fixture_log("cuda-oom")}}})
    [dm] = fake.wait_calls("chat.postMessage")
    assert dm.params["channel"] == "U0HUMAN01" and dm.params["blocks"]
