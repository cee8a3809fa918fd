#!/usr/bin/env bash
# The one device call for the pending series (bench/results/pending/000*.patch), written in session 21 without a GPU.
# Here: git am bench/results/pending/*.patch && make gpu (then commit; the bundle records the commit).
# On the device (run, carry [".dev"]): bash bench/results/pending/run-on-gpu.sh; the logs come back as one archive.
# About 6-8 minutes: the checks of the five patches on brc and spmv, then one benchmark call for 0002 and 0005.
set -u
RESULT=${OUT:-/tmp}/pending-results.tar.xz  # the device tool's $OUT brings back at most 8 files: one archive
W=/tmp/pending-work; rm -rf "$W"; mkdir -p "$W/checks" "$W/bench"
# 1. correctness: layouts against the host references (both column widths of brc), test_matops' non-finite x check
#    (0005), out of device memory (0001 MatSpMVGetFormat, 0004 the pool empty at PetscFinalize), sanitizers
TYPES="brc spmv" SKIP_BIG=1 OUT=$W/checks bash tests/gpu/run.sh check nofit sanitize 2>&1 | tee "$W/checks.txt"
# 2. speed: brc with 16-bit offsets (default) against 32-bit columns (c32) in one run, beside aijcusparse, ccoo, dcsr
#    and the floors; bytes a nonzero in the table. Prediction (NOTES, session 21): brc 0.84x its c32 time where the
#    columns fit (27-point stencils ~125-130 us on an H200), unchanged on the graphs; 0005 within +-2%.
. /opt/devb/env.sh
E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH
BUILD=$E/build MATRICES=$E/matrices OUT=$W/bench COMMIT=$(cat .dev/commit) \
  bash bench/run_gpu_bench.sh -types aijcusparse,brc,brc/c32,ccoo,dcsr,spmv -c32_mat_brc_offsets16 0 -floor 1 2>&1 | tee "$W/bench.txt"
tar -C "$W" -cJf "$RESULT" checks bench checks.txt bench.txt
echo "archive: $RESULT"
