/*
   test_suraa_host: unit tests of the SURAA host reference (src/mat/impls/spmv/suraa/suraahost.cxx) against
   the decisions of ../shared/reference/briefs/suraa.md (suraa.h states them).

     1. worked examples  the paper has no numeric example (its Fig. 5 is an image): two hand-computed ones,
                         an 8x6 matrix (sort ties, quartiles, literal / fd_bins / rows segments, groups,
                         lanes, physical arrays) and a 10-row matrix with long rows (G1 buckets, chunks, G2
                         widths); exact arrays and plans
     2. executor vs CSR  SURAAMultHost against a long double CSR product, y = A x and y += A x, on random
                         and adversarial matrices (empty rows leading/trailing/in runs, all rows empty, one
                         huge row, a dense row, all rows of equal length so IQR = 0, rectangular both ways,
                         1x1, 0x0, 0 x n, m x 0, more long rows than the G1 cap) under many options
     3. layout           the invariants: perm a permutation sorted by (length desc, first column asc, row
                         asc), every row exactly once, rps, the gathered arrays, S from Eq. (1) / the FD bins,
                         segment means non-increasing, counts = prefixes, group boundaries by the rule, each
                         row's launch by its segment mean (lanes, widths) or its length (G1 buckets), chunks
     4. refresh          new values, same pattern: SURAARefreshHostLayout, then the product of the new CSR
     5. parameters       SURAASegmentRows and the predicates on hand-made cases; options refused
     6. lane rule        -mat_suraa_lane_entries E = 1, 2, 4, 8, 32: every G3 row's lanes (and G2 row's width)
                         against the rule recomputed here from the long double mean of its segment (L the
                         smallest power of two with L E >= mean), hand-computed plans for rows of 27, and
                         products against CSR for each E

   Usage: test_suraa_host [-seed N]   (the seed defaults to the clock and is printed, to rerun a failure)
   Exit status is nonzero on any failure; every failure prints one "FAIL [context]: ..." line.
*/
#include "mat/impls/spmv/suraa/suraa.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

/* ------------------------------------------------------------------------------------------------ */
/* Failure reporting                                                                                */
/* ------------------------------------------------------------------------------------------------ */

#include "hosttest.h" /* g_failures, g_context, Check(), ReportGroup() */
#include "hostcsr.h"  /* Rng, Csr, random values, CSR builders */

/* ------------------------------------------------------------------------------------------------ */
/* CSR matrices                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

static std::vector<TestMatrix> MakeTestMatrices(Rng &rng)
{
  std::vector<TestMatrix> t;
  const auto              U01 = [&]() { return std::uniform_real_distribution<double>(0, 1)(rng); };
  for (int k = 0; k < 8; k++) { /* uniform row lengths */
    const PetscInt m = Uniform(rng, 1, 400), n = Uniform(rng, 1, 400), maxl = Uniform(rng, 1, std::min<PetscInt>(n, 80));
    t.push_back({"random " + std::to_string(k) + " (" + std::to_string(m) + "x" + std::to_string(n) + ")", RandomCsr(rng, m, n, [&](PetscInt) { return Uniform(rng, 0, maxl); })});
  }
  for (int k = 0; k < 4; k++) { /* power law: mostly short rows, a few long ones */
    const PetscInt m = Uniform(rng, 200, 1500), n = Uniform(rng, 500, 4000);
    t.push_back({"power law " + std::to_string(k) + " (" + std::to_string(m) + "x" + std::to_string(n) + ")", RandomCsr(rng, m, n, [&](PetscInt) { return std::min<PetscInt>(n, (PetscInt)(2.0 / std::pow(1.0 - 0.999 * U01(), 0.9))); })});
  }
  t.push_back({"empty rows (40%)", RandomCsr(rng, 300, 200, [&](PetscInt) { return U01() < 0.4 ? 0 : Uniform(rng, 1, 30); })});
  t.push_back({"leading, trailing, runs of empty rows", RandomCsr(rng, 120, 90, [&](PetscInt r) { return r < 7 || r >= 110 || (r >= 40 && r < 60) ? 0 : Uniform(rng, 1, 50); })});
  t.push_back({"3 nonempty rows of 200", RandomCsr(rng, 200, 100, [&](PetscInt r) { return r == 5 || r == 100 || r == 199 ? Uniform(rng, 1, 100) : 0; })});
  t.push_back({"all rows empty", RandomCsr(rng, 45, 30, [](PetscInt) { return 0; })});
  t.push_back({"one huge row (20000, 3 chunks)", RandomCsr(rng, 300, 25000, [&](PetscInt r) { return r == 77 ? 20000 : Uniform(rng, 0, 6); })});
  t.push_back({"one row holds everything", RandomCsr(rng, 50, 3000, [&](PetscInt r) { return r == 49 ? 3000 : 0; })});
  t.push_back({"fully dense row", RandomCsr(rng, 60, 300, [&](PetscInt r) { return r == 13 ? 300 : Uniform(rng, 0, 12); })});
  t.push_back({"rows at the bucket edges", RandomCsr(rng, 40, 9000, [&](PetscInt r) {
                 const PetscInt l[] = {8193, 8192, 2049, 2048, 513, 512, 129, 128, 65, 64, 33, 32, 31, 17, 16, 9, 8, 5, 4, 3, 2, 1, 0};
                 return l[r % 23];
               })});
  t.push_back({"fully dense 40x40", RandomCsr(rng, 40, 40, [](PetscInt) { return 40; })});
  t.push_back({"all rows of length 7 (IQR 0)", RandomCsr(rng, 500, 300, [](PetscInt) { return 7; })});
  t.push_back({"all rows of length 40 (IQR 0)", RandomCsr(rng, 200, 100, [](PetscInt) { return 40; })});
  t.push_back({"equal lengths, equal first columns", CsrFromRows(20, std::vector<std::vector<PetscInt>>(30, {2, 5, 9}), rng)});
  t.push_back({"9000 rows of 33-40 (over the G1 cap)", RandomCsr(rng, 9000, 200, [&](PetscInt) { return Uniform(rng, 33, 40); })});
  t.push_back({"wide 10x500", RandomCsr(rng, 10, 500, [&](PetscInt) { return Uniform(rng, 0, 300); })});
  t.push_back({"tall 500x8", RandomCsr(rng, 500, 8, [&](PetscInt) { return Uniform(rng, 0, 8); })});
  t.push_back({"unsorted columns", RandomCsr(rng, 100, 100, [&](PetscInt) { return Uniform(rng, 0, 60); }, false)});
  t.push_back({"1x1", RandomCsr(rng, 1, 1, [](PetscInt) { return 1; })});
  t.push_back({"1x1 empty", RandomCsr(rng, 1, 1, [](PetscInt) { return 0; })});
  t.push_back({"1x5000", RandomCsr(rng, 1, 5000, [](PetscInt) { return 5000; })});
  t.push_back({"0x0", RandomCsr(rng, 0, 0, [](PetscInt) { return 0; })});
  t.push_back({"0x7", RandomCsr(rng, 0, 7, [](PetscInt) { return 0; })});
  t.push_back({"7x0", RandomCsr(rng, 7, 0, [](PetscInt) { return 0; })});
  return t;
}

