#!/usr/bin/env bash
# session 44, call g (review refactor: ARgCSRFallBack, one fallback step shared by the host reference and the device
# build): test_gpu argcsr where the rule's sorted groups span too many columns (back to CSR order: rows of 10-60, 40
# columns a row apart) and where CSR order does too (then D = 8: rows of 10-60 with columns anywhere in 200000), on the
# default set, memcheck over both fallbacks, and the products of call d's matrices
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s44g; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U; T=bench/tools
{ nvidia-smi -L; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 - $U <<'PY'
import random, sys
d = sys.argv[1]
def write(path, m, n, cols):
    rows = [sorted(cols(r)) for r in range(m)]
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate pattern general\n%d %d %d\n" % (m, n, sum(map(len, rows))))
        for r, c in enumerate(rows): f.write("".join("%d %d\n" % (r + 1, j + 1) for j in c))
rng = random.Random(5)
write(d + "/band40.mtx", 6000, 40 * 6000 + 100, lambda r: [40 * r + c for c in rng.sample(range(100), rng.randint(10, 60))])
write(d + "/wide.mtx", 6000, 200000, lambda r: rng.sample(range(200000), rng.randint(10, 60)))
PY
python3 $T/uniformlocal.py 20000 20 60 1 $U/u29.mtx > /dev/null
chk() { local name=$1; shift; if timeout 150 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
SMALL="random:m=5000,k=9,empty=0.2,seed=4;denserows:m=20000,k=6,len=5000,dense=5;stencil27:n=20;banded:m=3001,bw=24;random:m=3000,n=300000,k=40,seed=8;random:m=4000,n=70000,k=70,seed=9"
chk fallback $B/test_gpu -type argcsr -info -matrices "$U/band40.mtx;$U/wide.mtx;$U/band40.mtx:3;$U/wide.mtx:2"
grep -h "ARgCSR:" $O/fallback.log | sed 's/^\[0\] *<[a-z:]*> *//' | sort | uniq -c >> $O/summary.txt
chk forced  $B/test_gpu -type argcsr -mat_argcsr_sort_rows 1 -matrices "$U/band40.mtx;$U/wide.mtx;$SMALL"
chk default $B/test_gpu -type argcsr -matrices "$SMALL;$U/u29.mtx;$M/bcsstk13.mtx:8;$M/EX5.mtx:4;$M/cage11.mtx:2"
chk memcheck compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $B/test_gpu -type argcsr -matrices "$U/band40.mtx;$U/wide.mtx;$M/bcsstk13.mtx"
VAR="$M/bcsstk13.mtx:256;$U/u29.mtx:40;$M/EX5.mtx:64;banded:m=600000,bw=40"
timeout 120 $B/bench_spmv -matrices "$VAR" -types argcsr,argcsr/csr,floor-gather16,aijcusparse -csr_mat_argcsr_sort_rows 0 -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/refactor.csv > $O/refactor.log 2>&1; echo "bench rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt
cd $OUT && tar czf s44g.tar.gz s44g && rm -rf s44g
