#!/usr/bin/env bash
# session 45, call d (experiment): a group's duration is its longest thread's chain of batches, and the blocks start in
# group order, so a sorted window's long groups (bcsstk13: rows of 5-95, one thread a row: 12 batches down to 1) can start
# last and the grid waits for them. -mat_argcsr_lpt launches the groups in order of decreasing chunk size (longest
# processing time first). Here: default and one thread a row (forced), each with and without, on bcsstk13 (kron 256 and
# 1024), heavy-tailed rows, rows of 20-60, the band of 81, EX5, the 27-point stencil, cage11 (D 8, 32-bit).
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s45d; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U; T=bench/tools
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 $T/uniformlocal.py 20000 20 60 1 $U/u29.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 30000 8 5 $U/h5.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 20000 25 1 $U/h1.mtx >> $O/summary.txt &
wait
chk() { local name=$1; shift; if timeout 120 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
chk lpt $B/test_gpu -type argcsr -mat_argcsr_lpt 1 -matrices "random:m=5000,k=9,empty=0.2,seed=4;denserows:m=20000,k=6,len=5000,dense=5;banded:m=3001,bw=40;$U/u29.mtx;$M/bcsstk13.mtx:8;$U/h5.mtx"
chk lptmem compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu -type argcsr -mat_argcsr_lpt 1 -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;$M/bcsstk13.mtx"
OPTS="-l_mat_argcsr_lpt 1 -s96_mat_argcsr_sort_rows 1 -s96_mat_argcsr_desired_chunk_size 96 -s96l_mat_argcsr_sort_rows 1 -s96l_mat_argcsr_desired_chunk_size 96 -s96l_mat_argcsr_lpt 1"
TY=argcsr,argcsr/l,argcsr/s96,argcsr/s96l,floor-gather16
V="$M/bcsstk13.mtx:256;$M/bcsstk13.mtx:1024;$U/h5.mtx:16;$U/h1.mtx:10;$U/u29.mtx:40;banded:m=600000,bw=40;$M/EX5.mtx:64;stencil27:n=120;$M/cage11.mtx:64"
timeout 300 $B/bench_spmv -matrices "$V" -types $TY $OPTS -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/d.csv > $O/d.log 2>&1; echo "d rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt
python3 - $O/d.csv <<'PY'
import csv, sys, collections
by = collections.defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])): by[r['matrix']][r['type']] = float(r['median_s']) * 1e6
for m, d in by.items():
    fl = d.get('floor-gather16', 0)
    print(m.split('/')[-1][:22].ljust(22), ' '.join('%s %.1f(%.3f)' % (t.replace('argcsr', 'a'), v, fl / v) for t, v in d.items() if t != 'floor-gather16'), 'fl %.1f' % fl)
PY
cd $OUT && tar czf s45d.tar.gz s45d && rm -rf s45d
