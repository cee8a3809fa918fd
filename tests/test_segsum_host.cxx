/*
   test_segsum_host: unit tests of the speculative segmented sum host reference
   (src/mat/impls/spmv/segsum/segsumhost.cxx), which executes the device algorithm lane by lane.

     1. worked example   a hand-made 10-row matrix with tile 64, S = 2: exact tile boundaries, synchronizer
                         slots and runs, empty rows, fast-track / dirty tile counts
     2. layout           the auxiliary arrays against a brute-force recomputation, on every matrix below
     3. exact products   integer values and x: every partial sum is exact, so y = A x and y += A x must equal
                         the CSR product bit for bit, whatever the tiling (a misplaced or lost segment shows)
     4. real products    random values against a long double CSR product (relative 1e-13, or within the
                         n eps sum |a x| bound on a long row whose terms cancel)
   3 and 4 run segsum and dcsr (16-bit column offsets per tile, wide tiles on the CSR's columns): the same
   products bit for bit, and dcsr's tile bases and offsets against a brute-force recomputation; matrices with
   columns far apart in every tile (all tiles wide), tiles spanning exactly 65535 and 65536 columns, a mix.
   The matrices put the weight on empty rows (leading, trailing, runs shorter and longer than a tile, at
   tile and warp boundaries, every row empty), rows starting exactly at tile and warp boundaries, a single
   row holding all nonzeros, rows over many warps (the fix-up's warp path), rectangular, 1x1, 0x0, 0 x n,
   m x 0; each under every tile size (64..512) and several tiles-per-warp counts (1..31).

   Usage: test_segsum_host [-seed N] [-write DIR]   (the seed defaults to the clock and is printed, to rerun a
          failure; -write only writes the matrices as Matrix Market files DIR/segsum_NN.mtx, for the GPU checks)
   Exit status is nonzero on any failure; every failure prints one "FAIL [context]: ..." line.
*/
#include "mat/impls/spmv/segsum/segsum.h"
#include <algorithm>
#include <chrono>
#include <cfloat>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>
#include <set>

#include "hosttest.h" /* g_failures, g_context, Check(), ReportGroup(), ToString() */

/* ------------------------------------------------------------------------------------------------ */
/* matrices                                                                                         */
/* ------------------------------------------------------------------------------------------------ */

using Rng = std::mt19937_64;

struct Csr {
  std::string              name;
  PetscInt                 m = 0, n = 0;
  std::vector<PetscInt>    i{0}, j;
  std::vector<PetscScalar> a;

  PetscInt    Nnz() const { return (PetscInt)j.size(); }
  SpMVHostCsr View() const
  {
    SpMVHostCsr A;
    A.m   = m;
    A.n   = n;
    A.nnz = Nnz();
    A.i   = i.data();
    A.j   = j.data();
    A.a   = a.data();
    return A;
  }
};

/* A matrix from its row lengths: distinct sorted random columns (all columns when len >= n) */
static Csr FromLengths(const std::string &name, PetscInt n, const std::vector<PetscInt> &len, Rng &rng)
{
  Csr A;
  A.name = name;
  A.m    = (PetscInt)len.size();
  A.n    = n;
  for (PetscInt r = 0; r < A.m; r++) {
    const PetscInt l = std::min(len[r], n);
    if (l == n)
      for (PetscInt c = 0; c < n; c++) A.j.push_back(c);
    else {
      std::vector<PetscInt> cols; /* draw until l distinct (dedupe in batches: rows can be long) */
      while ((PetscInt)cols.size() < l) {
        std::uniform_int_distribution<PetscInt> col(0, n - 1);
        for (PetscInt k = (PetscInt)cols.size(); k < l; k++) cols.push_back(col(rng));
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      }
      A.j.insert(A.j.end(), cols.begin(), cols.end());
    }
    A.i.push_back((PetscInt)A.j.size());
  }
  A.a.assign(A.j.size(), 1.0);
  return A;
}

