#!/usr/bin/env bash
# session 35, call e (#25): the 13 new tutorial cases (ksp ex4 HMG x5, ex12, ex16, ex51, ex60, ex73 on 4 ranks, ts ex5,
# ex6, snes ex71) in the GPU sweep: spmv, brc, ccoo against aijcusparse; memcheck of two of them with spmv
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s35e; mkdir -p $O; B=$E/build/bin; LIB=$E/build/lib/libpetscspmv.so
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
NEW='^(ksp_ex4_hmg|ksp_ex4_hmg_sub|ksp_ex4_hmg_comp|ksp_ex4_hmg_reuse|ksp_ex4_hmg_iface|ksp_ex12|ksp_ex16_n2|ksp_ex51_n2|ksp_ex60_n2|ksp_ex73_n4|ts_ex5|ts_ex6|snes_ex71_q1p0)$'
BUILD=$E/build MPIEXEC=mpiexec JOBS=4 TMO=120 ONLY="$NEW" timeout 400 bash tests/gpu/tutorial_sweep.sh gpu $O/tsw > $O/sweep.log 2>&1; echo "sweep rc=$?" >> $O/summary.txt
cp $O/tsw/table.txt $O/table.txt 2>/dev/null
timeout 120 mpiexec -n 2 compute-sanitizer --tool memcheck --error-exitcode 9 $B/ksp_ex4 -dll_append $LIB -mat_type spmv -vec_type cuda -use_gpu_aware_mpi 0 -pc_type hmg -ksp_rtol 1e-6 -hmg_inner_pc_type gamg -bs 4 -pc_hmg_use_subspace_coarsening 1 -mg_levels_1_pc_type asm -ksp_converged_reason > $O/memcheck-ex4.log 2>&1; echo "memcheck ksp_ex4 hmg_sub spmv n2 rc=$? $(grep -c 'ERROR SUMMARY: 0 errors' $O/memcheck-ex4.log) clean ranks" >> $O/summary.txt
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/snes_ex71 -dll_append $LIB -dm_mat_type spmv -dm_vec_type cuda -dm_plex_simplex 0 -dm_plex_separate_marker -dm_refine 1 -vel_petscspace_degree 1 -pres_petscspace_degree 0 -snes_convergence_estimate -convest_num_refine 2 -snes_error_if_not_converged -ksp_type fgmres -ksp_gmres_restart 10 -ksp_rtol 1.0e-9 -ksp_error_if_not_converged -pc_type fieldsplit -pc_fieldsplit_type schur -pc_fieldsplit_schur_factorization_type full -fieldsplit_velocity_pc_type lu -fieldsplit_pressure_ksp_rtol 1e-10 -fieldsplit_pressure_pc_type jacobi > $O/memcheck-ex71.log 2>&1; echo "memcheck snes_ex71 spmv rc=$? $(grep 'ERROR SUMMARY' $O/memcheck-ex71.log)" >> $O/summary.txt
cat $O/summary.txt; cat $O/table.txt
cd $OUT && tar czf s35e.tar.gz s35e && rm -rf s35e
