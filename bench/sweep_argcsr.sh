#!/bin/bash
# ARgCSR parameter sweep on the GPU machine (after . /opt/devb/env.sh): block size x desired chunk size, the
# paper's grouping, long rows not split; against aijcusparse and sellcuda in the same run. Table to stdout.
# The defaults (block size 256, desired chunk size 3) come from a sector-level model of the kernel's loads
# (argcsr.h), not from a measurement: this sweep is what should set them.
set -u
BUILD=${BUILD:-build}; MATRICES=${MATRICES:-.dev/matrices}
M="$MATRICES/cage11.mtx:64;$MATRICES/nasa4704.mtx:400;stencil27:n=120;$MATRICES/delaunay_n16.mtx:128;rmat:scale=21,ef=16;denserows:m=2000000,k=8,len=100000,dense=16"
"$BUILD/bin/bench_spmv" -matrices "$M" -types argcsr,aijcusparse,sellcuda -trials 5 -reps 50 | grep -E "^[a-z/].*nonzeros|^  (argcsr|aijcusparse|sellcuda) "
for bs in 128 256 512; do for d in 2 3 4 6; do
  echo "### -mat_argcsr_block_size $bs -mat_argcsr_desired_chunk_size $d"
  "$BUILD/bin/bench_spmv" -matrices "$M" -types argcsr -trials 5 -reps 50 -mat_argcsr_block_size $bs -mat_argcsr_desired_chunk_size $d | grep -E "^[a-z/].*nonzeros|^  argcsr "
done; done
for opts in "-mat_argcsr_paper_grouping -mat_argcsr_desired_chunk_size 1 -mat_argcsr_block_size 128" "-mat_argcsr_paper_grouping" "-mat_argcsr_split_long_rows 0"; do
  echo "### $opts"
  "$BUILD/bin/bench_spmv" -matrices "$M" -types argcsr -trials 5 -reps 50 $opts | grep -E "^[a-z/].*nonzeros|^  argcsr "
done