/* the matrices of sections 2-4 */
static std::vector<Csr> Matrices(Rng &rng)
{
  std::vector<Csr> v;
  auto             lens = [&](PetscInt m, PetscInt lo, PetscInt hi, double empty) {
    std::vector<PetscInt>                   l(m);
    std::uniform_int_distribution<PetscInt> d(lo, hi);
    std::uniform_real_distribution<double>  u(0, 1);
    for (auto &x : l) x = u(rng) < empty ? 0 : d(rng);
    return l;
  };
  auto add = [&](const std::string &name, PetscInt n, std::vector<PetscInt> l) { v.push_back(FromLengths(name, n, l, rng)); };
  add("random 600x600 k 1..15", 600, lens(600, 1, 15, 0));
  add("random 2000x2000 k 0..9, 20% empty", 2000, lens(2000, 0, 9, 0.2));
  add("random 1500x1500, 70% empty", 1500, lens(1500, 1, 6, 0.7));
  add("random 3000x3000 k 1..3 (short rows)", 3000, lens(3000, 1, 3, 0));
  { /* leading and trailing empty rows, short and long runs */
    for (PetscInt lead : {1, 31, 32, 64, 700}) {
      auto l = lens(400, 1, 12, 0);
      l.insert(l.begin(), lead, 0);
      add("leading " + std::to_string(lead) + " empty rows", 500, l);
    }
    for (PetscInt trail : {1, 33, 1000}) {
      auto l = lens(400, 1, 12, 0);
      l.insert(l.end(), trail, 0);
      add("trailing " + std::to_string(trail) + " empty rows", 500, l);
    }
    std::vector<PetscInt> l; /* runs of 1 .. 3000 empty rows between short rows: ranges longer than a tile */
    for (PetscInt run : {1, 2, 5, 63, 64, 65, 200, 513, 3000, 7}) {
      auto s = lens(40, 1, 9, 0);
      l.insert(l.end(), s.begin(), s.end());
      l.insert(l.end(), run, 0);
    }
    add("runs of empty rows (1..3000)", 300, l);
    std::vector<PetscInt> l2(5000, 0); /* a few rows among thousands of empty ones */
    for (PetscInt r : {0, 17, 1800, 1801, 4999}) l2[r] = 5 + r % 40;
    add("5 non-empty rows in 5000", 100, l2);
  }
  { /* rows starting exactly at tile and warp boundaries, with empty rows right at the boundary */
    for (PetscInt len : {32, 64, 128, 256, 512, 1024}) add("all rows of length " + std::to_string(len), 1100, std::vector<PetscInt>(60, len));
    std::vector<PetscInt> l;
    for (int k = 0; k < 30; k++) {
      l.push_back(64 * (1 + k % 3));
      l.push_back(0);
      if (k % 2) l.push_back(0);
    }
    add("tile-multiple rows, empty rows at the boundaries", 400, l);
    std::vector<PetscInt> l3;
    for (int k = 0; k < 40; k++) {
      l3.push_back(64 * 7 - 1); /* one short of a boundary, then a one-entry row on it */
      l3.push_back(1);
      l3.push_back(0);
    }
    add("rows ending one before a boundary", 500, l3);
  }
  { /* long rows: over a warp, over 32 warps (the fix-up's warp path) */
    auto l = lens(3000, 1, 6, 0.1);
    l[5]    = 4000;
    l[1200] = 70000;
    l[2999] = 9000;
    add("long rows (4000, 70000, 9000) among short", 80000, l);
    add("one row holding all nonzeros (1 x 20000)", 20000, std::vector<PetscInt>{20000});
    std::vector<PetscInt> l2(300, 0);
    l2[150] = 40000;
    add("one non-empty row (the middle one) of 300", 40000, l2);
    std::vector<PetscInt> l3(300, 0);
    l3[0] = 3000;
    add("only the first row non-empty", 5000, l3);
    std::vector<PetscInt> l4(300, 0);
    l4[299] = 3000;
    add("only the last row non-empty", 5000, l4);
    std::vector<PetscInt> l5(1, 0);
    for (int k = 0; k < 6; k++) l5.push_back(9000);
    add("consecutive rows longer than several warps", 9000, l5);
  }
  { /* power law */
    std::vector<PetscInt>                  l(4000);
    std::uniform_real_distribution<double> u(0, 1);
    for (auto &x : l) x = (PetscInt)std::min(3999.0, std::floor(std::pow(u(rng), -1.6)) - 1);
    add("power-law row lengths", 4000, l);
  }
  { /* dcsr: columns far apart in every tile (every tile wide), and tiles spanning exactly 65535 / 65536 columns */
    add("random 2000 x 1000000 (columns far apart in every tile)", 1000000, lens(2000, 1, 9, 0.1));
    Csr B;
    B.name = "rows of 64 spanning 65535, 65536, 65535 columns";
    B.m    = 3;
    B.n    = 70000;
    for (PetscInt r = 0; r < 3; r++) {
      const PetscInt c0 = r == 2 ? 1000 : 0, span = r == 1 ? 65536 : 65535;
      for (PetscInt c = 0; c < 63; c++) B.j.push_back(c0 + c);
      B.j.push_back(c0 + span);
      B.i.push_back((PetscInt)B.j.size());
    }
    B.a.assign(B.j.size(), 1.0);
    v.push_back(B);
  }
  /* dcsr's row kernel: long, even rows (the default picks it), and an uneven row among them (it does not) */
  add("long even rows 24..60", 5000, lens(1500, 24, 60, 0));
  add("long even rows 100..140, some empty (dcsr's row kernel)", 200000, lens(700, 100, 140, 0.05));
  {
    auto l = lens(1000, 100, 120, 0);
    l[500] = 1000;
    add("rows of 100..120 and one of 1000 (the tiles)", 3000, l);
  }
  /* shapes */
  add("rectangular 300 x 4000", 4000, lens(300, 5, 60, 0.1));
  add("rectangular 4000 x 90", 90, lens(4000, 0, 8, 0.05));
  add("1x1", 1, {1});
  add("1x1 empty", 1, {0});
  add("every row empty (50 x 50)", 50, std::vector<PetscInt>(50, 0));
  add("0x0", 0, {});
  add("0 x 7", 7, {});
  add("5 x 0", 0, std::vector<PetscInt>(5, 0));
  return v;
}

