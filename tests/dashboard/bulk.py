"""Fill a store with many pastes fast, for the dashboard's speed benchmark and its big-store test.

Each row is a copy of a real record: real fixture logs go through the real `diagnose()` and the
store's own `diagnosis_record()` (redaction, signature, excerpt, candidates), and the copies get
other times, vLLM releases, GPUs and votes. They are written with bulk INSERTs (executemany), not
one `record_diagnosis()` each, which would take an hour for 100,000.
"""

from __future__ import annotations

import datetime as dt
import random
import uuid
from pathlib import Path

from sqlalchemy import func, insert, select, text

from bot.store.models import Diagnosis, DiagnosisCandidate, Feedback, Job, JobStep, utcnow
from bot.store.records import diagnosis_record

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
RELEASES = ["0.6.3", "0.7.3", "0.8.5", "0.9.2", "0.10.1", "0.11.0", "0.26.0", "0.30.0", "0.32.0", "0.33.0"]
GPUS = ["NVIDIA H200", "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA L40S", "Tesla T4",
        "NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 5070 Ti", None]
BATCH = 5000


def templates(limit_per_folder: int = 2) -> list[dict]:
    """Records of real fixture logs: a few per rule folder, and the negative logs."""
    from bot.diagnose import diagnose
    from bot.learn.fixtures import read

    out = []
    for folder in sorted(FIXTURES.iterdir()):
        logs = sorted(folder.glob("*.log"))
        for path in logs[: (8 if folder.name == "_negative" else limit_per_folder)]:
            data = read(path).data
            report = diagnose(data)
            out.append(diagnosis_record(report, source="slack", text=data.decode("utf-8", "replace"),
                                        channel="C0GPUHELP", user="U0SEED"))
    return out


def fill(store, n: int, *, seed: int = 15, days: int = 365, now: dt.datetime | None = None,
         jobs: int = 300, unanswered_share: float = 0.35) -> dict:
    """Write `n` pastes spread over `days` (more of them recent), votes on some answers, and repro
    jobs with steps; returns what was written."""
    rng = random.Random(seed)
    now = now or utcnow()
    base = templates()
    with store.engine.begin() as connection:
        first_id = (connection.scalar(select(func.max(Diagnosis.id))) or 0) + 1
    diagnoses, candidates, votes = [], [], []
    written = {"diagnoses": 0, "candidates": 0, "feedback": 0, "jobs": jobs}
    # A few rules people often say are wrong, so the flags have something to show.
    doubtful = {r["top_rule_id"] for r in rng.sample([t for t in base if t["top_rule_id"]], 3)}
    answered = [t for t in base if t["verdict"] == "diagnosed"]
    unanswered = [t for t in base if t["verdict"] != "diagnosed"]
    for i in range(n):
        t = rng.choice(unanswered if rng.random() < unanswered_share else answered)
        row_id = first_id + i
        age = days * rng.random() ** 1.5                    # more recent pastes than old ones
        created = now - dt.timedelta(days=age, seconds=rng.randrange(3600))
        release = t["vllm_version"] or rng.choice(RELEASES + [None])
        row = {k: v for k, v in t.items() if k != "candidates"}
        row.update(id=row_id, uid=str(uuid.UUID(int=rng.getrandbits(128))), created_at=created,
                   vllm_version=release, gpu_name=t["gpu_name"] or rng.choice(GPUS),
                   votes_fixed=0, votes_wrong=0, votes_partly=0)
        diagnoses.append(row)
        candidates += [{**c, "diagnosis_id": row_id} for c in t["candidates"]]
        if t["verdict"] == "diagnosed" and rng.random() < 0.2:
            wrong_share = 0.6 if t["top_rule_id"] in doubtful else 0.1
            for user in range(rng.randint(1, 3)):
                verdict = "wrong" if rng.random() < wrong_share else rng.choice(["fixed", "fixed", "partly"])
                row[f"votes_{verdict}"] = row.get(f"votes_{verdict}", 0) + 1     # one vote per person
                votes.append({"uid": str(uuid.UUID(int=rng.getrandbits(128))), "diagnosis_id": row_id,
                              "created_at": created + dt.timedelta(minutes=5 + user), "verdict": verdict,
                              "user_id": f"U{user:07d}", "reason": "tried it" if verdict != "fixed" else None})
        if len(diagnoses) >= BATCH:
            _flush(store, diagnoses, candidates, votes, written)
    _flush(store, diagnoses, candidates, votes, written)
    _jobs(store, rng, jobs, now)
    if store.dialect == "postgresql":
        with store.engine.begin() as connection:
            for table in ("diagnoses", "diagnosis_candidates", "feedback"):
                connection.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                        f"(SELECT coalesce(max(id), 1) FROM {table}))"))
            connection.execute(text("ANALYZE"))
    return written


