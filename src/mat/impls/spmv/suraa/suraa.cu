/* SURAA on the device: the layout built on the GPU from the device CSR (CUB radix sort and scans, no host
   loop over rows or nonzeros), values refresh (a CUB batched gather through perm), the group kernels on
   forked streams, the optional dynamic-parallelism G1 (-DSPMV_SURAA_CDP) and the cuSPARSE ablation; and
   the format object that the generic type drives.  See suraa.h for the layout and the decisions. */
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "suraa.h"
#include "../spmvdevice.cuh"
#include "../spmvvalue.cuh"
#include <petscdevice_cuda.h>
#include <cusparse.h>
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <algorithm>

namespace {
constexpr int      kThreads = 256; /* G2/G3 blocks; build kernels */
constexpr unsigned kFull    = 0xffffffffu;

/* How a kernel finds sorted row k: physical mode reads rps/col/val (the sorted CSR), logical mode reads
   the original CSR through rp[perm[k]] (col/val are then the CSR's own arrays). */
struct Rows {
  const int         *rps, *rp, *perm, *col;
  const PetscScalar *val;
};

template <bool LOGICAL>
__device__ __forceinline__ void RowRange(const Rows &R, int k, int &row, int &beg, int &end)
{
  row = R.perm[k];
  if (LOGICAL) {
    beg = R.rp[row];
    end = R.rp[row + 1];
  } else {
    beg = R.rps[k];
    end = R.rps[k + 1];
  }
}

__device__ __forceinline__ PetscScalar WarpSum(PetscScalar v)
{
  for (int o = 16; o > 0; o >>= 1) v += spmv::ShflDown(kFull, v, o);
  return v;
}

/* Sum over a block of BS threads (a multiple of 32, at most 1024); the result is valid in thread 0 */
template <int BS>
__device__ __forceinline__ PetscScalar BlockSum(PetscScalar v)
{
  __shared__ PetscScalar ws[BS / 32];
  v = WarpSum(v);
  if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < BS / 32 ? ws[threadIdx.x] : 0.0;
    v = WarpSum(v);
  }
  return v;
}

/* ---------------------------------------------------------------------------------------------- */
/* Products                                                                                       */
/* ---------------------------------------------------------------------------------------------- */

/* sum + val[j] * x[col[j]] over j = beg + lane, beg + lane + stride, .. < end, in that order, one fma per
   entry (sum = fma(val, x, sum): what nvcc makes of the plain loop `sum += val[j] * x[col[j]]`), so the
   result is bit for bit the plain loop's. The plain loop, even unrolled, tests j < end between entries and
   so runs one dependent chain col -> x -> fma at a time. Here the entries go in batches of kBatch: the
   batch's columns are loaded, then its x entries and values, then its multiply-adds (two memory round
   trips per batch instead of two per entry). Whole batches run unpredicated; the last 1 .. kBatch - 1
   entries of the lane run as one predicated batch, entries past the end skipped, not zeroed (fma(0, x,
   -0.0) is +0.0, 0 * inf is NaN). r counts the entries left to the end of the row, so no index past end
   is ever formed (no overflow near 2^31). Seen in the SASS (sm_90, CUDA 13.0): ptxas keeps GroupRows,
   BlockRows and ChunkSums at 32 registers and issues the 4 columns, the first value and the 4 x entries,
   then the first fma, then the 3 other values: 3 round trips per whole batch (the old loop: 8 per 4
   entries); at 40 registers (the -rdc CDP build) it issues all 12 loads before the fmas (2). */
constexpr int kBatch = 4;
__device__ __forceinline__ PetscScalar StridedDot(const int *__restrict__ col, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, int beg, int end, int lane, int stride, PetscScalar sum)
{
  int r = (end - beg) - lane; /* the lane's next entry is j = end - r */
#pragma unroll 1 /* the batch is the unrolling; more would only cost registers */
  for (; r > (kBatch - 1) * stride; r -= kBatch * stride) {
    const int   j = end - r;
    int         c[kBatch];
    PetscScalar xv[kBatch], v[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; u++) c[u] = __ldg(col + j + u * stride);
#pragma unroll
    for (int u = 0; u < kBatch; u++) v[u] = spmv::Ldg(val + j + u * stride);
#pragma unroll
    for (int u = 0; u < kBatch; u++) xv[u] = spmv::Ldg(x + c[u]);
#pragma unroll
    for (int u = 0; u < kBatch; u++) sum = spmv::Fma(v[u], xv[u], sum);
  }
  if (r > 0) {
    const int   j = end - r;
    bool        in[kBatch];
    int         c[kBatch];
    PetscScalar xv[kBatch], v[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; u++) {
      in[u] = u * stride < r;
      c[u]  = in[u] ? __ldg(col + j + u * stride) : 0;
    }
#pragma unroll
    for (int u = 0; u < kBatch; u++) xv[u] = in[u] ? spmv::Ldg(x + c[u]) : PetscScalar(0.0);
#pragma unroll
    for (int u = 0; u < kBatch; u++) v[u] = in[u] ? spmv::Ldg(val + j + u * stride) : PetscScalar(0.0);
#pragma unroll
    for (int u = 0; u < kBatch; u++)
      if (in[u]) sum = spmv::Fma(v[u], xv[u], sum);
  }
  return sum;
}

/* The lane classes of one group (G2: Y = 128/64/32, G3: L = 32..1), fused into one launch: class c runs
   sorted rows [begin[c], begin[c] + nrows[c]) with 2^lg[c] threads per row on the blocks [blk[c], blk[c+1]) */
constexpr int kMaxClasses = 6;
struct Classes {
  int n = 0;
  int blk[kMaxClasses + 1] = {};
  int begin[kMaxClasses] = {}, nrows[kMaxClasses] = {}, lg[kMaxClasses] = {};
};

/* G2 (the paper's vector kernel, Alg. 6 fixed) and G3 (lanes 1 = the paper's scalar kernel, Alg. 5):
   2^lg consecutive threads per sorted row, lanes stride the row, shuffle within the group (and through
   shared memory across the warps of a 64/128-lane group), lane 0 writes y[perm[k]]. A block belongs to one
   class, so the class (and the barrier below) is uniform over the block. No thread leaves early: rows past
   the end of the class contribute nothing to the shuffles. */
