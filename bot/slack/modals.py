"""The two modals: a log to diagnose (text box + file upload), and the reason behind a
"wrong"/"partly" feedback. Built with slack_sdk.models so limits are checked here."""

from __future__ import annotations

import json
from typing import Any

from slack_sdk.models.blocks import InputBlock, PlainTextInputElement
from slack_sdk.models.blocks.block_elements import FileInputElement
from slack_sdk.models.views import View

from bot.slack.texts import t

DIAGNOSE_VIEW = "vllm_diagnose"
REASON_VIEW = "vllm_feedback_reason"
PASTE_BLOCK, PASTE_ACTION = "paste", "paste_text"
FILE_BLOCK, FILE_ACTION = "file", "paste_file"
REASON_BLOCK, REASON_ACTION = "reason", "reason_text"
# A modal plain_text_input holds at most 3000 characters; longer logs go through the file input.
PASTE_MAX = 3000
REASON_MAX = 2000


def diagnose_modal(lang: str, metadata: dict) -> dict:
    return View(
        type="modal",
        callback_id=DIAGNOSE_VIEW,
        title=t("modal_title", lang)[:24],
        submit=t("modal_submit", lang)[:24],
        private_metadata=json.dumps(metadata),
        blocks=[
            InputBlock(block_id=PASTE_BLOCK, label=t("modal_paste", lang), optional=True,
                       element=PlainTextInputElement(action_id=PASTE_ACTION, multiline=True, max_length=PASTE_MAX)),
            InputBlock(block_id=FILE_BLOCK, label=t("modal_file", lang), optional=True,
                       element=FileInputElement(action_id=FILE_ACTION, filetypes=["log", "txt"], max_files=3)),
        ],
    ).to_dict()


def reason_modal(lang: str, metadata: dict) -> dict:
    return View(
        type="modal",
        callback_id=REASON_VIEW,
        title=t("reason_title", lang)[:24],
        submit=t("reason_submit", lang)[:24],
        notify_on_close=True,  # closing without a reason still counts as feedback
        private_metadata=json.dumps(metadata),
        blocks=[
            InputBlock(block_id=REASON_BLOCK, label=t("reason_label", lang), optional=True,
                       element=PlainTextInputElement(action_id=REASON_ACTION, multiline=True, max_length=REASON_MAX)),
        ],
    ).to_dict()


def metadata(view: dict) -> dict:
    try:
        value = json.loads(view.get("private_metadata") or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def value(view: dict, block_id: str, action_id: str) -> Any:
    """The submitted value of one input: text for a text box, a list of files for a file input."""
    state = ((view.get("state") or {}).get("values") or {}).get(block_id, {}).get(action_id) or {}
    if "files" in state:
        return state.get("files") or []
    return state.get("value")
