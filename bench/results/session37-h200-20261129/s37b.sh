#!/usr/bin/env bash
# session 37, call b (HEAD: composites without lent names + re-wrapped numeric): which product of the Galerkin chain
# goes wrong on aijcusparse itself (.dev/gc); galerkin_chain; the MG/GAMG tutorial cases; the PC table and test_retype on
# spmv and brc, 1 and 2 ranks; memcheck
set -u
rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s37b; mkdir -p $O; B=$E/build/bin; LIB=$E/build/lib/libpetscspmv.so
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
for T in aijcusparse spmv brc; do timeout 30 .dev/gc -type $T >> $O/gc.txt 2>&1; timeout 30 .dev/gc -type $T -matptap_backend_cpu -matmatmult_backend_cpu -mattransposematmult_backend_cpu | sed "s/^$T /$T+cpu /" >> $O/gc.txt 2>&1; done
S=$(date +%s)
for T in spmv brc ccoo; do for np in 1 2; do
  timeout 60 mpiexec -n $np $B/test_retype -type $T -ops galerkin_chain,products -show_errors > $O/gc-$T-n$np.log 2>&1; echo "$T n$np rc=$? $(grep -E '^(ok|FAIL)' $O/gc-$T-n$np.log | tr '\n' ' ')" >> $O/summary.txt
done; done
timeout 60 $B/test_retype -type spmv -ops galerkin_chain,products -matptap_backend_cpu > $O/gc-spmv-cpu.log 2>&1; echo "spmv -matptap_backend_cpu rc=$? $(grep -E '^(ok|FAIL)' $O/gc-spmv-cpu.log | tr '\n' ' ')" >> $O/summary.txt
echo "galerkin_chain $(( $(date +%s) - S )) s" >> $O/summary.txt
MG='^(ksp_ex15_tsirm|ksp_ex25|ksp_ex25_n2|ksp_ex29|ksp_ex29_neumann|ksp_ex32|ksp_ex49_gamg|ksp_ex55|snes_ex16|snes_ex46|snes_ex56|snes_ex13_gmg|snes_ex13_gamg|snes_ex17_ge_gmg|snes_ex62_q1p0|ksp_ex54_classical|ksp_ex54_hem|ksp_ex65|ksp_ex28|snes_ex5_gsmf|snes_ex5_fas|snes_ex58|snes_ex58_ssls|snes_ex25|dmstag_ex3|dmstag_ex4_fs|dmstag_ex4_mg|ksp_ex4_hmg|ksp_ex4_hmg_sub|ksp_ex4_hmg_comp|ksp_ex4_hmg_reuse|ksp_ex4_hmg_iface|ksp_ex66_n2|snes_ex18_tr|snes_ex20_cr|snes_ex20_adapt|snes_ex48_mg|snes_ex48_gs_n2|ts_ex50)$'
S=$(date +%s)
BUILD=$E/build MPIEXEC=mpiexec JOBS=8 TMO=120 ONLY="$MG" timeout 240 bash tests/gpu/tutorial_sweep.sh gpu $O/tsw > $O/sweep.log 2>&1; echo "sweep rc=$? $(( $(date +%s) - S )) s" >> $O/summary.txt
cp $O/tsw/table.txt $O/table.txt; rm -f $O/tsw/tutorial-sweep.tar.gz
S=$(date +%s)
R="-reference aijcusparse -compare rounding"
OPS=axpy_different,axpy_different_mixed,axpy_subset,convert_inplace_aij,convert_inplace_dense,convert_shell_back,convert_other,shell_products,products,diagonal_products,submatrix,dm_transfers,galerkin_chain,settype_twice,settype_before_sizes,prealloc_twice,reset_preallocation,duplicate_copy,duplicate_nocopy,duplicate_share,filter_compress,eliminate_zeros,lu_inplace
for T in spmv brc; do for np in 1 2; do
  ops=$OPS; [ $np = 2 ] && ops=${OPS/shell_products,/}
  timeout 120 mpiexec -n $np $B/test_pcs -type $T $R > $O/pcs-$T-n$np.log 2>&1; echo "test_pcs $T n$np rc=$? $(grep -E '^test_pcs' $O/pcs-$T-n$np.log | tail -1)" >> $O/summary.txt
  timeout 100 mpiexec -n $np $B/test_retype -type $T -ops $ops > $O/retype-$T-n$np.log 2>&1; echo "test_retype $T n$np rc=$? $(grep -E '^test_retype' $O/retype-$T-n$np.log | tail -1)" >> $O/summary.txt
done; done; echo "pcs+retype $(( $(date +%s) - S )) s" >> $O/summary.txt
timeout 120 $B/test_pcs -type spmv $R -mat_spmv_lend_type_name > $O/pcs-lend.log 2>&1; echo "test_pcs spmv lend rc=$? $(grep -E '^test_pcs' $O/pcs-lend.log | tail -1)" >> $O/summary.txt
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_retype -type brc -ops $OPS > $O/memcheck-retype.log 2>&1; echo "memcheck test_retype brc rc=$? $(grep 'ERROR SUMMARY' $O/memcheck-retype.log)" >> $O/summary.txt
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/snes_ex20 -dll_append $LIB -dm_mat_type spmv -dm_vec_type cuda -dm_plex_simplex 0 -petscpartitioner_type simple -potential_petscspace_degree 1 -dm_plex_box_faces 2,2 -dm_refine_hierarchy 3 -ksp_rtol 5e-10 -pc_type mg -pc_mg_galerkin -pc_mg_adapt_interp_coarse_space harmonic -pc_mg_adapt_interp_n 8 -mg_levels_ksp_max_it 5 -mg_levels_pc_type jacobi -snes_converged_reason > $O/memcheck-ex20.log 2>&1; echo "memcheck snes_ex20 adapt spmv rc=$? $(grep 'ERROR SUMMARY' $O/memcheck-ex20.log)" >> $O/summary.txt
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_pcs -type spmv $R -bs 1,3 -pcs jacobi,gamg,mg_galerkin,poly_gmres > $O/memcheck-pcs.log 2>&1; echo "memcheck test_pcs spmv rc=$? $(grep 'ERROR SUMMARY' $O/memcheck-pcs.log)" >> $O/summary.txt
cat $O/gc.txt $O/summary.txt; grep -v "^#" $O/table.txt | awk '{print $1, $3, $4, $5, $6, $7}' | grep -v " cpu \| same " | head -70
cd $OUT && tar czf s37b.tar.gz s37b && rm -rf s37b/tsw; ls
