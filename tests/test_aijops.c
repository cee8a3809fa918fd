static char help[] = "Every operation of the parent (aijcusparse on a GPU, AIJ without one) on a petsc-spmv type, against the\n"
                     "same operation on the reference type: COO assembly with host and device values (insert, add, new\n"
                     "values, new pattern), MatScale/Shift/AXPY/DiagonalScale/DiagonalSet/ZeroRows(Columns)/GetDiagonal/Copy/\n"
                     "Duplicate/Convert/BindToCPU, then MatMult, MatMultAdd, MatMultTranspose(Add) against the reference\n"
                     "(relative -tol); matrix products of plugin-typed operands (AB, AtB, ABt, PtAP, RARt, mixed), initial and reuse.\n"
                     "  -type brc  -ref aij|aijcusparse  -tol 1e-12  -gpu_products (require the products to come out as aijcusparse: the GPU path)\n\n";

#include <petscspmv.h>
#include <petscdevice_cuda.h>
#include "spmvexamples.h"
#include <time.h>

static PetscInt    nchecks = 0;
static PetscRandom rnd;
static PetscReal   tol = 1e-12;

/* |op(B) x - op(R) x| and |z + op(B) x - (z + op(R) x)| relative to |op(R) x|, for op = identity and transpose */
static PetscErrorCode CheckOps(Mat R, Mat B, const char *what)
{
  PetscFunctionBeginUser;
  for (int t = 0; t < 2; t++) {
    Vec       x, y, yb, z, zb;
    PetscReal e, ez, n;
    PetscCall(t ? MatCreateVecs(R, &y, &x) : MatCreateVecs(R, &x, &y)); /* x is in op's domain */
    PetscCall(VecDuplicate(y, &yb));
    PetscCall(VecDuplicate(y, &z));
    PetscCall(VecDuplicate(y, &zb));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(VecSetRandom(z, rnd));
    PetscCall(VecCopy(z, zb));
    PetscCall(t ? MatMultTranspose(R, x, y) : MatMult(R, x, y));
    PetscCall(t ? MatMultTranspose(B, x, yb) : MatMult(B, x, yb));
    PetscCall(t ? MatMultTransposeAdd(R, x, z, z) : MatMultAdd(R, x, z, z));
    PetscCall(t ? MatMultTransposeAdd(B, x, zb, zb) : MatMultAdd(B, x, zb, zb));
    PetscCall(VecNorm(y, NORM_2, &n));
    PetscCall(VecAXPY(yb, -1.0, y));
    PetscCall(VecNorm(yb, NORM_2, &e));
    PetscCall(VecAXPY(zb, -1.0, z));
    PetscCall(VecNorm(zb, NORM_2, &ez));
    PetscCheck(e <= tol * PetscMax(n, 1e-300) && ez <= tol * PetscMax(n, 1.0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s: |Bx-Rx| = %g, |z+Bx-(z+Rx)| = %g, |Rx| = %g", what, t ? "MatMultTranspose" : "MatMult", (double)e, (double)ez, (double)n);
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&yb));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&zb));
  }
  nchecks++;
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

/* The COO triplets of A's entries, every entry twice with half the value each (duplicates: ADD semantics) */
static PetscErrorCode COOFromMat(Mat A, PetscCount *n, PetscInt **ci, PetscInt **cj, PetscScalar **cv)
{
  PetscInt m, nnz = 0;
  MatInfo  info;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, NULL));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  PetscCall(PetscMalloc3(2 * (PetscInt)info.nz_used, ci, 2 * (PetscInt)info.nz_used, cj, 2 * (PetscInt)info.nz_used, cv));
  for (PetscInt r = 0; r < m; r++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(A, r, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++)
      for (int d = 0; d < 2; d++) {
        (*ci)[nnz] = r;
        (*cj)[nnz] = cols[k];
        (*cv)[nnz] = 0.5 * vals[k];
        nnz++;
      }
    PetscCall(MatRestoreRow(A, r, &nc, &cols, &vals));
  }
  *n = nnz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSetValuesCOO on B and R with the same values, given in device memory when there is a device */
