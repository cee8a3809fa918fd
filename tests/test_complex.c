static char help[] = "Complex scalars (issue #28): a petsc-spmv type against AIJ on complex non-Hermitian matrices, 1 or more ranks:\n"
                     "MatMult(Add), MatMultTranspose(Add), MatMultHermitianTranspose(Add); COO assembly with complex values;\n"
                     "PCPOLY (gmres polynomial, double and -pc_poly_precision single) with GMRES on a complex Helmholtz-type operator.\n"
                     "  -type <brc>   -matrices \"spec;spec;...\"   -tol 1e-12   -n 48 (Helmholtz grid)   -checks products,coo,poly\n"
                     "  -ref <aij>    the reference's type (aijcusparse on a GPU: the products against cuSPARSE's complex ones)\n\n";

#include <petscspmv.h>
#include <petscksp.h>
#include <unistd.h>
#include "spmvexamples.h"

#if !PetscDefined(USE_COMPLEX)
int main(int argc, char **argv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_complex: needs a complex PETSc (make SCALAR=complex)\n"));
  PetscCall(PetscFinalize());
  return 0;
}
#else
static PetscInt    failures = 0;
static PetscRandom rnd;

static PetscErrorCode Report(PetscBool ok, const char *what, PetscReal e)
{
  PetscFunctionBeginUser;
  failures += !ok;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s %.2e\n", ok ? "ok  " : "FAIL", what, (double)e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the six products of B against A's; the Hermitian transpose must differ from the transpose (complex values) */
static PetscErrorCode CheckProducts(Mat A, Mat B, const char *spec, PetscReal tol)
{
  Vec       x, xt, y, yt, yb, ytb, z, zt;
  PetscReal e, d;
  char      what[512];

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(MatCreateVecs(A, &yt, &xt)); /* xt: a row vector, yt: a column one */
  PetscCall(MatCreateVecs(B, NULL, &yb));
  PetscCall(MatCreateVecs(B, &ytb, NULL));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(yt, &zt));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(xt, rnd));
  PetscCall(VecSetRandom(z, rnd));
  PetscCall(VecSetRandom(zt, rnd));
  /* y = A x, y = z + A x */
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(B, x, yb));
  PetscCall(SpMVRelErr(yb, y, &e));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s MatMult", spec));
  PetscCall(Report((PetscBool)(e < tol), what, e));
  PetscCall(MatMultAdd(A, x, z, y));
  PetscCall(MatMultAdd(B, x, z, yb));
  PetscCall(SpMVRelErr(yb, y, &e));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s MatMultAdd", spec));
  PetscCall(Report((PetscBool)(e < tol), what, e));
  /* transposes */
  PetscCall(MatMultTranspose(A, xt, yt));
  PetscCall(MatMultTranspose(B, xt, ytb));
  PetscCall(SpMVRelErr(ytb, yt, &e));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s MatMultTranspose", spec));
  PetscCall(Report((PetscBool)(e < tol), what, e));
  PetscCall(MatMultHermitianTranspose(B, xt, ytb));
  PetscCall(SpMVRelErr(ytb, yt, &d)); /* A^H x against A^T x: must differ */
  PetscCall(MatMultHermitianTranspose(A, xt, yt));
  PetscCall(SpMVRelErr(ytb, yt, &e));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s MatMultHermitianTranspose (differs from the transpose by %.2e)", spec, (double)d));
  PetscCall(Report((PetscBool)(e < tol && d > 1e-3), what, e));
  PetscCall(MatMultTransposeAdd(A, xt, zt, yt));
  PetscCall(MatMultTransposeAdd(B, xt, zt, ytb));
  PetscCall(SpMVRelErr(ytb, yt, &e));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s MatMultTransposeAdd", spec));
  PetscCall(Report((PetscBool)(e < tol), what, e));
  PetscCall(MatMultHermitianTransposeAdd(A, xt, zt, yt));
  PetscCall(MatMultHermitianTransposeAdd(B, xt, zt, ytb));
  PetscCall(SpMVRelErr(ytb, yt, &e));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s MatMultHermitianTransposeAdd", spec));
  PetscCall(Report((PetscBool)(e < tol), what, e));
  PetscCall(VecDestroy(&x)); PetscCall(VecDestroy(&xt)); PetscCall(VecDestroy(&y)); PetscCall(VecDestroy(&yt));
  PetscCall(VecDestroy(&yb)); PetscCall(VecDestroy(&ytb)); PetscCall(VecDestroy(&z)); PetscCall(VecDestroy(&zt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A assembled again by COO in the type, with A's complex values; then new values (times 2i) through MatSetValuesCOO */
static PetscErrorCode CheckCOO(Mat A, const char *type, const char *spec, PetscReal tol)
{
  Mat          B;
  PetscInt     rstart, rend, m, n, M, N, nnz = 0, k = 0;
  PetscInt    *ci, *cj;
  PetscScalar *cv;
  char         what[512];

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatGetSize(A, &M, &N));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt nc;
    PetscCall(MatGetRow(A, r, &nc, NULL, NULL));
    nnz += nc;
    PetscCall(MatRestoreRow(A, r, &nc, NULL, NULL));
  }
  PetscCall(PetscMalloc3(nnz, &ci, nnz, &cj, nnz, &cv));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt           nc;
    const PetscInt    *c;
    const PetscScalar *v;
    PetscCall(MatGetRow(A, r, &nc, &c, &v));
    for (PetscInt q = 0; q < nc; q++, k++) {
      ci[k] = r;
      cj[k] = c[q];
      cv[k] = v[q];
    }
    PetscCall(MatRestoreRow(A, r, &nc, &c, &v));
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  PetscCall(MatSetSizes(B, m, n, M, N));
  PetscCall(MatSetType(B, type));
  PetscCall(MatSetFromOptions(B));
  PetscCall(MatSetPreallocationCOO(B, nnz, ci, cj));
  PetscCall(MatSetValuesCOO(B, cv, INSERT_VALUES));
  {
    Vec       x, y, yb;
    PetscReal e;
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(MatCreateVecs(B, NULL, &yb));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(MatMult(A, x, y));
    PetscCall(MatMult(B, x, yb));
    PetscCall(SpMVRelErr(yb, y, &e));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s COO assembly, MatMult", spec));
    PetscCall(Report((PetscBool)(e < tol), what, e));
    for (PetscInt q = 0; q < nnz; q++) cv[q] *= PetscCMPLX(0.0, 2.0);
    PetscCall(MatSetValuesCOO(B, cv, INSERT_VALUES));
    PetscCall(MatMult(B, x, yb));
    PetscCall(VecScale(y, PetscCMPLX(0.0, 2.0)));
    PetscCall(SpMVRelErr(yb, y, &e));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s COO new values (times 2i), MatMult", spec));
    PetscCall(Report((PetscBool)(e < tol), what, e));
    PetscCall(MatMultHermitianTranspose(B, y, x));
    PetscCall(VecDestroy(&x)); PetscCall(VecDestroy(&y)); PetscCall(VecDestroy(&yb));
  }
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFree3(ci, cj, cv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A Helmholtz-type operator: the 5-point Laplacian of an n x n grid (h^2-scaled, Dirichlet) minus kappa = k2 (1 + i/2):
   complex symmetric, not Hermitian, indefinite in its real part for k2 above the smallest Laplacian eigenvalue */
static PetscErrorCode Helmholtz(MPI_Comm comm, PetscInt n, PetscReal k2, const char *type, Mat *A)
{
  PetscInt          rstart, rend;
  const PetscScalar kappa = PetscCMPLX(k2, 0.5 * k2);

  PetscFunctionBeginUser;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt i = r / n, j = r % n;
    PetscInt       c[5], nc = 0;
    PetscScalar    v[5];
    if (i > 0) c[nc] = r - n, v[nc++] = -1.0;
    if (j > 0) c[nc] = r - 1, v[nc++] = -1.0;
    c[nc] = r, v[nc++] = 4.0 - kappa;
    if (j < n - 1) c[nc] = r + 1, v[nc++] = -1.0;
    if (i < n - 1) c[nc] = r + n, v[nc++] = -1.0;
    PetscCall(MatSetValues(*A, 1, &r, nc, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GMRES(30) iterations to rtol 1e-8 with PCPOLY (gmres polynomial of degree k; k = 0: no preconditioner), true residual checked */
static PetscErrorCode Solve(Mat A, PetscInt k, PCPolyPrecision prec, PetscInt *its, PetscReal *res, PetscBool *usedcopy)
{
  KSP       ksp;
  PC        pc;
  Vec       x, b, r;
  PetscReal nb;
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSet(b, PetscCMPLX(1.0, -0.5)));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPSetPCSide(ksp, PC_RIGHT));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 20000));
  PetscCall(KSPGetPC(ksp, &pc));
  if (k > 0) {
    PetscCall(PCSetType(pc, PCPOLY));
    PetscCall(PCPolySetType(pc, PC_POLY_GMRES));
    PetscCall(PCPolySetDegree(pc, k));
    PetscCall(PCPolySetPrecision(pc, prec));
  } else PetscCall(PCSetType(pc, PCNONE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, its));
  if (usedcopy) { /* on the GPU PCPOLY times the copy against the operator at setup and keeps the faster: its view says */
    PetscViewer v;
    char        tmp[PETSC_MAX_PATH_LEN], name[PETSC_MAX_PATH_LEN], line[1024];
    FILE       *f;
    PetscMPIInt rank;
    *usedcopy = PETSC_TRUE;
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
    PetscCall(PetscGetTmp(PETSC_COMM_SELF, tmp, sizeof(tmp)));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s/test_complex_pcview.%d.%d.txt", tmp, (int)getpid(), (int)rank));
    PetscCall(PetscViewerASCIIOpen(PETSC_COMM_SELF, name, &v));
    PetscCall(PCView(pc, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(PetscFOpen(PETSC_COMM_SELF, name, "r", &f));
    while (fgets(line, sizeof(line), f)) {
      char *hit;
      PetscCall(PetscStrstr(line, "single asked, double used", &hit));
      if (hit) *usedcopy = PETSC_FALSE;
    }
    PetscCall(PetscFClose(PETSC_COMM_SELF, f));
    (void)remove(name);
  }
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, res));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *res /= nb;
  if (reason <= 0) *its = -1;
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x)); PetscCall(VecDestroy(&b)); PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckPoly(const char *type, PetscInt n)
{
  Mat       A, B;
  PetscInt  i0, ia, ib, is;
  PetscReal r0, ra, rb, rs;
  PetscBool used;
  char      what[256];

  PetscFunctionBeginUser;
  PetscCall(Helmholtz(PETSC_COMM_WORLD, n, 0.05, MATAIJ, &A));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
  PetscCall(Solve(A, 0, PC_POLY_PRECISION_DOUBLE, &i0, &r0, NULL));
  PetscCall(Solve(A, 8, PC_POLY_PRECISION_DOUBLE, &ia, &ra, NULL));
  PetscCall(Solve(B, 8, PC_POLY_PRECISION_DOUBLE, &ib, &rb, NULL));
  PetscCall(PetscSNPrintf(what, sizeof(what), "Helmholtz n=%" PetscInt_FMT ": GMRES %" PetscInt_FMT " its; PCPOLY gmres 8: aij %" PetscInt_FMT " its, %s %" PetscInt_FMT " its (true residual)", n, i0, ia, type, ib));
  PetscCall(Report((PetscBool)(i0 > 0 && ia > 0 && ib > 0 && ia < i0 && ib <= ia + ia / 10 + 2 && ib >= ia - ia / 10 - 2 && rb < 1e-7), what, rb));
  /* fp32 values (complex<float>): the type's own copy (a type that stores no fp32 values: the automatic one) */
  PetscCall(Solve(B, 8, PC_POLY_PRECISION_SINGLE, &is, &rs, &used));
  PetscCall(PetscSNPrintf(what, sizeof(what), "Helmholtz n=%" PetscInt_FMT ": PCPOLY gmres 8, -pc_poly_precision single on %s: %" PetscInt_FMT " its (double %" PetscInt_FMT "), residual %.10e (double %.10e)%s", n, type, is, ib, (double)rs, (double)rb, used ? "" : "; the operator's product was timed faster than the copy's: double used"));
  PetscCall(Report((PetscBool)(is > 0 && is <= ib + ib / 4 + 2 && rs < 1e-7 && (used ? rs != rb : rs == rb)), what, rs)); /* fp32 values: not the fp64 run's residual */
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      list[4096] = "random:m=3000,k=9,empty=0.2;denserows:m=4000,k=6,len=1500,dense=3;stencil27:n=12;rmat:scale=11,ef=8;banded:m=2000,bw=3;stencil7:n=14,const=1";
  char      type[64] = MATBRC, checks[256] = "products,coo,poly", ref[64] = "";
  PetscReal tol = 1e-12;
  PetscInt  n = 48;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrices", list, sizeof(list), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-checks", checks, sizeof(checks), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ref", ref, sizeof(ref), NULL)); /* the reference's type (default AIJ), e.g. aijcusparse */
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, PetscCMPLX(-1.0, -1.0), PetscCMPLX(1.0, 1.0)));
  PetscCall(PetscRandomSetSeed(rnd, 28));
  PetscCall(PetscRandomSeed(rnd));
  for (char *spec = strtok(list, ";"); spec; spec = strtok(NULL, ";")) {
    Mat A, B;
    PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, spec, &A));
    if (ref[0]) PetscCall(MatConvert(A, ref, MAT_INPLACE_MATRIX, &A));
    if (strstr(checks, "products")) {
      PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
      PetscCall(MatSetFromOptions(B));
      PetscCall(CheckProducts(A, B, spec, tol));
      PetscCall(MatDestroy(&B));
    }
    if (strstr(checks, "coo")) PetscCall(CheckCOO(A, type, spec, tol));
    PetscCall(MatDestroy(&A));
  }
  if (strstr(checks, "poly")) PetscCall(CheckPoly(type, n));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCheck(!failures, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " checks failed", failures);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_complex: all checks passed (type %s)\n", type));
  PetscCall(PetscFinalize());
  return 0;
}
#endif
