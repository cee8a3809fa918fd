#!/usr/bin/env bash
# Every matrix operation of a GPU solve on the GPU (issue #15), run on the GPU machine from the repository root
# after `make gpu` here (and, for the comparison with the previous generic type, an old build packed as
# extra/build-old). Writes logs and CSVs to $OUT.
#   tests/gpu/gpupaths.sh [check|bench]...
# check: every aijcusparse operation on every plugin type against aijcusparse (test_aijops: device COO values,
#        transposes, value operations, products on the GPU path), compute-sanitizer memcheck of those paths,
#        the existing layout checks, GAMG (ex56) with the same iterations as aijcusparse on 1 and 8 ranks.
# bench: gpu-paths-<device>-<date>.csv (test,type,iterations,setup_s,solve_s,total_s,device_to_host_copies_in_solve)
#        for ex56 -ne 59 CG+GAMG, ex19 512x512 GMRES+Jacobi (and the old generic type's SNESSolve), and
#        MatMultTranspose on a 1M-row and a 40M-nonzero matrix (bench_ops: MatMult, MatMultTranspose, device MB).
set -u
OUT=${OUT:-/tmp/gpu-out}; mkdir -p "$OUT"
if [ ! -d /opt/devb/extra ]; then bash .dev/device-unpack.sh; fi
. /opt/devb/env.sh
E=/opt/devb/extra; BIN=$E/build/bin; LIB=$E/build/lib/libpetscspmv.so; OLD=$E/build-old/lib/libpetscspmv.so
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH
TYPES=${TYPES:-brc suraa ccoo argcsr segsum}
pass=0; fail=0
step() { local name=$1; shift; echo "== $name [$(date +%T)]"; if "$@" > "$OUT/$name.log" 2>&1; then pass=$((pass+1)); echo "ok   $name"; tail -2 "$OUT/$name.log"; else fail=$((fail+1)); echo "FAIL $name"; tail -25 "$OUT/$name.log"; fi; }
what=${*:-check bench}
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$device, commit $(cat .dev/commit 2>/dev/null), $(date -u +%FT%TZ)" | tee "$OUT/device.txt"
its() { grep -h "Linear solve" "$@" | awk '{print $NF}' | paste -sd' '; }
same_its() { local a b; a=$(its "$1"); b=$(its "$2"); echo "iterations: $a / $b"; [ -n "$a" ] && [ "$a" = "$b" ]; }

case " $what " in *" check "*)
  for T in $TYPES; do
    step ${T}_aijops          "$BIN/test_aijops" -type $T -ref aijcusparse -gpu_products
    step ${T}_aijops_memcheck timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/test_aijops" -type $T -ref aijcusparse -gpu_products -nspecs 1
    step ${T}_gpu_small       "$BIN/test_gpu" -type $T -matrices "stencil7:n=30,const=1;random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;denserows:m=20000,k=6,len=5000,dense=5;rmat:scale=14,ef=16"
    step ${T}_matops          "$BIN/test_matops" -type $T
  done
  ex56() { "$BIN/ex56" -dll_append "$LIB" -ksp_type cg -pc_type gamg -ksp_converged_reason -ksp_rtol 1e-8 "$@"; }
  ex56 -ne 19 -mat_type aijcusparse > "$OUT/ex56_check_cusparse.log" 2>&1
  mpiexec -n 8 "$BIN/ex56" -dll_append "$LIB" -ksp_type cg -pc_type gamg -ksp_converged_reason -ksp_rtol 1e-8 -ne 15 -mat_type aijcusparse > "$OUT/ex56_check8_cusparse.log" 2>&1
  for T in $TYPES; do
    ex56 -ne 19 -mat_type $T > "$OUT/ex56_check_$T.log" 2>&1
    step ${T}_ex56_same same_its "$OUT/ex56_check_cusparse.log" "$OUT/ex56_check_$T.log"
    mpiexec -n 8 "$BIN/ex56" -dll_append "$LIB" -ksp_type cg -pc_type gamg -ksp_converged_reason -ksp_rtol 1e-8 -ne 15 -mat_type $T > "$OUT/ex56_check8_$T.log" 2>&1
    step ${T}_ex56_same_n8 same_its "$OUT/ex56_check8_cusparse.log" "$OUT/ex56_check8_$T.log"
  done
  step mpi_ops_n2 mpiexec -n 2 "$BIN/test_mpi" -type brc
esac