/* ------------------------------------------------------------------------------------------------ */
/* references                                                                                       */
/* ------------------------------------------------------------------------------------------------ */

/* the auxiliary arrays recomputed by brute force (linear scans, no shared code with the builder) */
static int g_masklayouts = 0; /* dcsr layouts with head masks checked */
static int g_foot4 = 0, g_foot8 = 0; /* dcsr layouts whose x footprint gave 4 or 8 warps a block */

static void CheckLayout(const Csr &A, const SegSumOptions &o, const SegSumHostLayout &L, const SegSumStats &st)
{
  const PetscInt m = A.m, nnz = A.Nnz(), WT = o.tile;
  const int64_t  ntiles = (nnz + WT - 1) / WT, nwarps = (ntiles + o.S - 1) / o.S;
  Check(st.c16 == o.c16, "c16 %d, expected %d", (int)st.c16, (int)o.c16);
  if (o.c16) { /* dcsr: a tile is narrow iff its columns span <= 65535; then base = its smallest column, base + offset = the column */
    int64_t nwide = 0, nwidennz = 0;
    bool    ok    = L.cbase.size() == (std::size_t)ntiles && L.c16.size() == (std::size_t)(ntiles * WT);
    for (int64_t t = 0; ok && t < ntiles; t++) {
      const int64_t e1 = std::min<int64_t>((t + 1) * WT, nnz);
      PetscInt      lo = A.j[t * WT], hi = lo;
      for (int64_t e = t * WT; e < e1; e++) lo = std::min(lo, A.j[e]), hi = std::max(hi, A.j[e]);
      if (hi - lo > 65535) {
        nwide++, nwidennz += e1 - t * WT;
        ok = L.cbase[t] == -1;
      } else {
        ok = L.cbase[t] == lo;
        for (int64_t e = t * WT; ok && e < e1; e++) ok = (PetscInt)L.cbase[t] + L.c16[e] == A.j[e];
      }
      for (int64_t e = e1; ok && e < (t + 1) * WT; e++) ok = L.c16[e] == 0;
    }
    Check(ok, "dcsr tile bases or column offsets differ from the brute-force ones");
    /* head masks: where no row is empty, the tiles are 128 nonzeros and the tile kernel runs; then bit b of word w
       of tile t: a row starts at entry 128 t + 32 w + b */
    bool anyempty = false;
    for (PetscInt r = 0; r < m; r++) anyempty |= A.i[r] == A.i[r + 1];
    const bool masks = o.masks && WT == 128 && !anyempty && !st.rowlanes && ntiles > 0;
    Check(st.masks == masks, "dcsr head masks %d, expected %d", (int)st.masks, (int)masks);
    const bool worder = o.worder && !st.rowlanes && ntiles > 0; /* single-row tiles in the warp's order wherever the tiles run */
    Check(st.worder == worder, "dcsr warp order %d, expected %d", (int)st.worder, (int)worder);
    /* warps a block from the x footprint (o.warps 0): distinct 4-column groups in 64 windows of 1024 nonzeros, by brute force */
    int64_t xg = 0, xs = 0;
    if (o.warps == 0 && !st.rowlanes && nnz > 0)
      for (int k = 0; k < 64; k++) {
        const int64_t s = nnz * k / 64, e = std::min<int64_t>(nnz, s + 1024);
        std::set<PetscInt> groups;
        for (int64_t q = s; q < e; q++) groups.insert(A.j[q] / 4);
        xg += (int64_t)groups.size();
        xs += e - s;
      }
    const int warps = o.warps > 0 ? (int)o.warps : xs > 0 && (double)xg >= 0.35 * (double)xs ? 8 : 4;
    Check(st.xgroups == xg && st.xsampled == xs && st.warps == warps, "dcsr x footprint %lld in %lld (%d warps), expected %lld in %lld (%d)", (long long)st.xgroups, (long long)st.xsampled, (int)st.warps, (long long)xg, (long long)xs, warps);
    if (xs) (warps == 8 ? g_foot8 : g_foot4)++;
    if (masks) {
      g_masklayouts++;
      std::vector<unsigned> heads(4 * ntiles, 0u);
      for (PetscInt r = 0; r < m; r++) heads[A.i[r] / 32] |= 1u << (A.i[r] % 32);
      Check(L.heads == heads, "dcsr head masks differ from the brute-force ones");
    }
    Check(st.nwide == nwide && st.nwidennz == nwidennz, "dcsr wide tiles %lld (%lld nonzeros), expected %lld (%lld)", (long long)st.nwide, (long long)st.nwidennz, (long long)nwide, (long long)nwidennz);
  }
  Check(st.ntiles == ntiles && st.nwarps == nwarps && st.nnz == nnz && st.T == WT / 32 && st.S == o.S, "tiles %lld warps %lld, expected %lld %lld", (long long)st.ntiles, (long long)st.nwarps, (long long)ntiles, (long long)nwarps);
  std::vector<int> bound, erow, wslot, run_off, run_row;
  for (int64_t t = 0; t <= ntiles; t++) {
    const int64_t b = std::min<int64_t>(t * WT, nnz);
    int           r = 0;
    for (PetscInt q = 0; q <= m; q++)
      if (A.i[q] <= b) r = (int)q;
    bound.push_back(r);
  }
  for (PetscInt r = 0; r < m; r++)
    if (A.i[r] == A.i[r + 1]) erow.push_back((int)r);
  /* warp g's first row r: it needs a slot exactly when r has an entry before the warp */
  int nslots = 0;
  for (int64_t g = 0; g < nwarps; g++) {
    const int r = bound[g * o.S];
    if (A.i[r] < g * o.S * WT) {
      if (!(g > 0 && wslot[g - 1] >= 0 && bound[(g - 1) * o.S] == r)) {
        run_off.push_back(nslots);
        run_row.push_back(r);
      }
      wslot.push_back(nslots++);
    } else wslot.push_back(-1);
  }
  run_off.push_back(nslots);
  if (!Check(L.bound == bound, "bound = %s, expected %s", ToString(L.bound).c_str(), ToString(bound).c_str())) return;
  Check(L.erow == erow, "empty rows differ (%zu vs %zu)", L.erow.size(), erow.size());
  Check(L.wslot == wslot, "wslot = %s, expected %s", ToString(L.wslot).c_str(), ToString(wslot).c_str());
  Check(L.run_off == run_off && L.run_row == run_row, "runs %s rows %s, expected %s %s", ToString(L.run_off).c_str(), ToString(L.run_row).c_str(), ToString(run_off).c_str(), ToString(run_row).c_str());
  Check(st.nslots == nslots && st.nruns == (int64_t)run_row.size() && st.nempty == (int64_t)erow.size(), "counts");
  /* the properties the kernel relies on */
  int64_t fast = 0, dirty = 0, lng = 0;
  for (int64_t t = 0; t < ntiles; t++) {
    const int lo = bound[t], hi = bound[t + 1];
    Check(lo < m && A.i[lo] <= t * WT && A.i[lo + 1] > t * WT, "tile %lld: first row %d does not hold its first entry", (long long)t, lo);
    Check(hi == m || (A.i[hi] < A.i[hi + 1]), "tile %lld: last row %d is empty", (long long)t, hi);
    bool e = false;
    for (int r = lo + 1; r < std::min<int>(hi, (int)m); r++) e |= A.i[r] == A.i[r + 1];
    fast += lo == hi;
    dirty += e;
    lng += hi - lo > WT;
    Check(hi - lo <= WT || e, "tile %lld: range %d > tile without an empty row", (long long)t, hi - lo);
  }
  Check(st.nfast == fast && st.ndirty == dirty && st.nlong == lng, "fast/dirty/long %lld/%lld/%lld, expected %lld/%lld/%lld", (long long)st.nfast, (long long)st.ndirty, (long long)st.nlong, (long long)fast, (long long)dirty, (long long)lng);
}