struct TestOptions {
  std::string  name;
  SURAAOptions o;
};

static std::vector<TestOptions> MakeTestOptions()
{
  std::vector<TestOptions> t;
  SURAAOptions             o;
  t.push_back({"defaults", o});
  o          = SURAAOptions();
  o.segments = SURAA_SEGMENTS_FD_BINS;
  t.push_back({"fd_bins", o});
  o.max_segments = 3;
  t.push_back({"fd_bins Kmax 3", o});
  for (PetscInt S : {1, 7}) {
    o              = SURAAOptions();
    o.segments     = SURAA_SEGMENTS_ROWS;
    o.segment_rows = S;
    t.push_back({"rows " + std::to_string(S), o});
  }
  o                  = SURAAOptions();
  o.vector_threshold = 4;
  t.push_back({"T 4", o});
  o.segments     = SURAA_SEGMENTS_ROWS;
  o.segment_rows = 1;
  o.g1_max_rows  = 5;
  t.push_back({"T 4, rows 1, G1 cap 5", o});
  o              = SURAAOptions();
  o.vector_width = 64;
  o.g3_lanes     = 1;
  o.segments     = SURAA_SEGMENTS_ROWS;
  o.segment_rows = 3;
  t.push_back({"rows 3, width 64, paper scalar G3", o});
  o             = SURAAOptions();
  o.g1_max_rows = 0;
  t.push_back({"no G1", o});
  o.g1_max_rows = 1000000;
  t.push_back({"G1 unbounded", o});
  o           = SURAAOptions();
  o.mean_gate = PETSC_TRUE;
  t.push_back({"mean gate", o});
  o         = SURAAOptions();
  o.permute = SURAA_PERMUTE_LOGICAL;
  t.push_back({"logical", o});
  o.vector_threshold = 2;
  o.g3_lanes         = 32;
  t.push_back({"logical, T 2, G3 lanes 32", o});
  o                  = SURAAOptions();
  o.vector_threshold = 100;
  t.push_back({"T 100 (G3 lanes 32)", o});
  for (PetscInt E : {1, 8, 32}) { /* -mat_suraa_lane_entries: G3 lanes and G2 widths for about E entries per lane */
    o              = SURAAOptions();
    o.lane_entries = E;
    t.push_back({"lane entries " + std::to_string(E), o});
    o.vector_threshold = 4;
    o.g1_max_rows      = 0;
    o.segments         = SURAA_SEGMENTS_ROWS;
    o.segment_rows     = 3;
    t.push_back({"lane entries " + std::to_string(E) + ", T 4, no G1, rows 3", o});
  }
  return t;
}

/* ------------------------------------------------------------------------------------------------ */
/* Checks                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/* y = y0 + A x by SURAAMultHost against the CSR product in long double: relative error per row <= 1e-13;
   rows without entries come back exactly as y0 (add) or exactly 0 */
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

static void CheckProducts(const SURAAHostLayout &L, const SURAAPlan &p, const Csr &A, Rng &rng)
{
  const std::vector<PetscScalar> x = RandomVector(rng, A.n);
  for (bool add : {false, true}) {
    const std::vector<PetscScalar> y0 = add ? RandomVector(rng, A.m) : std::vector<PetscScalar>(A.m, 0.0);
    std::vector<PetscScalar>       y  = add ? y0 : std::vector<PetscScalar>(A.m, NAN); /* y = A x must write every row */
    SURAAMultHost(L, p, x.data(), y.data(), add);
    CheckProduct(A, x, y0, y, add ? "y += A x" : "y = A x");
  }
}

/* The segment size by the documented rules, in long double; near-integer cases accept both roundings */
static bool SIsExpected(const SURAAOptions &o, PetscInt m, PetscInt iqr, PetscInt maxlen, PetscInt minlen, PetscInt S)
{
  if (m == 0) return S == 1;
  const long double h = 2.0L * iqr / std::cbrt((long double)m);
  std::vector<long double> cand;
  const auto               near = [](long double v) { return std::fabs(v - std::round(v)) < 1e-9L; };
  switch (o.segments) {
  case SURAA_SEGMENTS_LITERAL:
    cand.push_back(std::floor(h));
    if (near(h)) cand.push_back(std::round(h) - 1), cand.push_back(std::round(h));
    for (long double c : cand)
      if (S == std::max<PetscInt>(1, std::min<PetscInt>(m, (PetscInt)c))) return true;
    return false;
  case SURAA_SEGMENTS_FD_BINS: {
    std::vector<long double> ks;
    if (iqr == 0) ks.push_back(1);
    else {
      const long double kk = (long double)(maxlen - minlen) / h;
      ks.push_back(std::ceil(kk));
      if (near(kk)) ks.push_back(std::round(kk)), ks.push_back(std::round(kk) + 1);
    }
    for (long double kk : ks) {
      const PetscInt k = (PetscInt)std::max<long double>(1, std::min<long double>(kk, o.max_segments));
      if (S == (m + k - 1) / k) return true;
    }
    return false;
  }
  default:
    return S == std::min(o.segment_rows, m);
  }
}

/* lanes per row expected for a segment mean (sum/rows), by the documented rules, in long double */
static int ExpectedG2Width(const SURAAOptions &o, int64_t sum, int64_t rows)
{
  if (o.vector_width) return (int)o.vector_width;
  const long double mean = (long double)sum / rows;
  int               Y    = (int)(32 * std::ceil(mean / (32.0L * o.lane_entries))); /* roundup32(mean / E) */
  Y                      = std::max(32, std::min(128, Y));
  return Y == 96 ? 128 : Y;
}
static int ExpectedG3Lanes(const SURAAOptions &o, int64_t sum, int64_t rows)
{
  if (o.g3_lanes) return (int)o.g3_lanes;
  const long double mean = (long double)sum / rows;
  int               L    = 1; /* the smallest power of two with L >= mean / E, at most 32 */
  while (L < 32 && (long double)L * o.lane_entries < mean) L *= 2;
  return L;
}

