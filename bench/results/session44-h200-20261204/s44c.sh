#!/usr/bin/env bash
# session 44, call c: argcsr's row order after call b (sorted rows ran 1.02-1.06x CSR order at its own D on bcsstk13 and
# rows of 28-70, 0.985x on EX5; DRAM 70% against 79%, the L2 serving more x gathers). Here: CSR order at the D of CSR
# order (call b's CSR-order variant took the sorted rows' D, a bug fixed since), sorted at D = 16 / 24 / 32, and sort
# windows of 256 / 512 / 1024 rows (the x a group gathers from), on rows of varied length; test_gpu of the sort window.
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s44c; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U; T=bench/tools
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 $T/uniformlocal.py 20000 28 52 1 $U/u17.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 20 60 1 $U/u29.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 10 70 1 $U/u43.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 24 40 2 $U/v32.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 30 90 3 $U/v60.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 20000 25 1 $U/h1.mtx >> $O/summary.txt 2>&1 &
wait
chk() { local name=$1; shift; if timeout 150 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
SMALL="random:m=5000,k=9,empty=0.2,seed=4;denserows:m=20000,k=6,len=5000,dense=5;stencil27:n=20;banded:m=3001,bw=24;random:m=4000,n=70000,k=70,seed=9"
chk win   $B/test_gpu -type argcsr -mat_argcsr_sort_rows 1 -mat_argcsr_sort_window 300 -matrices "$SMALL;$U/u29.mtx;$M/bcsstk13.mtx:8;$M/EX5.mtx:4"
chk rule  $B/test_gpu -type argcsr -matrices "$U/v32.mtx;$U/v60.mtx;$U/u17.mtx;$M/bcsstk13.mtx:8;$M/EX5.mtx:4"
chk wmem compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu -type argcsr -mat_argcsr_sort_rows 1 -mat_argcsr_sort_window 77 -matrices "$SMALL;$M/bcsstk13.mtx"
VAR="$M/bcsstk13.mtx:256;$U/u17.mtx:40;$U/u29.mtx:40;$U/u43.mtx:40;$U/v32.mtx:40;$U/v60.mtx:30;$M/EX5.mtx:64;$U/h1.mtx:32"
OPTS="-csr_mat_argcsr_sort_rows 0 -s16_mat_argcsr_sort_rows 1 -s16_mat_argcsr_desired_chunk_size 16 -s24_mat_argcsr_sort_rows 1 -s24_mat_argcsr_desired_chunk_size 24 -s32_mat_argcsr_sort_rows 1 -s32_mat_argcsr_desired_chunk_size 32 -w256_mat_argcsr_sort_rows 1 -w256_mat_argcsr_sort_window 256 -w512_mat_argcsr_sort_rows 1 -w512_mat_argcsr_sort_window 512 -w1k_mat_argcsr_sort_rows 1 -w1k_mat_argcsr_sort_window 1024"
timeout 330 $B/bench_spmv -matrices "$VAR" -types argcsr/csr,argcsr,argcsr/s16,argcsr/s24,argcsr/s32,argcsr/w256,argcsr/w512,argcsr/w1k,floor-gather16,aijcusparse,spmv $OPTS -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/order.csv > $O/order.log 2>&1; echo "order rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt; grep "spmv chose" $O/order.log
cd $OUT && tar czf s44c.tar.gz s44c && rm -rf s44c
