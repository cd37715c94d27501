"""`/vllm repro <model-path> [key=value ...]` and posting finished repro jobs.

The job queue is bot.repro (imported lazily: the bot runs without it, and says so). A repro can
take longer than a response_url lives (30 minutes, 5 uses), so everything about a job goes into a
channel thread with chat.postMessage: the request, "queued as job #N", and later the result,
which a background poster picks up from the store.
"""

from __future__ import annotations

import json
import logging
import shlex
from typing import Any

from bot.slack import blocks as render
from bot.slack import mrkdwn
from bot.slack.api_errors import api_error
from bot.slack.deps import Deps
from bot.slack.periodic import Periodic
from bot.slack.texts import t
from bot.store.redact import redact

log = logging.getLogger(__name__)

# Well under Slack's limit for all the text of one message (about 12k characters).
RESULT_TEXT_BUDGET = 7000


class ReproUnavailable(Exception):
    pass


def _queue() -> Any:
    try:
        from bot.repro import queue
    except ImportError as err:
        raise ReproUnavailable(f"bot.repro.queue cannot be imported: {err}") from None
    return queue


def request_repro(deps: Deps, rest: str, command: dict, client: Any, respond: Any) -> None:
    user, channel = command.get("user_id"), command.get("channel_id")
    lang = deps.answer_lang(user, "")
    try:
        args = shlex.split(rest)
    except ValueError:
        args = []
    if not args:
        respond(text=t("repro_usage", lang), response_type="ephemeral")
        return
    queue_repro(deps, args[0], args[1:], user=user, channel=channel, client=client, respond=respond, lang=lang)


def queue_repro(deps: Deps, model: str, pairs: list[str], *, user: str, channel: str, client: Any,
                respond: Any, lang: str, thread_ts: str | None = None) -> None:
    """Validate, post the request (in `thread_ts` when given, else as a new thread), enqueue."""
    try:
        queue = _queue()
        from bot.repro import safety
    except (ReproUnavailable, ImportError) as err:
        respond(text=t("repro_unavailable", lang, why=str(err)), response_type="ephemeral")
        return
    roots = _roots(deps, safety)
    try:
        # Checked before anything is posted in the channel, so a refusal stays private.
        safety.resolve_model_path(model, roots)
        settings = safety.parse_settings(pairs, roots=roots)
    except ValueError as err:  # ReproRefused is a ValueError with a reason to show
        respond(text=redact(t("repro_refused", lang, reason=str(err))), response_type="ephemeral")
        return

    shown = (" " + " ".join(f"`{mrkdwn.escape(p)}`" for p in pairs)) if pairs else ""
    # Echoed into the channel: masked like everything the bot posts.
    request_text = redact(t("repro_requested", lang, user=user, model=mrkdwn.escape(model), settings=shown))
    try:
        parent = client.chat_postMessage(channel=channel, text=request_text, thread_ts=thread_ts)
    except Exception as err:  # noqa: BLE001 - not in the channel, a DM, Slack down
        respond(text=t("repro_no_channel", lang, error=api_error(err)), response_type="ephemeral")
        return
    thread_ts = thread_ts or parent["ts"]
    try:
        job_id = queue.enqueue(deps.store, model, settings, requested_by=user, source="slack",
                               channel=channel, thread_ts=thread_ts, roots=roots)
    except ValueError as err:
        refused = redact(t("repro_refused", lang, reason=mrkdwn.escape(str(err))))
        client.chat_update(channel=channel, ts=parent["ts"], text=f"{request_text}\n{refused}")
        return
    client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=t("repro_queued", lang, job_id=job_id))


def _roots(deps: Deps, safety: Any) -> list[str]:
    # The bot's MODEL_ROOTS, normalised the queue's way. Always a list: to the queue None would
    # mean "no restriction", and a Slack user must never get that.
    return safety.model_roots(list(deps.settings.model_roots), env={})


def repro_offer(deps: Deps, report: Any) -> dict | None:
    """What a "Run repro" button under this diagnosis would start: the model folder the log names,
    when it lies under the model roots, with the user's own settings that a repro accepts."""
    if not deps.settings.model_roots or report is None or not report.diagnoses:
        return None
    try:
        from bot.repro import safety
    except ImportError:
        return None
    roots = _roots(deps, safety)
    facts = report.facts or {}
    model = safety.repro_candidate(facts.get("model"), roots)
    if model is None:
        return None
    settings = {}
    for key, value in (facts.get("user_args") or {}).items():
        try:
            settings.update(safety.validate_settings({key: value}, roots=roots))
        except ValueError:
            continue                      # a setting the worker would refuse is left out
    settings.pop("model", None)
    return {"model": model, "settings": settings}


def as_pairs(settings: dict) -> list[str]:
    """Settings as the `key=value` words `/vllm repro` takes."""
    return [f"{k}={json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else v}"
            for k, v in settings.items()]


class ReproPoster:
    """Posts finished repro jobs into their threads, then marks them posted.

    Two bot replicas may both see a job as finished-but-unposted; the store's event claim
    (the same one that dedupes Slack events) picks the one that posts.
    """

    def __init__(self, client: Any, store: Any, *, interval_s: float = 5.0) -> None:
        self.client = client
        self.store = store
        self._rounds = Periodic("posting finished repro jobs", self._round, interval_s)

    def start(self) -> "ReproPoster":
        self._rounds.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._rounds.stop(timeout)

    def running(self) -> bool:
        return self._rounds.running()

    def _round(self) -> None:
        try:
            self.post_finished()
        except ReproUnavailable:
            log.info("repro queue not installed; the poster stops")
            self._rounds.stop()

    def post_finished(self) -> int:
        queue = _queue()
        posted = 0
        for job in queue.finished_unposted(self.store):
            job_id = job["id"]
            # The claim keeps a second replica from posting too; mark_posted after the post
            # keeps a result that failed to post from being marked as posted.
            if not self.store.claim_event(f"repro-posted:{job_id}"):
                continue
            self.post_job(queue, job)
            queue.mark_posted(self.store, job_id)
            posted += 1
        return posted

    def post_job(self, queue: Any, job: dict) -> None:
        channel, thread_ts = job.get("channel"), job.get("thread_ts")
        result = job.get("result") or {}
        if result:
            markdown = queue.render_result_markdown(result)
        else:  # the worker gave up without a result (crash, lease lost too often, cancelled early)
            markdown = f"**Repro job #{job['id']}** ended *{job.get('status')}*: {job.get('error') or 'no result'}"
        text = mrkdwn.from_markdown(markdown)
        blocks = render.render_notice(mrkdwn.clip(text, RESULT_TEXT_BUDGET)[0]).blocks
        self.client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=mrkdwn.shorten(text, 3000),
                                     blocks=blocks, unfurl_links=False)
        script = result.get("repro_script")
        if script:
            lang = self.store.get_user_lang(job.get("requested_by") or "") or "en"
            name = f"repro-job-{job['id']}.py"
            self.client.files_upload_v2(channel=channel, thread_ts=thread_ts, filename=name, title=name,
                                        content=script, initial_comment=t("repro_script", lang, job_id=job["id"]))
