static char help[] = "session 37: which product of a Galerkin chain goes wrong on a type (aijcusparse included)\n";
#include <petscspmv.h>
#include "spmvexamples.h"
static char type[64] = "aijcusparse";
static PetscErrorCode Err(Mat R, Mat M, const char *what)
{
  Mat H; PetscReal nr, nd; MatType t;
  PetscFunctionBeginUser;
  PetscCall(MatConvert(M, MATAIJ, MAT_INITIAL_MATRIX, &H));
  PetscCall(MatNorm(R, NORM_FROBENIUS, &nr));
  PetscCall(MatAXPY(H, -1.0, R, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(H, NORM_FROBENIUS, &nd));
  PetscCall(MatGetType(M, &t));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-44s rel. diff %.3e (%s)\n", type, what, (double)(nd / nr), t));
  PetscCall(MatDestroy(&H));
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* MatMult with a vector of ones on the type's own vectors against AIJ's */
static PetscErrorCode ErrMult(Mat R, Mat M, const char *what)
{
  Vec x, y, xr, yr; const PetscScalar *a, *b; PetscInt n; PetscReal e = 0, nr = 0;
  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(M, &x, &y)); PetscCall(MatCreateVecs(R, &xr, &yr));
  PetscCall(VecSet(x, 1.0)); PetscCall(VecSet(xr, 1.0));
  PetscCall(MatMult(M, x, y)); PetscCall(MatMult(R, xr, yr));
  PetscCall(VecGetLocalSize(y, &n)); PetscCall(VecGetArrayRead(y, &a)); PetscCall(VecGetArrayRead(yr, &b));
  for (PetscInt i = 0; i < n; i++) { e += PetscAbsScalar(a[i] - b[i]) * PetscAbsScalar(a[i] - b[i]); nr += PetscAbsScalar(b[i]) * PetscAbsScalar(b[i]); }
  PetscCall(VecRestoreArrayRead(y, &a)); PetscCall(VecRestoreArrayRead(yr, &b));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-44s MatMult rel. diff %.3e\n", type, what, (double)PetscSqrtReal(e / nr)));
  PetscCall(VecDestroy(&x)); PetscCall(VecDestroy(&y)); PetscCall(VecDestroy(&xr)); PetscCall(VecDestroy(&yr));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode Pair(const char *spec, Mat *R, Mat *M)
{
  Mat A;
  PetscFunctionBeginUser;
  PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, spec, &A));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, R));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, M));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