static PetscErrorCode SetCOO(Mat R, Mat B, PetscCount n, const PetscScalar *v, InsertMode mode, PetscBool device)
{
  PetscScalar *dv = NULL;

  PetscFunctionBeginUser;
  PetscCall(MatSetValuesCOO(R, v, mode));
  if (!device) {
    PetscCall(MatSetValuesCOO(B, v, mode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallCUDA(cudaMalloc((void **)&dv, PetscMax(n, 1) * sizeof(PetscScalar)));
  PetscCallCUDA(cudaMemcpy(dv, v, n * sizeof(PetscScalar), cudaMemcpyHostToDevice));
  PetscCall(MatSetValuesCOO(B, dv, mode));
  PetscCallCUDA(cudaFree(dv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestCOO(const char *spec, const char *spec2, const char *type, const char *ref, PetscBool gpu)
{
  Mat          A, A2, R, B;
  PetscCount   n, n2;
  PetscInt    *ci, *cj, *ci2, *cj2, m, nn;
  PetscScalar *cv, *cv2;
  char         what[256];

  PetscFunctionBeginUser;
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, spec, &A));
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, spec2, &A2));
  PetscCall(MatGetSize(A, &m, &nn));
  PetscCall(COOFromMat(A, &n, &ci, &cj, &cv));
  PetscCall(COOFromMat(A2, &n2, &ci2, &cj2, &cv2));
  for (int k = 0; k < 2; k++) {
    Mat *M = k ? &B : &R;
    PetscCall(MatCreate(PETSC_COMM_SELF, M));
    PetscCall(MatSetSizes(*M, m, nn, m, nn));
    PetscCall(MatSetType(*M, k ? type : ref));
    PetscCall(MatSetPreallocationCOO(*M, n, ci, cj)); /* may reorder nothing: PETSc copies the indices */
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "COO %s as %s", spec, type));
  for (int dev = 0; dev < (gpu ? 2 : 1); dev++) {
    const char *where = dev ? "device values" : "host values";
    PetscCall(SetCOO(R, B, n, cv, INSERT_VALUES, (PetscBool)dev));
    PetscCall(CheckOps(R, B, where));
    PetscCall(SetCOO(R, B, n, cv, ADD_VALUES, (PetscBool)dev));
    PetscCall(CheckOps(R, B, where));
    for (PetscCount i = 0; i < n; i++) cv[i] = cv[i] * 0.75 - 0.125; /* new values, same pattern: a refresh */
    PetscCall(SetCOO(R, B, n, cv, INSERT_VALUES, (PetscBool)dev));
    PetscCall(CheckOps(R, B, where));
  }
  /* a new pattern on the same matrices */
  PetscCall(MatSetPreallocationCOO(R, n2, ci2, cj2));
  PetscCall(MatSetPreallocationCOO(B, n2, ci2, cj2));
  PetscCall(SetCOO(R, B, n2, cv2, INSERT_VALUES, gpu));
  PetscCall(CheckOps(R, B, "COO, new pattern"));
  PetscCall(PetscFree3(ci, cj, cv));
  PetscCall(PetscFree3(ci2, cj2, cv2));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&A2));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok  %s\n", what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Each value-changing operation done to R and to B alike, then the products compared */
