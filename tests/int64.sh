# 64-bit PetscInt: the checks against a PETSc configured --with-64-bit-indices, on its own build folder INT64_BUILD
# (make INDICES=64). Sourced by tests/run.sh at its end (make test: the self-built PETSc route builds it too), with run.sh's
# helpers and counters; `make INDICES=64 test` runs it alone (bash tests/int64.sh), then it prints its own summary.
# Every PetscInt (the CSR's row offsets and columns, sizes, counts) is 64 bits there: the host references index the CSR
# through 64-bit offsets, the formats' 32-bit layouts narrow them, and the GPU path narrows the device CSR once per
# pattern (aijspmv.cu; it compiles here, it runs only on a GPU). No GPU: the types run their host references
# (-mat_spmv_host_reference through PETSC_OPTIONS) and, with `plain`, SeqAIJ's product.
IB=${INT64_BUILD:?INT64_BUILD: the 64-bit-index build folder}; IBIN=$IB/bin
if ! declare -F run > /dev/null; then set -u; LOG=$IB/test-logs; STANDALONE=1; . "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"; fi # alone
ILIB=$IB/lib/libpetscspmv.so
echo "64-bit PetscInt: $IB (PETSc $(sed -n 's/^PETSC_DIR ?= //p' "$IB/petsc.mk" 2>/dev/null))"
# the PETSc really has 64-bit indices (else every check below would repeat the 32-bit ones)
run int64_petsc grep -q '^#define PETSC_USE_64BIT_INDICES 1' "$(sed -n 's/^PETSC_DIR ?= //p' "$IB/petsc.mk")/include/petscconf.h"
# the formats' host references against CSR (the unit tests: paper examples, adversarial and random matrices)
for t in "$IBIN"/test_*_host; do run int64_$(basename "$t") "$t" -seed "$SEED"; done
ITYPES=${ITYPES:-spmv brc suraa ccoo argcsr segsum dcsr}
for T in $ITYPES; do
  # Mat operations and every parent operation against AIJ, KSP solves against AIJ's, the MPI twin on 2 ranks
  run int64_${T}_matops      "$IBIN/test_matops" -type $T -seed "$SEED"
  run int64_${T}_aijops      "$IBIN/test_aijops" -type $T -seed "$SEED"
  run int64_${T}_ksp         "$IBIN/test_ksp" -type $T -matrix "stencil27:n=14"
  run int64_${T}_ksp_random  "$IBIN/test_ksp" -type $T -matrix "random:m=3000,k=8,seed=$SEED"
  run int64_${T}_mpi_n2      $MPIEXEC -n 2 "$IBIN/test_mpi" -type $T
done
# PETSc's own programs: ex19 (SNES) with aij's iterations, ex56 with GAMG (PtAP of plugin-typed operands) likewise
solve_its() { grep -h -E "Linear solve converged|Nonlinear solve converged" "$@"; }
i19() { "$IBIN/ex19" -dll_append "$ILIB" -da_grid_x 32 -da_grid_y 32 -ksp_converged_reason -snes_converged_reason "$@"; }
i56() { "$IBIN/ex56" -dll_append "$ILIB" -ne 7 -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason "$@"; }
same_its() { local a b; a=$(solve_its "$1") && b=$(solve_its "$2") && [ -n "$a" ] && [ "$a" = "$b" ]; }
plain i19 -dm_mat_type aij > "$LOG/int64_ex19_aij.out" 2>&1
plain i56 -mat_type aij > "$LOG/int64_ex56_aij.out" 2>&1
for T in spmv brc; do
  plain i19 -dm_mat_type $T > "$LOG/int64_ex19_$T.out" 2>&1
  run int64_ex19_$T same_its "$LOG/int64_ex19_aij.out" "$LOG/int64_ex19_$T.out"
  plain i56 -mat_type $T > "$LOG/int64_ex56_$T.out" 2>&1
  run int64_ex56_gamg_$T same_its "$LOG/int64_ex56_aij.out" "$LOG/int64_ex56_$T.out"
done
# every preconditioner of test_pcs (block sizes 1-3) with the host references, 1 and 2 ranks, one type
for np in 1 2; do run int64_spmv_pcs_n$np $MPIEXEC -n $np "$IBIN/test_pcs" -type spmv -compare rounding; done
if [ "${STANDALONE:-0}" = 1 ]; then summary; fi
