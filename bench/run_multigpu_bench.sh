#!/usr/bin/env bash
# Scaling across GPUs (issue #30), on a machine of several GPUs: whole runs of unmodified PETSc programs on 1, 2, 4, 8
# GPUs (those the machine has), one process per rank, rank r on GPU r mod G (tests/gpu/one_gpu_per_rank.sh), for
# TYPES (default aijcusparse, spmv and ccoo, the best single type on ex56: NOTES "The generic type on aijcusparse"):
#   ex45cg    3D Poisson, 7-point, DMDA, CG + Jacobi, GRID_CG^3 unknowns (default 256^3 = 16.8M), strong scaling
#   ex45gamg  the same with CG + GAMG (default smoother), GRID_MG^3 (default 192^3 = 7.1M), strong scaling
#   ex56      ksp ex56, 3D elasticity, CG + GAMG, -ne 59 (648K unknowns, block size 3), strong scaling
#   ex56weak  ksp ex56 from -ne 39 on one GPU (192K unknowns) at the same unknowns per GPU
# ex56 runs on a cube of ranks only (1, 8, 27: on 2 ranks it puts every row on rank 0), so on G > 1 GPUs it runs 8 ranks
# sharing the G GPUs (8 / G a GPU); on one GPU one rank. ex45 runs one rank a GPU.
# Non-CUDA-aware MPI (Debian's MPICH): -use_gpu_aware_mpi 0, the ghost values go through the host.
# Times from PETSc's nested log (-log_view :F:ascii_flamegraph: self times of every event stack, each the maximum over
# the ranks; no GPU timing, so nothing is synchronized that the program does not synchronize itself):
#   setup_s   stacks under PCSetUp (GAMG's hierarchy, Jacobi's diagonal)
#   solve_s   stacks under KSPSolve and not under PCSetUp
#   scatter_s stacks of solve_s under VecScatterBegin/End (the halo: pack, device-host copies, MPI, unpack)
#   total_s   wall time of mpiexec (process start to exit: assembly, set-up, solve, teardown)
#   twosided_s stacks ending in BuildTwoSided(F) anywhere (PETSc's rendezvous of the communication patterns)
# Writes $OUT/multigpu-<device>x<n>-<date>.csv:
#   program,gpus,ranks,type,iterations,setup_s,solve_s,total_s,scatter_s,twosided_s,d2h_solve,runs,commit
# (the median of RUNS rounds by total_s; d2h_solve: device-to-host copies counted in KSPSolve on rank 0), and every
# log in $OUT/multigpu-<stamp>/ (spmv runs also keep -info's selection lines: each block's format).
# A type written TYPE@VARIANT runs TYPE from VARIANTS/VARIANT/libpetscspmv.so (default VARIANTS=.dev): an A/B of two
# builds in the same interleaved rounds.
# Usage (repository root, GPU machine): bash bench/run_multigpu_bench.sh [ex45cg] [ex45gamg] [ex56] [ex56weak]
set -uo pipefail
export UCX_TLS=${UCX_TLS-self,sm} # one host: shared memory. Over UCX's TCP the GPU machine's MPICH hung in MPI_Finalize in ~10% of 2-rank runs (NOTES.md, "Session 25")
BUILD=${BUILD:-build}; BIN=$BUILD/bin; LIB=$(cd "$BUILD/lib" && pwd)/libpetscspmv.so
OUT=${OUT:-bench/results}; MPIEXEC=${MPIEXEC:-mpiexec}; HERE=$(cd "$(dirname "$0")/.." && pwd)
NGPU=${NGPU:-$(nvidia-smi -L 2>/dev/null | wc -l)}; VEC=${VEC:-cuda}
GPUS=${GPUS:-"1 2 4 8"}; RUNS=${RUNS:-1}; TYPES=${TYPES:-"aijcusparse spmv ccoo"}
GRID_CG=${GRID_CG:-256}; GRID_MG=${GRID_MG:-192}; RTOL=${RTOL:-1e-8}; EXTRA=${EXTRA:-}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}; BUDGET_S=${BUDGET_S:-100000}; TAG=${TAG:-}
WHAT=${*:-ex45cg ex45gamg ex56 ex56weak}
COMMIT=$(cat .dev/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); DEVICE=${DEVICE:-host cpu}
[ "$NGPU" -gt 0 ] || { echo "run_multigpu_bench.sh: no GPU (nvidia-smi -L lists none)" >&2; exit 2; }
SLUG=$(echo "$DEVICE" | awk '{print tolower($2)}')x$NGPU
STAMP=$(date +%Y%m%d-%H%M%S)
CSV=$OUT/multigpu-$SLUG-$(date +%Y%m%d)$TAG.csv; [ -e "$CSV" ] && CSV=$OUT/multigpu-$SLUG-$STAMP$TAG.csv
W=$OUT/multigpu-$STAMP$TAG; mkdir -p "$W"
COMMON="-use_gpu_aware_mpi 0 -ksp_converged_reason -ksp_norm_type unpreconditioned -ksp_rtol $RTOL $EXTRA"
# plan CASE G: "ranks|binary|type option|options", or nothing where CASE does not run on G GPUs
plan() {
  local g=$2
  case $1 in
  ex45cg) echo "$g|ex45|-dm_mat_type|-da_grid_x $GRID_CG -da_grid_y $GRID_CG -da_grid_z $GRID_CG -dm_vec_type $VEC -ksp_type cg -pc_type jacobi -ksp_max_it 20000" ;;
  ex45gamg) echo "$g|ex45|-dm_mat_type|-da_grid_x $GRID_MG -da_grid_y $GRID_MG -da_grid_z $GRID_MG -dm_vec_type $VEC -ksp_type cg -pc_type gamg -ksp_max_it 2000" ;;
  ex56) echo "$([ "$g" = 1 ] && echo 1 || echo 8)|ex56|-mat_type|-ne 59 -ksp_type cg -pc_type gamg" ;;
  ex56weak) # (ne + 1)^3 = 40^3 g, ne + 1 even for 8 ranks
    local nn; nn=$(awk -v g="$g" 'BEGIN {x = 40 * exp(log(g) / 3); n = (g == 1) ? int(x + 0.5) : 2 * int(x / 2 + 0.5); print n}')
    echo "$([ "$g" = 1 ] && echo 1 || echo 8)|ex56|-mat_type|-ne $((nn - 1)) -ksp_type cg -pc_type gamg" ;;
  esac
}
echo "multigpu benchmark: $NGPU x $DEVICE, commit $COMMIT, $(date -u +%FT%TZ), runs $RUNS, types $TYPES, extra '$EXTRA'"
nvidia-smi topo -m 2>/dev/null | head -$((NGPU + 1))
raw=$W/runs.txt; : > "$raw"
printf '%-9s %4s %5s %-12s %3s %6s %8s %8s %8s %9s %10s %6s  %s\n' program gpus ranks type run its setup_s solve_s total_s scatter_s twosided_s d2h status
for r in $(seq 1 "$RUNS"); do
  for p in $WHAT; do for g in $GPUS; do
    [ "$g" -le "$NGPU" ] || continue
    IFS='|' read -r np bin mopt opts <<< "$(plan "$p" "$g")"
    [ -n "${bin:-}" ] || continue
    for t in $TYPES; do
      tag=${p}_g${g}_np${np}_${t}_r$r; log=$W/$tag.log
      [ "$SECONDS" -ge "$BUDGET_S" ] && { echo "$tag skipped: budget"; continue; }
      tt=$t; lib=$LIB # TYPE@VARIANT: TYPE from the library VARIANTS/VARIANT/libpetscspmv.so (an A/B in the same rounds)
      [[ $t == *@* ]] && { tt=${t%@*}; lib=$(cd "${VARIANTS:-.dev}/${t#*@}" && pwd)/libpetscspmv.so; }
      info=(); [ "$tt" = spmv ] && info=(-info "$W/$tag.info")
      t0=$(date +%s.%N)
      SPMV_GPUS=$g timeout "$RUN_TIMEOUT" $MPIEXEC -n "$np" bash "$HERE/tests/gpu/one_gpu_per_rank.sh" "$BIN/$bin" -dll_append "$lib" $mopt "$tt" $opts $COMMON \
        "${info[@]}" -log_view ":$W/$tag.table,:$W/$tag.fg:ascii_flamegraph" > "$log" 2>&1
      rc=$?; t1=$(date +%s.%N)
      total=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
      its=$(awk '/Linear solve converged/ {print $NF}' "$log" | tail -1); its=${its:-NA}
      read -r setup solve scatter twosided <<< "$(awk '{v = $NF; s = $0; sub(/ [0-9]+$/, "", s)
        if (s ~ /(^|;)BuildTwoSidedF?$/) b += v
        if (s ~ /(^|;)PCSetUp(;|$)/) u += v; else if (s ~ /(^|;)KSPSolve(;|$)/) { k += v; if (s ~ /;VecScatter(Begin|End)(;|$)/) c += v }}
        END {printf "%.4f %.4f %.4f %.4f\n", u / 1e6, k / 1e6, c / 1e6, b / 1e6}' "$W/$tag.fg" 2>/dev/null)"
      d2h=$(awk '$1 == "KSPSolve" {print $(NF - 2); exit}' "$W/$tag.table" 2>/dev/null); d2h=${d2h:-NA}
      if [ "$tt" = spmv ]; then cat "$W/$tag.info"* 2>/dev/null | grep -E 'spmv( \(|:)' > "$W/$tag.choices"; rm -f "$W/$tag.info"*; fi
      status=ok; [ $rc -ne 0 ] && status="FAILED (exit $rc)"; grep -q "did not converge\|DIVERGED" "$log" && status="not converged"
      [ "$status" != ok ] && { setup=NA; solve=NA; total=NA; scatter=NA; }
      printf '%-9s %4s %5s %-12s %3s %6s %8s %8s %8s %9s %10s %6s  %s\n' "$p" "$g" "$np" "$t" "$r" "$its" "$setup" "$solve" "$total" "$scatter" "$twosided" "$d2h" "$status"
      echo "$p,$g,$np,$t,$its,$setup,$solve,$total,$scatter,$twosided,$d2h" >> "$raw"
    done
  done; done
