static char help[] = "Matrix operations on the petsc-spmv types against AIJ: products, refresh, duplicate, copy, convert,\n"
                     "MatSetValues after assembly, pattern changes, MatBindToCPU, host and default vectors, NaN, bad options.\n"
                     "  -type <brc>   the plugin type to test\n"
                     "  -seed <n>     random seed (default: from the clock)\n"
                     "  -opt_good mat_<fmt>_knob=value -opt_bad mat_<fmt>_knob=value   (no leading dash) an option that works, one refused\n\n";

#include <petscspmv.h>
#include "spmvexamples.h"
#include <time.h>

static PetscInt    nchecks = 0;
static PetscRandom rnd;

/* ||B x - A x|| / ||A x|| below tol, on vectors made by each matrix (CUDA vectors for a GPU type) */
static PetscErrorCode CheckMult(Mat A, Mat B, const char *what)
{
  Vec       x, xb, y, yb, z, zb;
  PetscReal nrm, err, errz;
  PetscInt  m, n;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(MatCreateVecs(B, &xb, &yb));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(yb, &zb));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecCopy(x, xb));
  PetscCall(VecSetRandom(z, rnd));
  PetscCall(VecCopy(z, zb));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(B, xb, yb));
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(VecAXPY(yb, -1.0, y)); /* y is a host vector, yb maybe a CUDA one: VecAXPY handles both */
  PetscCall(VecNorm(yb, NORM_2, &err));
  /* z = z + A x, in place (y == z) */
  PetscCall(MatMultAdd(A, x, z, z));
  PetscCall(MatMultAdd(B, xb, zb, zb));
  PetscCall(VecAXPY(zb, -1.0, z));
  PetscCall(VecNorm(zb, NORM_2, &errz));
  nchecks++;
  PetscCheck(err <= 1e-12 * PetscMax(nrm, 1e-300) && errz <= 1e-12 * PetscMax(nrm, 1.0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s (%" PetscInt_FMT " x %" PetscInt_FMT "): |Bx-Ax| = %g, |z+Bx - (z+Ax)| = %g, |Ax| = %g", what, m, n, (double)err, (double)errz, (double)nrm);
  PetscCall(VecDestroy(&x)); PetscCall(VecDestroy(&xb)); PetscCall(VecDestroy(&y)); PetscCall(VecDestroy(&yb)); PetscCall(VecDestroy(&z)); PetscCall(VecDestroy(&zb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same with plain host vectors (staged through the device when there is one), z != y */
static PetscErrorCode CheckMultHostVecs(Mat A, Mat B, const char *what)
{
  Vec       x, y, yb, w, z, zb;
  PetscInt  m, n;
  PetscReal nrm, err, errz;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &x));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &y));
  PetscCall(VecDuplicate(y, &yb)); PetscCall(VecDuplicate(y, &w)); PetscCall(VecDuplicate(y, &z)); PetscCall(VecDuplicate(y, &zb));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(w, rnd));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(B, x, yb));
  PetscCall(MatMultAdd(A, x, w, z));
  PetscCall(MatMultAdd(B, x, w, zb));
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(VecAXPY(yb, -1.0, y)); PetscCall(VecNorm(yb, NORM_2, &err));
  PetscCall(VecAXPY(zb, -1.0, z)); PetscCall(VecNorm(zb, NORM_2, &errz));
  nchecks++;
  PetscCheck(err <= 1e-12 * PetscMax(nrm, 1e-300) && errz <= 1e-12 * PetscMax(nrm, 1.0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s (host vectors): errors %g %g", what, (double)err, (double)errz);
  /* the parent's operations with vector arguments (staged on a GPU parent): A^T y, u + A^T y (also in place), the
     diagonal, the row maxima, diagonal scaling and setting on copies (PETSc's src/mat/tests/ex5 with host vectors) */
  {
    Vec       t, tb, u, s, sb, d, db;
    Mat       A2, B2;
    PetscReal e[6], nt, nd;

    PetscCall(VecDuplicate(x, &t)); PetscCall(VecDuplicate(x, &tb)); PetscCall(VecDuplicate(x, &u)); PetscCall(VecDuplicate(x, &s)); PetscCall(VecDuplicate(x, &sb));
    PetscCall(VecSetRandom(u, rnd));
    PetscCall(MatMultTranspose(A, y, t));
    PetscCall(MatMultTranspose(B, y, tb));
    PetscCall(VecNorm(t, NORM_2, &nt));
    PetscCall(VecAXPY(tb, -1.0, t)); PetscCall(VecNorm(tb, NORM_2, &e[0]));
    PetscCall(MatMultTransposeAdd(A, y, u, s));
    PetscCall(MatMultTransposeAdd(B, y, u, sb));
    PetscCall(VecAXPY(sb, -1.0, s)); PetscCall(VecNorm(sb, NORM_2, &e[1]));
    PetscCall(VecCopy(u, sb));
    PetscCall(MatMultTransposeAdd(B, y, sb, sb));
    PetscCall(VecAXPY(sb, -1.0, s)); PetscCall(VecNorm(sb, NORM_2, &e[2]));
    e[3] = e[4] = e[5] = 0;
    if (m == n) {
      PetscCall(VecDuplicate(y, &d)); PetscCall(VecDuplicate(y, &db));
      PetscCall(MatGetDiagonal(A, d));
      PetscCall(VecSet(db, -7.0));
      PetscCall(MatGetDiagonal(B, db));
      PetscCall(VecAXPY(db, -1.0, d)); PetscCall(VecNorm(db, NORM_2, &e[3]));
      PetscCall(MatGetRowMaxAbs(A, d, NULL));
      PetscCall(MatGetRowMaxAbs(B, db, NULL));
      PetscCall(VecAXPY(db, -1.0, d)); PetscCall(VecNorm(db, NORM_2, &e[4]));
      PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
      PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &B2));
      PetscCall(MatDiagonalScale(A2, w, x));
      PetscCall(MatDiagonalScale(B2, w, x));
      PetscCall(MatSetOption(A2, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); /* a missing diagonal entry */
      PetscCall(MatSetOption(B2, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      PetscCall(MatDiagonalSet(A2, w, ADD_VALUES));
      PetscCall(MatDiagonalSet(B2, w, ADD_VALUES));
      PetscCall(MatMult(A2, x, d));
      PetscCall(MatMult(B2, x, db));
      PetscCall(VecNorm(d, NORM_2, &nd));
      PetscCall(VecAXPY(db, -1.0, d)); PetscCall(VecNorm(db, NORM_2, &e[5]));
      e[5] /= PetscMax(nd, 1.0);
      PetscCall(MatDestroy(&A2)); PetscCall(MatDestroy(&B2)); PetscCall(VecDestroy(&d)); PetscCall(VecDestroy(&db));
    }
    nchecks++;
    /* the transposed products are cuSPARSE's on a GPU parent (sums in another order than AIJ's: errors up to 2e-10 on
       rows of 1800 nonzeros, H100), exact elsewhere; a wrong product is off by O(1) */
    PetscCheck(e[0] <= 1e-9 * PetscMax(nt, 1.0) && e[1] <= 1e-9 * PetscMax(nt, 1.0) && e[2] <= 1e-9 * PetscMax(nt, 1.0) && e[3] == 0 && e[4] == 0 && e[5] <= 1e-12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s (host vectors): A^T y %g, u + A^T y %g, in place %g (|A^T y| = %g), diagonal %g, row max %g, scaled and shifted %g", what, (double)e[0], (double)e[1], (double)e[2], (double)nt, (double)e[3], (double)e[4], (double)e[5]);
    PetscCall(VecDestroy(&t)); PetscCall(VecDestroy(&tb)); PetscCall(VecDestroy(&u)); PetscCall(VecDestroy(&s)); PetscCall(VecDestroy(&sb));
  }
  PetscCall(VecDestroy(&x)); PetscCall(VecDestroy(&y)); PetscCall(VecDestroy(&yb)); PetscCall(VecDestroy(&w)); PetscCall(VecDestroy(&z)); PetscCall(VecDestroy(&zb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckType(Mat B, const char *type)
{
  PetscBool same;
  MatType   got;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, type, &same));
  PetscCall(MatGetType(B, &got));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "expected type %s, got %s", type, got);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Change every stored value of A and B the same way, through MatSetValues after assembly */
static PetscErrorCode ChangeValues(Mat A, Mat B, PetscScalar shift)
{
  PetscInt m;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, NULL));
  for (PetscInt r = 0; r < m; r++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           c[4096];
    PetscScalar        v[4096];
    PetscCall(MatGetRow(A, r, &nc, &cols, &vals));
    nc = PetscMin(nc, 4096);
    for (PetscInt k = 0; k < nc; k++) { c[k] = cols[k]; v[k] = vals[k] * 1.5 + shift * (k + 1); }
    PetscCall(MatRestoreRow(A, r, &nc, &cols, &vals));
    PetscCall(MatSetValues(A, 1, &r, nc, c, v, INSERT_VALUES));
    PetscCall(MatSetValues(B, 1, &r, nc, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY)); PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY)); PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestMatrix(const char *spec, const char *type, const char *seqtype)
{
  Mat      A, B, C, D;
  PetscInt m, n;
  char     what[256];

  PetscFunctionBeginUser;
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, spec, &A));
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s as %s", spec, type));
  /* convert by root name and by full name */
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
  PetscCall(CheckType(B, seqtype));
  PetscCall(CheckMult(A, B, what));
  PetscCall(CheckMultHostVecs(A, B, what));
  PetscCall(MatConvert(A, seqtype, MAT_INITIAL_MATRIX, &C));
  PetscCall(CheckType(C, seqtype));
  PetscCall(CheckMult(A, C, "convert by full name"));
  PetscCall(MatDestroy(&C));
  /* MatSetType with the root name on an assembled AIJ converts it */
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &C));
  PetscCall(MatSetType(C, type));
  PetscCall(CheckType(C, seqtype));
  PetscCall(CheckMult(A, C, "MatSetType on assembled AIJ"));
  PetscCall(MatDestroy(&C));
  /* values changed after assembly, same pattern: values-only refresh */
  PetscCall(ChangeValues(A, B, 0.25));
  PetscCall(CheckMult(A, B, "after MatSetValues (same pattern)"));
  PetscCall(MatScale(A, -2.0)); PetscCall(MatScale(B, -2.0));
  PetscCall(CheckMult(A, B, "after MatScale"));
  if (m == n && m > 0) {
    PetscCall(MatShift(A, 3.0)); PetscCall(MatShift(B, 3.0));
    PetscCall(CheckMult(A, B, "after MatShift"));
  }
  /* duplicate and copy */
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &C));
  PetscCall(CheckType(C, seqtype));
  PetscCall(CheckMult(A, C, "MatDuplicate"));
  PetscCall(MatZeroEntries(C));
  PetscCall(MatCopy(B, C, SAME_NONZERO_PATTERN));
  PetscCall(CheckMult(A, C, "MatCopy"));
  PetscCall(MatDestroy(&C));
  /* back to AIJ (initial and in place), and forth again in place */
  PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &D));
  PetscCall(CheckType(D, MATSEQAIJ));
  PetscCall(CheckMult(A, D, "converted back to aij"));
  if (m > 0 && n > 0) { /* on a GPU parent it takes new nonzeros, as the matrix of PETSc's basic converter (aijcusparse's
                           way) does; on the host, a duplicate of SeqAIJ (SeqAIJ's way, MatDuplicate) keeps its options */
    Vec       v;
    PetscBool gpu;
    PetscCall(MatCreateVecs(B, &v, NULL));
    PetscCall(PetscObjectTypeCompare((PetscObject)v, VECSEQCUDA, &gpu));
    PetscCall(VecDestroy(&v));
    if (!gpu) PetscCall(MatSetOption(D, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetValue(D, m - 1, 0, 0.0, ADD_VALUES));
    PetscCall(MatSetValue(D, 0, n - 1, 0.0, ADD_VALUES));
    PetscCall(MatAssemblyBegin(D, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(D, MAT_FINAL_ASSEMBLY));
    PetscCall(CheckMult(A, D, "converted back to aij, explicit zeros added"));
  }
  PetscCall(MatConvert(D, type, MAT_INPLACE_MATRIX, &D));
  PetscCall(CheckType(D, seqtype));
  PetscCall(CheckMult(A, D, "in-place convert aij -> plugin"));
  PetscCall(MatConvert(D, MATSEQAIJ, MAT_INPLACE_MATRIX, &D));
  PetscCall(CheckType(D, MATSEQAIJ));
  PetscCall(CheckMult(A, D, "in-place convert plugin -> aij"));
  PetscCall(MatDestroy(&D));
  /* bound to the CPU and back */
  PetscCall(MatBindToCPU(B, PETSC_TRUE));
  PetscCall(CheckMult(A, B, "bound to CPU"));
  PetscCall(MatBindToCPU(B, PETSC_FALSE));
  PetscCall(CheckMult(A, B, "unbound again"));
  /* a new nonzero after assembly changes the pattern: full rebuild */
  if (m > 0 && n > 0) {
    PetscInt    r = m / 2, c = (n - 1) - (m / 3) % n;
    PetscScalar v = 0.75;
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetValues(A, 1, &r, 1, &c, &v, ADD_VALUES));
    PetscCall(MatSetValues(B, 1, &r, 1, &c, &v, ADD_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY)); PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY)); PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    PetscCall(CheckMult(A, B, "after a new nonzero"));
  }
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok  %-45s %6" PetscInt_FMT " x %-6" PetscInt_FMT "\n", spec, m, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* NaN in the matrix gives NaN in exactly the rows where AIJ has it; no crash */
static PetscErrorCode TestNaN(const char *type)
{
  Mat                A, B;
  Vec                x, y, yb;
  PetscInt           r = 7, c, m;
  PetscScalar        v = NAN;
  const PetscScalar *ya, *yba;

  PetscFunctionBeginUser;
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, "random:m=300,k=5,seed=11", &A));
  {
    PetscInt nc; const PetscInt *cols;
    PetscCall(MatGetRow(A, r, &nc, &cols, NULL)); c = cols[0]; PetscCall(MatRestoreRow(A, r, &nc, &cols, NULL));
  }
  PetscCall(MatSetValues(A, 1, &r, 1, &c, &v, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY)); PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &yb));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(B, x, yb));
  PetscCall(MatGetSize(A, &m, NULL));
  PetscCall(VecGetArrayRead(y, &ya)); PetscCall(VecGetArrayRead(yb, &yba));
  for (PetscInt i = 0; i < m; i++) {
    PetscCheck((PetscBool)PetscIsNanScalar(ya[i]) == (PetscBool)PetscIsNanScalar(yba[i]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "NaN row %" PetscInt_FMT " differs", i);
    if (!PetscIsNanScalar(ya[i])) PetscCheck(PetscAbsScalar(ya[i] - yba[i]) <= 1e-12 * (1 + PetscAbsScalar(ya[i])), PETSC_COMM_SELF, PETSC_ERR_PLIB, "row %" PetscInt_FMT " differs", i);
  }
  PetscCheck(PetscIsNanScalar(yba[r]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "NaN lost");
  PetscCall(VecRestoreArrayRead(y, &ya)); PetscCall(VecRestoreArrayRead(yb, &yba));
  PetscCall(VecDestroy(&x)); PetscCall(VecDestroy(&y)); PetscCall(VecDestroy(&yb));
  PetscCall(MatDestroy(&A)); PetscCall(MatDestroy(&B));
  nchecks++;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok  NaN propagates like AIJ\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* which kind of number: 0 finite, 1 NaN, 2 +Inf, 3 -Inf (of the real part and of the imaginary part, in complex) */
static int Kind(PetscReal v) { return PetscIsNanReal(v) ? 1 : PetscIsInfReal(v) ? (v > 0 ? 2 : 3) : 0; }
static int KindScalar(PetscScalar v) { return Kind(PetscRealPart(v)) + 4 * Kind(PetscImaginaryPart(v)); }

/* Inf and NaN in x (a diverging solve) reach exactly the rows of y that AIJ's product sends them to, with the same
   kind (NaN, +Inf, -Inf): a format's padding, empty slots or split rows must not multiply them into other rows
   (0 * Inf is NaN), and stored zeros must be multiplied as AIJ does. Matrices with irregular rows (padding), empty
   rows, long rows, stored zeros in the columns x makes non-finite; y = A x into a y full of NaN (every row written,
   empty ones as 0) and y += A x with Inf and NaN in y (kept where AIJ keeps them); again after MatZeroEntries */
static PetscErrorCode TestNonFiniteX(const char *type)
{
  const char *specs[] = {"random:m=300,k=5,empty=0.2,seed=12", "denserows:m=2000,k=4,len=1500,dense=2", "stencil27:n=8"};

  PetscFunctionBeginUser;
  for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
    Mat                A, B;
    Vec                x, y, yb, y0;
    PetscInt           m, n;
    PetscScalar       *xa;
    const PetscScalar *ya, *yba;

    PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, specs[k], &A));
    PetscCall(MatGetSize(A, &m, &n));
    { /* stored zeros: AIJ multiplies them (0 * Inf is NaN), so must every format */
      PetscInt *zc;
      PetscCall(PetscMalloc1(m, &zc));
      for (PetscInt r = 0; r < m; r++) {
        PetscInt        nc;
        const PetscInt *cols;
        PetscCall(MatGetRow(A, r, &nc, &cols, NULL));
        zc[r] = -1;
        if (r % 2 == 0)
          for (PetscInt q = 0; q < nc; q++)
            if (cols[q] % 37 == 0) zc[r] = cols[q]; /* at a column where x is Inf or NaN below */
        PetscCall(MatRestoreRow(A, r, &nc, &cols, NULL));
      }
      for (PetscInt r = 0; r < m; r++) {
        const PetscScalar zero = 0.0;
        if (zc[r] >= 0) PetscCall(MatSetValues(A, 1, &r, 1, &zc[r], &zero, INSERT_VALUES));
      }
      PetscCall(PetscFree(zc));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecDuplicate(y, &yb));
    PetscCall(VecDuplicate(y, &y0));
    PetscCall(VecSetRandom(y0, rnd));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(VecGetArray(x, &xa));
    for (PetscInt j = 0; j < n; j += 37) xa[j] = (j / 37) % 3 == 0 ? PETSC_INFINITY : (j / 37) % 3 == 1 ? PETSC_NINFINITY : NAN;
    PetscCall(VecRestoreArray(x, &xa));
    PetscCall(VecGetArray(y0, &xa)); /* y0 non-finite in some rows (empty ones too): y += A x keeps them as AIJ does */
    for (PetscInt i = 0; i < m; i += 41) xa[i] = (i / 41) % 2 ? NAN : PETSC_INFINITY;
    PetscCall(VecRestoreArray(y0, &xa));
    for (int round = 0; round < 4; round++) { /* y = A x, y += A x; then both again after MatZeroEntries (all stored zeros) */
      const int add = round % 2;
      if (round == 2) {
        PetscCall(MatZeroEntries(A));
        PetscCall(MatZeroEntries(B));
      }
      PetscCall(VecSet(yb, NAN)); /* y = A x writes every row, the empty ones included */
      if (add) {
        PetscCall(MatMultAdd(A, x, y0, y));
        PetscCall(MatMultAdd(B, x, y0, yb));
      } else {
        PetscCall(MatMult(A, x, y));
        PetscCall(MatMult(B, x, yb));
      }
      PetscCall(VecGetArrayRead(y, &ya));
      PetscCall(VecGetArrayRead(yb, &yba));
      for (PetscInt i = 0; i < m; i++) {
        PetscCheck(KindScalar(ya[i]) == KindScalar(yba[i]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, %s%s: row %" PetscInt_FMT " is %g with AIJ, %g with %s", specs[k], add ? "y += A x" : "y = A x", round >= 2 ? " after MatZeroEntries" : "", i, (double)PetscRealPart(ya[i]), (double)PetscRealPart(yba[i]), type);
        if (!KindScalar(ya[i])) PetscCheck(PetscAbsScalar(ya[i] - yba[i]) <= 1e-12 * (1 + PetscAbsScalar(ya[i])), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT " differs", specs[k], i);
      }
      PetscCall(VecRestoreArrayRead(y, &ya));
      PetscCall(VecRestoreArrayRead(yb, &yba));
    }
    PetscCall(VecDestroy(&x)); PetscCall(VecDestroy(&y)); PetscCall(VecDestroy(&yb)); PetscCall(VecDestroy(&y0));
    PetscCall(MatDestroy(&A)); PetscCall(MatDestroy(&B));
  }
  nchecks++;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok  Inf and NaN in x reach the rows AIJ sends them to\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Options are read by MatSetFromOptions; bad values are PETSc errors. -opt_good name=value must change
   the layout and keep the product right, -opt_bad name=value must be refused with PETSC_ERR_ARG_OUTOFRANGE */
static PetscErrorCode TestOptions(const char *type)
{
  Mat            A, B;
  PetscErrorCode ierr;
  char           good[128] = "-", bad[128] = "-", *eq; /* given without the dash: PETSc reads "-x" as an option */
  PetscBool      hasgood, hasbad;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-opt_good", good + 1, sizeof(good) - 1, &hasgood));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-opt_bad", bad + 1, sizeof(bad) - 1, &hasbad));
  if (!hasgood && !hasbad) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "--  options: no -opt_good/-opt_bad given, skipped\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, "denserows:m=400,k=4,len=300,dense=3,seed=2", &A));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
  if (hasgood) {
    PetscCall(PetscStrchr(good, '=', &eq));
    PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-opt_good takes name=value");
    *eq = 0;
    PetscCall(PetscOptionsSetValue(NULL, good, eq + 1));
    PetscCall(MatSetFromOptions(B));
    PetscCall(CheckMult(A, B, good));
    PetscCall(PetscOptionsClearValue(NULL, good));
  }
  if (hasbad) {
    PetscCall(PetscStrchr(bad, '=', &eq));
    PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-opt_bad takes name=value");
    *eq = 0;
    PetscCall(PetscOptionsSetValue(NULL, bad, eq + 1));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatSetFromOptions(B);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s %s gave error %d, expected PETSC_ERR_ARG_OUTOFRANGE", bad, eq + 1, (int)ierr);
    PetscCall(PetscOptionsClearValue(NULL, bad));
  }
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  nchecks++;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok  options read, bad option rejected with a PETSc error\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        type[64] = MATBRC, seqtype[80];
  PetscInt    seed     = -1;
  const char *specs[]  = {"random:m=600,k=7,empty=0.15,seed=@", "random:m=300,n=900,k=9,seed=@", "random:m=900,n=200,k=4,empty=0.3,seed=@",
                          "random:m=400,k=3,empty=1,seed=@",  "stencil27:n=9",                  "stencil7:n=11",
                          "denserows:m=2000,k=5,len=1800,dense=4,seed=@", "banded:m=1,bw=0", "banded:m=0,bw=1", "rmat:scale=11,ef=8,seed=@",
                          "stencil7:n=12,const=1",           "rmat:scale=10,ef=6,const=1,seed=@"};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  if (seed < 0) seed = (PetscInt)(time(NULL) % 100000);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "test_matops: type %s, seed %" PetscInt_FMT "\n", type, seed));
  PetscCall(PetscSNPrintf(seqtype, sizeof(seqtype), "seqaij%s", type));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
    char spec[256], *at;
    PetscCall(PetscStrncpy(spec, specs[i], sizeof(spec)));
    PetscCall(PetscStrstr(spec, "@", &at));
    if (at) PetscCall(PetscSNPrintf(at, sizeof(spec) - (size_t)(at - spec), "%" PetscInt_FMT, seed + (PetscInt)i));
    PetscCall(TestMatrix(spec, type, seqtype));
  }
  PetscCall(TestNaN(type));
  PetscCall(TestNonFiniteX(type));
  PetscCall(TestOptions(type));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "test_matops: %" PetscInt_FMT " checks passed\n", nchecks));
  PetscCall(PetscFinalize());
  return 0;
}
