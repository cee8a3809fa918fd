#!/usr/bin/env bash
# The test suite: runs every check, prints one line each, ends with "N passed, N failed".
# Called by `make test` (which sets BUILD, MPIEXEC and the library path). No GPU needed. Without one a plugin type
# runs SeqAIJ's own product by default; the suite passes -mat_spmv_host_reference (through PETSC_OPTIONS) so that the
# formats' host references run the products and every layout goes through real PETSc solves. The checks of the
# default (the parent's product) run with `plain`, without it.
set -u
BUILD=${BUILD:-build}; BIN=$BUILD/bin; LIB=$(cd "$BUILD/lib" && pwd)/libpetscspmv.so
MATRICES=${MATRICES:-$(cd "$(dirname "$0")/../.." && pwd)/shared/matrices}
[ -d "$MATRICES" ] || echo "warning: no matrix folder $MATRICES (the project's ../shared/matrices): the tests that read SuiteSparse files will fail; set MATRICES=DIR" >&2
LOG=$BUILD/test-logs
. "$(dirname "$0")/helpers.sh" # plain, run, expect_error, grep_run, summary; the counters, MPIEXEC, SEED
# iteration counts, and the SNES residual norms to 3 digits (the last digits are rounding)
its() { awk '/iterations/ {print} /SNES Function norm/ {printf "%s %.3e\n", $1, $NF}' "$1"; }
# same_convergence NAME TYPE ARGS...: ex19 with aij and with TYPE print the same Newton and linear iterations
same_convergence() {
  local name=$1 type=$2; shift 2
  local ex="${NP:+$MPIEXEC -n $NP} $BIN/ex19 -dll_append $LIB -da_grid_x 24 -da_grid_y 24 -snes_monitor -ksp_converged_reason -snes_converged_reason $*"
  $ex -dm_mat_type aij > "$LOG/$name.aij.log" 2>&1 && $ex -dm_mat_type $type > "$LOG/$name.$type.log" 2>&1 &&
    its "$LOG/$name.aij.log" > "$LOG/$name.aij.its" && its "$LOG/$name.$type.log" > "$LOG/$name.$type.its" &&
    [ -s "$LOG/$name.aij.its" ] && diff "$LOG/$name.aij.its" "$LOG/$name.$type.its"
}
# same_newton NAME TYPE ARGS...: for a type that sums a row in another order than CSR (BiCGSTAB's iteration
# count moves with the last bit): both converge, the same number of Newton steps, every linear solve
# converges, linear iterations within 25% (+-2) of aij's
same_newton() {
  local name=$1 type=$2; shift 2
  local ex="${NP:+$MPIEXEC -n $NP} $BIN/ex19 -dll_append $LIB -da_grid_x 24 -da_grid_y 24 -snes_monitor -ksp_converged_reason -snes_converged_reason $*"
  $ex -dm_mat_type aij > "$LOG/$name.aij.log" 2>&1 && $ex -dm_mat_type $type > "$LOG/$name.$type.log" 2>&1 || return 1
  local a b
  a=$(grep -c "SNES Function norm" "$LOG/$name.aij.log"); b=$(grep -c "SNES Function norm" "$LOG/$name.$type.log")
  [ "$a" -gt 0 ] && [ "$a" = "$b" ] && grep -q "Nonlinear solve converged" "$LOG/$name.$type.log" && ! grep -q DIVERGED "$LOG/$name.$type.log" || return 1
  paste <(awk '/Linear solve converged/ {print $NF}' "$LOG/$name.aij.log") <(awk '/Linear solve converged/ {print $NF}' "$LOG/$name.$type.log") |
    awk '{ if ($2 == "" || $2 > 1.25 * $1 + 2 || $2 < 0.75 * $1 - 2) bad = 1; n++ } END { exit (bad || n == 0) }'
}
on_ranks() { local NP=$1; shift; "$@"; }   # same_convergence under mpiexec -n NP
# same_ex56 NAME TYPE ARGS...: PETSc's ex56 (3D elasticity, CG + GAMG) with aij and with TYPE: the same iterations
same_ex56() {
  local name=$1 type=$2; shift 2
  local ex="${NP:+$MPIEXEC -n $NP} $BIN/ex56 -dll_append $LIB -ne 7 -ksp_type cg -pc_type gamg -ksp_converged_reason -ksp_rtol 1e-8 $*"
  $ex -mat_type aij > "$LOG/$name.aij.log" 2>&1 && $ex -mat_type $type > "$LOG/$name.$type.log" 2>&1 &&
    grep "Linear solve converged" "$LOG/$name.aij.log" > "$LOG/$name.aij.its" && grep "Linear solve converged" "$LOG/$name.$type.log" > "$LOG/$name.$type.its" &&
    [ -s "$LOG/$name.aij.its" ] && diff "$LOG/$name.aij.its" "$LOG/$name.$type.its"
}
ex19_type() { local t=$1; shift; "$BIN/ex19" -dll_append "$LIB" -dm_mat_type $t -da_grid_x 16 -da_grid_y 16 "$@"; }
ex19_brc() { ex19_type brc "$@"; }
# poly_degrees NAME MATTYPE "DEGREES" ARGS...: ex19 (32x32) with -pc_type poly at each degree, right preconditioning
# (every run meets the same true-residual tolerance): all converge and the total linear iterations fall as the degree grows
poly_degrees() {
  local name=$1 mt=$2 degs=$3; shift 3; local prev=1000000000 n k
  for k in $degs; do
    n=$(${NP:+$MPIEXEC -n $NP} "$BIN/ex19" -dll_append "$LIB" -dm_mat_type $mt -da_grid_x 32 -da_grid_y 32 -ksp_pc_side right \
          -ksp_converged_reason -snes_converged_reason -pc_type poly -pc_poly_degree $k "$@" 2>&1 | tee "$LOG/$name.k$k.log" |
        awk '/Linear solve converged/ {s += $NF} /did not converge/ {bad = 1} /Nonlinear solve converged/ {ok = 1} END {print (bad || !ok) ? -1 : s + 0}')
    echo "degree $k: $n linear iterations"
    [ "$n" -gt 0 ] && [ "$n" -lt "$prev" ] || return 1
    prev=$n
  done
}
ex19_poly() { "$BIN/ex19" -dll_append "$LIB" -da_grid_x 16 -da_grid_y 16 -pc_type poly "$@"; }

