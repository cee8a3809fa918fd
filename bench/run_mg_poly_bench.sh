#!/usr/bin/env bash
# Multigrid smoothing with PCPOLY (issue #26), on the GPU machine: CG + GAMG with PETSc's default smoother
# (chebyshev + jacobi, 2 steps, the SA eigenvalue estimates) and with the polynomial smoother
#   -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type poly -mg_levels_pc_poly_type chebyshev
#   -mg_levels_pc_poly_degree 2 -mg_levels_pc_poly_precision double|single
# (degree 1: the same number of products per smoothing step as the default, 2: the residual and one; degree 2: three;
# SMOOTHERS lists default and poly<degree>_<precision>[_res][_lb<x>]: _res adds -mg_levels_pc_poly_residual_precision
# single (the level residuals with the fp32 copies), _lb<x> the interval [x, 1.1] x lambda_max
# (-mg_levels_pc_poly_esteig 0,x,0,1.1; smoother name poly<d>-lb<x>), _local[<w>] the process-local l1 block Jacobi
# polynomial on the levels whose off-process weight is at most w (-mg_levels_pc_poly_local [-mg_levels_pc_poly_local_max_weight
# w]; smoother name ...-local[<w>]), for aijcusparse and spmv, on
#   ex56  -ne 59 (3D elasticity, 648K unknowns, block size 3), rtol 1e-8 on the true residual (-ksp_norm_type
#         unpreconditioned: every smoother stops at the same |b - Ax| / |b|, not in its own preconditioned norm)
#   ex45  128^3 (3D Poisson, 7-point, 2.1M unknowns, scalar, DMDA), rtol 1e-8
# on 1 and 2 ranks (one GPU). Each configuration is a separate process; RUNS rounds, configurations interleaved in a
# round, the median kept (by solve_s). Times from PETSc's nested log (-log_view :F:ascii_flamegraph, self times of every
# event stack; no GPU timing, so nothing is synchronized that the solver does not synchronize itself):
# setup_s = every stack under PCSetUp (GAMG's hierarchy, the smoothers' setups: eigenvalue estimates, the fp32 copies),
# solve_s = every stack under KSPSolve that is not under PCSetUp, total_s = wall time of the process.
#
# Writes $OUT/mg-poly-<device>-<date>.csv: problem,ranks,type,smoother,precision,iterations,setup_s,solve_s,total_s
# (plus true_residual: ex45's |b - Ax|, ex56's |b - Ax|/|b|; runs, solve_min_s, solve_max_s, commit), the comparison against default GAMG on aijcusparse on stdout, and
# every log in $OUT/mg-poly-<device>-<stamp>/ (packed by the caller).
# Usage (repository root, on the GPU machine): bash bench/run_mg_poly_bench.sh [ex56] [ex45]
set -uo pipefail
BUILD=${BUILD:-build}; BIN=$BUILD/bin; LIB=$(cd "$BUILD/lib" && pwd)/libpetscspmv.so
OUT=${OUT:-bench/results}; MPIEXEC=${MPIEXEC:-mpiexec}
RUNS=${RUNS:-1}; RANKS=${RANKS:-"1 2"}; TYPES=${TYPES:-"aijcusparse spmv"}
NE=${NE:-59}; GRID=${GRID:-128}; RTOL=${RTOL:-1e-8}; RUN_TIMEOUT=${RUN_TIMEOUT:-120}
BUDGET_S=${BUDGET_S:-100000}
SMOOTHERS=${SMOOTHERS:-"default poly1_double poly1_single poly2_double poly2_single"}
WHAT=${*:-ex56 ex45}
COMMIT=$(cat .dev/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); DEVICE=${DEVICE:-cpu}
SLUG=$(echo "$DEVICE" | awk '{print tolower($2)}'); [ "$DEVICE" = cpu ] && SLUG=cpu
VEC=cuda; [ "$DEVICE" = cpu ] && VEC=standard
STAMP=$(date +%Y%m%d-%H%M%S)
CSV=$OUT/mg-poly-$SLUG-$(date +%Y%m%d).csv; [ -e "$CSV" ] && CSV=$OUT/mg-poly-$SLUG-$STAMP.csv
W=$OUT/mg-poly-$SLUG-$STAMP; mkdir -p "$W"
POLY="-mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type poly -mg_levels_pc_poly_type chebyshev -mg_levels_pc_poly_degree 2"
declare -A PROB=(
  [ex56]="ex56|-mat_type|-ne $NE -ksp_type cg -ksp_norm_type unpreconditioned -pc_type gamg -ksp_rtol $RTOL -ksp_converged_reason"
  [ex45]="ex45|-dm_mat_type|-da_grid_x $GRID -da_grid_y $GRID -da_grid_z $GRID -dm_vec_type $VEC -ksp_type cg -ksp_norm_type unpreconditioned -pc_type gamg -ksp_rtol $RTOL -ksp_converged_reason -ksp_max_it 2000"
)
ev() { awk -v e="$1" '$1 == e {print $4; exit}' "$2"; } # max time of event e in a -log_view table
echo "mg-poly benchmark: $DEVICE, commit $COMMIT, $(date -u +%FT%TZ), runs $RUNS, ranks $RANKS, types $TYPES"
raw=$W/runs.txt; : > "$raw"
printf '%-6s %5s %-12s %-12s %4s %6s %9s %9s %9s %10s  %s\n' problem ranks type smoother run its setup_s solve_s total_s residual status
for r in $(seq 1 "$RUNS"); do
  for p in $WHAT; do
    IFS='|' read -r bin mopt opts <<< "${PROB[$p]}"
    for np in $RANKS; do for t in $TYPES; do for s in $SMOOTHERS; do
      tag=${p}_np${np}_${t}_${s}_r$r; log=$W/$tag.log
      [ "$SECONDS" -ge "$BUDGET_S" ] && { echo "$tag skipped: budget"; continue; }
      sopts=""; prec=double; smoother=default
      if [[ $s =~ ^poly([0-9]*)_(double|single)(_res)?(_lb([0-9.]+))?(_local([0-9.]*))?$ ]]; then # poly<degree>_<precision>[_res][_lb<x>][_local[<w>]], degree default POLY_DEGREE
        deg=${BASH_REMATCH[1]:-${POLY_DEGREE:-2}}; prec=${BASH_REMATCH[2]}; smoother=poly$deg
        sopts="${POLY/-mg_levels_pc_poly_degree 2/-mg_levels_pc_poly_degree $deg} -mg_levels_pc_poly_precision $prec"
        if [ -n "${BASH_REMATCH[3]}" ]; then sopts="$sopts -mg_levels_pc_poly_residual_precision single"; smoother=$smoother-res; fi
        if [ -n "${BASH_REMATCH[5]}" ]; then sopts="$sopts -mg_levels_pc_poly_esteig 0,${BASH_REMATCH[5]},0,1.1"; smoother=$smoother-lb${BASH_REMATCH[5]}; fi
        if [ -n "${BASH_REMATCH[6]}" ]; then sopts="$sopts -mg_levels_pc_poly_local"; smoother=$smoother-local${BASH_REMATCH[7]}; fi
        if [ -n "${BASH_REMATCH[7]}" ]; then sopts="$sopts -mg_levels_pc_poly_local_max_weight ${BASH_REMATCH[7]}"; fi
      fi
      launch=(); [ "$np" -gt 1 ] && launch=($MPIEXEC -n "$np")
      t0=$(date +%s.%N)
      timeout "$RUN_TIMEOUT" "${launch[@]}" "$BIN/$bin" -dll_append "$LIB" $mopt "$t" $opts $sopts -use_gpu_aware_mpi 0 -log_view ",:$W/$tag.fg:ascii_flamegraph" > "$log" 2>&1
      rc=$?; t1=$(date +%s.%N)
      total=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
      its=$(awk '/Linear solve converged/ {print $NF}' "$log" | tail -1); its=${its:-NA}
      read -r setup solve <<< "$(awk '{v = $NF; s = $0; sub(/ [0-9]+$/, "", s); if (s ~ /(^|;)PCSetUp(;|$)/) u += v; else if (s ~ /(^|;)KSPSolve(;|$)/) k += v}
        END {printf "%.4f %.4f\n", u / 1e6, k / 1e6}' "$W/$tag.fg" 2>/dev/null)"
      res=$(grep -oE '(Residual norm|[|]b-Ax[|]/[|]b[|]=)[ ]*[0-9.eE+-]+' "$log" | grep -oE '[0-9.eE+-]+$' | tail -1); res=${res:-NA}
      status=ok; [ $rc -ne 0 ] && status="FAILED (exit $rc)"; grep -q "did not converge" "$log" && status="not converged"
      [ "$status" != ok ] && { setup=NA; solve=NA; total=NA; }
      printf '%-6s %5s %-12s %-12s %4s %6s %9s %9s %9s %10s  %s\n' "$p" "$np" "$t" "$s" "$r" "$its" "$setup" "$solve" "$total" "$res" "$status"
      echo "$p,$np,$t,$smoother,$prec,$its,$setup,$solve,$total,$res" >> "$raw"
    done; done; done
  done
