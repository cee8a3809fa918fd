#!/usr/bin/env bash
# session 47, call a (did not run: no device machine was lent in sessions 47 and 48). Run it on main with warps-gathers.diff applied
# (git apply bench/results/session47-h100-20261207/warps-gathers.diff; make gpu): dcsr's warps a block from the x footprint (SegSumWarps: 8 where 1024 consecutive nonzeros reach 0.35
# or more distinct 4-column groups a nonzero, 64 windows sampled on the GPU; else 4), session 46's f563f5c applied again.
# Checks: test_gpu dcsr (Verify compares the sampled counts and the warps with the host reference), spmv, memcheck and
# racecheck (the footprint kernel's block sort). Then call d's 22 matrices and 8 not measured before (fresh seeds and
# sizes): dcsr by the rule against 4 and 8 forced, the compressed floor, spmv, aijcusparse. With them dcsr's warp gathers
# (-mat_dcsr_warp_gathers, 7bbafa2, off by default): its checks (test_gpu, memcheck, racecheck) and dcsr/wg in the bench.
# Order for a short device budget (session 48): test_gpu checks, bench groups 3 and 1 (bcsstk13 and the heavy-tailed rows,
# #29's two misses), 2 and 4, the sanitizers; with S47_GUARD=<seconds from the start> set, then tests/gpu/run.sh check for
# dcsr and spmv in the time left (s47b.sh otherwise). Short call: S47_GUARD=520 timeout 560 bash s47a.sh; tar $OUT/s47a.
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
C=$(cat .dev/commit); O=$OUT/s47a; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U; T=bench/tools
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
for a in "40000 2 46 h2" "40000 3 47 h3" "40000 4 48 h4" "30000 8 49 h5" "20000 25 50 h1" "50000 3 71 n1" "25000 12 72 n2" "60000 1.5 73 n3"; do
  set -- $a; python3 $T/heavylocal.py $1 $2 $3 $U/$4.mtx >> $O/summary.txt &
