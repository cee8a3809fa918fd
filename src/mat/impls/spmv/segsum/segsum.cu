/* Speculative segmented sum on the device: the auxiliary arrays built on the GPU from the device CSR,
   the speculative kernel, the fix-up kernel, and the format object that the generic type drives.
   See segsum.h for the algorithm and the host reference (segsumhost.cxx) for the same steps on the CPU.

   Every floating-point operation is an explicit __dmul_rn / __dadd_rn (no FMA contraction) in an order
   the host reference repeats, so device and host results agree bit for bit (MatSpMVVerify checks it).

   Value type (spmvformat.h): the product kernel is a template over the stored value type V, PetscScalar or
   SpMVSingleScalar (double or float; complex: a complex value is one 16- or 8-byte load, and the product is
   (ac - bd, ad + bc) with __dmul_rn / __dadd_rn, as the host's std::complex product without contraction), as
   float (a single CSR: the kernel reads a32, 4 bytes per nonzero instead of 8). An fp32 value is widened
   to double (exact) before the fp64 product, and every later operation is the same, so the fp32 product
   equals the fp64 host reference on the rounded values bit for bit. */
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "segsum.h"
#include "../spmvdevice.cuh"
#include "../spmvvalue.cuh"
#include <petscdevice_cuda.h>
#include <cub/cub.cuh>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <type_traits>


namespace {
constexpr unsigned kFull       = 0xffffffffu;
constexpr int      kW          = kSegSumW;
constexpr int      kMaxThreads = 256; /* at most 8 warps per block (-mat_segsum_warps_per_block) */
constexpr int      kAux        = 256; /* threads per block of the build and fix-up kernels */

/* What the kernels see: the generic type's device CSR and the auxiliary arrays. The values are fp64, or
   fp32 for a single CSR: aa then holds the address of the fp32 array, which Vals<float> converts back (a
   pointer round trip, valid since the array is 16-byte aligned, checked at build). Why not a second
   member: Dev must stay at 128 bytes (one more member made nvcc address the kernel parameter through a
   pointer, and the fp64 T = 4 kernel spilled), and a const void * or a union changed the fp64 address
   arithmetic; as it is, the fp64 kernels compile to the same PTX as before fp32 values existed. */
struct Dev {
  const int    *rp = nullptr, *cj = nullptr;
  const PetscScalar *aa = nullptr; /* the values: PetscScalar, or SpMVSingleScalar (see above); use Vals<V>(D) */
  int           m = 0, S = 0;
  int64_t       nnz = 0, ntiles = 0, nwarps = 0, nslots = 0, nruns = 0, nempty = 0;
  int          *bound = nullptr, *wslot = nullptr, *run_off = nullptr, *run_row = nullptr, *erow = nullptr;
  PetscScalar  *sval  = nullptr;
};

/* dcsr's compressed columns (segsum.h): a kernel parameter of its own, empty for segsum, so that Dev and the
   segsum kernels stay as they were */
template <bool C16>
struct Cols16 {};
template <>
struct Cols16<true> {
  const unsigned short *off  = nullptr; /* ntiles*W*T column offsets */
  const int            *base = nullptr; /* ntiles tile bases, -1: a wide tile (the CSR's columns) */
  const uint4          *heads = nullptr; /* ntiles head masks (SegSumUsesMasks), or none: the descriptor walk */
  int                   worder = 0;       /* tiles inside one row in the warp's order (SegSumWarpOrder) */
};

/* ---------------------------------------------------------------------------------------------- */
/* the speculative kernel                                                                          */
/* ---------------------------------------------------------------------------------------------- */

/* the values of the stored type V */
template <typename V>
__host__ __device__ __forceinline__ const V *Vals(const Dev &D)
{
  static_assert(std::is_same_v<V, PetscScalar> || std::is_same_v<V, SpMVSingleScalar>, "segsum stores PetscScalar or SpMVSingleScalar values");
  return reinterpret_cast<const V *>(D.aa);
}

/* a lane's T contiguous entries of a full tile: vector loads, streamed (read once per product). e0 is a
   multiple of T (tiles start at multiples of W*T) and the arrays are 16-byte aligned (checked at build),
   so every load is aligned: columns int2 (T = 2) or int4; values double2, or float2 (T = 2) or float4
   (the lanes of a warp read one contiguous stretch: T*4 bytes per lane in fp32, T*8 in fp64) */
template <int T>
__device__ __forceinline__ void LoadCols(const int *__restrict__ cj, int64_t e0, int (&c)[T])
{
  if constexpr (T == 2) {
    const int2 q = __ldcs(reinterpret_cast<const int2 *>(cj + e0));
    c[0]         = q.x;
    c[1]         = q.y;
  } else {
#pragma unroll
    for (int q = 0; q < T / 4; q++) {
      const int4 w = __ldcs(reinterpret_cast<const int4 *>(cj + e0) + q);
      c[4 * q]     = w.x;
      c[4 * q + 1] = w.y;
      c[4 * q + 2] = w.z;
      c[4 * q + 3] = w.w;
    }
  }
}
template <int T, typename V>
__device__ __forceinline__ void LoadVals(const V *__restrict__ aa, int64_t e0, V (&v)[T])
{
  if constexpr (spmv::kIsComplex<V>) { /* a complex value is one 8- or 16-byte load */
#pragma unroll
    for (int k = 0; k < T; k++) v[k] = spmv::Ldcs(aa + e0 + k);
  } else if constexpr (std::is_same_v<V, double>) {
#pragma unroll
    for (int q = 0; q < T / 2; q++) {
      const double2 w = __ldcs(reinterpret_cast<const double2 *>(aa + e0) + q);
      v[2 * q]        = w.x;
      v[2 * q + 1]    = w.y;
    }
  } else if constexpr (T == 2) {
    const float2 w = __ldcs(reinterpret_cast<const float2 *>(aa + e0));
    v[0]           = w.x;
    v[1]           = w.y;
  } else {
#pragma unroll
    for (int q = 0; q < T / 4; q++) {
      const float4 w = __ldcs(reinterpret_cast<const float4 *>(aa + e0) + q);
      v[4 * q]       = w.x;
      v[4 * q + 1]   = w.y;
      v[4 * q + 2]   = w.z;
      v[4 * q + 3]   = w.w;
    }
  }
}
template <int T, typename V>
__device__ __forceinline__ void LoadLane(const int *__restrict__ cj, const V *__restrict__ aa, int64_t e0, int (&c)[T], V (&v)[T])
{
  LoadCols<T>(cj, e0, c);
  LoadVals<T, V>(aa, e0, v);
}

/* dcsr: a lane's T 16-bit column offsets (T*2 bytes, aligned: the array is padded to whole tiles), streamed,
   kept packed two to a word in c[0 .. T/2-1] until the tile is used (Unpack). Unpacking here, in the prefetch,
   would make the warp wait for the load right away and lose the pipeline: measured on the H100 (6de3410), dcsr
   then ran 13% behind segsum wherever its tiles were narrow (and level where they were wide). */
template <int T>
__device__ __forceinline__ void LoadPacked(const unsigned short *__restrict__ off, int64_t e0, int (&c)[T])
{
  if constexpr (T == 2) c[0] = (int)__ldcs(reinterpret_cast<const unsigned *>(off + e0));
  else if constexpr (T == 4) {
    const uint2 w = __ldcs(reinterpret_cast<const uint2 *>(off + e0));
    c[0]          = (int)w.x;
    c[1]          = (int)w.y;
  } else {
#pragma unroll
    for (int q = 0; q < T / 8; q++) {
      const uint4 w = __ldcs(reinterpret_cast<const uint4 *>(off + e0) + q);
      c[4 * q]      = (int)w.x;
      c[4 * q + 1]  = (int)w.y;
      c[4 * q + 2]  = (int)w.z;
      c[4 * q + 3]  = (int)w.w;
    }
  }
}
/* the columns from the packed offsets and the tile's base (in place, from the top: c[k] reads c[k/2] <= c[k]) */
template <int T>
__device__ __forceinline__ void Unpack(int base, int (&c)[T])
{
#pragma unroll
  for (int k = T - 1; k >= 0; k--) c[k] = base + (int)(((unsigned)c[k / 2] >> (16 * (k & 1))) & 0xffffu);
}

/* Software pipeline: what tile t needs from memory before its x gather and its descriptor, loaded one tile
   ahead: the lane's columns and values, and the first row_ptr pair of its descriptor walk (rows lo+1+lane).
   (dcsr's twin: Fetch16) */
template <int T, typename V>
__device__ __forceinline__ void Fetch(const Dev &D, int64_t t, int lane, int lo, int hi, int (&c)[T], V (&v)[T], int &pa, int &pb)
{
  constexpr int WT = kW * T;
  const int64_t tb = t * WT, e0 = tb + (int64_t)lane * T;
  if (tb + WT <= D.nnz) {
    LoadLane<T, V>(D.cj, Vals<V>(D), e0, c, v);
  } else { /* the last, partial tile */
#pragma unroll
    for (int k = 0; k < T; k++) {
      const bool in = e0 + k < D.nnz;
      c[k]          = in ? __ldcs(D.cj + e0 + k) : 0;
      v[k]          = in ? spmv::Ldcs(Vals<V>(D) + e0 + k) : V(0);
    }
  }
  const int r = lo + 1 + lane;
  if (lo != hi && hi - lo <= WT && r <= min(hi, D.m - 1)) {
    pa = __ldg(D.rp + r);
    pb = __ldg(D.rp + r + 1);
  }
}

/* the lane's T head flags (one byte each in shared memory) as a bit mask; lane 0's byte 0 is the forced head */
template <int T>
__device__ __forceinline__ void ClearHeads(unsigned char *h, bool first)
{
  if constexpr (T == 2) *reinterpret_cast<unsigned short *>(h) = first ? 1 : 0;
  else {
#pragma unroll
    for (int q = 0; q < T / 4; q++) reinterpret_cast<unsigned *>(h)[q] = (q == 0 && first) ? 1u : 0u;
  }
}
template <int T>
__device__ __forceinline__ unsigned HeadBits(const unsigned char *h)
{
  if constexpr (T == 2) {
    const unsigned w = *reinterpret_cast<const unsigned short *>(h);
    return (w & 1u) | ((w >> 7) & 2u);
  } else {
    unsigned bits = 0;
#pragma unroll
    for (int q = 0; q < T / 4; q++) { /* bytes in {0,1}: the multiply gathers them into bits 24..27 */
      const unsigned w = reinterpret_cast<const unsigned *>(h)[q];
      bits |= (((w * 0x01020408u) >> 24) & 0xFu) << (4 * q);
    }
    return bits;
  }
}

/* a finished segment: its row is owned by this warp (y), or started in an earlier warp (synchronizer) */
template <bool ADD>
__device__ __forceinline__ void Put(PetscScalar *__restrict__ y, PetscScalar *__restrict__ sval, int row, int syncrow, int slot, PetscScalar v)
{
  if (row == syncrow) sval[slot] = v;
  else if (ADD) y[row] = spmv::AddRn(y[row], v);
  else y[row] = v;
}

/* One tile of the warp (rows [r_lo, r_hi], nonzeros [tb, tb + W*T)): the products v*x, the segment descriptor,
   the segmented sums and their stores; carry/pending: the open row's sum, carried from tile to tile. a0, b0: the
   first row_ptr pair of the descriptor walk (rows r_lo+1+lane), loaded with the tile.
   SPEC: speculation compiled in (segsum: then -mat_segsum_speculate decides). Without it every segment takes its
   row from the descriptor (rowOf, written by the walk anyway): the same rows and sums, bit for bit, without the
   warp scan of the head counts and the vote on empty rows (dcsr: 1.00-1.05x faster on the H100, most on long rows,
   where the tile's instructions and not its bytes set the time). */
template <int T, typename V, bool ADD, typename I = int64_t, bool SPEC = true, bool MASK = false>
__device__ __forceinline__ void Tile(const Dev &D, PetscScalar *__restrict__ y, const bool speculate, unsigned char *hb, int *rowOf, int lane, I tb, int r_lo, int r_hi, int a0, int b0, const V (&v)[T], const PetscScalar (&xv)[T], int syncrow, int slot, PetscScalar &carry, bool &pending, const uint4 hm = uint4())
{
  constexpr int WT = kW * T;
  const int *__restrict__ rp = D.rp;
  const int     m = D.m;
  const I       nnz = (I)D.nnz;
  if (r_lo == r_hi) { /* fast track: the whole tile lies inside one row, which goes on in the next tile */
    PetscScalar s = spmv::MulRn(spmv::Widen<PetscScalar>(v[0]), xv[0]);
#pragma unroll
    for (int k = 1; k < T; k++) s = spmv::AddRn(s, spmv::MulRn(spmv::Widen<PetscScalar>(v[k]), xv[k]));
#pragma unroll
    for (int o = kW / 2; o > 0; o >>= 1) s = spmv::AddRn(s, spmv::ShflXor(kFull, s, o));
    carry   = spmv::AddRn(carry, s);
    pending = true;
    return;
  }

  bool     dirty = false, cont = false;
  unsigned h       = 0;
  int      rowbase = r_lo; /* speculation (or the head masks): the j-th head of this lane is row r_lo + (heads before it) */
  if constexpr (MASK) { /* dcsr's head masks (T = 4, no empty rows): the heads are the mask's bits and the forced head at
                           entry 0; the k-th head of the tile is row r_lo + k, the tile's last row goes on into the next
                           tile where that row is r_hi (the row of the next tile's first entry) */
    static_assert(T == 4, "head masks: 128-nonzero tiles");
    const unsigned w0 = hm.x | 1u, w1 = hm.y, w2 = hm.z, w3 = hm.w, q = (unsigned)lane >> 3, sh = 4u * ((unsigned)lane & 7u);
    const unsigned wq = q == 0 ? w0 : q == 1 ? w1 : q == 2 ? w2 : w3;
    const int      p0 = __popc(w0), p1 = __popc(w1), p2 = __popc(w2);
    h       = (wq >> sh) & 0xFu;
    rowbase = r_lo + __popc(wq & ((1u << sh) - 1u)) + (q > 0 ? p0 : 0) + (q > 1 ? p1 : 0) + (q > 2 ? p2 : 0);
    cont    = r_lo + p0 + p1 + p2 + __popc(w3) - 1 == r_hi;
  } else {
  /* segment descriptor, on the fly: a head byte at the start of every non-empty row inside the tile,
     with that row's index beside it; an empty row seen on the way makes the tile dirty */
  __syncwarp(); /* the previous tile's reads of hb/rowOf are done */
  ClearHeads<T>(hb + lane * T, lane == 0);
  if (lane == 0) rowOf[0] = r_lo;
  __syncwarp();
  if (r_hi - r_lo <= WT) { /* walk the rows (always the case without empty rows) */
    const int r_end = min(r_hi, m - 1);
    for (int r = r_lo + 1 + lane, it = 0; r <= r_end; r += kW, it = 1) {
      const int     a = it ? __ldg(rp + r) : a0, b = it ? __ldg(rp + r + 1) : b0; /* first pair prefetched */
      const I       o = (I)a - tb;
      if (b > a) {
        if (o < WT) {
          hb[o]    = 1;
          rowOf[o] = r;
        }
      } else dirty = true;
      if (r == r_hi) cont = o < WT; /* r_hi starts inside the tile: its segment goes on */
    }
  } else { /* more rows than entries: runs of empty rows. Find each entry's row by binary search */
    dirty = true;
#pragma unroll
    for (int q = 0; q < T; q++) {
      const int     o = q * kW + lane;
      const I       e = tb + (I)o;
      if (o == 0 || e >= nnz) continue;
      int lo = r_lo, hi = r_hi; /* rightmost r with rp[r] <= e */
      while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (__ldg(rp + mid) <= e) lo = mid;
        else hi = mid - 1;
      }
      if (__ldg(rp + lo) == e) {
        hb[o]    = 1;
        rowOf[o] = lo;
      }
    }
    if (lane == 0) cont = r_hi < m && __ldg(rp + r_hi) < tb + WT;
  }
  dirty = !SPEC || __any_sync(kFull, dirty) || !speculate;
  cont  = __any_sync(kFull, cont);
  __syncwarp();
  }