static PetscErrorCode TestOps(const char *spec, const char *type, const char *ref)
{
  Mat       A, R, B, X, XR, C;
  PetscInt  m, n;
  Vec       l, r, d, dr;
  PetscReal e;
  PetscInt  rows[3];

  PetscFunctionBeginUser;
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, spec, &A));
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatConvert(A, ref, MAT_INITIAL_MATRIX, &R));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
  PetscCall(CheckOps(R, B, "converted"));
  PetscCall(MatScale(R, -1.5));
  PetscCall(MatScale(B, -1.5));
  PetscCall(CheckOps(R, B, "MatScale"));
  PetscCall(MatCreateVecs(R, &r, &l));
  PetscCall(VecSetRandom(l, rnd));
  PetscCall(VecSetRandom(r, rnd));
  PetscCall(MatDiagonalScale(R, l, r));
  PetscCall(MatDiagonalScale(B, l, r));
  PetscCall(CheckOps(R, B, "MatDiagonalScale"));
  /* X of the plugin type, same pattern, and XR its reference: AXPY with the same and with a subset pattern */
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &X));
  PetscCall(MatDuplicate(R, MAT_COPY_VALUES, &XR));
  PetscCall(MatScale(X, 0.5));
  PetscCall(MatScale(XR, 0.5));
  PetscCall(MatAXPY(R, 2.0, XR, SAME_NONZERO_PATTERN));
  PetscCall(MatAXPY(B, 2.0, X, SAME_NONZERO_PATTERN));
  PetscCall(CheckOps(R, B, "MatAXPY same pattern"));
  PetscCall(MatAXPY(R, -1.0, XR, SUBSET_NONZERO_PATTERN));
  PetscCall(MatAXPY(B, -1.0, X, SUBSET_NONZERO_PATTERN));
  PetscCall(CheckOps(R, B, "MatAXPY subset pattern"));
  PetscCall(MatAXPY(R, 0.25, XR, UNKNOWN_NONZERO_PATTERN));
  PetscCall(MatAXPY(B, 0.25, X, UNKNOWN_NONZERO_PATTERN));
  PetscCall(CheckOps(R, B, "MatAXPY unknown pattern"));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&XR));
  if (m == n && m > 3) {
    PetscCall(MatShift(R, 2.0));
    PetscCall(MatShift(B, 2.0));
    PetscCall(CheckOps(R, B, "MatShift"));
    PetscCall(MatDiagonalSet(R, l, ADD_VALUES));
    PetscCall(MatDiagonalSet(B, l, ADD_VALUES));
    PetscCall(CheckOps(R, B, "MatDiagonalSet"));
    PetscCall(MatCreateVecs(R, NULL, &d));
    PetscCall(VecDuplicate(d, &dr));
    PetscCall(MatGetDiagonal(R, dr));
    PetscCall(MatGetDiagonal(B, d));
    PetscCall(VecAXPY(d, -1.0, dr));
    PetscCall(VecNorm(d, NORM_INFINITY, &e));
    PetscCheck(e == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetDiagonal differs by %g", (double)e);
    nchecks++;
    PetscCall(VecDestroy(&d));
    PetscCall(VecDestroy(&dr));
    rows[0] = 0;
    rows[1] = m / 2;
    rows[2] = m - 1;
    PetscCall(MatZeroRows(R, 3, rows, 3.0, NULL, NULL));
    PetscCall(MatZeroRows(B, 3, rows, 3.0, NULL, NULL));
    PetscCall(CheckOps(R, B, "MatZeroRows"));
    rows[1] = m / 3;
    PetscCall(MatZeroRowsColumns(R, 3, rows, 2.0, NULL, NULL));
    PetscCall(MatZeroRowsColumns(B, 3, rows, 2.0, NULL, NULL));
    PetscCall(CheckOps(R, B, "MatZeroRowsColumns"));
  }
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &C));
  {
    MatType tb;
    PetscCall(MatGetType(B, &tb));
    PetscCall(CheckType(C, tb));
  }
  PetscCall(CheckOps(R, C, "MatDuplicate"));
  PetscCall(MatZeroEntries(C));
  PetscCall(MatCopy(B, C, SAME_NONZERO_PATTERN));
  PetscCall(CheckOps(R, C, "MatCopy"));
  PetscCall(MatDestroy(&C));
  /* to the reference type and back, initial and in place */
  PetscCall(MatConvert(B, ref, MAT_INITIAL_MATRIX, &C));
  PetscCall(CheckOps(R, C, "converted to the reference type"));
  PetscCall(MatConvert(C, type, MAT_INPLACE_MATRIX, &C));
  PetscCall(CheckOps(R, C, "and back in place"));
  PetscCall(MatConvert(C, MATAIJ, MAT_INPLACE_MATRIX, &C));
  PetscCall(CheckType(C, MATSEQAIJ));
  PetscCall(CheckOps(R, C, "to aij in place"));
  PetscCall(MatDestroy(&C));
  PetscCall(MatBindToCPU(B, PETSC_TRUE));
  PetscCall(MatScale(B, 2.0));
  PetscCall(MatScale(R, 2.0));
  PetscCall(CheckOps(R, B, "bound to the CPU"));
  PetscCall(MatBindToCPU(B, PETSC_FALSE));
  PetscCall(MatScale(B, 0.5));
  PetscCall(MatScale(R, 0.5));
  PetscCall(CheckOps(R, B, "unbound again"));
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok  operations on %s as %s\n", spec, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C = product of plugin-typed (or mixed) operands against the same product of reference matrices, initial and
   after new values (reuse); with -gpu_products the plugin products must come out as aijcusparse (GPU path) */