done
# median by solve_s per configuration (failed runs last)
echo "problem,ranks,type,smoother,precision,iterations,setup_s,solve_s,total_s,true_residual,runs,solve_min_s,solve_max_s,commit" > "$CSV"
cut -d, -f1-5 "$raw" | awk '!seen[$0]++' | while read -r key; do
  grep "^$key," "$raw" | sort -t, -k8,8g | awk -F, -v c="$COMMIT" '{l[NR] = $0; s[NR] = $8} END {m = l[int((NR + 1) / 2)]; printf "%s,%d,%s,%s,%s\n", m, NR, s[1], s[NR], c}' >> "$CSV"
done
echo; echo "against default GAMG on aijcusparse (same problem, ranks): solve and setup ratios (> 1: faster), iterations"
awk -F, 'NR > 1 { k = $1 "," $2; if ($3 == "aijcusparse" && $4 == "default") { bs[k] = $8; bu[k] = $7; bi[k] = $6 } row[NR] = $0 }
  END { printf "%-6s %5s %-12s %-8s %-7s %6s %12s %12s %10s\n", "prob", "ranks", "type", "smoother", "prec", "its", "solve_ratio", "setup_ratio", "its_base"
        for (i = 2; i <= NR; i++) { split(row[i], f, ","); k = f[1] "," f[2]
          sr = (f[8] > 0 && bs[k] > 0) ? sprintf("%.2f", bs[k] / f[8]) : "NA"; ur = (f[7] > 0 && bu[k] > 0) ? sprintf("%.2f", bu[k] / f[7]) : "NA"
          printf "%-6s %5s %-12s %-8s %-7s %6s %12s %12s %10s\n", f[1], f[2], f[3], f[4], f[5], f[6], sr, ur, bi[k] } }' "$CSV" | tee "$W/comparison.txt"
echo "CSV: $CSV; logs: $W"
