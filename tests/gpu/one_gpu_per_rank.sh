#!/usr/bin/env bash
# mpiexec -n N tests/gpu/one_gpu_per_rank.sh PROGRAM ARGS: rank r sees only GPU r (mod the GPU count)
n=$(nvidia-smi -L | wc -l)
export CUDA_VISIBLE_DEVICES=$(( ${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}} % (n > 0 ? n : 1) ))
exec "$@"
