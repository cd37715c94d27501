#!/usr/bin/env bash
# Build the vllm-doctor image (deploy/Containerfile) with buildah, needing no container registry:
#
#   scripts/build-image.sh [TAG]          (default localhost/vllm-doctor:latest)
#
# 1. The base: Debian bookworm (minbase) with python3, python3-venv and ca-certificates, made with
#    mmdebstrap from Debian's packages. Its root filesystem is cached as a tarball under
#    ~/.cache/vllm-doctor/image/ (keyed by suite and packages) and imported once as
#    localhost/vllm-doctor-base:<key>. Where a registry is reachable, BASE=docker.io/library/python:3.11-slim
#    (any image with python3.11 and its venv module) skips this step.
# 2. wheels/: vllm-doctor's wheel (python -m build: the sdist, then the wheel from it) and its
#    dependencies' (pip wheel), built here (PYTHON, default python3, with the `build` package; it
#    must be 3.11 like the base: binary wheels are per Python version). The image build then
#    installs them with --no-index: it needs no network, and installs what was tested.
# 3. buildah build, with --layers so an unchanged base is not set up again.
#
# Needs: mmdebstrap (only without BASE) and buildah; run as root (mmdebstrap's root mode).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TAG="${1:-localhost/vllm-doctor:latest}"
PYTHON="${PYTHON:-python3}"
SUITE=bookworm
PACKAGES=python3,python3-venv,ca-certificates
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/vllm-doctor/image"

step() { printf '== %s\n' "$*" >&2; }
start=$(date +%s)

if [ -z "${BASE:-}" ]; then
  key="$SUITE-$(printf '%s' "$PACKAGES" | sha256sum | cut -c1-12)"
  tarball="$CACHE/debian-$key.tar"
  BASE="localhost/vllm-doctor-base:$key"
  if [ ! -s "$tarball" ]; then
    step "mmdebstrap: Debian $SUITE with $PACKAGES -> $tarball"
    mkdir -p "$CACHE"
    # Documentation, manual pages and translations are of no use in a service image.
    mmdebstrap --variant=minbase --include="$PACKAGES" \
      --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
      --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
      "$SUITE" "$tarball.part" >&2
    mv "$tarball.part" "$tarball"
  fi
  if ! buildah inspect --type image "$BASE" >/dev/null 2>&1; then
    step "import $tarball as $BASE"
    ctr="$(buildah from scratch)"
    buildah add --quiet "$ctr" "$tarball" / >/dev/null
    buildah config --env LANG=C.UTF-8 --cmd /bin/sh "$ctr"
    buildah commit --quiet --rm "$ctr" "$BASE" >/dev/null
  fi
fi

"$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
  || { echo "build-image: PYTHON=$PYTHON is not Python 3.11 (the base's); set PYTHON" >&2; exit 2; }
context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
step "the wheel, built from the sdist; pip wheel: its dependencies"
# From the sdist, as scripts/check-wheel.sh does: a build straight from the checkout would reuse
# whatever an earlier build left in build/ (modules since moved or deleted among them).
"$PYTHON" -m build --outdir "$context/dist" "$ROOT" >"$context/build.log" 2>&1 \
  && "$PYTHON" -m pip wheel --wheel-dir "$context/wheels" "$context"/dist/*.whl >>"$context/build.log" 2>&1 \
  || { tail -40 "$context/build.log" >&2; exit 1; }
rm -r "$context/build.log" "$context/dist"

step "buildah build -> $TAG (base $BASE)"
buildah build --quiet --layers --isolation chroot --build-arg "BASE=$BASE" \
  -f "$ROOT/deploy/Containerfile" -t "$TAG" "$context" >/dev/null
step "built $TAG in $(( $(date +%s) - start )) s"
echo "$TAG"
