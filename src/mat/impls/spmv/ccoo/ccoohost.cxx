/* CCOO host reference: the layout built exactly as the device builds it, the values refresh, an executor
   that runs the kernel's algorithm step by step (warp segmented scan, warp heads, plain stores and
   "atomics" for crossing rows), and the layout checker shared by the tests and Verify. See ccoo.h. */
#include "ccoo.h"
#include <algorithm>
#include <numeric>
#include <climits>

/*
  CCOOChooseK - the explicit K, or the K in {1,2,4,8,16} of smallest
      cost(K) = w(K) slots(K) + (K slots(K) - nnz) * ebytes      (ties: the larger K)
  with w = 20 for K <= 8 and w = 28 for K = 16 (its kernel needs 64 registers instead of 32: half the
  occupancy; the second sweep, sweep-20261123-051454.csv, had K = 8 faster than K = 16 on cage11, 111 vs
  117 us, and K = 16 faster on nasa4704, 118 vs 122 us, and the 27-point constant stencil, 114 vs 134 us:
  w(16)/w(8) must lie in (1.34, 1.49) for the rule to pick both right).
  the fit of the H200 sweep bench/results/sweep-20261123-041035.csv: time ~= a slots + p padding + const,
  a ~ 8.5 us per million slots (one thread each: the kernel is latency-bound per slot), and a padded stored
  entry costs about its bytes / 20 of a slot. ebytes = colbytes + vbytes: colbytes = 2 + 2 wide/nnz (16-bit
  offsets, 32-bit for the nonzeros of rows spanning more than 32767 columns), vbytes = 8 without a table
  (lut_size 0, no nonzeros, or no table: CCOOTableBuilt), else 1 + 7 (1 - lut_cover/nnz). No nonzeros: K = 1. The sums are exact in
  integers (cost * nnz in 128 bits), so equal costs tie exactly. The host and the device build both call
  this with the same statistics.
  Complex scalars: a value is vs = sizeof(PetscScalar) = 16 bytes, so vbytes = 16 without a table, else
  1 + 15 (1 - lut_cover/nnz): a padded entry costs more bytes (the value's), the slot weight w stays (it is the
  kernel's latency per slot, which the byte count does not change). ebytes nnz = (2 + vs) nnz + 2 wide -
  (vs - 1) lut_cover: with vs = 8 exactly the real rule's 10 nnz + 2 wide - 7 lut_cover.
*/
PetscErrorCode CCOOChooseK(const CCOOOptions &o, const CCOOStats &st, PetscInt *K)
{
  PetscFunctionBegin;
  if (o.k > 0) {
    *K = o.k;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *K = 1;
  if (st.nnz <= 0 || st.m <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  using i128        = __int128;
  const i128 nnz    = st.nnz;
  const i128 vs     = (i128)sizeof(PetscScalar);                                                     /* bytes of a plain value */
  const i128 enbyte = (2 + vs) * nnz + 2 * (i128)st.wide - (st.L > 0 ? (vs - 1) * (i128)st.lut_cover : 0); /* ebytes * nnz */
  i128       best   = 0;
  for (int e = CCOO_NK - 1; e >= 0; e--) { /* larger K first: a tie keeps it */
    const i128 s    = st.slots_k[e];
    const i128 w    = e == 4 ? 28 : 20; /* K = 16: half the occupancy */
    const i128 cost = w * s * nnz + (s * ((i128)1 << e) - nnz) * enbyte;
    if (e == CCOO_NK - 1 || cost < best) {
      best = cost;
      *K   = (PetscInt)1 << e;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CCOOSampleCandidates - see ccoo.h: the sample's distinct patterns with their counts, ranked by (count desc,
   bits asc); the cover is the sum of the first L counts, the candidates the first CCOO_CANDIDATES patterns */
int64_t CCOOSampleCandidates(std::vector<CCOOKey> sample, int64_t L, std::vector<CCOOKey> *cand)
{
  std::vector<std::pair<CCOOKey, int64_t>> runs; /* (bits, count), bits ascending */
  int64_t                                   cover = 0;
  std::sort(sample.begin(), sample.end());
  for (std::size_t k = 0; k < sample.size();) {
    std::size_t e = k;
    while (e < sample.size() && sample[e] == sample[k]) e++;
    runs.push_back({sample[k], (int64_t)(e - k)});
    k = e;
  }
  std::stable_sort(runs.begin(), runs.end(), [](const auto &a, const auto &b) { return a.second > b.second; }); /* ties keep bits ascending */
  for (std::size_t k = 0; k < runs.size() && (int64_t)k < L; k++) cover += runs[k].second;
  cand->clear();
  for (std::size_t k = 0; k < runs.size() && (int64_t)k < CCOO_CANDIDATES; k++) cand->push_back(runs[k].first);
  std::sort(cand->begin(), cand->end());
  return cover;
}

/* CCOOPickTable - see ccoo.h */
void CCOOPickTable(std::vector<CCOORun> runs, int64_t lut_size, std::vector<CCOOKey> *lut, std::vector<int> *rep, int64_t *cover)
{
  const auto rank = [](const CCOORun &a, const CCOORun &b) { return a.count != b.count ? a.count > b.count : a.bits < b.bits; }; /* a total order: the patterns are distinct */
  const std::size_t L = (std::size_t)std::min<int64_t>(lut_size, (int64_t)runs.size());
  std::partial_sort(runs.begin(), runs.begin() + L, runs.end(), rank);
  runs.resize(L);
  std::sort(runs.begin(), runs.end(), [](const CCOORun &a, const CCOORun &b) { return a.bits < b.bits; });
  lut->clear();
  rep->clear();
  *cover = 0;
  for (const CCOORun &r : runs) {
    lut->push_back(r.bits);
    rep->push_back(r.first);
    *cover += r.count;
  }
}

namespace {
/* The slot s: its row, the CSR position of its first entry, its real entries; tail slots (s >= S) carry
   the last row, position nnz and no entries. gstart has m+1 entries, gstart[m] = S. */
void SlotInfo(const std::vector<int64_t> &gstart, const SpMVHostCsr &A, PetscInt K, int64_t S, int64_t s, PetscInt *r, int64_t *g, int *p, int *cnt)
{
  if (s >= S) {
    *r   = A.m - 1;
    *g   = -1;
    *p   = (int)A.nnz;
    *cnt = 0;
    return;
  }
  PetscInt lo = 0, hi = A.m; /* gstart[lo] <= s < gstart[hi] */
  while (hi - lo > 1) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (gstart[mid] <= s) lo = mid;
    else hi = mid;
  }
  const int64_t len = A.i[lo + 1] - A.i[lo];
  *r                = lo;
  *g                = s - gstart[lo];
  *p                = (int)(A.i[lo] + *g * K);
  *cnt              = (int)std::max<int64_t>(0, std::min<int64_t>(K, len - *g * K));
}

int LutFind(const std::vector<CCOOKey> &lut, const CCOOKey &b)
{
  auto it = std::lower_bound(lut.begin(), lut.end(), b);
  return it != lut.end() && *it == b ? (int)(it - lut.begin()) : -1;
}

template <typename T>
void Put(uint8_t *p, int64_t q, uint32_t v)
{
  const T t = (T)v;
  std::memcpy(p + q * (int64_t)sizeof(T), &t, sizeof(T));
}
uint32_t Get(const uint8_t *p, int64_t q, int code)
{
  if (code == 0) return p[q];
  if (code == 1) {
    uint16_t t;
    std::memcpy(&t, p + 2 * q, 2);
    return t;
  }
  uint32_t t;
  std::memcpy(&t, p + 4 * q, 4);
  return t;
}
} // namespace

void CCOOCountChunks(const CCOOLayout &L, CCOOStats *st)
{
  st->nsingle = st->nidx = st->nlut = st->ncross = 0;
  st->ncol[0] = st->ncol[1] = st->ncol[2] = 0;
  for (int64_t c = 0; c < L.nchunks; c++) {
    const unsigned f = L.fmt[c];
    st->nsingle += (f & CCOO_SINGLE) != 0;
    st->ncol[(f >> 1) & 3]++;
    st->nidx += (f & CCOO_HAS_IDX) != 0;
    st->nlut += (f & CCOO_LUT_MODE) != 0;
    st->ncross += (f & CCOO_CONT_PREV) != 0;
  }
}

int64_t CCOOMatrixBytes(const CCOOStats &st)
{
  const int64_t C = (int64_t)st.B * st.K, vs = (int64_t)sizeof(PetscScalar); /* a plain value, a table entry: 8 bytes, 16 complex */
  return (int64_t)st.B * (st.nchunks - st.nsingle) + C * (st.ncol[0] + 2 * st.ncol[1] + 4 * st.ncol[2]) + C * st.nlut + vs * C * (st.nchunks - st.nlut) + 17 * st.nchunks + vs * (int64_t)st.L;
}

/*
  CCOOBuildHostLayout - the device build's steps in order: row statistics (slots for every K, wide rows),
  value table (the sample's candidates, their exact counts and first positions by a binary search of
  every nonzero, the misses counted; up to nnz / 16 misses the missed values counted too; the top L by
  count, sorted by bits), K (it needs the table's coverage; the table does not depend on K), slot starts (scan),
  per-chunk analysis (rows, flags, column range and width, table membership, sizes), chunk pointers
  (scan), fill.  B may be any value in [1, 256] here (the tests use small ones); the plugin uses
  multiples of 32.
*/
PetscErrorCode CCOOBuildHostLayout(const CCOOOptions &o, const SpMVHostCsr &A, CCOOLayout *Lp, CCOOStats *st)
{
  CCOOLayout   &L = *Lp;
  const PetscInt m = A.m, B = o.threads;

  PetscFunctionBegin;
  PetscCheck(B >= 1 && B <= 256, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CCOO threads per chunk %" PetscInt_FMT " must be in [1, 256]", B);
  PetscCheck(o.k == 0 || CCOOValidK(o.k), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CCOO K = %" PetscInt_FMT " must be 0 (automatic), 1, 2, 4, 8 or 16", o.k);
  PetscCheck(o.lut_size >= 0 && o.lut_size <= 256, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CCOO table size %" PetscInt_FMT " must be in [0, 256]", o.lut_size);
  L   = CCOOLayout();
  *st = CCOOStats();
  st->m   = m;
  st->n   = A.n;
  st->nnz = A.nnz;
  st->B   = B;
  /* 1. row statistics */
  for (PetscInt r = 0; r < m; r++) {
    const int64_t len = A.i[r + 1] - A.i[r];
    st->nonempty += len > 0;
    st->maxlen = std::max<PetscInt>(st->maxlen, (PetscInt)len);
    for (int e = 0; e < CCOO_NK; e++) st->slots_k[e] += CCOOSlots(len, 1 << e);
    if (len > 0 && (int64_t)A.j[A.i[r + 1] - 1] - A.j[A.i[r]] > CCOO_WIDE_SPAN) st->wide += len;
  }
  /* 2. value table, if the sampled values repeat: the sample's candidates counted exactly over every nonzero */
  if (o.lut_size > 0 && A.nnz > 0) {
    std::vector<CCOOKey> sample, cand;
    st->nsample = std::min<int64_t>(CCOO_SAMPLE, A.nnz);
    for (int64_t k = 0; k < st->nsample; k++) sample.push_back(CCOOBits(A.a[CCOOSamplePos(k, A.nnz, st->nsample)]));
    st->nscover = CCOOSampleCandidates(std::move(sample), o.lut_size, &cand);
    if (CCOOTableBuilt(*st)) {
      /* the candidates' exact counts and first positions; the misses (values that are no candidate) counted,
         and the first CCOOMissCap(nnz) of them kept with their positions: all of them when they are counted */
      const int64_t                         cap = CCOOMissCap(A.nnz);
      std::vector<int64_t>                  count(cand.size(), 0);
      std::vector<int>                      first(cand.size(), INT_MAX);
      std::vector<std::pair<CCOOKey, int>>  miss; /* (bits, position) */
      for (int64_t e = 0; e < A.nnz; e++) {
        const CCOOKey  b = CCOOBits(A.a[e]);
        const int      i = LutFind(cand, b);
        if (i >= 0) {
          if (!count[i]++) first[i] = (int)e;
        } else if (st->nmiss++ < cap) miss.push_back({b, (int)e});
      }
      std::vector<CCOORun> runs;
      for (std::size_t i = 0; i < cand.size(); i++) runs.push_back({cand[i], count[i], first[i]});
      st->ndistinct = (int64_t)cand.size();
      if (st->nmiss && CCOOMissesCounted(st->nmiss, A.nnz)) { /* every miss was kept: the missed values, counted exactly */
        std::sort(miss.begin(), miss.end());            /* by bits, then position: a run starts at its first position */
        for (std::size_t k = 0; k < miss.size(); k++) {
          if (k == 0 || miss[k].first != miss[k - 1].first) {
            runs.push_back({miss[k].first, 0, miss[k].second});
            st->ndistinct++;
          }
          runs.back().count++;
        }
      }
      CCOOPickTable(std::move(runs), o.lut_size, &L.lut, &L.rep, &st->lut_cover);
      st->L = (PetscInt)L.lut.size();
    }
  }
  /* 3. K, slot starts */
  PetscCall(CCOOChooseK(o, *st, &st->K));
  const PetscInt K = st->K;
  const int64_t  C = (int64_t)B * K;
  st->S            = m ? st->slots_k[CCOOKIndex(K)] : 0;
  st->nchunks      = (st->S + B - 1) / B;
  st->padded       = st->nchunks * C;
  L.B = B;
  L.K = K;
  L.m = m;
  L.n = A.n;
  L.nnz = A.nnz;
  L.S = st->S;
  L.nchunks = st->nchunks;
  std::vector<int64_t> gstart(m + 1, 0);
  for (PetscInt r = 0; r < m; r++) gstart[r + 1] = gstart[r] + CCOOSlots(A.i[r + 1] - A.i[r], (int)K);
  /* 4. per chunk: slots, flags, column range and width, table membership, size */
  L.fmt.assign(st->nchunks, 0);
  L.row_base.assign(st->nchunks, 0);
  L.col_base.assign(st->nchunks, 0);
  L.chunk_ptr.assign(st->nchunks + 1, 0);
  L.slot_src.assign(st->nchunks * B, 0);
  L.slot_cnt.assign(st->nchunks * B, 0);
  std::vector<PetscInt> slot_row(st->nchunks * B);
  for (int64_t c = 0; c < st->nchunks; c++) {
    int      mn = INT_MAX, mx = -1;
    bool     inlut = st->L > 0;
    PetscInt r0 = 0, rlast = 0;
    bool     prev = false, next = false;
    for (PetscInt t = 0; t < B; t++) {
      const int64_t s = c * B + t;
      PetscInt      r;
      int64_t       g;
      int           p, cnt;
      SlotInfo(gstart, A, K, st->S, s, &r, &g, &p, &cnt);
      slot_row[s]   = r;
      L.slot_src[s] = p;
      L.slot_cnt[s] = (uint8_t)cnt;
      if (t == 0) {
        r0   = r;
        prev = s < st->S && g > 0;
      }
      if (t == B - 1) {
        rlast = r;
        next  = s < st->S && s + 1 < st->S && gstart[r + 1] > s + 1;
      }
      for (int k = 0; k < cnt; k++) {
        const int col = (int)A.j[p + k];
        mn            = std::min(mn, col);
        mx            = std::max(mx, col);
        if (inlut) inlut = LutFind(L.lut, CCOOBits(A.a[p + k])) >= 0;
      }
    }
    const bool    single = o.single_row && rlast == r0;
    const int64_t maxoff = mx >= 0 ? (int64_t)mx - mn : 0;
    unsigned      f      = (single ? CCOO_SINGLE : 0u) | ((unsigned)CCOOWidthCode(maxoff, (int)o.col_bits) << CCOO_COL_SHIFT) | (inlut ? CCOO_HAS_IDX | CCOO_LUT_MODE : 0u) | (prev ? CCOO_CONT_PREV : 0u) | (next ? CCOO_CONT_NEXT : 0u);
    L.fmt[c]          = (uint8_t)f;
    L.row_base[c]     = (int)r0;
    L.col_base[c]     = mx >= 0 ? mn : 0;
    L.chunk_ptr[c + 1] = CCOOChunkBytes(f, (int)B, (int)K); /* sizes, scanned below */
  }
  /* 5. chunk pointers */
  for (int64_t c = 0; c < st->nchunks; c++) L.chunk_ptr[c + 1] += L.chunk_ptr[c];
  st->blob_bytes = L.chunk_ptr[st->nchunks];
  /* 6. fill */
  L.blob.assign(st->blob_bytes, 0);
  L.vals.assign(st->padded, 0.0);
  for (int64_t c = 0; c < st->nchunks; c++) {
    const unsigned f    = L.fmt[c];
    const int      code = (f >> 1) & 3;
    uint8_t       *p    = L.blob.data() + L.chunk_ptr[c];
    if (!(f & CCOO_SINGLE)) {
      for (PetscInt t = 0; t < B; t++) p[t] = (uint8_t)(slot_row[c * B + t] - L.row_base[c]);
      p += B;
    }
    uint8_t *idx = p + (C << code);
    for (PetscInt t = 0; t < B; t++) {
      const int64_t s = c * B + t;
      for (PetscInt k = 0; k < K; k++) {
        const int64_t  q    = (int64_t)k * B + t;
        const bool     real = k < L.slot_cnt[s];
        const int64_t  e    = L.slot_src[s] + k;
        const uint32_t off  = real ? (uint32_t)(A.j[e] - L.col_base[c]) : CCOOSentinel(code);
        if (code == 0) Put<uint8_t>(p, q, off);
        else if (code == 1) Put<uint16_t>(p, q, off);
        else Put<uint32_t>(p, q, off);
        if (f & CCOO_HAS_IDX) idx[q] = real ? (uint8_t)LutFind(L.lut, CCOOBits(A.a[e])) : 0;
        L.vals[c * C + q] = real ? A.a[e] : 0.0;
      }
    }
  }
  CCOOCountChunks(L, st);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  CCOORefreshHostLayout - same pattern, new values: lut[i] = a[rep[i]]; a chunk with indices keeps table
  values iff every new value equals its table entry bit for bit, else it takes plain values; plain
  chunks get their new values. Nothing else changes.
*/
PetscErrorCode CCOORefreshHostLayout(const SpMVHostCsr &A, CCOOLayout *Lp, CCOOStats *st)
{
  CCOOLayout   &L = *Lp;
  const PetscInt B = L.B, K = L.K;
  const int64_t  C = (int64_t)B * K;

  PetscFunctionBegin;
  for (std::size_t i = 0; i < L.lut.size(); i++) L.lut[i] = CCOOBits(A.a[L.rep[i]]);
  for (int64_t c = 0; c < L.nchunks; c++) {
    unsigned f   = L.fmt[c];
    bool     use = false;
    if (f & CCOO_HAS_IDX) {
      const uint8_t *idx = L.blob.data() + L.chunk_ptr[c] + ((f & CCOO_SINGLE) ? 0 : B) + (C << ((f >> 1) & 3));
      use                = true;
      for (PetscInt t = 0; t < B && use; t++)
        for (PetscInt k = 0; k < L.slot_cnt[c * B + t] && use; k++) use = CCOOBits(A.a[L.slot_src[c * B + t] + k]) == L.lut[idx[k * B + t]];
    }
    if (!use)
      for (PetscInt t = 0; t < B; t++)
        for (PetscInt k = 0; k < K; k++) L.vals[c * C + k * B + t] = k < L.slot_cnt[c * B + t] ? A.a[L.slot_src[c * B + t] + k] : 0.0;
    L.fmt[c] = (uint8_t)((f & ~CCOO_LUT_MODE) | (use ? CCOO_LUT_MODE : 0u));
  }
  CCOOCountChunks(L, st);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  CCOOMultHost - the plugin's host product: the layout read slot by slot in storage order, which is the
  CSR order, each row summed sequentially from 0 (y = A x) or from y[r] (y += A x) across chunk
  boundaries: bit for bit SeqAIJ's MatMult / MatMultAdd without inodes, so that CPU runs of PETSc
  solvers (BiCGSTAB included) follow AIJ exactly (complex scalars: acc += a x with std::complex, as SeqAIJ's
  complex sum). The kernel sums in another order (CCOOEmulateKernel).
*/
void CCOOMultHost(const CCOOLayout &L, const PetscScalar *x, PetscScalar *y, bool add)
{
  const PetscInt B = L.B, K = L.K;
  const int64_t  C = (int64_t)B * K;
  PetscInt       row = -1;
  PetscScalar    acc = 0;

  for (int64_t c = 0; c < L.nchunks; c++) {
    const unsigned f    = L.fmt[c];
    const int      code = (f >> 1) & 3, rb = L.row_base[c], cb = L.col_base[c];
    const bool     single = f & CCOO_SINGLE, lutmode = f & CCOO_LUT_MODE;
    const uint8_t *p      = L.blob.data() + L.chunk_ptr[c];
    const uint8_t *colp   = p + (single ? 0 : B), *idx = colp + (C << code);
    const uint32_t sent   = CCOOSentinel(code);
    for (PetscInt t = 0; t < B; t++) {
      const PetscInt r = rb + (single ? 0 : p[t]);
      if (r != row) {
        if (row >= 0) y[row] = acc;
        row = r;
        acc = add ? y[r] : 0.0;
      }
      for (PetscInt k = 0; k < K; k++) {
        const int64_t  q   = (int64_t)k * B + t;
        const uint32_t off = Get(colp, q, code);
        if (off == sent) continue;
        acc += (lutmode ? CCOOFromBits(L.lut[idx[q]]) : L.vals[c * C + q]) * x[(int64_t)cb + off];
      }
    }
  }
  if (row >= 0) y[row] = acc;
}

/*
  CCOOEmulateKernel - y = A x (add = false: y need not be initialised) or y += A x, by the kernel's
  algorithm: zero the crossing rows (y = A x), then per chunk (in a scrambled order): each thread sums
  its K entries with fused multiply-adds as the kernel (SpMVFma: for complex values two fmas a part in the
  kernel's order; sentinels skipped, starting from -0.0, both parts, when adding so that y + (-0.0) = y),
  single-row chunks sum the warps and store once,
  other chunks run the warp segmented suffix scan (lane + l < warp width), and each row's true head adds
  the first-segment sums of the following warps and stores: "atomically" (+=) for crossing rows, plainly
  otherwise.
*/
void CCOOEmulateKernel(const CCOOLayout &L, const PetscScalar *x, PetscScalar *y, bool add)
{
  const PetscInt B = L.B, K = L.K, nw = (B + 31) / 32;
  const int64_t  C = (int64_t)B * K;
  std::vector<PetscScalar> v(B), tv(B);
  std::vector<int>         ro(B);
  std::vector<PetscScalar> wsum(nw);
  std::vector<int>         wfirst(nw), wlast(nw);

  if (!add)
    for (int64_t c = 0; c < L.nchunks; c++)
      if (L.fmt[c] & CCOO_CONT_PREV) y[L.row_base[c]] = 0.0;
  /* blocks run in any order on the GPU: even chunks forward, then odd chunks backward, so that of two
     neighbouring chunks either may come first and a plain store racing with an atomic shows */
  for (int64_t ord = 0; ord < L.nchunks; ord++) {
    const int64_t  half = (L.nchunks + 1) / 2;
    const int64_t  c    = ord < half ? 2 * ord : 2 * (L.nchunks / 2 - 1 - (ord - half)) + 1;
    const unsigned f    = L.fmt[c];
    const int      code = (f >> 1) & 3, rb = L.row_base[c], cb = L.col_base[c];
    const bool     single = f & CCOO_SINGLE, lutmode = f & CCOO_LUT_MODE;
    const uint8_t *p      = L.blob.data() + L.chunk_ptr[c];
    for (PetscInt t = 0; t < B; t++) ro[t] = single ? 0 : p[t];
    if (!single) p += B;
    const uint8_t *idx = p + (C << code);
    const uint32_t sent = CCOOSentinel(code);
    for (PetscInt t = 0; t < B; t++) {
      PetscScalar acc = add ? -PetscScalar(0.0) : PetscScalar(0.0); /* complex: (-0.0, -0.0) */
      for (PetscInt k = 0; k < K; k++) {
        const int64_t     q   = (int64_t)k * B + t;
        const uint32_t    off = Get(p, q, code);
        const PetscScalar a   = lutmode ? CCOOFromBits(L.lut[idx[q]]) : L.vals[c * C + q];
        if (off != sent) acc = SpMVFma(a, x[(int64_t)cb + off], acc);
      }
      v[t] = acc;
    }
    if (single) {
      PetscScalar s = v[0];
      for (PetscInt t = 1; t < B; t++) s += v[t];
      if (f & (CCOO_CONT_PREV | CCOO_CONT_NEXT)) y[rb] += s;
      else if (add) y[rb] += s;
      else y[rb] = s;
      continue;
    }
    for (PetscInt w = 0; w < nw; w++) { /* warp segmented suffix scan */
      const PetscInt lanes = std::min<PetscInt>(32, B - 32 * w), b0 = 32 * w;
      for (PetscInt l = 1; l < 32; l <<= 1) {
        for (PetscInt lane = 0; lane < lanes; lane++) tv[b0 + lane] = v[b0 + lane];
        for (PetscInt lane = 0; lane < lanes; lane++)
          if (lane + l < lanes && ro[b0 + lane + l] == ro[b0 + lane]) v[b0 + lane] = tv[b0 + lane] + tv[b0 + lane + l];
      }
      wfirst[w] = ro[b0];
      wsum[w]   = v[b0];
      wlast[w]  = ro[b0 + lanes - 1];
    }
    for (PetscInt t = 0; t < B; t++) {
      const PetscInt w = t / 32, lane = t % 32;
      const bool     head = lane == 0 ? !(w > 0 && wlast[w - 1] == ro[t]) : ro[t - 1] != ro[t];
      if (!head) continue;
      PetscScalar s = v[t];
      if (wlast[w] == ro[t])
        for (PetscInt w2 = w + 1; w2 < nw && wfirst[w2] == ro[t]; w2++) {
          s += wsum[w2];
          if (wlast[w2] != ro[t]) break;
        }
      const bool cross = (ro[t] == 0 && (f & CCOO_CONT_PREV)) || (ro[t] == wlast[nw - 1] && (f & CCOO_CONT_NEXT));
      const int  r     = rb + ro[t];
      if (cross || add) y[r] += s;
      else y[r] = s;
    }
  }
}

/* CCOOCheckLayout - see ccoo.h */
PetscErrorCode CCOOCheckLayout(const CCOOOptions &o, const SpMVHostCsr &A, const CCOOLayout &L)
{
  const PetscInt B = L.B, K = L.K, m = A.m;
  const int64_t  C = (int64_t)B * K;

  PetscFunctionBegin;
  PetscCheck(L.m == m && L.n == A.n && L.nnz == A.nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO layout of %" PetscInt_FMT "x%" PetscInt_FMT " (%" PetscInt64_FMT " nonzeros) for a %" PetscInt_FMT "x%" PetscInt_FMT " CSR with %" PetscInt64_FMT, L.m, L.n, (PetscInt64)L.nnz, m, A.n, (PetscInt64)A.nnz);
  PetscCheck(B >= 1 && B <= 256 && CCOOValidK(K), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO B %" PetscInt_FMT " K %" PetscInt_FMT, B, K);
  int64_t S = 0;
  for (PetscInt r = 0; r < m; r++) S += CCOOSlots(A.i[r + 1] - A.i[r], (int)K);
  PetscCheck(L.S == S && L.nchunks == (S + B - 1) / B, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO slots %" PetscInt64_FMT " chunks %" PetscInt64_FMT ", expected %" PetscInt64_FMT " %" PetscInt64_FMT, (PetscInt64)L.S, (PetscInt64)L.nchunks, (PetscInt64)S, (PetscInt64)((S + B - 1) / B));
  const int64_t nc = L.nchunks;
  PetscCheck((int64_t)L.fmt.size() == nc && (int64_t)L.row_base.size() == nc && (int64_t)L.col_base.size() == nc && (int64_t)L.chunk_ptr.size() == nc + 1 && (int64_t)L.vals.size() == nc * C && (int64_t)L.slot_src.size() == nc * B && (int64_t)L.slot_cnt.size() == nc * B && L.lut.size() == L.rep.size() && L.lut.size() <= 256 && (int64_t)L.blob.size() == L.chunk_ptr[nc] && L.chunk_ptr[0] == 0,
             PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO array sizes are inconsistent");
  for (std::size_t i = 0; i < L.lut.size(); i++) {
    PetscCheck(L.rep[i] >= 0 && L.rep[i] < A.nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO table entry %zu: representative %d out of range", i, L.rep[i]);
    PetscCheck(CCOOBits(A.a[L.rep[i]]) == L.lut[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO table entry %zu differs from the value at its representative %d", i, L.rep[i]);
  }
  /* slots: walk the rows in order */
  int64_t  s = 0;
  std::vector<PetscInt> slot_row(nc * B, m - 1);
  for (PetscInt r = 0; r < m; r++) {
    const int64_t len = A.i[r + 1] - A.i[r], ns = CCOOSlots(len, (int)K);
    for (int64_t g = 0; g < ns; g++, s++) {
      slot_row[s] = r;
      PetscCheck(L.slot_src[s] == A.i[r] + g * K && L.slot_cnt[s] == std::max<int64_t>(0, std::min<int64_t>(K, len - g * K)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO slot %" PetscInt64_FMT " (row %" PetscInt_FMT ", group %" PetscInt64_FMT "): src %d cnt %d", (PetscInt64)s, r, (PetscInt64)g, L.slot_src[s], (int)L.slot_cnt[s]);
    }
  }
  for (; s < nc * B; s++) PetscCheck(L.slot_src[s] == A.nnz && L.slot_cnt[s] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO tail slot %" PetscInt64_FMT ": src %d cnt %d", (PetscInt64)s, L.slot_src[s], (int)L.slot_cnt[s]);
  for (int64_t c = 0; c < nc; c++) {
    const unsigned f = L.fmt[c];
    const int      code = (f >> 1) & 3;
    PetscCheck(code <= 2 && f < 128, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT ": bad fmt %u", (PetscInt64)c, f);
    PetscCheck(L.chunk_ptr[c + 1] - L.chunk_ptr[c] == CCOOChunkBytes(f, (int)B, (int)K), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT ": size differs from its encoding", (PetscInt64)c);
    const PetscInt r0 = slot_row[c * B], rl = slot_row[c * B + B - 1];
    const bool     prev = c > 0 && slot_row[c * B - 1] == r0 && c * B < S, next = c + 1 < nc && slot_row[c * B + B] == rl && c * B + B < S;
    PetscCheck(L.row_base[c] == r0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT ": row_base %d, expected %" PetscInt_FMT, (PetscInt64)c, L.row_base[c], r0);
    PetscCheck(((f & CCOO_SINGLE) != 0) == (o.single_row && r0 == rl), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT ": single-row flag %d, rows %" PetscInt_FMT "..%" PetscInt_FMT, (PetscInt64)c, (f & CCOO_SINGLE) != 0, r0, rl);
    PetscCheck(((f & CCOO_CONT_PREV) != 0) == prev && ((f & CCOO_CONT_NEXT) != 0) == next, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT ": crossing flags %u, expected prev %d next %d", (PetscInt64)c, f & (CCOO_CONT_PREV | CCOO_CONT_NEXT), prev, next);
    PetscCheck(!(f & CCOO_LUT_MODE) || (f & CCOO_HAS_IDX), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT ": table values without indices", (PetscInt64)c);
    PetscCheck(!(f & CCOO_HAS_IDX) || !L.lut.empty(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT ": indices without a table", (PetscInt64)c);
    const uint8_t *p = L.blob.data() + L.chunk_ptr[c];
    if (!(f & CCOO_SINGLE)) {
      for (PetscInt t = 0; t < B; t++) PetscCheck(p[t] == slot_row[c * B + t] - r0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT " thread %" PetscInt_FMT ": row offset %d, expected %" PetscInt_FMT, (PetscInt64)c, t, p[t], slot_row[c * B + t] - r0);
      p += B;
    }
    const uint8_t *idx = p + (C << code);
    int            mn = INT_MAX, mx = -1;
    for (PetscInt t = 0; t < B; t++)
      for (PetscInt k = 0; k < K; k++) {
        const int64_t  q = (int64_t)k * B + t, e = L.slot_src[c * B + t] + k;
        const uint32_t off = Get(p, q, code);
        if (k >= L.slot_cnt[c * B + t]) {
          PetscCheck(off == CCOOSentinel(code), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT " entry (%" PetscInt_FMT ",%" PetscInt_FMT "): padding without the sentinel", (PetscInt64)c, t, k);
          continue;
        }
        PetscCheck(off != CCOOSentinel(code) && (int64_t)L.col_base[c] + off == A.j[e], PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT " entry (%" PetscInt_FMT ",%" PetscInt_FMT "): column %lld, CSR %lld", (PetscInt64)c, t, k, (long long)L.col_base[c] + off, (long long)A.j[e]);
        mn = std::min(mn, (int)A.j[e]);
        mx = std::max(mx, (int)A.j[e]);
        if (f & CCOO_LUT_MODE) PetscCheck(idx[q] < L.lut.size() && L.lut[idx[q]] == CCOOBits(A.a[e]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT " entry (%" PetscInt_FMT ",%" PetscInt_FMT "): table value differs from the CSR bit for bit", (PetscInt64)c, t, k);
        else PetscCheck(CCOOBits(L.vals[c * C + q]) == CCOOBits(A.a[e]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT " entry (%" PetscInt_FMT ",%" PetscInt_FMT "): plain value differs from the CSR bit for bit", (PetscInt64)c, t, k);
      }
    PetscCheck(L.col_base[c] == (mx >= 0 ? mn : 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT ": col_base %d, smallest column %d", (PetscInt64)c, L.col_base[c], mn);
    PetscCheck(code == CCOOWidthCode(mx >= 0 ? (int64_t)mx - mn : 0, (int)o.col_bits), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT ": width code %d is not the narrowest allowed", (PetscInt64)c, code);
    if (!(f & CCOO_LUT_MODE) && (f & CCOO_HAS_IDX)) { /* fell back at a refresh: some value must differ from its entry */
      bool differs = false;
      for (PetscInt t = 0; t < B && !differs; t++)
        for (PetscInt k = 0; k < L.slot_cnt[c * B + t] && !differs; k++) differs = idx[k * B + t] >= L.lut.size() || L.lut[idx[k * B + t]] != CCOOBits(A.a[L.slot_src[c * B + t] + k]);
      PetscCheck(differs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CCOO chunk %" PetscInt64_FMT ": plain values although every value matches its table entry", (PetscInt64)c);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
