#!/usr/bin/env bash
# session 37, call f (bundle 84df069 = HEAD's library): the whole tutorial sweep on the GPU
set -u
rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s37f; mkdir -p $O
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
S=$(date +%s)
BUILD=$E/build MPIEXEC=mpiexec JOBS=10 TMO=90 timeout 480 bash tests/gpu/tutorial_sweep.sh gpu $O/tsw > $O/sweep.log 2>&1; echo "sweep rc=$? $(( $(date +%s) - S )) s" >> $O/device.txt
cp $O/tsw/table.txt $O/table.txt; cp $O/tsw/tutorial-sweep.tar.gz $O/ 2>/dev/null; rm -rf $O/tsw
cat $O/device.txt; grep -v "^#" $O/table.txt | awk '{print $3}' | sort | uniq -c
grep -v "^#" $O/table.txt | awk '$3 != "aij" && $3 != "aijcusparse" && $4 != "same" {print $1, $3, $4, $5, $6, $7}'
