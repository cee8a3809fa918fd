/* ARgCSR on the device: layout built on the GPU from the device CSR, values refresh, SpMV kernels; and the
   format object that the generic type drives. See argcsr.h for the layout and the decisions. */
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "argcsr.h"
#include "../spmvdevice.cuh"
#include "../spmvvalue.cuh"
#include <petscdevice_cuda.h>
#include <cub/cub.cuh>
#include <algorithm>
#include <climits>

namespace {
constexpr int      kThreads = 128; /* build kernels */
constexpr unsigned kFull    = 0xffffffffu;
constexpr int      kBatch   = kARgCSRBatch; /* entries of a chunk loaded together by the product kernel */

/* ------------------------------------------------------------------------------------------------ */
/* Build                                                                                            */
/* ------------------------------------------------------------------------------------------------ */

/* explicit minimum/maximum: no overload resolution between the CUDA math functions for 64-bit types */
template <typename T>
__device__ __forceinline__ T Min(T a, T b)
{
  return a < b ? a : b;
}
template <typename T>
__device__ __forceinline__ T Max(T a, T b)
{
  return a > b ? a : b;
}

using RowOrder = ARgCSRRowOrder<int>; /* the device CSR's rows in the layout's order (ROW ORDER) */

/* One warp per window of R rows: the grouping rule, from a fresh group. ng[r] = groups starting at row r (pieces for a
   long row), isl[r] = 1 for a long row. ng[m] = isl[m] = 0 (for the scans' totals). The rule is sequential: the lanes
   load 32 row lengths at a time (coalesced) and every lane runs the same rule over the 32 (the lengths by shuffles),
   keeping its own row's outcome (next fit: each lane's thread need first, so the serial loop has no divisions). One
   thread a window, loading its rows one after another, took ~690 us on any matrix of more than ~0.4M rows; this 150 us
   (H200, session 43, ncu: 2048 dependent loads a thread against 64 coalesced ones a warp). */
__global__ void Windows(int64_t m, ARgCSRParams p, RowOrder ro, int64_t *__restrict__ ng, int *__restrict__ isl)
{
  const int     lane = threadIdx.x & 31;
  const int64_t nwin = (m + p.R - 1) / p.R;
  /* w is the same for the whole warp (blockDim is a multiple of 32): warps loop and leave together */
  for (int64_t w = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; w < nwin; w += ((int64_t)gridDim.x * blockDim.x) >> 5) {
    ARgCSRGrouper gr;
    const int64_t r1 = Min<int64_t>(m, (w + 1) * p.R);
    for (int64_t r0 = w * p.R; r0 < r1; r0 += 32) {
      const int64_t r  = r0 + lane;
      const int     L  = r < r1 ? (int)ro.Len(r) : 0;
      const int     nj = (int)Min<int64_t>(32, r1 - r0);
      const bool    lng = ARgCSRIsLong(p, L);
      int64_t       mine = 0;
      if (p.paper) {
        for (int j = 0; j < nj; j++) {
          const int Lj = __shfl_sync(kFull, L, j);
          int64_t   g;
          if (ARgCSRIsLong(p, Lj)) {
            g = ARgCSRPieces(p, Lj);
            gr.Break();
          } else g = gr.Step(p, Lj) ? 1 : 0;
          if (j == lane) mine = g;
        }
      } else { /* next fit (ARgCSRGrouper::StepNeed), the thread need's division done by each lane for its row */
        const int need = lng ? -1 : (int)ARgCSRThreadNeed(p, L); /* <= BS: not long */
        if (lng) mine = ARgCSRPieces(p, L);
        for (int j = 0; j < nj; j++) {
          const int wj = __shfl_sync(kFull, need, j);
          if (wj < 0) gr.Break();
          else {
            const bool start = gr.StepNeed(p, wj);
            if (j == lane) mine = start ? 1 : 0;
          }
        }
      }
      if (r < r1) {
        ng[r]  = mine;
        isl[r] = lng ? 1 : 0;
      }
    }
    if (w == nwin - 1 && lane == 0) {
      ng[m]  = 0;
      isl[m] = 0;
    }
  }
}

/* ARgCSRRows on the device: per chunk size of ARgCSRWideD the rows' threads (r[d]), longest chunk (r[3 + d]), own slots
   (r[6 + d]) and own slots in batches (r[9 + d]); the longest row r[12]; the rows in batches r[13] */
constexpr int kRowStats = 14;
__global__ void RowChunks(int64_t m, const int *__restrict__ rp, unsigned long long *__restrict__ r)
{
  unsigned long long w[3] = {0, 0, 0}, c[3] = {0, 0, 0}, v[3] = {0, 0, 0}, v8[3] = {0, 0, 0}, mx = 0, rs = 0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t L = rp[i + 1] - rp[i];
    mx              = Max<unsigned long long>(mx, (unsigned long long)L);
    rs += (unsigned long long)ARgCSRBatchSlots(L);
#pragma unroll
    for (int d = 0; d < 3; d++) {
      int64_t t, k, own, own8;
      ARgCSRRowSlots(L, d, &t, &k, &own, &own8);
      w[d] += (unsigned long long)t;
      c[d] = Max<unsigned long long>(c[d], (unsigned long long)k);
      v[d] += (unsigned long long)own;
      v8[d] += (unsigned long long)own8;
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    mx = Max<unsigned long long>(mx, __shfl_xor_sync(kFull, mx, o));
    rs += __shfl_xor_sync(kFull, rs, o);
  }
#pragma unroll
  for (int d = 0; d < 3; d++) {
    for (int o = 16; o > 0; o >>= 1) {
      w[d] += __shfl_xor_sync(kFull, w[d], o);
      c[d] = Max<unsigned long long>(c[d], __shfl_xor_sync(kFull, c[d], o));
      v[d] += __shfl_xor_sync(kFull, v[d], o);
      v8[d] += __shfl_xor_sync(kFull, v8[d], o);
    }
    if ((threadIdx.x & 31) == 0) {
      atomicAdd(r + d, w[d]);
      atomicMax(r + 3 + d, c[d]);
      atomicAdd(r + 6 + d, v[d]);
      atomicAdd(r + 9 + d, v8[d]);
    }
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(r + 12, mx);
    atomicAdd(r + 13, rs);
  }
}

/* the rows' lengths and positions, for the row order's sort */
__global__ void Lengths(int64_t m, const int *__restrict__ rp, int *__restrict__ len, int *__restrict__ rows)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m; i += (int64_t)gridDim.x * blockDim.x) {
    len[i]  = rp[i + 1] - rp[i];
    rows[i] = (int)i;
  }
}

