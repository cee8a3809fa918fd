/* BRC on the device: layout built on the GPU from the device CSR, values refresh, SpMV kernel; and the
   format object that the generic type drives.  See brc.h for the layout. */
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "brc.h"
#include "../spmvdevice.cuh"
#include "../spmvvalue.cuh"
#include <petscdevice_cuda.h>
#include <cub/cub.cuh>
#include <algorithm>
#include <climits>
#include <type_traits>

namespace {
constexpr int      kB1      = 32;  /* rows per block = lanes per warp */
constexpr int      kThreads = 128; /* 4 warps per CUDA block (paper) */
constexpr unsigned kFull    = 0xffffffffu;

/* slot_row encoding: r >= 0 unsplit row (plain store), -1 dummy slot, -2-r a piece of split row r */
__device__ __forceinline__ int EncodeRow(int r, bool split) { return split ? -2 - r : r; }

__global__ void RowStats(PetscInt m, const int *__restrict__ rp, int *__restrict__ len, int *__restrict__ rows, unsigned long long *__restrict__ s)
{
  unsigned long long n = 0, sq = 0, mx = 0, ne = 0;
  for (PetscInt r = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; r < m; r += (PetscInt)gridDim.x * blockDim.x) {
    const int l = rp[r + 1] - rp[r];
    len[r]      = l;
    rows[r]     = (int)r;
    n += l;
    sq += (unsigned long long)l * l;
    mx = max(mx, (unsigned long long)l);
    ne += l > 0;
  }
  for (int o = 16; o > 0; o >>= 1) {
    n += __shfl_down_sync(kFull, n, o);
    sq += __shfl_down_sync(kFull, sq, o);
    mx = max(mx, __shfl_down_sync(kFull, mx, o));
    ne += __shfl_down_sync(kFull, ne, o);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(s + 0, n);
    atomicAdd(s + 1, sq);
    atomicMax(s + 2, mx);
    atomicAdd(s + 3, ne);
  }
}

/* Sort keys for windows of W rows: window id above, (maxlen - length) below: ascending = by window, then
   by descending length; the radix sort is stable, so equal lengths keep their order */
__global__ void GatherLen(PetscInt m, const int *__restrict__ srows, const int *__restrict__ len, int *__restrict__ slen, PetscInt B2, unsigned long long *__restrict__ nsplit)
{
  unsigned long long k = 0;
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < m; i += (PetscInt)gridDim.x * blockDim.x) {
    const int l = len[srows[i]];
    slen[i]     = l;
    k += l > B2;
  }
  for (int o = 16; o > 0; o >>= 1) k += __shfl_down_sync(kFull, k, o);
  if ((threadIdx.x & 31) == 0 && k) atomicAdd(nsplit, k);
}

/* passes of window w = ceil(longest row / B2); the longest is the window's first sorted row */
__global__ void WindowPasses(PetscInt nwin, PetscInt W, const int *__restrict__ slen, PetscInt B2, int64_t *__restrict__ wp)
{
  const PetscInt w = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x;
  if (w < nwin) wp[w] = (slen[w * W] + B2 - 1) / B2;
  else if (w == nwin) wp[w] = 0;
}

