#!/bin/bash
# Nsight Compute profile of the product kernel of each type on one matrix (GPU machine, after . /opt/devb/env.sh):
# speed of light (DRAM / L2 / L1 throughput), memory workload, occupancy, warp stall reasons, launch statistics.
#   bash bench/profile.sh "matrix spec" type[,type...]      reports to $OUT/ncu-<type>.txt, summary to stdout
# The clocks are left as they are (--clock-control none). bench_spmv's warm-up matrix runs 13 products per
# type first, so the profiled launch (-launch-skip) is one of the measured matrix's warm-up products.
set -u
BUILD=${BUILD:-build}; OUT=${OUT:-/tmp/gpu-out}; mkdir -p "$OUT"
mat=$1; types=$2
declare -A KERNEL=([brc]='regex:^SpMV' [ccoo]='regex:^SpMV' [argcsr]='regex:^SpMV' [segsum]='regex:SpMVKernel' [suraa]='regex:GroupRows|BlockRows' [aijcusparse]='regex:csrmv|spmv|SpMV' [sellcuda]='regex:sell|SELL' [floor-gather]='regex:Floor' [floor-stream]='regex:Floor')
for t in ${types//,/ }; do
  base=${t%%/*}
  ncu --clock-control none --kernel-name "${KERNEL[$base]:-regex:.}" --launch-skip 20 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats \
      "$BUILD/bin/bench_spmv" -matrices "$mat" -types "$t" -floor 0 -trials 1 -reps 2 ${PROFILE_OPTS:-} > "$OUT/ncu-${t//\//_}.txt" 2>&1
  echo "### $t on $mat"
  grep -E "^  [A-Za-z].*(SpMV|Kernel|csrmv|Floor|Rows|sell)|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Memory Throughput|Duration|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Block Limit Registers|Mem Busy|Max Bandwidth|L1/TEX Hit Rate|L2 Hit Rate|Warp Cycles Per Issued|Compute \(SM\) Throughput" "$OUT/ncu-${t//\//_}.txt" | head -24
done
