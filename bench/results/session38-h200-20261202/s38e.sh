#!/usr/bin/env bash
# session 38, call e (#29's spmv targets on generated families no run had used: fresh seeds and shapes; main's library,
# af6ede0 = 9a54e8d's code): bench_spmv, spmv against every plugin type and aijcusparse, 3 x 60 products
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s38e; mkdir -p $O; B=$E/build/bin
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
F="banded:m=2000000,bw=4;banded:m=500000,bw=30;random:m=3000000,k=9,empty=0.2,seed=11;random:m=2000000,n=500000,k=12,seed=12"
F="$F;rmat:scale=20,ef=24;denserows:m=3000000,k=6,len=200000,dense=8;stencil7:n=180;stencil27:n=100,const=1;random:m=5000000,k=3,empty=0.05,seed=13"
timeout 400 $B/bench_spmv -matrices "$F" -types spmv,brc,ccoo,argcsr,segsum,dcsr,suraa,aijcusparse -trials 3 -reps 60 -commit $(cat .dev/commit) -csv $O/families.csv -json $O/families.json > $O/families.log 2>&1; echo "bench rc=$?" | tee -a $O/summary.txt
grep -E "spmv:|spmv /|fastest" $O/families.log | tail -30
cd $OUT && tar czf s38e.tar.gz s38e && rm -rf s38e
