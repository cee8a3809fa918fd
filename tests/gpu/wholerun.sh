#!/bin/bash
# The whole-run measurements on the GPU machine (issue #25), in one command inside the device tool's 10 minutes:
#   bash tests/gpu/wholerun.sh [wholerun] [assembly] [small] [pcs] [factor] [memcheck] [mgcheck] [mgpoly] [loadcost]
# (loadcost: what the first use of each format costs a process (CUDA loads a kernel at its first launch): one fresh
#  process per type on a small matrix, its first build and product, and spmv's first and later selections)
# (mgcheck, mgpoly: issue #26, the polynomial smoother in GAMG: GPU checks and memcheck; the benchmark)
# Unpacks the bundle (make gpu) if needed, then runs the parts asked for, in that order, each with a time limit;
# everything lands in a work folder, and at the end $OUT (default /tmp/gpu-out) gets the CSVs, the summary and the logs
# packed in wholerun-logs.tar.xz (the device tool brings back at most 8 files).
set -u
export UCX_TLS=${UCX_TLS-self,sm} # one host: shared memory. Over UCX's TCP the GPU machine's MPICH hung in MPI_Finalize in ~10% of 2-rank runs (NOTES.md, "Session 25")
FINAL=${OUT:-/tmp/gpu-out}; OUT=$(mktemp -d /tmp/wholerun.XXXX); mkdir -p "$FINAL"
if [ ! -d /opt/devb/extra ]; then bash .dev/device-unpack.sh > /dev/null; fi
. /opt/devb/env.sh
E=/opt/devb/extra; BIN=$E/build/bin; export BUILD=$E/build LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH
what=" ${*:-wholerun assembly small pcs} "
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | sed 's/NVIDIA //; s/ .*//' | tr 'A-Z' 'a-z')
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); commit $(cat .dev/commit 2>/dev/null); $(date -u +%FT%TZ)" | tee "$OUT/device.txt"
part() { echo "== $1 [$(date +%T), ${SECONDS}s]"; }
case $what in *" wholerun "*)
  part warmup # the first process to touch the GPU and the libraries pays for loading them: not the first type measured
  for t in aijcusparse spmv brc; do "$BIN/ex19" -dll_append "$E/build/lib/libpetscspmv.so" -dm_vec_type cuda -dm_mat_type $t -da_grid_x 16 -da_grid_y 16 > /dev/null 2>&1; done
  part wholerun
  OUT=$OUT BUDGET_S=${WHOLERUN_BUDGET:-330} RUN_TIMEOUT=${RUN_TIMEOUT:-120} bash bench/run_wholerun_bench.sh > "$OUT/wholerun.txt" 2>&1
  tail -45 "$OUT/wholerun.txt"
esac
case $what in *" assembly "*)
  part assembly
  timeout ${ASSEMBLY_TIMEOUT:-240} ${PIN_CPUS:+taskset -c $PIN_CPUS} "$BIN/bench_assembly" -n ${ASSEMBLY_N:-1500} -rounds ${ASSEMBLY_ROUNDS:-3} -types aijcusparse,spmv,brc,ccoo -csv "$OUT/assembly-$dev-$(date +%Y%m%d).csv" > "$OUT/assembly.txt" 2>&1 || echo "bench_assembly: exit $?"
  tail -50 "$OUT/assembly.txt"
esac
case $what in *" small "*)
  part small
  OUT=$OUT timeout ${SMALL_TIMEOUT:-120} bash bench/run_small_solve.sh > /dev/null 2>&1 || echo "small: exit $?"
  cat "$OUT/small-solve.txt"
