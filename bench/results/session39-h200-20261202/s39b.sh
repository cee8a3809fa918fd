#!/usr/bin/env bash
# session 39, call b (#29: the strided kernel with row ends reduced 4 at a time by a transposed reduction; -mat_dcsr_strided 2: capped at 64 registers):
# correctness (test_gpu bitwise against the host reference and against AIJ, default and forced, fp32 copy, memcheck,
# racecheck; also capped), then bench_spmv: the tile kernel (dcsr/t), the strided kernel forced with the row kernel off
# (dcsr/sr) and capped (dcsr/cr), the default, against floor-gather16 and floor-gather16c, long- and short-row matrices,
# one process
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s39b; mkdir -p $O; B=$E/build/bin; M=$E/matrices
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
SMALL="stencil7:n=30,const=1;rmat:scale=14,ef=16,const=1;random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=7000,n=900,k=5,empty=0.3,seed=6;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;denserows:m=3000,k=4,len=2999,dense=1;stencil27:n=20;rmat:scale=14,ef=16;banded:m=3001,bw=24;banded:m=999,bw=60;random:m=3000,n=300000,k=40,seed=8"
REAL="$M/cage11.mtx:4;$M/EX5.mtx:4;$M/nasa4704.mtx:8;$M/bcsstk13.mtx:8;$M/delaunay_n16.mtx:2;$M/rgg_n_2_15_s0.mtx:2;$M/nh2010.mtx:2;$M/cti.mtx:4;$M/vsp_model1_crew1_cr42_south31.mtx:2;$M/cage10.mtx"
chk() { local name=$1; shift; if timeout 120 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -5 $O/$name.log >> $O/summary.txt; fi; }
chk default_small $B/test_gpu -type dcsr -matrices "$SMALL"
chk default_real  $B/test_gpu -type dcsr -matrices "$REAL"
chk strided_small $B/test_gpu -type dcsr -mat_dcsr_strided 1 -matrices "$SMALL"
chk strided_real  $B/test_gpu -type dcsr -mat_dcsr_strided 1 -matrices "$REAL"
chk strided_norows $B/test_gpu -type dcsr -mat_dcsr_strided 1 -mat_dcsr_row_lanes 0 -matrices "banded:m=999,bw=60;banded:m=3001,bw=100;random:m=3000,n=300000,k=120,seed=9"
chk capped_small $B/test_gpu -type dcsr -mat_dcsr_strided 2 -matrices "$SMALL"
chk capped_real  $B/test_gpu -type dcsr -mat_dcsr_strided 2 -matrices "$REAL"
chk strided_single $B/test_poly_single -type dcsr -mat_dcsr_strided 1
chk strided_memcheck compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $B/test_gpu -type dcsr -mat_dcsr_strided 1 -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;random:m=700,n=3000,k=5;banded:m=1,bw=0;stencil7:n=20,const=1;banded:m=3001,bw=24;random:m=3000,n=300000,k=40,seed=8;$M/nh2010.mtx"
chk strided_racecheck compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_gpu -type dcsr -mat_dcsr_strided 1 -matrices "random:m=3000,k=9;banded:m=3001,bw=24;stencil27:n=20"
$B/spmv_solve -f "$M/bcsstk13.mtx:256" -mat_type dcsr -view_mat ::ascii_info -ksp_max_it 1 > $O/view-bcsstk13.txt 2>&1
LONG="$M/bcsstk13.mtx:256;stencil27:n=120;banded:m=1000000,bw=24;banded:m=600000,bw=40;$M/nasa4704.mtx:400;$M/cage11.mtx:64;banded:m=400000,bw=60;banded:m=250000,bw=100;random:m=300000,n=300000,k=120,seed=9"
SHORT="stencil7:n=150;$M/delaunay_n16.mtx:128;$M/vsp_model1_crew1_cr42_south31.mtx:64;$M/rgg_n_2_15_s0.mtx:128;rmat:scale=21,ef=16"
TY="dcsr,dcsr/t,dcsr/sr,dcsr/cr,floor-gather16,floor-gather16c,aijcusparse,brc,ccoo"
OPT="-t_mat_dcsr_strided 0 -sr_mat_dcsr_strided 1 -sr_mat_dcsr_row_lanes 0 -cr_mat_dcsr_strided 2 -cr_mat_dcsr_row_lanes 0"
timeout 300 $B/bench_spmv -matrices "$LONG;$SHORT" -types $TY $OPT -floor 0 -seed 7 -trials 3 -reps 60 -csv $O/bench.csv > $O/bench.log 2>&1; echo "bench rc=$?" >> $O/summary.txt
cat $O/summary.txt
cd $OUT && tar czf s39b.tar.gz s39b && rm -rf s39b
