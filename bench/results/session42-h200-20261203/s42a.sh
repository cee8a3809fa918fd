#!/usr/bin/env bash
# session 42, call a: argcsr's 16-bit promotion in spmv's rule now asks for rows of similar length (cv <= 1; commit
# 24fd235). Heavy-tailed local rows (test_auto_host's IrregularLocal, bench/tools/heavylocal.py: mean 25-42, std 4-5x
# the mean, columns within +-3000), kron-scaled to 32-33M nonzeros: is argcsr (D 16/24 over 16-bit offsets) the fastest
# there, which the guard would then cost? Correctness first (test_gpu spmv and argcsr on the bases), then bench_spmv.
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s42a; mkdir -p $O; B=$E/build/bin; M=$E/matrices; H=/tmp/heavy; mkdir -p $H
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 bench/tools/heavylocal.py 40000 2 3 $H/h2.mtx >> $O/summary.txt
python3 bench/tools/heavylocal.py 40000 3 1 $H/h3.mtx >> $O/summary.txt
python3 bench/tools/heavylocal.py 40000 4 1 $H/h4.mtx >> $O/summary.txt
chk() { local name=$1; shift; if timeout 150 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
chk spmv_heavy $B/test_gpu -type spmv -info :mat -matrices "$H/h2.mtx;$H/h3.mtx;$H/h4.mtx;$H/h4.mtx:4"
chk argcsr_heavy $B/test_gpu -type argcsr -info :mat -matrices "$H/h2.mtx;$H/h3.mtx;$H/h4.mtx;$H/h4.mtx:4"
grep -h "SpMVAuto\|spmv:" $O/spmv_heavy.log | sed 's/^\[0\] *//' | sort | uniq -c | head -20 >> $O/summary.txt
echo "checks done $(date -u +%T)" >> $O/summary.txt
HEAVY="$H/h2.mtx:32;$H/h3.mtx:24;$H/h4.mtx:20"
timeout 300 $B/bench_spmv -matrices "$HEAVY" -types spmv,argcsr,argcsr/d8,dcsr,ccoo,segsum,brc,aijcusparse,floor-gather16 -d8_mat_argcsr_desired_chunk_size 8 -d8_mat_argcsr_index16 0 -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/heavy.csv > $O/heavy.log 2>&1; echo "bench rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt; grep "spmv chose" $O/heavy.log
cd $OUT && tar czf s42a.tar.gz s42a && rm -rf s42a
