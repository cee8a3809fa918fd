/*
   test_ccoo_host: unit tests of the CCOO host reference (src/mat/impls/spmv/ccoo/ccoohost.cxx) against the
   decisions of ../shared/reference/briefs/segsum-and-ccoo.md part B and ccoo.h.

     1. worked example   a 5x300 matrix with B = 4, K = 2, table of 2: every array by hand (row offsets,
                         8/16-bit columns with sentinels, table indices, plain values, flags, pointers);
                         the table tie-break with 3 entries; the automatic K
     2. executors        CCOOEmulateKernel (the kernel's algorithm) against a long double CSR product,
                         CCOOMultHost (the plugin's host product) bit for bit against SeqAIJ's sequential
                         row sums; y = A x (y poisoned with NaN first: every row must be written) and
                         y += A x, on random, adversarial and encoding-limit matrices, several options and
                         B in {256, 64, 32, 5, 1}
     3. layout           CCOOCheckLayout (every invariant) plus independent checks: the table is the top
                         lut_size of the sample's candidates (its 2048 most frequent bit patterns) by exact
                         count over all values (count desc, bits asc), the top lut_size of all values with
                         at most 4096 nonzeros, a chunk stores indices iff all its values are in it, K and
                         the counts, and the encodings the limits must produce; matrices built around the
                         sample positions: more than 2048 distinct sampled values, frequent values off the
                         sample, exact counts that reorder the sample's ranking
     4. special values   NaN (payloads), +-Inf, -0.0, denormals: table entries keep their bits, products
                         match CSR semantics (Inf in x too: padding never multiplies, empty rows stay 0)
     5. refresh          new values (fallback to plain), scaled values (table follows), one changed value
                         (exactly its chunk falls back), back to the original values (identical to a fresh
                         build), shifted constant diagonal; products of the new CSR after each
     6. parameters       automatic K by the cost model: hand-made row lengths, wide rows, table coverage,
                         the H200 sweep cases (CCOOChooseK on their statistics), ties; option ranges
     7. K = 16           layouts (CCOOCheckLayout, slot counts) and both executors on matrices with rows of
                         15, 16, 17, 31-33, 48, 49 and longer entries and empty rows, every B; refresh

   With complex scalars (make SCALAR=complex: the same file against the complex PETSc) groups 2, 3 (without the
   hand-made real values of the table decision), 5 and 7 run on the same matrices with complex values (each value
   times a phase drawn from its bits, so equal values stay equal and the tables and their decisions stand), and
     8. complex keys    the 128-bit key: values equal in one part and different in the other are distinct table
                        entries, -0.0 and +0.0 in either part differ, the table is sorted by (real bits, imaginary
                        bits) and ties go to the smaller pair; a refresh that changes only an imaginary part by an
                        ulp falls back; K and the bytes with 16-byte values; products as in group 2
   Groups 1, 4 and 6 (hand-made real bit patterns, NaN payloads, the real cost model's cases) are real only.

   Usage: test_ccoo_host [-seed N]   (the seed defaults to the clock and is printed, to rerun a failure)
   Exit status is nonzero on any failure; every failure prints one "FAIL [context]: ..." line.
*/
#include "mat/impls/spmv/ccoo/ccoo.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

/* ------------------------------------------------------------------------------------------------ */
/* Failure reporting                                                                                 */
/* ------------------------------------------------------------------------------------------------ */

#include "hosttest.h" /* g_failures, g_context, Check(), ReportGroup() */
#include "hostcsr.h"  /* Rng, Csr, random values, CSR builders */

/* PETSc errors of the code under test become failures with their message */
static std::string g_petsc_msg;
static PetscErrorCode CaptureError(MPI_Comm, int, const char *, const char *, PetscErrorCode n, PetscErrorType p, const char *mess, void *)
{
  if (p == PETSC_ERROR_INITIAL) g_petsc_msg = mess ? mess : "";
  return n;
}
/* runs CCOOCheckLayout; a violated invariant is a failure */
static bool CheckInvariants(const CCOOOptions &o, const SpMVHostCsr &A, const CCOOLayout &L)
{
  PetscErrorCode ierr;
  g_petsc_msg.clear();
  PetscPushErrorHandler(CaptureError, nullptr);
  ierr = CCOOCheckLayout(o, A, L);
  PetscPopErrorHandler();
  return Check(ierr == PETSC_SUCCESS, "CCOOCheckLayout: %s", g_petsc_msg.c_str());
}

/* ------------------------------------------------------------------------------------------------ */
/* Real or complex values                                                                            */
/* ------------------------------------------------------------------------------------------------ */

using Bits = CCOOKey; /* a value's bit pattern (128 bits with complex scalars) */
static const int64_t kVs = (int64_t)sizeof(PetscScalar); /* bytes of a value: 8 or 16 */
#if defined(PETSC_USE_COMPLEX)
using LScalar = std::complex<long double>;
static bool   IsNaN(const PetscScalar &v) { return std::isnan(v.real()) || std::isnan(v.imag()); }
static bool   IsNaNL(const LScalar &v) { return std::isnan(v.real()) || std::isnan(v.imag()); }
static bool   IsInfL(const LScalar &v) { return std::isinf(v.real()) || std::isinf(v.imag()); }
static double Im(const PetscScalar &v) { return v.imag(); }
static double Re(const PetscScalar &v) { return v.real(); }
/* a value times a phase drawn from its bits: equal values stay equal (the table's decisions stand), both parts vary */
static PetscScalar Phased(PetscScalar v)
{
  uint64_t b;
  double   re = v.real();
  std::memcpy(&b, &re, sizeof(b));
  const double t = 6.283185307179586 * (double)(CCOOHash(b) >> 11) * 0x1.0p-53;
  return v * PetscScalar(std::cos(t), std::sin(t));
}
static void PhaseValues(Csr &A)
{
  for (PetscScalar &v : A.a) v = Phased(v);
}
#else
using LScalar = long double;
static bool   IsNaN(const PetscScalar &v) { return std::isnan(v); }
static bool   IsNaNL(const LScalar &v) { return std::isnan(v); }
static bool   IsInfL(const LScalar &v) { return std::isinf(v); }
static double Im(const PetscScalar &) { return 0.0; }
static double Re(const PetscScalar &v) { return v; }
#endif

/* ------------------------------------------------------------------------------------------------ */
/* CSR matrices                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/* value generators: random, or drawn from a small set (repeated values) */
using ValueFn = std::function<PetscScalar(PetscInt row, PetscInt col)>;

template <typename LenFn>
static Csr RandomCsr(Rng &rng, PetscInt m, PetscInt n, LenFn len, const ValueFn &val, bool sorted = true)
{
  std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> e(m);
  for (PetscInt r = 0; r < m; r++)
    for (PetscInt c : RandomColumns(rng, n, len(r), sorted)) e[r].push_back({c, val(r, c)});
  return CsrFromEntries(n, e);
}

/* 7-point stencil on an N^3 grid, -1 off the diagonal and 6 on it (constant coefficients) */
static Csr Stencil7(PetscInt N, bool constant, Rng &rng)
{
  std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> e(N * N * N);
  for (PetscInt r = 0; r < N * N * N; r++) {
    const PetscInt x = r % N, y = (r / N) % N, z = r / (N * N);
    for (PetscInt dz = -1; dz <= 1; dz++)
      for (PetscInt dy = -1; dy <= 1; dy++)
        for (PetscInt dx = -1; dx <= 1; dx++) {
          if (std::abs(dx) + std::abs(dy) + std::abs(dz) > 1) continue;
          if (x + dx < 0 || x + dx >= N || y + dy < 0 || y + dy >= N || z + dz < 0 || z + dz >= N) continue;
          const PetscInt c = r + dx + dy * N + dz * N * N;
          e[r].push_back({c, constant ? (c == r ? 6.0 : -1.0) : RandomValue(rng)});
        }
  }
  return CsrFromEntries(N * N * N, e);
}

static std::vector<TestMatrix> MakeTestMatrices(Rng &rng)
{
  std::vector<TestMatrix> t;
  const ValueFn           rnd = [&](PetscInt, PetscInt) { return RandomValue(rng); };
  const ValueFn           few = [&](PetscInt r, PetscInt c) { return r == c ? 4.0 : (rng() % 3 == 0 ? 0.5 : -1.0); }; /* 3 values */
  for (int k = 0; k < 6; k++) {
    const PetscInt m = Uniform(rng, 1, 600), n = Uniform(rng, 1, 600), maxl = Uniform(rng, 1, std::min<PetscInt>(n, 60));
    t.push_back({"random " + std::to_string(k) + " (" + std::to_string(m) + "x" + std::to_string(n) + ")", RandomCsr(rng, m, n, [&](PetscInt) { return Uniform(rng, 0, maxl); }, k % 2 ? few : rnd)});
  }
  for (int k = 0; k < 3; k++) {
    const PetscInt m = Uniform(rng, 50, 400), n = Uniform(rng, 50, 3000);
    t.push_back({"skewed " + std::to_string(k) + " (" + std::to_string(m) + "x" + std::to_string(n) + ")", RandomCsr(rng, m, n, [&](PetscInt) { return std::uniform_real_distribution<double>(0, 1)(rng) < 0.05 ? Uniform(rng, 0, n) : Uniform(rng, 0, 4); }, rnd)});
  }
  t.push_back({"stencil7 const 9^3", Stencil7(9, true, rng)});
  t.push_back({"stencil7 random 7^3", Stencil7(7, false, rng)});
  t.push_back({"empty rows (40%)", RandomCsr(rng, 300, 200, [&](PetscInt) { return std::uniform_real_distribution<double>(0, 1)(rng) < 0.4 ? 0 : Uniform(rng, 1, 30); }, rnd)});
  t.push_back({"leading/trailing/runs of empty rows", RandomCsr(rng, 1500, 100, [&](PetscInt r) { return r < 40 || r >= 1450 || (r >= 300 && r < 1000) ? 0 : Uniform(rng, 1, 9); }, few)});
  t.push_back({"3 nonempty rows of 200", RandomCsr(rng, 200, 100, [&](PetscInt r) { return r == 5 || r == 100 || r == 199 ? Uniform(rng, 1, 100) : 0; }, rnd)});
  t.push_back({"all rows empty", RandomCsr(rng, 45, 30, [](PetscInt) { return 0; }, rnd)});
  t.push_back({"one huge row (5000 > a chunk)", RandomCsr(rng, 30, 6000, [&](PetscInt r) { return r == 11 ? 5000 : Uniform(rng, 0, 5); }, few)});
  t.push_back({"only one row, 3000 entries", RandomCsr(rng, 1, 3000, [](PetscInt) { return 3000; }, rnd)});
  t.push_back({"fully dense row", RandomCsr(rng, 60, 300, [&](PetscInt r) { return r == 13 ? 300 : Uniform(rng, 0, 12); }, rnd)});
  t.push_back({"fully dense 40x40", RandomCsr(rng, 40, 40, [](PetscInt) { return 40; }, few)});
  t.push_back({"wide 10x500", RandomCsr(rng, 10, 500, [&](PetscInt) { return Uniform(rng, 0, 100); }, rnd)});
  t.push_back({"tall 500x8", RandomCsr(rng, 500, 8, [&](PetscInt) { return Uniform(rng, 0, 8); }, rnd)});
  t.push_back({"equal lengths 5 (ties)", RandomCsr(rng, 700, 50, [](PetscInt) { return 5; }, few)});
  t.push_back({"unsorted columns", RandomCsr(rng, 100, 100, [&](PetscInt) { return Uniform(rng, 0, 25); }, rnd, false)});
  /* encoding limits */
  { /* columns 0 and 70000 + r: every chunk spans more than 2^16 columns */
    std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> e(400);
    for (PetscInt r = 0; r < 400; r++) e[r] = {{r % 7, RandomValue(rng)}, {70000 + r, -1.0}};
    t.push_back({"columns span > 2^16", CsrFromEntries(70400, e)});
  }
  { /* spans just below/above the 8- and 16-bit limits (254/255, 65534/65535) */
    std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> e(16);
    const PetscInt spans[] = {254, 255, 256, 65534, 65535, 65536, 1, 0};
    for (PetscInt r = 0; r < 16; r++) {
      const PetscInt sp = spans[r % 8];
      e[r]              = {{1000, 2.0}};
      if (sp) e[r].push_back({1000 + sp, -1.0});
    }
    t.push_back({"spans at the width limits (one row per chunk with B 1)", CsrFromEntries(70000, e)});
  }
  { /* exactly 256, then 300 distinct values, each repeated */
    for (PetscInt nd : {256, 300}) {
      std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> e(600);
      for (PetscInt r = 0; r < 600; r++)
        for (PetscInt k = 0; k < 6; k++) e[r].push_back({(r + 37 * k) % 600, 1.0 + (double)((r * 6 + k) % nd)});
      for (auto &row : e) std::sort(row.begin(), row.end(), [](const auto &p, const auto &q) { return p.first < q.first; }); /* distinct columns */
      t.push_back({std::to_string(nd) + " distinct values", CsrFromEntries(600, e)});
    }
  }
  t.push_back({"1x1", RandomCsr(rng, 1, 1, [](PetscInt) { return 1; }, rnd)});
  t.push_back({"1x1 empty", RandomCsr(rng, 1, 1, [](PetscInt) { return 0; }, rnd)});
  t.push_back({"0x0", RandomCsr(rng, 0, 0, [](PetscInt) { return 0; }, rnd)});
  t.push_back({"0x7", RandomCsr(rng, 0, 7, [](PetscInt) { return 0; }, rnd)});
  t.push_back({"7x0", RandomCsr(rng, 7, 0, [](PetscInt) { return 0; }, rnd)});
#if defined(PETSC_USE_COMPLEX)
  for (TestMatrix &m : t) PhaseValues(m.A);
#endif
  return t;
}

