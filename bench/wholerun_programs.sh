# The whole-run programs: P[name]="binary|ranks|kind|matrix-type option|vector option|options", from the sizes and
# options that the sourcing script set (bench/run_wholerun_bench.sh, bench/run_host_instructions.sh): EX2_N, EX45_N,
# EX5_N, EX56_NE, BKS_N, EX19_N, EX19_ILU_N, EX50_N, EX34_N, EX12_N, EX48, EX13_N, EX45MG_N, EX45_MAXIT, MATVEC, DMVEC and
# the per-program *_OPTS. The programs are described in run_wholerun_bench.sh.
declare -A P=(
  [ksp_ex2]="ex2|1|ksp|-mat_type|$MATVEC|-m $EX2_N -n $EX2_N -ksp_type cg -pc_type jacobi -ksp_converged_reason ${EX2_OPTS:-}"
  [ksp_ex45]="ex45|1|ksp|-dm_mat_type|$DMVEC|-da_grid_x $EX45_N -da_grid_y $EX45_N -da_grid_z $EX45_N -ksp_type gmres -pc_type jacobi -ksp_max_it $EX45_MAXIT -ksp_converged_reason ${EX45_OPTS:-}"
  [snes_ex5]="ex5|1|snes|-dm_mat_type|$DMVEC|-da_grid_x $EX5_N -da_grid_y $EX5_N -snes_type newtonls -ksp_type bcgs -pc_type jacobi -snes_converged_reason -ksp_converged_reason ${EX5_OPTS:-}"
  [ksp_ex56]="ex56|1|ksp|-mat_type||-ne $EX56_NE -ksp_type cg -pc_type gamg -ksp_converged_reason ${EX56_OPTS:-}"
  [ksp_ex56_np2]="ex56|2|ksp|-mat_type||-ne $EX56_NE -ksp_type cg -pc_type gamg -ksp_converged_reason ${EX56_OPTS:-}"
  [ksp_bench_kspsolve]="bench_kspsolve|1|ksp|-mat_type||-n $BKS_N -ksp_type cg -pc_type jacobi -split_ksp -ksp_converged_reason ${BKS_OPTS:-}"
  [snes_ex19]="ex19|1|snes|-dm_mat_type|$DMVEC|-da_grid_x $EX19_N -da_grid_y $EX19_N -snes_monitor -ksp_converged_reason -snes_converged_reason -pc_type jacobi ${EX19_OPTS:-}"
  [snes_ex19_ilu]="ex19|1|snes|-dm_mat_type|$DMVEC|-da_grid_x $EX19_ILU_N -da_grid_y $EX19_ILU_N -snes_monitor -ksp_converged_reason -snes_converged_reason ${EX19_ILU_OPTS:-}"
  [ksp_ex50]="ksp_ex50|1|ksp|-dm_mat_type|$DMVEC|-da_grid_x $EX50_N -da_grid_y $EX50_N -ksp_type cg -pc_type gamg -ksp_converged_reason ${EX50_OPTS:-}"
  [ksp_ex34]="ksp_ex34|1|ksp|-dm_mat_type|$DMVEC|-da_grid_x $EX34_N -da_grid_y $EX34_N -da_grid_z $EX34_N -ksp_type cg -pc_type jacobi -ksp_converged_reason ${EX34_OPTS:-}"
  [snes_ex12]="snes_ex12|1|snes|-dm_mat_type|$DMVEC|-dm_plex_box_faces $EX12_N,$EX12_N -dm_plex_simplex 0 -petscspace_degree 1 -bc_type dirichlet -ksp_type cg -pc_type gamg -snes_converged_reason -ksp_converged_reason ${EX12_OPTS:-}"
  [snes_ex48]="snes_ex48|1|snes|-dm_mat_type|$DMVEC|$EX48 -ksp_type gmres -pc_type jacobi -snes_converged_reason -ksp_converged_reason ${EX48_OPTS:-}"
  [ksp_ex45_mg]="ex45|1|ksp|-dm_mat_type|$DMVEC|-da_grid_x $EX45MG_N -da_grid_y $EX45MG_N -da_grid_z $EX45MG_N -ksp_type cg -pc_type mg -pc_mg_levels 4 -mg_levels_pc_type jacobi -ksp_converged_reason ${EX45MG_OPTS:-}"
  [ts_ex13]="ts_ex13|1|ts|-mat_type|$DMVEC|-da_grid_x $EX13_N -da_grid_y $EX13_N -ts_max_steps 10 -ksp_converged_reason ${EX13_OPTS:-}"
)
