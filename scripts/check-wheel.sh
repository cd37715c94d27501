#!/usr/bin/env bash
# Build the sdist and, from it, the wheel; install the wheel in a fresh venv outside the checkout;
# run what an operator runs first: diagnose the bundled example, list the rules, migrate a database,
# and serve over HTTP until /readyz says the bot can answer.
#
#   scripts/check-wheel.sh [WORKDIR]      (DATABASE_URL: the database to migrate; default SQLite in WORKDIR)
#
# PYTHON (default python3) builds and makes the venv; it needs the `build` package.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
if [ -n "${1:-}" ]; then mkdir -p "$1"; WORK="$(cd "$1" && pwd)"; else WORK="$(mktemp -d)"; fi
case "$WORK/" in "$ROOT"/*) echo "check-wheel: WORKDIR must be outside the checkout" >&2; exit 2 ;; esac

step() { printf '\n== %s\n' "$*"; }

step "build the sdist, then the wheel from the sdist"
rm -rf "$WORK/dist"
"$PYTHON" -m build --outdir "$WORK/dist" "$ROOT" >"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; exit 1; }
WHEEL="$(ls "$WORK"/dist/*.whl)"
ls "$WORK/dist"

step "install the wheel in a fresh venv"
rm -rf "$WORK/venv"
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q "$WHEEL"

# Nothing from the checkout may leak in: another directory, no PYTHONPATH, caches and data in WORK.
cd "$WORK"
unset PYTHONPATH VLLM_DOCTOR_RULES VLLM_DOCTOR_LOCAL_RULES
export XDG_DATA_HOME="$WORK/data" XDG_CACHE_HOME="$WORK/cache" NO_COLOR=1
BIN="$WORK/venv/bin"

step "vllm-doctor diagnose --example"
"$BIN/vllm-doctor" diagnose --example
step "vllm-doctor rules list"
"$BIN/vllm-doctor" rules list | tail -n 3
step "vllm-doctor db upgrade"
"$BIN/vllm-doctor" db upgrade
"$BIN/vllm-doctor" db current
step "vllm-doctor serve --http, then GET /readyz"
: > "$WORK/serve.log"     # made here: the background job opens it when it gets to, and sed below may run first
SLACK_BOT_TOKEN=xoxb-wheel-check SLACK_SIGNING_SECRET=wheel-check \
  "$BIN/vllm-doctor" serve --http --host 127.0.0.1 --port 0 2>>"$WORK/serve.log" &
SERVE_PID=$!
trap 'kill "$SERVE_PID" 2>/dev/null || true' EXIT
PORT=""
for _ in $(seq 60); do
  PORT="$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$WORK/serve.log")"
  [ -n "$PORT" ] && break
  kill -0 "$SERVE_PID" 2>/dev/null || { cat "$WORK/serve.log"; exit 1; }
  sleep 0.5
done
[ -n "$PORT" ] || { cat "$WORK/serve.log"; echo "check-wheel: serve did not start" >&2; exit 1; }
"$BIN/python" -c 'import sys, urllib.request; print(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/readyz", timeout=10).read().decode().strip())' "$PORT"
kill "$SERVE_PID"; wait "$SERVE_PID" || true
trap - EXIT

step "where the shipped files were read from"
"$BIN/python" -c 'from bot.base import resources; print(resources.rules_dir()); print(resources.migrations_dir()); print(resources.alembic_ini())'
