#!/usr/bin/env bash
# session 43, call c (after call b: D by the batches' stored slots instead of the cv, which took D = 32 on rows of
# 28-52 and ran 0.86x D = 16 there; Windows' next fit without divisions). As call b: argcsr's build rewritten (Windows one warp a window; the spans in Assign; Fill reading a warp's
# batch together and writing the 16-bit offsets itself: no 32-bit col, GroupSpan, Pack16) and the chunk size rule on
# rows of similar length (cv <= 0.25: D 32 or 24 by the batches' fill). Correctness first (test_gpu: device layout =
# host reference bitwise, products against the host reference and AIJ, refresh; forced options; memcheck, racecheck,
# synccheck), then the build kernels in ncu, then bench_spmv on the long rows and on rows of cv 0.17 / 0.29 / 0.43.
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s43c; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 bench/tools/uniformlocal.py 20000 28 52 1 $U/u17.mtx >> $O/summary.txt &
python3 bench/tools/uniformlocal.py 20000 20 60 1 $U/u29.mtx >> $O/summary.txt &
python3 bench/tools/uniformlocal.py 20000 10 70 1 $U/u43.mtx >> $O/summary.txt &
SMALL="stencil7:n=30,const=1;rmat:scale=14,ef=16,const=1;random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=7000,n=900,k=5,empty=0.3,seed=6;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;denserows:m=3000,k=4,len=2999,dense=1;stencil27:n=20;rmat:scale=14,ef=16;banded:m=3001,bw=24;banded:m=999,bw=60;random:m=3000,n=300000,k=40,seed=8;random:m=4000,n=70000,k=70,seed=9;banded:m=5001,bw=40;banded:m=4000,bw=50"
REAL="$M/cage11.mtx:4;$M/EX5.mtx:4;$M/nasa4704.mtx:8;$M/bcsstk13.mtx:8;$M/delaunay_n16.mtx:2;$M/rgg_n_2_15_s0.mtx:2;$M/nh2010.mtx:2;$M/cti.mtx:4;$M/vsp_model1_crew1_cr42_south31.mtx:2;$M/cage10.mtx"
BIG="stencil27:n=120;$M/EX5.mtx:64;banded:m=600000,bw=40;banded:m=400000,bw=60"
chk() { local name=$1; shift; if timeout 150 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
wait
chk def_small $B/test_gpu -type argcsr -info :mat -matrices "$SMALL;$U/u17.mtx;$U/u29.mtx;$U/u43.mtx"
chk def_real  $B/test_gpu -type argcsr -info :mat -matrices "$REAL"
chk def_big   $B/test_gpu -type argcsr -info :mat -matrices "$BIG"
chk i16d3  $B/test_gpu -type argcsr -mat_argcsr_index16 1 -mat_argcsr_desired_chunk_size 3 -matrices "$SMALL"
chk i16d20b64 $B/test_gpu -type argcsr -mat_argcsr_index16 1 -mat_argcsr_desired_chunk_size 20 -mat_argcsr_block_size 64 -matrices "$SMALL;$REAL"
chk i16d40b32 $B/test_gpu -type argcsr -mat_argcsr_index16 1 -mat_argcsr_desired_chunk_size 40 -mat_argcsr_block_size 32 -matrices "$SMALL"
chk d32paper $B/test_gpu -type argcsr -mat_argcsr_desired_chunk_size 32 -mat_argcsr_paper_grouping -matrices "$SMALL"
chk matops $B/test_matops -type argcsr
chk ksp_st $B/test_ksp -type argcsr -matrix "stencil27:n=30"
chk spmv_cands $B/test_gpu -type spmv -mat_spmv_candidates csr,brc,ccoo,argcsr,segsum,suraa,dcsr -matrices "$SMALL"
MC="random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;banded:m=1,bw=0;stencil27:n=12;banded:m=3001,bw=24;banded:m=999,bw=60;random:m=3000,n=300000,k=40,seed=8;$M/EX5.mtx;banded:m=4000,bw=50"
chk memcheck compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $B/test_gpu -type argcsr -matrices "$MC"
chk memcheck16 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu -type argcsr -mat_argcsr_index16 1 -mat_argcsr_desired_chunk_size 3 -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;random:m=700,n=3000,k=5;random:m=500,k=3,empty=1;$M/nh2010.mtx"
chk racecheck compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_gpu -type argcsr -matrices "banded:m=3001,bw=24;stencil27:n=12;denserows:m=5000,k=6,len=3000,dense=3;banded:m=4000,bw=50"
chk synccheck compute-sanitizer --tool synccheck --error-exitcode 9 $B/test_gpu -type argcsr -matrices "banded:m=3001,bw=24;random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3"
grep -h "ARgCSR: 16-bit\|ARgCSR: a group spans" $O/def_*.log | sed 's/^\[0\] *//' | sort | uniq -c | head -20 >> $O/summary.txt
echo "checks done $(date -u +%T)" >> $O/summary.txt
LONG3="banded:m=400000,bw=60;$M/bcsstk13.mtx:256;stencil27:n=120"
timeout 100 ncu --clock-control none --csv --metrics gpu__time_duration.sum $B/bench_spmv -matrices "$LONG3" -types argcsr -floor 0 -trials 1 -reps 1 > $O/ncu-build-argcsr.csv 2>&1; echo "ncu rc=$? $(date -u +%T)" >> $O/summary.txt
LONG="$M/bcsstk13.mtx:256;stencil27:n=120;banded:m=1000000,bw=24;banded:m=600000,bw=40;$M/nasa4704.mtx:400;$M/EX5.mtx:64;stencil27:n=100;banded:m=400000,bw=60;$M/cage11.mtx:64;stencil7:n=150"
timeout 300 $B/bench_spmv -matrices "$LONG" -types argcsr,argcsr/d16,spmv,brc,ccoo,dcsr,aijcusparse,floor-gather16 -d16_mat_argcsr_desired_chunk_size 16 -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/long.csv > $O/long.log 2>&1; echo "long rc=$? $(date -u +%T)" >> $O/summary.txt
UNI="$U/u17.mtx:40;$U/u29.mtx:40;$U/u43.mtx:40"
timeout 150 $B/bench_spmv -matrices "$UNI" -types argcsr,argcsr/d16,argcsr/d32,spmv,brc,dcsr,aijcusparse -d16_mat_argcsr_desired_chunk_size 16 -d32_mat_argcsr_desired_chunk_size 32 -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/uni.csv > $O/uni.log 2>&1; echo "uni rc=$? $(date -u +%T)" >> $O/summary.txt
OUT=$O BUILD=$E/build MATRICES=$M COMMIT=$(cat .dev/commit) timeout 250 bash bench/run_gpu_bench.sh -trials 3 -reps 40 > $O/makebench.log 2>&1; echo "make bench rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt; grep "spmv chose" $O/long.log $O/uni.log $O/makebench.log
cd $OUT && tar czf s43c.tar.gz s43c && rm -rf s43c
