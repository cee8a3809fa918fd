#!/usr/bin/env bash
# session 46, call a: dcsr reads tiles inside one row in the warp's order (lane l: entries l + 32 k; SegSumWarpOrder).
# Checks: test_gpu dcsr (layouts and products bitwise against the host reference, against AIJ) in both orders on the
# small/real sets plus long-row matrices, memcheck. Then the heavy-tailed rows (fresh seeds), long-row graphs and
# make bench's matrices: dcsr (warp order) against dcsr/n (the lanes' order) in one run, with segsum, argcsr, spmv,
# aijcusparse and the compressed floor.
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s46a; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U; T=bench/tools
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 $T/heavylocal.py 40000 2 46 $U/h2.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 40000 3 47 $U/h3.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 40000 4 48 $U/h4.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 30000 8 49 $U/h5.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 20000 25 50 $U/h1.mtx >> $O/summary.txt &
wait
chk() { local name=$1; shift; if timeout 150 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
SMALL="stencil7:n=30,const=1;rmat:scale=14,ef=16,const=1;random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=7000,n=900,k=5,empty=0.3,seed=6;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;denserows:m=3000,k=4,len=2999,dense=1;stencil27:n=20;rmat:scale=14,ef=16"
REAL="$M/cage11.mtx:4;$M/EX5.mtx:4;$M/nasa4704.mtx:8;$M/bcsstk13.mtx:8;$M/delaunay_n16.mtx:2;$M/rgg_n_2_15_s0.mtx:2;$M/vsp_model1_crew1_cr42_south31.mtx:2;$M/cage10.mtx"
LONG="$U/h2.mtx;$U/h5.mtx;$U/h1.mtx;rmat:scale=18,ef=16;denserows:m=200000,k=8,len=20000,dense=16;banded:m=3000,bw=300;random:m=2000,n=300000,k=900,seed=3"
chk w  $B/test_gpu -type dcsr -matrices "$SMALL;$REAL;$LONG"
chk n  $B/test_gpu -type dcsr -mat_dcsr_warp_order 0 -matrices "$SMALL;$REAL;$LONG"
chk wt $B/test_gpu -type dcsr -mat_dcsr_row_lanes 0 -mat_dcsr_head_masks 0 -matrices "$SMALL;$LONG"
chk w1 $B/test_gpu -type dcsr -mat_dcsr_tiles_per_warp 1 -matrices "$SMALL;$LONG"
chk sp $B/test_gpu -type spmv -matrices "$LONG;$M/vsp_model1_crew1_cr42_south31.mtx:2"
chk mem compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $B/test_gpu -type dcsr -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;banded:m=1,bw=0;banded:m=3000,bw=300;$U/h2.mtx;rmat:scale=14,ef=16"
grep -h "warp's order\|inside one row" $O/w.log | head -4 >> $O/summary.txt
TY=dcsr,dcsr/n,segsum,argcsr,spmv,aijcusparse,floor-gather16,floor-gather16c
OPTS="-n_mat_dcsr_warp_order 0"
V1="$U/h2.mtx:32;$U/h3.mtx:24;$U/h4.mtx:20;$U/h5.mtx:16;$U/h1.mtx:16"
V2="rmat:scale=21,ef=16;denserows:m=2000000,k=8,len=100000,dense=16;$M/vsp_model1_crew1_cr42_south31.mtx:64;$M/cage11.mtx:64;$M/delaunay_n16.mtx:128;$M/bcsstk13.mtx:256;stencil27:n=120;$M/nasa4704.mtx:400;stencil7:n=150"
timeout 200 $B/bench_spmv -matrices "$V1" -types $TY $OPTS -floor 0 -seed 11 -trials 3 -reps 40 -csv $O/a1.csv > $O/a1.log 2>&1; echo "a1 rc=$? $(date -u +%T)" >> $O/summary.txt
timeout 220 $B/bench_spmv -matrices "$V2" -types $TY $OPTS -floor 0 -seed 11 -trials 3 -reps 40 -csv $O/a2.csv > $O/a2.log 2>&1; echo "a2 rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt
python3 - $O/a1.csv $O/a2.csv <<'PY'
import csv, sys, collections
by = collections.defaultdict(dict)
for f in sys.argv[1:]:
    try:
        for r in csv.DictReader(open(f)): by[r['matrix']][r['type']] = (float(r['median_s']) * 1e6, r.get('chosen', ''))
    except Exception as e: print(f, e)
for m, d in by.items():
    t = {k: v[0] for k, v in d.items()}; fl = t.get('floor-gather16', 0); cu = t.get('aijcusparse', 0)
    types = {k: v for k, v in t.items() if k in ('argcsr', 'segsum', 'dcsr', 'dcsr/n')}
    best = min(types, key=types.get)
    print('%-28s dcsr %.1f dcsr/n %.1f (w/n %.3f) segsum %.1f argcsr %.1f floor16 %.1f f16c %.1f | floor16/dcsr %.3f floor16/best %.3f (%s) | spmv %s %.3fx cu' % (m.split('/')[-1][:28], t['dcsr'], t['dcsr/n'], t['dcsr/n'] / t['dcsr'], t['segsum'], t['argcsr'], fl, t.get('floor-gather16c', 0), fl / t['dcsr'], fl / types[best], best, d['spmv'][1], cu / t['spmv']))
PY
cd $OUT && tar czf s46a.tar.gz s46a && rm -rf s46a
