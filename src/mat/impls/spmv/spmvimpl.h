/* Private declarations shared by the generic type, the formats and the registration. */
#pragma once
#include <petscspmv.h>
#include <petsc/private/matimpl.h>
#include "spmvformat.h"

PETSC_INTERN PetscLogEvent MAT_SpMV_CopyToGPU, MAT_SpMV_Build, MAT_SpMV_Refresh;

/* the sequential type, for its MPI twin (aijspmv.cu) */
const SpMVFormatInfo *SpMVFindFormat(const char *);
PetscBool             SpMVHaveGPU(void);
PetscErrorCode        MatSpMVSeqAttach(Mat, const SpMVFormatInfo *);
PetscErrorCode        MatSpMVSeqDetach(Mat);
PetscErrorCode        MatSpMVSeqSetup(Mat, const SpMVFormat *, PetscBool);
PetscErrorCode        MatSpMVSeqGetFormat(Mat, PetscBool, const SpMVFormatInfo **, SpMVFormat **);
PetscErrorCode        SpMVComposeConverters(Mat, const SpMVFormatInfo *, PetscBool);
PetscErrorCode        SpMVSetFromOptions(Mat, const char *, const SpMVFormatInfo *, SpMVFormat *, PetscBool *);
