#!/usr/bin/env bash
# session 40, call a (#29: argcsr's layout over 16-bit column offsets from each group's smallest column,
# -mat_argcsr_index16, an experiment): correctness (test_gpu against the host reference and AIJ, memcheck),
# then bench_spmv: argcsr with 32- and 16-bit columns (chunk sizes 8 and 16), dcsr, the floors, brc, ccoo,
# aijcusparse, long- and short-row matrices, one process
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s40a; mkdir -p $O; B=$E/build/bin; M=$E/matrices
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
SMALL="stencil7:n=30,const=1;rmat:scale=14,ef=16,const=1;random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=7000,n=900,k=5,empty=0.3,seed=6;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;denserows:m=3000,k=4,len=2999,dense=1;stencil27:n=20;rmat:scale=14,ef=16;banded:m=3001,bw=24;banded:m=999,bw=60;random:m=3000,n=300000,k=40,seed=8"
REAL="$M/cage11.mtx:4;$M/EX5.mtx:4;$M/nasa4704.mtx:8;$M/bcsstk13.mtx:8;$M/delaunay_n16.mtx:2;$M/rgg_n_2_15_s0.mtx:2;$M/nh2010.mtx:2;$M/cti.mtx:4;$M/vsp_model1_crew1_cr42_south31.mtx:2;$M/cage10.mtx"
chk() { local name=$1; shift; if timeout 150 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -5 $O/$name.log >> $O/summary.txt; fi; }
chk i16_small $B/test_gpu -type argcsr -mat_argcsr_index16 1 -info :mat -matrices "$SMALL"
chk i16_real  $B/test_gpu -type argcsr -mat_argcsr_index16 1 -info :mat -matrices "$REAL"
chk i16_memcheck compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu -type argcsr -mat_argcsr_index16 1 -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;random:m=700,n=3000,k=5;banded:m=1,bw=0;stencil7:n=20,const=1;banded:m=3001,bw=24;$M/nh2010.mtx"
grep -h "16-bit\|65535" $O/i16_*.log | sort | uniq -c | head -20 >> $O/summary.txt
LONG="$M/bcsstk13.mtx:256;stencil27:n=120;banded:m=1000000,bw=24;banded:m=600000,bw=40;$M/nasa4704.mtx:400;$M/EX5.mtx:64;stencil27:n=100;banded:m=400000,bw=60"
SHORT="$M/cage11.mtx:64;stencil7:n=150;$M/delaunay_n16.mtx:128;$M/vsp_model1_crew1_cr42_south31.mtx:64;$M/rgg_n_2_15_s0.mtx:128;$M/cti.mtx:256;banded:m=3000000,bw=7"
TY="argcsr,argcsr/i16,argcsr/i16d16,argcsr/i16b256,dcsr,floor-gather,floor-gather16,floor-gather16c,aijcusparse,brc,ccoo"
OPT="-i16_mat_argcsr_index16 1 -i16d16_mat_argcsr_index16 1 -i16d16_mat_argcsr_desired_chunk_size 16 -i16b256_mat_argcsr_index16 1 -i16b256_mat_argcsr_block_size 256"
timeout 420 $B/bench_spmv -matrices "$LONG;$SHORT" -types $TY $OPT -floor 0 -seed 7 -trials 3 -reps 60 -csv $O/bench.csv > $O/bench.log 2>&1; echo "bench rc=$?" >> $O/summary.txt
cat $O/summary.txt
cd $OUT && tar czf s40a.tar.gz s40a && rm -rf s40a
