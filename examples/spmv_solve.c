static char help[] = "Solve A x = b with a matrix from a Matrix Market file (optionally :k for kron(I_k, A)), a PETSc\n"
                     "binary file (.bin) or a generator, in any matrix type: -mat_type brc, aijcusparse, aij, ...\n"
                     "  -f <spec>   the matrix (see examples/spmvexamples.h)\n\n";

#include <petscksp.h>
#include <petscspmv.h>
#include "spmvexamples.h"

int main(int argc, char **argv)
{
  char      spec[PETSC_MAX_PATH_LEN] = "stencil7:n=20";
  Mat       A;
  Vec       x, b;
  KSP       ksp;
  PetscInt  its;
  PetscReal rnorm;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage()); /* not needed when the library is loaded with -dll_append */
  PetscCall(PetscOptionsGetString(NULL, NULL, "-f", spec, sizeof(spec), NULL));
  PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, spec, &A));
  PetscCall(MatSetFromOptions(A)); /* -mat_type brc converts the assembled AIJ; -mat_brc_* knobs apply */
  PetscCall(MatViewFromOptions(A, NULL, "-view_mat"));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, b));
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));
  PetscCall(VecShift(x, -1.0));
  {
    PetscReal err;
    MatType   type;
    PetscCall(VecNorm(x, NORM_INFINITY, &err));
    PetscCall(MatGetType(A, &type));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " iterations, residual norm %.3e, max error %.3e\n", type, its, (double)rnorm, (double)err));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
