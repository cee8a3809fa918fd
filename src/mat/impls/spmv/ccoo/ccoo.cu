/* CCOO on the device: layout built on the GPU from the device CSR (row statistics, value sample, value
   table by an exact count of the sample's candidates and, when they are few, of the missed values, K, slot
   scan, per-chunk analysis, chunk pointer scan, fill), values refresh, the SpMV kernel; and the format
   object that the generic type drives. See ccoo.h. */
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "ccoo.h"
#include "../spmvdevice.cuh"
#include "../spmvvalue.cuh"
#include <petscdevice_cuda.h>
#include <cub/cub.cuh>
#include <cuda/functional>
#include <cuda/std/tuple>
#include <algorithm>
#include <climits>

/* The kernels are templates over the value type V (PetscScalar: double, or thrust::complex<double>) and its bit
   pattern Key = CCOOKeyOf<V> (uint64_t, or CCOOBits128: ccoo.h, COMPLEX SCALARS), instantiated for PetscScalar;
   with double they are the real build's kernels as before. */
namespace {
using u64                  = unsigned long long;
using Key                  = CCOOKeyOf<PetscScalar>; /* the table's key in this build (CCOOKey) */
constexpr int      kMaxB     = 256;       /* threads per chunk: 8-bit row offsets need B <= 256 */
constexpr int      kMaxWarps = kMaxB / 32;
constexpr int      kThreads  = 256;       /* blocks of the row/entry kernels */
constexpr unsigned kFull     = 0xffffffffu;

/* row/entry kernels: kThreads per block, at most cap blocks */
inline unsigned GridFor(int64_t threads, int64_t cap = (int64_t)1 << 30) { return spmv::GridFor(threads, kThreads, cap); }

/* ---------------------------------------------------------------------------------------------- */
/* build                                                                                           */
/* ---------------------------------------------------------------------------------------------- */

/* s[0..4] slots for K = 1, 2, 4, 8, 16; s[5] nonempty rows; s[6] longest row; s[7] nonzeros of the rows
   whose column span (last minus first column) exceeds CCOO_WIDE_SPAN. kStats entries. */
constexpr int kStats = CCOO_NK + 3;
static_assert(kStats >= 7, "the row statistics buffer is reused for the 7 chunk counts");
__global__ void RowStats(PetscInt m, const int *__restrict__ rp, const int *__restrict__ Aj, u64 *__restrict__ s)
{
  u64 a[kStats] = {0};
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < m; r += (int64_t)gridDim.x * blockDim.x) {
    const int lo = rp[r], len = rp[r + 1] - lo;
#pragma unroll
    for (int e = 0; e < CCOO_NK; e++) a[e] += (u64)CCOOSlots(len, 1 << e);
    a[CCOO_NK] += len > 0;
    a[CCOO_NK + 1] = max(a[CCOO_NK + 1], (u64)len);
    if (len > 0 && (int64_t)Aj[lo + len - 1] - Aj[lo] > CCOO_WIDE_SPAN) a[CCOO_NK + 2] += (u64)len;
  }
#pragma unroll
  for (int e = 0; e < kStats; e++)
    for (int o = 16; o > 0; o >>= 1) {
      const u64 b = __shfl_down_sync(kFull, a[e], o);
      a[e]        = e == CCOO_NK + 1 ? max(a[e], b) : a[e] + b;
    }
  if ((threadIdx.x & 31) == 0)
    for (int e = 0; e < kStats; e++) {
      if (e == CCOO_NK + 1) atomicMax(s + e, a[e]);
      else if (a[e]) atomicAdd(s + e, a[e]);
    }
}

/* gs[r] = slots of row r (r < m), gs[m] = 0: scanned in place into the slot starts */
__global__ void RowSlots(PetscInt m, const int *__restrict__ rp, int K, int64_t *__restrict__ gs)
{
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r <= m; r += (int64_t)gridDim.x * blockDim.x) gs[r] = r < m ? CCOOSlots(rp[r + 1] - rp[r], K) : 0;
}

/* the value sample of CCOOTableBuilt: out[k] = bits at CCOOSamplePos(k, nnz, ns) */
template <typename KeyT>
__global__ void SampleBits(int64_t nnz, int64_t ns, const KeyT *__restrict__ a, KeyT *__restrict__ out)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < ns; k += (int64_t)gridDim.x * blockDim.x) out[k] = a[CCOOSamplePos(k, nnz, ns)];
}

/* position of b in the sorted table, -1 if absent (std::lower_bound on the host) */
template <typename KeyT>
__device__ __forceinline__ int LutFind(const KeyT *lut, int L, KeyT b)
{
  int lo = 0, hi = L;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (lut[mid] < b) lo = mid + 1;
    else hi = mid;
  }
  return lo < L && lut[lo] == b ? lo : -1;
}

/*
  The exact count and the first position of each candidate (nc <= CCOO_CANDIDATES bit patterns, sorted
  ascending) over the nnz values, in one pass: each block stages the candidates in shared memory with shared
  counters and first positions; each thread binary-searches its value; the lanes of a warp that found the
  same candidate are grouped (__match_any_sync: every lane runs the same iterations, a warp-uniform
  grid-stride loop, so the full mask is valid; lanes past nnz and values that are no candidate carry -1) and
  the group's lowest lane, the lowest position, adds the group's size and takes the minimum position; at the
  end the block adds its nonzero counters to count (64-bit) and takes the minimum into first (INT_MAX
  initially). blockDim.x must be kThreads.
  The misses (values that are no candidate) are counted into *nmiss (exact) and their positions compacted
  into mpos[0..cap), in no particular order: the missing lanes of a warp (__ballot_sync) append their
  positions to the warp's staging area in shared memory (kMissStage entries); when the next iteration's
  misses would not fit, and at the end, the warp flushes it: one atomicAdd of the staged count on *nmiss
  gives the base, and each staged position q goes to mpos[base + q] if that is < cap. The counter keeps
  counting past cap. Staging makes it one global atomic per 33 to kMissStage misses instead of one per warp
  iteration holding one (all the grid's warps add to one address: cage11 kron 64 has 1.6% misses, about one
  warp iteration in two would hold one).
  Shared memory: the candidates, their counters and first positions, the staging: 34 KB with 64-bit keys, static
  as ever; 50 KB with 128-bit keys (complex), more than a block may declare statically (48 KB), so there it is
  dynamic shared memory of CountSharedBytes<KeyT>() bytes, which the launch opts in to (CountLaunch).
*/
constexpr int kMissStage = 64; /* staged miss positions per warp: at least 32 (one iteration's) */
template <typename KeyT>
constexpr std::size_t CountSharedBytes() { return (sizeof(KeyT) + sizeof(unsigned) + sizeof(int)) * CCOO_CANDIDATES + sizeof(int) * (kThreads / 32) * kMissStage; }
template <typename KeyT>
constexpr bool kCountDynamic = CountSharedBytes<KeyT>() > 48 * 1024;
template <typename KeyT>
__global__ void __launch_bounds__(kThreads) CountCandidates(int nnz, const KeyT *__restrict__ a, int nc, const KeyT *__restrict__ cand, u64 *__restrict__ count, int *__restrict__ first, int cap, int *__restrict__ mpos, u64 *__restrict__ nmiss)
{
  KeyT     *sc;
  unsigned *scnt;
  int      *sfirst;
  int (*stage)[kMissStage];
  if constexpr (!kCountDynamic<KeyT>) {
    __shared__ KeyT     ssc[CCOO_CANDIDATES];
    __shared__ unsigned sscnt[CCOO_CANDIDATES];
    __shared__ int      ssfirst[CCOO_CANDIDATES];
    __shared__ int      sstage[kThreads / 32][kMissStage];
    sc     = ssc;
    scnt   = sscnt;
    sfirst = ssfirst;
    stage  = sstage;
  } else {
    extern __shared__ __align__(16) unsigned char dsm[];
    sc     = reinterpret_cast<KeyT *>(dsm);
    scnt   = reinterpret_cast<unsigned *>(sc + CCOO_CANDIDATES);
    sfirst = reinterpret_cast<int *>(scnt + CCOO_CANDIDATES);
    stage  = reinterpret_cast<int (*)[kMissStage]>(sfirst + CCOO_CANDIDATES);
  }
  const int lane = threadIdx.x & 31;
  int                *wst  = stage[threadIdx.x >> 5];
  int                 ns   = 0; /* staged misses of the warp (warp-uniform) */
  /* the warp's staged misses to mpos and *nmiss; every lane calls it (warp-uniform) */
  const auto flush = [&]() {
    u64 base = 0;
    if (lane == 0) base = atomicAdd(nmiss, (u64)ns);
    base = __shfl_sync(kFull, base, 0);
    __syncwarp();
    for (int q = lane; q < ns; q += 32)
      if (base + q < (u64)cap) mpos[base + q] = wst[q];
    __syncwarp();
    ns = 0;
  };

  for (int i = threadIdx.x; i < nc; i += blockDim.x) {
    sc[i]     = cand[i];
    scnt[i]   = 0;
    sfirst[i] = INT_MAX;
  }
  __syncthreads();
  for (int64_t base = blockIdx.x * (int64_t)blockDim.x + (threadIdx.x & ~31u); base < nnz; base += (int64_t)gridDim.x * blockDim.x) {
    const int64_t  e   = base + lane;
    const int      i   = e < nnz ? LutFind(sc, nc, a[e]) : -1;
    const unsigned grp = __match_any_sync(kFull, i);
    if (i >= 0 && lane == __ffs(grp) - 1) {
      atomicAdd(&scnt[i], (unsigned)__popc(grp));
      atomicMin(&sfirst[i], (int)e); /* no plain read first: racecheck would see it race with other warps' atomics */
    }
    const unsigned miss = __ballot_sync(kFull, e < nnz && i < 0);
    if (miss) {
      if (ns + __popc(miss) > kMissStage) flush();
      if (miss >> lane & 1u) wst[ns + __popc(miss & ((1u << lane) - 1u))] = (int)e;
      ns += __popc(miss);
    }
  }
  __syncwarp();
  if (ns) flush();
  __syncthreads();
  for (int i = threadIdx.x; i < nc; i += blockDim.x)
    if (scnt[i]) {
      atomicAdd(&count[i], (u64)scnt[i]);
      atomicMin(&first[i], sfirst[i]);
    }
}

