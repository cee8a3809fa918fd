#!/usr/bin/env bash
# session 35, call f: the whole GPU tutorial sweep (every case of tests/tutorial_cases.txt) at 65423d6
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s35f; mkdir -p $O
{ nvidia-smi -L; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
BUILD=$E/build MPIEXEC=mpiexec JOBS=6 TMO=120 timeout 540 bash tests/gpu/tutorial_sweep.sh gpu $O/tsw > $O/sweep.log 2>&1; echo "sweep rc=$?" >> $O/summary.txt
cp $O/tsw/table.txt $O/table.txt 2>/dev/null; rm -rf $O/tsw/logs
awk 'NR>2 && $3!="aij" && $3!="aijcusparse" {print $4}' $O/table.txt | sort | uniq -c >> $O/summary.txt
cat $O/summary.txt
cd $OUT && tar czf s35f.tar.gz s35f && rm -rf s35f
