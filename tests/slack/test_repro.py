"""`/vllm repro` through Slack, and the poster that puts finished jobs into their threads.

The queue is the real one (bot.repro.queue) in the test's database; a worker is played by
claiming and finishing the job through the queue's own worker calls."""

from __future__ import annotations

import threading

import pytest

from bot.repro import queue
from bot.slack.repro import ReproPoster
from tests.slack.conftest import start_bot
from tests.slack.fakeslack import CHANNEL, USER

pytestmark = pytest.mark.timeout(60)

RESULT = {
    "model": "/models/qwen", "verdict": "fails", "culprit": {"key": "max_model_len", "value": 32768},
    "diagnosis": {"rule_id": "max-model-len-too-large", "title": "max_model_len is larger than the model allows",
                  "cause": "The model's config allows 32768 tokens.", "fix": "Use `max_model_len=8192`."},
    "steps": [{"kind": "bare", "settings": {}, "ok": True, "seconds": 12.5},
              {"kind": "add", "added": "max_model_len", "settings": {"max_model_len": 32768}, "ok": False,
               "seconds": 3.1, "rule_id": "max-model-len-too-large"}],
    "env": {"vllm": "0.30.0", "gpu_name": "RTX 5070 Ti"}, "engine_starts": 2,
    "repro_script": "from vllm import LLM\nLLM(model='/models/qwen', max_model_len=32768)\n",
}


@pytest.fixture
def models(tmp_path):
    root = tmp_path / "models"
    (root / "qwen").mkdir(parents=True)
    return root


@pytest.fixture
def repro_bot(fake, sqlite_url, tmp_path, models):
    running = start_bot(fake, sqlite_url, tmp_path / "spool.jsonl", model_roots=(str(models),))
    yield running
    running.close()


def hook_text(fake, form) -> str:
    hook = form["response_url"].rsplit("/", 1)[1]
    fake.wait_for(lambda _: fake.hooks[hook])
    return fake.hooks[hook][0]["text"]


def test_repro_is_queued_and_announced_in_a_thread(repro_bot, fake, models):
    reply, form = repro_bot.driver.send_command(f"repro {models}/qwen max_model_len=32768 enforce_eager=true")
    assert reply.status == 200 and reply.elapsed < 3.0
    announce, queued = fake.wait_calls("chat.postMessage", 2)
    assert announce.params["channel"] == CHANNEL and "max_model_len=32768" in announce.params["text"]
    assert queued.params["thread_ts"] == announce.answer["ts"]
    job_id = int(queued.params["text"].rsplit("#", 1)[1].rstrip("."))
    job = queue.get_job(repro_bot.store, job_id)
    assert (job["status"], job["requested_by"], job["channel"], job["thread_ts"]) == (
        "queued", USER, CHANNEL, announce.answer["ts"])
    assert job["settings"] == {"max_model_len": 32768, "enforce_eager": True}
    assert fake.hook_payloads() == []  # nothing about a job goes through the short-lived response_url


@pytest.mark.parametrize("args, reason", [
    ("/etc max_model_len=1", "outside the model roots"),
    ("{models}/missing", "does not exist"),
    ("{models}/qwen max_modle_len=4096", "max_modle_len"),
    ("{models}/qwen max_model_len=lots", "whole number"),
])
def test_a_refused_repro_is_explained_privately_and_nothing_is_posted(repro_bot, fake, models, args, reason):
    _, form = repro_bot.driver.send_command("repro " + args.format(models=models))
    text = hook_text(fake, form)
    assert text.startswith("Repro refused:") and reason in text
    assert fake.calls_to("chat.postMessage") == []
    assert queue.pending_count(repro_bot.store) == 0


def test_repro_without_a_model_shows_the_usage(repro_bot, fake):
    _, form = repro_bot.driver.send_command("repro")
    assert "/vllm repro <model-path>" in hook_text(fake, form)


def test_without_model_roots_every_path_is_refused(fake, sqlite_url, tmp_path, models):
    running = start_bot(fake, sqlite_url, tmp_path / "spool.jsonl", model_roots=())
    try:
        _, form = running.driver.send_command(f"repro {models}/qwen")
        assert "No model roots are configured" in hook_text(fake, form)
    finally:
        running.close()


def test_repro_in_a_channel_the_bot_cannot_post_in_says_so(repro_bot, fake, models):
    fake.inject("chat.postMessage", 404)  # what a closed door looks like after retries: not ok
    _, form = repro_bot.driver.send_command(f"repro {models}/qwen")
    assert "could not post" in hook_text(fake, form).lower()
    assert queue.pending_count(repro_bot.store) == 0


def finish_job(store, job_id: int, result: dict | None, status: str = "done", error: str | None = None) -> None:
    assert queue.claim(store, "worker-1", 60)["id"] == job_id
    assert queue.finish(store, job_id, "worker-1", status=status, result=result, error=error)


