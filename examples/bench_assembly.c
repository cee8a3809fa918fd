static const char help[] = "Assembly benchmark: the cost of filling and re-filling a matrix through each PETSc assembly API, and of the\n"
                           "other inherited matrix operations, for aijcusparse (aij without a GPU) and the plugin types.\n\n"
                           "Operator: the 2D 5-point operator on an n x n grid (n^2 rows, about 5 n^2 nonzeros; -n). Per type and API:\n"
                           "  fill_s    the values set into a freshly preallocated matrix + MatAssemblyBegin/End (COO: MatSetPreallocationCOO +\n"
                           "            MatSetValuesCOO), device synchronized, wall time over all ranks (barrier after)\n"
                           "  refill_s  new values set (INSERT_VALUES) into the assembled matrix + assembly, as in a Newton step (COO:\n"
                           "            MatSetValuesCOO again)\n"
                           "  calls     number of set-values calls (summed over ranks)\n"
                           "APIs: entry (MatSetValues, one entry a call), row (MatSetValues, one row a call), blocked (MatSetValuesBlocked,\n"
                           "one block row a call, bs = -bs, on the block 5-point operator of an n x (n/bs) node grid: about n^2 rows too),\n"
                           "stencil (DMDA 2D, DMCreateMatrix with the type, MatSetValuesStencil a row a call), local (MatSetValuesLocal\n"
                           "a row a call through a local-to-global map: owned rows, then the ghosts), coo (MatSetPreallocationCOO +\n"
                           "MatSetValuesCOO, host values). The values are computed inside the timed region for every API.\n"
                           "Other operations on the assembled matrix (row API; calls = operations timed, fill_s = their total):\n"
                           "  firstmult      the first MatMult after the fill (fill_s: upload + format build / spmv's selection) and after\n"
                           "                 the refill (refill_s: upload + the format's refresh)\n"
                           "  getrow         MatGetRow/MatRestoreRow over every owned row\n"
                           "  duplicate      MatDuplicate(MAT_COPY_VALUES) + MatDestroy, -reps times\n"
                           "  copy           MatCopy(SAME_NONZERO_PATTERN) into a duplicate, -reps times\n"
                           "  convert_to_aij MatConvert(A, aij, MAT_INITIAL_MATRIX) + MatDestroy, -reps times\n"
                           "  convert_from_aij  MatConvert(aij matrix, type, MAT_INITIAL_MATRIX) + MatDestroy, -reps times (the same AIJ\n"
                           "                 matrix, filled a row a call, for every type)\n"
                           "  getarray       MatSeqAIJGetArray/RestoreArray (the diagonal block on several ranks), 100 -reps times\n"
                           "  zeroentries    MatZeroEntries, -reps times\n"
                           "  create_destroy MatCreate + SetSizes + SetType + preallocation + empty assembly + MatDestroy of a 100-row\n"
                           "                 (per rank) matrix, 20 -reps times\n"
                           "Each fill and refill is checked: MatMult against the first type's (relative 1e-12, -tol); FAIL and a nonzero\n"
                           "exit code on a mismatch. Each type first runs the whole set once on a 16 x 16 grid, untimed (library handles, kernels).\n\n"
                           "  bench_assembly [-n 1500] [-types aijcusparse,spmv,brc,ccoo] [-tests entry,row,...] [-bs 2] [-reps 5]\n"
                           "                 [-tol 1e-12] [-csv file]   (CSV header: api,type,calls,fill_s,refill_s)\n\n";

#include <petscspmv.h>
#include <petscdmda.h>
#include <petscdevice_cuda.h>
#include "spmvexamples.h"

#define MAXTYPES 16
#define NAPI     6
#define NOPS     10

static const char *ApiNames[NAPI] = {"entry", "row", "blocked", "stencil", "local", "coo"};
static const char *OpNames[NOPS]  = {"firstmult", "getrow", "duplicate", "copy", "convert_to_aij", "convert_from_aij", "getarray", "zeroentries", "create_destroy", "dmcreate"};
static const char *PluginTypes[]  = {MATSPMV, MATBRC, MATSURAA, MATCCOO, MATARGCSR, MATSEGSUM};

typedef struct {
  MPI_Comm  comm;
  PetscInt  n, bs, reps;
  PetscBool gpu;
} Ctx;

typedef struct {
  char     api[32], type[64];
  PetscInt calls;
  double   fill, refill; /* seconds; refill < 0: none */
} Row;

static PetscBool IsPetscGPU(const char *t) { return (PetscBool)(strstr(t, "cusparse") || strstr(t, "cuda") || strstr(t, "hip") || strstr(t, "kokkos")); }

