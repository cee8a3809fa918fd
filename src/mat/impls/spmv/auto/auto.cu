/*
   The automatic format (auto.h): the "csr" candidate (cuSPARSE's CSR product on the generic type's device
   CSR), the row statistics on the device, the timed selection, and the composite format that forwards the
   contract to the format it chose. MatSpMVGetFormat() tells which one that is.
*/
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "auto.h"
#include "../ccoo/ccoo.h"
#include "../spmvimpl.h"
#include "../spmvdevice.cuh"
#include "../spmvvalue.cuh"
#include <petscdevice_cuda.h>
#include <petsctime.h>
#include <cusparse.h>
#include <cub/cub.cuh>
#include <algorithm>
#include <cmath>
#include <vector>

/* real or complex double precision PETSc (check-petsc.sh); every format is a candidate in both */

PetscLogEvent MAT_SpMV_Select = 0;

namespace {

/* A selection's cost besides its products (auto.h, "WHEN IT CHOOSES"), measured on the H100 (bench/results/NOTES.md,
   "Where spmv's selection time goes"): launches, synchronizations, allocations of a selection. The first selection of
   a process is given 10 ms more: without spmv::WarmPool's thread it also loads the library's kernel modules (CUDA loads
   a module at its first launch; 8.6-10 ms in ksp ex45, "Session 24"); with it, ex45's first selection took 3.8-5.5 ms
   for its 45 products' 4.8 ms, but the first due stays later on purpose ("Session 26"): counted at 1 ms, bench_kspsolve's
   130 products selected at the 97th and lost 9% of its solve (the selection's 11-12 ms against 5 ms saved in the 33
   products left), while ex45 gained 4%. A process's first waiting matrix knows nothing yet of how long its solves run:
   its selection waits longer than later ones. */
constexpr double kSelectFixedMs = 1.0;
constexpr double kSelectFirstMs = 10.0;
/* -mat_spmv_deterministic: the same products in the same order in every run, so no clock may decide anything. Not which
   format: the rule's first (as without a GPU), nothing timed. Not when: the due count comes from a model of cuSPARSE's
   product instead of timed samples, whose noise moved the product at which the matrix left cuSPARSE's product from run
   to run, and with it the rounding of all that followed (snes ex5's BiCGStab took 2711-3402 iterations in 21 runs of
   spmv against 3062 in every run of aijcusparse: H200, bench/results/NOTES.md, "Session 30"). The model: the CSR floor's
   bytes (SpMVAutoCSRBytes: 12 a nonzero and 20 a row in real scalars) at 2.5 TB/s (cuSPARSE's product reached 1.7-3.0
   TB/s on make bench's matrices on the H200), and at least a launch's 5 us. */
constexpr double kModelBytesPerUs = 2.5e6;
constexpr double kModelLaunchUs   = 5.0;
/* The selection's clock (Select) skips a ranked candidate once the time spent and its expected cost pass the budget by
   more than this factor: the plan already fitted it in the budget from constants, and the clock is there for the
   estimates that are off by factors (small matrices, where fixed costs dominate: 2-40x), not for the constants' spread
   on large ones (argcsr's build: 8-21 products, median 13). With no slack the clock left argcsr out on the random matrix
   at 931af1a (0.963x the fastest type; at 0277aaa it was timed and chosen) */
constexpr double kClockSlack = 1.25;
bool             selectedOnGPU  = false; /* a selection ran on the GPU in this process */

/* One cuSPARSE handle for every csr candidate of the process, made at the first use and destroyed at
   PetscFinalize(): cusparseCreate() took 5-7 ms of every selection's csr step on the H100 (the cost by
   step in -mat_view ::ascii_info), more than all the products it times. Each product sets its stream. */
cusparseHandle_t sharedHandle = nullptr;

PetscErrorCode DestroySharedHandle(void)
{
  PetscFunctionBegin;
  if (sharedHandle) PetscCallCUSPARSE(cusparseDestroy(sharedHandle));
  sharedHandle = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetSharedHandle(cusparseHandle_t *h)
{
  PetscFunctionBegin;
  if (!sharedHandle) {
    PetscCallCUSPARSE(cusparseCreate(&sharedHandle));
    PetscCall(PetscRegisterFinalize(DestroySharedHandle));
  }
  *h = sharedHandle;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* csr: cuSPARSE's SpMV on the device CSR the generic type owns (the aijcusparse product, no copy)  */
/* ---------------------------------------------------------------------------------------------- */
class CsrFormat final : public SpMVFormat {
  SpMVHostCsr                  h;
  SpMVDeviceCsr                d;
  cusparseHandle_t             handle = nullptr;
  cusparseConstSpMatDescr_t    mat    = nullptr;
  mutable cusparseDnVecDescr_t vx = nullptr, vy = nullptr; /* the vectors' pointers are set at every product */
  mutable bool                 prepped = false;            /* cusparseSpMV_preprocess ran (at the first product) */
  void                        *buf     = nullptr;
  std::size_t                  bufbytes = 0;

  cusparseSpMVAlg_t Alg() const { return deterministic ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1; }

public:
  bool deterministic = false; /* CSR_ALG2: cuSPARSE documents it as bitwise reproducible, ALG1 (aijcusparse's default) not */

  ~CsrFormat() override { (void)ReleaseDevice(); }

  PetscErrorCode SetFromOptions(PetscOptionItems) override { return PETSC_SUCCESS; }
  PetscErrorCode CopyOptions(const SpMVFormat &from) override
  {
    deterministic = static_cast<const CsrFormat &>(from).deterministic;
    return PETSC_SUCCESS;
  }

  /* host reference: SeqAIJ's product without inodes (rows summed in CSR order, MatMultAdd starting from y) */
  PetscErrorCode BuildHost(const SpMVHostCsr &A) override
  {
    h = A;
    return PETSC_SUCCESS;
  }
  PetscErrorCode RefreshHost(const SpMVHostCsr &A) override
  {
    h = A;
    return PETSC_SUCCESS;
  }
  PetscErrorCode MultHost(const PetscScalar *x, PetscScalar *y, bool add) const override
  {
    for (PetscInt r = 0; r < h.m; r++) {
      PetscScalar s = add ? y[r] : 0.0;
      for (PetscInt k = h.i[r]; k < h.i[r + 1]; k++) s += h.a[k] * x[h.j[k]];
      y[r] = s;
    }
    return PETSC_SUCCESS;
  }

  PetscErrorCode ReleaseDevice() override
  {
    PetscFunctionBegin;
    if (vx) PetscCallCUSPARSE(cusparseDestroyDnVec(vx));
    if (vy) PetscCallCUSPARSE(cusparseDestroyDnVec(vy));
    if (mat) PetscCallCUSPARSE(cusparseDestroySpMat(mat));
    PetscCall(spmv::DeviceFree({buf}));
    vx = vy = nullptr;
    mat     = nullptr;
    handle  = nullptr;
    buf     = nullptr;
    bufbytes = 0;
    prepped  = false;
    d        = SpMVDeviceCsr();
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  std::size_t DeviceBytes() const override { return bufbytes; }

  PetscErrorCode BuildDevice(const SpMVDeviceCsr &A, cudaStream_t s) override
  {
    const PetscScalar one = 1.0;
    std::size_t       b0 = 0, b1 = 0;

    PetscFunctionBegin;
    PetscCall(ReleaseDevice());
    d = A;
    if (!A.m || !A.nnz) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(GetSharedHandle(&handle));
    PetscCallCUSPARSE(cusparseSetStream(handle, s));
    PetscCallCUSPARSE(cusparseCreateConstCsr(&mat, A.m, A.n, A.nnz, A.i, A.j, A.a, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, spmv::kCudaScalar));
    /* placeholder pointers (never dereferenced by the size query); every product sets the real ones */
    PetscCallCUSPARSE(cusparseCreateDnVec(&vx, A.n, (void *)A.a, spmv::kCudaScalar));
    PetscCallCUSPARSE(cusparseCreateDnVec(&vy, A.m, (void *)A.a, spmv::kCudaScalar));
    for (const int add : {0, 1}) {
      const PetscScalar beta = add ? 1.0 : 0.0;
      PetscCallCUSPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &beta, vy, spmv::kCudaScalar, Alg(), add ? &b1 : &b0));
    }
    bufbytes = std::max(b0, b1);
    if (bufbytes) PetscCall(spmv::DeviceAlloc((char **)&buf, bufbytes, nullptr, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode RefreshDevice(const SpMVDeviceCsr &A, cudaStream_t s) override
  {
    PetscFunctionBegin;
    /* the values are rewritten in place (spmvformat.h); should the arrays ever move, describe them again */
    if (A.i != d.i || A.j != d.j || A.a != d.a) PetscCall(BuildDevice(A, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode MultDevice(const PetscScalar *x, PetscScalar *y, bool add, cudaStream_t s) const override
  {
    const PetscScalar one = 1.0, beta = add ? 1.0 : 0.0;

    PetscFunctionBegin;
    if (!d.m) PetscFunctionReturn(PETSC_SUCCESS);
    if (!d.nnz) {
      if (!add) PetscCallCUDA(cudaMemsetAsync(y, 0, d.m * sizeof(PetscScalar), s));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCallCUSPARSE(cusparseSetStream(handle, s));
    PetscCallCUSPARSE(cusparseDnVecSetValues(vx, (void *)x));
    PetscCallCUSPARSE(cusparseDnVecSetValues(vy, (void *)y));
    if (!prepped) { /* once per build, as aijcusparse does at its first product (no allocation: the buffer exists) */
      PetscCallCUSPARSE(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &beta, vy, spmv::kCudaScalar, Alg(), buf));
      prepped = true;
    }
    PetscCallCUSPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &beta, vy, spmv::kCudaScalar, Alg(), buf));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode View(PetscViewer v) const override
  {
    PetscFunctionBegin;
    PetscCall(PetscViewerASCIIPrintf(v, "csr: cuSPARSE SpMV (%s) on the device CSR (32-bit indices), no copy of the matrix; work buffer %.3g MB\n", deterministic ? "CSR_ALG2, deterministic" : "CSR_ALG1, as aijcusparse", bufbytes / 1e6));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* nothing is built (the layout is the CSR itself): compare the product with the host CSR product */
  PetscErrorCode Verify(const SpMVHostCsr &A, cudaStream_t s, PetscReal *maxdiff) override
  {
    PetscFunctionBegin;
    *maxdiff = 0;
    if (!A.m || !A.nnz) PetscFunctionReturn(PETSC_SUCCESS);
    std::vector<PetscScalar> x(std::max<PetscInt>(A.n, 1)), yh(A.m), yd(A.m);
    for (PetscInt j = 0; j < A.n; j++) x[j] = 1.0 + 1e-3 * (double)((j * 2654435761ull) % 1009);
    PetscScalar *dx, *dy;
    double       err = 0, nrm = 0;
    PetscCallCUDA(cudaMalloc((void **)&dx, x.size() * sizeof(PetscScalar)));
    PetscCallCUDA(cudaMalloc((void **)&dy, A.m * sizeof(PetscScalar)));
    PetscCallCUDA(cudaMemcpy(dx, x.data(), x.size() * sizeof(PetscScalar), cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemset(dy, 0xff, A.m * sizeof(PetscScalar))); /* NaN: every row must be written */
    PetscCall(MultDevice(dx, dy, false, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(spmv::Download(yd, dy));
    PetscCallCUDA(cudaFree(dx));
    PetscCallCUDA(cudaFree(dy));
    SpMVHostCsr keep = h;
    h                = A;
    PetscCall(MultHost(x.data(), yh.data(), false));
    h = keep;
    for (PetscInt r = 0; r < A.m; r++) {
      err = std::max(err, PetscIsNanScalar(yd[r]) ? INFINITY : (double)PetscAbsScalar(yd[r] - yh[r]));
      nrm = std::max(nrm, (double)PetscAbsScalar(yh[r]));
    }
    PetscCheck(err <= 1e-12 * std::max(nrm, 1.0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "csr: cuSPARSE product differs from the host CSR product by %g (max |y| %g)", err, nrm);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

/* ---------------------------------------------------------------------------------------------- */
/* the row statistics on the device: the same integers as SpMVAutoStatsHost                        */
/* ---------------------------------------------------------------------------------------------- */
using ull                  = unsigned long long;
constexpr int kStatThreads = 256;
enum { C_EMPTY, C_MAX, C_SUMSQ, C_LONG, C_NNZLONG, C_WIN16, C_WINSPAN, C_HASH, C_SLOT0, C_WIDE = C_SLOT0 + 5, C_TILE16, C_N };

struct MinOp {
  __device__ __forceinline__ int operator()(int a, int b) const { return min(a, b); }
};
struct MaxOp {
  __device__ __forceinline__ int operator()(int a, int b) const { return max(a, b); }
};

__device__ __forceinline__ ull WarpSum(ull v)
{
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

/* per-block sums of the counters in shared memory, one global atomic per counter and block at the end: with a
   global atomic per warp, 16k warps onto the same dozen addresses took longer than reading the columns */
__device__ __forceinline__ void BlockFlush(ull *sh, ull *__restrict__ c)
{
  __syncthreads();
  if (threadIdx.x < C_N && sh[threadIdx.x]) {
    if (threadIdx.x == C_MAX) atomicMax(c + C_MAX, sh[C_MAX]);
    else atomicAdd(c + threadIdx.x, sh[threadIdx.x]);
  }
}

__global__ void __launch_bounds__(kStatThreads) RowStats(int m, const int *__restrict__ rp, const int *__restrict__ cj, ull *__restrict__ c)
{
  __shared__ ull sh[C_N];
  ull            ne = 0, mx = 0, sq = 0, nl = 0, nnl = 0, h = 0, sl[5] = {0, 0, 0, 0, 0}, wd = 0;
  if (threadIdx.x < C_N) sh[threadIdx.x] = 0;
  __syncthreads();
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < m; r += (int64_t)gridDim.x * blockDim.x) {
    const int b = __ldg(rp + r), e = __ldg(rp + r + 1);
    const ull len = (ull)(e - b);
    ne += len == 0;
    mx = max(mx, len);
    sq += len * len;
    if (len > (ull)kAutoLongRow) {
      nl++;
      nnl += len;
    }
    h += SpMVAutoMix((uint64_t)r, (uint64_t)e, kAutoSaltRow);
#pragma unroll
    for (int k = 0; k < 5; k++) sl[k] += len ? (len + (1ull << k) - 1) >> k : 1ull;
    if (len && (int64_t)__ldg(cj + e - 1) - __ldg(cj + b) > CCOO_WIDE_SPAN) wd += len;
  }
  ne  = WarpSum(ne);
  sq  = WarpSum(sq);
  nl  = WarpSum(nl);
  nnl = WarpSum(nnl);
  h   = WarpSum(h);
  wd  = WarpSum(wd);
#pragma unroll
  for (int k = 0; k < 5; k++) sl[k] = WarpSum(sl[k]);
  for (int o = 16; o > 0; o >>= 1) mx = max(mx, __shfl_down_sync(0xffffffffu, mx, o));
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(sh + C_EMPTY, ne);
    atomicMax(sh + C_MAX, mx);
    atomicAdd(sh + C_SUMSQ, sq);
    atomicAdd(sh + C_LONG, nl);
    atomicAdd(sh + C_NNZLONG, nnl);
    atomicAdd(sh + C_HASH, h);
    atomicAdd(sh + C_WIDE, wd);
#pragma unroll
    for (int k = 0; k < 5; k++) atomicAdd(sh + C_SLOT0 + k, sl[k]);
  }
  BlockFlush(sh, c);
}

/* one block per window of kAutoWindow consecutive nonzeros (grid-stride over the windows): its column range;
   the columns' fingerprint; the column range of each of its dcsr tiles (kAutoTile16 nonzeros: warp minima and
   maxima, combined in shared memory) */
constexpr int kWinTiles = (int)(kAutoWindow / kAutoTile16);
static_assert(kAutoWindow % kStatThreads == 0 && kAutoWindow % kAutoTile16 == 0 && kAutoTile16 % 32 == 0, "dcsr tiles inside the windows");
__global__ void __launch_bounds__(kStatThreads) WindowStats(int64_t nnz, int64_t nwin, const int *__restrict__ cj, ull *__restrict__ c)
{
  using Reduce = cub::BlockReduce<int, kStatThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  __shared__ ull                          sh[C_N];
  __shared__ int                          tlo[kWinTiles], thi[kWinTiles];
  ull                                     h = 0, span = 0, n16 = 0, t16 = 0; /* span, n16: thread 0's sums over its windows; t16: threads < kWinTiles */
  if (threadIdx.x < C_N) sh[threadIdx.x] = 0;
  __syncthreads();
  for (int64_t w = blockIdx.x; w < nwin; w += gridDim.x) {
    const int64_t e  = min((w + 1) * kAutoWindow, nnz);
    int           lo = INT_MAX, hi = -1;
    if (threadIdx.x < kWinTiles) tlo[threadIdx.x] = INT_MAX, thi[threadIdx.x] = -1;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < (int)(kAutoWindow / kStatThreads); j++) {
      const int64_t k  = w * kAutoWindow + j * kStatThreads + threadIdx.x;
      int           wl = INT_MAX, wh = -1;
      if (k < e) {
        const int col = __ldg(cj + k);
        lo            = min(lo, col);
        hi            = max(hi, col);
        wl = wh = col;
        h += SpMVAutoMix((uint64_t)k, (uint64_t)col, kAutoSaltCol);
      }
      for (int o = 16; o > 0; o >>= 1) {
        wl = min(wl, __shfl_xor_sync(0xffffffffu, wl, o));
        wh = max(wh, __shfl_xor_sync(0xffffffffu, wh, o));
      }
      if ((threadIdx.x & 31) == 0 && wh >= 0) {
        const int t = (int)((j * kStatThreads + threadIdx.x) / kAutoTile16);
        atomicMin(tlo + t, wl);
        atomicMax(thi + t, wh);
      }
    }
    const int blo = Reduce(tmp).Reduce(lo, MinOp());
    __syncthreads();
    const int bhi = Reduce(tmp).Reduce(hi, MaxOp());
    __syncthreads();
    if (threadIdx.x == 0) {
      span += (ull)(bhi - blo);
      n16 += (ull)(bhi - blo) <= (ull)kAutoSpan16;
    }
    if (threadIdx.x < kWinTiles && thi[threadIdx.x] >= 0) t16 += (int64_t)thi[threadIdx.x] - tlo[threadIdx.x] <= kAutoTileSpan; /* after the reductions' barriers */
  }
  if (threadIdx.x < kWinTiles && t16) atomicAdd(sh + C_TILE16, t16);
  h = WarpSum(h);
  if ((threadIdx.x & 31) == 0) atomicAdd(sh + C_HASH, h);
  if (threadIdx.x == 0) {
    atomicAdd(sh + C_WINSPAN, span);
    atomicAdd(sh + C_WIN16, n16);
  }
  BlockFlush(sh, c);
}

/* the sampled values (complex: both parts, whose bit patterns CCOO's table keys on; as SpMVAutoStatsHost) */
__global__ void SampleValues(int64_t nnz, int64_t ns, const PetscScalar *__restrict__ a, PetscScalar *__restrict__ out)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < ns; k += (int64_t)gridDim.x * blockDim.x) out[k] = a[SpMVAutoSamplePos(k, nnz, ns)];
}

PetscErrorCode StatsDevice(const SpMVDeviceCsr &A, cudaStream_t s, SpMVAutoStats *st)
{
  ull                        *dc = nullptr, hc[C_N];
  PetscScalar                *dv = nullptr;
  std::vector<SpMVHostScalar> v;
  int                 sms;

  PetscFunctionBegin;
  *st         = SpMVAutoStats();
  st->m       = A.m;
  st->n       = A.n;
  st->nnz     = A.nnz;
  st->nwin    = (A.nnz + kAutoWindow - 1) / kAutoWindow;
  st->nsample = std::min<int64_t>(kAutoSample, A.nnz);
  v.resize((std::size_t)st->nsample);
  PetscCall(spmv::DeviceAlloc(&dc, C_N, nullptr, s));
  PetscCall(spmv::DeviceAlloc(&dv, st->nsample, nullptr, s));
  PetscCallCUDA(cudaMemsetAsync(dc, 0, C_N * sizeof(ull), s));
  PetscCall(spmv::DeviceSMCount(&sms));
  if (A.m) RowStats<<<spmv::GridFor(A.m, kStatThreads, 4 * sms), kStatThreads, 0, s>>>((int)A.m, A.i, A.j, dc);
  SpMVCheckLaunch();
  if (st->nwin) WindowStats<<<(unsigned)std::min<int64_t>(st->nwin, 8 * sms), kStatThreads, 0, s>>>(A.nnz, st->nwin, A.j, dc);
  SpMVCheckLaunch();
  if (st->nsample && A.single) PetscCallCUDA(cudaMemsetAsync(dv, 0, st->nsample * sizeof(PetscScalar), s)); /* fp32 values: CCOO is no candidate, no sample */
  else if (st->nsample) SampleValues<<<spmv::GridFor(st->nsample, kStatThreads, 64), kStatThreads, 0, s>>>(A.nnz, st->nsample, A.a, dv);
  SpMVCheckLaunch();
  PetscCallCUDA(cudaMemcpyAsync(hc, dc, sizeof(hc), cudaMemcpyDeviceToHost, s));
  if (st->nsample) PetscCallCUDA(cudaMemcpyAsync(v.data(), dv, v.size() * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  PetscCall(spmv::DeviceFree({dc, dv}, s));
  st->nempty  = (int64_t)hc[C_EMPTY];
  st->maxlen  = (int64_t)hc[C_MAX];
  st->sumsq   = hc[C_SUMSQ];
  st->nlong   = (int64_t)hc[C_LONG];
  st->nnzlong = (int64_t)hc[C_NNZLONG];
  st->nwin16  = (int64_t)hc[C_WIN16];
  st->winspan = hc[C_WINSPAN];
  st->hash    = hc[C_HASH] + SpMVAutoMix((uint64_t)A.m, (uint64_t)A.n, kAutoSaltShape);
  st->wide    = (int64_t)hc[C_WIDE];
  st->ntile16 = (int64_t)hc[C_TILE16];
  for (int k = 0; k < 5; k++) st->slots_k[k] = (int64_t)hc[C_SLOT0 + k];
  st->ncover  = SpMVAutoSampleCover(v.data(), st->nsample, &st->nvalued);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* the composite format                                                                            */
/* ---------------------------------------------------------------------------------------------- */
class Auto final : public SpMVFormat {
  SpMVAutoOptions opt;
  /* the candidates, each made at its first use (options, a selection): a matrix that never selects makes none but csr;
     only the chosen one holds a layout */
  mutable SpMVFormat *cand[AUTO_N] = {};
  CsrFormat      *csr          = nullptr;

  /* the selection, carried by CopyOptions (MatDuplicate, the blocks of an MPI matrix) */
  enum How { NONE, RULE, TIMED, FORCED, WAITING, RULE_GPU }; /* RULE_GPU: the rule's choice on the GPU (-mat_spmv_deterministic) */
  struct Record {
    int           chosen = -1;
    How           how    = NONE; /* WAITING: csr (the parent's product) runs until the selection is due */
    int64_t       waited = 0;    /* products run before the selection (it waited for them) */
    bool          copied = false;
    bool          single = false; /* chosen for fp32 values (spmvformat.h): among the formats that store them */
    SpMVAutoStats st;
    SpMVAutoPlan  plan;
    double        us[AUTO_N];        /* median product time of the timed candidates, microseconds (-1: not timed, -2: failed, -3: over the budget) */
    double        cost_ms = 0;       /* the whole selection: statistics, builds, trials, frees */
    double        stats_ms = 0;      /* ... of which the statistics and the rule */
    double        ms[AUTO_N] = {};   /* ... and each timed candidate: build, warm-up, trials, release (wall clock) */
    Record() { std::fill(us, us + AUTO_N, -1.0); }
  } rec;

  /* While the selection waits: the products (the parent's, or csr's with host vectors or -mat_spmv_deterministic) are
     counted, three of them timed by CUDA events read when done (no synchronization); csr's own descriptor is made from
     the device CSR only if one of its products runs */
  struct Waiting {
    SpMVDeviceCsr A;
    bool          csrbuilt = false;
    int64_t       products = 0;
    int64_t       due      = -1; /* products after which the selection is due (-1: until csr has been timed) */
    double        t[3]     = {};
    int           nt = 0, phase = 0; /* samples read; 0: no sample in flight, 1: its start recorded, 2: its end too */
    cudaEvent_t   e0 = nullptr, e1 = nullptr;
  };
  mutable Waiting w;

  SpMVFormat *Cand(int k) const
  {
    static const SpMVFormatInfo *info[AUTO_N] = {};
    if (!cand[k]) {
      if (!info[k]) info[k] = SpMVFindFormat(SpMVAutoNames[k]); /* all are registered in this library */
      cand[k] = info[k] ? info[k]->create() : nullptr;
    }
    return cand[k];
  }
  SpMVFormat &Chosen() const { return *Cand(rec.chosen); }

  PetscErrorCode ResetWait()
  {
    PetscFunctionBegin;
    if (w.e0) PetscCallCUDA(cudaEventDestroy(w.e0));
    if (w.e1) PetscCallCUDA(cudaEventDestroy(w.e1));
    w = Waiting();
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* does the selection of a new pattern wait? (auto.h: not for fp32 copies, forced formats, -mat_spmv_wait 0) */
  bool Waits(const SpMVDeviceCsr &A) const { return opt.wait > 0 && opt.format < 0 && !A.single && A.m > 0 && A.nnz > 0; }

  /* the sample in flight, if it is done (wait: wait for it) */
  PetscErrorCode ReadSample(bool wait) const
  {
    PetscFunctionBegin;
    const cudaError_t e = wait ? cudaEventSynchronize(w.e1) : cudaEventQuery(w.e1);
    if (e == cudaSuccess) {
      float ms;
      PetscCallCUDA(cudaEventElapsedTime(&ms, w.e0, w.e1));
      w.t[w.nt++] = 1e3 * ms;
      w.phase     = 0;
    } else if (e == cudaErrorNotReady) (void)cudaGetLastError(); /* not an error: reset it, as PETSc does */
    else PetscCallCUDA(e);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the due product count for cuSPARSE's product taking t us: -mat_spmv_wait times the selection's expected cost */
  PetscErrorCode SetDue(double t, const char *how) const
  {
    const double fixed = selectedOnGPU ? kSelectFixedMs : kSelectFirstMs;

    PetscFunctionBegin;
    w.due = (int64_t)std::ceil(opt.wait * (1e3 * fixed / std::max(t, 1e-3) + opt.budget));
    PetscCall(PetscInfo(NULL, "spmv: %" PetscInt64_FMT " x %" PetscInt64_FMT ": cuSPARSE's product %.1f us (%s); the selection (expected %g ms + %g products) is due after %" PetscInt64_FMT " products (-mat_spmv_wait %g)\n", (int64_t)w.A.m, (int64_t)w.A.n, t, how, fixed, (double)opt.budget, w.due, (double)opt.wait));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the due product count from the samples read (the median; three unless a block of an MPI matrix settles sooner) */
  PetscErrorCode DecideDue() const
  {
    PetscFunctionBegin;
    std::sort(w.t, w.t + w.nt);
    PetscCall(SetDue(w.t[w.nt / 2], "timed"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* a product while waiting, before (after = false) and after it */
  PetscErrorCode Observe(bool after) const
  {
    cudaStream_t s;

    PetscFunctionBegin;
    if (rec.how != WAITING) PetscFunctionReturn(PETSC_SUCCESS);
    if (after) {
      if (w.phase == 1) {
        PetscCall(PetscGetCurrentCUDAStream(&s));
        PetscCallCUDA(cudaEventRecord(w.e1, s));
        w.phase = 2;
      }
      w.products++;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (w.phase == 2) PetscCall(ReadSample(false)); /* a sample in flight: read it if it is done */
    if (w.nt == 3 && w.due < 0) PetscCall(DecideDue());
    if (w.phase == 0 && w.nt < 3 && w.due < 0 && w.products >= 1) { /* not the first product: it carries cuSPARSE's preprocessing */
      if (!w.e0) {
        PetscCallCUDA(cudaEventCreate(&w.e0));
        PetscCallCUDA(cudaEventCreate(&w.e1));
      }
      PetscCall(PetscGetCurrentCUDAStream(&s));
      PetscCallCUDA(cudaEventRecord(w.e0, s));
      w.phase = 1;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* csr's descriptor while waiting, made at its first use */
  PetscErrorCode CsrReady(cudaStream_t s) const
  {
    PetscFunctionBegin;
    if (rec.how == WAITING && !w.csrbuilt) {
      PetscCall(csr->BuildDevice(w.A, s));
      w.csrbuilt = true;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode ReleaseAll()
  {
    PetscFunctionBegin;
    for (SpMVFormat *f : cand)
      if (f) PetscCall(f->ReleaseDevice());
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode CheckForced(const SpMVAutoStats &st) const
  {
    PetscFunctionBegin;
    PetscCheck(Cand(opt.format), PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "spmv: format %s is not registered", SpMVAutoNames[opt.format]);
    PetscCheck(!opt.deterministic || SpMVAutoDeterministic(opt.format, st, opt), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "spmv: -mat_spmv_format %s with -mat_spmv_deterministic: %s", SpMVAutoNames[opt.format],
               opt.format == AUTO_BRC ? "BRC splits the rows of this matrix longer than its piece width (atomics); raise -mat_brc_width_max above the longest row or take another format" : "its products are not bitwise reproducible");
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode Info(const char *side) const
  {
    char line[512] = "";

    PetscFunctionBegin;
    for (int k = 0; k < AUTO_N; k++)
      if (rec.us[k] >= 0 || rec.us[k] == -3) { /* the timed ones (product time, then build + trials), the skipped */
        char item[64];
        if (rec.us[k] >= 0) PetscCall(PetscSNPrintf(item, sizeof(item), " %s %.1f us (%.3g ms)", SpMVAutoNames[k], rec.us[k], rec.ms[k]));
        else PetscCall(PetscSNPrintf(item, sizeof(item), " %s over the budget", SpMVAutoNames[k]));
        PetscCall(PetscStrlcat(line, item, sizeof(line)));
      }
    if (rec.waited) {
      char item[64];
      PetscCall(PetscSNPrintf(item, sizeof(item), "; after %" PetscInt64_FMT " products of cuSPARSE's", rec.waited));
      PetscCall(PetscStrlcat(line, item, sizeof(line)));
    }
    PetscCall(PetscInfo(NULL, "spmv (%s): %" PetscInt64_FMT " x %" PetscInt64_FMT ", %" PetscInt64_FMT " nonzeros: chose %s (%s)%s%s; selection %.3g ms (statistics %.3g ms)%s\n", side, rec.st.m, rec.st.n, rec.st.nnz, SpMVAutoNames[rec.chosen],
                        rec.how == FORCED ? "-mat_spmv_format" : rec.how == TIMED ? "fastest timed" : "row-statistics rule", rec.how == FORCED ? "" : "; rule: ", rec.how == FORCED ? "" : rec.plan.why, rec.cost_ms, rec.stats_ms, line));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

public:
  Auto()
  {
    csr            = new CsrFormat();
    cand[AUTO_CSR] = csr;
  }
  ~Auto() override
  {
    (void)ResetWait();
    for (SpMVFormat *&f : cand) {
      delete f;
      f = nullptr;
    }
  }

  const char *ChosenName() const { return rec.chosen >= 0 ? SpMVAutoNames[rec.chosen] : "none"; }

  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    const SpMVAutoOptions old = opt;
    char                 *list[2 * AUTO_N];
    PetscInt              nlist = 2 * AUTO_N;
    char                  fmt[64];
    PetscBool             set;

    PetscFunctionBegin;
    PetscCall(PetscOptionsStringArray("-mat_spmv_candidates", "Formats to time at the first product of a new pattern, comma separated: csr (cuSPARSE CSR), brc, ccoo, argcsr, segsum, suraa, dcsr (default: ranked by the row-statistics rule, csr always)", "MatSpMVGetFormat", list, &nlist, &set));
    if (set) {
      PetscErrorCode ierr = PETSC_SUCCESS;
      opt.allowed         = 0;
      for (PetscInt k = 0; k < nlist; k++) {
        int id;
        if (!ierr) ierr = SpMVAutoFindName(list[k], &id);
        if (!ierr) opt.allowed |= 1u << id;
        PetscCall(PetscFree(list[k]));
      }
      PetscCall(ierr);
      PetscCheck(nlist > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_spmv_candidates needs at least one format: csr, brc, ccoo, argcsr, segsum, suraa, dcsr");
    }
    PetscCall(PetscOptionsInt("-mat_spmv_trials", "Timed products per candidate after one warm-up product (the median is taken)", "MatSpMVGetFormat", opt.trials, &opt.trials, NULL));
    PetscCheck(opt.trials >= 1 && opt.trials <= 1000, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_spmv_trials %" PetscInt_FMT " must be in 1..1000", opt.trials);
    PetscCall(PetscStrncpy(fmt, opt.format >= 0 ? SpMVAutoNames[opt.format] : "", sizeof(fmt)));
    PetscCall(PetscOptionsString("-mat_spmv_format", "Use this format, no selection: csr, brc, ccoo, argcsr, segsum, suraa, dcsr", "MatSpMVGetFormat", fmt, fmt, sizeof(fmt), &set));
    if (set) {
      if (fmt[0]) PetscCall(SpMVAutoFindName(fmt, &opt.format));
      else opt.format = -1;
    }
    PetscCall(PetscOptionsBool("-mat_spmv_deterministic", "Reproducible runs: only formats whose products are bitwise reproducible (argcsr, segsum, dcsr, suraa, csr with cuSPARSE CSR_ALG2, brc where it splits no row), chosen by the rule without timing, after a wait counted from the matrix size", "MatSpMVGetFormat", opt.deterministic, &opt.deterministic, NULL));
    PetscCall(PetscOptionsReal("-mat_spmv_budget", "Selection cost allowed, in cuSPARSE products of the matrix: ranked formats after the first are timed while the estimate, and on the GPU the time spent, stay within it", "MatSpMVGetFormat", opt.budget, &opt.budget, NULL));
    PetscCheck(opt.budget >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_spmv_budget %g must be >= 0", (double)opt.budget);
    PetscCall(PetscOptionsBool("-mat_spmv_dcsr", "Rank dcsr (16-bit column offsets) in segsum's place where at least half of its 128-nonzero tiles span <= 65536 columns", "MatSpMVGetFormat", opt.dcsr, &opt.dcsr, NULL));
    PetscCall(PetscOptionsReal("-mat_spmv_margin", "A format replaces cuSPARSE's product (csr) only when its timed product is faster by at least this fraction", "MatSpMVGetFormat", opt.margin, &opt.margin, NULL));
    PetscCheck(opt.margin >= 0 && opt.margin < 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_spmv_margin %g must be in [0, 1)", (double)opt.margin);
    PetscCall(PetscOptionsReal("-mat_spmv_wait", "On the GPU, run cuSPARSE's product (the parent's) until the matrix's products took this many times the selection's expected cost, then select (0: select at the first product)", "MatSpMVGetFormat", opt.wait, &opt.wait, NULL));
    PetscCheck(opt.wait >= 0 && opt.wait <= 1e6, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_spmv_wait %g must be in [0, 1e6]", (double)opt.wait);
    if (opt.format >= 0 && opt.deterministic) PetscCheck(opt.format != AUTO_CCOO, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-mat_spmv_format ccoo with -mat_spmv_deterministic: CCOO combines rows that cross a chunk with atomics");
    /* the candidates' own options (-mat_brc_width, ...), in this same options block */
    for (int k = 0; k < AUTO_N; k++)
      if (Cand(k)) PetscCall(Cand(k)->SetFromOptions(PetscOptionsObject));
    /* BRC's width options once more, silently: whether BRC splits rows decides if it is deterministic */
    PetscCall(PetscOptionsGetInt(PetscOptionsObject->options, PetscOptionsObject->prefix, "-mat_brc_width", &opt.brc.width, NULL));
    PetscCall(PetscOptionsGetInt(PetscOptionsObject->options, PetscOptionsObject->prefix, "-mat_brc_width_max", &opt.brc.width_max, NULL));
    PetscCall(PetscOptionsGetBool(PetscOptionsObject->options, PetscOptionsObject->prefix, "-mat_brc_paper_width", &opt.brc.paper_width, NULL));
    PetscCall(PetscOptionsGetReal(PetscOptionsObject->options, PetscOptionsObject->prefix, "-mat_brc_width_c", &opt.brc.width_c, NULL));
    csr->deterministic = opt.deterministic;
    if (!(opt == old)) rec = Record(); /* chosen under other options: choose again at the next build */
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode CopyOptions(const SpMVFormat &from) override
  {
    const Auto &f    = static_cast<const Auto &>(from);
    const bool  same = opt == f.opt;

    PetscFunctionBegin;
    opt = f.opt;
    for (int k = 0; k < AUTO_N; k++)
      if (f.cand[k] && Cand(k)) PetscCall(Cand(k)->CopyOptions(*f.cand[k]));
    if (f.rec.chosen >= 0 && f.rec.how != WAITING) { /* the choice travels with the options: a duplicate builds only the chosen format */
      rec        = f.rec;
      rec.copied = true;
    } else if (!same) rec = Record();
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode BuildHost(const SpMVHostCsr &A) override
  {
    SpMVAutoStats  st;
    PetscLogDouble t0, t1;

    PetscFunctionBegin;
    PetscCall(PetscTime(&t0));
    PetscCall(SpMVAutoStatsHost(A, &st));
    if (rec.chosen >= 0 && rec.single == A.single && rec.st.SamePattern(st)) { /* same pattern: keep the choice, build it */
      PetscCall(Chosen().BuildHost(A));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(Decide(st, A.single));
    PetscCall(PetscLogEventBegin(MAT_SpMV_Select, 0, 0, 0, 0));
    if (rec.how == NONE) rec.how = RULE;
    rec.chosen = rec.how == FORCED ? opt.format : rec.plan.host;
    PetscCall(Chosen().BuildHost(A));
    PetscCall(PetscTime(&t1));
    rec.cost_ms = 1e3 * (t1 - t0);
    PetscCall(Info("host"));
    PetscCall(PetscLogEventEnd(MAT_SpMV_Select, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode RefreshHost(const SpMVHostCsr &A) override { return Chosen().RefreshHost(A); }
  PetscErrorCode MultHost(const PetscScalar *x, PetscScalar *y, bool add) const override { return Chosen().MultHost(x, y, add); }

  /* A new selection record for a pattern with these statistics: forced, or the rule's plan (errors before any
     event begins or anything is built) */
  PetscErrorCode Decide(const SpMVAutoStats &st, bool single)
  {
    PetscFunctionBegin;
    rec        = Record();
    rec.st     = st;
    rec.single = single;
    if (opt.format >= 0) {
      PetscCall(CheckForced(st));
      PetscCheck(!single || Cand(opt.format)->SupportsSingle(), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "spmv: -mat_spmv_format %s does not store fp32 values (brc, segsum and dcsr do)", SpMVAutoNames[opt.format]);
      rec.how = FORCED;
    } else PetscCall(SpMVAutoRank(st, opt, &rec.plan));
    if (single && rec.how != FORCED) PetscCall(SingleOnly(st));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* fp32 values: the candidates are the formats that store them (not csr: cuSPARSE has no fp32-matrix,
     fp64-vector product), the rule's ranked ones first, then the others; all are timed, since they are few and
     their builds cheap (brc, segsum: 4-14 cuSPARSE products), and the copy is made once per pattern */
  PetscErrorCode SingleOnly(const SpMVAutoStats &st)
  {
    SpMVAutoPlan &p = rec.plan;
    int           r[AUTO_N], n = 0;
    auto          usable = [&](int k) { return k != AUTO_CSR && Cand(k) && Cand(k)->SupportsSingle() && (!opt.allowed || (opt.allowed >> k & 1u)) && (!opt.deterministic || SpMVAutoDeterministic(k, st, opt)) && std::find(r, r + n, k) == r + n; };

    PetscFunctionBegin;
    for (int k = 0; k < p.nrank; k++)
      if (usable(p.rank[k])) r[n++] = p.rank[k];
    for (int k = 0; k < AUTO_N; k++)
      if (usable(k)) r[n++] = k;
    PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "spmv: no candidate stores fp32 values (brc, segsum, dcsr)%s", opt.allowed || opt.deterministic ? " within -mat_spmv_candidates / -mat_spmv_deterministic" : "");
    std::copy(r, r + n, p.rank);
    std::copy(r, r + n, p.time);
    p.nrank = p.ntime = n;
    p.host            = r[0];
    PetscCall(PetscStrlcat(p.why, "; fp32 values: only the formats that store them", sizeof(p.why)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode BuildDevice(const SpMVDeviceCsr &A, cudaStream_t s) override
  {
    SpMVAutoStats  st;
    PetscLogDouble t0, t1;
    PetscErrorCode ierr = PETSC_SUCCESS;
    /* a choice made on the device (or forced) may be kept: the statistics tell whether the pattern is the same;
       otherwise they are the first step of the selection, inside its event. A waiting selection is due (Due()):
       this build is the selection, after the products it waited for */
    const bool    mayKeep = rec.chosen >= 0 && rec.how != RULE && rec.how != WAITING;
    const bool    due     = Due();
    const int64_t waited  = due ? w.products : 0;

    PetscFunctionBegin;
    PetscCall(ReleaseAll());
    PetscCall(ResetWait());
    PetscCall(PetscTime(&t0));
    if (mayKeep) {
      PetscCall(StatsDevice(A, s, &st));
      if (rec.single == A.single && rec.st.SamePattern(st)) {
        PetscCall(Chosen().BuildDevice(A, s));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
    if (!due && Waits(A)) { /* a new pattern: the parent's product until the selection pays */
      rec        = Record();
      rec.how    = WAITING;
      rec.chosen = AUTO_CSR;
      w.A        = A;
      if (opt.deterministic) PetscCall(SetDue(std::max(kModelLaunchUs, SpMVAutoCSRBytes(A.m, A.n, A.nnz) / kModelBytesPerUs), "modelled: -mat_spmv_deterministic"));
      PetscCall(spmv::WarmPool()); /* the selection's first allocation and kernel modules, set up while the matrix waits */
      PetscCall(PetscInfo(NULL, "spmv: %" PetscInt64_FMT " x %" PetscInt64_FMT ", %" PetscInt64_FMT " nonzeros: cuSPARSE's product (the parent's) until the selection pays (-mat_spmv_wait %g)\n", (int64_t)A.m, (int64_t)A.n, (int64_t)A.nnz, (double)opt.wait));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(PetscLogEventBegin(MAT_SpMV_Select, 0, 0, 0, 0));
    if (!mayKeep) ierr = StatsDevice(A, s, &st);
    if (!ierr) ierr = Decide(st, A.single);
    if (ierr) {
      PetscCall(PetscLogEventEnd(MAT_SpMV_Select, 0, 0, 0, 0));
      PetscCall(ierr);
    }
    rec.waited = waited;
    PetscCall(PetscTime(&t1));
    rec.stats_ms = 1e3 * (t1 - t0);
    if (rec.how == FORCED) {
      rec.chosen = opt.format;
      PetscCall(Chosen().BuildDevice(A, s));
    } else PetscCall(Select(A, s, t0));
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(PetscTime(&t1));
    rec.cost_ms   = 1e3 * (t1 - t0);
    selectedOnGPU = true;
    PetscCall(Info("GPU"));
    PetscCall(PetscLogEventEnd(MAT_SpMV_Select, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* Build f, one warm-up product, then t.size() products timed by CUDA events on s: the median in *us */
  static PetscErrorCode Time(SpMVFormat *f, const SpMVDeviceCsr &A, const PetscScalar *x, PetscScalar *y, cudaEvent_t e0, cudaEvent_t e1, std::vector<double> &t, cudaStream_t s, double *us)
  {
    PetscFunctionBegin;
    PetscCall(f->BuildDevice(A, s));
    PetscCall(f->MultDevice(x, y, false, s)); /* warm-up: first launches, caches, cuSPARSE's preprocessing */
    for (double &tr : t) {
      float ms;
      PetscCallCUDA(cudaEventRecord(e0, s));
      PetscCall(f->MultDevice(x, y, false, s));
      PetscCallCUDA(cudaEventRecord(e1, s));
      PetscCallCUDA(cudaEventSynchronize(e1));
      PetscCallCUDA(cudaEventElapsedTime(&ms, e0, e1));
      tr = 1e3 * ms;
    }
    std::sort(t.begin(), t.end());
    *us = t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* Time the plan's candidates: build, one warm-up product, trials products timed by CUDA events on s, median.
     A candidate that loses is released at once, so at most two layouts (and csr) coexist.
     The plan's budget is an estimate from constants (SpMVAutoRank); the selection also holds it on the clock:
     once csr is timed its product is the unit, and a candidate after the first ranked one is skipped when the
     time spent since t0 (statistics included) plus its expected cost, scaled by how far the steps so far ran
     over their estimate, would pass -mat_spmv_budget products. On a small matrix the fixed costs of the
     builds (launches, synchronizations) weigh more than the constants, fitted on 20-50M-nonzero matrices,
     assume. A list given by -mat_spmv_candidates is timed whole. */
  PetscErrorCode Select(const SpMVDeviceCsr &A, cudaStream_t s, PetscLogDouble t0)
  {
    PetscScalar        *x = nullptr, *y = nullptr;
    cudaEvent_t         e0, e1;
    std::vector<double> t((std::size_t)opt.trials);
    int                 best = -1;

    PetscFunctionBegin;
    if (!A.nnz || opt.deterministic) { /* nothing to time; or no clock may decide (kModelBytesPerUs): the rule's first */
      rec.chosen = rec.plan.host;
      rec.how    = A.nnz ? RULE_GPU : RULE;
      PetscCall(Chosen().BuildDevice(A, s));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(spmv::DeviceAlloc(&x, A.n, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&y, A.m, nullptr, s));
    PetscCallCUDA(cudaMemsetAsync(x, 0x3f, std::max<PetscInt>(A.n, 1) * sizeof(PetscScalar), s)); /* 4.8e-4 everywhere: a normal number */
    PetscCallCUDA(cudaEventCreate(&e0));
    PetscCallCUDA(cudaEventCreate(&e1));
    double estimated = SpMVAutoStatsCost(); /* the estimates of the steps taken so far, in csr products */
    for (int k = 0; k < rec.plan.ntime; k++) {
      const int      c = rec.plan.time[k];
      SpMVFormat    *f = Cand(c);
      PetscErrorCode ierr;
      PetscLogDouble tc0, tc1;
      if (!f) continue;
      PetscCall(PetscTime(&tc0));
      /* the safety net (segsum, or dcsr in its place: SpMVAutoRank) is timed in any case, as the plan reserves it: its
         build is a few small arrays on the CSR itself. On the H100 the clock once skipped dcsr behind a long brc build
         on nasa4704 :400 (42M nonzeros), and spmv ran brc at 0.85x of dcsr's speed (bench/results/NOTES.md) */
      if (k >= 2 && !opt.allowed && rec.us[AUTO_CSR] > 0 && c != AUTO_SEGSUM && c != AUTO_DCSR) {
        const double unit = 1e-3 * rec.us[AUTO_CSR], spent = 1e3 * (tc0 - t0) / unit, next = SpMVAutoCandidateCost(c, rec.st, opt);
        if (spent + next * std::max(1.0, spent / estimated) > kClockSlack * opt.budget) {
          rec.us[c] = -3;
          PetscCall(PetscInfo(NULL, "spmv: %s not timed: %.1f csr products spent, %.1f more expected, budget %g\n", SpMVAutoNames[c], spent, next * std::max(1.0, spent / estimated), (double)opt.budget));
          continue;
        }
      }
      estimated += SpMVAutoCandidateCost(c, rec.st, opt);
      if (c == AUTO_CSR) PetscCall(Time(f, A, x, y, e0, e1, t, s, &rec.us[c]));
      else { /* a library format that fails (out of device memory with two layouts held) is skipped, not fatal */
        spmv::BuildScope scope; /* its layout and its build's temporaries are freed */
        PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
        ierr = Time(f, A, x, y, e0, e1, t, s, &rec.us[c]);
        if (ierr) (void)f->ReleaseDevice();
        PetscCall(PetscPopErrorHandler());
        if (ierr) {
          (void)cudaGetLastError(); /* a non-sticky error (allocation); a sticky one fails the next call anyway */
          PetscCall(scope.FreeLeftovers(s));
          rec.us[c] = -2;
          PetscCall(PetscInfo(NULL, "spmv: candidate %s failed (error %d) and was skipped\n", SpMVAutoNames[c], (int)ierr));
          continue;
        }
      }
      /* csr (timed first) is replaced only by a format faster by the margin (timing noise, and what a solve's
         other kernels do to the caches between two products); formats compare among themselves plainly */
      if (best < 0 || rec.us[c] * (best == AUTO_CSR ? 1.0 + opt.margin : 1.0) < rec.us[best]) {
        if (best >= 0) PetscCall(cand[best]->ReleaseDevice());
        best = c;
      } else PetscCall(f->ReleaseDevice());
      PetscCallCUDA(cudaStreamSynchronize(s));
      PetscCall(PetscTime(&tc1));
      rec.ms[c] = 1e3 * (tc1 - tc0);
    }
    PetscCallCUDA(cudaEventDestroy(e0));
    PetscCallCUDA(cudaEventDestroy(e1));
    PetscCall(spmv::DeviceFree({x, y}, s));
    PetscCheck(best >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "spmv: no candidate was timed");
    rec.chosen = best;
    rec.how    = TIMED;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* csr chosen: the generic type runs the parent's own product (aijcusparse's MatMult, the same cuSPARSE call on the
     same CSR) on CUDA vectors, so the matrix costs exactly what aijcusparse costs; not for fp32 values nor CSR_ALG2
     (deterministic). csr's own descriptor (on the same device CSR, no copy) stays built for host vectors, which the
     generic type stages through device buffers: aijcusparse's product reads a host vector as if it were a CUDA one */
  bool ParentProduct() const override { return rec.chosen == AUTO_CSR && !rec.single && !opt.deterministic; }
  PetscErrorCode ParentProductRan(bool after) override { return Observe(after); }
  bool           Due() const override { return rec.how == WAITING && w.due >= 0 && w.products >= w.due; }
  PetscErrorCode WaitDue(int64_t *due) override
  {
    PetscFunctionBegin;
    *due = -1;
    if (rec.how != WAITING) PetscFunctionReturn(PETSC_SUCCESS);
    if (w.phase == 2) PetscCall(ReadSample(true));
    if (w.due < 0 && w.nt > 0) PetscCall(DecideDue());
    *due = w.due;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  void AgreeDue(int64_t due) override
  {
    if (rec.how == WAITING && w.due >= 0) w.due = std::max(w.due, due);
  }
  PetscErrorCode RefreshDevice(const SpMVDeviceCsr &A, cudaStream_t s) override
  {
    PetscFunctionBegin;
    if (rec.how == WAITING) {
      w.A = A;
      if (w.csrbuilt) PetscCall(csr->RefreshDevice(A, s));
    } else PetscCall(Chosen().RefreshDevice(A, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode MultDevice(const PetscScalar *x, PetscScalar *y, bool add, cudaStream_t s) const override
  {
    PetscFunctionBegin;
    PetscCall(CsrReady(s));
    PetscCall(Observe(false)); /* s is PETSc's current stream, which Observe gets where it records */
    PetscCall(Chosen().MultDevice(x, y, add, s));
    PetscCall(Observe(true));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode ReleaseDevice() override
  {
    PetscFunctionBegin;
    PetscCall(ReleaseAll());
    PetscCall(ResetWait());
    if (rec.how == WAITING) rec = Record(); /* nothing chosen: the next build waits anew */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  bool           SupportsSingle() const override { return true; }
  std::size_t    DeviceBytes() const override { return rec.chosen >= 0 ? Chosen().DeviceBytes() : 0; }

  PetscErrorCode View(PetscViewer v) const override
  {
    char list[256] = "";

    PetscFunctionBegin;
    if (rec.chosen < 0) {
      PetscCall(PetscViewerASCIIPrintf(v, "spmv: no format chosen yet (at the first product)\n"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (rec.how == WAITING) {
      if (w.due >= 0 && opt.deterministic) PetscCall(PetscViewerASCIIPrintf(v, "spmv: cuSPARSE's product (CSR_ALG2) while the selection waits: %" PetscInt64_FMT " of %" PetscInt64_FMT " products (a count from the matrix's size: -mat_spmv_deterministic; -mat_spmv_wait %g)\n", w.products, w.due, (double)opt.wait));
      else if (w.due >= 0) PetscCall(PetscViewerASCIIPrintf(v, "spmv: cuSPARSE's product (the parent's) while the selection waits: %" PetscInt64_FMT " of %" PetscInt64_FMT " products (%.1f us each; -mat_spmv_wait %g)\n", w.products, w.due, w.t[1], (double)opt.wait));
      else PetscCall(PetscViewerASCIIPrintf(v, "spmv: cuSPARSE's product (the parent's) while the selection waits: %" PetscInt64_FMT " products so far, not yet timed (-mat_spmv_wait %g)\n", w.products, (double)opt.wait));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(SpMVAutoViewStats(v, rec.st));
    if (rec.how == FORCED) PetscCall(PetscViewerASCIIPrintf(v, "spmv: -mat_spmv_format %s: no selection\n", SpMVAutoNames[rec.chosen]));
    else {
      for (int k = 0; k < rec.plan.nrank; k++) {
        PetscCall(PetscStrlcat(list, k ? ", " : "", sizeof(list)));
        PetscCall(PetscStrlcat(list, SpMVAutoNames[rec.plan.rank[k]], sizeof(list)));
      }
      PetscCall(PetscViewerASCIIPrintf(v, "spmv: rule: %s; ranked: %s%s\n", rec.plan.why, list[0] ? list : "(none)", opt.allowed ? " (within -mat_spmv_candidates)" : ""));
    }
    if (rec.how == RULE) {
      list[0] = 0;
      for (int k = 0; k < rec.plan.ntime; k++) {
        PetscCall(PetscStrlcat(list, k ? ", " : "", sizeof(list)));
        PetscCall(PetscStrlcat(list, SpMVAutoNames[rec.plan.time[k]], sizeof(list)));
      }
      PetscCall(PetscViewerASCIIPrintf(v, "spmv: chosen: %s by the rule, no timing (no GPU, or host reference); a GPU would time %s (expected cost %.1f cuSPARSE products)\n", SpMVAutoNames[rec.chosen], list, rec.plan.expected));
    }
    if (rec.how == RULE_GPU) PetscCall(PetscViewerASCIIPrintf(v, "spmv: chosen: %s by the rule, no timing (-mat_spmv_deterministic: the same format and products in every run)\n", SpMVAutoNames[rec.chosen]));
    if (rec.how == TIMED) {
      const double unit = rec.us[AUTO_CSR];
      list[0]           = 0;
      for (int k = 0; k < rec.plan.ntime; k++) {
        char item[96];
        const int c = rec.plan.time[k];
        if (rec.us[c] == -2 || rec.us[c] == -3) {
          PetscCall(PetscSNPrintf(item, sizeof(item), "%s%s %s", k ? ", " : "", SpMVAutoNames[c], rec.us[c] == -2 ? "failed (skipped)" : "not timed (the budget ran out)"));
          PetscCall(PetscStrlcat(list, item, sizeof(list)));
        }
        if (rec.us[c] < 0) continue;
        if (unit > 0) PetscCall(PetscSNPrintf(item, sizeof(item), "%s%s %.1f us (%.2fx csr)", k ? ", " : "", SpMVAutoNames[c], rec.us[c], unit / rec.us[c]));
        else PetscCall(PetscSNPrintf(item, sizeof(item), "%s%s %.1f us", k ? ", " : "", SpMVAutoNames[c], rec.us[c]));
        PetscCall(PetscStrlcat(list, item, sizeof(list)));
      }
      PetscCall(PetscViewerASCIIPrintf(v, "spmv: candidates timed on the GPU (1 warm-up + %" PetscInt_FMT " products, median): %s\n", opt.trials, list));
      PetscCall(PetscViewerASCIIPrintf(v, "spmv: chosen: %s, the fastest\n", SpMVAutoNames[rec.chosen]));
      if (unit > 0) PetscCall(PetscViewerASCIIPrintf(v, "spmv: selection cost %.3g ms = %.1f csr products (statistics, builds, trials, frees; the rule expected %.1f, budget %g)\n", rec.cost_ms, 1e3 * rec.cost_ms / unit, rec.plan.expected, (double)opt.budget));
      {
        char line[512] = "", item[96];
        for (int c = 0; c < AUTO_N; c++)
          if (rec.ms[c] > 0) {
            PetscCall(PetscSNPrintf(item, sizeof(item), ", %s %.3g ms", SpMVAutoNames[c], rec.ms[c]));
            PetscCall(PetscStrlcat(line, item, sizeof(line)));
          }
        PetscCall(PetscViewerASCIIPrintf(v, "spmv: selection cost by step: statistics and rule %.3g ms%s\n", rec.stats_ms, line));
      }
      if (unit <= 0) PetscCall(PetscViewerASCIIPrintf(v, "spmv: selection cost %.3g ms (csr not timed)\n", rec.cost_ms));
    } else PetscCall(PetscViewerASCIIPrintf(v, "spmv: selection cost %.3g ms\n", rec.cost_ms));
    if (rec.copied) PetscCall(PetscViewerASCIIPrintf(v, "spmv: this choice was carried over (MatDuplicate or the MPI parent's options), not made again\n"));
    if (rec.waited) PetscCall(PetscViewerASCIIPrintf(v, "spmv: chosen after %" PetscInt64_FMT " products of cuSPARSE's (the selection waited for them: -mat_spmv_wait)\n", rec.waited));
    PetscCall(Chosen().View(v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode Verify(const SpMVHostCsr &A, cudaStream_t s, PetscReal *maxdiff) override
  {
    PetscFunctionBegin;
    PetscCall(CsrReady(s));
    PetscCall(Chosen().Verify(A, s, maxdiff));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

} // namespace

SPMV_KERNEL_MODULE(RowStats); /* the first selection's builds: loaded ahead by spmv::WarmPool */

SpMVFormat *SpMVAutoCreate(void) { return new Auto(); }

const char *SpMVAutoChosenName(const SpMVFormat *fmt) { return static_cast<const Auto *>(fmt)->ChosenName(); }

/*@
  MatSpMVGetFormat - The sparse format that runs the products of a petsc-spmv matrix: for `MATSPMV` (the automatic
  type, `-mat_type spmv`) the format it chose for the current nonzero pattern, for the other types their own.

  Not Collective

  Input Parameter:
. A - a matrix: `seqaij<fmt>`, `mpiaij<fmt>` (this rank's diagonal block is asked), a block of one, or any other matrix

  Output Parameter:
. name - the format's root name: "csr" (cuSPARSE's CSR product), "brc", "ccoo", "argcsr", "segsum", "suraa" or "dcsr";
         "none" when the matrix (on this rank: its diagonal block) has no nonzeros, so nothing is chosen; "csr" for every
         type when its layout did not fit in device memory and the parent runs the products (-mat_spmv_device_memory_max);
         `NULL` when the matrix carries no petsc-spmv format

  Level: intermediate

  Notes:
  The choice is made at the first product after a new nonzero pattern; if it has not been made yet, this
  function makes it (on the GPU it times the candidates, without one it applies the row-statistics rule).
  For an MPI matrix it returns the choice of this rank's diagonal block (the off-diagonal block chooses its own).
  The blocks of `mpiaij<fmt>` are `seqaijcusparse` matrices (`seqaij` without a GPU) that carry the format, so that
  PETSc's MPI code sees the blocks it expects; this function tells that they do.
  `-mat_view ::ascii_info` prints the candidates, their times and the selection cost.

.seealso: `MATSPMV`, `MatSetType()`, `PetscSpMVInitializePackage()`
@*/
PetscErrorCode MatSpMVGetFormat(Mat A, const char *name[])
{
  Mat                   S = A;
  const SpMVFormatInfo *info;
  SpMVFormat           *fmt;
  PetscBool             mpi, isauto;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(name, 2);
  *name = nullptr;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &S, NULL, NULL));
  if (!S) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpMVSeqGetFormat(S, PETSC_TRUE, &info, &fmt));
  if (!info) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrcmp(info->root, MATSPMV, &isauto));
  if (MatSpMVSeqNoFit(S)) *name = "csr"; /* the layout did not fit in device memory: cuSPARSE's product (the parent's) */
  else *name = isauto ? SpMVAutoChosenName(fmt) : info->root;
  PetscFunctionReturn(PETSC_SUCCESS);
}
