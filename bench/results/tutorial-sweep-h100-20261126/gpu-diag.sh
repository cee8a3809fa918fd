#!/bin/bash
# second GPU call: where ksp_ex55 with ccoo on 2 ranks hangs; snes_ex28 aijcusparse vs brc true residuals
B=$BUILD/bin; L=$BUILD/lib/libpetscspmv.so; D=/tmp/diag; mkdir -p $D; cd $D
A55="-ne 29 -alpha 1.e-3 -ksp_type cg -pc_type gamg -pc_gamg_type agg -pc_gamg_agg_nsmooths 1 -use_coordinates -pc_gamg_esteig_ksp_max_it 5 -ksp_rtol 1.e-3 -mg_levels_ksp_chebyshev_esteig 0,0.05,0,1.2 -pc_gamg_aggressive_coarsening 0 -ksp_converged_reason -vec_type cuda -dm_vec_type cuda"
r() { local n=$1; shift; ( timeout 25 "$@" > $D/$n.log 2>&1; echo "rc=$?" >> $D/$n.log ) & }
r ex55_ccoo_1 mpiexec -n 2 $B/ksp_ex55 -dll_append $L $A55 -mat_type ccoo -log_trace $D/tr1
r ex55_ccoo_2 mpiexec -n 2 $B/ksp_ex55 -dll_append $L $A55 -mat_type ccoo -info :mat -log_trace $D/tr2
r ex55_ccoo_blk env CUDA_LAUNCH_BLOCKING=1 mpiexec -n 2 $B/ksp_ex55 -dll_append $L $A55 -mat_type ccoo -log_trace $D/tr3
r ex55_ccoo_np1 mpiexec -n 1 $B/ksp_ex55 -dll_append $L $A55 -mat_type ccoo
r ex55_ccoo_aijhost mpiexec -n 2 $B/ksp_ex55 -dll_append $L ${A55/-vec_type cuda -dm_vec_type cuda/} -mat_type ccoo -log_trace $D/tr4
r ex55_cusparse mpiexec -n 2 $B/ksp_ex55 -dll_append $L $A55 -mat_type aijcusparse
A28="-u_da_grid_x 20 -problem_type 0 -ksp_converged_reason -snes_converged_reason -snes_monitor -ksp_monitor_true_residual -snes_max_it 3 -vec_type cuda -dm_vec_type cuda -log_view"
r ex28_cusparse mpiexec -n 2 $B/snes_ex28 -dll_append $L $A28 -mat_type aijcusparse -dm_mat_type aijcusparse
r ex28_brc mpiexec -n 2 $B/snes_ex28 -dll_append $L $A28 -mat_type brc -dm_mat_type brc
r ex28_cusparse_np1 mpiexec -n 1 $B/snes_ex28 -dll_append $L $A28 -mat_type aijcusparse -dm_mat_type aijcusparse
wait
for f in $D/tr*; do echo "== $f: $(wc -l < $f) lines"; tail -4 $f; done
for f in $D/ex55*.log; do echo "== $f"; grep -v "^\[" $f | tail -3; done
tar -C $D -czf $OUT/diag.tar.gz .
