#!/usr/bin/env bash
# session 36, call b: spmv's margin over cuSPARSE's product (0.03 default) against 0.02 and 0.01, in one process per
# matrix (bench_spmv variants), on make bench's nine and call a's fourteen; the selection's own times on random
# matrices (-info); snes ex48 (the L2-resident Jacobian of issue #25) in a solve with each margin
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s36b; mkdir -p $O
echo "commit $(cat .dev/commit) date $(date -u +%FT%TZ)" > $O/device.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $O/device.txt
X=$E/matrices
B="$X/cage11.mtx:64;stencil27:n=120;rmat:scale=21,ef=16;denserows:m=2000000,k=8,len=100000,dense=16;$X/nasa4704.mtx:400;$X/vsp_model1_crew1_cr42_south31.mtx:64;$X/delaunay_n16.mtx:128;stencil7:n=150;stencil27:n=120,const=1"
U="$X/EX5.mtx:64;$X/nh2010.mtx:128;$X/cage10.mtx:160;$X/rgg_n_2_15_s0.mtx:128;$X/cti.mtx:256;$X/bcsstk13.mtx:256;$X/delaunay_n15.mtx:200"
U="$U;random:m=2500000,k=9,seed=4242;random:m=2000000,n=600000,k=14,seed=977;rmat:scale=20,ef=24,seed=31337"
U="$U;banded:m=3000000,bw=7;stencil27:n=100;random:m=3000000,k=6,empty=0.3,seed=555;denserows:m=1500000,k=6,len=40000,dense=32,seed=99"
T=spmv,spmv/m2,spmv/m1,brc,ccoo,argcsr,segsum,dcsr,aijcusparse
S=$(date +%s)
timeout 330 $E/build/bin/bench_spmv -matrices "$B;$U" -types $T -m2_mat_spmv_margin 0.02 -m1_mat_spmv_margin 0.01 -commit $(cat .dev/commit) -csv $O/margins.csv > $O/margins.log 2>&1; echo "margins rc=$? $(( $(date +%s) - S )) s" >> $O/summary.txt
S=$(date +%s)
R="random:m=2500000,k=9,seed=1;random:m=2500000,k=9,seed=2;random:m=4000000,k=5,seed=11;random:m=1500000,k=16,seed=12;random:m=3000000,k=12,seed=13;random:m=2000000,n=500000,k=10,seed=14"
timeout 120 $E/build/bin/bench_spmv -matrices "$R" -types spmv,spmv/m2,dcsr,segsum,argcsr,ccoo,aijcusparse -m2_mat_spmv_margin 0.02 -trials 5 -info 2>&1 | grep "spmv\|^random\|^  [a-z]" > $O/random-info.log; echo "random rc=$? $(( $(date +%s) - S )) s" >> $O/summary.txt
S=$(date +%s)
for r in 1 2; do for c in "aijcusparse" "spmv" "spmv -mat_spmv_margin 0.02"; do
  echo "== round $r: $c" >> $O/ex48.log
  timeout 60 $E/build/bin/snes_ex48 -M 64 -N 64 -P 8 -ksp_type gmres -pc_type jacobi -snes_converged_reason -dm_mat_type $c -dm_vec_type cuda -log_view -info :mat 2>&1 | grep "spmv (\|KSPSolve \|SNESSolve \|MatMult  \|Time (sec)\|CONVERGED\|rror" >> $O/ex48.log
done; done; echo "ex48 $(( $(date +%s) - S )) s" >> $O/summary.txt
cat $O/summary.txt; grep "spmv.*chose" $O/margins.log | cut -c1-120
cd $OUT && tar czf logs-s36b.tar.gz s36b; ls