# every plugin type goes through the same PETSc-level checks; each format adds its root name here
TYPES=${TYPES:-spmv brc suraa ccoo argcsr segsum dcsr}
# per type: an option that changes the layout, and a value that must be refused (test_matops)
# types whose host reference sums rows in CSR order (bit-for-bit AIJ without inodes when no row is split);
# spmv: the rule picks ccoo (constant 7-point stencil) and brc (ex19) for the two tests that need it
declare -A CSR_ORDER=([brc]=1 [suraa]=1 [ccoo]=1 [argcsr]=1 [spmv]=1)
declare -A OPT_GOOD=([brc]=mat_brc_width=3 [suraa]=mat_suraa_segments=fd_bins [ccoo]=mat_ccoo_k=1 [argcsr]=mat_argcsr_desired_chunk_size=1 [segsum]=mat_segsum_tile=64 [dcsr]=mat_dcsr_tile=64 [spmv]=mat_spmv_format=brc) OPT_BAD=([brc]=mat_brc_width_max=0 [suraa]=mat_suraa_vector_width=48 [ccoo]=mat_ccoo_k=3 [argcsr]=mat_argcsr_block_size=48 [segsum]=mat_segsum_tiles_per_warp=0 [dcsr]=mat_dcsr_tiles_per_warp=0 [spmv]=mat_spmv_trials=0)
echo "petsc-spmv tests (types: $TYPES; seed $SEED; matrices from $MATRICES)"
# test_pcs compares a type's solves with AIJ's exactly (same iterations, solutions within 1e-10) where the type's products
# are AIJ's own arithmetic; where they run the format's host reference or the GPU kernels (rows summed in another order
# than AIJ's inode kernel) it allows rounding (iterations within 10% + 2, solutions within 1e-8). The plain runs take
# what a brc matrix says it runs by default; the -mat_spmv_host_reference runs always allow rounding.
if plain ex19_type brc -mat_view ::ascii_info -snes_max_it 1 2>&1 | grep -q "products by the parent's SeqAIJ kernel"; then PCS_PLAIN=exact; else PCS_PLAIN=rounding; fi
echo "test_pcs: the plain runs compare -compare $PCS_PLAIN"
# 1. the formats' host references against CSR (paper examples, adversarial and random matrices)
for t in "$BIN"/test_*_host; do run "$(basename "$t")" "$t" -seed "$SEED"; done
for T in $TYPES; do
  # 2. Mat operations through PETSc: convert, duplicate, copy, MatSetValues after assembly, bind, NaN, options
  run ${T}_matops                 "$BIN/test_matops" -type $T -seed "$SEED" ${OPT_GOOD[$T]:+-opt_good ${OPT_GOOD[$T]}} ${OPT_BAD[$T]:+-opt_bad ${OPT_BAD[$T]}}
  # 2b. every operation of the parent (COO assembly, transposes, scale/shift/AXPY, diagonal and row operations,
  #     copy/duplicate/convert, bind) and matrix products of plugin-typed operands, against AIJ
  run ${T}_aijops                 "$BIN/test_aijops" -type $T -seed "$SEED"
  # GAMG (PtAP of plugin-typed operands, restriction by MatMultTranspose) in CG: the same iterations as AIJ
  run ${T}_ex56_gamg              same_ex56 ${T}_ex56_gamg $T
  run ${T}_ex56_gamg_n8           on_ranks 8 same_ex56 ${T}_ex56_gamg_n8 $T -ne 11
  # 3. KSP: GMRES and BiCGSTAB with none / Jacobi / ILU, same iterations and solutions (1e-10) as AIJ
  run ${T}_ksp_cage10             "$BIN/test_ksp" -type $T -matrix "$MATRICES/cage10.mtx"
  run ${T}_ksp_stencil27          "$BIN/test_ksp" -type $T -matrix "stencil27:n=14"
  run ${T}_ksp_random             "$BIN/test_ksp" -type $T -matrix "random:m=3000,k=8,seed=$SEED"
  # BiCGSTAB needs the last bit of AIJ's product: only for the types that sum in CSR order
  run ${T}_ksp_stencil7_const     "$BIN/test_ksp" -type $T -matrix "stencil7:n=16,const=1" ${CSR_ORDER[$T]:+-ksp_types gmres,bcgs} ${CSR_ORDER[$T]:--ksp_types gmres}
  run ${T}_ksp_kron_cage10        "$BIN/test_ksp" -type $T -matrix "$MATRICES/cage10.mtx:3" -ksp_types gmres -pc_types jacobi
  # rows longer than a format's piece may be summed in another order than CSR: robust solves only
  run ${T}_ksp_long_rows          "$BIN/test_ksp" -type $T -matrix "denserows:m=4000,k=6,len=2500,dense=4" -ksp_types gmres -pc_types none,jacobi,ilu
  run ${T}_ksp_long_rows_bcgs     "$BIN/test_ksp" -type $T -matrix "denserows:m=4000,k=6,len=2500,dense=4" -ksp_types bcgs -pc_types jacobi,ilu
  run ${T}_ksp_mpiexec_1          $MPIEXEC -n 1 "$BIN/test_ksp" -type $T -matrix "$MATRICES/cage10.mtx" -ksp_types gmres -pc_types ilu
  # 3b. every preconditioner (test_pcs -list: Jacobi, point-block Jacobi, block Jacobi, ASM, SOR, GAMG agg/classical, HMG,
  #     PCMG Galerkin, fieldsplit, redundant, telescope, ksp, poly, LU, Cholesky) on an SPD operator of block size 1, 2, 3,
  #     1 and 2 ranks, against AIJ: converged, same iterations and solutions (see PCS_PLAIN); once more with the host reference
  #     test_retype: the operations that replace or re-type a matrix' header (MatAXPY with another pattern, in-place
  #     convert/transpose/LU, MatSetType twice, preallocation twice/reset, duplicates, filter, products), against AIJ
  for np in 1 2; do
    run ${T}_pcs_n$np             plain $MPIEXEC -n $np "$BIN/test_pcs" -type $T -compare $PCS_PLAIN
    run ${T}_pcs_hostref_n$np     $MPIEXEC -n $np "$BIN/test_pcs" -type $T -compare rounding -mat_spmv_host_reference
    run ${T}_retype_n$np          plain $MPIEXEC -n $np "$BIN/test_retype" -type $T
    run ${T}_retype_hostref_n$np  $MPIEXEC -n $np "$BIN/test_retype" -type $T -mat_spmv_host_reference
  done
  #     the thunks a debug PETSc gets (every inherited operation lends the parent's type name): the same tables
  run ${T}_pcs_lend               "$BIN/test_pcs" -type $T -compare rounding -mat_spmv_lend_type_name
  run ${T}_retype_lend            "$BIN/test_retype" -type $T -mat_spmv_lend_type_name
  #     the default without a GPU: SeqAIJ's own product, so ex19 and ex56 converge exactly as with aij (GAMG on a scalar
  #     problem included), and the view says who runs the products
  run ${T}_ex19_plain             plain same_convergence ${T}_ex19_plain $T -pc_type jacobi -ksp_type bcgs
  run ${T}_ex56_plain             plain same_ex56 ${T}_ex56_plain $T
  run ${T}_gamg_scalar_plain      plain grep_run "${T}: 7 iterations" "$BIN/spmv_solve" -f stencil7:n=20 -mat_type $T -ksp_type cg -pc_type gamg
  run ${T}_view_plain             plain grep_run "products by the parent's SeqAIJ kernel" ex19_type $T -mat_view ::ascii_info -snes_max_it 1
  # 4. PETSc's unmodified ex19 (SNES + FD coloring), loaded with -dll_append: same convergence as aij.
  #    BiCGSTAB+Jacobi is sensitive to the last bit: AIJ's inode kernel sums column pairs, the formats
  #    (like plain CSR) sum in order, so that one compares against AIJ without inodes
  run ${T}_ex19_ilu_gmres         same_convergence ${T}_ex19_ilu_gmres $T
  if [ -n "${CSR_ORDER[$T]:-}" ]; then
    run ${T}_ex19_jacobi_bcgs     same_convergence ${T}_ex19_jacobi_bcgs $T -pc_type jacobi -ksp_type bcgs -mat_no_inode
  else
    run ${T}_ex19_jacobi_bcgs     same_newton ${T}_ex19_jacobi_bcgs $T -pc_type jacobi -ksp_type bcgs -mat_no_inode
  fi
  run ${T}_ex19_none_gmres        same_convergence ${T}_ex19_none_gmres $T -pc_type none -ksp_type gmres -ksp_max_it 2000
  run ${T}_ex19_fd_color_fgmres   same_convergence ${T}_ex19_fd_color_fgmres $T -snes_fd_color -ksp_type fgmres -pc_type ilu
  run ${T}_ex19_view_info         grep_run "seqaij$T (" ex19_type $T -mat_view ::ascii_info -snes_max_it 1
  run ${T}_ex19_help_text         grep_run "Options for seqaij$T matrices" ex19_type $T -help -snes_max_it 1
  # 5. the MPI twin mpiaij<fmt>: 1-4 ranks, blocks of the plugin type, MatSetValues from any rank, a rank
  #    with no rows, hash-path creation; KSP with block Jacobi / ASM (ILU inside); ex19 on several ranks
  for np in 1 2 3 4; do run ${T}_mpi_ops_n$np $MPIEXEC -n $np "$BIN/test_mpi" -type $T; done
  #    the same through the format's host reference (a rank whose block is empty must not keep a norm: it hung here)
  for np in 2 3; do run ${T}_mpi_ops_hostref_n$np timeout 120 $MPIEXEC -n $np "$BIN/test_mpi" -type $T -mat_spmv_host_reference; done
  for np in 2 3; do
    run ${T}_mpi_ksp_cage10_n$np  $MPIEXEC -n $np "$BIN/test_ksp" -type $T -matrix "$MATRICES/cage10.mtx" -pc_types none,jacobi,bjacobi,asm
    run ${T}_mpi_ksp_stencil_n$np $MPIEXEC -n $np "$BIN/test_ksp" -type $T -matrix "stencil27:n=12" -pc_types jacobi,bjacobi
    run ${T}_mpi_ex19_n$np        on_ranks $np same_convergence ${T}_mpi_ex19_n$np $T
  done
  run ${T}_mpi_ksp_empty_rank     $MPIEXEC -n 3 "$BIN/test_ksp" -type $T -matrix "banded:m=2,bw=1" -pc_types jacobi -ksp_types gmres
  run ${T}_mpi_ex19_view          grep_run "mpiaij$T: diagonal and off-diagonal blocks are seqaij[a-z]* matrices with the $T format" $MPIEXEC -n 2 "$BIN/ex19" -dll_append "$LIB" -dm_mat_type $T -da_grid_x 8 -da_grid_y 8 -mat_view ::ascii_info -snes_max_it 1
  run ${T}_solve_mtx              grep_run "seqaij$T: " "$BIN/spmv_solve" -f "$MATRICES/nasa4704.mtx" -mat_type $T -ksp_type cg -pc_type jacobi -ksp_max_it 5000