/* last index k in [0, n) with a[k] <= v, for a nondecreasing array a with a[0] <= v */
__device__ __forceinline__ PetscInt LastLE(const int64_t *a, PetscInt n, int64_t v)
{
  PetscInt lo = 0, hi = n;
  while (hi - lo > 1) {
    const PetscInt mid = (lo + hi) / 2;
    if (a[mid] <= v) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* For every (window w, pass p), flattened as k = woff[w] + p: how many rows of window w are longer than
   p*B2 (the size of that pass); count[K] = 0 so that the exclusive scan ends with the slot total */
__global__ void PassCounts(PetscInt K, PetscInt m, PetscInt nwin, PetscInt W, const int64_t *__restrict__ woff, const int *__restrict__ slen, PetscInt B2, int64_t *__restrict__ count)
{
  const PetscInt k = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x;
  if (k > K) return;
  if (k == K) {
    count[k] = 0;
    return;
  }
  const PetscInt w  = LastLE(woff, nwin + 1, k);
  const int64_t  t  = (int64_t)(k - woff[w]) * B2;
  const PetscInt lo0 = w * W;
  PetscInt       lo = lo0, hi = min(m, lo0 + W); /* first index with slen <= t */
  while (lo < hi) {
    const PetscInt mid = (lo + hi) / 2;
    if (slen[mid] > t) lo = mid + 1;
    else hi = mid;
  }
  count[k] = lo - lo0;
}

/* Slot s: its (window, pass) k = last with pstart[k] <= s, its rank i in that pass, hence its row */
__global__ void Slots(int64_t nslots, int64_t total, PetscInt K, const int64_t *__restrict__ pstart, PetscInt nwin, PetscInt W, const int64_t *__restrict__ woff, const int *__restrict__ srows, const int *__restrict__ slen, const int *__restrict__ rp, PetscInt B2, int *__restrict__ slot_row, int *__restrict__ slot_start, int *__restrict__ slot_take)
{
  for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s < total; s += (int64_t)gridDim.x * blockDim.x) {
    if (s >= nslots) {
      slot_row[s]   = -1;
      slot_start[s] = 0;
      slot_take[s]  = 0;
      continue;
    }
    const PetscInt k = LastLE(pstart, K, s);
    const PetscInt w = LastLE(woff, nwin + 1, k);
    const int64_t  p = k - woff[w];
    const int64_t  i = w * W + (s - pstart[k]);
    const int      r = srows[i], l = slen[i];
    slot_row[s]      = EncodeRow(r, l > B2);
    slot_start[s]    = rp[r] + (int)(p * B2);
    slot_take[s]     = (int)min((int64_t)l - p * B2, (int64_t)B2);
  }
}

__global__ void BlockWidths(int64_t nblocks, const int *__restrict__ take, int *__restrict__ width, int64_t *__restrict__ size)
{
  const int64_t b = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / kB1;
  const int     lane = threadIdx.x & 31;
  if (b >= nblocks) return; /* whole warps leave together: blockDim is a multiple of 32 */
  int t = take[b * kB1 + lane];
  for (int o = 16; o > 0; o >>= 1) t = max(t, __shfl_xor_sync(kFull, t, o));
  if (lane == 0) {
    width[b] = t;
    size[b]  = (int64_t)kB1 * t;
  }
}

/* the row a slot's 16-bit column offsets are relative to: its row (split or not), row 0 for a dummy slot */
__host__ __device__ __forceinline__ int RefRow(int r) { return r >= 0 ? r : (r == -1 ? 0 : -2 - r); }

/* the largest |column - row| of the matrix (does every column fit a 16-bit offset from its row?) */
__global__ void MaxOffset(PetscInt m, const int *__restrict__ rp, const int *__restrict__ cj, unsigned *__restrict__ mx)
{
  unsigned v = 0;
  for (PetscInt r = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; r < m; r += (PetscInt)gridDim.x * blockDim.x)
    for (int k = rp[r]; k < rp[r + 1]; k++) v = max(v, (unsigned)min(llabs((long long)cj[k] - (long long)r), (long long)INT_MAX));
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_down_sync(kFull, v, o));
  if ((threadIdx.x & 31) == 0) atomicMax(mx, v);
}

/* the column of a padding entry on the device: no real column or 16-bit offset (|offset| <= SHRT_MAX) is this value, so
   the kernel skips padding (0 * Inf would be NaN in a row AIJ keeps finite); the host reference keeps the paper's
   padding columns (a neighbour's) and stops at each slot's end, which is the same product */
template <typename C>
__device__ __forceinline__ constexpr C PadColumn() { return std::is_same_v<C, short> ? (C)SHRT_MIN : (C)INT_MIN; }

