#!/usr/bin/env bash
# The test suite: runs every check, prints one line each, ends with "N passed, N failed".
# Called by `make test` (which sets BUILD, MPIEXEC and the library path). No GPU needed: without one the
# plugin types run their host reference, so every layout goes through real PETSc solves.
set -u
BUILD=${BUILD:-build}; BIN=$BUILD/bin; LIB=$(cd "$BUILD/lib" && pwd)/libpetscspmv.so
MATRICES=${MATRICES:-$(cd "$(dirname "$0")/../.." && pwd)/shared/matrices}
MPIEXEC=${MPIEXEC:-mpiexec}
LOG=$BUILD/test-logs; mkdir -p "$LOG"
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
pass=0; fail=0; failed=()
note() { printf '%-6s %s\n' "$1" "$2"; }

# run NAME CMD...: passes when CMD exits 0
run() {
  local name=$1; shift
  if "$@" > "$LOG/$name.log" 2>&1; then pass=$((pass+1)); note ok "$name"
  else fail=$((fail+1)); failed+=("$name"); note FAIL "$name  (log: $LOG/$name.log)"; tail -15 "$LOG/$name.log" | sed 's/^/       /'; fi
}
# expect_error NAME PATTERN CMD...: passes when CMD fails cleanly (PETSc error, no signal) and prints PATTERN
expect_error() {
  local name=$1 pat=$2; shift 2
  "$@" > "$LOG/$name.log" 2>&1; local rc=$?
  if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "PETSC ERROR" "$LOG/$name.log" && grep -q -- "$pat" "$LOG/$name.log"; then
    pass=$((pass+1)); note ok "$name (exit $rc, PETSc error)"
  else fail=$((fail+1)); failed+=("$name"); note FAIL "$name  (exit $rc; log: $LOG/$name.log)"; fi
}
# iteration counts, and the SNES residual norms to 3 digits (the last digits are rounding)
its() { awk '/iterations/ {print} /SNES Function norm/ {printf "%s %.3e\n", $1, $NF}' "$1"; }
# same_convergence NAME ARGS...: ex19 with aij and with brc print the same Newton and linear iteration counts
same_convergence() {
  local name=$1; shift
  local ex="${NP:+$MPIEXEC -n $NP} $BIN/ex19 -dll_append $LIB -da_grid_x 24 -da_grid_y 24 -snes_monitor -ksp_converged_reason -snes_converged_reason $*"
  $ex -dm_mat_type aij > "$LOG/$name.aij.log" 2>&1 && $ex -dm_mat_type brc > "$LOG/$name.brc.log" 2>&1 &&
    its "$LOG/$name.aij.log" > "$LOG/$name.aij.its" && its "$LOG/$name.brc.log" > "$LOG/$name.brc.its" &&
    [ -s "$LOG/$name.aij.its" ] && diff "$LOG/$name.aij.its" "$LOG/$name.brc.its"
}
on_ranks() { local NP=$1; shift; "$@"; }   # same_convergence under mpiexec -n NP
ex19_brc() { "$BIN/ex19" -dll_append "$LIB" -dm_mat_type brc -da_grid_x 16 -da_grid_y 16 "$@"; }
grep_run() { local pat=$1; shift; "$@" 2>&1 | tee /dev/stderr | grep -q -- "$pat"; }

