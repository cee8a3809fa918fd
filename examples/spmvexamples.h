/*
   Matrices for the examples, tests and benchmark: Matrix Market files (optionally scaled by kron(I_k, A))
   and generators. Every rank builds only its own rows, so these work on any communicator.

   Specifications (SpMVCreateMatrix):
     path/to/file.mtx[:k]                      Matrix Market file, k block-diagonal copies (kron(I_k, A))
     stencil7:n=N  stencil27:n=N               3D Laplacian-like stencils on an N^3 grid
     rmat:scale=S,ef=E,seed=R                  R-MAT power-law graph (a,b,c = .57,.19,.19), 2^S rows
     denserows:m=M,k=K,len=L,dense=D,seed=R    M rows of about K nonzeros, D rows of L nonzeros
     banded:m=M,bw=W                           band of half-width W
     random:m=M,n=N,k=K,empty=P,seed=R         about K nonzeros a row, a fraction P of empty rows
   Values are pseudo-random (never all ones), the diagonal made dominant where the matrix is square, so
   the matrices are also fit for solves. Any generator takes const=1 for constant coefficients instead:
   -1 off the diagonal and, on it, 6 (stencil7), 26 (stencil27), or the row's off-diagonal count + 1
   (the others: a graph Laplacian plus the identity), e.g. stencil7:n=100,const=1.
*/
#pragma once
#include <petscmat.h>
#include <stdint.h>
#include <cuda_runtime.h>

/* Is there a GPU this process can use? (no driver or no device: host types) */
static inline PetscBool SpMVHaveDevice(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    n = 0;
  }
  return n > 0 ? PETSC_TRUE : PETSC_FALSE;
}

/* The values of a into b: vectors of one layout, of any kinds (host, CUDA), through their host arrays (VecCopy
   between a host and a CUDA vector is not defined) */
