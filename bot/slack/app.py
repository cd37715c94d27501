"""The bolt App: one factory, no side effects at import, the same App for Socket Mode and HTTP."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.http_retry.handler import RetryHandler

from bot.slack.deps import Deps
from bot.slack.listeners import register_all
from bot.slack.settings import Settings

log = logging.getLogger(__name__)


class _TokenFromClient(logging.Filter):
    """Drops bolt's "As you gave `client` as well, `token` will be unused." warning.

    bolt reads SLACK_BOT_TOKEN from the environment whenever it is given no token, so an App built
    with our own client (the one with the retry handlers and SLACK_API_URL) warns on every start
    although that token is the client's: a warning an operator can do nothing about.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped

        return record.getMessage() != warning_client_prioritized_and_token_skipped()


def _quiet_token_warning() -> None:
    bolt_log = logging.getLogger("slack_bolt.App")      # bolt's get_bolt_logger(App)
    if not any(isinstance(f, _TokenFromClient) for f in bolt_log.filters):
        bolt_log.addFilter(_TokenFromClient())


def load_book(settings: Settings) -> Any:
    """The shipped rule book with the team's packs on top; what did not load is logged, not fatal."""
    from bot.diagnose.knowledge.rulebook import load_rulebook
    from bot.diagnose.knowledge.rulebook.packs import packs_of

    book = load_rulebook(packs=list(settings.rule_packs))
    packs = ", ".join(f"{p.name} ({len(p.rule_ids)})" for p in packs_of(book))
    log.info("rule book %s: %d rules from %s", book.version, len(book), packs)
    for error in book.errors:
        log.warning("rule not loaded: %s", error)
    return book


class TransientErrorRetryHandler(RetryHandler):
    """Retries a call Slack answered `200 {"ok": false}` with an error it documents as passing:
    its own trouble, not the request's. (ServerErrorRetryHandler sees only 500 and 503.)"""

    TRANSIENT = frozenset({"internal_error", "fatal_error", "service_unavailable", "request_timeout"})

    def _can_retry(self, *, state: Any, request: Any, response: Any = None, error: Any = None) -> bool:
        body = getattr(response, "body", None)
        return (response is not None and response.status_code == 200 and isinstance(body, dict)
                and body.get("ok") is False and body.get("error") in self.TRANSIENT)


def make_client(settings: Settings) -> WebClient:
    """A Web API client that retries what Slack asks to be retried: 429 after its Retry-After
    (slept in the calling worker thread, never on the ack path), 500/503, Slack's transient
    `ok: false` errors, and dropped connections. What still fails is the outbox's (replies.py)."""
    return WebClient(
        token=settings.bot_token,
        base_url=settings.api_url,
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=2),
            RateLimitErrorRetryHandler(max_retry_count=3),
            ServerErrorRetryHandler(max_retry_count=2),
            TransientErrorRetryHandler(max_retry_count=2),
        ],
    )


def build_app(settings: Settings, *, store: Any = None, book: Any = None, client: WebClient | None = None,
              replies: Any = None) -> App:
    """The App; `replies` (bot.slack.replies.Replies, built on `client`) is passed by whoever starts
    and stops its timer (serve), else made here, its timer not running."""
    if store is None:
        from bot.store import Store

        store = Store.from_env(settings.database_url)
    if book is None:
        book = load_book(settings)
    client = client or (replies.client if replies is not None else make_client(settings))
    if replies is None:
        from bot.slack.replies import Replies

        replies = Replies(client, store, retry_s=settings.reply_retry_s)
    _quiet_token_warning()
    app = App(
        client=client,
        signing_secret=settings.signing_secret,
        # auth.test runs on the first request instead of here, so building the App needs no network.
        token_verification_enabled=False,
        # A long-running service: ack first, run the listener in bolt's worker threads.
        process_before_response=False,
    )
    deps = Deps(settings=settings, store=store, book=book, replies=replies)

    def inject_deps(context: Any, next: Any) -> None:  # noqa: A002 - bolt injects `next` by name
        context["deps"] = deps
        next()

    app.use(inject_deps)
    register_all(app)
    return app