/* y = A x in long double, and each row's sum of |a_ij x_j|: a double sum of n terms in any order is off
   by at most n eps sum |a_ij x_j| (Higham's gamma_n), so that, not |y|, bounds a row with cancellation */
static void CsrProduct(const Csr &A, const std::vector<double> &x, std::vector<long double> &y, std::vector<long double> &abssum)
{
  y.assign(A.m, 0.0L);
  abssum.assign(A.m, 0.0L);
  for (PetscInt r = 0; r < A.m; r++)
    for (PetscInt k = A.i[r]; k < A.i[r + 1]; k++) {
      y[r] += (long double)A.a[k] * x[A.j[k]];
      abssum[r] += std::fabs((long double)A.a[k] * x[A.j[k]]);
    }
}

/* ------------------------------------------------------------------------------------------------ */

static void WorkedExample()
{
  const int before = g_failures;
  g_context        = "worked example";
  /* rows: 70 | empty | 58 (ends on the warp boundary 128) | 200 (starts on it, spans warps 1-2) | empty |
     empty | 10 | 62 | empty | empty (trailing); tile 64, S = 2: warps of 128 nonzeros */
  Csr A;
  A.m = 10;
  A.n = 300;
  A.i = {0, 70, 70, 128, 328, 328, 328, 338, 400, 400, 400};
  for (PetscInt r = 0; r < A.m; r++)
    for (PetscInt k = A.i[r]; k < A.i[r + 1]; k++) A.j.push_back(k - A.i[r]);
  A.a.assign(A.j.size(), 1.0);
  SegSumOptions o;
  o.tile = 64;
  o.S    = 2;
  SegSumHostLayout L;
  SegSumStats      st;
  SegSumBuildHostLayout(o, A.View(), &L, &st);
  Check(L.bound == std::vector<int>{0, 0, 3, 3, 3, 3, 7, 10}, "bound %s", ToString(L.bound).c_str());
  Check(L.wslot == std::vector<int>{-1, -1, 0, 1}, "wslot %s (warp 1 starts exactly at row 3: no slot)", ToString(L.wslot).c_str());
  Check(L.run_off == std::vector<int>{0, 1, 2} && L.run_row == std::vector<int>{3, 7}, "runs %s rows %s", ToString(L.run_off).c_str(), ToString(L.run_row).c_str());
  Check(L.erow == std::vector<int>{1, 4, 5, 8, 9}, "erow %s", ToString(L.erow).c_str());
  Check(st.ntiles == 7 && st.nwarps == 4 && st.nfast == 4 && st.ndirty == 3 && st.nlong == 0, "tiles %lld warps %lld fast %lld dirty %lld long %lld", (long long)st.ntiles, (long long)st.nwarps, (long long)st.nfast, (long long)st.ndirty, (long long)st.nlong);
  std::vector<double> x(A.n), y(A.m, NAN);
  for (PetscInt c = 0; c < A.n; c++) x[c] = 1.0;
  SegSumMultHost(st, L, A.View(), x.data(), y.data(), false);
  Check(y == std::vector<double>{70, 0, 58, 200, 0, 0, 10, 62, 0, 0}, "y = %g %g %g %g %g %g %g %g %g %g", y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7], y[8], y[9]);
  ReportGroup("worked example", before, "10 rows, tile 64, S 2: boundaries, slots, runs, empty rows, y");
}

