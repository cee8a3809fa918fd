#!/usr/bin/env bash
# session 45, call e: the final code (asked for an H200, the card of sessions 38-44; ran on an H100): argcsr's GPU checks (run.sh check for
# argcsr), call b's families (the default against the best of D 16/24/32 forced, spmv), and make bench.
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s45e; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U; T=bench/tools
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 $T/uniformlocal.py 25000 24 48 11 $U/a36.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 32 64 12 $U/a48.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 16000 40 80 13 $U/a60.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 30000 20 40 14 $U/a30.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 20 60 1 $U/u29.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 30000 8 5 $U/h5.mtx >> $O/summary.txt &
OUT=$O/runsh TYPES="argcsr" SKIP_BIG=1 SKIP_RACE=1 timeout 150 bash tests/gpu/run.sh check > $O/runsh.log 2>&1; echo "run.sh check rc=$? $(date -u +%T)" >> $O/summary.txt
grep -E "passed|failed|FAIL" $O/runsh.log | tail -3 >> $O/summary.txt
wait
OPTS=""
for D in 16 24 32; do OPTS="$OPTS -s${D}_mat_argcsr_sort_rows 1 -s${D}_mat_argcsr_desired_chunk_size $D -c${D}_mat_argcsr_sort_rows 0 -c${D}_mat_argcsr_desired_chunk_size $D"; done
TY=argcsr,argcsr/s16,argcsr/s24,argcsr/s32,argcsr/c16,argcsr/c24,argcsr/c32,brc,ccoo,dcsr,spmv,aijcusparse,floor-gather16
V1="$U/a36.mtx:32;$U/a48.mtx:40;$U/a60.mtx:40;$U/a30.mtx:40;banded:m=700000,bw=32;banded:m=800000,bw=28;banded:m=600000,bw=40;banded:m=1000000,bw=24"
V2="banded:m=500000,bw=48;$M/EX5.mtx:64;$M/bcsstk13.mtx:256;stencil27:n=120;$U/h5.mtx:16;$U/u29.mtx:40"
timeout 150 $B/bench_spmv -matrices "$V1" -types $TY $OPTS -floor 0 -seed 11 -trials 3 -reps 40 -csv $O/e1.csv > $O/e1.log 2>&1; echo "e1 rc=$? $(date -u +%T)" >> $O/summary.txt
timeout 150 $B/bench_spmv -matrices "$V2" -types $TY $OPTS -floor 0 -seed 11 -trials 3 -reps 40 -csv $O/e2.csv > $O/e2.log 2>&1; echo "e2 rc=$? $(date -u +%T)" >> $O/summary.txt
OUT=$O BUILD=$E/build MATRICES=$M COMMIT=$(cat .dev/commit) timeout 150 bash bench/run_gpu_bench.sh -trials 3 -reps 40 > $O/makebench.log 2>&1; echo "make bench rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt; grep "spmv chose" $O/makebench.log
python3 - $O/e1.csv $O/e2.csv <<'PY'
import csv, sys, collections
by = collections.defaultdict(dict)
for f in sys.argv[1:]:
    try:
        for r in csv.DictReader(open(f)): by[r['matrix']][r['type']] = float(r['median_s']) * 1e6
    except Exception as e: print(f, e)
for m, t in by.items():
    fl = t.get('floor-gather16', 0); cu = t.get('aijcusparse', 0)
    old = min(t[k] for k in t if k.startswith('argcsr/'))
    real = {k: v for k, v in t.items() if k in ('argcsr', 'brc', 'ccoo', 'dcsr')}
    best = min(real, key=real.get)
    print('%-24s argcsr %.1f vs best-old %.3f fl16/argcsr %.3f fl16/best %.3f | spmv %.3fx cu, %.3f of fastest (%s)' % (m.split('/')[-1][:24], t['argcsr'], old / t['argcsr'], fl / t['argcsr'], fl / real[best], cu / t['spmv'], real[best] / t['spmv'], best))
PY
cd $OUT && tar czf s45e.tar.gz s45e && rm -rf s45e
