#!/usr/bin/env bash
# session 41, call a (#29: argcsr's 16-bit column offsets packed by batch, batched kernel, D by the mean row length;
# commit d5920b2): correctness (test_gpu: device layout = host reference bitwise, products against the host reference
# and AIJ; default, forced 16-bit at D 3/8/20 and block 64, off; matops, ksp, memcheck, racecheck), then bench_spmv:
# the new default against the old one (argcsr/d8: D 8, 32-bit), spmv, brc, ccoo, dcsr, aijcusparse, floor-gather16
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s41a; mkdir -p $O; B=$E/build/bin; M=$E/matrices
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
SMALL="stencil7:n=30,const=1;rmat:scale=14,ef=16,const=1;random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=7000,n=900,k=5,empty=0.3,seed=6;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;denserows:m=3000,k=4,len=2999,dense=1;stencil27:n=20;rmat:scale=14,ef=16;banded:m=3001,bw=24;banded:m=999,bw=60;random:m=3000,n=300000,k=40,seed=8;random:m=4000,n=70000,k=70,seed=9"
REAL="$M/cage11.mtx:4;$M/EX5.mtx:4;$M/nasa4704.mtx:8;$M/bcsstk13.mtx:8;$M/delaunay_n16.mtx:2;$M/rgg_n_2_15_s0.mtx:2;$M/nh2010.mtx:2;$M/cti.mtx:4;$M/vsp_model1_crew1_cr42_south31.mtx:2;$M/cage10.mtx"
BIG="stencil27:n=120;$M/EX5.mtx:64;banded:m=600000,bw=40"
chk() { local name=$1; shift; if timeout 150 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
chk def_small $B/test_gpu -type argcsr -info :mat -matrices "$SMALL"
chk def_real  $B/test_gpu -type argcsr -info :mat -matrices "$REAL"
chk def_big   $B/test_gpu -type argcsr -info :mat -matrices "$BIG"
chk i16d8_small $B/test_gpu -type argcsr -mat_argcsr_index16 1 -mat_argcsr_desired_chunk_size 8 -matrices "$SMALL;$REAL"
chk i16d3_small $B/test_gpu -type argcsr -mat_argcsr_index16 1 -mat_argcsr_desired_chunk_size 3 -matrices "$SMALL"
chk i16d20b64 $B/test_gpu -type argcsr -mat_argcsr_index16 1 -mat_argcsr_desired_chunk_size 20 -mat_argcsr_block_size 64 -matrices "$SMALL;$REAL"
chk off_real $B/test_gpu -type argcsr -mat_argcsr_index16 0 -matrices "$SMALL;$REAL"
chk matops $B/test_matops -type argcsr
chk ksp_st $B/test_ksp -type argcsr -matrix "stencil27:n=30"
chk ksp_ex5 $B/test_ksp -type argcsr -matrix "$M/EX5.mtx:8"
chk spmv_cands $B/test_gpu -type spmv -mat_spmv_candidates csr,brc,ccoo,argcsr,segsum,suraa,dcsr -matrices "$SMALL"
chk memcheck compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $B/test_gpu -type argcsr -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;banded:m=1,bw=0;stencil27:n=12;banded:m=3001,bw=24;banded:m=999,bw=60;random:m=3000,n=300000,k=40,seed=8;$M/EX5.mtx"
chk memcheck16 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu -type argcsr -mat_argcsr_index16 1 -mat_argcsr_desired_chunk_size 3 -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;random:m=700,n=3000,k=5;random:m=500,k=3,empty=1;$M/nh2010.mtx"
chk racecheck compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_gpu -type argcsr -matrices "banded:m=3001,bw=24;stencil27:n=12;denserows:m=5000,k=6,len=3000,dense=3"
grep -h "ARgCSR: 16-bit\|ARgCSR: a group spans" $O/def_*.log | sed 's/^\[0\] *//' | sort | uniq -c | head -20 >> $O/summary.txt
echo "checks done $(date -u +%T)" >> $O/summary.txt
LONG="$M/bcsstk13.mtx:256;stencil27:n=120;banded:m=1000000,bw=24;banded:m=600000,bw=40;$M/nasa4704.mtx:400;$M/EX5.mtx:64;stencil27:n=100;banded:m=400000,bw=60;$M/cage11.mtx:64;stencil7:n=150"
timeout 330 $B/bench_spmv -matrices "$LONG" -types argcsr,argcsr/d8,spmv,brc,ccoo,dcsr,aijcusparse,floor-gather16 -d8_mat_argcsr_desired_chunk_size 8 -d8_mat_argcsr_index16 0 -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/bench.csv > $O/bench.log 2>&1; echo "bench rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt
cd $OUT && tar czf s41a.tar.gz s41a && rm -rf s41a