/* integer-valued data: entries in {-4..4}\{0}, x in {-3..3}; exact sums */
static void Products(const std::vector<Csr> &mats, Rng &rng)
{
  const std::vector<PetscInt> tiles = {64, 128, 256, 512}, Ss = {1, 2, 3, 8, 31};
  int                         cases = 0;
  for (bool exact : {true, false}) {
    const int before = g_failures;
    for (const Csr &A0 : mats) {
      Csr                                     A = A0;
      std::uniform_int_distribution<int>      iv(1, 4), ix(-3, 3);
      std::uniform_real_distribution<double>  rv(0.25, 4.0);
      for (auto &e : A.a) e = exact ? (double)(iv(rng) * (rng() & 1 ? 1 : -1)) : (rng() & 1 ? 1 : -1) * rv(rng);
      std::vector<double> x(std::max<PetscInt>(A.n, 1)), y0(A.m);
      for (auto &e : x) e = exact ? (double)ix(rng) : rv(rng) - 2.0;
      for (auto &e : y0) e = exact ? (double)ix(rng) : rv(rng);
      std::vector<long double> ref, abssum;
      CsrProduct(A, x, ref, abssum);
      long double norm = 0;
      for (auto e : ref) norm = std::max(norm, std::fabs(e));
      for (bool c16 : {false, true})
      for (PetscInt tile : tiles)
        for (PetscInt S : Ss)
        for (PetscInt lanes : {-1, 0, 8, 16, 32}) /* dcsr's row kernel: from the rows (-1), off, forced */
        for (bool worder : {true, false}) {      /* dcsr: single-row tiles in the warp's order (default) or the lanes' */
          if (lanes != -1 && (!c16 || S != Ss[0])) continue;
          if (!worder && (!c16 || lanes != 0)) continue;
          SegSumOptions o;
          o.worder   = worder;
          o.tile     = tile;
          o.S        = S;
          o.c16      = c16;
          o.warps    = c16 ? 0 : o.warps; /* dcsr's default: from the x footprint */
          o.rowlanes = lanes;
          o.name     = c16 ? "dcsr" : "segsum";
          SegSumHostLayout L;
          SegSumStats      st;
          char             ctx[256];
          std::snprintf(ctx, sizeof(ctx), "%s%s, tile %d, S %d, row lanes %d%s, %s values", c16 ? "dcsr: " : "", A.name.c_str(), (int)tile, (int)S, (int)lanes, worder ? "" : ", lanes' order", exact ? "integer" : "real");
          g_context = ctx;
          if (SegSumBuildHostLayout(o, A.View(), &L, &st)) {
            Check(false, "build failed");
            continue;
          }
          if (exact) CheckLayout(A, o, L, st);
          { /* the kernel: the row kernel where forced, or by default (32 lanes) on rows of >= 96 on average, none over 4 times that */
            PetscInt maxrow = 0;
            for (PetscInt r = 0; r < A.m; r++) maxrow = std::max(maxrow, A.i[r + 1] - A.i[r]);
            const double mean = A.m ? (double)A.Nnz() / A.m : 0.0;
            const int    want = !c16 || lanes == 0 || !A.Nnz() ? 0 : lanes > 0 ? (int)lanes : mean >= 96 && maxrow <= 4 * mean ? 32 : 0;
            Check(st.rowlanes == want && st.maxrow == (c16 ? maxrow : 0), "row lanes %d (longest row %lld), expected %d (%lld)", st.rowlanes, (long long)st.maxrow, want, (long long)maxrow);
          }
          for (bool add : {false, true}) {
            std::vector<double> y = add ? y0 : std::vector<double>(A.m, NAN);
            SegSumMultHost(st, L, A.View(), x.data(), y.data(), add);
            int bad = 0;
            for (PetscInt r = 0; r < A.m && bad < 3; r++) {
              const long double want = ref[r] + (add ? y0[r] : 0.0);
              const long double n    = (long double)(A.i[r + 1] - A.i[r] + 2); /* the products, y0 and the rounding of the result */
              const long double tol  = 1e-13L * (norm + std::fabs((long double)y0[r]) + 1) + n * DBL_EPSILON * (abssum[r] + (add ? std::fabs((long double)y0[r]) : 0));
              const bool        ok   = exact ? (long double)y[r] == want : std::fabs((long double)y[r] - want) <= tol;
              if (!Check(ok, "%s: row %d of %d: %.17g, expected %.17Lg", add ? "y += A x" : "y = A x", (int)r, (int)A.m, y[r], want)) bad++;
            }
          }
          cases++;
        }
    }
    ReportGroup(exact ? "exact products" : "real products", before, std::to_string(mats.size()) + " matrices x segsum/dcsr x 4 tiles x 5 S (dcsr: row kernel from the rows; forced 8/16/32 lanes at S 1; tiles only, in the warp's and the lanes' order), y = A x and y += A x" + (exact ? " (bitwise, layout vs brute force; " + std::to_string(g_masklayouts) + " dcsr layouts with head masks; x footprint: " + std::to_string(g_foot4) + " at 4 warps a block, " + std::to_string(g_foot8) + " at 8)" : std::string(" (rel. 1e-13, or n eps sum |a x| on rows with cancellation)")));
  }
  (void)cases;
}

