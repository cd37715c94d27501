"""Feedback buttons under an answer: fixed it / wrong / partly.

"Fixed it" is stored at once. "Wrong" and "partly" first open a modal asking why (the trigger
lives three seconds, so that comes before anything else); the feedback is stored when the modal
is submitted or closed, with the reason if one was given. Either way the message shows at once
that the click was received.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from bot.slack import blocks as render
from bot.slack import modals
from bot.slack.api_errors import api_error
from bot.slack.deps import Deps, get
from bot.slack.repro import as_pairs, queue_repro

log = logging.getLogger(__name__)

ACTIONS = tuple(render.FEEDBACK_ACTIONS.values())
_FEEDBACK = re.compile(r"^feedback_(fixed|wrong|partly)$")


def register(app: Any) -> None:
    app.action(_FEEDBACK)(on_feedback)
    app.action(render.RUN_REPRO_ACTION)(on_run_repro)


def on_run_repro(ack: Any, body: dict, action: dict, client: Any, respond: Any, context: Any) -> None:
    """The "Run repro" button under a diagnosis: the same checks and queue as `/vllm repro`,
    with the model and settings the log showed, posted in the diagnosis's thread."""
    ack()
    deps = get(context)
    user = body["user"]["id"]
    lang = render.feedback_lang(action.get("block_id"))
    try:
        offer = json.loads(action.get("value") or "")
        model, settings = str(offer["model"]), dict(offer.get("settings") or {})
    except (ValueError, KeyError, TypeError):
        log.warning("run-repro button with a bad value: %r", action.get("value"))
        return
    where = message_location(body)
    # Under an answer in a thread the repro joins that thread; an ephemeral answer has no thread.
    thread = None if where["ephemeral"] else ((body.get("message") or {}).get("thread_ts") or where.get("ts"))
    queue_repro(deps, model, as_pairs(settings), user=user, channel=where.get("channel"), client=client,
                respond=respond, lang=lang, thread_ts=thread)


def on_feedback(ack: Any, body: dict, action: dict, client: Any, respond: Any, context: Any) -> None:
    ack()
    deps = get(context)
    verdict = _FEEDBACK.match(action["action_id"]).group(1)
    user = body["user"]["id"]
    lang = render.feedback_lang(action.get("block_id"))
    try:
        diagnosis_id = int(action.get("value", ""))
    except ValueError:
        log.warning("feedback button without a diagnosis id: %r", action.get("value"))
        return
    where = message_location(body)
    asked_why = verdict != "fixed" and ask_reason(client, body.get("trigger_id"), lang, {
        "diagnosis_id": diagnosis_id, "verdict": verdict, **where})
    if not asked_why:
        store_feedback(deps, diagnosis_id, verdict, user=user)
    show_received(client, respond, body.get("message") or {}, where, verdict=verdict, user=user, lang=lang)


def ask_reason(client: Any, trigger_id: str | None, lang: str, metadata: dict) -> bool:
    if not trigger_id:
        return False
    try:
        client.views_open(trigger_id=trigger_id, view=modals.reason_modal(lang, metadata))
        return True
    except Exception as err:  # noqa: BLE001 - no modal: store the feedback without a reason
        log.warning("could not open the reason modal: %s", api_error(err))
        return False


def store_feedback(deps: Deps, diagnosis_id: int, verdict: str, *, user: str, reason: str | None = None) -> None:
    try:
        deps.store.record_feedback(diagnosis_id, verdict, user=user, reason=reason or None)
    except ValueError as err:  # e.g. the diagnosis was deleted; nothing the user can do
        log.warning("feedback not stored: %s", err)


def message_location(body: dict) -> dict:
    container = body.get("container") or {}
    return {"channel": container.get("channel_id") or (body.get("channel") or {}).get("id"),
            "ts": container.get("message_ts"), "ephemeral": bool(container.get("is_ephemeral"))}


def show_received(client: Any, respond: Any, message: dict, where: dict, *, verdict: str, user: str,
                  lang: str) -> None:
    received = render.feedback_received(verdict=verdict, user=user, lang=lang)
    try:
        if not message.get("blocks"):
            # Slack leaves the message out of clicks on some ephemeral answers: without its
            # blocks, replacing it would wipe the answer, so add a line instead.
            respond(replace_original=False, response_type="ephemeral", text=received["elements"][0]["text"])
            return
        blocks = render.with_feedback_received(message["blocks"], verdict=verdict, user=user, lang=lang)
        text = message.get("text") or "vllm-doctor"
        if where.get("ephemeral") or not where.get("ts"):
            # An ephemeral answer (from /vllm diagnose) can only be changed through its response_url.
            respond(replace_original=True, text=text, blocks=blocks)
        else:
            client.chat_update(channel=where["channel"], ts=where["ts"], text=text, blocks=blocks)
    except Exception as err:  # noqa: BLE001 - the feedback is kept even if the message stays as it was
        log.warning("could not update the answer after feedback: %s", api_error(err))
