#!/bin/bash
# PCPOLY with fp64 or fp32 matrix values (-pc_poly_precision double|single), issue #19, on the GPU machine:
#   ex19 512x512 (1M unknowns, ex19's two Newton steps, rtol 1e-5): GMRES and BiCGSTAB (right preconditioning, so
#     every run stops on the same true residual) with -pc_poly_type chebyshev 10 and gmres 20;
#   ex56 -ne 59 (3D elasticity, 650K unknowns): CG with chebyshev 10;
# for the matrix types in EX19_TYPES / EX56_TYPES (aijcusparse, the best plugin type, spmv), both precisions.
# Each configuration runs the solver once (iterations, KSPSolve time, PCApply count; -log_view without GPU timing, so
# nothing is synchronized that the solver does not synchronize itself). The PC apply time is measured apart, because
# neither -log_view (a GPU event's CPU time is its launches) nor -log_view_gpu_time (a synchronization at every event,
# 20-40 us a polynomial step) gives it: bench_pcapply loads the solver's own operator (saved once per problem with
# -ksp_view_mat binary) in the same type, sets up the same preconditioner and times 100 applications back to back;
# pc_apply_s = (time of one application) x (PCApply calls of the solve).
#
# Writes $OUT/poly-precision-<device>-<date>.csv with columns problem,solver,type,precision,iterations,pc_apply_s,
# ksp_solve_s (plus pc_setup_s and single_build_s: the setup and the fp32 copy's build, from bench_pcapply; matmults, log) and every -log_view beside it.
# Run from the repository root after `. /opt/devb/env.sh`:  bash bench/run_poly_precision_bench.sh [ex19|ex56]...
set -uo pipefail
BUILD=${BUILD:-build}
BIN=$BUILD/bin
LIB=$(cd "$BUILD/lib" && pwd)/libpetscspmv.so
OUT=${OUT:-bench/results}
EX19_TYPES=${EX19_TYPES:-aijcusparse brc spmv}
EX56_TYPES=${EX56_TYPES:-aijcusparse ccoo spmv}
RUN_TIMEOUT=${RUN_TIMEOUT:-90}
GRID=${GRID:-512}  # ex19 grid
NE=${NE:-59}       # ex56 elements per side
VEC=${VEC:-cuda}
WHAT=${*:-ex19 ex56}
COMMIT=$(cat .dev/commit 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
DEV=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | awk '{print tolower($2)}')
DEV=${DEV:-host}
CSV=$OUT/poly-precision-$DEV-$(date +%Y%m%d).csv
LOGS=$OUT/poly-precision-$DEV-$(date +%Y%m%d-%H%M%S)
mkdir -p "$LOGS"
[ -s "$CSV" ] || echo "problem,solver,type,precision,iterations,pc_apply_s,ksp_solve_s,pc_applies,pc_apply_us,pc_setup_s,single_build_s,matmults,commit,log" > "$CSV"
ev() { awk -v e="$1" -v f="$2" '$1 == e {print $f; exit}' "$3"; } # field f of event e's -log_view line
echo "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), commit $COMMIT, $(date -u +%FT%TZ)"

