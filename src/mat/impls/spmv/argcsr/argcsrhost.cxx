/* ARgCSR host reference: the layout built on the CPU by the same rules as the device build (argcsr.h),
   the values refresh, and the executor, which replays the kernel's operations in the kernel's order. */
#include "argcsr.h"
#include <algorithm>
#include <cmath>
#include <queue>

/* The plugin's option ranges: the kernel needs whole warps (BS a multiple of 32) */
PetscErrorCode ARgCSRCheckOptions(const ARgCSROptions &o)
{
  PetscFunctionBegin;
  PetscCheck(o.block_size >= 32 && o.block_size <= 1024 && o.block_size % 32 == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_argcsr_block_size %" PetscInt_FMT " must be a multiple of 32 in [32, 1024]", o.block_size);
  PetscCheck(o.chunk_size == PETSC_DECIDE || (o.chunk_size >= 1 && o.chunk_size <= 65536), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_argcsr_desired_chunk_size %" PetscInt_FMT " must be in [1, 65536] (or PETSC_DECIDE)", o.chunk_size);
  PetscCheck(o.sort_window == PETSC_DECIDE || (o.sort_window >= 1 && o.sort_window <= PETSC_INT32_MAX), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_argcsr_sort_window %" PetscInt_FMT " must be at least 1 row (or PETSC_DECIDE)", o.sort_window);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ARgCSRSetParams - the build parameters. The layout itself accepts any block size in [1, 1024] (the host
  tests use the paper's 12 threads); the plugin's options are checked by ARgCSRCheckOptions first. rows: the
  matrix's row statistics, for the default D and row order (ARgCSRRowRule).
*/
ARgCSRRows ARgCSRHostRows(const SpMVHostCsr &A)
{
  ARgCSRRows r;
  r.m   = A.m;
  r.nnz = A.m ? (int64_t)A.i[A.m] : 0;
  for (PetscInt k = 0; k < A.m; k++) {
    const int64_t L = (int64_t)(A.i[k + 1] - A.i[k]);
    r.maxlen        = std::max(r.maxlen, L);
    r.rowslots += (uint64_t)ARgCSRBatchSlots(L);
    for (int d = 0; d < 3; d++) {
      int64_t w, c, own, own8;
      ARgCSRRowSlots(L, d, &w, &c, &own, &own8);
      r.threads[d] += (uint64_t)w;
      r.chunk[d] = std::max(r.chunk[d], c);
      r.own[d] += (uint64_t)own;
      r.own8[d] += (uint64_t)own8;
    }
  }
  return r;
}

PetscErrorCode ARgCSRSetParams(const ARgCSROptions &o, const ARgCSRRows &rows, ARgCSRParams *p)
{
  PetscFunctionBegin;
  PetscCheck(o.block_size >= 1 && o.block_size <= 1024, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "ARgCSR block size %" PetscInt_FMT " must be in [1, 1024]", o.block_size);
  PetscCheck(o.chunk_size == PETSC_DECIDE || (o.chunk_size >= 1 && o.chunk_size <= 65536), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "ARgCSR desired chunk size %" PetscInt_FMT " must be in [1, 65536]", o.chunk_size);
  PetscCheck(o.sort_window == PETSC_DECIDE || (o.sort_window >= 1 && o.sort_window <= PETSC_INT32_MAX), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "ARgCSR sort window %" PetscInt_FMT " must be at least 1 row", o.sort_window);
  p->autoD    = o.chunk_size == PETSC_DECIDE;
  p->BS       = (int)o.block_size;
  p->sort     = o.sort_rows == PETSC_BOOL3_TRUE || (o.sort_rows == PETSC_BOOL3_UNKNOWN && p->autoD && ARgCSRRowRule(rows));
  p->autoSort = p->sort && o.sort_rows == PETSC_BOOL3_UNKNOWN;
  p->D        = p->autoD ? ARgCSRChunkRule(rows, p->sort) : (int)o.chunk_size;
  p->W        = o.sort_window == PETSC_DECIDE ? 16 * p->BS : (int)o.sort_window;
  p->want16 = o.index16 == PETSC_BOOL3_TRUE || (o.index16 == PETSC_BOOL3_UNKNOWN && p->D >= kARgCSRIndex16MinD);
  p->T     = p->BS * p->D; /* <= 2^26 */
  p->nw    = (p->BS + 31) / 32;
  p->R     = 16 * p->BS;
  p->split = o.split_long == PETSC_TRUE;
  p->paper = o.paper_grouping == PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the layout at parameters p, 32-bit columns */
static PetscErrorCode BuildLayout(const ARgCSRParams &p, const SpMVHostCsr &A, ARgCSRHostLayout *L, ARgCSRStats *st)
{
  const PetscInt m = A.m;

  PetscFunctionBegin;
  *L     = ARgCSRHostLayout();
  L->p   = p;
  *st    = ARgCSRStats();
  st->m  = m;
  st->n  = A.n;
  st->nnz = m ? (int64_t)A.i[m] : 0;
  /* 0. the row order (ROW ORDER): stable, by decreasing length, window by window */
  if (p.sort) {
    L->perm.resize(m);
    for (PetscInt q = 0; q < m; q++) L->perm[q] = (int)q;
    for (PetscInt w0 = 0; w0 < m; w0 += p.W)
      std::stable_sort(L->perm.begin() + w0, L->perm.begin() + std::min<PetscInt>(m, w0 + p.W), [&](int a, int b) { return A.i[a + 1] - A.i[a] > A.i[b + 1] - A.i[b]; });
  }
  st->sorted = p.sort;
  const ARgCSRRowOrder<PetscInt> ro{A.i, p.sort ? L->perm.data() : nullptr};
  const auto                     len = [&](PetscInt q) { return ro.Len(q); };

  /* 1. groups per row: windows of R rows, each from a fresh group */
  std::vector<int64_t> ng(m, 0);
  for (PetscInt w0 = 0; w0 < m; w0 += p.R) {
    ARgCSRGrouper gr;
    for (PetscInt r = w0; r < std::min<PetscInt>(m, w0 + p.R); r++) {
      if (ARgCSRIsLong(p, len(r))) {
        ng[r] = ARgCSRPieces(p, len(r));
        gr.Break();
      } else ng[r] = gr.Step(p, len(r)) ? 1 : 0;
    }
  }
  /* 2. the group table and the long rows, as the device finds them: prefix sums of the groups per row and
        of the long rows, then each group's row by a binary search */
  std::vector<int64_t> gfirst(m + 1, 0);
  for (PetscInt r = 0; r < m; r++) gfirst[r + 1] = gfirst[r] + ng[r];
  const int64_t G = gfirst[m];
  PetscCheck(G < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "ARgCSR: %" PetscInt64_FMT " groups overflow the grid; raise -mat_argcsr_desired_chunk_size", G);
  L->ginfo.assign(4 * G, 0);
  for (int64_t g = 0; g < G; g++) {
    const int64_t r    = ARgCSRRowOfGroup(gfirst.data(), m, g);
    const bool    lng  = ARgCSRIsLong(p, len(r));
    const int64_t next = g + 1 < G ? ARgCSRRowOfGroup(gfirst.data(), m, g + 1) : m;
    L->ginfo[4 * g + 0] = (int)r;
    L->ginfo[4 * g + 1] = lng ? 1 : (int)(next - r);
    L->ginfo[4 * g + 3] = lng ? (int)(g - gfirst[r]) : -1;
  }
  for (PetscInt r = 0; r < m; r++)
    if (ARgCSRIsLong(p, len(r))) {
      L->lrow.push_back((int)ro.Row(r));
      L->lgroup.push_back((int)gfirst[r]);
      L->lcount.push_back((int)ng[r]);
    }

  /* 3. threads per row (greedy), chunk sizes, threadsMapping, heads, offsets */
  L->map.assign(m, 0);
  L->heads.assign(G * p.nw, 0u);
  L->goff.assign(G + 1, 0);
  std::vector<int64_t> lens;
  std::vector<int>     t;
  for (int64_t g = 0; g < G; g++) {
    int      *gi = &L->ginfo[4 * g];
    uint32_t *h  = &L->heads[g * p.nw];
    int64_t   C;
    if (gi[3] >= 0) { /* a piece of a long row: all BS threads, fill-first */
      const int64_t plen = std::min<int64_t>(p.T, len(gi[0]) - (int64_t)gi[3] * p.T);
      C                  = (plen - 1) / p.BS + 1;
      h[0]               = 1u;
      if (gi[3] == 0) L->map[gi[0]] = p.BS;
      st->pieces++;
    } else {
      const int nr = gi[1];
      lens.resize(nr);
      t.assign(nr, 1);
      std::priority_queue<uint64_t> heap;
      for (int i = 0; i < nr; i++) {
        lens[i] = len(gi[0] + i);
        heap.push(ARgCSRKey(lens[i], 1, i));
      }
      for (int f = nr; f < p.BS; f++) { /* one free thread to the row of largest chunk filling */
        const int i = (int)~(uint32_t)(heap.top() & 0xffffffffu);
        heap.pop();
        t[i]++;
        heap.push(ARgCSRKey(lens[i], t[i], i));
      }
      C         = 0;
      int incl = 0;
      for (int i = 0; i < nr; i++) {
        C = std::max<int64_t>(C, (lens[i] + t[i] - 1) / t[i]);
        h[incl >> 5] |= 1u << (incl & 31);
        incl += t[i];
        L->map[gi[0] + i] = incl;
      }
      st->max_rows = std::max<PetscInt>(st->max_rows, nr);
    }
    gi[2]          = (int)C;
    st->max_chunk  = std::max<PetscInt>(st->max_chunk, (PetscInt)C);
    L->goff[g + 1] = L->goff[g] + C * p.BS;
  }

  /* 4. fill: thread t of group g holds its row's entries [j*C, (j+1)*C), column-wise */
  const int64_t S = L->goff[G];
  L->col.assign(S, -1);
  L->val.assign(S, 0.0);
  L->src.assign(S, -1);
  for (int64_t g = 0; g < G; g++) {
    const int *gi = &L->ginfo[4 * g];
    const int  C  = gi[2];
    for (int tt = 0; tt < p.BS && C > 0; tt++) {
      int64_t beg, end;
      if (gi[3] >= 0) {
        const int64_t base = ro.Start(gi[0]) + (int64_t)gi[3] * p.T;
        beg                = base + (int64_t)tt * C;
        end                = std::min<int64_t>(base + p.T, ro.End(gi[0]));
      } else {
        int li, first;
        ARgCSRThreadRow(&L->heads[g * p.nw], tt, &li, &first);
        beg = ro.Start(gi[0] + li) + (int64_t)(tt - first) * C;
        end = ro.End(gi[0] + li);
      }
      for (int k = 0; k < C && beg + k < end; k++) {
        const int64_t pos = L->goff[g] + (int64_t)k * p.BS + tt;
        L->src[pos]       = beg + k;
        L->col[pos]       = (int)A.j[beg + k];
        L->val[pos]       = A.a[beg + k];
      }
    }
  }
  st->groups    = G;
  st->long_rows = (int64_t)L->lrow.size();
  st->stored    = S;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the groups' smallest columns and the widest span (largest - smallest column of a group; 0 without entries) */
static void GroupSpans(const ARgCSRHostLayout &L, std::vector<int> *gbase, int64_t *span)
{
  const int64_t G = (int64_t)L.goff.size() - 1;
  gbase->assign(G, 0);
  *span = 0;
  for (int64_t g = 0; g < G; g++) {
    int lo = -1, hi = -1;
    for (int64_t q = L.goff[g]; q < L.goff[g + 1]; q++)
      if (L.col[q] >= 0) {
        lo = lo < 0 ? L.col[q] : std::min(lo, L.col[q]);
        hi = std::max(hi, L.col[q]);
      }
    if (lo >= 0) {
      (*gbase)[g] = lo;
      *span       = std::max<int64_t>(*span, (int64_t)hi - lo);
    }
  }
}

/* the 16-bit offsets packed by batch (argcsr.h), from col and gbase */
static void Pack16(ARgCSRHostLayout *L)
{
  const int     BS = L->p.BS;
  const int64_t G  = (int64_t)L->gbase.size();
  L->coff.assign(G + 1, 0);
  for (int64_t g = 0; g < G; g++) L->coff[g + 1] = L->coff[g] + ARgCSRPackedWords(BS, L->ginfo[4 * g + 2]);
  L->col16.assign((std::size_t)L->coff[G] * kARgCSRBatch, (uint16_t)kARgCSRPad16);
  for (int64_t g = 0; g < G; g++)
    for (int64_t q = L->goff[g]; q < L->goff[g + 1]; q++)
      if (L->col[q] >= 0) {
        const int64_t e = q - L->goff[g];
        L->col16[ARgCSRPackedHalf(L->coff[g], BS, (int)(e / BS), (int)(e % BS))] = (uint16_t)(L->col[q] - L->gbase[g]);
      }
}

/*
  ARgCSRBuildHostLayout - the host reference layout: the groups at D and in the row order of the options or of
  ARgCSRRowRule, then, where the 16-bit offsets are wanted, the groups' spans: all below 65535 columns, the offsets are
  packed; else a rule-chosen row order is built again in CSR order, and (its spans too wide as well) a rule-chosen D
  above the default is built again at kARgCSRDefaultD with 32-bit columns (the device build does the same).
*/
PetscErrorCode ARgCSRBuildHostLayout(const ARgCSROptions &o, const SpMVHostCsr &A, ARgCSRHostLayout *L, ARgCSRStats *st)
{
  ARgCSRParams     p;
  const ARgCSRRows rows = ARgCSRHostRows(A);

  PetscFunctionBegin;
  PetscCall(ARgCSRSetParams(o, rows, &p));
  while (true) {
    PetscCall(BuildLayout(p, A, L, st));
    if (!p.want16 || !st->groups) PetscFunctionReturn(PETSC_SUCCESS);
    std::vector<int> gbase;
    int64_t          span;
    GroupSpans(*L, &gbase, &span);
    st->span = span;
    if (span < (int64_t)kARgCSRPad16) {
      L->gbase.swap(gbase);
      Pack16(L);
      st->index16 = true;
      st->packed  = L->coff.back();
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (!ARgCSRFallBack(rows, &p)) PetscFunctionReturn(PETSC_SUCCESS);
    if (!p.want16) { /* 32-bit columns: the last 16-bit attempt's span stays in the statistics */
      PetscCall(BuildLayout(p, A, L, st));
      st->span = span;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
}

/* same pattern, new values: one gather through the stored CSR positions */
PetscErrorCode ARgCSRRefreshHostLayout(const SpMVHostCsr &A, ARgCSRHostLayout *L)
{
  PetscFunctionBegin;
  for (std::size_t k = 0; k < L->val.size(); k++) L->val[k] = L->src[k] >= 0 ? A.a[L->src[k]] : 0.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ARgCSRMultHost - y = A x or y += A x through the layout, row by row in CSR order: the row's threads (from
  heads) in order, each chunk up to its first -1; a long row's pieces in order. Sums start from y (y += A x)
  or 0 and add a*x one entry at a time, like AIJ's MatMult/MatMultAdd, so that the products the plugin
  runs without a GPU are AIJ's bit for bit (BiCGSTAB iteration counts in the ex19 tests).
*/
void ARgCSRMultHost(const ARgCSRHostLayout &L, PetscInt m, const PetscScalar *x, PetscScalar *y, bool add)
{
  const ARgCSRParams &p = L.p;
  const int64_t       G = (int64_t)L.ginfo.size() / 4;
  const auto          chunks = [&](int64_t g, int t0, int t1, PetscScalar s) {
    const int     C   = L.ginfo[4 * g + 2];
    const int64_t off = L.goff[g];
    for (int t = t0; t < t1; t++)
      for (int k = 0; k < C; k++) {
        const int64_t pos = off + (int64_t)k * p.BS + t;
        if (L.col[pos] < 0) break;
        s += L.val[pos] * x[L.col[pos]];
      }
    return s;
  };
  (void)m;
  for (int64_t g = 0; g < G; g++) {
    const int *gi = &L.ginfo[4 * g];
    if (gi[3] >= 0) continue; /* long rows below */
    for (int i = 0; i < gi[1]; i++) {
      int b, e;
      ARgCSRRowThreads(&L.heads[g * p.nw], p.nw, p.BS, i, &b, &e);
      const PetscInt r = L.perm.empty() ? gi[0] + i : L.perm[gi[0] + i];
      y[r]             = chunks(g, b, e, add ? y[r] : 0.0);
    }
  }
  for (std::size_t q = 0; q < L.lrow.size(); q++) {
    const PetscInt r = L.lrow[q];
    PetscScalar    s = add ? y[r] : 0.0;
    for (int k = 0; k < L.lcount[q]; k++) s = chunks(L.lgroup[q] + k, 0, p.BS, s);
    y[r] = s;
  }
}

/*
  ARgCSRMultHostKernelOrder - y = A x or y += A x, replaying the kernels' operations in their order: per
  thread the chunk's fma chain, per warp the segmented shuffle tree, per row the warp pieces in order; long
  rows: the warp-per-row sum of the pieces (lane-strided, then the shuffle-down tree). With IEEE fma on both
  sides the device product equals this one bit for bit. A layout with 16-bit offsets is read through them, as the
  kernel reads it (col16 and gbase; the 32-bit col is only the host's).
*/
void ARgCSRMultHostKernelOrder(const ARgCSRHostLayout &L, const PetscScalar *x, PetscScalar *y, bool add)
{
  const ARgCSRParams      &p = L.p;
  const int64_t            G = (int64_t)L.ginfo.size() / 4;
  std::vector<PetscScalar> acc(p.BS), psum(p.BS), part(L.lrow.empty() ? 0 : G), v(32), nv(32);
  const bool               packed = !L.coff.empty();
  for (int64_t g = 0; g < G; g++) {
    const int      *gi  = &L.ginfo[4 * g];
    const uint32_t *h   = &L.heads[g * p.nw];
    const int       C   = gi[2];
    const int64_t   off = L.goff[g];
    for (int t = 0; t < p.BS; t++) {
      PetscScalar a = 0;
      for (int k = 0; k < C; k++) {
        const int64_t pos = off + (int64_t)k * p.BS + t;
        int           c   = L.col[pos];
        if (packed) { /* the kernel's column: the 16-bit offset from the group's smallest column */
          const unsigned u = L.col16[ARgCSRPackedHalf(L.coff[g], p.BS, k, t)];
          c                = u == kARgCSRPad16 ? -1 : L.gbase[g] + (int)u;
        }
        if (c < 0) break;
        a = SpMVFma(L.val[pos], x[c], a);
      }
      acc[t] = a;
    }
    for (int w = 0; w < p.nw; w++) {
      const int      lanes = std::min(32, p.BS - 32 * w);
      const uint32_t segs  = h[w] | 1u;
      for (int l = 0; l < lanes; l++) v[l] = acc[32 * w + l];
      for (int o = 1; o < 32; o <<= 1) {
        for (int l = 0; l < lanes; l++) nv[l] = l + o < ARgCSRSegEnd(segs, l, lanes) ? v[l] + v[l + o] : v[l];
        std::swap(v, nv);
      }
      for (int l = 0; l < lanes; l++)
        if ((segs >> l) & 1u) psum[32 * w + l] = v[l];
    }
    const int nrows = gi[3] < 0 ? gi[1] : 1;
    for (int i = 0; i < nrows; i++) {
      int b, e;
      ARgCSRRowThreads(h, p.nw, p.BS, i, &b, &e);
      PetscScalar s = psum[b];
      for (int q = (b & ~31) + 32; q < e; q += 32) s += psum[q];
      if (gi[3] < 0) {
        const int r = L.perm.empty() ? gi[0] + i : L.perm[gi[0] + i];
        y[r]        = add ? y[r] + s : s;
      } else part[g] = s;
    }
  }
  for (std::size_t q = 0; q < L.lrow.size(); q++) {
    for (int l = 0; l < 32; l++) {
      PetscScalar s = 0;
      for (int k = l; k < L.lcount[q]; k += 32) s += part[L.lgroup[q] + k];
      v[l] = s;
    }
    for (int o = 16; o > 0; o >>= 1)
      for (int l = 0; l + o < 32; l++) v[l] += v[l + o];
    const int r = L.lrow[q];
    y[r]        = add ? y[r] + v[0] : v[0];
  }
}
