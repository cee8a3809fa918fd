#!/bin/bash
# Solver-level benchmark on the GPU machine (after . /opt/devb/env.sh): PETSc's unmodified ex19 on a
# 512x512 grid (1M unknowns), one Newton step, for aijcusparse and every plugin type, with GMRES and
# BiCGSTAB and three preconditioners: none, Jacobi, and a Chebyshev polynomial through PCKSP (FGMRES
# outside, since PCKSP is not a fixed operator). Reports time to solution (KSPSolve), MatMult share (GPU
# time from -log_view_gpu_time), iteration counts and whether the solve converged, as a table and CSV.
# Iteration counts equal aijcusparse's only where the products are bitwise equal to cuSPARSE's, which no
# type promises (cuSPARSE's own summation order is its own): solves that need thousands of iterations
# (GMRES(30) on this problem) amplify last-bit differences into different counts; the table shows the
# difference. The pseudo-type aijcusparse-alg2 is the control: aijcusparse itself with cuSPARSE's other
# CSR algorithm (-mat_cusparse_spmv_alg CSRMV_ALG2), i.e. the same matrix and library with another
# summation order: it shows how far the counts move when nothing but the order of the sums changes.
# -ksp_max_it (MAXIT, default 10000) bounds the solves that do not converge.
set -u
BUILD=${BUILD:-build}; OUT=${OUT:-bench/results}; LIB=$(cd "$BUILD/lib" && pwd)/libpetscspmv.so
TYPES=${TYPES:-"aijcusparse spmv brc"}; GRID=${GRID:-512}
stamp=$(date +%Y%m%d-%H%M%S); csv=$OUT/solver-$stamp.csv; mkdir -p "$OUT"
declare -A SOLVERS=(
  [gmres_none]="-ksp_type gmres -pc_type none"
  [gmres_jacobi]="-ksp_type gmres -pc_type jacobi"
  [bcgs_none]="-ksp_type bcgs -pc_type none"
  [bcgs_jacobi]="-ksp_type bcgs -pc_type jacobi"
  [fgmres_cheby]="-ksp_type fgmres -pc_type ksp -ksp_ksp_type chebyshev -ksp_ksp_max_it 8 -ksp_ksp_norm_type none -ksp_pc_type jacobi"
)
ORDER="gmres_none gmres_jacobi bcgs_none bcgs_jacobi fgmres_cheby"
echo "device,date,commit,grid,solver,type,ksp_iterations,converged,ksp_solve_s,matmult_s,matmult_count,matmult_share" > "$csv"
commit=$(cat .dev/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
printf '%-13s %-12s %8s %9s %10s %10s %7s %s\n' solver type its converged KSPSolve_s MatMult_s share "its vs aijcusparse"
for sv in $ORDER; do
  ref=""
  for t in $TYPES; do
    log=/tmp/solver_${sv}_$t.log; mt=$t; extra=""
    [ "$t" = aijcusparse-alg2 ] && { mt=aijcusparse; extra="-mat_cusparse_spmv_alg CSRMV_ALG2"; }
    timeout ${RUN_TIMEOUT:-90} "$BUILD/bin/ex19" -dll_append "$LIB" -dm_vec_type cuda -dm_mat_type $mt $extra -da_grid_x $GRID -da_grid_y $GRID \
      -snes_max_it 1 -ksp_max_it ${MAXIT:-10000} ${SOLVERS[$sv]} -ksp_converged_reason -log_view -log_view_gpu_time > "$log" 2>&1
    its=$(awk '/Linear solve (converged|did not converge)/ {s += $NF; n++} END {print n ? s : "NA"}' "$log")
    ksp=$(awk '$1=="KSPSolve" {print $4; exit}' "$log"); mm=$(awk '$1=="MatMult" {print $4; exit}' "$log"); mc=$(awk '$1=="MatMult" {print $2; exit}' "$log")
    conv=$(grep -q "Linear solve did not converge" "$log" && echo no || { grep -q "Linear solve converged" "$log" && echo yes || echo NA; })
    share=$(awk -v a="$mm" -v b="$ksp" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "NA"}')
    [ -z "$ref" ] && ref=$its
    same=$(awk -v a="$its" -v b="$ref" 'BEGIN {if (a == b) print "same"; else if (a + 0 > 0 && b + 0 > 0) printf "%+.1f%%", 100 * (a - b) / b; else print "NA"}')
    printf '%-13s %-12s %8s %9s %10s %10s %7s %s\n' $sv $t "$its" "$conv" "$ksp" "$mm" "$share" "$same"
    echo "\"$device\",$(date -u +%FT%TZ),$commit,$GRID,$sv,$t,$its,$conv,$ksp,$mm,$mc,$share" >> "$csv"
  done
done
echo "results: $csv"