static PetscErrorCode CheckProduct(Mat Cr, Mat C, const char *what, PetscBool gpu_products)
{
  PetscBool eq;

  PetscFunctionBeginUser;
  PetscCall(MatMultEqual(Cr, C, 4, &eq));
  PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: product differs from the reference", what);
  PetscCall(MatMultTransposeEqual(Cr, C, 4, &eq));
  PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: product transpose differs from the reference", what);
  if (gpu_products) PetscCall(CheckType(C, MATSEQAIJCUSPARSE));
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestProducts(const char *type, const char *ref, PetscBool gpu_products)
{
  Mat A, P, Ar, Pr, Ab, Pb, Rr, Rb;

  PetscFunctionBeginUser;
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, "random:m=700,k=7,seed=5", &A));
  PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, "random:m=700,n=150,k=3,seed=6", &P));
  PetscCall(MatConvert(A, ref, MAT_INITIAL_MATRIX, &Ar));
  PetscCall(MatConvert(P, ref, MAT_INITIAL_MATRIX, &Pr));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &Ab));
  PetscCall(MatConvert(P, type, MAT_INITIAL_MATRIX, &Pb));
  PetscCall(MatTranspose(Pr, MAT_INITIAL_MATRIX, &Rr)); /* R = P^T for RARt */
  PetscCall(MatConvert(Rr, type, MAT_INITIAL_MATRIX, &Rb));
  for (int reuse = 0; reuse < 2; reuse++) {
    MatReuse    mr = reuse ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX;
    Mat         Cab, Cabr, Catb, Catbr, Cabt, Cabtr, Cptap, Cptapr, Crart, Crartr, Cmix, Cmixr, Cmix2, Cmix2r;
    static Mat  keep[14];
    if (reuse) {
      Cab = keep[0]; Cabr = keep[1]; Catb = keep[2]; Catbr = keep[3]; Cabt = keep[4]; Cabtr = keep[5]; Cptap = keep[6];
      Cptapr = keep[7]; Crart = keep[8]; Crartr = keep[9]; Cmix = keep[10]; Cmixr = keep[11]; Cmix2 = keep[12]; Cmix2r = keep[13];
      PetscCall(MatScale(Ab, 1.5)); PetscCall(MatScale(Ar, 1.5));
      PetscCall(MatShift(Ab, 0.5)); PetscCall(MatShift(Ar, 0.5));
      PetscCall(MatScale(Pb, -2.0)); PetscCall(MatScale(Pr, -2.0));
      PetscCall(MatScale(Rb, 3.0)); PetscCall(MatScale(Rr, 3.0));
    }
    PetscCall(MatMatMult(Ab, Pb, mr, PETSC_DETERMINE, &Cab));
    PetscCall(MatMatMult(Ar, Pr, mr, PETSC_DETERMINE, &Cabr));
    PetscCall(CheckProduct(Cabr, Cab, "AB", gpu_products));
    PetscCall(MatTransposeMatMult(Pb, Ab, mr, PETSC_DETERMINE, &Catb));
    PetscCall(MatTransposeMatMult(Pr, Ar, mr, PETSC_DETERMINE, &Catbr));
    PetscCall(CheckProduct(Catbr, Catb, "AtB", gpu_products));
    PetscCall(MatMatTransposeMult(Ab, Ab, mr, PETSC_DETERMINE, &Cabt));
    PetscCall(MatMatTransposeMult(Ar, Ar, mr, PETSC_DETERMINE, &Cabtr));
    PetscCall(CheckProduct(Cabtr, Cabt, "ABt", gpu_products));
    PetscCall(MatPtAP(Ab, Pb, mr, PETSC_DETERMINE, &Cptap));
    PetscCall(MatPtAP(Ar, Pr, mr, PETSC_DETERMINE, &Cptapr));
    PetscCall(CheckProduct(Cptapr, Cptap, "PtAP", gpu_products));
    PetscCall(MatRARt(Ab, Rb, mr, PETSC_DETERMINE, &Crart));
    PetscCall(MatRARt(Ar, Rr, mr, PETSC_DETERMINE, &Crartr));
    PetscCall(CheckProduct(Crartr, Crart, "RARt", gpu_products));
    /* mixed operand types: plugin * reference and reference * plugin */
    PetscCall(MatMatMult(Ab, Pr, mr, PETSC_DETERMINE, &Cmix));
    PetscCall(MatMatMult(Ar, Pr, mr, PETSC_DETERMINE, &Cmixr));
    PetscCall(CheckProduct(Cmixr, Cmix, "AB mixed (plugin, reference)", gpu_products));
    PetscCall(MatMatMult(Ar, Pb, mr, PETSC_DETERMINE, &Cmix2));
    PetscCall(MatMatMult(Ar, Pr, mr, PETSC_DETERMINE, &Cmix2r));
    PetscCall(CheckProduct(Cmix2r, Cmix2, "AB mixed (reference, plugin)", gpu_products));
    if (!reuse) {
      Mat list[14] = {Cab, Cabr, Catb, Catbr, Cabt, Cabtr, Cptap, Cptapr, Crart, Crartr, Cmix, Cmixr, Cmix2, Cmix2r};
      for (int k = 0; k < 14; k++) keep[k] = list[k];
    } else
      for (int k = 0; k < 14; k++) PetscCall(MatDestroy(&keep[k]));
  }
  /* after products: bound to the CPU (the parent drops its product dispatch), unbound (composes it again), converted
     to the parent in place (the overlay's dispatch comes off): products as the reference's */
  for (int step = 0; step < 3; step++) {
    const char *what[] = {"AB mixed, plugin bound to the CPU", "AB mixed, plugin unbound again", "AB mixed, plugin converted to the reference type in place"};
    Mat         C, Cr;
    if (step == 0) PetscCall(MatBindToCPU(Ab, PETSC_TRUE));
    if (step == 1) PetscCall(MatBindToCPU(Ab, PETSC_FALSE));
    if (step == 2) PetscCall(MatConvert(Ab, ref, MAT_INPLACE_MATRIX, &Ab));
    PetscCall(MatMatMult(Ab, Pr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C));
    PetscCall(MatMatMult(Ar, Pr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Cr));
    PetscCall(CheckProduct(Cr, C, what[step], (PetscBool)(gpu_products && step > 0)));
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&Cr));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&Ar));
  PetscCall(MatDestroy(&Pr));
  PetscCall(MatDestroy(&Ab));
  PetscCall(MatDestroy(&Pb));
  PetscCall(MatDestroy(&Rr));
  PetscCall(MatDestroy(&Rb));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok  products AB, AtB, ABt, PtAP, RARt, mixed; initial and reuse; bound, unbound, converted%s\n", gpu_products ? " (GPU path)" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      type[64] = MATBRC, ref[64] = MATAIJ;
  PetscInt  seed     = -1, nspecs = 5;
  PetscBool gpu_products = PETSC_FALSE, gpu;
  const char *specs[] = {"random:m=600,k=7,empty=0.15,seed=@", "random:m=300,n=900,k=9,seed=@", "stencil7:n=10", "denserows:m=2000,k=5,len=1500,dense=3,seed=@", "rmat:scale=10,ef=8,seed=@"};
  char      spec[256], *at;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ref", ref, sizeof(ref), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu_products", &gpu_products, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nspecs", &nspecs, NULL)); /* fewer matrices (under compute-sanitizer) */
  if (seed < 0) seed = (PetscInt)(time(NULL) % 100000);
  gpu = (PetscBool)!strcmp(ref, MATAIJCUSPARSE);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "test_aijops: type %s against %s, seed %" PetscInt_FMT "\n", type, ref, seed));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]) && (PetscInt)i < nspecs; i++) {
    PetscCall(PetscStrncpy(spec, specs[i], sizeof(spec)));
    PetscCall(PetscStrstr(spec, "@", &at));
    if (at) PetscCall(PetscSNPrintf(at, sizeof(spec) - (size_t)(at - spec), "%" PetscInt_FMT, seed + (PetscInt)i));
    PetscCall(TestOps(spec, type, ref));
  }
  PetscCall(TestCOO("random:m=512,k=6,empty=0.1,seed=3", "stencil7:n=8", type, ref, gpu));
  if (nspecs > 1) PetscCall(TestCOO("random:m=200,n=500,k=5,seed=4", "random:m=200,n=500,k=8,seed=9", type, ref, gpu));
  PetscCall(TestProducts(type, ref, gpu_products));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "test_aijops: %" PetscInt_FMT " checks passed\n", nchecks));
  PetscCall(PetscFinalize());
  return 0;
}
