#!/usr/bin/env bash
# session 43, call a (main at 4f46245): where argcsr's build time goes (18-30 aijcusparse products with the 16-bit
# packing, 11-19 without): every build kernel's GPU time (ncu) and the runtime calls' wall time (cudatrace) on three
# long-row matrices; argcsr's chunk size D beyond 24 on long rows; dcsr against segsum on heavy-tailed rows (ncu).
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s43a; mkdir -p $O; B=$E/build/bin; M=$E/matrices; H=/tmp/heavy; mkdir -p $H
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
LONG="banded:m=400000,bw=60;$M/bcsstk13.mtx:256;stencil27:n=120"
# 1. build kernels' GPU time: ncu, every kernel of the argcsr conversions (16-bit default, and 32-bit D = 8)
for v in argcsr argcsr/d8; do
  timeout 200 ncu --clock-control none --csv --metrics gpu__time_duration.sum \
    $B/bench_spmv -matrices "$LONG" -types $v -d8_mat_argcsr_desired_chunk_size 8 -d8_mat_argcsr_index16 0 -floor 0 -trials 1 -reps 1 > $O/ncu-build-${v//\//_}.csv 2>&1
  echo "ncu $v rc=$? $(date -u +%T)" >> $O/summary.txt
done
# 2. the runtime calls (allocations, memsets, copies, synchronizations) of the same conversions, wall time
if cc -O2 -shared -fPIC -o /tmp/libcudatrace.so bench/tools/cudatrace.c -ldl -I$CUDA_HOME/include 2>> $O/summary.txt || cc -O2 -shared -fPIC -o /tmp/libcudatrace.so bench/tools/cudatrace.c -ldl -I/usr/local/cuda/include 2>> $O/summary.txt; then
  CUDATRACE=$O/trace-argcsr.txt LD_PRELOAD=/tmp/libcudatrace.so timeout 100 $B/bench_spmv -matrices "$LONG" -types argcsr -floor 0 -trials 1 -reps 1 > $O/trace-argcsr.log 2>&1
  echo "trace rc=$? $(date -u +%T)" >> $O/summary.txt
fi
# 3. argcsr's chunk size on long rows (D 16 24 32 40 48), beside brc and the floor
LONG2="banded:m=400000,bw=60;banded:m=600000,bw=40;banded:m=1000000,bw=24;$M/bcsstk13.mtx:256;$M/EX5.mtx:64;stencil27:n=120"
timeout 300 $B/bench_spmv -matrices "$LONG2" -types argcsr/d16,argcsr/d24,argcsr/d32,argcsr/d40,argcsr/d48,brc,floor-gather16 \
  -d16_mat_argcsr_desired_chunk_size 16 -d24_mat_argcsr_desired_chunk_size 24 -d32_mat_argcsr_desired_chunk_size 32 -d40_mat_argcsr_desired_chunk_size 40 -d48_mat_argcsr_desired_chunk_size 48 \
  -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/chunk.csv > $O/chunk.log 2>&1; echo "chunk rc=$? $(date -u +%T)" >> $O/summary.txt
# 4. dcsr against segsum on heavy-tailed local rows: their product kernels in ncu
python3 bench/tools/heavylocal.py 40000 2 3 $H/h2.mtx >> $O/summary.txt
for t in segsum dcsr; do
  timeout 120 ncu --clock-control none --kernel-name regex:SpMVKernel --launch-skip 20 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats --section SourceCounters \
    $B/bench_spmv -matrices "$H/h2.mtx:32" -types $t -floor 0 -trials 1 -reps 2 > $O/ncu-heavy-$t.txt 2>&1; echo "ncu heavy $t rc=$? $(date -u +%T)" >> $O/summary.txt
done
cat $O/summary.txt
cd $OUT && tar czf s43a.tar.gz s43a && rm -rf s43a
