/*
   The single-precision copy of an operator: B = D A with fp32 values in one of the library's formats, for the
   products of a preconditioner (PCPOLY with -pc_poly_precision single). The vectors and the accumulation stay
   fp64; only the matrix values are read as fp32 (spmvformat.h, "Value type"), 4 bytes a nonzero instead of 8.

   B is a MATSHELL that owns everything it reads: for each sequential block (the matrix itself, or the diagonal
   and off-diagonal blocks of an MPIAIJ matrix) a 32-bit copy of the pattern, the scaled fp32 values and a format
   built from them; for MPI also a reference to the matrix's scatter of ghost values and a ghost vector of its own.
   So B stays valid whatever happens to A until the next MatSpMVSingleSetUp(), which brings it up to date: the
   same pattern refreshes the values in place (one pass, no allocation; SNES's Newton steps), a new pattern
   rebuilds.

   Where: on the GPU when the block's values are there (seqaijcusparse and the petsc-spmv types with a GPU
   parent, not bound to the CPU): the fp32 values are made on the device from the parent's device CSR, no host
   round trip. Otherwise on the host: the format's host reference with fp64 numbers rounded to fp32, which are
   exactly the products the device computes (so CI checks the fp32 operator without a GPU).

   Values that do not fit fp32, counted while rounding (complex scalars: the rules apply to each part, real and
   imaginary, on its own; an entry counts once, in its worst class):
   - an entry of D A below fp32's smallest normal number (FLT_MIN, about 1.2e-38; underflow) is stored as 0 and
     counted (MatSpMVSingleGetFlushed(), -ksp_view, PetscInfo). Against a unit diagonal such an entry carries
     nothing a preconditioner or smoother can use, and Galerkin coarse operators (GAMG, PCMG) leave them behind
     (products of interpolations with cancelling entries): an error for them would make fp32 unusable on real
     multigrid hierarchies. Subnormal fp32 values are flushed too: they keep only a few bits.
   - an entry beyond FLT_MAX (overflow) or one that is not finite is an error (PETSC_ERR_FP). Why an error and not
     a quiet fall-back to fp64: the caller asked for single precision, a silent switch would hide a 1.4x slowdown,
     and with Jacobi scaling the values are O(1) unless the matrix is numerically broken (a diagonal 1e38 times
     smaller than its row), which the user should hear about.
*/
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "spmvimpl.h"
#include "spmvdevice.cuh"
#include <../src/mat/impls/aij/mpi/mpiaij.h>
#include <petscdevice_cuda.h>
#include <cfloat>
#include <cmath>
#include <vector>

PetscLogEvent MAT_SpMV_Single;

namespace
{
enum BadValue {
  kOverflow,
  kUnderflow,
  kNotFinite,
  kNumBad
};

/* one sequential block: its own pattern and fp32 values, and the format built from them */
struct Block {
  SpMVFormat      *fmt = nullptr;
  bool             gpu = false, built = false;
  PetscInt         m = 0, n = 0, nnz = 0;
  PetscObjectState nzstate = -1;
  /* device copies (gpu) */
  int   *i = nullptr, *j = nullptr;
  SpMVSingleScalar *a32 = nullptr;
  /* host copies */
  std::vector<PetscInt>    hi, hj;
  std::vector<PetscScalar> ha; /* fp64 numbers that are fp32 values */

