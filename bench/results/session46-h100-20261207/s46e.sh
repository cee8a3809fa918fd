#!/usr/bin/env bash
# session 46, call e (f563f5c): dcsr's warps a block from the x footprint (SegSumWarps: 8 where 1024 consecutive nonzeros
# reach 0.35 or more distinct 4-column groups a nonzero, 64 windows sampled; else 4). Checks: test_gpu dcsr (Verify
# compares the sampled counts and the warps with the host reference), forced 8, spmv, memcheck and racecheck (the
# footprint kernel's block sort). Then ten of call d's matrices (device time was short): dcsr by the rule against 4 and 8 forced, spmv, aijcusparse.
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s46e; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U; T=bench/tools
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 $T/heavylocal.py 40000 2 46 $U/h2.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 30000 8 49 $U/h5.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 20000 25 50 $U/h1.mtx >> $O/summary.txt &
wait
chk() { local name=$1; shift; if timeout 150 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
SMALL="stencil7:n=30,const=1;rmat:scale=14,ef=16,const=1;random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=7000,n=900,k=5,empty=0.3,seed=6;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;stencil27:n=20;rmat:scale=14,ef=16"
REAL="$M/cage11.mtx:4;$M/EX5.mtx:4;$M/nasa4704.mtx:8;$M/bcsstk13.mtx:8;$M/delaunay_n16.mtx:2;$M/rgg_n_2_15_s0.mtx:2;$M/vsp_model1_crew1_cr42_south31.mtx:2;$M/nh2010.mtx:2"
LONG="$U/h2.mtx;$U/h5.mtx;$U/h1.mtx;rmat:scale=18,ef=16;banded:m=3000,bw=300;random:m=2000,n=300000,k=900,seed=3"
chk def $B/test_gpu -type dcsr -matrices "$SMALL;$REAL;$LONG"
chk sp  $B/test_gpu -type spmv -matrices "$LONG;$M/nh2010.mtx:2;$M/vsp_model1_crew1_cr42_south31.mtx:2"
chk mem compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $B/test_gpu -type dcsr -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;banded:m=1,bw=0;$U/h2.mtx;$M/nh2010.mtx;random:m=500,k=3,empty=1"
chk race compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_gpu -type dcsr -matrices "random:m=3000,k=9,empty=0.2;$M/nh2010.mtx"
TY=dcsr,dcsr/w4,dcsr/w8,floor-gather16,spmv,aijcusparse
OPTS="-w8_mat_dcsr_warps_per_block 8 -w4_mat_dcsr_warps_per_block 4"
V1="$U/h2.mtx:32;$U/h5.mtx:16;$U/h1.mtx:16;$M/vsp_model1_crew1_cr42_south31.mtx:64;$M/nh2010.mtx:64;rmat:scale=21,ef=16;$M/cage11.mtx:64;$M/bcsstk13.mtx:256;stencil7:n=150;$M/delaunay_n16.mtx:128"
timeout 150 $B/bench_spmv -matrices "$V1" -types $TY $OPTS -floor 0 -seed 17 -trials 3 -reps 40 -csv $O/e1.csv > $O/e1.log 2>&1; echo "e1 rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt
python3 - $O/e1.csv <<'PY'
import csv, sys, collections, math
by = collections.defaultdict(dict)
for f in sys.argv[1:]:
    try:
        for r in csv.DictReader(open(f)): by[r['matrix']][r['type']] = (float(r['median_s']) * 1e6, r['chosen'])
    except Exception as e: print(f, e)
g = []
for m, d in by.items():
    t = {k: v[0] for k, v in d.items()}
    best = min(t['dcsr/w4'], t['dcsr/w8'])
    g.append(math.log(t['dcsr/w4'] / t['dcsr']))
    print('%-30s rule %.1f w4 %.1f w8 %.1f | rule vs w4 %.3f, vs best %.3f | floor16/rule %.3f | spmv %s %.3fx cu' % (m.split('/')[-1][:30], t['dcsr'], t['dcsr/w4'], t['dcsr/w8'], t['dcsr/w4'] / t['dcsr'], best / t['dcsr'], t['floor-gather16'] / t['dcsr'], d['spmv'][1], t['aijcusparse'] / t['spmv']))
print('rule vs 4 warps, geomean %.4f' % math.exp(sum(g) / len(g)))
PY
cd $OUT && tar czf s46e.tar.gz s46e && rm -rf s46e
