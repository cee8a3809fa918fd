/*
   test_argcsr_host: unit tests of the ARgCSR host reference (src/mat/impls/spmv/argcsr/argcsrhost.cxx and the
   rules shared with the device in argcsr.h) against the decisions of ../shared/reference/briefs/brc-and-argcsr.md
   part B and argcsr.h.

     1. worked example   the paper's 8x8 example (brief B1, B3): 7 rows of one entry, a full row, 12 threads:
                         exact arrays (t = [1 x 7, 5], chunk size 2, threadsMapping [1..7, 12], the chunks
                         column-wise), 7 artificial zeros in the rows' chunks; with 8 threads (one a row):
                         chunk size 8 and the paper's 49 artificial zeros
     2. executor vs CSR  ARgCSRMultHost (CSR order, bitwise AIJ's) and ARgCSRMultHostKernelOrder (the kernels'
                         order; two runs bitwise equal) against a long double CSR product, y = A x and y += A x,
                         on random and adversarial matrices (empty rows: leading, trailing, runs, all; one huge
                         row; one row holding everything; a dense row; equal lengths; rectangular; 1x1, 0x0,
                         0 x n, m x 0) under several options
     3. layout           every array re-derived independently: the grouping rule per window, the greedy
                         (naive argmax), chunk sizes (optimal; <= D for thread-need grouping), the inclusive
                         threadsMapping, heads, offsets, the fill-first chunks (every CSR position once,
                         padding -1 at chunk tails only), the long-row pieces and their table, the statistics
     4. refresh          new values, same pattern: ARgCSRRefreshHostLayout, then the product of the new CSR
     5. rules            Select32, the thread/row lookups and segment ends against naive versions; option
                         ranges (PETSC_ERR_ARG_OUTOFRANGE)

   Usage: test_argcsr_host [-seed N]   (the seed defaults to the clock and is printed, to rerun a failure)
   Exit status is nonzero on any failure; every failure prints one "FAIL [context]: ..." line.
*/
#include "mat/impls/spmv/argcsr/argcsr.h"
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
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

/* The matrices of groups 2-4: random ones (fresh each run) and the adversarial set */
static std::vector<TestMatrix> MakeTestMatrices(Rng &rng)
{
  std::vector<TestMatrix> t;
  const auto              u01 = [&]() { return std::uniform_real_distribution<double>(0, 1)(rng); };
  for (int k = 0; k < 6; k++) { /* uniform row lengths */
    const PetscInt m = Uniform(rng, 1, 700), n = Uniform(rng, 1, 500), maxl = Uniform(rng, 1, std::min<PetscInt>(n, 60));
    t.push_back({"random " + std::to_string(k) + " (" + std::to_string(m) + "x" + std::to_string(n) + ")", RandomCsr(rng, m, n, [&](PetscInt) { return Uniform(rng, 0, maxl); })});
  }
  for (int k = 0; k < 3; k++) { /* mostly short rows, a few long ones */
    const PetscInt m = Uniform(rng, 50, 600), n = Uniform(rng, 50, 1500);
    t.push_back({"skewed " + std::to_string(k) + " (" + std::to_string(m) + "x" + std::to_string(n) + ")", RandomCsr(rng, m, n, [&](PetscInt) { return u01() < 0.05 ? Uniform(rng, 0, n) : Uniform(rng, 0, 4); })});
  }
  t.push_back({"3000 rows, moderate variance (windows)", RandomCsr(rng, 3000, 3000, [&](PetscInt) { return Uniform(rng, 8, 24); })});
  t.push_back({"3000 rows of 10-60 (the rule sorts them)", RandomCsr(rng, 3000, 3000, [&](PetscInt) { return Uniform(rng, 10, 60); })});
  { /* rows of 10-60 in a band 40 columns a row apart: narrow groups in CSR order, a window's columns sorted (16-bit fails) */
    const PetscInt                     m = 4200, n = 40 * m + 60;
    std::vector<std::vector<PetscInt>> rows(m);
    for (PetscInt r = 0; r < m; r++) rows[r] = RandomColumns(rng, 100, Uniform(rng, 10, 60));
    for (PetscInt r = 0; r < m; r++)
      for (PetscInt &c : rows[r]) c += 40 * r;
    t.push_back({"rows of 10-60, 40 columns a row apart (sorted groups too wide)", CsrFromRows(n, rows, rng)});
  }
  t.push_back({"empty rows (40%)", RandomCsr(rng, 300, 200, [&](PetscInt) { return u01() < 0.4 ? 0 : Uniform(rng, 1, 30); })});
  t.push_back({"leading empty rows", RandomCsr(rng, 200, 100, [&](PetscInt r) { return r < 70 ? 0 : Uniform(rng, 1, 12); })});
  t.push_back({"trailing empty rows", RandomCsr(rng, 200, 100, [&](PetscInt r) { return r >= 130 ? 0 : Uniform(rng, 1, 12); })});
  t.push_back({"runs of empty rows", RandomCsr(rng, 1500, 300, [&](PetscInt r) { return (r / 100) % 2 ? 0 : Uniform(rng, 1, 9); })});
  t.push_back({"3 nonempty rows of 200", RandomCsr(rng, 200, 100, [&](PetscInt r) { return r == 5 || r == 100 || r == 199 ? Uniform(rng, 1, 100) : 0; })});
  t.push_back({"all rows empty", RandomCsr(rng, 45, 30, [](PetscInt) { return 0; })});
  t.push_back({"all 5000 rows empty", RandomCsr(rng, 5000, 10, [](PetscInt) { return 0; })});
  t.push_back({"one huge row (6000 of 20 rows)", RandomCsr(rng, 20, 6500, [&](PetscInt r) { return r == 7 ? 6000 : Uniform(rng, 0, 5); })});
  t.push_back({"one row holds everything", RandomCsr(rng, 300, 2500, [&](PetscInt r) { return r == 150 ? 2500 : 0; })});
  t.push_back({"single row 1x3000", RandomCsr(rng, 1, 3000, [](PetscInt) { return 3000; })});
  t.push_back({"fully dense row", RandomCsr(rng, 60, 300, [&](PetscInt r) { return r == 13 ? 300 : Uniform(rng, 0, 12); })});
  t.push_back({"dense rows at both ends", RandomCsr(rng, 100, 900, [&](PetscInt r) { return r == 0 || r == 99 ? 900 : Uniform(rng, 1, 6); })});
  t.push_back({"long rows around D*BS", RandomCsr(rng, 40, 800, [](PetscInt r) {
                 const PetscInt l[] = {96, 97, 192, 193, 64, 65, 128, 129, 768, 769, 95, 1};
                 return l[r % 12];
               })});
  t.push_back({"fully dense 40x40", RandomCsr(rng, 40, 40, [](PetscInt) { return 40; })});
  t.push_back({"equal lengths (700 x 5)", RandomCsr(rng, 700, 50, [](PetscInt) { return 5; })});
  t.push_back({"equal lengths (1100 x 1, diagonal-like)", RandomCsr(rng, 1100, 1100, [](PetscInt) { return 1; })});
  t.push_back({"wide 10x500", RandomCsr(rng, 10, 500, [&](PetscInt) { return Uniform(rng, 0, 100); })});
  t.push_back({"tall 500x8", RandomCsr(rng, 500, 8, [&](PetscInt) { return Uniform(rng, 0, 8); })});
  const auto upto25 = [&](PetscInt) { return Uniform(rng, 0, 25); };
  t.push_back({"unsorted columns", RandomCsr(rng, 100, 100, upto25, false)});
  /* 16-bit offsets (mean >= 24: the rule's D = 16 or 24): a band, columns far apart, and group spans at the limit */
  {
    std::vector<std::vector<PetscInt>> band(1200);
    for (PetscInt r = 0; r < 1200; r++)
      for (PetscInt c = std::max<PetscInt>(0, r - 40); c <= std::min<PetscInt>(1199, r + 40); c++) band[r].push_back(c);
    t.push_back({"band of 81 (1200 rows)", CsrFromRows(1200, band, rng)});
    const PetscInt m = 300, n = 200000;
    t.push_back({"30 a row, columns anywhere in 200000", RandomCsr(rng, m, n, [](PetscInt) { return 30; })});
    for (PetscInt span : {65534, 65535}) { /* every row 30 columns near 0, except row 3 whose last column is span */
      std::vector<std::vector<PetscInt>> rows(m);
      for (PetscInt r = 0; r < m; r++) {
        for (PetscInt c = 0; c < 30; c++) rows[r].push_back((r + c) % 70);
        std::sort(rows[r].begin(), rows[r].end());
        rows[r].erase(std::unique(rows[r].begin(), rows[r].end()), rows[r].end());
        if (r == 3) rows[r].back() = span;
      }
      t.push_back({"a group spanning " + std::to_string(span) + " columns", CsrFromRows(span + 1, rows, rng)});
    }
    t.push_back({"mean 30, far columns, empty rows (50%)", RandomCsr(rng, 2000, 70000, [&](PetscInt) { return u01() < 0.5 ? 0 : Uniform(rng, 40, 80); })});
  }
  t.push_back({"1x1", RandomCsr(rng, 1, 1, [](PetscInt) { return 1; })});
  t.push_back({"1x1 empty", RandomCsr(rng, 1, 1, [](PetscInt) { return 0; })});
  t.push_back({"0x0", RandomCsr(rng, 0, 0, [](PetscInt) { return 0; })});
  t.push_back({"0x7", RandomCsr(rng, 0, 7, [](PetscInt) { return 0; })});
  t.push_back({"7x0", RandomCsr(rng, 7, 0, [](PetscInt) { return 0; })});
  return t;
}