/*
  The invariants of a layout built from A (suraa.h). Returns false when it is too broken for a product.
*/
static bool CheckLayout(const Csr &A, const SURAAOptions &o, const SURAAHostLayout &L, const SURAAPlan &p)
{
  const PetscInt m = A.m, n = A.n, nnz = A.Nnz();

  /* statistics */
  PetscInt maxlen = 0, nonempty = 0, ge = 0, big = 0, mid = 0;
  for (PetscInt r = 0; r < m; r++) {
    maxlen = std::max(maxlen, A.Len(r));
    nonempty += A.Len(r) > 0;
    ge += A.Len(r) >= o.vector_threshold;
    big += A.Len(r) > 2048;
    mid += A.Len(r) > 512;
  }
  if (!Check(p.m == m && p.n == n && p.nnz == nnz && p.maxlen == maxlen && p.nonempty == nonempty && p.rows_ge_T == ge && p.rows_big == big && p.rows_mid == mid,
             "stats m/n/nnz/maxlen/nonempty/ge/big/mid = %" PetscInt_FMT "/%" PetscInt_FMT "/%lld/%" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT,
             p.m, p.n, (long long)p.nnz, p.maxlen, p.nonempty, p.rows_ge_T, p.rows_big, p.rows_mid))
    return false;

  /* perm: a permutation (every row exactly once), sorted by (length desc, first column asc, row asc) */
  if (!Check((PetscInt)L.perm.size() == m && (PetscInt)L.rps.size() == m + 1, "perm/rps sizes %zu/%zu", L.perm.size(), L.rps.size())) return false;
  std::vector<int> seen(m, 0);
  for (PetscInt k = 0; k < m; k++) {
    if (!Check(L.perm[k] >= 0 && L.perm[k] < m, "perm[%" PetscInt_FMT "] = %d out of range", k, L.perm[k])) return false;
    seen[L.perm[k]]++;
  }
  for (PetscInt r = 0; r < m; r++)
    if (!Check(seen[r] == 1, "row %" PetscInt_FMT " appears %d times in perm", r, seen[r])) return false;
  const auto fc = [&](PetscInt r) { return A.Len(r) ? A.j[A.i[r]] : n; };
  for (PetscInt k = 0; k + 1 < m; k++) {
    const PetscInt a = L.perm[k], b = L.perm[k + 1];
    const bool     ordered = A.Len(a) > A.Len(b) || (A.Len(a) == A.Len(b) && (fc(a) < fc(b) || (fc(a) == fc(b) && a < b)));
    if (!Check(ordered, "sorted rows %" PetscInt_FMT ", %" PetscInt_FMT ": row %d (len %" PetscInt_FMT ", first col %" PetscInt_FMT ") before row %d (len %" PetscInt_FMT ", first col %" PetscInt_FMT ")", k, k + 1, a, A.Len(a), fc(a), b,
               A.Len(b), fc(b)))
      return false;
  }
  /* rps and the gathered rows */
  if (!Check(L.rps[0] == 0, "rps[0] = %d", L.rps[0])) return false;
  for (PetscInt k = 0; k < m; k++)
    if (!Check(L.rps[k + 1] - L.rps[k] == A.Len(L.perm[k]), "rps: sorted row %" PetscInt_FMT " has %d entries, row %d has %" PetscInt_FMT, k, L.rps[k + 1] - L.rps[k], L.perm[k], A.Len(L.perm[k]))) return false;
  if (o.permute == SURAA_PERMUTE_PHYSICAL) {
    if (!Check((PetscInt)L.col.size() == nnz && (PetscInt)L.val.size() == nnz, "col/val sizes %zu/%zu, nnz %" PetscInt_FMT, L.col.size(), L.val.size(), nnz)) return false;
    for (PetscInt k = 0; k < m; k++)
      for (PetscInt t = 0; t < A.Len(L.perm[k]); t++) {
        const PetscInt src = A.i[L.perm[k]] + t;
        if (!Check(L.col[L.rps[k] + t] == A.j[src] && L.val[L.rps[k] + t] == A.a[src], "sorted row %" PetscInt_FMT " entry %" PetscInt_FMT ": col %d val %g, CSR has %" PetscInt_FMT " %g", k, t, L.col[L.rps[k] + t], L.val[L.rps[k] + t], A.j[src], A.a[src])) return false;
      }
  } else if (!Check(L.col.empty() && L.val.empty(), "logical mode stores %zu/%zu sorted entries", L.col.size(), L.val.size()))
    return false;

  /* quartiles, S, segments */
  const auto slen = [&](PetscInt k) { return (PetscInt)(L.rps[k + 1] - L.rps[k]); };
  if (m > 0) Check(p.qa == slen(m / 4) && p.qb == slen(3 * m / 4) && p.iqr == std::abs(p.qa - p.qb) && p.minlen == slen(m - 1), "quartile reads %" PetscInt_FMT "/%" PetscInt_FMT " IQR %" PetscInt_FMT " minlen %" PetscInt_FMT, p.qa, p.qb, p.iqr, p.minlen);
  if (!Check(SIsExpected(o, m, p.iqr, maxlen, p.minlen, p.S), "S = %" PetscInt_FMT " is not the %s segment size for m %" PetscInt_FMT ", IQR %" PetscInt_FMT, p.S, SURAASegmentsTypes[o.segments], m, p.iqr)) return false;
  const PetscInt S = p.S;
  if (!Check(S >= 1 && p.nseg == (m + S - 1) / S, "S %" PetscInt_FMT ", %" PetscInt_FMT " segments", S, p.nseg)) return false;
  const auto segsum  = [&](PetscInt s) { return (int64_t)L.rps[std::min<int64_t>((int64_t)(s + 1) * S, m)] - L.rps[(int64_t)s * S]; };
  const auto segrows = [&](PetscInt s) { return std::min<int64_t>((int64_t)(s + 1) * S, m) - (int64_t)s * S; };
  for (PetscInt s = 0; s + 1 < p.nseg; s++) /* segment means never increase */
    if (!Check(segsum(s) * segrows(s + 1) >= segsum(s + 1) * segrows(s), "segment %" PetscInt_FMT " has a smaller mean than segment %" PetscInt_FMT, s, s + 1)) return false;
  for (int q = 0; q < SURAA_NPRED; q++) {
    PetscInt c = 0;
    while (c < p.nseg && SURAASegmentPredicate(q, segsum(c), segrows(c), o.vector_threshold, o.lane_entries)) c++;
    Check(p.count[q] == c, "count[%d] = %" PetscInt_FMT ", the leading segments satisfying it: %" PetscInt_FMT, q, p.count[q], c);
  }

  /* groups by the rule: G1 = leading segments with mean >= T while rows <= cap, G2 = the rest with mean >= T */
  PetscInt nv = 0;
  while (nv < p.nseg && (long double)segsum(nv) / segrows(nv) >= o.vector_threshold) nv++;
  if (o.mean_gate && (long double)nnz < (long double)o.vector_threshold * m) nv = 0;
  const PetscInt cap = o.g1_max_rows >= 0 ? o.g1_max_rows : std::min<PetscInt>(8192, ge);
  PetscInt       n1 = 0, rows1 = 0;
  while (n1 < nv && rows1 + segrows(n1) <= cap && (n1 + 1) * S <= std::max<int64_t>(cap, 0)) rows1 += segrows(n1++);
  const PetscInt r1 = (PetscInt)std::min<int64_t>((int64_t)n1 * S, m), rv = (PetscInt)std::min<int64_t>((int64_t)nv * S, m);
  if (!Check(p.g1_max == cap && p.r1 == r1 && p.rv == rv, "G1 cap/r1/rv = %" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT ", expected %" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT, p.g1_max, p.r1, p.rv, cap, r1, rv)) return false;

  /* launches: in order, contiguous, covering [0, m); each row's launch by its length (G1) or segment mean */
  int64_t next = 0;
  int     prev_kind = -1;
  for (int l = 0; l < p.nlaunch; l++) {
    const SURAALaunch &c = p.launch[l];
    if (!Check(c.begin == next && c.end > c.begin && c.kind >= prev_kind, "launch %d: kind %d rows [%d, %d) after row %lld, kind %d", l, c.kind, c.begin, c.end, (long long)next, prev_kind)) return false;
    next      = c.end;
    prev_kind = c.kind;
    for (int k = c.begin; k < c.end; k++) {
      const PetscInt len = slen(k), s = k / S;
      int            kind, lanes;
      if (k < r1) {
        kind  = len > 2048 ? SURAA_G1_CHUNKS : (len > 512 ? SURAA_G1_BLOCK256 : SURAA_G1_BLOCK64);
        lanes = kind == SURAA_G1_CHUNKS ? 1024 : (kind == SURAA_G1_BLOCK256 ? 256 : 64);
      } else if (k < rv) {
        kind  = SURAA_G2;
        lanes = ExpectedG2Width(o, segsum(s), segrows(s));
      } else {
        kind  = SURAA_G3;
        lanes = ExpectedG3Lanes(o, segsum(s), segrows(s));
      }
      if (!Check(c.kind == kind && c.lanes == lanes, "sorted row %d (len %" PetscInt_FMT ", segment mean %.3f) is in launch %d (kind %d, %d lanes), expected kind %d with %d lanes", k, len, (double)segsum(s) / segrows(s), l, c.kind, c.lanes, kind, lanes)) return false;
    }
  }
  if (!Check(next == m, "the launches cover [0, %lld), m = %" PetscInt_FMT, (long long)next, m)) return false;
  int64_t gnnz[3] = {L.rps.empty() ? 0 : L.rps[r1], (int64_t)L.rps[rv] - L.rps[r1], (int64_t)L.rps[m] - L.rps[rv]};
  Check(p.group_nnz[0] == gnnz[0] && p.group_nnz[1] == gnnz[1] && p.group_nnz[2] == gnnz[2], "group nnz %lld/%lld/%lld", (long long)p.group_nnz[0], (long long)p.group_nnz[1], (long long)p.group_nnz[2]);

  /* chunks of the big G1 rows */
  PetscInt nbig = 0;
  while (nbig < r1 && slen(nbig) > 2048) nbig++;
  std::vector<int> cstart(nbig + 1, 0);
  for (PetscInt k = 0; k < nbig; k++) cstart[k + 1] = cstart[k] + (int)((slen(k) + 8191) / 8192);
  Check(p.nbig == nbig && L.cstart == cstart && p.nchunks == cstart[nbig], "big rows %" PetscInt_FMT " (expected %" PetscInt_FMT "), chunks %" PetscInt_FMT ", cstart %s, expected %s", p.nbig, nbig, p.nchunks, ToString(L.cstart).c_str(), ToString(cstart).c_str());
  return true;
}

