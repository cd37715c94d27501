"""The dashboard as a person meets it: Debian's headless Chromium, driven by Selenium, signing in
through the fake Slack's OpenID pages, on a PostgreSQL store filled the real ways: the CLI's
`diagnose --record`, pastes and feedback clicks through the Slack bot over loopback HTTP, and repro
jobs run by the real worker (with the stand-in probe). Every page: no console error, the numbers
the store holds, and a screenshot in .cache/screenshots/ to look at.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from bot.learn.stats import compute
from bot.learn.suggest import clusters
from bot.store.models import Diagnosis, Job
from tests.slack.conftest import fixture_log, start_bot
from tests.slack.fakeslack import CHANNEL, TEAM_ID, FakeSlack
from tests.slack.fakeslack.openid import CLIENT_ID, CLIENT_SECRET, Person

from tests.support.waiting import wait_until as _wait

from .conftest import serve

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / ".cache" / "screenshots"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
HOSTILE = ('Traceback (most recent call last):\n  File "/srv/vllm/vllm/engine/llm_engine.py", line 3, in step\n'
           'ValueError: unknown option <script>alert("xss")</script><img src=x onerror=alert(2)> in the request\n')

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture
def chrome(tmp_path):
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        reason = "Debian's chromium and chromium-driver are not installed (.ci/run installs them)"
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    def start():
        options = Options()
        options.binary_location = CHROMIUM
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={tmp_path / f'profile-{time.monotonic_ns()}'}")
        options.add_argument("--window-size=1280,900")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)

    browsers = []
    yield lambda: browsers.append(start()) or browsers[-1]
    for b in browsers:
        b.quit()


@pytest.fixture
def seeded(pg_url, tmp_path, standin_python):
    """A store filled through the CLI, the Slack bot and the repro worker; the fake Slack stays up
    for the sign-in."""
    with FakeSlack() as fake:
        env = {**os.environ, "DATABASE_URL": pg_url}
        subprocess.run([sys.executable, "-m", "bot.cli", "db", "upgrade"], cwd=REPO, env=env, check=True,
                       capture_output=True)
        logs = REPO / "tests" / "fixtures" / "logs"
        cli_logs = [sorted((logs / rule).glob("*.log"))[0] for rule in ("cuda-oom", "port-in-use", "dtype-invalid")]
        cli_logs.append(logs / "_negative" / "fp-sglang-pynccl-unhandled-system.log")
        done = subprocess.run([sys.executable, "-m", "bot.cli", "diagnose", "--record", *map(str, cli_logs)],
                              cwd=REPO, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

        bot = start_bot(fake, pg_url, tmp_path / "spool.jsonl")
        try:
            answers = []
            for text in [fixture_log("cuda-oom"), fixture_log("kv-cache-no-memory"), fixture_log("port-in-use"),
                         HOSTILE, HOSTILE]:
                event = bot.driver.message_event(text)
                bot.driver.send_event(event)
                answers.append(event)
            fake.wait_for(lambda calls: len(fake.ok_calls("chat.postMessage")) >= 3, timeout=30)
            _wait(lambda: _count(bot.store, Diagnosis) == 4 + 5, 30, "the pastes to be stored")
            # copies: the fake updates its messages in place when the bot marks feedback received
            posted = [copy.deepcopy(fake.messages[(CHANNEL, c.answer["ts"])]) for c in fake.ok_calls("chat.postMessage")]
            with_buttons = [m for m in posted if any(b["type"] == "actions" for b in m["blocks"])]
            bot.driver.click(with_buttons[0], "feedback_fixed")
            bot.driver.click(with_buttons[1], "feedback_wrong")
            view = fake.wait_for(lambda _: fake.views and fake.views[0])
            from bot.slack import modals
            bot.driver.submit_view(view, {modals.REASON_BLOCK: {modals.REASON_ACTION: {
                "type": "plain_text_input", "value": "<script>alert('reason')</script> it was the driver"}}})
            _wait(lambda: _votes(bot.store) == 2, 30, "the two votes to be stored")
            wrong_id = int(next(b for b in with_buttons[1]["blocks"] if b["type"] == "actions")["elements"][0]["value"])
            with bot.store.session() as session:
                wrong_rule = session.get(Diagnosis, wrong_id).top_rule_id
        finally:
            bot.close()

        from bot.repro import queue
        from bot.store import Store

        store = Store.from_env(pg_url, spool_path=tmp_path / "spool2.jsonl")
        models = tmp_path / "models"
        for name in ("tiny-a", "tiny-b", "tiny-c"):
            (models / name).mkdir(parents=True)
        roots = [str(models)]
        queue.enqueue(store, str(models / "tiny-a"), {"max_model_len": 4096}, requested_by="U1", roots=roots,
                      channel=CHANNEL, thread_ts="1.0")
        queue.enqueue(store, str(models / "tiny-b"), {"dtype": "float16"}, requested_by="U2", roots=roots,
                      channel=CHANNEL, thread_ts="2.0")
        worker_env = {**env, "MODEL_ROOTS": str(models), "STANDIN_LOG": str(tmp_path / "standin.log"),
                      "STANDIN_SLEEP": "0.1", "STANDIN_FAIL": '{"max_model_len": 4096}',
                      "STANDIN_ERROR": "ValueError: The model's max seq len (2048) is larger than the maximum "
                                       "number of tokens that can be stored in KV cache (1024)."}
        worker = subprocess.run([sys.executable, "-m", "bot.repro.cli", "worker", "--db", pg_url, "--python",
                                 str(standin_python), "--once", "--gpus", "0", "--poll", "0.2", "--name", "w-test"],
                                cwd=REPO, env=worker_env, capture_output=True, text=True, timeout=300)
        assert worker.returncode == 0, worker.stdout[-3000:] + worker.stderr[-3000:]
        queue.enqueue(store, str(models / "tiny-c"), {}, requested_by="U3", roots=roots)   # left queued
        yield store, fake, wrong_rule
        store.dispose()


def test_every_page_in_chromium_signed_in_with_the_numbers_of_the_store(seeded, chrome, request):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    from bot.learn.cli import rulebook_or_none

    store, fake, wrong_rule = seeded
    book = rulebook_or_none()
    dashboard = serve(store, rulebook=book)
    dashboard.app.sign_in = _sign_in(dashboard, fake)
    shots = SHOTS
    shots.mkdir(parents=True, exist_ok=True)
    browser = chrome()
    try:
        # Sign-in is enforced: a page asked for lands on the sign-in page, with no data on it.
        browser.get(dashboard.url + "/rules")
        assert "/dashboard/login" in browser.current_url and "cuda-oom" not in browser.page_source
        _shoot(browser, shots / "0-sign-in.png")
        browser.find_element(By.LINK_TEXT, "Sign in with Slack").click()
        _wait(lambda: browser.current_url.endswith("/dashboard/rules"), 15, "the way back from Slack")
        assert "Signed in as Ada Maintainer" in browser.page_source

        from bot.diagnose.knowledge.vllm import index
        from bot.learn.vllm_releases import history

        vllm = index.load()
        with store.session() as session:
            stats = compute(session, book)
            unanswered = clusters(session)
            queued = session.scalar(select(func.count()).select_from(Job).where(Job.status == "queued"))
        pages = [("1-overview", "/"), ("2-rules", "/rules"), ("3-rule", f"/rules/{wrong_rule}"),
                 ("4-unanswered", "/unanswered"), ("5-releases", "/releases"), ("6-repro", "/repro"),
                 ("7-rules-by-wrong", "/rules?sort=wrong&dir=desc"), ("9-vllm-releases", "/vllm"),
                 ("10-vllm-release", f"/vllm/{vllm.releases[-1]}")]
        for name, path in pages:
            browser.get(dashboard.url + path)
            assert browser.find_element(By.TAG_NAME, "h1").text, path
            with pytest.raises(NoAlertPresentException):          # nothing a paste held ran
                browser.switch_to.alert.text
            errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
            assert errors == [], f"{path}: {errors}"
            _shoot(browser, shots / f"{name}.png")
            text = browser.find_element(By.TAG_NAME, "main").get_attribute("textContent")
            if path == "/":
                assert _figure(browser, "diagnoses") == str(stats.diagnoses)
                assert _figure(browser, "answered") == str(stats.answered)
                assert _figure(browser, "votes") == str(sum(r.votes for r in stats.rules)) == "2"
            if path == "/rules":
                for r in stats.rules:
                    if r.hits:
                        row = browser.find_element(By.CSS_SELECTOR, f'tr[data-rule="{r.rule_id}"]')
                        cells = {c: row.find_element(By.CSS_SELECTOR, f'td[data-col="{c}"]').text
                                 for c in ("hits", "fixed", "wrong", "partly")}
                        assert cells == {"hits": str(r.hits), "fixed": str(r.fixed), "wrong": str(r.wrong),
                                         "partly": str(r.partly)}, r.rule_id
            if path == f"/rules/{wrong_rule}":
                assert "<script>alert('reason')</script> it was the driver" in text      # as text, not run
            if path == "/unanswered":
                shown = [int(e.text) for e in browser.find_elements(By.CSS_SELECTOR, '[data-figure="count"]')]
                assert shown == [c.count for c in unanswered]
                assert '<script>alert("xss")</script>' in text          # shown as text
            if path == "/vllm":
                assert _figure(browser, "newest") == vllm.versions[-1]
            if path.startswith("/vllm/"):
                newest = history(vllm, book).release(vllm.releases[-1])
                assert _figure(browser, "drift") == str(len(newest.drift)) and _figure(browser, "new") == str(len(newest.new))
            if path == "/repro":
                assert _figure(browser, "queued") == str(queued) == "1"
                assert "max_model_len=4096" in text and "✗ fails" in text

        # A member of another workspace is turned away, in a browser of their own.
        fake.openid.person = Person("U0STRANGER", "T0OTHERWS", "Eve Elsewhere")
        stranger = chrome()
        stranger.get(dashboard.url + "/")
        stranger.find_element(By.LINK_TEXT, "Sign in with Slack").click()
        _wait(lambda: "only for members" in stranger.page_source, 15, "the refusal")
        _shoot(stranger, shots / "8-other-workspace-refused.png")
        stranger.get(dashboard.url + "/rules")
        assert "/dashboard/login" in stranger.current_url
    finally:
        dashboard.close()


def _sign_in(dashboard, fake):
    from bot.dashboard.auth import SignInSettings, SlackSignIn

    return SlackSignIn(SignInSettings(CLIENT_ID, CLIENT_SECRET, dashboard.url, TEAM_ID, api_url=fake.api_url))


def _figure(browser, name: str) -> str:
    from selenium.webdriver.common.by import By

    return browser.find_element(By.CSS_SELECTOR, f'[data-figure="{name}"]').text


def _shoot(browser, path: Path) -> None:
    """The whole page, not just the window."""
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, min(max(height + 40, 600), 6000))
    browser.save_screenshot(str(path))
    browser.set_window_size(1280, 900)


def _count(store, model) -> int:
    with store.session() as session:
        return session.scalar(select(func.count()).select_from(model))


def _votes(store) -> int:
    from bot.store.models import Feedback

    return _count(store, Feedback)
