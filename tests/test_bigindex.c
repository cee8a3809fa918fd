static char help[] = "A block that overflows the layouts' 32-bit indices (64-bit PetscInt, on a GPU): 8 rows and 2^31 + 64\n"
                     "columns, which aijcusparse multiplies with cuSPARSE's 64-bit indices. The petsc-spmv type keeps the\n"
                     "parent's product instead of stopping: y = A x, y = y0 + A x and again after new values, each equal to\n"
                     "aijcusparse's; MatSpMVGetFormat answers csr. Needs 2 x 17 GB for x (host and device). 32-bit PetscInt: skipped.\n"
                     "  -type brc\n\n";

#include <petscspmv.h>

int main(int argc, char **argv)
{
  char type[64] = MATBRC;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
#if !defined(PETSC_USE_64BIT_INDICES)
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "test_bigindex: skipped (32-bit PetscInt: no block can overflow)\n"));
#else
  {
    const PetscInt m = 8, big = (PetscInt)1 << 31, n = big + 64;
    Mat            A[2];
    Vec            x, y[2], y0;
    const char    *format = NULL;
    PetscBool      csr;

    for (int k = 0; k < 2; k++) { /* 0: aijcusparse, 1: the type under test; the same entries */
      PetscCall(MatCreate(PETSC_COMM_SELF, &A[k]));
      PetscCall(MatSetSizes(A[k], m, n, m, n));
      PetscCall(MatSetType(A[k], k ? type : MATSEQAIJCUSPARSE));
      PetscCall(MatSeqAIJSetPreallocation(A[k], 3, NULL));
      for (PetscInt r = 0; r < m; r++) { /* a column below 2^31, one above it and the last ones */
        const PetscInt    cols[3] = {r, big + r, n - 1 - r};
        const PetscScalar vals[3] = {r + 1.0, 1000.0 * (r + 1), -0.5 * (r + 1)};
        PetscCall(MatSetValues(A[k], 1, &r, 3, cols, vals, INSERT_VALUES));
      }
      PetscCall(MatAssemblyBegin(A[k], MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A[k], MAT_FINAL_ASSEMBLY));
    }
    PetscCall(MatCreateVecs(A[0], &x, &y[0]));
    PetscCall(VecDuplicate(y[0], &y[1]));
    PetscCall(VecDuplicate(y[0], &y0));
    PetscCall(VecSet(x, 1.0));
    PetscCall(VecSet(y0, 3.0));
    for (int pass = 0; pass < 2; pass++) {   /* pass 1: new values, the same pattern (a refresh) */
      for (int add = 0; add < 2; add++) {
        PetscReal e, nrm;
        for (int k = 0; k < 2; k++) {
          if (add) PetscCall(MatMultAdd(A[k], x, y0, y[k]));
          else PetscCall(MatMult(A[k], x, y[k]));
        }
        PetscCall(VecNorm(y[0], NORM_2, &nrm));
        PetscCall(VecAXPY(y[1], -1.0, y[0]));
        PetscCall(VecNorm(y[1], NORM_2, &e));
        PetscCheck(nrm > 0 && e <= 1e-14 * nrm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s differs from aijcusparse's by %g (|y| = %g)", type, add ? "MatMultAdd" : "MatMult", (double)e, (double)nrm);
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok   %s %s%s: |y - y_aijcusparse| = %g, |y| = %g\n", type, add ? "MatMultAdd" : "MatMult", pass ? " after new values" : "", (double)e, (double)nrm));
      }
      for (int k = 0; k < 2; k++) PetscCall(MatScale(A[k], 2.0));
    }
    PetscCall(MatSpMVGetFormat(A[1], &format));
    PetscCall(PetscStrcmp(format, "csr", &csr));
    PetscCheck(csr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatSpMVGetFormat says %s, expected csr (the parent's product)", type, format ? format : "(null)");
    PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(A[1], PETSC_VIEWER_STDOUT_SELF));
    PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "test_bigindex: %s keeps the parent's product on a %" PetscInt_FMT " x %" PetscInt_FMT " block\n", type, m, n));
    for (int k = 0; k < 2; k++) {
      PetscCall(MatDestroy(&A[k]));
      PetscCall(VecDestroy(&y[k]));
    }
    PetscCall(VecDestroy(&y0));
    PetscCall(VecDestroy(&x));
  }
#endif
  PetscCall(PetscFinalize());
  return 0;
}
