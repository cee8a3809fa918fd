#!/bin/bash
# The SpMV benchmark on the GPU machine: bench_spmv on the benchmark matrices, every type (spmv, brc, ..., aijcusparse,
# sellcuda), CSV and JSON into $OUT, the table to stdout.
#
# Run from the repository root after `. /opt/devb/env.sh`:
#   bash bench/run_gpu_bench.sh [extra bench_spmv options, e.g. -types brc,aijcusparse -trials 11]
# Environment: BUILD (default build): binaries in $BUILD/bin; MATRICES: the Matrix Market files (default
# ./.dev/matrices when present, as copied to the GPU machine, else ../shared/matrices); OUT (default
# bench/results); COMMIT (default: git rev-parse HEAD, "-dirty" when the tree has changes).
set -euo pipefail
BUILD=${BUILD:-build}
if [ -z "${MATRICES:-}" ]; then
  if [ -d .dev/matrices ]; then MATRICES=.dev/matrices; else MATRICES=../shared/matrices; fi
fi
OUT=${OUT:-bench/results}
if [ -z "${COMMIT:-}" ]; then
  COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
  if [ "$COMMIT" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then COMMIT=$COMMIT-dirty; fi
fi
mkdir -p "$OUT"
stamp=$(date +%Y%m%d-%H%M%S)

M="$MATRICES/cage11.mtx:64"
M="$M;stencil27:n=120"
M="$M;rmat:scale=21,ef=16"
M="$M;denserows:m=2000000,k=8,len=100000,dense=16"
M="$M;$MATRICES/nasa4704.mtx:400"
M="$M;$MATRICES/vsp_model1_crew1_cr42_south31.mtx:64"
M="$M;$MATRICES/delaunay_n16.mtx:128"
M="$M;stencil7:n=150"
M="$M;stencil27:n=120,const=1"

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null || true
"$BUILD/bin/bench_spmv" -matrices "$M" -commit "$COMMIT" \
  -csv "$OUT/spmv-$stamp.csv" -json "$OUT/spmv-$stamp.json" "$@"
echo "results: $OUT/spmv-$stamp.csv $OUT/spmv-$stamp.json"
