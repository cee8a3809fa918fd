static char help[] = "Checks of the polynomial preconditioner PCPOLY (-pc_type poly).\n"
                     "  -type <aij|brc|...>     matrix type the preconditioner runs on (the references use AIJ)\n"
                     "  -check dense,exact,its  which checks (default all):\n"
                     "     dense: the matrix of PCApply (on unit vectors) equals p(B) D^-1 built from the same roots/bounds\n"
                     "            by Horner's rule with MatMult, for every type, with and without Jacobi scaling; also transposed\n"
                     "     exact: the GMRES polynomial of an n x n matrix with degree n-1 is A^-1\n"
                     "     its:   on a 2D 5-point Laplacian, iterations of CG / GMRES / BiCGSTAB fall as the degree grows\n"
                     "  -quick                  dense check on two matrices and degrees 2, 4 only (for several ranks)\n"
                     "  -columns <all>          dense check on this many unit vectors (spread over the rows) only\n"
                     "  -n <40>                 grid size of the Laplacian of the its check\n"
                     "  -tol <1e-10>            largest relative difference of the dense check\n\n";

#include <petscksp.h>
#include <petscspmv.h>
#include "spmvexamples.h"

/* 2D 5-point Laplacian (Dirichlet) on an n x n grid, or with conv != 0 a first-order upwind convection-diffusion
   operator (nonsymmetric) */
