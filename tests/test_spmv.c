static char help[] = "The automatic type spmv through PETSc: the format chosen for generated families (the row-statistics\n"
                     "rule, checked where the host reference runs the products; with a GPU the timed choice is printed), forced\n"
                     "candidates and formats, the choice surviving a values refresh, MatDuplicate (values copied or not),\n"
                     "MatCopy and MatSetFromOptions (no new MatSpMVSelect event), a new nonzero pattern choosing again, changed\n"
                     "options choosing again, -mat_spmv_deterministic, bad options as PETSc errors, MatSpMVGetFormat on other\n"
                     "types, and on several ranks the diagonal block's choice; on the GPU the selection that waits for its\n"
                     "products (-mat_spmv_wait). Every product is checked against AIJ.\n"
                     "  -rule <bool>   check the rule's choices (default: when the products run on the host)\n"
                     "  -wait <P>      -mat_spmv_wait of every matrix but those of the waiting check (default 0: select at the first product)\n\n";

#include <petscspmv.h>
#include <petscdevice_cuda.h>
#include "spmvexamples.h"

static PetscInt    nchecks = 0;
static PetscRandom rnd;
static PetscBool   rule; /* the products run on the host: the choice is the rule's */
static char        wait[32] = "0"; /* -mat_spmv_wait of the matrices the tests make (on the GPU: select at the first product) */