case " $what " in *" bench "*)
  csv=$OUT/gpu-paths-$(echo "$device" | tr -c 'A-Za-z0-9\n' '-' | tr -s - | sed 's/-$//' | tr A-Z a-z)-$(date +%Y%m%d).csv
  echo "test,type,iterations,setup_s,solve_s,total_s,device_to_host_copies_in_solve" > "$csv"
  # one row from a -log_view: linear iterations (sum), setup (ex56: its "Setup" stage, i.e. KSPSetUp/PCSetUp; ex19:
  # SNESJacobianEval, the assembly and the format's refresh), KSPSolve, whole run, GpuToCpu count in KSPSolve
  row() { local test=$1 type=$2 log=$3
    local it st so tot d2h
    it=$(awk '/Linear solve converged|Linear solve did not converge/ {s += $NF} END {print s + 0}' "$log")
    st=$(awk '/^ *1: +Setup:/ {print $3; f = 1; exit} END {if (!f) exit 1}' "$log" || awk '$1=="SNESJacobianEval" {print $4; exit}' "$log")
    so=$(awk '$1=="KSPSolve" {print $4; exit}' "$log")
    tot=$(awk '/^Time \(sec\):/ {print $3; exit}' "$log"); d2h=$(awk '$1=="KSPSolve" {print $(NF-2); exit}' "$log")
    echo "$test,$type,$it,$st,$so,$tot,$d2h" | tee -a "$csv"; }
  # three runs of each type, interleaved (run r of every type, then run r+1): the median row by total time
  for r in 1 2 3; do for T in aijcusparse $TYPES; do
    "$BIN/ex56" -dll_append "$LIB" -ne 59 -ksp_type cg -pc_type gamg -mat_type $T -ksp_converged_reason -log_view > "$OUT/ex56_ne59_${T}_r$r.log" 2>&1
  done; done
  for T in aijcusparse $TYPES; do
    for r in 1 2 3; do row ex56_ne59_cg_gamg_run$r $T "$OUT/ex56_ne59_${T}_r$r.log" > /dev/null; done
    tail -3 "$csv" | sort -t, -k6 -g | sed -n 2p > /tmp/median.row; head -n -3 "$csv" > /tmp/csv.tmp
    cat /tmp/csv.tmp /tmp/median.row | sed '$ s/_run[0-9],/,/' > "$csv"; tail -1 "$csv"
  done
  # the coarse operators as plugin types too (-mat_spmv_product_format) instead of aijcusparse: measured to decide the default
  for T in brc ccoo; do
    log=$OUT/ex56_ne59_${T}_pf.log
    "$BIN/ex56" -dll_append "$LIB" -ne 59 -ksp_type cg -pc_type gamg -mat_type $T -mat_spmv_product_format -ksp_converged_reason -log_view > "$log" 2>&1
    row ex56_ne59_cg_gamg_coarse_plugin $T "$log"
  done
  for r in 1 2; do for T in aijcusparse $TYPES; do
    for lib in new old; do
      L=$LIB; [ $lib = old ] && L=$OLD; [ $lib = old ] && [ ! -f "$OLD" ] && continue
      [ $lib = old ] && [ $T = aijcusparse ] && continue
      log=$OUT/ex19_512_${T}_${lib}_r$r.log
      "$BIN/ex19" -dll_append "$L" -dm_vec_type cuda -dm_mat_type $T -da_grid_x 512 -da_grid_y 512 -snes_max_it 1 -ksp_max_it 10000 \
        -ksp_type gmres -pc_type jacobi -ksp_converged_reason -log_view > "$log" 2>&1
      row ex19_512_gmres_jacobi$([ $lib = old ] && echo _fa14ac7)_run$r $T "$log"
      echo "   SNESSolve $(awk '$1=="SNESSolve" {print $4; exit}' "$log") s"
    done
  done; done
  # MatMultTranspose (and MatMult, device memory) of every type, same run
  ops=$OUT/gpu-paths-ops.csv
  echo "test,type,rows,nnz,matmult_us,matmulttranspose_us,transpose_vs_aijcusparse,device_mb" > "$ops"
  for m in "stencil7:n=100|multtranspose_1M_rows" "stencil27:n=114|multtranspose_40M_nnz"; do
    "$BIN/bench_ops" -matrix "${m%%|*}" -types aijcusparse,${TYPES// /,} -test "${m##*|}" -csv "$ops" -trials 7 -reps 50 | tee "$OUT/bench_ops_${m##*|}.log"
  done
  # the transpose rows in the main CSV: iterations = products timed, solve_s = one MatMultTranspose
  awk -F, 'NR > 1 {printf "%s,%s,%d,0,%.3e,%.3e,0\n", $1, $2, 350, $6 / 1e6, 350 * $6 / 1e6}' "$ops" >> "$csv"
  echo "results: $csv $ops"
esac
echo "$pass passed, $fail failed"
