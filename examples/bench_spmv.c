static const char help[] = "SpMV benchmark of the petsc-spmv matrix types against aijcusparse and sellcuda.\n\n"
                           "For each matrix (-matrices, specifications as in examples/spmvexamples.h, ';' separated) and each type\n"
                           "(-types, ',' separated) it converts the host AIJ matrix, checks y = A x against the AIJ product, and times\n"
                           "-trials trials of -reps MatMult each (median, min, max per MatMult). GB/s use one byte model for every\n"
                           "type, that of fp64 CSR with 32-bit indices: 12 nnz + 20 rows bytes. Without a GPU the plugin types run\n"
                           "their host reference on host vectors (a correctness smoke test; CPU times).\n"
                           "A type may carry a variant, type/name: the converted matrix gets the options prefix name_, so\n"
                           "-types argcsr,argcsr/d8 -d8_mat_argcsr_desired_chunk_size 8 measures both layouts in one run.\n"
                           "With a GPU, floor kernels are timed on each matrix's device CSR (-floor): floor-stream reads the\n"
                           "CSR arrays once (no x), floor-gather also reads x[col] in CSR order, perfectly balanced (no rows),\n"
                           "floor-gather16 the same over dcsr's 16-bit column offsets (128-nonzero tiles spanning <= 65536 columns),\n"
                           "floor-gather16c floor-gather16 in dcsr's order (lane l reads entries 4l..4l+3 of a tile).\n\n";

/*
   Usage:
     bench_spmv -matrices "../shared/matrices/cage11.mtx:64;stencil27:n=120" [-types brc,aijcusparse,sellcuda,brc/w32]
                [-trials 7] [-reps 100] [-tol 1e-12] [-csv out.csv] [-json out.json] [-commit <git sha>] [-seed <n>]
                [-floor 0] [-w32_mat_brc_width 32]

   Per matrix and type it reports: rows, nnz, median / min / max microseconds per MatMult, GB/s in the CSR byte
   model, that as a fraction of the measured device copy bandwidth, speedup over aijcusparse, the conversion
   (MatConvert + first MatMult, wall clock: host work and uploads included), the device build and the value
   refresh (plugin types: MatSpMVBuild / MatSpMVRefresh log events) and the value upload of the refresh
   (aijcusparse's MatCUSPARSCopyTo) in units of one aijcusparse MatMult, device memory taken by the matrix (MB) and the relative
   error ||y - y_aij|| / ||y_aij|| of the first product and of the product after the refresh.
   For the automatic type spmv also the format it chose (MatSpMVGetFormat) and the cost of its selection (the
   MatSpMVSelect event: statistics, candidate builds, timed products, frees) in aijcusparse MatMults (on a GPU
   after a first, unmeasured conversion that loads the kernels; that one is reported too), and per
   matrix a line comparing it with the fastest single type and with aijcusparse (the targets: >= 0.97x
   and >= 1.0x, selection <= 40 MatMults).
*/
#include <petscspmv.h>
#include <petscdevice_cuda.h>
#include <time.h>
#include "spmvexamples.h"

/* examples/benchfloor.cu: a shell matrix whose MatMult runs a floor kernel on A's device CSR */
PETSC_EXTERN PetscErrorCode SpMVBenchFloorCreate(Mat, PetscInt, Mat *);

#define MAXTYPES 64
#define NWARMUP  10

/* CSR bytes a product moves: a value and a column index per nonzero; a row offset, an x and a y entry per row
   (12 and 20 with real scalars; complex: 20 and 36) */
enum { kNnzBytes = (int)sizeof(PetscScalar) + 4, kRowBytes = 2 * (int)sizeof(PetscScalar) + 4 };

/* Plugin types known to this benchmark (the default -types); add new roots here */
static const char *PluginTypes[] = {MATSPMV, MATBRC, MATSURAA, MATCCOO, MATARGCSR, MATSEGSUM, MATDCSR};

typedef struct {
  char      matrix[PETSC_MAX_PATH_LEN];
  char      type[64];
  PetscBool plugin, ran, ok;
  PetscInt  rows, cols;
  PetscInt64 nnz;
  unsigned long seed;
  double    med, tmin, tmax;        /* seconds per MatMult */
  double    convert, first;         /* MatConvert (+ MatSetFromOptions), first MatMult: wall seconds */
  double    build, upload;          /* plugin events during conversion + first MatMult: MatSpMVBuild, MatCUSPARSCopyTo */
  double    refresh, refreshupload; /* plugin events during MatScale + MatMult: MatSpMVRefresh, MatCUSPARSCopyTo */
  double    devmb;                  /* device memory taken by the matrix (vectors excluded), MB; < 0 when unknown */
  double    select;                 /* plugin event during conversion + first MatMult: MatSpMVSelect (spmv's choice) */
  double    selectfirst;            /* spmv on a GPU: the same in a first, unmeasured conversion (kernels not loaded yet) */
  char      chosen[16];             /* plugin types: the format running the products (spmv: the one it chose) */
  double    err, err2;              /* relative errors: first product, product after the refresh */
  double    bpn;                    /* matrix bytes a product reads per nonzero, where known (CSR-order layouts); < 0 unknown */
} Result;

/* Matrix bytes a product reads per nonzero (values, columns, row offsets) for the layouts that keep CSR order, from the
   host CSR: the CSR itself (aijcusparse, segsum, the floors, spmv running csr or segsum) 12 + 4 (m+1)/nnz; dcsr and
   floor-gather16: 8 + 2 per nonzero of a 128-nonzero tile spanning <= 65536 columns, 4 per nonzero of a wider tile,
   4 per tile (its base) + 4 (m+1)/nnz. Other layouts (padding, sorting): -1 (their own -mat_view tells) */