one() { # problem solver type precision "pc options" command...
  local prob=$1 solver=$2 T=$3 prec=$4 pcopts=$5 tag f g its ksp pca pcs sb mm napply us; shift 5
  tag=$(echo "${prob}_${solver}_${T}_$prec" | tr -c 'a-zA-Z0-9' '_' | tr -s _)
  f=$LOGS/$tag.log; g=$LOGS/$tag.pcapply.log
  # shellcheck disable=SC2086
  timeout "$RUN_TIMEOUT" "$@" $pcopts -pc_poly_precision "$prec" -log_view > "$f" 2>&1
  # shellcheck disable=SC2086
  timeout "$RUN_TIMEOUT" "$BIN/bench_pcapply" -f "$LOGS/$prob.bin" -mat_type "$T" $pcopts -pc_poly_precision "$prec" -reps 100 > "$g" 2>&1
  us=$(awk '/^pc_apply_us/ {print $2}' "$g")
  pcs=$(awk '/^pc_setup_us/ {printf "%.4e", $2 * 1e-6}' "$g"); sb=$(awk '/^pc_setup_us/ {printf "%.4e", $4 * 1e-6}' "$g")
  napply=$(awk '$1 == "PCApply" {s += $2} END {print s + 0}' "$f")
  its=$(awk '/Linear solve (converged|did not converge)/ {s += $NF} /KSP Iterations|iterations [0-9]+/ {} END {print s + 0}' "$f")
  [ "$its" = 0 ] && its=$(awk '/Number of iterations|iterations =/ {print $NF; exit}' "$f")
  grep -q "did not converge\|DIVERGED" "$f" && its="$its (not converged)"
  pca=$(awk -v u="${us:-0}" -v n="$napply" 'BEGIN {if (u > 0) printf "%.4e", u * 1e-6 * n}')
  ksp=$(ev KSPSolve 4 "$f"); mm=$(awk '$1 == "MatMult" {s += $2} END {print s + 0}' "$f")
  echo "$prob,$solver,$T,$prec,$its,${pca:-},${ksp:-},$napply,${us:-},${pcs:-},${sb:-0},${mm:-},$COMMIT,$(basename "$f")" >> "$CSV"
  printf '%-5s %-22s %-12s %-6s its %-8s PCApply %-10s (%s x %s us) KSPSolve %-10s PCSetUp %-10s fp32 build %s\n' "$prob" "$solver" "$T" "$prec" "$its" "${pca:--}" "$napply" "${us:--}" "${ksp:--}" "${pcs:--}" "${sb:--}"
}

case " $WHAT " in *" ex19 "*)
  # the operator of the first Newton step, for bench_pcapply (the second step's has the same pattern)
  "$BIN/ex19" -da_grid_x "$GRID" -da_grid_y "$GRID" -snes_max_it 1 -ksp_max_it 1 -ksp_view_mat binary:"$LOGS/ex19.bin" > /dev/null 2>&1
  for s in "gmres|chebyshev 10|chebyshev -pc_poly_degree 10" "gmres|gmres 20|gmres -pc_poly_degree 20" \
           "bcgs|chebyshev 10|chebyshev -pc_poly_degree 10" "bcgs|gmres 20|gmres -pc_poly_degree 20"; do
    IFS='|' read -r ksp poly opts <<< "$s"
    for T in $EX19_TYPES; do for p in double single; do
      # shellcheck disable=SC2086
      one ex19 "$ksp+poly $poly" "$T" "$p" "-pc_type poly -pc_poly_type $opts" "$BIN/ex19" -dll_append "$LIB" -da_grid_x "$GRID" -da_grid_y "$GRID" -dm_vec_type "$VEC" -dm_mat_type "$T" \
        -ksp_pc_side right -ksp_max_it 10000 -ksp_converged_reason -snes_converged_reason -ksp_type "$ksp"
    done; done
  done ;;
esac
case " $WHAT " in *" ex56 "*)
  "$BIN/ex56" -ne "$NE" -ksp_type cg -ksp_max_it 1 -pc_type jacobi -ksp_view_mat binary:"$LOGS/ex56.bin" > /dev/null 2>&1
  for T in $EX56_TYPES; do for p in double single; do
    one ex56 "cg+poly chebyshev 10" "$T" "$p" "-pc_type poly -pc_poly_type chebyshev -pc_poly_degree 10" "$BIN/ex56" -dll_append "$LIB" -ne "$NE" -mat_type "$T" -ksp_type cg -ksp_rtol 1e-8 -ksp_max_it 20000 \
      -ksp_converged_reason
  done; done ;;
esac
echo "results: $CSV, logs in $LOGS"
