#!/usr/bin/env bash
# A drop-in MPIEXEC that gives each rank its own GPU: bash tests/gpu/mpiexec_gpu_per_rank.sh -n N PROGRAM ARGS
# (e.g. MPIEXEC="bash tests/gpu/mpiexec_gpu_per_rank.sh" bash bench/run_mg_poly_bench.sh on a machine of several GPUs)
[ "$1" = -n ] || { echo "usage: $0 -n N PROGRAM ARGS" >&2; exit 2; }
n=$2; shift 2
exec ${MPIEXEC_REAL:-mpiexec} -n "$n" bash "$(dirname "$0")/one_gpu_per_rank.sh" "$@"
