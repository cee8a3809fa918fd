static char help[] = "Operations that replace a matrix' header or re-type it (MatHeaderReplace/MatHeaderMerge inside PETSc), on a\n"
                     "petsc-spmv type, each against the same operation on AIJ, on any number of ranks: MatAXPY with\n"
                     "DIFFERENT_NONZERO_PATTERN and SUBSET_NONZERO_PATTERN, MatConvert in place (to aij, to dense, and back),\n"
                     "MatConvert of its MATSHELL back, MatTranspose (initial, reuse, in place), MatMatMult/MatPtAP/MatTransposeMatMult (initial, reuse),\n"
                     "Galerkin products down two levels (reused, and with a replaced interpolation), products with a MATDIAGONAL, MatCreateSubMatrix and\n"
                     "its Galerkin products with a plain AIJ interpolation, DMDA/DMStag transfer matrices, MatSetType\n"
                     "twice (same type, another and back, before the sizes), preallocation twice, MatResetPreallocation, MatDuplicate\n"
                     "(copy, no copy, shared pattern), MatFilter, MatEliminateZeros, in-place LU. After each: the type name\n"
                     "(MatGetType), the format still attached, MatSetOption answered, MatMult/MatMultAdd/MatMultTranspose and the\n"
                     "Frobenius norm against AIJ (relative -tol). One line per operation: ok|FAIL type ranks operation [why].\n"
                     "  -type brc  -tol 1e-12  -ops all|name,name  -list  -show_errors\n\n";

#include <string.h>
#include <petscspmv.h>
#include <petscdmda.h>
#include <petscdmstag.h>
#include "spmvexamples.h"

static PetscRandom rnd;
static PetscReal   tol = 1e-12;
static char        type[64] = MATBRC, other[64], ptype[80], atype[16], dtype[16];
static PetscMPIInt size;
static PetscBool   isaij; /* -type aij: the table against AIJ itself (a check of the test's expectations) */

