"""From what someone posted to a stored diagnosis: gather the text (message and log files),
pick the language, diagnose, record. Shared by channel messages, /vllm diagnose and its modal."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from bot.diagnose import diagnose
from bot.diagnose.reading.logtext import to_text
from bot.slack.api_errors import api_error
from bot.slack.deps import Deps
from bot.slack.files import FileRefused, FileTooLarge, fetch, log_files
from bot.slack.texts import t

log = logging.getLogger(__name__)

SOURCE = "slack"


@dataclass
class Paste:
    text: str  # what gets diagnosed: the message, then any log files
    words: str  # what the person typed, for guessing the language
    problems: list[FileRefused] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.text.strip()


@dataclass
class Answer:
    report: Any
    lang: str
    diagnosis_id: int | None

    @property
    def confident(self) -> bool:
        return self.report.verdict == "diagnosed" and bool(self.report.diagnoses)


def gather(deps: Deps, text: str, files: list[dict] | None, client: Any = None) -> Paste:
    parts = [text] if text and text.strip() else []
    problems: list[FileRefused] = []
    settings = deps.settings
    for f in log_files(files):
        try:
            f = _with_download_url(f, client)
            fetched = fetch(f, token=settings.bot_token, allowed_hosts=settings.file_hosts,
                            max_bytes=settings.max_file_bytes)
        except FileRefused as refused:
            log.info("file %s not read: %s", f.get("id"), refused)
            problems.append(refused)
            continue
        decoded, _notes = to_text(fetched.data)
        parts.append(decoded)
    return Paste(text="\n".join(parts), words=text or "", problems=problems)


def _with_download_url(f: dict, client: Any) -> dict:
    # Modal file inputs and some events carry only the file id.
    if f.get("url_private_download") or f.get("url_private") or client is None:
        return f
    try:
        return client.files_info(file=f["id"])["file"]
    except Exception as err:  # noqa: BLE001 - any API failure means "cannot read it"
        raise FileRefused(f"Slack would not describe the file ({api_error(err)})", f.get("name") or f["id"]) from None


def diagnose_and_record(deps: Deps, paste: Paste, *, user: str | None, channel: str | None,
                        thread_ts: str | None = None, message_ts: str | None = None,
                        lang: str | None = None) -> Answer:
    lang = lang or deps.answer_lang(user, paste.words)
    report = diagnose(paste.text, lang=lang, book=deps.book)
    diagnosis_id = None
    if report.verdict != "no_error":  # chatter is not worth keeping
        diagnosis_id = deps.store.record_diagnosis(
            report, source=SOURCE, text=paste.text, channel=channel, user=user,
            thread_ts=thread_ts, message_ts=message_ts, lang=lang)
    return Answer(report=report, lang=lang, diagnosis_id=diagnosis_id)


def problem_text(problem: FileRefused, lang: str) -> str:
    if isinstance(problem, FileTooLarge):
        return t("file_too_large", lang, name=problem.name, size_mb=problem.size / 1024 / 1024,
                 limit_mb=problem.limit / 1024 / 1024)
    return t("file_unreadable", lang, name=problem.name, why=str(problem))
