#!/bin/bash
# PCPOLY on the GPU: PETSc's unmodified ex19 on a 512x512 grid (1M unknowns; ex19's defaults otherwise: two Newton
# steps, rtol 1e-5), GMRES and BiCGSTAB with -pc_type poly of each kind against none, jacobi and the Chebyshev-
# through-KSP combination (-ksp_type fgmres -pc_type ksp -ksp_ksp_type chebyshev -ksp_ksp_max_it 8), for each matrix
# type in TYPES. Prints a table (KSPSolve time, Newton steps, linear iterations, MatMults, MatMult share) and writes
# a CSV and every -log_view to $OUT.
#
# Run from the repository root after `. /opt/devb/env.sh`:
#   bash bench/run_poly_bench.sh [extra ex19 options for every run]
# Environment: BUILD (default build): $BUILD/bin/ex19 and $BUILD/lib/libpetscspmv.so; TYPES (default "aijcusparse brc");
# GRID (512); OUT (bench/results); BUDGET (seconds, default 380): runs that would start later are skipped, so the
# script ends within about 8 minutes; RUN_TIMEOUT (seconds a run may take, default 75); VEC (cuda).
#
# Tolerance: every GMRES and BiCGSTAB run uses right preconditioning (FGMRES has only that), so all of them stop on
# the same unpreconditioned residual norm (rtol 1e-5 of ex19); one GMRES+Jacobi run keeps ex19's default left
# preconditioning as in the issue and is the reference of the "vs" column.
# MatMult share: without -log_view_gpu_time a GPU event's time is only its launch, so the time of MatMult is estimated
# as (MatMults in the run) x (time of one MatMult measured per type in a short calibration run with
# -log_view_gpu_time); KSPSolve times come from runs without that option (it adds a synchronization to every event).
set -uo pipefail
BUILD=${BUILD:-build}
BIN=$BUILD/bin
LIB=$(cd "$BUILD/lib" && pwd)/libpetscspmv.so
TYPES=${TYPES:-aijcusparse brc}
GRID=${GRID:-512}
OUT=${OUT:-bench/results}
BUDGET=${BUDGET:-380}
RUN_TIMEOUT=${RUN_TIMEOUT:-75}
VEC=${VEC:-cuda}
EXTRA=("$@")
COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null || cat .dev/commit 2>/dev/null || echo unknown)
stamp=$(date +%Y%m%d-%H%M%S)
LOGS=$OUT/poly-$stamp
CSV=$OUT/poly-$stamp.csv
mkdir -p "$LOGS"
T0=$SECONDS

ex19() {
  timeout "$RUN_TIMEOUT" "$BIN/ex19" -dll_append "$LIB" -da_grid_x "$GRID" -da_grid_y "$GRID" -dm_vec_type "$VEC" \
    -use_gpu_aware_mpi 0 -ksp_converged_reason -snes_converged_reason -log_view "$@" "${EXTRA[@]}"
}
ev() { awk -v e="$1" -v f="$2" '$1 == e {print $f; exit}' "$3"; } # field f of event e's -log_view line

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
echo "commit $COMMIT, ex19 ${GRID}x${GRID}, types: $TYPES, logs: $LOGS"

# 1. one MatMult's GPU time per type: 300 unpreconditioned GMRES iterations with -log_view_gpu_time
declare -A TMM
for T in $TYPES; do
  f=$LOGS/calibrate_$T.log
  ex19 -dm_mat_type "$T" -snes_max_it 1 -ksp_type gmres -pc_type none -ksp_max_it 300 -ksp_norm_type unpreconditioned \
    -log_view_gpu_time > "$f" 2>&1
  n=$(ev MatMult 2 "$f"); t=$(ev MatMult 4 "$f")
  TMM[$T]=$(awk -v n="${n:-0}" -v t="${t:-0}" 'BEGIN {printf "%.4e", (n > 0 ? t / n : 0)}')
  echo "calibration $T: $n MatMults in $t s: ${TMM[$T]} s each"
done

