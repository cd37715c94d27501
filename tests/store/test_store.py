import datetime as dt
import threading

import pytest
from sqlalchemy import func, select

from bot.diagnose.reading.signature import signature
from bot.store import Store
from bot.store import migrate
from bot.store.models import Diagnosis, Job, JobStep, SeenEvent
from bot.store.records import EXCERPT_CHARS

from .helpers import REPO, diagnose, fixture_logs, load_book, make_book, read


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    return load_book(make_book(tmp_path_factory.mktemp("rules")))


def test_diagnosis_and_feedback_round_trip(store, book):
    log = fixture_logs("bf16-unsupported-gpu")[-1]          # the vLLM 0.5.4 paste
    text = read(log)
    report = diagnose(text, book)
    assert report.verdict == "diagnosed"

    diagnosis_id = store.record_diagnosis(report, source="slack", text=text, channel="C0GPUHELP",
                                          user="U0ALICE", thread_ts="1732900000.000100",
                                          message_ts="1732900000.000100", lang="zh")
    feedback_id = store.record_feedback(diagnosis_id, "partly", user="U0BOB", reason="needed --dtype=half too")
    assert isinstance(diagnosis_id, int) and isinstance(feedback_id, int)

    with store.session() as s:
        row = s.get(Diagnosis, diagnosis_id)
        assert (row.source, row.channel, row.user_id, row.thread_ts, row.lang) == (
            "slack", "C0GPUHELP", "U0ALICE", "1732900000.000100", "zh")
        assert row.verdict == "diagnosed" and row.answered is True
        assert row.top_rule_id == "bf16-unsupported-gpu"
        assert (row.gpu_name, row.vllm_version, row.other_program) == ("Tesla V100-SXM2-32GB", "0.5.4", None)
        assert row.top_confidence == pytest.approx(report.diagnoses[0].confidence)
        assert [(c.rule_id, c.status, c.rank) for c in row.candidates] == [
            (d.rule_id, "active", i) for i, d in enumerate(report.diagnoses)]
        assert row.signature == signature(report.root.text)
        assert row.signature == "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least <num>"
        assert row.vllm_version == "0.5.4" and row.facts["vllm_version"] == "0.5.4"
        assert row.rulebook_version == book.version
        assert report.root.text[:60] in row.excerpt
        assert row.created_at.tzinfo is not None and row.created_at.utcoffset() == dt.timedelta(0)
        assert abs(row.created_at - dt.datetime.now(dt.timezone.utc)) < dt.timedelta(minutes=5)
        [fb] = row.feedback
        assert (fb.verdict, fb.user_id, fb.reason) == ("partly", "U0BOB", "needed --dtype=half too")


def test_shadow_candidates_are_recorded_but_the_paste_stays_unanswered(store, book):
    text = read(fixture_logs("lora-rank-too-large")[-1])
    report = diagnose(text, book)
    diagnosis_id = store.record_diagnosis(report, source="cli", text=text)
    with store.session() as s:
        row = s.get(Diagnosis, diagnosis_id)
        assert row.answered is False and row.top_rule_id is None
        assert [(c.rule_id, c.status) for c in row.candidates] == [("lora-rank-too-large", "shadow")]


def test_bad_feedback_gets_a_clear_error(store, book):
    text = read(fixture_logs("cuda-oom")[0])
    diagnosis_id = store.record_diagnosis(diagnose(text, book), source="cli", text=text)
    with pytest.raises(ValueError, match="verdict"):
        store.record_feedback(diagnosis_id, "great", user="U1")
    with pytest.raises(ValueError, match="no diagnosis 999999"):
        store.record_feedback(999999, "fixed", user="U1")
    with pytest.raises(ValueError, match="source"):
        store.record_diagnosis(diagnose(text, book), source="email", text=text)


def test_excerpt_is_bounded_and_keeps_the_root_error(store, book):
    core = read(fixture_logs("cuda-oom")[-1])
    noise = "".join(f"INFO 11-09 12:{i // 60:02d}:{i % 60:02d} [loader.py:{i}] loading shard {i}\n" for i in range(900))
    text = noise + core + noise
    report = diagnose(text, book)
    diagnosis_id = store.record_diagnosis(report, source="cli", text=text)
    with store.session() as s:
        excerpt = s.get(Diagnosis, diagnosis_id).excerpt
    assert len(text) > 4 * EXCERPT_CHARS
    assert len(excerpt) <= EXCERPT_CHARS
    assert report.root.text[:60] in excerpt
    assert "Traceback (most recent call last)" in excerpt or "loading shard" in excerpt


def test_claim_event_answers_once(store):
    assert store.claim_event("Ev0001") is True
    assert store.claim_event("Ev0001") is False
    assert store.claim_event("Ev0002") is True


