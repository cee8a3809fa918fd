#!/usr/bin/env bash
# session 36, call d: why snes ex18 (Galerkin PCMG, trust region) and ex20 (adapted interpolation) fail with plugin types on the GPU
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s36d; mkdir -p $O; B=$E/build/bin; LIB=$E/build/lib/libpetscspmv.so
timeout 60 $B/snes_ex18 -dll_append $LIB -pc_type mg -ksp_type fgmres -da_refine 2 -pc_mg_galerkin pmat -snes_type newtontr -snes_tr_fallback_type dogleg -dm_mat_type spmv -dm_vec_type cuda -ksp_converged_reason -info :mat,dm,sys > $O/ex18-info.log 2>&1
timeout 60 $B/snes_ex18 -dll_append $LIB -pc_type mg -ksp_type fgmres -da_refine 2 -pc_mg_galerkin pmat -dm_mat_type spmv -dm_vec_type cuda -ksp_converged_reason > $O/ex18-ls.log 2>&1; echo "ex18 newtonls rc=$?" >> $O/summary.txt
timeout 60 $B/snes_ex18 -dll_append $LIB -pc_type mg -ksp_type fgmres -da_refine 2 -pc_mg_galerkin pmat -snes_type newtontr -dm_mat_type aijcusparse -dm_vec_type cuda -ksp_converged_reason -info :mat,dm > $O/ex18-cusparse-info.log 2>&1
timeout 60 $B/snes_ex20 -dll_append $LIB -dm_mat_type spmv -dm_vec_type cuda -dm_plex_simplex 0 -petscpartitioner_type simple -potential_petscspace_degree 1 -dm_plex_box_faces 2,2 -dm_refine_hierarchy 3 -ksp_rtol 5e-10 -pc_type mg -pc_mg_galerkin -pc_mg_adapt_interp_coarse_space harmonic -pc_mg_adapt_interp_n 8 -mg_levels_ksp_max_it 5 -mg_levels_pc_type jacobi -info :mat,dm,sys > $O/ex20-info.log 2>&1
for f in $O/*info.log; do grep -v "MatConvert(): Check\|PetscGetFileStat\|MatSeqAIJCheckInode\|MatCheckCompressedRow\|MatAssemblyEnd_Seq\|MatSetOption_\|CUDA\|PetscDevice" $f | cut -c1-260 > $f.f; mv $f.f $f; done
wc -l $O/*.log; cat $O/summary.txt
cd $OUT && tar czf s36d.tar.gz s36d
