#!/bin/bash
# Whole-run benchmark: unmodified PETSc tutorial programs, start to end, for aijcusparse, spmv and one single format
# (BEST_TYPE, default brc), the plugin loaded with -dll_append, CUDA vectors, -log_view. Does what the solve gains
# survive in the whole run (assembly, set-up, format builds, everything)?
#
# Run from the repository root on the GPU machine (after `bash .dev/device-unpack.sh; . /opt/devb/env.sh`; without a
# ./build/bin there, BUILD defaults to the bundle's /opt/devb/extra/build):
#   OUT=/tmp/out bash bench/run_wholerun_bench.sh
# On a machine without a GPU, a smoke run (tiny sizes, host types aij spmv brc, no CUDA vectors; about a minute):
#   SMOKE=1 bash bench/run_wholerun_bench.sh
#
# The programs (sizes: the env variables; GPU default / SMOKE=1 default):
#   ksp_ex2         KSP ex2: 2D Laplacian, MatSetValues one entry a call, CG + Jacobi      EX2_N=1500 / 60  (-m N -n N)
#   ksp_ex45        KSP ex45: 3D Poisson on a DMDA, MatSetValuesStencil (in KSPSetComputeOperators), GMRES + Jacobi,
#                   at most EX45_MAXIT iterations                                          EX45_N=128 / 16  (N^3 unknowns)
#   snes_ex5        SNES ex5: Bratu on a 2D DMDA, Jacobian by MatSetValuesStencil at every Newton step, newtonls,
#                   BiCGSTAB + Jacobi                                                      EX5_N=1000 / 48
#   ksp_ex56, ksp_ex56_np2  KSP ex56: 3D elasticity, element blocks by MatSetValuesBlocked, CG + GAMG, on 1 and 2
#                   ranks (both ranks on the same GPU; CSV: program ksp_ex56, ranks 2)    EX56_NE=59 / 7
#   ksp_bench_kspsolve  KSP bench_kspsolve: 3D 27-point Poisson assembled by MatSetPreallocationCOO + MatSetValuesCOO
#                   (host values), CG + Jacobi, -split_ksp (PCSetUp outside KSPSolve)      BKS_N=128 / 16
#   snes_ex19       SNES ex19, `make run`'s job (driven cavity, 4 fields, FD-colored Jacobian, full Newton) with its
#                   options, GMRES + Jacobi                                                EX19_N=512 / 24
#   snes_ex19_ilu   the same with ex19's default preconditioner, ILU(0), at a smaller grid EX19_ILU_N=128 / 24
#                   (ILU(0) needs about 6000 GMRES iterations on 512x512: 323 and 741 in all on 64x64 and 128x128,
#                   2.3x per doubling). The plugin types factor with cuSPARSE, as aijcusparse does (MatGetFactor finds
#                   them registered with MATSOLVERCUSPARSE: aijspmv.cu), so the triangular solves run on the GPU too.
# The second set, programs never used to tune anything (SET2; the first set above is SET1):
#   ksp_ex50        KSP ex50: 2D Poisson on a DMDA (KSPSetComputeOperators, MatSetValuesStencil), CG + GAMG on a
#                   scalar problem                                                        EX50_N=1024 / 64
#   ksp_ex34        KSP ex34: 3D Poisson with Neumann conditions on a DMDA (a null space), CG + Jacobi
#                                                                                          EX34_N=128 / 16
#   snes_ex12       SNES ex12: Poisson by Q1 finite elements on a DMPlex box (MatSetValuesClosure), CG + GAMG
#                                                                                          EX12_N=384 / 32 (N^2 cells)
#   snes_ex48       SNES ex48: 3D hydrostatic ice, block size 2, GMRES + Jacobi, 7 Newton steps; a Jacobian that fits
#                   in L2 (the issue's case where no format is clearly faster)             EX48 "-M 64 -N 64 -P 8" / "-M 16 -N 16 -P 4"
#   ts_ex13         TS ex13: 2D heat equation on a DMDA, implicit steps (Jacobian re-assembled each step), GMRES +
#                   its default ILU(0)                                                      EX13_N=256 / 64, 10 steps
#                   ex13 calls DMSetMatType(da, MATAIJ) after DMSetFromOptions, which overrides -dm_mat_type: until
#                   session 32 every "type" ran the same SeqAIJ matrix on the host (an A/A control: callgrind counted the
#                   same host instructions to 0.01%, NOTES "Session 32"). -mat_type reaches the matrix (DMCreateMatrix's
#                   MatSetFromOptions comes after the DM's type), so the table passes that
#   ksp_ex45_mg     KSP ex45 with geometric multigrid: 4 levels of DMDA rediscretization, the DM's interpolation (of the
#                   DM's matrix type: src/dm/spmvdm.cu), CG + PCMG with Jacobi smoothing                  EX45MG_N=129 / 17
# Extra options per program: EX2_OPTS, EX45_OPTS, EX5_OPTS, EX56_OPTS, BKS_OPTS, EX19_OPTS, EX19_ILU_OPTS. PROGRAMS
# selects programs (names above, default all), TYPES the types (first = the baseline), RUNS the rounds (interleaved; each
# column of the CSV is its own median over the runs), PIN_CPUS a CPU list for taskset (the processes and
# their ranks stay on those cores: less run-to-run noise), RUN_TIMEOUT the limit of one run (s, default 150),
# BUDGET_S the time after which no further run starts (default 540 s: the script ends inside a 10-minute command even
# where sizes were set too large; skipped runs are listed and left out of the CSV).
# Expected on one H100 with the defaults: roughly 2-4 minutes, an estimate not yet measured on a GPU (from iteration
# counts measured on the CPU at smaller sizes: ex2 1500^2 about 2600 CG iterations, ex45 128^3 about 600 GMRES, ex5 1000^2 about 3500 BiCGSTAB in 3-4
# Newton steps, bench_kspsolve 128^3 about 135 CG; ex56 -ne 59 and ex19 512x512 from the README).
#
# Output: $OUT/wholerun-<device>-<date>.csv with
#   program,options,ranks,type,iterations,assembly_s,setup_s,solve_s,total_s
# the logs (stdout with -log_view, and the nested log as a flame graph, -log_view :F:ascii_flamegraph) in
# $OUT/wholerun/wholerun-<device>-<stamp>.tar.xz (KEEP_LOGS=1 also keeps the folder), and two tables on stdout.
#
# Definitions. Every time but total_s comes from PETSc's nested log (the flame graph: self time of every event
# stack, max over ranks), so the three classes below are disjoint; total_s - (assembly + setup + solve) = "other".
#   iterations  total linear iterations: the sum of the "Linear solve ... iterations N" lines (-ksp_converged_reason;
#               for SNES every Newton step's solve)
#   total_s     wall time of the process (date before and after mpiexec/the program): start-up, CUDA initialization,
#               everything
#   assembly_s  time under MatAssemblyBegin/End, MatSetPreallCOO, MatSetValuesCOO, MatSetValues (when logged),
#               DMCreateMat, SNESJacobianEval, TSJacobianEval (SNES, TS: the whole Jacobian evaluation, including ex19's FD coloring) and
#               ex45's own event "Set values" (its ComputeMatrix/ComputeRHS), unless under PCSetUp (GAMG's products
#               assemble matrices: that is set-up); plus the time outside every event (a stage's own time; ex45's event
#               "User time" around its whole main counts as no event) of a stage that has one of those assembly events
#               as a direct child: PETSc does not log MatSetValues by default, so the tutorials' set-values loops (ex2,
#               ex56, ex45's DMDA/KSP creation, bench_kspsolve's COO arrays) are only visible there. That time also holds
#               the program's other unlogged work in that stage, e.g. creating the CUDA context and the libraries'
#               handles when that is not inside an event (equal for every type): compare assembly_s between the types
#               of one program, not as an absolute. SNES programs: their Main Stage has no direct assembly child (the
#               Jacobian is under SNESSolve), so their unlogged time is "other".
#   setup_s     time under PCSetUp (Jacobi's diagonal, GAMG's hierarchy), KSPSetUp and PCSetUpOnBlocks that is not
#               assembly, wherever it is called: before KSPSolve (ex56, bench_kspsolve -split_ksp, and KSPSolve's own
#               KSPSetUp, which PETSc logs outside the KSPSolve event) or inside SNESSolve (every Newton step).
#               (KSPSetUp alone would count ex45's matrix computation; PCSetUp is the PC's work, as asked for SNES.)
#   solve_s     time under KSPSolve (KSP programs), SNESSolve (SNES programs) or TSStep (TS programs: every time step) that is neither assembly nor setup:
#               the Krylov iterations, for SNES also the function evaluations and line search. The upload of new
#               values (aijcusparse's MatCUSPARSCopyTo) and the plugin's format build or refresh (MatSpMVBuild,
#               MatSpMVRefresh) count where they first happen: in the solve's first product, in PCSetUp (Jacobi's
#               MatGetDiagonal on the GPU) as setup, or in a first product outside the solve (ex2 and bench_kspsolve
#               compute b = A u) as "other", with vector set-up, norms after the solve and the process start.
# The raw KSPSolve/SNESSolve event times are in each log's -log_view table.
# The comparison table: per program and type, the baseline's (first type's) total and solve over the type's
# (> 1: the type is faster), and whether (total_base - total_type) >= 0.8 (solve_base - solve_type): where the type
# gains in the solve, whether the whole run keeps at least 80% of that gain; where it loses in the solve (both sides
# negative), whether the whole run loses at most 0.8 of the solve's loss.
set -u
export UCX_TLS=${UCX_TLS-self,sm} # one host: shared memory. Over UCX's TCP the GPU machine's MPICH hung in MPI_Finalize in ~10% of 2-rank runs (NOTES.md, "Session 25")
if [ -z "${BUILD:-}" ] && [ ! -d build/bin ] && [ -d /opt/devb/extra/build/bin ]; then BUILD=/opt/devb/extra/build; fi
BUILD=${BUILD:-build}; OUT=${OUT:-bench/results}; BIN=$BUILD/bin
LIB=$(cd "$BUILD/lib" && pwd)/libpetscspmv.so
MPIEXEC=${MPIEXEC:-mpiexec}
SMOKE=${SMOKE:-0}; BEST_TYPE=${BEST_TYPE:-brc}; RUNS=${RUNS:-1}
SET1="ksp_ex2 ksp_ex45 snes_ex5 ksp_ex56 ksp_ex56_np2 ksp_bench_kspsolve snes_ex19 snes_ex19_ilu"
SET2="ksp_ex50 ksp_ex34 snes_ex12 snes_ex48 ts_ex13 ksp_ex45_mg"
PROGRAMS=${PROGRAMS:-"$SET1 $SET2"}
BUDGET_S=${BUDGET_S:-540}
if [ "$SMOKE" = 1 ]; then
  TYPES=${TYPES:-"aij spmv $BEST_TYPE"}; MATVEC=""; DMVEC=""; GPUOPT=""; RUN_TIMEOUT=${RUN_TIMEOUT:-120}
  EX2_N=${EX2_N:-60}; EX45_N=${EX45_N:-16}; EX5_N=${EX5_N:-48}; EX56_NE=${EX56_NE:-7}; BKS_N=${BKS_N:-16}; EX19_N=${EX19_N:-24}; EX19_ILU_N=${EX19_ILU_N:-24}
  EX50_N=${EX50_N:-64}; EX34_N=${EX34_N:-16}; EX12_N=${EX12_N:-32}; EX48=${EX48:-"-M 16 -N 16 -P 4"}; EX13_N=${EX13_N:-64}; EX45MG_N=${EX45MG_N:-17}
  device=cpu
