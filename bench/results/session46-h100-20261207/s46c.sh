#!/usr/bin/env bash
# session 46, call c (call b's last steps again: b set PETSC_OPTIONS without env.sh's -use_gpu_aware_mpi 0): dcsr with tiles inside one row in the warp's order (the default since d28d8f8). The GPU checks for
# dcsr and spmv (tests/gpu/run.sh check sanitize: layouts and products against the host reference and AIJ, matops, KSP,
# PCPOLY, host vectors, memcheck/racecheck/synccheck), PCPOLY's fp32 copy through dcsr (the warp order's float loads),
# complex scalars (tests/gpu/complex.sh check sanitize with the complex bundle), then make bench (every type, spmv) and
# dcsr's launch shape on the heavy-tailed rows (tiles a warp, warps a block).
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s46c; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U; T=bench/tools
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 $T/heavylocal.py 40000 2 46 $U/h2.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 30000 8 49 $U/h5.mtx >> $O/summary.txt &
PETSC_OPTIONS="$PETSC_OPTIONS -mat_spmv_wait 0" timeout 60 $B/test_poly_single -type dcsr > $O/poly_single_dcsr.log 2>&1; echo "poly_single dcsr rc=$?" >> $O/summary.txt
PETSC_OPTIONS="$PETSC_OPTIONS -mat_spmv_wait 0" timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_poly_single -type aijcusparse -check product -formats dcsr > $O/poly_single_race.log 2>&1; echo "poly_single racecheck dcsr rc=$?" >> $O/summary.txt
# && tar -C /opt/devc -xJf .dev/bundle-cslim.tar.xz && ln -sfn /opt/devb/syslib /opt/devc/syslib && ln -sfn /opt/devb/extra/matrices /opt/devc/extra/matrices # the complex bundle without what the real one has
wait
export PETSC_OPTIONS="$PETSC_OPTIONS -mat_spmv_wait 0"
OPTS="-s14_mat_dcsr_tiles_per_warp 14 -s3_mat_dcsr_tiles_per_warp 3 -w8_mat_dcsr_warps_per_block 8 -w2_mat_dcsr_warps_per_block 2"
timeout 90 $B/bench_spmv -matrices "$U/h2.mtx:32;$U/h5.mtx:16" -types dcsr,dcsr/s14,dcsr/s3,dcsr/w8,dcsr/w2,floor-gather16 $OPTS -floor 0 -seed 11 -trials 3 -reps 40 -csv $O/shape.csv > $O/shape.log 2>&1; echo "shape rc=$? $(date -u +%T)" >> $O/summary.txt
OUT=$O BUILD=$E/build MATRICES=$M COMMIT=$(cat .dev/commit) timeout 170 bash bench/run_gpu_bench.sh -trials 3 -reps 40 > $O/makebench.log 2>&1; echo "make bench rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt; grep "spmv chose" $O/makebench.log
python3 - $O/shape.csv <<'PY'
import csv, sys, collections
by = collections.defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])): by[r['matrix']][r['type']] = float(r['median_s']) * 1e6
for m, t in by.items(): print(m.split('/')[-1], {k: round(v, 1) for k, v in t.items()})
PY
cd $OUT && tar czf s46c.tar.gz s46c && rm -rf s46c
