#!/usr/bin/env bash
# session 36, call a: spmv's selection on matrices and seeds not used to make the rule (H200, HEAD's library = 65423d6's)
set -u
rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s36a; mkdir -p $O
echo "commit $(cat .dev/commit) date $(date -u +%FT%TZ)" > $O/device.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $O/device.txt
X=$E/matrices
M="$X/EX5.mtx:64;$X/nh2010.mtx:128;$X/cage10.mtx:160;$X/rgg_n_2_15_s0.mtx:128;$X/cti.mtx:256;$X/bcsstk13.mtx:256;$X/delaunay_n15.mtx:200"
M="$M;random:m=2500000,k=9,seed=4242;random:m=2000000,n=600000,k=14,seed=977;rmat:scale=20,ef=24,seed=31337"
M="$M;banded:m=3000000,bw=7;stencil27:n=100;random:m=3000000,k=6,empty=0.3,seed=555;denserows:m=1500000,k=6,len=40000,dense=32,seed=99"
S=$(date +%s)
timeout 540 $E/build/bin/bench_spmv -matrices "$M" -commit $(cat .dev/commit) -csv $O/spmv-unseen.csv -json $O/spmv-unseen.json > $O/spmv-unseen.log 2>&1; echo "bench rc=$? $(( $(date +%s) - S )) s" >> $O/summary.txt
cat $O/summary.txt; grep "spmv chose\|FAIL\|rror" $O/spmv-unseen.log | head -40
cd $OUT && tar czf logs-s36a.tar.gz s36a && cp s36a/spmv-unseen.* . ; ls