/* One thread per group: first row, rows, piece (the chunk size comes later) */
__global__ void GroupTable(int64_t G, int64_t m, ARgCSRParams p, RowOrder ro, const int64_t *__restrict__ gfirst, int *__restrict__ ginfo)
{
  for (int64_t g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; g < G; g += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r     = ARgCSRRowOfGroup(gfirst, m, g);
    const bool    lng   = ARgCSRIsLong(p, ro.Len(r));
    const int64_t next  = g + 1 < G ? ARgCSRRowOfGroup(gfirst, m, g + 1) : m;
    ginfo[4 * g + 0]    = (int)r;
    ginfo[4 * g + 1]    = lng ? 1 : (int)(next - r);
    ginfo[4 * g + 2]    = 0;
    ginfo[4 * g + 3]    = lng ? (int)(g - gfirst[r]) : -1;
  }
}

/* One thread per row: the long-row table */
__global__ void LongTable(int64_t m, RowOrder ro, const int *__restrict__ isl, const int *__restrict__ lfirst, const int64_t *__restrict__ ng, const int64_t *__restrict__ gfirst, int *__restrict__ lrow, int *__restrict__ lgroup, int *__restrict__ lcount)
{
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < m; r += (int64_t)gridDim.x * blockDim.x)
    if (isl[r]) {
      const int q = lfirst[r];
      lrow[q]     = (int)ro.Row(r);
      lgroup[q]   = (int)gfirst[r];
      lcount[q]   = (int)ng[r];
    }
}

/*
  One warp per group: threads per row by the paper's greedy (every row one thread, then each free thread to
  the row of largest ceil(len/t), lowest row on ties), the chunk size, threadsMapping (inclusive, group-
  local), the heads words and the group's storage size. Lane l owns the rows i = l (mod 32). Shared memory
  per warp: lengths and thread counts of up to BS rows, and nw heads words.
  stats[0] = largest chunk, stats[1] = most rows in an ordinary group, stats[2] = piece groups, stats[3] = the widest
  group's column span. With gbase (16-bit offsets wanted): the group's smallest column (0 without entries) and span from
  its CSR range (the entries its chunks will hold), and its packed uint4 words (for their scan into coff).
*/
__global__ void Assign(int64_t G, ARgCSRParams p, RowOrder ro, const int *__restrict__ Aj, int *__restrict__ ginfo, int *__restrict__ map, uint32_t *__restrict__ heads, int64_t *__restrict__ gsize, int *__restrict__ stats, int *__restrict__ gbase, int64_t *__restrict__ words)
{
  extern __shared__ int smem[];
  const int      lane  = threadIdx.x & 31, wib = threadIdx.x >> 5;
  int           *Ls    = smem + wib * (2 * p.BS + p.nw);
  int           *ts    = Ls + p.BS;
  uint32_t      *hw    = (uint32_t *)(ts + p.BS);
  const int64_t  nwarp = (int64_t)gridDim.x * (blockDim.x >> 5);
  for (int64_t g = blockIdx.x * (int64_t)(blockDim.x >> 5) + wib; g < G; g += nwarp) {
    const int row0 = ginfo[4 * g + 0], nr = ginfo[4 * g + 1], piece = ginfo[4 * g + 3];
    int       C;
    if (piece >= 0) {
      const int64_t plen = Min<int64_t>(p.T, ro.Len(row0) - (int64_t)piece * p.T);
      C                  = (int)((plen - 1) / p.BS + 1);
      for (int j = lane; j < p.nw; j += 32) heads[g * p.nw + j] = j == 0 ? 1u : 0u;
      if (piece == 0 && lane == 0) map[row0] = p.BS;
      if (lane == 0) atomicAdd(stats + 2, 1);
    } else {
      for (int i = lane; i < nr; i += 32) {
        Ls[i] = (int)ro.Len(row0 + i);
        ts[i] = 1;
      }
      for (int j = lane; j < p.nw; j += 32) hw[j] = 0u;
      uint64_t mine = 0; /* this lane's best key (0 = no row) */
      for (int i = lane; i < nr; i += 32) mine = Max<uint64_t>(mine, ARgCSRKey(Ls[i], 1, i));
      for (int f = nr; f < p.BS; f++) {
        uint64_t best = mine;
        for (int o = 16; o > 0; o >>= 1) best = Max<uint64_t>(best, (uint64_t)__shfl_xor_sync(kFull, (unsigned long long)best, o));
        const int i = (int)~(uint32_t)(best & 0xffffffffu);
        if ((i & 31) == lane) { /* the owner gives the row a thread and recomputes its best */
          ts[i]++;
          mine = 0;
          for (int k = lane; k < nr; k += 32) mine = Max<uint64_t>(mine, ARgCSRKey(Ls[k], ts[k], k));
        }
      }
      __syncwarp();
      int cmax = 0, carry = 0;
      for (int base = 0; base < nr; base += 32) {
        const int i = base + lane;
        const int t = i < nr ? ts[i] : 0;
        if (i < nr) cmax = Max<int>(cmax, (int)(((int64_t)Ls[i] + t - 1) / t));
        int incl = t;
        for (int o = 1; o < 32; o <<= 1) {
          const int u = __shfl_up_sync(kFull, incl, o);
          if (lane >= o) incl += u;
        }
        incl += carry;
        if (i < nr) {
          map[row0 + i]  = incl;
          const int excl = incl - t;
          atomicOr(&hw[excl >> 5], 1u << (excl & 31));
        }
        carry = __shfl_sync(kFull, incl, 31);
      }
      for (int o = 16; o > 0; o >>= 1) cmax = Max<int>(cmax, __shfl_xor_sync(kFull, cmax, o));
      C = cmax;
      __syncwarp();
      for (int j = lane; j < p.nw; j += 32) heads[g * p.nw + j] = hw[j];
      if (lane == 0) atomicMax(stats + 1, nr);
      __syncwarp(); /* the warp's shared arrays are reused by its next group */
    }
    if (lane == 0) {
      ginfo[4 * g + 2] = C;
      gsize[g]         = (int64_t)C * p.BS;
      atomicMax(stats, C);
    }
    if (gbase) {
      int  lo = INT_MAX, hi = -1;
      auto span = [&](int64_t b, int64_t e) {
        for (int64_t q = b + lane; q < e; q += 32) {
          const int c = Aj[q];
          lo          = Min(lo, c);
          hi          = Max(hi, c);
        }
      };
      if (piece >= 0) {
        const int64_t b = ro.Start(row0) + (int64_t)piece * p.T;
        span(b, Min<int64_t>(b + p.T, ro.End(row0)));
      } else if (!ro.perm) span(ro.Start(row0), ro.Start(row0 + nr)); /* consecutive rows: one CSR range */
      else
        for (int i = 0; i < nr; i++) span(ro.Start(row0 + i), ro.End(row0 + i));
      for (int o = 16; o > 0; o >>= 1) {
        lo = Min(lo, __shfl_xor_sync(kFull, lo, o));
        hi = Max(hi, __shfl_xor_sync(kFull, hi, o));
      }
      if (lane == 0) {
        gbase[g] = hi >= 0 ? lo : 0;
        words[g] = ARgCSRPackedWords(p.BS, C);
        if (hi >= 0) atomicMax(stats + 3, hi - lo);
      }
    }
  }
}

