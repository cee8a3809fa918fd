/*
   test_brc_host: unit tests of the BRC host reference (src/mat/impls/spmv/brc/brchost.cxx) against the
   decisions of ../shared/reference/briefs/brc-and-argcsr.md part A (A2, A3, A8).

     1. worked example   the brief's 4x6 example (A3) with B1 = 2: exact arrays for B2 = 2, and the
                         statistics (mu = 2.5, sigma = 1.5, B2 = 4) and layout for the automatic width
     2. executor vs CSR  BRCMultHost against a long double CSR product, y = A x and y += A x, on random
                         and corner-case matrices (empty rows, all empty, a row over the width cap, a
                         dense row, rectangular, 1x1, 0x0, 0 x n, m x 0) under several options
     3. layout           the invariants of the layout (src, padding, pieces, widths, offsets, split, the
                         FIFO order of the slots) and the statistics, for the same matrices and options
     4. refresh          new values, same pattern: BRCRefreshHostLayout, then the product of the new CSR
     5. parameters       BRCComputeStats on hand-made row-length distributions (Eq. (3), C, cap, B2 >= 1)

   Usage: test_brc_host [-seed N]   (the seed defaults to the clock and is printed, to rerun a failure)
   Exit status is nonzero on any failure; every failure prints one "FAIL [context]: ..." line.
*/
#include "mat/impls/spmv/brc/brc.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

/* ------------------------------------------------------------------------------------------------ */
/* Failure reporting: one Check() used by every test                                                 */
/* ------------------------------------------------------------------------------------------------ */

#include "hosttest.h" /* g_failures, g_context, Check(), ReportGroup() */
#include "hostcsr.h"  /* Rng, Csr, random values, CSR builders */

/* ------------------------------------------------------------------------------------------------ */
/* CSR matrices                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/* The matrices of groups 2-4: random ones (fresh each run) and the corner cases */
static std::vector<TestMatrix> MakeTestMatrices(Rng &rng)
{
  std::vector<TestMatrix> t;
  for (int k = 0; k < 8; k++) { /* uniform row lengths */
    const PetscInt m = Uniform(rng, 1, 400), n = Uniform(rng, 1, 400), maxl = Uniform(rng, 1, std::min<PetscInt>(n, 60));
    t.push_back({"random " + std::to_string(k) + " (" + std::to_string(m) + "x" + std::to_string(n) + ")", RandomCsr(rng, m, n, [&](PetscInt) { return Uniform(rng, 0, maxl); })});
  }
  for (int k = 0; k < 4; k++) { /* mostly short rows, a few long ones: sigma > mu */
    const PetscInt m = Uniform(rng, 50, 400), n = Uniform(rng, 50, 600);
    t.push_back({"skewed " + std::to_string(k) + " (" + std::to_string(m) + "x" + std::to_string(n) + ")",
                 RandomCsr(rng, m, n, [&](PetscInt) { return std::uniform_real_distribution<double>(0, 1)(rng) < 0.05 ? Uniform(rng, 0, n) : Uniform(rng, 0, 4); })});
  }
  t.push_back({"empty rows (40%)", RandomCsr(rng, 300, 200, [&](PetscInt) { return std::uniform_real_distribution<double>(0, 1)(rng) < 0.4 ? 0 : Uniform(rng, 1, 30); })});
  t.push_back({"3 nonempty rows of 200", RandomCsr(rng, 200, 100, [&](PetscInt r) { return r == 5 || r == 100 || r == 199 ? Uniform(rng, 1, 100) : 0; })});
  t.push_back({"all rows empty", RandomCsr(rng, 45, 30, [](PetscInt) { return 0; })});
  t.push_back({"row of 1000 (over the 200 cap)", RandomCsr(rng, 20, 1200, [&](PetscInt r) { return r == 7 ? 1000 : Uniform(rng, 0, 5); })});
  t.push_back({"fully dense row", RandomCsr(rng, 60, 300, [&](PetscInt r) { return r == 13 ? 300 : Uniform(rng, 0, 12); })});
  t.push_back({"fully dense 40x40", RandomCsr(rng, 40, 40, [](PetscInt) { return 40; })});
  t.push_back({"wide 10x500", RandomCsr(rng, 10, 500, [&](PetscInt) { return Uniform(rng, 0, 100); })});
  t.push_back({"tall 500x8", RandomCsr(rng, 500, 8, [&](PetscInt) { return Uniform(rng, 0, 8); })});
  t.push_back({"boundary lengths", RandomCsr(rng, 96, 64, [](PetscInt r) {
                 const PetscInt l[] = {1, 2, 3, 6, 7, 8, 13, 14, 15, 21, 0};
                 return l[r % 11];
               })});
  t.push_back({"equal lengths (ties)", RandomCsr(rng, 70, 50, [](PetscInt) { return 5; })});
  t.push_back({"64 rows (full last block)", RandomCsr(rng, 64, 64, [&](PetscInt) { return Uniform(rng, 1, 10); })});
  const auto upto25 = [&](PetscInt) { return Uniform(rng, 0, 25); };
  t.push_back({"unsorted columns", RandomCsr(rng, 100, 100, upto25, false)});
  t.push_back({"1x1", RandomCsr(rng, 1, 1, [](PetscInt) { return 1; })});
  t.push_back({"1x1 empty", RandomCsr(rng, 1, 1, [](PetscInt) { return 0; })});
  t.push_back({"0x0", RandomCsr(rng, 0, 0, [](PetscInt) { return 0; })});
  t.push_back({"0x7", RandomCsr(rng, 0, 7, [](PetscInt) { return 0; })});
  t.push_back({"7x0", RandomCsr(rng, 7, 0, [](PetscInt) { return 0; })});
  return t;
}