struct TestOptions {
  std::string   name;
  ARgCSROptions o;
};

static TestOptions Opt(PetscInt BS, PetscInt D, bool split = true, bool paper = false, PetscBool3 i16 = PETSC_BOOL3_UNKNOWN, PetscBool3 sort = PETSC_BOOL3_UNKNOWN)
{
  TestOptions t;
  t.o.sort_rows      = sort;
  t.o.block_size     = BS;
  t.o.chunk_size     = D;
  t.o.split_long     = split ? PETSC_TRUE : PETSC_FALSE;
  t.o.paper_grouping = paper ? PETSC_TRUE : PETSC_FALSE;
  t.o.index16        = i16;
  t.name             = "BS " + std::to_string(BS) + " D " + (D == PETSC_DECIDE ? std::string("by the rule") : std::to_string(D)) + (split ? "" : " no split") + (paper ? " paper grouping" : "") + (i16 == PETSC_BOOL3_TRUE ? " index16" : i16 == PETSC_BOOL3_FALSE ? " no index16" : "") + (sort == PETSC_BOOL3_TRUE ? " rows sorted" : sort == PETSC_BOOL3_FALSE ? " rows in CSR order" : "");
  return t;
}

static std::vector<TestOptions> MakeTestOptions()
{
  std::vector<TestOptions> t;
  TestOptions              d;
  d.name = "defaults (BS 128, D by the rule, 16-bit offsets at D >= 16)";
  t.push_back(d);
  t.push_back(Opt(32, 1));
  t.push_back(Opt(32, 3));
  t.push_back(Opt(64, 2));
  t.push_back(Opt(256, 3)); /* the defaults before the H200 sweep */
  t.push_back(Opt(1024, 1));
  t.push_back(Opt(32, 3, false));
  t.push_back(Opt(64, 2, true, true));
  t.push_back(Opt(32, 1, false, true));
  t.push_back(Opt(12, 2)); /* host-only block sizes (the plugin takes multiples of 32): partial warps */
  t.push_back(Opt(40, 5, true, true));
  /* 16-bit offsets forced: one batch (D 8), two (16), partial batches (3, 12), partial warps (12 threads), long rows
     (D 3 with BS 32: pieces of 96), the paper's grouping; the rule's D without them */
  t.push_back(Opt(128, 8, true, false, PETSC_BOOL3_TRUE));
  t.push_back(Opt(128, 16, true, false, PETSC_BOOL3_TRUE));
  t.push_back(Opt(32, 3, true, false, PETSC_BOOL3_TRUE));
  t.push_back(Opt(12, 12, true, false, PETSC_BOOL3_TRUE));
  t.push_back(Opt(64, 20, true, true, PETSC_BOOL3_TRUE));
  t.push_back(Opt(64, 16)); /* explicit D >= 16: 16-bit where they fit, no fallback */
  t.push_back(Opt(128, PETSC_DECIDE, true, false, PETSC_BOOL3_FALSE));
  /* the rows sorted by length in their windows (ROW ORDER): forced at D 16 with 16-bit offsets, at D 3 with windows of
     512 rows and long-row pieces, with the paper's grouping and partial warps; CSR order forced under the rule's D */
  t.push_back(Opt(128, 16, true, false, PETSC_BOOL3_TRUE, PETSC_BOOL3_TRUE));
  t.push_back(Opt(32, 3, true, false, PETSC_BOOL3_UNKNOWN, PETSC_BOOL3_TRUE));
  t.push_back(Opt(12, 5, true, true, PETSC_BOOL3_TRUE, PETSC_BOOL3_TRUE));
  t.push_back(Opt(64, 8, false, false, PETSC_BOOL3_FALSE, PETSC_BOOL3_TRUE));
  t.push_back(Opt(128, 16, true, false, PETSC_BOOL3_UNKNOWN, PETSC_BOOL3_TRUE));
  t.back().o.sort_window = 100; /* windows of the row order unlike the grouping's */
  t.back().name += " sort window 100";
  t.push_back(Opt(128, PETSC_DECIDE, true, false, PETSC_BOOL3_UNKNOWN, PETSC_BOOL3_FALSE));
  return t;
}

/* ------------------------------------------------------------------------------------------------ */
/* Checks                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/*
  y = y0 + A x computed by ARgCSRMultHost, against the CSR product in long double. Per row, the error is
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

/* AIJ's product, in double: sum = y0 (or 0), then sum += a*x in CSR order */
static std::vector<PetscScalar> AIJOrderProduct(const Csr &A, const std::vector<PetscScalar> &x, const std::vector<PetscScalar> &y0, bool add)
{
  std::vector<PetscScalar> y(A.m);
  for (PetscInt r = 0; r < A.m; r++) {
    PetscScalar s = add ? y0[r] : 0.0;
    for (PetscInt k = A.i[r]; k < A.i[r + 1]; k++) s += A.a[k] * x[A.j[k]];
    y[r] = s;
  }
  return y;
}

/* y = A x and y += A x (nonzero y0) through the layout, by both executors, each checked against the CSR:
   ARgCSRMultHost must equal AIJ's order bit for bit; ARgCSRMultHostKernelOrder twice must agree bitwise */
