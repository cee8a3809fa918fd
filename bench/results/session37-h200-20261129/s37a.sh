#!/usr/bin/env bash
# session 37, call a (3c4b547): the re-wrapped composed numeric phase (Galerkin reuse on cuSPARSE parents):
# test_retype galerkin_chain for aijcusparse and the plugin types, 1 and 2 ranks; the MG/GAMG tutorial cases;
# the PC table and test_retype on spmv; memcheck of galerkin_chain and snes ex18
set -u
rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s37a; mkdir -p $O; B=$E/build/bin; LIB=$E/build/lib/libpetscspmv.so
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
S=$(date +%s)
timeout 60 $B/test_retype -type aijcusparse -ops galerkin_chain,products -show_errors > $O/gc-aijcusparse.log 2>&1; echo "aijcusparse n1 rc=$? $(tail -1 $O/gc-aijcusparse.log)" >> $O/summary.txt
for T in spmv brc ccoo; do for np in 1 2; do
  timeout 60 mpiexec -n $np $B/test_retype -type $T -ops galerkin_chain,products -show_errors > $O/gc-$T-n$np.log 2>&1; echo "$T n$np rc=$? $(grep -E '^(ok|FAIL)' $O/gc-$T-n$np.log | tr '\n' ' ')" >> $O/summary.txt
done; done; echo "galerkin_chain $(( $(date +%s) - S )) s" >> $O/summary.txt
MG='^(snes_ex18_tr|snes_ex20_cr|snes_ex20_adapt|ksp_ex66_n2|snes_ex48_mg|snes_ex48_gs_n2|snes_ex13_gmg|ksp_ex29_telescope|dmstag_ex4_mg|snes_ex62_q1p0|ksp_ex54_classical|ksp_ex49_gamg|ksp_ex55|snes_ex56|snes_ex13_gamg|ksp_ex54_hem|ksp_ex4_hmg_reuse)$'
S=$(date +%s)
BUILD=$E/build MPIEXEC=mpiexec JOBS=6 TMO=120 ONLY="$MG" timeout 220 bash tests/gpu/tutorial_sweep.sh gpu $O/tsw > $O/sweep.log 2>&1; echo "sweep rc=$? $(( $(date +%s) - S )) s" >> $O/summary.txt
cp $O/tsw/table.txt $O/table.txt; rm -f $O/tsw/tutorial-sweep.tar.gz
S=$(date +%s)
R="-reference aijcusparse -compare rounding"
OPS=axpy_different,axpy_different_mixed,axpy_subset,convert_inplace_aij,convert_inplace_dense,convert_shell_back,convert_other,shell_products,products,diagonal_products,submatrix,dm_transfers,galerkin_chain,settype_twice,settype_before_sizes,prealloc_twice,reset_preallocation,duplicate_copy,duplicate_nocopy,duplicate_share,filter_compress,eliminate_zeros,lu_inplace
for np in 1 2; do
  ops=$OPS; [ $np = 2 ] && ops=${OPS/shell_products,/}
  timeout 120 mpiexec -n $np $B/test_pcs -type spmv $R > $O/pcs-spmv-n$np.log 2>&1; echo "test_pcs spmv n$np rc=$? $(tail -1 $O/pcs-spmv-n$np.log)" >> $O/summary.txt
  timeout 100 mpiexec -n $np $B/test_retype -type spmv -ops $ops > $O/retype-spmv-n$np.log 2>&1; echo "test_retype spmv n$np rc=$? $(tail -1 $O/retype-spmv-n$np.log)" >> $O/summary.txt
done; echo "pcs+retype $(( $(date +%s) - S )) s" >> $O/summary.txt
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_retype -type spmv -ops galerkin_chain,products > $O/memcheck-retype.log 2>&1; echo "memcheck test_retype galerkin_chain spmv rc=$? $(grep 'ERROR SUMMARY' $O/memcheck-retype.log)" >> $O/summary.txt
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/snes_ex18 -dll_append $LIB -dm_mat_type spmv -dm_vec_type cuda -pc_type mg -ksp_type fgmres -da_refine 2 -pc_mg_galerkin pmat -snes_type newtontr -snes_tr_fallback_type dogleg -snes_converged_reason > $O/memcheck-ex18.log 2>&1; echo "memcheck snes_ex18 tr spmv rc=$? $(grep 'ERROR SUMMARY' $O/memcheck-ex18.log)" >> $O/summary.txt
cat $O/summary.txt; grep -v "^#" $O/table.txt | awk '{print $1, $3, $4, $5, $6, $7}' | column -t | head -70
cd $OUT && tar czf s37a.tar.gz s37a && rm -rf s37a/tsw; ls