done
# 6. the automatic type spmv: the rule on generated families, forced candidates and formats, the choice kept over
#    refreshes, MatDuplicate, MatCopy and MatSetFromOptions, chosen again for a new pattern or new options, the
#    diagonal block's choice on 2-3 ranks; -mat_view, -help (each format's options once), -log_view; bad values
help_once() { local n; n=$(ex19_type spmv -help -snes_max_it 1 2>&1 | grep -c -- "$1"); echo "$1: $n"; [ "$n" = 1 ]; }
run spmv_choice              "$BIN/test_spmv"
for np in 2 3; do run spmv_choice_mpi_n$np $MPIEXEC -n $np "$BIN/test_spmv"; done
run spmv_view_choice         grep_run "spmv: chosen: brc by the rule" ex19_type spmv -mat_view ::ascii_info -snes_max_it 1
run spmv_view_candidates     grep_run "spmv: rule: regular rows" ex19_type spmv -mat_view ::ascii_info -snes_max_it 1
run spmv_view_forced         grep_run "spmv: -mat_spmv_format segsum: no selection" ex19_type spmv -mat_spmv_format segsum -mat_view ::ascii_info -snes_max_it 1
run spmv_help_brc_once       help_once "-mat_brc_width_max:"
run spmv_help_ccoo_once      help_once "-mat_ccoo_k:"
run spmv_help_candidates     help_once "-mat_spmv_candidates:"
run spmv_log_event           grep_run "^MatSpMVSelect" ex19_type spmv -log_view -snes_max_it 1
run spmv_info                grep_run "spmv (host): .* chose brc" ex19_type spmv -info -snes_max_it 1
run spmv_candidate_option    grep_run "CCOO: B 256 threads x K 2" ex19_type spmv -mat_spmv_format ccoo -mat_ccoo_k 2 -mat_view ::ascii_info -snes_max_it 1
expect_error spmv_bad_trials       "mat_spmv_trials"                ex19_type spmv -mat_spmv_trials 0
expect_error spmv_bad_candidate    "Unknown format \"nosuch\""    ex19_type spmv -mat_spmv_candidates brc,nosuch
expect_error spmv_bad_format       "Unknown format \"spmv\""      ex19_type spmv -mat_spmv_format spmv
expect_error spmv_bad_budget       "mat_spmv_budget"                ex19_type spmv -mat_spmv_budget -1
expect_error spmv_bad_det_format   "CCOO combines rows"             ex19_type spmv -mat_spmv_format ccoo -mat_spmv_deterministic
expect_error spmv_bad_det_list     "no candidate format is left"    ex19_type spmv -mat_spmv_candidates ccoo -mat_spmv_deterministic
expect_error spmv_bad_brc_option   "mat_brc_width_max"              ex19_type spmv -mat_brc_width_max 0
# 7. bad input: clear PETSc errors (each format adds its own)
expect_error bad_width_max   "mat_brc_width_max" ex19_brc -mat_brc_width_max 0
expect_error bad_coarsen     "mat_brc_coarsen"   ex19_brc -mat_brc_coarsen -1
expect_error bad_width_c     "mat_brc_width_c"   ex19_brc -mat_brc_width_c 0
expect_error segsum_bad_tile  "mat_segsum_tile"            ex19_type segsum -mat_segsum_tile 96
expect_error segsum_bad_S     "mat_segsum_tiles_per_warp"  ex19_type segsum -mat_segsum_tiles_per_warp 32
expect_error segsum_bad_warps "mat_segsum_warps_per_block" ex19_type segsum -mat_segsum_warps_per_block 0
expect_error dcsr_bad_tile    "mat_dcsr_tile"              ex19_type dcsr -mat_dcsr_tile 96
expect_error dcsr_bad_warps   "mat_dcsr_warps_per_block"   ex19_type dcsr -mat_dcsr_warps_per_block 9
expect_error dcsr_bad_lanes   "mat_dcsr_row_lanes"         ex19_type dcsr -mat_dcsr_row_lanes 3
# dcsr's kernels: ex19's 20 nonzeros a row (no empty row) take the tiles with head masks by default, the walk over the row
# offsets with -mat_dcsr_head_masks 0, the row kernel (long rows) when forced; the solve the same; tiles inside one row in
# the warp's order by default, in the lanes' with -mat_dcsr_warp_order 0
run dcsr_view_kernel_tiles    grep_run "dcsr: kernel: tiles with head masks (longest row 20" ex19_type dcsr -mat_view ::ascii_info -snes_max_it 1
run dcsr_view_kernel_walk     grep_run "dcsr: kernel: tiles (longest row 20" ex19_type dcsr -mat_view ::ascii_info -snes_max_it 1 -mat_dcsr_head_masks 0
run dcsr_view_warp_order     grep_run "tiles inside one row: read in the warp's order" ex19_type dcsr -mat_view ::ascii_info -snes_max_it 1
run dcsr_view_lanes_order    grep_run "tiles inside one row: read in the lanes' order" ex19_type dcsr -mat_view ::ascii_info -snes_max_it 1 -mat_dcsr_warp_order 0
# dcsr's warps a block from the sampled x footprint (the default) or as asked (then nothing is sampled)
run dcsr_view_footprint      grep_run "dcsr: x footprint [0-9.]* distinct 4-column groups a nonzero (64 windows of 1024 nonzeros): [48] warps a block" ex19_type dcsr -mat_view ::ascii_info -snes_max_it 1
run dcsr_view_warps_asked    grep_run "dcsr: tile W\*T = 32\*4 = 128 nonzeros, 7 tiles per warp (896 nonzeros), 8 warps per block" ex19_type dcsr -mat_view ::ascii_info -snes_max_it 1 -mat_dcsr_warps_per_block 8
run dcsr_view_kernel_rows     grep_run "dcsr: kernel: rows, 8 lanes a row" ex19_type dcsr -mat_dcsr_row_lanes 8 -mat_view ::ascii_info -snes_max_it 1
run dcsr_row_kernel_solve     grep_run "Number of SNES iterations = 2" ex19_type dcsr -mat_dcsr_row_lanes 16
# dcsr's view: its 16-bit tiles and the bytes a product reads per nonzero (ex19's columns are local: every tile narrow)
run dcsr_view_bytes           grep_run "dcsr: a product reads [0-9.]* bytes per nonzero" ex19_type dcsr -mat_view ::ascii_info -snes_max_it 1
run dcsr_view_tiles           grep_run "dcsr: 16-bit column offsets in \([0-9]*\) of \1 tiles; 0 wide" ex19_type dcsr -mat_view ::ascii_info -snes_max_it 1
run spmv_forced_dcsr          grep_run "spmv: -mat_spmv_format dcsr: no selection" ex19_type spmv -mat_spmv_format dcsr -mat_view ::ascii_info -snes_max_it 1
run spmv_view_dcsr_stats      grep_run "spmv: dcsr: 100.0% of the 128-nonzero tiles" ex19_type spmv -mat_view ::ascii_info -snes_max_it 1
run spmv_rank_dcsr            grep_run "dcsr's 16-bit columns in place of segsum" ex19_type spmv -mat_spmv_dcsr -mat_view ::ascii_info -snes_max_it 1
expect_error bad_argcsr_block_size  "mat_argcsr_block_size"         ex19_type argcsr -mat_argcsr_block_size 48
expect_error bad_argcsr_block_big   "mat_argcsr_block_size"         ex19_type argcsr -mat_argcsr_block_size 2048
expect_error bad_argcsr_chunk_size  "mat_argcsr_desired_chunk_size" ex19_type argcsr -mat_argcsr_desired_chunk_size 0
expect_error bad_ccoo_k        "mat_ccoo_k"        ex19_type ccoo -mat_ccoo_k 3
expect_error bad_ccoo_threads  "mat_ccoo_threads"  ex19_type ccoo -mat_ccoo_threads 100
expect_error bad_ccoo_col_bits "mat_ccoo_col_bits" ex19_type ccoo -mat_ccoo_col_bits 12
expect_error bad_ccoo_lut_size "mat_ccoo_lut_size" ex19_type ccoo -mat_ccoo_lut_size 257
expect_error suraa_bad_vector_width "mat_suraa_vector_width"     ex19_type suraa -mat_suraa_vector_width 48
expect_error suraa_bad_g3_lanes     "mat_suraa_g3_lanes"         ex19_type suraa -mat_suraa_g3_lanes 3
expect_error suraa_bad_threshold    "mat_suraa_vector_threshold" ex19_type suraa -mat_suraa_vector_threshold 0
expect_error suraa_bad_lane_entries "mat_suraa_lane_entries"   ex19_type suraa -mat_suraa_lane_entries 3
expect_error suraa_bad_segment_rows "mat_suraa_segment_rows"     ex19_type suraa -mat_suraa_segment_rows 0
expect_error suraa_bad_g1_max_rows  "mat_suraa_g1_max_rows"      ex19_type suraa -mat_suraa_g1_max_rows -2
expect_error suraa_cusparse_logical "mat_suraa_permute physical" ex19_type suraa -mat_suraa_kernels cusparse -mat_suraa_permute logical
# the dynamic-parallelism path exists only in a build made with SPMV_SURAA_CDP=1
[ "${SPMV_SURAA_CDP:-0}" = 1 ] || expect_error suraa_no_cdp "SPMV_SURAA_CDP=1" ex19_type suraa -mat_suraa_dynamic_parallelism
# 8. the polynomial preconditioner PCPOLY: p(A)v against the polynomial evaluated densely (every type, with and
#    without Jacobi scaling, transposed too), GMRES polynomial of full degree = A^-1, iterations falling with the degree
#    (2D Laplacian: CG, GMRES, BiCGSTAB; ex19: GMRES and BiCGSTAB, aij and the plugin types, 2 ranks), view, bad options
run poly_aij                 "$BIN/test_poly"
for T in $TYPES; do run ${T}_poly "$BIN/test_poly" -type $T; done
run poly_mpi_n2              $MPIEXEC -n 2 "$BIN/test_poly" -type ${TYPES%% *} -quick
run poly_mpi_n3_exact        $MPIEXEC -n 3 "$BIN/test_poly" -check exact
for p in gmres chebyshev neumann; do
  run poly_ex19_$p           poly_degrees poly_ex19_$p aij "2 5 10 20" -pc_poly_type $p
done
run poly_ex19_bcgs_gmres     poly_degrees poly_ex19_bcgs_gmres aij "2 5 10 20" -pc_poly_type gmres -ksp_type bcgs
for T in $TYPES; do
  run ${T}_poly_ex19_gmres   poly_degrees ${T}_poly_ex19_gmres $T "2 5 10" -pc_poly_type gmres
  run ${T}_poly_ex19_cheb_n2 on_ranks 2 poly_degrees ${T}_poly_ex19_cheb_n2 $T "2 5 10" -pc_poly_type chebyshev