int main(int argc, char **argv)
{
  Mat AR, AM, PR, PM, QR, QM, C1R, C1M, X, Y, Z, D, T;
  char spec[64];
  PetscInt k;
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(Pair("random:m=400,k=7,seed=3", &AR, &AM));
  PetscCall(Pair("random:m=400,n=120,k=3,seed=6", &PR, &PM));
  PetscCall(MatPtAP(AR, PR, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C1R));
  PetscCall(MatPtAP(AM, PM, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C1M));
  PetscCall(MatGetSize(C1R, &k, NULL));
  PetscCall(PetscSNPrintf(spec, sizeof(spec), "random:m=%d,n=%d,k=2,seed=9", (int)k, (int)(k / 3)));
  PetscCall(Pair(spec, &QR, &QM));
  { /* as the test does: C1 straight from its product (values on the GPU only), then the second level */
    Mat ZR, ZM;
    PetscCall(MatPtAP(C1R, QR, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &ZR));
    PetscCall(MatPtAP(C1M, QM, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &ZM));
    PetscCall(ErrMult(C1R, C1M, "untouched: C1"));
    PetscCall(ErrMult(ZR, ZM, "untouched: PtAP(C1, Q)"));
    PetscCall(Err(ZR, ZM, "untouched: PtAP(C1, Q)"));
    PetscCall(ErrMult(ZR, ZM, "untouched: PtAP(C1, Q) after its copy to host"));
    PetscCall(MatDestroy(&ZR)); PetscCall(MatDestroy(&ZM));
  }
  for (int v = 0; v < 6; v++) { /* a fresh C1 and Q each time; v: what touches them before PtAP(C1, Q) */
    Mat C1, Qr, Qm, ZR, ZM, X; MatInfo info; Vec x, y;
    const char *name[] = {"fresh: nothing", "fresh: MatMult of Q", "fresh: MatMult of C1", "fresh: C1 copied to host", "fresh: C1 Q alone (MatMatMult)", "fresh: PtAP twice (second on the same C1)"};
    PetscCall(MatPtAP(AM, PM, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C1));
    PetscCall(Pair(spec, &Qr, &Qm));
    PetscCall(MatGetInfo(C1, MAT_LOCAL, &info));
    if (v == 1) { PetscCall(MatCreateVecs(Qm, &x, &y)); PetscCall(VecSet(x, 1)); PetscCall(MatMult(Qm, x, y)); PetscCall(VecDestroy(&x)); PetscCall(VecDestroy(&y)); }
    if (v == 2) { PetscCall(MatCreateVecs(C1, &x, &y)); PetscCall(VecSet(x, 1)); PetscCall(MatMult(C1, x, y)); PetscCall(VecDestroy(&x)); PetscCall(VecDestroy(&y)); }
    if (v == 3) { Mat H; PetscCall(MatConvert(C1, MATAIJ, MAT_INITIAL_MATRIX, &H)); PetscCall(MatDestroy(&H)); }
    if (v == 4) {
      Mat XR;
      PetscCall(MatMatMult(C1R, Qr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &XR));
      PetscCall(MatMatMult(C1, Qm, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &X));
      PetscCall(Err(XR, X, "fresh: C1 Q (MatMatMult) alone"));
      PetscCall(MatDestroy(&XR)); PetscCall(MatDestroy(&X));
    }
    PetscCall(MatPtAP(C1R, Qr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &ZR));
    PetscCall(MatPtAP(C1, Qm, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &ZM));
    if (v == 5) { PetscCall(MatDestroy(&ZM)); PetscCall(MatPtAP(C1, Qm, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &ZM)); }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "   C1 nz_used %g nz_alloc %g\n", info.nz_used, info.nz_allocated));
    PetscCall(Err(ZR, ZM, name[v]));
    PetscCall(MatDestroy(&C1)); PetscCall(MatDestroy(&Qr)); PetscCall(MatDestroy(&Qm)); PetscCall(MatDestroy(&ZR)); PetscCall(MatDestroy(&ZM));
  }
  PetscCall(Err(C1R, C1M, "C1 = PtAP(A, P)"));
  { Mat XR, YR, ZR;
    PetscCall(MatMatMult(C1R, QR, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &XR));
    PetscCall(MatMatMult(C1M, QM, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &X));
    PetscCall(Err(XR, X, "C1 Q (MatMatMult)"));
    PetscCall(MatTransposeMatMult(QR, XR, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &YR));
    PetscCall(MatTransposeMatMult(QM, X, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Y));
    PetscCall(Err(YR, Y, "Q^T (C1 Q) (MatTransposeMatMult)"));
    PetscCall(MatPtAP(C1R, QR, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &ZR));
    PetscCall(MatPtAP(C1M, QM, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Z));
    PetscCall(Err(ZR, Z, "PtAP(C1, Q)"));
    PetscCall(ErrMult(ZR, Z, "PtAP(C1, Q)"));
    PetscCall(MatDuplicate(C1M, MAT_COPY_VALUES, &D));
    PetscCall(MatDestroy(&Z));
    PetscCall(MatPtAP(D, QM, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Z));
    PetscCall(Err(ZR, Z, "PtAP(duplicate of C1, Q)"));
    PetscCall(MatDestroy(&Z)); PetscCall(MatDestroy(&D));
    PetscCall(MatConvert(C1R, type, MAT_INITIAL_MATRIX, &D));
    PetscCall(MatPtAP(D, QM, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Z));
    PetscCall(Err(ZR, Z, "PtAP(C1 converted from AIJ's, Q)"));
    PetscCall(MatDestroy(&Z));
    PetscCall(MatConvert(QR, type, MAT_INITIAL_MATRIX, &T));
    PetscCall(MatPtAP(D, T, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Z));
    PetscCall(Err(ZR, Z, "PtAP(C1 from AIJ's, Q from AIJ's)"));
    PetscCall(MatDestroy(&Z)); PetscCall(MatDestroy(&D)); PetscCall(MatDestroy(&T));
    PetscCall(MatDestroy(&X)); PetscCall(MatDestroy(&Y));
    PetscCall(MatDestroy(&XR)); PetscCall(MatDestroy(&YR)); PetscCall(MatDestroy(&ZR));
  }
  { Mat *all[] = {&AR, &AM, &PR, &PM, &QR, &QM, &C1R, &C1M};
    for (int i = 0; i < 8; i++) PetscCall(MatDestroy(all[i])); }
  PetscCall(PetscFinalize());
  return 0;
}
