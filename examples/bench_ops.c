static char help[] = "MatMult and MatMultTranspose of every type on one matrix, same run: median time of -trials trials of -reps\n"
                     "products (CUDA vectors, after a warm-up), and the device memory the matrix takes (cudaMemGetInfo around\n"
                     "its conversion and first products). Results are checked against the host AIJ products (-tol).\n"
                     "  bench_ops -matrix stencil5:n=1000 -types aijcusparse,brc,... [-trials 7] [-reps 50] [-csv file -test name]\n\n";

#include <petscspmv.h>
#include "spmvexamples.h"
#include <petscdevice_cuda.h>

static PetscErrorCode FreeMem(double *mb)
{
  size_t f, t;

  PetscFunctionBeginUser;
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallCUDA(cudaMemGetInfo(&f, &t));
  *mb = (double)f / 1e6;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CmpDouble(const void *a, const void *b) { return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b); }

/* median over trials of the time of one product (op 0: MatMult, 1: MatMultTranspose) */
static PetscErrorCode Time(Mat B, Vec x, Vec y, int op, PetscInt trials, PetscInt reps, double *us)
{
  double t[64];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 3; i++) PetscCall(op ? MatMultTranspose(B, y, x) : MatMult(B, x, y));
  for (PetscInt k = 0; k < trials; k++) {
    PetscLogDouble t0, t1;
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t0));
    for (PetscInt i = 0; i < reps; i++) PetscCall(op ? MatMultTranspose(B, y, x) : MatMult(B, x, y));
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t1));
    t[k] = (t1 - t0) / reps * 1e6;
  }
  qsort(t, (size_t)trials, sizeof(double), CmpDouble);
  *us = t[trials / 2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        spec[1024] = "stencil5:n=1000", types[1024] = "aijcusparse,brc,suraa,ccoo,argcsr,segsum", csvname[PETSC_MAX_PATH_LEN] = "", test[128] = "multtranspose";
  PetscInt    trials = 7, reps = 50, m, n, nnz;
  PetscReal   tol = 1e-12;
  Mat         A;
  Vec         xh, yh;
  MatInfo     info;
  FILE       *csv = NULL;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", spec, sizeof(spec), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-types", types, sizeof(types), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", csvname, sizeof(csvname), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-trials", &trials, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCheck(trials >= 1 && trials <= 64 && reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-trials in 1..64, -reps >= 1");
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, spec, &A));
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  nnz = (PetscInt)info.nz_used;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(MatCreateVecs(A, &xh, &yh));
  PetscCall(VecSetRandom(xh, rnd));
  PetscCall(VecSetRandom(yh, rnd));
  if (csvname[0]) {
    PetscCall(PetscFOpen(PETSC_COMM_SELF, csvname, "a", &csv));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "matrix %s: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " nonzeros\n%-12s %12s %12s %10s %10s\n", spec, m, n, nnz, "type", "MatMult_us", "MatMultT_us", "ratio_T", "device_MB"));
  {
    Vec yref, xref;
    double tref = -1;
    PetscCall(VecDuplicate(yh, &yref));
    PetscCall(VecDuplicate(xh, &xref));
    PetscCall(MatMult(A, xh, yref));
    PetscCall(MatMultTranspose(A, yh, xref));
    for (char *t = strtok(types, ","); t; t = strtok(NULL, ",")) {
      Mat       B;
      double    f0, f1, um, ut;
      PetscReal e1, e2;
      Vec       xb, yb, xt;
      PetscCall(FreeMem(&f0));
      PetscCall(MatConvert(A, t, MAT_INITIAL_MATRIX, &B));
      PetscCall(MatSetFromOptions(B));
      PetscCall(MatCreateVecs(B, &xb, &yb));
      PetscCall(VecDuplicate(xb, &xt));
      PetscCall(VecCopy(xh, xb));
      PetscCall(MatMult(B, xb, yb));
      PetscCall(VecCopy(yh, yb));
      PetscCall(MatMultTranspose(B, yb, xt));
      PetscCall(FreeMem(&f1));
      PetscCall(VecCopy(xh, xb));
      PetscCall(MatMult(B, xb, yb));
      PetscCall(SpMVRelErr(yb, yref, &e1));
      PetscCall(SpMVRelErr(xt, xref, &e2));
      PetscCheck(e1 < tol && e2 < tol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: wrong product (MatMult %g, MatMultTranspose %g)", t, (double)e1, (double)e2);
      PetscCall(Time(B, xb, yb, 0, trials, reps, &um));
      PetscCall(Time(B, xt, yb, 1, trials, reps, &ut));
      if (tref < 0) tref = ut;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-12s %12.1f %12.1f %10.3f %10.1f\n", t, um, ut, ut / tref, f0 - f1));
      if (csv) PetscCall(PetscFPrintf(PETSC_COMM_SELF, csv, "%s,%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%.2f,%.2f,%.4f,%.1f\n", test, t, m, nnz, um, ut, ut / tref, f0 - f1));
      PetscCall(VecDestroy(&xb));
      PetscCall(VecDestroy(&yb));
      PetscCall(VecDestroy(&xt));
      PetscCall(MatDestroy(&B));
    }
    PetscCall(VecDestroy(&yref));
    PetscCall(VecDestroy(&xref));
  }
  if (csv) PetscCall(PetscFClose(PETSC_COMM_SELF, csv));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&yh));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