static PetscErrorCode BytesPerNnz(Mat A, const char *type, const char *chosen, double *bpn)
{
  const PetscInt *ia, *ja;
  PetscInt        m, nz;
  PetscBool       done, csr, d16;

  PetscFunctionBegin;
  *bpn = -1;
  csr  = (PetscBool)(!strcmp(type, "aijcusparse") || !strcmp(type, MATSEGSUM) || !strcmp(type, "floor-stream") || !strcmp(type, "floor-gather") || (!strcmp(type, MATSPMV) && (!strcmp(chosen, "csr") || !strcmp(chosen, MATSEGSUM))));
  d16  = (PetscBool)(!strcmp(type, MATDCSR) || !strcmp(type, "floor-gather16") || !strcmp(type, "floor-gather16c") || (!strcmp(type, MATSPMV) && !strcmp(chosen, MATDCSR)));
  if (!csr && !d16) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "no row access");
  nz = ia[m];
  if (nz && csr) *bpn = 12.0 + 4.0 * (double)(m + 1) / (double)nz;
  else if (nz) {
    double cols = 0;
    for (PetscInt t0 = 0; t0 < nz; t0 += 128) {
      const PetscInt t1 = PetscMin(t0 + 128, nz);
      PetscInt       lo = ja[t0], hi = ja[t0];
      for (PetscInt e = t0; e < t1; e++) lo = PetscMin(lo, ja[e]), hi = PetscMax(hi, ja[e]);
      cols += (hi - lo <= 65535 ? 2.0 : 4.0) * (double)(t1 - t0) + 4.0;
    }
    *bpn = 8.0 + (cols + 4.0 * (double)(m + 1)) / (double)nz;
  }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Sync(PetscBool gpu)
{
  PetscFunctionBegin;
  if (gpu) PetscCallCUDA(cudaDeviceSynchronize());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CmpDouble(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double Median(double *v, PetscInt n)
{
  qsort(v, (size_t)n, sizeof(double), CmpDouble);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Device-to-device copy bandwidth of a 1 GiB buffer, read + write bytes counted, median of 10 */
static PetscErrorCode CopyBandwidth(double *gbs)
{
  const size_t bytes = (size_t)1 << 30;
  void        *src, *dst;
  cudaEvent_t  e0, e1;
  double       t[10];

  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc(&src, bytes));
  PetscCallCUDA(cudaMalloc(&dst, bytes));
  PetscCallCUDA(cudaMemset(src, 1, bytes));
  PetscCallCUDA(cudaEventCreate(&e0));
  PetscCallCUDA(cudaEventCreate(&e1));
  PetscCallCUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice)); /* warm-up */
  for (int i = 0; i < 10; i++) {
    float ms;
    PetscCallCUDA(cudaEventRecord(e0, 0));
    PetscCallCUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    PetscCallCUDA(cudaEventRecord(e1, 0));
    PetscCallCUDA(cudaEventSynchronize(e1));
    PetscCallCUDA(cudaEventElapsedTime(&ms, e0, e1));
    t[i] = 1e-3 * ms;
  }
  *gbs = 2.0 * (double)bytes / Median(t, 10) / 1e9;
  PetscCallCUDA(cudaEventDestroy(e0));
  PetscCallCUDA(cudaEventDestroy(e1));
  PetscCallCUDA(cudaFree(src));
  PetscCallCUDA(cudaFree(dst));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceFree(PetscBool gpu, size_t *fr)
{
  size_t total;

  PetscFunctionBegin;
  *fr = 0;
  if (gpu) PetscCallCUDA(cudaMemGetInfo(fr, &total));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Accumulated time of a log event (0 when the event is not registered) */
static PetscErrorCode EventTime(const char *name, double *t)
{
  PetscLogEvent      id;
  PetscEventPerfInfo info;

  PetscFunctionBegin;
  *t = 0;
  PetscCall(PetscLogEventGetId(name, &id));
  if (id < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, id, &info));
  *t = info.time;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PluginEvents(double t[4])
{
  PetscFunctionBegin;
  PetscCall(EventTime("MatSpMVBuild", &t[0]));
  PetscCall(EventTime("MatSpMVRefresh", &t[1]));
  PetscCall(EventTime("MatCUSPARSCopyTo", &t[2])); /* the parent's upload of the CSR values (aijcusparse) */
  PetscCall(EventTime("MatSpMVSelect", &t[3]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||y - s*y0|| / ||s*y0|| on the host (y may be a device vector) */
static PetscErrorCode RelError(Vec y, Vec y0, PetscScalar s, double *err)
{
  const PetscScalar *a, *b;
  PetscInt           n;
  double             num = 0, den = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(y0, &n));
  PetscCall(VecGetArrayRead(y, &a));
  PetscCall(VecGetArrayRead(y0, &b));
  for (PetscInt i = 0; i < n; i++) {
    const double d = PetscAbsScalar(a[i] - s * b[i]), r = PetscAbsScalar(s * b[i]); /* complex: both parts */
    num += d * d;
    den += r * r;
  }
  PetscCall(VecRestoreArrayRead(y, &a));
  PetscCall(VecRestoreArrayRead(y0, &b));
  *err = den > 0 ? PetscSqrtReal(num / den) : PetscSqrtReal(num);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -permute_pieces (an experiment of issue #29, bench/results/NOTES.md "Session 31"): the column/value pairs of every row
   permuted inside the row's piece of each 128-nonzero tile (dcsr's tiles), the piece's j-th entry to its j-th position
   in the order (position % 4, position / 4): the same matrix (a permutation inside rows) whose CSR order is the one at
   which dcsr's lanes of a long row read consecutive entries at each gather (floor-gather16c then times that order's
   floor). Columns are then no longer sorted inside rows (which PETSc's AIJ assumes): only products are timed, and on
   matrices with inodes (nasa4704) the reference, SeqAIJ's inode product (one column order for the rows of a node), is
   wrong. */
static PetscErrorCode PermutePieces(Mat A)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa, *av;
  PetscInt        m, nnz, *jv, *pos, np, r = 0;
  PetscMemType    mt;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, NULL));
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mt));
  nnz = ai[m];
  PetscCall(PetscMalloc3(nnz, &jv, nnz, &av, 128, &pos));
  for (PetscInt e0 = 0; e0 < nnz; e0 += 128) {
    const PetscInt e1 = PetscMin(e0 + 128, nnz);
    for (PetscInt sa = e0, sb; sa < e1; sa = sb) {
      while (ai[r + 1] <= sa) r++;
      sb = PetscMin(ai[r + 1], e1);
      np = 0;
      for (PetscInt e = sa; e < sb; e++) { /* insertion by the key (position % 4) * 32 + position / 4 */
        const PetscInt p = e - e0, key = (p % 4) * 32 + p / 4;
        PetscInt       q = np++;
        while (q > 0 && (pos[q - 1] % 4) * 32 + pos[q - 1] / 4 > key) {
          pos[q] = pos[q - 1];
          q--;
        }
        pos[q] = p;
      }
      for (PetscInt q = 0; q < np; q++) {
        jv[e0 + pos[q]] = aj[sa + q];
        av[e0 + pos[q]] = aa[sa + q];
      }
    }
  }
  PetscCall(PetscArraycpy((PetscInt *)aj, jv, nnz));
  PetscCall(PetscArraycpy(aa, av, nnz));
  PetscCall(PetscFree3(jv, av, pos));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool IsCusparse(const char *t) { return (PetscBool)(!strcmp(t, MATAIJCUSPARSE) || !strcmp(t, MATSEQAIJCUSPARSE)); }
static PetscBool IsSellCuda(const char *t) { return (PetscBool)(!strncmp(t, MATSELLCUDA, strlen(MATSELLCUDA)) || !strncmp(t, MATSEQSELLCUDA, strlen(MATSEQSELLCUDA))); }
static PetscBool IsFloor(const char *t) { return (PetscBool)(!strcmp(t, "floor-stream") || !strcmp(t, "floor-gather") || !strcmp(t, "floor-gather16") || !strcmp(t, "floor-gather16c")); }
static PetscBool IsPetscGPU(const char *t) { return (PetscBool)(IsCusparse(t) || IsSellCuda(t) || IsFloor(t) || strstr(t, "cuda") || strstr(t, "cusparse")); }

/* "type/variant": the base type and the options prefix "variant_" (empty without a variant) */
static PetscErrorCode SplitVariant(const char *spec, char *base, size_t nb, char *prefix, size_t np)
{
  const char *slash = strchr(spec, '/');

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(base, spec, slash ? PetscMin(nb, (size_t)(slash - spec) + 1) : nb));
  prefix[0] = 0;
  if (slash) {
    PetscCheck(slash[1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Empty variant name in -types entry %s", spec);
    PetscCall(PetscSNPrintf(prefix, np, "%s_", slash + 1));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One type on one matrix: convert, check against y0 = A x (r->ok), and when right: time the products and the refresh */
static PetscErrorCode RunType(Mat A, Vec x, Vec y0, const char *type, PetscBool gpu, PetscInt trials, PetscInt reps, PetscReal tol, Result *r)
{
  Mat                B;
  Vec                xb, yb;
  PetscScalar       *w;
  const PetscScalar *xa, *p;
  PetscMemType       mt;
  PetscLogDouble     t0, t1, t2, t3;
  double             ev0[4], ev1[4], *tt;
  size_t             f0, f1, fv0, fv1;

  char               base[64], prefix[64];

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(r->type, type, sizeof(r->type)));
  PetscCall(SplitVariant(type, base, sizeof(base), prefix, sizeof(prefix)));
  r->plugin = (PetscBool)!IsPetscGPU(base);
  r->devmb  = -1;
  r->err2   = -1; /* no product after a refresh (yet) */
  /* spmv on a GPU: one conversion and product first, unmeasured but for its selection: CUDA loads a kernel at its
     first launch in the process (lazy loading, about 0.5 ms a kernel on the H100), so the measured selection
     below is the one a process pays for a new nonzero pattern once the candidates' kernels are loaded; this
     first one is reported beside it */
  r->selectfirst = 0;
  if (gpu && !strcmp(base, "spmv")) {
    Vec xc, yc;
    PetscCall(PluginEvents(ev0));
    PetscCall(MatConvert(A, base, MAT_INITIAL_MATRIX, &B));
    if (prefix[0]) PetscCall(MatSetOptionsPrefix(B, prefix));
    PetscCall(MatSetFromOptions(B));
    PetscCall(MatCreateVecs(B, &xc, &yc));
    PetscCall(VecSet(xc, 1.0));
    PetscCall(MatMult(B, xc, yc));
    PetscCall(Sync(gpu));
    PetscCall(PluginEvents(ev1));
    r->selectfirst = ev1[3] - ev0[3];
    PetscCall(VecDestroy(&xc));
    PetscCall(VecDestroy(&yc));
    PetscCall(MatDestroy(&B));
  }
  /* conversion (+ the first product below), wall clock; device memory around it */
  PetscCall(DeviceFree(gpu, &f0));
  PetscCall(PluginEvents(ev0));
  PetscCall(Sync(gpu));
  PetscCall(PetscTime(&t0));
  if (IsFloor(base)) PetscCall(SpMVBenchFloorCreate(A, !strcmp(base, "floor-gather16c") ? 3 : !strcmp(base, "floor-gather16") ? 2 : !strcmp(base, "floor-gather") ? 1 : 0, &B));
  else if (IsSellCuda(base)) { /* through SeqSELL: the direct AIJ -> SELLCUDA conversion is very slow */
    PetscCall(MatConvert(A, MATSEQSELL, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatConvert(B, MATSEQSELLCUDA, MAT_INPLACE_MATRIX, &B));
  } else PetscCall(MatConvert(A, base, MAT_INITIAL_MATRIX, &B));
  if (prefix[0]) PetscCall(MatSetOptionsPrefix(B, prefix));
  if (!IsFloor(base)) PetscCall(MatSetFromOptions(B)); /* format options (-mat_spmv_host_reference, -mat_cusparse_..., ...) */
  PetscCall(Sync(gpu));
  PetscCall(PetscTime(&t1));
  /* vectors of the matrix's kind (CUDA with a GPU), x copied in and on the device before the first product */
  PetscCall(DeviceFree(gpu, &fv0));
  PetscCall(MatCreateVecs(B, &xb, &yb));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(xb, &w));
  PetscCall(PetscArraycpy(w, xa, r->cols));
  PetscCall(VecRestoreArrayWrite(xb, &w));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(VecGetArrayReadAndMemType(xb, &p, &mt));
  PetscCall(VecRestoreArrayReadAndMemType(xb, &p));
  PetscCall(VecGetArrayWriteAndMemType(yb, &w, &mt));
  PetscCall(VecRestoreArrayWriteAndMemType(yb, &w));
  PetscCall(Sync(gpu));
  PetscCall(DeviceFree(gpu, &fv1));
  PetscCall(PetscTime(&t2));
  PetscCall(MatMult(B, xb, yb));
  PetscCall(Sync(gpu));
  PetscCall(PetscTime(&t3));
  PetscCall(PluginEvents(ev1));
  PetscCall(DeviceFree(gpu, &f1));
  r->convert = t1 - t0;
  r->first   = t3 - t2;
  r->build   = ev1[0] - ev0[0];
  r->upload  = ev1[2] - ev0[2];
  r->select  = ev1[3] - ev0[3];
  if (r->plugin) {
    const char *name;
    PetscCall(MatSpMVGetFormat(B, &name));
    PetscCall(PetscStrncpy(r->chosen, name, sizeof(r->chosen)));
  }
  if (gpu) r->devmb = (((double)f0 - (double)f1) - ((double)fv0 - (double)fv1)) / 1e6;
  if (IsFloor(base)) r->err = 0; /* not a product: nothing to check */
  else PetscCall(RelError(yb, y0, 1.0, &r->err));
  r->ok = (PetscBool)(r->err < tol);
  if (r->ok) {
    /* warm-up, then trials of reps products */
    PetscCall(PetscMalloc1(trials, &tt));
    for (PetscInt i = 0; i < NWARMUP; i++) PetscCall(MatMult(B, xb, yb));
    for (PetscInt k = 0; k < trials; k++) {
      PetscCall(Sync(gpu));
      PetscCall(PetscTime(&t0));
      for (PetscInt i = 0; i < reps; i++) PetscCall(MatMult(B, xb, yb));
      PetscCall(Sync(gpu));
      PetscCall(PetscTime(&t1));
      tt[k] = (t1 - t0) / (double)reps;
    }
    r->med  = Median(tt, trials); /* sorts tt */
    r->tmin = tt[0];
    r->tmax = tt[trials - 1];
    PetscCall(PetscFree(tt));
  }
  if (r->ok && !IsFloor(base)) {
    /* new values, same pattern: the next product refreshes the format (scale by 1 might be skipped) */
    PetscCall(PluginEvents(ev0));
    PetscCall(Sync(gpu));
    PetscCall(MatScale(B, 1.000001));
    PetscCall(MatMult(B, xb, yb));
    PetscCall(Sync(gpu));
    PetscCall(PluginEvents(ev1));
    r->refresh       = ev1[1] - ev0[1];
    r->refreshupload = ev1[2] - ev0[2];
    PetscCall(RelError(yb, y0, 1.000001, &r->err2));
    /* a wrong product after the refresh fails our types; for a baseline it is reported (a PETSc finding)
       and its timing, taken before, stays */
    r->ok = (PetscBool)(r->err2 < tol || !r->plugin);
  }
  r->ran = PETSC_TRUE;
  PetscCall(VecDestroy(&xb));
  PetscCall(VecDestroy(&yb));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* JSON string (paths and type names: only quotes and backslashes need escaping) */
static void JsonString(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* Strip blanks around s in place; returns the first non-blank character */
static char *Trim(char *s)
{
  size_t n;
  while (*s == ' ' || *s == '\t' || *s == '\n') s++;
  n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n')) s[--n] = 0;
  return s;
}

int main(int argc, char **argv)
{
  char        matrices[8192] = "stencil7:n=100;rmat:scale=18,ef=16", typestr[4096] = "", csv[PETSC_MAX_PATH_LEN] = "", json[PETSC_MAX_PATH_LEN] = "", commit[128] = "unknown";
  char        devname[256] = "none (no GPU: host reference, CPU times)", date[64];
  char      **matlist, **typelist, *mats[1024], *types[MAXTYPES];
  int         nmat, ntype;
  PetscInt    trials = 7, reps = 100, nres = 0, nfail = 0, nfailpetsc = 0;
  PetscInt    seed = -1;
  PetscReal   tol = 1e-12;
  PetscBool   gpu, typesset, floor = PETSC_TRUE, permute = PETSC_FALSE;
  double      copybw = 0;
  Result     *res;
  PetscMPIInt size;
  time_t      now = time(NULL);

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_WRONG_MPI_SIZE, "bench_spmv runs on one process");
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscLogDefaultBegin());
  gpu = SpMVHaveDevice();
  { /* the kernel benchmark times the format spmv chooses: the selection at the first product (not after the products it
       would wait for in a program, -mat_spmv_wait), unless asked otherwise */
    PetscBool set;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_spmv_wait", &set));
    if (!set) PetscCall(PetscOptionsSetValue(NULL, "-mat_spmv_wait", "0"));
  }

  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "SpMV benchmark options", NULL);
  PetscCall(PetscOptionsString("-matrices", "Matrix specifications, ';' separated: file.mtx[:k], stencil7:n=, stencil27:n=, rmat:scale=,ef=, denserows:m=,k=,len=,dense=, banded:m=,bw=, random:m=,n=,k=,empty=,seed=", NULL, matrices, matrices, sizeof(matrices), NULL));
  PetscCall(PetscOptionsString("-types", "Matrix types, ',' separated (default: the plugin types, plus aijcusparse and sellcuda with a GPU)", NULL, typestr, typestr, sizeof(typestr), &typesset));
  PetscCall(PetscOptionsInt("-trials", "Number of timed trials (the median is reported)", NULL, trials, &trials, NULL));
  PetscCall(PetscOptionsInt("-reps", "MatMult per trial", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsReal("-tol", "Largest relative error ||y - y_aij|| / ||y_aij|| accepted", NULL, tol, &tol, NULL));
  PetscCall(PetscOptionsString("-csv", "Write the results to this CSV file", NULL, csv, csv, sizeof(csv), NULL));
  PetscCall(PetscOptionsString("-json", "Write the results to this JSON file", NULL, json, json, sizeof(json), NULL));
  PetscCall(PetscOptionsString("-commit", "Git commit of the code measured (recorded with the results)", NULL, commit, commit, sizeof(commit), NULL));
  PetscCall(PetscOptionsInt("-seed", "Seed of the random x (default: a fresh one per matrix)", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsBool("-permute_pieces", "Permute each row's entries inside the row's pieces of 128-nonzero tiles (an experiment: dcsr's gather order)", NULL, permute, &permute, NULL));
  PetscCall(PetscOptionsBool("-floor", "With a GPU, also time the floor kernels floor-stream, floor-gather, floor-gather16 and floor-gather16c on each matrix", NULL, floor, &floor, NULL));
  PetscOptionsEnd();
  PetscCheck(trials >= 1 && reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-trials and -reps must be positive");

  /* the types */
  if (!typesset || !typestr[0]) {
    PetscCall(PetscStrncpy(typestr, "", sizeof(typestr)));
    for (size_t i = 0; i < sizeof(PluginTypes) / sizeof(PluginTypes[0]); i++) {
      if (i) PetscCall(PetscStrlcat(typestr, ",", sizeof(typestr)));
      PetscCall(PetscStrlcat(typestr, PluginTypes[i], sizeof(typestr)));
    }
    if (gpu) PetscCall(PetscStrlcat(typestr, "," MATAIJCUSPARSE "," MATSELLCUDA, sizeof(typestr)));
  }
  if (gpu && floor) PetscCall(PetscStrlcat(typestr, ",floor-stream,floor-gather,floor-gather16,floor-gather16c", sizeof(typestr)));
  PetscCall(PetscStrToArray(typestr, ',', &ntype, &typelist));
  PetscCall(PetscStrToArray(matrices, ';', &nmat, &matlist));
  PetscCheck(ntype <= MAXTYPES, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "At most %d types", MAXTYPES);
  PetscCheck(nmat <= 1024, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "At most 1024 matrices");
  for (int t = 0; t < ntype; t++) types[t] = Trim(typelist[t]);
  for (int m = 0; m < nmat; m++) mats[m] = Trim(matlist[m]);

  /* the machine */
  (void)strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
  if (gpu) {
    struct cudaDeviceProp prop;
    int                   dev;
    Vec                   v;
    PetscReal             nrm;

    PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
    PetscCallCUDA(cudaGetDevice(&dev));
    PetscCallCUDA(cudaGetDeviceProperties(&prop, dev));
    PetscCall(PetscStrncpy(devname, prop.name, sizeof(devname)));
    PetscCall(CopyBandwidth(&copybw));
    /* start the CUDA libraries (handles, workspaces) before the first measurement */
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, 1000, &v));
    PetscCall(VecSet(v, 1.0));
    PetscCall(VecNorm(v, NORM_2, &nrm));
    PetscCall(VecDestroy(&v));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench_spmv  device: %s  date: %s  commit: %s\n", devname, date, commit));
  if (gpu) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "device copy bandwidth (1 GiB device-to-device, read + write, median of 10): %.1f GB/s\n", copybw));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "trials %" PetscInt_FMT " x reps %" PetscInt_FMT " MatMult after %d warm-up; GB/s = (%d nnz + %d rows) / t; tol %g\n", trials, reps, NWARMUP, (int)kNnzBytes, (int)kRowBytes, (double)tol));
  for (int t = 0; t < ntype; t++)
    if (!gpu && IsPetscGPU(types[t])) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "skipping %s: no GPU\n", types[t]));

  /* each type once on a small matrix, results discarded: first-use costs (library handles, kernel loading) stay
     out of the conversion times */
  {
    Mat    A;
    Vec    x, y0;
    Result dummy;

    PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, "stencil7:n=6", &A));
    PetscCall(MatCreateVecs(A, &x, &y0));
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatMult(A, x, y0));
    for (int t = 0; t < ntype; t++) {
      if (!gpu && IsPetscGPU(types[t])) continue;
      PetscCall(PetscMemzero(&dummy, sizeof(dummy)));
      PetscCall(MatGetSize(A, &dummy.rows, &dummy.cols));
      PetscCall(RunType(A, x, y0, types[t], gpu, 1, 1, tol, &dummy));
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y0));
    PetscCall(MatDestroy(&A));
  }

  PetscCall(PetscCalloc1((size_t)nmat * ntype, &res));
  for (int m = 0; m < nmat; m++) {
    Mat           A;
    Vec           x, y0;
    PetscRandom   rnd;
    MatInfo       info;
    PetscInt      rows, cols;
    unsigned long s = seed >= 0 ? (unsigned long)seed : ((unsigned long)time(NULL) * 1000003UL + (unsigned long)clock() + (unsigned long)m) % 2147483647UL; /* fits -seed */
    const Result *cusp = NULL;
    PetscInt      first = nres;

    PetscCall(SpMVCreateMatrix(PETSC_COMM_SELF, mats[m], &A));
    if (permute) PetscCall(PermutePieces(A));
    PetscCall(MatGetSize(A, &rows, &cols));
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    PetscCall(MatCreateVecs(A, &x, &y0));
    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
    PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
    PetscCall(PetscRandomSetSeed(rnd, s));
    PetscCall(PetscRandomSeed(rnd));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
    PetscCall(MatMult(A, x, y0));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%s: %" PetscInt_FMT " x %" PetscInt_FMT ", %.0f nonzeros (%.1f MB in CSR), x seed %lu\n", mats[m], rows, cols, (double)info.nz_used, ((double)kNnzBytes * info.nz_used + (double)kRowBytes * rows) / 1e6, s));
    for (int t = 0; t < ntype; t++) {
      Result *r = &res[nres];
      if (!gpu && IsPetscGPU(types[t])) continue;
      PetscCall(PetscStrncpy(r->matrix, mats[m], sizeof(r->matrix)));
      r->rows = rows;
      r->cols = cols;
      r->nnz  = (PetscInt64)info.nz_used;
      r->seed = s;
      PetscCall(RunType(A, x, y0, types[t], gpu, trials, reps, tol, r));
      PetscCall(BytesPerNnz(A, types[t], r->chosen, &r->bpn));
      if (!r->ok && IsSellCuda(types[t])) { /* PETSc's own SELL type, a comparison only: its load-balancing kernel
                                                (matmult_seqsell_tiled_kernel8, taken where the widest slice is > 12x the
                                                average: power-law matrices) zeroes y block by block while other blocks
                                                already atomically add into it, so its products are sometimes wrong
                                                (bench/results/NOTES.md, "Session 31"); reported, not counted */
        nfailpetsc++;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED (PETSc's %s, a comparison; not counted): %s on %s: relative error %.3e, tolerance %.3e\n", MATSEQSELLCUDA, r->type, r->matrix, r->err, (double)tol));
      } else if (!r->ok) {
        nfail++;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: %s on %s: relative error %.3e, after the refresh %.3e (-1: not run), tolerance %.3e\n", r->type, r->matrix, r->err, r->err2, (double)tol));
      }
      else if (r->err2 >= tol) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "NOTE: baseline %s on %s: product right (%.1e) but wrong after MatScale (%.1e); timing kept\n", r->type, r->matrix, r->err, r->err2));
      if (IsCusparse(types[t]) && r->ok) cusp = r;
      nres++;
    }
    /* the table of this matrix: relative units need the aijcusparse time */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-14s %10s %10s %10s %8s %6s %7s %9s %8s %8s %8s %8s %9s %6s\n", "type", "median us", "min us", "max us", "GB/s", "%copy", "x cusp", "convert", "build", "refresh", "upload", "dev MB", "rel err", "B/nnz"));
    const Result *best = NULL, *autor = NULL;
    for (PetscInt i = first; i < nres; i++) {
      const Result *r     = &res[i];
      const double  unit  = cusp ? cusp->med : 1e-6; /* one aijcusparse MatMult, or us */
      const double  bytes = (double)kNnzBytes * (double)r->nnz + (double)kRowBytes * (double)r->rows;
      char          frac[16] = "-", sp[16] = "-", bld[16] = "-", ref[16] = "-", upl[16] = "-", mb[16] = "-", name[40], bpn[16] = "-";
      char          base[64], prefix[64];

      if (!r->ok) {
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-14s FAILED: relative error %.2e, after the refresh %.2e (-1: not run)\n", r->type, r->err, r->err2));
        continue;
      }
      if (gpu) PetscCall(PetscSNPrintf(frac, sizeof(frac), "%.0f%%", 100.0 * bytes / r->med / 1e9 / copybw));
      if (cusp) PetscCall(PetscSNPrintf(sp, sizeof(sp), "%.2f", cusp->med / r->med));
      if (r->plugin) {
        PetscCall(PetscSNPrintf(bld, sizeof(bld), "%.1f", r->build / unit));
        PetscCall(PetscSNPrintf(ref, sizeof(ref), "%.1f", r->refresh / unit));
        PetscCall(PetscSNPrintf(upl, sizeof(upl), "%.1f", r->refreshupload / unit));
      }
      if (r->devmb >= 0) PetscCall(PetscSNPrintf(mb, sizeof(mb), "%.1f", r->devmb));
      if (r->bpn >= 0) PetscCall(PetscSNPrintf(bpn, sizeof(bpn), "%.2f", r->bpn));
      PetscCall(SplitVariant(r->type, base, sizeof(base), prefix, sizeof(prefix)));
      if (!strcmp(base, MATSPMV) && !prefix[0]) autor = r;
      else if (!prefix[0] && (r->plugin || IsCusparse(base)) && (!best || r->med < best->med)) best = r; /* the library's types and aijcusparse */
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s%s%s", r->type, !strcmp(base, MATSPMV) ? ":" : "", !strcmp(base, MATSPMV) ? r->chosen : ""));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-14s %10.2f %10.2f %10.2f %8.1f %6s %7s %9.1f %8s %8s %8s %8s %9.1e %6s\n", name, 1e6 * r->med, 1e6 * r->tmin, 1e6 * r->tmax, bytes / r->med / 1e9, frac, sp, (r->convert + r->first) / unit, bld, ref, upl, mb, PetscMax(r->err, r->err2), bpn));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  (convert = MatConvert + first MatMult, wall; build, refresh, upload (values, at the refresh) from the plugin's log events; all four in %s)\n", cusp ? "aijcusparse MatMults of this matrix" : "us"));
    if (autor && autor->ok && best && cusp)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  spmv chose %s: %.3fx the fastest single type (%s), %.3fx aijcusparse; selection %.1f aijcusparse MatMults (MatSpMVSelect; %.1f the first time, loading the kernels)\n", autor->chosen, best->med / autor->med, best->type, cusp->med / autor->med, autor->select / cusp->med, autor->selectfirst / cusp->med));
    else if (autor && autor->ok && best) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  spmv chose %s: %.3fx the fastest single type (%s); selection %.0f us (MatSpMVSelect)\n", autor->chosen, best->med / autor->med, best->type, 1e6 * autor->select));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y0));
    PetscCall(MatDestroy(&A));
  }

  /* files: every time in seconds; the relative columns (units of one aijcusparse MatMult) empty / null without it */
  if (csv[0] || json[0]) {
    FILE *fc = NULL, *fj = NULL;
    if (csv[0]) {
      PetscCall(PetscFOpen(PETSC_COMM_SELF, csv, "w", &fc));
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fc, "device,date,commit,copy_GBs,matrix,type,plugin,rows,cols,nnz,seed,trials,reps,median_s,min_s,max_s,GBs,copy_fraction,speedup_vs_cusparse,convert_s,first_mult_s,convert_cusparse_units,build_s,build_upload_s,refresh_s,refresh_upload_s,build_cusparse_units,refresh_cusparse_units,refresh_upload_cusparse_units,device_MB,rel_err,rel_err_refresh,ok,chosen,select_s,select_cusparse_units,select_first_s,select_first_cusparse_units,bytes_per_nnz\n"));
    }
    if (json[0]) {
      PetscCall(PetscFOpen(PETSC_COMM_SELF, json, "w", &fj));
      fprintf(fj, "{\n  \"device\": ");
      JsonString(fj, devname);
      fprintf(fj, ",\n  \"gpu\": %s,\n  \"date\": \"%s\",\n  \"commit\": ", gpu ? "true" : "false", date);
      JsonString(fj, commit);
      fprintf(fj, ",\n  \"copy_bandwidth_GBs\": %.2f,\n  \"trials\": %" PetscInt_FMT ",\n  \"reps\": %" PetscInt_FMT ",\n  \"warmup\": %d,\n  \"tol\": %g,\n  \"byte_model\": \"12*nnz + 20*rows\",\n  \"results\": [", gpu ? copybw : 0.0, trials, reps, NWARMUP, (double)tol);
    }
    for (PetscInt i = 0; i < nres; i++) {
      const Result *r = &res[i], *cusp = NULL;
      const double  bytes = (double)kNnzBytes * (double)r->nnz + (double)kRowBytes * (double)r->rows, gbs = r->ok ? bytes / r->med / 1e9 : 0;
      char          frac[32] = "", sp[32] = "", conv[32] = "", bld[32] = "", ref[32] = "", upl[32] = "", mb[32] = "", e2[32] = "", sel[32] = "", self[32] = "", bp[32] = "";

      for (PetscInt j = 0; j < nres; j++)
        if (!strcmp(res[j].matrix, r->matrix) && IsCusparse(res[j].type) && res[j].ok) cusp = &res[j];
      if (gpu && r->ok) PetscCall(PetscSNPrintf(frac, sizeof(frac), "%.4f", gbs / copybw));
      if (cusp && r->ok) {
        PetscCall(PetscSNPrintf(sp, sizeof(sp), "%.4f", cusp->med / r->med));
        PetscCall(PetscSNPrintf(conv, sizeof(conv), "%.2f", (r->convert + r->first) / cusp->med));
        if (r->plugin) {
          PetscCall(PetscSNPrintf(bld, sizeof(bld), "%.2f", r->build / cusp->med));
          PetscCall(PetscSNPrintf(ref, sizeof(ref), "%.2f", r->refresh / cusp->med));
          PetscCall(PetscSNPrintf(upl, sizeof(upl), "%.2f", r->refreshupload / cusp->med));
          if (r->select > 0) PetscCall(PetscSNPrintf(sel, sizeof(sel), "%.2f", r->select / cusp->med));
          if (r->selectfirst > 0) PetscCall(PetscSNPrintf(self, sizeof(self), "%.2f", r->selectfirst / cusp->med));
        }
      }
      if (r->devmb >= 0) PetscCall(PetscSNPrintf(mb, sizeof(mb), "%.2f", r->devmb));
      if (r->err2 >= 0) PetscCall(PetscSNPrintf(e2, sizeof(e2), "%.3e", r->err2));
      if (r->bpn >= 0) PetscCall(PetscSNPrintf(bp, sizeof(bp), "%.3f", r->bpn));
      if (fc)
        PetscCall(PetscFPrintf(PETSC_COMM_SELF, fc, "\"%s\",%s,%s,%.2f,\"%s\",%s,%d,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt64_FMT ",%lu,%" PetscInt_FMT ",%" PetscInt_FMT ",%.6e,%.6e,%.6e,%.3f,%s,%s,%.6e,%.6e,%s,%.6e,%.6e,%.6e,%.6e,%s,%s,%s,%s,%.3e,%s,%d,%s,%.6e,%s,%.6e,%s,%s\n", devname, date, commit, gpu ? copybw : 0.0, r->matrix, r->type, (int)r->plugin, r->rows, r->cols, r->nnz, r->seed, trials, reps, r->med, r->tmin, r->tmax, gbs, frac, sp, r->convert, r->first, conv, r->build, r->upload, r->refresh, r->refreshupload, bld, ref, upl, mb, r->err, e2, (int)r->ok, r->chosen, r->select, sel, r->selectfirst, self, bp));
      if (fj) {
        fprintf(fj, "%s\n    {\"matrix\": ", i ? "," : "");
        JsonString(fj, r->matrix);
        fprintf(fj, ", \"type\": ");
        JsonString(fj, r->type);
        fprintf(fj, ", \"plugin\": %s, \"rows\": %" PetscInt_FMT ", \"cols\": %" PetscInt_FMT ", \"nnz\": %" PetscInt64_FMT ", \"seed\": %lu, \"ok\": %s,\n", r->plugin ? "true" : "false", r->rows, r->cols, r->nnz, r->seed, r->ok ? "true" : "false");
        fprintf(fj, "     \"median_s\": %.6e, \"min_s\": %.6e, \"max_s\": %.6e, \"GBs\": %.3f, \"copy_fraction\": %s, \"speedup_vs_cusparse\": %s,\n", r->med, r->tmin, r->tmax, gbs, frac[0] ? frac : "null", sp[0] ? sp : "null");
        fprintf(fj, "     \"convert_s\": %.6e, \"first_mult_s\": %.6e, \"convert_cusparse_units\": %s, \"build_s\": %.6e, \"build_upload_s\": %.6e, \"refresh_s\": %.6e, \"refresh_upload_s\": %.6e,\n", r->convert, r->first, conv[0] ? conv : "null", r->build, r->upload, r->refresh, r->refreshupload);
        fprintf(fj, "     \"build_cusparse_units\": %s, \"refresh_cusparse_units\": %s, \"refresh_upload_cusparse_units\": %s, \"device_MB\": %s, \"rel_err\": %.3e, \"rel_err_refresh\": %s,\n", bld[0] ? bld : "null", ref[0] ? ref : "null", upl[0] ? upl : "null", mb[0] ? mb : "null", r->err, e2[0] ? e2 : "null");
        fprintf(fj, "     \"chosen\": ");
        JsonString(fj, r->chosen);
        fprintf(fj, ", \"select_s\": %.6e, \"select_cusparse_units\": %s, \"select_first_s\": %.6e, \"select_first_cusparse_units\": %s, \"bytes_per_nnz\": %s}", r->select, sel[0] ? sel : "null", r->selectfirst, self[0] ? self : "null", bp[0] ? bp : "null");
      }
    }
    if (fc) PetscCall(PetscFClose(PETSC_COMM_SELF, fc));
    if (fj) {
      fprintf(fj, "\n  ]\n}\n");
      PetscCall(PetscFClose(PETSC_COMM_SELF, fj));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%" PetscInt_FMT " runs, %" PetscInt_FMT " failed the check (tol %g)%s%s%s%s\n", nres, nfail, (double)tol, csv[0] ? "; CSV: " : "", csv, json[0] ? "; JSON: " : "", json));
  if (nfailpetsc) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " wrong products of PETSc's %s (see above), not counted\n", nfailpetsc, MATSEQSELLCUDA));
  PetscCheck(nfail == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " type/matrix pairs gave wrong products (relative error above %g): see FAILED above", nfail, (double)tol);
  PetscCall(PetscFree(res));
  PetscCall(PetscStrToArrayDestroy(ntype, typelist));
  PetscCall(PetscStrToArrayDestroy(nmat, matlist));
  PetscCall(PetscFinalize());
  return 0;
}