/* |B x - A x| and |z + B x - (z + A x)| relative 1e-12, on the vectors each matrix makes */
static PetscErrorCode CheckMult(Mat A, Mat B, const char *what)
{
  Vec       x, xb, y, yb, z, zb;
  PetscReal nrm, e1, e2;

  PetscFunctionBeginUser;
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
  PetscCall(VecAXPY(yb, -1.0, y));
  PetscCall(VecNorm(yb, NORM_2, &e1));
  PetscCall(MatMultAdd(A, x, z, z));
  PetscCall(MatMultAdd(B, xb, zb, zb));
  PetscCall(VecAXPY(zb, -1.0, z));
  PetscCall(VecNorm(zb, NORM_2, &e2));
  nchecks++;
  PetscCheck(e1 <= 1e-12 * PetscMax(nrm, 1e-300) && e2 <= 1e-12 * PetscMax(nrm, 1.0), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: |Bx-Ax| = %g, |z+Bx-(z+Ax)| = %g, |Ax| = %g", what, (double)e1, (double)e2, (double)nrm);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xb));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yb));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&zb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* selections made so far on this rank (the MatSpMVSelect event's count) */
static PetscErrorCode Selections(PetscInt *n)
{
  PetscLogEvent      id;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetId("MatSpMVSelect", &id));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, id, &info));
  *n = info.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Expect(Mat B, const char *expect, const char *what)
{
  const char *got;
  PetscBool   same;

  PetscFunctionBeginUser;
  PetscCall(MatSpMVGetFormat(B, &got));
  PetscCall(PetscStrcmp(got, expect, &same));
  nchecks++;
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: chose %s, expected %s", what, got, expect);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ExpectSelections(PetscInt before, PetscInt added, const char *what)
{
  PetscInt now;

  PetscFunctionBeginUser;
  PetscCall(Selections(&now));
  nchecks++;
  PetscCheck(now - before == added, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " selections, expected %" PetscInt_FMT, what, now - before, added);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A converted to spmv, with options given as "name=value;..." under a prefix of its own */
static PetscErrorCode ToSpMV(Mat A, const char *prefix, const char *opts, Mat *B)
{
  char           list[512], *p, *next, waitname[256] = "";
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(A, MATSPMV, MAT_INITIAL_MATRIX, B));
  if (prefix) {
    PetscCall(MatSetOptionsPrefix(*B, prefix));
    PetscCall(PetscSNPrintf(waitname, sizeof(waitname), "-%smat_spmv_wait", prefix));
    PetscCall(PetscOptionsSetValue(NULL, waitname, wait));
    PetscCall(PetscStrncpy(list, opts ? opts : "", sizeof(list)));
    for (p = list; p && *p; p = next) {
      char name[256], *eq;
      next = strchr(p, ';');
      if (next) *next++ = 0;
      PetscCall(PetscStrchr(p, '=', &eq));
      if (eq) *eq++ = 0;
      PetscCall(PetscSNPrintf(name, sizeof(name), "-%s%s", prefix, p));
      PetscCall(PetscOptionsSetValue(NULL, name, eq));
    }
  }
  ierr = MatSetFromOptions(*B);
  if (waitname[0]) PetscCall(PetscOptionsClearValue(NULL, waitname)); /* read, or not reached by a refused option */
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1. the rule on generated families */
static PetscErrorCode TestFamilies(void)
{
  const char *fam[][2] = {
    {"stencil7:n=24", "ccoo"},                                  /* short uniform rows, 16-bit column windows */
    {"stencil27:n=16", "brc"},                                  /* regular rows of 27, random values */
    {"stencil27:n=16,const=1", "ccoo"},                         /* values repeat */
    {"rmat:scale=17,ef=16,seed=3", "brc"},                      /* power law, columns anywhere */
    {"denserows:m=100000,k=8,len=20000,dense=8,seed=3", "argcsr"}, /* a few dense rows, columns anywhere */
    {"denserows:m=4000,k=6,len=2500,dense=4,seed=3", "dcsr"},      /* irregular rows, columns local (n < 2^16): segsum's balance, 16-bit columns */
  };

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof(fam) / sizeof(fam[0]); i++) {
    Mat         A, B;
    PetscInt    before;
    const char *got;

    PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, fam[i][0], &A));
    PetscCall(Selections(&before));
    PetscCall(ToSpMV(A, NULL, NULL, &B));
    PetscCall(CheckMult(A, B, fam[i][0]));
    PetscCall(ExpectSelections(before, 1, fam[i][0]));
    PetscCall(MatSpMVGetFormat(B, &got));
    if (rule) PetscCall(Expect(B, fam[i][1], fam[i][0]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok  %-50s -> %s%s\n", fam[i][0], got, rule ? " (the rule's choice)" : " (timed on the GPU)"));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One conversion with options: the product is right, the rule's choice where the host runs the products, and
   on either side a choice from 'allowed' (comma separated) */
static PetscErrorCode Case(Mat A, const char *prefix, const char *opts, const char *rulechoice, const char *allowed)
{
  Mat         B;
  const char *got;
  char        list[128], *found;

  PetscFunctionBeginUser;
  PetscCall(ToSpMV(A, prefix, opts, &B));
  PetscCall(CheckMult(A, B, opts));
  if (rule) PetscCall(Expect(B, rulechoice, opts));
  PetscCall(MatSpMVGetFormat(B, &got));
  PetscCall(PetscSNPrintf(list, sizeof(list), ",%s,", allowed));
  {
    char item[32];
    PetscCall(PetscSNPrintf(item, sizeof(item), ",%s,", got));
    PetscCall(PetscStrstr(list, item, &found));
  }
  nchecks++;
  PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s chose %s, not one of %s", opts, got, allowed);
  PetscCall(PetscStrstr(opts, "deterministic", &found));
  if (found) { /* bitwise the same product, five times over */
    Vec                x, y0, y;
    const PetscScalar *a, *b;
    PetscInt           m;
    PetscCall(MatCreateVecs(B, &x, &y0));
    PetscCall(VecDuplicate(y0, &y));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(MatMult(B, x, y0));
    PetscCall(VecGetLocalSize(y0, &m));
    for (int k = 0; k < 5; k++) {
      PetscCall(MatMult(B, x, y));
      PetscCall(VecGetArrayRead(y0, &a));
      PetscCall(VecGetArrayRead(y, &b));
      PetscCheck(!memcmp(a, b, (size_t)m * sizeof(PetscScalar)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s gave another product on repetition %d", opts, got, k + 1);
      PetscCall(VecRestoreArrayRead(y0, &a));
      PetscCall(VecRestoreArrayRead(y, &b));
    }
    nchecks++;
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y0));
    PetscCall(VecDestroy(&y));
  }
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 2. forced candidates and formats (GPU or not), deterministic (never ccoo; brc not where it splits rows) */
static PetscErrorCode TestForced(void)
{
  Mat A, R, B;

  PetscFunctionBeginUser;
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, "stencil7:n=16", &A));
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, "rmat:scale=12,ef=8,seed=5", &R));
  PetscCall(Case(R, "f1_", "mat_spmv_candidates=brc", "brc", "brc"));
  PetscCall(Case(R, "f2_", "mat_spmv_format=ccoo", "ccoo", "ccoo"));
  PetscCall(Case(A, "f3_", "mat_spmv_candidates=csr", "csr", "csr"));
  PetscCall(Case(A, "f4_", "mat_spmv_format=suraa", "suraa", "suraa"));
  PetscCall(Case(A, "f5_", "mat_spmv_candidates=segsum,argcsr", "argcsr", "argcsr,segsum")); /* argcsr ranks first */
  PetscCall(Case(A, "f6_", "mat_spmv_deterministic", "brc", "csr,brc,argcsr,segsum,suraa,dcsr")); /* ccoo (a bet here) is not deterministic: its runner-up brc, which splits no row of 7 */
  PetscCall(Case(R, "f7_", "mat_spmv_deterministic", "dcsr", "csr,argcsr,segsum,suraa,dcsr")); /* rows > 64: brc splits; dcsr in segsum's place (4096 columns) */
  {                                                                                           /* -mat_spmv_dcsr (the default): dcsr in segsum's place (narrow tiles: n < 2^16); 0: segsum */
    Mat D;
    PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, "denserows:m=4000,k=6,len=2500,dense=4,seed=3", &D));
    PetscCall(Case(D, "f8_", "mat_spmv_dcsr", "dcsr", "csr,dcsr,argcsr,ccoo,brc"));
    PetscCall(Case(D, "f9_", "mat_spmv_dcsr=0", "segsum", "csr,segsum,argcsr,ccoo,brc"));
    PetscCall(MatDestroy(&D));
  }
  /* the other types answer with their own name */
  PetscCall(MatConvert(A, MATBRC, MAT_INITIAL_MATRIX, &B));
  PetscCall(Expect(B, "brc", "seqaijbrc"));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok  forced candidates (brc, csr, segsum+argcsr), formats (ccoo, suraa), deterministic, dcsr in segsum's place, other types\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 3. the choice survives refreshes, duplicates, copies, MatSetFromOptions; a new pattern or new options choose again */