echo "petsc-spmv tests (seed $SEED, matrices from $MATRICES)"
# 1. the BRC host reference against CSR (paper example, adversarial and random matrices)
run brc_host                 "$BIN/test_brc_host" -seed "$SEED"
# 2. Mat operations through PETSc: convert, duplicate, copy, MatSetValues after assembly, bind, NaN, options
run matops                   "$BIN/test_matops" -seed "$SEED"
# 3. KSP: GMRES and BiCGSTAB with none / Jacobi / ILU, same iterations and solutions (1e-10) as AIJ
run ksp_cage10               "$BIN/test_ksp" -matrix "$MATRICES/cage10.mtx"
run ksp_stencil27            "$BIN/test_ksp" -matrix "stencil27:n=14"
run ksp_random               "$BIN/test_ksp" -matrix "random:m=3000,k=8,seed=$SEED"
run ksp_kron_cage10          "$BIN/test_ksp" -matrix "$MATRICES/cage10.mtx:3" -ksp_types gmres -pc_types jacobi
# split rows (dense rows longer than B2) sum in pieces, so rounding differs from CSR: robust solves only
run ksp_split_rows           "$BIN/test_ksp" -matrix "denserows:m=4000,k=6,len=2500,dense=4" -ksp_types gmres -pc_types none,jacobi,ilu
run ksp_split_rows_bcgs      "$BIN/test_ksp" -matrix "denserows:m=4000,k=6,len=2500,dense=4" -ksp_types bcgs -pc_types jacobi,ilu
run ksp_mpiexec_1            $MPIEXEC -n 1 "$BIN/test_ksp" -matrix "$MATRICES/cage10.mtx" -ksp_types gmres -pc_types ilu
# 4. PETSc's unmodified ex19 (SNES + FD coloring), loaded with -dll_append: same convergence as aij
run ex19_ilu_gmres           same_convergence ex19_ilu_gmres
# BiCGSTAB+Jacobi on ex19 is sensitive to the last bit: AIJ's inode kernel sums column pairs, BRC (like
# plain CSR) sums in order, so compare against AIJ without inodes (then they agree bit for bit)
run ex19_jacobi_bcgs         same_convergence ex19_jacobi_bcgs -pc_type jacobi -ksp_type bcgs -mat_no_inode
run ex19_none_gmres          same_convergence ex19_none_gmres -pc_type none -ksp_type gmres -ksp_max_it 2000
run ex19_fd_color_fgmres     same_convergence ex19_fd_color_fgmres -snes_fd_color -ksp_type fgmres -pc_type ilu
run ex19_view_info           grep_run "BRC: B1 32, block width" ex19_brc -mat_view ::ascii_info -snes_max_it 1
run ex19_help_text           grep_run "mat_brc_width_max" ex19_brc -help -snes_max_it 1
# 5. the MPI twin mpiaijbrc: 1-4 ranks, blocks of the plugin type, MatSetValues from any rank, a rank
#    with no rows, hash-path creation; KSP with block Jacobi / ASM (ILU inside); ex19 on several ranks
for np in 1 2 3 4; do run mpi_ops_n$np $MPIEXEC -n $np "$BIN/test_mpi"; done
for np in 2 3; do
  run mpi_ksp_cage10_n$np    $MPIEXEC -n $np "$BIN/test_ksp" -matrix "$MATRICES/cage10.mtx" -pc_types none,jacobi,bjacobi,asm
  run mpi_ksp_stencil_n$np   $MPIEXEC -n $np "$BIN/test_ksp" -matrix "stencil27:n=12" -pc_types jacobi,bjacobi
  run mpi_ex19_n$np          on_ranks $np same_convergence mpi_ex19_n$np
done
run mpi_ksp_empty_rank       $MPIEXEC -n 3 "$BIN/test_ksp" -matrix "banded:m=2,bw=1" -pc_types jacobi -ksp_types gmres
run mpi_ex19_view            grep_run "mpiaijbrc: diagonal and off-diagonal blocks are seqaijbrc" $MPIEXEC -n 2 "$BIN/ex19" -dll_append "$LIB" -dm_mat_type brc -da_grid_x 8 -da_grid_y 8 -mat_view ::ascii_info -snes_max_it 1
# 6. bad input: clear PETSc errors
expect_error bad_width_max   "mat_brc_width_max" ex19_brc -mat_brc_width_max 0
expect_error bad_coarsen     "mat_brc_coarsen"   ex19_brc -mat_brc_coarsen -1
expect_error bad_width_c     "mat_brc_width_c"   ex19_brc -mat_brc_width_c 0
# 7. examples: a solve from a Matrix Market file, and the benchmark's CPU smoke run (correctness only)
run solve_mtx                grep_run "seqaijbrc: " "$BIN/spmv_solve" -f "$MATRICES/nasa4704.mtx" -mat_type brc -ksp_type cg -pc_type jacobi -ksp_max_it 5000
run bench_smoke              "$BIN/bench_spmv" -matrices "random:m=500,k=6,empty=0.2,seed=$SEED;stencil7:n=8;$MATRICES/bcsstk13.mtx" -trials 2 -reps 3

echo
[ $fail -eq 0 ] || echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