/* M against the reference R: type name, the format (a plugin type), MatSetOption, products, norm */
static PetscErrorCode Check(Mat R, Mat M, const char *expect, const char *what)
{
  MatType     got;
  PetscBool   same, plugin;
  const char *fmt = NULL;
  PetscReal   nr, nm;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(M, &got));
  PetscCall(PetscStrcmp(got, expect, &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: type %s, expected %s", what, got, expect);
  PetscCall(MatSetOption(M, MAT_ROW_ORIENTED, PETSC_TRUE)); /* the type's setoption (MatCreateGraph's MatSetOption failed so) */
  for (int t = 0; t < 3; t++) { /* MatMult, MatMultAdd, MatMultTranspose; each matrix with its own vectors (CUDA ones for
                                    a GPU parent: aijcusparse's MatMultTranspose takes no host vectors) and the same values */
    Vec       x, y, z, xr, yr, zr;
    PetscReal e, n;
    PetscCall(t == 2 ? MatCreateVecs(R, &yr, &xr) : MatCreateVecs(R, &xr, &yr));
    PetscCall(t == 2 ? MatCreateVecs(M, &y, &x) : MatCreateVecs(M, &x, &y));
    PetscCall(VecDuplicate(yr, &zr));
    PetscCall(VecDuplicate(y, &z));
    PetscCall(VecSetRandom(xr, rnd));
    PetscCall(VecSetRandom(zr, rnd));
    PetscCall(SpMVCopyValues(xr, x));
    PetscCall(SpMVCopyValues(zr, z));
    if (t == 0) {
      PetscCall(MatMult(R, xr, yr));
      PetscCall(MatMult(M, x, y));
    } else if (t == 1) {
      PetscCall(MatMultAdd(R, xr, zr, yr));
      PetscCall(MatMultAdd(M, x, z, y));
    } else {
      PetscCall(MatMultTranspose(R, xr, yr));
      PetscCall(MatMultTranspose(M, x, y));
    }
    PetscCall(VecNorm(yr, NORM_2, &n));
    PetscCall(SpMVCopyValues(y, zr)); /* M's result into a vector of R's kind */
    PetscCall(VecAXPY(zr, -1.0, yr));
    PetscCall(VecNorm(zr, NORM_2, &e));
    PetscCheck(e <= tol * PetscMax(n, 1e-300), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s differs from AIJ's by %g (|y| = %g)", what, t == 0 ? "MatMult" : t == 1 ? "MatMultAdd" : "MatMultTranspose", (double)e, (double)n);
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&xr));
    PetscCall(VecDestroy(&yr));
    PetscCall(VecDestroy(&zr));
  }
  PetscCall(MatNorm(R, NORM_FROBENIUS, &nr));
  PetscCall(MatNorm(M, NORM_FROBENIUS, &nm));
  PetscCheck(PetscAbsReal(nr - nm) <= tol * nr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: Frobenius norm %g, AIJ's %g", what, (double)nm, (double)nr);
  /* last: the products above were right, is the format still attached (MatSpMVGetFormat) to a matrix of the type? */
  PetscCall(PetscStrcmp(expect, ptype, &plugin));
  plugin = (PetscBool)(plugin && !isaij);
  PetscCall(MatSpMVGetFormat(M, &fmt));
  PetscCheck(!plugin || fmt, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: a %s matrix without a format (MatSpMVGetFormat gives none; products and norm were right)", what, got);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The local rows' preallocation of A's pattern (diagonal and off-diagonal block counts) */
static PetscErrorCode Counts(Mat A, PetscInt **dnnz, PetscInt **onnz)
{
  PetscInt rs, re, cs, ce;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscCall(MatGetOwnershipRangeColumn(A, &cs, &ce));
  PetscCall(PetscCalloc2(re - rs, dnnz, re - rs, onnz));
  for (PetscInt r = rs; r < re; r++) {
    PetscInt        nc;
    const PetscInt *cols;
    PetscCall(MatGetRow(A, r, &nc, &cols, NULL));
    for (PetscInt k = 0; k < nc; k++) {
      if (cols[k] >= cs && cols[k] < ce) (*dnnz)[r - rs]++;
      else (*onnz)[r - rs]++;
    }
    PetscCall(MatRestoreRow(A, r, &nc, &cols, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M (preallocated or not) gets A's entries times s, by MatSetValues of the local rows, and is assembled */
static PetscErrorCode Fill(Mat M, Mat A, PetscScalar s)
{
  PetscInt rs, re;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt r = rs; r < re; r++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscScalar        v[256];
    PetscCall(MatGetRow(A, r, &nc, &cols, &vals));
    PetscCheck(nc <= 256, PETSC_COMM_SELF, PETSC_ERR_SUP, "row too long");
    for (PetscInt k = 0; k < nc; k++) v[k] = s * vals[k];
    PetscCall(MatSetValues(M, 1, &r, nc, cols, v, INSERT_VALUES));
    PetscCall(MatRestoreRow(A, r, &nc, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An AIJ matrix with A's layout and a strict subset of its pattern (the diagonal and every other entry) */
static PetscErrorCode Subset(Mat A, Mat *S)
{
  PetscInt rs, re, m, n, *dnnz, *onnz;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(Counts(A, &dnnz, &onnz));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), S));
  PetscCall(MatSetSizes(*S, m, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*S, MATAIJ));
  PetscCall(MatXAIJSetPreallocation(*S, 1, dnnz, onnz, NULL, NULL));
  for (PetscInt r = rs; r < re; r++) {
    PetscInt           nc, c[256], nk = 0;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscScalar        v[256];
    PetscCall(MatGetRow(A, r, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++)
      if (cols[k] == r || k % 2) {
        c[nk]   = cols[k];
        v[nk++] = 0.5 + vals[k];
      }
    PetscCall(MatSetValues(*S, 1, &r, nk, c, v, INSERT_VALUES));
    PetscCall(MatRestoreRow(A, r, &nc, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(*S, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*S, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree2(dnnz, onnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operands: A square nonsymmetric, X square with another pattern, P rectangular (for PtAP, AtB) */
typedef struct {
  Mat A, X, P;
} Data;

/* M = A as the plugin type, R = A as AIJ */
static PetscErrorCode Pair(Mat A, Mat *R, Mat *M)
{
  PetscFunctionBeginUser;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, R));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, M));
  PetscCall(MatSetFromOptions(*M)); /* -mat_spmv_host_reference */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpAXPYDifferent(const Data *d, PetscBool mixed)
{
  Mat R, M, XR, XM;

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(Pair(d->X, &XR, &XM));
  PetscCall(MatAXPY(R, 0.7, XR, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatAXPY(M, 0.7, mixed ? XR : XM, DIFFERENT_NONZERO_PATTERN));
  PetscCall(Check(R, M, ptype, "MatAXPY(DIFFERENT_NONZERO_PATTERN)"));
  PetscCall(MatAXPY(R, -0.3, XR, SUBSET_NONZERO_PATTERN));
  PetscCall(MatAXPY(M, -0.3, mixed ? XR : XM, SUBSET_NONZERO_PATTERN)); /* X's pattern is now inside Y's */
  PetscCall(Check(R, M, ptype, "then MatAXPY(SUBSET_NONZERO_PATTERN)"));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&XR));
  PetscCall(MatDestroy(&XM));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode OpAXPYDiff(const Data *d) { return OpAXPYDifferent(d, PETSC_FALSE); }
static PetscErrorCode OpAXPYDiffMixed(const Data *d) { return OpAXPYDifferent(d, PETSC_TRUE); }

static PetscErrorCode OpAXPYSubset(const Data *d)
{
  Mat R, M, S, SM;

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(Subset(d->A, &S));
  PetscCall(MatConvert(S, type, MAT_INITIAL_MATRIX, &SM));
  PetscCall(MatAXPY(R, 1.5, S, SUBSET_NONZERO_PATTERN));
  PetscCall(MatAXPY(M, 1.5, SM, SUBSET_NONZERO_PATTERN));
  PetscCall(Check(R, M, ptype, "MatAXPY(SUBSET_NONZERO_PATTERN), X of the type"));
  PetscCall(MatAXPY(R, -0.5, S, SUBSET_NONZERO_PATTERN));
  PetscCall(MatAXPY(M, -0.5, S, SUBSET_NONZERO_PATTERN));
  PetscCall(Check(R, M, ptype, "MatAXPY(SUBSET_NONZERO_PATTERN), X AIJ"));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&SM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpConvertInplace(const Data *d, const char *to, const char *totype)
{
  Mat  R, M;
  char what[128];

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(MatConvert(M, to, MAT_INPLACE_MATRIX, &M));
  PetscCall(PetscSNPrintf(what, sizeof(what), "MatConvert(MAT_INPLACE_MATRIX) to %s", to));
  PetscCall(Check(R, M, totype, what));
  PetscCall(MatConvert(M, type, MAT_INPLACE_MATRIX, &M));
  PetscCall(Check(R, M, ptype, "and back in place"));
  PetscCall(MatScale(M, 2.0)); /* values refreshed after the round trip */
  PetscCall(MatScale(R, 2.0));
  PetscCall(Check(R, M, ptype, "and MatScale"));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* to a type outside the parent family (no converter of ours: MatConvert's general converter of the overlay lends the
   call to PETSc's basic one), initial and reuse, against the same conversion of AIJ */
static PetscErrorCode OpConvertOther(const Data *d)
{
  Mat         R, M, RD, MD;
  const char *tos[] = {MATDENSE, MATBAIJ};
  MatType     rt;

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  for (int k = 0; k < 2; k++) {
    const char *to = tos[k];
    PetscCall(MatConvert(R, to, MAT_INITIAL_MATRIX, &RD));
    PetscCall(MatConvert(M, to, MAT_INITIAL_MATRIX, &MD));
    PetscCall(MatGetType(RD, &rt));
    PetscCall(Check(RD, MD, rt, "MatConvert(MAT_INITIAL_MATRIX) to another type"));
    PetscCall(MatScale(R, 3.0));
    PetscCall(MatScale(M, 3.0));
    PetscCall(MatConvert(R, to, MAT_REUSE_MATRIX, &RD));
    PetscCall(MatConvert(M, to, MAT_REUSE_MATRIX, &MD));
    PetscCall(Check(RD, MD, rt, "MatConvert(MAT_REUSE_MATRIX) to another type"));
    PetscCall(Check(R, M, ptype, "the source after its conversions"));
    PetscCall(MatDestroy(&RD));
    PetscCall(MatDestroy(&MD));
  }
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode OpConvertAIJ(const Data *d) { return OpConvertInplace(d, MATAIJ, atype); }
static PetscErrorCode OpConvertDense(const Data *d) { return OpConvertInplace(d, MATDENSE, dtype); }

/* MatConvert(M, MATSHELL) holds a reference to M; converting the shell back to M's type must neither share nor free M
   (PETSc's mat/tests/ex2: the converter duplicated the shell, whose copy destroyed M once more) */
static PetscErrorCode OpConvertShellBack(const Data *d)
{
  Mat     R, M, S, F;
  MatType t;

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(MatGetType(M, &t));
  PetscCall(MatConvert(M, MATSHELL, MAT_INITIAL_MATRIX, &S));
  PetscCall(MatConvert(S, t, MAT_INITIAL_MATRIX, &F));
  PetscCall(Check(R, F, ptype, "MatConvert(MatConvert(M, MATSHELL), M's type)"));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&S));
  PetscCall(Check(R, M, ptype, "M after its shell was converted back and destroyed"));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* products through PETSc's shell of a converted matrix (shellcnv.c runs the numeric phase on a product it made anew:
   mat/tests/ex70) against the same products through the shell of the AIJ copy: dense B, AB and AtB, reused after new values */
static PetscErrorCode OpShellProducts(const Data *d)
{
  Mat R, M, SR, SM, XR, XM, BR, BM, CR[2] = {}, CM[2] = {};

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(Pair(d->X, &XR, &XM));
  PetscCall(MatConvert(XR, MATDENSE, MAT_INITIAL_MATRIX, &BR));
  PetscCall(MatConvert(XR, MATDENSE, MAT_INITIAL_MATRIX, &BM));
  PetscCall(MatConvert(R, MATSHELL, MAT_INITIAL_MATRIX, &SR));
  PetscCall(MatConvert(M, MATSHELL, MAT_INITIAL_MATRIX, &SM));
  for (int reuse = 0; reuse < 2; reuse++) {
    MatReuse mr = reuse ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX;
    if (reuse) {
      PetscCall(MatScale(R, 1.5));
      PetscCall(MatScale(M, 1.5));
    }
    PetscCall(MatMatMult(SR, BR, mr, PETSC_DETERMINE, &CR[0]));
    PetscCall(MatMatMult(SM, BM, mr, PETSC_DETERMINE, &CM[0]));
    PetscCall(MatTransposeMatMult(SR, BR, mr, PETSC_DETERMINE, &CR[1]));
    PetscCall(MatTransposeMatMult(SM, BM, mr, PETSC_DETERMINE, &CM[1]));
    for (int k = 0; k < 2; k++) {
      char    what[128];
      MatType ct;
      PetscCall(MatGetType(CM[k], &ct));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s of MatConvert(M, MATSHELL) (%s)", k ? "MatTransposeMatMult" : "MatMatMult", reuse ? "MAT_REUSE_MATRIX" : "MAT_INITIAL_MATRIX"));
      PetscCall(Check(CR[k], CM[k], ct, what));
    }
  }
  for (int k = 0; k < 2; k++) {
    PetscCall(MatDestroy(&CR[k]));
    PetscCall(MatDestroy(&CM[k]));
  }
  PetscCall(MatDestroy(&SR));
  PetscCall(MatDestroy(&SM));
  PetscCall(MatDestroy(&BR));
  PetscCall(MatDestroy(&BM));
  PetscCall(MatDestroy(&XR));
  PetscCall(MatDestroy(&XM));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpTranspose(const Data *d)
{
  Mat R, M, TR, TM;

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(MatTranspose(R, MAT_INITIAL_MATRIX, &TR));
  PetscCall(MatTranspose(M, MAT_INITIAL_MATRIX, &TM));
  PetscCall(Check(TR, TM, ptype, "MatTranspose(MAT_INITIAL_MATRIX)"));
  PetscCall(MatScale(R, -3.0)); /* not MatShift: on several ranks it raises the nonzero state (MatDiagonalSet, an assembly), */
  PetscCall(MatScale(M, -3.0)); /* which MatTranspose(MAT_REUSE_MATRIX) refuses, for MPIAIJ as well */
  PetscCall(MatTranspose(R, MAT_REUSE_MATRIX, &TR));
  PetscCall(MatTranspose(M, MAT_REUSE_MATRIX, &TM));
  PetscCall(Check(TR, TM, ptype, "MatTranspose(MAT_REUSE_MATRIX) after new values"));
  PetscCall(MatTranspose(R, MAT_INPLACE_MATRIX, &R));
  PetscCall(MatTranspose(M, MAT_INPLACE_MATRIX, &M));
  PetscCall(Check(R, M, ptype, "MatTranspose(MAT_INPLACE_MATRIX)"));
  PetscCall(Check(TR, M, ptype, "MatTranspose(MAT_INPLACE_MATRIX) against the reused transpose"));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&TR));
  PetscCall(MatDestroy(&TM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the type of a product: the parent's, on any number of ranks (seqaij/mpiaij; seqaijcusparse/mpiaijcusparse on a GPU;
   README "Products of plugin matrices come out as aijcusparse") */
static const char *ProductType(Mat C)
{
  MatType   ct;
  PetscBool cusparse = PETSC_FALSE;

  if (!MatGetType(C, &ct)) (void)PetscStrendswith(ct, "cusparse", &cusparse);
  return size > 1 ? (cusparse ? MATMPIAIJCUSPARSE : MATMPIAIJ) : (cusparse ? MATSEQAIJCUSPARSE : MATSEQAIJ);
}

/* products of plugin operands, initial then reuse after new values; they come out as the parent's type */
static PetscErrorCode OpProducts(const Data *d)
{
  Mat R, M, PR, PM, XR, XM, C[3], CR[3];

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(Pair(d->P, &PR, &PM));
  PetscCall(Pair(d->X, &XR, &XM));
  for (int reuse = 0; reuse < 2; reuse++) {
    MatReuse mr = reuse ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX;
    if (reuse) {
      PetscCall(MatScale(R, 1.5));
      PetscCall(MatScale(M, 1.5));
      PetscCall(MatScale(PR, -2.0));
      PetscCall(MatScale(PM, -2.0));
      PetscCall(MatShift(XR, 0.25));
      PetscCall(MatShift(XM, 0.25));
    }
    PetscCall(MatMatMult(R, XR, mr, PETSC_DETERMINE, &CR[0]));
    PetscCall(MatMatMult(M, XM, mr, PETSC_DETERMINE, &C[0]));
    PetscCall(MatPtAP(R, PR, mr, PETSC_DETERMINE, &CR[1]));
    PetscCall(MatPtAP(M, PM, mr, PETSC_DETERMINE, &C[1]));
    PetscCall(MatTransposeMatMult(PR, R, mr, PETSC_DETERMINE, &CR[2]));
    PetscCall(MatTransposeMatMult(PM, M, mr, PETSC_DETERMINE, &C[2]));
    for (int k = 0; k < 3; k++) {
      char what[128];
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s (%s)", k == 0 ? "MatMatMult" : k == 1 ? "MatPtAP" : "MatTransposeMatMult", reuse ? "MAT_REUSE_MATRIX" : "MAT_INITIAL_MATRIX"));
      PetscCall(Check(CR[k], C[k], ProductType(C[k]), what));
    }
  }
  for (int k = 0; k < 3; k++) {
    PetscCall(MatDestroy(&C[k]));
    PetscCall(MatDestroy(&CR[k]));
  }
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&PR));
  PetscCall(MatDestroy(&PM));
  PetscCall(MatDestroy(&XR));
  PetscCall(MatDestroy(&XM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Galerkin products down two levels, as PCMG makes them, then again with new values (a Newton step) and with a new
   interpolation of the same values (PCMG's adapted interpolations: MatProductReplaceMats): the coarse operator C1 =
   P^T A P is the parent's type, so the second level multiplies a genuine parent matrix by a plugin interpolation; on
   an aijcusparse parent its reused product once met the plugin's name ("Not for B of type seqaijspmv", session 36) */
static PetscErrorCode OpGalerkinChain(const Data *d)
{
  Mat R, M, PR, PM, QR, QM, C1R, C1M, C2R, C2M;

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(Pair(d->P, &PR, &PM));
  /* initial; new values; a new interpolation with the same values (1 rank: MPIAIJ's own PtAP refuses a replaced P,
     "Reuse matrix used was not generated from input matrix") */
  for (int pass = 0; pass < (size > 1 ? 2 : 3); pass++) {
    MatReuse    mr    = pass ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX;
    const char *label = pass == 0 ? "initial" : pass == 1 ? "new values" : "new interpolation";
    char        what[128];
    if (pass == 1) {
      PetscCall(MatScale(R, 1.5));
      PetscCall(MatScale(M, 1.5));
    }
    if (pass == 2) {
      Mat Q;
      PetscCall(MatDuplicate(QM, MAT_COPY_VALUES, &Q));
      PetscCall(MatDestroy(&QM));
      QM = Q;
    }
    PetscCall(MatPtAP(R, PR, mr, PETSC_DETERMINE, &C1R));
    PetscCall(MatPtAP(M, PM, mr, PETSC_DETERMINE, &C1M));
    /* checked before the second level is built, which brings C1's values to the host (the Frobenius norm): on the GPU,
       aijcusparse's own PtAP of an operator whose values lie only on the device, straight from another product, gave
       zeros here (aijcusparse alone, PETSc 3.26.1; session 37, bench/results/NOTES.md), and this checks the plugin */
    PetscCall(PetscSNPrintf(what, sizeof(what), "MatPtAP, first level (%s)", label));
    PetscCall(Check(C1R, C1M, ProductType(C1M), what));
    if (!pass) { /* the second level's interpolation: sparse and rectangular, as PCMG's */
      Mat      Q;
      PetscInt k;
      char     spec[64];
      PetscCall(MatGetSize(C1R, &k, NULL));
      PetscCall(PetscSNPrintf(spec, sizeof(spec), "random:m=%" PetscInt_FMT ",n=%" PetscInt_FMT ",k=2,seed=9", k, k / 3));
      PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, spec, &Q));
      PetscCall(Pair(Q, &QR, &QM));
      PetscCall(MatDestroy(&Q));
    }
    PetscCall(MatPtAP(C1R, QR, mr, PETSC_DETERMINE, &C2R));
    PetscCall(MatPtAP(C1M, QM, mr, PETSC_DETERMINE, &C2M));
    PetscCall(PetscSNPrintf(what, sizeof(what), "MatPtAP of the coarse operator (%s)", label));
    PetscCall(Check(C2R, C2M, ProductType(C2M), what));
  }
  Mat *all[] = {&R, &M, &PR, &PM, &QR, &QM, &C1R, &C1M, &C2R, &C2M};
  for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++) PetscCall(MatDestroy(all[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Products with a MATDIAGONAL (A D, D A: PETSc duplicates the general operand into the product inside its phases, where
   the plugin operand carries the parent's name), initial and reused: the plugin's type, AIJ's values */
static PetscErrorCode OpDiagonalProducts(const Data *d)
{
  Mat R, M, DR[2], DM[2], CR[2], CM[2];
  Vec v[2];

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(MatCreateVecs(M, &v[1], &v[0])); /* D A: rows of A; A D: its columns */
  for (int k = 0; k < 2; k++) {
    Vec r;
    PetscCall(VecSetRandom(v[k], rnd));
    PetscCall(MatCreateDiagonal(v[k], &DM[k]));
    PetscCall(k ? MatCreateVecs(R, &r, NULL) : MatCreateVecs(R, NULL, &r));
    PetscCall(SpMVCopyValues(v[k], r));
    PetscCall(MatCreateDiagonal(r, &DR[k]));
    PetscCall(VecDestroy(&r));
  }
  for (int reuse = 0; reuse < 2; reuse++) {
    MatReuse mr = reuse ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX;
    if (reuse) {
      PetscCall(MatScale(R, -1.5));
      PetscCall(MatScale(M, -1.5));
    }
    PetscCall(MatMatMult(DR[0], R, mr, PETSC_DETERMINE, &CR[0]));
    PetscCall(MatMatMult(DM[0], M, mr, PETSC_DETERMINE, &CM[0]));
    PetscCall(MatMatMult(R, DR[1], mr, PETSC_DETERMINE, &CR[1]));
    PetscCall(MatMatMult(M, DM[1], mr, PETSC_DETERMINE, &CM[1]));
    for (int k = 0; k < 2; k++) PetscCall(Check(CR[k], CM[k], ptype, k ? (reuse ? "A D (MAT_REUSE_MATRIX)" : "A D (MAT_INITIAL_MATRIX)") : (reuse ? "D A (MAT_REUSE_MATRIX)" : "D A (MAT_INITIAL_MATRIX)")));
  }
  for (int k = 0; k < 2; k++) {
    PetscCall(MatDestroy(&CR[k]));
    PetscCall(MatDestroy(&CM[k]));
    PetscCall(MatDestroy(&DR[k]));
    PetscCall(MatDestroy(&DM[k]));
    PetscCall(VecDestroy(&v[k]));
  }
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatCreateSubMatrix (initial and reused): with the local rows and columns of even index (PCFIELDSPLIT's case: MPIAIJ
   builds it from its diagonal block, MatCreateMPIAIJWithSeqAIJ) and with even columns half the matrix away; a submatrix of
   the plugin type is of that type. Then the Galerkin products of the first with a plain AIJ interpolation (a DMDA's or
   DMStag's for any -dm_mat_type not named aij*): PtAP and R A P (PCMG's MatGalerkin with an explicit restriction) */
static PetscErrorCode OpSubMatrix(const Data *d)
{
  Mat      R, M, RS[2], MS[2], PA, PS, RT, CR[2], CM[2];
  IS       is[2], all;
  PetscInt rs, re, N, pn;

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(MatGetOwnershipRange(R, &rs, &re));
  PetscCall(MatGetSize(R, &N, NULL));
  PetscCall(ISCreateStride(PetscObjectComm((PetscObject)R), (re + 1) / 2 - (rs + 1) / 2, rs + (rs % 2), 2, &is[0])); /* the local even rows */
  { /* the even columns half the matrix away (another rank's on 2 ranks), as many as the local rows of even index */
    PetscInt n, *c;
    PetscCall(ISGetLocalSize(is[0], &n));
    PetscCall(PetscMalloc1(n, &c));
    for (PetscInt i = 0; i < n; i++) c[i] = (rs + (rs % 2) + 2 * i + 2 * (N / 4)) % (N - N % 2);
    PetscCall(PetscSortInt(n, c));
    PetscCall(ISCreateGeneral(PetscObjectComm((PetscObject)R), n, c, PETSC_OWN_POINTER, &is[1]));
  }
  for (int reuse = 0; reuse < 2; reuse++) {
    MatReuse mr = reuse ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX;
    if (reuse) {
      PetscCall(MatScale(R, -1.5));
      PetscCall(MatScale(M, -1.5));
    }
    for (int k = 0; k < 2; k++) {
      char what[96];
      PetscCall(MatCreateSubMatrix(R, is[0], is[k], mr, &RS[k]));
      PetscCall(MatCreateSubMatrix(M, is[0], is[k], mr, &MS[k]));
      PetscCall(PetscSNPrintf(what, sizeof(what), "MatCreateSubMatrix %s (%s)", k ? "even columns half the matrix away" : "local even rows and columns", reuse ? "MAT_REUSE_MATRIX" : "MAT_INITIAL_MATRIX"));
      PetscCall(Check(RS[k], MS[k], ptype, what));
    }
  }
  /* a plain AIJ interpolation onto the square submatrix' rows: P's rows of even index, its transpose as the restriction */
  PetscCall(MatConvert(d->P, MATAIJ, MAT_INITIAL_MATRIX, &PA));
  PetscCall(MatGetOwnershipRangeColumn(PA, &pn, &N));
  PetscCall(ISCreateStride(PetscObjectComm((PetscObject)PA), N - pn, pn, 1, &all)); /* every column, each rank its own */
  PetscCall(MatCreateSubMatrix(PA, is[0], all, MAT_INITIAL_MATRIX, &PS));
  PetscCall(MatTranspose(PS, MAT_INITIAL_MATRIX, &RT));
  for (int reuse = 0; reuse < 2; reuse++) {
    MatReuse mr = reuse ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX;
    MatType  t;
    if (reuse) {
      PetscCall(MatScale(RS[0], 0.5));
      PetscCall(MatScale(MS[0], 0.5));
    }
    PetscCall(MatPtAP(RS[0], PS, mr, PETSC_DETERMINE, &CR[0]));
    PetscCall(MatPtAP(MS[0], PS, mr, PETSC_DETERMINE, &CM[0]));
    PetscCall(MatMatMatMult(RT, RS[0], PS, mr, PETSC_DETERMINE, &CR[1]));
    PetscCall(MatMatMatMult(RT, MS[0], PS, mr, PETSC_DETERMINE, &CM[1]));
    for (int k = 0; k < 2; k++) { /* the values; the type is what the product's dispatch made (AIJ's code: AIJ) */
      PetscCall(MatGetType(CM[k], &t));
      PetscCall(Check(CR[k], CM[k], t, k ? (reuse ? "R S P with AIJ R, P (MAT_REUSE_MATRIX)" : "R S P with AIJ R, P (MAT_INITIAL_MATRIX)") : (reuse ? "PtSP with an AIJ P (MAT_REUSE_MATRIX)" : "PtSP with an AIJ P (MAT_INITIAL_MATRIX)")));
    }
  }
  for (int k = 0; k < 2; k++) {
    PetscCall(MatDestroy(&RS[k]));
    PetscCall(MatDestroy(&MS[k]));
    PetscCall(MatDestroy(&CR[k]));
    PetscCall(MatDestroy(&CM[k]));
    PetscCall(ISDestroy(&is[k]));
  }
  PetscCall(ISDestroy(&all));
  PetscCall(MatDestroy(&PA));
  PetscCall(MatDestroy(&PS));
  PetscCall(MatDestroy(&RT));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The transfer matrices of a DMDA (1 and 2 degrees of freedom: AIJ and MAIJ for AIJ) and a DMStag (interpolation and
   restriction) whose matrix type is the plugin type's root name: of that type (PETSc's DMs make them AIJ for any name not
   starting with aij; src/dm/spmvdm.cu converts them), with AIJ's values */
static PetscErrorCode OpDMTransfers(const Data *d)
{
  PetscFunctionBeginUser;
  (void)d;
  for (int k = 0; k < 4; k++) { /* DMDA dof 1, DMDA dof 2, DMStag interpolation, DMStag restriction */
    DM   dc[2], df[2];
    Mat  T[2];
    Vec  S[2] = {NULL, NULL}; /* DMDA's scale (the restriction of ones, reciprocal), made with the converted matrix */
    char what[96];
    for (int t = 0; t < 2; t++) { /* 0: aij, 1: the plugin type */
      if (k < 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 9, 9, PETSC_DECIDE, PETSC_DECIDE, k + 1, 1, NULL, NULL, &dc[t]));
      else PetscCall(DMStagCreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, 4, 4, PETSC_DECIDE, PETSC_DECIDE, 0, 1, 1, DMSTAG_STENCIL_BOX, 1, NULL, NULL, &dc[t]));
      PetscCall(DMSetMatType(dc[t], t ? type : MATAIJ));
      PetscCall(DMSetUp(dc[t]));
      PetscCall(DMRefine(dc[t], PETSC_COMM_WORLD, &df[t]));
      if (k == 3) PetscCall(DMCreateRestriction(dc[t], df[t], &T[t]));
      else PetscCall(DMCreateInterpolation(dc[t], df[t], &T[t], k < 2 ? &S[t] : NULL));
    }
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s", k == 0 ? "DMDA interpolation" : k == 1 ? "DMDA interpolation, 2 dof" : k == 2 ? "DMStag interpolation" : "DMStag restriction"));
    MatType tt;
    for (int t = 0; t <= (int)isaij; t++) PetscCall(MatConvert(T[t], MATAIJ, MAT_INPLACE_MATRIX, &T[t])); /* AIJ's MAIJ as AIJ (no MatNorm) */
    PetscCall(MatGetType(T[1], &tt));
    PetscCall(Check(T[0], T[1], isaij ? tt : ptype, what)); /* -type aij: what PETSc makes */
    if (S[0]) {
      PetscReal n, e;
      PetscCall(VecNorm(S[0], NORM_INFINITY, &n));
      PetscCall(VecAXPY(S[1], -1.0, S[0]));
      PetscCall(VecNorm(S[1], NORM_INFINITY, &e));
      PetscCheck(e <= 1e-12 * n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the scale differs from AIJ's by %g", what, (double)e);
    }
    for (int t = 0; t < 2; t++) {
      PetscCall(VecDestroy(&S[t]));
      PetscCall(MatDestroy(&T[t]));
      PetscCall(DMDestroy(&df[t]));
      PetscCall(DMDestroy(&dc[t]));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSetType on an assembled matrix: the same type is a no-op; a type that is not a subclass of the current one
   (another plugin type, aij) empties the matrix (PETSc: destroy, unassembled), which is then preallocated and filled
   again; a subclass of the current type (aij -> the plugin type) converts in place */
static PetscErrorCode Refill(Mat M, Mat A)
{
  PetscInt *dnnz, *onnz;

  PetscFunctionBeginUser;
  PetscCall(Counts(A, &dnnz, &onnz));
  PetscCall(MatXAIJSetPreallocation(M, 1, dnnz, onnz, NULL, NULL));
  PetscCall(PetscFree2(dnnz, onnz));
  PetscCall(Fill(M, A, 1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpSetTypeAssembled(const Data *d)
{
  Mat  R, M;
  char otype[80];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(otype, sizeof(otype), "%s%s%s", size > 1 ? "mpi" : "seq", strncmp(other, "aij", 3) ? "aij" : "", other));
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(MatSetType(M, type));
  PetscCall(Check(R, M, ptype, "MatSetType(same type) on the assembled matrix"));
  PetscCall(MatSetType(M, other));
  PetscCall(Refill(M, d->A));
  PetscCall(Check(R, M, otype, "MatSetType(another plugin type), refilled"));
  PetscCall(MatSetType(M, type));
  PetscCall(Refill(M, d->A));
  PetscCall(Check(R, M, ptype, "MatSetType(back), refilled"));
  PetscCall(MatSetType(M, MATAIJ));
  PetscCall(Refill(M, d->A));
  PetscCall(Check(R, M, atype, "MatSetType(aij), refilled"));
  PetscCall(MatSetType(M, type));
  PetscCall(Check(R, M, ptype, "MatSetType(the type) on assembled AIJ (converts in place)"));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* created by hand: MatSetType twice (and another type in between) before preallocation; or before the sizes (as
   MatCreateGraph_Simple_AIJ does in GAMG for bs > 1) */
static PetscErrorCode Create(Mat A, PetscBool typefirst, Mat *M)
{
  PetscInt m, n, *dnnz, *onnz;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(Counts(A, &dnnz, &onnz));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), M));
  if (typefirst) {
    PetscCall(MatSetType(*M, type));
    PetscCall(MatSetSizes(*M, m, n, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetBlockSizes(*M, 1, 1));
  } else {
    PetscCall(MatSetSizes(*M, m, n, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetType(*M, type));
    PetscCall(MatSetType(*M, type));
    PetscCall(MatSetType(*M, other));
    PetscCall(MatSetType(*M, type));
  }
  PetscCall(MatSetFromOptions(*M));
  PetscCall(MatXAIJSetPreallocation(*M, 1, dnnz, onnz, NULL, NULL));
  PetscCall(PetscFree2(dnnz, onnz));
  PetscCall(Fill(*M, A, 1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpSetTypeTwice(const Data *d)
{
  Mat R, M;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(d->A, MATAIJ, MAT_INITIAL_MATRIX, &R));
  PetscCall(Create(d->A, PETSC_FALSE, &M));
  PetscCall(Check(R, M, ptype, "MatSetType twice, another type and back, then preallocation"));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpSetTypeFirst(const Data *d)
{
  Mat R, M;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(d->A, MATAIJ, MAT_INITIAL_MATRIX, &R));
  PetscCall(Create(d->A, PETSC_TRUE, &M));
  PetscCall(Check(R, M, ptype, "MatSetType before MatSetSizes"));
  PetscCall(MatSetOption(M, MAT_SYMMETRIC, PETSC_FALSE));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpPreallocTwice(const Data *d)
{
  Mat      R, M;
  PetscInt m, n, *dnnz, *onnz;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(d->A, MATAIJ, MAT_INITIAL_MATRIX, &R));
  PetscCall(MatGetLocalSize(d->A, &m, &n));
  PetscCall(Counts(d->A, &dnnz, &onnz));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &M));
  PetscCall(MatSetSizes(M, m, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(M, type));
  PetscCall(MatXAIJSetPreallocation(M, 1, dnnz, onnz, NULL, NULL));
  PetscCall(MatXAIJSetPreallocation(M, 1, dnnz, onnz, NULL, NULL));
  PetscCall(MatSeqAIJSetPreallocation(M, 0, dnnz)); /* the one that fits the communicator applies */
  PetscCall(MatMPIAIJSetPreallocation(M, 0, dnnz, 0, onnz));
  PetscCall(MatSeqAIJSetPreallocation(M, 0, dnnz));
  PetscCall(MatMPIAIJSetPreallocation(M, 0, dnnz, 0, onnz));
  PetscCall(PetscFree2(dnnz, onnz));
  PetscCall(Fill(M, d->A, 1.0));
  PetscCall(Check(R, M, ptype, "preallocated twice (MatXAIJ, MatSeqAIJ/MatMPIAIJ)"));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpResetPrealloc(const Data *d)
{
  Mat R, M;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(d->A, MATAIJ, MAT_INITIAL_MATRIX, &R));
  PetscCall(Create(d->A, PETSC_FALSE, &M));
  PetscCall(Check(R, M, ptype, "filled"));
  PetscCall(MatResetPreallocation(M));
  PetscCall(MatScale(R, -0.5));
  PetscCall(Fill(M, d->A, -0.5));
  PetscCall(Check(R, M, ptype, "MatResetPreallocation, refilled"));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpDuplicate(const Data *d, MatDuplicateOption op)
{
  Mat R, M, D;

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(MatDuplicate(M, op, &D));
  if (op != MAT_COPY_VALUES) PetscCall(Fill(D, d->A, 2.0)); /* values into the duplicated pattern */
  else PetscCall(MatScale(D, 2.0));
  PetscCall(MatScale(R, 2.0));
  PetscCall(Check(R, D, ptype, op == MAT_COPY_VALUES ? "MAT_COPY_VALUES" : op == MAT_DO_NOT_COPY_VALUES ? "MAT_DO_NOT_COPY_VALUES" : "MAT_SHARE_NONZERO_PATTERN"));
  PetscCall(MatScale(R, 0.5));
  PetscCall(MatDestroy(&D));
  PetscCall(Check(R, M, ptype, "the original after its duplicate's destruction"));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode OpDuplicateCopy(const Data *d) { return OpDuplicate(d, MAT_COPY_VALUES); }
static PetscErrorCode OpDuplicateNoCopy(const Data *d) { return OpDuplicate(d, MAT_DO_NOT_COPY_VALUES); }
static PetscErrorCode OpDuplicateShare(const Data *d) { return OpDuplicate(d, MAT_SHARE_NONZERO_PATTERN); }

/* MatFilter with compression (MatEliminateZeros, MatDuplicate, MatHeaderReplace) */
static PetscErrorCode OpFilter(const Data *d)
{
  Mat R, M;

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(MatFilter(R, 0.5, PETSC_TRUE, PETSC_FALSE));
  PetscCall(MatFilter(M, 0.5, PETSC_TRUE, PETSC_FALSE));
  PetscCall(Check(R, M, ptype, "MatFilter(compress)"));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpEliminateZeros(const Data *d)
{
  Mat      R, M;
  PetscInt rs, re;

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(MatGetOwnershipRange(d->A, &rs, &re));
  for (PetscInt r = rs; r < re; r += 3) { /* an off-diagonal entry of every third row set to 0 */
    PetscInt        nc, c = -1;
    const PetscInt *cols;
    PetscScalar     z = 0;
    PetscCall(MatGetRow(d->A, r, &nc, &cols, NULL));
    for (PetscInt k = 0; k < nc; k++)
      if (cols[k] != r) c = cols[k];
    PetscCall(MatRestoreRow(d->A, r, &nc, &cols, NULL));
    if (c < 0) continue;
    PetscCall(MatSetValues(R, 1, &r, 1, &c, &z, INSERT_VALUES));
    PetscCall(MatSetValues(M, 1, &r, 1, &c, &z, INSERT_VALUES));
  }
  for (int k = 0; k < 2; k++) {
    PetscCall(MatAssemblyBegin(k ? M : R, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(k ? M : R, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MatEliminateZeros(R, PETSC_TRUE));
  PetscCall(MatEliminateZeros(M, PETSC_TRUE));
  PetscCall(Check(R, M, ptype, "MatEliminateZeros"));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* in-place LU (MatHeaderMerge of the factor into the matrix): MatSolve against AIJ's; one rank (PETSc's own LU) */
static PetscErrorCode OpLUInplace(const Data *d)
{
  Mat           R, M;
  Vec           b, x, xr;
  MatFactorInfo info;
  PetscReal     e, n;
  IS            row, col;

  PetscFunctionBeginUser;
  PetscCall(Pair(d->A, &R, &M));
  PetscCall(MatFactorInfoInitialize(&info));
  PetscCall(MatGetOrdering(R, MATORDERINGND, &row, &col));
  PetscCall(MatLUFactor(R, row, col, &info));
  PetscCall(MatLUFactor(M, row, col, &info));
  PetscCall(ISDestroy(&row));
  PetscCall(ISDestroy(&col));
  PetscCall(MatCreateVecs(R, &x, &b));
  PetscCall(VecDuplicate(x, &xr));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(MatSolve(R, b, xr));
  PetscCall(MatSolve(M, b, x));
  PetscCall(VecNorm(xr, NORM_2, &n));
  PetscCall(VecAXPY(x, -1.0, xr));
  PetscCall(VecNorm(x, NORM_2, &e));
  PetscCheck(e <= 1e-10 * n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatLUFactor in place: MatSolve differs from AIJ's by %g (|x| %g)", (double)e, (double)n);
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xr));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an operation that kills the process (a signal) still gets its FAIL line, on the rank that caught it */
static char current[128];
static PetscErrorCode SignalHandler(int sig, void *ctx)
{
  if (current[0]) {
    fprintf(stdout, "FAIL %s  (signal %d)\n", current, sig);
    fflush(stdout);
  }
  return PetscSignalHandlerDefault(sig, ctx);
}

typedef struct {
  const char *name;
  PetscErrorCode (*op)(const Data *);
  PetscBool seqonly; /* needs PETSc's own factorization (no MPI LU in this PETSc) */
} Op;

static const Op ops[] = {
  {"axpy_different",        OpAXPYDiff,        PETSC_FALSE},
  {"axpy_different_mixed",  OpAXPYDiffMixed,   PETSC_FALSE},
  {"axpy_subset",           OpAXPYSubset,      PETSC_FALSE},
  {"convert_inplace_aij",   OpConvertAIJ,      PETSC_FALSE},
  {"convert_inplace_dense", OpConvertDense,    PETSC_FALSE},
  {"convert_shell_back",    OpConvertShellBack, PETSC_FALSE},
  {"convert_other",         OpConvertOther,    PETSC_FALSE},
  {"shell_products",        OpShellProducts,   PETSC_FALSE},
  {"transpose",             OpTranspose,       PETSC_FALSE},
  {"products",              OpProducts,        PETSC_FALSE},
  {"diagonal_products",     OpDiagonalProducts, PETSC_FALSE},
  {"submatrix",             OpSubMatrix,       PETSC_FALSE},
  {"dm_transfers",          OpDMTransfers,     PETSC_FALSE},
  {"galerkin_chain",        OpGalerkinChain,   PETSC_FALSE},
  {"settype_assembled",     OpSetTypeAssembled, PETSC_FALSE},
  {"settype_twice",         OpSetTypeTwice,    PETSC_FALSE},
  {"settype_before_sizes",  OpSetTypeFirst,    PETSC_FALSE},
  {"prealloc_twice",        OpPreallocTwice,   PETSC_FALSE},
  {"reset_preallocation",   OpResetPrealloc,   PETSC_FALSE},
  {"duplicate_copy",        OpDuplicateCopy,   PETSC_FALSE},
  {"duplicate_nocopy",      OpDuplicateNoCopy, PETSC_FALSE},
  {"duplicate_share",       OpDuplicateShare,  PETSC_FALSE},
  {"filter_compress",       OpFilter,          PETSC_FALSE},
  {"eliminate_zeros",       OpEliminateZeros,  PETSC_FALSE},
  {"lu_inplace",            OpLUInplace,       PETSC_TRUE },
};
#define NOPS ((PetscInt)(sizeof(ops) / sizeof(ops[0])))

int main(int argc, char **argv)
{
  char     *sel[64];
  PetscInt  nsel = 64, nok = 0, nfail = 0;
  PetscBool set, list = PETSC_FALSE, show_errors = PETSC_FALSE, want[NOPS];
  Data      d;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "test_retype: header-replacing operations on a plugin type against AIJ", NULL);
  PetscCall(PetscOptionsString("-type", "plugin type (root name)", NULL, type, type, sizeof(type), NULL));
  PetscCall(PetscOptionsReal("-tol", "relative tolerance of the products", NULL, tol, &tol, NULL));
  PetscCall(PetscOptionsStringArray("-ops", "operations by name, or all", NULL, sel, &nsel, &set));
  PetscCall(PetscOptionsBool("-list", "print the operations and exit", NULL, list, &list, NULL));
  PetscCall(PetscOptionsBool("-show_errors", "print PETSc's traceback of a failing operation", NULL, show_errors, &show_errors, NULL));
  PetscOptionsEnd();
  if (!set) nsel = 0;
  for (PetscInt k = 0; k < NOPS; k++) want[k] = (PetscBool)!nsel;
  for (PetscInt p = 0; p < nsel; p++) {
    PetscBool found = PETSC_FALSE, isall;
    PetscCall(PetscStrcmp(sel[p], "all", &isall));
    for (PetscInt k = 0; k < NOPS; k++) {
      PetscBool eq;
      PetscCall(PetscStrcmp(sel[p], ops[k].name, &eq));
      if (eq || isall) want[k] = found = PETSC_TRUE;
    }
    PetscCheck(found, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-ops: no operation named %s (-list shows them)", sel[p]);
    PetscCall(PetscFree(sel[p]));
  }
  if (list) {
    for (PetscInt k = 0; k < NOPS; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", ops[k].name));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(PetscStrcmp(type, MATBRC, &set));
  PetscCall(PetscStrncpy(other, set ? MATSEGSUM : MATBRC, sizeof(other))); /* the other plugin type of MatSetType */
  PetscCall(PetscStrbeginswith(type, MATAIJ, &isaij)); /* aij or aijcusparse: no plugin type */
  PetscCall(PetscSNPrintf(ptype, sizeof(ptype), "%s%s%s", size > 1 ? "mpi" : "seq", strncmp(type, "aij", 3) ? "aij" : "", type)); /* brc: seqaijbrc; aijcusparse: seqaijcusparse */
  PetscCall(PetscStrncpy(atype, size > 1 ? MATMPIAIJ : MATSEQAIJ, sizeof(atype)));
  PetscCall(PetscStrncpy(dtype, size > 1 ? MATMPIDENSE : MATSEQDENSE, sizeof(dtype)));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, "random:m=400,k=7,seed=3", &d.A));
  PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, "random:m=400,k=5,seed=8", &d.X));
  PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, "random:m=400,n=120,k=3,seed=6", &d.P));
  PetscCall(PetscPushSignalHandler(SignalHandler, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_retype: %s on %d rank(s), products within %g of AIJ's\n", type, (int)size, (double)tol));
  for (PetscInt k = 0; k < NOPS; k++) {
    PetscErrorCode ierr;
    if (!want[k]) continue;
    if (ops[k].seqonly && size > 1) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "skip %s %d %s: needs PETSc's own LU, which is sequential (no MUMPS/SuperLU_DIST here)\n", type, (int)size, ops[k].name));
      continue;
    }
    PetscCall(PetscSNPrintf(current, sizeof(current), "%s %d %s", type, (int)size, ops[k].name));
    if (!show_errors) PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = ops[k].op(&d);
    if (!show_errors) PetscCall(PetscPopErrorHandler());
    current[0] = 0;
    if (ierr) {
      const char *text, *specific;
      PetscCall(PetscErrorMessage(ierr, &text, &specific));
      nfail++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s %d %s  (PETSc error %d: %s)\n", type, (int)size, ops[k].name, (int)ierr, specific && specific[0] ? specific : text));
    } else {
      nok++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok   %s %d %s\n", type, (int)size, ops[k].name));
    }
  }
  PetscCall(PetscPopSignalHandler());
  PetscCall(MatDestroy(&d.A));
  PetscCall(MatDestroy(&d.X));
  PetscCall(MatDestroy(&d.P));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_retype: %s on %d rank(s): %" PetscInt_FMT " ok, %" PetscInt_FMT " FAIL\n", type, (int)size, nok, nfail));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
