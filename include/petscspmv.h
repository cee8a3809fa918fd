/*
   petsc-spmv: GPU sparse matrix-vector product formats as PETSc matrix types derived from AIJ.

   Load into any PETSc program with -dll_append /path/to/libpetscspmv.so (or link the library and call
   PetscSpMVInitializePackage()), then choose a type with -mat_type <root> or -dm_mat_type <root>.
*/
#pragma once
#include <petscmat.h>

/* MatType names: the root picks seqaij<fmt> on one rank (the MPI twin comes in its own issue) */
#define MATBRC       "brc"
#define MATSEQAIJBRC "seqaijbrc"
#define MATMPIAIJBRC "mpiaijbrc"
#define MATSEGSUM       "segsum"
#define MATSEQAIJSEGSUM "seqaijsegsum"
#define MATMPIAIJSEGSUM "mpiaijsegsum"

PETSC_EXTERN PetscErrorCode PetscSpMVInitializePackage(void);
PETSC_EXTERN PetscErrorCode MatSpMVVerify(Mat, PetscReal *);
