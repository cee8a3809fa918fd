static char help[] = "Checks of the single-precision copy (MatSpMVSingleSetUp) and of PCPOLY with -pc_poly_precision single.\n"
                     "  -type <aij|aijcusparse|brc|...>  matrix type of the operator (the references use AIJ)\n"
                     "  -formats brc,segsum,spmv         formats of the product check (default these three)\n"
                     "  -check product,solve,flush,bad,residual  which checks (default all):\n"
                     "     product: for every format that stores fp32 values (brc, segsum, spmv) and several matrices, with and\n"
                     "              without row scaling, after a values refresh and a new pattern: the copy's product equals the\n"
                     "              fp64 product of the matrix with values rounded to fp32 (relative 1e-13: only the summation\n"
                     "              order may differ) and the fp64 product of the matrix itself to relative 1e-6\n"
                     "     solve:   CG (SPD), GMRES and BiCGSTAB (SPD and nonsymmetric) with the polynomial in single precision\n"
                     "              converge to the same tolerance as in double, within 10% (+2) of its iterations\n"
                     "     flush:   nonzeros below fp32's smallest normal number (1e-300, 1e-40) are stored as 0 and counted\n"
                     "              (MatSpMVSingleGetFlushed): the product equals the fp64 product with them zeroed, and GMRES\n"
                     "              with the polynomial in single precision converges as in double\n"
                     "     bad:     values that overflow fp32 (also after scaling), NaN: PETSC_ERR_FP\n"
                     "     residual: -pc_poly_residual_precision single: MatResidual() of the operator is b - D (B32 x) with the\n"
                     "              copy while the PC is set up with it (to 1e-12 of that, within 1e-6 of the fp64 residual, not\n"
                     "              equal to it); after the operator's state changes and after PCReset the fp64 residual exactly\n\n";

#include <petscksp.h>
#include <petscspmv.h>
#include "spmvexamples.h"
#include <float.h>

static PetscInt nchecks;