def test_a_finished_job_is_posted_in_its_thread_with_the_script_once(repro_bot, fake, models):
    store = repro_bot.store
    thread_ts = fake.new_ts()
    job_id = queue.enqueue(store, f"{models}/qwen", {"max_model_len": 32768}, requested_by=USER,
                           channel=CHANNEL, thread_ts=thread_ts, roots=[str(models)])
    finish_job(store, job_id, {**RESULT, "model": f"{models}/qwen"})
    poster = ReproPoster(repro_bot.app.client, store)
    assert poster.post_finished() == 1
    [post] = fake.ok_calls("chat.postMessage")
    assert post.params["thread_ts"] == thread_ts and post.params["channel"] == CHANNEL
    assert "The culprit is max_model_len=32768" in post.params["text"]
    [complete] = fake.ok_calls("files.completeUploadExternal")
    assert complete.params["thread_ts"] == thread_ts
    [upload] = fake.uploads.values()
    assert upload["filename"] == f"repro-job-{job_id}.py" and b"max_model_len=32768" in upload["content"]
    assert queue.get_job(store, job_id)["posted_at"] is not None
    assert poster.post_finished() == 0
    assert len(fake.ok_calls("chat.postMessage")) == 1


def test_a_job_that_ended_without_a_result_still_gets_a_word(repro_bot, fake, models):
    store = repro_bot.store
    job_id = queue.enqueue(store, f"{models}/qwen", {}, requested_by=USER, channel=CHANNEL,
                           thread_ts=fake.new_ts(), roots=[str(models)])
    finish_job(store, job_id, None, status="failed", error="the worker's GPU fell off the bus")
    assert ReproPoster(repro_bot.app.client, store).post_finished() == 1
    [post] = fake.ok_calls("chat.postMessage")
    assert "failed" in post.params["text"] and "fell off the bus" in post.params["text"]
    assert fake.ok_calls("files.completeUploadExternal") == []


@pytest.mark.postgres
def test_two_replicas_post_a_result_once(fake, pg_url, tmp_path, models):
    replicas = [start_bot(fake, pg_url, tmp_path / f"spool{i}.jsonl", model_roots=(str(models),)) for i in range(2)]
    try:
        store = replicas[0].store
        job_id = queue.enqueue(store, f"{models}/qwen", {}, requested_by=USER, channel=CHANNEL,
                               thread_ts=fake.new_ts(), roots=[str(models)])
        finish_job(store, job_id, {**RESULT, "repro_script": ""})
        posters = [ReproPoster(r.app.client, r.store) for r in replicas]
        counts: list[int] = []
        threads = [threading.Thread(target=lambda p=p: counts.append(p.post_finished())) for p in posters]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(counts) == [0, 1]
        assert len(fake.ok_calls("chat.postMessage")) == 1
    finally:
        for r in replicas:
            r.close()


def test_the_poster_thread_posts_on_its_own_and_stops(repro_bot, fake, models):
    store = repro_bot.store
    job_id = queue.enqueue(store, f"{models}/qwen", {}, requested_by=USER, channel=CHANNEL,
                           thread_ts=fake.new_ts(), roots=[str(models)])
    finish_job(store, job_id, RESULT)
    poster = ReproPoster(repro_bot.app.client, store, interval_s=0.05).start()
    try:
        fake.wait_calls("chat.postMessage")
    finally:
        poster.stop()
    assert not poster.running()


def paste_naming(models) -> str:
    """A real vLLM log (seed entry 3) whose engine arguments name a model under the roots."""
    return (f"INFO 11-09 12:00:00 [utils.py:253] non-default args: {{'model': '{models}/qwen', "
            "'gpu_memory_utilization': 0.01, 'enforce_eager': True, 'worker_cls': 'evil.Worker'}\n"
            "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
            "when initializing the engine.\n")


def test_run_repro_button_queues_the_logs_model_and_settings_in_the_thread(repro_bot, fake, models):
    event = repro_bot.driver.message_event(paste_naming(models))
    repro_bot.driver.send_event(event)
    [answer] = fake.wait_calls("chat.postMessage")
    message = fake.messages[(CHANNEL, answer.answer["ts"])]
    reply, _ = repro_bot.driver.click(message, "run_repro")
    assert reply.status == 200 and reply.elapsed < 3.0
    _, announce, queued = fake.wait_calls("chat.postMessage", 3)
    assert announce.params["thread_ts"] == queued.params["thread_ts"] == event["ts"]
    job_id = int(queued.params["text"].rsplit("#", 1)[1].rstrip("."))
    job = queue.get_job(repro_bot.store, job_id)
    # the settings the worker accepts ride along; the one it would refuse (worker_cls) does not
    assert job["model_path"] == str(models / "qwen")
    assert job["settings"] == {"gpu_memory_utilization": 0.01, "enforce_eager": True}


def test_no_run_repro_button_for_a_model_outside_the_roots(repro_bot, fake, models, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "qwen").mkdir(parents=True)
    event = repro_bot.driver.message_event(paste_naming(elsewhere))
    repro_bot.driver.send_event(event)
    [answer] = fake.wait_calls("chat.postMessage")
    blocks = fake.messages[(CHANNEL, answer.answer["ts"])]["blocks"]
    buttons = [e["action_id"] for b in blocks if b["type"] == "actions" for e in b["elements"]]
    assert "feedback_fixed" in buttons and "run_repro" not in buttons
