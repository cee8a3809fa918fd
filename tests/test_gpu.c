static char help[] = "GPU checks of a petsc-spmv type (run on a GPU machine; also under compute-sanitizer):\n"
                     "the layout built on the GPU equals the host reference entry by entry, MatMult/MatMultAdd on CUDA\n"
                     "and host vectors match the host AIJ product (relative error < -tol), values refresh matches.\n"
                     "  -matrices \"spec;spec;...\"   -type brc   -tol 1e-12\n\n";

#include <petscspmv.h>
#include "spmvexamples.h"
#include <time.h>

int main(int argc, char **argv)
{
  char        list[4096] = "random:m=5000,k=9,empty=0.2;denserows:m=20000,k=6,len=5000,dense=5;stencil27:n=20", type[64] = MATBRC;
  PetscReal   tol = 1e-12;
  PetscInt    failures = 0;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrices", list, sizeof(list), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)time(NULL)));
  PetscCall(PetscRandomSeed(rnd));
  for (char *spec = strtok(list, ";"); spec; spec = strtok(NULL, ";")) {
    Mat       A, B;
    Vec       x, y, z, xd, yd, zd, xh, yh, wt, wth;
    PetscReal layout, e1, e2, e3, e4, e5, e6;
    PetscInt  m, n, nnz;
    MatInfo   info;

    PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, spec, &A));
    PetscCall(MatGetSize(A, &m, &n));
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    nnz = (PetscInt)info.nz_used;
    PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatSetFromOptions(B));
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecDuplicate(y, &z));
    PetscCall(MatCreateVecs(B, &xd, &yd)); /* CUDA vectors */
    PetscCall(VecDuplicate(yd, &zd));
    PetscCall(VecDuplicate(x, &xh));
    PetscCall(VecDuplicate(y, &yh));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(VecCopy(x, xd));
    /* y = A x on CUDA vectors; poison the output first */
    PetscCall(MatMult(A, x, y));
    PetscCall(VecSet(yd, NAN));
    PetscCall(MatMult(B, xd, yd));
    PetscCall(SpMVRelErr(yd, y, &e1));
    PetscCall(MatSpMVVerify(B, &layout));
    /* z = z + A x in place */
    PetscCall(VecSetRandom(z, rnd));
    PetscCall(VecCopy(z, zd));
    PetscCall(MatMultAdd(A, x, z, z));
    PetscCall(MatMultAdd(B, xd, zd, zd));
    PetscCall(SpMVRelErr(zd, z, &e2));
    /* host vectors, staged through the device */
    PetscCall(VecCopy(x, xh));
    PetscCall(VecSet(yh, NAN));
    PetscCall(MatMult(B, xh, yh));
    PetscCall(SpMVRelErr(yh, y, &e3));
    /* the transposed product on host vectors (the parent's, behind the overlay's staging on the GPU) */
    PetscCall(VecDuplicate(x, &wt));
    PetscCall(VecDuplicate(x, &wth));
    PetscCall(VecCopy(y, yh));
    PetscCall(MatMultTranspose(A, y, wt));
    PetscCall(VecSet(wth, NAN));
    PetscCall(MatMultTranspose(B, yh, wth));
    PetscCall(SpMVRelErr(wth, wt, &e6));
    /* values-only refresh (same pattern), then a pattern-preserving MatScale + MatShift */
    PetscCall(MatScale(A, -1.5));
    PetscCall(MatScale(B, -1.5));
    if (m == n) {
      PetscCall(MatShift(A, 2.0));
      PetscCall(MatShift(B, 2.0));
    }
    PetscCall(MatMult(A, x, y));
    PetscCall(MatMult(B, xd, yd));
    PetscCall(SpMVRelErr(yd, y, &e4));
    /* twice in a row gives the same bits when no row is split; otherwise atomics may reorder: rounding only */
    PetscCall(VecCopy(yd, zd));
    PetscCall(MatMult(B, xd, yd));
    PetscCall(SpMVRelErr(yd, zd, &e5));
    const PetscBool ok = (PetscBool)(layout == 0 && e1 < tol && e2 < tol && e3 < tol && e4 < tol && e5 < tol && e6 < tol);
    failures += !ok;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %-50s %9" PetscInt_FMT " x %-9" PetscInt_FMT " nnz %10" PetscInt_FMT "  layout==host %s  mult %.1e  multadd %.1e  hostvec %.1e  hostvecT %.1e  refresh %.1e  repeat %.1e\n", ok ? "ok  " : "FAIL", spec, m, n, nnz, layout == 0 ? "yes" : "NO", (double)e1, (double)e2, (double)e3, (double)e6, (double)e4, (double)e5));
    PetscCall(VecDestroy(&x)); PetscCall(VecDestroy(&y)); PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&xd)); PetscCall(VecDestroy(&yd)); PetscCall(VecDestroy(&zd));
    PetscCall(VecDestroy(&xh)); PetscCall(VecDestroy(&yh)); PetscCall(VecDestroy(&wt)); PetscCall(VecDestroy(&wth));
    PetscCall(MatDestroy(&A)); PetscCall(MatDestroy(&B));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCheck(!failures, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " matrices failed", failures);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "test_gpu: all matrices passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