static void CheckProducts(const ARgCSRHostLayout &L, const Csr &A, Rng &rng)
{
  const std::vector<PetscScalar> x = RandomVector(rng, A.n);
  for (bool add : {false, true}) {
    const std::vector<PetscScalar> y0 = add ? RandomVector(rng, A.m) : std::vector<PetscScalar>(A.m, std::nan(""));
    const std::vector<PetscScalar> z0 = add ? y0 : std::vector<PetscScalar>(A.m, 0.0);
    const char                    *what = add ? "y += A x" : "y = A x (y was NaN before)";
    std::vector<PetscScalar>       y = y0, k1 = y0, k2 = y0;
    ARgCSRMultHost(L, A.m, x.data(), y.data(), add);
    CheckProduct(A, x, z0, y, what);
    const std::vector<PetscScalar> aij = AIJOrderProduct(A, x, y0, add);
    Check(y.empty() || std::memcmp(y.data(), aij.data(), y.size() * sizeof(PetscScalar)) == 0, "%s: ARgCSRMultHost differs from the CSR-order sum in some bits", what);
    ARgCSRMultHostKernelOrder(L, x.data(), k1.data(), add);
    ARgCSRMultHostKernelOrder(L, x.data(), k2.data(), add);
    CheckProduct(A, x, z0, k1, (std::string(what) + ", kernel order").c_str());
    Check(k1.empty() || std::memcmp(k1.data(), k2.data(), k1.size() * sizeof(PetscScalar)) == 0, "%s: two runs in kernel order differ", what);
  }
}

/* The groups the rules of argcsr.h give, re-derived here: (first row, rows, piece) */
struct ExpectedGroup {
  PetscInt row0, nrows, piece;
};
/* the row statistics of the chunk size and row order rule, counted here (not by ARgCSRHostRows): the longest row, per
   D = 16, 24, 32 the threads ceil(L/D) (one for an empty row), the longest chunk ceil(L/threads), and the sums of
   threads times the row's chunk, exact and rounded up to batches of 8; the rows rounded up to batches of 8 */
static ARgCSRRows RowsOf(const std::vector<int64_t> &lens)
{
  ARgCSRRows r;
  r.m = (int64_t)lens.size();
  for (int64_t L : lens) {
    r.nnz += L;
    r.maxlen = std::max(r.maxlen, L);
    r.rowslots += (uint64_t)((L + 7) / 8 * 8);
    for (int k = 0; k < 3; k++) {
      const int64_t D = 16 + 8 * k, w = L == 0 ? 1 : (L + D - 1) / D, c = L == 0 ? 0 : (L + w - 1) / w;
      r.threads[k] += (uint64_t)w;
      r.chunk[k] = std::max<int64_t>(r.chunk[k], c);
      r.own[k] += (uint64_t)(w * c);
      r.own8[k] += (uint64_t)(w * ((c + 7) / 8 * 8));
    }
  }
  return r;
}

/* ROW ORDER re-derived: in each window of R rows the rows of the longest length first, each length in row order
   (a bucket pass per length instead of a sort) */
static std::vector<int> ExpectedPerm(const Csr &A, PetscInt R)
{
  std::vector<int> perm;
  for (PetscInt w0 = 0; w0 < A.m; w0 += R) {
    const PetscInt w1   = std::min<PetscInt>(A.m, w0 + R);
    PetscInt       maxl = 0;
    for (PetscInt r = w0; r < w1; r++) maxl = std::max<PetscInt>(maxl, A.Len(r));
    for (PetscInt l = maxl; l >= 0; l--)
      for (PetscInt r = w0; r < w1; r++)
        if (A.Len(r) == l) perm.push_back((int)r);
  }
  return perm;
}
/* A with its rows in the order perm (columns and values unchanged) */
static Csr Permuted(const Csr &A, const std::vector<int> &perm)
{
  std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> rows(A.m);
  for (PetscInt q = 0; q < A.m; q++)
    for (PetscInt k = A.i[perm[q]]; k < A.i[perm[q] + 1]; k++) rows[q].push_back({A.j[k], A.a[k]});
  return CsrFromEntries(A.n, rows);
}
static ARgCSRRows ExpectedRows(const Csr &A)
{
  std::vector<int64_t> lens(A.m);
  for (PetscInt k = 0; k < A.m; k++) lens[k] = A.Len(k);
  return RowsOf(lens);
}

static std::vector<ExpectedGroup> ExpectedGroups(const Csr &A, const ARgCSROptions &o)
{
  const int64_t              BS = o.block_size, D = o.chunk_size, T = BS * D, R = 16 * BS;
  std::vector<ExpectedGroup> g;
  for (PetscInt w0 = 0; w0 < A.m; w0 += R) {
    bool    open = false;
    int64_t used = 0, nnz = 0, rows = 0; /* thread need (next fit) or nonzeros and rows (paper) of the open group */
    for (PetscInt r = w0; r < std::min<PetscInt>(A.m, w0 + R); r++) {
      const int64_t L = A.Len(r);
      if (o.split_long && L > T) {
        for (int64_t p = 0; p * T < L; p++) g.push_back({r, 1, (PetscInt)p});
        open = false;
        continue;
      }
      bool fresh;
      if (!o.paper_grouping) {
        const int64_t need = std::max<int64_t>(1, (L + D - 1) / D);
        fresh              = !open || used + need > BS;
        used               = fresh ? need : used + need;
      } else {
        fresh = !open || rows == BS || nnz > T;
        if (fresh) rows = nnz = 0;
        rows++;
        nnz += L;
      }
      if (fresh) g.push_back({r, 1, -1});
      else g.back().nrows++;
      open = true;
    }
  }
  return g;
}

/* the paper's greedy, naively: every row one thread, each free thread to the first row of largest ceil(len/t) */
static std::vector<int> NaiveGreedy(const std::vector<int64_t> &len, int BS)
{
  std::vector<int> t(len.size(), 1);
  for (int f = (int)len.size(); f < BS; f++) {
    std::size_t best = 0;
    int64_t     key  = -1;
    for (std::size_t i = 0; i < len.size(); i++) {
      const int64_t k = (len[i] + t[i] - 1) / t[i];
      if (k > key) key = k, best = i;
    }
    t[best]++;
  }
  return t;
}

/*
  Layout invariants of a layout built from A with o (argcsr.h), every array re-derived:
  - groups: first row, rows, piece as the grouping rule gives them (ExpectedGroups), long-row table
  - per ordinary group: threads per row (from the inclusive, group-local threadsMapping) = the naive greedy,
    sum BS; C = max ceil(len/t), minimal (no chunk size C-1 fits in BS threads), C <= D under thread-need
    grouping with split long rows; heads = the first thread of each row
  - per piece: C = ceil(piece length / BS), map = BS, heads = thread 0
  - goff = prefix sums of C*BS; the chunks: thread j of a row holds the row's entries [j*C, (j+1)*C) as a
    prefix of its chunk (column-wise position goff + k*BS + t), then -1 / 0 / src -1; every CSR position once
  - statistics
  Returns false when the structure is too broken to run a product on.
*/
static bool CheckPacked(const Csr &A, const ARgCSROptions &o, int D0, const ARgCSRHostLayout &L, const ARgCSRStats &st);

