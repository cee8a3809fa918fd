#!/usr/bin/env bash
# session 49, call d (not run: no device machine after the first call): the whole program against aijcusparse on the
# committed build (dcsr's warps from the x footprint): PETSc's unmodified programs start to end for aijcusparse, spmv
# and dcsr (bench/run_wholerun_bench.sh, BEST_TYPE=dcsr). Run after s47b.sh on the same bundle (`make gpu` on main).
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; export UCX_TLS=self,sm
O=$OUT/s49d; mkdir -p $O
{ nvidia-smi -L; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
OUT=$O BEST_TYPE=dcsr timeout 540 bash bench/run_wholerun_bench.sh > $O/wholerun.log 2>&1; echo "wholerun rc=$? $(date -u +%T)" >> $O/device.txt
cd $OUT && tar czf s49d.tar.gz s49d && rm -rf s49d