  PetscScalar p[T];
#pragma unroll
  for (int k = 0; k < T; k++) p[k] = spmv::MulRn(spmv::Widen<PetscScalar>(v[k]), xv[k]);
  if (lane == 0 && pending) p[0] = spmv::AddRn(carry, p[0]); /* carry into the tile's first segment */
  if constexpr (!MASK) {
    h = HeadBits<T>(hb + lane * T);
    if (!dirty) {
      const int nh = __popc(h);
      int       s  = nh;
#pragma unroll
      for (int d = 1; d < kW; d <<= 1) {
        const int t = __shfl_up_sync(kFull, s, d);
        if (lane >= d) s += t;
      }
      rowbase = r_lo + s - nh;
    }
  }
  /* the lane's run, sequentially: segments that start and end inside the lane are written at once */
  PetscScalar acc = 0.0, lead = 0.0;
  int         cur = -1, j = 0;
#pragma unroll
  for (int k = 0; k < T; k++) {
    if (h >> k & 1u) {
      if (cur >= 0) {
        Put<ADD>(y, D.sval, (!MASK && dirty) ? rowOf[lane * T + cur] : rowbase + j, syncrow, slot, acc);
        j++;
      } else lead = acc;
      acc = 0.0;
      cur = k;
    }
    acc = spmv::AddRn(acc, p[k]);
  }
  const bool seen = cur >= 0;
  if (!seen) lead = acc;
  /* segments that span lanes: reverse segmented scan of the leading pieces, stopping at a lane with a head */
  const unsigned seenmask = __ballot_sync(kFull, seen);
  const int      lim      = __ffs((seenmask | 0x80000000u) >> lane) - 1; /* lane adds lane+d while d <= lim: no head in lanes lane..lane+d-1, lane+d < W */
  PetscScalar    cc       = lead;
#pragma unroll
  for (int d = 1; d < kW; d <<= 1) {
    const PetscScalar oc = spmv::ShflDown(kFull, cc, d);
    if (d <= lim) cc = spmv::AddRn(cc, oc);
  }
  PetscScalar nxt = spmv::ShflDown(kFull, cc, 1);
  if (lane == kW - 1) nxt = 0.0;
  const PetscScalar tot = spmv::AddRn(acc, nxt); /* the lane's last segment */
  const int    tstar = kW - 1 - __clz(seenmask); /* holds the tile's last segment */
  if (seen && !(cont && lane == tstar)) Put<ADD>(y, D.sval, (!MASK && dirty) ? rowOf[lane * T + cur] : rowbase + j, syncrow, slot, tot);
  carry   = cont ? spmv::Shfl(kFull, tot, tstar) : PetscScalar(0.0);
  pending = cont;
}

/* both kernels: the thread's lane, its warp's shared memory (W*T head bytes, W*T row ids) and the warp's index */
template <int T>
__device__ __forceinline__ int64_t WarpSetup(int &lane, unsigned char *&hb, int *&rowOf)
{
  extern __shared__ __align__(16) unsigned char smem[];
  const int wib = threadIdx.x / kW;
  lane          = threadIdx.x & (kW - 1);
  hb            = smem + wib * (5 * kW * T);
  rowOf         = reinterpret_cast<int *>(hb + kW * T);
  return (int64_t)blockIdx.x * (blockDim.x / kW) + wib;
}

/* One warp per S consecutive tiles of W*T nonzeros. Shared memory per warp: W*T head bytes, W*T row ids.
   V: the stored value type; the values stay V in registers (the tile loaded ahead) and are widened to
   double at the product. */
