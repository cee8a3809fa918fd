#!/usr/bin/env bash
# mpiexec -n N tests/gpu/one_gpu_per_rank.sh PROGRAM ARGS: rank r sees only GPU r mod G, where G is SPMV_GPUS (a
# subset of the machine: the first G GPUs) or else the machine's GPU count. With more ranks than G, ranks share GPUs.
n=${SPMV_GPUS:-$(nvidia-smi -L | wc -l)}
export CUDA_VISIBLE_DEVICES=$(( ${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}} % (n > 0 ? n : 1) ))
exec "$@"
