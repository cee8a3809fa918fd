#!/usr/bin/env bash
# session 41, call b (commit cfb4821: spmv times argcsr first where its 16-bit offsets apply): the spmv selection on the
# long-row matrices (view: candidates and times), test_gpu of spmv, then make bench's SpMV table (run_gpu_bench.sh: the
# nine matrices, every type, aijcusparse in the same run)
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s41b; mkdir -p $O; B=$E/build/bin; M=$E/matrices
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
chk() { local name=$1; shift; if timeout 150 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
SMALL="stencil27:n=20;banded:m=3001,bw=24;banded:m=999,bw=60;random:m=3000,n=300000,k=40,seed=8;$M/EX5.mtx:4;$M/bcsstk13.mtx:8"
[ "${PART:-all}" = bench ] || PETSC_OPTIONS="$PETSC_OPTIONS -mat_spmv_wait 0" chk spmv_small $B/test_gpu -type spmv -matrices "$SMALL"
LONG="$M/bcsstk13.mtx:256;stencil27:n=120;banded:m=1000000,bw=24;banded:m=600000,bw=40;$M/nasa4704.mtx:400;$M/EX5.mtx:64;stencil27:n=100;banded:m=400000,bw=60"
[ "${PART:-all}" = bench ] || timeout 200 $B/bench_spmv -matrices "$LONG" -types spmv,argcsr,brc,ccoo,dcsr,aijcusparse -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/long.csv > $O/long.log 2>&1; echo "long rc=$? $(date -u +%T)" >> $O/summary.txt
OUT=$O BUILD=$E/build MATRICES=$M COMMIT=$(cat .dev/commit) timeout 400 bash bench/run_gpu_bench.sh -trials 3 -reps 40 > $O/makebench.log 2>&1; echo "make bench spmv rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt; grep "spmv chose" $O/long.log $O/makebench.log
cd $OUT && tar czf s41b.tar.gz s41b && rm -rf s41b