template <bool LOGICAL, bool ADD>
__global__ void __launch_bounds__(kThreads) GroupRows(Rows R, Classes C, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  __shared__ PetscScalar ws[kThreads / 32];
  const int              b = (int)blockIdx.x;
  int                    lg = C.lg[0], first = C.begin[0], nrows = C.nrows[0], blk = C.blk[0];
#pragma unroll
  for (int i = 1; i < kMaxClasses; i++) /* compile-time indices: the table stays in the parameter bank */
    if (i < C.n && C.blk[i] <= b) {
      lg    = C.lg[i];
      first = C.begin[i];
      nrows = C.nrows[i];
      blk   = C.blk[i];
    }
  const int     L    = 1 << lg, W = L < 32 ? L : 32;
  const int64_t q    = ((int64_t)(b - blk) * kThreads + threadIdx.x) >> lg;
  const int     lane = (int)threadIdx.x & (L - 1); /* kThreads is a multiple of L */
  const bool    act  = q < nrows;
  int           row = 0, beg = 0, end = 0;
  if (act) RowRange<LOGICAL>(R, first + (int)q, row, beg, end);
  PetscScalar sum = StridedDot(R.col, R.val, x, beg, end, lane, L, 0.0);
  for (int o = W >> 1; o > 0; o >>= 1) sum += spmv::ShflDown(kFull, sum, o, W);
  if (L > 32) { /* uniform over the block */
    if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (lane == 0) {
      sum = 0;
      for (int w = 0; w < (L >> 5); w++) sum += ws[(threadIdx.x >> 5) + w];
    }
  }
  if (act && lane == 0) y[row] = ADD ? y[row] + sum : sum;
}

/* G1, one block of BS threads per sorted row of [begin, begin + gridDim.x) */
template <int BS, bool LOGICAL, bool ADD>
__global__ void __launch_bounds__(BS) BlockRows(Rows R, int begin, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  int row, beg, end;
  RowRange<LOGICAL>(R, begin + (int)blockIdx.x, row, beg, end);
  PetscScalar sum = StridedDot(R.col, R.val, x, beg, end, (int)threadIdx.x, BS, 0.0);
  sum             = BlockSum<BS>(sum);
  if (threadIdx.x == 0) y[row] = ADD ? y[row] + sum : sum;
}

/* G1 rows longer than kSURAABigRow (sorted rows [0, nbig)): block c sums chunk c (kSURAAChunk entries) of
   the row k with cstart[k] <= c < cstart[k+1] into part[c] */
template <bool LOGICAL>
__global__ void __launch_bounds__(1024) ChunkSums(Rows R, int nbig, const int *__restrict__ cstart, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ part)
{
  __shared__ int sk;
  const int      c = (int)blockIdx.x;
  if (threadIdx.x == 0) {
    int lo = 0, hi = nbig - 1; /* the last k with cstart[k] <= c (every big row has at least one chunk) */
    while (lo < hi) {
      const int mid = lo + (hi - lo + 1) / 2;
      if (cstart[mid] <= c) lo = mid;
      else hi = mid - 1;
    }
    sk = lo;
  }
  __syncthreads();
  const int k = sk;
  int       row, beg, end;
  RowRange<LOGICAL>(R, k, row, beg, end);
  const int   b   = beg + (c - cstart[k]) * kSURAAChunk; /* < end < 2^31 */
  const int   e   = end - b < kSURAAChunk ? end : b + kSURAAChunk;
  PetscScalar sum = StridedDot(R.col, R.val, x, b, e, (int)threadIdx.x, 1024, 0.0);
  sum             = BlockSum<1024>(sum);
  if (threadIdx.x == 0) part[c] = sum;
}

/* one warp per big row: its chunk sums in a fixed order (deterministic), written through perm */
template <bool ADD>
__global__ void ChunkFinish(int nbig, const int *__restrict__ cstart, const PetscScalar *__restrict__ part, const int *__restrict__ perm, PetscScalar *__restrict__ y)
{
  const int64_t w    = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int     lane = threadIdx.x & 31;
  if (w >= nbig) return; /* whole warps leave together: blockDim is a multiple of 32 */
  PetscScalar sum = 0;
  for (int c = cstart[w] + lane; c < cstart[w + 1]; c += 32) sum += part[c];
  sum = WarpSum(sum);
  if (lane == 0) {
    const int row = perm[w];
    y[row]        = ADD ? y[row] + sum : sum;
  }
}

/* the cuSPARSE ablation: y[perm[k]] (+)= ys[k] */
template <bool ADD>
__global__ void Scatter(int rows, const int *__restrict__ perm, const PetscScalar *__restrict__ ys, PetscScalar *__restrict__ y)
{
  const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= rows) return;
  const int row = perm[k];
  y[row]        = ADD ? y[row] + ys[k] : ys[k];
}

#if defined(SPMV_SURAA_CDP)
/* The paper's Alg. 4 (brief §2.5): one block per row, blockDim a multiple of 32 (at most 1024) */
template <bool ADD>
__global__ void CdpChild(const int *__restrict__ col, const PetscScalar *__restrict__ val, int nz, const PetscScalar *__restrict__ x, PetscScalar *yrow)
{
  __shared__ PetscScalar ws[32];
  PetscScalar            sum = StridedDot(col, val, x, 0, nz, (int)threadIdx.x, (int)blockDim.x, 0.0);
  sum                        = WarpSum(sum);
  if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < (blockDim.x >> 5) ? ws[threadIdx.x] : 0.0;
    sum = WarpSum(sum);
    if (threadIdx.x == 0) *yrow = ADD ? *yrow + sum : sum;
  }
}

/* The paper's Alg. 3 on CDP2: a thread per G1 row launches its child into the fire-and-forget stream (no
   device-side synchronization: the parent grid completes after its children). A launch that fails (e.g.
   cudaErrorLaunchPendingCountExceeded) is counted and the thread computes its row itself. */
template <bool LOGICAL, bool ADD>
__global__ void CdpParent(Rows R, int nrows, const PetscScalar *x, PetscScalar *y, int *failed)
{
  const int k = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (k >= nrows) return;
  int row, beg, end;
  RowRange<LOGICAL>(R, k, row, beg, end);
  const int nz  = end - beg;
  const int tpb = min(1024, max(32, ((nz >> 1) + 31) & ~31));
  CdpChild<ADD><<<1, tpb, 0, cudaStreamFireAndForget>>>(R.col + beg, R.val + beg, nz, x, y + row);
  if (cudaGetLastError() != cudaSuccess) {
    PetscScalar sum = 0;
    for (int j = beg; j < end; j++) sum += R.val[j] * x[R.col[j]];
    y[row] = ADD ? y[row] + sum : sum;
    atomicAdd(failed, 1);
  }
}
#endif