static inline PetscErrorCode SpMVCopyValues(Vec a, Vec b)
{
  const PetscScalar *va;
  PetscScalar       *vb;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &va));
  PetscCall(VecGetArrayWrite(b, &vb));
  PetscCall(PetscArraycpy(vb, va, n));
  PetscCall(VecRestoreArrayWrite(b, &vb));
  PetscCall(VecRestoreArrayRead(a, &va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* splitmix64: a reproducible random stream per (seed, row) */
static inline uint64_t SpMVRand(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z          = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z          = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static inline double SpMVRandUnit(uint64_t *s) { return (double)(SpMVRand(s) >> 11) * (1.0 / 9007199254740992.0); }

static int SpMVCmpInt(const void *a, const void *b)
{
  PetscInt x = *(const PetscInt *)a, y = *(const PetscInt *)b;
  return (x > y) - (x < y);
}

/* Sort and merge one row's columns, give values; diagonal dominance when the row has its diagonal */
static PetscErrorCode SpMVFinishRow(PetscInt row, PetscInt *cols, PetscScalar *vals, PetscInt *n, uint64_t seed)
{
  PetscInt k = 0;
  uint64_t s = seed * 1000003ULL + (uint64_t)row;
  double   off = 0;

  PetscFunctionBegin;
  qsort(cols, (size_t)*n, sizeof(PetscInt), SpMVCmpInt);
  for (PetscInt i = 0; i < *n; i++)
    if (k == 0 || cols[k - 1] != cols[i]) cols[k++] = cols[i];
  *n = k;
  for (PetscInt i = 0; i < k; i++) {
    vals[i] = cols[i] == row ? 0.0 : -(0.1 + SpMVRandUnit(&s));
    off += PetscAbsScalar(vals[i]);
  }
  for (PetscInt i = 0; i < k; i++)
    if (cols[i] == row) vals[i] = 1.0 + off;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Complex scalars: the generated and loaded matrices get complex values, |value| kept (so diagonal dominance too):
   -spmv_phases random (default): each entry times e^{i theta}, theta a hash of (row, column): a non-Hermitian matrix
                value: theta a hash of the value, so equal values stay equal (value-table formats, const=1 matrices)
                none: the real values
   Real scalars: nothing. */
static void SpMVPhaseRow(PetscInt row, const PetscInt *cols, PetscScalar *vals, PetscInt n)
{
#if PetscDefined(USE_COMPLEX)
  static int mode = -1; /* 0 none, 1 random, 2 value */
  if (mode < 0) {
    char m[16] = "random";
    (void)PetscOptionsGetString(NULL, NULL, "-spmv_phases", m, sizeof(m), NULL);
    mode = !strcmp(m, "none") ? 0 : !strcmp(m, "value") ? 2 : 1;
  }
  for (PetscInt i = 0; i < n && mode; i++) {
    uint64_t s;
    if (mode == 2) {
      double re = PetscRealPart(vals[i]);
      memcpy(&s, &re, sizeof(s));
    } else s = (uint64_t)row * 0x9e3779b97f4a7c15ULL + (uint64_t)cols[i];
    const double theta = 2.0 * PETSC_PI * SpMVRandUnit(&s);
    vals[i] *= PetscCMPLX(PetscCosReal(theta), PetscSinReal(theta));
  }
#else
  (void)row, (void)cols, (void)vals, (void)n;
#endif
}

static PetscErrorCode SpMVGetParam(const char *spec, const char *key, PetscInt *v)
{
  char        pat[64];
  const char *p;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(pat, sizeof(pat), "%s=", key));
  PetscCall(PetscStrstr(spec, pat, (char **)&p));
  if (p && (p == spec || p[-1] == ',' || p[-1] == ':')) {
    long long x = atoll(p + strlen(pat));
    *v          = (PetscInt)x;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode SpMVGetParamReal(const char *spec, const char *key, PetscReal *v)
{
  char        pat[64];
  const char *p;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(pat, sizeof(pat), "%s=", key));
  PetscCall(PetscStrstr(spec, pat, (char **)&p));
  if (p && (p == spec || p[-1] == ',' || p[-1] == ':')) *v = (PetscReal)atof(p + strlen(pat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  char     kind[32];
  PetscInt n, m, ncols, k, scale, ef, len, dense, bw;
  PetscReal empty;
  PetscInt seed;
  PetscInt cst; /* const=1: constant coefficients */
} SpMVGen;

/* Columns of generated row 'row' (nc of them at most 'cap'); returns the row's count in *nc */
static PetscErrorCode SpMVGenRow(const SpMVGen *g, PetscInt row, PetscInt *cols, PetscInt cap, PetscInt *nc)
{
  uint64_t s = (uint64_t)g->seed * 7919ULL + (uint64_t)row * 104729ULL;
  PetscInt c = 0;
  PetscBool is7, is27, isrmat, isdense, isband, israndom;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(g->kind, "stencil7", &is7));
  PetscCall(PetscStrcmp(g->kind, "stencil27", &is27));
  PetscCall(PetscStrcmp(g->kind, "rmat", &isrmat));
  PetscCall(PetscStrcmp(g->kind, "denserows", &isdense));
  PetscCall(PetscStrcmp(g->kind, "banded", &isband));
  PetscCall(PetscStrcmp(g->kind, "random", &israndom));
  if (is7 || is27) {
    const PetscInt N = g->n, x = row % N, y = (row / N) % N, z = row / (N * N);
    for (PetscInt dz = -1; dz <= 1; dz++)
      for (PetscInt dy = -1; dy <= 1; dy++)
        for (PetscInt dx = -1; dx <= 1; dx++) {
          if (is7 && PetscAbsInt(dx) + PetscAbsInt(dy) + PetscAbsInt(dz) > 1) continue;
          if (x + dx < 0 || x + dx >= N || y + dy < 0 || y + dy >= N || z + dz < 0 || z + dz >= N) continue;
          cols[c++] = row + dx + dy * N + dz * N * N;
        }
  } else if (isrmat) { /* edges of this row drawn from the R-MAT row marginal, columns from the recursion */
    const PetscInt  S = g->scale;
    const PetscReal a = 0.57, b = 0.19, cc = 0.19;
    /* row degree: expected ef * 2^S * P(row), P(row) = prod over bits of (a+b) or (c+d) */
    double p = 1.0;
    for (PetscInt bit = 0; bit < S; bit++) p *= ((row >> bit) & 1) ? (1.0 - a - b) : (a + b);
    double   mean = g->ef * (double)((PetscInt)1 << S) * p;
    PetscInt deg  = (PetscInt)mean + (SpMVRandUnit(&s) < mean - (PetscInt)mean ? 1 : 0);
    deg           = PetscMin(deg, cap - 1);
    for (PetscInt e = 0; e < deg; e++) {
      PetscInt col = 0;
      for (PetscInt bit = S - 1; bit >= 0; bit--) { /* column bit given the row bit */
        const int    rb = (row >> bit) & 1;
        const double pl = rb ? cc / (1.0 - a - b) : a / (a + b);
        if (SpMVRandUnit(&s) >= pl) col |= (PetscInt)1 << bit;
      }
      cols[c++] = col;
    }
    cols[c++] = row;
  } else if (isdense) {
    const PetscInt m = g->m, stride = m / PetscMax(g->dense, 1);
    if (g->dense > 0 && row % stride == 0 && row / stride < g->dense) {
      const PetscInt L = PetscMin(g->len, g->ncols), step = g->ncols / L;
      for (PetscInt i = 0; i < L; i++) cols[c++] = (i * step + row) % g->ncols;
    } else {
      for (PetscInt i = 0; i < g->k - 1; i++) cols[c++] = (PetscInt)(SpMVRand(&s) % (uint64_t)g->ncols);
      if (row < g->ncols) cols[c++] = row;
    }
  } else if (isband) {
    for (PetscInt cidx = PetscMax(0, row - g->bw); cidx <= PetscMin(g->ncols - 1, row + g->bw); cidx++) cols[c++] = cidx;
  } else if (israndom) {
    if (SpMVRandUnit(&s) >= g->empty) {
      const PetscInt k = 1 + (PetscInt)(SpMVRandUnit(&s) * 2 * g->k);
      for (PetscInt i = 0; i < k && c < cap - 1; i++) cols[c++] = (PetscInt)(SpMVRand(&s) % (uint64_t)g->ncols);
      if (row < g->ncols) cols[c++] = row;
    }
  } else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown generator %s", g->kind);
  PetscCheck(c <= cap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "row %" PetscInt_FMT " overflows %" PetscInt_FMT, row, cap);
  *nc = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* const=1: -1 off the diagonal; 6 / 26 on it for the stencils, else the off-diagonal count + 1 */
static void SpMVConstRow(const SpMVGen *g, PetscInt row, const PetscInt *cols, PetscScalar *vals, PetscInt n)
{
  PetscInt off = 0;
  for (PetscInt i = 0; i < n; i++) off += cols[i] != row;
  for (PetscInt i = 0; i < n; i++) vals[i] = cols[i] != row ? -1.0 : !strcmp(g->kind, "stencil7") ? 6.0 : !strcmp(g->kind, "stencil27") ? 26.0 : (PetscScalar)(off + 1);
}

/* Fill a generated matrix: two passes over the local rows (counts, then values) */
static PetscErrorCode SpMVGenerate(MPI_Comm comm, const char *spec, Mat *A)
{
  SpMVGen      g;
  const char  *colon;
  PetscInt     rstart, rend, cap, *cols, *dnz, *onz, cstart, cend;
  PetscScalar *vals;
  PetscBool    helm = PETSC_FALSE;
  PetscReal    k2   = 0.5;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&g, sizeof(g)));
  PetscCall(PetscStrchr(spec, ':', (char **)&colon));
  PetscCall(PetscStrncpy(g.kind, spec, PetscMin(sizeof(g.kind), colon ? (size_t)(colon - spec) + 1 : sizeof(g.kind))));
  g.n = 16; g.m = 1000; g.k = 8; g.scale = 10; g.ef = 16; g.len = 1000; g.dense = 4; g.bw = 2; g.empty = 0; g.seed = 1; g.ncols = -1;
  PetscCall(SpMVGetParam(spec, "n", &g.n));
  PetscCall(SpMVGetParam(spec, "m", &g.m));
  PetscCall(SpMVGetParam(spec, "k", &g.k));
  PetscCall(SpMVGetParam(spec, "scale", &g.scale));
  PetscCall(SpMVGetParam(spec, "ef", &g.ef));
  PetscCall(SpMVGetParam(spec, "len", &g.len));
  PetscCall(SpMVGetParam(spec, "dense", &g.dense));
  PetscCall(SpMVGetParam(spec, "bw", &g.bw));
  PetscCall(SpMVGetParam(spec, "seed", &g.seed));
  PetscCall(SpMVGetParamReal(spec, "empty", &g.empty));
  PetscCall(SpMVGetParam(spec, "cols", &g.ncols));
  PetscCall(SpMVGetParam(spec, "const", &g.cst));
  /* helmholtz:n=,k2=: the 7-point Laplacian minus k2 (1 + i/2) on the diagonal (complex scalars; real: minus k2), a
     Helmholtz-type operator, complex symmetric and not Hermitian; no random phases */
  PetscCall(PetscStrcmp(g.kind, "helmholtz", &helm));
  if (helm) {
    PetscCall(SpMVGetParamReal(spec, "k2", &k2));
    PetscCall(PetscStrncpy(g.kind, "stencil7", sizeof(g.kind)));
    g.cst = 1;
  }
  if (!strncmp(g.kind, "stencil", 7)) g.m = g.n * g.n * g.n;
  if (!strcmp(g.kind, "rmat")) g.m = (PetscInt)1 << g.scale;
  if (!strcmp(g.kind, "random")) {
    PetscInt ncol = g.m;
    PetscCall(SpMVGetParam(spec, "n", &ncol)); /* random: n = columns */
    g.ncols = ncol;
  }
  if (g.ncols < 0) g.ncols = g.m;
  cap = !strcmp(g.kind, "rmat") ? 4 * g.ef + 64 + (PetscInt)(g.ef * 1.2 * PetscPowReal(1.52, (PetscReal)g.scale)) : 27 + 2 * g.k + 2 * g.bw + g.len + 4;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, g.m, g.ncols));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetUp(*A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(*A, &cstart, &cend));
  PetscCall(PetscMalloc2(cap, &cols, cap, &vals));
  PetscCall(PetscCalloc2(rend - rstart, &dnz, rend - rstart, &onz));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt nc;
    PetscCall(SpMVGenRow(&g, r, cols, cap, &nc));
    PetscCall(SpMVFinishRow(r, cols, vals, &nc, (uint64_t)g.seed));
    for (PetscInt i = 0; i < nc; i++) {
      if (cols[i] >= cstart && cols[i] < cend) dnz[r - rstart]++;
      else onz[r - rstart]++;
    }
  }
  PetscCall(MatSeqAIJSetPreallocation(*A, 0, dnz));
  PetscCall(MatMPIAIJSetPreallocation(*A, 0, dnz, 0, onz));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt nc;
    PetscCall(SpMVGenRow(&g, r, cols, cap, &nc));
    PetscCall(SpMVFinishRow(r, cols, vals, &nc, (uint64_t)g.seed));
    if (g.cst) SpMVConstRow(&g, r, cols, vals, nc);
    if (helm) {
#if PetscDefined(USE_COMPLEX)
      const PetscScalar shift = PetscCMPLX(k2, 0.5 * k2);
#else
      const PetscScalar shift = k2;
#endif
      for (PetscInt i = 0; i < nc; i++)
        if (cols[i] == r) vals[i] -= shift;
    } else SpMVPhaseRow(r, cols, vals, nc);
    PetscCall(MatSetValues(*A, 1, &r, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree2(cols, vals));
  PetscCall(PetscFree2(dnz, onz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Matrix Market coordinate file (real, integer or pattern; general, symmetric or skew-symmetric),
   scaled to kron(I_k, A). Pattern entries (and real files whose entries all hold one value) get
   pseudo-random values, the diagonal made dominant. */
static PetscErrorCode SpMVLoadMatrixMarket(MPI_Comm comm, const char *file, PetscInt kron, Mat *A)
{
  FILE        *f;
  char         line[1024], field[64] = "", sym[64] = "";
  long long    M, N, L;
  PetscInt    *ri, *ci, nent = 0, rstart, rend, cstart, cend, *dnz, *onz, *rowstart, *perm, cap = 0;
  PetscScalar *vi;
  PetscBool    pattern, symmetric, skew;

  PetscFunctionBegin;
  PetscCall(PetscFOpen(PETSC_COMM_SELF, file, "r", &f));
  PetscCheck(fgets(line, sizeof(line), f), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Empty file %s", file);
  PetscCheck(sscanf(line, "%%%%MatrixMarket matrix coordinate %63s %63s", field, sym) == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: not a Matrix Market coordinate file", file);
  pattern   = (PetscBool)!strcmp(field, "pattern");
  symmetric = (PetscBool)(!strcmp(sym, "symmetric") || !strcmp(sym, "hermitian"));
  skew      = (PetscBool)!strcmp(sym, "skew-symmetric");
  PetscCheck(pattern || !strcmp(field, "real") || !strcmp(field, "integer"), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: field %s not supported", file, field);
  do PetscCheck(fgets(line, sizeof(line), f), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: no size line", file);
  while (line[0] == '%');
  PetscCheck(sscanf(line, "%lld %lld %lld", &M, &N, &L) == 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: bad size line", file);
  PetscCheck(kron >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "kron factor must be >= 1");
  PetscCall(PetscMalloc3(2 * L, &ri, 2 * L, &ci, 2 * L, &vi));
  for (long long e = 0; e < L; e++) {
    long long i, j;
    double    v = 1.0;
    PetscCheck(fgets(line, sizeof(line), f), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: truncated", file);
    if (pattern) PetscCheck(sscanf(line, "%lld %lld", &i, &j) == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: bad entry", file);
    else PetscCheck(sscanf(line, "%lld %lld %lf", &i, &j, &v) == 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: bad entry", file);
    ri[nent] = (PetscInt)(i - 1); ci[nent] = (PetscInt)(j - 1); vi[nent] = v; nent++;
    if ((symmetric || skew) && i != j) { ri[nent] = (PetscInt)(j - 1); ci[nent] = (PetscInt)(i - 1); vi[nent] = skew ? -v : v; nent++; }
  }
  PetscCall(PetscFClose(PETSC_COMM_SELF, f));
  /* a "real" file whose entries all hold one value (the graphs converted to real files, e.g. nasa4704,
     delaunay_n16, vsp_model1, cti: every value 1.0) is a pattern in disguise: it gets the same
     pseudo-random values as a pattern file, so that no format is timed on trivially compressible values
     (../shared/matrices/README.md). Constant coefficients are the generators' const=1. */
  if (!pattern && nent > 1) {
    PetscBool same = PETSC_TRUE;
    for (PetscInt e = 1; e < nent && same; e++) same = (PetscBool)(vi[e] == vi[0]);
    pattern = same;
  }
  /* group entries by row */
  PetscCall(PetscCalloc1(M + 1, &rowstart));
  for (PetscInt e = 0; e < nent; e++) rowstart[ri[e] + 1]++;
  for (PetscInt r = 0; r < M; r++) { cap = PetscMax(cap, rowstart[r + 1]); rowstart[r + 1] += rowstart[r]; }
  PetscCall(PetscMalloc1(nent, &perm));
  {
    PetscInt *fill;
    PetscCall(PetscMalloc1(M, &fill));
    PetscCall(PetscArraycpy(fill, rowstart, M));
    for (PetscInt e = 0; e < nent; e++) perm[fill[ri[e]]++] = e;
    PetscCall(PetscFree(fill));
  }
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, (PetscInt)M * kron, (PetscInt)N * kron));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetUp(*A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(*A, &cstart, &cend));
  PetscCall(PetscCalloc2(rend - rstart, &dnz, rend - rstart, &onz));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt b = r / M, lr = r % M;
    for (PetscInt p = rowstart[lr]; p < rowstart[lr + 1]; p++) {
      const PetscInt c = ci[perm[p]] + b * (PetscInt)N;
      if (c >= cstart && c < cend) dnz[r - rstart]++;
      else onz[r - rstart]++;
    }
  }
  PetscCall(MatSeqAIJSetPreallocation(*A, 0, dnz));
  PetscCall(MatMPIAIJSetPreallocation(*A, 0, dnz, 0, onz));
  {
    PetscInt    *cols;
    PetscScalar *vals;
    PetscCall(PetscMalloc2(cap + 1, &cols, cap + 1, &vals));
    for (PetscInt r = rstart; r < rend; r++) {
      const PetscInt b = r / M, lr = r % M;
      PetscInt       nc = 0;
      for (PetscInt p = rowstart[lr]; p < rowstart[lr + 1]; p++) {
        cols[nc] = ci[perm[p]] + b * (PetscInt)N;
        vals[nc] = vi[perm[p]];
        nc++;
      }
      if (pattern) {
        PetscCall(SpMVFinishRow(r, cols, vals, &nc, 17));
      }
      SpMVPhaseRow(r, cols, vals, nc);
      PetscCall(MatSetValues(*A, 1, &r, nc, cols, vals, ADD_VALUES));
    }
    PetscCall(PetscFree2(cols, vals));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree2(dnz, onz));
  PetscCall(PetscFree(perm));
  PetscCall(PetscFree(rowstart));
  PetscCall(PetscFree3(ri, ci, vi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||y - yref|| / ||yref|| (any vector types) */
static inline PetscErrorCode SpMVRelErr(Vec y, Vec yref, PetscReal *e)
{
  Vec       d;
  PetscReal n;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(yref, &d));
  PetscCall(VecCopy(y, d));
  PetscCall(VecAXPY(d, -1.0, yref));
  PetscCall(VecNorm(d, NORM_2, e));
  PetscCall(VecNorm(yref, NORM_2, &n));
  *e /= PetscMax(n, 1e-300);
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A matrix from a specification: generator name, or a Matrix Market file with an optional :k */
static inline PetscErrorCode SpMVCreateMatrix(MPI_Comm comm, const char *spec, Mat *A)
{
  char        path[PETSC_MAX_PATH_LEN];
  const char *gens[] = {"stencil7", "stencil27", "rmat", "denserows", "banded", "random", "helmholtz"};
  PetscInt    kron = 1;
  char       *colon;

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(gens) / sizeof(gens[0]); i++)
    if (!strncmp(spec, gens[i], strlen(gens[i])) && (spec[strlen(gens[i])] == ':' || !spec[strlen(gens[i])])) {
      PetscCall(SpMVGenerate(comm, spec, A));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  PetscCall(PetscStrncpy(path, spec, sizeof(path)));
  PetscCall(PetscStrrchr(path, ':', &colon)); /* PetscStrrchr returns the char after the last ':' or the string */
  if (colon != path && colon[-1] == ':' && colon[0] >= '0' && colon[0] <= '9') {
    kron      = atoi(colon);
    colon[-1] = 0;
  }
  {
    size_t    len;
    PetscBool isbin = PETSC_FALSE;
    PetscCall(PetscStrlen(path, &len));
    if (len > 4) PetscCall(PetscStrcmp(path + len - 4, ".bin", &isbin));
    if (isbin) {
      PetscViewer v;
      PetscCall(PetscViewerBinaryOpen(comm, path, FILE_MODE_READ, &v));
      PetscCall(MatCreate(comm, A));
      PetscCall(MatSetType(*A, MATAIJ));
      PetscCall(MatLoad(*A, v));
      PetscCall(PetscViewerDestroy(&v));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(SpMVLoadMatrixMarket(comm, path, kron, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