else
  TYPES=${TYPES:-"aijcusparse spmv $BEST_TYPE"}; MATVEC="-vec_type cuda"; DMVEC="-dm_vec_type cuda"; GPUOPT="-use_gpu_aware_mpi 0"
  RUN_TIMEOUT=${RUN_TIMEOUT:-150}
  EX2_N=${EX2_N:-1500}; EX45_N=${EX45_N:-128}; EX5_N=${EX5_N:-1000}; EX56_NE=${EX56_NE:-59}; BKS_N=${BKS_N:-128}; EX19_N=${EX19_N:-512}; EX19_ILU_N=${EX19_ILU_N:-128}
  EX50_N=${EX50_N:-1024}; EX34_N=${EX34_N:-128}; EX12_N=${EX12_N:-384}; EX48=${EX48:-"-M 64 -N 64 -P 8"}; EX13_N=${EX13_N:-256}; EX45MG_N=${EX45MG_N:-129}
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  [ -n "$device" ] || { echo "no GPU found (nvidia-smi): use SMOKE=1 on a machine without one" >&2; exit 1; }
fi
EX45_MAXIT=${EX45_MAXIT:-5000}
slug=$(echo "$device" | tr -c 'A-Za-z0-9\n' '-' | tr -s - | sed 's/^-//; s/-$//' | tr A-Z a-z)
stamp=$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT/wholerun"
csv=$OUT/wholerun-$slug-$(date +%Y%m%d).csv; [ -e "$csv" ] && csv=$OUT/wholerun-$slug-$stamp.csv
W=$OUT/wholerun/wholerun-$slug-$stamp; mkdir -p "$W"
commit=$(cat .dev/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)