struct TestOptions {
  std::string name;
  BRCOptions  o;
};

static std::vector<TestOptions> MakeTestOptions()
{
  std::vector<TestOptions> t;
  BRCOptions               o;
  t.push_back({"auto width", o});
  for (PetscInt w : {1, 2, 7}) {
    o       = BRCOptions();
    o.width = w;
    t.push_back({"width " + std::to_string(w), o});
  }
  o           = BRCOptions();
  o.width_max = 3;
  t.push_back({"auto, width_max 3", o});
  o         = BRCOptions();
  o.width_c = 0.5;
  t.push_back({"auto, width_c 0.5", o});
  for (PetscInt w : {1, 7, 64}) { /* sort windows, with the plugin's and the paper's widths */
    o        = BRCPluginDefaults();
    o.window = w;
    t.push_back({"plugin defaults, sort window " + std::to_string(w), o});
    o        = BRCOptions();
    o.width  = 2;
    o.window = w;
    t.push_back({"width 2, sort window " + std::to_string(w), o});
  }
  return t;
}

/* ------------------------------------------------------------------------------------------------ */
/* Checks                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/*
  y = y0 + A x computed by BRCMultHost, against the CSR product in long double. Per row, the error is
  relative to |y0| + sum |a x| (robust under cancellation) and must stay below 1e-13; rows without
  entries must come back exactly as y0.
*/
static void CheckProduct(const Csr &A, const std::vector<PetscScalar> &x, const std::vector<PetscScalar> &y0, const std::vector<PetscScalar> &y, const char *what)
{
  double   worst     = 0;
  PetscInt worst_row = -1;
  for (PetscInt r = 0; r < A.m; r++) {
    long double ref = y0[r], scale = std::fabs((long double)y0[r]);
    for (PetscInt k = A.i[r]; k < A.i[r + 1]; k++) {
      ref += (long double)A.a[k] * x[A.j[k]];
      scale += std::fabs((long double)A.a[k] * x[A.j[k]]);
    }
    if (A.Len(r) == 0 || scale == 0) {
      if (!Check(y[r] == y0[r], "%s: row %" PetscInt_FMT " has no entries, y = %.17g, expected exactly %.17g", what, r, y[r], y0[r])) return;
      continue;
    }
    const double err = (double)(std::fabs((long double)y[r] - ref) / scale);
    if (worst_row < 0 || err > worst || std::isnan(err)) {
      worst     = err;
      worst_row = r;
      if (std::isnan(err)) break;
    }
  }
  if (worst_row >= 0) Check(worst <= 1e-13, "%s: row %" PetscInt_FMT " (%" PetscInt_FMT " entries) relative error %.3g > 1e-13", what, worst_row, A.Len(worst_row), worst);
}

/* y = A x and y += A x (nonzero y0) through the layout, each checked against the CSR */
static void CheckProducts(const BRCHostLayout &L, const Csr &A, Rng &rng)
{
  const std::vector<PetscScalar> x = RandomVector(rng, A.n);
  for (bool add : {false, true}) {
    const std::vector<PetscScalar> y0 = add ? RandomVector(rng, A.m) : std::vector<PetscScalar>(A.m, 0.0);
    std::vector<PetscScalar>       y  = y0;
    BRCMultHost(L, x.data(), y.data());
    CheckProduct(A, x, y0, y, add ? "y += A x" : "y = A x");
  }
}

/* The B2 Eq. (3) gives (brief A3, A8.5): min(round_half_up(C * round_half_up(mu + sigma)), width_max),
   kept in [1, max(MaxNZ, 1)]; an explicit width is used as is (a width above MaxNZ acts as MaxNZ). When
   mu + sigma lies within 1e-9 of a half-integer both roundings are accepted (the code works in double). */
static bool B2IsExpected(const BRCOptions &o, PetscInt m, int64_t nnz, int64_t sumsq, PetscInt maxlen, PetscInt B2)
{
  const PetscInt cap = std::max<PetscInt>(maxlen, 1);
  if (o.width > 0) return B2 == std::min(o.width, cap) || (o.width > cap && B2 == o.width);
  if (!o.paper_width) return B2 == std::max<PetscInt>(1, std::min(o.width_max, cap)); /* the plugin's rule: the cap */
  long double mu = 0, sigma = 0;
  if (m > 0) {
    mu    = (long double)nnz / m;
    sigma = std::sqrt(std::max((long double)0, (long double)sumsq / m - mu * mu));
  }
  const long double        t       = mu + sigma;
  const bool               tie     = std::fabs(t - std::floor(t) - 0.5L) < 1e-9L;
  std::vector<long double> rounded = {std::floor(t + 0.5L)};
  if (tie) rounded.push_back(std::floor(t));
  for (long double r : rounded) {
    PetscInt e = (PetscInt)std::floor((long double)o.width_c * r + 0.5L);
    e          = std::max<PetscInt>(1, std::min(std::min(e, o.width_max), cap));
    if (e == B2) return true;
  }
  return false;
}

