/* Private declarations of the polynomial preconditioner PCPOLY, for its registration in src/sys/spmvregister.cu */
#pragma once
#include <petscpc.h>

PETSC_INTERN PetscLogEvent  PC_Poly_SetUp;
PETSC_INTERN PetscLogEvent  PC_Poly_Fused; /* the fused vector updates of a smoothing step and of the fp32 residual */
PETSC_INTERN PetscErrorCode PCCreate_Poly(PC);
PETSC_INTERN PetscErrorCode PCPolyInvertDiagonal(Vec, Vec, Vec, PetscInt *); /* polydevice.cu */
PETSC_INTERN PetscErrorCode PCPolyChebyshevStart(Vec, Vec, Vec, PetscReal, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode PCPolyChebyshevUpdate(Vec, Vec, Vec, Vec, PetscReal, PetscReal, PetscReal, Vec, Vec, Vec, PetscInt);
PETSC_INTERN PetscErrorCode PCPolyDiagonalAdd(Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode PCPolyResidualFinish(Vec, Vec, Vec);