esac
case $what in *" pcs "*)
  part pcs
  # aijcusparse against AIJ on the host shows PETSc's own GPU paths (SOR without inodes, point-block Jacobi on several
  # ranks, ...); the plugin types are compared with aijcusparse, whose paths they share: every case must pass
  for T in aijcusparse ${PCS_TYPES:-spmv brc}; do
    ref=aijcusparse; [ $T = aijcusparse ] && ref=aij
    for np in 1 2; do
      timeout 100 mpiexec -n $np "$BIN/test_pcs" -type $T -reference $ref -compare rounding > "$OUT/pcs_${T}_n$np.log" 2>&1; echo "test_pcs $T vs $ref n$np: exit $?; $(tail -1 "$OUT/pcs_${T}_n$np.log")"
      grep -E "^FAIL" "$OUT/pcs_${T}_n$np.log" | head -8
      timeout 60 mpiexec -n $np "$BIN/test_retype" -type $T > "$OUT/retype_${T}_n$np.log" 2>&1; echo "test_retype $T n$np (against AIJ): exit $?; $(tail -1 "$OUT/retype_${T}_n$np.log")"
      grep -E "^FAIL" "$OUT/retype_${T}_n$np.log" | head -5
    done
  done
esac
case $what in *" factor "*)
  part factor # the plugin types factor with cuSPARSE (GPU triangular solves), as aijcusparse: ex19's default ILU(0)
  for t in aijcusparse spmv brc; do
    "$BIN/ex19" -dll_append "$E/build/lib/libpetscspmv.so" -dm_vec_type cuda -dm_mat_type $t -da_grid_x 64 -da_grid_y 64 -snes_max_it 1 -ksp_view -ksp_converged_reason > "$OUT/factor_$t.log" 2>&1
    echo "$t: $(grep -m1 -o 'factor fill ratio given [0-9.]*\|package used to perform factorization: [a-z]*' "$OUT/factor_$t.log" | tail -1); $(grep -m1 'Linear solve converged' "$OUT/factor_$t.log")"
    grep -m2 "package used\|type: seqaij" "$OUT/factor_$t.log"
  done
esac
case $what in *" memcheck "*)
  part memcheck
  timeout 200 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$BIN/test_pcs" -type spmv -reference aijcusparse -compare rounding -bs 1,3 -pcs jacobi,bjacobi_ilu,gamg,mg_galerkin,fieldsplit,poly_gmres,lu > "$OUT/memcheck_pcs.log" 2>&1; echo "memcheck test_pcs spmv: exit $?"; tail -3 "$OUT/memcheck_pcs.log"
  timeout 120 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$BIN/test_retype" -type brc -ops axpy_different,axpy_subset,convert_inplace_aij,products,prealloc_twice,duplicate_copy,filter_compress > "$OUT/memcheck_retype.log" 2>&1; echo "memcheck test_retype brc: exit $?"; tail -3 "$OUT/memcheck_retype.log"