  Block() = default;
  Block(const Block &)            = delete;
  Block &operator=(const Block &) = delete;
  ~Block() { (void)Reset(); }
  PetscErrorCode Reset()
  {
    PetscFunctionBegin;
    PetscCall(spmv::DeviceFree({i, j, a32}));
    i = j = nullptr, a32 = nullptr;
    delete fmt;
    fmt   = nullptr;
    PetscCall(spmv::TrimPool()); /* what they held goes back to the driver */
    built = false;
    hi.clear(), hj.clear(), ha.clear();
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

struct Single {
  char  format[64]; /* root name of the format asked for (brc, segsum, spmv) */
  bool  mpi = false;
  Block d, o;        /* the matrix (seq) or its diagonal and off-diagonal blocks (MPI) */
  VecScatter scatter = nullptr; /* MPI: the matrix's ghost scatter (referenced) */
  Vec        ghost   = nullptr; /* MPI: ghost values, of the off-diagonal block's column layout */
  PetscBool  scaled  = PETSC_FALSE;
  int64_t    bad[kNumBad] = {};
};

#if defined(PETSC_USE_COMPLEX)
/* One part (real or imaginary) of an entry of D A rounded to fp32: 0 below FLT_MIN; bad[] marks its bad-value classes */
__host__ __device__ inline float RoundPart(double v, bool *bad)
{
  const bool  tiny = fabs(v) < (double)FLT_MIN; /* false for NaN */
  const float f    = tiny ? 0.0f : (float)v;
  if (!isfinite(v)) bad[kNotFinite] = true;
  else if (isinf(f)) bad[kOverflow] = true;
  else if (tiny && v != 0.0) bad[kUnderflow] = true;
  return f;
}
#endif

/* An entry v of D A rounded to fp32 (0 below FLT_MIN), its bad value counted in cnt[]. Complex scalars: each part on its
   own (a part below FLT_MIN is flushed, the other kept), the entry counted once, in its worst class (not finite before
   overflow before underflow). Real scalars: the code as it was before complex scalars (the same PTX) */
template <typename C>
__host__ __device__ inline SpMVSingleScalar RoundEntry(PetscScalar v, C *cnt)
{
#if defined(PETSC_USE_COMPLEX)
  bool                   bad[kNumBad] = {};
  const SpMVSingleScalar f(RoundPart(v.real(), bad), RoundPart(v.imag(), bad));
  if (bad[kNotFinite]) cnt[kNotFinite]++;
  else if (bad[kOverflow]) cnt[kOverflow]++;
  else if (bad[kUnderflow]) cnt[kUnderflow]++;
  return f;
#else
  const bool  tiny = fabs(v) < (double)FLT_MIN; /* false for NaN */
  const float f    = tiny ? 0.0f : (float)v;
  if (!isfinite(v)) cnt[kNotFinite]++;
  else if (isinf(f)) cnt[kOverflow]++;
  else if (tiny && v != 0.0) cnt[kUnderflow]++;
  return f;
#endif
}

/* a[k] -> fl32(d[row] * a[k]) (RoundEntry) with the bad values counted; narrows the pattern into the block's own copy */
__global__ void ScaleRound(PetscInt m, const PetscInt *__restrict__ pi, const PetscInt *__restrict__ pj, const PetscScalar *__restrict__ pa, const PetscScalar *__restrict__ d, bool pattern, int *__restrict__ i, int *__restrict__ j, SpMVSingleScalar *__restrict__ a32, unsigned long long *__restrict__ bad)
{
  unsigned long long cnt[kNumBad] = {};
  for (PetscInt r = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; r < m; r += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt    b = pi[r], e = pi[r + 1];
    const PetscScalar s = d ? d[r] : 1.0;
    if (pattern) {
      i[r] = (int)b;
      if (r == m - 1) i[m] = (int)e;
    }
    for (PetscInt k = b; k < e; k++) {
      const PetscScalar v = s * pa[k];
      if (pattern) j[k] = (int)pj[k];
      a32[k] = RoundEntry(v, cnt);
    }
  }
  for (int c = 0; c < kNumBad; c++)
    if (cnt[c]) atomicAdd(bad + c, cnt[c]);
}

/* the host twin of ScaleRound */
void ScaleRoundHost(const SpMVHostCsr &A, const PetscScalar *d, PetscScalar *out, int64_t *bad)
{
  for (PetscInt r = 0; r < A.m; r++)
    for (PetscInt k = A.i[r]; k < A.i[r + 1]; k++) out[k] = (PetscScalar)RoundEntry((d ? d[r] : PetscScalar(1.0)) * A.a[k], bad);
}

PetscErrorCode CreateFormat(const char *name, SpMVFormat **fmt)
{
  const SpMVFormatInfo *info = SpMVFindFormat(name);

  PetscFunctionBegin;
  PetscCheck(info, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown format \"%s\" for the single-precision copy: use brc, segsum, dcsr or spmv", name);
  *fmt = info->create();
  if (!(*fmt)->SupportsSingle()) {
    delete *fmt;
    *fmt = nullptr;
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The format %s does not store fp32 values: use brc, segsum, dcsr or spmv (which chooses between them)", name);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bring block b up to date with the sequential matrix M (rows scaled by d: local array, host or device as M's
   values, or null), counting the bad values into bad[] */
PetscErrorCode UpdateBlock(Block &b, Mat M, const char *format, const PetscScalar *d, int64_t *bad)
{
  const bool gpu = MatSpMVSeqOnGPU(M);
  PetscInt   m = M->rmap->n, n = M->cmap->n, nnz = ((Mat_SeqAIJ *)M->data)->nz;
  bool       rebuild;

  PetscFunctionBegin;
  rebuild = !b.built || b.gpu != gpu || b.m != m || b.n != n || b.nnz != nnz || b.nzstate != M->nonzerostate;
  if (!b.fmt) PetscCall(CreateFormat(format, &b.fmt));
  b.m = m, b.n = n, b.nnz = nnz;
  if (nnz == 0) { /* nothing to store: the product is y = 0 (or unchanged) */
    b.built = true, b.gpu = gpu, b.nzstate = M->nonzerostate;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (gpu) {
    const PetscInt     *pi, *pj;
    const PetscScalar  *pa;
    unsigned long long *dbad, hbad[kNumBad];
    cudaStream_t        s;

    PetscCheck(nnz < PETSC_INT32_MAX && m < PETSC_INT32_MAX && n < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The single-precision copy stores 32-bit indices: %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT " nonzeros does not fit", m, n, nnz);
    PetscCall(PetscGetCurrentCUDAStream(&s));
    if (rebuild) {
      PetscCall(b.fmt->ReleaseDevice());
      PetscCall(spmv::DeviceFree({b.i, b.j, b.a32}));
      b.i = b.j = nullptr, b.a32 = nullptr;
      PetscCall(spmv::DeviceAlloc(&b.i, m + 1, nullptr, s));
      PetscCall(spmv::DeviceAlloc(&b.j, nnz, nullptr, s));
      PetscCall(spmv::DeviceAlloc(&b.a32, nnz, nullptr, s));
    }
    PetscCall(spmv::DeviceAlloc(&dbad, kNumBad, nullptr, s));
    PetscCallCUDA(cudaMemsetAsync(dbad, 0, kNumBad * sizeof(*dbad), s));
    PetscCall(MatSpMVSeqDeviceCsr(M, PETSC_FALSE, &pi, &pj, &pa));
    ScaleRound<<<spmv::GridFor(m, 256, 8192), 256, 0, s>>>(m, pi, pj, pa, d, rebuild, b.i, b.j, b.a32, dbad);
    SpMVCheckLaunch();
    PetscCall(MatSpMVSeqDeviceCsr(M, PETSC_TRUE, &pi, &pj, &pa));
    PetscCallCUDA(cudaMemcpyAsync(hbad, dbad, sizeof(hbad), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(spmv::DeviceFree({dbad}, s));
    for (int c = 0; c < kNumBad; c++) bad[c] += (int64_t)hbad[c];
    SpMVDeviceCsr A;
    A.m = m, A.n = n, A.nnz = nnz, A.i = b.i, A.j = b.j, A.a32 = b.a32, A.single = true;
    if (rebuild) PetscCall(b.fmt->BuildDevice(A, s));
    else PetscCall(b.fmt->RefreshDevice(A, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    if (rebuild) PetscCall(spmv::TrimPool()); /* the build's temporaries go back to the driver */
  } else {
    Mat_SeqAIJ        *a = (Mat_SeqAIJ *)M->data;
    const PetscScalar *pa;
    SpMVHostCsr        A;

    if (rebuild) {
      b.hi.assign(a->i, a->i + m + 1);
      b.hj.assign(a->j, a->j + nnz);
      b.ha.resize(nnz);
    }
    A.m = m, A.n = n, A.nnz = nnz, A.i = b.hi.data(), A.j = b.hj.data();
    PetscCall(MatSeqAIJGetArrayRead(M, &pa));
    A.a = pa;
    ScaleRoundHost(A, d, b.ha.data(), bad);
    PetscCall(MatSeqAIJRestoreArrayRead(M, &pa));
    A.a      = b.ha.data();
    A.single = true;
    if (rebuild) PetscCall(b.fmt->BuildHost(A));
    else PetscCall(b.fmt->RefreshHost(A));
  }
  b.built = true, b.gpu = gpu, b.nzstate = M->nonzerostate;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = B x (add: y += B x) for one block, x and y local arrays where the block lives */
PetscErrorCode MultBlock(const Block &b, Vec x, Vec y, bool add)
{
  PetscFunctionBegin;
  if (b.nnz == 0) { /* y = 0 on this process alone (VecSet is logically collective: not every rank comes here) */
    PetscScalar *ya;
    PetscMemType my;
    if (add) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(VecGetArrayWriteAndMemType(y, &ya, &my));
    if (PetscMemTypeDevice(my)) {
      cudaStream_t s;
      PetscCall(PetscGetCurrentCUDAStream(&s));
      PetscCallCUDA(cudaMemsetAsync(ya, 0, b.m * sizeof(PetscScalar), s));
    } else PetscCall(PetscArrayzero(ya, b.m));
    PetscCall(VecRestoreArrayWriteAndMemType(y, &ya));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMemType       mx, my;
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
  if (add) PetscCall(VecGetArrayAndMemType(y, &ya, &my));
  else PetscCall(VecGetArrayWriteAndMemType(y, &ya, &my));
  if (b.gpu) {
    cudaStream_t s;
    PetscCheck(PetscMemTypeDevice(mx) && PetscMemTypeDevice(my), PETSC_COMM_SELF, PETSC_ERR_SUP, "The single-precision copy of a GPU matrix needs device vectors (VECCUDA, as MatCreateVecs() gives)");
    PetscCall(PetscGetCurrentCUDAStream(&s));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(b.fmt->MultDevice(xa, ya, add, s));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(2.0 * b.nnz));
  } else {
    PetscCheck(!PetscMemTypeDevice(mx) && !PetscMemTypeDevice(my), PETSC_COMM_SELF, PETSC_ERR_SUP, "The single-precision copy of a host matrix needs host vectors");
    PetscCall(b.fmt->MultHost(xa, ya, add));
    PetscCall(PetscLogFlops(2.0 * b.nnz));
  }
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  if (add) PetscCall(VecRestoreArrayAndMemType(y, &ya));
  else PetscCall(VecRestoreArrayWriteAndMemType(y, &ya));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B x = D A x: the diagonal block's product overlaps the ghost scatter, as MPIAIJ's MatMult */
PetscErrorCode MatMult_Single(Mat B, Vec x, Vec y)
{
  Single *c;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(B, &c));
  if (c->mpi) PetscCall(VecScatterBegin(c->scatter, x, c->ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(MultBlock(c->d, x, y, false));
  if (c->mpi) {
    PetscCall(VecScatterEnd(c->scatter, x, c->ghost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(MultBlock(c->o, c->ghost, y, true));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatView_Single(Mat B, PetscViewer v)
{
  Single   *c;
  PetscBool ascii;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(B, &c));
  PetscCall(PetscObjectTypeCompare((PetscObject)v, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(v, "single-precision copy%s: fp32 values, fp64 vectors and sums; format %s, on the %s\n", c->scaled ? " of D^-1 A" : "", c->format, c->d.gpu ? "GPU" : "host"));
  if (c->bad[kUnderflow]) PetscCall(PetscViewerASCIIPrintf(v, "%" PetscInt64_FMT " nonzeros below fp32's smallest normal number (%g) flushed to 0\n", c->bad[kUnderflow], (double)FLT_MIN));
  PetscCall(PetscViewerASCIIPushTab(v));
  if (c->d.fmt && c->d.nnz) PetscCall(c->d.fmt->View(v)); /* rank 0's diagonal block */
  PetscCall(PetscViewerASCIIPopTab(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDestroy_Single(Mat B)
{
  Single *c;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(B, &c));
  PetscCall(VecScatterDestroy(&c->scatter));
  PetscCall(VecDestroy(&c->ghost));
  delete c;
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/*@
  MatSpMVSingleSetUp - Creates or brings up to date B = D A with fp32 values (fp64 vectors and sums), stored in
  one of the petsc-spmv formats: the cheaper operator that a preconditioner may apply in place of A.

  Collective

  Input Parameters:
+ A      - an assembled `MATSEQAIJ` or `MATMPIAIJ` matrix or one derived from them (aijcusparse, the petsc-spmv types);
           on the GPU when its values are
. D      - the row scaling (a vector with A's row layout, e.g. the inverse diagonal), or `NULL` for none
- format - "brc", "segsum" (the formats that store fp32 values) or "spmv" (times both on the GPU, the row-statistics
           rule without one); `NULL` keeps the format of an existing B, or takes "spmv"

  Input/Output Parameter:
. B - `NULL` on the first call (a new matrix is created), then the matrix this function returned

  Level: developer

  Notes:
  B is a `MATSHELL` with `MatMult()` only and owns copies of all it reads, so it stays valid when A changes until
  the next call, which refreshes the values (same nonzero pattern) or rebuilds. Entries of D A below fp32's
  smallest normal number are stored as 0 and counted (`MatSpMVSingleGetFlushed()`); entries that overflow fp32 and
  values that are not finite give `PETSC_ERR_FP`. The time is logged as the event MatSpMVSingle.

.seealso: `PCPOLY`, `PCPolySetPrecision()`, `MatSpMVSingleGetFlushed()`
@*/
PetscErrorCode MatSpMVSingleSetUp(Mat A, Vec D, const char format[], Mat *B)
{
  Single            *c;
  PetscBool          mpi;
  const PetscScalar *d = nullptr;
  PetscMemType       md = PETSC_MEMTYPE_HOST;
  int64_t            bad[kNumBad] = {}, all[kNumBad];
  Mat                Ad, Ao = nullptr;
  PetscScalar       *staged = nullptr;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  else Ad = A;
  {
    PetscBool isaij;
    PetscCall(PetscStrbeginswith(((PetscObject)Ad)->type_name, MATSEQAIJ, &isaij));
    PetscCheck(isaij, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "The single-precision copy needs an AIJ matrix (seqaij, mpiaij, aijcusparse or a petsc-spmv type), not %s", ((PetscObject)A)->type_name);
  }
  PetscCall(PetscLogEventBegin(MAT_SpMV_Single, A, 0, 0, 0));
  if (!*B) {
    PetscInt m, n, M, N;
    VecType  vtype;

    c = new Single();
    PetscCall(PetscStrncpy(c->format, format ? format : "spmv", sizeof(c->format)));
    PetscCall(MatGetLocalSize(A, &m, &n));
    PetscCall(MatGetSize(A, &M, &N));
    PetscCall(MatCreateShell(PetscObjectComm((PetscObject)A), m, n, M, N, c, B));
    PetscCall(MatGetVecType(A, &vtype));
    PetscCall(MatShellSetVecType(*B, vtype));
    PetscCall(MatShellSetOperation(*B, MATOP_MULT, (PetscErrorCodeFn *)MatMult_Single));
    PetscCall(MatShellSetOperation(*B, MATOP_VIEW, (PetscErrorCodeFn *)MatView_Single));
    PetscCall(MatShellSetOperation(*B, MATOP_DESTROY, (PetscErrorCodeFn *)MatDestroy_Single));
  } else {
    PetscCall(MatShellGetContext(*B, &c));
    if (format) {
      PetscBool same;
      PetscCall(PetscStrcmp(format, c->format, &same));
      if (!same) { /* another format: start over */
        PetscCall(c->d.Reset());
        PetscCall(c->o.Reset());
        PetscCall(PetscStrncpy(c->format, format, sizeof(c->format)));
      }
    }
  }
  c->mpi    = mpi ? true : false;
  c->scaled = D ? PETSC_TRUE : PETSC_FALSE;
  if (D) {
    PetscCall(VecGetArrayReadAndMemType(D, &d, &md));
    if (MatSpMVSeqOnGPU(Ad) && !PetscMemTypeDevice(md)) { /* a host scaling for device values: stage it */
      PetscCall(spmv::DeviceAlloc(&staged, A->rmap->n, nullptr));
      PetscCallCUDA(cudaMemcpy(staged, d, A->rmap->n * sizeof(PetscScalar), cudaMemcpyHostToDevice));
    } else if (!MatSpMVSeqOnGPU(Ad) && PetscMemTypeDevice(md)) { /* device scaling for host values: take the host copy */
      PetscCall(VecRestoreArrayReadAndMemType(D, &d));
      PetscCall(VecGetArrayRead(D, &d));
      md = PETSC_MEMTYPE_HOST;
    }
  }
  {
    const PetscScalar *ds = staged ? staged : d;
    PetscErrorCode     ierr = UpdateBlock(c->d, Ad, c->format, ds, bad);
    if (!ierr && mpi) ierr = UpdateBlock(c->o, Ao, c->format, ds, bad);
    if (staged) PetscCall(spmv::DeviceFree({staged}));
    if (D) {
      if (PetscMemTypeDevice(md) || staged) PetscCall(VecRestoreArrayReadAndMemType(D, &d));
      else PetscCall(VecRestoreArrayRead(D, &d));
    }
    PetscCall(ierr);
  }
  if (mpi) { /* the ghost scatter of the current pattern */
    Mat_MPIAIJ *aij = (Mat_MPIAIJ *)A->data;
    PetscInt    ng;
    PetscCall(VecGetLocalSize(aij->lvec, &ng));
    if (c->scatter != aij->Mvctx) {
      PetscCall(PetscObjectReference((PetscObject)aij->Mvctx));
      PetscCall(VecScatterDestroy(&c->scatter));
      c->scatter = aij->Mvctx;
    }
    if (c->ghost) {
      PetscInt have;
      PetscCall(VecGetLocalSize(c->ghost, &have));
      if (have != ng) PetscCall(VecDestroy(&c->ghost));
    }
    if (!c->ghost) PetscCall(MatCreateVecs(Ao, &c->ghost, NULL));
  }
  PetscCall(PetscLogEventEnd(MAT_SpMV_Single, A, 0, 0, 0));
  PetscCallMPI(MPIU_Allreduce(bad, all, kNumBad, MPIU_INT64, MPI_SUM, PetscObjectComm((PetscObject)A)));
  for (int k = 0; k < kNumBad; k++) c->bad[k] = all[k];
  PetscCheck(!all[kNotFinite], PetscObjectComm((PetscObject)A), PETSC_ERR_FP, "%" PetscInt64_FMT " entries of the matrix%s are not finite (Inf or NaN): no single-precision copy can be made", all[kNotFinite], D ? " scaled by its inverse diagonal" : "");
  PetscCheck(!all[kOverflow], PetscObjectComm((PetscObject)A), PETSC_ERR_FP, "%" PetscInt64_FMT " entries of the matrix%s overflow single precision (|value| > %g): keep fp64 values (-pc_poly_precision double), or scale the rows by the inverse diagonal (-pc_poly_jacobi) to bring the values to O(1)", all[kOverflow], D ? " scaled by its inverse diagonal" : "", (double)FLT_MAX);
  if (all[kUnderflow]) PetscCall(PetscInfo(A, "%" PetscInt64_FMT " nonzeros below fp32's smallest normal number flushed to 0 in the single-precision copy\n", all[kUnderflow]));
  PetscCall(PetscInfo(A, "single-precision copy (format %s) %s on the %s\n", c->format, "up to date", c->d.gpu ? "GPU" : "host"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpMVSingleMultDiagonalBlock - Computes y = B_d x with the diagonal block of each rank's rows of the matrix made by
  `MatSpMVSingleSetUp()`: the block Jacobi part of B, with no ghost values exchanged (on one rank, B x)

  Neighbor-wise Collective (no communication)

  Input Parameters:
+ B - the matrix made by `MatSpMVSingleSetUp()`
- x - a vector with B's column layout

  Output Parameter:
. y - a vector with B's row layout

  Level: developer

  Note:
  The products of a process-local (block Jacobi) polynomial smoother, `PCPOLY` with `-pc_poly_local`. Logged as a
  `MatMult()`.

.seealso: `MatSpMVSingleSetUp()`, `PCPOLY`, `MatGetDiagonalBlock()`
@*/
PetscErrorCode MatSpMVSingleMultDiagonalBlock(Mat B, Vec x, Vec y)
{
  Single *c;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(B, MAT_CLASSID, 1);
  PetscValidHeaderSpecific(x, VEC_CLASSID, 2);
  PetscValidHeaderSpecific(y, VEC_CLASSID, 3);
  PetscCheck(x != y, PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "x and y must be different vectors");
  PetscCall(MatShellGetContext(B, &c));
  PetscCall(PetscLogEventBegin(MAT_Mult, B, x, y, 0));
  PetscCall(MultBlock(c->d, x, y, false));
  PetscCall(PetscLogEventEnd(MAT_Mult, B, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpMVSingleGetFlushed - Gets the number of nonzeros of D A that the last `MatSpMVSingleSetUp()` stored as 0
  because their magnitude is below fp32's smallest normal number (`FLT_MIN`, about 1.2e-38)

  Not Collective

  Input Parameter:
. B - the matrix made by `MatSpMVSingleSetUp()`

  Output Parameter:
. n - the number of such entries (over all ranks)

  Level: developer

.seealso: `MatSpMVSingleSetUp()`, `PCPOLY`
@*/
PetscErrorCode MatSpMVSingleGetFlushed(Mat B, PetscCount *n)
{
  Single *c;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(B, MAT_CLASSID, 1);
  PetscAssertPointer(n, 2);
  PetscCall(MatShellGetContext(B, &c));
  *n = (PetscCount)c->bad[kUnderflow];
  PetscFunctionReturn(PETSC_SUCCESS);
}
