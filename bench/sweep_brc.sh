#!/bin/bash
# BRC parameter sweep on the GPU machine (after . /opt/devb/env.sh): B2 cap, no splitting, coarsening,
# on the matrices where BRC does not beat aijcusparse. Table to stdout.
set -u
BUILD=${BUILD:-build}; MATRICES=${MATRICES:-.dev/matrices}
M="$MATRICES/delaunay_n16.mtx:128;$MATRICES/vsp_model1_crew1_cr42_south31.mtx:64;denserows:m=2000000,k=8,len=100000,dense=16;rmat:scale=21,ef=16;$MATRICES/cage11.mtx:64"
for opts in "" "-mat_brc_width_max 64" "-mat_brc_width_max 1024" "-mat_brc_width 100000000" "-mat_brc_coarsen 1" "-mat_brc_coarsen 4"; do
  echo "### options: ${opts:-(defaults)}"
  "$BUILD/bin/bench_spmv" -matrices "$M" -types brc,aijcusparse -trials 5 -reps 50 $opts | grep -E "^[a-z/].*nonzeros|^  (brc|aijcusparse) "
done