/* the layout's arrays with its rows in CSR order (A: the rows in the layout's order); D0: the D before a fallback */
static bool CheckLayoutInOrder(const Csr &A, const ARgCSROptions &oin, int D0, const ARgCSRHostLayout &L, const ARgCSRStats &st)
{
  /* D: the option, or the rule, or after a fallback (checked in CheckPacked) the default */
  if (!Check(L.p.D == D0 || (L.p.D == kARgCSRDefaultD && !st.index16 && oin.chunk_size == PETSC_DECIDE), "D %d, expected %d", L.p.D, D0)) return false;
  ARgCSROptions o = oin;
  o.chunk_size    = L.p.D;
  const int                        BS = (int)o.block_size, nw = (BS + 31) / 32;
  const int64_t                    D = o.chunk_size, T = BS * D, nnz = A.Nnz();
  const std::vector<ExpectedGroup> eg = ExpectedGroups(A, o);
  const int64_t                    G  = (int64_t)eg.size();

  if (!Check(L.p.BS == BS && L.p.D == D && L.p.T == T && L.p.nw == nw && L.p.R == 16 * BS && L.p.split == (bool)o.split_long && L.p.paper == (bool)o.paper_grouping, "parameters BS %d D %d T %d nw %d R %d split %d paper %d", L.p.BS,
             L.p.D, L.p.T, L.p.nw, L.p.R, (int)L.p.split, (int)L.p.paper))
    return false;
  if (!Check((int64_t)L.ginfo.size() == 4 * G && (int64_t)L.goff.size() == G + 1 && (int64_t)L.heads.size() == G * nw && (int64_t)L.map.size() == A.m, "array sizes: ginfo %zu goff %zu heads %zu map %zu for %lld groups, %" PetscInt_FMT " rows",
             L.ginfo.size(), L.goff.size(), L.heads.size(), L.map.size(), (long long)G, A.m))
    return false;
  for (int64_t g = 0; g < G; g++)
    if (!Check(L.ginfo[4 * g] == eg[g].row0 && L.ginfo[4 * g + 1] == eg[g].nrows && L.ginfo[4 * g + 3] == eg[g].piece, "group %lld = (row %d, %d rows, piece %d), the rule gives (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ")", (long long)g,
               L.ginfo[4 * g], L.ginfo[4 * g + 1], L.ginfo[4 * g + 3], eg[g].row0, eg[g].nrows, eg[g].piece))
      return false;
  /* long-row table */
  std::vector<int> lrow, lgroup, lcount;
  for (int64_t g = 0; g < G; g++)
    if (eg[g].piece == 0) {
      lrow.push_back((int)eg[g].row0);
      lgroup.push_back((int)g);
      lcount.push_back((int)((A.Len(eg[g].row0) + T - 1) / T));
    }
  CheckArray("lrow", L.lrow, lrow);
  CheckArray("lgroup", L.lgroup, lgroup);
  CheckArray("lcount", L.lcount, lcount);

  /* threads, chunk sizes, mapping, heads, offsets */
  if (!Check(L.goff[0] == 0, "goff[0] = %lld", (long long)L.goff[0])) return false;
  int64_t  pieces = 0;
  PetscInt maxc = 0, maxrows = 0;
  for (int64_t g = 0; g < G; g++) {
    const ExpectedGroup &e = eg[g];
    const int            C = L.ginfo[4 * g + 2];
    std::vector<uint32_t> h(nw, 0u);
    if (e.piece >= 0) {
      pieces++;
      const int64_t plen = std::min(T, A.Len(e.row0) - e.piece * T);
      if (!Check(plen > 0 && C == (plen + BS - 1) / BS, "piece group %lld (row %" PetscInt_FMT ", piece %" PetscInt_FMT ", %lld entries): chunk size %d", (long long)g, e.row0, e.piece, (long long)plen, C)) return false;
      Check(L.map[e.row0] == BS, "long row %" PetscInt_FMT ": threadsMapping %d, expected %d", e.row0, L.map[e.row0], BS);
      h[0] = 1u;
    } else {
      std::vector<int64_t> len(e.nrows);
      std::vector<int>     t(e.nrows);
      for (PetscInt i = 0; i < e.nrows; i++) {
        len[i] = A.Len(e.row0 + i);
        t[i]   = L.map[e.row0 + i] - (i ? L.map[e.row0 + i - 1] : 0);
      }
      if (!Check(L.map[e.row0 + e.nrows - 1] == BS, "group %lld: threadsMapping of its last row is %d, expected %d (inclusive, group-local)", (long long)g, L.map[e.row0 + e.nrows - 1], BS)) return false;
      const std::vector<int> greedy = NaiveGreedy(len, BS);
      if (!Check(t == greedy, "group %lld (rows %" PetscInt_FMT "..): threads per row %s, the greedy gives %s", (long long)g, e.row0, ToString(t).c_str(), ToString(greedy).c_str())) return false;
      int64_t cmax = 0, need = 0, excl = 0;
      for (PetscInt i = 0; i < e.nrows; i++) {
        cmax = std::max(cmax, (len[i] + t[i] - 1) / t[i]);
        h[excl >> 5] |= 1u << (excl & 31);
        excl += t[i];
      }
      Check(C == cmax, "group %lld: chunk size %d, max ceil(len/t) = %lld", (long long)g, C, (long long)cmax);
      if (C > 1) {
        for (PetscInt i = 0; i < e.nrows; i++) need += std::max<int64_t>(1, (len[i] + C - 2) / (C - 1));
        Check(need > BS, "group %lld: chunk size %d is not minimal (%lld threads give %d)", (long long)g, C, (long long)need, C - 1);
      }
      if (!o.paper_grouping && o.split_long) Check(C <= D, "group %lld: chunk size %d > D = %lld under thread-need grouping", (long long)g, C, (long long)D);
      maxrows = std::max(maxrows, e.nrows);
    }
    for (int w = 0; w < nw; w++)
      if (!Check(L.heads[g * nw + w] == h[w], "group %lld: heads word %d = %#x, expected %#x", (long long)g, w, L.heads[g * nw + w], h[w])) return false;
    if (!Check(L.goff[g + 1] == L.goff[g] + (int64_t)C * BS, "goff[%lld] = %lld, expected goff[%lld] + C*BS = %lld", (long long)g + 1, (long long)L.goff[g + 1], (long long)g, (long long)(L.goff[g] + (int64_t)C * BS))) return false;
    maxc = std::max<PetscInt>(maxc, C);
  }
  const int64_t S = L.goff[G];
  if (!Check((int64_t)L.col.size() == S && (int64_t)L.val.size() == S && (int64_t)L.src.size() == S, "col/val/src sizes %zu/%zu/%zu, expected %lld", L.col.size(), L.val.size(), L.src.size(), (long long)S)) return false;

  /* the chunks */
  std::vector<int> seen(nnz, 0);
  for (int64_t g = 0; g < G; g++) {
    const ExpectedGroup &e = eg[g];
    const int            C = L.ginfo[4 * g + 2];
    for (int t = 0; t < BS; t++) {
      int64_t beg, end; /* CSR range of the chunk */
      if (e.piece >= 0) {
        const int64_t base = A.i[e.row0] + e.piece * T;
        beg                = base + (int64_t)t * C;
        end                = std::min<int64_t>(base + T, A.i[e.row0 + 1]);
      } else {
        PetscInt i = 0;
        while (L.map[e.row0 + i] <= t) i++;
        const int first = i ? L.map[e.row0 + i - 1] : 0;
        beg             = A.i[e.row0 + i] + (int64_t)(t - first) * C;
        end             = A.i[e.row0 + i + 1];
      }
      for (int k = 0; k < C; k++) {
        const int64_t pos = L.goff[g] + (int64_t)k * BS + t, q = beg + k;
        if (q < end) {
          if (!Check(L.src[pos] == q && L.col[pos] == A.j[q] && L.val[pos] == A.a[q], "group %lld thread %d entry %d: src %lld col %d val %g, expected CSR position %lld (col %" PetscInt_FMT ")", (long long)g, t, k, (long long)L.src[pos], L.col[pos], L.val[pos], (long long)q, A.j[q])) return false;
          seen[q]++;
        } else if (!Check(L.src[pos] == -1 && L.col[pos] == -1 && L.val[pos] == 0.0, "group %lld thread %d entry %d: padding expected (src -1, col -1, 0), has src %lld col %d val %g", (long long)g, t, k, (long long)L.src[pos], L.col[pos], L.val[pos]))
          return false;
      }
    }
  }
  for (int64_t q = 0; q < nnz; q++)
    if (!Check(seen[q] == 1, "CSR position %lld is stored %d times", (long long)q, seen[q])) return false;

  Check(st.m == A.m && st.n == A.n && st.nnz == nnz && st.groups == G && st.pieces == pieces && st.long_rows == (int64_t)lrow.size() && st.stored == S && st.max_chunk == maxc && st.max_rows == maxrows,
        "stats m %" PetscInt_FMT " n %" PetscInt_FMT " nnz %lld groups %lld pieces %lld long %lld stored %lld maxchunk %" PetscInt_FMT " maxrows %" PetscInt_FMT ", expected %" PetscInt_FMT " %" PetscInt_FMT " %lld %lld %lld %zu %lld %" PetscInt_FMT " %" PetscInt_FMT, st.m, st.n,
        (long long)st.nnz, (long long)st.groups, (long long)st.pieces, (long long)st.long_rows, (long long)st.stored, st.max_chunk, st.max_rows, A.m, A.n, (long long)nnz, (long long)G, (long long)pieces, lrow.size(), (long long)S, maxc, maxrows);
  return CheckPacked(A, oin, D0, L, st);
}