template <int T, typename V, bool ADD>
__global__ void __launch_bounds__(kMaxThreads) SpMVKernel(const Dev D, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, const bool speculate)
{
  constexpr int  WT = kW * T;
  int            lane;
  unsigned char *hb;
  int           *rowOf;
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;"); /* the fix-up may be launched now; it waits for this grid */
#endif
  const int64_t  g = WarpSetup<T>(lane, hb, rowOf);
  if (g >= D.nwarps) return; /* whole warps leave together */
  const int64_t nnz = D.nnz, t0 = g * D.S;
  const int     ntw     = (int)min((int64_t)D.S, D.ntiles - t0);
  const int     rb      = lane <= ntw ? __ldg(D.bound + t0 + lane) : 0; /* lane i: first row of tile i */
  const int     slot    = __ldg(D.wslot + g);
  int           r_hi    = __shfl_sync(kFull, rb, 0);
  const int     syncrow = slot >= 0 ? r_hi : -1; /* first row, when it started in an earlier warp */
  PetscScalar   carry   = 0.0;                   /* the open row's sum so far, carried from tile to tile */
  bool          pending = false;

  int cn[T], pa = 0, pb = 0; /* the next tile, loaded one tile ahead */
  V   vn[T];
  Fetch<T, V>(D, t0, lane, r_hi, __shfl_sync(kFull, rb, 1), cn, vn, pa, pb);
  for (int i = 0; i < ntw; i++) {
    int    c[T];
    V           v[T];
    PetscScalar xv[T];
#pragma unroll
    for (int k = 0; k < T; k++) {
      c[k] = cn[k];
      v[k] = vn[k];
    }
    const int     a0 = pa, b0 = pb;
    const int64_t tb   = (t0 + i) * WT;
    const int     r_lo = r_hi; /* the tile covers rows [r_lo, r_hi] */
    r_hi               = __shfl_sync(kFull, rb, i + 1);
    const int nxt_hi   = __shfl_sync(kFull, rb, min(i + 2, kW - 1));
    if (i + 1 < ntw) Fetch<T, V>(D, t0 + i + 1, lane, r_hi, nxt_hi, cn, vn, pa, pb);
    const int64_t e0   = tb + (int64_t)lane * T;
    const bool    full = tb + WT <= nnz;
#pragma unroll
    for (int k = 0; k < T; k++) xv[k] = (full || e0 + k < nnz) ? spmv::Ldg(x + c[k]) : PetscScalar(0.0);

    Tile<T, V, ADD>(D, y, speculate, hb, rowOf, lane, tb, r_lo, r_hi, a0, b0, v, xv, syncrow, slot, carry, pending);
  }
  if (pending && lane == 0) Put<ADD>(y, D.sval, r_hi, syncrow, slot, carry); /* the row goes on in the next warp */
}

/* dcsr's kernel (issue #29): SpMVKernel's algorithm over the compressed columns, Tile for the sums (the same
   floating-point operations in the same order: dcsr's product equals segsum's bit for bit), with its loads
   arranged so that no memory latency waits on another that it need not wait on:
   - the warp's first tile: its offsets and values are loaded before the warp's tile bases have arrived (which
     say whether the tile is narrow); a wide first tile loads its CSR columns after. Earlier (683fa34, one
     kernel with segsum) the first tile's loads waited for the bases: a memory latency before the first loads of
     every warp of 7 tiles, which segsum does not pay (its first loads need nothing). Measured on the H100 (6
     matrices), that alone took dcsr from 0.96x to 1.06-1.08x segsum;
   - 32-bit element indices (nnz < 2^31, checked at build: every tile start stays below 2^32) and a full tile's
     gathers without per-entry bounds: fewer instructions a tile (the kernel issues an instruction on about 70% of
     the cycles: the tile's sums, not the bytes, bound it where the rows are long);
   - 4 warps a block (segsum: 5): 32 warps an SM at 64 registers instead of 30;
   - no speculation (Tile<SPEC = false>): every segment's row comes from the descriptor's row ids, which the walk
     writes anyway, so the warp scan of the head counts and the vote on empty rows are gone (about 30 of some 350
     warp instructions a tile). Measured on the H100 (15 matrices): 1.00-1.05x faster, 1.02x in geometric mean,
     most on long rows (bcsstk13, the 27-point stencils, nasa4704); speculation switched off at run time in the
     old kernel gained 1.017x, compiled out 1.023x.
   A stage holds one tile's loads: the columns (packed offsets of a narrow tile, or the CSR's), values, the
   descriptor pair and the tile's base; the next tile's stage is loaded while the current one is summed. */
template <int T, typename V>
struct Stage16 {
  int   c[T];
  V     v[T];
  int   pa, pb, base;
  uint4 hm; /* the tile's head mask (MASK) */
};

/* dcsr: a lane's T 16-bit column offsets as LoadPacked, but as volatile asm: the warp's first tile loads them
   before its base is known, and the compiler must not move them into the branch that the base decides */
