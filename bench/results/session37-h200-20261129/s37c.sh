#!/usr/bin/env bash
# session 37, call c (84df069): the Galerkin chain on aijcusparse itself with C1 untouched (.dev/gc); test_retype with
# aijcusparse's CPU backend option; the Galerkin tutorial cases; test_pcs/test_retype on spmv; spmv's margin in GMRES solves
# that select at once
set -u
rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s37c; mkdir -p $O; B=$E/build/bin; LIB=$E/build/lib/libpetscspmv.so
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
for T in aijcusparse spmv brc; do timeout 30 .dev/gc -type $T >> $O/gc.txt 2>&1; done
for o in "" "-matptap_backend_cpu"; do for T in aijcusparse spmv; do
  timeout 60 $B/test_retype -type $T -ops galerkin_chain,products -show_errors $o > $O/gc-$T$o.log 2>&1; echo "$T $o rc=$? $(grep -E '^(ok|FAIL)' $O/gc-$T$o.log | tr '\n' ' ')" >> $O/summary.txt
done; done
S=$(date +%s)
BUILD=$E/build MPIEXEC=mpiexec JOBS=8 TMO=120 ONLY='^(snes_ex18_tr|snes_ex20_cr|snes_ex20_adapt|dmstag_ex4_mg|snes_ex48_mg|ksp_ex66_n2|snes_ex13_gamg|ksp_ex4_hmg_reuse)$' timeout 150 bash tests/gpu/tutorial_sweep.sh gpu $O/tsw > $O/sweep.log 2>&1; echo "sweep rc=$? $(( $(date +%s) - S )) s" >> $O/summary.txt
cp $O/tsw/table.txt $O/table.txt; rm -f $O/tsw/tutorial-sweep.tar.gz
R="-reference aijcusparse -compare rounding"
OPS=axpy_different,axpy_different_mixed,axpy_subset,convert_inplace_aij,convert_inplace_dense,convert_shell_back,convert_other,shell_products,products,diagonal_products,submatrix,dm_transfers,galerkin_chain,settype_twice,settype_before_sizes,prealloc_twice,reset_preallocation,duplicate_copy,duplicate_nocopy,duplicate_share,filter_compress,eliminate_zeros,lu_inplace
timeout 120 $B/test_pcs -type spmv $R > $O/pcs-spmv-n1.log 2>&1; echo "test_pcs spmv n1 rc=$? $(grep -E '^test_pcs' $O/pcs-spmv-n1.log | tail -1)" >> $O/summary.txt
for np in 1 2; do ops=$OPS; [ $np = 2 ] && ops=${OPS/shell_products,/}
  timeout 100 mpiexec -n $np $B/test_retype -type spmv -ops $ops > $O/retype-spmv-n$np.log 2>&1; echo "test_retype spmv n$np rc=$? $(grep -E '^test_retype' $O/retype-spmv-n$np.log | tail -1)" >> $O/summary.txt
done
S=$(date +%s)
for M in "random:m=3000000,k=12,seed=13" "random:m=2500000,k=9,seed=2"; do for c in aijcusparse spmv "spmv -mat_spmv_margin 0.03"; do
  echo "== $M: $c" >> $O/solve-random.log
  timeout 60 $B/spmv_solve -f $M -mat_type $c -vec_type cuda -mat_spmv_wait 0 -ksp_type gmres -ksp_norm_type none -pc_type jacobi -ksp_max_it 300 -log_view -info :sys 2>&1 | grep "spmv (\|^KSPSolve \|^MatMult  \|iterations\|rror" | cut -c1-330 >> $O/solve-random.log
done; done; echo "random solves $(( $(date +%s) - S )) s" >> $O/summary.txt
cat $O/gc.txt $O/summary.txt $O/solve-random.log; grep -v "^#" $O/table.txt | awk '{print $1, $3, $4, $5, $6, $7}'
cd $OUT && tar czf s37c.tar.gz s37c && rm -rf s37c/tsw; ls