# program -> "binary|ranks|kind|matrix-type option|vector option|options"; kind: ksp, snes or ts (the solve event)
. "$(dirname "$0")/wholerun_programs.sh" # the table P of the programs above (shared with run_host_instructions.sh)

# parse LOG FLAMEGRAPH KIND -> "iterations assembly setup solve" (seconds)
parse() {
  local log=$1 fg=$2 kind=$3 its stages solve=KSPSolve
  [ "$kind" = snes ] && solve=SNESSolve
  [ "$kind" = ts ] && solve=TSStep
  its=$(awk '/Linear solve (converged|did not converge)/ {s += $NF; n++} END {print n ? s : "NA"}' "$log")
  stages=$(sed -n 's/^--- Event Stage [0-9]*: //p' "$log" | paste -sd'|')
  [ -s "$fg" ] || { echo "$its NA NA NA"; return; }
  awk -v its="$its" -v solve="$solve" -v stages="$stages" '
    BEGIN { n = split(stages, S, "|"); for (i = 1; i <= n; i++) bare[S[i]] = 1; bare["Main Stage"] = 1; bare["User time"] = 1
            split("MatAssemblyBegin MatAssemblyEnd MatSetPreallCOO MatSetValuesCOO MatSetValues DMCreateMat SNESJacobianEval TSJacobianEval", A, " ")
            for (i in A) asm[A[i]] = 1; asm["Set values"] = 1 }
    { v[NR] = $NF; s = $0; sub(/ [0-9]+$/, "", s); st[NR] = s
      k = split(s, F, ";"); p = F[1]; for (i = 2; i < k; i++) p = p ";" F[i]
      if (k > 1 && (F[k] in asm)) asmchild[p] = 1 }
    END {
      for (l = 1; l <= NR; l++) {
        k = split(st[l], F, ";"); cls = ""; allbare = 1; insetup = 0; insolve = 0
        for (i = 1; i <= k; i++) {
          f = F[i]
          if (!(f in bare)) allbare = 0
          if (cls == "") { if (f in asm) cls = "assembly"; else if (f == "PCSetUp") cls = "setup" }
          if (f == "KSPSetUp" || f == "PCSetUpOnBlocks") insetup = 1
          if (f == solve) insolve = 1
        }
        if (cls == "") cls = allbare ? ((st[l] in asmchild) ? "assembly" : "other") : insetup ? "setup" : insolve ? "solve" : "other"
        t[cls] += v[l]
      }
      printf "%s %.6f %.6f %.6f\n", its, t["assembly"] / 1e6, t["setup"] / 1e6, t["solve"] / 1e6 }' "$fg"
}

