#!/usr/bin/env bash
# petsc4py of exactly PETSc's version, built against PETSC_DIR/PETSC_ARCH, in a venv cached beside PETSc.
#
#   PETSC_DIR=... [PETSC_ARCH=...] config/petsc4py.sh OUT
#
# The venv ($CACHE/petsc4py-X.Y.Z-<hash of PETSC_DIR:PETSC_ARCH>) gets numpy, scipy, Cython and PyPI's
# petsc4py==X.Y.Z sdist, built with PETSC_DIR/PETSC_ARCH set (no build isolation: the venv's numpy is the one
# it is compiled against). Done once per PETSc (a few minutes: petsc4py's PETSc.c is large); afterwards only
# OUT is written: a small script that runs the venv's python (OUT=build/python: `build/python script.py`).
set -euo pipefail
OUT=${1:?usage: config/petsc4py.sh OUT}
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${PETSC_SPMV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/petsc-spmv}
log() { echo "[petsc4py] $*" >&2; }
eval "$(bash "$HERE/check-petsc.sh" "${PETSC_DIR:?}" "${PETSC_ARCH:-}" | sed 's/ /; /g')"   # VERSION RELEASE LAYOUT
[ "$RELEASE" = 1 ] || { echo "petsc-spmv: petsc4py is taken from PyPI, which has no petsc4py for the development PETSc $VERSION: install the petsc4py of its source tree (src/binding/petsc4py) instead" >&2; exit 1; }
KEY=$(echo "$(cd "$PETSC_DIR" && pwd -P):${PETSC_ARCH:-}" | sha256sum | cut -c1-10)
VENV=$CACHE/petsc4py-$VERSION-$KEY
if [ ! -f "$VENV/.spmv-complete" ]; then
  log "building petsc4py $VERSION against PETSC_DIR=$PETSC_DIR${PETSC_ARCH:+ PETSC_ARCH=$PETSC_ARCH} into $VENV (once; a few minutes)"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip >&2
  "$VENV/bin/python" -m pip install -q numpy scipy "cython>=3,<4" setuptools wheel >&2
  PETSC_DIR=$PETSC_DIR PETSC_ARCH=${PETSC_ARCH:-} "$VENV/bin/python" -m pip install -q --no-build-isolation --no-binary petsc4py \
    --no-cache-dir "petsc4py==$VERSION" >&2
  echo "PETSC_DIR=$PETSC_DIR PETSC_ARCH=${PETSC_ARCH:-}" > "$VENV/.spmv-complete"
fi
mkdir -p "$(dirname "$OUT")"
printf '#!/bin/sh\n# the python of %s (petsc4py %s for PETSC_DIR=%s PETSC_ARCH=%s), made by config/petsc4py.sh\nexec "%s" "$@"\n' \
  "$VENV" "$VERSION" "$PETSC_DIR" "${PETSC_ARCH:-}" "$VENV/bin/python" > "$OUT.tmp"
chmod +x "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