done
echo "program,gpus,ranks,type,iterations,setup_s,solve_s,total_s,scatter_s,twosided_s,d2h_solve,runs,commit" > "$CSV"
cut -d, -f1-4 "$raw" | awk '!seen[$0]++' | while read -r key; do
  grep "^$key," "$raw" | sort -t, -k8,8g | awk -F, -v c="$COMMIT" '{l[NR] = $0} END {printf "%s,%d,%s\n", l[int((NR + 1) / 2)], NR, c}' >> "$CSV"
done
echo; echo "against aijcusparse (same program and GPUs; > 1: faster) and strong-scaling efficiency (T1 / (G T_G))"
awk -F, 'NR > 1 { k = $1 "," $2; row[NR] = $0; if ($4 == "aijcusparse") { bs[k] = $7; bt[k] = $8 } if ($2 == 1) { s1[$1 "," $4] = $7; t1[$1 "," $4] = $8 } }
  END { printf "%-9s %4s %-12s %10s %10s %9s %9s\n", "program", "gpus", "type", "solve_x", "total_x", "eff_solve", "eff_total"
        for (i = 2; i <= NR; i++) { split(row[i], f, ","); f[7] += 0; f[8] += 0; k = f[1] "," f[2]; q = f[1] "," f[4]
          weak = (f[1] ~ /weak/); es = (s1[q] > 0 && f[7] > 0) ? s1[q] / (weak ? 1 : f[2]) / f[7] : 0; et = (t1[q] > 0 && f[8] > 0) ? t1[q] / (weak ? 1 : f[2]) / f[8] : 0
          printf "%-9s %4s %-12s %10.3f %10.3f %9.2f %9.2f\n", f[1], f[2], f[4], (f[7] > 0 ? bs[k] / f[7] : 0), (f[8] > 0 ? bt[k] / f[8] : 0), es, et } }' "$CSV"
echo "csv: $CSV"; echo "logs: $W"