echo "whole-run benchmark: $device, commit $commit, types: $TYPES, runs: $RUNS$([ "$SMOKE" = 1 ] && echo ', SMOKE (host types, tiny sizes)')"
[ -f "$LIB" ] || { echo "no $LIB" >&2; exit 1; }
for prog in $PROGRAMS; do
  [ -n "${P[$prog]:-}" ] || { echo "unknown program $prog (known: ${!P[*]})" >&2; exit 1; }
  IFS='|' read -r bin np kind mopt vopt opts <<< "${P[$prog]}"
  [ -x "$BIN/$bin" ] || { echo "no $BIN/$bin (make $BUILD/bin/$bin)" >&2; exit 1; }
done
raw=$W/runs.txt; : > "$raw"
printf '%-20s %5s %-12s %4s %10s %10s %10s %10s %10s %10s  %s\n' program ranks type run its assembly_s setup_s solve_s other_s total_s status
for r in $(seq 1 "$RUNS"); do
  # the types' order alternates from round to round (the second process of a pair ran 5-10% slower in the host work
  # no type touches, DMProjectFunction and residual evaluations included: H100, 2026-11-26): an even RUNS is balanced
  order=$TYPES; [ $((r % 2)) -eq 0 ] && order=$(echo $TYPES | tr ' ' '\n' | tac | tr '\n' ' ')
  for prog in $PROGRAMS; do
    IFS='|' read -r bin np kind mopt vopt opts <<< "${P[$prog]}"
    for t in $order; do
      tag=${prog}_${t}_r$r; log=$W/$tag.log; fg=$W/$tag.fg
      if [ "$SECONDS" -ge "$BUDGET_S" ]; then
        printf '%-20s %5s %-12s %4s  skipped: %s s spent, BUDGET_S=%s\n' "$prog" "$np" "$t" "$r" "$SECONDS" "$BUDGET_S"; skipped="${skipped:-} $tag"; continue
      fi
      launch=(); [ "$np" -gt 1 ] && launch=($MPIEXEC -n "$np")
      [ -n "${PIN_CPUS:-}" ] && command -v taskset > /dev/null && launch=(taskset -c "$PIN_CPUS" "${launch[@]}")
      t0=$(date +%s.%N)
      timeout "$RUN_TIMEOUT" "${launch[@]}" "$BIN/$bin" -dll_append "$LIB" $mopt "$t" $vopt $opts $GPUOPT \
        -log_view ",:$fg:ascii_flamegraph" -log_threshold 0 > "$log" 2>&1
      rc=$?
      t1=$(date +%s.%N)
      total=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
      status=ok; [ $rc -ne 0 ] && status="FAILED (exit $rc, see $tag.log)"
      grep -q "did not converge" "$log" && status="$status; a linear solve did not converge"
      read -r its asm setup solve <<< "$(parse "$log" "$fg" "$kind")"
      [ $rc -ne 0 ] && { asm=NA; setup=NA; solve=NA; }
      other=$(awk -v T="$total" -v a="$asm" -v s="$setup" -v v="$solve" 'BEGIN {if (a == "NA") print "NA"; else printf "%.3f", T - a - s - v}')
      printf '%-20s %5s %-12s %4s %10s %10s %10s %10s %10s %10s  %s\n' "$prog" "$np" "$t" "$r" "$its" "$asm" "$setup" "$solve" "$other" "$total" "$status"
      echo "$prog|$opts|$np|$t|$its|$asm|$setup|$solve|$([ $rc -eq 0 ] && echo "$total" || echo NA)|$rc" >> "$raw"
    done
  done
