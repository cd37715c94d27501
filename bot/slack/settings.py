"""The bot's settings, read from the environment once at start-up."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from bot.base.errors import SetupError
from bot.diagnose.knowledge.rulebook import local_packs

DEFAULT_API_URL = "https://slack.com/api/"
DEFAULT_FILE_HOSTS = ("files.slack.com",)
DEFAULT_MAX_FILE_MB = 20.0


class SettingsError(SetupError, ValueError):
    """A setting is missing or malformed; the message says which and how to fix it."""


@dataclass(frozen=True)
class Settings:
    bot_token: str
    signing_secret: str = ""
    app_token: str = ""
    api_url: str = DEFAULT_API_URL
    # Channel ids to watch; empty means every channel the bot has been invited to.
    channels: frozenset[str] = frozenset()
    database_url: str | None = None
    # host[:port] values a file may be downloaded from with the bot token.
    file_hosts: tuple[str, ...] = DEFAULT_FILE_HOSTS
    model_roots: tuple[str, ...] = ()
    max_file_bytes: int = int(DEFAULT_MAX_FILE_MB * 1024 * 1024)
    # Seconds between looks for finished repro jobs to post.
    repro_poll_s: float = 5.0
    # Seconds between attempts to write records spooled while the database was down.
    spool_flush_s: float = 30.0
    # Seconds to the first retry of an answer Slack would not take (then twice as long each time,
    # up to 5 minutes); also how often queued answers are looked for.
    reply_retry_s: float = 5.0
    # Connections one client address may hold open over HTTP (0: no cap, behind a proxy whose one
    # address every request has; the proxy bounds its clients then).
    http_per_client: int = 20
    # Team rule packs loaded on top of the shipped book ($VLLM_DOCTOR_LOCAL_RULES, then --rules).
    rule_packs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # slack_sdk joins the method name onto base_url with urljoin, which drops a last path
        # segment that has no trailing slash ("…/api" + "chat.postMessage" → "…/chat.postMessage").
        if not self.api_url.endswith("/"):
            object.__setattr__(self, "api_url", self.api_url + "/")

    def watches(self, channel: str | None) -> bool:
        return bool(channel) and (not self.channels or channel in self.channels)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        env = os.environ if env is None else env
        bot_token = env.get("SLACK_BOT_TOKEN", "").strip()
        if not bot_token:
            raise SettingsError("SLACK_BOT_TOKEN is not set (the bot token, xoxb-…, from the app's OAuth page)")
        return cls(
            bot_token=bot_token,
            signing_secret=env.get("SLACK_SIGNING_SECRET", "").strip(),
            app_token=env.get("SLACK_APP_TOKEN", "").strip(),
            api_url=env.get("SLACK_API_URL", "").strip() or DEFAULT_API_URL,
            channels=frozenset(_split(env.get("GPU_HELP_CHANNELS", ""))),
            database_url=env.get("DATABASE_URL") or None,
            file_hosts=tuple(h.lower() for h in _split(env.get("SLACK_FILE_HOSTS", ""))) or DEFAULT_FILE_HOSTS,
            model_roots=tuple(_split(env.get("MODEL_ROOTS", ""), seps=",:")),
            max_file_bytes=_megabytes(env.get("SLACK_MAX_FILE_MB", ""), "SLACK_MAX_FILE_MB"),
            repro_poll_s=_positive(env.get("REPRO_POLL_SECONDS", ""), "REPRO_POLL_SECONDS", 5.0),
            spool_flush_s=_positive(env.get("SPOOL_FLUSH_SECONDS", ""), "SPOOL_FLUSH_SECONDS", 30.0),
            reply_retry_s=_positive(env.get("REPLY_RETRY_SECONDS", ""), "REPLY_RETRY_SECONDS", 5.0),
            http_per_client=_count(env.get("HTTP_CONNECTIONS_PER_CLIENT", ""), "HTTP_CONNECTIONS_PER_CLIENT", 20),
            rule_packs=tuple(local_packs(env=env)),
        )


def _split(value: str, seps: str = ",") -> list[str]:
    for sep in seps[1:]:
        value = value.replace(sep, seps[0])
    return [part.strip() for part in value.split(seps[0]) if part.strip()]


def _positive(value: str, name: str, default: float) -> float:
    if not value.strip():
        return default
    try:
        number = float(value)
    except ValueError:
        raise SettingsError(f"{name} must be a number, got {value!r}") from None
    if number <= 0:
        raise SettingsError(f"{name} must be greater than 0, got {value!r}")
    return number


def _count(value: str, name: str, default: int) -> int:
    if not value.strip():
        return default
    try:
        number = int(value)
    except ValueError:
        raise SettingsError(f"{name} must be a whole number, got {value!r}") from None
    if number < 0:
        raise SettingsError(f"{name} must be 0 or more, got {value!r}")
    return number


def _megabytes(value: str, name: str) -> int:
    return int(_positive(value, name, DEFAULT_MAX_FILE_MB) * 1024 * 1024)
