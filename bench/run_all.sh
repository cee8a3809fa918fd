#!/bin/bash
# The whole benchmark suite on a GPU machine (`make bench`, or after . /opt/devb/env.sh on the lent one):
# the SpMV table (bench_spmv on the matrix set, every type vs aijcusparse and sellcuda), the solver table
# (ex19, every type), the assembly benchmark (bench_assembly), the whole-run benchmark (PETSc tutorials start to
# end, bench/run_wholerun_bench.sh), multigrid smoothing with PCPOLY (bench/run_mg_poly_bench.sh, part mgpoly: GAMG's
# default smoother against the polynomial smoother in double and single, ex56 and a 2.1M scalar problem, 1 and 2
# ranks, about 5 minutes) and the plots. Results land in $OUT (default bench/results).
# About 6-8 minutes for spmv + solver, about 1 for assembly, about 6 for wholerun: where one command may run 10
# minutes at most, run the parts separately with SUITE, e.g. SUITE="spmv solver plots", then SUITE="assembly wholerun".
# Arguments go to bench_spmv (run_gpu_bench.sh).
set -u
export OUT=${OUT:-bench/results}
# on the GPU machine without a ./build/bin: the bundle's build (tests/gpu/run.sh does the same)
if [ -z "${BUILD:-}" ] && [ ! -d build/bin ] && [ -d /opt/devb/extra/build/bin ]; then
  BUILD=/opt/devb/extra/build; export LD_LIBRARY_PATH=$BUILD/lib:${LD_LIBRARY_PATH:-}
fi
BUILD=${BUILD:-build}; export BUILD
SUITE=${SUITE:-"spmv solver assembly wholerun mgpoly plots"}
here=$(dirname "$0")
has() { case " $SUITE " in *" $1 "*) return 0;; esac; return 1; }
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
slug=$(echo "${device:-cpu}" | tr -c 'A-Za-z0-9\n' '-' | tr -s - | sed 's/^-//; s/-$//' | tr A-Z a-z)
has spmv && bash "$here/run_gpu_bench.sh" "$@"
has solver && TYPES=${SOLVER_TYPES:-"aijcusparse aijcusparse-alg2 $(grep -o 'PluginTypes\[\] = {[^}]*}' "$here/../examples/bench_spmv.c" 2>/dev/null | grep -o 'MAT[A-Z]*' | tr 'A-Z' 'a-z' | sed 's/^mat//' | tr '\n' ' ')"} bash "$here/run_solver_bench.sh"
if has assembly; then
  # fill/refill of each assembly API and the inherited operations, aijcusparse against the plugin types (ASSEMBLY_TYPES)
  mkdir -p "$OUT"
  "$BUILD/bin/bench_assembly" -n "${ASSEMBLY_N:-1500}" -types "${ASSEMBLY_TYPES:-aijcusparse,spmv,brc,ccoo}" -csv "$OUT/assembly-$slug-$(date +%Y%m%d).csv"
fi
has wholerun && bash "$here/run_wholerun_bench.sh"
has mgpoly && bash "$here/run_mg_poly_bench.sh"
if has plots; then
  latest=$(ls -t "$OUT"/spmv-*.csv 2>/dev/null | head -1)
  if [ -n "$latest" ] && python3 -c "import matplotlib" 2>/dev/null; then python3 "$here/plot.py" "$latest"; else echo "plots: run python3 bench/plot.py $latest where matplotlib is installed"; fi
fi
echo "benchmark suite ($SUITE): ${SECONDS} s"