@pytest.mark.postgres
def test_two_replicas_claim_each_event_exactly_once(pg_url, tmp_path):
    replicas = [Store(pg_url, spool_path=tmp_path / f"spool{i}.jsonl") for i in range(2)]
    replicas[0].upgrade()
    events = [f"Ev{i:04d}" for i in range(40)]
    wins: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(4)

    def worker(store):
        start.wait()
        for event_id in events:
            if store.claim_event(event_id):
                with lock:
                    wins.append(event_id)

    # two threads per replica: Slack's retry can land on either replica, or twice on one
    threads = [threading.Thread(target=worker, args=(r,)) for r in replicas for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert sorted(wins) == events
        with replicas[1].session() as s:
            assert s.scalar(select(func.count()).select_from(SeenEvent)) == len(events)
    finally:
        for r in replicas:
            r.dispose()


def test_user_language_preference(store):
    assert store.get_user_lang("U0ALICE") is None
    store.set_user_lang("U0ALICE", "zh")
    assert store.get_user_lang("U0ALICE") == "zh"
    store.set_user_lang("U0ALICE", "en")
    assert store.get_user_lang("U0ALICE") == "en"


def test_several_ids_are_claimed_in_order_and_the_first_seen_stops_the_claim(store, tmp_path):
    assert store.claim_event("Ev1", "msg:C1:1.0") is True
    assert store.claim_event("Ev2", "msg:C1:1.0") is False       # the message came under another event id
    assert store.claim_event("Ev1", "msg:C1:2.0") is False       # a retry: the message is not claimed
    replica = Store(store.url, spool_path=tmp_path / "other-spool.jsonl")   # what the database says
    try:
        assert replica.claim_event("Ev2") is False and replica.claim_event("msg:C1:2.0") is True
    finally:
        replica.dispose()


def test_prune_forgets_old_events_only(store, tmp_path):
    store.claim_event("old")
    store.claim_event("new")
    with store.session() as s:
        s.get(SeenEvent, "old").seen_at = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=30)
    assert store.prune_seen_events(dt.timedelta(days=7)) == 1
    replica = Store(store.url, spool_path=tmp_path / "other-spool.jsonl")   # not this process's memory
    try:
        assert replica.claim_event("old") is True and replica.claim_event("new") is False
    finally:
        replica.dispose()


def test_repro_tables_take_a_job_and_its_steps(store):
    with store.session() as s:
        job = Job(model_path="/models/Qwen2.5-0.5B", settings={"max_model_len": 4096}, source="slack",
                  requested_by="U0ALICE", channel="C0GPUHELP", thread_ts="1.2")
        job.steps.append(JobStep(step_no=0, kind="bare", settings={}, ok=True, seconds=12.5))
        s.add(job)
    with store.session() as s:
        job = s.scalars(select(Job)).one()
        assert (job.status, job.priority, job.attempts, job.max_attempts, job.cancel_requested) == (
            "queued", 0, 0, 3, False)
        assert job.created_at.tzinfo is not None
        assert [(st.kind, st.ok) for st in job.steps] == [("bare", True)]


def test_embedded_sqlite_creates_its_tables_on_first_write(sqlite_url, tmp_path, book):
    store = Store(sqlite_url, spool_path=tmp_path / "spool.jsonl")
    text = read(fixture_logs("cuda-oom")[0])
    assert store.record_diagnosis(diagnose(text, book), source="cli", text=text) is not None
    assert store.current() == migrate.head()
    assert not store.spool.pending()
    store.dispose()


def test_from_env_picks_the_url(monkeypatch, tmp_path):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    default = Store.from_env()
    assert default.url.get_backend_name() == "sqlite"
    assert default.url.database == str(tmp_path / "data" / "vllm-doctor" / "vllm-doctor.db")
    assert default.spool.path.parent == tmp_path / "data" / "vllm-doctor"

    monkeypatch.setenv("DATABASE_URL", "postgresql://bot:p%40ss@db.internal:5432/vd")
    from_env = Store.from_env()
    assert from_env.url.drivername == "postgresql+psycopg"
    assert from_env.url.password == "p@ss" and from_env.url.database == "vd"
    assert Store.from_env("postgres://u@h/d").url.drivername == "postgresql+psycopg"
    assert "p@ss" not in repr(from_env)
    assert from_env._engine is None          # nothing connects until the store is used


def test_a_paste_given_as_bytes_is_stored_like_text(store, book):
    raw = read(fixture_logs("cuda-oom")[0]).encode() + b"\n\xff\xfe stray bytes"
    diagnosis_id = store.record_diagnosis(diagnose(raw, book), source="cli", text=raw)
    with store.session() as s:
        excerpt = s.get(Diagnosis, diagnosis_id).excerpt
    assert "CUDA out of memory" in excerpt and "\ufffd" in excerpt


def test_a_log_another_program_printed_is_stored_as_such(store, book):
    text = read(REPO / "tests" / "fixtures" / "logs" / "_negative" / "fp-sglang-pynccl-unhandled-system.log")
    diagnosis_id = store.record_diagnosis(diagnose(text, book), source="cli", text=text)
    with store.session() as s:
        row = s.get(Diagnosis, diagnosis_id)
        assert (row.verdict, row.other_program) == ("unsure", "SGLang")