/* One warp per block, one lane per slot; V: the stored value type (PetscScalar, or SpMVSingleScalar for single); C: the column
   type, int (columns) or short (offsets from the slot's RefRow); padding entries: PadColumn, value 0. VALUES_ONLY: the
   refresh, which re-gathers the values only. */
template <bool VALUES_ONLY, typename V, typename C>
__global__ void Fill(int64_t nblocks, const int *__restrict__ width, const int64_t *__restrict__ offset, const int *__restrict__ slot_start, const int *__restrict__ slot_take, const int *__restrict__ slot_row, const int *__restrict__ Aj, const V *__restrict__ Aa, C *__restrict__ col, V *__restrict__ data)
{
  const int     lane   = threadIdx.x & 31;
  const int64_t nwarps = (int64_t)gridDim.x * blockDim.x / kB1;
  for (int64_t b = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / kB1; b < nblocks; b += nwarps) {
    const int     T = width[b], start = slot_start[b * kB1 + lane], take = slot_take[b * kB1 + lane];
    const int     ref = std::is_same_v<C, short> ? RefRow(slot_row[b * kB1 + lane]) : 0;
    const int64_t off = offset[b] + lane;
    for (int j = 0; j < T; j++) {
      const bool has = j < take;
      if (VALUES_ONLY) {
        if (has) data[off + (int64_t)j * kB1] = Aa[start + j];
      } else {
        col[off + (int64_t)j * kB1]  = has ? (C)(Aj[start + j] - ref) : PadColumn<C>();
        data[off + (int64_t)j * kB1] = has ? Aa[start + j] : V(0);
      }
    }
  }
}

/* y (+)= A x. Unsplit rows own their y entry; pieces of split rows meet through FP64 atomics.
   V: the stored value type; fp32 values are widened (exactly) and multiplied and summed in fp64. */
template <bool ADD, typename V, typename C>
__global__ void __launch_bounds__(kThreads) SpMV(int64_t nblocks, const int *__restrict__ width, const int64_t *__restrict__ offset, const V *__restrict__ data, const C *__restrict__ col, const int *__restrict__ slot_row, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  const int     lane   = threadIdx.x & 31;
  const int64_t nwarps = (int64_t)gridDim.x * blockDim.x / kB1;
  for (int64_t b = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / kB1; b < nblocks; b += nwarps) {
    const int          T   = width[b];
    const V           *d   = data + offset[b] + lane;
    const C           *c   = col + offset[b] + lane;
    const int          r   = slot_row[b * kB1 + lane];
    const PetscScalar *xr  = x + (std::is_same_v<C, short> ? RefRow(r) : 0); /* 16-bit offsets: from the slot's row */
    PetscScalar        acc = 0;
#pragma unroll 4
    for (int j = 0; j < T; j++) {
      const C cj = __ldcs(c + (int64_t)j * kB1);
      if (cj != PadColumn<C>()) acc += spmv::Widen<PetscScalar>(spmv::Ldcs(d + (int64_t)j * kB1)) * spmv::Ldg(xr + cj);
    }
    if (r >= 0) {
      if (ADD) y[r] += acc;
      else y[r] = acc;
    } else if (r < -1) spmv::AtomicAdd(y + (-2 - r), acc);
  }
}

/* kThreads per block, at most 2^30 blocks */
inline unsigned GridFor(int64_t threads) { return spmv::GridFor(threads, kThreads, 1 << 30); }
} // namespace

SPMV_KERNEL_MODULE(RowStats); /* the first selection's builds: loaded ahead by spmv::WarmPool */

inline int64_t offset_host(const BRCHostLayout &L, int64_t b) { return L.offset[b]; }

class BRC final : public SpMVFormat {
  BRCOptions      opt = BRCPluginDefaults();
  BRCStats        st;
  BRCHostLayout   host;
  BRCDeviceLayout dev;
  bool            single = false; /* the last build's values were fp32 (spmvformat.h, "Value type") */

