#!/bin/bash
# BRC parameter sweep on the GPU machine (after . /opt/devb/env.sh): option sets separated by | in OPTS
# (first run: B2 cap, no splitting, coarsening; second: sort windows). Table to stdout.
set -u
BUILD=${BUILD:-build}; MATRICES=${MATRICES:-.dev/matrices}
M=${SWEEP_MATRICES:-"$MATRICES/delaunay_n16.mtx:128;$MATRICES/vsp_model1_crew1_cr42_south31.mtx:64;denserows:m=2000000,k=8,len=100000,dense=16;rmat:scale=21,ef=16;$MATRICES/cage11.mtx:64;stencil27:n=120;$MATRICES/nasa4704.mtx:400"}
OPTS=${OPTS:-"|-mat_brc_sort_window 256|-mat_brc_sort_window 4096|-mat_brc_sort_window 65536"}
IFS='|' read -ra SETS <<< "$OPTS"
for opts in "${SETS[@]}"; do
  echo "### options: ${opts:-(defaults)}"
  "$BUILD/bin/bench_spmv" -matrices "$M" -types brc,aijcusparse -trials 5 -reps 50 $opts | grep -E "^[a-z/].*nonzeros|^  (brc|aijcusparse) "
done
