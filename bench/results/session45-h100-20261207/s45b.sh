#!/usr/bin/env bash
# session 45, call b: argcsr with padding value slots never read (unconditional) and one thread a row by the rule
# (ARgCSROneThread). Checks: layouts equal to the host reference and products against AIJ with the default rule on the
# matrices it takes (bands of 49/65/81, rows of 24-48 .. 40-80) and on the rest, forced one thread a row sorted and in
# CSR order, memcheck, racecheck. Then the default against the old rule's family (D 16/24/32, sorted and CSR order,
# forced) on matrices of fresh seeds and families no earlier run used, and spmv against aijcusparse and the fastest type.
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s45b; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U; T=bench/tools
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 $T/uniformlocal.py 25000 24 48 11 $U/a36.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 32 64 12 $U/a48.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 16000 40 80 13 $U/a60.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 30000 20 40 14 $U/a30.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 20 60 1 $U/u29.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 30000 8 5 $U/h5.mtx >> $O/summary.txt &
wait
chk() { local name=$1; shift; if timeout 120 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
SMALL="random:m=5000,k=9,empty=0.2,seed=4;denserows:m=20000,k=6,len=5000,dense=5;stencil27:n=20;banded:m=3001,bw=24;random:m=4000,n=70000,k=70,seed=9;banded:m=1,bw=0;random:m=2000,k=3,empty=1,seed=7"
ONE="banded:m=5000,bw=40;banded:m=4001,bw=24;banded:m=3000,bw=32;$U/a36.mtx;$U/a48.mtx;$U/a60.mtx;$U/u29.mtx"
chk def   $B/test_gpu -type argcsr -matrices "$SMALL;$ONE;$M/bcsstk13.mtx:8;$M/EX5.mtx:4;$U/h5.mtx"
grep -h "one thread\|D = " $O/def.log | head -5 >> $O/summary.txt
chk one_s $B/test_gpu -type argcsr -mat_argcsr_sort_rows 1 -mat_argcsr_desired_chunk_size 96 -matrices "$SMALL;$ONE;$M/bcsstk13.mtx:8"
chk one_c $B/test_gpu -type argcsr -mat_argcsr_sort_rows 0 -mat_argcsr_desired_chunk_size 81 -matrices "$SMALL;$ONE;$M/EX5.mtx:4"
chk spmv  $B/test_gpu -type spmv -matrices "$ONE;$M/bcsstk13.mtx:8"
chk mem   compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $B/test_gpu -type argcsr -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;banded:m=1,bw=0;random:m=500,k=3,empty=1;banded:m=3000,bw=40;$U/a36.mtx;$M/bcsstk13.mtx"
chk memone compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu -type argcsr -mat_argcsr_sort_rows 1 -mat_argcsr_desired_chunk_size 96 -matrices "random:m=3000,k=9,empty=0.2;banded:m=3000,bw=24;$U/a48.mtx"
chk race  compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_gpu -type argcsr -matrices "banded:m=3000,bw=40;$U/a36.mtx;random:m=3000,k=9,empty=0.2"
OPTS=""
for D in 16 24 32; do OPTS="$OPTS -s${D}_mat_argcsr_sort_rows 1 -s${D}_mat_argcsr_desired_chunk_size $D -c${D}_mat_argcsr_sort_rows 0 -c${D}_mat_argcsr_desired_chunk_size $D"; done
TY=argcsr,argcsr/s16,argcsr/s24,argcsr/s32,argcsr/c16,argcsr/c24,argcsr/c32,brc,ccoo,dcsr,spmv,aijcusparse,floor-gather16
V1="$U/a36.mtx:32;$U/a48.mtx:40;$U/a60.mtx:40;$U/a30.mtx:40;banded:m=700000,bw=32;banded:m=800000,bw=28"
V2="banded:m=500000,bw=48;$M/EX5.mtx:64;$M/bcsstk13.mtx:256;stencil27:n=120;$U/h5.mtx:16;$U/u29.mtx:40"
timeout 200 $B/bench_spmv -matrices "$V1" -types $TY $OPTS -floor 0 -seed 11 -trials 3 -reps 40 -csv $O/b1.csv > $O/b1.log 2>&1; echo "b1 rc=$? $(date -u +%T)" >> $O/summary.txt
timeout 200 $B/bench_spmv -matrices "$V2" -types $TY $OPTS -floor 0 -seed 11 -trials 3 -reps 40 -csv $O/b2.csv > $O/b2.log 2>&1; echo "b2 rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt
python3 - $O/b1.csv $O/b2.csv <<'PY'
import csv, sys, collections
by = collections.defaultdict(dict)
for f in sys.argv[1:]:
    try:
        for r in csv.DictReader(open(f)): by[r['matrix']][r['type']] = (float(r['median_s']) * 1e6, r.get('chosen', ''))
    except Exception as e: print(f, e)
for m, d in by.items():
    t = {k: v[0] for k, v in d.items()}; fl = t.get('floor-gather16', 0); cu = t.get('aijcusparse', 0)
    old = min(t[k] for k in t if k.startswith('argcsr/'))
    types = {k: v for k, v in t.items() if k in ('argcsr', 'brc', 'ccoo', 'dcsr') or k.startswith('argcsr/')}
    best = min(types, key=types.get)
    print('%-24s argcsr %.1f best-old-family %.1f (%.3f) floor16/argcsr %.3f | spmv %s %.3fx cu, %.3f of fastest (%s)' % (m.split('/')[-1][:24], t['argcsr'], old, old / t['argcsr'], fl / t['argcsr'], d['spmv'][1], cu / t['spmv'], types[best] / t['spmv'], best))
PY
cd $OUT && tar czf s45b.tar.gz s45b && rm -rf s45b