# 2. the runs: label | options. First tier for every type, then the second (skipped first when time runs out)
GM="-ksp_type gmres -ksp_pc_side right"
BC="-ksp_type bcgs -ksp_pc_side right"
P="-pc_type poly -pc_poly_type"
TIER1=(
  "gmres|jacobi (left)|-ksp_type gmres -pc_type jacobi"
  "gmres|jacobi|$GM -pc_type jacobi"
  "gmres|poly gmres 10|$GM $P gmres -pc_poly_degree 10"
  "gmres|poly gmres 20|$GM $P gmres -pc_poly_degree 20"
  "gmres|poly chebyshev 20|$GM $P chebyshev -pc_poly_degree 20"
  "fgmres|ksp chebyshev 8|-ksp_type fgmres -pc_type ksp -ksp_ksp_type chebyshev -ksp_ksp_max_it 8"
  "bcgs|jacobi|$BC -pc_type jacobi"
  "bcgs|poly gmres 10|$BC $P gmres -pc_poly_degree 10"
  "bcgs|poly chebyshev 10|$BC $P chebyshev -pc_poly_degree 10"
)
TIER2=(
  "gmres|poly gmres 30|$GM $P gmres -pc_poly_degree 30"
  "gmres|poly chebyshev 10|$GM $P chebyshev -pc_poly_degree 10"
  "gmres|poly chebyshev 30|$GM $P chebyshev -pc_poly_degree 30"
  "fgmres|ksp chebyshev 8 jacobi|-ksp_type fgmres -pc_type ksp -ksp_ksp_type chebyshev -ksp_ksp_max_it 8 -ksp_pc_type jacobi"
  "gmres|poly neumann 10|$GM $P neumann -pc_poly_degree 10"
  "bcgs|poly neumann 10|$BC $P neumann -pc_poly_degree 10"
  "gmres|none|$GM -pc_type none"
  "bcgs|none|$BC -pc_type none"
)
echo "type,ksp,pc,newton,converged,linear_its,kspsolve_s,matmults,matmult_s_est,matmult_share,pcapply_s,pcpolysetup_s,log" > "$CSV"
declare -A REF
ROWS=()
run_one() {
  local T=$1 spec=$2 ksp pc opts f tag
  IFS='|' read -r ksp pc opts <<< "$spec"
  tag=$(echo "${T}_${ksp}_$pc" | tr -c 'a-zA-Z0-9' '_' | tr -s _)
  f=$LOGS/$tag.log
  if [ $((SECONDS - T0)) -ge "$BUDGET" ]; then
    echo "skipped (time budget): $T $ksp $pc"
    ROWS+=("$(printf '%-12s %-6s %-26s %s' "$T" "$ksp" "$pc" "skipped: time budget")")
    return
  fi
  # shellcheck disable=SC2086
  ex19 -dm_mat_type "$T" -ksp_max_it 10000 $opts > "$f" 2>&1
  local rc=$? its newton conv ksp_s mm pca pcs est share vs
  its=$(awk '/Linear solve (converged|did not converge)/ {s += $NF} END {print s + 0}' "$f")
  newton=$(awk '/Nonlinear solve/ {print $NF; exit}' "$f")
  conv=$(grep -q "Nonlinear solve converged" "$f" && ! grep -q "Linear solve did not converge" "$f" && echo yes || echo no)
  [ $rc -eq 0 ] || conv="no (exit $rc)"
  ksp_s=$(ev KSPSolve 4 "$f"); mm=$(ev MatMult 2 "$f"); pca=$(ev PCApply 4 "$f"); pcs=$(ev PCPolySetUp 4 "$f")
  est=$(awk -v n="${mm:-0}" -v t="${TMM[$T]:-0}" 'BEGIN {printf "%.3f", n * t}')
  share=$(awk -v e="$est" -v k="${ksp_s:-0}" 'BEGIN {printf "%.0f%%", (k > 0 ? 100 * e / k : 0)}')
  [ "$pc" = "jacobi (left)" ] && [ "$ksp" = gmres ] && REF[$T]=${ksp_s:-0}
  vs=$(awk -v r="${REF[$T]:-0}" -v k="${ksp_s:-0}" 'BEGIN {if (r > 0 && k > 0) printf "%.2fx", r / k; else printf "-"}')
  echo "$T,$ksp,$pc,${newton:-},$conv,$its,${ksp_s:-},${mm:-},$est,$share,${pca:-},${pcs:-},$f" >> "$CSV"
  ROWS+=("$(printf '%-12s %-6s %-26s %6s %-4s %7s %10s %7s %9s %8s %8s %6s %9s' "$T" "$ksp" "$pc" "${newton:-?}" "${conv:0:3}" "$its" \
    "${ksp_s:--}" "$vs" "${mm:--}" "$est" "$share" "${pca:--}" "${pcs:--}")")
  echo "$(date +%T) [$((SECONDS - T0)) s] $T $ksp $pc: Newton ${newton:-?} ($conv), $its linear its, KSPSolve ${ksp_s:--} s ($vs), $mm MatMults (~$est s, $share)"
}
for spec in "${TIER1[@]}"; do for T in $TYPES; do run_one "$T" "$spec"; done; done
for spec in "${TIER2[@]}"; do for T in $TYPES; do run_one "$T" "$spec"; done; done

echo
echo "ex19 ${GRID}x${GRID} on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), commit $COMMIT"
echo "vs: KSPSolve of GMRES+Jacobi (ex19's left preconditioning) of the same type over this run's; MatMult s: MatMults x calibrated GPU time of one"
printf '%-12s %-6s %-26s %6s %-4s %7s %10s %7s %9s %8s %8s %6s %9s\n' type ksp pc newton ok its KSPSolve vs MatMults "MatMult s" share PCApply PolySetUp
for r in "${ROWS[@]}"; do echo "$r"; done | sort -s -k1,1
echo "results: $CSV, logs in $LOGS ($((SECONDS - T0)) s)"
