#!/usr/bin/env bash
# session 36, call c (4e2db19: margin 0.02, 16 new tutorial cases): spmv's margin in solves (GMRES on two random matrices
# where csr and the formats are within 2-4%; snes ex48, the L2-resident Jacobian of #25) with 0.02 (default) and 0.03;
# the 16 new tutorial cases in the GPU sweep; memcheck of three of them with spmv
set -u
rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s36c; mkdir -p $O; B=$E/build/bin; LIB=$E/build/lib/libpetscspmv.so
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
S=$(date +%s)
for r in 1 2; do for M in "random:m=3000000,k=12,seed=13" "random:m=2500000,k=9,seed=2"; do for c in aijcusparse spmv "spmv -mat_spmv_margin 0.03"; do
  echo "== round $r $M: $c" >> $O/solve-random.log
  timeout 60 taskset -c 2 $B/spmv_solve -f $M -mat_type $c -vec_type cuda -ksp_type gmres -pc_type jacobi -ksp_max_it 300 -ksp_rtol 1e-30 -log_view -info :sys 2>&1 | grep "spmv (\|^KSPSolve \|^MatMult  \|^VecMDot \|iterations\|rror" | cut -c1-330 >> $O/solve-random.log
done; done; done; echo "random solves $(( $(date +%s) - S )) s" >> $O/summary.txt
S=$(date +%s)
for r in 1 2; do for c in aijcusparse spmv "spmv -mat_spmv_margin 0.03"; do
  echo "== round $r: $c" >> $O/ex48.log
  timeout 60 taskset -c 2 $B/snes_ex48 -dll_append $LIB -M 64 -N 64 -P 8 -ksp_type gmres -pc_type jacobi -snes_converged_reason -dm_mat_type $c -dm_vec_type cuda -log_view -info :sys 2>&1 | grep "spmv (\|^KSPSolve \|^SNESSolve \|^MatMult  \|Time (sec)\|CONVERGED\|rror" | cut -c1-330 >> $O/ex48.log
done; done; echo "ex48 $(( $(date +%s) - S )) s" >> $O/summary.txt
NEW='^(ksp_ex53|ksp_ex64_n2|ksp_ex66_n2|snes_ex4_nasm|snes_ex18_tr|snes_ex20_cr|snes_ex20_adapt|snes_ex34_quad|snes_ex48_mg|snes_ex48_gs_n2|snes_ex77_hex|ts_ex8|ts_ex8_lag|ts_ex29_n2|ts_ex36|ts_ex50)$'
S=$(date +%s)
BUILD=$E/build MPIEXEC=mpiexec JOBS=6 TMO=120 ONLY="$NEW" timeout 300 bash tests/gpu/tutorial_sweep.sh gpu $O/tsw > $O/sweep.log 2>&1; echo "sweep rc=$? $(( $(date +%s) - S )) s" >> $O/summary.txt
cp $O/tsw/table.txt $O/table.txt 2>/dev/null; rm -f $O/tsw/tutorial-sweep.tar.gz
timeout 100 mpiexec -n 2 compute-sanitizer --tool memcheck --error-exitcode 9 $B/ksp_ex64 -dll_append $LIB -mat_type spmv -vec_type cuda -use_gpu_aware_mpi 0 -pc_gasm_overlap 1 -sub_pc_type lu -pc_gasm_total_subdomains 2 -print_error -ksp_converged_reason > $O/memcheck-ex64.log 2>&1; echo "memcheck ksp_ex64 gasm spmv n2 rc=$? $(grep -c 'ERROR SUMMARY: 0 errors' $O/memcheck-ex64.log) clean ranks" >> $O/summary.txt
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/snes_ex20 -dll_append $LIB -dm_mat_type spmv -dm_vec_type cuda -dm_plex_simplex 0 -petscpartitioner_type simple -potential_petscspace_degree 1 -dm_plex_box_faces 2,2 -dm_refine_hierarchy 3 -ksp_rtol 5e-10 -pc_type mg -pc_mg_galerkin -pc_mg_adapt_interp_coarse_space harmonic -pc_mg_adapt_interp_n 8 -mg_levels_ksp_max_it 5 -mg_levels_pc_type jacobi -snes_converged_reason > $O/memcheck-ex20.log 2>&1; echo "memcheck snes_ex20 adapt spmv rc=$? $(grep 'ERROR SUMMARY' $O/memcheck-ex20.log)" >> $O/summary.txt
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/snes_ex48 -dll_append $LIB -dm_mat_type spmv -dm_vec_type cuda -M 6 -P 4 -da_refine 1 -ksp_type fgmres -pc_type mg -pc_mg_type full -mg_levels_ksp_type gmres -mg_levels_ksp_max_it 1 -mg_levels_pc_type icc -snes_converged_reason > $O/memcheck-ex48.log 2>&1; echo "memcheck snes_ex48 mg spmv rc=$? $(grep 'ERROR SUMMARY' $O/memcheck-ex48.log)" >> $O/summary.txt
cat $O/summary.txt; cat $O/table.txt | head -80
cd $OUT && tar czf s36c.tar.gz s36c && rm -rf s36c/tsw; ls