/* wall time of a region over all ranks: the device and the ranks are synchronized at both ends */
static PetscErrorCode Tic(Ctx *c, PetscLogDouble *t0)
{
  PetscFunctionBeginUser;
  if (c->gpu) PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallMPI(MPI_Barrier(c->comm));
  PetscCall(PetscTime(t0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode Toc(Ctx *c, PetscLogDouble t0, double *dt)
{
  PetscLogDouble t1;

  PetscFunctionBeginUser;
  if (c->gpu) PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallMPI(MPI_Barrier(c->comm));
  PetscCall(PetscTime(&t1));
  *dt = (double)(t1 - t0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values: deterministic in the (natural) row and column and the step (0: fill, 1: refill); dyadic, diagonally dominant */
static inline PetscScalar Val(PetscInt r, PetscInt c, PetscInt step)
{
  if (r == c) return 4.5 + (PetscScalar)(r % 5) / 8.0 + (PetscScalar)step;
  return -(1.0 + (PetscScalar)((7 * r + 3 * c) % 16) / 32.0) * (1.0 + 0.25 * (PetscScalar)step);
}
/* the block value (p, q) of block (a, b) of the block operator */
static inline PetscScalar BlockVal(PetscInt a, PetscInt b, PetscInt p, PetscInt q, PetscInt bs, PetscInt step)
{
  if (p == q) return Val(a * bs + p, b * bs + q, step) * (a == b ? 1.0 : 0.5);
  return (a == b ? 0.125 : 0.0625) * (1.0 + (PetscScalar)((p + 2 * q + a) % 4) / 4.0) * (1.0 + (PetscScalar)step);
}

/* the 5-point neighbours of grid point r = i + nx j (natural numbering), ascending */
static inline PetscInt Neighbours(PetscInt r, PetscInt nx, PetscInt ny, PetscInt cols[5])
{
  PetscInt i = r % nx, j = r / nx, k = 0;
  if (j > 0) cols[k++] = r - nx;
  if (i > 0) cols[k++] = r - 1;
  cols[k++] = r;
  if (i < nx - 1) cols[k++] = r + 1;
  if (j < ny - 1) cols[k++] = r + nx;
  return k;
}

/* the owned range of m rows split over the ranks as PETSc does */
static PetscErrorCode Ownership(MPI_Comm comm, PetscInt m, PetscInt *lo, PetscInt *hi)
{
  PetscInt nloc = PETSC_DECIDE, end;

  PetscFunctionBeginUser;
  PetscCall(PetscSplitOwnership(comm, &nloc, &m));
  PetscCallMPI(MPI_Scan(&nloc, &end, 1, MPIU_INT, MPI_SUM, comm));
  *lo = end - nloc;
  *hi = end;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an empty nx*ny*bs square matrix of the type, rows [lo, hi) (in nodes) here, preallocated for the 5-point (block) operator */
static PetscErrorCode CreatePrealloc(Ctx *c, const char *type, PetscInt nx, PetscInt ny, PetscInt bs, PetscInt lo, PetscInt hi, Mat *A)
{
  PetscInt nn = nx * ny, cols[5], *dnz, *onz;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(hi - lo, &dnz, hi - lo, &onz));
  for (PetscInt r = lo; r < hi; r++) {
    PetscInt k = Neighbours(r, nx, ny, cols);
    dnz[r - lo] = onz[r - lo] = 0;
    for (PetscInt q = 0; q < k; q++) {
      if (cols[q] >= lo && cols[q] < hi) dnz[r - lo]++;
      else onz[r - lo]++;
    }
  }
  PetscCall(MatCreate(c->comm, A));
  PetscCall(MatSetSizes(*A, bs * (hi - lo), bs * (hi - lo), bs * nn, bs * nn));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatXAIJSetPreallocation(*A, bs, dnz, onz, NULL, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscFree2(dnz, onz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the local-to-global map of the local API: the owned rows [lo, hi), then the ghost rows below, then above */
static PetscErrorCode LocalMap(Ctx *c, PetscInt lo, PetscInt hi, ISLocalToGlobalMapping *l2g, PetscInt *glo)
{
  PetscInt M = c->n * c->n, blo = PetscMax(0, lo - c->n), ahi = PetscMin(M, hi + c->n), nl = ahi - blo, *idx, k = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(nl, &idx));
  for (PetscInt g = lo; g < hi; g++) idx[k++] = g;
  for (PetscInt g = blo; g < lo; g++) idx[k++] = g;
  for (PetscInt g = hi; g < ahi; g++) idx[k++] = g;
  PetscCall(ISLocalToGlobalMappingCreate(c->comm, 1, nl, idx, PETSC_OWN_POINTER, l2g));
  *glo = blo;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static inline PetscInt ToLocal(PetscInt g, PetscInt lo, PetscInt hi, PetscInt blo)
{
  if (g >= lo && g < hi) return g - lo;
  if (g < lo) return (hi - lo) + (g - blo);
  return (hi - lo) + (lo - blo) + (g - hi);
}

typedef struct {
  /* coo */
  PetscCount   ncoo;
  PetscInt    *ci, *cj;
  PetscScalar *cv;
  /* local */
  PetscInt blo;
  /* stencil */
  DM da;
} ApiData;

/* fill (step 0) or refill (step 1) matrix A through one API; *calls: set-values calls on this rank */
static PetscErrorCode Fill(Ctx *c, int api, Mat A, ApiData *d, PetscInt step, PetscInt *calls)
{
  PetscInt    n = c->n, cols[5], lcols[5], k, lo, hi;
  PetscScalar v[5];

  PetscFunctionBeginUser;
  *calls = 0;
  if (api != 3 && api != 2) PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  switch (api) {
  case 0: /* entry */
    for (PetscInt r = lo; r < hi; r++) {
      k = Neighbours(r, n, n, cols);
      for (PetscInt q = 0; q < k; q++) {
        PetscScalar val = Val(r, cols[q], step);
        PetscCall(MatSetValues(A, 1, &r, 1, &cols[q], &val, INSERT_VALUES));
      }
      *calls += k;
    }
    break;
  case 1: /* row */
    for (PetscInt r = lo; r < hi; r++) {
      k = Neighbours(r, n, n, cols);
      for (PetscInt q = 0; q < k; q++) v[q] = Val(r, cols[q], step);
      PetscCall(MatSetValues(A, 1, &r, k, cols, v, INSERT_VALUES));
      (*calls)++;
    }
    break;
  case 2: { /* blocked: block rows, node grid n x ny */
    PetscInt    bs = c->bs, ny = PetscMax(1, n / bs), blo, bhi;
    PetscScalar vb[5 * 8 * 8];
    PetscCall(MatGetOwnershipRange(A, &blo, &bhi));
    for (PetscInt a = blo / bs; a < bhi / bs; a++) {
      k = Neighbours(a, n, ny, cols);
      for (PetscInt p = 0; p < bs; p++)
        for (PetscInt q = 0; q < k; q++)
          for (PetscInt s = 0; s < bs; s++) vb[p * k * bs + q * bs + s] = BlockVal(a, cols[q], p, s, bs, step);
      PetscCall(MatSetValuesBlocked(A, 1, &a, k, cols, vb, INSERT_VALUES));
      (*calls)++;
    }
  } break;
  case 3: { /* stencil */
    PetscInt   xs, ys, xm, ym;
    MatStencil row, sc[5];
    PetscCall(DMDAGetCorners(d->da, &xs, &ys, NULL, &xm, &ym, NULL));
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        PetscInt r = i + n * j;
        row.i = i;
        row.j = j;
        k     = Neighbours(r, n, n, cols);
        for (PetscInt q = 0; q < k; q++) {
          sc[q].i = cols[q] % n;
          sc[q].j = cols[q] / n;
          v[q]    = Val(r, cols[q], step);
        }
        PetscCall(MatSetValuesStencil(A, 1, &row, k, sc, v, INSERT_VALUES));
        (*calls)++;
      }
  } break;
  case 4: /* local */
    for (PetscInt r = lo; r < hi; r++) {
      PetscInt lr = r - lo;
      k           = Neighbours(r, n, n, cols);
      for (PetscInt q = 0; q < k; q++) {
        lcols[q] = ToLocal(cols[q], lo, hi, d->blo);
        v[q]     = Val(r, cols[q], step);
      }
      PetscCall(MatSetValuesLocal(A, 1, &lr, k, lcols, v, INSERT_VALUES));
      (*calls)++;
    }
    break;
  case 5: /* coo: the pattern (d->ci, d->cj) is set on the first fill */
    if (step == 0) PetscCall(MatSetPreallocationCOO(A, d->ncoo, d->ci, d->cj));
    for (PetscCount e = 0; e < d->ncoo; e++) d->cv[e] = Val(d->ci[e], d->cj[e], step);
    PetscCall(MatSetValuesCOO(A, d->cv, INSERT_VALUES));
    *calls = 1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an empty matrix for one API (preallocated, DMDA's, or bare for COO) */
static PetscErrorCode CreateFor(Ctx *c, int api, const char *type, ApiData *d, Mat *A)
{
  PetscInt n = c->n, lo, hi;

  PetscFunctionBeginUser;
  d->da = NULL;
  if (api == 2) {
    PetscInt ny = PetscMax(1, n / c->bs);
    PetscCall(Ownership(c->comm, n * ny, &lo, &hi));
    PetscCall(CreatePrealloc(c, type, n, ny, c->bs, lo, hi, A));
  } else if (api == 3) {
    PetscCall(DMDACreate2d(c->comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &d->da));
    PetscCall(DMSetUp(d->da));
    PetscCall(DMSetMatType(d->da, type));
    PetscCall(DMCreateMatrix(d->da, A));
    PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  } else if (api == 5) {
    PetscCall(Ownership(c->comm, n * n, &lo, &hi));
    PetscCall(MatCreate(c->comm, A));
    PetscCall(MatSetSizes(*A, hi - lo, hi - lo, n * n, n * n));
    PetscCall(MatSetType(*A, type));
    if (!d->ci) {
      PetscInt cols[5], k;
      PetscCount e = 0;
      d->ncoo      = 0;
      for (PetscInt r = lo; r < hi; r++) d->ncoo += Neighbours(r, n, n, cols);
      PetscCall(PetscMalloc3(d->ncoo, &d->ci, d->ncoo, &d->cj, d->ncoo, &d->cv));
      for (PetscInt r = lo; r < hi; r++) {
        k = Neighbours(r, n, n, cols);
        for (PetscInt q = 0; q < k; q++, e++) {
          d->ci[e] = r;
          d->cj[e] = cols[q];
        }
      }
    }
  } else {
    PetscCall(Ownership(c->comm, n * n, &lo, &hi));
    PetscCall(CreatePrealloc(c, type, n, n, 1, lo, hi, A));
    if (api == 4) {
      ISLocalToGlobalMapping l2g;
      PetscCall(LocalMap(c, lo, hi, &l2g, &d->blo));
      PetscCall(MatSetLocalToGlobalMapping(*A, l2g, l2g));
      PetscCall(ISLocalToGlobalMappingDestroy(&l2g));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x, x_g = 1 + (g mod 17) / 16 in A's global numbering; *y is a standard (host) vector */
static PetscErrorCode Product(Mat A, Vec *y)
{
  Vec          x, yA;
  PetscInt     lo, hi;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &x, &yA));
  PetscCall(VecGetOwnershipRange(x, &lo, &hi));
  PetscCall(VecGetArrayWrite(x, &a));
  for (PetscInt g = lo; g < hi; g++) a[g - lo] = 1.0 + (PetscScalar)(g % 17) / 16.0;
  PetscCall(VecRestoreArrayWrite(x, &a));
  PetscCall(MatMult(A, x, yA));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)A), y));
  PetscCall(VecSetSizes(*y, hi - lo, PETSC_DECIDE));
  PetscCall(VecSetType(*y, VECSTANDARD));
  PetscCall(VecCopy(yA, *y));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&yA));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* compare A x with the reference (the first type's; set here when *ref is NULL) */
static PetscErrorCode Check(Ctx *c, Mat A, Vec *ref, const char *what, const char *type, PetscReal tol, PetscInt *nfail)
{
  Vec       y;
  PetscReal e;

  PetscFunctionBeginUser;
  PetscCall(Product(A, &y));
  if (!*ref) {
    *ref = y;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SpMVRelErr(y, *ref, &e));
  PetscCall(VecDestroy(&y));
  if (!(e <= tol)) {
    PetscCall(PetscPrintf(c->comm, "FAIL %s %s: ||A x - A_ref x|| / ||A_ref x|| = %g > %g\n", what, type, (double)e, (double)tol));
    (*nfail)++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the sequential AIJ matrix holding this rank's values (the diagonal block on several ranks) */
static PetscErrorCode LocalSeq(Mat A, Mat *Ad)
{
  PetscMPIInt size;
  Mat         Ao;
  const PetscInt *garray;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1) *Ad = A;
  else PetscCall(MatMPIAIJGetSeqAIJ(A, Ad, &Ao, &garray));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the other operations on the assembled matrix A (row API) of the type */
/* out of line, as Fill, so that callgrind's --toggle-collect=Ops counts the operations alone (session 32) */
static __attribute__((noinline)) PetscErrorCode Ops(Ctx *c, Mat A, const char *type, PetscBool *want, Row *rows, PetscInt *nrows)
{
  PetscLogDouble t0;
  PetscInt       reps = c->reps, lo, hi, calls;
  Mat            B;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
#define ADD(name, ncalls, tf, tr) \
  do { \
    Row *r_ = &rows[(*nrows)++]; \
    PetscCall(PetscStrncpy(r_->api, name, sizeof(r_->api))); \
    PetscCall(PetscStrncpy(r_->type, type, sizeof(r_->type))); \
    r_->calls  = ncalls; \
    r_->fill   = tf; \
    r_->refill = tr; \
  } while (0)
  if (want[1]) { /* getrow */
    double          dt;
    PetscInt        nc, tot = 0;
    const PetscInt *cols;
    const PetscScalar *vals;
    PetscCall(Tic(c, &t0));
    for (PetscInt r = lo; r < hi; r++) {
      PetscCall(MatGetRow(A, r, &nc, &cols, &vals));
      tot += nc;
      PetscCall(MatRestoreRow(A, r, &nc, &cols, &vals));
    }
    PetscCall(Toc(c, t0, &dt));
    calls = hi - lo;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &calls, 1, MPIU_INT, MPI_SUM, c->comm));
    PetscCheck(tot > 0 || hi == lo, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetRow returned no entries");
    ADD("getrow", calls, dt, -1.0);
  }
  if (want[2]) { /* duplicate */
    double dt;
    PetscCall(Tic(c, &t0));
    for (PetscInt k = 0; k < reps; k++) {
      PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
      PetscCall(MatDestroy(&B));
    }
    PetscCall(Toc(c, t0, &dt));
    ADD("duplicate", reps, dt, -1.0);
  }
  if (want[3]) { /* copy */
    double dt;
    PetscCall(MatDuplicate(A, MAT_DO_NOT_COPY_VALUES, &B));
    PetscCall(Tic(c, &t0));
    for (PetscInt k = 0; k < reps; k++) PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscCall(Toc(c, t0, &dt));
    PetscCall(MatDestroy(&B));
    ADD("copy", reps, dt, -1.0);
  }
  if (want[4] || want[5]) { /* convert_to_aij, convert_from_aij */
    double dt;
    Mat    Aaij;
    PetscCall(Tic(c, &t0));
    for (PetscInt k = 0; k < reps; k++) {
      PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
      PetscCall(MatDestroy(&B));
    }
    PetscCall(Toc(c, t0, &dt));
    if (want[4]) ADD("convert_to_aij", reps, dt, -1.0);
    if (want[5]) {
      /* the source: the same AIJ matrix for every type (the row API's fill), not A converted to AIJ, which each type
         converts its own way (a plugin type on a GPU into an exactly preallocated matrix, aijcusparse by PETSc's basic
         converter): the conversions to compare must start from one matrix */
      ApiData  d;
      PetscInt calls;
      PetscCall(PetscMemzero(&d, sizeof(d)));
      PetscCall(CreateFor(c, 1, MATAIJ, &d, &Aaij));
      PetscCall(Fill(c, 1, Aaij, &d, 0, &calls));
      PetscCall(Tic(c, &t0));
      for (PetscInt k = 0; k < reps; k++) {
        PetscCall(MatConvert(Aaij, type, MAT_INITIAL_MATRIX, &B));
        PetscCall(MatDestroy(&B));
      }
      PetscCall(Toc(c, t0, &dt));
      ADD("convert_from_aij", reps, dt, -1.0);
      PetscCall(MatDestroy(&Aaij));
    }
  }
  if (want[6]) { /* getarray */
    double       dt;
    Mat          Ad;
    PetscScalar *a;
    PetscCall(LocalSeq(A, &Ad));
    PetscCall(Tic(c, &t0));
    for (PetscInt k = 0; k < 100 * reps; k++) {
      PetscCall(MatSeqAIJGetArray(Ad, &a));
      PetscCall(MatSeqAIJRestoreArray(Ad, &a));
    }
    PetscCall(Toc(c, t0, &dt));
    ADD("getarray", 100 * reps, dt, -1.0);
  }
  if (want[7]) { /* zeroentries (the last one: A's values are gone) */
    double dt;
    PetscCall(Tic(c, &t0));
    for (PetscInt k = 0; k < reps; k++) PetscCall(MatZeroEntries(A));
    PetscCall(Toc(c, t0, &dt));
    ADD("zeroentries", reps, dt, -1.0);
  }
  if (want[8]) { /* create_destroy: a small matrix */
    double   dt;
    PetscInt m = 100;
    PetscCall(Tic(c, &t0));
    for (PetscInt k = 0; k < 20 * reps; k++) {
      PetscCall(MatCreate(c->comm, &B));
      PetscCall(MatSetSizes(B, m, m, PETSC_DETERMINE, PETSC_DETERMINE));
      PetscCall(MatSetType(B, type));
      PetscCall(MatSeqAIJSetPreallocation(B, 5, NULL));
      PetscCall(MatMPIAIJSetPreallocation(B, 5, NULL, 2, NULL));
      PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
      PetscCall(MatDestroy(&B));
    }
    PetscCall(Toc(c, t0, &dt));
    ADD("create_destroy", 20 * reps, dt, -1.0);
  }
  if (want[9]) { /* dmcreate: DMCreateMatrix of a 3D DMDA with about as many rows as the 2D grid */
    double   dt, dd;
    PetscInt m = PetscMax(2, (PetscInt)(PetscPowReal((PetscReal)c->n, 2.0 / 3.0) + 0.5));
    DM       da;
    PetscCall(DMDACreate3d(c->comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, m, m, m, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
    PetscCall(DMSetUp(da));
    PetscCall(DMSetMatType(da, type));
    PetscCall(Tic(c, &t0));
    PetscCall(DMCreateMatrix(da, &B));
    PetscCall(Toc(c, t0, &dt));
    PetscCall(Tic(c, &t0));
    PetscCall(MatDestroy(&B));
    PetscCall(Toc(c, t0, &dd));
    PetscCall(DMDestroy(&da));
    ADD("dmcreate", 1, dt, dd);
  }
#undef ADD
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the whole set for one type; rows appended; refs[2 * api + step] are the reference products */
static PetscErrorCode RunType(Ctx *c, const char *type, PetscBool *wantapi, PetscBool *wantop, Vec *refs, PetscReal tol, Row *rows, PetscInt *nrows, PetscInt *nfail)
{
  ApiData d;
  PetscBool anyop = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&d, sizeof(d)));
  for (int o = 0; o < NOPS; o++) anyop = (PetscBool)(anyop || wantop[o]);
  for (int api = 0; api < NAPI; api++) {
    Mat            A;
    PetscLogDouble t0;
    double         tf, tr, tm0 = -1, tm1 = -1;
    PetscInt       calls0, calls1;
    Row           *r;

    if (!wantapi[api] && !(api == 1 && anyop)) continue;
    PetscCall(CreateFor(c, api, type, &d, &A));
    PetscCall(Tic(c, &t0));
    PetscCall(Fill(c, api, A, &d, 0, &calls0));
    PetscCall(Toc(c, t0, &tf));
    if (api == 1 && wantop[0]) { /* firstmult: the first product after the fill */
      Vec x, y;
      PetscCall(MatCreateVecs(A, &x, &y));
      PetscCall(VecSet(x, 1.0));
      PetscCall(Tic(c, &t0));
      PetscCall(MatMult(A, x, y));
      PetscCall(Toc(c, t0, &tm0));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
    }
    PetscCall(Check(c, A, &refs[2 * api], ApiNames[api], type, tol, nfail));
    PetscCall(Tic(c, &t0));
    PetscCall(Fill(c, api, A, &d, 1, &calls1));
    PetscCall(Toc(c, t0, &tr));
    if (api == 1 && wantop[0]) { /* firstmult: after the refill */
      Vec x, y;
      PetscCall(MatCreateVecs(A, &x, &y));
      PetscCall(VecSet(x, 1.0));
      PetscCall(Tic(c, &t0));
      PetscCall(MatMult(A, x, y));
      PetscCall(Toc(c, t0, &tm1));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
    }
    PetscCall(Check(c, A, &refs[2 * api + 1], ApiNames[api], type, tol, nfail));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &calls0, 1, MPIU_INT, MPI_SUM, c->comm));
    if (wantapi[api]) {
      r = &rows[(*nrows)++];
      PetscCall(PetscStrncpy(r->api, ApiNames[api], sizeof(r->api)));
      PetscCall(PetscStrncpy(r->type, type, sizeof(r->type)));
      r->calls  = calls0;
      r->fill   = tf;
      r->refill = tr;
    }
    if (api == 1 && anyop) {
      if (wantop[0]) {
        r = &rows[(*nrows)++];
        PetscCall(PetscStrncpy(r->api, "firstmult", sizeof(r->api)));
        PetscCall(PetscStrncpy(r->type, type, sizeof(r->type)));
        r->calls  = 1;
        r->fill   = tm0;
        r->refill = tm1;
      }
      PetscCall(Ops(c, A, type, wantop, rows, nrows));
    }
    PetscCall(MatDestroy(&A));
    PetscCall(DMDestroy(&d.da));
  }
  PetscCall(PetscFree3(d.ci, d.cj, d.cv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        typestr[1024] = "", tests[1024] = "", csvname[PETSC_MAX_PATH_LEN] = "", **typelist, **testlist, types[MAXTYPES][64];
  int         ntype = 0, ntest = 0;
  PetscBool   typesset, testsset, wantapi[NAPI], wantop[NOPS];
  PetscReal   tol = 1e-12;
  PetscInt    nrows = 0, nfail = 0, rounds = 3;
  Row        *rows;
  Vec         refs[2 * NAPI];
  Ctx         c;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  c.comm = PETSC_COMM_WORLD;
  c.n    = 1500;
  c.bs   = 2;
  c.reps = 5;
  c.gpu  = SpMVHaveDevice();
  PetscCallMPI(MPI_Comm_size(c.comm, &size));
  PetscOptionsBegin(c.comm, NULL, "Assembly benchmark options", NULL);
  PetscCall(PetscOptionsInt("-n", "Grid points a side (n^2 rows)", NULL, c.n, &c.n, NULL));
  PetscCall(PetscOptionsString("-types", "Matrix types, ',' separated (default: aijcusparse, aij without a GPU, then the plugin types)", NULL, typestr, typestr, sizeof(typestr), &typesset));
  PetscCall(PetscOptionsString("-tests", "APIs and operations, ',' separated (default: all): entry,row,blocked,stencil,local,coo,firstmult,getrow,duplicate,copy,convert_to_aij,convert_from_aij,getarray,zeroentries,create_destroy,dmcreate", NULL, tests, tests, sizeof(tests), &testsset));
  PetscCall(PetscOptionsInt("-bs", "Block size of the blocked API (1..8)", NULL, c.bs, &c.bs, NULL));
  PetscCall(PetscOptionsInt("-reps", "Repetitions of the operations (getarray: 100x, create_destroy: 20x)", NULL, c.reps, &c.reps, NULL));
  PetscCall(PetscOptionsInt("-rounds", "Rounds over all types (interleaved, so that no type is always measured first); the minimum time of each is kept", NULL, rounds, &rounds, NULL));
  PetscCall(PetscOptionsReal("-tol", "Largest relative difference of A x to the first type's", NULL, tol, &tol, NULL));
  PetscCall(PetscOptionsBool("-gpu", "Synchronize the GPU around the timed regions (default: when a GPU is found)", NULL, c.gpu, &c.gpu, NULL));
  PetscCall(PetscOptionsString("-csv", "Write the results to this CSV file (api,type,calls,fill_s,refill_s)", NULL, csvname, csvname, sizeof(csvname), NULL));
  PetscOptionsEnd();
  PetscCheck(c.n >= 2 && c.bs >= 1 && c.bs <= 8 && c.reps >= 1 && rounds >= 1, c.comm, PETSC_ERR_ARG_OUTOFRANGE, "-n >= 2, -bs in 1..8, -reps >= 1, -rounds >= 1");

  /* the types: a PETSc GPU type without a GPU becomes aij (the host baseline) */
  if (!typesset || !typestr[0]) {
    PetscCall(PetscStrncpy(typestr, c.gpu ? MATAIJCUSPARSE : MATAIJ, sizeof(typestr)));
    for (size_t i = 0; i < sizeof(PluginTypes) / sizeof(PluginTypes[0]); i++) {
      PetscCall(PetscStrlcat(typestr, ",", sizeof(typestr)));
      PetscCall(PetscStrlcat(typestr, PluginTypes[i], sizeof(typestr)));
    }
  }
  PetscCall(PetscStrToArray(typestr, ',', &ntype, &typelist));
  PetscCheck(ntype >= 1 && ntype <= MAXTYPES, c.comm, PETSC_ERR_ARG_OUTOFRANGE, "1 to %d types", MAXTYPES);
  for (int t = 0; t < ntype; t++) {
    if (!c.gpu && IsPetscGPU(typelist[t])) {
      PetscCall(PetscPrintf(c.comm, "no GPU: %s replaced by %s\n", typelist[t], MATAIJ));
      PetscCall(PetscStrncpy(types[t], MATAIJ, sizeof(types[t])));
    } else PetscCall(PetscStrncpy(types[t], typelist[t], sizeof(types[t])));
  }
  PetscCall(PetscStrToArrayDestroy(ntype, typelist));
  for (int a = 0; a < NAPI; a++) wantapi[a] = (PetscBool)!testsset;
  for (int o = 0; o < NOPS; o++) wantop[o] = (PetscBool)!testsset;
  if (testsset) {
    PetscCall(PetscStrToArray(tests, ',', &ntest, &testlist));
    for (int k = 0; k < ntest; k++) {
      PetscBool found = PETSC_FALSE, eq;
      for (int a = 0; a < NAPI; a++) {
        PetscCall(PetscStrcmp(testlist[k], ApiNames[a], &eq));
        if (eq) wantapi[a] = found = PETSC_TRUE;
      }
      for (int o = 0; o < NOPS; o++) {
        PetscCall(PetscStrcmp(testlist[k], OpNames[o], &eq));
        if (eq) wantop[o] = found = PETSC_TRUE;
      }
      PetscCheck(found, c.comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "-tests: unknown %s", testlist[k]);
    }
    PetscCall(PetscStrToArrayDestroy(ntest, testlist));
  }

  PetscCall(PetscPrintf(c.comm, "bench_assembly: %" PetscInt_FMT " x %" PetscInt_FMT " grid (%" PetscInt_FMT " rows), %d rank(s), %s, blocked bs %" PetscInt_FMT ", reps %" PetscInt_FMT ", the shortest of %" PetscInt_FMT " interleaved rounds\n", c.n, c.n, c.n * c.n, size, c.gpu ? "GPU synchronized" : "no GPU (host)", c.bs, c.reps, rounds));
  PetscCall(PetscMalloc1(rounds * ntype * (NAPI + NOPS), &rows));
  for (int k = 0; k < 2 * NAPI; k++) refs[k] = NULL;

  /* each type once on a small grid, everything measured below, untimed: library handles, kernel loading (CUDA loads a
     kernel at its first launch in a process, e.g. the COO kernels, which every type shares), first-use costs */
  if (c.gpu) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  {
    Ctx      cs = c;
    Vec      srefs[2 * NAPI];
    Row      srows[NAPI + NOPS];
    PetscInt sn = 0, sfail = 0;
    cs.n    = 16;
    cs.reps = 1;
    for (int k = 0; k < 2 * NAPI; k++) srefs[k] = NULL;
    for (int t = 0; t < ntype; t++) {
      sn = 0;
      PetscCall(RunType(&cs, types[t], wantapi, wantop, srefs, tol, srows, &sn, &sfail));
    }
    for (int k = 0; k < 2 * NAPI; k++) PetscCall(VecDestroy(&srefs[k]));
    PetscCheck(sfail == 0, c.comm, PETSC_ERR_PLIB, "FAIL: the warm-up products differ between the types");
  }

  /* the rounds: every type in turn, again and again, each round in another order; each (api, type) keeps its shortest time (the work is the same
     every round: what varies is what else the machine does, and the first type of a process pays for warming it) */
  for (PetscInt r = 0; r < rounds; r++) /* round r starts with type r: no type always follows the same one */
    for (int t = 0; t < ntype; t++) PetscCall(RunType(&c, types[(t + r) % ntype], wantapi, wantop, refs, tol, rows, &nrows, &nfail));
  {
    PetscInt nkeep = 0;
    for (PetscInt k = 0; k < nrows; k++) {
      PetscBool a, b, merged = PETSC_FALSE;
      for (PetscInt q = 0; q < nkeep && !merged; q++) {
        PetscCall(PetscStrcmp(rows[q].api, rows[k].api, &a));
        PetscCall(PetscStrcmp(rows[q].type, rows[k].type, &b));
        if (a && b) {
          rows[q].fill = PetscMin(rows[q].fill, rows[k].fill);
          if (rows[q].refill >= 0) rows[q].refill = PetscMin(rows[q].refill, rows[k].refill);
          merged = PETSC_TRUE;
        }
      }
      if (!merged) rows[nkeep++] = rows[k];
    }
    nrows = nkeep;
  }

  /* the table, by API; ratio: this type's time over the first type's */
  PetscCall(PetscPrintf(c.comm, "%-17s %-12s %12s %12s %12s %9s %9s\n", "api", "type", "calls", "fill_s", "refill_s", "fill/1st", "refill/1st"));
  for (int g = 0; g < NAPI + NOPS; g++) {
    const char *name = g < NAPI ? ApiNames[g] : OpNames[g - NAPI];
    const Row  *first = NULL;
    PetscBool   eq;
    for (PetscInt k = 0; k < nrows; k++) {
      const Row *r = &rows[k];
      char       rf[32] = "", rr[32] = "", srf[32] = "-";
      PetscCall(PetscStrcmp(r->api, name, &eq));
      if (!eq) continue;
      if (!first) first = r;
      if (first->fill > 0) PetscCall(PetscSNPrintf(rf, sizeof(rf), "%.3f", r->fill / first->fill));
      if (r->refill >= 0 && first->refill > 0) PetscCall(PetscSNPrintf(rr, sizeof(rr), "%.3f", r->refill / first->refill));
      if (r->refill >= 0) PetscCall(PetscSNPrintf(srf, sizeof(srf), "%.6f", r->refill));
      PetscCall(PetscPrintf(c.comm, "%-17s %-12s %12" PetscInt_FMT " %12.6f %12s %9s %9s\n", r->api, r->type, r->calls, r->fill, srf, rf, rr));
    }
  }
  if (csvname[0]) {
    FILE *f;
    PetscCall(PetscFOpen(c.comm, csvname, "w", &f));
    PetscCall(PetscFPrintf(c.comm, f, "api,type,calls,fill_s,refill_s\n"));
    for (int g = 0; g < NAPI + NOPS; g++) {
      const char *name = g < NAPI ? ApiNames[g] : OpNames[g - NAPI];
      PetscBool   eq;
      for (PetscInt k = 0; k < nrows; k++) {
        const Row *r = &rows[k];
        PetscCall(PetscStrcmp(r->api, name, &eq));
        if (!eq) continue;
        if (r->refill >= 0) PetscCall(PetscFPrintf(c.comm, f, "%s,%s,%" PetscInt_FMT ",%.6e,%.6e\n", r->api, r->type, r->calls, r->fill, r->refill));
        else PetscCall(PetscFPrintf(c.comm, f, "%s,%s,%" PetscInt_FMT ",%.6e,\n", r->api, r->type, r->calls, r->fill));
      }
    }
    PetscCall(PetscFClose(c.comm, f));
    PetscCall(PetscPrintf(c.comm, "results: %s\n", csvname));
  }
  for (int k = 0; k < 2 * NAPI; k++) PetscCall(VecDestroy(&refs[k]));
  PetscCall(PetscFree(rows));
  if (nfail) PetscCall(PetscPrintf(c.comm, "FAIL: %" PetscInt_FMT " product(s) differ from the first type's\n", nfail));
  else PetscCall(PetscPrintf(c.comm, "all products agree with the first type's (relative %g)\n", (double)tol));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
