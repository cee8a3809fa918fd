#!/usr/bin/env bash
# session 44, call d (the final rule: sorted where Mixing >= 1.10): the GPU checks of tests/gpu/run.sh for argcsr and
# spmv (layouts, matops, ksp, poly, host vectors, out of memory, ex19 against aijcusparse), then argcsr by the rule
# against CSR order on the rows of varied length and the long-row set, and make bench.
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s44d; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U; T=bench/tools
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 $T/uniformlocal.py 20000 28 52 1 $U/u17.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 20 60 1 $U/u29.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 10 70 1 $U/u43.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 24 40 2 $U/v32.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 30 90 3 $U/v60.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 30000 16 48 4 $U/w32.mtx >> $O/summary.txt &
OUT=$O/runsh TYPES="argcsr spmv" SKIP_BIG=1 SKIP_RACE=1 timeout 300 bash tests/gpu/run.sh check nofit ex19 > $O/runsh.log 2>&1; echo "run.sh rc=$? $(date -u +%T)" >> $O/summary.txt
grep -E "passed|failed|FAIL" $O/runsh.log | tail -5 >> $O/summary.txt
wait
VAR="$M/bcsstk13.mtx:256;$U/u17.mtx:40;$U/u29.mtx:40;$U/u43.mtx:40;$U/v32.mtx:40;$U/v60.mtx:30;$U/w32.mtx:40;$M/EX5.mtx:64;stencil27:n=120;banded:m=600000,bw=40;banded:m=1000000,bw=24"
timeout 200 $B/bench_spmv -matrices "$VAR" -types argcsr,argcsr/csr,spmv,brc,ccoo,dcsr,aijcusparse,floor-gather16 -csr_mat_argcsr_sort_rows 0 -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/final.csv > $O/final.log 2>&1; echo "final rc=$? $(date -u +%T)" >> $O/summary.txt
OUT=$O BUILD=$E/build MATRICES=$M COMMIT=$(cat .dev/commit) timeout 150 bash bench/run_gpu_bench.sh -trials 3 -reps 40 > $O/makebench.log 2>&1; echo "make bench rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt; grep "spmv chose" $O/final.log $O/makebench.log
cd $OUT && tar czf s44d.tar.gz s44d && rm -rf s44d
