#!/bin/bash
# Layout statistics of the formats on the benchmark matrices (-mat_view ::ascii_info), on the CPU: the host
# reference builds the same layout as the GPU (MatSpMVVerify compares them array by array in the GPU checks),
# so group sizes (SURAA), K, encodings and bytes per nonzero (CCOO), chunk sizes (ARgCSR), padding (BRC)
# need no GPU. Run from the repository root after `make`:
#   bash bench/layout_stats.sh [types, default "ccoo suraa"] > bench/results/layout-stats-<date>.txt
set -u
BUILD=${BUILD:-build}; MATRICES=${MATRICES:-../shared/matrices}
eval "$(sed 's/ ?= /=/' "$BUILD/petsc.mk" | sed 's/^/export /')"
[ -n "$(ldconfig -p 2>/dev/null | grep 'libnvidia-ml.so.1 ')" ] || export LD_LIBRARY_PATH=$NVMLSTUB:${LD_LIBRARY_PATH:-}
M="$MATRICES/cage11.mtx:64;stencil27:n=120;rmat:scale=21,ef=16;denserows:m=2000000,k=8,len=100000,dense=16;$MATRICES/nasa4704.mtx:400;$MATRICES/vsp_model1_crew1_cr42_south31.mtx:64;$MATRICES/delaunay_n16.mtx:128;stencil7:n=150;stencil27:n=120,const=1"
IFS=';' read -ra mats <<< "${LAYOUT_MATRICES:-$M}"
for t in ${*:-ccoo suraa}; do
  for m in "${mats[@]}"; do
    echo "### $t on $m"
    "$BUILD/bin/spmv_solve" -f "$m" -mat_type "$t" -mat_spmv_host_reference -ksp_max_it 1 -view_mat ::ascii_info 2>&1 |
      grep -E "^ +(CCOO|SURAA|ARgCSR|BRC|segsum|SEGSUM)" | sed 's/^ *//'
  done
done