/* D^-1 as PCPOLY makes it (zero diagonal entries replaced by 1) */
static PetscErrorCode InverseDiagonal(Mat A, Vec *d)
{
  PetscScalar *a;
  PetscInt     n;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, NULL, d));
  PetscCall(MatGetDiagonal(A, *d));
  PetscCall(VecGetLocalSize(*d, &n));
  PetscCall(VecGetArray(*d, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = a[i] == 0.0 ? 1.0 : 1.0 / a[i];
  PetscCall(VecRestoreArray(*d, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* R = D A with every value rounded to fp32 (AIJ, on the host): what the copy must multiply with; d may be NULL */
static PetscErrorCode Rounded(Mat A, Vec d, Mat *R)
{
  PetscInt           rstart, rend;
  const PetscScalar *da = NULL;

  PetscFunctionBeginUser;
  PetscCall(MatDuplicate(A, MAT_DO_NOT_COPY_VALUES, R));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  if (d) PetscCall(VecGetArrayRead(d, &da));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscScalar       *v;
    PetscInt           nc;
    PetscCall(MatGetRow(A, r, &nc, &cols, &vals));
    PetscCall(PetscMalloc1(nc, &v));
    for (PetscInt k = 0; k < nc; k++) { /* fp32, and 0 below its smallest normal number (the copy flushes those) */
      const PetscReal x = (d ? da[r - rstart] : 1.0) * vals[k];
      v[k]              = PetscAbsReal(x) < FLT_MIN ? 0.0 : (PetscScalar)(float)x;
    }
    PetscCall(MatSetValues(*R, 1, &r, nc, cols, v, INSERT_VALUES));
    PetscCall(PetscFree(v));
    PetscCall(MatRestoreRow(A, r, &nc, &cols, &vals));
  }
  if (d) PetscCall(VecRestoreArrayRead(d, &da));
  PetscCall(MatAssemblyBegin(*R, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*R, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the copy S of B (type under test, built from the AIJ matrix A) against R x and D A x */
static PetscErrorCode CompareCopy(Mat A, Mat B, Mat S, PetscBool scaled, const char *what)
{
  Vec       d = NULL, x, y, yr, yd, xs, ys;
  Mat       R;
  PetscReal nr, e32, e64;

  PetscFunctionBeginUser;
  if (scaled) PetscCall(InverseDiagonal(A, &d));
  PetscCall(Rounded(A, d, &R));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &yr));
  PetscCall(VecDuplicate(y, &yd));
  PetscCall(MatCreateVecs(B, &xs, &ys));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecCopy(x, xs));
  PetscCall(MatMult(S, xs, ys));
  PetscCall(VecCopy(ys, y));
  PetscCall(MatMult(R, x, yr));
  PetscCall(MatMult(A, x, yd));
  if (d) PetscCall(VecPointwiseMult(yd, d, yd));
  PetscCall(VecNorm(yd, NORM_2, &nr));
  PetscCall(VecAXPY(yd, -1.0, y));
  PetscCall(VecNorm(yd, NORM_2, &e64));
  PetscCall(VecAXPY(yr, -1.0, y));
  PetscCall(VecNorm(yr, NORM_2, &e32));
  nchecks++;
  PetscCheck(e32 <= 1e-13 * PetscMax(nr, 1e-300) && e64 <= 1e-6 * PetscMax(nr, 1e-300), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: |Sx - (fp32 values) x| = %g, |Sx - DAx| = %g, |DAx| = %g", what, (double)e32, (double)e64, (double)nr);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-60s vs fp32 values %.1e, vs fp64 %.1e\n", what, (double)(e32 / PetscMax(nr, 1e-300)), (double)(e64 / PetscMax(nr, 1e-300))));
  PetscCall(MatDestroy(&R));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&yd));
  PetscCall(VecDestroy(&xs));
  PetscCall(VecDestroy(&ys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProductCheck(const char *type)
{
  const char *specs[]   = {"stencil7:n=12", "random:m=700,k=9,seed=21", "random:m=500,k=6,empty=0.2,seed=22", "denserows:m=2000,k=5,len=400,dense=3,seed=23", "rmat:scale=10,ef=8,seed=24", "random:m=40000,k=4,seed=25"};
  char     *formats[8];
  PetscInt  nf = 8;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-formats", formats, &nf, &set));
  if (!set) {
    nf = 3;
    PetscCall(PetscStrallocpy("brc", &formats[0]));
    PetscCall(PetscStrallocpy("segsum", &formats[1]));
    PetscCall(PetscStrallocpy("spmv", &formats[2]));
  }
  for (size_t s = 0; s < PETSC_STATIC_ARRAY_LENGTH(specs); s++) {
    Mat A, B;
    PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, specs[s], &A));
    {
      PetscInt m, n;
      PetscCall(MatGetSize(A, &m, &n));
      if (m != n) { /* the copy is for square operators here (row scaling by the inverse diagonal) */
        PetscCall(MatDestroy(&A));
        continue;
      }
    }
    PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
    for (PetscInt f = 0; f < nf; f++) {
      for (PetscInt scaled = 0; scaled < 2; scaled++) {
        Mat  S = NULL;
        Vec  d = NULL;
        char what[128];
        if (scaled) PetscCall(InverseDiagonal(B, &d));
        PetscCall(MatSpMVSingleSetUp(B, d, formats[f], &S));
        PetscCall(PetscSNPrintf(what, sizeof(what), "%s %s %s%s", type, specs[s], formats[f], scaled ? " D^-1 A" : ""));
        PetscCall(CompareCopy(A, B, S, (PetscBool)scaled, what));
        /* a values refresh (same pattern, in place) */
        PetscCall(MatScale(A, -3.0));
        PetscCall(MatScale(B, -3.0));
        PetscCall(VecDestroy(&d));
        if (scaled) PetscCall(InverseDiagonal(B, &d));
        PetscCall(MatSpMVSingleSetUp(B, d, NULL, &S));
        PetscCall(PetscStrlcat(what, ", refreshed", sizeof(what)));
        PetscCall(CompareCopy(A, B, S, (PetscBool)scaled, what));
        PetscCall(VecDestroy(&d));
        PetscCall(MatDestroy(&S));
      }
    }
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&A));
  }
  { /* a new pattern under the same copy: it rebuilds */
    Mat A1, A2, B1, B2, S = NULL;
    PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, "random:m=600,k=7,seed=31", &A1));
    PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, "random:m=600,k=11,seed=32", &A2));
    PetscCall(MatConvert(A1, type, MAT_INITIAL_MATRIX, &B1));
    PetscCall(MatConvert(A2, type, MAT_INITIAL_MATRIX, &B2));
    PetscCall(MatSpMVSingleSetUp(B1, NULL, "spmv", &S));
    PetscCall(CompareCopy(A1, B1, S, PETSC_FALSE, "new pattern: first"));
    PetscCall(MatSpMVSingleSetUp(B2, NULL, NULL, &S));
    PetscCall(CompareCopy(A2, B2, S, PETSC_FALSE, "new pattern: rebuilt"));
    PetscCall(MatSpMVSingleSetUp(B2, NULL, "brc", &S));
    PetscCall(CompareCopy(A2, B2, S, PETSC_FALSE, "new pattern: another format"));
    PetscCall(MatDestroy(&S));
    PetscCall(MatDestroy(&A1));
    PetscCall(MatDestroy(&A2));
    PetscCall(MatDestroy(&B1));
    PetscCall(MatDestroy(&B2));
  }
  for (PetscInt f = 0; f < nf; f++) PetscCall(PetscFree(formats[f]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 2D 5-point Laplacian shifted by 0.1 (SPD), or with conv > 0 an upwind convection-diffusion operator (nonsymmetric) */
static PetscErrorCode Operator(PetscInt n, PetscReal conv, const char *type, Mat *B)
{
  Mat      A;
  PetscInt rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n, 5, NULL, 2, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt i = r % n, j = r / n;
    PetscInt       c[5], nc = 0;
    PetscScalar    v[5];
    c[nc]   = r;
    v[nc++] = 4.1 + 2.0 * conv; /* 1/4.1 is not an fp32 number: the copy differs from the operator */
    if (i > 0) c[nc] = r - 1, v[nc++] = -1.0 - conv;
    if (i < n - 1) c[nc] = r + 1, v[nc++] = -1.0;
    if (j > 0) c[nc] = r - n, v[nc++] = -1.0 - conv;
    if (j < n - 1) c[nc] = r + n, v[nc++] = -1.0;
    PetscCall(MatSetValues(A, 1, &r, nc, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, B));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(Mat B, const char *ksptype, PCPolyType ptype, PCPolyPrecision prec, PetscInt *its, KSPConvergedReason *reason, PetscReal *rnorm)
{
  KSP ksp;
  PC  pc;
  Vec x, b, r;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, B, B));
  PetscCall(KSPSetType(ksp, ksptype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCPOLY));
  PetscCall(PCPolySetType(pc, ptype));
  PetscCall(PCPolySetDegree(pc, 10));
  PetscCall(PCPolySetPrecision(pc, prec));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 2000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(MatCreateVecs(B, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(MatMult(B, x, r)); /* the true residual, relative */
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, rnorm));
  {
    PetscReal nb;
    PetscCall(VecNorm(b, NORM_2, &nb));
    *rnorm /= nb;
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SolveCheck(const char *type)
{
  struct {
    PetscReal   conv;
    const char *ksp;
    PCPolyType  poly;
  } runs[] = {
    {0.0, KSPCG,    PC_POLY_CHEBYSHEV},
    {0.0, KSPGMRES, PC_POLY_GMRES    },
    {0.0, KSPBCGS,  PC_POLY_CHEBYSHEV},
    {0.5, KSPGMRES, PC_POLY_GMRES    },
    {0.5, KSPBCGS,  PC_POLY_GMRES    },
    {0.5, KSPGMRES, PC_POLY_NEUMANN  },
  };

  PetscFunctionBeginUser;
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(runs); k++) {
    Mat                B;
    PetscInt           its[2];
    KSPConvergedReason reason[2];
    PetscReal          res[2];
    PetscCall(Operator(48, runs[k].conv, type, &B));
    for (PetscInt p = 0; p < 2; p++) PetscCall(Solve(B, runs[k].ksp, runs[k].poly, p ? PC_POLY_PRECISION_SINGLE : PC_POLY_PRECISION_DOUBLE, &its[p], &reason[p], &res[p]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-13s %-6s + %-9s double: %3" PetscInt_FMT " its (%s, residual %.1e)  single: %3" PetscInt_FMT " its (%s, residual %.1e)\n", runs[k].conv > 0 ? "nonsymmetric" : "SPD", runs[k].ksp, PCPolyTypes[runs[k].poly], its[0],
                          KSPConvergedReasons[reason[0]], (double)res[0], its[1], KSPConvergedReasons[reason[1]], (double)res[1]));
    nchecks++;
    PetscCheck(reason[0] > 0 && reason[1] > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%s + poly %s: not converged (double %s, single %s)", runs[k].ksp, PCPolyTypes[runs[k].poly], KSPConvergedReasons[reason[0]], KSPConvergedReasons[reason[1]]);
    PetscCheck(res[1] <= PetscMax(10 * res[0], 1e-6) && its[1] <= its[0] + PetscMax(2, its[0] / 10), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s + poly %s in single: %" PetscInt_FMT " iterations (double %" PetscInt_FMT "), true residual %g", runs[k].ksp, PCPolyTypes[runs[k].poly], its[1], its[0], (double)res[1]);
    PetscCall(MatDestroy(&B));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rank 0's first row gets two nonzeros below FLT_MIN (one below fp64's double-to-float range, one an fp32 subnormal):
   the copy stores them as 0 and counts them, its product is the fp64 product without them, and the preconditioner
   in single precision converges as in double (GMRES: the matrix is no longer symmetric) */
static PetscErrorCode FlushCheck(const char *type)
{
  Mat                A, B, S = NULL;
  PetscInt           rstart, its[2];
  PetscCount         nf;
  KSPConvergedReason reason[2];
  PetscReal          res[2];
  PetscMPIInt        size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, "stencil7:n=8", &A));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  if (rstart == 0) {
    PetscCall(MatSetValue(A, 0, 1, 1e-300, INSERT_VALUES));
    PetscCall(MatSetValue(A, 0, 8, 1e-40, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
  for (PetscInt scaled = 0; scaled < 2; scaled++) {
    Vec d = NULL;
    if (scaled) PetscCall(InverseDiagonal(B, &d));
    PetscCall(MatSpMVSingleSetUp(B, d, "spmv", &S));
    PetscCall(MatSpMVSingleGetFlushed(S, &nf));
    nchecks++;
    PetscCheck(nf == 2, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %" PetscCount_FMT " nonzeros flushed to 0, not 2", scaled ? "D^-1 A" : "A", nf);
    PetscCall(CompareCopy(A, B, S, (PetscBool)scaled, scaled ? "flushed: D^-1 A with 2 nonzeros below FLT_MIN" : "flushed: A with 2 nonzeros below FLT_MIN"));
    PetscCall(VecDestroy(&d));
  }
  PetscCall(MatDestroy(&S));
  for (PetscInt p = 0; p < 2; p++) PetscCall(Solve(B, KSPGMRES, PC_POLY_CHEBYSHEV, p ? PC_POLY_PRECISION_SINGLE : PC_POLY_PRECISION_DOUBLE, &its[p], &reason[p], &res[p]));
  nchecks++;
  PetscCheck(reason[0] > 0 && reason[1] > 0 && res[1] <= PetscMax(10 * res[0], 1e-6) && its[1] <= its[0] + PetscMax(2, its[0] / 10), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "flushed entries: GMRES + chebyshev in single %" PetscInt_FMT " iterations (%s), in double %" PetscInt_FMT " (%s)", its[1], KSPConvergedReasons[reason[1]], its[0], KSPConvergedReasons[reason[0]]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  flushed entries: GMRES + chebyshev double %" PetscInt_FMT " its, single %" PetscInt_FMT " its (%d rank%s)\n", its[0], its[1], size, size > 1 ? "s" : ""));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a matrix with one bad value (rank 0's first row) must give PETSC_ERR_FP, directly and through PCSetUp */
static PetscErrorCode BadCheck(const char *type)
{
  struct {
    PetscScalar v;
    PetscBool   scaled;
    const char *what;
  } bad[] = {
    {1e300,  PETSC_FALSE, "overflow"               },
    {1e-200, PETSC_TRUE,  "overflow after scaling" },
    {NAN,    PETSC_FALSE, "NaN"                    },
  };

  PetscFunctionBeginUser;
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(bad); k++) {
    Mat            A, B, S = NULL;
    Vec            d = NULL;
    PetscErrorCode ierr;
    PetscInt       rstart, r, c;
    PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, "stencil7:n=8", &A));
    PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
    r = rstart, c = rstart;
    if (rstart == 0) PetscCall(MatSetValue(A, r, c + (bad[k].scaled ? 0 : 1), bad[k].v, INSERT_VALUES)); /* scaled: a tiny diagonal */
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
    if (bad[k].scaled) PetscCall(InverseDiagonal(B, &d));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatSpMVSingleSetUp(B, d, "spmv", &S);
    PetscCall(PetscPopErrorHandler());
    nchecks++;
    PetscCheck(ierr == PETSC_ERR_FP, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: MatSpMVSingleSetUp gave error %d, not PETSC_ERR_FP", bad[k].what, (int)ierr);
    PetscCall(MatDestroy(&S));
    { /* the same through the preconditioner */
      KSP ksp;
      PC  pc;
      PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
      PetscCall(KSPSetOperators(ksp, B, B));
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, PCPOLY));
      PetscCall(PCPolySetType(pc, PC_POLY_CHEBYSHEV));
      PetscCall(PCPolySetEigenvalues(pc, 0.1, 2.0));
      PetscCall(PCPolySetJacobi(pc, bad[k].scaled));
      PetscCall(PCPolySetPrecision(pc, PC_POLY_PRECISION_SINGLE));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = KSPSetUp(ksp);
      PetscCall(PetscPopErrorHandler());
      nchecks++;
      PetscCheck(ierr == PETSC_ERR_FP, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: PCSetUp gave error %d, not PETSC_ERR_FP", bad[k].what, (int)ierr);
      PetscCall(KSPDestroy(&ksp));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-24s PETSC_ERR_FP from MatSpMVSingleSetUp and PCSetUp\n", bad[k].what));
    PetscCall(VecDestroy(&d));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -pc_poly_residual_precision single on a nonsymmetric operator (1/4.1 is not an fp32 number, so the copy's residual
   differs from the fp64 one) */
static PetscErrorCode ResidualCheck(const char *type)
{
  Mat       B, R;
  PC        pc;
  Vec       x, b, r, r64, d, t;
  PetscReal nb, e, e32;

  PetscFunctionBeginUser;
  PetscCall(Operator(24, 0.5, type, &B));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetOperators(pc, B, B));
  PetscCall(PCSetType(pc, PCPOLY));
  PetscCall(PCPolySetType(pc, PC_POLY_CHEBYSHEV));
  PetscCall(PCPolySetPrecision(pc, PC_POLY_PRECISION_SINGLE));
  PetscCall(PCSetOptionsPrefix(pc, "rescheck_"));
  PetscCall(PetscOptionsSetValue(NULL, "-rescheck_pc_poly_residual_precision", "single"));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetUp(pc));
  PetscCall(MatCreateVecs(B, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecDuplicate(b, &r64));
  PetscCall(VecDuplicate(b, &t));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecSetRandom(b, NULL));
  PetscCall(MatMult(B, x, r64));
  PetscCall(VecAYPX(r64, -1.0, b));
  PetscCall(VecNorm(r64, NORM_2, &nb));
  /* what the copy computes: b - D (R x), R = D^-1 B rounded to fp32 */
  PetscCall(InverseDiagonal(B, &d));
  PetscCall(Rounded(B, d, &R));
  PetscCall(MatMult(R, x, t));
  PetscCall(VecPointwiseDivide(t, t, d));
  PetscCall(VecAYPX(t, -1.0, b));
  for (PetscInt step = 0; step < 4; step++) { /* 0: set up; 1: the operator changed (state); 2: set up again; 3: reset */
    const PetscBool copy = (PetscBool)(step == 0 || step == 2);
    if (step == 1) { /* the same values (scaled by powers of 2), a new state */
      PetscCall(MatScale(B, 2.0));
      PetscCall(MatScale(B, 0.5));
    }
    if (step == 2) PetscCall(PCSetUp(pc));
    if (step == 3) PetscCall(PCReset(pc));
    PetscCall(MatResidual(B, b, x, r));
    PetscCall(VecAXPY(r, -1.0, copy ? t : r64));
    PetscCall(VecNorm(r, NORM_2, &e32));
    PetscCall(MatResidual(B, b, x, r));
    PetscCall(VecAXPY(r, -1.0, r64));
    PetscCall(VecNorm(r, NORM_2, &e));
    nchecks++;
    if (copy) PetscCheck(e32 <= 1e-12 * nb && e <= 1e-6 * nb && e > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "residual with the fp32 copy (step %" PetscInt_FMT "): |r - (b - D R x)| = %g, |r - r64| = %g, |r64| = %g", step, (double)e32, (double)e, (double)nb);
    else PetscCheck(e == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "residual in fp64 expected (step %" PetscInt_FMT "): |r - r64| = %g", step, (double)e);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  residual %-28s |r - r64|/|r64| = %.1e\n", ((const char *[]){"with the copy:", "after a state change:", "set up again:", "after PCReset:"})[step], (double)(e / nb)));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-rescheck_pc_poly_residual_precision"));
  PetscCall(MatDestroy(&R));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&t));
  PetscCall(VecDestroy(&r64));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(PCDestroy(&pc));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      type[64] = MATAIJ, *checks[5];
  PetscInt  nc = 5;
  PetscBool set, doit[5] = {PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-check", checks, &nc, &set));
  if (set) {
    const char *names[5] = {"product", "solve", "flush", "bad", "residual"};
    for (PetscInt i = 0; i < 5; i++) doit[i] = PETSC_FALSE;
    for (PetscInt k = 0; k < nc; k++) {
      PetscBool known = PETSC_FALSE;
      for (PetscInt i = 0; i < 5; i++) {
        PetscBool same;
        PetscCall(PetscStrcmp(checks[k], names[i], &same));
        if (same) doit[i] = known = PETSC_TRUE;
      }
      PetscCheck(known, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Unknown -check %s: use product, solve, flush, bad, residual", checks[k]);
      PetscCall(PetscFree(checks[k]));
    }
  }
  if (doit[0]) PetscCall(ProductCheck(type));
  if (doit[1]) PetscCall(SolveCheck(type));
  if (doit[2]) PetscCall(FlushCheck(type));
  if (doit[3]) PetscCall(BadCheck(type));
  if (doit[4]) PetscCall(ResidualCheck(type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_poly_single %s: %" PetscInt_FMT " checks passed\n", type, nchecks));
  PetscCall(PetscFinalize());
  return 0;
}