/*
  Statistics and layout invariants of a layout built from A with B1 (brief A2, A3, A8; brc.h):
  - stats: counts, mu, sigma, B2 of Eq. (3), passes, nsplit, nslots, nblocks, padded
  - offset is the prefix sum of B1 * width; array sizes agree; no block of width 0
  - the slots follow the FIFO queue: pass p holds, in stable descending-length order, the rows longer than
    p*B2, and slot k of row r holds its entries [p*B2, min((p+1)*B2, len)); zero-length rows never appear
  - every CSR position appears exactly once in src, padding is src = -1; data/col agree with the CSR
  - each row's pieces (read back from the layout) tile the row; width[b] = the longest piece of block b
  - split is set exactly on the slots of rows longer than B2; dummy slots (row -1) only at the end
  - padding: data 0, a valid column that a real entry of another lane has at the same j; precisely the
    column of the nearest lower lane with an entry at j, else of the lowest lane with one (brc.h)
  Returns false when the structure is too broken to run a product on.
*/
static bool CheckLayout(const Csr &A, const BRCOptions &o, PetscInt B1, const BRCHostLayout &L, const BRCStats &st)
{
  const PetscInt m = A.m, nnz = A.Nnz();

  /* statistics */
  int64_t  sumsq  = 0;
  PetscInt maxlen = 0, nonempty = 0;
  for (PetscInt r = 0; r < m; r++) {
    sumsq += (int64_t)A.Len(r) * A.Len(r);
    maxlen = std::max(maxlen, A.Len(r));
    nonempty += A.Len(r) > 0;
  }
  Check(st.m == m && st.nnz == nnz && st.sumsq == sumsq && st.maxlen == maxlen && st.nonempty == nonempty,
        "stats m/nnz/sumsq/maxlen/nonempty = %" PetscInt_FMT "/%lld/%lld/%" PetscInt_FMT "/%" PetscInt_FMT ", expected %" PetscInt_FMT "/%" PetscInt_FMT "/%lld/%" PetscInt_FMT
        "/%" PetscInt_FMT,
        st.m, (long long)st.nnz, (long long)st.sumsq, st.maxlen, st.nonempty, m, nnz, (long long)sumsq, maxlen, nonempty);
  const double mu    = m ? (double)nnz / m : 0.0;
  const double sigma = m ? std::sqrt(std::max(0.0, (double)((long double)sumsq / m - (long double)mu * mu))) : 0.0;
  Check(std::fabs(st.mu - mu) <= 1e-12 * std::max(1.0, mu) && std::fabs(st.sigma - sigma) <= 1e-9 * std::max(1.0, mu), "stats mu = %.17g, sigma = %.17g, expected %.17g, %.17g",
        st.mu, st.sigma, mu, sigma);
  Check(B2IsExpected(o, m, nnz, sumsq, maxlen, st.B2), "B2 = %" PetscInt_FMT " is not the width of Eq. (3) for mu = %g, sigma = %g, MaxNZ = %" PetscInt_FMT, st.B2, mu, sigma,
        maxlen);
  if (!Check(st.B2 >= 1, "B2 = %" PetscInt_FMT " < 1", st.B2)) return false;
  const PetscInt B2 = st.B2;

  /* the expected slots: the FIFO queue of brief A3/A8.2, pass by pass */
  struct Slot {
    PetscInt row, start, take;
  };
  /* with a sort window W, the same within each W consecutive rows, windows one after the other */
  std::vector<Slot> slots;
  PetscInt          nsplit = 0, passes = 0;
  const PetscInt    W = o.window > 0 ? o.window : std::max<PetscInt>(m, 1);
  for (PetscInt r = 0; r < m; r++) nsplit += A.Len(r) > B2;
  for (PetscInt p = 0; (int64_t)p * B2 < maxlen; p++) passes++;
  for (PetscInt w0 = 0; w0 < m; w0 += W) {
    std::vector<PetscInt> order(std::min(m, w0 + W) - w0);
    std::iota(order.begin(), order.end(), w0);
    std::stable_sort(order.begin(), order.end(), [&](PetscInt p, PetscInt q) { return A.Len(p) > A.Len(q); });
    for (PetscInt p = 0; (int64_t)p * B2 < maxlen; p++)
      for (PetscInt r : order)
        if (A.Len(r) > p * B2) slots.push_back({r, A.i[r] + p * B2, std::min(B2, A.Len(r) - p * B2)});
  }
  const int64_t nslots = (int64_t)slots.size(), nblocks = (nslots + B1 - 1) / B1;
  Check(st.passes == passes && st.nsplit == nsplit && st.nslots == nslots && st.nblocks == nblocks,
        "stats passes/nsplit/nslots/nblocks = %" PetscInt_FMT "/%" PetscInt_FMT "/%lld/%lld, expected %" PetscInt_FMT "/%" PetscInt_FMT "/%lld/%lld", st.passes, st.nsplit,
        (long long)st.nslots, (long long)st.nblocks, passes, nsplit, (long long)nslots, (long long)nblocks);

  /* structure */
  const int64_t nb = (int64_t)L.width.size();
  if (!Check(L.B1 == B1, "layout B1 = %" PetscInt_FMT ", expected %" PetscInt_FMT, L.B1, B1)) return false;
  if (!Check(nb == nblocks, "%lld blocks, expected %lld", (long long)nb, (long long)nblocks)) return false;
  if (!Check((int64_t)L.offset.size() == nb + 1 && (int64_t)L.row_perm.size() == nb * B1 && (int64_t)L.split.size() == nb * B1,
             "array sizes: offset %zu, row_perm %zu, split %zu for %lld blocks", L.offset.size(), L.row_perm.size(), L.split.size(), (long long)nb))
    return false;
  if (!Check(L.offset[0] == 0, "offset[0] = %lld", (long long)L.offset[0])) return false;
  for (int64_t b = 0; b < nb; b++) {
    if (!Check(L.width[b] >= 1, "block %lld has width %d", (long long)b, L.width[b])) return false;
    if (!Check(L.offset[b + 1] == L.offset[b] + (int64_t)B1 * L.width[b], "offset[%lld] = %lld is not offset[%lld] + B1 * width = %lld", (long long)b + 1,
               (long long)L.offset[b + 1], (long long)b, (long long)(L.offset[b] + (int64_t)B1 * L.width[b])))
      return false;
  }
  const int64_t padded = L.offset[nb];
  if (!Check((int64_t)L.data.size() == padded && (int64_t)L.col.size() == padded && (int64_t)L.src.size() == padded, "data/col/src sizes %zu/%zu/%zu, expected %lld", L.data.size(),
             L.col.size(), L.src.size(), (long long)padded))
    return false;
  Check(st.padded == padded, "stats padded = %lld, expected %lld", (long long)st.padded, (long long)padded);
  for (int64_t k = 0; k < padded; k++)
    if (!Check(L.col[k] >= 0 && L.col[k] < A.n && L.src[k] >= -1 && L.src[k] < nnz, "entry %lld: col %d, src %lld out of range", (long long)k, L.col[k], (long long)L.src[k]))
      return false;
  for (int64_t s = 0; s < nb * B1; s++)
    if (!Check(L.row_perm[s] >= -1 && L.row_perm[s] < m, "row_perm[%lld] = %d out of range", (long long)s, L.row_perm[s])) return false;

  /* the pieces as stored: a prefix of real entries per slot, consecutive CSR positions of the slot's row */
  std::vector<PetscInt>                                  take(nb * B1, 0);
  std::vector<std::vector<std::pair<int64_t, PetscInt>>> pieces(m); /* per row: (start, take) */
  for (int64_t s = 0; s < nb * B1; s++) {
    const int64_t b = s / B1, lane = s % B1, off = L.offset[b];
    const int     r = L.row_perm[s];
    while (take[s] < L.width[b] && L.src[off + (int64_t)take[s] * B1 + lane] >= 0) take[s]++;
    for (PetscInt j = take[s]; j < L.width[b]; j++)
      if (!Check(L.src[off + (int64_t)j * B1 + lane] < 0, "slot %lld: real entry at j = %" PetscInt_FMT " after padding", (long long)s, j)) return false;
    if (r < 0) {
      Check(take[s] == 0, "dummy slot %lld holds %" PetscInt_FMT " entries", (long long)s, take[s]);
      continue;
    }
    if (!Check(take[s] >= 1 && take[s] <= B2, "slot %lld (row %d) holds %" PetscInt_FMT " entries, B2 = %" PetscInt_FMT, (long long)s, r, take[s], B2)) return false;
    const int64_t start = L.src[off + lane];
    for (PetscInt j = 0; j < take[s]; j++)
      if (!Check(L.src[off + (int64_t)j * B1 + lane] == start + j, "slot %lld: src not consecutive", (long long)s)) return false;
    if (!Check(start >= A.i[r] && start + take[s] <= A.i[r + 1], "slot %lld (row %d) holds CSR positions [%lld, %lld) outside the row [%" PetscInt_FMT ", %" PetscInt_FMT ")",
               (long long)s, r, (long long)start, (long long)(start + take[s]), A.i[r], A.i[r + 1]))
      return false;
    pieces[r].push_back({start, take[s]});
  }

  /* every CSR position exactly once; values and columns from the CSR */
  std::vector<int> seen(nnz, 0);
  for (int64_t k = 0; k < padded; k++)
    if (L.src[k] >= 0) {
      seen[L.src[k]]++;
      if (!Check(L.data[k] == A.a[L.src[k]] && L.col[k] == A.j[L.src[k]], "entry %lld (CSR position %lld): data %g col %d, CSR has %g col %" PetscInt_FMT, (long long)k,
                 (long long)L.src[k], L.data[k], L.col[k], A.a[L.src[k]], A.j[L.src[k]]))
        break;
    }
  for (PetscInt k = 0; k < nnz; k++)
    if (!Check(seen[k] == 1, "CSR position %" PetscInt_FMT " appears %d times in src", k, seen[k])) break;

  /* each row's pieces tile the row; zero-length rows never appear */
  for (PetscInt r = 0; r < m; r++) {
    auto &p = pieces[r];
    std::sort(p.begin(), p.end());
    if (!Check(A.Len(r) > 0 || p.empty(), "row %" PetscInt_FMT " has no entries but %zu slots", r, p.size())) break;
    int64_t next = A.i[r];
    for (const auto &[start, t] : p) {
      if (!Check(start == next, "row %" PetscInt_FMT ": pieces do not tile the row (piece at %lld, expected %lld)", r, (long long)start, (long long)next)) break;
      next += t;
    }
    if (!Check(next == A.i[r + 1], "row %" PetscInt_FMT ": pieces cover [%" PetscInt_FMT ", %lld), the row is [%" PetscInt_FMT ", %" PetscInt_FMT ")", r, A.i[r], (long long)next,
               A.i[r], A.i[r + 1]))
      break;
  }

  /* slot order (FIFO), split flags, dummies at the end only */
  for (int64_t s = 0; s < nb * B1; s++) {
    if (s < nslots) {
      const Slot   &e   = slots[s];
      const int64_t off = L.offset[s / B1], lane = s % B1;
      if (!Check(L.row_perm[s] == e.row && L.src[off + lane] == e.start && take[s] == e.take,
                 "slot %lld holds row %d from CSR position %lld (%" PetscInt_FMT " entries); the FIFO queue gives row %" PetscInt_FMT " from %" PetscInt_FMT " (%" PetscInt_FMT ")",
                 (long long)s, L.row_perm[s], (long long)L.src[off + lane], take[s], e.row, e.start, e.take))
        break;
      if (!Check(L.split[s] == (A.Len(e.row) > B2 ? 1 : 0), "split[%lld] = %d for row %" PetscInt_FMT " of length %" PetscInt_FMT ", B2 = %" PetscInt_FMT, (long long)s, L.split[s],
                 e.row, A.Len(e.row), B2))
        break;
    } else if (!Check(L.row_perm[s] == -1 && L.split[s] == 0, "slot %lld after the last piece: row_perm %d split %d, expected -1 0", (long long)s, L.row_perm[s], L.split[s]))
      break;
  }

  /* widths and padding */
  for (int64_t b = 0; b < nb; b++) {
    const int64_t off    = L.offset[b];
    PetscInt      widest = 0;
    for (PetscInt lane = 0; lane < B1; lane++) widest = std::max(widest, take[b * B1 + lane]);
    Check(L.width[b] == widest, "width[%lld] = %d, the longest piece of the block has %" PetscInt_FMT, (long long)b, L.width[b], widest);
    for (PetscInt j = 0; j < L.width[b]; j++)
      for (PetscInt lane = 0; lane < B1; lane++) {
        const int64_t idx = off + (int64_t)j * B1 + lane;
        if (j < take[b * B1 + lane]) continue;
        PetscInt from = -1; /* documented rule: nearest lower lane with an entry at j, else the lowest */
        bool     any  = false;
        for (PetscInt l = lane - 1; l >= 0 && from < 0; l--)
          if (j < take[b * B1 + l]) from = l;
        for (PetscInt l = 0; l < B1 && from < 0; l++)
          if (j < take[b * B1 + l]) from = l;
        for (PetscInt l = 0; l < B1; l++) any = any || (l != lane && j < take[b * B1 + l] && L.col[off + (int64_t)j * B1 + l] == L.col[idx]);
        if (!Check(L.data[idx] == 0.0, "padding (block %lld, j %" PetscInt_FMT ", lane %" PetscInt_FMT ") has data %g", (long long)b, j, lane, L.data[idx])) return true;
        if (!Check(any, "padding (block %lld, j %" PetscInt_FMT ", lane %" PetscInt_FMT ") has column %d that no other lane has at j", (long long)b, j, lane, L.col[idx]))
          return true;
        if (!Check(from >= 0 && L.col[idx] == L.col[off + (int64_t)j * B1 + from],
                   "padding (block %lld, j %" PetscInt_FMT ", lane %" PetscInt_FMT ") has column %d, the nearest lower lane with an entry (%" PetscInt_FMT ") has %d", (long long)b,
                   j, lane, L.col[idx], from, from >= 0 ? L.col[off + (int64_t)j * B1 + from] : -1))
          return true;
      }
  }
  return true;
}

