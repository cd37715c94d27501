from __future__ import annotations

import pytest

from bot.slack.settings import DEFAULT_API_URL, Settings, SettingsError


def test_defaults_from_a_minimal_environment():
    s = Settings.from_env({"SLACK_BOT_TOKEN": "xoxb-1"})
    assert (s.api_url, s.file_hosts, s.channels, s.database_url) == (DEFAULT_API_URL, ("files.slack.com",),
                                                                     frozenset(), None)
    assert s.max_file_bytes == 20 * 1024 * 1024
    assert s.watches("C123") and not s.watches(None)


def test_every_setting_is_read():
    s = Settings.from_env({
        "SLACK_BOT_TOKEN": " xoxb-1 ", "SLACK_SIGNING_SECRET": "sec", "SLACK_APP_TOKEN": "xapp-1",
        "SLACK_API_URL": "http://127.0.0.1:9999/api", "GPU_HELP_CHANNELS": "C1, C2,,",
        "DATABASE_URL": "postgresql://db/x", "SLACK_FILE_HOSTS": "Files.Slack.com,127.0.0.1:9999",
        "MODEL_ROOTS": "/models:/data/models,/srv/m", "SLACK_MAX_FILE_MB": "1.5", "REPRO_POLL_SECONDS": "2"})
    assert s.bot_token == "xoxb-1" and s.signing_secret == "sec" and s.app_token == "xapp-1"
    # slack_sdk joins method names with urljoin: without the slash "/api" would be dropped.
    assert s.api_url == "http://127.0.0.1:9999/api/"
    assert s.channels == {"C1", "C2"} and s.watches("C1") and not s.watches("C3")
    assert s.file_hosts == ("files.slack.com", "127.0.0.1:9999")
    assert s.model_roots == ("/models", "/data/models", "/srv/m")
    assert (s.max_file_bytes, s.repro_poll_s, s.database_url) == (int(1.5 * 1024 * 1024), 2.0, "postgresql://db/x")


@pytest.mark.parametrize("env, message", [
    ({}, "SLACK_BOT_TOKEN is not set"),
    ({"SLACK_BOT_TOKEN": "x", "SLACK_MAX_FILE_MB": "big"}, "SLACK_MAX_FILE_MB must be a number"),
    ({"SLACK_BOT_TOKEN": "x", "SLACK_MAX_FILE_MB": "-1"}, "greater than 0"),
    ({"SLACK_BOT_TOKEN": "x", "REPRO_POLL_SECONDS": "0"}, "REPRO_POLL_SECONDS must be greater than 0"),
])
def test_bad_settings_say_what_to_fix(env, message):
    with pytest.raises(SettingsError, match=message):
        Settings.from_env(env)