static PetscErrorCode TestSurvival(void)
{
  Mat         A, B, C, D;
  PetscInt    before;
  const char *first, *got;
  PetscScalar v[300];
  PetscInt    cols[300], row = 17;

  PetscFunctionBeginUser;
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, "stencil7:n=20", &A));
  PetscCall(Selections(&before));
  PetscCall(ToSpMV(A, "s_", NULL, &B));
  PetscCall(CheckMult(A, B, "first product"));
  PetscCall(ExpectSelections(before, 1, "first product"));
  PetscCall(MatSpMVGetFormat(B, &first));
  /* values only: MatScale, MatShift, MatSetValues on existing entries */
  PetscCall(Selections(&before));
  PetscCall(MatScale(A, -1.5));
  PetscCall(MatScale(B, -1.5));
  PetscCall(MatShift(A, 2.0));
  PetscCall(MatShift(B, 2.0));
  PetscCall(CheckMult(A, B, "after MatScale, MatShift"));
  PetscCall(ExpectSelections(before, 0, "values refresh"));
  PetscCall(Expect(B, first, "after a values refresh"));
  /* MatDuplicate with and without values, MatCopy into the latter: the choice travels, nothing is re-timed */
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &C));
  PetscCall(CheckMult(A, C, "MatDuplicate"));
  PetscCall(Expect(C, first, "MatDuplicate"));
  PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &D));
  PetscCall(MatCopy(B, D, SAME_NONZERO_PATTERN));
  PetscCall(CheckMult(A, D, "MatDuplicate without values + MatCopy"));
  PetscCall(Expect(D, first, "MatDuplicate without values"));
  PetscCall(MatDestroy(&D));
  PetscCall(ExpectSelections(before, 0, "duplicates"));
  /* MatSetFromOptions with the same options rebuilds the layout, keeps the choice */
  PetscCall(MatSetFromOptions(B));
  PetscCall(CheckMult(A, B, "after MatSetFromOptions"));
  PetscCall(ExpectSelections(before, 0, "MatSetFromOptions, same options"));
  /* a new pattern: a row of 300 entries (rows longer than 64 make the matrix irregular) chooses again */
  for (PetscInt k = 0; k < 300; k++) {
    cols[k] = 20 * k;
    v[k]    = 0.01 * (k + 1);
  }
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetValues(A, 1, &row, 300, cols, v, ADD_VALUES));
  PetscCall(MatSetValues(B, 1, &row, 300, cols, v, ADD_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(CheckMult(A, B, "after a new pattern"));
  PetscCall(ExpectSelections(before, 1, "new pattern"));
  PetscCall(MatSpMVGetFormat(B, &got));
  if (rule) PetscCall(Expect(B, "dcsr", "new pattern with a long row (irregular, local columns: segsum's balance, dcsr's 16-bit columns)"));
  /* the duplicate kept its own (old) pattern and choice */
  PetscCall(Expect(C, first, "the duplicate after the original's new pattern"));
  /* new options choose again */
  PetscCall(PetscOptionsSetValue(NULL, "-s_mat_spmv_format", "brc"));
  PetscCall(MatSetFromOptions(B));
  PetscCall(PetscOptionsClearValue(NULL, "-s_mat_spmv_format"));
  PetscCall(CheckMult(A, B, "after -mat_spmv_format brc"));
  PetscCall(ExpectSelections(before, 2, "changed options"));
  PetscCall(Expect(B, "brc", "-mat_spmv_format brc set later"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok  choice %s kept over refresh, MatDuplicate, MatCopy, MatSetFromOptions; new pattern -> %s; new options -> brc\n", first, got));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 4. bad values: the PETSc error classes */
static PetscErrorCode TestErrors(void)
{
  const char *bad[][3] = {
    {"e1_", "mat_spmv_trials=0", "OUTOFRANGE"},
    {"e2_", "mat_spmv_candidates=brc,nosuch", "UNKNOWN_TYPE"},
    {"e3_", "mat_spmv_format=spmv", "UNKNOWN_TYPE"},
    {"e4_", "mat_spmv_budget=-1", "OUTOFRANGE"},
    {"e5_", "mat_spmv_format=ccoo;mat_spmv_deterministic", "INCOMP"},
    {"e7_", "mat_spmv_wait=-1", "OUTOFRANGE"},
  };
  Mat            A, B;
  PetscErrorCode ierr;
  const char    *got;

  PetscFunctionBeginUser;
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, "stencil7:n=6", &A));
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    const PetscErrorCode want = !strcmp(bad[i][2], "OUTOFRANGE") ? PETSC_ERR_ARG_OUTOFRANGE : !strcmp(bad[i][2], "UNKNOWN_TYPE") ? PETSC_ERR_ARG_UNKNOWN_TYPE : PETSC_ERR_ARG_INCOMP;
    B = NULL;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = ToSpMV(A, bad[i][0], bad[i][1], &B); /* the conversion succeeds, MatSetFromOptions refuses */
    PetscCall(PetscPopErrorHandler());
    nchecks++;
    PetscCheck(ierr == want, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s gave error %d, expected %d (%s)", bad[i][1], (int)ierr, (int)want, bad[i][2]);
    PetscCall(MatDestroy(&B));
  }
  /* deterministic with only a format that is not: refused at the selection (the first product) */
  PetscCall(ToSpMV(A, "e6_", "mat_spmv_candidates=ccoo;mat_spmv_deterministic", &B));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatSpMVGetFormat(B, &got);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_ARG_INCOMP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "deterministic with candidates ccoo gave error %d", (int)ierr);
  PetscCall(MatDestroy(&B));
  /* not a petsc-spmv matrix: no format */
  PetscCall(MatSpMVGetFormat(A, &got));
  PetscCheck(!got, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatSpMVGetFormat on seqaij gave %s", got);
  nchecks += 2;
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok  bad values refused: trials 0, unknown names, negative budget and wait, ccoo + deterministic; no format on seqaij\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 6. on the GPU the selection waits (-mat_spmv_wait, default 2): cuSPARSE's product until the matrix's products took twice
   the selection's expected cost, then one selection; every product right before, during and after, with CUDA and host
   vectors; a duplicate of a waiting matrix waits on its own; a new pattern waits again */
static PetscErrorCode ProductsUntilSelected(Mat A, Mat B, PetscInt limit, PetscInt *n)
{
  Vec      x, y;
  PetscInt before, now;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(B, &x, &y));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(Selections(&before));
  for (*n = 0; *n < limit; (*n)++) {
    PetscCall(MatMult(B, x, y));
    PetscCall(Selections(&now));
    if (now > before) break;
    if (*n % 97 == 0) PetscCall(CheckMult(A, B, "while the selection waits"));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestWait(void)
{
  Mat         A, B, C;
  PetscInt    before, n, nc;
  const char *got;
  Vec         xh, yh, yr;
  PetscReal   nrm, err;

  PetscFunctionBeginUser;
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, "stencil27:n=24", &A));
  PetscCall(MatConvert(A, MATSPMV, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatSetOptionsPrefix(B, "w_"));
  PetscCall(MatSetFromOptions(B)); /* -w_mat_spmv_wait not set: the default */
  PetscCall(Selections(&before));
  PetscCall(CheckMult(A, B, "first products, waiting"));
  PetscCall(Expect(B, "csr", "while the selection waits"));
  /* host vectors while waiting: staged through csr's own descriptor */
  PetscCall(MatCreateVecs(A, &xh, &yh));
  PetscCall(VecDuplicate(yh, &yr));
  PetscCall(VecSetRandom(xh, rnd));
  PetscCall(MatMult(A, xh, yr));
  PetscCall(MatMult(B, xh, yh));
  PetscCall(VecNorm(yr, NORM_2, &nrm));
  PetscCall(VecAXPY(yh, -1.0, yr));
  PetscCall(VecNorm(yh, NORM_2, &err));
  nchecks++;
  PetscCheck(err <= 1e-12 * nrm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "host vectors while waiting: |Bx-Ax| = %g, |Ax| = %g", (double)err, (double)nrm);
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &C)); /* waits on its own */
  PetscCall(ProductsUntilSelected(A, B, 1000000, &n));
  PetscCall(ExpectSelections(before, 1, "the waiting selection"));
  PetscCall(MatSpMVGetFormat(B, &got));
  PetscCall(CheckMult(A, B, "after the waiting selection"));
  PetscCall(Expect(C, "csr", "a duplicate of a waiting matrix"));
  PetscCall(ProductsUntilSelected(A, C, 1000000, &nc));
  PetscCall(ExpectSelections(before, 2, "the duplicate's own selection"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok  the selection waited %" PetscInt_FMT " products, then chose %s; its duplicate waited %" PetscInt_FMT "\n", n, got, nc));
  /* a new pattern waits again */
  {
    PetscInt    row = 5, col = 13000;
    PetscScalar v   = 0.5;
    PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetValues(A, 1, &row, 1, &col, &v, ADD_VALUES));
    PetscCall(MatSetValues(B, 1, &row, 1, &col, &v, ADD_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(CheckMult(A, B, "a new pattern, waiting again"));
  PetscCall(Expect(B, "csr", "a new pattern waits again"));
  PetscCall(ExpectSelections(before, 2, "a new pattern: no selection yet"));
  PetscCall(ProductsUntilSelected(A, B, 1000000, &n));
  PetscCall(ExpectSelections(before, 3, "the new pattern's selection"));
  PetscCall(CheckMult(A, B, "after the new pattern's selection"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok  a new pattern waited %" PetscInt_FMT " products (a later selection of the process)\n", n));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&yr));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 5. several ranks: the diagonal block's choice, kept by MatDuplicate */
static PetscErrorCode TestMPI(void)
{
  Mat         A, B, C;
  const char *got, *dup;
  PetscInt    before;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, "stencil7:n=20", &A));
  PetscCall(MatConvert(A, MATSPMV, MAT_INITIAL_MATRIX, &B));
  PetscCall(CheckMult(A, B, "mpiaijspmv"));
  PetscCall(MatSpMVGetFormat(B, &got));
  if (rule) PetscCall(Expect(B, "ccoo", "diagonal block of the 7-point stencil"));
  PetscCall(Selections(&before));
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &C));
  PetscCall(CheckMult(A, C, "mpiaijspmv duplicate"));
  PetscCall(MatSpMVGetFormat(C, &dup));
  PetscCheck(!strcmp(got, dup), PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] duplicate chose %s, original %s", rank, dup, got);
  PetscCall(ExpectSelections(before, 0, "mpiaijspmv duplicate"));
  PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "ok  [%d] mpiaijspmv diagonal block -> %s, kept by MatDuplicate\n", rank, got));
  PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscMPIInt size;
  int         ndev = 0;
  PetscBool   hostref = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscLogDefaultBegin());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (cudaGetDeviceCount(&ndev) != cudaSuccess) {
    (void)cudaGetLastError();
    ndev = 0;
  }
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-mat_spmv_host_reference", &hostref, NULL));
  rule = (PetscBool)(ndev == 0 || hostref);
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-rule", &rule, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-wait", wait, sizeof(wait), NULL));
  {
    PetscBool set;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_spmv_wait", &set));
    if (!set) PetscCall(PetscOptionsSetValue(NULL, "-mat_spmv_wait", wait)); /* the matrices without a prefix */
  }
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  if (size == 1) {
    PetscCall(TestFamilies());
    PetscCall(TestForced());
    PetscCall(TestSurvival());
    PetscCall(TestErrors());
    if (!rule) PetscCall(TestWait()); /* GPU only: without one the rule chooses at once */
  } else PetscCall(TestMPI());
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_spmv: %" PetscInt_FMT " checks passed (%s)\n", nchecks, rule ? "the rule's choices checked" : "timed choices printed"));
  PetscCall(PetscFinalize());
  return 0;
}
