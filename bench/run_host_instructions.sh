#!/bin/bash
# Host instructions of the whole-run programs, per type, counted by callgrind (valgrind's instruction counter: no PMU
# needed). The lent GPU machines are KVM guests whose CPU speed swings by up to 2.5x from run to run (bench/results/
# NOTES.md, "Session 30"), so wall time cannot tell a 1% difference of host work between two types; an instruction
# count can: the same program counted twice differs by at most 0.04% once the driver's polling is left out (NOTES.md,
# "Session 32"). It answers where a type's host time goes (its own library, PETSc, the CUDA runtime and driver) and
# whether a whole-run difference is the type's or the host's. GPU work is not counted (the kernels run on the GPU as
# usual); valgrind runs the host about 50x slower, so the programs run at about 1/8 of the whole-run set's sizes (the
# same code paths) and JOBS at a time (a count does not depend on the machine's load).
#
# On the GPU machine, from the repository root (after `bash .dev/device-unpack.sh; . /opt/devb/env.sh`), with valgrind
# there (VALGRIND: its binary, e.g. valgrind.bin with VALGRIND_LIB set to its tool folder; Debian's valgrind 3.19 runs
# CUDA programs):
#   OUT=/tmp/out VALGRIND=valgrind bash bench/run_host_instructions.sh
# then, on any machine with callgrind_annotate: python3 bench/host_instructions.py $OUT/host-instructions-<stamp>
# Settings: PROGRAMS (names of bench/wholerun_programs.sh, default all but ksp_ex56_np2; a run on several ranks counts
# each rank in its own files, <program>__<type>@r<rank>.cg-<thread>, and takes as many cores), TYPES (first
# = the baseline; default "aijcusparse spmv"), REPEAT (programs whose baseline runs twice: the count's own noise),
# JOBS (default: the cores), DEADLINE_S (no run starts after it, each run is cut at it; default 500).
# A type named <type>-noplugin runs <type> without loading the plugin (what the plugin's loading costs a program that
# never uses its types). CASES=tests/tutorial_cases.txt counts the tutorial sweep's cases instead of the whole-run
# programs (name|ranks|arguments, as tests/gpu/tutorial_sweep.sh gpu runs them: -mat_type and -dm_mat_type, CUDA
# vectors; ONLY: a regex of case names, MAXRANKS: skip cases on more ranks, default 2).
set -u
export UCX_TLS=${UCX_TLS-self,sm}
if [ -z "${BUILD:-}" ] && [ ! -d build/bin ] && [ -d /opt/devb/extra/build/bin ]; then BUILD=/opt/devb/extra/build; fi
BUILD=${BUILD:-build}; OUT=${OUT:-bench/results}; BIN=$(cd "$BUILD/bin" && pwd)
LIB=$(cd "$BUILD/lib" && pwd)/libpetscspmv.so
VALGRIND=${VALGRIND:-valgrind}
TYPES=${TYPES:-"aijcusparse spmv"}; REPEAT=${REPEAT:-"ksp_ex34 ksp_bench_kspsolve snes_ex5"}
JOBS=${JOBS:-$(nproc)}; DEADLINE_S=${DEADLINE_S:-500}
MATVEC="-vec_type cuda"; DMVEC="-dm_vec_type cuda"
EX2_N=${EX2_N:-500}; EX45_N=${EX45_N:-64}; EX5_N=${EX5_N:-300}; EX56_NE=${EX56_NE:-29}; BKS_N=${BKS_N:-64}; EX19_N=${EX19_N:-128}
EX19_ILU_N=${EX19_ILU_N:-64}; EX50_N=${EX50_N:-512}; EX34_N=${EX34_N:-64}; EX12_N=${EX12_N:-192}; EX48=${EX48:-"-M 32 -N 32 -P 4"}
EX13_N=${EX13_N:-128}; EX45MG_N=${EX45MG_N:-65}; EX45_MAXIT=${EX45_MAXIT:-5000}
. "$(dirname "$0")/wholerun_programs.sh"
. "$(dirname "$0")/../tests/gpu/tutorial_case.sh"
PROGRAMS=${PROGRAMS:-$(echo "${!P[@]}" | tr ' ' '\n' | grep -vx ksp_ex56_np2 | sort | tr '\n' ' ')}
mkdir -p "$OUT"; W=$(cd "$OUT" && pwd)/host-instructions-$(date +%Y%m%d-%H%M%S); mkdir -p "$W"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null; grep -m1 'model name' /proc/cpuinfo
  echo "commit $(cat .dev/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"; "$VALGRIND" --version; date -u; } > "$W/machine.txt"
jobs=$W/jobs.txt; : > "$jobs"
plugin() { case $1 in *-noplugin) ;; *) echo "-dll_append $LIB" ;; esac; } # TYPE: how the program loads the plugin
if [ -n "${CASES:-}" ]; then
  set -f # the cases' arguments are words, not patterns
  while IFS='|' read -r name np args; do
    case "$name" in ''|\#*) continue ;; esac
    [[ $name =~ ${ONLY:-.} ]] && [ "$np" -le "${MAXRANKS:-2}" ] || continue
    # shellcheck disable=SC2086
    tutorial_case "$name" $args
    for t in $TYPES; do
      mt=${t%-noplugin}; mo="-mat_type $mt -dm_mat_type $mt -vec_type cuda -dm_vec_type cuda"
      [ -n "$CASE_DMONLY" ] && mo="-dm_mat_type $mt -dm_vec_type cuda"
      echo "${name}__$t|$np|$BIN/$CASE_PROG $(plugin "$t") ${CASE_ARGS[*]} $mo" >> "$jobs"
    done
  done < "$CASES"
  set +f
else
for prog in $PROGRAMS; do
  IFS='|' read -r bin np kind mopt vopt opts <<< "${P[$prog]}"
  for t in $TYPES; do echo "${prog}__$t|$np|$BIN/$bin $(plugin "$t") $mopt ${t%-noplugin} $vopt $opts" >> "$jobs"; done
  case " $REPEAT " in *" $prog "*) base=${TYPES%% *}; echo "${prog}__${base}-repeat|$np|$BIN/$bin $(plugin "$base") $mopt ${base%-noplugin} $vopt $opts" >> "$jobs" ;; esac
done
fi
end=$(($(date +%s) + DEADLINE_S))
one() { # tag|ranks|command: main thread and every other thread in their own files (--separate-threads)
  local tag=${1%%|*} rest=${1#*|}; local np=${rest%%|*} cmd=${rest#*|} left=$((end - $(date +%s))) out="$W/$tag.cg" mpi=()
  [ $left -lt 30 ] && { echo "$tag skipped (DEADLINE_S)"; return; }
  [ "$np" -gt 1 ] && { mpi=($MPIEXEC -n "$np"); out="$W/$tag@r%q{PMI_RANK}.cg"; }
  mkdir -p "$W/run.$tag" && cd "$W/run.$tag" || return # files a program writes stay apart
  timeout $left "${mpi[@]}" $VALGRIND --tool=callgrind --separate-threads=yes --callgrind-out-file="$out" $cmd -use_gpu_aware_mpi 0 > "$W/$tag.log" 2>&1
  local rc=$?; cd "$W" && rm -rf "$W/run.$tag"
  echo "$tag rc=$rc"
}
MPIEXEC=${MPIEXEC:-mpiexec}
export -f one; export end VALGRIND W MPIEXEC
xargs -P "$JOBS" -d '\n' -I{} bash -c 'one "$1"' _ {} < "$jobs" | tee "$W/status.txt"
echo "counts: $W (python3 bench/host_instructions.py $W)"
