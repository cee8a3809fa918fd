/*
   petsc-spmv: GPU sparse matrix-vector product formats as PETSc matrix types derived from AIJ.

   Load into any PETSc program with -dll_append /path/to/libpetscspmv.so (or link the library and call
   PetscSpMVInitializePackage()), then choose a type with -mat_type <root> or -dm_mat_type <root>, or the
   polynomial preconditioner with -pc_type poly.
*/
#pragma once
#include <petscmat.h>
#include <petscpc.h>

/* MatType names: the root picks seqaij<fmt> on one rank (the MPI twin comes in its own issue) */
#define MATBRC       "brc"
#define MATSEQAIJBRC "seqaijbrc"
#define MATMPIAIJBRC "mpiaijbrc"
#define MATSURAA       "suraa"
#define MATSEQAIJSURAA "seqaijsuraa"
#define MATMPIAIJSURAA "mpiaijsuraa"
#define MATCCOO       "ccoo"
#define MATSEQAIJCCOO "seqaijccoo"
#define MATMPIAIJCCOO "mpiaijccoo"

#define MATARGCSR       "argcsr"
#define MATSEQAIJARGCSR "seqaijargcsr"
#define MATMPIAIJARGCSR "mpiaijargcsr"

#define MATSEGSUM       "segsum"
#define MATSEQAIJSEGSUM "seqaijsegsum"
#define MATMPIAIJSEGSUM "mpiaijsegsum"

/* segsum with 16-bit column offsets per tile (issue #29): CSR order, fewer bytes a nonzero */
#define MATDCSR       "dcsr"
#define MATSEQAIJDCSR "seqaijdcsr"
#define MATMPIAIJDCSR "mpiaijdcsr"

/* The automatic type: chooses one of the formats above (or cuSPARSE's CSR product) per matrix, by row statistics
   and a few timed products at the first product of a new nonzero pattern (src/mat/impls/spmv/auto/auto.h) */
#define MATSPMV       "spmv"
#define MATSEQAIJSPMV "seqaijspmv"
#define MATMPIAIJSPMV "mpiaijspmv"

PETSC_EXTERN PetscErrorCode PetscSpMVInitializePackage(void);
PETSC_EXTERN PetscErrorCode MatSpMVVerify(Mat, PetscReal *);
PETSC_EXTERN PetscErrorCode MatSpMVGetFormat(Mat, const char *[]);
PETSC_EXTERN PetscErrorCode MatSpMVSingleSetUp(Mat, Vec, const char[], Mat *);
PETSC_EXTERN PetscErrorCode MatSpMVSingleGetFlushed(Mat, PetscCount *);
PETSC_EXTERN PetscErrorCode MatSpMVSingleMultDiagonalBlock(Mat, Vec, Vec);

/* PCType of the polynomial preconditioner p(A) ~ A^-1 (src/ksp/pc/impls/poly/poly.c) */
#define PCPOLY "poly"

/*E
  PCPolyType - the polynomial applied by `PCPOLY`

  Values:
+ `PC_POLY_CHEBYSHEV` - Chebyshev polynomial for a real interval [emin, emax] (given or estimated)
. `PC_POLY_NEUMANN`   - truncated, damped Neumann series omega sum_j (I - omega A)^j
- `PC_POLY_GMRES`     - the GMRES polynomial of a short Arnoldi run, in product form over its harmonic Ritz values

  Level: intermediate

.seealso: `PCPOLY`, `PCPolySetType()`
E*/
typedef enum {
  PC_POLY_CHEBYSHEV,
  PC_POLY_NEUMANN,
  PC_POLY_GMRES
} PCPolyType;
PETSC_EXTERN const char *const PCPolyTypes[];

PETSC_EXTERN PetscErrorCode PCPolySetType(PC, PCPolyType);
PETSC_EXTERN PetscErrorCode PCPolyGetType(PC, PCPolyType *);
PETSC_EXTERN PetscErrorCode PCPolySetDegree(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCPolyGetDegree(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCPolySetEigenvalues(PC, PetscReal, PetscReal);
PETSC_EXTERN PetscErrorCode PCPolyGetEigenvalues(PC, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode PCPolySetDamping(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCPolyGetDamping(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCPolySetJacobi(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCPolyGetJacobi(PC, PetscBool *);
PETSC_EXTERN PetscErrorCode PCPolyGetRoots(PC, PetscInt *, const PetscReal *[], const PetscReal *[]);

/*E
  PCPolyPrecision - the precision of the matrix values in the products of `PCPOLY`

  Values:
+ `PC_POLY_PRECISION_DOUBLE` - the operator itself (fp64 values)
- `PC_POLY_PRECISION_SINGLE` - a copy of the (Jacobi-scaled) operator with fp32 values, fp64 vectors and sums

  Level: intermediate

.seealso: `PCPOLY`, `PCPolySetPrecision()`
E*/
typedef enum {
  PC_POLY_PRECISION_DOUBLE,
  PC_POLY_PRECISION_SINGLE
} PCPolyPrecision;
PETSC_EXTERN const char *const PCPolyPrecisions[];
PETSC_EXTERN PetscErrorCode    PCPolySetPrecision(PC, PCPolyPrecision);
PETSC_EXTERN PetscErrorCode    PCPolyGetPrecision(PC, PCPolyPrecision *);
