"""How fast each dashboard page renders with many pastes on PostgreSQL (target: 300 ms each at
100,000), over real HTTP on loopback, against baselines run in the same process.

    python tests/dashboard/bench_dashboard.py [--pastes 100000] [--runs 15] [--db URL]

It makes a database of its own on the PostgreSQL at DATABASE_URL_TEST (default
postgresql://postgres@127.0.0.1:5432), migrates it, fills it with bulk INSERTs of copies of real
diagnosis records (tests/dashboard/bulk.py), runs VACUUM ANALYZE as autovacuum would after such a
load, and drops it at the end (unless --db names one to use as it is).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

TARGET_MS = 300


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pastes", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--db", help="an already filled database to measure (default: make and fill one)")
    args = parser.parse_args()

    from sqlalchemy import create_engine, func, select, text
    from sqlalchemy.engine import make_url

    from bot.store import Store
    from bot.store.models import Diagnosis

    server_url = make_url(os.environ.get("DATABASE_URL_TEST") or "postgresql://postgres@127.0.0.1:5432/postgres")
    server_url = server_url.set(drivername="postgresql+psycopg", database=server_url.database or "postgres")
    name = None
    if args.db:
        url = args.db
    else:
        name = f"vd_bench_{uuid.uuid4().hex[:12]}"
        admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}"'))
        url = server_url.set(database=name).render_as_string(hide_password=False)
    store = Store(url, spool_path=Path("/tmp") / f"{name or 'bench'}-spool.jsonl")
    try:
        if name:
            from tests.dashboard.bulk import fill

            store.upgrade()
            started = time.perf_counter()
            written = fill(store, args.pastes)
            with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
                c.execute(text("VACUUM ANALYZE"))
            print(f"filled {written} in {time.perf_counter() - started:.0f} s (bulk INSERTs, then VACUUM ANALYZE)")
        with store.session() as s:
            n = s.scalar(select(func.count()).select_from(Diagnosis))
        print(f"database: PostgreSQL, {n} pastes\n")
        measure(store, args.runs)
    finally:
        store.dispose()
        if name:
            with admin.connect() as c:
                c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()
    return 0


def measure(store, runs: int) -> None:
    from sqlalchemy import func, select

    from bot.dashboard.app import Dashboard
    from bot.dashboard.cli import make_server
    from bot.learn.cli import rulebook_or_none
    from bot.learn.stats import compute
    from bot.http.server import stop_server
    from bot.store.models import Diagnosis

    book = rulebook_or_none()
    app = Dashboard(store, rulebook=book)
    server = make_server(app, host="127.0.0.1", port=0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.effective_port}/dashboard"
    try:
        with store.session() as s:
            top_rule = s.scalar(select(Diagnosis.top_rule_id).where(Diagnosis.top_rule_id.is_not(None))
                                .group_by(Diagnosis.top_rule_id).order_by(func.count().desc()).limit(1))
        biggest = _biggest_draft(store, book)
        pages = [("Overview", "/"), ("Rules", "/rules"), ("Rules, sorted by wrong", "/rules?sort=wrong&dir=desc"),
                 (f"Rule {top_rule}", f"/rules/{quote(top_rule)}"), ("Unanswered", "/unanswered"),
                 (f"Draft ({biggest.count} pastes)", "/unanswered/draft?signature=" + quote(biggest.signature, safe="")),
                 ("By release and GPU", "/releases"), ("Repro", "/repro")]

        def timed(fn) -> list[float]:
            out = []
            for _ in range(runs):
                started = time.perf_counter()
                fn()
                out.append((time.perf_counter() - started) * 1000)
            return out

        def get(path: str):
            with urllib.request.urlopen(base + path, timeout=60) as resp:
                assert resp.status == 200, path
                return resp.read()

        print("baselines, same process:")
        rows = [("HTTP floor: GET /static/style.css", timed(lambda: get("/static/style.css"))),
                ("SELECT count(*) FROM diagnoses", timed(lambda: _count(store))),
                ("rules stats' compute()", timed(lambda: _stats(store, book, compute)))]
        for label, ms in rows:
            print(f"  {label:44} p50 {statistics.median(ms):6.0f} ms   min {min(ms):5.0f}   max {max(ms):5.0f}")
        print(f"\npages over HTTP ({runs} runs each after one cold run; target {TARGET_MS} ms):")
        worst = 0.0
        for label, path in pages:
            cold_start = time.perf_counter()
            size = len(get(path))
            cold = (time.perf_counter() - cold_start) * 1000
            ms = timed(lambda: get(path))
            p50 = statistics.median(ms)
            worst = max(worst, p50)
            verdict = "ok" if p50 <= TARGET_MS else "OVER"
            print(f"  {label:44} p50 {p50:6.0f} ms   min {min(ms):5.0f}   max {max(ms):5.0f}   cold {cold:5.0f}   "
                  f"{size // 1024:4d} KiB  {verdict}")
        print(f"\nslowest page p50: {worst:.0f} ms (target {TARGET_MS} ms); load average {os.getloadavg()[0]:.1f} "
              f"on {os.cpu_count()} cores")
    finally:
        stop_server(server)
        thread.join(10)


def _biggest_draft(store, book):
    """The biggest unanswered failure that gets a draft (not one a rule now covers): its page
    reads the whole cluster and writes the rule and its fixtures."""
    from bot.dashboard.data import clusters
    from bot.learn import suggest

    with store.session() as s:
        for row in clusters(s, per_page=30)[0]:
            [cluster] = suggest.clusters(s, row.signature)
            if isinstance(suggest.draft_for(cluster, book), suggest.Draft):
                return row
    raise SystemExit("no unanswered failure gets a draft in this database")


def _count(store) -> None:
    from sqlalchemy import func, select

    from bot.store.models import Diagnosis

    with store.session() as s:
        s.scalar(select(func.count()).select_from(Diagnosis))


def _stats(store, book, compute) -> None:
    with store.session() as s:
        compute(s, book)


if __name__ == "__main__":
    raise SystemExit(main())