static PetscErrorCode Laplacian2D(MPI_Comm comm, PetscInt n, PetscReal conv, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(MatCreateAIJ(comm, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n, 5, NULL, 2, NULL, A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt i = r % n, j = r / n;
    PetscInt       c[5], nc = 0;
    PetscScalar    v[5];

    c[nc] = r;
    v[nc++] = 4.0 + 2.0 * conv;
    if (i > 0) { c[nc] = r - 1; v[nc++] = -1.0 - conv; }
    if (i < n - 1) { c[nc] = r + 1; v[nc++] = -1.0; }
    if (j > 0) { c[nc] = r - n; v[nc++] = -1.0 - conv; }
    if (j < n - 1) { c[nc] = r + n; v[nc++] = -1.0; }
    PetscCall(MatSetValues(*A, 1, &r, nc, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Monomial coefficients c[0..K] of p(t) = (1 - r(t))/t from the roots of r(t) = prod (1 - t/theta_i), multiplied out
   in real arithmetic (a conjugate pair as the quadratic 1 - 2a t/|theta|^2 + t^2/|theta|^2) */
static PetscErrorCode PolyFromRoots(PetscInt n, const PetscReal *re, const PetscReal *im, PetscReal *c)
{
  PetscReal *r;
  PetscInt   deg = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(n + 1, &r));
  r[0] = 1.0;
  for (PetscInt i = 0; i < n; i++) {
    if (im[i] == 0.0) {
      for (PetscInt j = deg + 1; j >= 1; j--) r[j] -= r[j - 1] / re[i];
      deg++;
    } else {
      const PetscReal m = re[i] * re[i] + im[i] * im[i], a = 2 * re[i] / m, b = 1 / m;
      PetscCheck(i + 1 < n && im[i + 1] == -im[i] && re[i + 1] == re[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "roots %" PetscInt_FMT ", %" PetscInt_FMT " are not a conjugate pair", i, i + 1);
      for (PetscInt j = deg + 2; j >= 1; j--) r[j] += -a * r[j - 1] + (j >= 2 ? b * r[j - 2] : 0.0);
      deg += 2;
      i++;
    }
  }
  for (PetscInt j = 0; j < n; j++) c[j] = -r[j + 1];
  PetscCall(PetscFree(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = p(B) D^-1 x by Horner's rule on the monomial coefficients (trans: y = D^-1 p(B^T) x), B = D^-1 A */
static PetscErrorCode HornerApply(Mat A, Vec dinv, PetscInt K, const PetscReal *c, PetscBool trans, Vec x, Vec y)
{
  Vec u, w;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(x, &u));
  PetscCall(VecDuplicate(x, &w));
  if (dinv && !trans) PetscCall(VecPointwiseMult(u, dinv, x));
  else PetscCall(VecCopy(x, u));
  PetscCall(VecCopy(u, y));
  PetscCall(VecScale(y, c[K]));
  for (PetscInt j = K - 1; j >= 0; j--) {
    if (!trans) {
      PetscCall(MatMult(A, y, w));
      if (dinv) PetscCall(VecPointwiseMult(w, dinv, w));
    } else {
      if (dinv) PetscCall(VecPointwiseMult(y, dinv, y));
      PetscCall(MatMultTranspose(A, y, w));
    }
    PetscCall(VecWAXPY(y, c[j], u, w));
  }
  if (dinv && trans) PetscCall(VecPointwiseMult(y, dinv, y));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1D convection-diffusion (tridiagonal, nonsymmetric) of size n with two large diagonal entries: without Jacobi
   scaling two eigenvalues lie far from the others, so the GMRES polynomial needs added roots (pof > 1e4) */
static PetscErrorCode Outlier(MPI_Comm comm, PetscInt n, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(MatCreateAIJ(comm, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 2, NULL, A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt    c[3] = {r - 1, r, r + 1};
    PetscScalar v[3] = {-1.2, r == 0 ? 300.0 : (r == n / 2 ? 120.0 : 2.0), -0.8};

    PetscCall(MatSetValues(*A, 1, &c[1], 1, &c[1], &v[1], INSERT_VALUES));
    if (r > 0) PetscCall(MatSetValues(*A, 1, &r, 1, &c[0], &v[0], INSERT_VALUES));
    if (r < n - 1) PetscCall(MatSetValues(*A, 1, &r, 1, &c[2], &v[2], INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  const char *name;
  PCPolyType  type;
  PetscBool   bounds, damping, addroots;
} Config;

/* The PC (on B, of the tested type) as a matrix column by column against the Horner reference (on AIJ A) */
static PetscErrorCode DenseCheck(Mat A, Mat B, const Config *cf, PetscInt k, PetscBool jacobi, PetscBool added, PetscInt ncols, PetscReal tol, PetscInt *failures)
{
  PC               pc;
  Vec              x, y, yr, dinv = NULL;
  PetscInt         n, nr, rstart, rend;
  const PetscReal *re, *im;
  PetscReal       *rre, *rim, *c, num = 0, den = 0, tnum = 0, tden = 0, emin, emax, om;
  PetscBool        ok;
  PCPolyType       t;

  PetscFunctionBeginUser;
  PetscCall(PCCreate(PetscObjectComm((PetscObject)A), &pc));
  PetscCall(PCSetOperators(pc, B, B));
  PetscCall(PCSetType(pc, PCPOLY));
  PetscCall(PCPolySetType(pc, cf->type));
  PetscCall(PCPolySetDegree(pc, k));
  PetscCall(PCPolySetJacobi(pc, jacobi));
  if (cf->bounds) PetscCall(PCPolySetEigenvalues(pc, jacobi ? 0.05 : 0.2, jacobi ? 2.2 : 8.8));
  if (cf->damping) PetscCall(PCPolySetDamping(pc, jacobi ? 0.6 : 0.15));
  if (!cf->addroots) PetscCall(PetscOptionsSetValue(NULL, "-pc_poly_gmres_add_roots", "0"));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_poly_gmres_add_roots"));
  PetscCall(PCSetUp(pc));
  PetscCall(PCPolyGetType(pc, &t));
  PetscCheck(t == cf->type, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "type not set");

  /* the roots, rebuilt here from what the PC reports: bounds (Chebyshev points), damping, or the roots themselves */
  PetscCall(PCPolyGetRoots(pc, &nr, &re, &im));
  PetscCall(PetscMalloc3(nr, &rre, nr, &rim, nr, &c));
  switch (cf->type) {
  case PC_POLY_CHEBYSHEV:
    PetscCall(PCPolyGetEigenvalues(pc, &emin, &emax));
    PetscCheck(nr == k + 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "chebyshev: %" PetscInt_FMT " roots for degree %" PetscInt_FMT, nr, k);
    if (cf->bounds) PetscCheck(emin == (jacobi ? 0.05 : 0.2) && emax == (jacobi ? 2.2 : 8.8), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "given bounds not kept");
    else PetscCheck(0 < emin && emin < emax, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "estimated bounds [%g, %g]", (double)emin, (double)emax);
    for (PetscInt i = 0; i <= k; i++) {
      rre[i] = 0.5 * (emax + emin) + 0.5 * (emax - emin) * PetscCosReal((2 * i + 1) * PETSC_PI / (2 * (k + 1)));
      rim[i] = 0;
    }
    break;
  case PC_POLY_NEUMANN:
    PetscCall(PCPolyGetDamping(pc, &om));
    PetscCheck(nr == k + 1 && om > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "neumann: %" PetscInt_FMT " roots, damping %g", nr, (double)om);
    if (cf->damping) PetscCheck(om == (jacobi ? 0.6 : 0.15), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "given damping not kept");
    for (PetscInt i = 0; i <= k; i++) {
      rre[i] = 1.0 / om;
      rim[i] = 0;
    }
    break;
  case PC_POLY_GMRES:
    PetscCall(MatGetSize(A, &n, NULL));
    PetscCheck(nr >= PetscMin(k + 1, n), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "gmres: %" PetscInt_FMT " roots for degree %" PetscInt_FMT, nr, k);
    if (!cf->addroots) PetscCheck(nr <= k + 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "roots added although switched off");
    if (added) PetscCheck(nr > k + 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "outlying roots but none added");
    PetscCall(PetscArraycpy(rre, re, nr));
    PetscCall(PetscArraycpy(rim, im, nr));
    break;
  }
  PetscCall(PolyFromRoots(nr, rre, rim, c));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &yr));
  if (jacobi) {
    PetscCall(VecDuplicate(x, &dinv));
    PetscCall(MatGetDiagonal(A, dinv));
    PetscCall(VecReciprocal(dinv));
  }
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  if (ncols <= 0 || ncols > n) ncols = n;
  for (PetscInt trans = 0; trans < 2; trans++)
    for (PetscInt jj = 0; jj < ncols; jj++) { /* column j of the PC's matrix (of its transpose); all, or ncols spread */
      const PetscInt j = ncols == n ? jj : (ncols == 1 ? 0 : jj * (n - 1) / (ncols - 1));
      Vec            xb, yb;
      PetscReal      e, r;

      PetscCall(VecSet(x, 0.0));
      if (j >= rstart && j < rend) PetscCall(VecSetValue(x, j, 1.0, INSERT_VALUES));
      PetscCall(VecAssemblyBegin(x));
      PetscCall(VecAssemblyEnd(x));
      PetscCall(MatCreateVecs(B, &xb, &yb)); /* vectors of the tested type's kind */
      PetscCall(VecCopy(x, xb));
      if (trans) PetscCall(PCApplyTranspose(pc, xb, yb));
      else PetscCall(PCApply(pc, xb, yb));
      PetscCall(VecCopy(yb, y));
      PetscCall(VecDestroy(&xb));
      PetscCall(VecDestroy(&yb));
      PetscCall(HornerApply(A, dinv, nr - 1, c, (PetscBool)trans, x, yr));
      PetscCall(VecNorm(yr, NORM_2, &r));
      PetscCall(VecAXPY(y, -1.0, yr));
      PetscCall(VecNorm(y, NORM_2, &e));
      if (trans) { tnum += e * e; tden += r * r; }
      else { num += e * e; den += r * r; }
    }
  num = PetscSqrtReal(num / den);
  tnum = PetscSqrtReal(tnum / tden);
  ok = (PetscBool)(num < tol && tnum < tol);
  *failures += !ok;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s  dense %-22s degree %2" PetscInt_FMT " jacobi %d: %2" PetscInt_FMT " roots, |P - P_ref|/|P_ref| %.1e, transposed %.1e\n", ok ? "ok  " : "FAIL", cf->name, k, (int)jacobi, nr, (double)num, (double)tnum));
  PetscCall(PetscFree3(rre, rim, c));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&dinv));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GMRES polynomial of degree n-1 of an n x n matrix: the Arnoldi run spans everything, the roots are the
   eigenvalues, p(B) D^-1 = A^-1 */
static PetscErrorCode ExactCheck(Mat A, Mat B, PetscBool jacobi, PetscInt *failures)
{
  PC          pc;
  Vec         x, b, xb, yb;
  PetscInt    n;
  PetscReal   e, nx;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(PCCreate(PetscObjectComm((PetscObject)A), &pc));
  PetscCall(PCSetOperators(pc, B, B));
  PetscCall(PCSetType(pc, PCPOLY));
  PetscCall(PCPolySetType(pc, PC_POLY_GMRES));
  PetscCall(PCPolySetDegree(pc, n - 1));
  PetscCall(PCPolySetJacobi(pc, jacobi));
  PetscCall(PCSetUp(pc));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(MatCreateVecs(B, &xb, &yb));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(MatMult(A, x, b));
  PetscCall(VecCopy(b, xb));
  PetscCall(PCApply(pc, xb, yb));
  PetscCall(VecAXPY(yb, -1.0, x));
  PetscCall(VecNorm(yb, NORM_2, &e));
  PetscCall(VecNorm(x, NORM_2, &nx));
  e /= nx;
  *failures += !(e < 1e-8);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s  exact gmres degree %" PetscInt_FMT " on %" PetscInt_FMT " x %" PetscInt_FMT ", jacobi %d: |p(B) D^-1 A x - x|/|x| %.1e\n", e < 1e-8 ? "ok  " : "FAIL", n - 1, n, n, (int)jacobi, (double)e));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&xb));
  PetscCall(VecDestroy(&yb));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Iterations of one solve with PCPOLY; checks the true residual */
static PetscErrorCode SolveIts(Mat A, Mat B, const char *ksptype, PCPolyType type, PetscInt k, PetscInt *its, PetscReal *res)
{
  KSP                ksp;
  PC                 pc;
  Vec                x, b, r;
  KSPConvergedReason reason;
  PetscReal          nb;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(B, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, B, B));
  PetscCall(KSPSetType(ksp, ksptype));
  PetscCall(KSPSetTolerances(ksp, 1e-8, 1e-50, PETSC_DEFAULT, 5000));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCPOLY));
  PetscCall(PCPolySetType(pc, type));
  PetscCall(PCPolySetDegree(pc, k));
  if (strcmp(ksptype, KSPCG)) PetscCall(KSPSetPCSide(ksp, PC_RIGHT)); /* true residual norm: comparable across degrees */
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, res));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *res /= nb;
  if (reason < 0) *its = -*its;
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      type[64] = MATAIJ, *checks[4];
  PetscInt  nchecks = 4, failures = 0, n = 40, ncols = 0;
  PetscReal tol     = 1e-10;
  PetscBool set, dense = PETSC_TRUE, exact = PETSC_TRUE, its = PETSC_TRUE, quick = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-quick", &quick, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-columns", &ncols, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-check", checks, &nchecks, &set));
  if (set) {
    dense = exact = its = PETSC_FALSE;
    for (PetscInt i = 0; i < nchecks; i++) {
      dense = (PetscBool)(dense || !strcmp(checks[i], "dense"));
      exact = (PetscBool)(exact || !strcmp(checks[i], "exact"));
      its   = (PetscBool)(its || !strcmp(checks[i], "its"));
      PetscCall(PetscFree(checks[i]));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_poly: PCPOLY on %s\n", type));

  if (dense) {
    const Config cfs[] = {
      {"chebyshev, bounds given", PC_POLY_CHEBYSHEV, PETSC_TRUE,  PETSC_FALSE, PETSC_TRUE },
      {"chebyshev, estimated",    PC_POLY_CHEBYSHEV, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE },
      {"neumann, damping given",  PC_POLY_NEUMANN,   PETSC_FALSE, PETSC_TRUE,  PETSC_TRUE },
      {"neumann, 1/emax",         PC_POLY_NEUMANN,   PETSC_FALSE, PETSC_FALSE, PETSC_TRUE },
      {"gmres",                   PC_POLY_GMRES,     PETSC_FALSE, PETSC_FALSE, PETSC_TRUE },
      {"gmres, no added roots",   PC_POLY_GMRES,     PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    };
    /* the reference multiplies the roots out into monomial coefficients, accurate for low degrees only: with the
       outlying eigenvalues (300, 120 against 0.1..4) up to degree 4, where the GMRES polynomial without Jacobi
       scaling already gets added roots */
    const struct {
      const char *spec;
      PetscInt    maxdeg;
      PetscBool   added;
    } mats[] = {
      {"laplacian:n=10",         7, PETSC_FALSE},
      {"convdiff:n=9",           7, PETSC_FALSE},
      {"random:m=90,k=5,seed=3", 7, PETSC_FALSE},
      {"outlier:n=60",           4, PETSC_TRUE },
    };
    const PetscInt degs[] = {1, 2, 4, 7};

    for (size_t m = 0; m < (quick ? 2 : sizeof(mats) / sizeof(mats[0])); m++) {
      Mat A, B;

      if (!strncmp(mats[m].spec, "laplacian", 9)) PetscCall(Laplacian2D(PETSC_COMM_WORLD, 10, 0.0, &A));
      else if (!strncmp(mats[m].spec, "convdiff", 8)) PetscCall(Laplacian2D(PETSC_COMM_WORLD, 9, 1.5, &A));
      else if (!strncmp(mats[m].spec, "outlier", 7)) PetscCall(Outlier(PETSC_COMM_WORLD, 60, &A));
      else PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, mats[m].spec, &A));
      PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix %s\n", mats[m].spec));
      for (size_t c = 0; c < sizeof(cfs) / sizeof(cfs[0]); c++)
        for (PetscInt jac = 1; jac >= 0; jac--)
          for (size_t d = 0; d < sizeof(degs) / sizeof(degs[0]) && degs[d] <= mats[m].maxdeg; d++) {
            if (quick && (degs[d] == 1 || degs[d] == 7)) continue;
            /* the random matrix is not symmetric and its scaled spectrum not inside the given interval: Chebyshev
               with given bounds still is a fixed polynomial, the check holds all the same */
            const PetscBool added = (PetscBool)(mats[m].added && cfs[c].type == PC_POLY_GMRES && cfs[c].addroots && !jac && degs[d] >= 4);
            PetscCall(DenseCheck(A, B, &cfs[c], degs[d], (PetscBool)jac, added, ncols, tol, &failures));
          }
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&B));
    }
  }
  if (exact) {
    const char *mats[] = {"random:m=8,k=3,seed=11", "random:m=12,k=4,seed=12"};

    for (size_t m = 0; m < sizeof(mats) / sizeof(mats[0]); m++) {
      Mat A, B;

      PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, mats[m], &A));
      PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
      for (PetscInt jac = 1; jac >= 0; jac--) PetscCall(ExactCheck(A, B, (PetscBool)jac, &failures));
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&B));
    }
  }
  if (its) {
    const struct {
      const char *ksp;
      PCPolyType  type;
    } runs[] = {
      {KSPCG,    PC_POLY_CHEBYSHEV},
      {KSPCG,    PC_POLY_NEUMANN  },
      {KSPGMRES, PC_POLY_GMRES    },
      {KSPGMRES, PC_POLY_CHEBYSHEV},
      {KSPGMRES, PC_POLY_NEUMANN  },
      {KSPBCGS,  PC_POLY_GMRES    },
      {KSPBCGS,  PC_POLY_CHEBYSHEV},
    };
    const PetscInt degs[] = {1, 2, 4, 8, 16};
    Mat            A, B;

    PetscCall(Laplacian2D(PETSC_COMM_WORLD, n, 0.0, &A));
    PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "2D Laplacian %" PetscInt_FMT " x %" PetscInt_FMT ", rtol 1e-8 (GMRES, BiCGSTAB: right preconditioning)\n", n, n));
    for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
      PetscInt  prev = PETSC_INT_MAX, it;
      PetscReal res;
      PetscBool ok = PETSC_TRUE;
      char      line[512] = "";

      for (size_t d = 0; d < sizeof(degs) / sizeof(degs[0]); d++) {
        char item[64];

        PetscCall(SolveIts(A, B, runs[r].ksp, runs[r].type, degs[d], &it, &res));
        ok = (PetscBool)(ok && it > 0 && it < prev && res < 1e-6);
        prev = it > 0 ? it : 0;
        PetscCall(PetscSNPrintf(item, sizeof(item), "  k=%" PetscInt_FMT ": %" PetscInt_FMT " (%.0e)", degs[d], it, (double)res));
        PetscCall(PetscStrlcat(line, item, sizeof(line)));
      }
      failures += !ok;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s  its %-8s %-9s%s\n", ok ? "ok  " : "FAIL", runs[r].ksp, PCPolyTypes[runs[r].type], line));
    }
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&B));
  }
  PetscCheck(!failures, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " PCPOLY checks failed", failures);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_poly: all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
