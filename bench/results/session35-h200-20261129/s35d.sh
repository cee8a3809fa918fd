#!/usr/bin/env bash
# session 35, call d: make bench's SpMV table at 8f1bc4f (dcsr's head masks at every row length)
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s35d; mkdir -p $O
echo "commit $(cat .dev/commit) date $(date -u +%FT%TZ)" > $O/device.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $O/device.txt
BUILD=$E/build MATRICES=$E/matrices OUT=$O COMMIT=$(cat .dev/commit) timeout 400 bash bench/run_gpu_bench.sh > $O/make-bench.log 2>&1; echo "bench rc=$?" >> $O/summary.txt
cat $O/summary.txt; tail -5 $O/make-bench.log
cd $OUT && tar czf logs-s35d.tar.gz s35d && cp s35d/spmv-*.csv s35d/spmv-*.json s35d/spmv-*.log . 2>/dev/null; ls
