#!/usr/bin/env bash
# session 44, call e (fade0dd's code): tests/gpu/run.sh sanitize for argcsr and spmv, and synccheck of the sorted layout
set -u
O=$OUT/s44e; mkdir -p $O
OUT=$O/runsh TYPES="argcsr spmv" timeout 400 bash tests/gpu/run.sh sanitize > $O/runsh.log 2>&1; echo "run.sh sanitize rc=$? $(date -u +%T)" >> $O/summary.txt
. /opt/devb/env.sh; E=/opt/devb/extra; B=$E/build/bin; M=$E/matrices
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
timeout 120 compute-sanitizer --tool synccheck --error-exitcode 9 $B/test_gpu -type argcsr -mat_argcsr_sort_rows 1 -matrices "$M/bcsstk13.mtx;banded:m=3001,bw=24;random:m=3000,k=9,empty=0.2" > $O/synccheck-sorted.log 2>&1; echo "synccheck sorted rc=$? $(date -u +%T)" >> $O/summary.txt
grep -E "passed|failed|FAIL" $O/runsh.log | tail -4 >> $O/summary.txt; cat $O/summary.txt
cd $OUT && tar czf s44e.tar.gz s44e && rm -rf s44e