/*
  The chunks, written column-wise (entry k of thread t of group g at goff[g] + k*BS + t), one thread a (group, chunk)
  as the layout's threads: thread t holds the CSR entries [beg, end) of its row (or piece) from its first position,
  at most C of them, then padding. VALUES_ONLY: the refresh (the real entries' values). PACKED: the columns as 16-bit
  offsets from gbase[g], the 8 of a batch in one uint4 word coff[g] + b*BS + t (padding 0xFFFF), written whole.
  A thread's entries are consecutive in the CSR arrays and its writes stride BS: a batch of 8 entries of the warp's
  32 threads is read by the warp together (8 rounds; in round j lane l: entry l % 8 of thread 4j + l / 8, 4 runs of 8
  consecutive entries a load) into shared memory and written by its thread (32 consecutive positions a store). Reading them one thread at a
  time strode C entries between lanes and ran 2.4x the bytes' time at C = 24 (H200, session 43).
*/
constexpr int kFillPad = kBatch + 1; /* shared row of one thread's batch, padded against bank conflicts */
template <bool VALUES_ONLY, bool PACKED>
__global__ void __launch_bounds__(kThreads) Fill(int64_t G, ARgCSRParams p, const int *__restrict__ ginfo, const int64_t *__restrict__ goff, const uint32_t *__restrict__ heads, RowOrder ro, const int *__restrict__ Aj, const PetscScalar *__restrict__ Aa, int *__restrict__ col, PetscScalar *__restrict__ val, const int *__restrict__ gbase, const int64_t *__restrict__ coff, uint4 *__restrict__ col16)
{
  __shared__ PetscScalar sv[kThreads / 32][32 * kFillPad];
  __shared__ int         sc[kThreads / 32][VALUES_ONLY ? 1 : 32 * kFillPad];
  const int              lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
  const int64_t          total = G * p.BS, stride = (int64_t)gridDim.x * blockDim.x;
  /* id0 is the same for the whole warp: warps loop and leave together */
  for (int64_t id0 = blockIdx.x * (int64_t)blockDim.x + (threadIdx.x & ~31); id0 < total; id0 += stride) {
    const int64_t id = id0 + lane;
    int64_t       beg = 0, g = 0;
    int           n = 0, C = 0, t = 0;
    if (id < total) {
      g                = id / p.BS;
      t                = (int)(id - g * p.BS);
      const int row0 = ginfo[4 * g + 0], piece = ginfo[4 * g + 3];
      C                = ginfo[4 * g + 2];
      if (C > 0) {
        int64_t end;
        if (piece >= 0) {
          const int64_t base = ro.Start(row0) + (int64_t)piece * p.T;
          beg                = base + (int64_t)t * C;
          end                = Min<int64_t>(base + p.T, ro.End(row0));
        } else {
          int li, first;
          ARgCSRThreadRow(heads + g * p.nw, t, &li, &first);
          beg = ro.Start(row0 + li) + (int64_t)(t - first) * C;
          end = ro.End(row0 + li);
        }
        n = (int)Max<int64_t>(0, Min<int64_t>(C, end - beg)); /* the real entries */
      }
    }
    const int nb = (int)__reduce_max_sync(kFull, (unsigned)((VALUES_ONLY ? n : C) + kBatch - 1) / kBatch);
    const int64_t off = id < total ? goff[g] + t : 0;
    for (int b = 0; b < nb; b++) {
      /* the warp reads batch b of its 32 threads: in round j lane l takes entry l % 8 of thread 4j + l / 8 */
#pragma unroll
      for (int j = 0; j < kBatch; j++) {
        const int     i  = 32 * j + lane, src = i / kBatch, u = i % kBatch;
        const int64_t bj = __shfl_sync(kFull, beg, src);
        const int     nj = __shfl_sync(kFull, n, src);
        const int     k  = b * kBatch + u;
        if (k < nj) {
          sv[wib][src * kFillPad + u] = Aa[bj + k];
          if (!VALUES_ONLY) sc[wib][src * kFillPad + u] = Aj[bj + k];
        }
      }
      __syncwarp();
      if (id < total && b * kBatch < C) {
        unsigned h[kBatch / 2] = {0u, 0u, 0u, 0u};
        int      cb            = 0;
        if (PACKED && !VALUES_ONLY) cb = gbase[g];
#pragma unroll
        for (int u = 0; u < kBatch; u++) {
          const int  k    = b * kBatch + u;
          const bool real = k < n;
          if (VALUES_ONLY) {
            if (real) val[off + (int64_t)k * p.BS] = sv[wib][lane * kFillPad + u];
          } else {
            if (k < C) val[off + (int64_t)k * p.BS] = real ? sv[wib][lane * kFillPad + u] : (PetscScalar)0.0;
            if (PACKED) h[u / 2] |= (real ? (unsigned)(sc[wib][lane * kFillPad + u] - cb) : kARgCSRPad16) << (16 * (u & 1));
            else if (k < C) col[off + (int64_t)k * p.BS] = real ? sc[wib][lane * kFillPad + u] : -1;
          }
        }
        if (PACKED && !VALUES_ONLY) col16[coff[g] + (int64_t)b * p.BS + t] = make_uint4(h[0], h[1], h[2], h[3]);
      }
      __syncwarp(); /* the shared batch is reused by the next */
    }
  }
}
static_assert(kBatch == 8 && kThreads % 32 == 0, "Fill: a batch of 32 threads is 8 rounds of the warp, one uint4 of halves a thread");

/* ------------------------------------------------------------------------------------------------ */
/* SpMV                                                                                             */
/* ------------------------------------------------------------------------------------------------ */

