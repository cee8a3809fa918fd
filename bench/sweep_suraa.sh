#!/bin/bash
# SURAA ablations on the GPU machine (after . /opt/devb/env.sh), against aijcusparse in the same run:
#   defaults; cuSPARSE on the same sorted CSR (the effect of sorting alone, brief §6), ALG1 and ALG2;
#   the paper's scalar G3; no G1 (long rows in the vector kernel); fd_bins segments (brief §5.1); logical
#   permutation; everything on one stream; the matrix mean gate. Table to stdout.
# A build with make SPMV_SURAA_CDP=1 adds the dynamic-parallelism G1: SURAA_CDP=1 bash bench/sweep_suraa.sh
set -u
BUILD=${BUILD:-build}; MATRICES=${MATRICES:-.dev/matrices}
M="$MATRICES/cage11.mtx:64;stencil27:n=120;rmat:scale=21,ef=16;denserows:m=2000000,k=8,len=100000,dense=16;$MATRICES/delaunay_n16.mtx:128;$MATRICES/vsp_model1_crew1_cr42_south31.mtx:64;stencil7:n=150"
OPTS=("" "-mat_suraa_kernels cusparse" "-mat_suraa_kernels cusparse -mat_suraa_cusparse_alg 2" "-mat_suraa_g3_lanes 1" "-mat_suraa_g1_max_rows 0"
      "-mat_suraa_segments fd_bins" "-mat_suraa_permute logical" "-mat_suraa_streams 0" "-mat_suraa_mean_gate")
[ "${SURAA_CDP:-0}" = 1 ] && OPTS+=("-mat_suraa_dynamic_parallelism")
for opts in "${OPTS[@]}"; do
  echo "### options: ${opts:-(defaults)}"
  "$BUILD/bin/bench_spmv" -matrices "$M" -types suraa,aijcusparse -trials 5 -reps 50 $opts | grep -E "^[a-z/.].*nonzeros|^  (suraa|aijcusparse) "
done