done
python3 $T/uniformlocal.py 20000 20 60 1 $U/u29.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 30000 5 40 9 $U/n4.mtx >> $O/summary.txt &
wait
chk() { local name=$1; shift; if timeout 150 "$@" > $O/$name.log 2>&1; then echo "ok   $name $(date -u +%T)" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
SMALL="stencil7:n=30,const=1;rmat:scale=14,ef=16,const=1;random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=7000,n=900,k=5,empty=0.3,seed=6;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;stencil27:n=20;rmat:scale=14,ef=16"
REAL="$M/cage11.mtx:4;$M/EX5.mtx:4;$M/nasa4704.mtx:8;$M/bcsstk13.mtx:8;$M/delaunay_n16.mtx:2;$M/rgg_n_2_15_s0.mtx:2;$M/vsp_model1_crew1_cr42_south31.mtx:2;$M/nh2010.mtx:2"
LONG="$U/h2.mtx;$U/h5.mtx;$U/h1.mtx;$U/n2.mtx;rmat:scale=18,ef=16;banded:m=3000,bw=300;random:m=2000,n=300000,k=900,seed=3"
chk def $B/test_gpu -type dcsr -matrices "$SMALL;$REAL;$LONG"
chk view $B/test_gpu -type dcsr -matrices "$U/h2.mtx;$M/cage11.mtx" -mat_view ::ascii_info
grep "x footprint" $O/view.log >> $O/summary.txt
chk wg $B/test_gpu -type dcsr -mat_dcsr_warp_gathers 1 -matrices "$SMALL;$REAL;$LONG"
chk wgview $B/test_gpu -type dcsr -mat_dcsr_warp_gathers 1 -matrices "$M/bcsstk13.mtx" -mat_view ::ascii_info
grep "across rows" $O/wgview.log >> $O/summary.txt
chk sp  $B/test_gpu -type spmv -matrices "$LONG;$M/nh2010.mtx:2;$M/vsp_model1_crew1_cr42_south31.mtx:2"
TY=dcsr,dcsr/w4,dcsr/w8,dcsr/wg,floor-gather16,spmv,aijcusparse
OPTS="-w8_mat_dcsr_warps_per_block 8 -w4_mat_dcsr_warps_per_block 4 -wg_mat_dcsr_warp_gathers 1"
V1="$U/h2.mtx:32;$U/h3.mtx:24;$U/h4.mtx:20;$U/h5.mtx:16;$U/h1.mtx:16;$U/u29.mtx:40;$M/nh2010.mtx:64;$M/vsp_model1_crew1_cr42_south31.mtx:64"
V2="$M/cage11.mtx:64;stencil27:n=120;rmat:scale=21,ef=16;denserows:m=2000000,k=8,len=100000,dense=16;$M/nasa4704.mtx:400;$M/delaunay_n16.mtx:128;stencil7:n=150"
V3="$M/bcsstk13.mtx:256;$M/rgg_n_2_15_s0.mtx:128;$M/cti.mtx:256;$M/EX5.mtx:64;banded:m=1000000,bw=24;random:m=3000000,k=12,seed=7;rmat:scale=20,ef=24,seed=3"
V4="$U/n1.mtx:24;$U/n2.mtx:16;$U/n3.mtx:24;$U/n4.mtx:40;$M/cage10.mtx:256;$M/delaunay_n15.mtx:256;random:m=2000000,k=20,seed=11;banded:m=60000,bw=300"
for v in 3 1 2 4; do eval V=\$V$v
  timeout 110 $B/bench_spmv -matrices "$V" -types $TY $OPTS -commit $C -floor 0 -seed 23 -trials 3 -reps 40 -csv $O/a$v.csv > $O/a$v.log 2>&1; echo "a$v rc=$? $(date -u +%T)" >> $O/summary.txt
done
chk mem compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $B/test_gpu -type dcsr -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;banded:m=1,bw=0;$U/h2.mtx;$M/nh2010.mtx;random:m=500,k=3,empty=1"
chk race compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_gpu -type dcsr -matrices "random:m=3000,k=9,empty=0.2;$M/nh2010.mtx"
chk wgmem compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu -type dcsr -mat_dcsr_warp_gathers 1 -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;$M/bcsstk13.mtx;$U/h2.mtx"
chk wgrace compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_gpu -type dcsr -mat_dcsr_warp_gathers 1 -matrices "random:m=3000,k=9,empty=0.2;$M/bcsstk13.mtx;$M/nh2010.mtx"
chk wgsync compute-sanitizer --tool synccheck --error-exitcode 9 $B/test_gpu -type dcsr -mat_dcsr_warp_gathers 1 -matrices "random:m=3000,k=9,empty=0.2;$M/bcsstk13.mtx"
cat $O/summary.txt
python3 - $O/a1.csv $O/a2.csv $O/a3.csv $O/a4.csv <<'PY' | tee $O/table.txt
import csv, sys, collections, math
by = collections.defaultdict(dict)
for f in sys.argv[1:]:
    try:
        for r in csv.DictReader(open(f)): by[r['matrix']][r['type']] = (float(r['median_s']) * 1e6, r['chosen'])
    except Exception as e: print(f, e)
g = []
for m, d in by.items():
    try:
        t = {k: v[0] for k, v in d.items()}
        best = min(t['dcsr/w4'], t['dcsr/w8'])
        g.append(math.log(t['dcsr/w4'] / t['dcsr']))
        print('%-30s rule %.1f w4 %.1f w8 %.1f | rule vs w4 %.3f, vs best %.3f | floor16/rule %.3f | spmv %s %.3fx cu' % (m.split('/')[-1][:30], t['dcsr'], t['dcsr/w4'], t['dcsr/w8'], t['dcsr/w4'] / t['dcsr'], best / t['dcsr'], t['floor-gather16'] / t['dcsr'], d['spmv'][1], t['aijcusparse'] / t['spmv']))
    except Exception as e: print(m, 'incomplete', e)
print('rule vs 4 warps, geomean %.4f' % math.exp(sum(g) / len(g)))
h = []
for m, d in by.items():
    try:
        t = {k: v[0] for k, v in d.items()}
        h.append(math.log(t['dcsr'] / t['dcsr/wg']))
        print('%-30s warp gathers vs rule %.3f | floor16/wg %.3f' % (m.split('/')[-1][:30], t['dcsr'] / t['dcsr/wg'], t['floor-gather16'] / t['dcsr/wg']))
    except Exception as e: print(m, 'incomplete', e)
print('warp gathers vs rule, geomean %.4f' % math.exp(sum(h) / len(h)))
PY
left=$((${S47_GUARD:-0} - SECONDS)); [ -n "${S47_GUARD:-}" ] && echo "run.sh check with ${left}s left" >> $O/summary.txt
if [ $left -gt 40 ]; then OUT=$O/runsh TYPES="dcsr spmv" timeout $left bash tests/gpu/run.sh check > $O/runsh.log 2>&1; echo "run.sh check rc=$? $(date -u +%T)" >> $O/summary.txt; grep -E "^FAIL|passed|failed" $O/runsh.log | tail -4 >> $O/summary.txt; fi
cd $OUT && tar czf s47a.tar.gz s47a && rm -rf s47a