/* ROW ORDER: sorted where forced, or where the rule sorts unless the sorted groups span too many columns for the 16-bit
   offsets (then in CSR order, checked by building the sorted layout); a sorted layout's order re-derived, and its arrays
   checked on A with its rows in that order (CSR positions and long rows mapped) */
static bool CheckLayout(const Csr &A, const ARgCSROptions &oin, const ARgCSRHostLayout &L, const ARgCSRStats &st)
{
  const ARgCSRRows rows     = ExpectedRows(A);
  const bool       autoSort = oin.sort_rows == PETSC_BOOL3_UNKNOWN && oin.chunk_size == PETSC_DECIDE && ARgCSRRowRule(rows);
  const bool       want     = oin.sort_rows == PETSC_BOOL3_TRUE || autoSort;
  /* D: the option, or the rule's for the layout's row order (the sorted slots where sorted) */
  const int D0 = oin.chunk_size != PETSC_DECIDE ? (int)oin.chunk_size : ARgCSRChunkRule(rows, st.sorted);
  if (!Check(st.sorted == L.p.sort && (PetscInt)L.perm.size() == (st.sorted ? A.m : 0) && (st.sorted ? want : true), "rows sorted %d (parameter %d, %zu positions), expected %d", (int)st.sorted, (int)L.p.sort, L.perm.size(), (int)want)) return false;
  if (want && !st.sorted) { /* the rule's fallback: sorted at the sorted rows' D a group spans 65535 columns or more */
    ARgCSROptions    o2 = oin;
    ARgCSRHostLayout L2;
    ARgCSRStats      st2;
    o2.sort_rows  = PETSC_BOOL3_TRUE;
    o2.chunk_size = ARgCSRChunkRule(rows, true);
    o2.index16    = PETSC_BOOL3_TRUE;
    if (ARgCSRBuildHostLayout(o2, A.View(), &L2, &st2) != PETSC_SUCCESS) return Check(false, "the sorted layout at D %d", (int)o2.chunk_size);
    if (!Check(autoSort && st2.sorted && !st2.index16 && st2.span >= 65535, "rows in CSR order where the rule sorts: the sorted layout at D %d spans %lld columns (16-bit %d)", (int)o2.chunk_size, (long long)st2.span, (int)st2.index16)) return false;
  }
  if (!st.sorted) return CheckLayoutInOrder(A, oin, D0, L, st);
  const std::vector<int> eperm = ExpectedPerm(A, oin.sort_window == PETSC_DECIDE ? 16 * oin.block_size : oin.sort_window);
  if (L.perm != eperm) {
    CheckArray("row order", L.perm, eperm);
    return false;
  }
  const Csr        P = Permuted(A, L.perm);
  ARgCSRHostLayout Lp = L;
  std::vector<int> pos(A.m);
  for (PetscInt q = 0; q < A.m; q++) pos[L.perm[q]] = (int)q;
  std::vector<int64_t> at(A.Nnz()); /* CSR position in A -> in P */
  for (PetscInt q = 0; q < A.m; q++)
    for (PetscInt k = 0; k < A.Len(L.perm[q]); k++) at[A.i[L.perm[q]] + k] = P.i[q] + k;
  for (int64_t &v : Lp.src)
    if (v >= 0) v = at[v];
  for (int &r : Lp.lrow) r = pos[r];
  Lp.perm.clear();
  return CheckLayoutInOrder(P, oin, D0, Lp, st);
}

/*
  The 16-bit offsets, re-derived: wanted where index16 is true, or unknown at D >= 16; taken iff every group spans
  fewer than 65535 columns (else a rule-chosen D falls back to 8, built again); gbase = each group's smallest column,
  coff = prefix sums of ceil(C/8)*BS, and the offset of entry k = 8b+u of thread t in half u of word coff + b*BS + t
  (0xFFFF where the chunk holds no entry); the 32-bit col stays the host's
*/
static bool CheckPacked(const Csr &A, const ARgCSROptions &o, int D0, const ARgCSRHostLayout &L, const ARgCSRStats &st)
{
  const int64_t G = st.groups, BS = L.p.BS;
  (void)A;
  const bool    want = o.index16 == PETSC_BOOL3_TRUE || (o.index16 == PETSC_BOOL3_UNKNOWN && D0 >= 16);
  int64_t       span = 0;
  for (int64_t g = 0; g < G; g++) {
    int64_t lo = INT64_MAX, hi = -1;
    for (int64_t q = L.goff[g]; q < L.goff[g + 1]; q++)
      if (L.col[q] >= 0) lo = std::min<int64_t>(lo, L.col[q]), hi = std::max<int64_t>(hi, L.col[q]);
    if (hi >= 0) span = std::max(span, hi - lo);
  }
  const bool fallback = want && G && o.chunk_size == PETSC_DECIDE && D0 != kARgCSRDefaultD && L.p.D == kARgCSRDefaultD;
  if (fallback) { /* the layout at D0 had a group spanning 65535 or more (its span is in st.span) */
    return Check(!st.index16 && st.span >= 65535 && L.coff.empty() && L.col16.empty() && L.gbase.empty(), "fallback from D %d: index16 %d, span %lld, packed arrays %zu/%zu/%zu", D0, (int)st.index16, (long long)st.span, L.coff.size(), L.col16.size(), L.gbase.size());
  }
  const bool taken = want && G > 0 && span < 65535;
  if (!Check(st.index16 == taken && L.p.D == D0, "16-bit offsets: wanted %d, widest group %lld: taken %d, expected %d (D %d, expected %d)", (int)want, (long long)span, (int)st.index16, (int)taken, L.p.D, D0)) return false;
  if (!Check(st.span == (want && G ? span : 0), "span statistic %lld, expected %lld", (long long)st.span, (long long)(want && G ? span : 0))) return false;
  if (!taken) return Check(L.coff.empty() && L.col16.empty() && L.gbase.empty() && st.packed == 0, "32-bit columns, yet packed arrays of %zu/%zu/%zu", L.coff.size(), L.col16.size(), L.gbase.size());
  if (!Check((int64_t)L.gbase.size() == G && (int64_t)L.coff.size() == G + 1 && L.coff[0] == 0, "packed array sizes gbase %zu coff %zu", L.gbase.size(), L.coff.size())) return false;
  for (int64_t g = 0; g < G; g++) {
    const int C = L.ginfo[4 * g + 2];
    int       lo = -1;
    for (int64_t q = L.goff[g]; q < L.goff[g + 1]; q++)
      if (L.col[q] >= 0) lo = lo < 0 ? L.col[q] : std::min(lo, L.col[q]);
    if (!Check(L.gbase[g] == std::max(lo, 0), "group %lld: base %d, smallest column %d", (long long)g, L.gbase[g], lo)) return false;
    if (!Check(L.coff[g + 1] - L.coff[g] == (int64_t)((C + 7) / 8) * BS, "group %lld (C %d): %lld words", (long long)g, C, (long long)(L.coff[g + 1] - L.coff[g]))) return false;
    for (int b = 0; b < (C + 7) / 8; b++)
      for (int64_t t = 0; t < BS; t++)
        for (int u = 0; u < 8; u++) {
          const int      k   = 8 * b + u;
          const int      c   = k < C ? L.col[L.goff[g] + (int64_t)k * BS + t] : -1;
          const unsigned exp = c < 0 ? 0xFFFFu : (unsigned)(c - L.gbase[g]);
          const unsigned got = L.col16[(std::size_t)(L.coff[g] + b * BS + t) * 8 + u];
          if (!Check(got == exp && (c < 0 || exp < 0xFFFFu), "group %lld thread %lld entry %d: offset %#x, expected %#x (column %d)", (long long)g, (long long)t, k, got, exp, c)) return false;
        }
  }
  return Check((int64_t)L.col16.size() == 8 * L.coff[G] && st.packed == L.coff[G], "col16 holds %zu halves, packed %lld, coff[G] %lld", L.col16.size(), (long long)st.packed, (long long)L.coff[G]);
}

