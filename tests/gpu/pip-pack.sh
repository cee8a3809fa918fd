#!/usr/bin/env bash
# Packs the pip route's venv for the GPU machine (make gpu-pip): PyPI's petsc (CUDA), petsc4py and petsc-spmv as
# pip installed them into PIPVENV (default /tmp/pipvenv, built with Python 3.12 like the device's python3; see
# bench/results/pip-20261125.log), plus the Debian libraries libpetsc needs that the device image lacks (MPICH,
# LAPACK/BLAS), into .dev/pip-venv.tar.xz (entries tmp/pipvenv/...: unpacked with `tar -C /` at the same absolute
# path, since pip wrote absolute paths: petsc4py's RUNPATH, petsc.cfg, petsc_spmv's PETSC_DIR). Left out: the venv's
# python and pip (the device's python3 runs, NumPy and SciPy are the device's), PETSc's share/ and static
# libraries, caches; shared libraries are stripped. tests/gpu/pip.sh unpacks it and runs the checks there.
set -euo pipefail
V=${PIPVENV:-/tmp/pipvenv}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SP=$(ls -d "$V"/lib/python3.*/site-packages)
PYV=$(basename "$(dirname "$SP")")
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
dst=$stage$V
mkdir -p "$dst/lib/$PYV/site-packages" "$dst/syslib"
for p in petsc petsc4py petsc_spmv; do
  [ -d "$SP/$p" ] || { echo "pip-pack: no $p in $SP (run the pip route first: bench/results/pip-20261125.log)" >&2; exit 1; }
  cp -a "$SP/$p" "$SP"/$p-*.dist-info "$dst/lib/$PYV/site-packages/"
done
cp "$V/pyvenv.cfg" "$dst/"
P=$dst/lib/$PYV/site-packages/petsc
rm -rf "$P/share" "$P"/lib/*.a "$P/lib/petsc/bin"
find "$dst" -name __pycache__ -prune -exec rm -rf {} +
# (PyPI's petsc wheel has no symlinks: its lib/libpetsc.so is a linker script, INPUT(libpetsc.so.3.26))
find "$dst" -name '*.so*' -type f | while read -r f; do file -b "$f" | grep -q '^ELF' && strip --strip-unneeded "$f"; done
# Debian runtime libraries of libpetsc (as ../shared/tools/device-bundle.sh: CUDA, libc and the NVML stub excluded)
ldd "$(ls "$SP"/petsc/lib/libpetsc.so.* | head -1)" | awk '/=> \//{print $3}' |
  grep -v -E "/usr/local/cuda|libc\.so|libm\.so|libstdc|libgcc_s|ld-linux|libpthread|libdl|librt|nvmlstub" | sort -u |
  while read -r l; do cp -L "$l" "$dst/syslib/"; done
strip --strip-unneeded "$dst"/syslib/* 2>/dev/null || true
mkdir -p "$ROOT/.dev"
tar -C "$stage" -cf - "${V#/}" | xz -T2 -6 > "$ROOT/.dev/pip-venv.tar.xz"
git -C "$ROOT" rev-parse --short HEAD > "$ROOT/.dev/pip-commit"
ls -la "$ROOT/.dev/pip-venv.tar.xz"
size=$(stat -c %s "$ROOT/.dev/pip-venv.tar.xz")
[ "$size" -lt $((30 * 1024 * 1024)) ] || { echo "pip-pack: the pack is $size bytes, over 30 MiB" >&2; exit 1; }
