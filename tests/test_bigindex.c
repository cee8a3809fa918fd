static char help[] = "A block with 2^31 or more nonzeros (64-bit PetscInt, on a GPU): past the layouts' 32-bit indices, which\n"
                     "aijcusparse multiplies with cuSPARSE's 64-bit indices. The petsc-spmv type keeps the parent's product\n"
                     "instead of stopping: y = A x and y = y0 + A x, each equal to the exact (integer-valued) product;\n"
                     "MatSpMVGetFormat answers csr. 2^20 rows of 2049 nonzeros: about 35 GB on the host and as much on the device\n"
                     "(PETSc's CUDA vectors hold at most 2^31 - 1 entries, so rows and columns cannot overflow there, only\n"
                     "nonzeros). 32-bit PetscInt: skipped.\n"
                     "  -type brc\n\n";

#include <petscspmv.h>

int main(int argc, char **argv)
{
  char type[64] = MATBRC;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
#if !defined(PETSC_USE_64BIT_INDICES)
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "test_bigindex: skipped (32-bit PetscInt: no block can overflow)\n"));
#else
  {
    /* row r holds columns t * S + r % S, t = 0..K-1 (sorted, distinct), values 1 + t % 7; x_c = 1 + c % 5 */
    const PetscInt m = (PetscInt)1 << 20, K = 2049, S = 512, n = K * S, nnz = m * K;
    PetscInt      *i, *j;
    PetscScalar   *a, *xa;
    const PetscScalar *ya;
    Mat            A;
    Vec            x, y, y0;
    const char    *format = NULL;
    PetscBool      csr;

    PetscCheck(nnz > PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the block should pass 2^31 - 1 nonzeros");
    PetscCall(PetscMalloc1(m + 1, &i));
    PetscCall(PetscMalloc1(nnz, &j));
    PetscCall(PetscMalloc1(nnz, &a));
    for (PetscInt r = 0; r <= m; r++) i[r] = r * K;
    for (PetscInt r = 0; r < m; r++)
      for (PetscInt t = 0; t < K; t++) {
        j[r * K + t] = t * S + r % S;
        a[r * K + t] = 1 + t % 7;
      }
    PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, n, i, j, a, &A)); /* the arrays stay the caller's */
    PetscCall(MatConvert(A, type, MAT_INPLACE_MATRIX, &A));
    PetscCall(MatSetFromOptions(A)); /* -mat_cusparse_spmv_alg (cuSPARSE's CSR_ALG1, the default, stopped at 2^31 nonzeros on an H100) */
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecDuplicate(y, &y0));
    PetscCall(VecGetArrayWrite(x, &xa));
    for (PetscInt c = 0; c < n; c++) xa[c] = 1 + c % 5;
    PetscCall(VecRestoreArrayWrite(x, &xa));
    PetscCall(VecSet(y0, 3.0));
    for (int add = 0; add < 2; add++) {
      PetscReal err = 0;
      if (add) PetscCall(MatMultAdd(A, x, y0, y));
      else PetscCall(MatMult(A, x, y));
      PetscCall(VecGetArrayRead(y, &ya));
      for (PetscInt r = 0; r < m; r++) {
        PetscReal e = add ? 3 : 0;
        for (PetscInt t = 0; t < K; t++) e += (PetscReal)((1 + t % 7) * (1 + (t * S + r % S) % 5));
        err = PetscMax(err, PetscAbsScalar(ya[r] - e) / e);
      }
      PetscCall(VecRestoreArrayRead(y, &ya));
      PetscCheck(err <= 1e-14, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s differs from the exact product by %g (relative)", type, add ? "MatMultAdd" : "MatMult", (double)err);
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok   %s %s on %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT " nonzeros: relative error %g\n", type, add ? "MatMultAdd" : "MatMult", m, n, nnz, (double)err));
    }
    PetscCall(MatSpMVGetFormat(A, &format));
    PetscCall(PetscStrcmp(format, "csr", &csr));
    PetscCheck(csr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatSpMVGetFormat says %s, expected csr (the parent's product)", type, format ? format : "(null)");
    PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(A, PETSC_VIEWER_STDOUT_SELF));
    PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
    PetscCall(MatDestroy(&A));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&y0));
    PetscCall(PetscFree(i));
    PetscCall(PetscFree(j));
    PetscCall(PetscFree(a));
  }
#endif
  PetscCall(PetscFinalize());
  return 0;
}
