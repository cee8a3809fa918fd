#!/usr/bin/env bash
# session 44, call b (library at the sortrows branch: argcsr's rows sorted by length inside each window, ROW ORDER in
# argcsr.h; spmv::SortByLength shared with BRC). Correctness first (test_gpu: device layout = host reference bitwise,
# products against the host reference and AIJ, refresh; sorted by the rule and forced; BRC through the shared sort;
# memcheck, racecheck), then argcsr sorted against CSR order beside floor-gather16 and aijcusparse on rows of varied and of
# equal length (part 1); the block size on long rows, the product kernels in ncu, make bench (part 2).
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
PART=${1:-1}; O=$OUT/s44b$PART; mkdir -p $O; B=$E/build/bin; M=$E/matrices; U=/tmp/uni; mkdir -p $U; T=bench/tools
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 $T/uniformlocal.py 20000 28 52 1 $U/u17.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 20 60 1 $U/u29.mtx >> $O/summary.txt &
python3 $T/uniformlocal.py 20000 10 70 1 $U/u43.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 20000 25 1 $U/h1.mtx >> $O/summary.txt 2>&1 &
SMALL="stencil7:n=30,const=1;rmat:scale=14,ef=16,const=1;random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=7000,n=900,k=5,empty=0.3,seed=6;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;denserows:m=3000,k=4,len=2999,dense=1;stencil27:n=20;rmat:scale=14,ef=16;banded:m=3001,bw=24;banded:m=999,bw=60;random:m=3000,n=300000,k=40,seed=8;random:m=4000,n=70000,k=70,seed=9;banded:m=5001,bw=40;banded:m=4000,bw=50"
REAL="$M/cage11.mtx:4;$M/EX5.mtx:4;$M/nasa4704.mtx:8;$M/bcsstk13.mtx:8;$M/delaunay_n16.mtx:2;$M/rgg_n_2_15_s0.mtx:2;$M/nh2010.mtx:2;$M/cti.mtx:4;$M/vsp_model1_crew1_cr42_south31.mtx:2;$M/cage10.mtx"
BIG="stencil27:n=120;$M/EX5.mtx:64;$M/bcsstk13.mtx:256;banded:m=600000,bw=40"
chk() { local name=$1; shift; if timeout 150 "$@" > $O/$name.log 2>&1; then echo "ok   $name" >> $O/summary.txt; else echo "FAIL $name (rc $?)" >> $O/summary.txt; tail -8 $O/$name.log >> $O/summary.txt; fi; }
wait
if [ $PART = 1 ]; then
chk def_small $B/test_gpu -type argcsr -info :mat -matrices "$SMALL;$U/u17.mtx;$U/u29.mtx;$U/u43.mtx;$U/h1.mtx"
chk def_real  $B/test_gpu -type argcsr -info :mat -matrices "$REAL"
chk def_big   $B/test_gpu -type argcsr -info :mat -matrices "$BIG"
chk sort16    $B/test_gpu -type argcsr -mat_argcsr_sort_rows 1 -mat_argcsr_desired_chunk_size 16 -mat_argcsr_index16 1 -info :mat -matrices "$SMALL;$REAL"
chk sortd3    $B/test_gpu -type argcsr -mat_argcsr_sort_rows 1 -mat_argcsr_desired_chunk_size 3 -mat_argcsr_block_size 32 -matrices "$SMALL;$REAL"
chk sortd20b64 $B/test_gpu -type argcsr -mat_argcsr_sort_rows 1 -mat_argcsr_desired_chunk_size 20 -mat_argcsr_block_size 64 -mat_argcsr_paper_grouping -matrices "$SMALL"
chk sortdef   $B/test_gpu -type argcsr -mat_argcsr_sort_rows 1 -matrices "$SMALL;$U/u29.mtx;$BIG"
chk nosort    $B/test_gpu -type argcsr -mat_argcsr_sort_rows 0 -matrices "$U/u29.mtx;$M/bcsstk13.mtx:8"
chk brc       $B/test_gpu -type brc -matrices "$SMALL;$REAL"
chk matops $B/test_matops -type argcsr -mat_argcsr_sort_rows 1
chk ksp_st $B/test_ksp -type argcsr -mat_argcsr_sort_rows 1 -matrix "stencil27:n=30"
chk spmv_cands $B/test_gpu -type spmv -mat_spmv_candidates csr,brc,ccoo,argcsr,segsum,suraa,dcsr -matrices "$SMALL;$U/u29.mtx"
MC="random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;banded:m=1,bw=0;stencil27:n=12;banded:m=3001,bw=24;random:m=3000,n=300000,k=40,seed=8;$M/EX5.mtx;$M/bcsstk13.mtx;banded:m=4000,bw=50"
chk memcheck compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $B/test_gpu -type argcsr -matrices "$MC;$U/u29.mtx"
chk memchecks compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu -type argcsr -mat_argcsr_sort_rows 1 -mat_argcsr_desired_chunk_size 3 -mat_argcsr_block_size 32 -matrices "$MC"
chk memcheckb compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu -type brc -matrices "$MC"
chk racecheck compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_gpu -type argcsr -mat_argcsr_sort_rows 1 -matrices "banded:m=3001,bw=24;stencil27:n=12;denserows:m=5000,k=6,len=3000,dense=3;$M/bcsstk13.mtx"
grep -h "ARgCSR: 16-bit\|ARgCSR: a group spans\|ARgCSR: with the rows" $O/def_*.log $O/sort16.log | sed 's/^\[0\] *//' | sort | uniq -c | head -30 >> $O/summary.txt
echo "checks done $(date -u +%T)" >> $O/summary.txt
VAR="$M/bcsstk13.mtx:256;$U/u17.mtx:40;$U/u29.mtx:40;$U/u43.mtx:40;$M/EX5.mtx:64;$M/nasa4704.mtx:400;$M/cage11.mtx:64;stencil27:n=120;stencil27:n=100;banded:m=1000000,bw=24;banded:m=600000,bw=40;banded:m=400000,bw=60;stencil7:n=150;$U/h1.mtx:32"
timeout 240 $B/bench_spmv -matrices "$VAR" -types argcsr,argcsr/csr,spmv,brc,ccoo,dcsr,aijcusparse,floor-gather16 -csr_mat_argcsr_sort_rows 0 -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/sort.csv -info :mat > $O/sort.log 2>&1; echo "sort rc=$? $(date -u +%T)" >> $O/summary.txt
grep "ARgCSR: 16-bit\|ARgCSR: a group\|ARgCSR: with\|spmv chose" $O/sort.log | sed 's/^\[0\] *//' > $O/sort-choices.txt
fi
if [ $PART = 2 ]; then
LONG="$M/bcsstk13.mtx:256;stencil27:n=120;banded:m=1000000,bw=24;banded:m=600000,bw=40;banded:m=400000,bw=60"
timeout 120 $B/bench_spmv -matrices "$LONG" -types argcsr,argcsr/b64,argcsr/b256,argcsr/b512,floor-gather16 -b64_mat_argcsr_block_size 64 -b256_mat_argcsr_block_size 256 -b512_mat_argcsr_block_size 512 -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/bs.csv > $O/bs.log 2>&1; echo "bs rc=$? $(date -u +%T)" >> $O/summary.txt
for mat in "banded:m=600000,bw=40" "$M/bcsstk13.mtx:256"; do
  for t in argcsr argcsr/csr floor-gather16; do
    n=$(echo "$mat" | tr -c 'a-z0-9\n' _ | tail -c 16)${t//\//_}
    timeout 60 ncu --kernel-name regex:"SpMV16|Floor16" --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats \
      $B/bench_spmv -matrices "$mat" -types $t -csr_mat_argcsr_sort_rows 0 -floor 0 -trials 1 -reps 8 > $O/ncu-$n.txt 2>&1; echo "ncu $n rc=$? $(date -u +%T)" >> $O/summary.txt
  done
done
OUT=$O BUILD=$E/build MATRICES=$M COMMIT=$(cat .dev/commit) timeout 200 bash bench/run_gpu_bench.sh -trials 3 -reps 40 > $O/makebench.log 2>&1; echo "make bench rc=$? $(date -u +%T)" >> $O/summary.txt
fi
cat $O/summary.txt; cat $O/sort-choices.txt 2>/dev/null | sort | uniq -c | head -40; grep "spmv chose" $O/makebench.log
cd $OUT && tar czf s44b$PART.tar.gz s44b$PART && rm -rf s44b$PART