done
run poly_view_gmres          grep_run "GMRES polynomial of 11 Arnoldi steps" ex19_poly -ksp_view -snes_max_it 1
run poly_view_chebyshev      grep_run "bounds \[emin, emax\] = \[0.5, 2.*\], given" ex19_poly -pc_poly_type chebyshev -pc_poly_eigenvalues 0.5,2 -ksp_view -snes_max_it 1
run poly_help                grep_run "pc_poly_degree" ex19_poly -help -snes_max_it 1
run poly_log_event           grep_run "^PCPolySetUp" ex19_poly -log_view -snes_max_it 1
expect_error poly_bad_degree0     "PCPOLY degree 0 must be"              ex19_poly -pc_poly_degree 0
expect_error poly_bad_degree_neg  "PCPOLY degree -2 must be"             ex19_poly -pc_poly_degree -2
expect_error poly_bad_emin_emax   "need emin < emax"                     ex19_poly -pc_poly_type chebyshev -pc_poly_eigenvalues 2,1
expect_error poly_bad_equal       "need emin < emax"                     ex19_poly -pc_poly_type chebyshev -pc_poly_eigenvalues 1,1
expect_error poly_bad_zero_inside "must not contain 0"                   ex19_poly -pc_poly_type chebyshev -pc_poly_eigenvalues -1,2
expect_error poly_bad_eig_count   "needs two values"                     ex19_poly -pc_poly_eigenvalues 1
expect_error poly_bad_type        "Unknown -pc_poly_type"                ex19_poly -pc_poly_type legendre
expect_error poly_bad_damping     "Neumann damping -1. must be positive" ex19_poly -pc_poly_type neumann -pc_poly_neumann_damping -1
expect_error poly_bad_esteig      "needs four values"                    ex19_poly -pc_poly_type chebyshev -pc_poly_esteig 0,1
expect_error poly_bad_est_bounds  "not a valid interval"                 ex19_poly -pc_poly_type chebyshev -pc_poly_esteig 0,2,0,1
expect_error poly_class_range     "Argument out of range"                ex19_poly -pc_poly_type chebyshev -pc_poly_eigenvalues 3,1
expect_error poly_class_wrong     "Invalid argument"                     ex19_poly -pc_poly_type 7
# 9. PCPOLY with fp32 matrix values (-pc_poly_precision single): the copy's product against the fp64 product of the
#    rounded values (1e-13) and of the matrix (1e-6) for brc, segsum and spmv after refreshes and a new pattern, CG /
#    GMRES / BiCGSTAB converging as in double on SPD and nonsymmetric operators, bad values, on 1 and 2 ranks; ex19
#    (SNES: the copy refreshed at every Newton step) converging with iterations falling with the degree; view, log, errors
run poly_single_aij          "$BIN/test_poly_single"
for T in $TYPES; do run ${T}_poly_single "$BIN/test_poly_single" -type $T; done
run poly_single_mpi_n2       $MPIEXEC -n 2 "$BIN/test_poly_single"
run poly_single_mpi_n2_brc   $MPIEXEC -n 2 "$BIN/test_poly_single" -type brc
run poly_single_ex19_gmres   poly_degrees poly_single_ex19_gmres aij "2 5 10" -pc_poly_type gmres -pc_poly_precision single
for T in brc spmv; do
  run ${T}_poly_single_ex19_bcgs_n2 on_ranks 2 poly_degrees ${T}_poly_single_ex19_bcgs_n2 $T "2 5 10" -pc_poly_type chebyshev -ksp_type bcgs -pc_poly_precision single
done
run poly_single_view         grep_run "precision: single (the polynomial's products with an fp32 copy of D^-1 A in format brc" ex19_type brc -pc_type poly -pc_poly_precision single -ksp_view -snes_max_it 1
run poly_single_view_spmv    grep_run "fp32 copy of A in format spmv" ex19_poly -pc_poly_precision single -pc_poly_jacobi 0 -pc_poly_type chebyshev -pc_poly_eigenvalues 1,20 -ksp_view -snes_max_it 1
run poly_single_log_event    grep_run "^MatSpMVSingle" ex19_poly -pc_poly_precision single -log_view -snes_max_it 1
run poly_single_help         grep_run "pc_poly_single_format" ex19_poly -help -snes_max_it 1
run poly_single_baij         grep_run "single asked, double used: the fp32 copy needs an AIJ operator, not seqbaij" ex19_type baij -pc_type poly -pc_poly_precision single -ksp_view -snes_max_it 1
expect_error poly_bad_precision     "Unknown -pc_poly_precision half"       ex19_poly -pc_poly_precision half
expect_error poly_bad_single_format "pc_poly_single_format ccoo: use brc"   ex19_poly -pc_poly_precision single -pc_poly_single_format ccoo
expect_error poly_bad_residual_precision "Unknown -pc_poly_residual_precision half" ex19_poly -pc_poly_precision single -pc_poly_residual_precision half
# 9b. multigrid smoothing with PCPOLY (issue #26): GAMG and PCMG with Galerkin operators, the polynomial smoother
#    (richardson + chebyshev of degree 2, fp64 and fp32 values) against PETSc's default smoother (chebyshev + jacobi):
#    every run converges to the same tolerance, in no more linear iterations than the default's (+25% +2 for the SNES,
#    whose Newton path may differ); scalar SPD (7-point stencil, GAMG; ex45, PCMG Galerkin), vector SPD (ex56, bs 3),
#    nonsymmetric (ex19, bs 4, GMRES), 1 and 2 ranks; a hierarchy whose D^-1 A has entries below FLT_MIN (ex56's
#    coarse levels) converges and -ksp_view reports the count; -pc_poly_esteig_reuse keeps the bounds across Newton steps
MGPOLY="-mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type poly -mg_levels_pc_poly_type chebyshev -mg_levels_pc_poly_degree 2"
lin_its() { awk '/Linear solve converged/ {s += $NF; n++} /Linear solve did not converge|DIVERGED/ {bad = 1} END {if (bad || !n) print "NA"; else print s}' "$1"; }
# mg_poly NAME SLACK CMD...: CMD (with -ksp_converged_reason) as is, then with the poly smoother in double and single.
# SLACK 0: no more iterations than the default; 1: at most 25% + 2 more; 2: the default smoother fails here (PETSc's
# own chebyshev + jacobi on ex19 on 2 ranks: DIVERGED_ITS, with aij too), the poly smoother must converge
mg_poly() {
  local name=$1 slack=$2; shift 2
  "$@" > "$LOG/$name.default.log" 2>&1 || [ "$slack" = 2 ] || return 1
  local base; base=$(lin_its "$LOG/$name.default.log"); [ "$base" != NA ] || [ "$slack" = 2 ] || return 1
  for prec in double single; do
    "$@" $MGPOLY -mg_levels_pc_poly_precision $prec > "$LOG/$name.$prec.log" 2>&1 || return 1
    local its; its=$(lin_its "$LOG/$name.$prec.log"); echo "$name: default $base, poly $prec $its linear iterations"
    [ "$its" != NA ] || return 1
    [ "$slack" = 2 ] || awk -v a="$its" -v b="$base" -v s="$slack" 'BEGIN { exit !(a <= (s ? 1.25 * b + 2 : b)) }' || return 1
  done
}
for T in aij spmv brc; do
  run mg_poly_gamg_scalar_$T    mg_poly mg_poly_gamg_scalar_$T 0 "$BIN/spmv_solve" -dll_append "$LIB" -f stencil7:n=20 -mat_type $T -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason
done
run mg_poly_gamg_scalar_n2      mg_poly mg_poly_gamg_scalar_n2 0 $MPIEXEC -n 2 "$BIN/spmv_solve" -dll_append "$LIB" -f stencil7:n=20 -mat_type spmv -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason
for T in aij spmv; do
  run mg_poly_gamg_ex56_$T      mg_poly mg_poly_gamg_ex56_$T 0 "$BIN/ex56" -dll_append "$LIB" -ne 7 -mat_type $T -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason
done
run mg_poly_gamg_ex56_n2        mg_poly mg_poly_gamg_ex56_n2 0 $MPIEXEC -n 2 "$BIN/ex56" -dll_append "$LIB" -ne 7 -mat_type brc -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason
run mg_poly_gamg_ex19_nonsym    mg_poly mg_poly_gamg_ex19_nonsym 1 "$BIN/ex19" -dll_append "$LIB" -da_grid_x 24 -da_grid_y 24 -dm_mat_type spmv -ksp_type gmres -pc_type gamg -ksp_converged_reason -snes_converged_reason
run mg_poly_gamg_ex19_nonsym_n2 mg_poly mg_poly_gamg_ex19_nonsym_n2 2 $MPIEXEC -n 2 "$BIN/ex19" -dll_append "$LIB" -da_grid_x 24 -da_grid_y 24 -dm_mat_type brc -ksp_type gmres -pc_type gamg -ksp_converged_reason -snes_converged_reason
run mg_poly_pcmg_galerkin_ex45  mg_poly mg_poly_pcmg_galerkin_ex45 0 "$BIN/ex45" -dll_append "$LIB" -da_grid_x 17 -da_grid_y 17 -da_grid_z 17 -dm_mat_type spmv -ksp_type cg -pc_type mg -pc_mg_levels 3 -pc_mg_galerkin both -ksp_rtol 1e-8 -ksp_converged_reason
run mg_poly_pcmg_galerkin_ex45_n2 mg_poly mg_poly_pcmg_galerkin_ex45_n2 0 $MPIEXEC -n 2 "$BIN/ex45" -dll_append "$LIB" -da_grid_x 17 -da_grid_y 17 -da_grid_z 17 -dm_mat_type brc -ksp_type cg -pc_type mg -pc_mg_levels 3 -pc_mg_galerkin both -ksp_rtol 1e-8 -ksp_converged_reason
# -mg_levels_pc_poly_residual_precision single: the level residuals with the fp32 copies too (scalar and vector SPD, 1
# and 2 ranks): converged in no more iterations than the default smoother, and -ksp_view says so (MGPOLY_EXTRA: more
# smoother options)
mg_poly_res() {
  local name=$1; shift
  "$@" > "$LOG/$name.default.log" 2>&1 || return 1
  local base; base=$(lin_its "$LOG/$name.default.log"); [ "$base" != NA ] || return 1
  "$@" $MGPOLY -mg_levels_pc_poly_precision single -mg_levels_pc_poly_residual_precision single ${MGPOLY_EXTRA:-} -ksp_view > "$LOG/$name.single.log" 2>&1 || return 1
  local its; its=$(lin_its "$LOG/$name.single.log"); echo "$name: default $base, poly single with single residuals $its linear iterations"
  grep -q "MatResidual() of the operator with the fp32 copy" "$LOG/$name.single.log" || return 1
  [ "$its" != NA ] && [ "$its" -le "$base" ]
}
run mg_poly_residual_scalar     mg_poly_res mg_poly_residual_scalar "$BIN/spmv_solve" -dll_append "$LIB" -f stencil7:n=20 -mat_type spmv -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason
run mg_poly_residual_ex56_n2    mg_poly_res mg_poly_residual_ex56_n2 $MPIEXEC -n 2 "$BIN/ex56" -dll_append "$LIB" -ne 7 -mat_type brc -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason
run mg_poly_residual_pcmg_ex45  mg_poly_res mg_poly_residual_pcmg_ex45 "$BIN/ex45" -dll_append "$LIB" -da_grid_x 17 -da_grid_y 17 -da_grid_z 17 -dm_mat_type aij -ksp_type cg -pc_type mg -pc_mg_levels 3 -pc_mg_galerkin both -ksp_rtol 1e-8 -ksp_converged_reason
# the elasticity configuration of the README (degree 4, interval [0.01, 1.1] x lambda_max): fewer iterations than the default
MGPOLY_EXTRA="-mg_levels_pc_poly_degree 4 -mg_levels_pc_poly_esteig 0,0.01,0,1.1" run mg_poly_elasticity_wide mg_poly_res mg_poly_elasticity_wide "$BIN/ex56" -dll_append "$LIB" -ne 11 -mat_type spmv -ksp_type cg -ksp_norm_type unpreconditioned -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason
run mg_poly_flushed_view        grep_run "[1-9][0-9]* nonzeros of D^-1 A below fp32's smallest normal number flushed to 0" "$BIN/ex56" -dll_append "$LIB" -ne 19 -mat_type spmv -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 $MGPOLY -mg_levels_pc_poly_precision single -ksp_view
run mg_poly_flushed_info        grep_run "nonzeros below fp32's smallest normal number flushed to 0" "$BIN/ex56" -dll_append "$LIB" -ne 19 -mat_type aij -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 $MGPOLY -mg_levels_pc_poly_precision single -info
run mg_poly_esteig_reuse        grep_run "reused (-pc_poly_esteig_reuse" "$BIN/ex19" -dll_append "$LIB" -da_grid_x 24 -da_grid_y 24 -dm_mat_type spmv -ksp_type gmres -pc_type gamg -pc_gamg_reuse_interpolation $MGPOLY -mg_levels_pc_poly_precision single -mg_levels_pc_poly_esteig_reuse -info
run mg_poly_smoother_interval   grep_run "transform 0., 0.1, 0., 1.1" "$BIN/spmv_solve" -dll_append "$LIB" -f stencil7:n=12 -ksp_type cg -pc_type gamg $MGPOLY -ksp_view
run poly_krylov_interval        grep_run "transform 0., 0.01, 0., 1.1" ex19_poly -pc_poly_type chebyshev -ksp_view -snes_max_it 1
# KSPRICHARDSON + PCPOLY as a solver (PCApplyRichardson, more than one step): stops at rtol, reports divergence
run poly_richardson_rtol        grep_run "CONVERGED_RTOL iterations 1[0-9]$" "$BIN/spmv_solve" -dll_append "$LIB" -f stencil7:n=12 -mat_type brc -ksp_type richardson -pc_type poly -pc_poly_type chebyshev -ksp_rtol 1e-6 -ksp_max_it 500 -ksp_converged_reason
run poly_richardson_rtol_single grep_run "CONVERGED_RTOL iterations 1[0-9]$" "$BIN/spmv_solve" -dll_append "$LIB" -f stencil7:n=12 -mat_type spmv -ksp_type richardson -pc_type poly -pc_poly_type chebyshev -pc_poly_precision single -ksp_rtol 1e-6 -ksp_max_it 500 -ksp_converged_reason
run poly_richardson_diverged    grep_run "DIVERGED_DTOL" "$BIN/spmv_solve" -dll_append "$LIB" -f stencil7:n=12 -mat_type brc -ksp_type richardson -pc_type poly -pc_poly_type chebyshev -pc_poly_eigenvalues 0.01,0.5 -ksp_max_it 500 -ksp_converged_reason
# -mg_poly double|single: the same smoother in one option, each of its options still overridable; bad values
run mg_poly_one_option          grep_run "precision: single (the polynomial's products" "$BIN/ex56" -dll_append "$LIB" -ne 7 -mat_type spmv -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -mg_poly single -ksp_view
run mg_poly_one_option_override grep_run "chebyshev polynomial of degree 3" "$BIN/ex56" -dll_append "$LIB" -ne 7 -ksp_type cg -pc_type gamg -mg_poly double -mg_levels_pc_poly_degree 3 -ksp_view
run mg_poly_one_option_help     grep_run "mg_poly: <" "$BIN/ex56" -dll_append "$LIB" -ne 7 -help
expect_error mg_poly_bad_value  'Unknown option "half" for -mg_poly' "$BIN/ex56" -dll_append "$LIB" -ne 7 -mg_poly half
# -pc_poly_local (the process-local l1 block Jacobi polynomial; no ghost exchange in the smoother's products): GAMG on a
# scalar problem on 2 and 4 ranks in double and single converges in no more iterations than the default smoother
# (without the l1 diagonal, 8 ranks gave DIVERGED_INDEFINITE_PC), ex19 (GMRES, nonsymmetric) on 2 ranks converges;
# -ksp_view says which products; one rank: the whole operator; an operator it cannot split (not AIJ, or no Jacobi
# scaling): the whole operator's polynomial, said in -ksp_view
mg_poly_local() {
  local name=$1 np=$2 prec=$3; shift 3
  $MPIEXEC -n $np "$BIN/ex45" -dll_append "$LIB" "$@" > "$LOG/$name.default.log" 2>&1 || return 1
  $MPIEXEC -n $np "$BIN/ex45" -dll_append "$LIB" "$@" -mg_poly $prec -mg_levels_pc_poly_local -ksp_view > "$LOG/$name.local.log" 2>&1 || return 1
  local base its; base=$(lin_its "$LOG/$name.default.log"); its=$(lin_its "$LOG/$name.local.log")
  echo "$name: default $base, poly $prec local $its linear iterations"
  grep -q "each process's diagonal block plus the l1 diagonal" "$LOG/$name.local.log" && [ "$base" != NA ] && [ "$its" != NA ] && [ "$its" -le "$base" ]
}
EX45L="-da_grid_x 24 -da_grid_y 24 -da_grid_z 24 -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason"
run mg_poly_local_n2_single     mg_poly_local mg_poly_local_n2_single 2 single $EX45L -dm_mat_type spmv
run mg_poly_local_n4_double     mg_poly_local mg_poly_local_n4_double 4 double $EX45L -dm_mat_type brc
run mg_poly_local_n4_single     mg_poly_local mg_poly_local_n4_single 4 single $EX45L -dm_mat_type aij
run mg_poly_local_ex19_n2       grep_run "Nonlinear solve converged" $MPIEXEC -n 2 "$BIN/ex19" -dll_append "$LIB" -da_grid_x 24 -da_grid_y 24 -dm_mat_type brc -ksp_type gmres -pc_type gamg -snes_converged_reason -mg_poly single -mg_levels_pc_poly_local
run mg_poly_local_one_rank      grep_run "products with the whole operator (one process; -pc_poly_local)" "$BIN/ex45" -dll_append "$LIB" $EX45L -mg_poly single -mg_levels_pc_poly_local -ksp_view
# elasticity on 8 ranks of 1.5K rows: every level's off-process weight is above the default 0.05 (local smoothing took
# 86 iterations where the whole operator's took 71 at -ne 23): the whole operator's polynomial, said in -ksp_view
run mg_poly_local_max_weight    grep_run "its off-process weight 0.[0-9]* is above -pc_poly_local_max_weight 0.05" $MPIEXEC -n 8 "$BIN/ex56" -dll_append "$LIB" -ne 7 -ksp_type cg -pc_type gamg -mg_poly single -mg_levels_pc_poly_local -ksp_view
run mg_poly_local_nojacobi      grep_run "whole operator: -pc_poly_local needs an MPIAIJ operator" $MPIEXEC -n 2 "$BIN/spmv_solve" -dll_append "$LIB" -f stencil7:n=10 -ksp_type gmres -pc_type poly -pc_poly_jacobi 0 -pc_poly_local -ksp_view
# PCPOLY on an empty operator (here bjacobi's block of a rank that GAMG's coarse levels left without rows): no
# eigenvalue estimate, nothing to apply (it stopped with "estimated bounds [0., 0.]")
run poly_empty_block            grep_run "CONVERGED_RTOL" $MPIEXEC -n 2 "$BIN/ex45" -dll_append "$LIB" -da_grid_x 64 -da_grid_y 64 -da_grid_z 64 -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type bjacobi -mg_levels_sub_ksp_type richardson -mg_levels_sub_ksp_max_it 1 -mg_levels_sub_pc_type poly -mg_levels_sub_pc_poly_type chebyshev -mg_levels_sub_pc_poly_precision single
# 9c. unmodified PETSc tutorials that no tuning used, every type against aij (host references): every solve converges,
#     as many solves, each within 10% (+2) of aij's iterations (the formats sum rows in other orders): MatLoad of a
#     binary file (KSP ex10, 1 and 2 ranks), finite elements on a DMPlex (SNES ex12, GAMG), a DMDA through
#     KSPSetComputeOperators with GAMG on a scalar problem (KSP ex50), a Neumann problem with a null space (KSP ex34),
#     block size 2 (SNES ex48), implicit time steps (TS ex13)
same_solves() {
  local name=$1 type=$2 np=$3; shift 3
  local ex="$MPIEXEC -n $np $* -dll_append $LIB -ksp_converged_reason"
  $ex -mat_type aij -dm_mat_type aij > "$LOG/$name.aij.log" 2>&1 && $ex -mat_type $type -dm_mat_type $type > "$LOG/$name.$type.log" 2>&1 || return 1
  ! grep -q "DIVERGED\|did not converge" "$LOG/$name.$type.log" || return 1
  paste <(awk '/Linear solve converged/ {print $NF}' "$LOG/$name.aij.log") <(awk '/Linear solve converged/ {print $NF}' "$LOG/$name.$type.log") |
    awk '{ if ($1 == "" || $2 == "" || $2 > 1.1 * $1 + 2 || $2 < 0.9 * $1 - 2) bad = 1; n++ } END { exit (bad || n == 0) }'
}
plain "$BIN/spmv_solve" -f stencil27:n=10 -mat_type aij -mat_view binary:"$LOG/ex10_stencil27.bin" > /dev/null 2>&1
for T in $TYPES; do
  run tutorial_ksp_ex10_$T       same_solves tutorial_ksp_ex10_$T $T 1 "$BIN/ksp_ex10" -f "$LOG/ex10_stencil27.bin" -rhs one -ksp_type gmres -pc_type jacobi
  run tutorial_ksp_ex10_n2_$T    same_solves tutorial_ksp_ex10_n2_$T $T 2 "$BIN/ksp_ex10" -f "$LOG/ex10_stencil27.bin" -rhs one -ksp_type gmres -pc_type bjacobi
  run tutorial_snes_ex12_$T      same_solves tutorial_snes_ex12_$T $T 1 "$BIN/snes_ex12" -dm_plex_box_faces 16,16 -dm_plex_simplex 0 -petscspace_degree 1 -bc_type dirichlet -ksp_type cg -pc_type gamg
  run tutorial_ksp_ex50_$T       same_solves tutorial_ksp_ex50_$T $T 1 "$BIN/ksp_ex50" -da_grid_x 48 -da_grid_y 48 -ksp_type cg -pc_type gamg
  run tutorial_ksp_ex34_$T       same_solves tutorial_ksp_ex34_$T $T 1 "$BIN/ksp_ex34" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 -ksp_type cg -pc_type jacobi
  run tutorial_snes_ex48_$T      same_solves tutorial_snes_ex48_$T $T 1 "$BIN/snes_ex48" -M 8 -N 8 -P 4 -ksp_type gmres -pc_type jacobi
  run tutorial_ts_ex13_$T        same_solves tutorial_ts_ex13_$T $T 1 "$BIN/ts_ex13" -da_grid_x 32 -da_grid_y 32 -ts_max_steps 3
