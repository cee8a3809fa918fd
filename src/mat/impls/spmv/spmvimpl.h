/* Private declarations shared by the generic type, the formats and the registration. */
#pragma once
#include <petscspmv.h>
#include <petsc/private/matimpl.h>
#include "spmvformat.h"

PETSC_INTERN PetscLogEvent MAT_SpMV_CopyToGPU, MAT_SpMV_Build, MAT_SpMV_Refresh;
