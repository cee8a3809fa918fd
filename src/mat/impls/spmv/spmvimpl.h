/* Private declarations shared by the generic type, the formats and the registration. */
#pragma once
#include <petscspmv.h>
#include <petsc/private/matimpl.h>
#include "spmvformat.h"

PETSC_INTERN PetscLogEvent MAT_SpMV_Build, MAT_SpMV_Refresh, MAT_SpMV_Single;

/* What the sequential overlay (aijspmv.cu) and its MPI twin (mpiaijspmv.cu) share, at the start of their state: it
   lives in a container composed on the matrix header under one name (a matrix is either sequential or MPI) */
struct SpMVOverlay {
  PetscBool mpi   = PETSC_FALSE;
  PetscBool block = PETSC_FALSE; /* a block of an MPI matrix: the parent's own name, nothing to lend */
  char      parent[64];          /* the parent's type name, lent to PETSc's code that compares names */
  PetscErrorCode (*productsetfromoptions)(Mat) = nullptr; /* the parent's product dispatch (the operation) */
  PetscErrorCode (*productsfo)(Mat)            = nullptr; /* ... composed under the parent's names (sequential) */
  virtual PetscErrorCode Release() { return PETSC_SUCCESS; } /* frees what it holds (device memory), before delete */
  virtual ~SpMVOverlay() = default;
};
SpMVOverlay   *SpMVGetOverlay(Mat);
PetscErrorCode SpMVComposeOverlay(Mat, SpMVOverlay *);
PetscErrorCode SpMVProductSetFromOptions(Mat); /* the product dispatch of every plugin matrix, seq or MPI */

/* the sequential type, for its MPI twin (aijspmv.cu) */
const SpMVFormatInfo *SpMVFindFormat(const char *);
PetscErrorCode        SpMVRegisterDM(void); /* DMDA's and DMStag's transfer matrices in a plugin -dm_mat_type (src/dm/spmvdm.cu) */
PetscBool             SpMVHaveGPU(void);
PetscErrorCode        MatSpMVSeqAttach(Mat, const SpMVFormatInfo *, PetscBool); /* a block: keeps the parent's type name */
PetscErrorCode        MatSpMVSeqDetach(Mat);
PetscBool             MatSpMVSeqHasOverlay(Mat);
PetscErrorCode        MatSpMVSeqSetup(Mat, const SpMVFormat *, PetscBool); /* options, host reference */
PetscErrorCode        MatSpMVSeqGetFormat(Mat, PetscBool, const SpMVFormatInfo **, SpMVFormat **);
PetscBool             MatSpMVSeqOnGPU(Mat);
PetscBool             MatSpMVSeqNoFit(Mat);
PetscErrorCode        MatSpMVSeqDeviceCsr(Mat, PetscBool, const PetscInt **, const PetscInt **, const PetscScalar **);
PetscErrorCode        SpMVSetFromOptions(Mat, const char *, const SpMVFormatInfo *, SpMVFormat *, PetscBool *, PetscBool *);
PetscBool             SpMVHostReferenceDefault(Mat);
PetscErrorCode        SpMVConvertToAIJ(Mat, MatType, Mat *); /* a new AIJ matrix from a plugin matrix on a GPU parent */

/* The converters between a plugin type and its parent family, sequential (aijspmv.cu) and MPI (mpiaijspmv.cu) alike:
   MAT_REUSE_MATRIX copies the values; otherwise the copy (or A itself, MAT_INPLACE_MATRIX) takes the overlay off and
   PETSc converts it to `type` (off = true: to the parent family), or PETSc converts it to `type`, the parent, and the
   overlay goes on (off = false: from any matrix) */
template <typename Overlay>
PetscErrorCode SpMVConvertThroughParent(Mat A, MatType type, MatReuse reuse, Mat *B, bool off, Overlay overlay)
{
  PetscBool same;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!off && reuse == MAT_INITIAL_MATRIX) {
    /* from any matrix: PETSc's own conversion to the parent, then the overlay. Not a duplicate of the source first: it
       costs a copy, and MatDuplicate is not a faithful copy of every type (the shell of MatConvert(A, MATSHELL) copies
       its destroy routine, so A was destroyed once too often: PETSc's mat/tests/ex2) */
    PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, B));
    PetscCall(overlay(*B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
  if (off) PetscCall(overlay(*B));
  PetscCall(PetscObjectTypeCompare((PetscObject)*B, type, &same));
  if (!same) PetscCall(MatConvert(*B, type, MAT_INPLACE_MATRIX, B));
  if (!off) PetscCall(overlay(*B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatConvert's general converter of a plugin matrix, sequential or MPI (its ops->convert): to the parent family (aij,
   aijcusparse and their seq or mpi names, given) through toparent, to any other type as PETSc converts the parent */
PetscErrorCode SpMVConvertGeneral(Mat A, MatType type, MatReuse reuse, Mat *B, MatType aij, MatType aijcusparse, PetscErrorCode (*toparent)(Mat, MatType, MatReuse, Mat *));