/* ------------------------------------------------------------------------------------------------ */
/* Groups                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

static void CheckLaunches(const SURAAPlan &p, const std::vector<SURAALaunch> &expected)
{
  std::string got, want;
  bool        same = p.nlaunch == (int)expected.size();
  for (int l = 0; l < p.nlaunch; l++) got += "{" + std::to_string(p.launch[l].kind) + "," + std::to_string(p.launch[l].lanes) + "," + std::to_string(p.launch[l].begin) + "," + std::to_string(p.launch[l].end) + "}";
  for (std::size_t l = 0; l < expected.size(); l++) {
    want += "{" + std::to_string(expected[l].kind) + "," + std::to_string(expected[l].lanes) + "," + std::to_string(expected[l].begin) + "," + std::to_string(expected[l].end) + "}";
    same = same && p.launch[l] == expected[l];
  }
  Check(same, "launches (kind,lanes,begin,end) %s, expected %s", got.c_str(), want.c_str());
}

/* 1. hand-computed examples */
static PetscErrorCode TestWorkedExamples(Rng &rng)
{
  const int       before = g_failures;
  SURAAHostLayout L;
  SURAAPlan       p;
  SURAAOptions    o;
  o.lane_entries = 2; /* the worked lane counts below use the paper's rule, about 2 nonzeros a lane */

  PetscFunctionBeginUser;
  /* 8x6, row r entry t has value 10 r + t + 1 (r0: 1 2, r2: 21..25, ...)
       r0 {1,4}  r1 {}  r2 {0,1,2,3,5}  r3 {3}  r4 {1,2,3,4,5}  r5 {0,2,4}  r6 {}  r7 {0,5}
     sorted: length 5: r2 (first col 0), r4 (1); 3: r5; 2: r7 (0), r0 (1); 1: r3; 0: r1, r6 (row order)
     lengths 5 5 3 2 2 1 0 0; quartile reads [8/4] = 3, [24/4] = 0: IQR 3; 2 IQR / cbrt(8) = 3 */
  std::vector<std::vector<PetscInt>> cols = {{1, 4}, {}, {0, 1, 2, 3, 5}, {3}, {1, 2, 3, 4, 5}, {0, 2, 4}, {}, {0, 5}};
  std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> e(8);
  for (PetscInt r = 0; r < 8; r++)
    for (std::size_t t = 0; t < cols[r].size(); t++) e[r].push_back({cols[r][t], 10.0 * r + t + 1});
  const Csr A = CsrFromEntries(6, e);

  g_context = "example 8x6, defaults (literal, T 32)";
  PetscCall(SURAABuildHostLayout(o, A.View(), &L, &p));
  CheckArray("perm", L.perm, std::vector<int>{2, 4, 5, 7, 0, 3, 1, 6});
  CheckArray("rps", L.rps, std::vector<int>{0, 5, 10, 13, 15, 17, 18, 18, 18});
  CheckArray("col", L.col, std::vector<int>{0, 1, 2, 3, 5, 1, 2, 3, 4, 5, 0, 2, 4, 0, 5, 1, 4, 3});
  CheckArray("val", L.val, std::vector<double>{21, 22, 23, 24, 25, 41, 42, 43, 44, 45, 51, 52, 53, 71, 72, 1, 2, 31});
  CheckArray("cstart", L.cstart, std::vector<int>{0});
  Check(p.qa == 3 && p.qb == 0 && p.iqr == 3 && p.fd_h == 3.0 && p.S == 3 && p.nseg == 3 && p.maxlen == 5 && p.minlen == 0 && p.nonempty == 6,
        "qa/qb/IQR/h/S/nseg/maxlen/minlen/nonempty = %" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT "/%g/%" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT ", expected 3/0/3/3/3/3/5/0/6", p.qa, p.qb,
        p.iqr, p.fd_h, p.S, p.nseg, p.maxlen, p.minlen, p.nonempty);
  /* segments [0,3) sum 13 (mean 4.33: 4 lanes), [3,6) sum 5 (1.67: 1 lane), [6,8) sum 0 */
  CheckLaunches(p, {{SURAA_G3, 4, 0, 3}, {SURAA_G3, 1, 3, 8}});
  if (CheckLayout(A, o, L, p)) CheckProducts(L, p, A, rng);

  g_context          = "example 8x6, T 4, G1 cap 3";
  o.vector_threshold = 4;
  o.g1_max_rows      = 3;
  PetscCall(SURAABuildHostLayout(o, A.View(), &L, &p));
  /* segment 0 (mean 4.33 >= 4) is G1 (3 rows <= cap 3), in 64-thread blocks; the rest G3 with one lane */
  CheckLaunches(p, {{SURAA_G1_BLOCK64, 64, 0, 3}, {SURAA_G3, 1, 3, 8}});
  Check(p.count[SURAA_P_VEC] == 1 && p.r1 == 3 && p.rv == 3 && p.group_nnz[0] == 13 && p.group_nnz[1] == 0 && p.group_nnz[2] == 5, "vector segments %" PetscInt_FMT ", r1 %" PetscInt_FMT ", rv %" PetscInt_FMT ", group nnz %lld/%lld/%lld", p.count[SURAA_P_VEC], p.r1, p.rv,
        (long long)p.group_nnz[0], (long long)p.group_nnz[1], (long long)p.group_nnz[2]);
  if (CheckLayout(A, o, L, p)) CheckProducts(L, p, A, rng);
  g_context     = "example 8x6, T 4, automatic G1 cap (2 rows >= 4 < S = 3)";
  o.g1_max_rows = -1;
  PetscCall(SURAABuildHostLayout(o, A.View(), &L, &p));
  CheckLaunches(p, {{SURAA_G2, 32, 0, 3}, {SURAA_G3, 1, 3, 8}});
  if (CheckLayout(A, o, L, p)) CheckProducts(L, p, A, rng);

  g_context = "example 8x6, fd_bins";
  o         = SURAAOptions();
  o.lane_entries = 2;
  o.segments = SURAA_SEGMENTS_FD_BINS; /* k = ceil((5 - 0) / 3) = 2 bins: S = 4; means 3.75 (2 lanes), 0.75 */
  PetscCall(SURAABuildHostLayout(o, A.View(), &L, &p));
  Check(p.S == 4 && p.nseg == 2, "S %" PetscInt_FMT ", %" PetscInt_FMT " segments, expected 4, 2", p.S, p.nseg);
  CheckLaunches(p, {{SURAA_G3, 2, 0, 4}, {SURAA_G3, 1, 4, 8}});
  if (CheckLayout(A, o, L, p)) CheckProducts(L, p, A, rng);

  g_context = "example 8x6, logical";
  o         = SURAAOptions();
  o.lane_entries = 2;
  o.permute = SURAA_PERMUTE_LOGICAL;
  PetscCall(SURAABuildHostLayout(o, A.View(), &L, &p));
  CheckArray("perm", L.perm, std::vector<int>{2, 4, 5, 7, 0, 3, 1, 6});
  Check(L.col.empty() && L.val.empty(), "logical mode stores sorted arrays");
  if (CheckLayout(A, o, L, p)) CheckProducts(L, p, A, rng);

  /* 10 rows of lengths 9000 2049 2048 600 513 512 40 31 3 0, one segment per row, T 32: rows >= 32 = 7 =
     the automatic cap: G1 = [0, 7): > 2048: [0, 2) over chunks (9000 -> 2, 2049 -> 1: cstart 0 2 3),
     > 512: [2, 5) 256 threads, [5, 7) 64 threads; G3: 31 -> 16 lanes, 3 -> 2 lanes, 0 -> 1 lane */
  const Csr B = RandomCsr(rng, 10, 10000, [](PetscInt r) {
    const PetscInt l[] = {40, 0, 2048, 31, 9000, 513, 3, 600, 512, 2049};
    return l[r];
  });
  g_context = "example 10 long rows, rows 1";
  o              = SURAAOptions();
  o.lane_entries = 2;
  o.segments     = SURAA_SEGMENTS_ROWS;
  o.segment_rows = 1;
  PetscCall(SURAABuildHostLayout(o, B.View(), &L, &p));
  CheckArray("perm", L.perm, std::vector<int>{4, 9, 2, 7, 5, 8, 0, 3, 6, 1});
  CheckArray("cstart", L.cstart, std::vector<int>{0, 2, 3});
  CheckLaunches(p, {{SURAA_G1_CHUNKS, 1024, 0, 2}, {SURAA_G1_BLOCK256, 256, 2, 5}, {SURAA_G1_BLOCK64, 64, 5, 7}, {SURAA_G3, 16, 7, 8}, {SURAA_G3, 2, 8, 9}, {SURAA_G3, 1, 9, 10}});
  Check(p.nbig == 2 && p.nchunks == 3 && p.g1_max == 7, "big rows %" PetscInt_FMT ", chunks %" PetscInt_FMT ", G1 cap %" PetscInt_FMT ", expected 2, 3, 7", p.nbig, p.nchunks, p.g1_max);
  if (CheckLayout(B, o, L, p)) CheckProducts(L, p, B, rng);
  /* no G1: G2 widths by mean: > 128 -> 128 lanes (six rows), 40 -> 32 lanes */
  g_context     = "example 10 long rows, rows 1, no G1";
  o.g1_max_rows = 0;
  PetscCall(SURAABuildHostLayout(o, B.View(), &L, &p));
  CheckLaunches(p, {{SURAA_G2, 128, 0, 6}, {SURAA_G2, 32, 6, 7}, {SURAA_G3, 16, 7, 8}, {SURAA_G3, 2, 8, 9}, {SURAA_G3, 1, 9, 10}});
  if (CheckLayout(B, o, L, p)) CheckProducts(L, p, B, rng);
  /* segments of 4 rows: [0,4) mean 3424 -> G1 (4 <= cap 7), [4,8) mean 274 -> G2 (cap reached), 128 lanes; [8,10) mean 1.5 -> G3 1 lane */
  g_context      = "example 10 long rows, rows 4";
  o.g1_max_rows  = -1;
  o.segment_rows = 4;
  PetscCall(SURAABuildHostLayout(o, B.View(), &L, &p));
  CheckLaunches(p, {{SURAA_G1_CHUNKS, 1024, 0, 2}, {SURAA_G1_BLOCK256, 256, 2, 4}, {SURAA_G2, 128, 4, 8}, {SURAA_G3, 1, 8, 10}});
  if (CheckLayout(B, o, L, p)) CheckProducts(L, p, B, rng);
  ReportGroup("1 worked examples", before, "8x6 (ties, quartiles, literal/fd_bins, groups, lanes, arrays), 10 long rows (buckets, chunks, widths)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 2. SURAAMultHost against the CSR product */
static PetscErrorCode TestExecutor(const std::vector<TestMatrix> &mats, const std::vector<TestOptions> &opts, Rng &rng)
{
  const int before = g_failures;
  int       n      = 0;

  PetscFunctionBeginUser;
  for (const auto &t : mats)
    for (const auto &to : opts) {
      SURAAHostLayout L;
      SURAAPlan       p;
      g_context = "executor: " + t.name + ", " + to.name;
      PetscCall(SURAABuildHostLayout(to.o, t.A.View(), &L, &p));
      CheckProducts(L, p, t.A, rng);
      n++;
    }
  ReportGroup("2 executor vs CSR", before, std::to_string(mats.size()) + " matrices x " + std::to_string(opts.size()) + " options: " + std::to_string(2 * n) + " products (y = A x, y += A x)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 3. layout invariants */
static PetscErrorCode TestLayouts(const std::vector<TestMatrix> &mats, const std::vector<TestOptions> &opts)
{
  const int before = g_failures;
  int       n      = 0, g[3] = {0, 0, 0};

  PetscFunctionBeginUser;
  for (const auto &t : mats)
    for (const auto &to : opts) {
      SURAAHostLayout L;
      SURAAPlan       p;
      g_context = "layout: " + t.name + ", " + to.name;
      PetscCall(SURAABuildHostLayout(to.o, t.A.View(), &L, &p));
      CheckLayout(t.A, to.o, L, p);
      g[0] += p.r1 > 0;
      g[1] += p.rv > p.r1;
      g[2] += p.m > p.rv;
      n++;
    }
  /* the adversarial cases land where they should under the defaults */
  for (const auto &t : mats) {
    SURAAHostLayout L;
    SURAAPlan       p;
    g_context = "layout: " + t.name + ", defaults";
    PetscCall(SURAABuildHostLayout(SURAAOptions(), t.A.View(), &L, &p));
    if (t.name.rfind("one huge row", 0) == 0) Check(p.r1 >= 1 && p.nbig == 1 && p.nchunks == 3 && p.launch[0].kind == SURAA_G1_CHUNKS, "the huge row is not in G1 over 3 chunks (r1 %" PetscInt_FMT ", big %" PetscInt_FMT ", chunks %" PetscInt_FMT ")", p.r1, p.nbig, p.nchunks);
    if (t.name.rfind("all rows of length 7", 0) == 0) Check(p.iqr == 0 && p.S == 1 && p.rv == 0 && p.nlaunch == 1 && p.launch[0].lanes == 1, "IQR %" PetscInt_FMT " S %" PetscInt_FMT " rv %" PetscInt_FMT " launches %d", p.iqr, p.S, p.rv, p.nlaunch);
    if (t.name.rfind("all rows of length 40", 0) == 0) Check(p.r1 == 200 && p.nlaunch == 1 && p.launch[0].kind == SURAA_G1_BLOCK64, "r1 %" PetscInt_FMT " launches %d", p.r1, p.nlaunch);
    if (t.name.rfind("9000 rows", 0) == 0) Check(p.g1_max == 8192 && p.r1 <= 8192 && p.rv == 9000, "G1 cap %" PetscInt_FMT " r1 %" PetscInt_FMT " rv %" PetscInt_FMT, p.g1_max, p.r1, p.rv);
    if (t.name == "all rows empty") Check(p.nonempty == 0 && p.nlaunch == 1 && p.launch[0].kind == SURAA_G3 && p.launch[0].lanes == 1, "all-empty plan: %d launches", p.nlaunch);
  }
  ReportGroup("3 layout", before, std::to_string(n) + " layouts (" + std::to_string(g[0]) + " with G1, " + std::to_string(g[1]) + " with G2, " + std::to_string(g[2]) + " with G3): order, permutation, rps, arrays, S, segments, groups, launches, chunks");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 4. values refresh */
static PetscErrorCode TestRefresh(const std::vector<TestMatrix> &mats, const std::vector<TestOptions> &opts, Rng &rng)
{
  const int before = g_failures;
  int       n      = 0;

  PetscFunctionBeginUser;
  for (const auto &t : mats)
    for (const auto &to : opts) {
      SURAAHostLayout L;
      SURAAPlan       p;
      g_context = "refresh: " + t.name + ", " + to.name;
      PetscCall(SURAABuildHostLayout(to.o, t.A.View(), &L, &p));
      const SURAAHostLayout old = L;
      const Csr             B   = WithNewValues(t.A, rng);
      PetscCall(SURAARefreshHostLayout(B.View(), &L));
      Check(L.perm == old.perm && L.rps == old.rps && L.col == old.col && L.cstart == old.cstart, "the refresh changed the structure");
      if (CheckLayout(B, to.o, L, p)) CheckProducts(L, p, B, rng);
      n++;
    }
  ReportGroup("4 refresh", before, std::to_string(n) + " layouts refreshed with new values, products of the new CSR");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 5. parameters and options */
static PetscErrorCode TestParameters(void)
{
  const int before = g_failures;
  struct Case {
    const char   *name;
    SURAASegments seg;
    PetscInt      m, qa, qb, maxlen, minlen, kmax, rows, S;
  };
  /* literal: floor(2 IQR / cbrt(m)); fd_bins: ceil(m / clamp(ceil((max - min) / h), 1, Kmax)) */
  const std::vector<Case> cases = {
    {"literal m 1000, IQR 25 (h 5)", SURAA_SEGMENTS_LITERAL, 1000, 30, 5, 100, 0, 64, 0, 5},
    {"literal m 1000, IQR 24 (h 4.8)", SURAA_SEGMENTS_LITERAL, 1000, 29, 5, 100, 0, 64, 0, 4},
    {"literal m 8, IQR 0", SURAA_SEGMENTS_LITERAL, 8, 4, 4, 9, 0, 64, 0, 1},
    {"literal m 8, IQR 100 (h 100 > m)", SURAA_SEGMENTS_LITERAL, 8, 100, 0, 100, 0, 64, 0, 8},
    {"literal quartile reads reversed", SURAA_SEGMENTS_LITERAL, 1000, 5, 30, 100, 0, 64, 0, 5},
    {"fd_bins m 1000, h 5, range 100 -> 20 bins", SURAA_SEGMENTS_FD_BINS, 1000, 30, 5, 100, 0, 64, 0, 50},
    {"fd_bins m 1000, h 5, range 1000 -> Kmax 64", SURAA_SEGMENTS_FD_BINS, 1000, 30, 5, 1000, 0, 64, 0, 16},
    {"fd_bins m 1000, h 5, range 1000, Kmax 3", SURAA_SEGMENTS_FD_BINS, 1000, 30, 5, 1000, 0, 3, 0, 334},
    {"fd_bins IQR 0 -> one segment", SURAA_SEGMENTS_FD_BINS, 1000, 7, 7, 5000, 0, 64, 0, 1000},
    {"rows 7", SURAA_SEGMENTS_ROWS, 1000, 0, 0, 0, 0, 64, 7, 7},
    {"rows 7 > m 5", SURAA_SEGMENTS_ROWS, 5, 0, 0, 0, 0, 64, 7, 5},
    {"m 0", SURAA_SEGMENTS_LITERAL, 0, 0, 0, 0, 0, 64, 0, 1},
  };

  PetscFunctionBeginUser;
  for (const auto &c : cases) {
    SURAAOptions o;
    SURAAPlan    p;
    o.segments     = c.seg;
    o.max_segments = c.kmax;
    if (c.rows) o.segment_rows = c.rows;
    p.m       = c.m;
    p.qa      = c.qa;
    p.qb      = c.qb;
    p.maxlen  = c.maxlen;
    p.minlen  = c.minlen;
    g_context = std::string("parameters: ") + c.name;
    PetscCall(SURAASegmentRows(o, &p));
    Check(p.S == c.S && p.nseg == (c.m ? (c.m + c.S - 1) / c.S : 0), "S = %" PetscInt_FMT " (%" PetscInt_FMT " segments), expected %" PetscInt_FMT, p.S, p.nseg, c.S);
  }
  /* the predicates at their edges: mean 64 -> 32 lanes, just above -> 64; 128 -> 64, above -> 128; lanes */
  g_context = "parameters: predicates";
  Check(!SURAASegmentPredicate(SURAA_P_Y64, 640, 10, 32, 2) && SURAASegmentPredicate(SURAA_P_Y64, 641, 10, 32, 2), "mean > 64");
  Check(!SURAASegmentPredicate(SURAA_P_Y128, 1280, 10, 32, 2) && SURAASegmentPredicate(SURAA_P_Y128, 1281, 10, 32, 2), "mean > 128");
  Check(SURAASegmentPredicate(SURAA_P_VEC, 320, 10, 32, 2) && !SURAASegmentPredicate(SURAA_P_VEC, 319, 10, 32, 2), "mean >= T");
  for (int q = SURAA_P_L2, thr = 2; q <= SURAA_P_L32; q++, thr *= 2) Check(!SURAASegmentPredicate(q, 3 * thr, 3, 32, 2) && SURAASegmentPredicate(q, 3 * thr + 1, 3, 32, 2), "mean > %d", thr);
  /* with E entries per lane: at least L lanes iff mean > L E / 2 (L = 2 .. 32), G2 width 64 / 128 iff mean > 32 E / 64 E;
     E = 1 puts the L = 2 edge at mean 1 (rows 3: sum 3 fails, 4 holds), T is independent of E */
  for (int E : {1, 2, 4, 8, 16, 32}) {
    for (int q = SURAA_P_L2, L = 2; q <= SURAA_P_L32; q++, L *= 2) Check(!SURAASegmentPredicate(q, (int64_t)3 * L * E / 2, 3, 32, E) && SURAASegmentPredicate(q, (int64_t)3 * L * E / 2 + 1, 3, 32, E), "E %d: at least %d lanes iff mean > %d", E, L, L * E / 2);
    Check(!SURAASegmentPredicate(SURAA_P_Y64, 7 * 32 * E, 7, 32, E) && SURAASegmentPredicate(SURAA_P_Y64, 7 * 32 * E + 1, 7, 32, E), "E %d: width 64 iff mean > %d", E, 32 * E);
    Check(!SURAASegmentPredicate(SURAA_P_Y128, 7 * 64 * E, 7, 32, E) && SURAASegmentPredicate(SURAA_P_Y128, 7 * 64 * E + 1, 7, 32, E), "E %d: width 128 iff mean > %d", E, 64 * E);
    Check(SURAASegmentPredicate(SURAA_P_VEC, 320, 10, 32, E) && !SURAASegmentPredicate(SURAA_P_VEC, 319, 10, 32, E), "E %d: mean >= T", E);
  }
  /* no overflow: 2^31 - 1 entries in one row, E = 32 (L E rows = 1024) */
  Check(SURAASegmentPredicate(SURAA_P_L32, ((int64_t)1 << 31) - 1, 1, 32, 32) && !SURAASegmentPredicate(SURAA_P_L32, 512, 1, 32, 32) && SURAASegmentPredicate(SURAA_P_L32, 513, 1, 32, 32), "E 32, 32 lanes iff mean > 512");
  /* bad options are refused with PETSC_ERR_ARG_OUTOFRANGE (PETSC_ERR_ARG_INCOMP for the combination) */
  struct Bad {
    std::string    name;
    SURAAOptions   o;
    PetscErrorCode err;
  };
  std::vector<Bad> bad;
  SURAAOptions     o;
  o.vector_width = 48;
  bad.push_back({"vector width 48", o, PETSC_ERR_ARG_OUTOFRANGE});
  o          = SURAAOptions();
  o.g3_lanes = 3;
  bad.push_back({"G3 lanes 3", o, PETSC_ERR_ARG_OUTOFRANGE});
  o          = SURAAOptions();
  o.g3_lanes = 64;
  bad.push_back({"G3 lanes 64", o, PETSC_ERR_ARG_OUTOFRANGE});
  o                  = SURAAOptions();
  o.vector_threshold = 0;
  bad.push_back({"threshold 0", o, PETSC_ERR_ARG_OUTOFRANGE});
  o              = SURAAOptions();
  o.segment_rows = 0;
  bad.push_back({"segment rows 0", o, PETSC_ERR_ARG_OUTOFRANGE});
  o              = SURAAOptions();
  o.max_segments = 0;
  bad.push_back({"max segments 0", o, PETSC_ERR_ARG_OUTOFRANGE});
  o             = SURAAOptions();
  o.g1_max_rows = -2;
  bad.push_back({"G1 cap -2", o, PETSC_ERR_ARG_OUTOFRANGE});
  o              = SURAAOptions();
  o.cusparse_alg = 3;
  bad.push_back({"cusparse alg 3", o, PETSC_ERR_ARG_OUTOFRANGE});
  for (PetscInt E : {0, 3, 6, 64, -2}) {
    o              = SURAAOptions();
    o.lane_entries = E;
    bad.push_back({"lane entries " + std::to_string(E), o, PETSC_ERR_ARG_OUTOFRANGE});
  }
  o         = SURAAOptions();
  o.kernels = SURAA_KERNELS_CUSPARSE;
  o.permute = SURAA_PERMUTE_LOGICAL;
  bad.push_back({"cusparse kernels, logical", o, PETSC_ERR_ARG_INCOMP});
  for (const auto &b : bad) {
    PetscErrorCode ierr;
    g_context = "parameters: refuse " + b.name;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
    ierr = SURAACheckOptions(b.o);
    PetscCall(PetscPopErrorHandler());
    Check(ierr == b.err, "error %d, expected %d", (int)ierr, (int)b.err);
  }
  /* the default E (8, from the H200 sweep) is the constant the plan code uses */
  Check(SURAAOptions().lane_entries == kSURAALaneEntries, "default lane entries %" PetscInt_FMT ", kSURAALaneEntries %d", SURAAOptions().lane_entries, kSURAALaneEntries);
  for (PetscInt E : {1, 2, 4, 8, 16, 32}) {
    o              = SURAAOptions();
    o.lane_entries = E;
    g_context      = "parameters: accept lane entries " + std::to_string(E);
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
    const PetscErrorCode ierr = SURAACheckOptions(o);
    PetscCall(PetscPopErrorHandler());
    Check(ierr == PETSC_SUCCESS, "error %d", (int)ierr);
  }
  ReportGroup("5 parameters", before, "S by literal/fd_bins/rows, predicate edges (E = 1 .. 32), options refused");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 27-point stencil on an n^3 grid: periodic (every row 27 entries, n >= 3) or not (boundary rows 8 .. 18) */
static Csr Stencil27(PetscInt n, bool periodic, Rng &rng)
{
  std::vector<std::vector<PetscInt>> rows(n * n * n);
  for (PetscInt z = 0; z < n; z++)
    for (PetscInt y = 0; y < n; y++)
      for (PetscInt x = 0; x < n; x++) {
        auto &r = rows[(z * n + y) * n + x];
        for (PetscInt dz = -1; dz <= 1; dz++)
          for (PetscInt dy = -1; dy <= 1; dy++)
            for (PetscInt dx = -1; dx <= 1; dx++) {
              PetscInt xx = x + dx, yy = y + dy, zz = z + dz;
              if (periodic) xx = (xx + n) % n, yy = (yy + n) % n, zz = (zz + n) % n;
              else if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n) continue;
              r.push_back((zz * n + yy) * n + xx);
            }
        std::sort(r.begin(), r.end());
      }
  return CsrFromRows(n * n * n, rows, rng);
}

/* 6. -mat_suraa_lane_entries E: every G2/G3 row's lane count against the rule, recomputed here from the
   long double mean of the row's segment (not through SURAASegmentPredicate), and the products */
static PetscErrorCode TestLaneRule(Rng &rng)
{
  const int               before = g_failures;
  int                     nplans = 0, nrows = 0;
  std::vector<TestMatrix> mats;

  PetscFunctionBeginUser;
  mats.push_back({"periodic 27-point stencil 6^3 (every row 27)", Stencil27(6, true, rng)});
  mats.push_back({"27-point stencil 9^3 (rows 8 .. 27)", Stencil27(9, false, rng)});
  mats.push_back({"rows of 1 .. 100 entries", RandomCsr(rng, 600, 800, [&](PetscInt) { return Uniform(rng, 1, 100); })});
  mats.push_back({"a single long row (1 x 5000)", RandomCsr(rng, 1, 5000, [](PetscInt) { return 5000; })});
  mats.push_back({"a long row among short ones", RandomCsr(rng, 300, 4000, [&](PetscInt r) { return r == 123 ? 3000 : Uniform(rng, 0, 5); })});
  struct Variant {
    std::string  name;
    SURAAOptions o;
  };
  std::vector<Variant> variants;
  SURAAOptions         o;
  variants.push_back({"defaults", o});
  o.segments     = SURAA_SEGMENTS_ROWS;
  o.segment_rows = 1;
  variants.push_back({"rows 1", o});
  o.segment_rows = 5;
  variants.push_back({"rows 5", o});
  o                  = SURAAOptions();
  o.vector_threshold = 1 << 30; /* everything in G3, the long rows included */
  variants.push_back({"all G3", o});
  o                  = SURAAOptions();
  o.vector_threshold = 4;
  o.g1_max_rows      = 0; /* rows of mean >= 4 in G2: widths by E */
  o.segments         = SURAA_SEGMENTS_ROWS;
  o.segment_rows     = 2;
  variants.push_back({"T 4, no G1, rows 2", o});
  o.permute = SURAA_PERMUTE_LOGICAL;
  variants.push_back({"T 4, no G1, rows 2, logical", o});

  for (const auto &t : mats)
    for (const auto &v : variants)
      for (PetscInt E : {1, 2, 4, 8, 32}) {
        SURAAHostLayout L;
        SURAAPlan       p;
        SURAAOptions    oe = v.o;
        oe.lane_entries    = E;
        g_context          = "lane rule: " + t.name + ", " + v.name + ", E " + std::to_string(E);
        PetscCall(SURAABuildHostLayout(oe, t.A.View(), &L, &p));
        nplans++;
        for (int l = 0; l < p.nlaunch; l++) {
          const SURAALaunch &c = p.launch[l];
          if (c.kind != SURAA_G2 && c.kind != SURAA_G3) continue;
          for (int k = c.begin; k < c.end; k++) {
            const int64_t     b = (int64_t)(k / p.S) * p.S, e = std::min<int64_t>(b + p.S, p.m);
            const long double mean = (long double)(L.rps[e] - L.rps[b]) / (long double)(e - b);
            int               want = 1;
            if (c.kind == SURAA_G3) /* the smallest power of two L (1 .. 32) with L E >= mean */
              while (want < 32 && (long double)want * E < mean) want *= 2;
            else { /* roundup32(mean / E) in [32, 128], 96 -> 128 */
              want = 32;
              while (want < 128 && (long double)want * E < mean) want += 32;
              if (want == 96) want = 128;
            }
            nrows++;
            if (!Check(c.lanes == want, "sorted row %d (segment mean %.4Lf) in launch %d (%s) with %d lanes, expected %d", k, mean, l, c.kind == SURAA_G3 ? "G3" : "G2", c.lanes, want)) break;
          }
        }
        if (CheckLayout(t.A, oe, L, p)) CheckProducts(L, p, t.A, rng);
      }

  /* hand-computed: every row 27 (IQR 0, literal S = 1), T 32: all in G3, one launch of 32/16/8/4/2/1 lanes */
  const std::pair<PetscInt, int> cube[] = {{1, 32}, {2, 16}, {4, 8}, {8, 4}, {16, 2}, {32, 1}};
  for (const auto &[E, lanes] : cube) {
    SURAAHostLayout L;
    SURAAPlan       p;
    o              = SURAAOptions();
    o.lane_entries = E;
    g_context      = "lane rule: periodic stencil, E " + std::to_string(E);
    PetscCall(SURAABuildHostLayout(o, mats[0].A.View(), &L, &p));
    CheckLaunches(p, {{SURAA_G3, lanes, 0, 216}});
  }
  /* hand-computed G2 widths: one row of 200 (no G1): E 1: roundup32(200) -> 128; E 2: roundup32(100) = 128;
     E 4: roundup32(50) = 64; E 8, 32: 32. All G3 (T 1000): 32 lanes, but 8 for E 32 (200 / 32 = 6.25) */
  const Csr                      R200      = RandomCsr(rng, 1, 300, [](PetscInt) { return 200; });
  const std::pair<PetscInt, int> widths[] = {{1, 128}, {2, 128}, {4, 64}, {8, 32}, {32, 32}};
  for (const auto &[E, Y] : widths) {
    SURAAHostLayout L;
    SURAAPlan       p;
    o              = SURAAOptions();
    o.lane_entries = E;
    o.g1_max_rows  = 0;
    g_context      = "lane rule: one row of 200, no G1, E " + std::to_string(E);
    PetscCall(SURAABuildHostLayout(o, R200.View(), &L, &p));
    CheckLaunches(p, {{SURAA_G2, Y, 0, 1}});
    o.vector_threshold = 1000;
    g_context          = "lane rule: one row of 200, all G3, E " + std::to_string(E);
    PetscCall(SURAABuildHostLayout(o, R200.View(), &L, &p));
    CheckLaunches(p, {{SURAA_G3, E == 32 ? 8 : 32, 0, 1}});
  }
  ReportGroup("6 lane rule", before, std::to_string(mats.size()) + " matrices x " + std::to_string(variants.size()) + " options x E = 1, 2, 4, 8, 32: " + std::to_string(nplans) + " plans, " + std::to_string(nrows) + " G2/G3 rows checked, products; hand-computed plans");
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  seed;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, "SURAA host reference unit tests; -seed N reruns a random sequence"));
  seed = (PetscInt)(std::chrono::system_clock::now().time_since_epoch().count() % 2147483647);
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-seed", &seed, &set));
  std::printf("test_suraa_host: seed %" PetscInt_FMT " (rerun with -seed %" PetscInt_FMT ")\n", seed, seed);
  Rng rng((uint64_t)seed);

  PetscCall(TestWorkedExamples(rng));
  const std::vector<TestMatrix>  mats = MakeTestMatrices(rng);
  const std::vector<TestOptions> opts = MakeTestOptions();
  PetscCall(TestExecutor(mats, opts, rng));
  PetscCall(TestLayouts(mats, opts));
  PetscCall(TestRefresh(mats, opts, rng));
  PetscCall(TestParameters());
  PetscCall(TestLaneRule(rng));

  if (g_failures) std::printf("test_suraa_host: %d checks FAILED (seed %" PetscInt_FMT ")\n", g_failures, seed);
  else std::printf("test_suraa_host: all checks passed\n");
  std::fflush(stdout);
  PetscCall(PetscFinalize());
  return g_failures ? 1 : 0;
}
