#!/usr/bin/env bash
# session 45, call a: argcsr's bytes on rows of one or varied length (issue #29's misses: bcsstk13, the uniform families,
# the band of 81). A sector model of SpMV16's loads (NOTES "Session 45") says two things waste bytes: (1) the padding value
# slots inside a group's chunk C are read (unpredicated loads of stored zeros), (2) at D <= 32 a row of L entries pads each
# of its threads to whole batches of 8, while with one thread a row (D >= the longest row) only its last batch pads.
# Predicted (bytes only, floor-gather16 / argcsr): bcsstk13 sorted D 32 0.902 -> D 96 skipping 0.953; rows of 20-60 0.907 ->
# 0.953 (D 64); 24-40 0.899 -> 0.943 (D 48); band of 81 0.942 -> 0.976 (D 96); band of 49 0.915 -> 0.959 (D 64).
# Here: -mat_argcsr_skip_padding (experiment) and D 48-128, sorted and in CSR order, against the default and the floor.
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s45a; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U; T=bench/tools
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 $T/uniformlocal.py 20000 20 60 1 $U/u29.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 24 40 2 $U/v32.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 30 90 3 $U/v60.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 30000 16 48 4 $U/w32.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 20000 25 1 $U/h1.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 30000 8 5 $U/h5.mtx >> $O/summary.txt &
wait
chk() { local name=$1; shift; if timeout 100 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
SMALL="random:m=5000,k=9,empty=0.2,seed=4;denserows:m=20000,k=6,len=5000,dense=5;stencil27:n=20;banded:m=3001,bw=24;random:m=4000,n=70000,k=70,seed=9"
chk skip  $B/test_gpu -type argcsr -mat_argcsr_skip_padding 1 -matrices "$SMALL;$U/u29.mtx;$M/bcsstk13.mtx:8;$M/EX5.mtx:4"
chk skip96 $B/test_gpu -type argcsr -mat_argcsr_skip_padding 1 -mat_argcsr_sort_rows 1 -mat_argcsr_desired_chunk_size 96 -matrices "$SMALL;$U/u29.mtx;$M/bcsstk13.mtx:8"
OPTS="-k_mat_argcsr_skip_padding 1"
for D in 48 64 96 128; do OPTS="$OPTS -s${D}k_mat_argcsr_sort_rows 1 -s${D}k_mat_argcsr_desired_chunk_size $D -s${D}k_mat_argcsr_skip_padding 1"; done
OPTS="$OPTS -s96_mat_argcsr_sort_rows 1 -s96_mat_argcsr_desired_chunk_size 96 -c96k_mat_argcsr_sort_rows 0 -c96k_mat_argcsr_desired_chunk_size 96 -c96k_mat_argcsr_skip_padding 1"
TY=argcsr,argcsr/k,argcsr/s48k,argcsr/s64k,argcsr/s96k,argcsr/s128k,argcsr/s96,argcsr/c96k,floor-gather16
V1="$M/bcsstk13.mtx:256;$U/u29.mtx:40;$U/v32.mtx:40;$U/w32.mtx:40;$U/v60.mtx:30;banded:m=600000,bw=40"
V2="banded:m=1000000,bw=24;banded:m=400000,bw=60;$M/EX5.mtx:64;stencil27:n=120;$U/h1.mtx:10;$U/h5.mtx:16"
timeout 250 $B/bench_spmv -matrices "$V1" -types $TY $OPTS -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/a1.csv > $O/a1.log 2>&1; echo "a1 rc=$? $(date -u +%T)" >> $O/summary.txt
timeout 250 $B/bench_spmv -matrices "$V2" -types $TY $OPTS -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/a2.csv > $O/a2.log 2>&1; echo "a2 rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt
python3 - $O/a1.csv $O/a2.csv <<'PY'
import csv, sys, collections
by = collections.defaultdict(dict)
for f in sys.argv[1:]:
    try:
        for r in csv.DictReader(open(f)): by[r['matrix']][r['type']] = float(r['median_s']) * 1e6
    except Exception as e: print(f, e)
for m, d in by.items():
    fl = d.get('floor-gather16', 0)
    print(m.split('/')[-1][:26].ljust(26), ' '.join('%s %.1f(%.3f)' % (t.replace('argcsr', 'a'), v, fl / v) for t, v in d.items() if t != 'floor-gather16'), 'fl %.1f' % fl)
PY
cd $OUT && tar czf s45a.tar.gz s45a && rm -rf s45a