/* ------------------------------------------------------------------------------------------------ */
/* Groups                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/* 1. The brief's worked example (A3): the paper's 4x6 matrix of Eq. (1), B1 = 2 */
static PetscErrorCode TestWorkedExample(Rng &rng)
{
  const int         before = g_failures;
  const PetscScalar A_ = 1.5, B_ = -2.25, C_ = 3.125, D_ = -4.75, E_ = 5.5, F_ = -6.375, G_ = 7.0625, H_ = -8.5, I_ = 9.25, J_ = -10.75;
  /* the paper's Eq. (1), letters as values */
  const Csr A = CsrFromEntries(6, {{{1, A_}, {3, B_}},                              /* row 0 */
                                   {{2, C_}, {4, D_}},                              /* row 1 */
                                   {{0, E_}, {1, F_}, {2, G_}, {4, H_}, {5, I_}},   /* row 2 */
                                   {{3, J_}}});                                     /* row 3 */
  BRCHostLayout L;
  BRCStats      st;
  BRCOptions    o;

  PetscFunctionBeginUser;
  g_context = "worked example, B1 = 2, width 2";
  o.width   = 2;
  PetscCall(BRCBuildHostLayout(o, A.View(), 2, &L, &st));
  CheckArray("block_offset", L.offset, std::vector<int64_t>{0, 4, 8, 12});
  CheckArray("nnz_per_block", L.width, std::vector<int>{2, 2, 2});
  CheckArray("data", L.data, std::vector<double>{E_, A_, F_, B_, C_, J_, D_, 0, G_, I_, H_, 0});
  CheckArray("column_index", L.col, std::vector<int>{0, 1, 1, 3, 2, 3, 4, 4, 2, 5, 4, 4});
  CheckArray("row_perm", L.row_perm, std::vector<int>{2, 0, 1, 3, 2, 2});
  CheckArray("split", L.split, std::vector<int>{1, 0, 0, 0, 1, 1});
  CheckArray("src", L.src, std::vector<int64_t>{4, 0, 5, 1, 2, 9, 3, -1, 6, 8, 7, -1});
  Check(st.B2 == 2 && st.passes == 3 && st.nsplit == 1 && st.nslots == 6 && st.nblocks == 3 && st.padded == 12,
        "B2/passes/nsplit/nslots/nblocks/padded = %" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT "/%lld/%lld/%lld, expected 2/3/1/6/3/12", st.B2, st.passes, st.nsplit,
        (long long)st.nslots, (long long)st.nblocks, (long long)st.padded);
  if (CheckLayout(A, o, 2, L, st)) CheckProducts(L, A, rng);

  /* automatic width: mu = 2.5, sigma = 1.5 (population), Eq. (3): B2 = min(round(4.0), 5) = 4 */
  g_context = "worked example, B1 = 2, auto width";
  o         = BRCOptions();
  PetscCall(BRCBuildHostLayout(o, A.View(), 2, &L, &st));
  Check(st.mu == 2.5 && st.sigma == 1.5 && st.B2 == 4, "mu = %.17g, sigma = %.17g, B2 = %" PetscInt_FMT ", expected 2.5, 1.5, 4", st.mu, st.sigma, st.B2);
  Check(st.nnz == 10 && st.sumsq == 34 && st.maxlen == 5 && st.nonempty == 4 && st.passes == 2 && st.nsplit == 1,
        "nnz/sumsq/maxlen/nonempty/passes/nsplit = %lld/%lld/%" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT ", expected 10/34/5/4/2/1", (long long)st.nnz,
        (long long)st.sumsq, st.maxlen, st.nonempty, st.passes, st.nsplit);
  /* blocks [row2: E F G H | row0: A B], [row1: C D | row3: J], [row2: I | dummy] */
  CheckArray("block_offset", L.offset, std::vector<int64_t>{0, 8, 12, 14});
  CheckArray("nnz_per_block", L.width, std::vector<int>{4, 2, 1});
  CheckArray("data", L.data, std::vector<double>{E_, A_, F_, B_, G_, 0, H_, 0, C_, J_, D_, 0, I_, 0});
  CheckArray("column_index", L.col, std::vector<int>{0, 1, 1, 3, 2, 2, 4, 4, 2, 3, 4, 4, 5, 5});
  CheckArray("row_perm", L.row_perm, std::vector<int>{2, 0, 1, 3, 2, -1});
  CheckArray("split", L.split, std::vector<int>{1, 0, 0, 0, 1, 0});
  if (CheckLayout(A, o, 2, L, st)) CheckProducts(L, A, rng);
  ReportGroup("1 worked example", before, "paper's 4x6, B1 = 2: width 2 arrays, auto width mu 2.5 sigma 1.5 B2 4");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const PetscInt kB1s[] = {32, 5, 1}; /* 32 is the plugin's; the others exercise B1 as a parameter */

/* 2. BRCMultHost against the CSR product */
static PetscErrorCode TestExecutor(const std::vector<TestMatrix> &mats, const std::vector<TestOptions> &opts, Rng &rng)
{
  const int before  = g_failures;
  int       layouts = 0;

  PetscFunctionBeginUser;
  for (PetscInt B1 : kB1s)
    for (const auto &t : mats)
      for (const auto &to : opts) {
        BRCHostLayout L;
        BRCStats      st;
        g_context = "executor: " + t.name + ", " + to.name + ", B1 " + std::to_string(B1);
        PetscCall(BRCBuildHostLayout(to.o, t.A.View(), B1, &L, &st));
        CheckProducts(L, t.A, rng);
        layouts++;
      }
  ReportGroup("2 executor vs CSR", before,
              std::to_string(mats.size()) + " matrices x " + std::to_string(opts.size()) + " options x B1 {32,5,1}: " + std::to_string(2 * layouts) +
                  " products (y = A x, y += A x)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 3. layout invariants and statistics */
static PetscErrorCode TestLayouts(const std::vector<TestMatrix> &mats, const std::vector<TestOptions> &opts)
{
  const int before  = g_failures;
  int       layouts = 0;

  PetscFunctionBeginUser;
  for (PetscInt B1 : kB1s)
    for (const auto &t : mats)
      for (const auto &to : opts) {
        BRCHostLayout L;
        BRCStats      st;
        g_context = "layout: " + t.name + ", " + to.name + ", B1 " + std::to_string(B1);
        PetscCall(BRCBuildHostLayout(to.o, t.A.View(), B1, &L, &st));
        CheckLayout(t.A, to.o, B1, L, st);
        layouts++;
      }
  /* the 1000-entry row must be capped by width_max = 200 under the automatic width */
  for (const auto &t : mats)
    if (t.name.rfind("row of 1000", 0) == 0) {
      BRCHostLayout L;
      BRCStats      st;
      g_context = "layout: " + t.name + ", auto width";
      PetscCall(BRCBuildHostLayout(BRCOptions(), t.A.View(), 32, &L, &st));
      Check(st.B2 == 200 && st.nsplit >= 1 && st.passes == 5, "B2 = %" PetscInt_FMT ", nsplit = %" PetscInt_FMT ", passes = %" PetscInt_FMT ", expected 200, >= 1, 5", st.B2,
            st.nsplit, st.passes);
    }
  ReportGroup("3 layout", before, std::to_string(layouts) + " layouts: src, padding, pieces, widths, offsets, split, FIFO order, stats");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 4. values refresh: same pattern, new values */
static PetscErrorCode TestRefresh(const std::vector<TestMatrix> &mats, const std::vector<TestOptions> &opts, Rng &rng)
{
  const int before  = g_failures;
  int       layouts = 0;

  PetscFunctionBeginUser;
  for (const auto &t : mats)
    for (const auto &to : opts) {
      BRCHostLayout L;
      BRCStats      st;
      g_context = "refresh: " + t.name + ", " + to.name;
      PetscCall(BRCBuildHostLayout(to.o, t.A.View(), 32, &L, &st));
      const BRCHostLayout old = L;
      const Csr           B   = WithNewValues(t.A, rng);
      PetscCall(BRCRefreshHostLayout(B.View(), &L));
      Check(L.width == old.width && L.offset == old.offset && L.col == old.col && L.row_perm == old.row_perm && L.split == old.split && L.src == old.src && L.B1 == old.B1,
            "the refresh changed the structure");
      bool ok = L.data.size() == L.src.size();
      for (std::size_t k = 0; ok && k < L.data.size(); k++) ok = L.data[k] == (L.src[k] >= 0 ? B.a[L.src[k]] : 0.0);
      Check(ok, "data after the refresh is not the new CSR values (0 on padding)");
      if (CheckLayout(B, to.o, 32, L, st)) CheckProducts(L, B, rng);
      layouts++;
    }
  ReportGroup("4 refresh", before, std::to_string(layouts) + " layouts refreshed with new values, products of the new CSR");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BRCComputeStats for a list of row lengths */
static PetscErrorCode StatsOf(const BRCOptions &o, const std::vector<PetscInt> &len, BRCStats *st)
{
  int64_t  s[3]     = {0, 0, 0};
  PetscInt nonempty = 0;

  PetscFunctionBeginUser;
  for (PetscInt l : len) {
    s[0] += l;
    s[1] += (int64_t)l * l;
    s[2] = std::max<int64_t>(s[2], l);
    nonempty += l > 0;
  }
  PetscCall(BRCComputeStats(o, (PetscInt)len.size(), s, nonempty, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 5. parameters: Eq. (3) on hand-made distributions */
static PetscErrorCode TestParameters(void)
{
  const int before = g_failures;
  struct Case {
    const char           *name;
    std::vector<PetscInt> len;
    PetscInt              width, width_max;
    PetscReal             c;
    PetscInt              B2; /* expected */
  };
  /* {1,2,3,4,30}: mu = 8, sigma = sqrt(122) = 11.045, round(mu + sigma) = 19
     {0,0,6}:      mu = 2, sigma = sqrt(8) = 2.828, round(4.83) = 5 (rounds up)
     {2,2,5,1}:    the worked example, mu = 2.5, sigma = 1.5, round(4.0) = 4 */
  const std::vector<Case> cases = {
      {"{1,2,3,4,30} auto", {1, 2, 3, 4, 30}, 0, 200, 1.0, 19},
      {"{1,2,3,4,30} width_max 12", {1, 2, 3, 4, 30}, 0, 12, 1.0, 12},
      {"{1,2,3,4,30} C 0.5 (9.5 rounds half up)", {1, 2, 3, 4, 30}, 0, 200, 0.5, 10},
      {"{1,2,3,4,30} C 1.5 (28.5 rounds half up)", {1, 2, 3, 4, 30}, 0, 200, 1.5, 29},
      {"{1,2,3,4,30} C 2 (38, MaxNZ 30)", {1, 2, 3, 4, 30}, 0, 200, 2.0, 30},
      {"{1,2,3,4,30} C 2, width_max 25", {1, 2, 3, 4, 30}, 0, 25, 2.0, 25},
      {"{1,2,3,4,30} width 5", {1, 2, 3, 4, 30}, 5, 200, 1.0, 5},
      {"{1,2,3,4,30} width 5, width_max 3 (ignored)", {1, 2, 3, 4, 30}, 5, 3, 1.0, 5},
      {"{0,0,6} auto", {0, 0, 6}, 0, 200, 1.0, 5},
      {"{2,2,5,1} auto", {2, 2, 5, 1}, 0, 200, 1.0, 4},
      {"{2,2,5,1} width_max 3", {2, 2, 5, 1}, 0, 3, 1.0, 3},
      {"{7 x 9} sigma 0", std::vector<PetscInt>(7, 9), 0, 200, 1.0, 9},
  };

  PetscFunctionBeginUser;
  for (const auto &c : cases) {
    BRCOptions o;
    BRCStats   st;
    o.width     = c.width;
    o.width_max = c.width_max;
    o.width_c   = c.c;
    g_context   = std::string("parameters: ") + c.name;
    PetscCall(StatsOf(o, c.len, &st));
    const PetscInt maxlen = *std::max_element(c.len.begin(), c.len.end());
    Check(st.B2 == c.B2, "B2 = %" PetscInt_FMT ", expected %" PetscInt_FMT " (mu %g, sigma %g)", st.B2, c.B2, st.mu, st.sigma);
    Check(st.passes == (maxlen + st.B2 - 1) / st.B2, "passes = %" PetscInt_FMT ", expected ceil(%" PetscInt_FMT " / %" PetscInt_FMT ")", st.passes, maxlen, st.B2);
  }
  {
    BRCStats st;
    g_context = "parameters: {1,2,3,4,30} mu and sigma";
    PetscCall(StatsOf(BRCOptions(), {1, 2, 3, 4, 30}, &st));
    Check(st.mu == 8.0 && std::fabs(st.sigma - std::sqrt(122.0)) < 1e-12, "mu = %.17g, sigma = %.17g, expected 8, %.17g", st.mu, st.sigma, std::sqrt(122.0));
    g_context = "parameters: {1,2,3,4,30} width 100";
    BRCOptions o;
    o.width = 100; /* wider than MaxNZ: acts as MaxNZ, one pass */
    PetscCall(StatsOf(o, {1, 2, 3, 4, 30}, &st));
    Check(st.B2 >= 30 && st.passes == 1 && st.nsplit == 0, "B2 = %" PetscInt_FMT ", passes = %" PetscInt_FMT ", expected B2 >= 30 and one pass", st.B2, st.passes);
  }
  /* B2 >= 1 when there is nothing to size it from */
  const std::vector<std::tuple<const char *, std::vector<PetscInt>, PetscReal>> degenerate = {
    {"all 7 rows empty", std::vector<PetscInt>(7, 0), 1.0},
    {"no rows", {}, 1.0},
    {"all empty, C 0", std::vector<PetscInt>(7, 0), 0.0},
    {"{1,2,3} C 0", {1, 2, 3}, 0.0},
  };
  for (const auto &[name, len, c] : degenerate) {
    BRCOptions o;
    BRCStats   st;
    o.width_c = c;
    g_context = std::string("parameters: ") + name;
    PetscCall(StatsOf(o, len, &st));
    const PetscInt maxlen = len.empty() ? 0 : *std::max_element(len.begin(), len.end());
    Check(st.B2 >= 1, "B2 = %" PetscInt_FMT ", expected >= 1", st.B2);
    Check(maxlen > 0 || (st.passes == 0 && st.mu == 0 && st.sigma == 0), "passes %" PetscInt_FMT ", mu %g, sigma %g, expected 0, 0, 0", st.passes, st.mu, st.sigma);
  }
  /* B1 must lie in [1, 32] */
  {
    const Csr A = CsrFromEntries(2, {{{0, 1.5}}, {{1, -2.5}}});
    for (PetscInt B1 : {0, 33}) {
      BRCHostLayout  L;
      BRCStats       st;
      PetscErrorCode ierr;
      g_context = "parameters: B1 = " + std::to_string(B1);
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
      ierr = BRCBuildHostLayout(BRCOptions(), A.View(), B1, &L, &st);
      PetscCall(PetscPopErrorHandler());
      Check(ierr != PETSC_SUCCESS, "BRCBuildHostLayout accepted B1 = %" PetscInt_FMT, B1);
    }
  }
  ReportGroup("5 parameters", before, "Eq. (3): round(mu + sigma), C, width_max, MaxNZ, explicit width, B2 >= 1, B1 range");
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  seed;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, "BRC host reference unit tests; -seed N reruns a random sequence"));
  seed = (PetscInt)(std::chrono::system_clock::now().time_since_epoch().count() % 2147483647);
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-seed", &seed, &set));
  std::printf("test_brc_host: seed %" PetscInt_FMT " (rerun with -seed %" PetscInt_FMT ")\n", seed, seed);
  Rng rng((uint64_t)seed);

  PetscCall(TestWorkedExample(rng));
  const std::vector<TestMatrix>  mats = MakeTestMatrices(rng);
  const std::vector<TestOptions> opts = MakeTestOptions();
  PetscCall(TestExecutor(mats, opts, rng));
  PetscCall(TestLayouts(mats, opts));
  PetscCall(TestRefresh(mats, opts, rng));
  PetscCall(TestParameters());

  if (g_failures)
    std::printf("test_brc_host: %d checks FAILED (seed %" PetscInt_FMT ")\n", g_failures, seed);
  else
    std::printf("test_brc_host: all checks passed\n");
  std::fflush(stdout);
  PetscCall(PetscFinalize());
  return g_failures ? 1 : 0;
}
