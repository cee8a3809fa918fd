#!/bin/bash
# selection cost: first selection in a process vs later ones (same process), lazy vs eager module loading
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
[ -d /opt/devb/extra ] || bash .dev/device-unpack.sh > /dev/null
. /opt/devb/env.sh
E=/opt/devb/extra; BIN=$E/build/bin; export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH; M=$E/matrices
L="stencil27:n=40;stencil27:n=40;stencil7:n=64;$M/cage11.mtx:2;stencil27:n=64;stencil27:n=40;random:m=20000,k=9,seed=3;stencil7:n=150;stencil27:n=40"
for mode in 64 0; do
  echo "== -mat_spmv_pool_reserve $mode"
  $BIN/bench_spmv -mat_spmv_pool_reserve $mode -matrices "$L" -types spmv -trials 2 -reps 5 -floor 0 -info :sys 2>&1 | grep -oE "spmv \(GPU\): [0-9]+ x [0-9]+, [0-9]+ nonzeros: chose [a-z]+ .*" | sed 's/; rule: [^;]*;/;/' | tee $OUT/selcost-$mode.txt
done
echo "== ex56 GAMG -info selections"
$BIN/ex56 -dll_append $E/build/lib/libpetscspmv.so -ne 39 -mat_type spmv -ksp_type cg -pc_type gamg -info :sys -log_view 2>&1 | grep -E "spmv \(GPU\)|^MatSpMVSelect|^PCSetUp |^KSPSolve " | sed 's/; rule: [^;]*;/;/' | tee $OUT/selcost-ex56.txt