struct TestOptions {
  std::string name;
  CCOOOptions o;
};

static std::vector<TestOptions> MakeTestOptions()
{
  std::vector<TestOptions> t;
  CCOOOptions              o;
  t.push_back({"defaults", o});
  for (PetscInt k : {1, 2, 4, 8, 16}) {
    o   = CCOOOptions();
    o.k = k;
    t.push_back({"K " + std::to_string(k), o});
  }
  o          = CCOOOptions();
  o.col_bits = 16;
  t.push_back({"col_bits 16", o});
  o          = CCOOOptions();
  o.col_bits = 32;
  o.k        = 2;
  t.push_back({"col_bits 32, K 2", o});
  o          = CCOOOptions();
  o.lut_size = 0;
  t.push_back({"no table", o});
  o          = CCOOOptions();
  o.lut_size = 1;
  o.k        = 4;
  t.push_back({"table of 1, K 4", o});
  o            = CCOOOptions();
  o.single_row = PETSC_FALSE;
  o.k          = 8;
  t.push_back({"no single-row, K 8", o});
  return t;
}

static const PetscInt kBs[] = {256, 64, 32, 5};

static CCOOOptions WithB(CCOOOptions o, PetscInt B)
{
  o.threads = B;
  return o;
}

/* ------------------------------------------------------------------------------------------------ */
/* Checks                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/* y (computed from y0) against y0 + A x in long double (complex: std::complex<long double>): NaN rows must be NaN,
   infinite rows equal, the others within 1e-13 relative to |y0| + sum |a x|; rows without entries exactly y0 */
static void CheckProduct(const Csr &A, const std::vector<PetscScalar> &x, const std::vector<PetscScalar> &y0, const std::vector<PetscScalar> &y, const char *what)
{
  double   worst     = 0;
  PetscInt worst_row = -1;
  for (PetscInt r = 0; r < A.m; r++) {
    LScalar     ref   = (LScalar)y0[r];
    long double scale = std::abs((LScalar)y0[r]);
    for (PetscInt k = A.i[r]; k < A.i[r + 1]; k++) {
      ref += (LScalar)A.a[k] * (LScalar)x[A.j[k]];
      scale += std::abs((LScalar)A.a[k] * (LScalar)x[A.j[k]]);
    }
    if (A.Len(r) == 0) {
      if (!Check(y[r] == y0[r] && !IsNaN(y[r]), "%s: row %" PetscInt_FMT " has no entries, y = %.17g%+.17gi, expected exactly %.17g%+.17gi", what, r, Re(y[r]), Im(y[r]), Re(y0[r]), Im(y0[r]))) return;
      continue;
    }
    if (IsNaNL(ref)) {
      if (!Check(IsNaN(y[r]), "%s: row %" PetscInt_FMT " should be NaN, y = %.17g%+.17gi", what, r, Re(y[r]), Im(y[r]))) return;
      continue;
    }
    if (IsInfL(ref)) {
      if (!Check(y[r] == (PetscScalar)ref, "%s: row %" PetscInt_FMT " should be %g%+gi, y = %.17g%+.17gi", what, r, Re((PetscScalar)ref), Im((PetscScalar)ref), Re(y[r]), Im(y[r]))) return;
      continue;
    }
    if (scale == 0) {
      if (!Check(y[r] == 0.0 || y[r] == y0[r], "%s: row %" PetscInt_FMT " should be 0, y = %.17g%+.17gi", what, r, Re(y[r]), Im(y[r]))) return;
      continue;
    }
    const double err = (double)(std::max((long double)0, std::abs((LScalar)y[r] - ref) - 1e-300L) / scale); /* subnormal rounding is absolute */
    if (worst_row < 0 || err > worst || std::isnan(err)) {
      worst     = err;
      worst_row = r;
      if (std::isnan(err)) break;
    }
  }
  if (worst_row >= 0) Check(worst <= 1e-13, "%s: row %" PetscInt_FMT " (%" PetscInt_FMT " entries) relative error %.3g > 1e-13", what, worst_row, A.Len(worst_row), worst);
}

/* y0 + A x as SeqAIJ computes it without inodes: sum = y0 (or 0), sum += a x in CSR order */
static std::vector<PetscScalar> SequentialCsr(const Csr &A, const std::vector<PetscScalar> &x, const std::vector<PetscScalar> &y0, bool add)
{
  std::vector<PetscScalar> y(A.m);
  for (PetscInt r = 0; r < A.m; r++) {
    PetscScalar sum = add ? y0[r] : 0.0; /* complex: std::complex's a * x, as SeqAIJ's complex sum */
    for (PetscInt k = A.i[r]; k < A.i[r + 1]; k++) sum += A.a[k] * x[A.j[k]];
    y[r] = sum;
  }
  return y;
}

/* y = A x (y poisoned with NaN: every row must be written) and y += A x: the kernel's algorithm against
   the CSR product, the host product bit for bit against SeqAIJ's (which NaN comes out of NaN + NaN is
   the compiler's operand order: any NaN will do) */
static void CheckProducts(const CCOOLayout &L, const Csr &A, Rng &rng, const std::vector<PetscScalar> *xin = nullptr)
{
  const std::vector<PetscScalar> x = xin ? *xin : RandomVector(rng, A.n);
  for (bool add : {false, true}) {
    const std::vector<PetscScalar> y0 = add ? RandomVector(rng, A.m) : std::vector<PetscScalar>(A.m, 0.0);
    std::vector<PetscScalar>       y  = add ? y0 : std::vector<PetscScalar>(A.m, std::numeric_limits<double>::quiet_NaN());
    CCOOEmulateKernel(L, x.data(), y.data(), add);
    CheckProduct(A, x, y0, y, add ? "kernel algorithm, y += A x" : "kernel algorithm, y = A x");
    y = add ? y0 : std::vector<PetscScalar>(A.m, std::numeric_limits<double>::quiet_NaN());
    CCOOMultHost(L, x.data(), y.data(), add);
    const std::vector<PetscScalar> seq = SequentialCsr(A, x, y0, add);
    for (PetscInt r = 0; r < A.m; r++)
      if (!Check(CCOOBits(y[r]) == CCOOBits(seq[r]) || (IsNaN(y[r]) && IsNaN(seq[r])), "host product, %s: row %" PetscInt_FMT " = %.17g%+.17gi, SeqAIJ's sum %.17g%+.17gi (bits differ; NaN payloads may)", add ? "y += A x" : "y = A x", r, Re(y[r]), Im(y[r]), Re(seq[r]), Im(seq[r]))) break;
  }
}

/* the lut_size most frequent bit patterns of all values, ties to the smaller pattern, sorted by bits (the
   table's definition before the sample's candidates; still the table with at most 4096 nonzeros) */
static std::vector<Bits> TopOfAllValues(const Csr &A, PetscInt lut_size)
{
  std::map<Bits, int64_t> count;
  for (PetscScalar v : A.a) count[CCOOBits(v)]++;
  std::vector<std::pair<Bits, int64_t>> runs(count.begin(), count.end());
  std::sort(runs.begin(), runs.end(), [](const auto &p, const auto &q) { return p.second != q.second ? p.second > q.second : p.first < q.first; });
  std::vector<Bits> lut;
  for (PetscInt i = 0; i < lut_size && i < (PetscInt)runs.size(); i++) lut.push_back(runs[i].first);
  std::sort(lut.begin(), lut.end());
  return lut;
}

/* the table by an independent route (ccoo.h, Table): the min(4096, nnz) values sampled at the jittered
   positions counted in a map; no table when their lut_size most frequent cover less than half of them (more
   than 4096 nonzeros); the candidates: the 2048 most frequent sampled patterns (count desc, bits asc); every
   value counted in a map; the misses: the nonzeros whose value is no candidate. Ranked: every distinct value
   when the misses are at most nnz / 16, else the candidates only. The table: the top lut_size ranked values
   by (count desc, bits asc), sorted by bits. *ndistinct = the ranked values, *nmiss = the misses, *cover =
   the table's count over all values (all 0 without a table). */
static std::vector<Bits> ExpectedTable(const Csr &A, PetscInt lut_size, int64_t *ndistinct, int64_t *cover, int64_t *nmiss = nullptr)
{
  const auto                  rank = [](const auto &p, const auto &q) { return p.second != q.second ? p.second > q.second : p.first < q.first; };
  std::vector<Bits>       lut;
  std::map<Bits, int64_t> sc, all;
  std::set<Bits>          cand;
  int64_t                     miss = 0;
  *ndistinct = 0;
  *cover     = 0;
  if (nmiss) *nmiss = 0;
  if (A.Nnz() == 0 || lut_size == 0) return lut;
  const int64_t ns = std::min<int64_t>(4096, A.Nnz());
  for (int64_t k = 0; k < ns; k++) sc[CCOOBits(A.a[(std::size_t)JitteredPos(k, A.Nnz(), ns)])]++;
  std::vector<std::pair<Bits, int64_t>> sruns(sc.begin(), sc.end());
  std::sort(sruns.begin(), sruns.end(), rank);
  int64_t scov = 0;
  for (std::size_t i = 0; i < sruns.size() && (PetscInt)i < lut_size; i++) scov += sruns[i].second;
  if (A.Nnz() > 4096 && 2 * scov < 4096) return lut;
  for (std::size_t i = 0; i < sruns.size() && i < 2048; i++) cand.insert(sruns[i].first);
  for (PetscScalar v : A.a) all[CCOOBits(v)]++;
  for (const auto &[b, c] : all)
    if (!cand.count(b)) miss += c;
  const bool                                exact = 16 * miss <= A.Nnz(); /* miss <= nnz / 16, rounded down or not */
  std::vector<std::pair<Bits, int64_t>> runs;
  for (const auto &[b, c] : all)
    if (exact || cand.count(b)) runs.push_back({b, c});
  *ndistinct = (int64_t)runs.size();
  if (nmiss) *nmiss = miss;
  std::sort(runs.begin(), runs.end(), rank);
  for (PetscInt i = 0; i < lut_size && i < (PetscInt)runs.size(); i++) {
    lut.push_back(runs[i].first);
    *cover += runs[i].second;
  }
  std::sort(lut.begin(), lut.end());
  return lut;
}

/* K by the documented model (ccoo.h DECISIONS), its inputs counted here from the CSR: minimise
     cost(K) = 20 slots(K) + (K slots(K) - nnz) (colbytes + vbytes),   K in {16, 8, 4, 2, 1}, ties to the larger K
   colbytes = 2 + 2 wide/nnz (wide: nonzeros of rows whose last minus first column exceeds 32767), vbytes = 8
   without a table, else 1 + 7 (1 - covered/nnz); no nonzeros: K = 1. Compared as cost * nnz, exact in 64-bit
   integers at the sizes of these tests. */
static PetscInt ExpectedK(const CCOOOptions &o, const Csr &A)
{
  if (o.k) return o.k;
  if (A.Nnz() == 0) return 1;
  int64_t nnz = A.Nnz(), wide = 0, ndistinct, cover;
  for (PetscInt r = 0; r < A.m; r++)
    if (A.Len(r) && A.j[A.i[r + 1] - 1] - A.j[A.i[r]] > 32767) wide += A.Len(r);
  const bool    table  = !ExpectedTable(A, o.lut_size, &ndistinct, &cover).empty();
  const int64_t colnnz = 2 * nnz + 2 * wide, valnnz = table ? nnz + (kVs - 1) * (nnz - cover) : kVs * nnz; /* bytes * nnz (values of kVs bytes) */
  PetscInt      best   = 0;
  int64_t       cost   = 0;
  for (PetscInt K : {16, 8, 4, 2, 1}) {
    int64_t s = 0;
    for (PetscInt r = 0; r < A.m; r++) s += A.Len(r) ? (A.Len(r) + K - 1) / K : 1;
    const int64_t c = (K == 16 ? 28 : 20) * s * nnz + (s * K - nnz) * (colnnz + valnnz); /* K = 16: slot weight 28 */
    if (!best || c < cost) {
      best = K;
      cost = c;
    }
  }
  return best;
}

