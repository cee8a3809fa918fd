#!/usr/bin/env bash
# session 46, call d: dcsr's warps per block (4, the default since 13cae5c; 3, 6, 8) on the heavy-tailed rows, make bench's
# nine and other families, with the compressed floor. Call c found 8 warps a block 1.16x / 1.09x faster than 4 on two
# heavy-tailed matrices (h2 :32 134.4 against 155.7 us, h5 :16 129.7 against 141.0).
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s46d; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U; T=bench/tools
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 $T/heavylocal.py 40000 2 46 $U/h2.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 40000 3 47 $U/h3.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 40000 4 48 $U/h4.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 30000 8 49 $U/h5.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 20000 25 50 $U/h1.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 20 60 1 $U/u29.mtx >> $O/summary.txt &
wait
TY=dcsr,dcsr/w8,dcsr/w6,dcsr/w3,floor-gather16
OPTS="-w8_mat_dcsr_warps_per_block 8 -w6_mat_dcsr_warps_per_block 6 -w3_mat_dcsr_warps_per_block 3"
V1="$U/h2.mtx:32;$U/h3.mtx:24;$U/h4.mtx:20;$U/h5.mtx:16;$U/h1.mtx:16;$U/u29.mtx:40"
V2="$M/cage11.mtx:64;stencil27:n=120;rmat:scale=21,ef=16;denserows:m=2000000,k=8,len=100000,dense=16;$M/nasa4704.mtx:400;$M/vsp_model1_crew1_cr42_south31.mtx:64;$M/delaunay_n16.mtx:128;stencil7:n=150"
V3="$M/bcsstk13.mtx:256;$M/rgg_n_2_15_s0.mtx:128;$M/cti.mtx:256;$M/EX5.mtx:64;banded:m=1000000,bw=24;random:m=3000000,k=12,seed=7;rmat:scale=20,ef=24,seed=3;$M/nh2010.mtx:64"
for v in 1 2 3; do eval V=\$V$v
  timeout 150 $B/bench_spmv -matrices "$V" -types $TY $OPTS -floor 0 -seed 13 -trials 3 -reps 40 -csv $O/d$v.csv > $O/d$v.log 2>&1; echo "d$v rc=$? $(date -u +%T)" >> $O/summary.txt
done
cat $O/summary.txt
python3 - $O/d1.csv $O/d2.csv $O/d3.csv <<'PY'
import csv, sys, collections, math
by = collections.defaultdict(dict)
for f in sys.argv[1:]:
    try:
        for r in csv.DictReader(open(f)): by[r['matrix']][r['type']] = float(r['median_s']) * 1e6
    except Exception as e: print(f, e)
g = collections.defaultdict(list)
for m, t in by.items():
    print('%-30s dcsr %.1f | w8 %.3f w6 %.3f w3 %.3f (speedup vs 4) | floor16/dcsr %.3f floor16/w8 %.3f' % (m.split('/')[-1][:30], t['dcsr'], t['dcsr'] / t['dcsr/w8'], t['dcsr'] / t['dcsr/w6'], t['dcsr'] / t['dcsr/w3'], t['floor-gather16'] / t['dcsr'], t['floor-gather16'] / t['dcsr/w8']))
    for k in ('dcsr/w8', 'dcsr/w6', 'dcsr/w3'): g[k].append(math.log(t['dcsr'] / t[k]))
print({k: round(math.exp(sum(v) / len(v)), 4) for k, v in g.items()}, 'min', {k: round(math.exp(min(v)), 3) for k, v in g.items()})
PY
cd $OUT && tar czf s46d.tar.gz s46d && rm -rf s46d