/* ---------------------------------------------------------------------------------------------- */
/* Build                                                                                          */
/* ---------------------------------------------------------------------------------------------- */

/* len[r]; s = {nnz, maxlen, nonempty, rows with len >= T, rows with len > kSURAABigRow, > kSURAAMidRow} */
__global__ void RowStats(int m, const int *__restrict__ rp, int T, int *__restrict__ len, unsigned long long *__restrict__ s)
{
  unsigned long long v[6] = {0, 0, 0, 0, 0, 0};
  for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < m; r += (int64_t)gridDim.x * blockDim.x) {
    const int l = rp[r + 1] - rp[r];
    len[r]      = l;
    v[0] += (unsigned long long)l;
    v[1] = max(v[1], (unsigned long long)l);
    v[2] += l > 0;
    v[3] += l >= T;
    v[4] += l > kSURAABigRow;
    v[5] += l > kSURAAMidRow;
  }
  for (int o = 16; o > 0; o >>= 1) {
    for (int q = 0; q < 6; q++) {
      const unsigned long long u = __shfl_down_sync(kFull, v[q], o);
      v[q]                       = q == 1 ? max(v[q], u) : v[q] + u;
    }
  }
  if ((threadIdx.x & 31) == 0) {
    for (int q = 0; q < 6; q++) {
      if (q == 1) atomicMax(s + q, v[q]);
      else atomicAdd(s + q, v[q]);
    }
  }
}

/* sort key: (maxlen - len) << colbits | first column (n for an empty row): ascending = length descending,
   then first column ascending; the radix sort is stable, so equal keys keep the row order */
__global__ void MakeKeys(int m, int n, const int *__restrict__ rp, const int *__restrict__ cj, const int *__restrict__ len, int maxlen, int colbits, unsigned long long *__restrict__ key, int *__restrict__ rows)
{
  const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= m) return;
  const int                l  = len[r];
  const unsigned long long fc = l > 0 ? (unsigned long long)cj[rp[r]] : (unsigned long long)n;
  key[r]                      = ((unsigned long long)(maxlen - l) << colbits) | fc;
  rows[r]                     = (int)r;
}

__global__ void SortedLengths(int m, const unsigned long long *__restrict__ skey, int maxlen, int colbits, int *__restrict__ slen)
{
  const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < m) slen[k] = maxlen - (int)(skey[k] >> colbits);
  else if (k == m) slen[k] = 0;
}

/* count[p] = the number of leading segments satisfying predicate p (a prefix: segment means never increase) */
__global__ void SegmentCounts(int m, int S, int nseg, const int *__restrict__ rps, int T, int E, int *__restrict__ count)
{
  const int p = (int)threadIdx.x;
  if (p >= SURAA_NPRED) return;
  int lo = 0, hi = nseg; /* the first segment that fails */
  while (lo < hi) {
    const int     mid = lo + (hi - lo) / 2;
    const int64_t b = (int64_t)mid * S, e = min(b + S, (int64_t)m);
    if (SURAASegmentPredicate(p, (int64_t)rps[e] - rps[b], e - b, T, E)) lo = mid + 1;
    else hi = mid;
  }
  count[p] = lo;
}

__global__ void ChunkCounts(int nbig, const int *__restrict__ rps, int *__restrict__ nch)
{
  const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nbig) nch[k] = (rps[k + 1] - rps[k] + kSURAAChunk - 1) / kSURAAChunk;
  else if (k == nbig) nch[k] = 0;
}

/* The physical gather as one CUB batched copy: buffer k is the run of sorted row k (k < nonempty) */
template <typename T>
struct RunSrc {
  const int *rp, *perm;
  const T   *base;
  __host__ __device__ const void *operator()(int k) const { return base + rp[perm[k]]; }
};
template <typename T>
struct RunDst {
  const int *rps;
  T         *base;
  __host__ __device__ void *operator()(int k) const { return base + rps[k]; }
};
template <typename T, typename SizeT>
struct RunBytes {
  const int *rps;
  __host__ __device__ SizeT operator()(int k) const { return (SizeT)(rps[k + 1] - rps[k]) * (SizeT)sizeof(T); }
};

template <typename T, typename SizeT>
cudaError_t GatherRunsT(void *tmp, std::size_t &bytes, const int *rp, const int *perm, const int *rps, const T *src, T *dst, int nruns, cudaStream_t s)
{
  const thrust::counting_iterator<int> k(0);
  const auto                           in  = thrust::make_transform_iterator(k, RunSrc<T>{rp, perm, src});
  const auto                           out = thrust::make_transform_iterator(k, RunDst<T>{rps, dst});
  const auto                           sz  = thrust::make_transform_iterator(k, RunBytes<T, SizeT>{rps});
  return cub::DeviceMemcpy::Batched(tmp, bytes, in, out, sz, (int64_t)nruns, s);
}

/* 32-bit byte counts unless a row holds 2^32 bytes or more */
template <typename T>
cudaError_t GatherRuns(bool wide, void *tmp, std::size_t &bytes, const int *rp, const int *perm, const int *rps, const T *src, T *dst, int nruns, cudaStream_t s)
{
  return wide ? GatherRunsT<T, unsigned long long>(tmp, bytes, rp, perm, rps, src, dst, nruns, s) : GatherRunsT<T, unsigned int>(tmp, bytes, rp, perm, rps, src, dst, nruns, s);
}

/* block threads per block (kThreads unless given), at most 2^30 blocks */
inline unsigned GridFor(int64_t threads, int block = kThreads) { return spmv::GridFor(threads, block, (int64_t)1 << 30); }

inline int Bits(int64_t v) { return v > 0 ? 64 - __builtin_clzll((unsigned long long)v) : 0; }

struct SURAADevice {
  int              *perm = nullptr, *rps = nullptr, *col = nullptr, *cstart = nullptr, *failed = nullptr;
  PetscScalar      *val = nullptr, *part = nullptr, *ybuf = nullptr;
  void             *gtmp      = nullptr; /* CUB batched-copy scratch, kept for the values refresh */
  std::size_t       gtmpbytes = 0;
  bool              wide      = false;  /* byte counts of the gather need 64 bits */
  const int        *rp = nullptr, *cj = nullptr; /* the device CSR (kept by the generic type) */
  const PetscScalar *a = nullptr;
  cudaStream_t      gs[2] = {nullptr, nullptr}; /* G1, G2 when they run beside G3 */
  cudaEvent_t       fork = nullptr, join[2] = {nullptr, nullptr};
  cusparseHandle_t     sp   = nullptr; /* -mat_suraa_kernels cusparse */
  cusparseSpMatDescr_t spA  = nullptr;
  cusparseDnVecDescr_t spx = nullptr, spy = nullptr;
  void                *spbuf = nullptr;
  std::size_t          bytes = 0;
};
} // namespace

