#!/usr/bin/env bash
# session 44, call f (fade0dd's code): the row order on heavy-tailed rows, which the rule leaves in CSR order (Mixing
# 1.03 on heavylocal s = 25, where call c's forced sort ran 0.91x CSR order's time): argcsr by the rule, sorted (forced; D by the
# sorted slots, and D = 16), against segsum, dcsr, spmv and aijcusparse on session 42's heavy-tailed families and on
# power-law and real matrices
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm PETSC_OPTIONS="${PETSC_OPTIONS:-} -mat_spmv_wait 0"
O=$OUT/s44f; mkdir -p $O; B=$E/build/bin; M=$E/matrices; H=/tmp/heavy; mkdir -p $H; T=bench/tools
{ nvidia-smi -L; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
python3 $T/heavylocal.py 40000 2 3 $H/h2.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 40000 3 1 $H/h3.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 40000 4 1 $H/h4.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 20000 25 1 $H/h1.mtx >> $O/summary.txt &
python3 $T/heavylocal.py 30000 8 5 $H/h5.mtx >> $O/summary.txt &
wait
MATS="$H/h2.mtx:32;$H/h3.mtx:24;$H/h4.mtx:20;$H/h5.mtx:16;$H/h1.mtx:10;$M/vsp_model1_crew1_cr42_south31.mtx:64;rmat:scale=21,ef=16;$M/cti.mtx:64"
timeout 300 $B/bench_spmv -matrices "$MATS" -types argcsr,argcsr/s,argcsr/s16,segsum,dcsr,spmv,aijcusparse,floor-gather16 -s_mat_argcsr_sort_rows 1 -s16_mat_argcsr_sort_rows 1 -s16_mat_argcsr_desired_chunk_size 16 -floor 0 -seed 7 -trials 3 -reps 40 -csv $O/heavy.csv > $O/heavy.log 2>&1; echo "heavy rc=$? $(date -u +%T)" >> $O/summary.txt
timeout 60 $B/test_gpu -type argcsr -mat_argcsr_sort_rows 1 -matrices "$H/h2.mtx;$H/h5.mtx;$H/h1.mtx:2" > $O/check.log 2>&1; echo "check rc=$? $(date -u +%T)" >> $O/summary.txt
cat $O/summary.txt; grep "spmv chose" $O/heavy.log
cd $OUT && tar czf s44f.tar.gz s44f && rm -rf s44f
