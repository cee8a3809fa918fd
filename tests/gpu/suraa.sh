#!/usr/bin/env bash
# SURAA GPU checks, run on the GPU machine from the repository root after `make gpu` (like tests/gpu/run.sh):
# the device layout equals the host reference entry by entry (MatSpMVVerify), products and refresh match AIJ,
# under every code path: the default plan, forced G1/G2 on small matrices (threshold 4), logical mode, the
# cuSPARSE ablation (ALG1, ALG2), the paper's scalar G3 with 128-lane G2, fd_bins and fixed segments, no G1,
# one stream, -mat_suraa_lane_entries 1/8/32 (the lane rule's cuts on host and device, whole batches of the
# inner loop); then compute-sanitizer memcheck/racecheck/synccheck; then test_matops/test_ksp with -type suraa.
#   tests/gpu/suraa.sh [check|sanitize|ops|all]...      logs in $OUT (default /tmp/gpu-out)
set -u
OUT=${OUT:-/tmp/gpu-out}; mkdir -p "$OUT"
if [ ! -d /opt/devb/extra ]; then bash .dev/device-unpack.sh; fi
. /opt/devb/env.sh
E=/opt/devb/extra; BIN=$E/build/bin; M=$E/matrices
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH MATRICES=$M BUILD=$E/build
pass=0; fail=0
step() { local name=$1; shift; echo "== $name [$(date +%T)]: $*"; if "$@" > "$OUT/$name.log" 2>&1; then pass=$((pass+1)); echo "ok   $name"; tail -2 "$OUT/$name.log"; else fail=$((fail+1)); echo "FAIL $name"; tail -25 "$OUT/$name.log"; fi; }
what=${*:-all}
SMALL="random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=7000,n=900,k=5,empty=0.3,seed=6;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;denserows:m=3000,k=4,len=2999,dense=1;denserows:m=4000,k=40,len=30000,dense=3;stencil27:n=20;stencil7:n=16;rmat:scale=14,ef=16;$M/cage10.mtx;$M/nasa4704.mtx"
BIG="$M/cage11.mtx:64;stencil27:n=120;rmat:scale=21,ef=16;denserows:m=2000000,k=8,len=100000,dense=16"

case " $what " in *" check "*|*" all "*)
  i=0
  while IFS= read -r opts; do
    i=$((i+1)); step suraa_small_$i "$BIN/test_gpu" -type suraa -matrices "$SMALL" $opts
  done <<'OPTS'

-mat_suraa_vector_threshold 4
-mat_suraa_vector_threshold 4 -mat_suraa_permute logical
-mat_suraa_permute logical
-mat_suraa_kernels cusparse
-mat_suraa_kernels cusparse -mat_suraa_cusparse_alg 2
-mat_suraa_g3_lanes 1 -mat_suraa_vector_width 128 -mat_suraa_vector_threshold 8
-mat_suraa_segments fd_bins
-mat_suraa_segments rows -mat_suraa_segment_rows 64 -mat_suraa_vector_threshold 8
-mat_suraa_g1_max_rows 0
-mat_suraa_streams 0 -mat_suraa_vector_threshold 4
-mat_suraa_mean_gate
-mat_suraa_lane_entries 8
-mat_suraa_lane_entries 1 -mat_suraa_vector_threshold 4 -mat_suraa_g1_max_rows 0
-mat_suraa_lane_entries 32 -mat_suraa_permute logical
OPTS
  step suraa_big            "$BIN/test_gpu" -type suraa -matrices "$BIG"
  step suraa_big_logical    "$BIN/test_gpu" -type suraa -matrices "$BIG" -mat_suraa_permute logical
  step suraa_big_e8         "$BIN/test_gpu" -type suraa -matrices "$BIG" -mat_suraa_lane_entries 8
esac
case " $what " in *" sanitize "*|*" all "*)
  S="random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;random:m=700,n=3000,k=5;banded:m=1,bw=0;rmat:scale=12,ef=16;$M/nh2010.mtx"
  step suraa_memcheck    compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$BIN/test_gpu" -type suraa -matrices "$S"
  step suraa_memcheck_t4 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/test_gpu" -type suraa -matrices "$S" -mat_suraa_vector_threshold 4 -mat_suraa_permute logical
  step suraa_memcheck_e8 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/test_gpu" -type suraa -matrices "$S" -mat_suraa_lane_entries 8 -mat_suraa_vector_threshold 4
  step suraa_memcheck_cs compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/test_gpu" -type suraa -matrices "$S" -mat_suraa_kernels cusparse
  step suraa_racecheck   compute-sanitizer --tool racecheck --error-exitcode 9 "$BIN/test_gpu" -type suraa -matrices "$S" -mat_suraa_vector_threshold 4
  step suraa_synccheck   compute-sanitizer --tool synccheck --error-exitcode 9 "$BIN/test_gpu" -type suraa -matrices "$S" -mat_suraa_vector_threshold 4
esac
case " $what " in *" ops "*|*" all "*)
  step suraa_matops  "$BIN/test_matops" -type suraa -opt_good mat_suraa_segments=fd_bins -opt_bad mat_suraa_vector_width=48
  step suraa_ksp     "$BIN/test_ksp" -type suraa -matrix "$M/cage11.mtx"
  step suraa_ksp_st  "$BIN/test_ksp" -type suraa -matrix "stencil27:n=30"
  step suraa_ksp_dr  "$BIN/test_ksp" -type suraa -matrix "denserows:m=4000,k=6,len=2500,dense=4" -ksp_types gmres -pc_types none,jacobi,ilu
esac
echo "$pass passed, $fail failed"
