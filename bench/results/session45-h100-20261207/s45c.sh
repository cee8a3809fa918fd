#!/usr/bin/env bash
# session 45, call c (the code of call b): tests/gpu/run.sh's GPU checks for argcsr and spmv (layouts, matops, ksp, poly,
# host vectors, out of memory, ex19 against aijcusparse) and its sanitizers, then make bench's SpMV table (every type, the
# floors, bytes a nonzero).
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s45c; mkdir -p $O; M=$E/matrices
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
OUT=$O/runsh TYPES="argcsr spmv" SKIP_BIG=1 SKIP_RACE=1 timeout 280 bash tests/gpu/run.sh check nofit ex19 > $O/runsh.log 2>&1; echo "run.sh check rc=$? $(date -u +%T)" >> $O/summary.txt
grep -E "passed|failed|FAIL" $O/runsh.log | tail -5 >> $O/summary.txt
OUT=$O/san TYPES="argcsr" timeout 120 bash tests/gpu/run.sh sanitize > $O/san.log 2>&1; echo "run.sh sanitize rc=$? $(date -u +%T)" >> $O/summary.txt
grep -E "passed|failed|FAIL" $O/san.log | tail -5 >> $O/summary.txt
OUT=$O BUILD=$E/build MATRICES=$M COMMIT=$(cat .dev/commit) timeout 150 bash bench/run_gpu_bench.sh -trials 3 -reps 40 > $O/makebench.log 2>&1; echo "make bench rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt; grep "spmv chose" $O/makebench.log; tail -25 $O/makebench.log
cd $OUT && tar czf s45c.tar.gz s45c && rm -rf s45c