SPMV_KERNEL_MODULE(RowStats); /* the first selection's builds: loaded ahead by spmv::WarmPool */

class SURAA final : public SpMVFormat {
  SURAAOptions    opt;
  SURAAPlan       hplan, dplan; /* of the host reference, of the device layout */
  bool            last_device = false;
  SURAAHostLayout host;
  SURAADevice     dev;

  /* the lane classes of group kind (SURAA_G2 or SURAA_G3) as one launch, rows clipped to lim */
  PetscErrorCode GroupClasses(int kind, int lim, Classes *C) const
  {
    int64_t blocks = 0;

    PetscFunctionBegin;
    *C = Classes();
    for (int l = 0; l < dplan.nlaunch; l++) {
      const SURAALaunch &c = dplan.launch[l];
      const int          b = c.begin, e = std::min(c.end, lim);
      if (c.kind != kind || e <= b) continue;
      PetscCheck(C->n < kMaxClasses && c.lanes >= 1 && c.lanes <= 128 && (c.lanes & (c.lanes - 1)) == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SURAA: bad lane class %d (%d lanes)", C->n, c.lanes);
      C->blk[C->n]   = (int)blocks;
      C->begin[C->n] = b;
      C->nrows[C->n] = e - b;
      C->lg[C->n]    = __builtin_ctz((unsigned)c.lanes);
      blocks += ((int64_t)(e - b) * c.lanes + kThreads - 1) / kThreads;
      C->n++;
    }
    PetscCheck(blocks < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_INT_OVERFLOW, "SURAA: %" PetscInt64_FMT " blocks in one launch", blocks);
    C->blk[C->n] = (int)blocks;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  template <bool LOGICAL, bool ADD>
  PetscErrorCode Run(const PetscScalar *x, PetscScalar *y, cudaStream_t s) const
  {
    const SURAAPlan &p   = dplan;
    const Rows       R   = {dev.rps, dev.rp, dev.perm, LOGICAL ? dev.cj : dev.col, LOGICAL ? dev.a : dev.val};
    const int        lim = ADD ? (int)p.nonempty : (int)p.m; /* y += A x leaves the empty rows (sorted last) alone */
    bool             has[3] = {false, false, false};

    PetscFunctionBegin;
    for (int l = 0; l < p.nlaunch; l++) {
      const SURAALaunch &c = p.launch[l];
      if (std::min(c.end, lim) > c.begin) has[c.kind <= SURAA_G1_BLOCK64 ? 0 : (c.kind == SURAA_G2 ? 1 : 2)] = true;
    }
    /* the last group present runs on s, the others on their own streams forked from s and joined back */
    const int    last    = has[2] ? 2 : (has[1] ? 1 : 0);
    cudaStream_t st[3]   = {s, s, s};
    bool         forked  = false;
    for (int g = 0; g < 2; g++)
      if (opt.streams && has[g] && g != last) {
        if (!forked) PetscCallCUDA(cudaEventRecord(dev.fork, s));
        forked = true;
        st[g]  = dev.gs[g];
        PetscCallCUDA(cudaStreamWaitEvent(st[g], dev.fork, 0));
      }
#if defined(SPMV_SURAA_CDP)
    if (opt.dynamic_parallelism && has[0]) {
      const int n1 = std::min((int)p.r1, lim);
      CdpParent<LOGICAL, ADD><<<GridFor(n1, 128), 128, 0, st[0]>>>(R, n1, x, y, dev.failed);
      SpMVCheckLaunch();
    }
    const bool g1blocks = !opt.dynamic_parallelism;
#else
    const bool g1blocks = true;
#endif
    for (int l = 0; l < p.nlaunch; l++) {
      const SURAALaunch &c = p.launch[l];
      const int          b = c.begin, e = std::min(c.end, lim);
      if (e <= b) continue;
      switch (c.kind) {
      case SURAA_G1_CHUNKS:
        if (!g1blocks) break;
        ChunkSums<LOGICAL><<<(unsigned)p.nchunks, 1024, 0, st[0]>>>(R, (int)p.nbig, dev.cstart, x, dev.part);
        SpMVCheckLaunch();
        ChunkFinish<ADD><<<GridFor((int64_t)p.nbig * 32, 128), 128, 0, st[0]>>>((int)p.nbig, dev.cstart, dev.part, dev.perm, y);
        SpMVCheckLaunch();
        break;
      case SURAA_G1_BLOCK256:
        if (!g1blocks) break;
        BlockRows<256, LOGICAL, ADD><<<(unsigned)(e - b), 256, 0, st[0]>>>(R, b, x, y);
        SpMVCheckLaunch();
        break;
      case SURAA_G1_BLOCK64:
        if (!g1blocks) break;
        BlockRows<64, LOGICAL, ADD><<<(unsigned)(e - b), 64, 0, st[0]>>>(R, b, x, y);
        SpMVCheckLaunch();
        break;
      default: /* G2, G3: one fused launch each, below */
        break;
      }
    }
    for (int g = 1; g < 3; g++) {
      Classes C;
      PetscCall(GroupClasses(g == 1 ? SURAA_G2 : SURAA_G3, lim, &C));
      if (!C.n) continue;
      GroupRows<LOGICAL, ADD><<<(unsigned)C.blk[C.n], kThreads, 0, st[g]>>>(R, C, x, y);
      SpMVCheckLaunch();
    }
    for (int g = 0; g < 2; g++)
      if (st[g] != s) {
        PetscCallCUDA(cudaEventRecord(dev.join[g], st[g]));
        PetscCallCUDA(cudaStreamWaitEvent(s, dev.join[g], 0));
      }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  template <bool ADD>
  PetscErrorCode RunCusparse(const PetscScalar *x, PetscScalar *y, cudaStream_t s) const
  {
    const PetscScalar one = 1.0, zero = 0.0;
    const int         rows = ADD ? (int)dplan.nonempty : (int)dplan.m;

    PetscFunctionBegin;
    if (!dplan.nnz) { /* nothing to multiply (the generic type does not call us then, but be exact) */
      if (!ADD) PetscCallCUDA(cudaMemsetAsync(y, 0, dplan.m * sizeof(PetscScalar), s));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCallCUSPARSE(cusparseSetStream(dev.sp, s));
    PetscCallCUSPARSE(cusparseDnVecSetValues(dev.spx, (void *)x));
    PetscCallCUSPARSE(cusparseSpMV(dev.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, dev.spA, dev.spx, &zero, dev.spy, spmv::kCudaScalar, opt.cusparse_alg == 2 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1, dev.spbuf));
    if (rows > 0) Scatter<ADD><<<GridFor(rows), kThreads, 0, s>>>(rows, dev.perm, dev.ybuf, y);
    SpMVCheckLaunch();
    PetscFunctionReturn(PETSC_SUCCESS);
  }

public:
  ~SURAA() override { (void)ReleaseDevice(); }

  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    PetscFunctionBegin;
    PetscCall(PetscOptionsEnum("-mat_suraa_segments", "Segment size rule: literal = max(1, floor(2 IQR / cbrt(m))) rows (the paper's Eq. (1)), fd_bins = ceil(m / k) rows for k Freedman-Diaconis bins (brief 5.1), rows = -mat_suraa_segment_rows", "MatSetType", SURAASegmentsTypes, (PetscEnum)opt.segments, (PetscEnum *)&opt.segments, NULL));
    PetscCall(PetscOptionsInt("-mat_suraa_segment_rows", "Rows per segment for -mat_suraa_segments rows", "MatSetType", opt.segment_rows, &opt.segment_rows, NULL));
    PetscCall(PetscOptionsInt("-mat_suraa_max_segments", "Most segments for -mat_suraa_segments fd_bins (Kmax)", "MatSetType", opt.max_segments, &opt.max_segments, NULL));
    PetscCall(PetscOptionsInt("-mat_suraa_vector_threshold", "Segments with mean nonzeros per row >= this go to the vector (G2) or block (G1) groups; the others to G3", "MatSetType", opt.vector_threshold, &opt.vector_threshold, NULL));
    PetscCall(PetscOptionsInt("-mat_suraa_g1_max_rows", "Most rows in the long-row group G1 (the paper's max_child_threads); -1 = rows with npr >= threshold, at most 8192; 0 = no G1", "MatSetType", opt.g1_max_rows, &opt.g1_max_rows, NULL));
    PetscCall(PetscOptionsInt("-mat_suraa_vector_width", "G2 threads per row: 0 = per segment, roundup32(mean/E) in [32, 128] (E = -mat_suraa_lane_entries); or 32, 64, 128", "MatSetType", opt.vector_width, &opt.vector_width, NULL));
    PetscCall(PetscOptionsInt("-mat_suraa_g3_lanes", "G3 threads per row: 0 = per segment, the smallest power of two >= mean/E (E = -mat_suraa_lane_entries); 1 = the paper's thread-per-row kernel; or 2, 4, 8, 16, 32", "MatSetType", opt.g3_lanes, &opt.g3_lanes, NULL));
    PetscCall(PetscOptionsInt("-mat_suraa_lane_entries", "E, about E nonzeros per lane for the automatic lane counts (G3 lanes, G2 width): 1, 2 (the paper's mean/2), 4, 8, 16 or 32", "MatSetType", opt.lane_entries, &opt.lane_entries, NULL));
    PetscCall(PetscOptionsBool("-mat_suraa_mean_gate", "Matrix mean nonzeros per row below the threshold: every row in G3 (brief 5.2)", "MatSetType", opt.mean_gate, &opt.mean_gate, NULL));
#if defined(SPMV_SURAA_CDP)
    PetscCall(PetscOptionsBool("-mat_suraa_dynamic_parallelism", "G1 by CUDA dynamic parallelism: a parent thread per row launches a one-block child (the paper's Alg. 3/4, CDP2)", "MatSetType", opt.dynamic_parallelism, &opt.dynamic_parallelism, NULL));
#else
    PetscCall(PetscOptionsBool("-mat_suraa_dynamic_parallelism", "G1 by CUDA dynamic parallelism (not in this build: make SPMV_SURAA_CDP=1)", "MatSetType", opt.dynamic_parallelism, &opt.dynamic_parallelism, NULL));
    PetscCheck(!opt.dynamic_parallelism, PETSC_COMM_SELF, PETSC_ERR_SUP, "-mat_suraa_dynamic_parallelism: this library was built without CUDA dynamic parallelism; rebuild with make SPMV_SURAA_CDP=1 (compiles suraa.cu with -rdc=true -DSPMV_SURAA_CDP, device-links it and links cudadevrt)");
#endif
    PetscCall(PetscOptionsBool("-mat_suraa_streams", "Run G1 and G2 on their own streams, forked from and joined to PETSc's stream, concurrent with G3", "MatSetType", opt.streams, &opt.streams, NULL));
    PetscCall(PetscOptionsEnum("-mat_suraa_permute", "physical: rows gathered in sorted order (coalesced); logical: kernels read the CSR through perm (no copy)", "MatSetType", SURAAPermuteTypes, (PetscEnum)opt.permute, (PetscEnum *)&opt.permute, NULL));
    PetscCall(PetscOptionsEnum("-mat_suraa_kernels", "suraa: the group kernels; cusparse: cusparseSpMV on the same sorted CSR, then y[perm] (ablation)", "MatSetType", SURAAKernelsTypes, (PetscEnum)opt.kernels, (PetscEnum *)&opt.kernels, NULL));
    PetscCall(PetscOptionsInt("-mat_suraa_cusparse_alg", "cuSPARSE CSR SpMV algorithm for -mat_suraa_kernels cusparse: 1 or 2", "MatSetType", opt.cusparse_alg, &opt.cusparse_alg, NULL));
    PetscCall(SURAACheckOptions(opt));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode CopyOptions(const SpMVFormat &from) override
  {
    PetscFunctionBegin;
    opt = static_cast<const SURAA &>(from).opt;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode BuildHost(const SpMVHostCsr &A) override
  {
    PetscFunctionBegin;
    PetscCall(SURAABuildHostLayout(opt, A, &host, &hplan));
    last_device = false;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode RefreshHost(const SpMVHostCsr &A) override { return SURAARefreshHostLayout(A, &host); }
  PetscErrorCode MultHost(const PetscScalar *x, PetscScalar *y, bool add) const override
  {
    PetscFunctionBegin;
    SURAAMultHost(host, hplan, SpMVHostArray(x), SpMVHostArray(y), add);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode ReleaseDevice() override
  {
    PetscFunctionBegin;
    PetscCall(spmv::DeviceFree({dev.perm, dev.rps, dev.col, dev.cstart, dev.failed, dev.val, dev.part, dev.ybuf, dev.gtmp, dev.spbuf}));
    for (int g = 0; g < 2; g++) {
      if (dev.gs[g]) PetscCallCUDA(cudaStreamDestroy(dev.gs[g]));
      if (dev.join[g]) PetscCallCUDA(cudaEventDestroy(dev.join[g]));
    }
    if (dev.fork) PetscCallCUDA(cudaEventDestroy(dev.fork));
    if (dev.spA) PetscCallCUSPARSE(cusparseDestroySpMat(dev.spA));
    if (dev.spx) PetscCallCUSPARSE(cusparseDestroyDnVec(dev.spx));
    if (dev.spy) PetscCallCUSPARSE(cusparseDestroyDnVec(dev.spy));
    if (dev.sp) PetscCallCUSPARSE(cusparseDestroy(dev.sp));
    dev = SURAADevice();
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  std::size_t DeviceBytes() const override { return dev.bytes; }

  PetscErrorCode BuildDevice(const SpMVDeviceCsr &A, cudaStream_t s) override
  {
    const PetscInt      m = A.m, n = A.n;
    SURAAPlan          &p   = dplan;
    int                *len = nullptr, *rows = nullptr, *slen = nullptr, *nch = nullptr, *dcount = nullptr;
    unsigned long long *keys = nullptr, *skeys = nullptr, *sums = nullptr, hs[6];
    void               *tmp      = nullptr;
    std::size_t         tmpbytes = 0, need = 0;

    PetscFunctionBegin;
    PetscCall(ReleaseDevice());
    PetscCall(SURAACheckOptions(opt));
    p           = SURAAPlan();
    p.m         = m;
    p.n         = n;
    last_device = true;
    dev.rp      = A.i;
    dev.cj      = A.j;
    dev.a       = A.a;
    PetscCheck(m < PETSC_INT32_MAX && n < PETSC_INT32_MAX && A.nnz < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "SURAA stores 32-bit indices");
    if (m == 0) {
      PetscCall(SURAASegmentRows(opt, &p));
      PetscCall(SURAAPlanFromCounts(opt, &p));
      PetscCall(spmv::DeviceAlloc(&dev.rps, 1, &dev.bytes, s));
      PetscCall(spmv::DeviceAlloc(&dev.cstart, 1, &dev.bytes, s));
      PetscCallCUDA(cudaMemsetAsync(dev.rps, 0, sizeof(int), s));
      PetscCallCUDA(cudaMemsetAsync(dev.cstart, 0, sizeof(int), s));
      PetscCallCUDA(cudaStreamSynchronize(s));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    /* 1. row lengths and statistics */
    PetscCall(spmv::DeviceAlloc(&len, m, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&sums, 6, nullptr, s));
    PetscCallCUDA(cudaMemsetAsync(sums, 0, 6 * sizeof(*sums), s));
    RowStats<<<std::min(GridFor(m), 1024u), kThreads, 0, s>>>((int)m, A.i, (int)opt.vector_threshold, len, sums);
    SpMVCheckLaunch();
    PetscCallCUDA(cudaMemcpyAsync(hs, sums, sizeof(hs), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    p.nnz       = (int64_t)hs[0];
    p.maxlen    = (PetscInt)hs[1];
    p.nonempty  = (PetscInt)hs[2];
    p.rows_ge_T = (PetscInt)hs[3];
    p.rows_big  = (PetscInt)hs[4];
    p.rows_mid  = (PetscInt)hs[5];
    PetscCheck(p.nnz == (int64_t)A.nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SURAA: the device CSR holds %" PetscInt64_FMT " entries, expected %" PetscInt_FMT, p.nnz, A.nnz);
    /* 2. sort: length descending, first column ascending, row ascending (stable) */
    const int colbits = Bits(n), endbit = std::max(1, colbits + Bits(p.maxlen));
    PetscCall(spmv::DeviceAlloc(&keys, m, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&skeys, m, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&rows, m, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&dev.perm, m, &dev.bytes, s));
    MakeKeys<<<GridFor(m), kThreads, 0, s>>>((int)m, (int)n, A.i, A.j, len, (int)p.maxlen, colbits, keys, rows);
    SpMVCheckLaunch();
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(nullptr, need, keys, skeys, rows, dev.perm, (int)m, 0, endbit, s));
    PetscCall(spmv::GrowScratch(&tmp, &tmpbytes, need, s));
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, need, keys, skeys, rows, dev.perm, (int)m, 0, endbit, s));
    /* 3. sorted row offsets */
    PetscCall(spmv::DeviceAlloc(&slen, m + 1, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&dev.rps, m + 1, &dev.bytes, s));
    SortedLengths<<<GridFor(m + 1), kThreads, 0, s>>>((int)m, skeys, (int)p.maxlen, colbits, slen);
    SpMVCheckLaunch();
    PetscCall(spmv::ExclusiveSum(slen, dev.rps, (int)(m + 1), &tmp, &tmpbytes, s));
    /* 4. quartile reads and the segment size (host arithmetic shared with the reference) */
    {
      int q[3];
      PetscCallCUDA(cudaMemcpyAsync(&q[0], slen + m / 4, sizeof(int), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaMemcpyAsync(&q[1], slen + (3 * (int64_t)m) / 4, sizeof(int), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaMemcpyAsync(&q[2], slen + m - 1, sizeof(int), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaStreamSynchronize(s));
      p.qa     = q[0];
      p.qb     = q[1];
      p.minlen = q[2];
    }
    PetscCall(SURAASegmentRows(opt, &p));
    /* 5. segments satisfying each predicate, then the groups and launches */
    {
      int c[SURAA_NPRED];
      PetscCall(spmv::DeviceAlloc(&dcount, SURAA_NPRED, nullptr, s));
      SegmentCounts<<<1, 32, 0, s>>>((int)m, (int)p.S, (int)p.nseg, dev.rps, (int)opt.vector_threshold, (int)opt.lane_entries, dcount);
      SpMVCheckLaunch();
      PetscCallCUDA(cudaMemcpyAsync(c, dcount, sizeof(c), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaStreamSynchronize(s));
      for (int q = 0; q < SURAA_NPRED; q++) p.count[q] = c[q];
    }
    PetscCall(SURAAPlanFromCounts(opt, &p));
    /* 6. chunks of the big G1 rows */
    PetscCall(spmv::DeviceAlloc(&dev.cstart, p.nbig + 1, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&nch, p.nbig + 1, nullptr, s));
    ChunkCounts<<<GridFor(p.nbig + 1), kThreads, 0, s>>>((int)p.nbig, dev.rps, nch);
    SpMVCheckLaunch();
    PetscCall(spmv::ExclusiveSum(nch, dev.cstart, (int)(p.nbig + 1), &tmp, &tmpbytes, s));
    {
      int nc, g[3];
      PetscCallCUDA(cudaMemcpyAsync(&nc, dev.cstart + p.nbig, sizeof(int), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaMemcpyAsync(&g[0], dev.rps + p.r1, sizeof(int), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaMemcpyAsync(&g[1], dev.rps + p.rv, sizeof(int), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaMemcpyAsync(&g[2], dev.rps + m, sizeof(int), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaStreamSynchronize(s));
      p.nchunks      = nc;
      p.group_nnz[0] = g[0];
      p.group_nnz[1] = g[1] - g[0];
      p.group_nnz[2] = g[2] - g[1];
    }
    PetscCall(spmv::DeviceAlloc(&dev.part, p.nchunks, &dev.bytes, s));
    /* 7. physical mode: the rows gathered in sorted order (one batched copy per array) */
    if (opt.permute == SURAA_PERMUTE_PHYSICAL) {
      PetscCall(spmv::DeviceAlloc(&dev.col, p.nnz, &dev.bytes, s));
      PetscCall(spmv::DeviceAlloc(&dev.val, p.nnz, &dev.bytes, s));
      dev.wide = (int64_t)p.maxlen * (int64_t)sizeof(PetscScalar) >= ((int64_t)1 << 32);
      if (p.nonempty > 0) {
        std::size_t b1 = 0, b2 = 0;
        PetscCallCUDA(GatherRuns<int>(dev.wide, nullptr, b1, dev.rp, dev.perm, dev.rps, A.j, dev.col, (int)p.nonempty, s));
        PetscCallCUDA(GatherRuns<PetscScalar>(dev.wide, nullptr, b2, dev.rp, dev.perm, dev.rps, A.a, dev.val, (int)p.nonempty, s));
        PetscCall(spmv::GrowScratch(&dev.gtmp, &dev.gtmpbytes, std::max(b1, b2), s));
        dev.bytes += dev.gtmpbytes;
        b1 = b2 = dev.gtmpbytes;
        PetscCallCUDA(GatherRuns<int>(dev.wide, dev.gtmp, b1, dev.rp, dev.perm, dev.rps, A.j, dev.col, (int)p.nonempty, s));
        PetscCallCUDA(GatherRuns<PetscScalar>(dev.wide, dev.gtmp, b2, dev.rp, dev.perm, dev.rps, A.a, dev.val, (int)p.nonempty, s));
      }
    }
    /* 8. G1 by dynamic parallelism: a pending-launch pool for every G1 row (the parent falls back if not) */
#if defined(SPMV_SURAA_CDP)
    PetscCall(spmv::DeviceAlloc(&dev.failed, 1, &dev.bytes, s));
    PetscCallCUDA(cudaMemsetAsync(dev.failed, 0, sizeof(int), s));
    if (opt.dynamic_parallelism && p.r1 > 0) {
      std::size_t cur = 0;
      PetscCallCUDA(cudaDeviceGetLimit(&cur, cudaLimitDevRuntimePendingLaunchCount));
      if (cur < (std::size_t)p.r1) {
        const cudaError_t err = cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, (std::size_t)p.r1);
        if (err != cudaSuccess) {
          (void)cudaGetLastError();
          PetscCall(PetscInfo(NULL, "SURAA: could not raise cudaLimitDevRuntimePendingLaunchCount from %zu to %" PetscInt_FMT " (%s); parents whose launch fails compute their row\n", cur, p.r1, cudaGetErrorString(err)));
        }
      }
    }
#endif
    /* 9. streams and events for the groups, created here once (never per product) */
    if (opt.streams) {
      for (int g = 0; g < 2; g++) {
        PetscCallCUDA(cudaStreamCreateWithFlags(&dev.gs[g], cudaStreamNonBlocking));
        PetscCallCUDA(cudaEventCreateWithFlags(&dev.join[g], cudaEventDisableTiming));
      }
      PetscCallCUDA(cudaEventCreateWithFlags(&dev.fork, cudaEventDisableTiming));
    }
    /* 10. the cuSPARSE ablation on the sorted CSR */
    if (opt.kernels == SURAA_KERNELS_CUSPARSE && p.nnz > 0) {
      const PetscScalar one = 1.0, zero = 0.0;
      std::size_t       bs  = 0;
      PetscCall(spmv::DeviceAlloc(&dev.ybuf, m, &dev.bytes, s));
      PetscCallCUSPARSE(cusparseCreate(&dev.sp));
      PetscCallCUSPARSE(cusparseSetStream(dev.sp, s));
      PetscCallCUSPARSE(cusparseCreateCsr(&dev.spA, m, n, p.nnz, dev.rps, dev.col, dev.val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, spmv::kCudaScalar));
      PetscCallCUSPARSE(cusparseCreateDnVec(&dev.spx, n, (void *)dev.a, spmv::kCudaScalar)); /* a placeholder: MultDevice sets x */
      PetscCallCUSPARSE(cusparseCreateDnVec(&dev.spy, m, dev.ybuf, spmv::kCudaScalar));
      const cusparseSpMVAlg_t alg = opt.cusparse_alg == 2 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1;
      PetscCallCUSPARSE(cusparseSpMV_bufferSize(dev.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, dev.spA, dev.spx, &zero, dev.spy, spmv::kCudaScalar, alg, &bs));
      PetscCall(spmv::DeviceAlloc((char **)&dev.spbuf, bs, &dev.bytes, s));
      PetscCallCUSPARSE(cusparseSpMV_preprocess(dev.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, dev.spA, dev.spx, &zero, dev.spy, spmv::kCudaScalar, alg, dev.spbuf));
    }
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(spmv::DeviceFree({len, rows, slen, nch, dcount, keys, skeys, sums, tmp}, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode RefreshDevice(const SpMVDeviceCsr &A, cudaStream_t s) override
  {
    PetscFunctionBegin;
    dev.rp = A.i;
    dev.cj = A.j;
    dev.a  = A.a;
    if (opt.permute == SURAA_PERMUTE_PHYSICAL && dplan.nonempty > 0) {
      std::size_t b = dev.gtmpbytes;
      PetscCallCUDA(GatherRuns<PetscScalar>(dev.wide, dev.gtmp, b, dev.rp, dev.perm, dev.rps, A.a, dev.val, (int)dplan.nonempty, s));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode MultDevice(const PetscScalar *x, PetscScalar *y, bool add, cudaStream_t s) const override
  {
    PetscFunctionBegin;
    if (!dplan.m) PetscFunctionReturn(PETSC_SUCCESS);
    if (opt.kernels == SURAA_KERNELS_CUSPARSE) {
      if (add) PetscCall(RunCusparse<true>(x, y, s));
      else PetscCall(RunCusparse<false>(x, y, s));
    } else if (opt.permute == SURAA_PERMUTE_LOGICAL) {
      if (add) PetscCall((Run<true, true>(x, y, s)));
      else PetscCall((Run<true, false>(x, y, s)));
    } else {
      if (add) PetscCall((Run<false, true>(x, y, s)));
      else PetscCall((Run<false, false>(x, y, s)));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode View(PetscViewer v) const override
  {
    PetscFunctionBegin;
    PetscCall(SURAAViewPlan(v, opt, last_device ? dplan : hplan));
    PetscCall(PetscViewerASCIIPrintf(v, "SURAA: %s permutation, %s kernels, G1 by %s, groups on %s, device memory %.3g MB\n", SURAAPermuteTypes[opt.permute], SURAAKernelsTypes[opt.kernels], opt.dynamic_parallelism ? "dynamic parallelism (CDP2)" : "host-launched blocks", opt.streams ? "forked streams" : "one stream", dev.bytes / 1e6));
#if defined(SPMV_SURAA_CDP)
    if (last_device && opt.dynamic_parallelism && dev.failed) {
      int failed = 0;
      PetscCallCUDA(cudaMemcpy(&failed, dev.failed, sizeof(int), cudaMemcpyDeviceToHost));
      PetscCall(PetscViewerASCIIPrintf(v, "SURAA: child launches that failed (rows computed by their parent thread): %d\n", failed));
    }
#endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode Verify(const SpMVHostCsr &A, cudaStream_t s, PetscReal *maxdiff) override
  {
    SURAAHostLayout  ref;
    SURAAPlan        rp;
    const SURAAPlan &p = dplan;

    PetscFunctionBegin;
    PetscCall(SURAABuildHostLayout(opt, A, &ref, &rp));
    bool same = rp.m == p.m && rp.n == p.n && rp.nnz == p.nnz && rp.nonempty == p.nonempty && rp.maxlen == p.maxlen && rp.minlen == p.minlen && rp.rows_ge_T == p.rows_ge_T && rp.rows_big == p.rows_big && rp.rows_mid == p.rows_mid;
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SURAA device statistics differ from the host reference (device/host): nnz %" PetscInt64_FMT "/%" PetscInt64_FMT " nonempty %" PetscInt_FMT "/%" PetscInt_FMT " maxlen %" PetscInt_FMT "/%" PetscInt_FMT " minlen %" PetscInt_FMT "/%" PetscInt_FMT " rows>=T %" PetscInt_FMT "/%" PetscInt_FMT " big %" PetscInt_FMT "/%" PetscInt_FMT " mid %" PetscInt_FMT "/%" PetscInt_FMT,
               p.nnz, rp.nnz, p.nonempty, rp.nonempty, p.maxlen, rp.maxlen, p.minlen, rp.minlen, p.rows_ge_T, rp.rows_ge_T, p.rows_big, rp.rows_big, p.rows_mid, rp.rows_mid);
    same = rp.qa == p.qa && rp.qb == p.qb && rp.iqr == p.iqr && rp.fd_h == p.fd_h && rp.S == p.S && rp.nseg == p.nseg;
    for (int q = 0; q < SURAA_NPRED; q++) same = same && rp.count[q] == p.count[q];
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SURAA device segments differ from the host reference (device/host): quartile reads %" PetscInt_FMT ",%" PetscInt_FMT "/%" PetscInt_FMT ",%" PetscInt_FMT " S %" PetscInt_FMT "/%" PetscInt_FMT " segments %" PetscInt_FMT "/%" PetscInt_FMT " vector segments %" PetscInt_FMT "/%" PetscInt_FMT,
               p.qa, p.qb, rp.qa, rp.qb, p.S, rp.S, p.nseg, rp.nseg, p.count[SURAA_P_VEC], rp.count[SURAA_P_VEC]);
    same = rp.g1_max == p.g1_max && rp.r1 == p.r1 && rp.rv == p.rv && rp.nbig == p.nbig && rp.nchunks == p.nchunks && rp.nlaunch == p.nlaunch;
    for (int l = 0; same && l < p.nlaunch; l++) same = rp.launch[l] == p.launch[l];
    for (int g = 0; g < 3; g++) same = same && rp.group_nnz[g] == p.group_nnz[g];
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SURAA device plan differs from the host reference (device/host): r1 %" PetscInt_FMT "/%" PetscInt_FMT " rv %" PetscInt_FMT "/%" PetscInt_FMT " big rows %" PetscInt_FMT "/%" PetscInt_FMT " chunks %" PetscInt_FMT "/%" PetscInt_FMT " launches %d/%d", p.r1, rp.r1, p.rv, rp.rv, p.nbig, rp.nbig, p.nchunks, rp.nchunks, p.nlaunch, rp.nlaunch);
    std::vector<int>         perm(p.m), rps(p.m + 1), cstart(p.nbig + 1), col;
    std::vector<PetscScalar> val;
    PetscCallCUDA(cudaStreamSynchronize(s));
    if (p.m) {
      PetscCall(spmv::Download(perm, dev.perm));
      PetscCall(spmv::Download(rps, dev.rps));
      PetscCall(spmv::Download(cstart, dev.cstart));
      if (opt.permute == SURAA_PERMUTE_PHYSICAL) {
        col.resize(p.nnz);
        val.resize(p.nnz);
        if (p.nnz) {
          PetscCall(spmv::Download(col, dev.col));
          PetscCall(spmv::Download(val, dev.val));
        }
      }
    }
    PetscCheck(p.m == 0 || perm == ref.perm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SURAA device permutation differs from the host reference");
    PetscCheck(p.m == 0 || rps == ref.rps, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SURAA device sorted row offsets differ from the host reference");
    PetscCheck(p.m == 0 || cstart == ref.cstart, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SURAA device chunk offsets differ from the host reference");
    PetscCheck(col == ref.col, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SURAA device sorted column indices differ from the host reference");
    *maxdiff = 0;
    PetscCheck(val.size() == ref.val.size(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "SURAA device holds %zu sorted values, the host reference %zu", val.size(), ref.val.size());
    for (std::size_t k = 0; k < val.size(); k++) *maxdiff = std::max(*maxdiff, (PetscReal)PetscAbsScalar(val[k] - ref.val[k]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

SpMVFormat *SURAACreate(void) { return new SURAA(); }
