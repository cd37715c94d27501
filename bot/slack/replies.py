"""Answers in a channel go out through the outbox (bot/store/outbox.py): stored, then posted.

`send` stores the reply and posts it at once. A post that fails after the Web API client's own
retries (slack_sdk's handlers: 429 after Retry-After, 5xx, dropped connections, Slack's transient
`ok: false` errors) stays in the outbox and is tried again later, twice as late each time, by
whichever replica takes it first (`post_due`, on a timer, also right after a restart); Slack's
retry of the message brings the next attempt forward (`nudge`). A reply posted once is marked so
in the same place the next attempt would look, and never posted again.

With the database down there is no outbox: the reply is posted at once, and what happened is
spooled and written to the outbox when the database is back (a reply not posted then is posted
from there).
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from bot.slack.api_errors import api_error
from bot.slack.periodic import Periodic
from bot.slack.texts import t
from bot.store import outbox
from bot.store.models import utcnow
from bot.store.store import is_outage

log = logging.getLogger(__name__)

# Errors for which the same post can never work: trying again only delays saying so.
PERMANENT = frozenset({"channel_not_found", "is_archived", "not_in_channel", "msg_too_long", "msg_blocks_too_long",
                       "invalid_blocks", "invalid_arguments", "no_text", "too_many_attachments"})


class Replies:
    def __init__(self, client: Any, store: Any, *, retry_s: float = outbox.FIRST_DELAY_S) -> None:
        self.client = client
        self.store = store
        self.retry_s = retry_s
        # Names this process in the leases it holds (two bots on one host are two owners).
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._rounds = Periodic("posting queued replies", self.post_due, retry_s)

    def start(self) -> "Replies":
        self._rounds.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._rounds.stop(timeout)

    # -- what the listeners call -----------------------------------------------------------------

    def send(self, key: str, *, channel: str, thread_ts: str, rendered: Any, lang: str,
             diagnosis_id: int | None = None) -> str:
        """Store the reply to message `key` and post it; what happened, for the log."""
        record = outbox.reply_record(key, channel=channel, thread_ts=thread_ts, text=rendered.text,
                                     blocks=rendered.blocks, lang=lang, attachment=rendered.attachment,
                                     diagnosis_id=diagnosis_id)
        try:
            reply_id = outbox.enqueue(self.store, record)
            if reply_id is None:
                return "reply already stored by another replica"
            taken = outbox.take(self.store, reply_id, self.owner)
        except SQLAlchemyError as e:
            if not is_outage(e):
                raise
            return self._send_without_database(record, e)
        return self._deliver(taken) if taken is not None else "reply queued"

    def nudge(self, key: str) -> bool:
        """Slack's retry of message `key`: post its stored reply now if it is still waiting."""
        try:
            waiting = outbox.for_message(self.store, key)
            if waiting is None or waiting.status != "pending":
                return False
            taken = outbox.take(self.store, waiting.id, self.owner, even_early=True)
        except SQLAlchemyError as e:
            if not is_outage(e):
                raise
            return False
        if taken is None:
            return False
        log.info("reply %s to %s (Slack retried the message): %s", taken.id, key, self._deliver(taken))
        return True

    def post_due(self) -> int:
        """Post the replies whose next attempt is due; how many were posted. The timer's task."""
        done = 0
        for reply_id in outbox.due(self.store):
            taken = outbox.take(self.store, reply_id, self.owner)
            if taken is None:
                continue                  # another replica took it first
            outcome = self._deliver(taken)
            log.info("reply %s to %s: %s", reply_id, taken.message_key, outcome)
            done += outcome == "posted"
        return done

    # -- posting ---------------------------------------------------------------------------------

    def _deliver(self, reply: outbox.Outgoing) -> str:
        """Post a reply this process holds the lease of; record how it went."""
        try:
            ts = self._post(reply.channel, reply.thread_ts, reply.text, reply.blocks)
        except Exception as err:  # noqa: BLE001 - SlackApiError, or the network after the client's retries
            error = api_error(err)
            try:
                state = outbox.failed(self.store, reply.id, self.owner, error, permanent=error in PERMANENT,
                                      first_delay_s=self.retry_s)
            except SQLAlchemyError as e:
                if not is_outage(e):
                    raise
                # The database went too: the lease this process holds runs out, and the reply is
                # taken again once the database is back.
                return f"not posted ({error}); tried again when the database is back"
            if state == "retry":
                return f"not posted ({error}); trying again in {outbox.delay_after(reply.attempts + 1, self.retry_s):g}s"
            log.warning("gave up posting reply %s to %s after %d attempt(s): %s", reply.id, reply.message_key,
                        reply.attempts + 1, error)
            return f"not posted ({error}); given up"
        try:
            outbox.posted(self.store, reply.id, self.owner, ts)
        except SQLAlchemyError as e:
            if not is_outage(e):
                raise
            # Posted, and the database went away before it could say so: the mark is spooled, so
            # the reply is not posted again when the database is back.
            self.store.spool.append("reply_posted", {"message_key": reply.message_key, "ts": ts,
                                                     "posted_at": utcnow().isoformat()}, e)
        self._attach(reply.channel, reply.thread_ts, reply.attachment_name, reply.attachment, reply.lang)
        return "posted"

    def _send_without_database(self, record: dict, error: BaseException) -> str:
        try:
            ts = self._post(record["channel"], record["thread_ts"], record["text"], record["blocks"])
        except Exception as err:  # noqa: BLE001
            # Kept for the outbox: posted from there once the database is back.
            self.store.spool.append("reply", {**record, "error": api_error(err)}, error)
            return f"not posted ({api_error(err)}); kept until the database is back"
        self.store.spool.append("reply", {**record, "status": "posted", "posted_ts": ts, "attempts": 1,
                                          "posted_at": utcnow().isoformat()}, error)
        self._attach(record["channel"], record["thread_ts"], record["attachment_name"], record["attachment"],
                     record["lang"])
        return "posted"

    def _post(self, channel: str, thread_ts: str, text: str, blocks: list) -> str | None:
        response = self.client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=text, blocks=blocks,
                                                unfurl_links=False, unfurl_media=False)
        return response.get("ts")

    def _attach(self, channel: str, thread_ts: str, filename: str | None, content: str | None, lang: str) -> None:
        if not filename or content is None:
            return
        try:
            self.client.files_upload_v2(channel=channel, thread_ts=thread_ts, filename=filename, title=filename,
                                        content=content, initial_comment=t("file_comment", lang))
        except Exception:  # noqa: BLE001 - the answer is already posted; the file is a bonus
            log.exception("could not upload %s to %s", filename, channel)