def _flush(store, diagnoses, candidates, votes, written) -> None:
    with store.engine.begin() as connection:
        if diagnoses:
            connection.execute(insert(Diagnosis.__table__), diagnoses)
        if candidates:
            connection.execute(insert(DiagnosisCandidate.__table__), candidates)
        if votes:
            connection.execute(insert(Feedback.__table__), votes)
    written["diagnoses"] += len(diagnoses)
    written["candidates"] += len(candidates)
    written["feedback"] += len(votes)
    diagnoses.clear()
    candidates.clear()
    votes.clear()


def _jobs(store, rng: random.Random, n: int, now: dt.datetime) -> None:
    """Finished repro jobs like the worker writes them (result dict and one row per step), and a queue."""
    jobs, steps = [], []
    with store.engine.begin() as connection:
        first_id = (connection.scalar(select(func.max(Job.id))) or 0) + 1
    for i in range(n):
        job_id = first_id + i
        status = "queued" if i >= n - 5 else "running" if i >= n - 7 else rng.choice(["done", "done", "done", "failed"])
        created = now - dt.timedelta(hours=(n - i) * 2)
        settings = {"max_model_len": rng.choice([4096, 32768]), "dtype": rng.choice(["auto", "float16"])}
        kinds = [("preflight", {}), ("bare", {}), *[("add", {k: v}) for k, v in settings.items()]]
        culprit = rng.choice([None, "max_model_len"])
        result = None
        if status == "done":
            result = {"verdict": "fails" if culprit else "ok", "summary": "stand-in",
                      "culprit": {"key": culprit, "value": settings[culprit]} if culprit else None,
                      "diagnosis": {"rule_id": "max-model-len-too-large"} if culprit else None,
                      "env": {"gpu_name": rng.choice(GPUS[:4]), "vllm": "0.32.0"}, "steps": []}
        jobs.append({"id": job_id, "created_at": created, "status": status, "model_path": f"/models/m{i % 7}",
                     "settings": settings, "requested_by": f"U{i % 9:07d}", "source": "slack", "priority": 0,
                     "attempts": 1, "max_attempts": 3, "cancel_requested": False, "result": result,
                     "started_at": None if status == "queued" else created,
                     "finished_at": created + dt.timedelta(minutes=3) if status in ("done", "failed") else None,
                     "error": "worker error: stand-in" if status == "failed" else None})
        if status != "queued":
            for no, (kind, s) in enumerate(kinds, 1):
                steps.append({"job_id": job_id, "step_no": no, "kind": kind, "settings": s, "created_at": created,
                              "ok": not (culprit and kind == "add" and culprit in s),
                              "seconds": round(rng.uniform(5, 60), 1), "rule_id": None})
    with store.engine.begin() as connection:
        connection.execute(insert(Job.__table__), jobs)
        if steps:
            connection.execute(insert(JobStep.__table__), steps)
        if store.dialect == "postgresql":
            for table in ("jobs", "job_steps"):
                connection.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                        f"(SELECT coalesce(max(id), 1) FROM {table}))"))
