static char help[] = "The MPI twin mpiaij<fmt> against MPIAIJ, on any number of ranks: products, blocks of the plugin type,\n"
                     "MatSetValues from any rank, a rank with no rows, creation by preallocation and by the hash path,\n"
                     "duplicate, convert both ways, diagonal, values refresh.  -type <brc>\n\n";

#include <petscspmv.h>
#include "spmvexamples.h"

static PetscInt    nchecks;
static PetscRandom rnd;

static PetscErrorCode CheckMult(Mat A, Mat B, const char *what)
{
  Vec       x, y, z, w, xb, yb, zb, wb, d, db;
  PetscReal nrm, nrm2, nb, e1, e2, e3;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(MatCreateVecs(B, &xb, &yb)); /* CUDA vectors with a GPU */
  PetscCall(VecDuplicate(y, &z)); PetscCall(VecDuplicate(yb, &zb));
  PetscCall(VecSetRandom(x, rnd)); PetscCall(VecCopy(x, xb));
  PetscCall(VecSetRandom(z, rnd)); PetscCall(VecCopy(z, zb));
  PetscCall(MatMult(A, x, y)); PetscCall(MatMult(B, xb, yb));
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(VecNorm(yb, NORM_2, &nb)); /* the product's own norm: no rank may keep a cached norm of it (a rank whose block is empty) */
  PetscCheck(PetscAbsReal(nb - nrm) <= 1e-12 * PetscMax(nrm, 1e-300), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: |Ax| %g, AIJ's %g", what, (double)nb, (double)nrm);
  PetscCall(VecDuplicate(z, &w)); PetscCall(VecDuplicate(zb, &wb));
  PetscCall(MatMultAdd(A, x, z, w)); PetscCall(MatMultAdd(B, xb, zb, wb)); /* z + A x into another vector */
  PetscCall(VecNorm(w, NORM_2, &nrm2)); PetscCall(VecNorm(wb, NORM_2, &nb));
  PetscCheck(PetscAbsReal(nb - nrm2) <= 1e-12 * PetscMax(nrm2, 1.0), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: |z + Ax| %g, AIJ's %g", what, (double)nb, (double)nrm2);
  PetscCall(VecDestroy(&w)); PetscCall(VecDestroy(&wb));
  PetscCall(VecAXPY(yb, -1.0, y)); PetscCall(VecNorm(yb, NORM_2, &e1));
  PetscCall(MatMultAdd(A, x, z, z)); PetscCall(MatMultAdd(B, xb, zb, zb));
  PetscCall(VecAXPY(zb, -1.0, z)); PetscCall(VecNorm(zb, NORM_2, &e2));
  e3 = 0;
  {
    PetscInt m, n;
    PetscCall(MatGetSize(A, &m, &n));
    if (m == n) {
      PetscCall(VecDuplicate(y, &d)); PetscCall(VecDuplicate(yb, &db));
      PetscCall(MatGetDiagonal(A, d)); PetscCall(MatGetDiagonal(B, db));
      PetscCall(VecAXPY(db, -1.0, d)); PetscCall(VecNorm(db, NORM_INFINITY, &e3));
      PetscCall(VecDestroy(&d)); PetscCall(VecDestroy(&db));
    }
  }
  nchecks++;
  PetscCheck(e1 <= 1e-12 * PetscMax(nrm, 1e-300) && e2 <= 1e-12 * PetscMax(nrm, 1.0) && e3 == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: errors mult %g multadd %g diagonal %g (|Ax| %g)", what, (double)e1, (double)e2, (double)e3, (double)nrm);
  PetscCall(VecDestroy(&x)); PetscCall(VecDestroy(&y)); PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&xb)); PetscCall(VecDestroy(&yb)); PetscCall(VecDestroy(&zb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckTypes(Mat B, const char *mpitype, const char *seqtype)
{
  PetscBool   ok, oka, okb;
  PetscMPIInt size;
  Mat         Ad, Ao;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)B), &size));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, size > 1 ? mpitype : seqtype, &ok));
  PetscCheck(ok, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "wrong type, expected %s", size > 1 ? mpitype : seqtype);
  if (size > 1) { /* the blocks are the parent's block type (seqaijcusparse, or seqaij without a GPU) with the format on them */
    const char *oa = NULL, *ob = NULL;
    PetscCall(MatMPIAIJGetSeqAIJ(B, &Ad, &Ao, NULL));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)Ad, MATSEQAIJ, &oka));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)Ao, MATSEQAIJ, &okb));
    PetscCall(MatSpMVGetFormat(Ad, &oa));
    PetscCall(MatSpMVGetFormat(Ao, &ob));
    if (strcmp(seqtype, MATSEQAIJ)) { /* a plugin type: the blocks carry its overlay */
      oka = (PetscBool)(oka && oa);
      okb = (PetscBool)(okb && ob);
    } else { /* converted back: plain blocks */
      oka = (PetscBool)(oka && !oa);
      okb = (PetscBool)(okb && !ob);
    }
    PetscCheck(oka && okb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "blocks are not %s", seqtype);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rows set from a rank that does not own them (ADD_VALUES into the existing pattern) */