esac
case $what in *" mgcheck "*)
  part mgcheck # the fp32 copy made on the device (flushed entries counted by the kernel), D^-1 on the device
  for T in aijcusparse spmv brc; do for np in 1 2; do
    timeout 100 mpiexec -n $np "$BIN/test_poly_single" -type $T > "$OUT/poly_single_${T}_n$np.log" 2>&1; echo "test_poly_single $T n$np: exit $?; $(tail -1 "$OUT/poly_single_${T}_n$np.log")"
  done; done
  MG="-mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type poly -mg_levels_pc_poly_type chebyshev -mg_levels_pc_poly_degree 2"
  for T in aijcusparse spmv; do for np in 1 2; do for prec in double single; do
    timeout 60 mpiexec -n $np "$BIN/ex56" -dll_append "$E/build/lib/libpetscspmv.so" -ne 19 -mat_type $T -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason $MG -mg_levels_pc_poly_precision $prec -ksp_view -use_gpu_aware_mpi 0 > "$OUT/mg_ex56_${T}_n${np}_$prec.log" 2>&1
    echo "ex56 -ne 19 $T n$np poly $prec: exit $?; $(grep -m1 'Linear solve' "$OUT/mg_ex56_${T}_n${np}_$prec.log"); $(grep -m1 -o '[0-9]* nonzeros of D^-1 A below.*' "$OUT/mg_ex56_${T}_n${np}_$prec.log"); $(grep -m1 -o 'single-precision copy of D^-1 A.*on the [A-Za-z]*' "$OUT/mg_ex56_${T}_n${np}_$prec.log")"
  done; done; done
  for pin in 0 1; do # GAMG's coarse levels pinned to the CPU: the fused smoothing step takes its host loops there
    timeout 60 "$BIN/ex56" -dll_append "$E/build/lib/libpetscspmv.so" -ne 19 -mat_type aijcusparse -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason -mg_poly single -pc_gamg_cpu_pin_coarse_grids $pin > "$OUT/mg_ex56_pin$pin.log" 2>&1
    echo "ex56 -ne 19 -mg_poly single -pc_gamg_cpu_pin_coarse_grids $pin: exit $?; $(grep -m1 'Linear solve' "$OUT/mg_ex56_pin$pin.log")"
  done
  timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "$BIN/ex56" -dll_append "$E/build/lib/libpetscspmv.so" -ne 7 -mat_type spmv -ksp_type cg -pc_type gamg -mg_poly single -ksp_converged_reason > "$OUT/racecheck_mg_poly.log" 2>&1; echo "racecheck ex56 -mg_poly single spmv: exit $?"; tail -2 "$OUT/racecheck_mg_poly.log"
  timeout 150 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$BIN/ex56" -dll_append "$E/build/lib/libpetscspmv.so" -ne 9 -mat_type spmv -ksp_type cg -pc_type gamg $MG -mg_levels_pc_poly_precision single -ksp_converged_reason > "$OUT/memcheck_mg_poly.log" 2>&1; echo "memcheck ex56 gamg poly single spmv: exit $?"; tail -3 "$OUT/memcheck_mg_poly.log"
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/test_poly_single" -type aijcusparse -check flush,bad > "$OUT/memcheck_poly_single_flush.log" 2>&1; echo "memcheck test_poly_single flush,bad: exit $?"; tail -2 "$OUT/memcheck_poly_single_flush.log"
esac
case $what in *" mgpoly "*)
  part mgpoly
  OUT=$OUT RUNS=${MG_RUNS:-1} BUDGET_S=${MG_BUDGET:-330} bash bench/run_mg_poly_bench.sh ${MG_PROBLEMS:-ex56 ex45} > "$OUT/mgpoly.txt" 2>&1
  tail -32 "$OUT/mgpoly.txt"
esac
case $what in *" loadcost "*)
  part loadcost
  for t in aijcusparse brc ccoo segsum argcsr suraa dcsr spmv; do
    for mode in LAZY EAGER; do
      t0=$(date +%s.%N)
      CUDA_MODULE_LOADING=$mode "$BIN/spmv_solve" -f stencil7:n=40 -mat_type $t -mat_spmv_wait 0 -ksp_max_it 3 -log_view -info :sys > "$OUT/loadcost_${t}_$mode.log" 2>&1
      t1=$(date +%s.%N)
      printf '%-12s %-6s process %6.3f s  build %-10s MatMult %-10s (count %s)  %s\n' $t $mode "$(awk -v a=$t0 -v b=$t1 'BEGIN {print b - a}')" \
        "$(awk '$1 == "MatSpMVBuild" {print $4; exit}' "$OUT/loadcost_${t}_$mode.log")" "$(awk '$1 == "MatMult" {print $4; exit}' "$OUT/loadcost_${t}_$mode.log")" \
        "$(awk '$1 == "MatMult" {print $2; exit}' "$OUT/loadcost_${t}_$mode.log")" "$(grep -o 'selection [0-9.e+-]* ms (statistics [0-9.e+-]* ms)[^;]*' "$OUT/loadcost_${t}_$mode.log" | head -1)"
    done
  done
  # spmv's selection in one process: the first (kernels loaded) and the next ones, on matrices of different sizes
  "$BIN/bench_spmv" -matrices "stencil7:n=40;stencil7:n=60;stencil27:n=40;$E/matrices/cage11.mtx" -types spmv,aijcusparse -trials 3 -reps 20 -info :sys > "$OUT/loadcost_selections.log" 2>&1
  grep -o 'spmv (GPU): .*selection [0-9.e+-]* ms (statistics [0-9.e+-]* ms)' "$OUT/loadcost_selections.log" | sed 's/; rule: .*; selection/; selection/'
esac
part done
tar -C "$OUT" -cJf "$FINAL/wholerun-logs.tar.xz" . && cp "$OUT"/*.csv "$FINAL/" 2>/dev/null
ls "$FINAL"
