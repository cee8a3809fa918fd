#!/usr/bin/env bash
# segsum on the GPU machine: checks, sanitizers, benchmark against aijcusparse, parameter sweep.
# Run from the repository root after a bundle (../shared/tools/device-bundle.sh) with extra/build (bin, lib),
# extra/matrices and extra/edge (the edge-case matrices: build/bin/test_segsum_host -write DIR) was unpacked
# or is at $DEV/bundle.tar.xz. Logs go to $OUT (default /tmp/gpu-out).
#   tests/gpu/segsum.sh [check|sanitize|bench|sweep|all]...
set -u
OUT=${OUT:-/tmp/gpu-out}; mkdir -p "$OUT"
DEV=${DEV:-.dev}
if [ ! -d /opt/devb/extra ]; then mkdir -p /opt/devb && tar -C /opt/devb -xJf "$DEV/bundle.tar.xz"; fi
E=/opt/devb/extra; BIN=$E/build/bin; LIB=$E/build/lib/libpetscspmv.so; M=$E/matrices
export PATH=/opt/devb/bin:$PATH LD_LIBRARY_PATH=/opt/devb/petsc/lib:/opt/devb/syslib:$E/build/lib:${LD_LIBRARY_PATH:-} PETSC_OPTIONS="-use_gpu_aware_mpi 0"
pass=0; fail=0
step() { local name=$1; shift; echo "== $name [$(date +%T)]: $*"; if timeout 300 "$@" > "$OUT/$name.log" 2>&1; then pass=$((pass+1)); echo "ok   $name"; grep -E "^(ok|FAIL) " "$OUT/$name.log" | grep -v "^ok  " | head -5; tail -2 "$OUT/$name.log"; else fail=$((fail+1)); echo "FAIL $name"; tail -30 "$OUT/$name.log"; fi; }
what=${*:-all}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$OUT/device.txt"

EDGE=$(ls $E/edge/*.mtx 2>/dev/null | tr '\n' ';')
EDGE_SAN=$(ls $E/edge/segsum_{01,08,11,12,13,20,22,24,27,31,33}.mtx 2>/dev/null | tr '\n' ';')
SMALL="random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=7000,n=900,k=5,empty=0.3,seed=6;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;denserows:m=3000,k=4,len=2999,dense=1;stencil27:n=20;rmat:scale=14,ef=16"
REAL="$M/cage11.mtx:4;$M/nasa4704.mtx:8;$M/delaunay_n16.mtx:2;$M/cti.mtx:4;$M/vsp_model1_crew1_cr42_south31.mtx:2;$M/cage10.mtx"
BIG="$M/cage11.mtx:64;rmat:scale=21,ef=16;denserows:m=2000000,k=8,len=100000,dense=16"
# test_gpu: the device auxiliary arrays equal the host reference's, device product == host reference product
# bit for bit (MatSpMVVerify, "layout==host"), and products vs AIJ on CUDA and host vectors, refresh, repeat
case " $what " in *" check "*|*" all "*)
  step check_edge_default  "$BIN/test_gpu" -type segsum -matrices "$EDGE$SMALL"
  step check_edge_t64_s3   "$BIN/test_gpu" -type segsum -matrices "$EDGE$SMALL" -mat_segsum_tile 64 -mat_segsum_tiles_per_warp 3 -mat_segsum_warps_per_block 2
  step check_edge_t512_s31 "$BIN/test_gpu" -type segsum -matrices "$EDGE$SMALL" -mat_segsum_tile 512 -mat_segsum_tiles_per_warp 31 -mat_segsum_warps_per_block 8 -mat_segsum_speculate 0
  step check_edge_t256_s1  "$BIN/test_gpu" -type segsum -matrices "$EDGE" -mat_segsum_tile 256 -mat_segsum_tiles_per_warp 1 -mat_segsum_warps_per_block 1
  step check_real          "$BIN/test_gpu" -type segsum -matrices "$REAL"
  [ -n "${BIGCHECK:-}" ] && step check_big "$BIN/test_gpu" -type segsum -matrices "$BIG"
  step check_matops        "$BIN/test_matops" -type segsum -opt_good mat_segsum_tile=64 -opt_bad mat_segsum_tile=100
  step check_ksp           "$BIN/test_ksp" -type segsum -matrix "$M/cage11.mtx"
  its() { awk '/iterations/ {print} /SNES Function norm/ {printf "%s %.3e\n", $1, $NF}' "$1"; }
  ex19() { "$BIN/ex19" -dll_append "$LIB" -dm_vec_type cuda -snes_monitor_short -ksp_converged_reason -da_grid_x 128 -da_grid_y 128 "$@"; }
  ex19 -dm_mat_type aijcusparse > "$OUT/ex19_cusparse.log" 2>&1
  ex19 -dm_mat_type segsum -log_view > "$OUT/ex19_segsum.log" 2>&1
  step check_ex19_same_its diff <(its "$OUT/ex19_cusparse.log") <(its "$OUT/ex19_segsum.log")
  grep -E "^MatMult |^MatSpMV" "$OUT/ex19_segsum.log"
esac
case " $what " in *" sanitize "*|*" all "*)
  SAN="${EDGE_SAN}random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;random:m=700,n=3000,k=5"
  step memcheck  compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$BIN/test_gpu" -type segsum -matrices "$SAN" -mat_segsum_tile 64 -mat_segsum_tiles_per_warp 2
  step racecheck compute-sanitizer --tool racecheck --error-exitcode 9 "$BIN/test_gpu" -type segsum -matrices "$SAN"
  step synccheck compute-sanitizer --tool synccheck --error-exitcode 9 "$BIN/test_gpu" -type segsum -matrices "$SAN"
esac
case " $what " in *" bench "*|*" all "*)
  B="$M/cage11.mtx:64;stencil27:n=120;rmat:scale=21,ef=16;denserows:m=2000000,k=8,len=100000,dense=16;$M/nasa4704.mtx:400;$M/vsp_model1_crew1_cr42_south31.mtx:64;$M/delaunay_n16.mtx:128;stencil7:n=150"
  stamp=$(date +%Y%m%d-%H%M%S)
  step bench "$BIN/bench_spmv" -matrices "$B" -types segsum,aijcusparse -trials 5 -reps 50 -csv "$OUT/segsum-$stamp.csv" -json "$OUT/segsum-$stamp.json"
  cat "$OUT/bench.log"
esac
case " $what " in *" sweep "*|*" all "*)
  S="rmat:scale=21,ef=16;denserows:m=2000000,k=8,len=100000,dense=16;$M/vsp_model1_crew1_cr42_south31.mtx:64"
  for o in "-mat_segsum_tile 256 -mat_segsum_tiles_per_warp 8 -mat_segsum_warps_per_block 4" "-mat_segsum_tiles_per_warp 12 -mat_segsum_warps_per_block 4" "-mat_segsum_tile 64 -mat_segsum_tiles_per_warp 14 -mat_segsum_warps_per_block 8"; do
    echo "### segsum options: $o"
    timeout 120 "$BIN/bench_spmv" -matrices "$S" -types segsum -trials 3 -reps 50 $o 2>&1 | grep -E "nonzeros|^  segsum"
  done | tee "$OUT/sweep.log"
esac
echo "$pass passed, $fail failed"