template <int T>
__device__ __forceinline__ void LoadPackedEarly(const unsigned short *__restrict__ p, int (&c)[T])
{
  if constexpr (T == 2) asm volatile("ld.global.cs.u32 %0, [%1];" : "=r"(c[0]) : "l"(p));
  else if constexpr (T == 4) asm volatile("ld.global.cs.v2.u32 {%0, %1}, [%2];" : "=r"(c[0]), "=r"(c[1]) : "l"(p));
  else {
#pragma unroll
    for (int q = 0; q < T / 8; q++) asm volatile("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(c[4 * q]), "=r"(c[4 * q + 1]), "=r"(c[4 * q + 2]), "=r"(c[4 * q + 3]) : "l"(p + 8 * q));
  }
}

/* dcsr's Fetch: the stage of the tile starting at nonzero tb, whose base is lane j of tb16 (the warp's bases).
   EARLY (the warp's first tile): a full tile's offsets and values are loaded before the base is read, a wide
   tile's CSR columns after (a wide first tile then reads its 2-byte offsets for nothing). */
template <int T, typename V, bool EARLY, bool MASK>
__device__ __forceinline__ void Fetch16(const Dev &D, const Cols16<true> &K, unsigned tb, int lane, int lo, int hi, int tb16, int j, Stage16<T, V> &s)
{
  constexpr unsigned WT  = kW * T;
  const unsigned     nnz = (unsigned)D.nnz, e0 = tb + (unsigned)lane * T;
  const bool         full = tb + WT <= nnz;
  if (K.worder && full && lo == hi) { /* warp order: lane l holds entries l + W k, each offset unpacked to a word of its own (Gather16 adds the base) */
    const unsigned e = tb + (unsigned)lane;
    if (EARLY) {
#pragma unroll
      for (int k = 0; k < T; k++) {
        unsigned short o;
        asm volatile("ld.global.cs.u16 %0, [%1];" : "=h"(o) : "l"(K.off + e + kW * k));
        s.c[k] = o;
      }
    }
    s.base = __shfl_sync(kFull, tb16, j);
#pragma unroll
    for (int k = 0; k < T; k++) {
      if (s.base < 0) s.c[k] = __ldcs(D.cj + e + kW * k);
      else if (!EARLY) s.c[k] = __ldcs(K.off + e + kW * k);
      s.v[k] = spmv::Ldcs(Vals<V>(D) + e + kW * k);
    }
  } else if (EARLY) {
    if (full) {
      LoadPackedEarly<T>(K.off + e0, s.c);
      LoadVals<T, V>(Vals<V>(D) + e0, 0, s.v);
    }
    s.base = __shfl_sync(kFull, tb16, j);
    if (full && s.base < 0) LoadCols<T>(D.cj + e0, 0, s.c);
  } else {
    s.base = __shfl_sync(kFull, tb16, j);
    if (full) {
      if (s.base >= 0) LoadPacked<T>(K.off + e0, 0, s.c);
      else LoadCols<T>(D.cj + e0, 0, s.c);
      LoadVals<T, V>(Vals<V>(D) + e0, 0, s.v);
    }
  }
  if (!full) { /* the last, partial tile: the CSR's columns */
#pragma unroll
    for (int k = 0; k < T; k++) {
      const bool in = e0 + k < nnz;
      s.c[k]        = in ? __ldcs(D.cj + e0 + k) : 0;
      s.v[k]        = in ? spmv::Ldcs(Vals<V>(D) + e0 + k) : V(0);
    }
  }
  if constexpr (MASK) s.hm = __ldg(K.heads + tb / WT); /* the same 16 bytes for every lane */
  else {
    const int r = lo + 1 + lane;
    if (lo != hi && hi - lo <= (int)WT && r <= min(hi, D.m - 1)) {
      s.pa = __ldg(D.rp + r);
      s.pb = __ldg(D.rp + r + 1);
    }
  }
}

/* dcsr: the stage's columns (unpacked where the tile is narrow and full) and its x entries; w: the stage holds a full
   tile inside one row in the warp's order (Fetch16's condition, from the tile's rows, not stored with the stage) */
template <int T, typename V>
__device__ __forceinline__ void Gather16(const Dev &D, const PetscScalar *__restrict__ x, unsigned tb, int lane, bool w, Stage16<T, V> &s, PetscScalar (&xv)[T])
{
  constexpr unsigned WT  = kW * T;
  const unsigned     nnz = (unsigned)D.nnz, e0 = tb + (unsigned)lane * T;
  if (tb + WT <= nnz) {
    if (w) {
      if (s.base >= 0) {
#pragma unroll
        for (int k = 0; k < T; k++) s.c[k] += s.base;
      }
    } else if (s.base >= 0) Unpack<T>(s.base, s.c);
#pragma unroll
    for (int k = 0; k < T; k++) xv[k] = spmv::Ldg(x + s.c[k]);
  } else {
#pragma unroll
    for (int k = 0; k < T; k++) xv[k] = e0 + k < nnz ? spmv::Ldg(x + s.c[k]) : PetscScalar(0.0);
  }
}

template <int T, typename V, bool ADD, bool MASK>
__global__ void __launch_bounds__(kMaxThreads) SpMVKernel16(const Dev D, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, const Cols16<true> K)
{
  constexpr unsigned WT = kW * T;
  int                lane;
  unsigned char     *hb;
  int               *rowOf;
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;"); /* the fix-up may be launched now; it waits for this grid */
#endif
  const int64_t      g = WarpSetup<T>(lane, hb, rowOf);
  if (g >= D.nwarps) return; /* whole warps leave together */
  const int64_t  t0      = g * D.S;
  const unsigned tb0     = (unsigned)t0 * WT;
  const int      ntw     = (int)min((int64_t)D.S, D.ntiles - t0);
  const int      rb      = lane <= ntw ? __ldg(D.bound + t0 + lane) : 0; /* lane i: first row of tile i */
  const int      tb16    = lane < ntw ? __ldg(K.base + t0 + lane) : 0;   /* lane i: the base of tile i */
  const int      slot    = __ldg(D.wslot + g);
  int            r_hi    = __shfl_sync(kFull, rb, 0);
  const int      syncrow = slot >= 0 ? r_hi : -1;
  PetscScalar    carry   = 0.0;
  bool           pending = false;

  Stage16<T, V> cur, nxt;
  cur.pa = cur.pb = nxt.pa = nxt.pb = 0;
  Fetch16<T, V, true, MASK>(D, K, tb0, lane, r_hi, __shfl_sync(kFull, rb, 1), tb16, 0, cur);
  for (int i = 0; i < ntw; i++) {
    const unsigned tb   = tb0 + (unsigned)i * WT;
    const int      r_lo = r_hi; /* the tile covers rows [r_lo, r_hi] */
    r_hi                = __shfl_sync(kFull, rb, i + 1);
    const int nxt_hi    = __shfl_sync(kFull, rb, min(i + 2, kW - 1));
    if (i + 1 < ntw) Fetch16<T, V, false, MASK>(D, K, tb + WT, lane, r_hi, nxt_hi, tb16, i + 1, nxt);
    PetscScalar xv[T];
    Gather16<T, V>(D, x, tb, lane, K.worder && r_lo == r_hi && tb + WT <= (unsigned)D.nnz, cur, xv);
    Tile<T, V, ADD, unsigned, false, MASK>(D, y, false, hb, rowOf, lane, tb, r_lo, r_hi, cur.pa, cur.pb, cur.v, xv, syncrow, slot, carry, pending, cur.hm);
    cur = nxt;
  }
  if (pending && lane == 0) Put<ADD>(y, D.sval, r_hi, syncrow, slot, carry); /* the row goes on in the next warp */
}

/* dcsr's row kernel (segsum.h, "dcsr's row kernel"): L lanes a row, a pass loads U = kSegSumRowUnroll entries a lane
   (offsets, tile bases and values all in flight before the first gather), then sums them in order; the L partial
   sums meet in an xor butterfly. The 2-byte offsets are loaded whatever the tile's base says (a wide tile's are 0),
   so that no load waits for the base; a wide tile's columns then come from the CSR. */
template <int L, typename V, bool ADD>
__global__ void __launch_bounds__(kMaxThreads) RowKernel16(const Dev D, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, const Cols16<true> K, int tshift)
{
  constexpr int  U    = kSegSumRowUnroll;
  const int64_t  r    = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / L;
  const int      lane = threadIdx.x & (L - 1);
  const V *__restrict__ a = Vals<V>(D);
  unsigned       s = 0, e = 0;
  PetscScalar    acc = 0.0;

  if (r < D.m) {
    s = (unsigned)__ldg(D.rp + r);
    e = (unsigned)__ldg(D.rp + r + 1);
  }
  for (unsigned j0 = s + (unsigned)lane; j0 < e; j0 += L * U) {
    unsigned short o[U];
    int            b[U], c[U];
    V              v[U];
#pragma unroll
    for (int k = 0; k < U; k++) {
      const unsigned j = j0 + k * L;
      if (j < e) {
        asm volatile("ld.global.cs.u16 %0, [%1];" : "=h"(o[k]) : "l"(K.off + j));
        b[k] = __ldg(K.base + (j >> tshift));
        v[k] = spmv::Ldcs(a + j);
      }
    }
#pragma unroll
    for (int k = 0; k < U; k++) {
      const unsigned j = j0 + k * L;
      if (j < e) c[k] = b[k] >= 0 ? b[k] + (int)o[k] : __ldcs(D.cj + j);
    }
#pragma unroll
    for (int k = 0; k < U; k++)
      if (j0 + k * L < e) acc = spmv::AddRn(acc, spmv::MulRn(spmv::Widen<PetscScalar>(v[k]), spmv::Ldg(x + c[k])));
  }
#pragma unroll
  for (int o = L / 2; o > 0; o >>= 1) acc = spmv::AddRn(acc, spmv::ShflXor(kFull, acc, o, L));
  if (lane == 0 && r < D.m) y[r] = ADD ? spmv::AddRn(y[r], acc) : acc;
}

/* The paper's CPU stage on the GPU: add each row's synchronizer slots (a thread per short run, a warp per
   long one, fixed orders), then zero the empty rows (y = A x only). Rows of different runs differ, and
   empty rows have no slots: plain stores, no atomics. */
template <bool ADD>
__global__ void __launch_bounds__(kAux) FixupKernel(const Dev D, PetscScalar *__restrict__ y)
{
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory"); /* launched early (programmatic dependent launch): wait for the product */
#endif
  const int     lane = threadIdx.x & (kW - 1);
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, nth = (int64_t)gridDim.x * blockDim.x;
  for (int64_t b = tid / kW * kW; b < D.nruns; b += nth) {
    const int64_t k = b + lane;
    int           s = 0, len = 0, row = 0;
    if (k < D.nruns) {
      s   = D.run_off[k];
      len = D.run_off[k + 1] - s;
      row = D.run_row[k];
    }
    if (len > 0 && len <= kSegSumShortRun) {
      PetscScalar v = D.sval[s];
      for (int q = 1; q < len; q++) v = spmv::AddRn(v, D.sval[s + q]);
      y[row] = spmv::AddRn(y[row], v);
    }
    for (unsigned lm = __ballot_sync(kFull, len > kSegSumShortRun); lm; lm &= lm - 1) {
      const int src = __ffs(lm) - 1;
      const int ss = __shfl_sync(kFull, s, src), ll = __shfl_sync(kFull, len, src), rr = __shfl_sync(kFull, row, src);
      PetscScalar w = D.sval[ss + lane];
      for (int q = lane + kW; q < ll; q += kW) w = spmv::AddRn(w, D.sval[ss + q]);
#pragma unroll
      for (int o = kW / 2; o > 0; o >>= 1) w = spmv::AddRn(w, spmv::ShflXor(kFull, w, o));
      if (lane == 0) y[rr] = spmv::AddRn(y[rr], w);
    }
  }
  if (!ADD)
    for (int64_t k = tid; k < D.nempty; k += nth) y[D.erow[k]] = 0.0;
}

/* ---------------------------------------------------------------------------------------------- */
/* build: the auxiliary arrays from the device CSR                                                 */
/* ---------------------------------------------------------------------------------------------- */

/* bound[t] = rightmost r in [0, m] with rp[r] <= min(t*WT, nnz) */
__global__ void Bounds(int64_t ntiles, int WT, int64_t nnz, int m, const int *__restrict__ rp, int *__restrict__ bound)
{
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t <= ntiles; t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t b  = min(t * WT, nnz);
    int           lo = 0, hi = m;
    while (lo < hi) {
      const int mid = lo + (hi - lo + 1) / 2;
      if (rp[mid] <= b) lo = mid;
      else hi = mid - 1;
    }
    bound[t] = lo;
  }
}

/* flag[r]: row r is empty; *mx: the longest row (dcsr's choice of kernel) */
__global__ void EmptyFlags(int m, const int *__restrict__ rp, int *__restrict__ flag, unsigned long long *__restrict__ mx)
{
  int best = 0;
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r <= m; r += (int64_t)gridDim.x * blockDim.x) {
    const int len = r < m ? rp[r + 1] - rp[r] : 0;
    flag[r]       = r < m && len == 0;
    best          = max(best, len);
  }
  if (best) atomicMax(mx, (unsigned long long)best);
}

__global__ void ScatterRows(int m, const int *__restrict__ flag, const int *__restrict__ pos, int *__restrict__ out)
{
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < m; r += (int64_t)gridDim.x * blockDim.x)
    if (flag[r]) out[pos[r]] = (int)r;
}

/* warp g needs a synchronizer slot when its first row started in an earlier warp; a run of slots starts
   unless warp g-1 had a slot for the same row */
__global__ void WarpFlags(int64_t nwarps, int S, int WT, const int *__restrict__ rp, const int *__restrict__ bound, int *__restrict__ sync, int *__restrict__ runstart)
{
  for (int64_t g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; g <= nwarps; g += (int64_t)gridDim.x * blockDim.x) {
    if (g == nwarps) {
      sync[g] = runstart[g] = 0;
      continue;
    }
    const int  r    = bound[g * S];
    const bool sy   = rp[r] < g * S * (int64_t)WT;
    const bool same = g > 0 && bound[(g - 1) * S] == r && rp[r] < (g - 1) * S * (int64_t)WT;
    sync[g]         = sy;
    runstart[g]     = sy && !same;
  }
}

__global__ void SlotsRuns(int64_t nwarps, int S, const int *__restrict__ bound, const int *__restrict__ sync, const int *__restrict__ spos, const int *__restrict__ runstart, const int *__restrict__ rpos, int *__restrict__ wslot, int *__restrict__ run_off, int *__restrict__ run_row)
{
  for (int64_t g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; g <= nwarps; g += (int64_t)gridDim.x * blockDim.x) {
    if (g == nwarps) {
      run_off[rpos[g]] = spos[g];
      continue;
    }
    wslot[g] = sync[g] ? spos[g] : -1;
    if (runstart[g]) {
      run_off[rpos[g]] = spos[g];
      run_row[rpos[g]] = bound[g * S];
    }
  }
}

