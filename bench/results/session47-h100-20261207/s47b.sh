#!/usr/bin/env bash
# session 47, call b (did not run in sessions 47-49: no device machine was lent for it; run it on main, whose dcsr takes its warps from the x footprint since b334b21): the GPU checks with the defaults as committed (dcsr's warps by the x footprint; see NOTES "Session 47"):
# tests/gpu/run.sh check sanitize for dcsr and spmv (layouts and products against the host reference and AIJ, matops, KSP,
# PCPOLY, host vectors, memcheck/racecheck/synccheck), PCPOLY's fp32 copy through dcsr, complex scalars
# (tests/gpu/complex.sh check sanitize with the slim complex bundle), then make bench (every type, spmv).
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s47b; mkdir -p $O; B=$E/build/bin; M=$E/matrices
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
OUT=$O/runsh TYPES="dcsr spmv" timeout 240 bash tests/gpu/run.sh check sanitize > $O/runsh.log 2>&1; echo "run.sh check sanitize rc=$? $(date -u +%T)" >> $O/summary.txt
grep -E "^FAIL|passed|failed" $O/runsh.log | tail -4 >> $O/summary.txt
PETSC_OPTIONS="$PETSC_OPTIONS -mat_spmv_wait 0" timeout 60 $B/test_poly_single -type dcsr > $O/poly_single_dcsr.log 2>&1; echo "poly_single dcsr rc=$?" >> $O/summary.txt
if [ -f .dev/bundle-cslim.tar.xz ]; then
  mkdir -p /opt/devc && tar -C /opt/devc -xJf .dev/bundle-cslim.tar.xz && ln -sfn /opt/devb/syslib /opt/devc/syslib && ln -sfn /opt/devb/extra/matrices /opt/devc/extra/matrices # the complex bundle without what the real one has
  (DEVB=/opt/devc OUT=$O/cx TYPES="dcsr spmv" timeout 150 bash tests/gpu/complex.sh check sanitize > $O/complex.log 2>&1; echo "complex check sanitize rc=$? $(date -u +%T)" >> $O/summary.txt)
  grep -E "^FAIL|passed|failed" $O/complex.log | tail -4 >> $O/summary.txt
fi
export PETSC_OPTIONS="$PETSC_OPTIONS -mat_spmv_wait 0"
OUT=$O BUILD=$E/build MATRICES=$M COMMIT=$(cat .dev/commit) timeout 170 bash bench/run_gpu_bench.sh -trials 3 -reps 40 > $O/makebench.log 2>&1; echo "make bench rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt; grep "spmv chose" $O/makebench.log
cd $OUT && tar czf s47b.tar.gz s47b && rm -rf s47b
