#!/usr/bin/env bash
# session 35, call b (#29): correctness of copy and pp64 (pp at 64 registers: __launch_bounds__(256, 4)) with masks on
# every row length; timing copy-ml1 against pp64-ml1 and copy-ml0; ncu instruction counts on bcsstk13 :256
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s35b; mkdir -p $O /opt/exp; B=$E/build/bin; M=$E/matrices
for v in copy pp64; do xz -dc .dev/exp/$v.so.xz > /opt/exp/$v.so; done
use() { cp /opt/exp/$1.so $E/build/lib/libpetscspmv.so; }
{ nvidia-smi -L; date -u; } > $O/device.txt
PO="-use_gpu_aware_mpi 0 -mat_spmv_wait 0"
SMALL="stencil7:n=30,const=1;rmat:scale=14,ef=16,const=1;random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=7000,n=900,k=5,empty=0.3,seed=6;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;denserows:m=3000,k=4,len=2999,dense=1;stencil27:n=20;rmat:scale=14,ef=16;banded:m=20000,bw=24;banded:m=9000,bw=40;random:m=4000,k=60,seed=11"
REAL="$M/cage11.mtx:4;$M/EX5.mtx:4;$M/nasa4704.mtx:8;$M/bcsstk13.mtx:8;$M/delaunay_n16.mtx:2;$M/rgg_n_2_15_s0.mtx:2;$M/nh2010.mtx:2;$M/cti.mtx:4"
for v in copy pp64; do
  use $v
  for ML in 0 1; do
    ( [ $ML = 1 ] && export SPMV_EXP_MASKS_LONG=1; PETSC_OPTIONS="$PO" timeout 150 $B/test_gpu -type dcsr -matrices "$SMALL;$REAL" > $O/test_gpu_${v}_ml$ML.log 2>&1 ); echo "test_gpu $v masks_long=$ML rc=$? $(grep -c -i 'ok\|pass' $O/test_gpu_${v}_ml$ML.log) ok-lines" >> $O/summary.txt
  done
  SPMV_EXP_MASKS_LONG=1 PETSC_OPTIONS="$PO" timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu -type dcsr -matrices "$SMALL" > $O/memcheck_$v.log 2>&1; echo "memcheck $v rc=$? $(grep 'ERROR SUMMARY' $O/memcheck_$v.log)" >> $O/summary.txt
done
SPMV_EXP_MASKS_LONG=1 PETSC_OPTIONS="$PO" timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_gpu -type dcsr -matrices "stencil27:n=20;banded:m=20000,bw=24;rmat:scale=14,ef=16" > $O/racecheck_pp64.log 2>&1; echo "racecheck pp64 rc=$? $(grep 'RACECHECK SUMMARY' $O/racecheck_pp64.log)" >> $O/summary.txt
LONG="$M/bcsstk13.mtx:256;stencil27:n=120;banded:m=1000000,bw=24;$M/nasa4704.mtx:400"
SHORT="stencil7:n=150;$M/delaunay_n16.mtx:128;$M/cage11.mtx:64;rmat:scale=21,ef=16"
for r in 1 2; do
  for c in copy-1 pp64-1 copy-0; do
    use ${c%-*}; ML=${c#*-}
    ( [ $ML = 1 ] && export SPMV_EXP_MASKS_LONG=1; timeout 200 $B/bench_spmv -matrices "$LONG;$SHORT" -types dcsr,floor-gather16 -floor 0 -seed 7 > $O/bench-${c%-*}-ml$ML-r$r.log 2>&1 ); echo "bench $c r=$r rc=$?" >> $O/summary.txt
  done
done
MET=smsp__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
nc() { timeout 120 ncu --csv --page raw --metrics $MET -k regex:"SpMVKernel16|Floor16" --launch-skip 4 --launch-count 1 $B/bench_spmv -matrices "$1" -types $2 -floor 0 -trials 1 -reps 3 -seed 7 2>&1 | grep -E '^"ID"|SpMVKernel16|Floor16'; }
for mat in "$M/bcsstk13.mtx:256" "banded:m=1000000,bw=24"; do
  echo "== $mat floor-gather16"; nc "$mat" floor-gather16
  for c in copy-0 copy-1 pp64-1; do use ${c%-*}; ML=${c#*-}; echo "== $mat dcsr $c"; ( [ $ML = 1 ] && export SPMV_EXP_MASKS_LONG=1; nc "$mat" dcsr ); done
done > $O/ncu.csv 2>&1; echo "ncu rc=$?" >> $O/summary.txt
cat $O/summary.txt
cd $OUT && tar czf s35b.tar.gz s35b && rm -rf s35b