/* statistics for -mat_view: cnt = {fast-track tiles, dirty tiles, long-range tiles, long runs} */
__global__ void Stats(int64_t ntiles, int WT, const int *__restrict__ bound, int64_t nempty, const int *__restrict__ erow, int64_t nruns, const int *__restrict__ run_off, unsigned long long *__restrict__ cnt)
{
  unsigned long long f = 0, d = 0, l = 0, lr = 0;
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < ntiles || t < nruns; t += (int64_t)gridDim.x * blockDim.x) {
    if (t < ntiles) {
      const int lo = bound[t], hi = bound[t + 1];
      f += lo == hi;
      l += hi - lo > WT;
      int64_t a = 0, b = nempty; /* first empty row > lo */
      while (a < b) {
        const int64_t mid = (a + b) / 2;
        if (erow[mid] <= lo) a = mid + 1;
        else b = mid;
      }
      d += a < nempty && erow[a] < hi;
    }
    if (t < nruns) lr += run_off[t + 1] - run_off[t] > kSegSumShortRun;
  }
  for (int o = kW / 2; o > 0; o >>= 1) {
    f += __shfl_down_sync(kFull, f, o);
    d += __shfl_down_sync(kFull, d, o);
    l += __shfl_down_sync(kFull, l, o);
    lr += __shfl_down_sync(kFull, lr, o);
  }
  if ((threadIdx.x & (kW - 1)) == 0) {
    atomicAdd(cnt + 0, f);
    atomicAdd(cnt + 1, d);
    atomicAdd(cnt + 2, l);
    atomicAdd(cnt + 3, lr);
  }
}

/* dcsr's head masks (SegSumUsesMasks; heads zeroed before): a bit at every row start, rows without empty ones */
__global__ void HeadMasks(int m, int WT, const int *__restrict__ rp, unsigned *__restrict__ heads)
{
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    const int64_t a = rp[r];
    atomicOr(heads + (a / WT) * 4 + (a % WT) / 32, 1u << (a % 32));
  }
}

/* dcsr: a warp per tile: the tile's column range; a narrow tile gets its base and 16-bit offsets, a wide one
   base -1 (its offsets stay 0); cnt = {wide tiles, their nonzeros} */
__global__ void __launch_bounds__(kAux) Compress(int64_t ntiles, int WT, int64_t nnz, const int *__restrict__ cj, int *__restrict__ base, unsigned short *__restrict__ off, unsigned long long *__restrict__ cnt)
{
  const int lane = threadIdx.x & (kW - 1);
  for (int64_t t = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / kW; t < ntiles; t += (int64_t)gridDim.x * blockDim.x / kW) {
    const int64_t e0 = t * WT, e1 = min(e0 + WT, nnz);
    int           lo = INT_MAX, hi = INT_MIN;
    for (int64_t e = e0 + lane; e < e1; e += kW) {
      const int c = cj[e];
      lo          = min(lo, c);
      hi          = max(hi, c);
    }
#pragma unroll
    for (int o = kW / 2; o > 0; o >>= 1) {
      lo = min(lo, __shfl_xor_sync(kFull, lo, o));
      hi = max(hi, __shfl_xor_sync(kFull, hi, o));
    }
    const bool narrow = (int64_t)hi - lo <= kSegSumSpan16;
    for (int64_t e = e0 + lane; e < e0 + WT; e += kW) off[e] = narrow && e < e1 ? (unsigned short)(cj[e] - lo) : 0;
    if (lane == 0) {
      base[t] = narrow ? lo : -1;
      if (!narrow) {
        atomicAdd(cnt, 1ull);
        atomicAdd(cnt + 1, (unsigned long long)(e1 - e0));
      }
    }
  }
}

/* dcsr's x footprint (segsum.h, SegSumWarps): block k sorts the 4-column groups of the kDCSRFootWindow nonzeros from
   SegSumFootStart(nnz, k) and counts the distinct ones; cnt[0] += distinct, cnt[1] += nonzeros */
constexpr int kFootThreads = 256;
__global__ void __launch_bounds__(kFootThreads) Footprint(int64_t nnz, const int *__restrict__ cj, unsigned long long *__restrict__ cnt)
{
  constexpr int I = kDCSRFootWindow / kFootThreads;
  using Sort      = cub::BlockRadixSort<int, kFootThreads, I>;
  using Heads     = cub::BlockDiscontinuity<int, kFootThreads>;
  using Sum       = cub::BlockReduce<int, kFootThreads>;
  __shared__ union {
    typename Sort::TempStorage  sort;
    typename Heads::TempStorage heads;
    typename Sum::TempStorage   sum;
  } tmp;
  const int64_t s = SegSumFootStart(nnz, blockIdx.x), e = min(nnz, s + (int64_t)kDCSRFootWindow);
  int           key[I], head[I], n = 0;
#pragma unroll
  for (int q = 0; q < I; q++) {
    const int64_t k = s + threadIdx.x * I + q;
    key[q]          = k < e ? __ldg(cj + k) >> 2 : INT_MAX; /* past the window: one key above every group, not counted */
  }
  Sort(tmp.sort).Sort(key);
  __syncthreads();
  Heads(tmp.heads).FlagHeads(head, key, ::cuda::std::not_equal_to<int>());
#pragma unroll
  for (int q = 0; q < I; q++) n += head[q] && key[q] != INT_MAX;
  __syncthreads();
  n = Sum(tmp.sum).Sum(n);
  if (threadIdx.x == 0) {
    atomicAdd(cnt, (unsigned long long)n);
    atomicAdd(cnt + 1, (unsigned long long)(e - s));
  }
}

/* build and fix-up kernels: kAux threads per block, at most cap blocks */
inline unsigned Grid(int64_t threads, int64_t cap = 4096) { return spmv::GridFor(threads, kAux, cap); }