/*
  One block of BS threads per group (see argcsr.h). Thread t: its chunk's partial sum; warp: segmented
  shuffle reduction (segments start at row heads and at lane 0), segment heads to shared memory; thread
  i < nrows: row i's sum over its warp pieces, in order, to y (or part[g] for a long row's piece).
  PACKED: the columns are 16-bit offsets packed by batch (col16, gbase, coff): a batch's 8 offsets come with one
  16-byte load, then all 8 values and x entries are loaded before the fmas (the same fmas in the same order).
*/
template <bool ADD, bool PACKED>
__device__ __forceinline__ void SpMVBody(int BS, int nw, const int4 *__restrict__ ginfo, const int64_t *__restrict__ goff, const uint32_t *__restrict__ heads, const PetscScalar *__restrict__ val, const int *__restrict__ col, const uint4 *__restrict__ col16, const int *__restrict__ gbase, const int64_t *__restrict__ coff, const int *__restrict__ perm, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, PetscScalar *__restrict__ part)
{
  extern __shared__ PetscScalar psum[]; /* BS */
  const int       g = blockIdx.x, t = threadIdx.x, lane = t & 31;
  const int4      gi  = __ldg(ginfo + g);
  const int64_t   off = __ldg(goff + g);
  const uint32_t *h   = heads + (int64_t)g * nw;
  const uint32_t  hw  = __ldg(h + (t >> 5));
  const int       C   = gi.z;

  const PetscScalar *vp  = val + off + t;
  PetscScalar        acc = 0;
  if constexpr (PACKED) {
    const int    base = __ldg(gbase + g);
    const uint4 *wp   = col16 + __ldg(coff + g) + t;
    for (int k = 0; k < C; k += kBatch) {
      const uint4    w     = __ldcs(wp + (int64_t)(k / kBatch) * BS);
      const unsigned ws[4] = {w.x, w.y, w.z, w.w};
      int            c[kBatch];
      PetscScalar    a[kBatch], b[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; u++) {
        const unsigned o = (ws[u / 2] >> (16 * (u & 1))) & 0xFFFFu;
        c[u]             = o == kARgCSRPad16 ? -1 : base + (int)o;
      }
      if (c[0] < 0) break; /* a batch of padding only: the chunk ended with the last batch */
#pragma unroll
      for (int u = 0; u < kBatch; u++) { /* unpredicated; a padding slot reads the batch's first value again (no new
                                            bytes: the same thread's load) and x[0] */
        a[u] = spmv::Ldcs(vp + (int64_t)(c[u] >= 0 ? k + u : k) * BS);
        b[u] = spmv::Ldg(x + Max(c[u], 0));
      }
#pragma unroll
      for (int u = 0; u < kBatch; u++)
        if (c[u] >= 0) acc = spmv::Fma(a[u], b[u], acc);
      if (c[kBatch - 1] < 0) break; /* padding only at the tail: the chunk (or C) ended */
    }
  } else {
    const int *cp = col + off + t;
    for (int k = 0; k < C; k += kBatch) { /* batches: the columns first (independent loads), then values and x */
      int c[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; u++) c[u] = k + u < C ? __ldcs(cp + (int64_t)(k + u) * BS) : -1;
#pragma unroll
      for (int u = 0; u < kBatch; u++)
        if (c[u] >= 0) acc = spmv::Fma(spmv::Ldcs(vp + (int64_t)(k + u) * BS), spmv::Ldg(x + c[u]), acc);
      if (c[kBatch - 1] < 0) break; /* padding only at the tail: the chunk (or C) ended */
    }
  }

  const uint32_t segs = hw | 1u;
  const int      end  = ARgCSRSegEnd(segs, lane, 32);
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const PetscScalar v = spmv::ShflDown(kFull, acc, o);
    if (lane + o < end) acc += v;
  }
  if ((segs >> lane) & 1u) psum[t] = acc;
  __syncthreads();

  const int nrows = gi.w < 0 ? gi.y : 1;
  if (t < nrows) {
    int b, e;
    ARgCSRRowThreads(h, nw, BS, t, &b, &e);
    PetscScalar s = psum[b];
    for (int q = (b & ~31) + 32; q < e; q += 32) s += psum[q];
    if (gi.w < 0) {
      const int r = perm ? __ldg(perm + gi.x + t) : gi.x + t;
      y[r]        = ADD ? y[r] + s : s;
    } else part[g] = s;
  }
}
template <bool ADD>
__global__ void __launch_bounds__(1024) SpMV(int BS, int nw, const int4 *__restrict__ ginfo, const int64_t *__restrict__ goff, const uint32_t *__restrict__ heads, const PetscScalar *__restrict__ val, const int *__restrict__ col, const int *__restrict__ perm, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, PetscScalar *__restrict__ part)
{
  SpMVBody<ADD, false>(BS, nw, ginfo, goff, heads, val, col, nullptr, nullptr, nullptr, perm, x, y, part);
}
/* one block a multiprocessor as the bound: ptxas then keeps a batch's 16 loads in flight (64 registers; at the default
   bound of 32 it issued one entry's loads at a time) */
template <bool ADD>
__global__ void __launch_bounds__(1024, 1) SpMV16(int BS, int nw, const int4 *__restrict__ ginfo, const int64_t *__restrict__ goff, const uint32_t *__restrict__ heads, const PetscScalar *__restrict__ val, const uint4 *__restrict__ col16, const int *__restrict__ gbase, const int64_t *__restrict__ coff, const int *__restrict__ perm, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, PetscScalar *__restrict__ part)
{
  SpMVBody<ADD, true>(BS, nw, ginfo, goff, heads, val, nullptr, col16, gbase, coff, perm, x, y, part);
}

/* One warp per long row: its pieces' sums in a fixed order (lane-strided, then the shuffle-down tree) */
template <bool ADD>
__global__ void LongRows(int nl, const int *__restrict__ lrow, const int *__restrict__ lgroup, const int *__restrict__ lcount, const PetscScalar *__restrict__ part, PetscScalar *__restrict__ y)
{
  const int     lane   = threadIdx.x & 31;
  const int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  /* q is the same for the whole warp (blockDim is a multiple of 32): warps loop and leave together */
  for (int64_t q = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; q < nl; q += nwarps) {
    const int   g0 = lgroup[q], cnt = lcount[q];
    PetscScalar s  = 0;
    for (int k = lane; k < cnt; k += 32) s += part[g0 + k];
    for (int o = 16; o > 0; o >>= 1) s += spmv::ShflDown(kFull, s, o);
    if (lane == 0) {
      const int r = lrow[q];
      y[r]        = ADD ? y[r] + s : s;
    }
  }
}

/* build grids: kThreads per block, at most 2^20 blocks */
inline unsigned GridFor(int64_t threads) { return spmv::GridFor(threads, kThreads, (int64_t)1 << 20); }