/* independent checks of a freshly built layout (the invariants themselves are CCOOCheckLayout's) */
static void CheckBuilt(const CCOOOptions &o, const Csr &A, const CCOOLayout &L, const CCOOStats &st)
{
  const SpMVHostCsr V = A.View();
  if (!CheckInvariants(o, V, L)) return;
  Check(L.K == ExpectedK(o, A) && st.K == L.K && L.B == o.threads, "K = %" PetscInt_FMT " (stats %" PetscInt_FMT "), expected %" PetscInt_FMT "; B = %" PetscInt_FMT, L.K, st.K, ExpectedK(o, A), L.B);
  int64_t    ndistinct, cover, nmiss;
  const auto lut = ExpectedTable(A, o.lut_size, &ndistinct, &cover, &nmiss);
  Check(L.lut == lut, "table %zu entries, expected %zu (top %" PetscInt_FMT " by count, then bits)", L.lut.size(), lut.size(), o.lut_size);
  Check(st.L == (PetscInt)lut.size() && st.lut_cover == cover && st.ndistinct == ndistinct && st.nmiss == nmiss, "stats table %" PetscInt_FMT " cover %lld ranked %lld misses %lld, expected %zu %lld %lld %lld", st.L, (long long)st.lut_cover, (long long)st.ndistinct, (long long)st.nmiss, lut.size(), (long long)cover, (long long)ndistinct, (long long)nmiss);
  if (A.Nnz() <= 4096 || (!lut.empty() && 16 * nmiss <= A.Nnz())) Check(L.lut == TopOfAllValues(A, o.lut_size), "at most 4096 nonzeros or at most nnz/16 misses (%lld of %lld): the table is not the top %" PetscInt_FMT " of all values", (long long)nmiss, (long long)A.Nnz(), o.lut_size);
  std::map<Bits, int> firstpos; /* first position of each value */
  for (PetscInt e = A.Nnz() - 1; e >= 0; e--) firstpos[CCOOBits(A.a[e])] = (int)e;
  for (std::size_t i = 0; i < L.rep.size(); i++) {
    const int first = firstpos.count(L.lut[i]) ? firstpos[L.lut[i]] : -1;
    Check(L.rep[i] == first, "rep[%zu] = %d, expected the first position %d", i, L.rep[i], first);
  }
  const int64_t C = (int64_t)L.B * L.K;
  for (int64_t c = 0; c < L.nchunks; c++) { /* indices iff every real value is in the table (and table values then) */
    bool all = !lut.empty();
    for (PetscInt t = 0; t < L.B; t++)
      for (PetscInt k = 0; k < L.slot_cnt[c * L.B + t]; k++) all = all && std::binary_search(lut.begin(), lut.end(), CCOOBits(A.a[L.slot_src[c * L.B + t] + k]));
    const unsigned f = L.fmt[c];
    if (!Check(((f & CCOO_HAS_IDX) != 0) == all && ((f & CCOO_LUT_MODE) != 0) == all, "chunk %lld: indices %d, table values %d, all values in the table %d", (long long)c, (f & CCOO_HAS_IDX) != 0, (f & CCOO_LUT_MODE) != 0, all)) break;
    for (PetscInt q = 0; q < C; q++) /* plain values are written for every chunk at build */
      if (!Check(CCOOBits(L.vals[c * C + q]) == CCOOBits((q % L.B) < L.B && (q / L.B) < L.slot_cnt[c * L.B + q % L.B] ? A.a[L.slot_src[c * L.B + q % L.B] + q / L.B] : 0.0), "chunk %lld: plain value %lld", (long long)c, (long long)q)) return;
  }
  CCOOStats cnt = st;
  CCOOCountChunks(L, &cnt);
  Check(cnt.nsingle == st.nsingle && cnt.ncol[0] == st.ncol[0] && cnt.ncol[1] == st.ncol[1] && cnt.ncol[2] == st.ncol[2] && cnt.nidx == st.nidx && cnt.nlut == st.nlut && cnt.ncross == st.ncross, "chunk counts in the stats differ from a recount");
  Check(st.nchunks == L.nchunks && st.S == L.S && st.padded == L.nchunks * C && st.blob_bytes == (int64_t)L.blob.size() && st.nnz == A.Nnz() && st.m == A.m, "stats shape differs from the layout");
  int64_t bytes = 0; /* the View's bytes per nonzero, from the chunk encodings */
  for (int64_t c = 0; c < L.nchunks; c++) bytes += ((L.fmt[c] & CCOO_SINGLE) ? 0 : L.B) + (C << ((L.fmt[c] >> 1) & 3)) + ((L.fmt[c] & CCOO_LUT_MODE) ? C : kVs * C) + 17;
  Check(CCOOMatrixBytes(st) == bytes + kVs * (int64_t)L.lut.size(), "matrix bytes %lld, expected %lld", (long long)CCOOMatrixBytes(st), (long long)(bytes + kVs * (int64_t)L.lut.size()));
}

static bool SameLayout(const CCOOLayout &p, const CCOOLayout &q)
{
  if (p.vals.size() != q.vals.size()) return false;
  for (std::size_t k = 0; k < p.vals.size(); k++)
    if (CCOOBits(p.vals[k]) != CCOOBits(q.vals[k])) return false;
  return p.B == q.B && p.K == q.K && p.S == q.S && p.nchunks == q.nchunks && p.fmt == q.fmt && p.row_base == q.row_base && p.col_base == q.col_base && p.chunk_ptr == q.chunk_ptr && p.blob == q.blob && p.lut == q.lut && p.rep == q.rep && p.slot_src == q.slot_src && p.slot_cnt == q.slot_cnt;
}