/* the misses gathered for the sort: key[k] = the bit pattern at position mpos[k], rid[k] = k (the run ids
   that the count sort carries later) */
template <typename KeyT>
__global__ void GatherMisses(int n, const int *__restrict__ mpos, const KeyT *__restrict__ a, KeyT *__restrict__ key, int *__restrict__ rid)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
    key[k] = a[mpos[k]];
    rid[k] = (int)k;
  }
}

/* the L most frequent missed runs (rid: run ids by count descending, ties by id = bits ascending; cnt: their
   counts, 0 past the runs), into out, w = sizeof(KeyT) / 8 words a key: the bits in out[0, wL) (key i in words
   wi..wi+w-1), out[wL + i] = count, out[(w+1)L + i] = first position (all 0 where the count is 0),
   out[(w+2)L] = the number of runs (with 64-bit keys: out[i], out[L + i], out[2L + i], out[3L]) */
template <typename KeyT>
__global__ void PickMissed(int L, const int *__restrict__ rid, const int *__restrict__ cnt, const KeyT *__restrict__ uniq, const int *__restrict__ minpos, const int *__restrict__ nruns, u64 *__restrict__ out)
{
  constexpr int w = (int)(sizeof(KeyT) / sizeof(u64));
  const int     i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) out[(w + 2) * L] = (u64)*nruns;
  if (i >= L) return;
  const int c = cnt[i], r = c > 0 ? rid[i] : 0;
  reinterpret_cast<KeyT *>(out)[i] = c > 0 ? uniq[r] : KeyT{};
  out[w * L + i]                   = (u64)c;
  out[(w + 1) * L + i]             = c > 0 ? (u64)minpos[r] : 0ull;
}

/* block reductions for blockDim.x <= kMaxB, a multiple of 32; every thread gets the result */
__device__ int BlockMin(int v, int *sh)
{
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(kFull, v, o));
  __syncthreads();
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  int r = sh[0];
  for (int i = 1; i < (int)(blockDim.x >> 5); i++) r = min(r, sh[i]);
  return r;
}
__device__ int BlockMax(int v, int *sh)
{
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(kFull, v, o));
  __syncthreads();
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  int r = sh[0];
  for (int i = 1; i < (int)(blockDim.x >> 5); i++) r = max(r, sh[i]);
  return r;
}

/*
  Per chunk (one block of B threads, thread t = slot c*B + t): the slot's row (binary search over the slot
  starts), CSR position and real entries; the chunk's flags, base row, smallest column, column width,
  table membership and blob size. Same rules as CCOOBuildHostLayout.
*/
template <typename KeyT>
__global__ void __launch_bounds__(kMaxB) Analyze(int64_t nchunks, int64_t S, PetscInt m, int nnz, int K, const int64_t *__restrict__ gstart, const int *__restrict__ rp, const int *__restrict__ Aj, const KeyT *__restrict__ Abits, const KeyT *__restrict__ lut, int L, int col_bits, int single_ok, int *__restrict__ slot_row, int *__restrict__ slot_src, unsigned char *__restrict__ slot_cnt, unsigned char *__restrict__ fmt, int *__restrict__ row_base, int *__restrict__ col_base, int64_t *__restrict__ size)
{
  __shared__ KeyT slut[256];
  __shared__ int sh[kMaxWarps];
  __shared__ int last_row, last_next;
  const int      B = blockDim.x, t = threadIdx.x;

  for (int i = t; i < L; i += B) slut[i] = lut[i];
  __syncthreads();
  for (int64_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
    const int64_t s = c * B + t;
    int           r, p, cnt, flag = 0;
    if (s < S) {
      PetscInt lo = 0, hi = m; /* gstart[lo] <= s < gstart[hi] */
      while (hi - lo > 1) {
        const PetscInt mid = lo + (hi - lo) / 2;
        if (gstart[mid] <= s) lo = mid;
        else hi = mid;
      }
      const int64_t g   = s - gstart[lo];
      const int     len = rp[lo + 1] - rp[lo];
      r                 = (int)lo;
      p                 = rp[lo] + (int)(g * K);
      cnt               = (int)max((int64_t)0, min((int64_t)K, (int64_t)len - g * K));
      if (t == 0) flag = g > 0;                                      /* the row started in an earlier chunk */
      if (t == B - 1) flag = s + 1 < S && gstart[lo + 1] > s + 1; /* the next slot is the same row */
    } else { /* tail of the last chunk: the last row, no entries */
      r   = (int)(m - 1);
      p   = nnz;
      cnt = 0;
    }
    slot_row[s] = r;
    slot_src[s] = p;
    slot_cnt[s] = (unsigned char)cnt;
    int mn = INT_MAX, mx = -1, ok = 1;
    for (int k = 0; k < cnt; k++) {
      const int col = Aj[p + k];
      mn            = min(mn, col);
      mx            = max(mx, col);
      if (ok) ok = LutFind(slut, L, Abits[p + k]) >= 0;
    }
    if (t == B - 1) {
      last_row  = r;
      last_next = flag;
    }
    mn = BlockMin(mn, sh); /* its barriers also publish last_row / last_next */
    mx = BlockMax(mx, sh);
    ok = __syncthreads_and(ok);
    if (t == 0) {
      const bool    single = single_ok && last_row == r;
      const int64_t maxoff = mx >= 0 ? (int64_t)mx - mn : 0;
      const bool    inlut  = L > 0 && ok;
      const unsigned f     = (single ? CCOO_SINGLE : 0u) | ((unsigned)CCOOWidthCode(maxoff, col_bits) << CCOO_COL_SHIFT) | (inlut ? CCOO_HAS_IDX | CCOO_LUT_MODE : 0u) | (flag ? CCOO_CONT_PREV : 0u) | (last_next ? CCOO_CONT_NEXT : 0u);
      fmt[c]               = (unsigned char)f;
      row_base[c]          = r;
      col_base[c]          = mx >= 0 ? mn : 0;
      size[c]              = CCOOChunkBytes(f, B, K);
    }
    __syncthreads(); /* last_row / last_next are rewritten by the next chunk */
  }
}