done

# the CSV: per program and type, each column's median over the successful runs on its own (the mean of the middle two
# for an even count; NA when no run succeeded). Not the run with the median total: its solve_s is one run's, and the
# host noise of assembly and start-up picks that run (ex2 at 133ed25: that solve ratio 1.01x, the solve medians' 1.12x).
echo "program,options,ranks,type,iterations,assembly_s,setup_s,solve_s,total_s" > "$csv"
for prog in $PROGRAMS; do for t in $TYPES; do
  awk -F'|' -v p="$prog" -v t="$t" '
    function med(c,   n, i, j, v, k) { n = 0; for (i = 1; i <= N; i++) v[++n] = col[i, c]
      for (i = 2; i <= n; i++) { k = v[i]; for (j = i - 1; j >= 1 && v[j] > k; j--) v[j + 1] = v[j]; v[j + 1] = k }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
    $1 == p && $4 == t { any = 1; head = $0; if ($10 == 0) { N++; for (c = 5; c <= 9; c++) col[N, c] = $c } }
    END { if (!any) exit; split(head, h, "|"); sub(/_np[0-9]+$/, "", h[1]); gsub(/ +$/, "", h[2]); gsub(/,/, ";", h[2])
      if (!N) { printf "%s,\"%s\",%s,%s,NA,NA,NA,NA,NA\n", h[1], h[2], h[3], h[4]; exit }
      printf "%s,\"%s\",%s,%s,%d,%.6f,%.6f,%.6f,%.3f\n", h[1], h[2], h[3], h[4], med(5), med(6), med(7), med(8), med(9) }' "$raw" >> "$csv"
done; done

# the comparison: baseline (first type) over each other type
base=${TYPES%% *}
echo
echo "per program: $base / type (> 1: the type is faster); keeps = (total_$base - total_type) >= 0.8 (solve_$base - solve_type)"
printf '%-20s %5s %-10s %12s %12s %14s %14s  %s\n' program ranks type total_ratio solve_ratio "d_total_s" "0.8*d_solve_s" keeps
awk -F, -v base="$base" 'NR > 1 {
    key = $1 "," $3; n = split($0, f, ","); type = f[n - 5]; tot = f[n]; sol = f[n - 1]
    if (type == base) { bt[key] = tot; bs[key] = sol } else { order[++m] = key "," type; T[key "," type] = tot; S[key "," type] = sol } }
  END { for (i = 1; i <= m; i++) {
      split(order[i], k, ","); key = k[1] "," k[2]; t = T[order[i]]; s = S[order[i]]
      if (!(key in bt) || bt[key] == "NA" || s == "NA" || t == "" || s == "") { printf "%-20s %5s %-10s %12s\n", k[1], k[2], k[3], "NA"; continue }
      dt = bt[key] - t; ds = bs[key] - s
      rt = (t > 0) ? bt[key] / t : 0; rs = (s > 0) ? bs[key] / s : 0; ok = (dt >= 0.8 * ds) ? "yes" : "no"
      printf "%-20s %5s %-10s %12.3f %12.3f %14.3f %14.3f  %s\n", k[1], k[2], k[3], rt, rs, dt, 0.8 * ds, ok } }' "$csv"

[ -n "${skipped:-}" ] && echo "skipped (time budget):${skipped}"
tar -C "$(dirname "$W")" -cJf "$W.tar.xz" "$(basename "$W")" && { [ "${KEEP_LOGS:-0}" = 1 ] || rm -rf "$W"; }
echo "results: $csv  logs: $W.tar.xz$([ "${KEEP_LOGS:-0}" = 1 ] && echo " and $W/")  ($SECONDS s)"
