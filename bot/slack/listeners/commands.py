"""`/vllm diagnose | repro | lang | help`.

Every branch calls ack() first: Slack shows the user an error if the command is not acknowledged
within three seconds. The work comes after; the answer goes through respond() (the command's
response_url), only to the user who asked, since a pasted log can hold things they would not
post in the channel.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from bot.slack import blocks as render
from bot.slack import modals, mrkdwn
from bot.slack.api_errors import api_error
from bot.slack.deps import Deps, get
from bot.slack.paste import Paste, diagnose_and_record
from bot.slack.repro import repro_offer, request_repro
from bot.slack.texts import t

log = logging.getLogger(__name__)

COMMANDS = ("/vllm",)
SUBCOMMANDS = ("diagnose", "repro", "lang", "help")
_SPLIT = re.compile(r"\s*(\S*)\s*(.*)", re.S)


def register(app: Any) -> None:
    for command in COMMANDS:
        app.command(command)(on_vllm)


def parse(text: str | None) -> tuple[str, str]:
    """('diagnose', 'rest of the text') from the command text; newlines in the rest are kept."""
    match = _SPLIT.match(text or "")
    sub, rest = (match.group(1), match.group(2)) if match else ("", "")
    return sub.lower(), rest.strip()


def on_vllm(ack: Any, command: dict, client: Any, respond: Any, context: Any) -> None:
    deps = get(context)
    sub, rest = parse(command.get("text"))
    user = command.get("user_id")
    if sub in ("", "help"):
        ack(**_message(render.render_notice(t("help", deps.cached_lang(user)))))
        return
    if sub == "diagnose" and not rest:
        ack()
        open_diagnose_modal(deps, client, command, respond)
        return
    ack()
    try:
        if sub == "diagnose":
            diagnose_text(deps, rest, command, respond)
        elif sub == "lang":
            set_lang(deps, rest, command, respond)
        elif sub == "repro":
            request_repro(deps, rest, command, client, respond)
        else:
            notice = t("unknown_subcommand", deps.cached_lang(user), sub=mrkdwn.escape(sub[:40]))
            respond(**_message(render.render_notice(notice)), response_type="ephemeral")
    except Exception as err:  # noqa: BLE001 - whatever broke, the user hears about it
        log.exception("/vllm %s failed", sub)
        respond(text=t("internal_error", deps.cached_lang(user), error=type(err).__name__), response_type="ephemeral")


def open_diagnose_modal(deps: Deps, client: Any, command: dict, respond: Any) -> None:
    """Open the paste-or-upload form. Nothing comes before views.open: the trigger lives three
    seconds, so no database call may stand in the way."""
    lang = deps.cached_lang(command.get("user_id"))
    metadata = {"channel": command.get("channel_id"), "response_url": command.get("response_url")}
    try:
        client.views_open(trigger_id=command["trigger_id"], view=modals.diagnose_modal(lang, metadata))
    except Exception as err:  # noqa: BLE001 - SlackApiError or a network failure
        error = api_error(err)
        log.warning("views.open failed: %s", error)
        respond(text=t("modal_failed", lang, error=error), response_type="ephemeral")


def diagnose_text(deps: Deps, text: str, command: dict, respond: Any) -> None:
    paste = Paste(text=text, words=text)
    answer = diagnose_and_record(deps, paste, user=command.get("user_id"), channel=command.get("channel_id"))
    rendered = render.render(answer.report, lang=answer.lang, diagnosis_id=answer.diagnosis_id,
                             repro=repro_offer(deps, answer.report))
    respond(**_message(rendered), response_type="ephemeral")


def set_lang(deps: Deps, rest: str, command: dict, respond: Any) -> None:
    lang = rest.strip().lower()
    user = command["user_id"]
    if lang not in ("en", "zh"):
        respond(text=t("lang_usage", deps.cached_lang(user)), response_type="ephemeral")
        return
    deps.set_user_lang(user, lang)
    respond(text=t("lang_set", lang), response_type="ephemeral")


def _message(rendered: render.Rendered) -> dict:
    return {"text": rendered.text, "blocks": rendered.blocks}