/* The blob (row offsets, column offsets or sentinels, table indices) and the plain values of every chunk */
template <typename KeyT>
__global__ void __launch_bounds__(kMaxB) Fill(int64_t nchunks, int K, const int *__restrict__ slot_row, const int *__restrict__ slot_src, const unsigned char *__restrict__ slot_cnt, const int *__restrict__ Aj, const KeyT *__restrict__ Abits, const KeyT *__restrict__ lut, int L, const unsigned char *__restrict__ fmt, const int *__restrict__ row_base, const int *__restrict__ col_base, const int64_t *__restrict__ chunk_ptr, unsigned char *__restrict__ blob, KeyT *__restrict__ vals)
{
  __shared__ KeyT slut[256];
  const int      B = blockDim.x, t = threadIdx.x;
  const int64_t  C = (int64_t)B * K;

  for (int i = t; i < L; i += B) slut[i] = lut[i];
  __syncthreads();
  for (int64_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
    const unsigned f = fmt[c];
    const int      code = (f >> 1) & 3, cb = col_base[c];
    const int64_t  s = c * B + t;
    const int      src = slot_src[s], cnt = slot_cnt[s];
    unsigned char *p = blob + chunk_ptr[c];
    if (!(f & CCOO_SINGLE)) {
      p[t] = (unsigned char)(slot_row[s] - row_base[c]);
      p += B;
    }
    unsigned char *idx = p + (C << code);
    for (int k = 0; k < K; k++) {
      const int      q    = k * B + t;
      const bool     real = k < cnt;
      const int      e    = src + k;
      const uint32_t off  = real ? (uint32_t)(Aj[e] - cb) : CCOOSentinel(code);
      if (code == 0) p[q] = (unsigned char)off;
      else if (code == 1) reinterpret_cast<unsigned short *>(p)[q] = (unsigned short)off;
      else reinterpret_cast<unsigned int *>(p)[q] = off;
      if (f & CCOO_HAS_IDX) idx[q] = real ? (unsigned char)LutFind(slut, L, Abits[e]) : 0;
      vals[c * C + q] = real ? Abits[e] : KeyT{};
    }
  }
}

/* cnt: single-row, 8/16/32-bit columns, with indices, table values now, first row crossing */
__global__ void CountChunks(int64_t nchunks, const unsigned char *__restrict__ fmt, u64 *__restrict__ cnt)
{
  u64 a[7] = {0, 0, 0, 0, 0, 0, 0};
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < nchunks; c += (int64_t)gridDim.x * blockDim.x) {
    const unsigned f = fmt[c];
    a[0] += (f & CCOO_SINGLE) != 0;
    a[1 + min((f >> 1) & 3u, 2u)]++;
    a[4] += (f & CCOO_HAS_IDX) != 0;
    a[5] += (f & CCOO_LUT_MODE) != 0;
    a[6] += (f & CCOO_CONT_PREV) != 0;
  }
#pragma unroll
  for (int e = 0; e < 7; e++)
    for (int o = 16; o > 0; o >>= 1) a[e] += __shfl_down_sync(kFull, a[e], o);
  if ((threadIdx.x & 31) == 0)
    for (int e = 0; e < 7; e++)
      if (a[e]) atomicAdd(cnt + e, a[e]);
}

/* ---------------------------------------------------------------------------------------------- */
/* values refresh                                                                                  */
/* ---------------------------------------------------------------------------------------------- */

/* lut[i] = a[rep[i]]; a chunk with indices keeps table values iff every new value equals its entry bit
   for bit, else (and for chunks without indices) its plain values are rewritten. One block per chunk. */
template <typename KeyT>
__global__ void __launch_bounds__(kMaxB) Refresh(int64_t nchunks, int K, const unsigned char *__restrict__ blob, const int64_t *__restrict__ chunk_ptr, unsigned char *__restrict__ fmt, const int *__restrict__ slot_src, const unsigned char *__restrict__ slot_cnt, const KeyT *__restrict__ Abits, const int *__restrict__ rep, int L, KeyT *__restrict__ lut, KeyT *__restrict__ vals, u64 *__restrict__ nlut)
{
  __shared__ KeyT slut[256];
  const int      B = blockDim.x, t = threadIdx.x;
  const int64_t  C = (int64_t)B * K;

  for (int i = t; i < L; i += B) {
    const KeyT b = Abits[rep[i]];
    slut[i]     = b;
    if (blockIdx.x == 0) lut[i] = b;
  }
  __syncthreads();
  for (int64_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
    const unsigned f   = fmt[c];
    const int64_t  s   = c * B + t;
    const int      src = slot_src[s], cnt = slot_cnt[s];
    KeyT           a[CCOO_KMAX]; /* fixed size, k < K guards: the compiler keeps it in registers */
#pragma unroll
    for (int k = 0; k < CCOO_KMAX; k++) a[k] = k < K && k < cnt ? Abits[src + k] : KeyT{};
    int ok = 0;
    if (f & CCOO_HAS_IDX) {
      const unsigned char *idx = blob + chunk_ptr[c] + ((f & CCOO_SINGLE) ? 0 : B) + (C << ((f >> 1) & 3));
      ok                       = 1;
#pragma unroll
      for (int k = 0; k < CCOO_KMAX; k++)
        if (k < cnt) {
          const int i = idx[k * B + t];
          ok          = ok && i < L && slut[i] == a[k];
        }
    }
    const int use = __syncthreads_and(ok); /* f is the same for the whole block: every thread gets here */
    if (!use)
#pragma unroll
      for (int k = 0; k < CCOO_KMAX; k++)
        if (k < K) vals[c * C + k * B + t] = a[k];
    if (t == 0) { /* every thread read fmt[c] before the barrier */
      fmt[c] = (unsigned char)((f & ~CCOO_LUT_MODE) | (use ? CCOO_LUT_MODE : 0u));
      if (use) atomicAdd(nlut, 1ull);
    }
  }
}

/* ---------------------------------------------------------------------------------------------- */
/* product                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

/* y = A x: rows that cross a chunk boundary get atomics, so they start from 0 */
__global__ void ZeroCrossing(int64_t nchunks, PetscInt m, const unsigned char *__restrict__ fmt, const int *__restrict__ row_base, PetscScalar *__restrict__ y)
{
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < nchunks; c += (int64_t)gridDim.x * blockDim.x)
    if (fmt[c] & CCOO_CONT_PREV) {
      const int r = row_base[c];
      if (r >= 0 && r < m) y[r] = 0.0;
    }
}

/* the value of a table entry's bits */
template <typename V>
__device__ __forceinline__ V FromBits(const CCOOKeyOf<V> &b)
{
  if constexpr (spmv::kIsComplex<V>) return V(__longlong_as_double((long long)b.re), __longlong_as_double((long long)b.im));
  else return __longlong_as_double((long long)b);
}

/* thread t's K entries (k-major: k*B + t), sentinels skipped; the sum starts at -0.0 (both parts) when adding.
   Complex: v = a x + v by spmv::Fma (two fmas a part in a fixed order, SpMVFma on the host). Double: v += a x as
   written, which the compiler contracts to the same fma (and folds the first -0.0 + a x to a product, the same bits):
   spelled so, the real build's kernels are the instructions they were before the complex port. */
template <typename V, int K, typename T, bool LUT, bool ADD>
__device__ __forceinline__ V ChunkDot(const unsigned char *colp, const unsigned char *idxp, const V *vb, const V *slut, const V *xb, int B, int t)
{
  const T    *cp   = reinterpret_cast<const T *>(colp);
  constexpr T sent = (T)~(T)0;
  T           off[K];
  V           a[K];
#pragma unroll
  for (int k = 0; k < K; k++) off[k] = __ldcs(cp + k * B + t);
#pragma unroll
  for (int k = 0; k < K; k++) {
    if (LUT) a[k] = slut[__ldcs(idxp + k * B + t)];
    else a[k] = spmv::Ldcs(vb + k * B + t);
  }
  V v = ADD ? -V(0.0) : V(0.0);
#pragma unroll
  for (int k = 0; k < K; k++)
    if (off[k] != sent) {
      if constexpr (spmv::kIsComplex<V>) v = spmv::Fma(a[k], spmv::Ldg(xb + off[k]), v);
      else v += a[k] * __ldg(xb + off[k]);
    }
  return v;
}

template <typename V, bool ADD>
__device__ __forceinline__ void StoreRow(V *y, int r, V s, bool cross)
{
  if (cross) spmv::AtomicAdd(y + r, s);
  else if (ADD) y[r] += s;
  else y[r] = s;
}

