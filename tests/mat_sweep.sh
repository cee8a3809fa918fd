#!/usr/bin/env bash
# Sweep of PETSc 3.26.1's own matrix tests (src/mat/tests/ex*.c; also other folders' tests and tutorials, whose cases name
# the program by its path under src/, as tests/solver_cases_cuda.txt) with the plugin's types against -mat_type aij, the
# plugin loaded with -dll_append (not part of `make test`; results in bench/results/mat-sweep-*). Cases: tests/mat_cases.txt (name|ranks|program|arguments, from the tests' /*TEST blocks).
# Each case runs with aij and with TYPES (-mat_spmv_host_reference: no GPU needed), plus a brc pass with
# -mat_view ::ascii_info that records which matrix types the program actually made. Outputs are normalised (type
# names -> AIJTYPE, error trailers, memory/timing lines dropped) and compared with aij's (compare.py):
#   same | fmt (differs only in type-name/view-format lines) | DIFF(round) (same text, numbers within 1e-8 rel.) | close (GPU=1: within 1e-6) |
#   DIFF (numbers/text) | ERROR (plugin fails, aij does not) | both-error[/msgdiff] | ref-error | CRASH | TIMEOUT
#
#   tests/mat_sweep.sh [OUT]  (default OUT=/tmp/mat-sweep; OUT/logs, OUT/table.txt), after `make`
# On a GPU: REF=aijcusparse GPU=1 tests/mat_sweep.sh OUT compares the types' GPU products (no host reference) with
# aijcusparse's; CASES=tests/mat_cases_cuda.txt holds PETSc's own aijcusparse tests (their type as @TYPE@).
# Environment: PETSC_DIR (prefix, default ~/.cache/petsc-spmv/petsc-3.26.1-prefix), PSRC (a tree with src/mat/tests;
# default PETSC_DIR/share/petsc/examples), BUILD (default build: the plugin's lib/, and mattests/ for the programs), LIB (plugin .so), CASES, TYPES
# (default "spmv brc ccoo"); in a case's arguments @TYPE@ becomes the run's type and @HR:PFX@ the host-reference
# option for matrices with options prefix PFX; ONLY (regex of case names), JOBS (default 2), TMO (seconds a run, default 60),
# TABLE_ONLY=1 (no runs, the table again from OUT's logs), NOBUILD=1 (do not compile the test programs).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
P=${PETSC_DIR:-$HOME/.cache/petsc-spmv/petsc-3.26.1-prefix}; PSRC=${PSRC:-$P/share/petsc/examples}
BUILD=$(cd "${BUILD:-$HERE/../build}" && pwd); LIB=${LIB:-$BUILD/lib/libpetscspmv.so}; CASES=${CASES:-$HERE/mat_cases.txt}; TYPES=${TYPES:-spmv brc ccoo}
REF=${REF:-aij}; GPU=${GPU:-}; export REF GPU
export UCX_TLS=${UCX_TLS-self,sm} # one host: shared memory (MPICH over UCX TCP can hang in MPI_Finalize: NOTES.md, "Session 25")
ONLY=${ONLY:-.}; JOBS=${JOBS:-2}; TMO=${TMO:-60}; MPIEXEC=${MPIEXEC:-mpiexec}
export LD_LIBRARY_PATH=${NVMLSTUB:-$HOME/.cache/petsc-spmv/nvmlstub/runtime}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
BIN=$BUILD/mattests
if [ "${1:-}" = __runone ]; then # __runone OUT "name|np|prog|cfg|args"
  OUT=$2; IFS='|' read -r name np prog cfg args <<< "$3"; prog=${prog//\//_} # src/mat/tests' exN, or a path under src/ (its binary: slashes as _)
  hr=-mat_spmv_host_reference; [ -n "$GPU" ] && hr= # on a GPU the types run their kernels
  case $cfg in
    "$REF") topts="-mat_type $REF" ;;
    *+view) topts="-mat_type ${cfg%+view} $hr -mat_view ::ascii_info" ;;
    *) topts="-mat_type $cfg $hr" ;;
  esac
  # @TYPE@ in the arguments: the configuration's type (aij or the plugin's), for tests that take it under their own
  # option; @HR:PFX@: -PFXmat_spmv_host_reference for plugin types (matrices with an options prefix), nothing for aij
  t=${cfg%+view}; args=${args//@TYPE@/$t}
  while [[ $args =~ @HR:([A-Za-z0-9_]*)@ ]]; do
    [ "$t" = "$REF" ] || [ -n "$GPU" ] && r= || r="-${BASH_REMATCH[1]}mat_spmv_host_reference"; args=${args//"${BASH_REMATCH[0]}"/$r}; done
  d=$OUT/logs/run.$name.$cfg; rm -rf "$d"; mkdir -p "$d"; cd "$d" || exit 1
  # the test's own data (some write/read files in the working folder)
  # shellcheck disable=SC2086
  { echo "# cd RUNDIR; $MPIEXEC -n $np $BIN/$prog -dll_append $LIB $args $topts -options_left 0"
    timeout "$TMO" $MPIEXEC -n "$np" "$BIN/$prog" -dll_append "$LIB" $args $topts -options_left 0 2>&1 < /dev/null
    echo "# rc=$?"; } > "$OUT/logs/$name.$cfg.log" 2>&1
  cd / && rm -rf "$d"; exit 0
fi
OUT=${1:-/tmp/mat-sweep}; mkdir -p "$OUT/logs"
if [ -z "${TABLE_ONLY:-}" ]; then
  if [ -z "${NOBUILD:-}" ]; then mkdir -p "$BIN"
    for prog in $(grep -v '^#' "$CASES" | cut -d'|' -f3 | sort -u); do
      src=$PSRC/src/mat/tests/$prog.c; case $prog in */*) src=$PSRC/src/$prog.c ;; esac
      [ "$BIN/${prog//\//_}" -nt "$src" ] && continue
      mpicc -O1 -w -I"$P/include" -I/usr/local/cuda/include -I"$HOME/.cache/petsc-spmv/nvmlstub/include" \
        "$src" -o "$BIN/${prog//\//_}" -Wl,-rpath,"$P/lib" -L"$P/lib" -lpetsc $(sed -n "s/^BLASLAPACK_LIB = //p" "$P/lib/petsc/conf/petscvariables") -lm || echo "build failed: $prog" >&2
    done
  fi
  jobs_file=$OUT/jobs.txt; : > "$jobs_file"
  while IFS='|' read -r name np prog args; do
    case "$name" in ''|\#*) continue ;; esac
    [[ $name =~ $ONLY ]] || continue
    for cfg in $REF $TYPES brc+view; do echo "$name|$np|$prog|$cfg|$args" >> "$jobs_file"; done
  done < "$CASES"
  t0=$SECONDS
  tr '\n' '\0' < "$jobs_file" | xargs -0 -r -n 1 -P "$JOBS" bash "$HERE/mat_sweep.sh" __runone "$OUT"
  echo "runs: $(wc -l < "$jobs_file") in $((SECONDS - t0)) s" >&2
fi
python3 "$HERE/mat_sweep_compare.py" "$CASES" "$OUT/logs" "$TYPES" "$ONLY" "$REF" ${GPU:+gpu} > "$OUT/table.txt"
cat "$OUT/table.txt"
