/* BRC host reference: statistics, Algorithm 1 with an explicit FIFO queue, values refresh, executor. */
#include "brc.h"
#include <algorithm>
#include <deque>
#include <numeric>
#include <cmath>

/*
  BRCComputeStats - row statistics and the block width B2 (Eq. (3), or the cap alone), from exact integer
  sums so that the host and the device choose the same parameters.  s[0] = nnz, s[1] = sum of squared row lengths,
  s[2] = longest row.
*/
PetscErrorCode BRCComputeStats(const BRCOptions &o, PetscInt m, const int64_t *s, PetscInt nonempty, BRCStats *st)
{
  PetscFunctionBegin;
  *st          = BRCStats();
  st->m        = m;
  st->nnz      = s[0];
  st->sumsq    = s[1];
  st->maxlen   = (PetscInt)s[2];
  st->nonempty = nonempty;
  if (m > 0) {
    const double mu  = (double)s[0] / (double)m;
    const double var = (double)s[1] / (double)m - mu * mu;
    st->mu           = mu;
    st->sigma        = var > 0 ? std::sqrt(var) : 0.0;
  }
  PetscInt B2;
  if (o.width > 0) B2 = o.width;
  else if (o.paper_width) {
    B2 = (PetscInt)std::floor(o.width_c * std::floor(st->mu + st->sigma + 0.5) + 0.5);
    B2 = std::min(B2, o.width_max);
  } else B2 = o.width_max; /* split only rows longer than the cap: short rows gain nothing from atomics */
  B2         = std::max<PetscInt>(1, std::min<PetscInt>(B2, std::max<PetscInt>(st->maxlen, 1)));
  st->B2     = B2;
  st->passes = st->maxlen ? (st->maxlen + B2 - 1) / B2 : 0;
  st->rep    = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  BRCBuildHostLayout - Algorithm 1 of the paper made precise (brief A3, A8): stable descending sort, empty
  rows dropped, split rows re-queued at the back, T_b the longest piece of the block, padding columns
  copied from the nearest lower lane with an entry (else the lowest such lane). With a sort window W
  (BRCOptions::window) the algorithm runs on each W consecutive rows in turn (W = m is the paper).  B1 is a parameter only
  so that the paper's worked example (B1 = 2) can be tested; the plugin uses 32.
*/
PetscErrorCode BRCBuildHostLayout(const BRCOptions &o, const SpMVHostCsr &A, PetscInt B1, BRCHostLayout *L, BRCStats *st)
{
  const PetscInt m = A.m;
  int64_t        s[3] = {0, 0, 0};
  PetscInt       nonempty = 0;

  PetscFunctionBegin;
  PetscCheck(B1 >= 1 && B1 <= 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "BRC block height %" PetscInt_FMT " must be in [1, 32]", B1);
  std::vector<PetscInt> len(m);
  for (PetscInt r = 0; r < m; r++) {
    len[r] = A.i[r + 1] - A.i[r];
    s[0] += len[r];
    s[1] += (int64_t)len[r] * len[r];
    s[2] = std::max<int64_t>(s[2], len[r]);
    nonempty += len[r] > 0;
  }
  PetscCall(BRCComputeStats(o, m, s, nonempty, st));
  const PetscInt B2 = st->B2;

  /* Algorithm 1 on each window of W consecutive rows (W = m: the paper's global sort), the FIFO pop
     orders of the windows concatenated into one stream of slots (row pieces) */
  struct Slot {
    PetscInt row;
    int64_t  pos;
    PetscInt take;
  };
  struct Piece {
    PetscInt row;
    int64_t  pos;
    PetscInt remaining;
  };
  const PetscInt    W = o.window > 0 ? o.window : std::max<PetscInt>(m, 1);
  std::vector<Slot> slots;
  for (PetscInt w0 = 0; w0 < m; w0 += W) {
    const PetscInt        w1 = std::min(m, w0 + W);
    std::vector<PetscInt> order(w1 - w0);
    std::iota(order.begin(), order.end(), w0);
    std::stable_sort(order.begin(), order.end(), [&](PetscInt a, PetscInt b) { return len[a] > len[b]; });
    std::deque<Piece> q;
    for (PetscInt r : order)
      if (len[r] > 0) q.push_back({r, (int64_t)A.i[r], len[r]});
    while (!q.empty()) {
      Piece e = q.front();
      q.pop_front();
      slots.push_back({e.row, e.pos, std::min(e.remaining, B2)});
      if (e.remaining > B2) q.push_back({e.row, e.pos + B2, e.remaining - B2});
    }
  }
  st->nslots = (int64_t)slots.size();

  /* blocks: B1 consecutive slots, T_b the longest piece, stored column-major */
  *L    = BRCHostLayout();
  L->B1 = B1;
  L->offset.push_back(0);
  for (std::size_t first = 0; first < slots.size(); first += B1) {
    const PetscInt nl  = (PetscInt)std::min<std::size_t>(B1, slots.size() - first);
    const Slot    *ls  = slots.data() + first;
    PetscInt       T   = 0;
    const int64_t  off = L->offset.back();
    for (PetscInt l = 0; l < nl; l++) T = std::max(T, ls[l].take);
    L->width.push_back((int)T);
    L->offset.push_back(off + (int64_t)B1 * T);
    L->data.resize(off + (int64_t)B1 * T, 0.0);
    L->col.resize(off + (int64_t)B1 * T, 0);
    L->src.resize(off + (int64_t)B1 * T, -1);
    for (PetscInt lane = 0; lane < B1; lane++) {
      const bool real = lane < nl;
      L->row_perm.push_back(real ? (int)ls[lane].row : -1);
      L->split.push_back(real && len[ls[lane].row] > B2);
    }
    for (PetscInt j = 0; j < T; j++) {
      for (PetscInt lane = 0; lane < B1; lane++) {
        const int64_t idx = off + j * B1 + lane;
        if (lane < nl && j < ls[lane].take) {
          L->src[idx]  = ls[lane].pos + j;
          L->data[idx] = A.a[L->src[idx]];
          L->col[idx]  = (int)A.j[L->src[idx]];
        } else { /* padding: nearest lower lane with an entry at j, else the lowest lane with one */
          PetscInt from = -1;
          for (PetscInt l = std::min(lane, nl) - 1; l >= 0 && from < 0; l--)
            if (j < ls[l].take) from = l;
          for (PetscInt l = 0; l < nl && from < 0; l++)
            if (j < ls[l].take) from = l;
          L->col[idx] = (int)A.j[ls[from].pos + j];
        }
      }
    }
  }
  st->nblocks = (int64_t)L->width.size();
  st->padded  = L->offset.back();
  for (PetscInt r = 0; r < m; r++) st->nsplit += len[r] > B2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BRCRefreshHostLayout - same pattern, new values: one gather through the stored CSR positions */
PetscErrorCode BRCRefreshHostLayout(const SpMVHostCsr &A, BRCHostLayout *L)
{
  PetscFunctionBegin;
  for (std::size_t k = 0; k < L->data.size(); k++) L->data[k] = L->src[k] >= 0 ? A.a[L->src[k]] : 0.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BRCMultHost - y += A x, slot by slot, exactly as the kernel does it (one lane = one piece; a lane stops at its
   piece's end, the padding after it is not multiplied) */
void BRCMultHost(const BRCHostLayout &L, const PetscScalar *x, PetscScalar *y)
{
  const std::size_t nb = L.width.size();
  for (std::size_t b = 0; b < nb; b++) {
    const int64_t off = L.offset[b];
    for (PetscInt lane = 0; lane < L.B1; lane++) {
      const int r = L.row_perm[b * L.B1 + lane];
      if (r < 0) continue;
      PetscScalar acc = 0;
      for (int j = 0; j < L.width[b]; j++) {
        const int64_t idx = off + (int64_t)j * L.B1 + lane;
        if (L.src[idx] < 0) break; /* the slot's padding (its tail) is not multiplied: 0 * Inf would be NaN in a row AIJ keeps finite */
        acc += L.data[idx] * x[L.col[idx]];
      }
      y[r] += acc;
    }
  }
}
