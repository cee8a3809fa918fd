#!/usr/bin/env bash
# session 38, call d (#29): the staged row kernel v4 (v3 with the tiles' values and offsets copied two tiles ahead into
# shared memory by cp.async): correctness (test_gpu bitwise, chunks 1/3/auto, lanes 1/4/32, tile 64 (v3's path),
# memcheck, racecheck), then bench_spmv variants: a ring of at most 4096, 2048, 8192 bytes (a-c), v3 at 4096 (d),
# against the tile kernel and the floors
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s38d; mkdir -p $O; B=$E/build/bin; M=$E/matrices
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
SMALL="stencil7:n=30,const=1;rmat:scale=14,ef=16,const=1;random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=7000,n=900,k=5,empty=0.3,seed=6;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;denserows:m=3000,k=4,len=2999,dense=1;stencil27:n=20;rmat:scale=14,ef=16;banded:m=3001,bw=24;banded:m=999,bw=60"
REAL="$M/cage11.mtx:4;$M/EX5.mtx:4;$M/nasa4704.mtx:8;$M/bcsstk13.mtx:8;$M/delaunay_n16.mtx:2;$M/rgg_n_2_15_s0.mtx:2;$M/nh2010.mtx:2;$M/cti.mtx:4;$M/vsp_model1_crew1_cr42_south31.mtx:2;$M/cage10.mtx"
chk() { local name=$1; shift; if timeout 120 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -5 $O/$name.log >> $O/summary.txt; fi; }
for c in 1 3 0; do chk staged_async_c${c} $B/test_gpu -type dcsr -mat_dcsr_row_stage 1 -mat_dcsr_row_stage_chunks $c -matrices "$SMALL;$REAL"; done
for L in 1 4 32; do chk staged_async_l${L} $B/test_gpu -type dcsr -mat_dcsr_row_stage 1 -mat_dcsr_row_lanes $L -matrices "$SMALL;$REAL"; done
chk staged_async_tile64 $B/test_gpu -type dcsr -mat_dcsr_row_stage 1 -mat_dcsr_tile 64 -matrices "$SMALL"
chk staged_single $B/test_poly_single -type dcsr -mat_dcsr_row_stage 1
chk staged_memcheck compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $B/test_gpu -type dcsr -mat_dcsr_row_stage 1 -mat_dcsr_row_stage_chunks 3 -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;random:m=700,n=3000,k=5;banded:m=1,bw=0;random:m=500,k=3,empty=1;stencil7:n=20,const=1;banded:m=3001,bw=24;$M/nh2010.mtx"
chk staged_racecheck compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_gpu -type dcsr -mat_dcsr_row_stage 1 -mat_dcsr_row_stage_chunks 3 -matrices "random:m=3000,k=9,empty=0.2;banded:m=3001,bw=24;stencil27:n=20"
LONG="$M/bcsstk13.mtx:256;stencil27:n=120;banded:m=1000000,bw=24;banded:m=600000,bw=40;$M/nasa4704.mtx:400;$M/cage11.mtx:64"
SHORT="stencil7:n=150;$M/delaunay_n16.mtx:128"
TY="dcsr,dcsr/a,dcsr/b,dcsr/c,dcsr/d,floor-gather16,floor-gather16c,brc"
OPT="-a_mat_dcsr_row_stage 1 -a_mat_dcsr_row_stage_bytes 4096 -b_mat_dcsr_row_stage 1 -b_mat_dcsr_row_stage_bytes 2048"
OPT="$OPT -c_mat_dcsr_row_stage 1 -c_mat_dcsr_row_stage_bytes 8192 -d_mat_dcsr_row_stage 1 -d_mat_dcsr_row_stage_async 0 -d_mat_dcsr_row_stage_bytes 4096"
timeout 300 $B/bench_spmv -matrices "$LONG;$SHORT" -types $TY $OPT -floor 0 -seed 7 -trials 3 -reps 60 -csv $O/bench.csv > $O/bench.log 2>&1; echo "bench rc=$?" >> $O/summary.txt
for spec in "$M/bcsstk13.mtx:256" "stencil27:n=120" "banded:m=1000000,bw=24"; do
  for b in 8192 4096 2048; do $B/spmv_solve -f "$spec" -mat_type dcsr -mat_dcsr_row_stage 1 -mat_dcsr_row_stage_bytes $b -view_mat ::ascii_info -ksp_max_it 1 2>&1 | grep "kernel:" >> $O/views.txt; done
done
cat $O/summary.txt
cd $OUT && tar czf s38d.tar.gz s38d && rm -rf s38d