static void Options()
{
  const int before = g_failures;
  g_context        = "options";
  SegSumOptions o;
  Check(!SegSumCheckOptions(o), "defaults refused");
  for (PetscInt t : {0, 32, 100, 1024}) {
    o      = SegSumOptions();
    o.tile = t;
    Check(SegSumCheckOptions(o) == PETSC_ERR_ARG_OUTOFRANGE, "tile %d accepted", (int)t);
  }
  for (PetscInt S : {0, 32}) {
    o   = SegSumOptions();
    o.S = S;
    Check(SegSumCheckOptions(o) == PETSC_ERR_ARG_OUTOFRANGE, "S %d accepted", (int)S);
  }
  for (PetscInt w : {0, 9}) {
    o       = SegSumOptions();
    o.warps = w;
    Check(SegSumCheckOptions(o) == PETSC_ERR_ARG_OUTOFRANGE, "warps %d accepted", (int)w);
  }
  o       = SegSumOptions(); /* dcsr: 0 (from the x footprint) accepted, 9 not */
  o.c16   = true;
  o.warps = 0;
  Check(!SegSumCheckOptions(o), "dcsr warps 0 refused");
  o.warps = 9;
  Check(SegSumCheckOptions(o) == PETSC_ERR_ARG_OUTOFRANGE, "dcsr warps 9 accepted");
  for (PetscInt l : {-2, 1, 2, 3, 4, 12, 64}) {
    o          = SegSumOptions();
    o.rowlanes = l;
    Check(SegSumCheckOptions(o) == PETSC_ERR_ARG_OUTOFRANGE, "row lanes %d accepted", (int)l);
  }
  ReportGroup("options", before, "tile, S, warps, row lanes ranges");
}