/*
  y = A x (ADD false) or y += A x. Persistent blocks of B threads loop over the chunks; the table (lutn
  entries, 0 when no chunk uses it) is staged once in shared memory. Per chunk: thread t sums its K
  entries, then a single-row chunk reduces over the block and stores once; any other chunk runs the warp
  segmented suffix scan by row offset, and the first thread of each row segment (its "true head") adds
  the first-segment sums of the following warps that continue its row and stores the row: an atomic for
  the chunk's first row when it continues from the previous chunk and for its last row when it
  continues into the next one, a plain store otherwise.
*/
template <typename V, int K, bool ADD>
__global__ void __launch_bounds__(kMaxB) SpMV(int64_t nchunks, PetscInt m, const unsigned char *__restrict__ fmt, const int *__restrict__ row_base, const int *__restrict__ col_base, const int64_t *__restrict__ chunk_ptr, const unsigned char *__restrict__ blob, const V *__restrict__ vals, const CCOOKeyOf<V> *__restrict__ lut, int lutn, const V *__restrict__ x, V *__restrict__ y)
{
  __shared__ V   slut[256];
  __shared__ V   wsum[kMaxWarps];
  __shared__ int wfirst[kMaxWarps], wlast[kMaxWarps];
  const int      B = blockDim.x, t = threadIdx.x, lane = t & 31, w = t >> 5, nw = B >> 5;
  const int64_t  C = (int64_t)B * K;

  if (lutn > 0) {
    for (int i = t; i < lutn; i += B) slut[i] = FromBits<V>(lut[i]);
    __syncthreads();
  }
  for (int64_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
    const unsigned       f    = __ldg(fmt + c);
    const int            rb   = __ldg(row_base + c), code = (f >> 1) & 3;
    const unsigned char *p    = blob + __ldg(chunk_ptr + c);
    const V             *xb   = x + __ldg(col_base + c);
    const V             *vb   = vals + c * C;
    const bool           single = f & CCOO_SINGLE;
    int                  ro     = 0;
    if (!single) {
      ro = __ldcs(p + t);
      p += B;
    }
    V v;
    if (f & CCOO_LUT_MODE) {
      const unsigned char *ip = p + (C << code);
      if (code == 0) v = ChunkDot<V, K, unsigned char, true, ADD>(p, ip, vb, slut, xb, B, t);
      else if (code == 1) v = ChunkDot<V, K, unsigned short, true, ADD>(p, ip, vb, slut, xb, B, t);
      else v = ChunkDot<V, K, unsigned int, true, ADD>(p, ip, vb, slut, xb, B, t);
    } else {
      if (code == 0) v = ChunkDot<V, K, unsigned char, false, ADD>(p, nullptr, vb, slut, xb, B, t);
      else if (code == 1) v = ChunkDot<V, K, unsigned short, false, ADD>(p, nullptr, vb, slut, xb, B, t);
      else v = ChunkDot<V, K, unsigned int, false, ADD>(p, nullptr, vb, slut, xb, B, t);
    }
    if (single) {
      for (int o = 16; o > 0; o >>= 1) v += spmv::ShflDown(kFull, v, o);
      if (lane == 0) wsum[w] = v;
      __syncthreads();
      if (t == 0) {
        V s = wsum[0];
        for (int i = 1; i < nw; i++) s += wsum[i];
        if (rb >= 0 && rb < m) StoreRow<V, ADD>(y, rb, s, (f & (CCOO_CONT_PREV | CCOO_CONT_NEXT)) != 0);
      }
    } else {
      /* warp segmented suffix scan (Listing 1.2): lane i ends with the sum of lanes i.. of its row */
#pragma unroll
      for (int l = 1; l < 32; l <<= 1) {
        const V      tv = spmv::ShflDown(kFull, v, l);
        const int    tr = __shfl_down_sync(kFull, ro, l);
        if (lane + l < 32 && tr == ro) v += tv;
      }
      const int prev = __shfl_up_sync(kFull, ro, 1);
      if (lane == 0) {
        wfirst[w] = ro;
        wsum[w]   = v; /* the sum of this warp's first row segment */
      }
      if (lane == 31) wlast[w] = ro;
      __syncthreads();
      const bool head = lane == 0 ? !(w > 0 && wlast[w - 1] == ro) : prev != ro;
      if (head) {
        V s = v;
        if (wlast[w] == ro) /* my segment reaches the end of the warp: collect the warps that continue it */
          for (int w2 = w + 1; w2 < nw && wfirst[w2] == ro; w2++) {
            s += wsum[w2];
            if (wlast[w2] != ro) break;
          }
        const bool cross = (ro == 0 && (f & CCOO_CONT_PREV)) || (ro == wlast[nw - 1] && (f & CCOO_CONT_NEXT));
        const int  r     = rb + ro;
        if (r >= 0 && r < m) StoreRow<V, ADD>(y, r, s, cross);
      }
    }
    __syncthreads(); /* wsum / wfirst / wlast are rewritten by the next chunk */
  }
}