/* ------------------------------------------------------------------------------------------------ */
/* Groups                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/* 1. The paper's 8x8 example (brief B1, B3): rows 0-6 one entry (diagonal), row 7 full */
static PetscErrorCode TestWorkedExample(Rng &rng)
{
  const int                                                  before = g_failures;
  std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> rows(8);
  std::vector<PetscScalar>                                   d(7), f(8);
  for (int r = 0; r < 7; r++) rows[r] = {{r, d[r] = 1.5 + r}};
  for (int c = 0; c < 8; c++) rows[7].push_back({c, f[c] = -0.25 - c});
  const Csr        A = CsrFromEntries(8, rows);
  ARgCSRHostLayout L;
  ARgCSRStats      st;
  /* 12 threads: t = [1 x 7, 5], chunk size 2; row 7's entries e go to thread 7 + e/2, position e%2 */
  const std::vector<int>         col = {0, 1, 2, 3, 4, 5, 6, 0, 2, 4, 6, -1, -1, -1, -1, -1, -1, -1, -1, 1, 3, 5, 7, -1};
  const std::vector<PetscScalar> val = {d[0], d[1], d[2], d[3], d[4], d[5], d[6], f[0], f[2], f[4], f[6], 0, 0, 0, 0, 0, 0, 0, 0, f[1], f[3], f[5], f[7], 0};
  const std::vector<int64_t>     src = {0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 13, -1, -1, -1, -1, -1, -1, -1, -1, 8, 10, 12, 14, -1};

  PetscFunctionBeginUser;
  for (const TestOptions &to : {Opt(12, 2), Opt(12, 1, true, true), Opt(12, 8)}) {
    g_context = "worked example, " + to.name;
    PetscCall(ARgCSRBuildHostLayout(to.o, A.View(), &L, &st));
    CheckArray("groupInfo {firstRow, size, chunkSize, piece}", L.ginfo, std::vector<int>{0, 8, 2, -1});
    CheckArray("group offsets", L.goff, std::vector<int64_t>{0, 24});
    CheckArray("threadsMapping", L.map, std::vector<int>{1, 2, 3, 4, 5, 6, 7, 12});
    CheckArray("heads", L.heads, std::vector<uint32_t>{0xffu});
    CheckArray("columns", L.col, col);
    CheckArray("values", L.val, val);
    CheckArray("src", L.src, src);
    int zeros = 0; /* artificial zeros in the chunks of the rows (thread 11 holds no entry: not counted) */
    for (int k = 0; k < 2; k++)
      for (int t = 0; t < 11; t++) zeros += L.src[k * 12 + t] < 0;
    Check(zeros == 7 && L.src[11] < 0 && L.src[23] < 0, "%d artificial zeros in the rows' chunks (the paper: 7), thread 11 must be empty", zeros);
    if (CheckLayout(A, to.o, L, st)) CheckProducts(L, A, rng);
  }
  /* one thread a row (8 threads): chunk size 8, the paper's 49 artificial zeros */
  g_context = "worked example, 8 threads";
  PetscCall(ARgCSRBuildHostLayout(Opt(8, 8).o, A.View(), &L, &st));
  CheckArray("threadsMapping", L.map, std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8});
  Check(L.ginfo.size() == 4 && L.ginfo[2] == 8 && st.stored - st.nnz == 49, "chunk size %d, %lld artificial zeros; the paper: 8 and 49", L.ginfo.size() == 4 ? L.ginfo[2] : -1, (long long)(st.stored - st.nnz));
  if (CheckLayout(A, Opt(8, 8).o, L, st)) CheckProducts(L, A, rng);
  /* thread-need grouping with D = 1 cannot keep row 7 (8 threads) with the 7 others in 12 threads; in the
     first group all rows tie at chunk filling 1, so the free threads go to the lowest row (pure greedy) */
  g_context = "worked example, BS 12 D 1";
  PetscCall(ARgCSRBuildHostLayout(Opt(12, 1).o, A.View(), &L, &st));
  CheckArray("groupInfo", L.ginfo, std::vector<int>{0, 7, 1, -1, 7, 1, 1, -1});
  CheckArray("threadsMapping", L.map, std::vector<int>{6, 7, 8, 9, 10, 11, 12, 12});
  if (CheckLayout(A, Opt(12, 1).o, L, st)) CheckProducts(L, A, rng);
  ReportGroup("1 worked example", before, "paper's 8x8 with 12 threads: t = [1 x 7, 5], chunk 2, map [1..7,12], 7 artificial zeros; 8 threads: 49");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 2. ARgCSRMultHost against the CSR product */
