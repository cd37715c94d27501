#!/usr/bin/env bash
# Build the sdist and, from it, the wheel; install the wheel in a fresh venv outside the checkout;
# run what an operator runs first: diagnose the bundled example, list the rules, migrate a database.
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
step "where the shipped files were read from"
"$BIN/python" -c 'from bot import resources; print(resources.rules_dir()); print(resources.migrations_dir()); print(resources.alembic_ini())'