/* the matrices with random values as Matrix Market files, and their list as a -matrices argument */
static int WriteMatrices(const char *dir, Rng &rng)
{
  std::string                            list;
  std::uniform_real_distribution<double> rv(0.25, 4.0);
  int                                    k = 0;
  for (const Csr &A : Matrices(rng)) {
    if (!A.m || !A.n) continue; /* the generic type handles those before the format sees them */
    char path[1024];
    std::snprintf(path, sizeof(path), "%s/segsum_%02d.mtx", dir, k++);
    FILE *f = std::fopen(path, "w");
    if (!f) return 1;
    std::fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%% %s\n%d %d %d\n", A.name.c_str(), (int)A.m, (int)A.n, (int)A.Nnz());
    for (PetscInt r = 0; r < A.m; r++)
      for (PetscInt q = A.i[r]; q < A.i[r + 1]; q++) std::fprintf(f, "%d %d %.17g\n", (int)r + 1, (int)A.j[q] + 1, (rng() & 1 ? 1 : -1) * rv(rng));
    std::fclose(f);
    list += (list.empty() ? "" : ";") + std::string(path);
  }
  std::printf("%s\n", list.c_str());
  return 0;
}

int main(int argc, char **argv)
{
  unsigned long seed = (unsigned long)std::chrono::system_clock::now().time_since_epoch().count() % 100000;
  for (int k = 1; k + 1 < argc; k++)
    if (!std::strcmp(argv[k], "-seed")) seed = std::strtoul(argv[k + 1], nullptr, 10);
  for (int k = 1; k + 1 < argc; k++)
    if (!std::strcmp(argv[k], "-write")) {
      Rng rng(seed);
      return WriteMatrices(argv[k + 1], rng);
    }
  std::printf("test_segsum_host: seed %lu\n", seed);
  /* PETSc errors from the option checks are expected: keep them quiet */
  PetscCall(PetscInitializeNoArguments());
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
  Rng rng(seed);
  WorkedExample();
  Products(Matrices(rng), rng);
  Options();
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscFinalize());
  std::printf("test_segsum_host: %s\n", g_failures ? "FAILED" : "all passed");
  return g_failures ? 1 : 0;
}
