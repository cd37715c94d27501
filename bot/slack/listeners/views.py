"""Modal submissions: a log to diagnose (from `/vllm diagnose` with no text) and the reason behind
a "wrong"/"partly" feedback."""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.webhook import WebhookClient

from bot.slack import blocks as render
from bot.slack import modals
from bot.slack.api_errors import api_error
from bot.slack.deps import Deps, get
from bot.slack.listeners.actions import store_feedback
from bot.slack.paste import diagnose_and_record, gather, problem_text
from bot.slack.repro import repro_offer
from bot.slack.texts import t

log = logging.getLogger(__name__)

VIEWS = (modals.DIAGNOSE_VIEW, modals.REASON_VIEW)


def register(app: Any) -> None:
    app.view(modals.DIAGNOSE_VIEW)(on_diagnose_submit)
    app.view(modals.REASON_VIEW)(on_reason_submit)
    app.view_closed(modals.REASON_VIEW)(on_reason_closed)


def on_diagnose_submit(ack: Any, body: dict, view: dict, client: Any, context: Any) -> None:
    deps = get(context)
    user = body["user"]["id"]
    text = modals.value(view, modals.PASTE_BLOCK, modals.PASTE_ACTION) or ""
    files = modals.value(view, modals.FILE_BLOCK, modals.FILE_ACTION) or []
    if not text.strip() and not files:
        lang = deps.cached_lang(user)
        ack(response_action="errors", errors={modals.PASTE_BLOCK: t("modal_empty", lang)})
        return
    ack()  # closes the modal; the answer follows as an ephemeral message
    meta = modals.metadata(view)
    try:
        paste = gather(deps, text, files, client)
        if paste.empty:
            lang = deps.answer_lang(user, text)
            rendered = render.render_notice("\n".join(problem_text(p, lang) for p in paste.problems))
        else:
            answer = diagnose_and_record(deps, paste, user=user, channel=meta.get("channel"))
            notes = [problem_text(p, answer.lang) for p in paste.problems]
            rendered = render.render(answer.report, lang=answer.lang, diagnosis_id=answer.diagnosis_id, notes=notes,
                              repro=repro_offer(deps, answer.report))
    except Exception as err:  # noqa: BLE001 - the user submitted something; they get an answer
        log.exception("diagnosing a modal submission failed")
        rendered = render.render_notice(t("internal_error", deps.cached_lang(user), error=type(err).__name__))
    send_private(client, meta, user, rendered)


def send_private(client: Any, meta: dict, user: str, rendered: render.Rendered) -> None:
    """Answer only the user: through the command's response_url, else in their DM with the app."""
    response_url = meta.get("response_url")
    if response_url:
        try:
            resp = WebhookClient(response_url).send(response_type="ephemeral", text=rendered.text, blocks=rendered.blocks)
            if resp.status_code == 200:
                return
            log.info("response_url refused the answer (%s); sending it as a DM", resp.status_code)
        except Exception as err:  # noqa: BLE001
            log.info("response_url failed (%s); sending it as a DM", api_error(err))
    client.chat_postMessage(channel=user, text=rendered.text, blocks=rendered.blocks)


def on_reason_submit(ack: Any, body: dict, view: dict, context: Any) -> None:
    ack()
    _store_reason(get(context), body, view, modals.value(view, modals.REASON_BLOCK, modals.REASON_ACTION))


def on_reason_closed(ack: Any, body: dict, view: dict, context: Any) -> None:
    ack()
    _store_reason(get(context), body, view, None)


def _store_reason(deps: Deps, body: dict, view: dict, reason: str | None) -> None:
    meta = modals.metadata(view)
    if meta.get("verdict") not in ("wrong", "partly") or not isinstance(meta.get("diagnosis_id"), int):
        log.warning("reason modal without a diagnosis: %r", meta)
        return
    store_feedback(deps, meta["diagnosis_id"], meta["verdict"], user=body["user"]["id"], reason=reason)
