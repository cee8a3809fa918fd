/* Speculative segmented sum, host reference: the auxiliary arrays, and the device algorithm executed
   lane by lane on the CPU with the same summation order (so the device result equals it bit for bit). */
#include "segsum.h"
#include <algorithm>

PetscErrorCode SegSumCheckOptions(const SegSumOptions &o)
{
  PetscFunctionBegin;
  PetscCheck(o.tile == 64 || o.tile == 128 || o.tile == 256 || o.tile == 512, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_%s_tile %" PetscInt_FMT " must be 64, 128, 256 or 512 (32 lanes times 2, 4, 8 or 16 nonzeros)", o.name, o.tile);
  PetscCheck(o.S >= 1 && o.S <= 31, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_%s_tiles_per_warp %" PetscInt_FMT " must be in [1, 31]", o.name, o.S);
  PetscCheck(o.warps >= (o.c16 ? 0 : 1) && o.warps <= 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_%s_warps_per_block %" PetscInt_FMT " must be in [%d, 8]%s", o.name, o.warps, o.c16 ? 0 : 1, o.c16 ? " (0: from the x footprint)" : "");
  PetscCheck(o.rowlanes == -1 || o.rowlanes == 0 || o.rowlanes == 8 || o.rowlanes == 16 || o.rowlanes == 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_%s_row_lanes %" PetscInt_FMT " must be -1 (from the rows), 0 (the tile kernel), 8, 16 or 32", o.name, o.rowlanes);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* segsum.h, "dcsr's row kernel": long, even rows take the row kernel, L lanes a row */
int SegSumRowLanes(const SegSumOptions &o, int64_t m, int64_t nnz, int64_t maxrow)
{
  if (!o.c16 || o.rowlanes == 0 || m == 0 || nnz == 0) return 0;
  if (o.rowlanes > 0) return (int)o.rowlanes;
  const double mean = (double)nnz / (double)m;
  if (mean < kSegSumRowMin || (double)maxrow > kSegSumRowSkew * mean) return 0;
  return 32;
}

/* rightmost r in [0, m] with rp[r] <= b (the paper insists on the rightmost match: it skips empty rows) */
static int RightmostLE(const PetscInt *rp, PetscInt m, int64_t b)
{
  return (int)(std::upper_bound(rp, rp + m + 1, (PetscInt)b) - rp) - 1;
}

PetscErrorCode SegSumBuildHostLayout(const SegSumOptions &o, const SpMVHostCsr &A, SegSumHostLayout *L, SegSumStats *st)
{
  const PetscInt m = A.m;

  PetscFunctionBegin;
  PetscCall(SegSumCheckOptions(o));
  PetscCheck(A.nnz < PETSC_INT32_MAX && m < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s uses 32-bit row and nonzero indices", o.name);
  *st          = SegSumStats();
  *L           = SegSumHostLayout();
  st->m        = m;
  st->n        = A.n;
  st->nnz      = m ? A.i[m] : 0;
  st->T        = o.tile / kSegSumW;
  st->S        = o.S;
  st->warps    = o.warps;
  const int WT = (int)o.tile;
  st->ntiles   = (st->nnz + WT - 1) / WT;
  st->nwarps   = (st->ntiles + o.S - 1) / o.S;
  for (PetscInt r = 0; r < m; r++)
    if (A.i[r + 1] == A.i[r]) L->erow.push_back((int)r);
  st->nempty = (int64_t)L->erow.size();
  L->bound.resize(st->ntiles + 1);
  for (int64_t t = 0; t <= st->ntiles; t++) L->bound[t] = RightmostLE(A.i, m, std::min<int64_t>(t * WT, st->nnz));
  /* synchronizer slots: warps whose first row started in an earlier warp; runs: slots of one row */
  L->wslot.assign(st->nwarps, -1);
  int prevrow = -1;
  for (int64_t g = 0; g < st->nwarps; g++) {
    const int r = L->bound[g * o.S];
    if (A.i[r] >= g * o.S * (int64_t)WT) {
      prevrow = -1;
      continue;
    }
    L->wslot[g] = (int)st->nslots++;
    if (r != prevrow) {
      L->run_off.push_back(L->wslot[g]);
      L->run_row.push_back(r);
    }
    prevrow = r;
  }
  st->nruns = (int64_t)L->run_row.size();
  L->run_off.push_back((int)st->nslots);
  for (int64_t k = 0; k < st->nruns; k++) st->nlongruns += L->run_off[k + 1] - L->run_off[k] > kSegSumShortRun;
  for (int64_t t = 0; t < st->ntiles; t++) {
    const int lo = L->bound[t], hi = L->bound[t + 1];
    st->nfast += lo == hi;
    st->nlong += hi - lo > WT;
    /* an empty row strictly inside (lo, hi): rows lo and hi < m are never empty */
    const auto e = std::upper_bound(L->erow.begin(), L->erow.end(), lo);
    st->ndirty += e != L->erow.end() && *e < hi;
  }
  L->sval.resize(st->nslots);
  /* dcsr: each tile's smallest column and the offsets from it, where the tile spans at most 2^16 columns */
  st->c16 = o.c16;
  if (o.c16) {
    L->cbase.assign(st->ntiles, -1);
    L->c16.assign(st->ntiles * WT, 0);
    for (int64_t t = 0; t < st->ntiles; t++) {
      const int64_t e0 = t * WT, e1 = std::min<int64_t>(e0 + WT, st->nnz);
      int64_t       lo = A.j[e0], hi = lo;
      for (int64_t e = e0; e < e1; e++) lo = std::min<int64_t>(lo, A.j[e]), hi = std::max<int64_t>(hi, A.j[e]);
      if (hi - lo > kSegSumSpan16) {
        st->nwide++;
        st->nwidennz += e1 - e0;
        continue;
      }
      L->cbase[t] = (int)lo;
      for (int64_t e = e0; e < e1; e++) L->c16[e] = (unsigned short)(A.j[e] - lo);
    }
    for (PetscInt r = 0; r < m; r++) st->maxrow = std::max<int64_t>(st->maxrow, A.i[r + 1] - A.i[r]);
    st->rowlanes = SegSumRowLanes(o, m, st->nnz, st->maxrow);
    st->masks    = SegSumUsesMasks(o, *st);
    st->worder   = SegSumWarpOrder(o, *st);
    if (SegSumSamplesFootprint(o, *st)) { /* segsum.h, SegSumWarps */
      std::vector<int> g;
      for (int k = 0; k < kDCSRFootSamples; k++) {
        const int64_t s = SegSumFootStart(st->nnz, k), e = std::min<int64_t>(st->nnz, s + kDCSRFootWindow);
        g.clear();
        for (int64_t q = s; q < e; q++) g.push_back((int)(A.j[q] >> 2));
        std::sort(g.begin(), g.end());
        st->xgroups += std::unique(g.begin(), g.end()) - g.begin();
        st->xsampled += e - s;
      }
    }
    st->warps = SegSumWarps(o, *st);
    if (st->masks) {
      L->heads.assign(4 * st->ntiles, 0u);
      for (PetscInt r = 0; r < m; r++) {
        const int64_t a = A.i[r];
        if (A.i[r + 1] > a) L->heads[(a / WT) * 4 + (a % WT) / 32] |= 1u << (a % 32);
      }
    }
  }
  st->auxbytes = SegSumAuxBytes(*st);
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {
/* one warp of the speculative kernel, lane by lane (see segsum.cu, SpMVKernel) */
struct Warp {
  const SegSumStats      &st;
  const SegSumHostLayout &L;
  const SpMVHostCsr      &A;
  const PetscScalar      *x;
  PetscScalar            *y;
  bool                    add;
  std::vector<PetscScalar> p, acc, lead, c, c2, tot;
  std::vector<int>        rowOf, cur;
  std::vector<char>       head;

  Warp(const SegSumStats &s, const SegSumHostLayout &l, const SpMVHostCsr &a, const PetscScalar *xx, PetscScalar *yy, bool ad) :
    st(s), L(l), A(a), x(xx), y(yy), add(ad), p(kSegSumW * s.T), acc(kSegSumW), lead(kSegSumW), c(kSegSumW), c2(kSegSumW), tot(kSegSumW), rowOf(kSegSumW * s.T), cur(kSegSumW), head(kSegSumW * s.T)
  {
  }

  /* the column of nonzero e in tile t: dcsr's narrow tiles from their 16-bit offsets, else the CSR's */
  int64_t Col(int64_t t, int64_t e) const { return st.c16 && L.cbase[t] >= 0 ? (int64_t)L.cbase[t] + L.c16[e] : (int64_t)A.j[e]; }

  void Run(int64_t g)
  {
    const int     T = (int)st.T, WT = kSegSumW * T, m = (int)st.m;
    const int64_t t0 = g * st.S, nnz = st.nnz;
    const int     ntw = (int)std::min<int64_t>(st.S, st.ntiles - t0);
    const int     slot = L.wslot[g], syncrow = slot >= 0 ? L.bound[t0] : -1;
    PetscScalar   carry = 0.0;
    bool          pending = false;
    int           r_hi = L.bound[t0];
    auto          put = [&](int row, PetscScalar v) {
      if (row == syncrow) L.sval[slot] = v;
      else y[row] = add ? y[row] + v : v;
    };
    for (int i = 0; i < ntw; i++) {
      const int64_t tb   = (t0 + i) * WT;
      const int     r_lo = r_hi;
      r_hi               = L.bound[t0 + i + 1];
      for (int e = 0; e < WT; e++) p[e] = tb + e < nnz ? A.a[tb + e] * x[Col(t0 + i, tb + e)] : 0.0;
      if (r_lo == r_hi) { /* fast track: the tile lies inside one row */
        const bool w = st.worder && tb + WT <= nnz; /* dcsr: lane l holds entries l + 32 k (SegSumWarpOrder) */
        for (int l = 0; l < kSegSumW; l++) {
          PetscScalar s = p[w ? l : l * T];
          for (int k = 1; k < T; k++) s = s + p[w ? l + kSegSumW * k : l * T + k];
          c[l] = s;
        }
        for (int o = 16; o > 0; o >>= 1) {
          for (int l = 0; l < kSegSumW; l++) c2[l] = c[l] + c[l ^ o];
          std::swap(c, c2);
        }
        carry   = carry + c[0];
        pending = true;
        continue;
      }
      /* descriptor: a head at the start of every non-empty row inside the tile, and at position 0 */
      std::fill(head.begin(), head.end(), 0);
      head[0]  = 1;
      rowOf[0] = r_lo;
      for (int r = r_lo + 1; r <= std::min(r_hi, m - 1); r++) {
        const int64_t o = A.i[r] - tb;
        if (A.i[r + 1] > A.i[r] && o < WT) {
          head[o]  = 1;
          rowOf[o] = r;
        }
      }
      const bool cont = r_hi < m && A.i[r_hi] < tb + WT; /* the last segment goes on in the next tile */
      if (pending) p[0] = carry + p[0];
      unsigned seen = 0;
      for (int l = 0; l < kSegSumW; l++) { /* each lane's run, sequentially */
        PetscScalar a = 0.0, ld = 0.0;
        int    cu = -1;
        for (int k = 0; k < T; k++) {
          if (head[l * T + k]) {
            if (cu >= 0) put(rowOf[l * T + cu], a);
            else ld = a;
            a  = 0.0;
            cu = k;
          }
          a = a + p[l * T + k];
        }
        if (cu < 0) ld = a;
        else seen |= 1u << l;
        acc[l]  = a;
        lead[l] = ld;
        cur[l]  = cu;
      }
      /* segments spanning lanes: reverse segmented scan of the leading pieces */
      c = lead;
      for (int d = 1; d < kSegSumW; d <<= 1) {
        for (int l = 0; l < kSegSumW; l++) c2[l] = (!((seen >> l) & ((1u << d) - 1u)) && l + d < kSegSumW) ? c[l] + c[l + d] : c[l];
        std::swap(c, c2);
      }
      for (int l = 0; l < kSegSumW; l++) tot[l] = acc[l] + (l == kSegSumW - 1 ? 0.0 : c[l + 1]);
      const int tstar = 31 - __builtin_clz(seen);
      for (int l = 0; l < kSegSumW; l++)
        if ((seen >> l & 1u) && !(cont && l == tstar)) put(rowOf[l * T + cur[l]], tot[l]);
      carry   = cont ? tot[tstar] : 0.0;
      pending = cont;
    }
    if (pending) put(r_hi, carry);
  }
};
} // namespace

/* dcsr's row kernel (segsum.cu, RowKernel16), lane by lane: lane l of a row's L sums its entries l, l+L, ... in
   order, then the xor butterfly; the columns are the CSR's (the offsets decode to them, Verify checks the offsets) */
static void RowsMultHost(const SegSumStats &st, const SpMVHostCsr &A, const PetscScalar *x, PetscScalar *y, bool add)
{
  const int   L = st.rowlanes;
  PetscScalar p[kSegSumW], t[kSegSumW];

  for (PetscInt r = 0; r < st.m; r++) {
    std::fill(p, p + L, PetscScalar(0.0));
    for (PetscInt e = A.i[r]; e < A.i[r + 1]; e++) {
      const PetscInt l = (e - A.i[r]) % L;
      p[l]             = p[l] + A.a[e] * x[A.j[e]];
    }
    for (int o = L / 2; o > 0; o >>= 1) {
      for (int l = 0; l < L; l++) t[l] = p[l] + p[l ^ o];
      std::copy(t, t + L, p);
    }
    y[r] = add ? y[r] + p[0] : p[0];
  }
}

void SegSumMultHost(const SegSumStats &st, const SegSumHostLayout &L, const SpMVHostCsr &A, const PetscScalar *x, PetscScalar *y, bool add)
{
  if (st.nnz == 0) {
    if (!add) std::fill(y, y + st.m, 0.0);
    return;
  }
  if (st.rowlanes) {
    RowsMultHost(st, A, x, y, add);
    return;
  }
  Warp w(st, L, A, x, y, add);
  for (int64_t g = 0; g < st.nwarps; g++) w.Run(g);
  /* the fix-up: each row's synchronizer slots in a fixed order, then the empty rows */
  for (int64_t k = 0; k < st.nruns; k++) {
    const int s = L.run_off[k], len = L.run_off[k + 1] - s, row = L.run_row[k];
    PetscScalar v;
    if (len <= kSegSumShortRun) {
      v = L.sval[s];
      for (int q = 1; q < len; q++) v = v + L.sval[s + q];
    } else {
      PetscScalar lane[kSegSumW], t[kSegSumW];
      for (int l = 0; l < kSegSumW; l++) {
        lane[l] = L.sval[s + l];
        for (int q = l + kSegSumW; q < len; q += kSegSumW) lane[l] = lane[l] + L.sval[s + q];
      }
      for (int o = 16; o > 0; o >>= 1) {
        for (int l = 0; l < kSegSumW; l++) t[l] = lane[l] + lane[l ^ o];
        std::copy(t, t + kSegSumW, lane);
      }
      v = lane[0];
    }
    y[row] = y[row] + v;
  }
  if (!add)
    for (int r : L.erow) y[r] = 0.0;
}
