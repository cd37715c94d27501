"""Pastes in the help channels: answer a recognised vLLM failure in its thread, stay quiet
otherwise.

Events are acknowledged by bolt before this runs, so the work here is off the 3-second path.
Slack retries an event it thinks was lost, and two replicas may each get one delivery: the store
decides who answers (claim_message is an insert on a primary key). The answer goes out through
the outbox (bot/slack/replies.py), so a post Slack refuses is tried again rather than lost, and a
retry of a message whose answer is waiting there brings the next attempt forward.
"""

from __future__ import annotations

import logging
from typing import Any

from bot.slack import blocks as render
from bot.slack.repro import repro_offer
from bot.slack.deps import get
from bot.slack.paste import diagnose_and_record, gather, problem_text

log = logging.getLogger(__name__)

# Events the manifest subscribes to (message.channels, message.groups) arrive as `message`.
EVENTS = ("message",)
# Messages people post; everything else (edits, deletions, joins, bot posts) is ignored.
ANSWERED_SUBTYPES = (None, "file_share", "thread_broadcast")


def register(app: Any) -> None:
    app.event("message")(on_message)


def is_candidate(event: dict, watched: Any, bot_user_id: str | None) -> bool:
    """A message from a person, in a watched channel, that is not an edit or a bot's post."""
    if event.get("subtype") not in ANSWERED_SUBTYPES or event.get("hidden"):
        return False
    # What Slack always sends, in the types it sends them; anything else is not a message to answer.
    if not all(isinstance(event.get(k), str) and event[k] for k in ("ts", "channel", "user")):
        return False
    if not isinstance(event.get("text", ""), (str, type(None))) or not isinstance(event.get("files", []), (list, type(None))):
        return False
    if event.get("bot_id") or event.get("bot_profile"):
        return False
    if not event.get("user") or event.get("user") == bot_user_id:
        return False
    if event.get("channel_type") in ("im", "mpim"):
        return False
    return watched(event.get("channel"))


def message_key(event: dict) -> str:
    """The message itself, whatever event id it comes under (message and app_mention, or a
    re-delivery after an outage): what is claimed, and what its reply is stored under."""
    return f"msg:{event.get('channel')}:{event.get('ts')}"


def on_message(body: dict, event: dict, context: Any, client: Any) -> None:
    deps = get(context)
    where = f"{event.get('channel')}/{event.get('ts')}"
    if not is_candidate(event, deps.settings.watches, context.get("bot_user_id")):
        log.debug("message %s: ignored (subtype %s)", where, event.get("subtype"))
        return
    key = message_key(event)
    if not deps.store.claim_message(key, event_id=body.get("event_id")):
        nudged = deps.replies.nudge(key)
        log.info("message %s: duplicate delivery of %s%s", where, body.get("event_id"),
                 " (its stored answer was posted now)" if nudged else "")
        return
    log.info("message %s: %s", where, answer_message(deps, event, client, key))


def answer_message(deps: Any, event: dict, client: Any, key: str) -> str:
    """Answer one message if it deserves it; what happened, for the log."""
    paste = gather(deps, event.get("text") or "", event.get("files"), client)
    if paste.empty and not paste.problems:
        deps.store.settle(key)
        return "quiet: empty"
    channel, user = event["channel"], event.get("user")
    thread_ts = event.get("thread_ts") or event["ts"]
    answer = None
    if not paste.empty:
        answer = diagnose_and_record(deps, paste, user=user, channel=channel, thread_ts=thread_ts,
                                     message_ts=event["ts"])
    if answer is not None and answer.confident:
        notes = [problem_text(p, answer.lang) for p in paste.problems]
        rendered = render.render(answer.report, lang=answer.lang, diagnosis_id=answer.diagnosis_id, notes=notes,
                                 repro=repro_offer(deps, answer.report))
        sent = deps.replies.send(key, channel=channel, thread_ts=thread_ts, rendered=rendered, lang=answer.lang,
                                 diagnosis_id=answer.diagnosis_id)
        return f"answered: {answer.report.diagnoses[0].rule_id} (diagnosis {answer.diagnosis_id}), {sent}"
    if paste.problems:
        # Someone attached a log we could not read: say so rather than look like we ignored it.
        lang = answer.lang if answer else deps.answer_lang(user, paste.words)
        notice = render.render_notice("\n".join(problem_text(p, lang) for p in paste.problems))
        sent = deps.replies.send(key, channel=channel, thread_ts=thread_ts, rendered=notice, lang=lang)
        return f"answered: file problem, {sent}"
    deps.store.settle(key)
    return f"quiet: {answer.report.verdict} (diagnosis {answer.diagnosis_id})"
