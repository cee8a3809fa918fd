#!/bin/bash
# Inside a solve, on matrices that fit in the L2 cache (GPU machine, after . /opt/devb/env.sh): does a format timed
# faster than cuSPARSE on the matrix alone (bench_spmv, back-to-back products) stay faster inside a Krylov solve,
# where the solver's vector kernels run between two products? For each type: the KSPSolve time from -log_view (one run
# each, fixed iteration counts; the format is built by a product before the solve), spmv's choice from -info, and
# bench_spmv's product times on the
# same matrix. Writes $OUT/small-solve.txt (and the logs) and prints a table.
#   bash bench/run_small_solve.sh
set -u
if [ -z "${BUILD:-}" ] && [ ! -d build/bin ] && [ -d /opt/devb/extra/build/bin ]; then BUILD=/opt/devb/extra/build; fi
BUILD=${BUILD:-build}; BIN=$BUILD/bin; M=${MATRICES:-/opt/devb/extra/matrices}; LIB=$BUILD/lib/libpetscspmv.so; OUT=${OUT:-/tmp/gpu-out}; mkdir -p "$OUT/small"
TYPES=${TYPES:-"aijcusparse spmv brc ccoo segsum argcsr"}
# name | program | options (the type is appended)
CASES=(
  "ex19_128|ex19|-dm_vec_type cuda -da_grid_x 128 -da_grid_y 128 -snes_max_it 2 -pc_type jacobi -ksp_max_it 400 -ksp_norm_type unpreconditioned -dm_mat_type"
  "stencil27_40|spmv_solve|-f stencil27:n=40 -ksp_type gmres -pc_type jacobi -ksp_max_it 500 -ksp_rtol 1e-14 -mat_type"
  "stencil27_64|spmv_solve|-f stencil27:n=64 -ksp_type gmres -pc_type jacobi -ksp_max_it 500 -ksp_rtol 1e-14 -mat_type"
  "cage11_2|spmv_solve|-f $M/cage11.mtx:2 -ksp_type bcgs -pc_type jacobi -ksp_max_it 300 -ksp_rtol 1e-14 -mat_type"
)
ev() { awk -v e="$2" '$1 == e {print $4; exit}' "$1"; }
cnt() { awk -v e="$2" '$1 == e {print $2; exit}' "$1"; }
{
  printf '%-14s %-12s %10s %8s  %s\n' case type KSPSolve_s MatMults spmv_choice
  for c in "${CASES[@]}"; do
    IFS='|' read -r name prog opts <<< "$c"
    for t in $TYPES; do
      log=$OUT/small/${name}_$t.log
      "$BIN/$prog" -dll_append "$LIB" $opts $t -log_view -info :sys > "$log" 2>&1 || echo "FAILED: $name $t (see $log)"
      k=$(ev "$log" KSPSolve); n=$(cnt "$log" MatMult)
      choice=$(grep -o "spmv (GPU): [^;]*chose [a-z]*" "$log" | head -1 | sed 's/.*chose //')
      printf '%-14s %-12s %10s %8s  %s\n' "$name" "$t" "${k:-NA}" "${n:-NA}" "$choice"
    done
  done
  echo "bench_spmv on the same matrices alone (back-to-back products):"
  "$BIN/bench_spmv" -matrices "stencil27:n=40;stencil27:n=64;$M/cage11.mtx:2" -types "aijcusparse,spmv,brc,ccoo,segsum,argcsr" -trials 5 -reps 50 -floor 0 2>&1 | tail -20
} 2>&1 | tee "$OUT/small-solve.txt"