done
# 9d. the tutorial sweep (tests/tutorial_cases.txt; tests/gpu/tutorial_sweep.sh, on the GPU against aijcusparse): the
#     cases that take a path no other test takes, every type against aij (host references): the run succeeds, as many
#     linear and Newton solves and time steps, the same converged/diverged reasons, each linear solve within 10% (+2)
#     and each Newton solve within 10% (+1) of aij's iterations; and with -mat_view the plugin's type was made (brc).
#     Paths: ASM, GASM, PCKSP, MatPermute, PCMG on DMDAs (1D, 2D, Neumann, SVD coarse), fieldsplit (Stokes 2D/3D),
#     GAMG with coordinates and near null spaces, LU, MatZeroRowsColumns + PCREDISTRIBUTE + fieldsplit, VI submatrices,
#     Picard, DMComposite (sub-DM matrices whose vectors are host vectors), FD coloring, DMPlex FEM with fieldsplit;
#     and (added 2026-11-27) PCMG and GAMG on DMPlex hierarchies (1 and 2 ranks, block size 3), Stokes with a Schur
#     complement by GAMG and with -pc_use_amat, re-assembly with new entries, PCREDUNDANT, LU refactored on one pattern,
#     GAMG classical and HEM coarsening, PCMG through a DMSHELL, PCTELESCOPE, TAO Hessians (coloring, TRON submatrices,
#     mask subsets), TS heat equation in 3D; and (added 2026-11-28) transpose solves with ASM/LU, MatNest of MatAXPY'd
#     operators, FD coloring on a 3D DMDA over 2 ranks, -snes_mf_operator with grid sequencing, fieldsplit on dof 4, VI
#     with Galerkin PCMG, TS Rosenbrock/ARKIMEX/BDF, TAO complementarity and LCL (MatTranspose, MatAXPY, MatShift), DMStag
#     Stokes (fieldsplit with GAMG on 2 ranks, Galerkin PCMG); and (added 2026-11-29) PCHMG with GAMG inside on block
#     size 4 (subspace coarsening, a chosen component, reused interpolations, its interface), repeated solves, element
#     assembly of two matrices over 2 ranks, FCG, PCTELESCOPE with a DMSHELL coarse DM on 4 ranks, TS with its matrix
#     rebuilt each step, DMPlex Stokes over refinements; and (session 36) LU refactored after ADD_VALUES with transpose
#     solves, PCGASM with overlap over 2 ranks, full PCMG on a periodic/mirror DMDA with a redundant coarse solve, QN
#     with a NASM nonlinear preconditioner, trust region with dogleg and Galerkin PCMG, PCMG with compatible relaxation
#     on DMPlex quads, DAEs (adaptive ARKIMEX, an index-1 transistor amplifier)
TUTORIAL_CI=${TUTORIAL_CI:-ksp_ex3 ksp_ex8 ksp_ex9 ksp_ex15_tsirm ksp_ex18 ksp_ex25_n2 ksp_ex29_neumann ksp_ex32 ksp_ex42_fs ksp_ex43 ksp_ex46_n2 ksp_ex49_gamg ksp_ex52 ksp_ex55 ksp_ex62 ksp_ex70 ksp_ex84 pc_ex3_redist snes_ex9 snes_ex15_picard snes_ex16 snes_ex28_0 snes_ex28_2 snes_ex46 snes_ex56 ts_ex2_n2 ts_ex10 ts_ex26_n2 ts_ex46 \
  snes_ex13_gmg snes_ex13_gamg snes_ex17_ge_gmg snes_ex62_q1p0 snes_ex69_q2p1 ksp_ex5 ksp_ex5_redund_n2 ksp_ex5_nonsym_n2 ksp_ex6 \
  ksp_ex54_classical ksp_ex54_hem ksp_ex65 ksp_ex29_telescope tao_minsurf2 tao_eptorsion2 tao_jbearing2 tao_plate2_mask ts_ex45 \
  ksp_ex67_asm ksp_ex90 snes_ex14_fdc snes_ex5_gsmf snes_ex19_fs snes_ex58_ssls ts_ex16 ts_ex19 ts_ex22_rosw tao_blackscholes \
  tao_hyperbolic dmstag_ex3 dmstag_ex4_mg ksp_ex4_hmg_sub ksp_ex4_hmg_comp ksp_ex4_hmg_reuse ksp_ex4_hmg_iface ksp_ex16_n2 \
  ksp_ex51_n2 ksp_ex60_n2 ksp_ex73_n4 ts_ex6 snes_ex71_q1p0 ksp_ex53 ksp_ex64_n2 ksp_ex66_n2 snes_ex4_nasm snes_ex18_tr \
  snes_ex20_cr ts_ex8 ts_ex36}
TSW=$LOG/tutorial-sweep; rm -rf "$TSW"
BUILD=$BUILD MPIEXEC=$MPIEXEC TYPES="$TYPES" JOBS=2 ONLY="^(${TUTORIAL_CI// /|})\$" \
  bash "$(dirname "$0")/gpu/tutorial_sweep.sh" host "$TSW" > "$LOG/tutorial_sweep.log" 2>&1