/* ------------------------------------------------------------------------------------------------ */
/* Groups                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

#if !defined(PETSC_USE_COMPLEX) /* hand-made real bit patterns */
/* 1. a worked example by hand (the paper's Fig. 2 did not survive the extraction) */
static PetscErrorCode TestWorkedExample(Rng &rng)
{
  const int   before = g_failures;
  const Csr   A      = CsrFromEntries(300, {{{0, 2.0}, {1, -1.0}, {2, -1.0}},                                                          /* row 0 */
                                           {},                                                                                    /* row 1: empty */
                                           {{1, -1.0}, {3, 2.0}, {4, -1.0}, {6, -1.0}, {7, 5.5}},                                  /* row 2 */
                                           {{5, 2.0}},                                                                            /* row 3 */
                                           {{10, 0.25}, {11, -1.0}, {12, -1.0}, {13, -1.0}, {14, -1.0}, {15, -1.0}, {16, -1.0}, {290, -1.0}}}); /* row 4 */
  CCOOOptions o;
  CCOOLayout  L;
  CCOOStats   st;
  const double N = 0.0;

  PetscFunctionBeginUser;
  g_context  = "worked example, B 4, K 2, table of 2";
  o.threads  = 4;
  o.k        = 2;
  o.lut_size = 2;
  PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
  /* slots: row 0 -> 2, row 1 (empty) -> 1, row 2 -> 3, row 3 -> 1, row 4 -> 4: 11 slots, 3 chunks of 4 */
  Check(L.S == 11 && L.nchunks == 3 && st.padded == 24, "S %lld chunks %lld padded %lld, expected 11 3 24", (long long)L.S, (long long)L.nchunks, (long long)st.padded);
  CheckArray("slot_src", L.slot_src, std::vector<int>{0, 2, 3, 3, 5, 7, 8, 9, 11, 13, 15, 17});
  CheckArray("slot_cnt", L.slot_cnt, std::vector<int>{2, 1, 0, 2, 2, 1, 1, 2, 2, 2, 2, 0});
  /* table: -1 (12 times) and 2 (3 times), sorted by bits: 2.0 = 0x4000..., -1.0 = 0xbff0... */
  CheckArray("lut", L.lut, std::vector<uint64_t>{CCOOBits(2.0), CCOOBits(-1.0)});
  CheckArray("rep", L.rep, std::vector<int>{0, 1});
  /* chunk 0: rows 0,0,1,2, 8-bit columns from 0, table, last row continues:  8 + 16 + 64 = 88
     chunk 1: rows 2,2,3,4, 8-bit columns from 4, plain (5.5), both ends cross: 32 + 64 = 96
     chunk 2: row 4 only (single), 16-bit columns from 12 (span 278), table, first row crosses: 1 + 2 + 8 + 16 + 32 = 59 */
  CheckArray("fmt", L.fmt, std::vector<int>{88, 96, 59});
  CheckArray("row_base", L.row_base, std::vector<int>{0, 2, 4});
  CheckArray("col_base", L.col_base, std::vector<int>{0, 4, 12});
  CheckArray("chunk_ptr", L.chunk_ptr, std::vector<int64_t>{0, 20, 32, 56});
  std::vector<int> blob(L.blob.begin(), L.blob.end());
  CheckArray("blob", blob, std::vector<int>{/* chunk 0: rows, columns k-major (255 = padding), indices */ 0, 0, 1, 2, 0, 2, 255, 1, 1, 255, 255, 3, 0, 1, 0, 1, 1, 0, 0, 0,
                                            /* chunk 1: rows, columns */ 0, 0, 1, 2, 0, 3, 1, 6, 2, 255, 255, 7,
                                            /* chunk 2: 16-bit columns little endian {0,2,4,65535, 1,3,278,65535}, indices */ 0, 0, 2, 0, 4, 0, 255, 255, 1, 0, 3, 0, 22, 1, 255, 255, 1, 1, 1, 0, 1, 1, 1, 0});
  CheckArray("vals", L.vals, std::vector<double>{2, -1, N, -1, -1, N, N, 2, -1, 5.5, 2, 0.25, -1, N, N, -1, -1, -1, -1, N, -1, -1, -1, N});
  Check(st.nsingle == 1 && st.ncol[0] == 2 && st.ncol[1] == 1 && st.ncol[2] == 0 && st.nidx == 2 && st.nlut == 2 && st.ncross == 2 && st.ndistinct == 4 && st.L == 2 && st.lut_cover == 15 && st.blob_bytes == 56,
        "counts single %lld cols %lld/%lld/%lld idx %lld lut %lld cross %lld distinct %lld L %" PetscInt_FMT " cover %lld blob %lld", (long long)st.nsingle, (long long)st.ncol[0], (long long)st.ncol[1], (long long)st.ncol[2], (long long)st.nidx, (long long)st.nlut, (long long)st.ncross,
        (long long)st.ndistinct, st.L, (long long)st.lut_cover, (long long)st.blob_bytes);
  CheckBuilt(o, A, L, st);
  CheckProducts(L, A, rng);

  /* a table of 3: 0.25 and 5.5 both occur once, the smaller bit pattern (0.25 = 0x3fd0...) wins */
  g_context  = "worked example, table of 3";
  o.lut_size = 3;
  PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
  CheckArray("lut", L.lut, std::vector<uint64_t>{CCOOBits(0.25), CCOOBits(2.0), CCOOBits(-1.0)});
  CheckArray("rep", L.rep, std::vector<int>{9, 0, 1});
  CheckBuilt(o, A, L, st);
  CheckProducts(L, A, rng);

  /* automatic K: nnz 17, slots 18 / 11 / 7 / 5 / 5 for K = 1 / 2 / 4 / 8 / 16, padding 1 / 5 / 11 / 23 / 63,
     no wide row (spans 2, 6, 0, 280). The table of 256 holds all 4 values: ebytes = 2 + 1 = 3, costs
     20 slots + 3 padding = 363 / 235 / 173 / 169 / 289: K = 8. Plain values: ebytes = 2 + 8 = 10, costs
     370 / 270 / 250 / 330 / 730: K = 4. */
  g_context = "worked example, automatic K, table";
  o         = CCOOOptions();
  o.threads = 4;
  PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
  Check(L.K == 8 && st.slots_k[0] == 18 && st.slots_k[1] == 11 && st.slots_k[2] == 7 && st.slots_k[3] == 5 && st.slots_k[4] == 5 && st.wide == 0 && st.lut_cover == 17, "K %" PetscInt_FMT ", slots %lld/%lld/%lld/%lld/%lld, wide %lld, cover %lld, expected 8, 18/11/7/5/5, 0, 17", L.K, (long long)st.slots_k[0], (long long)st.slots_k[1], (long long)st.slots_k[2], (long long)st.slots_k[3], (long long)st.slots_k[4], (long long)st.wide, (long long)st.lut_cover);
  CheckBuilt(o, A, L, st);
  CheckProducts(L, A, rng);
  g_context  = "worked example, automatic K, plain values";
  o.lut_size = 0;
  PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
  Check(L.K == 4 && st.L == 0, "K %" PetscInt_FMT ", table %" PetscInt_FMT ", expected 4, 0", L.K, st.L);
  CheckBuilt(o, A, L, st);
  CheckProducts(L, A, rng);
  ReportGroup("1 worked example", before, "5x300, B 4, K 2: slots, table, fmt, bases, pointers, blob, values; tie-break; automatic K");
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif

/* 2. the executors against the CSR product */
static PetscErrorCode TestExecutor(const std::vector<TestMatrix> &mats, const std::vector<TestOptions> &opts, Rng &rng)
{
  const int before  = g_failures;
  int       layouts = 0;

  PetscFunctionBeginUser;
  for (PetscInt B : kBs)
    for (const auto &t : mats)
      for (const auto &to : opts) {
        if (B != 256 && t.A.Nnz() > 20000) continue; /* keep the run short */
        CCOOLayout  L;
        CCOOStats   st;
        CCOOOptions o = WithB(to.o, B);
        g_context     = "executor: " + t.name + ", " + to.name + ", B " + std::to_string(B);
        PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
        CheckProducts(L, t.A, rng);
        layouts++;
      }
  { /* B = 1: every chunk is one slot (single-row, or a one-thread segmented scan) */
    for (PetscBool single : {PETSC_TRUE, PETSC_FALSE})
      for (const auto &t : mats) {
        if (t.A.Nnz() > 20000) continue;
        CCOOLayout  L;
        CCOOStats   st;
        CCOOOptions o;
        o.threads    = 1;
        o.single_row = single;
        g_context    = "executor: " + t.name + ", B 1, single_row " + std::to_string((int)single);
        PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
        CheckProducts(L, t.A, rng);
        layouts++;
      }
  }
  ReportGroup("2 executors", before, std::to_string(mats.size()) + " matrices x " + std::to_string(opts.size()) + " options x B {256,64,32,5,1}: " + std::to_string(4 * layouts) + " products (kernel algorithm vs CSR, host product = SeqAIJ bit for bit; y = A x on NaN, y += A x)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 3. layout invariants and the encodings the limits must produce */
static PetscErrorCode TestLayouts(const std::vector<TestMatrix> &mats, const std::vector<TestOptions> &opts)
{
  const int before  = g_failures;
  int       layouts = 0;

  PetscFunctionBeginUser;
  for (PetscInt B : {256, 32, 5})
    for (const auto &t : mats)
      for (const auto &to : opts) {
        if (B != 256 && t.A.Nnz() > 20000) continue;
        CCOOLayout  L;
        CCOOStats   st;
        CCOOOptions o = WithB(to.o, B);
        g_context     = "layout: " + t.name + ", " + to.name + ", B " + std::to_string(B);
        PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
        CheckBuilt(o, t.A, L, st);
        layouts++;
      }
  /* what the limits must give */
  for (const auto &t : mats) {
    CCOOLayout  L;
    CCOOStats   st;
    CCOOOptions o;
    g_context = "limits: " + t.name;
    if (t.name == "columns span > 2^16") {
      PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
      Check(st.ncol[2] == st.nchunks && st.nchunks > 0, "%lld of %lld chunks with 32-bit columns, expected all", (long long)st.ncol[2], (long long)st.nchunks);
    } else if (t.name.rfind("spans at the width limits", 0) == 0) {
      o.threads = 1;
      o.k       = 2; /* row r is one slot = one chunk */
      PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
      const int expect[] = {0, 1, 1, 1, 2, 2, 0, 0}; /* spans 254 255 256 65534 65535 65536 1 0 */
      for (PetscInt r = 0; r < 16 && r < L.nchunks; r++) Check(((L.fmt[r] >> 1) & 3) == expect[r % 8], "row %" PetscInt_FMT ": width code %d, expected %d", r, (L.fmt[r] >> 1) & 3, expect[r % 8]);
      o.col_bits = 16;
      PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
      Check(st.ncol[0] == 0 && st.ncol[2] == 4, "col_bits 16: %lld 8-bit and %lld 32-bit chunks, expected 0 and 4", (long long)st.ncol[0], (long long)st.ncol[2]);
      o.col_bits = 32;
      PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
      Check(st.ncol[2] == st.nchunks, "col_bits 32: %lld of %lld chunks 32-bit", (long long)st.ncol[2], (long long)st.nchunks);
    } else if (t.name == "256 distinct values") {
      PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
      Check(st.L == 256 && st.nlut == st.nchunks && st.lut_cover == t.A.Nnz(), "table %" PetscInt_FMT ", %lld of %lld chunks on the table, cover %lld", st.L, (long long)st.nlut, (long long)st.nchunks, (long long)st.lut_cover);
    } else if (t.name == "300 distinct values") {
      PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
      Check(st.L == 256 && st.ndistinct == 300 && st.nlut < st.nchunks && st.lut_cover < t.A.Nnz(), "table %" PetscInt_FMT " of %lld distinct, %lld of %lld chunks on the table", st.L, (long long)st.ndistinct, (long long)st.nlut, (long long)st.nchunks);
    } else if (t.name.rfind("one huge row", 0) == 0 || t.name.rfind("only one row", 0) == 0) {
      o.k = 4;
      PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
      Check(st.nsingle >= 1 && st.ncross >= 2, "%lld single-row chunks, %lld crossing, expected >= 1 and >= 2", (long long)st.nsingle, (long long)st.ncross);
      o.single_row = PETSC_FALSE;
      PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
      Check(st.nsingle == 0, "single_row off: %lld single-row chunks", (long long)st.nsingle);
    } else if (t.name == "stencil7 const 9^3") {
      /* nnz 4617 (rows of 4, 5, 6, 7: 8, 84, 294, 343), 2 values: ebytes 3; slots 4617/2522/1450/729/729,
         costs 20 slots + 3 padding = 92340/51721/32549/18225/35721: K 8, 16-bit columns (a 256-row chunk
         spans more than 254 columns), 3 bytes per stored entry, 1215 padded: 4.17 bytes per nonzero */
      PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
      Check(st.K == 8 && st.L == 2 && st.nlut == st.nchunks && st.ncol[2] == 0, "K %" PetscInt_FMT ", table %" PetscInt_FMT ", %lld of %lld chunks on the table, %lld 32-bit", st.K, st.L, (long long)st.nlut, (long long)st.nchunks, (long long)st.ncol[2]);
      Check((double)CCOOMatrixBytes(st) / (double)t.A.Nnz() < 4.5, "%.3f bytes per nonzero, expected < 4.5", (double)CCOOMatrixBytes(st) / (double)t.A.Nnz());
      /* K 2: 2522 slots in 10 chunks of 512 entries, each spanning < 255 columns: 1 + 1 bytes an entry */
      o.k = 2;
      PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
      Check(st.ncol[0] == st.nchunks && (double)CCOOMatrixBytes(st) / (double)t.A.Nnz() < 3.0, "K 2: %lld of %lld chunks with 8-bit columns, %.3f bytes per nonzero, expected all and < 3", (long long)st.ncol[0], (long long)st.nchunks, (double)CCOOMatrixBytes(st) / (double)t.A.Nnz());
      o.k = 0;
      o.lut_size = 0;
      PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
      Check(st.nlut == 0 && st.nidx == 0 && L.lut.empty(), "no table: %lld chunks on the table", (long long)st.nlut);
    } else if (t.name == "leading/trailing/runs of empty rows") { /* runs of > 256 empty rows: row offsets still fit */
      o.k = 1;
      PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
      Check(st.S == t.A.Nnz() + 40 + 50 + 700 && st.nchunks == (st.S + 255) / 256, "slots %lld, expected nnz + 790 empty rows", (long long)st.S);
    }
  }
#if !defined(PETSC_USE_COMPLEX) /* hand-made real values placed on and off the sample (complex: group 8) */
  /* the table decision by the value sample: random values over 4096 nonzeros: no table; the same pattern with
     1 value in 4 drawn from 3 (the table's values cover about 1/4 + 253/4096 of the sample, under 1/2): no
     table; 3 in 4 (about 3/4): a table; a period of 64 values repeated over the matrix at a power-of-two count
     (kron(I_64, B) with random values, where a stride of nnz / 4096 would see 64 distinct positions and a
     full cover): no table; at most 4096 nonzeros: always */
  {
    Rng          r2(7);
    CCOOLayout   L;
    CCOOStats    st;
    CCOOOptions  o;
    const ValueFn rnd2 = [&](PetscInt, PetscInt) { return RandomValue(r2); };
    const auto    mix  = [&](unsigned in4) { return [&r2, in4](PetscInt, PetscInt) { return r2() % 4 < in4 ? (double)(r2() % 3) + 1.0 : RandomValue(r2); }; };
    Csr           A = RandomCsr(r2, 2000, 2000, [](PetscInt) { return 7; }, rnd2), S = RandomCsr(r2, 500, 500, [](PetscInt) { return 7; }, rnd2);
    g_context       = "table decision";
    PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
    Check(st.nsample == 4096 && !CCOOTableBuilt(st) && st.L == 0 && st.ndistinct == 0 && st.nlut == 0, "random values, nnz %lld: sample %lld, covered %lld, table %" PetscInt_FMT, (long long)A.Nnz(), (long long)st.nsample, (long long)st.nscover, st.L);
    CheckBuilt(o, A, L, st);
    for (PetscScalar &v : A.a) v = mix(1)(0, 0);
    PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
    Check(!CCOOTableBuilt(st) && st.L == 0 && st.nscover * 2 < st.nsample, "1 value in 4 repeated: sample %lld, covered %lld, table %" PetscInt_FMT, (long long)st.nsample, (long long)st.nscover, st.L);
    CheckBuilt(o, A, L, st);
    for (PetscScalar &v : A.a) v = mix(3)(0, 0);
    PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
    Check(CCOOTableBuilt(st) && st.L == 256 && st.nscover * 2 >= st.nsample, "3 values in 4 repeated: sample %lld, covered %lld, table %" PetscInt_FMT, (long long)st.nsample, (long long)st.nscover, st.L);
    CheckBuilt(o, A, L, st);
    {
      Csr P = RandomCsr(r2, 65536, 65536, [](PetscInt) { return 8; }, rnd2); /* nnz 64 x 8192 */
      if (Check(P.Nnz() == 64 * 8192, "periodic matrix: nnz %lld, expected 64 x 8192", (long long)P.Nnz())) {
        for (std::size_t k = 8192; k < P.a.size(); k++) P.a[k] = P.a[k % 8192]; /* 64 copies of 8192 random values */
        PetscCall(CCOOBuildHostLayout(o, P.View(), &L, &st));
        Check(!CCOOTableBuilt(st) && st.L == 0, "64 copies of 8192 random values: sample %lld, covered %lld, table %" PetscInt_FMT, (long long)st.nsample, (long long)st.nscover, st.L);
        CheckBuilt(o, P, L, st);
      }
    }
    PetscCall(CCOOBuildHostLayout(o, S.View(), &L, &st));
    Check(st.nsample == S.Nnz() && CCOOTableBuilt(st) && st.L == 256, "3500 random values: the sample is all of them, table %" PetscInt_FMT, st.L);
    CheckBuilt(o, S, L, st);
  }
  /* the table from the sample's candidates, counted exactly: the sample positions are known (JitteredPos), so
     values are placed on them and off them. 20000 nonzeros (2500 rows of 8), 4096 sampled; off the sample
     random values unless placed. */
  {
    Rng                  r3(11);
    CCOOLayout           L;
    CCOOStats            st;
    CCOOOptions          o;
    Csr                  A  = RandomCsr(r3, 2500, 2500, [](PetscInt) { return 8; }, [&](PetscInt, PetscInt) { return RandomValue(r3); });
    const int64_t        nz = A.Nnz(), ns = 4096;
    std::vector<int64_t> spos(ns), off; /* sample positions (ascending: one per stratum), the other positions */
    std::vector<char>    sampled(nz, 0);
    for (int64_t k = 0; k < ns; k++) sampled[spos[k] = JitteredPos(k, nz, ns)] = 1;
    for (int64_t e = 0; e < nz; e++)
      if (!sampled[e]) off.push_back(e);
    const auto has  = [](const std::vector<uint64_t> &lut, double v) { return std::binary_search(lut.begin(), lut.end(), CCOOBits(v)); };
    const auto uniq = [](int64_t j) { return 1.0e6 + (double)j; }; /* bit patterns ascending with j */
    g_context       = "table by candidates: more than 2048 distinct sampled values, many misses";
    if (Check(nz == 20000 && (int64_t)off.size() == nz - ns, "nnz %lld, %zu positions off the sample", (long long)nz, off.size())) {
      /* sampled: 2060 values from 200 repeated ones (1..200, 10-11 times each), then 2036 drawn once, u_0 ..
         u_2035: 2236 distinct, the 2048 candidates are the 200 and u_0 .. u_1847. Off the sample: u_0 500
         times (exact count 501: the most frequent of the matrix), u_2035 600 times (601, but no candidate),
         7.5 700 times (never sampled), 14104 random values. Misses: u_1848 .. u_2035 (188 + 600), 7.5 and the
         random values, 15592 > 20000 / 16: the table is the top of the candidates: u_0, the 200, and u_1 ..
         u_55 (count 1, the smallest); the top 256 of all values would have taken u_2035 and 7.5. */
      for (int64_t k = 0; k < ns; k++) A.a[spos[k]] = k < 2060 ? 1.0 + (double)(k % 200) : uniq(k - 2060);
      for (int64_t q = 0; q < 1800; q++) A.a[off[q]] = q < 500 ? uniq(0) : q < 1100 ? uniq(2035) : 7.5;
      PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
      CheckBuilt(o, A, L, st);
      Check(CCOOTableBuilt(st) && st.nscover == 2060 + 56 && st.ndistinct == 2048 && st.nmiss == 188 + 600 + 700 + (nz - ns - 1800) && st.L == 256 && st.lut_cover == 501 + 2060 + 55, "sample cover %lld, candidates %lld, misses %lld, table %" PetscInt_FMT " covering %lld; expected 2116, 2048, 15592, 256, 2616", (long long)st.nscover, (long long)st.ndistinct, (long long)st.nmiss, st.L, (long long)st.lut_cover);
      Check(has(L.lut, uniq(0)) && has(L.lut, uniq(55)) && !has(L.lut, uniq(56)) && !has(L.lut, uniq(2035)) && !has(L.lut, 7.5) && has(L.lut, 200.0), "table: u_0 %d, u_55 %d, u_56 %d, u_2035 %d, 7.5 %d, 200 %d; expected 1 1 0 0 0 1", has(L.lut, uniq(0)), has(L.lut, uniq(55)), has(L.lut, uniq(56)), has(L.lut, uniq(2035)), has(L.lut, 7.5), has(L.lut, 200.0));
      Check(L.lut != TopOfAllValues(A, o.lut_size), "the table equals the top 256 of all values: this matrix should tell the definitions apart");
      const auto it = std::lower_bound(L.lut.begin(), L.lut.end(), CCOOBits(uniq(0)));
      if (it != L.lut.end() && *it == CCOOBits(uniq(0))) Check(L.rep[it - L.lut.begin()] == (int)std::min(off[0], spos[2060]), "rep of u_0 %d, expected its first position %lld", L.rep[it - L.lut.begin()], (long long)std::min(off[0], spos[2060]));

      g_context = "table by candidates: more than 2048 distinct sampled values, few misses";
      /* the same sample; off it u_0 500 times, u_2035 300 times (301), 7.5 700 times, the rest from the 200
         repeated values. Misses: u_1848 .. u_2034 (187), u_2035 (301) and 7.5 (700): 1188 <= 1250, counted:
         the table is the top 256 of all 2237 distinct values: the 200, 7.5, u_0, u_2035 (never drawn, or
         drawn once beyond the candidates: both rarer than the sample can rank) and u_1 .. u_53 (count 1,
         the smallest); the 1981 values u_54 .. u_2034 stay out */
      for (int64_t q = 0; q < (int64_t)off.size(); q++) A.a[off[q]] = q < 500 ? uniq(0) : q < 800 ? uniq(2035) : q < 1100 ? 1.0 + (double)(q % 200) : q < 1800 ? 7.5 : 1.0 + (double)(q % 200);
      PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
      CheckBuilt(o, A, L, st);
      Check(CCOOTableBuilt(st) && st.ndistinct == 2237 && st.nmiss == 1188 && st.L == 256 && st.lut_cover == nz - 1981 && L.lut == TopOfAllValues(A, o.lut_size), "values %lld, misses %lld, table %" PetscInt_FMT " covering %lld; expected 2237, 1188, 256, %lld and the top 256 of all values", (long long)st.ndistinct, (long long)st.nmiss, st.L, (long long)st.lut_cover, (long long)(nz - 1981));
      Check(has(L.lut, 7.5) && has(L.lut, uniq(2035)) && has(L.lut, uniq(0)) && has(L.lut, uniq(53)) && !has(L.lut, uniq(54)) && !has(L.lut, uniq(1848)), "table: 7.5 %d, u_2035 %d, u_0 %d, u_53 %d, u_54 %d, u_1848 %d; expected 1 1 1 1 0 0", has(L.lut, 7.5), has(L.lut, uniq(2035)), has(L.lut, uniq(0)), has(L.lut, uniq(53)), has(L.lut, uniq(54)), has(L.lut, uniq(1848)));
      const auto i75 = std::lower_bound(L.lut.begin(), L.lut.end(), CCOOBits(7.5)) - L.lut.begin(), iu = std::lower_bound(L.lut.begin(), L.lut.end(), CCOOBits(uniq(2035))) - L.lut.begin();
      if (has(L.lut, 7.5) && has(L.lut, uniq(2035))) Check(L.rep[i75] == (int)off[1100] && L.rep[iu] == (int)std::min(off[500], spos[2060 + 2035]), "rep of 7.5 %d (expected %lld), of u_2035 %d (expected %lld)", L.rep[i75], (long long)off[1100], L.rep[iu], (long long)std::min(off[500], spos[2060 + 2035]));
    }
    g_context = "table by candidates: exact counts reorder the sample's ranking";
    {
      /* sampled (k mod 100): 2.0 37%, 3.0 25%, 4.0 15%, 5.0 12%, 6.0 11%; off the sample 6.0 2000 times from
         the first position off the sample, random values elsewhere (13904 misses: the candidates' table).
         Table of 4: the sample's top 4 are 2, 3, 4, 5 (cover 89%), the exact counts put 6.0 (about 2450)
         before 5.0 (about 490): 2, 3, 4, 6, and rep of 6.0 is off the sample */
      int64_t c5 = 0, c6 = 0;
      for (int64_t e = 0; e < nz; e++) A.a[e] = RandomValue(r3);
      for (int64_t k = 0; k < ns; k++) {
        const int64_t r = k % 100;
        A.a[spos[k]]    = r < 37 ? 2.0 : r < 62 ? 3.0 : r < 77 ? 4.0 : r < 89 ? 5.0 : 6.0;
        c5 += A.a[spos[k]] == 5.0;
        c6 += A.a[spos[k]] == 6.0;
      }
      for (int64_t q = 0; q < 2000; q++) A.a[off[q]] = 6.0;
      o.lut_size = 4;
      PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
      CheckBuilt(o, A, L, st);
      CheckArray("lut", L.lut, std::vector<uint64_t>{CCOOBits(2.0), CCOOBits(3.0), CCOOBits(4.0), CCOOBits(6.0)});
      Check(L.rep.size() == 4 && L.rep[3] == (int)off[0] && st.ndistinct == 5 && st.nmiss == nz - ns - 2000 && st.nscover == ns - c6 && st.lut_cover == ns - c5 + 2000, "rep of 6.0 %d (expected %lld), candidates %lld, misses %lld, sample cover %lld (expected %lld), table cover %lld (expected %lld)", L.rep.size() == 4 ? L.rep[3] : -1, (long long)off[0], (long long)st.ndistinct, (long long)st.nmiss, (long long)st.nscover, (long long)(ns - c6), (long long)st.lut_cover, (long long)(ns - c5 + 2000));
      o.lut_size = 256;
    }
    g_context = "table with the misses: at and just over nnz / 16";
    {
      /* sampled (k mod 16): 0 -> 6.0, 1 -> 4.0 (256 each), else 2.0 or 3.0 (1792 each). Off the sample: 0.5 256
         times (never drawn; ties with 4.0 and 6.0), 9.0 300 times (never drawn), nu values u_j once, the
         rest 2.0. Misses 556 + nu. nu = 694: 1250 = 20000 / 16 misses, counted: table of 4 = 2.0, 3.0, 9.0
         and 0.5 (256 like 4.0 and 6.0, the smallest bits), of 5 = 0.5, 2, 3, 4, 9, of 256: the 6 and u_0 ..
         u_249. nu = 695: 1251 misses, not counted: the candidates 2, 3, 4, 6 */
      for (int nu : {694, 695}) {
        for (int64_t k = 0; k < ns; k++) A.a[spos[k]] = k % 16 == 0 ? 6.0 : k % 16 == 1 ? 4.0 : k % 2 ? 3.0 : 2.0;
        for (int64_t q = 0; q < (int64_t)off.size(); q++) A.a[off[q]] = 2.0;
        for (int64_t j = 0; j < 256; j++) A.a[off[3 * j + 1]] = 0.5;
        for (int64_t j = 0; j < 300; j++) A.a[off[10000 + j]] = 9.0;
        for (int64_t j = 0; j < nu; j++) A.a[off[12000 + j]] = uniq(j);
        const int64_t c2 = 1792 + (nz - ns) - 556 - nu;
        for (PetscInt lut_size : {4, 5, 256}) {
          o.lut_size = lut_size;
          PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
          CheckBuilt(o, A, L, st);
          std::vector<uint64_t> expect;
          int64_t               cover = 0;
          if (nu == 695) {
            expect = {CCOOBits(2.0), CCOOBits(3.0), CCOOBits(4.0), CCOOBits(6.0)};
            cover  = c2 + 1792 + 512;
          } else {
            expect = {CCOOBits(0.5), CCOOBits(2.0), CCOOBits(3.0), CCOOBits(9.0)};
            cover  = c2 + 1792 + 300 + 256;
            if (lut_size >= 5) {
              expect.push_back(CCOOBits(4.0));
              cover += 256;
            }
            if (lut_size == 256) {
              expect.push_back(CCOOBits(6.0));
              cover += 256 + 250;
              for (int64_t j = 0; j < 250; j++) expect.push_back(CCOOBits(uniq(j)));
            }
            std::sort(expect.begin(), expect.end());
          }
          Check(L.lut == expect && st.lut_cover == cover && st.nmiss == 556 + nu && st.ndistinct == (nu == 695 ? 4 : 6 + nu), "%d values once, table of %" PetscInt_FMT ": %zu entries (expected %zu), cover %lld (expected %lld), misses %lld, ranked values %lld", nu, lut_size, L.lut.size(), expect.size(), (long long)st.lut_cover, (long long)cover, (long long)st.nmiss, (long long)st.ndistinct);
          if (nu == 694 && L.lut == expect) {
            const auto i9 = std::lower_bound(L.lut.begin(), L.lut.end(), CCOOBits(9.0)) - L.lut.begin(); /* 0.5 is the smallest */
            Check(L.rep[0] == (int)off[1] && L.rep[i9] == (int)off[10000], "rep of 0.5 %d (expected %lld), of 9.0 %d (expected %lld)", L.rep[0], (long long)off[1], L.rep[i9], (long long)off[10000]);
          }
        }
      }
      o.lut_size = 256;
    }
    g_context = "table with the misses: the device's top lut_size missed values suffice";
    {
      /* the device build hands CCOOPickTable the candidates and only the lut_size most frequent missed values
         (count desc, bits asc: a stable sort of the runs by count); the host build every missed value. Same
         table, rep and cover, with counts drawn from few values (many ties) */
      for (int t = 0; t < 20; t++) {
        std::vector<CCOORun> cands, misses;
        std::set<uint64_t>   used;
        const int            nc = 1 + (int)(r3() % 300), nm = 1 + (int)(r3() % 600);
        while ((int)used.size() < nc + nm) used.insert(r3() % 5000);
        int k = 0;
        for (uint64_t b : used) (k++ < nc ? cands : misses).push_back({b, 1 + (int64_t)(r3() % 6), (int)(r3() % 100000)});
        std::shuffle(misses.begin(), misses.end(), r3);
        for (PetscInt lut_size : {1, 4, 100, 256}) {
          std::vector<CCOORun> all = cands, top = misses;
          all.insert(all.end(), misses.begin(), misses.end());
          std::stable_sort(top.begin(), top.end(), [](const CCOORun &p, const CCOORun &q) { return p.bits < q.bits; });
          std::stable_sort(top.begin(), top.end(), [](const CCOORun &p, const CCOORun &q) { return p.count > q.count; });
          top.resize(std::min<std::size_t>(top.size(), (std::size_t)lut_size));
          top.insert(top.begin(), cands.begin(), cands.end());
          std::vector<uint64_t> l1, l2;
          std::vector<int>      p1, p2;
          int64_t               c1, c2;
          CCOOPickTable(all, lut_size, &l1, &p1, &c1);
          CCOOPickTable(top, lut_size, &l2, &p2, &c2);
          Check(l1 == l2 && p1 == p2 && c1 == c2 && (int64_t)l1.size() == std::min<int64_t>(lut_size, nc + nm) && std::is_sorted(l1.begin(), l1.end()), "%d candidates, %d missed values, table of %" PetscInt_FMT ": %zu / %zu entries, cover %lld / %lld", nc, nm, lut_size, l1.size(), l2.size(), (long long)c1, (long long)c2);
        }
      }
    }
    g_context = "table by candidates: 4000 nonzeros, 2673 distinct values";
    {
      /* at most 4096 nonzeros the sample is every value: 2048 candidates of 2673 distinct values, the table
         the top 256 of all values (CheckBuilt compares with TopOfAllValues): 1..7 and the 249 smallest u_e */
      Csr S = RandomCsr(r3, 500, 500, [](PetscInt) { return 8; }, [&](PetscInt, PetscInt) { return 0.0; });
      for (int64_t e = 0; e < S.Nnz(); e++) S.a[e] = e % 3 == 0 ? 1.0 + (double)(e % 7) : uniq(e);
      PetscCall(CCOOBuildHostLayout(o, S.View(), &L, &st));
      CheckBuilt(o, S, L, st);
      Check(S.Nnz() == 4000 && st.nsample == 4000 && st.ndistinct == 2048 && st.L == 256 && st.lut_cover == 1334 + 249 && has(L.lut, uniq(1)) && !has(L.lut, uniq(3998)), "nnz %lld, sample %lld, candidates %lld, table %" PetscInt_FMT " covering %lld", (long long)S.Nnz(), (long long)st.nsample, (long long)st.ndistinct, st.L, (long long)st.lut_cover);
    }
  }
#endif
  ReportGroup("3 layout", before, std::to_string(layouts) + " layouts: CCOOCheckLayout + table, indices, K, counts, bytes; encoding limits; table only when sampled values repeat; table from the sample's candidates counted exactly, with the missed values up to nnz/16");
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if !defined(PETSC_USE_COMPLEX) /* NaN payloads and signed zeros of real values (complex: group 8) */
/* 4. special values: table entries compare bit patterns, products keep CSR semantics */
static PetscErrorCode TestSpecialValues(Rng &rng)
{
  const int    before = g_failures;
  const double inf = std::numeric_limits<double>::infinity(), qnan = std::numeric_limits<double>::quiet_NaN();
  const double nan2 = CCOOFromBits(0x7ff8000000000123ull), nneg = CCOOFromBits(0xfff8000000000777ull), den = std::numeric_limits<double>::denorm_min();
  const std::vector<double> special = {0.0, -0.0, qnan, nan2, nneg, inf, -inf, den, -den, 1.0, -1.0};
  int                       layouts = 0;

  PetscFunctionBeginUser;
  /* every value repeated: all of them fit the table; then random values around them */
  for (int variant = 0; variant < 3; variant++) {
    const PetscInt                                           m = 400, n = 300;
    std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> e(m);
    for (PetscInt r = 0; r < m; r++) {
      if (r % 17 == 3) continue; /* some empty rows */
      for (PetscInt c : RandomColumns(rng, n, Uniform(rng, 1, 12))) {
        double v = special[rng() % special.size()];
        if (variant == 1 && (std::isnan(v) || std::isinf(v))) v = 2.0; /* finite: -0.0 and denormals only */
        if (variant == 2 && rng() % 4 == 0) v = RandomValue(rng);
        e[r].push_back({c, v});
      }
    }
    const Csr A = CsrFromEntries(n, e);
    for (PetscInt lut : {256, 4, 0}) {
      CCOOOptions o;
      CCOOLayout  L;
      CCOOStats   st;
      o.lut_size = lut;
      o.threads  = 32;
      g_context  = "special values, variant " + std::to_string(variant) + ", table " + std::to_string(lut);
      PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
      CheckBuilt(o, A, L, st); /* includes: every decoded value equals the CSR bit for bit */
      if (lut == 256 && variant < 2) Check(st.nlut == st.nchunks, "%lld of %lld chunks on the table", (long long)st.nlut, (long long)st.nchunks);
      if (lut == 256 && variant == 0) {
        bool negzero = false, pay1 = false, pay2 = false;
        for (uint64_t b : L.lut) {
          negzero = negzero || b == CCOOBits(-0.0);
          pay1    = pay1 || b == 0x7ff8000000000123ull;
          pay2    = pay2 || b == 0xfff8000000000777ull;
        }
        Check(negzero && pay1 && pay2, "the table lost -0.0 (%d) or a NaN payload (%d %d)", negzero, pay1, pay2);
      }
      CheckProducts(L, A, rng);
      /* Inf and NaN in x: rows that do not touch them stay finite, empty rows exactly 0 */
      std::vector<PetscScalar> x = RandomVector(rng, n);
      x[7]                       = inf;
      x[100]                     = qnan;
      x[n - 1]                   = -inf;
      CheckProducts(L, A, rng, &x);
      layouts++;
    }
  }
  { /* Inf in x with finite values, K padding next to the Inf column: padding must not multiply it */
    std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> e(50);
    for (PetscInt r = 0; r < 50; r++)
      if (r % 5) e[r] = {{r % 10, 1.5}, {10 + r % 7, -1.0}, {49, 2.0}}; /* length 3: padding entries at every K > 1 */
    const Csr A = CsrFromEntries(50, e);
    for (PetscInt K : {2, 4, 8, 16}) {
      CCOOOptions o;
      CCOOLayout  L;
      CCOOStats   st;
      o.k       = K;
      o.threads = 32;
      g_context = "Inf in x next to padding, K " + std::to_string(K);
      PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
      std::vector<PetscScalar> x(50, 1.0), y(50, qnan), yk(50, qnan);
      x[49] = inf;
      CCOOMultHost(L, x.data(), y.data(), false);
      CCOOEmulateKernel(L, x.data(), yk.data(), false);
      for (PetscInt r = 0; r < 50; r++) Check((r % 5 ? y[r] == inf : y[r] == 0.0) && CCOOBits(y[r]) == CCOOBits(yk[r]), "row %" PetscInt_FMT ": y = %g (kernel algorithm %g), expected %g", r, y[r], yk[r], r % 5 ? inf : 0.0);
      layouts++;
    }
  }
  ReportGroup("4 special values", before, std::to_string(layouts) + " layouts: NaN payloads, +-Inf, -0.0, denormals in the table bit for bit; Inf/NaN in x");
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif

/* 5. values refresh */
static PetscErrorCode TestRefresh(const std::vector<TestMatrix> &mats, Rng &rng)
{
  const int before  = g_failures;
  int       layouts = 0;

  PetscFunctionBeginUser;
  for (const auto &t : mats)
    for (PetscInt B : {256, 32}) {
      CCOOOptions o;
      CCOOLayout  L, fresh;
      CCOOStats   st, st2;
      o.threads = B;
      if (B != 256 && t.A.Nnz() > 20000) continue;
      const SpMVHostCsr V = t.A.View();
      PetscCall(CCOOBuildHostLayout(o, V, &L, &st));
      const CCOOLayout built = L;
      const int64_t    nlut0 = st.nlut;
      auto             Same  = [&](const CCOOLayout &p) { return p.fmt.size() == built.fmt.size() && p.blob == built.blob && p.chunk_ptr == built.chunk_ptr && p.slot_src == built.slot_src && p.slot_cnt == built.slot_cnt && p.row_base == built.row_base && p.col_base == built.col_base && p.rep == built.rep; };
      /* (0) the same values: nothing changes */
      g_context = "refresh: " + t.name + ", B " + std::to_string(B) + ", same values";
      PetscCall(CCOORefreshHostLayout(V, &L, &st));
      Check(SameLayout(L, built) && st.nlut == nlut0, "refreshing with the values of the build changed the layout");
      /* (a) new random values: table chunks fall back to plain */
      g_context   = "refresh: " + t.name + ", B " + std::to_string(B) + ", new values";
      const Csr A1 = WithNewValues(t.A, rng);
      PetscCall(CCOORefreshHostLayout(A1.View(), &L, &st));
      Check(Same(L), "the refresh changed the index structure");
      CheckInvariants(o, A1.View(), L);
      CheckProducts(L, A1, rng);
      /* (b) scaled: the table follows, the same chunks stay on it (no value is 0, none NaN) */
      PetscCall(CCOORefreshHostLayout(V, &L, &st)); /* back first */
      g_context = "refresh: " + t.name + ", B " + std::to_string(B) + ", back to the original values";
      Check(Same(L) && L.fmt == built.fmt && L.lut == built.lut && st.nlut == nlut0, "original values again: fmt/table differ from the build (%lld chunks on the table, %lld at build)", (long long)st.nlut, (long long)nlut0);
      CheckProducts(L, t.A, rng);
      g_context = "refresh: " + t.name + ", B " + std::to_string(B) + ", scaled by -2";
      Csr A2    = t.A;
      for (auto &v : A2.a) v *= -2.0;
      PetscCall(CCOORefreshHostLayout(A2.View(), &L, &st));
      Check(Same(L) && st.nlut == nlut0, "scaling: %lld chunks on the table, expected %lld", (long long)st.nlut, (long long)nlut0);
      for (std::size_t i = 0; i < L.lut.size(); i++) Check(CCOOFromBits(L.lut[i]) == -2.0 * CCOOFromBits(built.lut[i]), "scaling: table entry %zu", i);
      CheckInvariants(o, A2.View(), L);
      CheckProducts(L, A2, rng);
      /* (c) one value changed to a new one: exactly the chunk holding it falls back */
      if (nlut0 > 0) {
        g_context = "refresh: " + t.name + ", B " + std::to_string(B) + ", one value changed";
        PetscCall(CCOORefreshHostLayout(V, &L, &st));
        int64_t c0 = -1, e0 = -1; /* a table chunk and one of its entries */
        for (int64_t c = 0; c < L.nchunks && c0 < 0; c++)
          if (L.fmt[c] & CCOO_LUT_MODE)
            for (PetscInt tt = 0; tt < L.B && c0 < 0; tt++)
              if (L.slot_cnt[c * L.B + tt]) {
                c0 = c;
                e0 = L.slot_src[c * L.B + tt];
              }
        if (c0 >= 0) {
          Csr A3   = t.A;
          A3.a[e0] = 12345.678;
          PetscCall(CCOORefreshHostLayout(A3.View(), &L, &st));
          bool only = !(L.fmt[c0] & CCOO_LUT_MODE);
          for (int64_t c = 0; c < L.nchunks; c++)
            if (c != c0) only = only && L.fmt[c] == built.fmt[c];
          const bool isrep = std::find(L.rep.begin(), L.rep.end(), (int)e0) != L.rep.end();
          Check(only || isrep, "changing entry %lld: chunk %lld should fall back alone (%lld on the table now, %lld before)", (long long)e0, (long long)c0, (long long)st.nlut, (long long)nlut0);
          CheckInvariants(o, A3.View(), L);
          CheckProducts(L, A3, rng);
        }
      }
      /* (d) back to the original values: identical to a fresh build */
      g_context = "refresh: " + t.name + ", B " + std::to_string(B) + ", original values again";
      PetscCall(CCOORefreshHostLayout(A1.View(), &L, &st));
      PetscCall(CCOORefreshHostLayout(V, &L, &st));
      PetscCall(CCOOBuildHostLayout(o, V, &fresh, &st2));
      Check(L.fmt == fresh.fmt && L.lut == fresh.lut && st.nlut == st2.nlut, "fmt/table differ from a fresh build (%lld vs %lld chunks on the table)", (long long)st.nlut, (long long)st2.nlut);
      for (int64_t c = 0; c < L.nchunks; c++) /* plain chunks hold the values of a fresh build */
        if (!(L.fmt[c] & CCOO_LUT_MODE))
          for (int64_t q = 0; q < (int64_t)L.B * L.K; q++)
            if (!Check(CCOOBits(L.vals[c * L.B * L.K + q]) == CCOOBits(fresh.vals[c * L.B * L.K + q]), "chunk %lld plain value %lld differs from a fresh build", (long long)c, (long long)q)) break;
      CheckInvariants(o, V, L);
      layouts++;
    }
  { /* MatShift of a constant diagonal: the diagonal value's representative is a diagonal entry */
    Rng       r2(7);
    const Csr S = Stencil7(8, true, r2);
    Csr       S2 = S;
    for (PetscInt r = 0; r < S.m; r++)
      for (PetscInt k = S.i[r]; k < S.i[r + 1]; k++)
        if (S.j[k] == r) S2.a[k] += 3.0;
    CCOOOptions o;
    CCOOLayout  L;
    CCOOStats   st;
    g_context = "refresh: stencil7 const, diagonal shifted";
    PetscCall(CCOOBuildHostLayout(o, S.View(), &L, &st));
    const int64_t n0 = st.nlut;
    PetscCall(CCOORefreshHostLayout(S2.View(), &L, &st));
    Check(n0 == st.nchunks && st.nlut == n0, "%lld of %lld chunks on the table after the shift (%lld before)", (long long)st.nlut, (long long)st.nchunks, (long long)n0);
    CheckInvariants(o, S2.View(), L);
    CheckProducts(L, S2, rng);
    layouts++;
  }
  ReportGroup("5 refresh", before, std::to_string(layouts) + " layouts: new values, original again, scaled, one value changed, fresh-build equality, shifted diagonal");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 7. K = 16: layouts and products on matrices built around 16 (rows of 15, 16, 17, 31, 32, 33 and longer,
   empty rows), every B, with and without the table, 32-bit columns, no single-row chunks; then a refresh */
static PetscErrorCode TestK16(Rng &rng)
{
  const int before  = g_failures;
  int       layouts = 0;

  PetscFunctionBeginUser;
  const ValueFn           rnd = [&](PetscInt, PetscInt) { return RandomValue(rng); };
  const ValueFn           few = [&](PetscInt r, PetscInt c) { return r == c ? 4.0 : (rng() % 3 == 0 ? 0.5 : -1.0); };
  const PetscInt          near16[] = {0, 1, 15, 16, 17, 31, 32, 33, 48, 49};
  std::vector<TestMatrix> mats;
  for (int k = 0; k < 4; k++) { /* lengths around multiples of 16, some empty, some long */
    const PetscInt m = Uniform(rng, 20, 500), n = Uniform(rng, 60, 2000);
    mats.push_back({"near 16 " + std::to_string(k) + " (" + std::to_string(m) + "x" + std::to_string(n) + ")", RandomCsr(rng, m, n, [&](PetscInt) { return rng() % 8 == 0 ? Uniform(rng, 50, 60) : near16[rng() % 10]; }, k % 2 ? few : rnd)});
  }
  for (int k = 0; k < 3; k++) {
    const PetscInt m = Uniform(rng, 1, 400), n = Uniform(rng, 1, 400), maxl = Uniform(rng, 1, std::min<PetscInt>(n, 90));
    mats.push_back({"random " + std::to_string(k) + " (" + std::to_string(m) + "x" + std::to_string(n) + ")", RandomCsr(rng, m, n, [&](PetscInt) { return Uniform(rng, 0, maxl); }, k % 2 ? few : rnd)});
  }
  mats.push_back({"rows of exactly 16", RandomCsr(rng, 300, 100, [](PetscInt) { return 16; }, rnd)});
  mats.push_back({"rows of exactly 17", RandomCsr(rng, 300, 100, [](PetscInt) { return 17; }, few)});
  mats.push_back({"rows of 16 and 17 alternating, every third empty", RandomCsr(rng, 301, 90, [](PetscInt r) { return r % 3 == 2 ? 0 : 16 + r % 2; }, rnd)});
  mats.push_back({"one row of 5000 among short rows", RandomCsr(rng, 40, 6000, [&](PetscInt r) { return r == 17 ? 5000 : Uniform(rng, 0, 20); }, rnd)});
  { /* rows of 17 spanning more than 2^16 columns: 32-bit offsets next to padding */
    std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> e(120);
    for (PetscInt r = 0; r < 120; r++)
      if (r % 7)
        for (PetscInt k = 0; k < 17; k++) e[r].push_back({k < 16 ? (r + k) % 50 : 70000 + r, RandomValue(rng)});
    for (auto &row : e) std::sort(row.begin(), row.end(), [](const auto &p, const auto &q) { return p.first < q.first; }); /* distinct columns */
    mats.push_back({"rows of 17 spanning > 2^16", CsrFromEntries(70200, e)});
  }
#if defined(PETSC_USE_COMPLEX)
  for (TestMatrix &m : mats) PhaseValues(m.A);
#endif
  std::vector<TestOptions> opts;
  {
    CCOOOptions o;
    o.k = 16;
    opts.push_back({"K 16", o});
    o.lut_size = 0;
    opts.push_back({"K 16, no table", o});
    o          = CCOOOptions();
    o.k        = 16;
    o.col_bits = 32;
    o.lut_size = 2;
    opts.push_back({"K 16, col_bits 32, table of 2", o});
    o            = CCOOOptions();
    o.k          = 16;
    o.single_row = PETSC_FALSE;
    opts.push_back({"K 16, no single-row", o});
  }
  for (PetscInt B : {256, 64, 32, 5, 1})
    for (const auto &t : mats)
      for (const auto &to : opts) {
        CCOOLayout  L;
        CCOOStats   st;
        CCOOOptions o = WithB(to.o, B);
        g_context     = "K 16: " + t.name + ", " + to.name + ", B " + std::to_string(B);
        PetscCall(CCOOBuildHostLayout(o, t.A.View(), &L, &st));
        CheckBuilt(o, t.A, L, st); /* CCOOCheckLayout and the independent checks */
        Check(L.K == 16 && st.S == st.slots_k[4] && (int64_t)L.vals.size() == L.nchunks * B * 16, "K %" PetscInt_FMT ", slots %lld (K 16 count %lld), values %zu", L.K, (long long)st.S, (long long)st.slots_k[4], L.vals.size());
        /* slot counts by hand: a row of len takes max(1, ceil(len/16)) slots holding 16, ..., 16, the rest */
        for (PetscInt r = 0, s = 0; r < t.A.m; r++) {
          const PetscInt len = t.A.Len(r), ns = len ? (len + 15) / 16 : 1;
          bool           ok  = true;
          for (PetscInt g = 0; g < ns; g++, s++) ok = ok && L.slot_cnt[s] == (g + 1 < ns ? 16 : len - 16 * (ns - 1)) && L.slot_src[s] == t.A.i[r] + 16 * g;
          if (!Check(ok, "row %" PetscInt_FMT " (%" PetscInt_FMT " entries): slot counts differ from 16, ..., 16, rest", r, len)) break;
        }
        CheckProducts(L, t.A, rng);
        layouts++;
      }
  /* refresh at K 16: new values, scaled values, the original values again (a fresh build) */
  for (const auto &t : mats) {
    CCOOOptions o;
    CCOOLayout  L, fresh;
    CCOOStats   st, st2;
    o.k                 = 16;
    const SpMVHostCsr V = t.A.View();
    g_context           = "K 16 refresh: " + t.name;
    PetscCall(CCOOBuildHostLayout(o, V, &L, &st));
    const Csr A1 = WithNewValues(t.A, rng);
    PetscCall(CCOORefreshHostLayout(A1.View(), &L, &st));
    CheckInvariants(o, A1.View(), L);
    CheckProducts(L, A1, rng);
    Csr A2 = t.A;
    for (auto &v : A2.a) v *= -2.0;
    PetscCall(CCOORefreshHostLayout(A2.View(), &L, &st));
    CheckInvariants(o, A2.View(), L);
    CheckProducts(L, A2, rng);
    PetscCall(CCOORefreshHostLayout(V, &L, &st));
    PetscCall(CCOOBuildHostLayout(o, V, &fresh, &st2));
    Check(L.fmt == fresh.fmt && L.lut == fresh.lut && L.blob == fresh.blob && st.nlut == st2.nlut, "refreshed back to the original values: fmt, table or blob differ from a fresh build");
    for (int64_t c = 0; c < L.nchunks; c++) /* plain chunks hold the values of a fresh build (table chunks keep stale ones) */
      if (!(L.fmt[c] & CCOO_LUT_MODE))
        for (int64_t q = 0; q < (int64_t)L.B * 16; q++)
          if (!Check(CCOOBits(L.vals[c * L.B * 16 + q]) == CCOOBits(fresh.vals[c * L.B * 16 + q]), "chunk %lld plain value %lld differs from a fresh build", (long long)c, (long long)q)) break;
    CheckInvariants(o, V, L);
    layouts++;
  }
  ReportGroup("7 K = 16", before, std::to_string(mats.size()) + " matrices (rows of 15/16/17/31/32/33/48/49, longer, empty) x " + std::to_string(opts.size()) + " options x B {256,64,32,5,1}, " + std::to_string(layouts) + " layouts: CCOOCheckLayout, slot counts, kernel algorithm and host product vs CSR; refresh");
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if !defined(PETSC_USE_COMPLEX) /* the real cost model's hand-computed cases (complex: group 8) */
/* 6. parameters */
static CCOOStats HandStats(PetscInt m, int64_t nnz, std::vector<int64_t> slots, int64_t wide, PetscInt L, int64_t cover)
{
  CCOOStats st;
  st.m   = m;
  st.n   = m;
  st.nnz = nnz;
  for (int e = 0; e < CCOO_NK; e++) st.slots_k[e] = slots[e];
  st.wide      = wide;
  st.L         = L;
  st.lut_cover = cover;
  return st;
}

static PetscErrorCode TestParameters(void)
{
  const int before = g_failures;
  struct Case {
    const char           *name;
    std::vector<PetscInt> len;
    PetscInt              lut; /* table size */
    PetscInt              K;   /* expected */
  };
  /* 10 rows of the given lengths, columns 0.., all values 1.0: with the table (one entry, every nonzero)
     ebytes = 2 + 1 = 3, without it 2 + 8 = 10; cost(K) = w slots + ebytes (K slots - nnz), w = 20 (28 for
     K = 16), by hand: */
  const std::vector<Case> cases = {
    {"7 per row (stencil7), table: slots 70/40/20/10/10, costs 1400/830/430/230/550: K 8", std::vector<PetscInt>(10, 7), 256, 8},
    {"7 per row, plain: 1400/900/500/300/1180: K 8", std::vector<PetscInt>(10, 7), 0, 8},
    {"27 per row (stencil27), table: slots 270/140/70/40/20, costs 5400/2830/1430/950/710: K 16", std::vector<PetscInt>(10, 27), 256, 16},
    {"27 per row, plain: 5400/2900/1500/1300/1060: K 16", std::vector<PetscInt>(10, 27), 0, 16},
    {"1 per row: 200/230/290/410/730: K 1", std::vector<PetscInt>(10, 1), 256, 1},
    {"2 per row: slots 20/10/10/10/10, 400/200/260/380/700: K 2", std::vector<PetscInt>(10, 2), 256, 2},
    {"3 per row: slots 30/20/10/10/10, 600/430/230/350/670: K 4", std::vector<PetscInt>(10, 3), 256, 4},
    {"4 per row: 800/400/200/320/640: K 4", std::vector<PetscInt>(10, 4), 256, 4},
    {"9 per row, table: slots 90/50/30/20/10, 1800/1030/690/610/490: K 16", std::vector<PetscInt>(10, 9), 256, 16},
    {"9 per row, plain: 1800/1100/900/1100/980: K 4", std::vector<PetscInt>(10, 9), 0, 4},
    {"16 per row: slots 160/80/40/20/10, 3200/1600/800/400/280: K 16", std::vector<PetscInt>(10, 16), 256, 16},
    {"17 per row, table: slots 170/90/50/30/20, 3400/1830/1090/810/1010: K 8", std::vector<PetscInt>(10, 17), 256, 8},
    {"17 per row, plain: 3400/1900/1300/1300/2060: K 4 and 8 tie: K 8", std::vector<PetscInt>(10, 17), 0, 8},
    {"all empty: K 1", std::vector<PetscInt>(10, 0), 256, 1},
  };

  PetscFunctionBeginUser;
  for (const auto &c : cases) {
    CCOOOptions o;
    Csr         A;
    o.lut_size = c.lut;
    A.m        = (PetscInt)c.len.size();
    A.n        = 64;
    for (PetscInt l : c.len) {
      for (PetscInt k = 0; k < l; k++) {
        A.j.push_back(k);
        A.a.push_back(1.0);
      }
      A.i.push_back(A.Nnz());
    }
    CCOOLayout L;
    CCOOStats  st;
    g_context = std::string("parameters: ") + c.name;
    PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
    Check(st.K == c.K && L.K == c.K && ExpectedK(o, A) == c.K, "K = %" PetscInt_FMT " (test's model %" PetscInt_FMT "), expected %" PetscInt_FMT, st.K, ExpectedK(o, A), c.K);
  }
  /* wide rows: 10 rows of 17 entries at columns 0..15 and span, plain values: slots 170/90/50/30/20,
     padding 0/10/30/70/150. Span 32767: not wide, ebytes 10, costs 3400/1900/1300/1300/2060: K 4 and 8
     tie, K 8. Span 32768: wide, colbytes 2 + 2 = 4, ebytes 12, costs 3400/1920/1360/1440/2360: K 4 */
  for (PetscInt span : {32767, 32768}) {
    std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> e(10);
    for (PetscInt r = 0; r < 10; r++) {
      for (PetscInt k = 0; k < 16; k++) e[r].push_back({k, 1.0 + k});
      e[r].push_back({span, -1.0});
    }
    const Csr   A = CsrFromEntries(span + 1, e);
    CCOOOptions o;
    CCOOLayout  L;
    CCOOStats   st;
    o.lut_size = 0;
    g_context  = "parameters: 17 per row, plain, row span " + std::to_string(span);
    PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
    const PetscInt K = span > 32767 ? 4 : 8;
    Check(st.K == K && st.wide == (span > 32767 ? 170 : 0) && ExpectedK(o, A) == K, "K = %" PetscInt_FMT ", wide %lld (test's model K %" PetscInt_FMT "), expected %" PetscInt_FMT, st.K, (long long)st.wide, ExpectedK(o, A), K);
    CheckBuilt(o, A, L, st);
    Rng rng((uint64_t)span);
    CheckProducts(L, A, rng);
  }
  /* the table's coverage: 14 rows of 49 (nnz 686), a table of one entry holding the value 1.0 of the
     first X nonzeros (the others are distinct). slots 686/350/182/98/56, padding 0/14/42/98/210: cost(8) =
     20 * 98 + 98 ebytes, cost(16) = 28 * 56 + 210 ebytes (K = 16 weighs 28 a slot), equal at ebytes = 3.5,
     i.e. vbytes = 1 + 7 (1 - X/686) = 1.5, X = 637: a tie, K 16 (CCOOChooseK compares exactly, in
     integers); X = 636: K 8. X = 686: K 16. X = 1: every value occurs once, cover 1: K 8. K 4 costs
     3640 + 42 ebytes: never the smallest here */
  for (PetscInt X : {637, 636, 686, 1}) {
    std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> e(14);
    for (PetscInt r = 0, q = 0; r < 14; r++)
      for (PetscInt k = 0; k < 49; k++, q++) e[r].push_back({k, q < X ? 1.0 : 2.0 + (double)q});
    const Csr   A = CsrFromEntries(64, e);
    CCOOOptions o;
    CCOOLayout  L;
    CCOOStats   st;
    o.lut_size = 1;
    g_context  = "parameters: 49 per row, table covering " + std::to_string(X) + " of 686";
    PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
    const PetscInt K = X >= 637 ? 16 : 8;
    Check(st.K == K && st.lut_cover == X && ExpectedK(o, A) == K, "K = %" PetscInt_FMT ", cover %lld (test's model K %" PetscInt_FMT "), expected %" PetscInt_FMT, st.K, (long long)st.lut_cover, ExpectedK(o, A), K);
  }
  /* the sanity cases of the H200 sweep (real slot counts, hand-made stats), direct calls */
  {
    struct Sweep {
      const char          *name;
      PetscInt             m;
      int64_t              nnz;
      std::vector<int64_t> slots;
      int64_t              wide;
      PetscInt             L;
      int64_t              cover;
      PetscInt             K;
    };
    /* (costs in units of nnz; K = 16 weighs 28 a slot)
       stencil27 n = 120: costs (ebytes 3) 917.7M / 480.2M / 243.9M / 162.7M / 124.9M, (ebytes 10) 917.7M /
         491.7M / 256.6M / 223.7M / 190.6M: K 16 both.
       cage11 kron 64 with its value table (ebytes 3): K 8 136.5M, K 16 140.6M: K 8 (measured 111 vs 117 us).
       nasa4704 kron 400 (one value, ebytes 3): K 8 159.5M, K 16 153.0M: K 16 (measured 118 vs 122 us).
       R-MAT scale 21 (32-bit columns, plain: ebytes 12): 690.3M / 370.6M / 248.3M / 266.1M / 402.1M: K 4.
       cage11 kron 64 (ebytes 10): K 4 233.8M, K 8 196.3M, K 16 255.4M; its K = 2 count is not in the notes:
         nnz/2 (the fewest possible) still costs 358M: K 8.
       stencil7 n = 150: K 8 and 16 have equal slots, K 16 pads 30.5M entries, K 8 3.51M: K 8 (ebytes 3, 10). */
    const std::vector<Sweep> sweep = {
      {"stencil27 n=120, table (ebytes 3)", 1728000, 45882712, {45882712, 23762872, 11923208, 6825600, 3454576}, 0, 2, 45882712, 16},
      {"stencil27 n=120, plain (ebytes 10)", 1728000, 45882712, {45882712, 23762872, 11923208, 6825600, 3454576}, 0, 0, 0, 16},
      {"R-MAT scale 21 (ebytes 12)", 2097152, 34516138, {34516138, 17836634, 9742003, 5864768, 3850226}, 34516138, 0, 0, 4},
      {"cage11 kron 64 (ebytes 10)", 2501248, 35822208, {35822208, 17911104, 9867648, 5545152, 3263744}, 0, 0, 0, 8},
      {"cage11 kron 64, table (ebytes 3)", 2501248, 35822208, {35822208, 18551680, 9867648, 5545152, 3263744}, 0, 256, 35822208, 8},
      {"nasa4704 kron 400, table (ebytes 3)", 1881600, 41902400, {41902400, 21391600, 11136000, 6481200, 3666800}, 0, 1, 41902400, 16},
      {"stencil7 n=150, table (ebytes 3)", 3375000, 23490000, {23490000, 13366784, 6749992, 3375000, 3375000}, 0, 2, 23490000, 8},
      {"stencil7 n=150, plain (ebytes 10)", 3375000, 23490000, {23490000, 13366784, 6749992, 3375000, 3375000}, 0, 0, 0, 8},
    };
    for (const auto &w : sweep) {
      CCOOOptions o;
      PetscInt    K;
      g_context = std::string("parameters: sweep case ") + w.name;
      PetscCall(CCOOChooseK(o, HandStats(w.m, w.nnz, w.slots, w.wide, w.L, w.cover), &K));
      Check(K == w.K, "K = %" PetscInt_FMT ", expected %" PetscInt_FMT, K, w.K);
    }
  }
  /* ties go to the larger K, explicit K wins, no nonzeros: K 1. nnz 100, plain (ebytes 10), slots
     100/80/55/30/17: costs 2000/2200/2300/2000/2060: K 1 and K 8 tie -> 8 */
  {
    CCOOOptions o;
    PetscInt    K;
    g_context = "parameters: tie between K 1 and K 8";
    PetscCall(CCOOChooseK(o, HandStats(50, 100, {100, 80, 55, 30, 17}, 0, 0, 0), &K));
    Check(K == 8, "K = %" PetscInt_FMT ", expected 8", K);
    g_context = "parameters: no tie (slots for K 8 one more: 2020)";
    PetscCall(CCOOChooseK(o, HandStats(50, 100, {100, 80, 55, 31, 17}, 0, 0, 0), &K));
    Check(K == 1, "K = %" PetscInt_FMT ", expected 1", K);
    g_context = "parameters: explicit K";
    o.k       = 2;
    PetscCall(CCOOChooseK(o, HandStats(50, 100, {100, 80, 55, 30, 17}, 0, 0, 0), &K));
    Check(K == 2, "K = %" PetscInt_FMT ", expected 2", K);
    o.k = 16;
    PetscCall(CCOOChooseK(o, HandStats(50, 100, {100, 80, 55, 30, 17}, 0, 0, 0), &K));
    Check(K == 16, "K = %" PetscInt_FMT ", expected 16", K);
    g_context = "parameters: no nonzeros";
    o.k       = 0;
    PetscCall(CCOOChooseK(o, HandStats(7, 0, {7, 7, 7, 7, 7}, 0, 0, 0), &K));
    Check(K == 1, "K = %" PetscInt_FMT ", expected 1", K);
    PetscCall(CCOOChooseK(o, HandStats(0, 0, {0, 0, 0, 0, 0}, 0, 0, 0), &K));
    Check(K == 1, "no rows: K = %" PetscInt_FMT ", expected 1", K);
  }
  /* the index of K in slots_k */
  g_context = "parameters: CCOOKIndex";
  for (int e = 0; e < CCOO_NK; e++) Check(CCOOKIndex((int64_t)1 << e) == e && CCOOValidK((int64_t)1 << e), "CCOOKIndex(%d) = %d", 1 << e, CCOOKIndex((int64_t)1 << e));
  Check(!CCOOValidK(0) && !CCOOValidK(3) && !CCOOValidK(32), "CCOOValidK accepts 0, 3 or 32");
  /* option ranges of the builder */
  {
    const Csr A = CsrFromEntries(2, {{{0, 1.5}}, {{1, -2.5}}});
    struct Bad {
      const char *name;
      PetscInt    threads, k, lut;
    };
    for (const Bad &b : {Bad{"threads 0", 0, 0, 256}, Bad{"threads 257", 257, 0, 256}, Bad{"K 3", 256, 3, 256}, Bad{"K 32", 256, 32, 256}, Bad{"K -1", 256, -1, 256}, Bad{"table 257", 256, 0, 257}, Bad{"table -1", 256, 0, -1}}) {
      CCOOOptions    o;
      CCOOLayout     L;
      CCOOStats      st;
      PetscErrorCode ierr;
      o.threads  = b.threads;
      o.k        = b.k;
      o.lut_size = b.lut;
      g_context  = std::string("parameters: ") + b.name;
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
      ierr = CCOOBuildHostLayout(o, A.View(), &L, &st);
      PetscCall(PetscPopErrorHandler());
      Check(ierr == PETSC_ERR_ARG_OUTOFRANGE, "CCOOBuildHostLayout gave %d, expected PETSC_ERR_ARG_OUTOFRANGE", (int)ierr);
    }
  }
  ReportGroup("6 parameters", before, "automatic K by the cost model (row lengths, wide rows, table coverage, the H200 sweep cases), ties, explicit K, option ranges");
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif

#if defined(PETSC_USE_COMPLEX)
/* 8. complex keys: the 128-bit pattern of both parts */
static PetscErrorCode TestComplexKeys(Rng &rng)
{
  const int         before = g_failures;
  const double      nz = -0.0;
  const PetscScalar a(1.0, 2.0), b(1.0, -2.0), c(-1.0, 2.0), d(1.0, 2.0000000000000004); /* equal in one part, not in the other; d: a's next imaginary part */
  const PetscScalar z00(0.0, 0.0), z10(nz, 0.0), z01(0.0, nz), z11(nz, nz);          /* the four signed zeros */
  int               layouts = 0;

  PetscFunctionBeginUser;
  /* the key: the real part's bits, then the imaginary part's; ordered as that pair */
  g_context = "complex keys: the key";
  {
    const Bits ka = CCOOBits(a), kd = CCOOBits(d), k10 = CCOOBits(z10), k01 = CCOOBits(z01);
    uint64_t   r, i;
    double     are = a.real(), aim = a.imag();
    std::memcpy(&r, &are, sizeof(r));
    std::memcpy(&i, &aim, sizeof(i));
    Check(ka.re == r && ka.im == i, "the key of 1+2i is not (bits of 1, bits of 2)");
    Check(!(ka == kd) && ka < kd && !(kd < ka), "1+2i and its next imaginary part: distinct, ordered by the imaginary bits");
    Check(CCOOBits(z00) < k01 && k01 < k10 && k10 < CCOOBits(z11), "signed zeros: (+0,+0) < (+0,-0) < (-0,+0) < (-0,-0) expected (real bits first)");
    Check(CCOOBits(CCOOFromBits(kd)) == kd, "CCOOFromBits does not invert CCOOBits");
  }
  /* a worked table: 5x300, B 4, K 2, values chosen so that only both parts tell them apart */
  {
    const Csr A = CsrFromEntries(300, {{{0, a}, {1, b}, {2, b}}, {}, {{1, b}, {3, a}, {4, b}, {6, c}, {7, d}}, {{5, a}}, {{10, z10}, {11, b}, {12, b}, {13, z01}, {14, b}, {15, b}, {16, b}, {290, b}}});
    CCOOOptions o;
    CCOOLayout  L;
    CCOOStats   st;
    o.threads  = 4;
    o.k        = 2;
    o.lut_size = 3;
    g_context  = "complex keys: worked table of 3";
    PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
    /* counts: b 10, a 3, then c, d, -0+0i, 0-0i once each; the table of 3 takes b, a and the smallest pair of the
       four singles: 0-0i (real bits 0), sorted by (real bits, imaginary bits): 0-0i, 1+2i, 1-2i (2 < -2 as bits) */
    const std::vector<Bits> expect = {CCOOBits(z01), CCOOBits(a), CCOOBits(b)};
    Check(L.lut == expect, "table %zu entries, expected {0-0i, 1+2i, 1-2i}", L.lut.size());
    Check(L.rep == std::vector<int>({12, 0, 1}), "rep %d %d %d, expected 12 0 1", L.rep.size() > 0 ? L.rep[0] : -1, L.rep.size() > 1 ? L.rep[1] : -1, L.rep.size() > 2 ? L.rep[2] : -1);
    Check(st.ndistinct == 6 && st.lut_cover == 14 && st.L == 3, "distinct %lld cover %lld L %" PetscInt_FMT ", expected 6 14 3", (long long)st.ndistinct, (long long)st.lut_cover, st.L);
    CheckBuilt(o, A, L, st);
    CheckProducts(L, A, rng);
    layouts++;
    /* all six: -0+0i and 0-0i are two entries (and neither is 0+0i) */
    g_context  = "complex keys: worked table of 256";
    o.lut_size = 256;
    PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
    std::vector<Bits> all = {CCOOBits(z01), CCOOBits(z10), CCOOBits(a), CCOOBits(d), CCOOBits(b), CCOOBits(c)};
    std::sort(all.begin(), all.end());
    Check(L.lut == all && st.nlut == st.nchunks, "table of all six values (%zu entries), %lld of %lld chunks on it", L.lut.size(), (long long)st.nlut, (long long)st.nchunks);
    Check(std::find(L.lut.begin(), L.lut.end(), CCOOBits(z00)) == L.lut.end(), "0+0i in the table, which holds -0+0i and 0-0i only");
    CheckBuilt(o, A, L, st);
    CheckProducts(L, A, rng);
    layouts++;
    /* automatic K with 16-byte values (nnz 17, slots 18/11/7/5/5, padding 1/5/11/23/63): the table covers all,
       ebytes = 2 + 1: costs 20 slots + 3 padding: K 8 as in real; plain values, ebytes = 2 + 16 = 18: 378 / 310 /
       338 / 514 / 1274 (K 16: 28 slots): K 2 (real: K 4, ebytes 10) */
    g_context = "complex keys: automatic K";
    o         = CCOOOptions();
    o.threads = 4;
    PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
    Check(L.K == 8 && st.lut_cover == 17, "table: K %" PetscInt_FMT ", cover %lld, expected 8, 17", L.K, (long long)st.lut_cover);
    CheckBuilt(o, A, L, st);
    o.lut_size = 0;
    PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
    Check(L.K == 2 && st.L == 0, "plain values: K %" PetscInt_FMT ", expected 2", L.K);
    CheckBuilt(o, A, L, st);
    CheckProducts(L, A, rng);
    layouts += 2;
    /* refresh: the imaginary part of 1-2i at position 3 (chunk 0: positions 0-4 = a b b b a, on the table of a and b)
       changed by an ulp: exactly chunk 0 falls back (b's representative is position 1: the table stays); the
       original values again: chunk 0 returns to the table */
    g_context  = "complex keys: refresh by an ulp of an imaginary part";
    o.lut_size = 2; /* b and a */
    o.k        = 2;
    PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
    const CCOOLayout built = L;
    Csr              A2    = A;
    A2.a[3]                = PetscScalar(A.a[3].real(), std::nextafter(A.a[3].imag(), 0.0));
    PetscCall(CCOORefreshHostLayout(A2.View(), &L, &st));
    bool only = L.nchunks > 0 && (built.fmt[0] & CCOO_LUT_MODE) && !(L.fmt[0] & CCOO_LUT_MODE) && L.lut == built.lut;
    for (int64_t ch = 1; ch < L.nchunks; ch++) only = only && L.fmt[ch] == built.fmt[ch];
    Check(only, "an ulp of the imaginary part at position 3: chunk 0 (on the table at build: %d) must leave it (now %d), alone", L.nchunks ? (built.fmt[0] & CCOO_LUT_MODE) != 0 : -1, L.nchunks ? (L.fmt[0] & CCOO_LUT_MODE) != 0 : -1);
    CheckInvariants(o, A2.View(), L);
    CheckProducts(L, A2, rng);
    PetscCall(CCOORefreshHostLayout(A.View(), &L, &st));
    Check(L.fmt == built.fmt && L.lut == built.lut, "the original values again: fmt or table differ from the build");
    layouts++;
  }
  /* signed zeros, equal real parts, conjugates, at scale: every value repeated, all in the table, products */
  {
    const std::vector<PetscScalar> vals = {z00, z10, z01, z11, a, b, c, d, std::conj(c), PetscScalar(nz, 2.0), PetscScalar(0.0, 2.0), PetscScalar(2.0, nz), PetscScalar(2.0, 0.0)};
    std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> e(600);
    for (PetscInt r = 0; r < 600; r++) {
      if (r % 13 == 5) continue;
      for (PetscInt col : RandomColumns(rng, 400, Uniform(rng, 1, 20))) e[r].push_back({col, vals[rng() % vals.size()]});
    }
    const Csr A = CsrFromEntries(400, e);
    for (PetscInt lut : {256, 5, 0})
      for (PetscInt B : {256, 32}) {
        CCOOOptions o;
        CCOOLayout  L;
        CCOOStats   st;
        o.lut_size = lut;
        o.threads  = B;
        g_context  = "complex keys: 13 values with signed zeros, table " + std::to_string(lut) + ", B " + std::to_string(B);
        PetscCall(CCOOBuildHostLayout(o, A.View(), &L, &st));
        CheckBuilt(o, A, L, st); /* the table by the independent route over 128-bit keys, every value bit for bit */
        if (lut == 256) Check(st.L == 13 && st.nlut == st.nchunks, "table %" PetscInt_FMT " (13 distinct keys expected), %lld of %lld chunks on it", st.L, (long long)st.nlut, (long long)st.nchunks);
        CheckProducts(L, A, rng);
        layouts++;
      }
  }
  ReportGroup("8 complex keys", before, std::to_string(layouts) + " layouts: 128-bit keys (real bits, then imaginary bits), signed zeros of either part distinct, ties, K with 16-byte values, refresh by an imaginary ulp, products");
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

int main(int argc, char **argv)
{
  PetscInt  seed;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, "CCOO host reference unit tests; -seed N reruns a random sequence"));
  seed = (PetscInt)(std::chrono::system_clock::now().time_since_epoch().count() % 2147483647);
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-seed", &seed, &set));
  std::printf("test_ccoo_host: seed %" PetscInt_FMT " (rerun with -seed %" PetscInt_FMT ")\n", seed, seed);
  Rng rng((uint64_t)seed);

#if !defined(PETSC_USE_COMPLEX)
  PetscCall(TestWorkedExample(rng));
#endif
  const std::vector<TestMatrix>  mats = MakeTestMatrices(rng);
  const std::vector<TestOptions> opts = MakeTestOptions();
  PetscCall(TestExecutor(mats, opts, rng));
  PetscCall(TestLayouts(mats, opts));
#if !defined(PETSC_USE_COMPLEX)
  PetscCall(TestSpecialValues(rng));
#endif
  PetscCall(TestRefresh(mats, rng));
#if !defined(PETSC_USE_COMPLEX)
  PetscCall(TestParameters());
#endif
  PetscCall(TestK16(rng));
#if defined(PETSC_USE_COMPLEX)
  PetscCall(TestComplexKeys(rng));
#endif

  if (g_failures) std::printf("test_ccoo_host: %d checks FAILED (seed %" PetscInt_FMT ")\n", g_failures, seed);
  else std::printf("test_ccoo_host: all checks passed\n");
  std::fflush(stdout);
  PetscCall(PetscFinalize());
  return g_failures ? 1 : 0;
}
