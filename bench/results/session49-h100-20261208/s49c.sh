#!/usr/bin/env bash
# session 49, call c: why the warp gathers lost 13-19% (s47a). ncu on dcsr's tile kernel with and without
# -mat_dcsr_warp_gathers (the 42429bb bundle, .dev/old.tar.xz), bcsstk13 :256 and the 7-point stencil n=150:
# instructions a tile, issue activity, stall reasons, shared-memory bank conflicts, registers, occupancy.
set -u
O=$OUT/s49c; mkdir -p $O; D=/opt/devo; mkdir -p $D && tar -C $D -xJf .dev/old.tar.xz
export PATH=$D/bin:$PATH LD_LIBRARY_PATH=$D/extra/build/lib:$D/petsc/lib:$D/syslib:${LD_LIBRARY_PATH:-} PETSC_OPTIONS="-use_gpu_aware_mpi 0 -mat_spmv_wait 0" UCX_TLS=self,sm
{ nvidia-smi -L; echo "bundle 42429bb"; date -u; } > $O/device.txt
for m in "$D/extra/matrices/bcsstk13.mtx:256" "stencil7:n=150" "random:m=3000000,k=12,seed=7"; do
  for t in dcsr dcsr/wg; do
    n=$(basename ${m%%:*} .mtx)_${t//\//_}
    timeout 100 ncu --clock-control none --kernel-name regex:SpMVKernel16 --launch-skip 20 --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section InstructionStats --section SchedulerStats --section Occupancy --section LaunchStats \
      --metrics smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum \
      $D/extra/build/bin/bench_spmv -matrices "$m" -types $t -wg_mat_dcsr_warp_gathers 1 -floor 0 -trials 1 -reps 2 > $O/ncu-$n.txt 2>&1
    echo "$n rc=$? $(date -u +%T)" >> $O/summary.txt
  done
done
cd $OUT && tar czf s49c.tar.gz s49c && rm -rf s49c
