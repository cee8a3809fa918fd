/* Private declarations shared by the generic type, the formats and the registration. */
#pragma once
#include <petscspmv.h>
#include <petsc/private/matimpl.h>
#include "spmvformat.h"

PETSC_INTERN PetscLogEvent MAT_SpMV_Build, MAT_SpMV_Refresh, MAT_SpMV_Single;

/* the sequential type, for its MPI twin (aijspmv.cu) */
const SpMVFormatInfo *SpMVFindFormat(const char *);
PetscBool             SpMVHaveGPU(void);
PetscErrorCode        MatSpMVSeqAttach(Mat, const SpMVFormatInfo *, PetscBool); /* a block: keeps the parent's type name */
PetscErrorCode        MatSpMVSeqDetach(Mat);
PetscBool             MatSpMVSeqHasOverlay(Mat);
PetscErrorCode        MatSpMVSeqSetup(Mat, const SpMVFormat *, PetscBool); /* options, host reference */
PetscErrorCode        MatSpMVSeqGetFormat(Mat, PetscBool, const SpMVFormatInfo **, SpMVFormat **);
PetscBool             MatSpMVSeqOnGPU(Mat);
PetscErrorCode        MatSpMVSeqDeviceCsr(Mat, PetscBool, const PetscInt **, const PetscInt **, const PetscScalar **);
PetscErrorCode        SpMVSetFromOptions(Mat, const char *, const SpMVFormatInfo *, SpMVFormat *, PetscBool *, PetscBool *);
PetscBool             SpMVHostReferenceDefault(Mat);
