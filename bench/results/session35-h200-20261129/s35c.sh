#!/usr/bin/env bash
# session 35, call c (#29, 8f1bc4f: dcsr's head masks at every row length): run.sh check single sanitize for dcsr
# (masks on long rows now: banded/bcsstk13 in the matrices), and masks against the walk in one process (dcsr/w:
# -w_mat_dcsr_head_masks 0), 2 processes, long- and short-row matrices
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s35c; mkdir -p $O; B=$E/build/bin; M=$E/matrices
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
LONG="$M/bcsstk13.mtx:256;stencil27:n=120;banded:m=1000000,bw=24;banded:m=600000,bw=40;$M/nasa4704.mtx:400"
SHORT="stencil7:n=150;$M/delaunay_n16.mtx:128;$M/cage11.mtx:64;rmat:scale=21,ef=16"
for r in 1 2; do
  timeout 200 $B/bench_spmv -matrices "$LONG;$SHORT" -types dcsr,dcsr/w,floor-gather16 -w_mat_dcsr_head_masks 0 -floor 0 -seed 7 > $O/bench-masks-r$r.log 2>&1; echo "bench masks/walk r=$r rc=$?" >> $O/summary.txt
done
TYPES=dcsr OUT=$O/run timeout 330 bash tests/gpu/run.sh check single sanitize > $O/run-dcsr.log 2>&1; echo "run.sh check single sanitize (dcsr) rc=$?" >> $O/summary.txt
tail -3 $O/run-dcsr.log >> $O/summary.txt
cat $O/summary.txt
cd $OUT && tar czf s35c.tar.gz s35c && rm -rf s35c