static PetscErrorCode TestExecutor(const std::vector<TestMatrix> &mats, const std::vector<TestOptions> &opts, Rng &rng)
{
  const int before  = g_failures;
  int       layouts = 0;

  PetscFunctionBeginUser;
  for (const auto &t : mats)
    for (const auto &to : opts) {
      ARgCSRHostLayout L;
      ARgCSRStats      st;
      g_context = "executor: " + t.name + ", " + to.name;
      PetscCall(ARgCSRBuildHostLayout(to.o, t.A.View(), &L, &st));
      CheckProducts(L, t.A, rng);
      layouts++;
    }
  ReportGroup("2 executor vs CSR", before, std::to_string(mats.size()) + " matrices x " + std::to_string(opts.size()) + " options: " + std::to_string(2 * layouts) + " products (y = A x, y += A x), CSR order bitwise AIJ's, kernel order deterministic");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 3. layout invariants and statistics */
static PetscErrorCode TestLayouts(const std::vector<TestMatrix> &mats, const std::vector<TestOptions> &opts)
{
  const int before = g_failures;
  int       layouts = 0, long_layouts = 0, packed = 0, fallbacks = 0, ruled = 0, onethread = 0, sorted = 0, rulesorted = 0, sortfallbacks = 0;

  PetscFunctionBeginUser;
  for (const auto &t : mats)
    for (const auto &to : opts) {
      ARgCSRHostLayout L;
      ARgCSRStats      st;
      g_context = "layout: " + t.name + ", " + to.name;
      PetscCall(ARgCSRBuildHostLayout(to.o, t.A.View(), &L, &st));
      CheckLayout(t.A, to.o, L, st);
      layouts++;
      long_layouts += st.long_rows > 0;
      packed += st.index16;
      fallbacks += to.o.chunk_size == PETSC_DECIDE && to.o.index16 == PETSC_BOOL3_UNKNOWN && st.span >= 65535 && !st.index16;
      ruled += to.o.chunk_size == PETSC_DECIDE && L.p.D > kARgCSRDefaultD;
      onethread += to.o.chunk_size == PETSC_DECIDE && L.p.D > ARgCSRWideD(2) && st.index16; /* D = the longest row */
      sorted += st.sorted;
      if (to.o.chunk_size == PETSC_DECIDE && to.o.sort_rows == PETSC_BOOL3_UNKNOWN) {
        const bool rs = ARgCSRRowRule(ExpectedRows(t.A));
        rulesorted += rs && st.sorted;
        sortfallbacks += rs && !st.sorted;
      }
    }
  Check(sorted > 0 && rulesorted > 0 && sortfallbacks > 0, "layouts with sorted rows %d, sorted by the rule %d, the rule's sort undone (16-bit spans) %d: each must be > 0", sorted, rulesorted, sortfallbacks);
  Check(long_layouts > 0 && packed > 0 && fallbacks > 0 && ruled > 0, "layouts with long rows %d, with 16-bit offsets %d, fallbacks to 32-bit %d, rule-chosen D > 8 %d: each must be > 0", long_layouts, packed, fallbacks, ruled);
#if !defined(PETSC_USE_COMPLEX)
  Check(onethread > 0, "layouts at one thread a row by the rule %d: must be > 0", onethread);
#endif
  ReportGroup("3 layout", before, std::to_string(layouts) + " layouts (" + std::to_string(long_layouts) + " with long rows, " + std::to_string(packed) + " with 16-bit offsets, " + std::to_string(ruled) + " at the rule's D > 8 (" + std::to_string(onethread) + " one thread a row), " + std::to_string(fallbacks) + " fallbacks to 32-bit, " + std::to_string(sorted) + " with sorted rows, " + std::to_string(rulesorted) + " by the rule, " + std::to_string(sortfallbacks) + " back to CSR order): row order, groups, greedy, chunk sizes, mapping, heads, offsets, chunks, packed offsets, stats");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 4. values refresh: same pattern, new values */
static PetscErrorCode TestRefresh(const std::vector<TestMatrix> &mats, const std::vector<TestOptions> &opts, Rng &rng)
{
  const int before  = g_failures;
  int       layouts = 0;

  PetscFunctionBeginUser;
  for (const auto &t : mats)
    for (const auto &to : {opts[0], opts[1], opts[6], opts[12], opts[18], opts[19]}) {
      ARgCSRHostLayout L;
      ARgCSRStats      st;
      g_context = "refresh: " + t.name + ", " + to.name;
      PetscCall(ARgCSRBuildHostLayout(to.o, t.A.View(), &L, &st));
      const ARgCSRHostLayout old = L;
      const Csr              B   = WithNewValues(t.A, rng);
      PetscCall(ARgCSRRefreshHostLayout(B.View(), &L));
      Check(L.ginfo == old.ginfo && L.goff == old.goff && L.heads == old.heads && L.map == old.map && L.col == old.col && L.src == old.src && L.lrow == old.lrow && L.lgroup == old.lgroup && L.lcount == old.lcount && L.gbase == old.gbase && L.coff == old.coff && L.col16 == old.col16 && L.perm == old.perm, "the refresh changed the structure");
      bool ok = L.val.size() == L.src.size();
      for (std::size_t k = 0; ok && k < L.val.size(); k++) ok = L.val[k] == (L.src[k] >= 0 ? B.a[L.src[k]] : 0.0);
      Check(ok, "values after the refresh are not the new CSR values (0 on padding)");
      if (CheckLayout(B, to.o, L, st)) CheckProducts(L, B, rng);
      layouts++;
    }
  ReportGroup("4 refresh", before, std::to_string(layouts) + " layouts refreshed with new values, products of the new CSR");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 5. the shared rules against naive versions; option ranges */
static PetscErrorCode TestRules(Rng &rng)
{
  const int before = g_failures;

  PetscFunctionBeginUser;
  g_context = "rules: Select32";
  for (int n = 0; n < 20000; n++) {
    uint32_t m = (uint32_t)rng();
    if (n % 3 == 0) m &= (uint32_t)rng();
    if (n % 5 == 0) m |= 1u << (n % 32);
    if (!m) continue;
    int j = 0;
    for (int b = 0; b < 32; b++)
      if ((m >> b) & 1u) {
        if (!Check(ARgCSRSelect32(m, j) == b, "Select32(%#x, %d) = %d, expected %d", m, j, ARgCSRSelect32(m, j), b)) break;
        j++;
      }
    if (!Check(ARgCSRPopc(m) == j && ARgCSRLowBit(m) == __builtin_ctz(m) && ARgCSRHighBit(m) == 31 - __builtin_clz(m), "popcount/low/high bit of %#x", m)) break;
  }
  for (int b = 0; b < 32; b++) Check(ARgCSRUpTo(b) == (b == 31 ? 0xffffffffu : (1u << (b + 1)) - 1u), "UpTo(%d) = %#x", b, ARgCSRUpTo(b));

  g_context = "rules: thread/row lookups";
  for (int n = 0; n < 300; n++) { /* random thread counts for up to BS rows */
    const int        BS = 32 * (int)Uniform(rng, 1, 8) - (n % 4 == 0 ? (int)Uniform(rng, 0, 31) : 0), nw = (BS + 31) / 32;
    const int        nr = (int)Uniform(rng, 1, BS);
    std::vector<int> t(nr, 1);
    for (int f = nr; f < BS; f++) t[Uniform(rng, 0, nr - 1)]++;
    std::vector<uint32_t> h(nw, 0u);
    std::vector<int>      first(nr), owner(BS);
    for (int i = 0, e = 0; i < nr; e += t[i], i++) {
      first[i] = e;
      h[e >> 5] |= 1u << (e & 31);
      for (int k = 0; k < t[i]; k++) owner[e + k] = i;
    }
    bool ok = true;
    for (int tt = 0; ok && tt < BS; tt++) {
      int li, fi;
      ARgCSRThreadRow(h.data(), tt, &li, &fi);
      ok = Check(li == owner[tt] && fi == first[owner[tt]], "BS %d: ThreadRow(%d) = row %d first %d, expected %d %d", BS, tt, li, fi, owner[tt], first[owner[tt]]);
    }
    for (int i = 0; ok && i < nr; i++) {
      int b, e;
      ARgCSRRowThreads(h.data(), nw, BS, i, &b, &e);
      ok = Check(b == first[i] && e == first[i] + t[i], "BS %d: RowThreads(%d) = [%d, %d), expected [%d, %d)", BS, i, b, e, first[i], first[i] + t[i]);
    }
    for (int w = 0; ok && w < nw; w++) {
      const int      lanes = std::min(32, BS - 32 * w);
      const uint32_t segs  = h[w] | 1u;
      for (int l = 0; ok && l < lanes; l++) {
        int e = l + 1;
        while (e < lanes && !((segs >> e) & 1u)) e++;
        ok = Check(ARgCSRSegEnd(segs, l, lanes) == e, "SegEnd(%#x, %d, %d) = %d, expected %d", segs, l, lanes, ARgCSRSegEnd(segs, l, lanes), e);
      }
    }
  }

  g_context = "rules: greedy key";
  Check(ARgCSRKey(10, 3, 5) > ARgCSRKey(9, 3, 0) && ARgCSRKey(8, 2, 1) > ARgCSRKey(8, 2, 2) && ARgCSRKey(0, 1, 0) < ARgCSRKey(1, 1, 100), "key order: larger ceil(len/t) first, then the lower row");

  g_context = "rules: chunk size";
  {
    /* m rows, half of length lo and half hi */
    const auto rows = [](int64_t m, int64_t lo, int64_t hi) {
      std::vector<int64_t> lens(m);
      for (int64_t k = 0; k < m; k++) lens[k] = k < m / 2 ? lo : hi;
      return RowsOf(lens);
    };
    /* {rows, expected D (real scalars), CSR order}: below 24 a row 8; one thread a row (D = the longest row, at most 96 and
       twice the mean) where its slots are 5% fewer than the wide D's: 49 a row 56 against 64 / 72 / 64 slots, 81 a row 88
       against 96 each; else the largest of 16, 24, 32 within 3% of the fewest slots (threads times the longest chunk in
       batches of 8): 45 a row 48 / 48 / 48 (one thread: 48, not fewer), 100 a row 112 / 120 / 128 (longer than 96), 121 a row
       128 / 144 / 128, half 5 half 95 112 / 120 / 128 a pair (95 over twice the mean), half 0 half 90 the same; half 28
       half 52 and half 17 half 33 take one thread a row only sorted (the longest row 1.3 times the mean) */
    const std::vector<std::pair<ARgCSRRows, int>> cases = {{rows(1000, 20, 20), 8},  {rows(1000, 23, 24), 8},   {rows(1000, 24, 24), 32},  {rows(1000, 27, 27), 32}, {rows(1000, 45, 45), 32}, {rows(1000, 49, 49), 49},
                                                           {rows(1000, 81, 81), 81}, {rows(1000, 100, 100), 16}, {rows(1000, 121, 121), 32}, {rows(1000, 5, 95), 16},  {rows(1000, 0, 90), 16},  {rows(1000, 28, 52), 32},
                                                           {rows(1000, 17, 33), 32}, {ARgCSRRows(), 8}};
    for (const auto &[r, D] : cases) {
#if defined(PETSC_USE_COMPLEX)
      const int want = kARgCSRDefaultD;
#else
      const int want = D;
#endif
      Check(ARgCSRChunkRule(r) == want, "ChunkRule(mean %.2f, slots %.0f / %.0f / %.0f) = %d, expected %d", r.Mean(), r.Slots(0), r.Slots(1), r.Slots(2), ARgCSRChunkRule(r), want);
    }
    /* the row order: {rows, D, sorted}, sorted where Mixing at the rule's D is at least 1.10. Half 20 half 60: at D 32
       (slots 48000 / 48000 / 48000 in CSR order) 2 x 30 beside 20 store 12.5% more value slots than the rows' own:
       sorted, D by the sorted slots 48000 / 48000 / 44000: 32. Half 0 half 90: 16.7% more at D 16 (slots 48000 / 48000 /
       48000): sorted, D 32 (sorted 48000 each). CSR order: half 10 half 60 at D 16 (15 x 2500 against 35000: 7.1%), half
       24 half 90 at D 24 (3.4%), half 28 half 44 at D 16 (2.7%), equal rows, rows below 24. One thread a row: half 17 half
       33 (CSR order at D 32, 36000 slots: 2 x 24 for a row of 33) sorted at D 33 (the longest row 1.32 times the mean; the
       rows' own batches 24 and 40: 32000 slots, 11% fewer); 81 a row in CSR order at D 81 (88 slots a row against 96). Half
       20 half 60 one thread a row stores as many as sorted at D 32 (44000), half 24 half 90 5% more than CSR order at D 24
       (63000 against 60000): neither. */
    const std::vector<std::tuple<ARgCSRRows, int, bool>> order = {{rows(1000, 20, 60), 32, true},  {rows(1000, 0, 90), 32, true},   {rows(1000, 10, 60), 16, false}, {rows(1000, 17, 33), 33, true}, {rows(1000, 24, 90), 24, false},
                                                                  {rows(1000, 28, 44), 16, false}, {rows(1000, 81, 81), 81, false}, {rows(1000, 20, 20), 8, false},  {ARgCSRRows(), 8, false}};
    for (const auto &[r, D, sort] : order) {
      const bool gs = ARgCSRRowRule(r);
      const int  gD = ARgCSRChunkRule(r, gs);
#if defined(PETSC_USE_COMPLEX)
      const int  wD = kARgCSRDefaultD;
      const bool ws = false;
#else
      const int  wD = D;
      const bool ws = sort;
#endif
      Check(gD == wD && gs == ws, "RowRule(mean %.2f, mixing %.3f / %.3f / %.3f) = D %d sorted %d, expected D %d sorted %d", r.Mean(), r.Mixing(0), r.Mixing(1), r.Mixing(2), gD, (int)gs, wD, (int)ws);
    }
  }

  g_context = "rules: option ranges";
  const std::vector<std::pair<PetscInt, PetscInt>> bad = {{48, 3}, {0, 3}, {2048, 3}, {-32, 3}, {33, 1}, {256, 0}, {256, -2}, {256, 65537}};
  for (const auto &[bs, dd] : bad) {
    ARgCSROptions  o;
    PetscErrorCode ierr;
    o.block_size = bs;
    o.chunk_size = dd;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
    ierr = ARgCSRCheckOptions(o);
    PetscCall(PetscPopErrorHandler());
    Check(ierr == PETSC_ERR_ARG_OUTOFRANGE, "block size %" PetscInt_FMT ", chunk size %" PetscInt_FMT ": error %d, expected PETSC_ERR_ARG_OUTOFRANGE", bs, dd, (int)ierr);
  }
  for (const auto &[bs, dd] : std::vector<std::pair<PetscInt, PetscInt>>{{32, 1}, {1024, 65536}, {256, 3}, {128, PETSC_DECIDE}}) {
    ARgCSROptions o;
    o.block_size = bs;
    o.chunk_size = dd;
    Check(ARgCSRCheckOptions(o) == PETSC_SUCCESS, "block size %" PetscInt_FMT ", chunk size %" PetscInt_FMT " refused", bs, dd);
  }
  for (PetscInt bs : {0, 1025}) {
    ARgCSROptions  o;
    ARgCSRParams   p;
    PetscErrorCode ierr;
    o.block_size = bs;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
    ierr = ARgCSRSetParams(o, ARgCSRRows(), &p);
    PetscCall(PetscPopErrorHandler());
    Check(ierr == PETSC_ERR_ARG_OUTOFRANGE, "layout block size %" PetscInt_FMT " accepted", bs);
  }
  ReportGroup("5 rules", before, "Select32, ThreadRow, RowThreads, SegEnd vs naive; greedy key order; chunk size rule; option ranges");
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  seed;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, "ARgCSR host reference unit tests; -seed N reruns a random sequence"));
  seed = (PetscInt)(std::chrono::system_clock::now().time_since_epoch().count() % 2147483647);
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-seed", &seed, &set));
  std::printf("test_argcsr_host: seed %" PetscInt_FMT " (rerun with -seed %" PetscInt_FMT ")\n", seed, seed);
  Rng rng((uint64_t)seed);

  PetscCall(TestWorkedExample(rng));
  const std::vector<TestMatrix>  mats = MakeTestMatrices(rng);
  const std::vector<TestOptions> opts = MakeTestOptions();
  PetscCall(TestExecutor(mats, opts, rng));
  PetscCall(TestLayouts(mats, opts));
  PetscCall(TestRefresh(mats, opts, rng));
  PetscCall(TestRules(rng));

  if (g_failures)
    std::printf("test_argcsr_host: %d checks FAILED (seed %" PetscInt_FMT ")\n", g_failures, seed);
  else
    std::printf("test_argcsr_host: all checks passed\n");
  std::fflush(stdout);
  PetscCall(PetscFinalize());
  return g_failures ? 1 : 0;
}
