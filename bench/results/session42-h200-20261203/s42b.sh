#!/usr/bin/env bash
# session 42, call b (commit a1e9c07): spmv times segsum beside dcsr on heavy-tailed rows (cv > 1). Checks (test_gpu
# spmv on the heavy-tailed bases and small matrices, memcheck), the heavy-tailed bench again, then make bench (its nine;
# vsp, R-MAT and dense rows are heavy-tailed: their plans gain segsum).
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s42b; mkdir -p $O; B=$E/build/bin; M=$E/matrices; H=/tmp/heavy; mkdir -p $H
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
[ -f $H/h4.mtx ] || { python3 bench/tools/heavylocal.py 40000 2 3 $H/h2.mtx; python3 bench/tools/heavylocal.py 40000 3 1 $H/h3.mtx; python3 bench/tools/heavylocal.py 40000 4 1 $H/h4.mtx; } >> $O/summary.txt
chk() { local name=$1; shift; if timeout 150 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
SMALL="rmat:scale=14,ef=16;denserows:m=20000,k=6,len=5000,dense=5;random:m=5000,k=9,empty=0.2,seed=4;$M/vsp_model1_crew1_cr42_south31.mtx;stencil27:n=20"
PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0" chk spmv_checks $B/test_gpu -type spmv -info :mat -matrices "$H/h2.mtx;$H/h3.mtx;$H/h4.mtx;$SMALL"
grep -h "GPU times\|timed\|chose" $O/spmv_checks.log | sed 's/^\[0\] *//' | head -20 >> $O/summary.txt
PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0" chk memcheck compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu -type spmv -matrices "$H/h2.mtx;rmat:scale=12,ef=16;$M/vsp_model1_crew1_cr42_south31.mtx"
echo "checks done $(date -u +%T)" >> $O/summary.txt
HEAVY="$H/h2.mtx:32;$H/h3.mtx:24;$H/h4.mtx:20;$M/vsp_model1_crew1_cr42_south31.mtx:64"
PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0" timeout 200 $B/bench_spmv -matrices "$HEAVY" -types spmv,segsum,dcsr,argcsr,aijcusparse -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/heavy.csv > $O/heavy.log 2>&1; echo "heavy rc=$? $(date -u +%T)" >> $O/summary.txt
OUT=$O BUILD=$E/build MATRICES=$M COMMIT=$(cat .dev/commit) timeout 250 bash bench/run_gpu_bench.sh -trials 3 -reps 40 > $O/makebench.log 2>&1; echo "make bench rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt; grep "spmv chose" $O/heavy.log $O/makebench.log
cd $OUT && tar czf s42b.tar.gz s42b && rm -rf s42b
