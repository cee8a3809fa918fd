#!/bin/bash
# The whole benchmark suite on a GPU machine (`make bench`, or after . /opt/devb/env.sh on the lent one):
# the SpMV table (bench_spmv on the matrix set, every type vs aijcusparse and sellcuda), the solver table
# (ex19, every type), and the plots. Results land in $OUT (default bench/results). About 6-8 minutes.
set -u
export OUT=${OUT:-bench/results}
here=$(dirname "$0")
bash "$here/run_gpu_bench.sh" "$@"
TYPES=${SOLVER_TYPES:-"aijcusparse aijcusparse-alg2 $(grep -o 'PluginTypes\[\] = {[^}]*}' "$here/../examples/bench_spmv.c" 2>/dev/null | grep -o 'MAT[A-Z]*' | tr 'A-Z' 'a-z' | sed 's/^mat//' | tr '\n' ' ')"} bash "$here/run_solver_bench.sh"
latest=$(ls -t "$OUT"/spmv-*.csv 2>/dev/null | head -1)
if [ -n "$latest" ] && python3 -c "import matplotlib" 2>/dev/null; then python3 "$here/plot.py" "$latest"; else echo "plots: run python3 bench/plot.py $latest where matplotlib is installed"; fi
echo "benchmark suite: ${SECONDS} s"