/* the kernels for one tile height and value type */
template <int T, typename V, bool C16>
PetscErrorCode LaunchV(const Dev &D, const Cols16<C16> &K, int warps, bool speculate, const PetscScalar *x, PetscScalar *y, bool add, cudaStream_t s)
{
  PetscFunctionBegin;
  const unsigned    blocks = (unsigned)((D.nwarps + warps - 1) / warps);
  const std::size_t shmem  = (std::size_t)warps * 5 * kW * T;
  if constexpr (C16) {
    if (K.heads) { /* head masks exist for 128-nonzero tiles only (SegSumUsesMasks) */
      if (add) SpMVKernel16<T, V, true, T == 4><<<blocks, warps * kW, shmem, s>>>(D, x, y, K);
      else SpMVKernel16<T, V, false, T == 4><<<blocks, warps * kW, shmem, s>>>(D, x, y, K);
    } else if (add) SpMVKernel16<T, V, true, false><<<blocks, warps * kW, shmem, s>>>(D, x, y, K);
    else SpMVKernel16<T, V, false, false><<<blocks, warps * kW, shmem, s>>>(D, x, y, K);
  } else {
    if (add) SpMVKernel<T, V, true><<<blocks, warps * kW, shmem, s>>>(D, x, y, speculate);
    else SpMVKernel<T, V, false><<<blocks, warps * kW, shmem, s>>>(D, x, y, speculate);
  }
  SpMVCheckLaunch();
  if (D.nruns > 0 || (!add && D.nempty > 0)) {
    const unsigned fb = Grid(std::max(D.nruns, add ? 0 : D.nempty));
    /* the fix-up as a programmatic dependent launch (compute capability 9.0 and up): its grid is launched while the
       product's last blocks run and waits for them (griddepcontrol), so the second launch's latency hides behind the
       first kernel's tail (H100: 0.6-1.1% on 80-220 us products, 7-9% on 10-13 us ones; bench/results/NOTES.md) */
    static int          pdl = -1;
    cudaLaunchConfig_t  cfg = {};
    cudaLaunchAttribute attr[1];
    if (pdl < 0) {
      int dev, major;
      PetscCallCUDA(cudaGetDevice(&dev));
      PetscCallCUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
      pdl = major >= 9;
    }
    attr[0].id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.gridDim = fb, cfg.blockDim = kAux, cfg.dynamicSmemBytes = 0, cfg.stream = s, cfg.attrs = attr, cfg.numAttrs = pdl ? 1 : 0;
    if (add) PetscCallCUDA(cudaLaunchKernelEx(&cfg, FixupKernel<true>, D, y));
    else PetscCallCUDA(cudaLaunchKernelEx(&cfg, FixupKernel<false>, D, y));
    SpMVCheckLaunch();
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
template <int T>
PetscErrorCode Launch(const Dev &D, const Cols16<true> *K, bool single, int warps, bool speculate, const PetscScalar *x, PetscScalar *y, bool add, cudaStream_t s)
{
  PetscFunctionBegin;
  if (K) { /* dcsr */
    if (single) PetscCall((LaunchV<T, SpMVSingleScalar, true>(D, *K, warps, speculate, x, y, add, s)));
    else PetscCall((LaunchV<T, PetscScalar, true>(D, *K, warps, speculate, x, y, add, s)));
  } else {
    if (single) PetscCall((LaunchV<T, SpMVSingleScalar, false>(D, Cols16<false>(), warps, speculate, x, y, add, s)));
    else PetscCall((LaunchV<T, PetscScalar, false>(D, Cols16<false>(), warps, speculate, x, y, add, s)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dcsr's row kernel: a block of kMaxThreads threads holds kMaxThreads / L rows */
template <int L, typename V>
PetscErrorCode LaunchRows(const Dev &D, const Cols16<true> &K, int tshift, const PetscScalar *x, PetscScalar *y, bool add, cudaStream_t s)
{
  PetscFunctionBegin;
  const unsigned blocks = (unsigned)(((int64_t)D.m * L + kMaxThreads - 1) / kMaxThreads);
  if (add) RowKernel16<L, V, true><<<blocks, kMaxThreads, 0, s>>>(D, x, y, K, tshift);
  else RowKernel16<L, V, false><<<blocks, kMaxThreads, 0, s>>>(D, x, y, K, tshift);
  SpMVCheckLaunch();
  PetscFunctionReturn(PETSC_SUCCESS);
}
template <typename V>
PetscErrorCode LaunchRowsV(int lanes, const Dev &D, const Cols16<true> &K, int tshift, const PetscScalar *x, PetscScalar *y, bool add, cudaStream_t s)
{
  PetscFunctionBegin;
  switch (lanes) {
  case 8:
    PetscCall((LaunchRows<8, V>(D, K, tshift, x, y, add, s)));
    break;
  case 16:
    PetscCall((LaunchRows<16, V>(D, K, tshift, x, y, add, s)));
    break;
  case 32:
    PetscCall((LaunchRows<32, V>(D, K, tshift, x, y, add, s)));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "dcsr: %d lanes a row not compiled", lanes);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the vector loads need 16-byte aligned columns and values (device arrays are 256-byte aligned: spmv::DeviceAlloc) */
inline bool Aligned16(const void *p) { return ((std::uintptr_t)p & 15u) == 0; }
} // namespace

SPMV_KERNEL_MODULE(Bounds); /* the first selection's builds: loaded ahead by spmv::WarmPool */

class SegSum final : public SpMVFormat {
  SegSumOptions    opt;
  SegSumStats      st;
  SegSumHostLayout host;
  SpMVHostCsr      hcsr;
  Dev              dev;
  std::size_t      bytes  = 0;
  bool             dsingle = false; /* the device values are fp32: the kernels' V (set with dev.aa) */
  bool             single  = false; /* the last build or refresh, host or device, had fp32 values (View) */
  Cols16<true>     k16;             /* dcsr: the compressed columns on the device */
  unsigned short  *doff  = nullptr; /* ... the same pointers, owned */
  int             *dbase = nullptr;
  uint4           *dheads = nullptr;

public:
  explicit SegSum(bool c16 = false)
  {
    opt.c16  = c16;
    opt.name = c16 ? "dcsr" : "segsum";
    if (c16) {
      opt.warps     = 0;           /* SpMVKernel16: 32 warps an SM at 64 registers (5: 30), 4 or 8 a block by the x footprint (SegSumWarps) */
      opt.speculate = PETSC_FALSE; /* SpMVKernel16 takes every row from the descriptor (measured faster) */
    }
  }
  ~SegSum() override { (void)ReleaseDevice(); }

  bool SupportsSingle() const override { return true; }

  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    PetscFunctionBegin;
    char name[3][64];
    PetscCall(PetscSNPrintf(name[0], sizeof(name[0]), "-mat_%s_tile", opt.name));
    PetscCall(PetscSNPrintf(name[1], sizeof(name[1]), "-mat_%s_tiles_per_warp", opt.name));
    PetscCall(PetscSNPrintf(name[2], sizeof(name[2]), "-mat_%s_warps_per_block", opt.name));
    PetscCall(PetscOptionsInt(name[0], opt.c16 ? "Nonzeros per tile, W*T with W = 32 lanes (64, 128, 256 or 512); a tile whose columns span at most 65536 stores 16-bit column offsets" : "Nonzeros per tile, W*T with W = 32 lanes (64, 128, 256 or 512)", "MatSetType", opt.tile, &opt.tile, NULL));
    PetscCall(PetscOptionsInt(name[1], "Consecutive tiles per warp (the paper's S), 1..31", "MatSetType", opt.S, &opt.S, NULL));
    PetscCall(PetscOptionsInt(name[2], opt.c16 ? "Warps per CUDA block, 1..8; 0: 8 where the x entries of 1024 consecutive nonzeros fall in 0.35 or more distinct 4-column groups a nonzero (64 windows sampled), else 4" : "Warps per CUDA block (the paper's B), 1..8", "MatSetType", opt.warps, &opt.warps, NULL));
    if (opt.c16) PetscCall(PetscOptionsBool("-mat_dcsr_head_masks", "The tile kernel reads each tile's segment heads from a mask built once (16 bytes a tile) instead of walking the row offsets, where the tiles are 128 nonzeros and no row is empty", "MatSetType", opt.masks, &opt.masks, NULL));
    if (opt.c16) PetscCall(PetscOptionsInt("-mat_dcsr_row_lanes", "Lanes a row of the row kernel for long rows (8, 16 or 32), 0: the tile kernel, -1: from the rows (32 lanes where rows hold at least 96 nonzeros on average and none over 4 times that)", "MatSetType", opt.rowlanes, &opt.rowlanes, NULL));
    if (opt.c16) PetscCall(PetscOptionsBool("-mat_dcsr_warp_order", "Tiles inside one row are read in the warp's order (lane l: entries l, l+32, ...; each x gather reads 32 consecutive entries of the row) instead of consecutive entries a lane", "MatSetType", opt.worder, &opt.worder, NULL));
    if (!opt.c16) PetscCall(PetscOptionsBool("-mat_segsum_speculate", "Write segment sums to speculative rows (false: every tile takes its rows from the descriptor)", "MatSetType", opt.speculate, &opt.speculate, NULL));
    PetscCall(SegSumCheckOptions(opt));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode CopyOptions(const SpMVFormat &from) override
  {
    PetscFunctionBegin;
    opt = static_cast<const SegSum &>(from).opt;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode BuildHost(const SpMVHostCsr &A) override
  {
    PetscFunctionBegin;
    hcsr   = A; /* single: fp32-representable fp64 values, the same fp64 reference code */
    single = A.single;
    PetscCall(SegSumBuildHostLayout(opt, A, &host, &st));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode RefreshHost(const SpMVHostCsr &A) override
  {
    hcsr   = A; /* values rewritten in place: the layout does not depend on them */
    single = A.single;
    return PETSC_SUCCESS;
  }
  PetscErrorCode MultHost(const PetscScalar *x, PetscScalar *y, bool add) const override
  {
    SegSumMultHost(st, host, hcsr, SpMVHostArray(x), SpMVHostArray(y), add);
    return PETSC_SUCCESS;
  }

  PetscErrorCode ReleaseDevice() override
  {
    PetscFunctionBegin;
    PetscCall(spmv::DeviceFree({dev.bound, dev.wslot, dev.run_off, dev.run_row, dev.erow, dev.sval, (void *)doff, (void *)dbase, (void *)dheads}));
    dev     = Dev();
    k16     = Cols16<true>();
    doff    = nullptr;
    dbase   = nullptr;
    dheads  = nullptr;
    bytes   = 0;
    dsingle = false;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  std::size_t DeviceBytes() const override { return bytes; }

  PetscErrorCode BuildDevice(const SpMVDeviceCsr &A, cudaStream_t s) override
  {
    int               *flag = nullptr, *pos = nullptr, *sync = nullptr, *runstart = nullptr, *spos = nullptr, *rpos = nullptr;
    unsigned long long*cnt = nullptr, hc[4] = {0, 0, 0, 0};
    void              *tmp = nullptr;
    std::size_t        tmpbytes = 0;
    const int          WT = (int)opt.tile;

    PetscFunctionBegin;
    PetscCall(ReleaseDevice());
    PetscCall(SegSumCheckOptions(opt));
    st        = SegSumStats();
    st.m      = A.m;
    st.n      = A.n;
    st.nnz    = A.nnz;
    st.T      = opt.tile / kW;
    st.S      = opt.S;
    st.warps  = SegSumWarps(opt, st); /* set before the return on m = 0 (never 0 warps); dcsr: again below, once the x footprint is sampled */
    st.ntiles = (st.nnz + WT - 1) / WT;
    st.nwarps = (st.ntiles + opt.S - 1) / opt.S;
    dev.rp    = A.i; /* the generic type's device CSR, valid until the next build (spmvformat.h) */
    dev.cj    = A.j;
    PetscCall(SetValues(A));
    dev.m     = (int)A.m;
    dev.S     = (int)opt.S;
    dev.nnz   = st.nnz;
    dev.ntiles = st.ntiles;
    dev.nwarps = st.nwarps;
    if (A.m == 0) PetscFunctionReturn(PETSC_SUCCESS);
    /* tile boundaries */
    PetscCall(spmv::DeviceAlloc(&dev.bound, st.ntiles + 1, &bytes, s));
    Bounds<<<Grid(st.ntiles + 1), kAux, 0, s>>>(st.ntiles, WT, st.nnz, dev.m, A.i, dev.bound);
    SpMVCheckLaunch();
    /* empty rows */
    PetscCall(spmv::DeviceAlloc(&flag, A.m + 1, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&pos, A.m + 1, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&cnt, 4, nullptr, s));
    PetscCallCUDA(cudaMemsetAsync(cnt, 0, sizeof(*cnt), s));
    EmptyFlags<<<Grid(A.m + 1), kAux, 0, s>>>(dev.m, A.i, flag, cnt);
    SpMVCheckLaunch();
    PetscCall(spmv::ExclusiveSum(flag, pos, (int)(A.m + 1), &tmp, &tmpbytes, s));
    {
      int ne;
      PetscCallCUDA(cudaMemcpyAsync(&ne, pos + A.m, sizeof(int), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaMemcpyAsync(hc, cnt, sizeof(*cnt), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaStreamSynchronize(s));
      st.nempty = dev.nempty = ne;
      if (opt.c16) { /* dcsr: the row kernel for long, even rows */
        st.maxrow   = (int64_t)hc[0];
        st.rowlanes = SegSumRowLanes(opt, st.m, st.nnz, st.maxrow);
      }
    }
    PetscCall(spmv::DeviceAlloc(&dev.erow, st.nempty, &bytes, s));
    if (st.nempty) ScatterRows<<<Grid(A.m), kAux, 0, s>>>(dev.m, flag, pos, dev.erow);
    SpMVCheckLaunch();
    /* synchronizer slots and their runs */
    if (st.nwarps) {
      PetscCall(spmv::DeviceAlloc(&sync, st.nwarps + 1, nullptr, s));
      PetscCall(spmv::DeviceAlloc(&runstart, st.nwarps + 1, nullptr, s));
      PetscCall(spmv::DeviceAlloc(&spos, st.nwarps + 1, nullptr, s));
      PetscCall(spmv::DeviceAlloc(&rpos, st.nwarps + 1, nullptr, s));
      WarpFlags<<<Grid(st.nwarps + 1), kAux, 0, s>>>(st.nwarps, dev.S, WT, A.i, dev.bound, sync, runstart);
      SpMVCheckLaunch();
      PetscCall(spmv::ExclusiveSum(sync, spos, (int)(st.nwarps + 1), &tmp, &tmpbytes, s));
      PetscCall(spmv::ExclusiveSum(runstart, rpos, (int)(st.nwarps + 1), &tmp, &tmpbytes, s));
      int ns, nr;
      PetscCallCUDA(cudaMemcpyAsync(&ns, spos + st.nwarps, sizeof(int), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaMemcpyAsync(&nr, rpos + st.nwarps, sizeof(int), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaStreamSynchronize(s));
      st.nslots = dev.nslots = ns;
      st.nruns = dev.nruns = nr;
      PetscCall(spmv::DeviceAlloc(&dev.wslot, st.nwarps, &bytes, s));
      PetscCall(spmv::DeviceAlloc(&dev.run_off, st.nruns + 1, &bytes, s));
      PetscCall(spmv::DeviceAlloc(&dev.run_row, st.nruns, &bytes, s));
      PetscCall(spmv::DeviceAlloc(&dev.sval, st.nslots, &bytes, s));
      SlotsRuns<<<Grid(st.nwarps + 1), kAux, 0, s>>>(st.nwarps, dev.S, dev.bound, sync, spos, runstart, rpos, dev.wslot, dev.run_off, dev.run_row);
      SpMVCheckLaunch();
    }
    /* statistics */
    PetscCallCUDA(cudaMemsetAsync(cnt, 0, 4 * sizeof(*cnt), s));
    if (st.ntiles || st.nruns) Stats<<<Grid(std::max(st.ntiles, st.nruns), 1024), kAux, 0, s>>>(st.ntiles, WT, dev.bound, st.nempty, dev.erow, st.nruns, dev.run_off, cnt);
    SpMVCheckLaunch();
    PetscCallCUDA(cudaMemcpyAsync(hc, cnt, sizeof(hc), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    st.nfast     = (int64_t)hc[0];
    st.ndirty    = (int64_t)hc[1];
    st.nlong     = (int64_t)hc[2];
    st.nlongruns = (int64_t)hc[3];
    /* dcsr: the compressed columns */
    st.c16 = opt.c16;
    if (opt.c16 && st.ntiles) {
      PetscCall(spmv::DeviceAlloc(&doff, st.ntiles * WT, &bytes, s));
      PetscCall(spmv::DeviceAlloc(&dbase, st.ntiles, &bytes, s));
      PetscCallCUDA(cudaMemsetAsync(cnt, 0, 2 * sizeof(*cnt), s));
      Compress<<<Grid(st.ntiles * kW, 8192), kAux, 0, s>>>(st.ntiles, WT, st.nnz, A.j, dbase, doff, cnt);
      SpMVCheckLaunch();
      PetscCallCUDA(cudaMemcpyAsync(hc, cnt, 2 * sizeof(*cnt), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaStreamSynchronize(s));
      st.nwide    = (int64_t)hc[0];
      st.nwidennz = (int64_t)hc[1];
      k16.off     = doff;
      k16.base    = dbase;
      st.masks    = SegSumUsesMasks(opt, st);
      st.worder   = SegSumWarpOrder(opt, st);
      k16.worder  = st.worder;
      if (SegSumSamplesFootprint(opt, st)) { /* segsum.h, SegSumWarps */
        PetscCallCUDA(cudaMemsetAsync(cnt, 0, 2 * sizeof(*cnt), s));
        Footprint<<<kDCSRFootSamples, kFootThreads, 0, s>>>(st.nnz, A.j, cnt);
        SpMVCheckLaunch();
        PetscCallCUDA(cudaMemcpyAsync(hc, cnt, 2 * sizeof(*cnt), cudaMemcpyDeviceToHost, s));
        PetscCallCUDA(cudaStreamSynchronize(s));
        st.xgroups  = (int64_t)hc[0];
        st.xsampled = (int64_t)hc[1];
      }
      if (st.masks) {
        PetscCall(spmv::DeviceAlloc(&dheads, st.ntiles, &bytes, s));
        PetscCallCUDA(cudaMemsetAsync(dheads, 0, st.ntiles * sizeof(uint4), s));
        HeadMasks<<<Grid(A.m), kAux, 0, s>>>(dev.m, WT, A.i, reinterpret_cast<unsigned *>(dheads));
        SpMVCheckLaunch();
        k16.heads = dheads;
      }
    }
    st.warps     = SegSumWarps(opt, st);
    st.auxbytes  = SegSumAuxBytes(st);
    PetscCall(spmv::DeviceFree({flag, pos, sync, runstart, spos, rpos, cnt, tmp}, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* The values the kernel reads, fp64 (a) or fp32 (a32, a single CSR), and the columns: the vector loads
     need them 16-byte aligned (device arrays are 256-byte aligned: spmv::DeviceAlloc). Values-only refresh: the auxiliary arrays depend
     on the pattern only, so a refresh may even change the value type. */
  PetscErrorCode SetValues(const SpMVDeviceCsr &A)
  {
    PetscFunctionBegin;
    single = dsingle = A.single;
    dev.aa = A.single ? reinterpret_cast<const PetscScalar *>(A.a32) : A.a; /* Vals<SpMVSingleScalar> converts it back */
    if (A.nnz > 0) {
      PetscCheck(A.single ? A.a32 != nullptr : A.a != nullptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "segsum: the device CSR has no %s values", A.single ? "fp32" : "fp64");
      PetscCheck(Aligned16(A.single ? (const void *)A.a32 : (const void *)A.a) && Aligned16(A.j), PETSC_COMM_SELF, PETSC_ERR_PLIB, "segsum: the device CSR's columns and values must be 16-byte aligned");
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode RefreshDevice(const SpMVDeviceCsr &A, cudaStream_t) override
  {
    PetscFunctionBegin;
    PetscCall(SetValues(A)); /* the values were rewritten in place */
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode MultDevice(const PetscScalar *x, PetscScalar *y, bool add, cudaStream_t s) const override
  {
    PetscFunctionBegin;
    if (st.m == 0) PetscFunctionReturn(PETSC_SUCCESS);
    if (st.nnz == 0) {
      if (!add) PetscCallCUDA(cudaMemsetAsync(y, 0, st.m * sizeof(PetscScalar), s));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (st.rowlanes) {
      const int tshift = std::countr_zero((unsigned)(kW * st.T)); /* log2 of the tile, W*T */
      if (dsingle) PetscCall(LaunchRowsV<SpMVSingleScalar>(st.rowlanes, dev, k16, tshift, x, y, add, s));
      else PetscCall(LaunchRowsV<PetscScalar>(st.rowlanes, dev, k16, tshift, x, y, add, s));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    switch (st.T) {
    case 2:
      PetscCall(Launch<2>(dev, opt.c16 ? &k16 : nullptr, dsingle, (int)st.warps, opt.speculate, x, y, add, s));
      break;
    case 4:
      PetscCall(Launch<4>(dev, opt.c16 ? &k16 : nullptr, dsingle, (int)st.warps, opt.speculate, x, y, add, s));
      break;
    case 8:
      PetscCall(Launch<8>(dev, opt.c16 ? &k16 : nullptr, dsingle, (int)st.warps, opt.speculate, x, y, add, s));
      break;
    case 16:
      PetscCall(Launch<16>(dev, opt.c16 ? &k16 : nullptr, dsingle, (int)st.warps, opt.speculate, x, y, add, s));
      break;
    default:
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "segsum: tile height %" PetscInt_FMT " not compiled", st.T);
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode View(PetscViewer v) const override
  {
    const int64_t WT = kW * st.T;

    PetscFunctionBegin;
    PetscCall(PetscViewerASCIIPrintf(v, "%s: rows %" PetscInt_FMT ", nnz %" PetscInt64_FMT ", empty rows %" PetscInt64_FMT "\n", opt.name, st.m, st.nnz, st.nempty));
    PetscCall(PetscViewerASCIIPrintf(v, "%s: tile W*T = 32*%" PetscInt_FMT " = %" PetscInt64_FMT " nonzeros, %" PetscInt_FMT " tiles per warp (%" PetscInt64_FMT " nonzeros), %" PetscInt_FMT " warps per block, speculation %s\n", opt.name, st.T, WT, st.S, WT * st.S, st.warps, opt.speculate ? "on" : "off"));
    PetscCall(PetscViewerASCIIPrintf(v, "%s: %" PetscInt64_FMT " tiles (%" PetscInt64_FMT " inside one row, %" PetscInt64_FMT " dirty, %" PetscInt64_FMT " of them with more rows than entries), %" PetscInt64_FMT " warps\n", opt.name, st.ntiles, st.nfast, st.ndirty, st.nlong, st.nwarps));
    PetscCall(PetscViewerASCIIPrintf(v, "%s: carries between warps: %" PetscInt64_FMT " synchronizer slots in %" PetscInt64_FMT " rows (%" PetscInt64_FMT " rows over more than %d warps)\n", opt.name, st.nslots, st.nruns, st.nlongruns, kSegSumShortRun));
    PetscCall(PetscViewerASCIIPrintf(v, "%s: %s values; %s; auxiliary arrays %.3g MB (%.2f%% of the CSR)\n", opt.name, single ? "fp32" : "fp64", st.c16 ? (st.masks ? "the kernel reads the CSR's values, and its columns in wide tiles only (narrow tiles: the 16-bit offsets; the row starts from the head masks; both counted in the auxiliary arrays)" : "the kernel reads the CSR's values and row offsets, and its columns in wide tiles only (narrow tiles: the 16-bit offsets, counted in the auxiliary arrays)") : "no copy of the matrix (the kernel reads the CSR)", st.auxbytes / 1e6, st.nnz ? 100.0 * st.auxbytes / ((single ? 8.0 : 12.0) * st.nnz + 4.0 * (st.m + 1)) : 0.0));
    if (st.c16 && st.rowlanes) PetscCall(PetscViewerASCIIPrintf(v, "%s: kernel: rows, %d lanes a row (longest row %" PetscInt64_FMT ", %.1f nonzeros a row on average)\n", opt.name, st.rowlanes, st.maxrow, st.m ? (double)st.nnz / st.m : 0.0));
    else if (st.c16) PetscCall(PetscViewerASCIIPrintf(v, "%s: kernel: tiles%s (longest row %" PetscInt64_FMT ", %.1f nonzeros a row on average)\n", opt.name, st.masks ? " with head masks" : "", st.maxrow, st.m ? (double)st.nnz / st.m : 0.0));
    if (st.xsampled) PetscCall(PetscViewerASCIIPrintf(v, "%s: x footprint %.3f distinct 4-column groups a nonzero (%d windows of %d nonzeros): %" PetscInt_FMT " warps a block (8 from %.2f)\n", opt.name, (double)st.xgroups / (double)st.xsampled, kDCSRFootSamples, kDCSRFootWindow, st.warps, kDCSRFootWide));
    if (st.c16 && !st.rowlanes) PetscCall(PetscViewerASCIIPrintf(v, "%s: tiles inside one row: read in the %s\n", opt.name, st.worder ? "warp's order (lane l: entries l + 32 k)" : "lanes' order (lane l: consecutive entries)"));
    if (st.c16) PetscCall(PetscViewerASCIIPrintf(v, "%s: 16-bit column offsets in %" PetscInt64_FMT " of %" PetscInt64_FMT " tiles; %" PetscInt64_FMT " wide tiles (columns spanning more than %" PetscInt64_FMT ") keep the CSR's 32-bit columns (%.2f%% of the nonzeros)\n", opt.name, st.ntiles - st.nwide, st.ntiles, st.nwide, kSegSumSpan16 + 1, st.nnz ? 100.0 * st.nwidennz / st.nnz : 0.0));
    PetscCall(PetscViewerASCIIPrintf(v, "%s: a product reads %.2f bytes per nonzero of the matrix (values, columns, row offsets or head masks, tile boundaries; fp64 CSR: %.2f)\n", opt.name, SegSumBytesPerNnz(st, single), st.nnz ? 12.0 + 4.0 * (st.m + 1) / (double)st.nnz : 0.0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode Verify(const SpMVHostCsr &A, cudaStream_t s, PetscReal *maxdiff) override
  {
    SegSumHostLayout ref;
    SegSumStats      rst;

    PetscFunctionBegin;
    PetscCall(SegSumBuildHostLayout(opt, A, &ref, &rst));
    PetscCheck(rst.ntiles == st.ntiles && rst.nwarps == st.nwarps && rst.nslots == st.nslots && rst.nruns == st.nruns && rst.nempty == st.nempty && rst.nfast == st.nfast && rst.ndirty == st.ndirty && rst.nlong == st.nlong && rst.nlongruns == st.nlongruns && rst.nwide == st.nwide && rst.nwidennz == st.nwidennz && rst.maxrow == st.maxrow && rst.rowlanes == st.rowlanes, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "segsum device layout differs from the host reference (device/host): tiles %" PetscInt64_FMT "/%" PetscInt64_FMT " warps %" PetscInt64_FMT "/%" PetscInt64_FMT " slots %" PetscInt64_FMT "/%" PetscInt64_FMT " runs %" PetscInt64_FMT "/%" PetscInt64_FMT " empty %" PetscInt64_FMT "/%" PetscInt64_FMT " fast %" PetscInt64_FMT "/%" PetscInt64_FMT " dirty %" PetscInt64_FMT "/%" PetscInt64_FMT " long %" PetscInt64_FMT "/%" PetscInt64_FMT " long runs %" PetscInt64_FMT "/%" PetscInt64_FMT,
               st.ntiles, rst.ntiles, st.nwarps, rst.nwarps, st.nslots, rst.nslots, st.nruns, rst.nruns, st.nempty, rst.nempty, st.nfast, rst.nfast, st.ndirty, rst.ndirty, st.nlong, rst.nlong, st.nlongruns, rst.nlongruns);
    *maxdiff = 0;
    if (st.m == 0) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCallCUDA(cudaStreamSynchronize(s));
    auto same = [&](const char *name, const int *d, const std::vector<int> &h, int64_t n) -> PetscErrorCode {
      std::vector<int> got(n);
      PetscFunctionBegin;
      if (n) PetscCall(spmv::Download(got, d));
      PetscCheck((int64_t)h.size() >= n && std::equal(got.begin(), got.end(), h.begin()), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s device %s differs from the host reference", opt.name, name);
      PetscFunctionReturn(PETSC_SUCCESS);
    };
    PetscCall(same("tile boundaries", dev.bound, ref.bound, st.ntiles + 1));
    PetscCall(same("empty rows", dev.erow, ref.erow, st.nempty));
    if (st.nwarps) {
      PetscCall(same("synchronizer slots", dev.wslot, ref.wslot, st.nwarps));
      PetscCall(same("run offsets", dev.run_off, ref.run_off, st.nruns + 1));
      PetscCall(same("run rows", dev.run_row, ref.run_row, st.nruns));
    }
    if (st.c16 && st.ntiles) {
      std::vector<unsigned short> off(st.ntiles * kW * st.T);
      PetscCall(same("tile column bases", dbase, ref.cbase, st.ntiles));
      PetscCall(spmv::Download(off, doff));
      PetscCheck(off == ref.c16, PETSC_COMM_SELF, PETSC_ERR_PLIB, "dcsr device column offsets differ from the host reference");
    }
    PetscCheck(rst.xgroups == st.xgroups && rst.xsampled == st.xsampled && rst.warps == st.warps, PETSC_COMM_SELF, PETSC_ERR_PLIB, "dcsr: x footprint on the device %" PetscInt64_FMT " groups in %" PetscInt64_FMT " nonzeros (%" PetscInt_FMT " warps a block), host reference %" PetscInt64_FMT " in %" PetscInt64_FMT " (%" PetscInt_FMT ")", st.xgroups, st.xsampled, st.warps, rst.xgroups, rst.xsampled, rst.warps);
    PetscCheck(rst.masks == st.masks && rst.worder == st.worder, PETSC_COMM_SELF, PETSC_ERR_PLIB, "dcsr: head masks on the device %d, host reference %d; warp order %d, %d", (int)st.masks, (int)rst.masks, (int)st.worder, (int)rst.worder);
    if (st.masks) {
      std::vector<unsigned> hm(4 * st.ntiles);
      PetscCall(spmv::Download(hm, reinterpret_cast<const unsigned *>(dheads)));
      PetscCheck(hm == ref.heads, PETSC_COMM_SELF, PETSC_ERR_PLIB, "dcsr device head masks differ from the host reference");
    }
    /* the product itself: device and host reference must agree bit for bit, y = A x and y += A x */
    /* fp32 values on the device: the reference multiplies with the same values rounded to fp32 (the identity
       when the caller's host CSR already holds them rounded, as spmvformat.h says it does) */
    std::vector<PetscScalar> a32;
    SpMVHostCsr              Ar = A;
    if (dsingle) {
      a32.resize(st.nnz);
      for (int64_t k = 0; k < st.nnz; k++) a32[k] = (PetscScalar)(SpMVSingleScalar)A.a[k];
      Ar.a      = a32.data();
      Ar.single = true;
    }
    std::vector<PetscScalar> x(std::max<PetscInt>(A.n, 1)), y0(A.m), yh(A.m), yd(A.m);
    for (PetscInt j = 0; j < A.n; j++) x[j] = std::ldexp((double)((j * 2654435761ull) % 2003) - 1001.0, -9) + 1e-3 * (j % 7);
    for (PetscInt r = 0; r < A.m; r++) y0[r] = 0.5 - (double)((r * 40503ull) % 997) / 997.0;
    PetscScalar *dx, *dy;
    PetscCallCUDA(cudaMalloc((void **)&dx, x.size() * sizeof(PetscScalar)));
    PetscCallCUDA(cudaMalloc((void **)&dy, A.m * sizeof(PetscScalar)));
    PetscCallCUDA(cudaMemcpy(dx, x.data(), x.size() * sizeof(PetscScalar), cudaMemcpyHostToDevice));
    for (int add = 0; add < 2; add++) {
      if (add) {
        PetscCallCUDA(cudaMemcpy(dy, y0.data(), A.m * sizeof(PetscScalar), cudaMemcpyHostToDevice));
        yh = y0;
      } else {
        PetscCallCUDA(cudaMemset(dy, 0xff, A.m * sizeof(PetscScalar))); /* NaN: every row must be written */
        std::fill(yh.begin(), yh.end(), NAN);
      }
      PetscCall(MultDevice(dx, dy, add, s));
      PetscCallCUDA(cudaStreamSynchronize(s));
      PetscCall(spmv::Download(yd, dy));
      SegSumMultHost(rst, ref, Ar, SpMVHostArray(x.data()), SpMVHostArray(yh.data()), add);
      for (PetscInt r = 0; r < A.m; r++) {
        if (std::memcmp(&yd[r], &yh[r], sizeof(PetscScalar))) *maxdiff = std::max(*maxdiff, PetscIsNanScalar(yd[r] - yh[r]) ? (PetscReal)INFINITY : (PetscReal)PetscAbsScalar(yd[r] - yh[r]));
        if (std::memcmp(&yd[r], &yh[r], sizeof(PetscScalar)) && *maxdiff == 0) *maxdiff = 1e-300; /* -0 vs +0 */
      }
    }
    PetscCallCUDA(cudaFree(dx));
    PetscCallCUDA(cudaFree(dy));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

SpMVFormat *SegSumCreate(void) { return new SegSum(false); }
SpMVFormat *DCSRCreate(void) { return new SegSum(true); }