static PetscErrorCode AddFromOtherRanks(Mat A, Mat B)
{
  PetscMPIInt rank, size;
  PetscInt    M, N;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatGetSize(A, &M, &N));
  /* an entry may be new (empty rows): the pattern may change, which rebuilds the layout */
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt r = (M * (rank + 1)) / (size + 1) % PetscMax(M, 1), k = 0; k < PetscMin(M, 7); k++, r = (r + 13) % M) {
    PetscInt c = r % N;
    PetscScalar v = 0.5 + rank + k;
    PetscCall(MatSetValues(A, 1, &r, 1, &c, &v, ADD_VALUES));
    PetscCall(MatSetValues(B, 1, &r, 1, &c, &v, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY)); PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY)); PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A matrix built directly as the plugin type: local sizes with the last rank owning no rows, all values
   set by rank 0; by preallocation (hash = false) or through the hash path of MatSetUp (hash = true) */
static PetscErrorCode Direct(const char *type, PetscBool hash, Mat *A, Mat *B)
{
  PetscMPIInt rank, size;
  PetscInt    M = 61, m;
  Mat         mats[2];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  m = size == 1 ? M : (rank < size - 1 ? M / (size - 1) + (rank < M % (size - 1)) : 0);
  for (int k = 0; k < 2; k++) {
    PetscCall(MatCreate(PETSC_COMM_WORLD, &mats[k]));
    PetscCall(MatSetSizes(mats[k], m, m, M, M));
    PetscCall(MatSetType(mats[k], k ? type : MATAIJ));
    if (hash) PetscCall(MatSetUp(mats[k]));
    else {
      PetscCall(MatSeqAIJSetPreallocation(mats[k], 9, NULL));
      PetscCall(MatMPIAIJSetPreallocation(mats[k], 9, NULL, 9, NULL));
    }
    if (rank == 0)
      for (PetscInt r = 0; r < M; r++) {
        PetscInt    cols[4] = {r, (r + 1) % M, (r + 7) % M, (r * 5 + 3) % M};
        PetscScalar vals[4] = {4.0 + r % 3, -1.0, -0.5, 0.25 * (r % 5)};
        PetscCall(MatSetValues(mats[k], 1, &r, 4, cols, vals, ADD_VALUES));
      }
    PetscCall(MatAssemblyBegin(mats[k], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(mats[k], MAT_FINAL_ASSEMBLY));
  }
  *A = mats[0];
  *B = mats[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        type[64] = MATBRC, seqtype[80], mpitype[80];
  const char *specs[]  = {"random:m=900,k=7,empty=0.1,seed=3", "random:m=400,n=1100,k=9,seed=4", "stencil27:n=10", "denserows:m=3000,k=5,len=2500,dense=3,seed=5", "banded:m=2,bw=1"};
  Mat         A, B, C, D;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscSNPrintf(seqtype, sizeof(seqtype), "seqaij%s", type));
  PetscCall(PetscSNPrintf(mpitype, sizeof(mpitype), "mpiaij%s", type));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
    PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, specs[i], &A));
    PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatSetFromOptions(B));
    PetscCall(CheckTypes(B, mpitype, seqtype));
    PetscCall(CheckMult(A, B, specs[i]));
    PetscCall(AddFromOtherRanks(A, B));
    PetscCall(CheckMult(A, B, "after MatSetValues from other ranks"));
    PetscCall(MatScale(A, -3.0)); PetscCall(MatScale(B, -3.0));
    PetscCall(CheckMult(A, B, "after MatScale (refresh)"));
    PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &C));
    PetscCall(CheckTypes(C, mpitype, seqtype));
    PetscCall(CheckMult(A, C, "MatDuplicate"));
    PetscCall(MatConvert(C, MATAIJ, MAT_INITIAL_MATRIX, &D));
    PetscCall(CheckTypes(D, MATMPIAIJ, MATSEQAIJ));
    PetscCall(CheckMult(A, D, "converted back to aij"));
    PetscCall(MatConvert(D, type, MAT_INPLACE_MATRIX, &D));
    PetscCall(CheckTypes(D, mpitype, seqtype));
    PetscCall(CheckMult(A, D, "in-place aij -> plugin"));
    PetscCall(MatDestroy(&D)); PetscCall(MatDestroy(&C)); PetscCall(MatDestroy(&B)); PetscCall(MatDestroy(&A));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok  %s\n", specs[i]));
  }
  { /* rows with entries on rank 0 only: the other ranks' blocks take the empty product (PETSc's mat/tests/ex104) */
    PetscInt rs, re;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, 8, 8, PETSC_DETERMINE, PETSC_DETERMINE, 1, NULL, 0, NULL, &A));
    PetscCall(MatGetOwnershipRange(A, &rs, &re));
    if (rs == 0)
      for (PetscInt i = rs; i < re; i++) PetscCall(MatSetValue(A, i, i, i + 1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatSetFromOptions(B));
    PetscCall(CheckMult(A, B, "rows on rank 0 only"));
    PetscCall(MatDestroy(&A)); PetscCall(MatDestroy(&B));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok  rows on rank 0 only, empty blocks elsewhere\n"));
  }
  for (int hash = 0; hash < 2; hash++) {
    PetscCall(Direct(type, (PetscBool)hash, &A, &B));
    PetscCall(CheckTypes(B, mpitype, seqtype));
    PetscCall(CheckMult(A, B, hash ? "created by the hash path" : "created by preallocation"));
    PetscCall(AddFromOtherRanks(A, B));
    PetscCall(CheckMult(A, B, "created, then MatSetValues from other ranks"));
    PetscCall(MatDestroy(&A)); PetscCall(MatDestroy(&B));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok  created as %s by %s, last rank owns no rows\n", type, hash ? "MatSetUp (hash)" : "preallocation"));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_mpi: %" PetscInt_FMT " checks passed\n", nchecks));
  PetscCall(PetscFinalize());
  return 0;
}
