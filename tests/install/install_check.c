static char help[] = "A program built against an installed petsc-spmv through pkg-config: a brc matrix (MATBRC) and one\n"
                     "MatMult, compared with AIJ's product.\n"
                     "  mpicc install_check.c $(pkg-config --cflags --libs petsc-spmv) -o install_check\n\n";

#include <petscspmv.h>

/* the 5-point Laplacian of an n x n grid with a convection term (nonsymmetric), into an assembled matrix of type t */
static PetscErrorCode Build(const char *t, PetscInt n, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, n * n, n * n, n * n, n * n));
  PetscCall(MatSetType(*A, t));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      PetscInt    r = i * n + j, c[5], k = 0;
      PetscScalar v[5];
      if (i > 0) { c[k] = r - n; v[k++] = -1.3; }
      if (j > 0) { c[k] = r - 1; v[k++] = -1.1; }
      c[k] = r; v[k++] = 4.0 + 0.01 * (r % 7);
      if (j < n - 1) { c[k] = r + 1; v[k++] = -0.9; }
      if (i < n - 1) { c[k] = r + n; v[k++] = -0.7; }
      PetscCall(MatSetValues(*A, 1, &r, k, c, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat       A, B;
  Vec       x, ya, yb;
  MatType   t;
  PetscReal na, diff;
  PetscInt  n = 40;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(Build(MATAIJ, n, &A));
  PetscCall(Build(MATBRC, n, &B));
  PetscCall(MatGetType(B, &t));
  PetscCall(MatCreateVecs(A, &x, &ya));
  PetscCall(VecDuplicate(ya, &yb));
  for (PetscInt i = 0; i < n * n; i++) PetscCall(VecSetValue(x, i, 0.25 * (PetscReal)(i % 13) - 1.5, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(x));
  PetscCall(VecAssemblyEnd(x));
  PetscCall(MatMult(A, x, ya));
  PetscCall(MatMult(B, x, yb));
  PetscCall(VecNorm(ya, NORM_2, &na));
  PetscCall(VecAXPY(yb, -1.0, ya));
  PetscCall(VecNorm(yb, NORM_2, &diff));
  diff /= na;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "install_check: MatMult of a %s matrix (%" PetscInt_FMT " rows) against aij: relative difference %g\n", t, n * n, (double)diff));
  PetscCheck(diff <= 1e-14, PETSC_COMM_SELF, PETSC_ERR_PLIB, "brc product differs from aij's by %g", (double)diff);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&yb));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFinalize());
  return 0;
}