  /* the blocks' values from the CSR values, fp64 or fp32 (the stored type follows the CSR) */
  template <bool VALUES_ONLY>
  PetscErrorCode FillValues(const SpMVDeviceCsr &A, cudaStream_t s)
  {
    PetscFunctionBegin;
    if (!st.nblocks) PetscFunctionReturn(PETSC_SUCCESS);
    if (A.single && dev.col16) Fill<VALUES_ONLY><<<GridFor(st.nblocks * kB1), kThreads, 0, s>>>(st.nblocks, dev.width, dev.offset, dev.slot_start, dev.slot_take, dev.slot_row, A.j, A.a32, dev.col16, dev.data32);
    else if (A.single) Fill<VALUES_ONLY><<<GridFor(st.nblocks * kB1), kThreads, 0, s>>>(st.nblocks, dev.width, dev.offset, dev.slot_start, dev.slot_take, dev.slot_row, A.j, A.a32, dev.col, dev.data32);
    else if (dev.col16) Fill<VALUES_ONLY><<<GridFor(st.nblocks * kB1), kThreads, 0, s>>>(st.nblocks, dev.width, dev.offset, dev.slot_start, dev.slot_take, dev.slot_row, A.j, A.a, dev.col16, dev.data);
    else Fill<VALUES_ONLY><<<GridFor(st.nblocks * kB1), kThreads, 0, s>>>(st.nblocks, dev.width, dev.offset, dev.slot_start, dev.slot_take, dev.slot_row, A.j, A.a, dev.col, dev.data);
    SpMVCheckLaunch();
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  template <typename V, typename C>
  PetscErrorCode Launch(int64_t warps, const V *data, const C *col, const PetscScalar *x, PetscScalar *y, bool add, cudaStream_t s) const
  {
    PetscFunctionBegin;
    if (add) SpMV<true><<<GridFor(warps * kB1), kThreads, 0, s>>>(st.nblocks, dev.width, dev.offset, data, col, dev.slot_row, x, y);
    else SpMV<false><<<GridFor(warps * kB1), kThreads, 0, s>>>(st.nblocks, dev.width, dev.offset, data, col, dev.slot_row, x, y);
    SpMVCheckLaunch();
    PetscFunctionReturn(PETSC_SUCCESS);
  }

public:
  ~BRC() override { (void)ReleaseDevice(); }

  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    PetscFunctionBegin;
    PetscCall(PetscOptionsInt("-mat_brc_width", "Block width B2 (nonzeros per row piece); 0 = automatic", "MatSetType", opt.width, &opt.width, NULL));
    PetscCall(PetscOptionsInt("-mat_brc_width_max", "Cap on the automatic block width: longer rows are split (the paper's B2max)", "MatSetType", opt.width_max, &opt.width_max, NULL));
    PetscCall(PetscOptionsBool("-mat_brc_paper_width", "Automatic width by the paper's Eq. (3), C*round(mean+std), instead of the cap alone", "MatSetType", opt.paper_width, &opt.paper_width, NULL));
    PetscCall(PetscOptionsReal("-mat_brc_width_c", "Factor C in the paper's B2 = C*round(mean+std)", "MatSetType", opt.width_c, &opt.width_c, NULL));
    PetscCall(PetscOptionsInt("-mat_brc_sort_window", "Rows per sort window: rows are sorted and queued within each window (keeps x locality); 0 = all rows, as the paper", "MatSetType", opt.window, &opt.window, NULL));
    PetscCall(PetscOptionsBool("-mat_brc_offsets16", "Store 16-bit column offsets from the row where every column is within 32767 of its row (10 bytes an entry in fp64, 6 with fp32 values)", "MatSetType", opt.offsets16, &opt.offsets16, NULL));
    PetscCall(PetscOptionsInt("-mat_brc_coarsen", "Blocks per warp (thread coarsening, the paper's rep); 0 = automatic (up to 8 when std > mean)", "MatSetType", opt.coarsen, &opt.coarsen, NULL));
    PetscCheck(opt.width >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_brc_width %" PetscInt_FMT " must be >= 0 (0 = automatic)", opt.width);
    PetscCheck(opt.width_max >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_brc_width_max %" PetscInt_FMT " must be >= 1", opt.width_max);
    PetscCheck(opt.width_c > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_brc_width_c %g must be > 0", (double)opt.width_c);
    PetscCheck(opt.window >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_brc_sort_window %" PetscInt_FMT " must be >= 0 (0 = all rows)", opt.window);
    PetscCheck(opt.coarsen >= 0 && opt.coarsen <= 1024, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_brc_coarsen %" PetscInt_FMT " must be in [0, 1024] (0 = automatic)", opt.coarsen);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode CopyOptions(const SpMVFormat &from) override
  {
    PetscFunctionBegin;
    opt = static_cast<const BRC &>(from).opt;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode BuildHost(const SpMVHostCsr &A) override
  {
    single = A.single;
    return BRCBuildHostLayout(opt, A, kB1, &host, &st);
  }
  PetscErrorCode RefreshHost(const SpMVHostCsr &A) override { return BRCRefreshHostLayout(A, &host); }
  PetscErrorCode MultHost(const PetscScalar *x, PetscScalar *y, bool add) const override
  {
    PetscFunctionBegin;
    if (!add) std::fill(y, y + st.m, 0.0);
    BRCMultHost(host, SpMVHostArray(x), SpMVHostArray(y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode ReleaseDevice() override
  {
    PetscFunctionBegin;
    PetscCall(spmv::DeviceFree({dev.width, dev.col, dev.slot_row, dev.slot_start, dev.slot_take, dev.offset, dev.data, dev.data32, dev.col16}));
    dev = BRCDeviceLayout();
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  std::size_t DeviceBytes() const override { return dev.bytes; }

  PetscErrorCode BuildDevice(const SpMVDeviceCsr &A, cudaStream_t s) override
  {
    const PetscInt      m = A.m;
    int                *len = nullptr, *rows = nullptr, *slen = nullptr, *srows = nullptr;
    unsigned long long *sums = nullptr, hs[4];
    int64_t            *count = nullptr, *bsize = nullptr, *woff = nullptr, total;
    void               *tmp = nullptr;
    std::size_t         tmpbytes = 0;

    PetscFunctionBegin;
    PetscCall(ReleaseDevice());
    st     = BRCStats();
    single = A.single;
    if (m == 0) PetscFunctionReturn(PETSC_SUCCESS);
    /* 1. row lengths, statistics, stable descending sort */
    PetscCall(spmv::DeviceAlloc(&len, m, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&rows, m, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&slen, m, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&srows, m, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&sums, 4, nullptr, s));
    PetscCallCUDA(cudaMemsetAsync(sums, 0, 4 * sizeof(*sums), s));
    RowStats<<<std::min(GridFor(m), 1024u), kThreads, 0, s>>>(m, A.i, len, rows, sums);
    SpMVCheckLaunch();
    PetscCallCUDA(cudaMemcpyAsync(hs, sums, sizeof(hs), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    const int64_t isums[3] = {(int64_t)hs[0], (int64_t)hs[1], (int64_t)hs[2]};
    PetscCall(BRCComputeStats(opt, m, isums, (PetscInt)hs[3], &st));
    /* stable sort by descending length within windows of W rows (one window: the paper's global sort) */
    const PetscInt W    = opt.window > 0 ? std::min<PetscInt>(opt.window, m) : m;
    const PetscInt nwin = (m + W - 1) / W;
    PetscCall(spmv::SortByLength(m, W, st.maxlen, len, rows, srows, &tmp, &tmpbytes, s));
    PetscCallCUDA(cudaMemsetAsync(sums, 0, sizeof(*sums), s));
    GatherLen<<<std::min(GridFor(m), 1024u), kThreads, 0, s>>>(m, srows, len, slen, st.B2, sums);
    SpMVCheckLaunch();
    /* 2. passes per window, flattened (window, pass) pass sizes, their exclusive scan = the slot positions */
    PetscCall(spmv::DeviceAlloc(&woff, nwin + 1, nullptr, s));
    WindowPasses<<<GridFor(nwin + 1), kThreads, 0, s>>>(nwin, W, slen, st.B2, woff);
    SpMVCheckLaunch();
    PetscCall(spmv::ExclusiveSum(woff, woff, (int)(nwin + 1), &tmp, &tmpbytes, s));
    int64_t K;
    unsigned long long nsplit;
    PetscCallCUDA(cudaMemcpyAsync(&K, woff + nwin, sizeof(K), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaMemcpyAsync(&nsplit, sums, sizeof(nsplit), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    st.nsplit = (PetscInt)nsplit;
    PetscCall(spmv::DeviceAlloc(&count, K + 1, nullptr, s));
    PassCounts<<<GridFor(K + 1), kThreads, 0, s>>>((PetscInt)K, m, nwin, W, woff, slen, st.B2, count);
    SpMVCheckLaunch();
    PetscCall(spmv::ExclusiveSum(count, count, (int)(K + 1), &tmp, &tmpbytes, s));
    PetscCallCUDA(cudaMemcpyAsync(&total, count + K, sizeof(total), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    st.nslots  = total;
    st.nblocks = (total + kB1 - 1) / kB1;
    PetscCheck(st.nblocks * kB1 < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_INT_OVERFLOW, "BRC: %" PetscInt64_FMT " row pieces overflow the 32-bit slot index; raise -mat_brc_width", st.nslots);
    /* 3. slots: row, start, length of every piece */
    const int64_t nslot = st.nblocks * kB1;
    PetscCall(spmv::DeviceAlloc(&dev.slot_row, nslot, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&dev.slot_start, nslot, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&dev.slot_take, nslot, &dev.bytes, s));
    if (nslot) Slots<<<GridFor(nslot), kThreads, 0, s>>>(st.nslots, nslot, (PetscInt)K, count, nwin, W, woff, srows, slen, A.i, st.B2, dev.slot_row, dev.slot_start, dev.slot_take);
    SpMVCheckLaunch();
    /* 4. block widths and offsets */
    PetscCall(spmv::DeviceAlloc(&dev.width, st.nblocks, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&dev.offset, st.nblocks + 1, &dev.bytes, s));
    PetscCall(spmv::DeviceAlloc(&bsize, st.nblocks + 1, nullptr, s));
    PetscCallCUDA(cudaMemsetAsync(bsize + st.nblocks, 0, sizeof(int64_t), s));
    if (st.nblocks) BlockWidths<<<GridFor(nslot), kThreads, 0, s>>>(st.nblocks, dev.slot_take, dev.width, bsize);
    SpMVCheckLaunch();
    PetscCall(spmv::ExclusiveSum(bsize, dev.offset, (int)(st.nblocks + 1), &tmp, &tmpbytes, s));
    PetscCallCUDA(cudaMemcpyAsync(&st.padded, dev.offset + st.nblocks, sizeof(int64_t), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    /* 5. the blocks themselves, with 16-bit column offsets where every column is within 32767 of its row (banded,
       stencil and mesh matrices in a natural ordering): 10 bytes an entry instead of 12 (fp32 values: 6 instead of 8) */
    bool off16 = false;
    if (opt.offsets16) {
      unsigned *dmx, hmx;
      PetscCall(spmv::DeviceAlloc(&dmx, 1, nullptr, s));
      PetscCallCUDA(cudaMemsetAsync(dmx, 0, sizeof(unsigned), s));
      MaxOffset<<<std::min(GridFor(m), 4096u), kThreads, 0, s>>>(m, A.i, A.j, dmx);
      SpMVCheckLaunch();
      PetscCallCUDA(cudaMemcpyAsync(&hmx, dmx, sizeof(hmx), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaStreamSynchronize(s));
      PetscCall(spmv::DeviceFree({dmx}, s));
      off16 = hmx <= SHRT_MAX;
    }
    if (off16) PetscCall(spmv::DeviceAlloc(&dev.col16, st.padded, &dev.bytes, s));
    else PetscCall(spmv::DeviceAlloc(&dev.col, st.padded, &dev.bytes, s));
    if (A.single) PetscCall(spmv::DeviceAlloc(&dev.data32, st.padded, &dev.bytes, s));
    else PetscCall(spmv::DeviceAlloc(&dev.data, st.padded, &dev.bytes, s));
    PetscCall(FillValues<false>(A, s));
    /* statistics the host knows without a scan */
    {
      int sms;
      PetscCall(spmv::DeviceSMCount(&sms));
      const int64_t resident = (int64_t)sms * 64;
      st.rep                 = opt.coarsen ? opt.coarsen : (st.sigma > st.mu ? (PetscInt)std::min<int64_t>(8, std::max<int64_t>(1, st.nblocks / (2 * resident))) : 1);
    }
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(spmv::DeviceFree({len, rows, slen, srows, sums, count, bsize, woff, tmp}, s)); /* all allocated: none skipped */
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode RefreshDevice(const SpMVDeviceCsr &A, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCheck(A.single == (dev.data32 != nullptr), PETSC_COMM_SELF, PETSC_ERR_PLIB, "BRC: a values refresh cannot change the value type");
    PetscCall(FillValues<true>(A, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  bool SupportsSingle() const override { return true; }

  PetscErrorCode MultDevice(const PetscScalar *x, PetscScalar *y, bool add, cudaStream_t s) const override
  {
    PetscFunctionBegin;
    /* without empty or split rows every row has exactly one slot that stores it: no zeroing needed */
    const bool needzero = st.nonempty < st.m || st.nsplit > 0;
    if (!add && needzero && st.m) PetscCallCUDA(cudaMemsetAsync(y, 0, st.m * sizeof(PetscScalar), s));
    if (!st.nblocks) PetscFunctionReturn(PETSC_SUCCESS);
    const int64_t warps = (st.nblocks + st.rep - 1) / st.rep;
    if (dev.col16 && dev.data32) PetscCall(Launch(warps, dev.data32, dev.col16, x, y, add, s));
    else if (dev.col16) PetscCall(Launch(warps, dev.data, dev.col16, x, y, add, s));
    else if (dev.data32) PetscCall(Launch(warps, dev.data32, dev.col, x, y, add, s));
    else PetscCall(Launch(warps, dev.data, dev.col, x, y, add, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode View(PetscViewer v) const override
  {
    PetscFunctionBegin;
    PetscCall(PetscViewerASCIIPrintf(v, "BRC: rows %" PetscInt_FMT " (%" PetscInt_FMT " nonempty), nnz %" PetscInt64_FMT ", row length mean %.2f std %.2f max %" PetscInt_FMT "\n", st.m, st.nonempty, st.nnz, (double)st.mu, (double)st.sigma, st.maxlen));
    PetscCall(PetscViewerASCIIPrintf(v, "BRC: B1 32, block width B2 %" PetscInt_FMT ", %" PetscInt_FMT " passes, %" PetscInt_FMT " split rows, %" PetscInt64_FMT " slots in %" PetscInt64_FMT " blocks, coarsening %" PetscInt_FMT "\n", st.B2, st.passes, st.nsplit, st.nslots, st.nblocks, st.rep));
    PetscCall(PetscViewerASCIIPrintf(v, "BRC: stored entries %" PetscInt64_FMT " (padding %.1f%%), %s values%s, device memory %.3g MB\n", st.padded, st.nnz ? 100.0 * (double)(st.padded - st.nnz) / (double)st.nnz : 0.0, single ? (dev.data32 ? "fp32" : "fp32 (held as fp64 numbers on the host)") : "fp64", dev.col16 ? " and 16-bit column offsets" : "", dev.bytes / 1e6));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode Verify(const SpMVHostCsr &A, cudaStream_t s, PetscReal *maxdiff) override
  {
    BRCHostLayout ref;
    BRCStats      rst;

    PetscFunctionBegin;
    PetscCall(BRCBuildHostLayout(opt, A, kB1, &ref, &rst));
    PetscCheck(rst.B2 == st.B2 && rst.nslots == st.nslots && rst.nblocks == st.nblocks && rst.padded == st.padded && rst.nsplit == st.nsplit && rst.nonempty == st.nonempty, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "BRC device layout shape differs from the host reference (device/host): B2 %" PetscInt_FMT "/%" PetscInt_FMT " slots %" PetscInt64_FMT "/%" PetscInt64_FMT " blocks %" PetscInt64_FMT "/%" PetscInt64_FMT " padded %" PetscInt64_FMT "/%" PetscInt64_FMT " split rows %" PetscInt_FMT "/%" PetscInt_FMT " nonempty %" PetscInt_FMT "/%" PetscInt_FMT,
               st.B2, rst.B2, st.nslots, rst.nslots, st.nblocks, rst.nblocks, st.padded, rst.padded, st.nsplit, rst.nsplit, st.nonempty, rst.nonempty);
    std::vector<int>         width(st.nblocks), col(st.padded), slot(st.nblocks * kB1);
    std::vector<int64_t>     offset(st.nblocks + 1);
    std::vector<PetscScalar> data(st.padded);
    PetscCallCUDA(cudaStreamSynchronize(s));
    if (st.nblocks) {
      PetscCall(spmv::Download(width, dev.width));
      PetscCall(spmv::Download(offset, dev.offset));
      /* the real entries give the reference's columns (16-bit offsets: from the slots' rows); padding is PadColumn */
      PetscCall(spmv::Download(slot, dev.slot_row));
      if (dev.col16) {
        std::vector<short> c16(st.padded);
        PetscCall(spmv::Download(c16, dev.col16));
        for (int64_t k = 0; k < st.padded; k++) col[k] = c16[k] == SHRT_MIN ? INT_MIN : c16[k];
      } else PetscCall(spmv::Download(col, dev.col));
      for (int64_t b = 0; b < st.nblocks; b++)
        for (int64_t k = offset_host(ref, b); k < offset_host(ref, b + 1); k++) {
          PetscCheck((ref.src[k] < 0) == (col[k] == INT_MIN), PETSC_COMM_SELF, PETSC_ERR_PLIB, "BRC device entry %" PetscInt64_FMT ": %s where the host reference has %s", (PetscInt64)k, ref.src[k] < 0 ? "a column" : "padding", ref.src[k] < 0 ? "padding" : "an entry");
          col[k] = ref.src[k] < 0 ? ref.col[k] : col[k] + (dev.col16 ? RefRow(slot[b * kB1 + (k - offset_host(ref, b)) % kB1]) : 0);
        }
      if (dev.data32) {
        std::vector<SpMVSingleScalar> d32(st.padded);
        PetscCall(spmv::Download(d32, dev.data32));
        std::copy(d32.begin(), d32.end(), data.begin());
      } else PetscCall(spmv::Download(data, dev.data));
    }
    PetscCheck(width == ref.width && offset == ref.offset, PETSC_COMM_SELF, PETSC_ERR_PLIB, "BRC device block widths/offsets differ from the host reference");
    PetscCheck(col == ref.col, PETSC_COMM_SELF, PETSC_ERR_PLIB, "BRC device column indices of the entries differ from the host reference");
    for (std::size_t k = 0; k < slot.size(); k++) {
      const int r = slot[k] >= -1 ? slot[k] : -2 - slot[k];
      PetscCheck(r == ref.row_perm[k] && (slot[k] < -1) == (bool)ref.split[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "BRC device slot %zu: row %d, host row %d", k, r, ref.row_perm[k]);
    }
    *maxdiff = 0;
    for (std::size_t k = 0; k < data.size(); k++) *maxdiff = std::max(*maxdiff, (PetscReal)PetscAbsScalar(data[k] - ref.data[k]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

SpMVFormat *BRCCreate(void) { return new BRC(); }