/* CUB temporary storage of one build on stream s (grown by spmv::ExclusiveSum), freed with it */
struct Scratch {
  void        *p     = nullptr;
  std::size_t  bytes = 0;
  cudaStream_t s     = nullptr;
  ~Scratch()
  {
    if (p) (void)cudaFreeAsync(p, s);
  }
};

struct ARgCSRDeviceLayout {
  int         *ginfo = nullptr, *map = nullptr, *col = nullptr, *lrow = nullptr, *lgroup = nullptr, *lcount = nullptr;
  int64_t     *goff  = nullptr;
  uint32_t    *heads = nullptr;
  PetscScalar *val = nullptr, *part = nullptr;
  int         *gbase = nullptr; /* 16-bit offsets (argcsr.h): col is freed then */
  int         *perm  = nullptr; /* ROW ORDER (argcsr.h): the row at each position, nullptr in CSR order */
  int64_t     *coff  = nullptr;
  uint16_t    *col16 = nullptr;
  std::size_t  bytes = 0;
};
} // namespace

SPMV_KERNEL_MODULE(Windows); /* the first selection's builds: loaded ahead by spmv::WarmPool */

class ARgCSR final : public SpMVFormat {
  ARgCSROptions      opt;
  ARgCSRParams       par;
  ARgCSRStats        st;
  ARgCSRHostLayout   host;
  ARgCSRDeviceLayout dev;
  ARgCSRRows         rows;             /* the device CSR's row statistics (BuildDevice) */
  bool               ondevice = false; /* st describes the device layout */

public:
  ~ARgCSR() override { (void)ReleaseDevice(); }

  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    PetscFunctionBegin;
    PetscCall(PetscOptionsInt("-mat_argcsr_block_size", "Threads per CUDA block = chunks per row group (a multiple of 32 in [32, 1024])", "MatSetType", opt.block_size, &opt.block_size, NULL));
    PetscCall(PetscOptionsInt("-mat_argcsr_desired_chunk_size", "Desired chunk size D: rows are grouped so that a group's chunk size (entries per thread) is at most D (default: 8 below 24 nonzeros a row; from 24 the longest row, one thread a row, where that reads 5% fewer batch slots and the longest row is at most 96 and twice the mean, else the largest of 16, 24, 32 within 3% of the fewest stored batch slots; where the 16-bit offsets fit)", "MatSetType", opt.chunk_size, &opt.chunk_size, NULL));
    PetscCall(PetscOptionsBool3("-mat_argcsr_index16", "Columns as 16-bit offsets from each group's smallest column, read by the batched kernel, where every group spans fewer than 65535 columns (default: where D >= 16)", "MatSetType", opt.index16, &opt.index16, NULL));
    PetscCall(PetscOptionsBool3("-mat_argcsr_sort_rows", "The rows of each window of 16*block size rows in order of decreasing length, so that a group holds rows of one length (default: where rows of unlike length in a group would pad 10% more value slots, at one thread a row where the longest row is 10% over the mean, from 24 nonzeros a row, and the 16-bit offsets still fit)", "MatSetType", opt.sort_rows, &opt.sort_rows, NULL));
    PetscCall(PetscOptionsInt("-mat_argcsr_sort_window", "Rows a window of the row order holds (default: 16*block size, the grouping's window)", "MatSetType", opt.sort_window, &opt.sort_window, NULL));
    PetscCall(PetscOptionsBool("-mat_argcsr_split_long_rows", "Rows longer than D*block size get groups of their own, combined by a second deterministic reduction (0: the paper, one group per row)", "MatSetType", opt.split_long, &opt.split_long, NULL));
    PetscCall(PetscOptionsBool("-mat_argcsr_paper_grouping", "Group rows by the paper's rule (close a group once it holds more than D*block size nonzeros) instead of by thread need", "MatSetType", opt.paper_grouping, &opt.paper_grouping, NULL));
    PetscCall(ARgCSRCheckOptions(opt));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode CopyOptions(const SpMVFormat &from) override
  {
    PetscFunctionBegin;
    opt = static_cast<const ARgCSR &>(from).opt;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode BuildHost(const SpMVHostCsr &A) override
  {
    PetscFunctionBegin;
    PetscCall(ARgCSRCheckOptions(opt));
    PetscCall(ARgCSRBuildHostLayout(opt, A, &host, &st));
    par      = host.p;
    ondevice = false;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode RefreshHost(const SpMVHostCsr &A) override { return ARgCSRRefreshHostLayout(A, &host); }
  PetscErrorCode MultHost(const PetscScalar *x, PetscScalar *y, bool add) const override
  {
    PetscFunctionBegin;
    ARgCSRMultHost(host, st.m, SpMVHostArray(x), SpMVHostArray(y), add);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode ReleaseDevice() override
  {
    PetscFunctionBegin;
    PetscCall(spmv::DeviceFree({dev.ginfo, dev.map, dev.col, dev.lrow, dev.lgroup, dev.lcount, dev.goff, dev.heads, dev.val, dev.part, dev.gbase, dev.coff, dev.col16, dev.perm}));
    dev = ARgCSRDeviceLayout();
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  std::size_t DeviceBytes() const override { return dev.bytes; }

  /* the device layout at par (the host reference's ARgCSRBuildHostLayout): where the 16-bit offsets are wanted, the
     groups' spans come with the threads (Assign); all below 65535 columns: the chunks are written with packed offsets
     (no 32-bit col on the device); else, where ARgCSRFallBack has a next step, the layout is left to be built again (*again), or the
     32-bit columns are written */
  PetscErrorCode BuildLayout(const SpMVDeviceCsr &A, cudaStream_t s, bool *again)
  {
    const int64_t m = A.m;
    int64_t      *ng = nullptr, *gfirst = nullptr, *gsize = nullptr, *words = nullptr, tot[3] = {0, 0, 0};
    int          *isl = nullptr, *lfirst = nullptr, *stats = nullptr, hstats[4], nl;
    Scratch       tmp;
    tmp.s = s;

    PetscFunctionBegin;
    *again = false;
    PetscCall(ReleaseDevice());
    st       = ARgCSRStats();
    st.m     = A.m;
    st.n     = A.n;
    st.nnz   = A.nnz;
    ondevice = true;
    st.sorted = par.sort;
    if (m == 0) PetscFunctionReturn(PETSC_SUCCESS);
    /* 0. the row order (ROW ORDER) */
    RowOrder ro{A.i, nullptr};
    if (par.sort) {
      int *len = nullptr, *pos = nullptr;
      PetscCall(spmv::DeviceAlloc(&dev.perm, m, &dev.bytes, s));
      PetscCall(spmv::DeviceAlloc(&len, m, nullptr, s));
      PetscCall(spmv::DeviceAlloc(&pos, m, nullptr, s));
      Lengths<<<GridFor(m), kThreads, 0, s>>>(m, A.i, len, pos);
      SpMVCheckLaunch();
      PetscCall(spmv::SortByLength(m, par.W, rows.maxlen, len, pos, dev.perm, &tmp.p, &tmp.bytes, s));
      PetscCall(spmv::DeviceFree({len, pos}, s));
      ro.perm = dev.perm;
    }
    /* 1. groups per row (one warp per window), their prefix sums: first group of each row, long rows */
    PetscCall(spmv::DeviceAlloc(&ng, m + 1, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&gfirst, m + 1, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&isl, m + 1, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&lfirst, m + 1, nullptr, s));
    Windows<<<GridFor((m + par.R - 1) / par.R * 32), kThreads, 0, s>>>(m, par, ro, ng, isl);
    SpMVCheckLaunch();
    PetscCall(spmv::ExclusiveSum(ng, gfirst, m + 1, &tmp.p, &tmp.bytes, s));
    PetscCall(spmv::ExclusiveSum(isl, lfirst, m + 1, &tmp.p, &tmp.bytes, s));
    PetscCallCUDA(cudaMemcpyAsync(&tot[0], gfirst + m, sizeof(int64_t), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaMemcpyAsync(&nl, lfirst + m, sizeof(int), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    const int64_t G = tot[0];
    PetscCheck(G >= 1 && G < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_INT_OVERFLOW, "ARgCSR: %" PetscInt64_FMT " groups do not fit the grid; raise -mat_argcsr_desired_chunk_size", G);
    st.groups    = G;
    st.long_rows = nl;
    /* 2. the group table, the long rows */
    PetscCall(spmv::DeviceAlloc(&dev.ginfo, 4 * G, &dev.bytes, s));
    GroupTable<<<GridFor(G), kThreads, 0, s>>>(G, m, par, ro, gfirst, dev.ginfo);
    SpMVCheckLaunch();
    if (nl) {
      PetscCall(spmv::DeviceAlloc(&dev.lrow, nl, &dev.bytes, s));
      PetscCall(spmv::DeviceAlloc(&dev.lgroup, nl, &dev.bytes, s));
      PetscCall(spmv::DeviceAlloc(&dev.lcount, nl, &dev.bytes, s));
      PetscCall(spmv::DeviceAlloc(&dev.part, G, &dev.bytes, s));
      LongTable<<<GridFor(m), kThreads, 0, s>>>(m, ro, isl, lfirst, ng, gfirst, dev.lrow, dev.lgroup, dev.lcount);
      SpMVCheckLaunch();
    }
    /* 3. threads per row, chunk sizes, threadsMapping, heads (and the spans); offsets by scans of the group sizes */
    PetscCall(spmv::DeviceAlloc(&dev.map, m, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&dev.heads, G * par.nw, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&dev.goff, G + 1, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&gsize, G + 1, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&stats, 4, nullptr, s));
    PetscCallCUDA(cudaMemsetAsync(stats, 0, 4 * sizeof(int), s));
    PetscCallCUDA(cudaMemsetAsync(gsize + G, 0, sizeof(int64_t), s));
    if (par.want16) {
      PetscCall(spmv::DeviceAlloc(&dev.gbase, G, &dev.bytes, s));
      PetscCall(spmv::DeviceAlloc(&dev.coff, G + 1, &dev.bytes, s));
      PetscCall(spmv::DeviceAlloc(&words, G + 1, nullptr, s));
      PetscCallCUDA(cudaMemsetAsync(words + G, 0, sizeof(int64_t), s));
    }
    {
      const int         warps = kThreads / 32;
      const std::size_t shm   = (std::size_t)warps * (2 * par.BS + par.nw) * sizeof(int);
      Assign<<<GridFor(G * 32), kThreads, shm, s>>>(G, par, ro, A.j, dev.ginfo, dev.map, dev.heads, gsize, stats, dev.gbase, words);
      SpMVCheckLaunch();
    }
    PetscCall(spmv::ExclusiveSum(gsize, dev.goff, G + 1, &tmp.p, &tmp.bytes, s));
    PetscCallCUDA(cudaMemcpyAsync(&tot[1], dev.goff + G, sizeof(int64_t), cudaMemcpyDeviceToHost, s));
    if (par.want16) {
      PetscCall(spmv::ExclusiveSum(words, dev.coff, G + 1, &tmp.p, &tmp.bytes, s));
      PetscCallCUDA(cudaMemcpyAsync(&tot[2], dev.coff + G, sizeof(int64_t), cudaMemcpyDeviceToHost, s));
    }
    PetscCallCUDA(cudaMemcpyAsync(hstats, stats, sizeof(hstats), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(spmv::DeviceFree({ng, gfirst, isl, lfirst, gsize, stats, words}, s));
    st.stored    = tot[1];
    st.max_chunk = hstats[0];
    st.max_rows  = hstats[1];
    st.pieces    = hstats[2];
    st.span      = hstats[3];
    st.index16   = par.want16 && st.span < (int64_t)kARgCSRPad16;
    if (par.want16 && !st.index16) {
      PetscCall(spmv::DeviceFree({dev.gbase, dev.coff}, s));
      dev.gbase = nullptr;
      dev.coff  = nullptr;
      dev.bytes -= (std::size_t)G * sizeof(int) + (std::size_t)(G + 1) * sizeof(int64_t);
      ARgCSRParams next = par;
      if (ARgCSRFallBack(rows, &next)) {
        *again = true;
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
    /* 4. the chunks */
    PetscCall(spmv::DeviceAlloc(&dev.val, st.stored, &dev.bytes, s));
    if (st.index16) {
      st.packed = tot[2];
      PetscCall(spmv::DeviceAlloc(&dev.col16, (std::size_t)st.packed * kBatch, &dev.bytes, s));
      Fill<false, true><<<GridFor(G * par.BS), kThreads, 0, s>>>(G, par, dev.ginfo, dev.goff, dev.heads, ro, A.j, A.a, nullptr, dev.val, dev.gbase, dev.coff, (uint4 *)dev.col16);
    } else {
      PetscCall(spmv::DeviceAlloc(&dev.col, st.stored, &dev.bytes, s));
      Fill<false, false><<<GridFor(G * par.BS), kThreads, 0, s>>>(G, par, dev.ginfo, dev.goff, dev.heads, ro, A.j, A.a, dev.col, dev.val, nullptr, nullptr, nullptr);
    }
    SpMVCheckLaunch();
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode BuildDevice(const SpMVDeviceCsr &A, cudaStream_t s) override
  {
    bool again;

    PetscFunctionBegin;
    PetscCall(ARgCSRCheckOptions(opt));
    rows     = ARgCSRRows();
    rows.m   = A.m;
    rows.nnz = A.nnz;
    /* ARgCSRRowRule reads the chunks only from 24 nonzeros a row; a forced row order needs the longest row */
    if ((opt.chunk_size == PETSC_DECIDE && ARgCSRWideRows(rows.Mean())) || opt.sort_rows == PETSC_BOOL3_TRUE) {
      unsigned long long *d = nullptr, h[kRowStats];
      PetscCall(spmv::DeviceAlloc(&d, kRowStats, nullptr, s));
      PetscCallCUDA(cudaMemsetAsync(d, 0, sizeof(h), s));
      RowChunks<<<std::min(GridFor(A.m), 1024u), kThreads, 0, s>>>(A.m, A.i, d);
      SpMVCheckLaunch();
      PetscCallCUDA(cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaStreamSynchronize(s));
      PetscCall(spmv::DeviceFree({d}, s));
      for (int k = 0; k < 3; k++) {
        rows.threads[k] = h[k];
        rows.chunk[k]   = (int64_t)h[3 + k];
        rows.own[k]     = h[6 + k];
        rows.own8[k]    = h[9 + k];
      }
      rows.maxlen   = (int64_t)h[12];
      rows.rowslots = h[13];
    }
    PetscCall(ARgCSRSetParams(opt, rows, &par));
    PetscCall(BuildLayout(A, s, &again));
    while (again) { /* a group spans too many columns for the 16-bit offsets: ARgCSRFallBack's next step */
      const int64_t span = st.span;
      const int     D    = par.D;
      const bool    sort = par.autoSort;
      PetscCheck(ARgCSRFallBack(rows, &par), PETSC_COMM_SELF, PETSC_ERR_PLIB, "ARgCSR: no layout to fall back to");
      if (sort) PetscCall(PetscInfo(NULL, "ARgCSR: with the rows sorted a group spans %" PetscInt64_FMT " columns, more than 16-bit offsets hold: rows in CSR order at D = %d\n", span, par.D));
      else PetscCall(PetscInfo(NULL, "ARgCSR: a group spans %" PetscInt64_FMT " columns, more than 16-bit offsets hold: 32-bit columns at D = %d instead of %d\n", span, par.D, D));
      PetscCall(BuildLayout(A, s, &again));
      if (!par.want16) st.span = span; /* the last 16-bit attempt's span, as the host reference keeps it */
    }
    if (st.index16) PetscCall(PetscInfo(NULL, "ARgCSR: 16-bit column offsets (every group spans at most %" PetscInt64_FMT " columns), D = %d, rows %s\n", st.span, par.D, st.sorted ? "sorted by length in windows" : "in CSR order"));
    else if (par.want16 && st.groups) PetscCall(PetscInfo(NULL, "ARgCSR: a group spans %" PetscInt64_FMT " columns, more than 16-bit offsets hold: 32-bit columns\n", st.span));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode RefreshDevice(const SpMVDeviceCsr &A, cudaStream_t s) override
  {
    PetscFunctionBegin;
    if (st.groups) Fill<true, false><<<GridFor(st.groups * par.BS), kThreads, 0, s>>>(st.groups, par, dev.ginfo, dev.goff, dev.heads, RowOrder{A.i, dev.perm}, A.j, A.a, nullptr, dev.val, nullptr, nullptr, nullptr);
    SpMVCheckLaunch();
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode MultDevice(const PetscScalar *x, PetscScalar *y, bool add, cudaStream_t s) const override
  {
    PetscFunctionBegin;
    if (!st.groups) PetscFunctionReturn(PETSC_SUCCESS); /* no rows */
    const std::size_t shm = (std::size_t)par.BS * sizeof(PetscScalar);
    const unsigned    G   = (unsigned)st.groups;
    const int4       *gi  = (const int4 *)dev.ginfo;
    const uint4      *c16 = (const uint4 *)dev.col16;
    if (st.index16) {
      if (add) SpMV16<true><<<G, par.BS, shm, s>>>(par.BS, par.nw, gi, dev.goff, dev.heads, dev.val, c16, dev.gbase, dev.coff, dev.perm, x, y, dev.part);
      else SpMV16<false><<<G, par.BS, shm, s>>>(par.BS, par.nw, gi, dev.goff, dev.heads, dev.val, c16, dev.gbase, dev.coff, dev.perm, x, y, dev.part);
    } else if (add) SpMV<true><<<G, par.BS, shm, s>>>(par.BS, par.nw, gi, dev.goff, dev.heads, dev.val, dev.col, dev.perm, x, y, dev.part);
    else SpMV<false><<<G, par.BS, shm, s>>>(par.BS, par.nw, gi, dev.goff, dev.heads, dev.val, dev.col, dev.perm, x, y, dev.part);
    SpMVCheckLaunch();
    if (st.long_rows) {
      const int nl = (int)st.long_rows;
      if (add) LongRows<true><<<GridFor((int64_t)nl * 32), kThreads, 0, s>>>(nl, dev.lrow, dev.lgroup, dev.lcount, dev.part, y);
      else LongRows<false><<<GridFor((int64_t)nl * 32), kThreads, 0, s>>>(nl, dev.lrow, dev.lgroup, dev.lcount, dev.part, y);
      SpMVCheckLaunch();
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode View(PetscViewer v) const override
  {
    PetscFunctionBegin;
    const int64_t ordinary = st.groups - st.pieces;
    PetscCall(PetscViewerASCIIPrintf(v, "ARgCSR: rows %" PetscInt_FMT ", columns %" PetscInt_FMT ", nnz %" PetscInt64_FMT "; block size %d, desired chunk size %d%s (long rows: more than %d nonzeros, %s), %s grouping\n", st.m, st.n, st.nnz, par.BS, par.D, par.autoD ? " by the rows" : "", par.T,
                                     par.split ? "split into groups of their own" : "not split", par.paper ? "the paper's" : "thread-need"));
    PetscCall(PetscViewerASCIIPrintf(v, "ARgCSR: %" PetscInt64_FMT " groups (%" PetscInt64_FMT " of rows, mean %.1f rows, at most %" PetscInt_FMT "; %" PetscInt64_FMT " pieces of %" PetscInt64_FMT " long rows), chunk size mean %.2f max %" PetscInt_FMT "\n", st.groups, ordinary,
                                     ordinary ? (double)(st.m - st.long_rows) / (double)ordinary : 0.0, st.max_rows, st.pieces, st.long_rows, st.groups ? (double)st.stored / ((double)st.groups * par.BS) : 0.0, st.max_chunk));
    /* the arrays the product reads: values, columns (4 bytes, or 2 a packed slot), and per group ginfo, goff, heads (and
       gbase, coff); map (4 a row) is counted as before although no kernel reads it */
    const double cols   = st.index16 ? 16.0 * (double)st.packed : 4.0 * (double)st.stored;
    const double layout = sizeof(PetscScalar) * (double)st.stored + cols + (24.0 + 4.0 * par.nw + (st.index16 ? 12.0 : 0.0)) * (double)st.groups + (st.sorted ? 8.0 : 4.0) * (double)st.m;
    PetscCall(PetscViewerASCIIPrintf(v, "ARgCSR: rows %s\n", st.sorted ? "sorted by decreasing length in windows of 16*block size rows (a product reads 4 more bytes a row)" : "in CSR order"));
    PetscCall(PetscViewerASCIIPrintf(v, "ARgCSR: columns %s (widest group %" PetscInt64_FMT " columns)\n", st.index16 ? "16-bit offsets from each group's smallest column, packed by batch, batched kernel" : par.want16 ? "32-bit (a group spans too many columns for 16-bit offsets)" : "32-bit", st.span));
    PetscCall(PetscViewerASCIIPrintf(v, "ARgCSR: stored entries %" PetscInt64_FMT " (padding %.1f%%), layout %.2f bytes per nonzero, device memory %.3g MB (%s)\n", st.stored, st.nnz ? 100.0 * (double)(st.stored - st.nnz) / (double)st.nnz : 0.0,
                                     st.nnz ? layout / (double)st.nnz : 0.0, dev.bytes / 1e6, ondevice ? "built on the GPU" : "host reference"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode Verify(const SpMVHostCsr &A, cudaStream_t s, PetscReal *maxdiff) override
  {
    ARgCSRHostLayout ref;
    ARgCSRStats      rst;

    PetscFunctionBegin;
    PetscCall(ARgCSRBuildHostLayout(opt, A, &ref, &rst));
    PetscCheck(ref.p.D == par.D && rst.sorted == st.sorted && rst.index16 == st.index16 && rst.packed == st.packed && rst.span == st.span, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "ARgCSR device layout differs from the host reference (device/host): D %d/%d, rows sorted %d/%d, 16-bit offsets %d/%d, packed words %" PetscInt64_FMT "/%" PetscInt64_FMT ", widest group %" PetscInt64_FMT "/%" PetscInt64_FMT, par.D, ref.p.D, (int)st.sorted, (int)rst.sorted, (int)st.index16, (int)rst.index16, st.packed, rst.packed, st.span, rst.span);
    PetscCheck(rst.groups == st.groups && rst.pieces == st.pieces && rst.long_rows == st.long_rows && rst.stored == st.stored && rst.max_chunk == st.max_chunk && rst.max_rows == st.max_rows, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "ARgCSR device layout shape differs from the host reference (device/host): groups %" PetscInt64_FMT "/%" PetscInt64_FMT " pieces %" PetscInt64_FMT "/%" PetscInt64_FMT " long rows %" PetscInt64_FMT "/%" PetscInt64_FMT " stored %" PetscInt64_FMT "/%" PetscInt64_FMT " max chunk %" PetscInt_FMT "/%" PetscInt_FMT " max rows %" PetscInt_FMT "/%" PetscInt_FMT,
               st.groups, rst.groups, st.pieces, rst.pieces, st.long_rows, rst.long_rows, st.stored, rst.stored, st.max_chunk, rst.max_chunk, st.max_rows, rst.max_rows);
    const int64_t            G = st.groups, nl = st.long_rows;
    std::vector<int>         ginfo(4 * G), map(st.m), col(st.stored), lrow(nl), lgroup(nl), lcount(nl);
    std::vector<int64_t>     goff(G + 1, 0);
    std::vector<uint32_t>    heads(G * par.nw);
    std::vector<PetscScalar> val(st.stored);
    PetscCallCUDA(cudaStreamSynchronize(s));
    if (G) {
      PetscCall(spmv::Download(ginfo, dev.ginfo));
      PetscCall(spmv::Download(goff, dev.goff));
      PetscCall(spmv::Download(heads, dev.heads));
      PetscCall(spmv::Download(map, dev.map));
      if (!st.index16) PetscCall(spmv::Download(col, dev.col));
      PetscCall(spmv::Download(val, dev.val));
    }
    if (st.index16) {
      std::vector<int>      gbase(G);
      std::vector<int64_t>  coff(G + 1);
      std::vector<uint16_t> col16((std::size_t)st.packed * kBatch);
      PetscCall(spmv::Download(gbase, dev.gbase));
      PetscCall(spmv::Download(coff, dev.coff));
      PetscCall(spmv::Download(col16, dev.col16));
      PetscCheck(gbase == ref.gbase && coff == ref.coff, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ARgCSR device 16-bit layout (group bases %s, packed offsets' starts %s) differs from the host reference", gbase == ref.gbase ? "equal" : "differ", coff == ref.coff ? "equal" : "differ");
      PetscCheck(col16 == ref.col16, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ARgCSR device 16-bit column offsets (padding included) differ from the host reference");
      col = ref.col; /* not kept on the device: the offsets above encode it */
    }
    if (st.sorted) {
      std::vector<int> perm(st.m);
      PetscCall(spmv::Download(perm, dev.perm));
      PetscCheck(perm == ref.perm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ARgCSR device row order differs from the host reference");
    }
    if (nl) {
      PetscCall(spmv::Download(lrow, dev.lrow));
      PetscCall(spmv::Download(lgroup, dev.lgroup));
      PetscCall(spmv::Download(lcount, dev.lcount));
    }
    PetscCheck(ginfo == ref.ginfo, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ARgCSR device group table (first row, rows, chunk size, piece) differs from the host reference");
    PetscCheck(goff == ref.goff, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ARgCSR device group offsets differ from the host reference");
    PetscCheck(heads == ref.heads && map == ref.map, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ARgCSR device threads mapping (map %s, heads %s) differs from the host reference", map == ref.map ? "equal" : "differs", heads == ref.heads ? "equal" : "differs");
    PetscCheck(lrow == ref.lrow && lgroup == ref.lgroup && lcount == ref.lcount, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ARgCSR device long-row table differs from the host reference");
    PetscCheck(col == ref.col, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ARgCSR device column indices (padding included) differ from the host reference");
    *maxdiff = 0;
    for (std::size_t k = 0; k < val.size(); k++) *maxdiff = std::max(*maxdiff, (PetscReal)PetscAbsScalar(val[k] - ref.val[k]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

SpMVFormat *ARgCSRCreate(void) { return new ARgCSR(); }