template <int K>
PetscErrorCode LaunchSpMV(bool add, unsigned grid, int B, cudaStream_t s, int64_t nchunks, PetscInt m, const unsigned char *fmt, const int *row_base, const int *col_base, const int64_t *chunk_ptr, const unsigned char *blob, const PetscScalar *vals, const Key *lut, int lutn, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  if (add) SpMV<PetscScalar, K, true><<<grid, B, 0, s>>>(nchunks, m, fmt, row_base, col_base, chunk_ptr, blob, vals, lut, lutn, x, y);
  else SpMV<PetscScalar, K, false><<<grid, B, 0, s>>>(nchunks, m, fmt, row_base, col_base, chunk_ptr, blob, vals, lut, lutn, x, y);
  SpMVCheckLaunch();
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int K>
PetscErrorCode Occupancy(int B, int *nb)
{
  int a = 0, b = 0;

  PetscFunctionBegin;
  PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&a, SpMV<PetscScalar, K, false>, B, 0));
  PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, SpMV<PetscScalar, K, true>, B, 0));
  *nb = std::max(1, std::min(a, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the radix sort of (bit pattern, position) pairs by the whole pattern: the 64 bits of a double, or a complex
   value's 128 as (real bits, imaginary bits), the real part's most significant (cub's decomposer): the order of
   CCOOBits128's operator< */
template <typename KeyT>
struct KeyParts {
  __host__ __device__ ::cuda::std::tuple<uint64_t &, uint64_t &> operator()(KeyT &k) const { return {k.re, k.im}; }
};
template <typename KeyT>
cudaError_t SortByBits(void *tmp, std::size_t &need, const KeyT *kin, KeyT *kout, const int *vin, int *vout, int n, cudaStream_t s)
{
  if constexpr (std::is_same_v<KeyT, CCOOBits128>) return cub::DeviceRadixSort::SortPairs(tmp, need, kin, kout, vin, vout, n, KeyParts<KeyT>{}, 0, 128, s);
  else return cub::DeviceRadixSort::SortPairs(tmp, need, kin, kout, vin, vout, n, 0, 64, s);
}

struct CCOODevice {
  unsigned char *fmt = nullptr, *blob = nullptr, *slot_cnt = nullptr;
  int           *row_base = nullptr, *col_base = nullptr, *slot_src = nullptr, *rep = nullptr;
  int64_t       *chunk_ptr = nullptr;
  PetscScalar   *vals      = nullptr;
  Key           *lut       = nullptr;
  u64           *counter   = nullptr;
  std::size_t    bytes     = 0;
};
} // namespace

SPMV_KERNEL_MODULE(RowStats); /* the first selection's builds: loaded ahead by spmv::WarmPool */

class CCOO final : public SpMVFormat {
  CCOOOptions opt;
  CCOOStats   st;
  CCOOLayout  host;
  CCOODevice  dev;
  unsigned    grid = 1, gridb = 1; /* product grid, build/refresh grid */
  bool        refreshed = false;   /* the device values were refreshed since the build */

public:
  ~CCOO() override { (void)ReleaseDevice(); }

  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    PetscFunctionBegin;
    PetscCall(PetscOptionsInt("-mat_ccoo_threads", "Threads per block = K-entry slots per chunk (32, 64, 128 or 256; the paper's B)", "MatSetType", opt.threads, &opt.threads, NULL));
    PetscCall(PetscOptionsInt("-mat_ccoo_k", "Nonzeros per thread, rows padded to a multiple of it (1, 2, 4, 8 or 16; 0 = automatic by a cost model of slots and padding)", "MatSetType", opt.k, &opt.k, NULL));
    PetscCall(PetscOptionsInt("-mat_ccoo_col_bits", "Narrowest column offset width allowed (8, 16 or 32; 32 = no column compression)", "MatSetType", opt.col_bits, &opt.col_bits, NULL));
    PetscCall(PetscOptionsInt("-mat_ccoo_lut_size", "Entries of the table of most frequent values (0 to 256; 0 = plain values only)", "MatSetType", opt.lut_size, &opt.lut_size, NULL));
    PetscCall(PetscOptionsBool("-mat_ccoo_single_row", "Chunks inside one row store no row offsets and use a plain block reduction", "MatSetType", opt.single_row, &opt.single_row, NULL));
    PetscCheck(opt.threads == 32 || opt.threads == 64 || opt.threads == 128 || opt.threads == 256, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ccoo_threads %" PetscInt_FMT " must be 32, 64, 128 or 256", opt.threads);
    PetscCheck(opt.k == 0 || CCOOValidK(opt.k), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ccoo_k %" PetscInt_FMT " must be 0 (automatic), 1, 2, 4, 8 or 16", opt.k);
    PetscCheck(opt.col_bits == 8 || opt.col_bits == 16 || opt.col_bits == 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ccoo_col_bits %" PetscInt_FMT " must be 8, 16 or 32", opt.col_bits);
    PetscCheck(opt.lut_size >= 0 && opt.lut_size <= 256, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ccoo_lut_size %" PetscInt_FMT " must be in [0, 256]", opt.lut_size);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode CopyOptions(const SpMVFormat &from) override
  {
    PetscFunctionBegin;
    opt = static_cast<const CCOO &>(from).opt;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode BuildHost(const SpMVHostCsr &A) override { return CCOOBuildHostLayout(opt, A, &host, &st); }
  PetscErrorCode RefreshHost(const SpMVHostCsr &A) override { return CCOORefreshHostLayout(A, &host, &st); }
  PetscErrorCode MultHost(const PetscScalar *x, PetscScalar *y, bool add) const override
  {
    PetscFunctionBegin;
    CCOOMultHost(host, SpMVHostArray(x), SpMVHostArray(y), add);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode ReleaseDevice() override
  {
    PetscFunctionBegin;
    PetscCall(spmv::DeviceFree({dev.fmt, dev.blob, dev.slot_cnt, dev.row_base, dev.col_base, dev.slot_src, dev.rep, dev.chunk_ptr, dev.vals, dev.lut, dev.counter}));
    dev = CCOODevice();
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  std::size_t DeviceBytes() const override { return dev.bytes; }

  PetscErrorCode BuildDevice(const SpMVDeviceCsr &A, cudaStream_t s) override
  {
    const PetscInt m = A.m, B = opt.threads;
    u64           *sums = nullptr, hs[kStats];
    int64_t       *gstart = nullptr, *size = nullptr;
    int           *slot_row = nullptr;
    void          *tmp      = nullptr;
    std::size_t    tmpbytes = 0;
    /* table build: the candidates, their counts and the miss counter (one buffer), their first positions, the
       misses' positions; for the missed values (only when counted): bit patterns (gathered, sorted), sorted
       positions, run bit patterns, run counts (then sorted), run first positions, run ids (then sorted), the
       numbers of runs (2), the picked runs. A key takes kw 64-bit words of the u64 buffers (1, complex 2). */
    constexpr int kw = (int)(sizeof(Key) / sizeof(u64));
    u64          *cc = nullptr, *msel = nullptr;
    Key          *mkey = nullptr, *muniq = nullptr;
    int *cfirst = nullptr, *mpos = nullptr, *mpos2 = nullptr, *mcnt = nullptr, *mmin = nullptr, *mrid = nullptr, *mnr = nullptr;
    std::size_t need = 0;

    PetscFunctionBegin;
    PetscCall(ReleaseDevice());
    st        = CCOOStats();
    refreshed = false;
    st.m      = m;
    st.n      = A.n;
    st.nnz    = A.nnz;
    st.B      = B;
    if (m == 0) { /* as the host build: no slots, the explicit K or 1 */
      PetscCall(CCOOChooseK(opt, st, &st.K));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    int sms;
    PetscCall(spmv::DeviceSMCount(&sms));

    /* 1. row statistics */
    /* ... and the value sample that decides whether the table is built (CCOOTableBuilt), in the same sync */
    const Key       *Abits = reinterpret_cast<const Key *>(A.a);
    std::vector<Key> sample, cand;
    if (opt.lut_size > 0 && A.nnz > 0) st.nsample = std::min<int64_t>(CCOO_SAMPLE, A.nnz);
    sample.resize((std::size_t)st.nsample);
    PetscCall(spmv::DeviceAlloc(&sums, kStats + kw * st.nsample, nullptr, s)); /* the statistics, then the sample */
    PetscCallCUDA(cudaMemsetAsync(sums, 0, kStats * sizeof(u64), s));
    RowStats<<<GridFor(m, 1024), kThreads, 0, s>>>(m, A.i, A.j, sums);
    SpMVCheckLaunch();
    if (st.nsample) {
      SampleBits<<<GridFor(st.nsample, 64), kThreads, 0, s>>>(A.nnz, st.nsample, Abits, reinterpret_cast<Key *>(sums + kStats));
      SpMVCheckLaunch();
      PetscCallCUDA(cudaMemcpyAsync(sample.data(), sums + kStats, st.nsample * sizeof(Key), cudaMemcpyDeviceToHost, s));
    }
    PetscCallCUDA(cudaMemcpyAsync(hs, sums, kStats * sizeof(u64), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    if (st.nsample) st.nscover = CCOOSampleCandidates(std::move(sample), opt.lut_size, &cand);
    for (int e = 0; e < CCOO_NK; e++) st.slots_k[e] = (int64_t)hs[e];
    st.nonempty = (PetscInt)hs[CCOO_NK];
    st.maxlen   = (PetscInt)hs[CCOO_NK + 1];
    st.wide     = (int64_t)hs[CCOO_NK + 2];

    /* 2. value table (independent of K): the sample's candidates counted exactly over every nonzero, with
          their first positions, and the misses counted with their positions kept (one pass, CountCandidates);
          when the misses are few (CCOOMissesCounted), the missed values counted by a sort of their bit patterns
          with their positions, run lengths and minimum positions, and the lut_size most frequent runs sent to
          the host; the top L picked on the host as the host build picks it (CCOOPickTable) */
    std::vector<Key> hlut;
    std::vector<int> hrep;
    if (st.nsample && CCOOTableBuilt(st)) {
      const int            nc  = (int)cand.size(); /* 1 .. CCOO_CANDIDATES: the sample is not empty */
      const int            cap = (int)CCOOMissCap(A.nnz);
      std::vector<u64>     hcc((kw + 1) * (std::size_t)nc + 1, 0ull); /* candidates (kw words each), counts, the miss counter */
      std::vector<int>     hfirst(nc, INT_MAX);
      std::vector<CCOORun> runs;
      std::size_t          dyn = 0; /* CountCandidates' dynamic shared memory (128-bit keys) */
      std::memcpy(hcc.data(), cand.data(), nc * sizeof(Key));
      PetscCall(spmv::DeviceAlloc(&cc, hcc.size(), nullptr, s));
      PetscCall(spmv::DeviceAlloc(&cfirst, nc, nullptr, s));
      PetscCall(spmv::DeviceAlloc(&mpos, cap, nullptr, s));
      PetscCallCUDA(cudaMemcpyAsync(cc, hcc.data(), hcc.size() * sizeof(u64), cudaMemcpyHostToDevice, s));
      PetscCallCUDA(cudaMemcpyAsync(cfirst, hfirst.data(), nc * sizeof(int), cudaMemcpyHostToDevice, s));
      if constexpr (kCountDynamic<Key>) {
        dyn = CountSharedBytes<Key>();
        PetscCallCUDA(cudaFuncSetAttribute(CountCandidates<Key>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
      }
      CountCandidates<<<GridFor(A.nnz, (int64_t)sms * 4), kThreads, dyn, s>>>((int)A.nnz, Abits, nc, reinterpret_cast<const Key *>(cc), cc + kw * nc, cfirst, cap, mpos, cc + (kw + 1) * nc);
      SpMVCheckLaunch();
      PetscCallCUDA(cudaMemcpyAsync(hcc.data() + kw * nc, cc + kw * nc, (nc + 1) * sizeof(u64), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaMemcpyAsync(hfirst.data(), cfirst, nc * sizeof(int), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaStreamSynchronize(s));
      for (int i = 0; i < nc; i++) runs.push_back({cand[i], (int64_t)hcc[kw * nc + i], hfirst[i]});
      st.nmiss     = (int64_t)hcc[(kw + 1) * nc];
      st.ndistinct = nc;
      if (st.nmiss && CCOOMissesCounted(st.nmiss, A.nnz)) { /* every miss is in mpos[0..nm) */
        const int nm = (int)st.nmiss, Lm = (int)std::min<int64_t>(opt.lut_size, nm);
        int       cbits = 1;                   /* the counts are <= nm: the bits of nm suffice for their sort */
        while (cbits < 31 && (nm >> cbits)) cbits++;
        std::vector<u64> hsel((kw + 2) * (std::size_t)Lm + 1); /* PickMissed's: keys, counts, first positions, runs */
        PetscCall(spmv::DeviceAlloc(&mkey, 2 * (std::size_t)nm, nullptr, s)); /* gathered, sorted */
        PetscCall(spmv::DeviceAlloc(&mpos2, nm, nullptr, s));
        PetscCall(spmv::DeviceAlloc(&muniq, nm, nullptr, s));
        PetscCall(spmv::DeviceAlloc(&mcnt, 2 * (std::size_t)nm, nullptr, s)); /* run counts, sorted */
        PetscCall(spmv::DeviceAlloc(&mmin, nm, nullptr, s));
        PetscCall(spmv::DeviceAlloc(&mrid, 2 * (std::size_t)nm, nullptr, s)); /* run ids, sorted by count */
        PetscCall(spmv::DeviceAlloc(&mnr, 2, nullptr, s));
        PetscCall(spmv::DeviceAlloc(&msel, hsel.size(), nullptr, s));
        GatherMisses<<<GridFor(nm), kThreads, 0, s>>>(nm, mpos, Abits, mkey, mrid);
        SpMVCheckLaunch();
        /* (bits, position) by bits, all 64 (complex: 128) of them (at most nnz / 16 keys) */
        PetscCallCUDA(SortByBits(nullptr, need, mkey, mkey + nm, mpos, mpos2, nm, s));
        PetscCall(spmv::GrowScratch(&tmp, &tmpbytes, need, s));
        PetscCallCUDA(SortByBits(tmp, need, mkey, mkey + nm, mpos, mpos2, nm, s));
        /* runs: bit patterns and counts (counts past the runs stay 0), and the minimum position of each (the
           positions of a run are in no particular order: the compaction's) */
        PetscCallCUDA(cudaMemsetAsync(mcnt, 0, nm * sizeof(int), s));
        PetscCallCUDA(cub::DeviceRunLengthEncode::Encode(nullptr, need, mkey + nm, muniq, mcnt, mnr, nm, s));
        PetscCall(spmv::GrowScratch(&tmp, &tmpbytes, need, s));
        PetscCallCUDA(cub::DeviceRunLengthEncode::Encode(tmp, need, mkey + nm, muniq, mcnt, mnr, nm, s));
        PetscCallCUDA(cub::DeviceReduce::ReduceByKey(nullptr, need, mkey + nm, mkey, mpos2, mmin, mnr + 1, ::cuda::minimum<int>(), nm, s));
        PetscCall(spmv::GrowScratch(&tmp, &tmpbytes, need, s));
        PetscCallCUDA(cub::DeviceReduce::ReduceByKey(tmp, need, mkey + nm, mkey, mpos2, mmin, mnr + 1, ::cuda::minimum<int>(), nm, s));
        /* the runs by count descending; the sort is stable, so equal counts keep the run order, bits ascending */
        PetscCallCUDA(cub::DeviceRadixSort::SortPairsDescending(nullptr, need, mcnt, mcnt + nm, mrid, mrid + nm, nm, 0, cbits, s));
        PetscCall(spmv::GrowScratch(&tmp, &tmpbytes, need, s));
        PetscCallCUDA(cub::DeviceRadixSort::SortPairsDescending(tmp, need, mcnt, mcnt + nm, mrid, mrid + nm, nm, 0, cbits, s));
        PickMissed<<<GridFor(Lm), kThreads, 0, s>>>(Lm, mrid + nm, mcnt + nm, muniq, mmin, mnr, msel);
        SpMVCheckLaunch();
        PetscCallCUDA(cudaMemcpyAsync(hsel.data(), msel, hsel.size() * sizeof(u64), cudaMemcpyDeviceToHost, s));
        PetscCallCUDA(cudaStreamSynchronize(s));
        for (int i = 0; i < Lm; i++)
          if (hsel[kw * Lm + i]) {
            Key b;
            std::memcpy(&b, hsel.data() + kw * i, sizeof(Key));
            runs.push_back({b, (int64_t)hsel[kw * Lm + i], (int)hsel[(kw + 1) * Lm + i]});
          }
        st.ndistinct += (int64_t)hsel[(kw + 2) * Lm];
      }
      CCOOPickTable(std::move(runs), opt.lut_size, &hlut, &hrep, &st.lut_cover);
      st.L = (PetscInt)hlut.size();
      PetscCall(spmv::DeviceAlloc(&dev.lut, st.L, &dev.bytes, s));
      PetscCall(spmv::DeviceAlloc(&dev.rep, st.L, &dev.bytes, s));
      PetscCallCUDA(cudaMemcpyAsync(dev.lut, hlut.data(), st.L * sizeof(Key), cudaMemcpyHostToDevice, s)); /* hlut and hrep live until the end */
      PetscCallCUDA(cudaMemcpyAsync(dev.rep, hrep.data(), st.L * sizeof(int), cudaMemcpyHostToDevice, s));
    }

    /* 3. K (from the slots and the table's coverage), slot starts */
    PetscCall(CCOOChooseK(opt, st, &st.K));
    const PetscInt K = st.K;
    const int64_t  C = (int64_t)B * K;
    st.S             = st.slots_k[CCOOKIndex(K)];
    st.nchunks       = (st.S + B - 1) / B;
    st.padded        = st.nchunks * C;
    PetscCheck(st.nchunks * B < PETSC_INT32_MAX && m < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_INT_OVERFLOW, "CCOO: %" PetscInt64_FMT " slots overflow the 32-bit scans", (PetscInt64)(st.nchunks * B));
    gridb = (unsigned)std::max<int64_t>(1, std::min<int64_t>(st.nchunks, (int64_t)sms * 8));
    PetscCall(spmv::DeviceAlloc(&gstart, m + 1, nullptr, s));
    RowSlots<<<GridFor(m + 1), kThreads, 0, s>>>(m, A.i, (int)K, gstart);
    SpMVCheckLaunch();
    PetscCall(spmv::ExclusiveSum(gstart, gstart, (int)(m + 1), &tmp, &tmpbytes, s));

    /* 4. per-chunk analysis */
    PetscCall(spmv::DeviceAlloc(&dev.fmt, st.nchunks, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&dev.row_base, st.nchunks, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&dev.col_base, st.nchunks, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&dev.chunk_ptr, st.nchunks + 1, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&dev.slot_src, st.nchunks * B, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&dev.slot_cnt, st.nchunks * B, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&slot_row, st.nchunks * B, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&size, st.nchunks + 1, nullptr, s));
    PetscCallCUDA(cudaMemsetAsync(size + st.nchunks, 0, sizeof(int64_t), s));
    Analyze<<<gridb, B, 0, s>>>(st.nchunks, st.S, m, (int)A.nnz, (int)K, gstart, A.i, A.j, Abits, dev.lut, (int)st.L, (int)opt.col_bits, opt.single_row ? 1 : 0, slot_row, dev.slot_src, dev.slot_cnt, dev.fmt, dev.row_base, dev.col_base, size);
    SpMVCheckLaunch();

    /* 5. chunk pointers */
    PetscCall(spmv::ExclusiveSum(size, dev.chunk_ptr, (int)(st.nchunks + 1), &tmp, &tmpbytes, s));
    PetscCallCUDA(cudaMemcpyAsync(&st.blob_bytes, dev.chunk_ptr + st.nchunks, sizeof(int64_t), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));

    /* 6. fill */
    PetscCall(spmv::DeviceAlloc(&dev.blob, st.blob_bytes, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&dev.vals, st.padded, &dev.bytes, s));
    Fill<<<gridb, B, 0, s>>>(st.nchunks, (int)K, slot_row, dev.slot_src, dev.slot_cnt, A.j, Abits, dev.lut, (int)st.L, dev.fmt, dev.row_base, dev.col_base, dev.chunk_ptr, dev.blob, reinterpret_cast<Key *>(dev.vals));
    SpMVCheckLaunch();

    /* 7. chunk counts */
    PetscCall(spmv::DeviceAlloc(&dev.counter, 1, &dev.bytes, s));
    PetscCallCUDA(cudaMemsetAsync(sums, 0, 7 * sizeof(u64), s));
    CountChunks<<<GridFor(st.nchunks, 1024), kThreads, 0, s>>>(st.nchunks, dev.fmt, sums);
    SpMVCheckLaunch();
    PetscCallCUDA(cudaMemcpyAsync(hs, sums, 7 * sizeof(u64), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    st.nsingle = (int64_t)hs[0];
    for (int e = 0; e < 3; e++) st.ncol[e] = (int64_t)hs[1 + e];
    st.nidx   = (int64_t)hs[4];
    st.nlut   = (int64_t)hs[5];
    st.ncross = (int64_t)hs[6];

    /* 8. the product's grid: as many blocks as fit on the device at once, at most one per chunk */
    {
      int nb = 1;
      switch (K) {
      case 1: PetscCall(Occupancy<1>((int)B, &nb)); break;
      case 2: PetscCall(Occupancy<2>((int)B, &nb)); break;
      case 4: PetscCall(Occupancy<4>((int)B, &nb)); break;
      case 8: PetscCall(Occupancy<8>((int)B, &nb)); break;
      default: PetscCall(Occupancy<16>((int)B, &nb)); break;
      }
      grid = (unsigned)std::max<int64_t>(1, std::min<int64_t>(st.nchunks, (int64_t)nb * sms));
    }
    PetscCall(spmv::DeviceFree({sums, gstart, size, slot_row, tmp, cc, cfirst, mpos, mkey, mpos2, muniq, mcnt, mmin, mrid, mnr, msel}, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode RefreshDevice(const SpMVDeviceCsr &A, cudaStream_t s) override
  {
    u64 n = 0;

    PetscFunctionBegin;
    if (!st.nchunks) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCallCUDA(cudaMemsetAsync(dev.counter, 0, sizeof(u64), s));
    Refresh<<<gridb, (unsigned)st.B, 0, s>>>(st.nchunks, (int)st.K, dev.blob, dev.chunk_ptr, dev.fmt, dev.slot_src, dev.slot_cnt, reinterpret_cast<const Key *>(A.a), dev.rep, (int)st.L, dev.lut, reinterpret_cast<Key *>(dev.vals), dev.counter);
    SpMVCheckLaunch();
    PetscCallCUDA(cudaMemcpyAsync(&n, dev.counter, sizeof(u64), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    st.nlut   = (int64_t)n;
    refreshed = true;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode MultDevice(const PetscScalar *x, PetscScalar *y, bool add, cudaStream_t s) const override
  {
    PetscFunctionBegin;
    if (!st.nchunks) PetscFunctionReturn(PETSC_SUCCESS);
    if (!add && st.ncross) {
      ZeroCrossing<<<GridFor(st.nchunks, 4096), kThreads, 0, s>>>(st.nchunks, st.m, dev.fmt, dev.row_base, y);
      SpMVCheckLaunch();
    }
    const int lutn = st.nlut ? (int)st.L : 0;
    switch (st.K) {
    case 1: PetscCall(LaunchSpMV<1>(add, grid, (int)st.B, s, st.nchunks, st.m, dev.fmt, dev.row_base, dev.col_base, dev.chunk_ptr, dev.blob, dev.vals, dev.lut, lutn, x, y)); break;
    case 2: PetscCall(LaunchSpMV<2>(add, grid, (int)st.B, s, st.nchunks, st.m, dev.fmt, dev.row_base, dev.col_base, dev.chunk_ptr, dev.blob, dev.vals, dev.lut, lutn, x, y)); break;
    case 4: PetscCall(LaunchSpMV<4>(add, grid, (int)st.B, s, st.nchunks, st.m, dev.fmt, dev.row_base, dev.col_base, dev.chunk_ptr, dev.blob, dev.vals, dev.lut, lutn, x, y)); break;
    case 8: PetscCall(LaunchSpMV<8>(add, grid, (int)st.B, s, st.nchunks, st.m, dev.fmt, dev.row_base, dev.col_base, dev.chunk_ptr, dev.blob, dev.vals, dev.lut, lutn, x, y)); break;
    default: PetscCall(LaunchSpMV<16>(add, grid, (int)st.B, s, st.nchunks, st.m, dev.fmt, dev.row_base, dev.col_base, dev.chunk_ptr, dev.blob, dev.vals, dev.lut, lutn, x, y)); break;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode View(PetscViewer v) const override
  {
    const double  nnz    = st.nnz ? (double)st.nnz : 1.0;
    const int64_t mbytes = CCOOMatrixBytes(st), vs = (int64_t)sizeof(PetscScalar); /* a value: 8 bytes, 16 complex */

    PetscFunctionBegin;
    PetscCall(PetscViewerASCIIPrintf(v, "CCOO: rows %" PetscInt_FMT " (%" PetscInt_FMT " nonempty), columns %" PetscInt_FMT ", nnz %" PetscInt64_FMT ", longest row %" PetscInt_FMT "\n", st.m, st.nonempty, st.n, (PetscInt64)st.nnz, st.maxlen));
    PetscCall(PetscViewerASCIIPrintf(v, "CCOO: B %" PetscInt_FMT " threads x K %" PetscInt_FMT " = %" PetscInt64_FMT " entries per chunk, %" PetscInt64_FMT " chunks, %" PetscInt64_FMT " stored entries (padding %.1f%%)\n", st.B, st.K, (PetscInt64)st.B * st.K, (PetscInt64)st.nchunks, (PetscInt64)st.padded, 100.0 * (double)(st.padded - st.nnz) / nnz));
    PetscCall(PetscViewerASCIIPrintf(v, "CCOO: chunks by encoding: rows single %" PetscInt64_FMT " / 8-bit %" PetscInt64_FMT "; columns 8-bit %" PetscInt64_FMT " / 16-bit %" PetscInt64_FMT " / 32-bit %" PetscInt64_FMT "; values table %" PetscInt64_FMT " / plain %" PetscInt64_FMT " (%" PetscInt64_FMT " store indices); %" PetscInt64_FMT " rows cross a chunk boundary\n",
                                     (PetscInt64)st.nsingle, (PetscInt64)(st.nchunks - st.nsingle), (PetscInt64)st.ncol[0], (PetscInt64)st.ncol[1], (PetscInt64)st.ncol[2], (PetscInt64)st.nlut, (PetscInt64)(st.nchunks - st.nlut), (PetscInt64)st.nidx, (PetscInt64)st.ncross));
    if (!st.nsample) PetscCall(PetscViewerASCIIPrintf(v, "CCOO: no value table (%s)\n", st.nnz ? "-mat_ccoo_lut_size 0" : "no nonzeros"));
    else if (!CCOOTableBuilt(st)) PetscCall(PetscViewerASCIIPrintf(v, "CCOO: no value table: its %" PetscInt_FMT " most frequent sampled values cover %" PetscInt64_FMT " of %" PetscInt64_FMT " sampled (less than 1/%d)\n", opt.lut_size, (PetscInt64)st.nscover, (PetscInt64)st.nsample, (int)CCOO_COVER_DIV));
    else if (CCOOMissesCounted(st.nmiss, st.nnz)) PetscCall(PetscViewerASCIIPrintf(v, "CCOO: value table %" PetscInt_FMT " entries, the most frequent of the %" PetscInt64_FMT " distinct values (%" PetscInt64_FMT " nonzeros outside the sample's candidates, counted too), covering %.1f%% of the nonzeros\n", st.L, (PetscInt64)st.ndistinct, (PetscInt64)st.nmiss, 100.0 * (double)st.lut_cover / nnz));
    else PetscCall(PetscViewerASCIIPrintf(v, "CCOO: value table %" PetscInt_FMT " entries, the most frequent of %" PetscInt64_FMT " sampled candidates (%" PetscInt64_FMT " nonzeros, more than 1/%d, hold other values: not counted), covering %.1f%% of the nonzeros\n", st.L, (PetscInt64)st.ndistinct, (PetscInt64)st.nmiss, (int)CCOO_MISS_DIV, 100.0 * (double)st.lut_cover / nnz));
    PetscCall(PetscViewerASCIIPrintf(v, "CCOO: bytes per nonzero moved by a product: matrix %.3f, with x and y %.3f (CSR floor %d nnz + %d m: %.3f)\n", (double)mbytes / nnz, (double)(mbytes + vs * (int64_t)st.n + vs * (int64_t)st.m + 2 * vs * st.ncross) / nnz, (int)(vs + 4), (int)(2 * vs + 4), ((double)(vs + 4) * (double)st.nnz + (double)(2 * vs + 4) * (double)st.m) / nnz));
    if (dev.bytes) PetscCall(PetscViewerASCIIPrintf(v, "CCOO: device memory %.3g MB (index blob %.3g MB, plain values reserved for every chunk %.3g MB)\n", dev.bytes / 1e6, st.blob_bytes / 1e6, (double)vs * st.padded / 1e6));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode Verify(const SpMVHostCsr &A, cudaStream_t s, PetscReal *maxdiff) override
  {
    CCOOLayout  ref, d;
    CCOOStats   rst;
    CCOOOptions ropt = opt;

    PetscFunctionBegin;
    /* K depends on the values (the table's coverage); a refresh keeps the K of the build */
    if (refreshed) ropt.k = st.K;
    PetscCall(CCOOBuildHostLayout(ropt, A, &ref, &rst));
    PetscCheck(std::equal(rst.slots_k, rst.slots_k + CCOO_NK, st.slots_k) && rst.wide == st.wide, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "CCOO device row statistics differ from the host reference (device/host): slots for K = 1..16 %" PetscInt64_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT "/%" PetscInt64_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT " wide nonzeros %" PetscInt64_FMT "/%" PetscInt64_FMT,
               (PetscInt64)st.slots_k[0], (PetscInt64)st.slots_k[1], (PetscInt64)st.slots_k[2], (PetscInt64)st.slots_k[3], (PetscInt64)st.slots_k[4], (PetscInt64)rst.slots_k[0], (PetscInt64)rst.slots_k[1], (PetscInt64)rst.slots_k[2], (PetscInt64)rst.slots_k[3], (PetscInt64)rst.slots_k[4], (PetscInt64)st.wide, (PetscInt64)rst.wide);
    PetscCheck(rst.K == st.K && rst.B == st.B && rst.S == st.S && rst.nchunks == st.nchunks && rst.padded == st.padded && rst.nonempty == st.nonempty && rst.maxlen == st.maxlen && rst.nsingle == st.nsingle && rst.ncol[0] == st.ncol[0] && rst.ncol[1] == st.ncol[1] && rst.ncol[2] == st.ncol[2] && rst.ncross == st.ncross, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "CCOO device layout shape differs from the host reference (device/host): K %" PetscInt_FMT "/%" PetscInt_FMT " slots %" PetscInt64_FMT "/%" PetscInt64_FMT " chunks %" PetscInt64_FMT "/%" PetscInt64_FMT " single %" PetscInt64_FMT "/%" PetscInt64_FMT " 8/16/32-bit %" PetscInt64_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT "/%" PetscInt64_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT " crossing %" PetscInt64_FMT "/%" PetscInt64_FMT,
               st.K, rst.K, (PetscInt64)st.S, (PetscInt64)rst.S, (PetscInt64)st.nchunks, (PetscInt64)rst.nchunks, (PetscInt64)st.nsingle, (PetscInt64)rst.nsingle, (PetscInt64)st.ncol[0], (PetscInt64)st.ncol[1], (PetscInt64)st.ncol[2], (PetscInt64)rst.ncol[0], (PetscInt64)rst.ncol[1], (PetscInt64)rst.ncol[2], (PetscInt64)st.ncross, (PetscInt64)rst.ncross);
    /* the device arrays, into the host structure */
    d.B = (PetscInt)st.B;
    d.K = st.K;
    d.m = st.m;
    d.n = st.n;
    d.nnz = st.nnz;
    d.S = st.S;
    d.nchunks = st.nchunks;
    d.fmt.resize(st.nchunks);
    d.row_base.resize(st.nchunks);
    d.col_base.resize(st.nchunks);
    d.chunk_ptr.resize(st.nchunks + 1, 0);
    d.blob.resize(st.blob_bytes);
    d.vals.resize(st.padded);
    d.lut.resize(st.L);
    d.rep.resize(st.L);
    d.slot_src.resize(st.nchunks * st.B);
    d.slot_cnt.resize(st.nchunks * st.B);
    PetscCallCUDA(cudaStreamSynchronize(s));
    if (st.nchunks) {
      PetscCall(spmv::Download(d.fmt, dev.fmt));
      PetscCall(spmv::Download(d.row_base, dev.row_base));
      PetscCall(spmv::Download(d.col_base, dev.col_base));
      PetscCall(spmv::Download(d.chunk_ptr, dev.chunk_ptr));
      PetscCall(spmv::Download(d.blob, dev.blob));
      PetscCall(spmv::Download(d.vals, SpMVHostArray(dev.vals)));
      PetscCall(spmv::Download(d.slot_src, dev.slot_src));
      PetscCall(spmv::Download(d.slot_cnt, dev.slot_cnt));
    }
    if (st.L) {
      PetscCall(spmv::Download(d.lut, dev.lut));
      PetscCall(spmv::Download(d.rep, dev.rep));
    }
    /* every invariant against the current CSR (exact values, bit for bit) */
    PetscCall(CCOOCheckLayout(opt, A, d));
    if (!refreshed) { /* then the device arrays must be the host reference's, entry by entry */
      PetscCheck(rst.nsample == st.nsample && rst.nscover == st.nscover && rst.L == st.L && rst.ndistinct == st.ndistinct && rst.nmiss == st.nmiss && rst.lut_cover == st.lut_cover && rst.nidx == st.nidx && rst.nlut == st.nlut && rst.blob_bytes == st.blob_bytes, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "CCOO device table/encodings differ from the host reference (device/host): table %" PetscInt_FMT "/%" PetscInt_FMT " distinct %" PetscInt64_FMT "/%" PetscInt64_FMT " missed %" PetscInt64_FMT "/%" PetscInt64_FMT " covered %" PetscInt64_FMT "/%" PetscInt64_FMT " indexed chunks %" PetscInt64_FMT "/%" PetscInt64_FMT " blob %" PetscInt64_FMT "/%" PetscInt64_FMT, st.L, rst.L, (PetscInt64)st.ndistinct,
                 (PetscInt64)rst.ndistinct, (PetscInt64)st.nmiss, (PetscInt64)rst.nmiss, (PetscInt64)st.lut_cover, (PetscInt64)rst.lut_cover, (PetscInt64)st.nidx, (PetscInt64)rst.nidx, (PetscInt64)st.blob_bytes, (PetscInt64)rst.blob_bytes);
      PetscCheck(d.lut == ref.lut && d.rep == ref.rep, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO device value table differs from the host reference");
      PetscCheck(d.fmt == ref.fmt && d.row_base == ref.row_base && d.col_base == ref.col_base && d.chunk_ptr == ref.chunk_ptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO device chunk metadata (fmt, row_base, col_base, chunk_ptr) differs from the host reference");
      PetscCheck(d.slot_src == ref.slot_src && d.slot_cnt == ref.slot_cnt, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO device slots differ from the host reference");
      PetscCheck(d.blob == ref.blob, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO device index blob differs from the host reference");
      for (std::size_t k = 0; k < d.vals.size(); k++) PetscCheck(CCOOBits(d.vals[k]) == CCOOBits(ref.vals[k]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO device plain value %zu differs from the host reference", k);
    } else { /* the pattern-only parts must still be the host reference's */
      for (int64_t c = 0; c < st.nchunks; c++) PetscCheck((d.fmt[c] & ~(CCOO_LUT_MODE | CCOO_HAS_IDX)) == (ref.fmt[c] & ~(CCOO_LUT_MODE | CCOO_HAS_IDX)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO device chunk %" PetscInt64_FMT ": row/column encoding differs from the host reference", (PetscInt64)c);
      PetscCheck(d.row_base == ref.row_base && d.col_base == ref.col_base && d.slot_src == ref.slot_src && d.slot_cnt == ref.slot_cnt, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO device rows, columns or slots differ from the host reference");
      PetscCheck(st.nlut <= st.nidx, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO: more chunks on table values than chunks with indices");
    }
    *maxdiff = 0; /* CCOOCheckLayout compared every value bit for bit */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

SpMVFormat *CCOOCreate(void) { return new CCOO(); }
