#!/usr/bin/env bash
# session 35, call a (#29): dcsr's tile loop without the stage copy (two stages in turn: pp) against the loop with it
# (copy), each with the head-mask rule as committed and with masks on every row length (SPMV_EXP_MASKS_LONG);
# correctness of pp first (bitwise against the host reference), then timing and ncu instruction counts
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s35a; mkdir -p $O /opt/exp; B=$E/build/bin; M=$E/matrices
for v in pp copy; do xz -dc .dev/exp/$v.so.xz > /opt/exp/$v.so; done
use() { cp /opt/exp/$1.so $E/build/lib/libpetscspmv.so; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv,noheader; echo "bundle $(cat .dev/commit); libs: HEAD e2000b6 + .dev/exp diff"; date -u; } > $O/device.txt
SMALL="stencil7:n=30,const=1;rmat:scale=14,ef=16,const=1;random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=7000,n=900,k=5,empty=0.3,seed=6;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;denserows:m=3000,k=4,len=2999,dense=1;stencil27:n=20;rmat:scale=14,ef=16;banded:m=20000,bw=24;banded:m=9000,bw=40;random:m=4000,k=60,seed=11"
REAL="$M/cage11.mtx:4;$M/EX5.mtx:4;$M/nasa4704.mtx:8;$M/bcsstk13.mtx:8;$M/delaunay_n16.mtx:2;$M/rgg_n_2_15_s0.mtx:2;$M/nh2010.mtx:2;$M/cti.mtx:4"
use pp
for ML in 0 1; do
  for hm in 1 0; do
    ( [ $ML = 1 ] && export SPMV_EXP_MASKS_LONG=1; PETSC_OPTIONS="-mat_spmv_wait 0 -mat_dcsr_head_masks $hm" timeout 150 $B/test_gpu -type dcsr -matrices "$SMALL;$REAL" > $O/test_gpu_pp_ml${ML}_hm$hm.log 2>&1 ); echo "test_gpu pp masks_long=$ML head_masks=$hm rc=$?" >> $O/summary.txt
  done
done
SPMV_EXP_MASKS_LONG=1 PETSC_OPTIONS="-mat_spmv_wait 0" timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu -type dcsr -matrices "$SMALL" > $O/memcheck_pp.log 2>&1; echo "memcheck pp rc=$? $(grep 'ERROR SUMMARY' $O/memcheck_pp.log)" >> $O/summary.txt
SPMV_EXP_MASKS_LONG=1 PETSC_OPTIONS="-mat_spmv_wait 0" timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_gpu -type dcsr -matrices "stencil27:n=20;banded:m=20000,bw=24;rmat:scale=14,ef=16" > $O/racecheck_pp.log 2>&1; echo "racecheck pp rc=$? $(grep 'RACECHECK SUMMARY' $O/racecheck_pp.log)" >> $O/summary.txt
# timing: the four configurations alternating, 2 rounds
LONG="$M/bcsstk13.mtx:256;stencil27:n=120;banded:m=1000000,bw=24;$M/nasa4704.mtx:400"
SHORT="stencil7:n=150;$M/delaunay_n16.mtx:128;$M/cage11.mtx:64;rmat:scale=21,ef=16"
for r in 1 2; do
  for v in copy pp; do
    use $v
    for ML in 0 1; do
      ( [ $ML = 1 ] && export SPMV_EXP_MASKS_LONG=1; timeout 200 $B/bench_spmv -matrices "$LONG;$SHORT" -types dcsr,floor-gather16 -floor 0 -seed 7 > $O/bench-$v-ml$ML-r$r.log 2>&1 ); echo "bench $v ml=$ML r=$r rc=$?" >> $O/summary.txt
    done
  done
done
cat $O/summary.txt
cd $OUT && tar czf s35a.tar.gz s35a && rm -rf s35a