tutorial_verdicts() { # NAME: for every type the sweep's verdict is same or close; brc+view: the plugin's type was made
  local T line bad=0
  for T in $TYPES brc+view; do
    line=$(awk -v n="$1" -v t="$T" '$1 == n && $3 == t' "$TSW/table.txt" 2>/dev/null)
    echo "${line:-no line for $1 $T in $TSW/table.txt}"
    if [ "$T" = brc+view ]; then grep -q "aijbrc:" <<< "$line" || bad=1
    else [[ $(awk '{print $4}' <<< "$line") =~ ^(same|close)$ ]] || bad=1; fi
  done
  return $bad
}
for c in $TUTORIAL_CI; do run tutorial_sweep_$c tutorial_verdicts "$c"; done
# 9. the benchmark's CPU smoke run (correctness only)
run bench_smoke              "$BIN/bench_spmv" -matrices "random:m=500,k=6,empty=0.2,seed=$SEED;stencil7:n=8;$MATRICES/bcsstk13.mtx" -trials 2 -reps 3
# the assembly benchmark's CPU smoke run (every API and operation, products checked against aij), 1 and 2 ranks
run bench_assembly_smoke     "$BIN/bench_assembly" -n 24 -types aij,${TYPES// /,} -reps 2
run bench_assembly_smoke_n2  $MPIEXEC -n 2 "$BIN/bench_assembly" -n 24 -types aij,spmv,brc -bs 3 -reps 2
# the host-instruction tool (bench/run_host_instructions.sh, bench/host_instructions.py): its job lists (tutorial cases
# and whole-run programs, a type without the plugin loaded), and, where valgrind is installed, a count's tables from
# callgrind files and from their .self reductions (the same numbers)
host_instructions_tool() {
  local d here; d=$(mktemp -d "${TMPDIR:-/tmp}/hi.XXXXXX"); here=$(cd "$(dirname "$0")/.." && pwd)
  (cd "$here" && CASES=tests/tutorial_cases.txt ONLY='^(ksp_ex1|snes_ex5_gsmf)$' TYPES="aijcusparse-noplugin spmv" VALGRIND=true \
    BUILD="$BUILD" OUT="$d/c" bash bench/run_host_instructions.sh && PROGRAMS=ksp_ex2 TYPES="aijcusparse spmv" REPEAT=ksp_ex2 \
    VALGRIND=true BUILD="$BUILD" OUT="$d/p" bash bench/run_host_instructions.sh) || return 1
  cat "$d"/c/*/jobs.txt "$d"/p/*/jobs.txt
  [ "$(grep -c . "$d"/c/*/jobs.txt)" = 4 ] && [ "$(grep -c -- '-dll_append' "$d"/c/*/jobs.txt)" = 2 ] &&
    grep -q '^snes_ex5_gsmf__spmv|1|.*/ex5 -dll_append .* -snes_grid_sequence 2 .*-dm_mat_type spmv -dm_vec_type cuda$' "$d"/c/*/jobs.txt &&
    grep -q '^ksp_ex1__aijcusparse-noplugin|1|.*/ksp_ex1  -ksp_monitor_short -pc_type jacobi -mat_type aijcusparse ' "$d"/c/*/jobs.txt &&
    [ "$(grep -c '^ksp_ex2__' "$d"/p/*/jobs.txt)" = 3 ] || return 1
  if ! command -v valgrind > /dev/null; then echo "valgrind not installed: the counts' tables not checked"; return 0; fi
  local w=$d/cg t; mkdir -p "$w"
  for t in aij spmv; do
    echo "x__$t|1|" >> "$w/jobs.txt"
    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$w/x__$t.cg" "$BIN/spmv_solve" -dll_append "$LIB" -f stencil7:n=6 -mat_type $t > /dev/null 2>&1 || return 1
  done
  python3 "$here/bench/host_instructions.py" "$w" --summary > "$d/a.txt" && python3 "$here/bench/host_instructions.py" "$w" --reduce 2 &&
    rm "$w"/x__*.cg-0[0-9] && python3 "$here/bench/host_instructions.py" "$w" --summary > "$d/b.txt" && cat "$d/a.txt" &&
    grep -q '^x .* spmv ' "$d/a.txt" && cmp "$d/a.txt" "$d/b.txt" && rm -rf "$d"
}
run host_instructions_tool   host_instructions_tool

# 9. the users' routes. The PETSc built against (a prefix install in the self-contained build): from make test, or build/petsc.mk
PDIR=${SPMV_PETSC_DIR:-$(sed -n 's/^PETSC_DIR ?= //p' "$BUILD/petsc.mk" 2>/dev/null)}
PARCH=${SPMV_PETSC_ARCH-$(sed -n 's/^PETSC_ARCH ?= //p' "$BUILD/petsc.mk" 2>/dev/null)}
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/petsc-spmv-tests.XXXXXX"); trap 'rm -rf "$TMPD"' EXIT
PRE=$TMPD/prefix
submake() { env -u PETSC_DIR -u PETSC_ARCH make --no-print-directory "$@"; }   # the build folder's own PETSc
#    make install into a temporary prefix; a C program built only through pkg-config against it, linked to the
#    installed library (not build/lib); the installed library loaded by -dll_append into PETSc's ex19; make uninstall
installed() { submake BUILD="$BUILD" PREFIX="$PRE" install && for f in lib/libpetscspmv.so include/petscspmv.h lib/pkgconfig/petsc-spmv.pc; do
                [ -f "$PRE/$f" ] || { echo "missing $PRE/$f"; return 1; }; done && cat "$PRE/lib/pkgconfig/petsc-spmv.pc"; }
pkgconfig_program() {
  local pcdir=$PDIR/${PARCH:+$PARCH/}lib/pkgconfig cc flags
  local PKG_CONFIG_PATH=$PRE/lib/pkgconfig:$pcdir; export PKG_CONFIG_PATH
  flags=$(pkg-config --cflags --libs petsc-spmv) || return 1
  pkg-config --print-requires petsc-spmv
  cc=$(pkg-config --variable=ccompiler "$(pkg-config --print-requires petsc-spmv | awk '{print $1}')"); cc=${cc:-mpicc}   # PETSc's own C compiler (mpicc)
  echo "$cc tests/install/install_check.c $flags"
  $cc -o "$TMPD/install_check" tests/install/install_check.c $flags || return 1
  ldd "$TMPD/install_check" | grep libpetscspmv; ldd "$TMPD/install_check" | grep -q "$PRE/lib/libpetscspmv.so" || return 1
  "$TMPD/install_check"
}
uninstalled() { submake PREFIX="$PRE" uninstall && ! ls "$PRE"/lib/libpetscspmv.so "$PRE"/include/petscspmv.h "$PRE"/lib/pkgconfig/petsc-spmv.pc 2>/dev/null; }
run install_prefix           installed
run install_pkgconfig_program pkgconfig_program
run install_dll_append_ex19  grep_run "seqaijbrc (" "$BIN/ex19" -dll_append "$PRE/lib/libpetscspmv.so" -dm_mat_type brc -da_grid_x 8 -da_grid_y 8 -mat_view ::ascii_info -snes_max_it 1
run install_pkgconfig_scalar grep -q '^scalar_type=real$' "$PRE/lib/pkgconfig/petsc-spmv.pc"
run install_uninstall        uninstalled
# 10. Python (make petsc4py): examples/python/solve.py builds a nonsymmetric matrix from SciPy CSR arrays, loads the plugin
#     with -dll_append, GMRES + -pc_type poly with each type: converged, and the solution within 1e-10 of aij's
PYTHON=${PYTHON:-$BUILD/python}
for T in $TYPES; do run python_solve_$T "$PYTHON" examples/python/solve.py -mat_type $T -lib "$LIB" -grid 60 -check 1e-10; done
# 11. bad PETSc set-ups: `make` stops with one message naming the problem, before anything is compiled. Fake PETSC_DIRs
#     made from the real PETSc's petscversion.h / petscconf.h with one thing changed
fake_petsc() {   # fake_petsc NAME: a prefix-like copy of the real PETSc's headers and library link, in $TMPD/NAME
  local d=$TMPD/$1; mkdir -p "$d/include" "$d/lib/petsc/conf"
  cp "$PDIR/include/petscversion.h" "$d/include/"; cp "$PDIR/${PARCH:+$PARCH/}include/petscconf.h" "$d/include/"
  ln -s "$PDIR/${PARCH:+$PARCH/}lib/libpetsc.so" "$d/lib/libpetsc.so"; cp "$PDIR/lib/petsc/conf/variables" "$d/lib/petsc/conf/"
  echo "$d"
}
bad_setup() {    # bad_setup PATTERN PETSC_DIR [PETSC_ARCH]: `make lib` fails, says PATTERN, compiles nothing
  local pat=$1 b; b=$(mktemp -d "$TMPD/build.XXXX")
  submake BUILD="$b" PETSC_DIR="$2" PETSC_ARCH="${3:-}" lib > "$b.out" 2>&1; local rc=$?
  cat "$b.out"
  [ $rc -ne 0 ] || { echo "make succeeded"; return 1; }
  grep -q -- "$pat" "$b.out" || { echo "no message '$pat'"; return 1; }
  [ ! -e "$b/obj" ] || { echo "compiling started"; return 1; }
}
bad_setup_run() { local name=$1; shift; run $name bad_setup "$@"; }
if [ -n "$PDIR" ]; then
  d=$(fake_petsc notpetsc); rm "$d/include/petscversion.h"
  bad_setup_run bad_petsc_dir_not_petsc "is not a PETSc: no include/petscversion.h" "$d"
  d=$(fake_petsc nocuda);    sed -i '/define PETSC_HAVE_CUDA 1/d' "$d/include/petscconf.h"
  bad_setup_run bad_petsc_no_cuda       "configured without CUDA.*--with-cuda=1" "$d"
  d=$(fake_petsc static);    rm "$d/lib/libpetsc.so"; touch "$d/lib/libpetsc.a"; sed -i '/define PETSC_USE_SHARED_LIBRARIES/d' "$d/include/petscconf.h"
  bad_setup_run bad_petsc_static        "is a static PETSc.*--with-shared-libraries=1" "$d"
  d=$(fake_petsc old);       sed -i 's/define PETSC_VERSION_MINOR .*/define PETSC_VERSION_MINOR      22/' "$d/include/petscversion.h"
  bad_setup_run bad_petsc_version       "is PETSc 3.22.[0-9]*, which petsc-spmv does not support: it builds against PETSc 3.26.x" "$d"
  d=$(fake_petsc single);    sed -i 's/define PETSC_USE_REAL_DOUBLE 1/define PETSC_USE_REAL_SINGLE 1/' "$d/include/petscconf.h"
  bad_setup_run bad_petsc_single        "does not have double-precision scalars.*real or complex scalars.*--with-precision=double" "$d"
  d=$(fake_petsc srctree);   mkdir -p "$d/arch-x/include" && mv "$d/include/petscconf.h" "$d/arch-x/include/"
  bad_setup_run bad_petsc_no_arch       "set PETSC_ARCH to one of its builds: arch-x" "$d"
  bad_setup_run bad_petsc_prefix_arch   "installed (prefix) PETSc, which has no PETSC_ARCH: unset PETSC_ARCH" "$(fake_petsc prefixarch)" arch-x
else
  fail=$((fail+1)); failed+=(bad_setups); note FAIL "bad_setups: no PETSc known (SPMV_PETSC_DIR or $BUILD/petsc.mk)"
fi

# 12. the Python package (pyproject.toml, python/): `pip install .` into a fresh venv against this PETSc (PETSC_DIR),
#     examples/python/solve.py through petsc_spmv.init with every type (converged, within 1e-10 of aij's), the wheel's
#     pkg-config file, the version check of init; the sdist of `python -m build --sdist` installed into a second fresh
#     venv (a build from scratch: it must carry everything make needs) gives a library exporting the same symbols and
#     the same solutions; no PETSc / an unsuitable PETSc: pip stops with the one message and compiles nothing.
#     Speed: the venvs are fresh (python -m venv) and petsc-spmv goes in with a real pip install, but petsc4py, NumPy
#     and SciPy come from the cached petsc4py venv of make petsc4py (same python) through a .pth file in each venv
#     instead of being built/installed again (petsc4py alone takes minutes). `pip install .` uses the suite's own
#     make build folder (PETSC_SPMV_BUILD_DIR=$BUILD: the backend runs `make lib` and `make install` there, so it
#     compiles nothing that make has compiled); the sdist build uses a fresh one (the backend's default). About 1.5
#     minutes on 2 cores, most of it the sdist's compile.
PYEXE=$("$PYTHON" -c 'import sys; print(sys.executable)' 2>/dev/null)
PYSITE=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)
ABSBUILD=$(cd "$BUILD" && pwd)
fresh_venv() {   # fresh_venv DIR: a new venv of the cached petsc4py venv's python that sees petsc4py/NumPy/SciPy
  "$PYEXE" -m venv "$1" && echo "$PYSITE" > "$("$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/zz-cached-petsc4py.pth" &&
    "$1/bin/python" -c 'import petsc4py, numpy, scipy' && ! "$1/bin/python" -c 'import petsc_spmv' 2>/dev/null
}
pip_checkout() {
  fresh_venv "$TMPD/venv1" || return 1
  PETSC_DIR=$PDIR PETSC_ARCH=$PARCH PETSC_SPMV_BUILD_DIR=$ABSBUILD "$TMPD/venv1/bin/python" -m pip install --no-cache-dir -v . || return 1
  "$TMPD/venv1/bin/python" -c 'import petsc_spmv as p; print(p.get_config()); import os; assert os.path.isfile(p.get_library()) and os.path.isfile(p.get_include() + "/petscspmv.h")'
}
pip_solve() {    # pip_solve VENV: solve.py through petsc_spmv.init (the venv's library), every type, 1e-10 of aij's
  "$1/bin/python" examples/python/solve.py -mat_type "${TYPES// /,}" -grid 60 -check 1e-10 > "$1.solve" 2>&1; local rc=$?
  cat "$1.solve"; [ $rc -eq 0 ] && grep -q "plugin $1/.*/petsc_spmv/lib/libpetscspmv.so (petsc_spmv.init)" "$1.solve" &&
    [ "$(grep -cE "^($(echo aij $TYPES | tr ' ' '|')) " "$1.solve")" = "$(echo aij $TYPES | wc -w)" ]
}
pip_pkgconfig() {  # the wheel's petsc-spmv.pc (relocated with ${pcfiledir}) builds and links tests/install/install_check.c
  local pc flags; pc=$("$TMPD/venv1/bin/python" -c 'import petsc_spmv; print(petsc_spmv.get_pkgconfig_dir())')
  flags=$(PKG_CONFIG_PATH=$pc:$PDIR/${PARCH:+$PARCH/}lib/pkgconfig pkg-config --cflags --libs petsc-spmv) || return 1
  echo "mpicc tests/install/install_check.c $flags"
  mpicc -o "$TMPD/pip_check" tests/install/install_check.c $flags || return 1
  local linked; linked=$(ldd "$TMPD/pip_check" | awk '$1 == "libpetscspmv.so" {print $3}'); echo "linked: $linked"
  [ -n "$linked" ] && [ "$(realpath "$linked")" = "$(realpath "$pc/../libpetscspmv.so")" ] && "$TMPD/pip_check"
}
pip_init_checks() {  # init after PETSc is running registers the types; a PETSc of another version is refused
  "$TMPD/venv1/bin/python" -c "
from petsc4py import PETSc
import petsc_spmv
petsc_spmv.init()
M = PETSc.Mat().create(comm=PETSc.COMM_SELF); M.setSizes(8); M.setType('brc'); print('type', M.getType())
assert M.getType().endswith('brc')" || return 1
  "$TMPD/venv1/bin/python" -c "import petsc_spmv; petsc_spmv.PETSC_VERSION = '3.25.0'; petsc_spmv.init()" 2>&1 |
    tee /dev/stderr | grep -q "built against PETSc 3.25.0 (PETSC_DIR=.*), but petsc4py runs PETSc [0-9.]*"
}
pip_sdist() {    # python -m build --sdist, then pip install of it into a fresh venv: a build from scratch
  rm -rf "$TMPD/dist" && "$TMPD/venv1/bin/python" -m pip install -q build && "$TMPD/venv1/bin/python" -m build --sdist -o "$TMPD/dist" . || return 1
  tar -tzf "$TMPD"/dist/petsc_spmv-*.tar.gz | sed 's,^[^/]*/,,' | grep -qx PKG-INFO || return 1
  fresh_venv "$TMPD/venv2" && PETSC_DIR=$PDIR PETSC_ARCH=$PARCH "$TMPD/venv2/bin/python" -m pip install --no-cache-dir -v "$TMPD"/dist/petsc_spmv-*.tar.gz || return 1
  local l1 l2; l1=$("$TMPD/venv1/bin/python" -c 'import petsc_spmv; print(petsc_spmv.get_library())'); l2=$("$TMPD/venv2/bin/python" -c 'import petsc_spmv; print(petsc_spmv.get_library())')
  diff <(nm -D --defined-only "$l1" | awk '{print $2, $3}') <(nm -D --defined-only "$l2" | awk '{print $2, $3}') && echo "same exported symbols: $l1 $l2"
}
pip_bad() {      # pip_bad PATTERN [PETSC_DIR]: pip install of the checkout fails saying PATTERN, nothing compiled
  local pat=$1 b=$TMPD/pipbad.$RANDOM
  if [ -n "${2:-}" ]; then env -u PETSC_ARCH PETSC_DIR="$2" PETSC_SPMV_BUILD_DIR="$b" "$TMPD/venv1/bin/python" -m pip install . > "$b.out" 2>&1
  else env -u PETSC_DIR -u PETSC_ARCH PETSC_SPMV_BUILD_DIR="$b" "$TMPD/venv1/bin/python" -m pip install . > "$b.out" 2>&1; fi; local rc=$?
  cat "$b.out"
  [ $rc -ne 0 ] || { echo "pip install succeeded"; return 1; }
  grep -q -- "$pat" "$b.out" || { echo "no message '$pat'"; return 1; }
  [ ! -e "$b/obj" ] || { echo "compiling started"; return 1; }
}
if [ -n "$PYEXE" ] && [ -n "$PDIR" ]; then
  run pip_install_checkout     pip_checkout
  run pip_solve_every_type     pip_solve "$TMPD/venv1"
  run pip_pkgconfig_program    pip_pkgconfig
  run pip_init_checks          pip_init_checks
  run pip_no_petsc             pip_bad "petsc-spmv: no PETSc to build against: PETSC_DIR is not set and PyPI's petsc is not installed"
  d=$(fake_petsc pipnocuda); sed -i '/define PETSC_HAVE_CUDA 1/d' "$d/include/petscconf.h"
  run pip_petsc_no_cuda        pip_bad "configured without CUDA.*--with-cuda=1" "$d"
  run pip_sdist_install        pip_sdist
  run pip_sdist_solve          pip_solve "$TMPD/venv2"
else
  fail=$((fail+1)); failed+=(pip_package); note FAIL "pip_package: no petsc4py python ($PYTHON) or no PETSc known"
fi

# 13. complex scalars (issue #28): the library built against the complex PETSc (make test on the self-built route)
[ -z "${COMPLEX_BUILD:-}" ] || . "$(dirname "$0")/complex.sh"
# 14. 64-bit PetscInt: the library built against PETSc --with-64-bit-indices (make test on the self-built route)
[ -z "${INT64_BUILD:-}" ] || . "$(dirname "$0")/int64.sh"

summary
