"""Downloading attached logs: the bot token goes only to allowed Slack hosts, never through a
redirect, and a sign-in page or an oversized file is refused with a reason."""

from __future__ import annotations

import pytest

from bot.slack.files import FileRefused, FileTooLarge, fetch, host_allowed, log_files
from tests.slack.fakeslack import BOT_TOKEN


def test_a_file_is_fetched_with_the_bearer_token(fake):
    f = fake.add_file("vllm.log", "ERROR boom\n")
    got = fetch(f, token=BOT_TOKEN, allowed_hosts=(fake.host,), max_bytes=1000)
    assert (got.name, got.data) == ("vllm.log", b"ERROR boom\n")
    [call] = [c for c in fake.calls if c.path.startswith("/files-pri/")]
    assert call.headers["authorization"] == f"Bearer {BOT_TOKEN}"


def test_a_wrong_token_gets_the_sign_in_page_which_is_refused(fake):
    f = fake.add_file("vllm.log", "ERROR boom\n")
    with pytest.raises(FileRefused, match="sign-in page"):
        fetch(f, token="xoxb-someone-else", allowed_hosts=(fake.host,), max_bytes=1000)


def test_html_is_refused_even_when_labelled_as_text(fake):
    f = fake.add_file("vllm.log", "<!DOCTYPE html><html><body>Sign in</body></html>")
    with pytest.raises(FileRefused, match="sign-in page"):
        fetch(f, token=BOT_TOKEN, allowed_hosts=(fake.host,), max_bytes=1000)


def test_a_redirect_is_refused_not_followed(fake):
    f = fake.add_file("vllm.log", "ERROR boom\n", serve="redirect")
    with pytest.raises(FileRefused, match="redirect"):
        fetch(f, token=BOT_TOKEN, allowed_hosts=(fake.host,), max_bytes=1000)
    assert len([c for c in fake.calls if c.path.startswith("/files-pri/")]) == 1


def test_the_declared_size_is_checked_before_any_download(fake):
    f = fake.add_file("big.log", "x" * 5000)
    with pytest.raises(FileTooLarge) as refused:
        fetch(f, token=BOT_TOKEN, allowed_hosts=(fake.host,), max_bytes=1000)
    assert (refused.value.size, refused.value.limit, refused.value.name) == (5000, 1000, "big.log")
    assert fake.calls == []


def test_a_file_bigger_than_it_said_is_cut_off_while_reading(fake):
    f = fake.add_file("big.log", "x" * 5000)
    f["size"] = 10  # a lying or missing size must not let a huge body through
    with pytest.raises(FileTooLarge):
        fetch(f, token=BOT_TOKEN, allowed_hosts=(fake.host,), max_bytes=1000)


def test_a_missing_file_is_a_refusal_not_a_crash(fake):
    f = fake.add_file("gone.log", "x")
    del fake.files[f["id"]]
    with pytest.raises(FileRefused, match="HTTP 404"):
        fetch(f, token=BOT_TOKEN, allowed_hosts=(fake.host,), max_bytes=1000)


def test_an_unreachable_host_is_a_refusal(fake):
    f = fake.add_file("vllm.log", "x")
    fake.stop()
    with pytest.raises(FileRefused, match="download failed"):
        fetch(f, token=BOT_TOKEN, allowed_hosts=(f["url_private_download"].split("/")[2],), max_bytes=1000)


@pytest.mark.parametrize("url, allowed", [
    ("https://files.slack.com/files-pri/T1-F1/download/a.log", True),
    ("https://files.slack.com:443/files-pri/T1-F1/download/a.log", False),  # not listed with a port
    ("http://files.slack.com/files-pri/T1-F1/download/a.log", False),       # the token never goes in clear
    ("https://files.slack.com.evil.example/x.log", False),
    ("https://evil.example/?files.slack.com", False),
    ("https://user@files.slack.com/x", True),
    ("http://127.0.0.1:8080/files-pri/x", False),                            # loopback, but not listed
])
def test_host_allow_list(url, allowed):
    assert host_allowed(url, ("files.slack.com",)) is allowed


def test_plain_http_is_accepted_only_for_a_listed_loopback_host():
    assert host_allowed("http://127.0.0.1:8080/f", ("127.0.0.1:8080",))
    assert not host_allowed("http://10.0.0.5:8080/f", ("10.0.0.5:8080",))


def test_log_files_picks_logs_and_snippets_only():
    files = [{"name": "vllm.LOG"}, {"name": "notes.txt"}, {"name": "shot.png", "filetype": "png"},
             {"name": "Untitled", "mode": "snippet", "filetype": "python"}, {"name": "out", "filetype": "text"},
             {"name": "a.log"}, {"name": "b.log"}]
    assert [f["name"] for f in log_files(files)] == ["vllm.LOG", "notes.txt", "Untitled"]
    assert log_files(None) == []
