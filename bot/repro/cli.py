"""`vllm-doctor repro` (run the plan here, no Slack or queue) and `vllm-doctor worker` (serve the queue).

`main(argv)` gets the subcommand name as argv[0], as the top-level CLI forwards it.
Exit status of `repro`: 0 when nothing fails, 1 when it fails, 2 when the request is refused or
the vLLM interpreter cannot be used.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys

from bot.base.options import default_lang, lang_option
from bot.base.errors import Parser

from .safety import ReproRefused

log = logging.getLogger("vllm_doctor.worker")

ENV_PYTHON = "VLLM_PYTHON"


def vllm_python(given: str | None) -> str:
    """--python, else $VLLM_PYTHON, else this interpreter (a worker image that has vllm)."""
    return given or os.environ.get(ENV_PYTHON) or sys.executable


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="vllm-doctor")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    r = sub.add_parser("repro", help="find the setting that breaks vLLM, one setting at a time")
    r.add_argument("model", metavar="MODEL_PATH")
    r.add_argument("--set", dest="settings", action="append", default=[], metavar="KEY=VALUE",
                   help="an LLM() setting, e.g. --set max_model_len=4096 (repeatable, kept in order)")
    r.add_argument("--json", action="store_true", help="print one JSON object with the result")
    r.add_argument("--python", help=f"the interpreter that has vLLM (default: ${ENV_PYTHON} or this one)")
    r.add_argument("--model-root", action="append", default=[], metavar="DIR",
                   help="only allow models under DIR (repeatable; MODEL_ROOTS is added)")
    r.add_argument("--timeout", type=float, default=1200.0, metavar="S", help="limit per engine start")
    r.add_argument("--base", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting every step starts from (default: enforce_eager=true)")
    lang_option(r)
    r.add_argument("--write-repro", metavar="FILE", help="write the standalone repro.py here")

    w = sub.add_parser("worker", help="claim repro jobs from the database and run them")
    w.add_argument("--gpus", help="GPU indices, one job at a time on each (e.g. 0,1); default: all, or one CPU slot")
    w.add_argument("--python", help=f"the interpreter that has vLLM (default: ${ENV_PYTHON} or this one)")
    w.add_argument("--db", help="database URL (default: $DATABASE_URL or the local SQLite file)")
    w.add_argument("--once", action="store_true", help="exit once no job is queued or running")
    w.add_argument("--poll", type=float, default=5.0, metavar="S", help="seconds between looks at the queue")
    w.add_argument("--lease", type=float, default=120.0, metavar="S", help="lease renewed by the heartbeat")
    w.add_argument("--timeout", type=float, default=1200.0, metavar="S", help="limit per engine start")
    w.add_argument("--model-root", action="append", default=[], metavar="DIR")
    w.add_argument("--name", help="this worker's name in the job rows (default: host:pid)")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    if args.command == "repro":
        return repro(args)
    return serve_queue(args)


def _progress(text: str) -> None:
    print(f"  .. {text}", file=sys.stderr, flush=True)


def _step_done(step) -> None:
    outcome = "ok" if step.ok else ("timed out" if step.timed_out else "FAILS")
    rule = f" [{step.rule_id}]" if step.rule_id else ""
    print(f"  -> {outcome} in {step.seconds:.1f} s{rule}" + (f": {step.error}" if step.error else ""),
          file=sys.stderr, flush=True)


def repro(args) -> int:
    from .plan import ReproPlan, default_base
    from .runner import ProbeRunner, ProbeUnavailable
    from .safety import model_roots, parse_assignments, resolve_model_path, validate_settings

    try:
        # The local CLI runs on the user's own machine: with no root given, any folder will do.
        roots = model_roots(args.model_root) if (args.model_root or os.environ.get("MODEL_ROOTS")) else None
        model = resolve_model_path(args.model, roots)
        settings = validate_settings(parse_assignments(args.settings), roots=roots)
        base = default_base()
        base.update(validate_settings(parse_assignments(args.base), roots=roots))
    except ReproRefused as e:
        return _refused(e, args.json)
    runner = ProbeRunner(python=vllm_python(args.python), timeout_s=args.timeout)
    quiet = args.json
    plan = ReproPlan(model, settings, runner, base=base, lang=default_lang(args.lang),
                     on_step=(lambda s: None) if quiet else _step_done,
                     on_progress=(lambda t: None) if quiet else _progress)
    try:
        result = plan.run()
    except ProbeUnavailable as e:
        return _refused(ReproRefused(str(e)), args.json)
    data = result.to_dict()
    if args.write_repro:
        with open(args.write_repro, "w") as f:
            f.write(result.repro_script)
    if args.json:
        print(json.dumps(data, default=str))
    else:
        from .render import render_text

        sys.stdout.write(render_text(data))
        if args.write_repro:
            print(f"Repro script: {args.write_repro}")
    return 0 if result.verdict == "ok" else 1


def _refused(e: ReproRefused, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"verdict": "refused", "reason": e.reason, "rule_id": e.rule_id, "advice": e.advice}))
    else:
        print(f"vllm-doctor repro: {e.reason}", file=sys.stderr)
        if e.advice:
            print(e.advice, file=sys.stderr)
    return 2


def serve_queue(args) -> int:
    """`vllm-doctor worker`: serve the repro queue until SIGTERM."""
    from bot.store import Store

    from .safety import model_roots
    from .worker import Worker, default_name, detect_gpus

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    store = Store.from_env(args.db)
    if store.dialect == "sqlite":
        store.upgrade()       # the embedded database: create the tables on first use
    gpus = [g.strip() for g in args.gpus.split(",") if g.strip()] if args.gpus else detect_gpus()
    roots = model_roots(args.model_root)
    if not roots:
        log.warning("no model roots configured (MODEL_ROOTS or --model-root): every job will be refused")
    worker = Worker(store, python=vllm_python(args.python), gpus=gpus, lease_s=args.lease, poll_s=args.poll,
                    timeout_s=args.timeout, roots=roots, once=args.once, name=args.name or default_name())
    log.info("worker %s: slots %s, python %s, database %s", worker.name, gpus, worker.python, store)
    # systemd and container runtimes stop with SIGTERM: stop the probes and hand running jobs back.
    signal.signal(signal.SIGTERM, lambda signum, frame: worker.stop.set())
    worker.run()
    log.info("worker %s stopped", worker.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
