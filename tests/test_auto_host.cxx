/*
   test_auto_host: unit tests of the automatic format's host side (src/mat/impls/spmv/auto/autohost.cxx):

     1. statistics     every field against a brute-force recomputation (empty rows, long rows, windows
                       of 2048 nonzeros and their column ranges, the value sample and its table cover,
                       values that are all 0.0), on hand-made and random matrices
     2. fingerprint    same pattern with new values: same; a moved column, a moved row boundary, another
                       shape: different
     3. rule           generated families go to the format the rule promises: 7-point stencil -> ccoo,
                       27-point stencil with random values -> brc, constant values -> ccoo, power-law rows
                       with columns anywhere -> brc, a few dense rows with columns anywhere -> argcsr,
                       irregular rows with local columns -> segsum (dcsr in its place with -mat_spmv_dcsr where
                       at least half of the 128-nonzero tiles span <= 65536 columns, the same plan otherwise);
                       every GPU plan times csr first and at least one library format, within the budget unless
                       the first ranked alone exceeds it, and the safety net (segsum, or dcsr in its place)
     4. options        budget 0 and a large budget, -mat_spmv_candidates lists, -mat_spmv_deterministic
                       (never ccoo; brc only where it splits no row, which BRC's width options decide),
                       unknown names and empty candidate sets refused with PETSc errors

   Usage: test_auto_host [-seed N]   (the seed defaults to the clock and is printed, to rerun a failure)
*/
#include "mat/impls/spmv/auto/auto.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "hosttest.h"
#include "hostcsr.h"

/* --- generators (the same families as examples/spmvexamples.h, small) ---------------------------- */

/* stencil on an N^3 grid: 7 or 27 points, random or constant values */
static Csr Stencil(PetscInt N, int points, bool constant, Rng &rng)
{
  std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> rows((std::size_t)(N * N * N));
  for (PetscInt z = 0; z < N; z++)
    for (PetscInt y = 0; y < N; y++)
      for (PetscInt x = 0; x < N; x++) {
        const PetscInt r = (z * N + y) * N + x;
        for (int dz = -1; dz <= 1; dz++)
          for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
              const int d = std::abs(dx) + std::abs(dy) + std::abs(dz);
              if (points == 7 && d > 1) continue;
              const PetscInt xx = x + dx, yy = y + dy, zz = z + dz;
              if (xx < 0 || yy < 0 || zz < 0 || xx >= N || yy >= N || zz >= N) continue;
              rows[(std::size_t)r].push_back({(zz * N + yy) * N + xx, constant ? (d ? -1.0 : points - 1.0) : RandomValue(rng)});
            }
      }
  return CsrFromEntries(N * N * N, rows);
}

/* m rows; row lengths from len(r); columns from col(r, k), made unique and sorted */
template <typename Len, typename Col>
static Csr Rows(PetscInt m, PetscInt n, Len len, Col col, Rng &rng)
{
  std::vector<std::vector<PetscInt>> rows((std::size_t)m);
  for (PetscInt r = 0; r < m; r++) {
    auto          &c = rows[(std::size_t)r];
    const PetscInt L = std::min<PetscInt>(len(r), n);
    for (PetscInt k = 0; k < L; k++) c.push_back(col(r, k));
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
  }
  return CsrFromRows(n, rows, rng);
}

/* power law: lengths 1/u^1.2 style (Pareto), a few thousand long, columns uniform over n */
static Csr PowerLaw(PetscInt m, Rng &rng)
{
  std::uniform_real_distribution<double> u(1e-4, 1.0);
  return Rows(m, m, [&](PetscInt) { return (PetscInt)std::min(20000.0, 3.0 / std::pow(u(rng), 1.1)); }, [&](PetscInt, PetscInt) { return Uniform(rng, 0, m - 1); }, rng);
}

/* m rows of ~k random columns over n = m, and 'dense' rows of len entries */
static Csr DenseRows(PetscInt m, PetscInt k, PetscInt len, PetscInt dense, Rng &rng)
{
  return Rows(m, m, [&](PetscInt r) { return r % (m / dense) == 0 ? len : k; }, [&](PetscInt, PetscInt) { return Uniform(rng, 0, m - 1); }, rng);
}

/* irregular rows (some of hundreds of entries) whose columns stay near the diagonal */
static Csr IrregularLocal(PetscInt m, Rng &rng, double scale = 2.0)
{
  std::uniform_real_distribution<double> u(1e-3, 1.0);
  return Rows(m, m, [&](PetscInt) { return (PetscInt)std::min(2000.0, scale / std::pow(u(rng), 1.2)); }, [&](PetscInt r, PetscInt) { return std::clamp<PetscInt>(r + Uniform(rng, -3000, 3000), 0, m - 1); }, rng);
}

/* rows of 8..95 entries in a band (a stiffness matrix's shape): rows longer than 64, but CCOO's padding to K is
   small against the row length, so it streams fewer bytes than the CSR floor */
static Csr LongLocal(PetscInt m, Rng &rng)
{
  return Rows(m, m, [&](PetscInt) { return Uniform(rng, 8, 95); }, [&](PetscInt r, PetscInt) { return std::clamp<PetscInt>(r + Uniform(rng, -400, 400), 0, m - 1); }, rng);
}

/* --- 1. statistics against brute force ----------------------------------------------------------- */
static void BruteStats(const Csr &A, SpMVAutoStats *st)
{
  *st     = SpMVAutoStats();
  st->m   = A.m;
  st->n   = A.n;
  st->nnz = A.Nnz();
  for (PetscInt r = 0; r < A.m; r++) {
    const int64_t L = A.Len(r);
    st->nempty += L == 0;
    st->maxlen = std::max(st->maxlen, L);
    st->sumsq += (uint64_t)(L * L);
    if (L > 64) st->nlong++, st->nnzlong += L;
    for (int e = 0; e < 5; e++) st->slots_k[e] += L ? (L + (1 << e) - 1) / (1 << e) : 1;
    if (L && A.j[A.i[r + 1] - 1] - A.j[A.i[r]] > 32767) st->wide += L;
  }
  for (int64_t s = 0; s < st->nnz; s += 2048) {
    const auto e  = A.j.begin() + std::min<int64_t>(s + 2048, st->nnz);
    const auto mm = std::minmax_element(A.j.begin() + s, e);
    st->nwin++;
    st->winspan += (uint64_t)(*mm.second - *mm.first);
    st->nwin16 += *mm.second - *mm.first <= 65534;
  }
  for (int64_t s = 0; s < st->nnz; s += 128) { /* dcsr's tiles */
    const auto mm = std::minmax_element(A.j.begin() + s, A.j.begin() + std::min<int64_t>(s + 128, st->nnz));
    st->ntile16 += *mm.second - *mm.first <= 65535;
  }
  st->nsample = std::min<int64_t>(4096, st->nnz);
  std::vector<double> v;
  for (int64_t k = 0; k < st->nsample; k++) v.push_back(A.a[(std::size_t)JitteredPos(k, st->nnz, st->nsample)]);
  v.erase(std::remove(v.begin(), v.end(), 0.0), v.end());
  st->nvalued = (int64_t)v.size();
  std::sort(v.begin(), v.end());
  std::vector<int64_t> cnt;
  for (std::size_t k = 0; k < v.size();) {
    std::size_t e = k;
    while (e < v.size() && v[e] == v[k]) e++;
    cnt.push_back((int64_t)(e - k));
    k = e;
  }
  std::sort(cnt.rbegin(), cnt.rend());
  for (std::size_t k = 0; k < cnt.size() && k < 255; k++) st->ncover += cnt[k];
}

static void SameStats(const Csr &A, const char *name)
{
  SpMVAutoStats a, b;
  g_context = name;
  if (!Check(!SpMVAutoStatsHost(A.View(), &a), "SpMVAutoStatsHost failed")) return;
  BruteStats(A, &b);
  Check(a.m == b.m && a.n == b.n && a.nnz == b.nnz, "shape");
  Check(a.nempty == b.nempty, "empty rows %lld vs %lld", (long long)a.nempty, (long long)b.nempty);
  Check(a.maxlen == b.maxlen, "longest row %lld vs %lld", (long long)a.maxlen, (long long)b.maxlen);
  Check(a.sumsq == b.sumsq, "sum of squares");
  Check(a.nlong == b.nlong && a.nnzlong == b.nnzlong, "long rows %lld/%lld vs %lld/%lld", (long long)a.nlong, (long long)a.nnzlong, (long long)b.nlong, (long long)b.nnzlong);
  Check(a.ntile16 == b.ntile16, "dcsr's 16-bit tiles %lld vs %lld", (long long)a.ntile16, (long long)b.ntile16);
  Check(a.nwin == b.nwin && a.nwin16 == b.nwin16 && a.winspan == b.winspan, "windows %lld/%lld span %llu vs %lld/%lld span %llu", (long long)a.nwin, (long long)a.nwin16, (unsigned long long)a.winspan, (long long)b.nwin, (long long)b.nwin16, (unsigned long long)b.winspan);
  Check(std::equal(a.slots_k, a.slots_k + 5, b.slots_k) && a.wide == b.wide, "CCOO slots %lld/%lld/%lld/%lld/%lld wide %lld vs %lld/%lld/%lld/%lld/%lld wide %lld", (long long)a.slots_k[0], (long long)a.slots_k[1], (long long)a.slots_k[2], (long long)a.slots_k[3], (long long)a.slots_k[4], (long long)a.wide, (long long)b.slots_k[0], (long long)b.slots_k[1], (long long)b.slots_k[2], (long long)b.slots_k[3], (long long)b.slots_k[4], (long long)b.wide);
  Check(a.nsample == b.nsample && a.nvalued == b.nvalued && a.ncover == b.ncover, "sample %lld/%lld/%lld vs %lld/%lld/%lld", (long long)a.nsample, (long long)a.nvalued, (long long)a.ncover, (long long)b.nsample, (long long)b.nvalued, (long long)b.ncover);
}

static PetscErrorCode TestStats(Rng &rng)
{
  const int before = g_failures;

  PetscFunctionBegin;
  /* hand-made: empty rows first and last, a long row, two windows of which one is wide */
  {
    std::vector<std::vector<PetscInt>> rows(6);
    for (PetscInt k = 0; k < 2000; k++) rows[1].push_back(k);    /* long, narrow */
    for (PetscInt k = 0; k < 100; k++) rows[3].push_back(k * 1000); /* long, spans 99000 columns */
    rows[4] = {5};
    Csr           A = CsrFromRows(100000, rows, rng);
    SpMVAutoStats st;
    g_context = "hand-made";
    PetscCall(SpMVAutoStatsHost(A.View(), &st));
    Check(st.nempty == 3 && st.maxlen == 2000 && st.nlong == 2 && st.nnzlong == 2100, "rows: empty %lld max %lld long %lld/%lld", (long long)st.nempty, (long long)st.maxlen, (long long)st.nlong, (long long)st.nnzlong);
    /* window 0: row 1 (columns 0..1999) and row 3's first 48 (0..47000); window 1: row 3's 48000..99000 and row 4's 5 */
    Check(st.nwin == 2 && st.nwin16 == 1 && st.winspan == 47000 + 98995, "windows %lld, 16-bit %lld, span %llu", (long long)st.nwin, (long long)st.nwin16, (unsigned long long)st.winspan);
    /* dcsr's 17 tiles of 128: 0..15 narrow (tile 15: columns 1920..1999 and 0..47000), 16 wide (5 and 48000..99000) */
    Check(st.NTiles() == 17 && st.ntile16 == 16, "dcsr tiles %lld, 16-bit %lld", (long long)st.NTiles(), (long long)st.ntile16);
    Check(std::abs(st.Mean() - 2101.0 / 3.0) < 1e-9, "mean over non-empty rows %g", st.Mean());
    SameStats(A, "hand-made");
  }
  /* values: all 0.0 give no evidence; two values cover everything; all distinct cover 255 of the sample */
  {
    Csr A = Stencil(10, 7, true, rng), Z = A, R = Stencil(10, 7, false, rng);
    std::fill(Z.a.begin(), Z.a.end(), 0.0);
    SpMVAutoStats sa, sz, sr;
    g_context = "value sample";
    PetscCall(SpMVAutoStatsHost(A.View(), &sa));
    PetscCall(SpMVAutoStatsHost(Z.View(), &sz));
    PetscCall(SpMVAutoStatsHost(R.View(), &sr));
    Check(sa.ValueCover() == 1.0, "two distinct values: cover %g", sa.ValueCover());
    Check(sz.nvalued == 0 && sz.ValueCover() == 0.0, "all zero: valued %lld cover %g", (long long)sz.nvalued, sz.ValueCover());
    Check(sr.ncover == 255 && sr.ValueCover() < 0.1, "random values: cover %lld (%g)", (long long)sr.ncover, sr.ValueCover());
    /* 64 copies of 8192 random values (kron(I_64, B)): a stride of nnz / 4096 would see 64 distinct positions
       and a full cover; the jittered sample sees the values as they are */
    Csr P = Rows(65536, 65536, [](PetscInt) { return 8; }, [&](PetscInt r, PetscInt k) { return (r + 16 * k) % 65536; }, rng);
    if (Check(P.Nnz() == 64 * 8192, "periodic: nnz %lld", (long long)P.Nnz())) {
      for (std::size_t k = 8192; k < P.a.size(); k++) P.a[k] = P.a[k % 8192];
      SpMVAutoStats sp;
      PetscCall(SpMVAutoStatsHost(P.View(), &sp));
      Check(sp.ValueCover() < 0.5, "64 copies of 8192 random values: cover %g", sp.ValueCover());
      SameStats(P, "periodic values");
    }
  }
  /* random matrices, with empty rows, rectangular, tiny, empty */
  for (int t = 0; t < 12; t++) {
    const PetscInt m = Uniform(rng, 0, 3000), n = Uniform(rng, 1, 200000);
    const double   pe = t % 3 == 0 ? 0.3 : 0.0;
    std::uniform_real_distribution<double> u(0, 1);
    Csr A = Rows(m, n, [&](PetscInt r) { return u(rng) < pe ? 0 : (r % 97 == 0 ? Uniform(rng, 60, 300) : Uniform(rng, 1, 12)); }, [&](PetscInt r, PetscInt) { return t % 2 ? Uniform(rng, 0, n - 1) : std::clamp<PetscInt>(r * n / std::max<PetscInt>(m, 1) + Uniform(rng, -50, 50), 0, n - 1); }, rng);
    SameStats(A, ("random " + std::to_string(t) + ": " + std::to_string(m) + " x " + std::to_string(n)).c_str());
  }
  ReportGroup("1 statistics", before, "every field vs brute force; zero values no evidence; 0 x n, empty rows, wide windows");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* --- 2. fingerprint ------------------------------------------------------------------------------ */
static PetscErrorCode TestFingerprint(Rng &rng)
{
  const int     before = g_failures;
  Csr           A      = Stencil(8, 7, false, rng);
  SpMVAutoStats a, b;

  PetscFunctionBegin;
  g_context = "fingerprint";
  PetscCall(SpMVAutoStatsHost(A.View(), &a));
  Csr B = WithNewValues(A, rng);
  PetscCall(SpMVAutoStatsHost(B.View(), &b));
  Check(a.SamePattern(b), "new values changed the fingerprint");
  Csr C = A;
  for (PetscInt k = 0; k + 1 < C.Nnz(); k++) /* a column moves inside its row (a gap after it), row lengths stay */
    if (C.j[k] + 1 < C.j[k + 1]) {
      C.j[k]++;
      break;
    }
  PetscCall(SpMVAutoStatsHost(C.View(), &b));
  Check(!a.SamePattern(b) && a.nnz == b.nnz, "a moved column kept the fingerprint");
  Csr D = A;
  D.i[5]++; /* one entry moves from row 5 to row 4: same columns, same nnz */
  PetscCall(SpMVAutoStatsHost(D.View(), &b));
  Check(!a.SamePattern(b), "a moved row boundary kept the fingerprint");
  Csr E = A;
  E.n++;
  PetscCall(SpMVAutoStatsHost(E.View(), &b));
  Check(!a.SamePattern(b), "another column count kept the fingerprint");
  ReportGroup("2 fingerprint", before, "values ignored; columns, row boundaries and shape change it");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* --- 3. the rule on the families ----------------------------------------------------------------- */
static std::string Names(const int *ids, int n)
{
  std::string s;
  for (int k = 0; k < n; k++) s += (k ? "," : "") + std::string(SpMVAutoNames[ids[k]]);
  return s;
}

/* the plan's invariants; returns the host choice */
static int PlanFor(const Csr &A, const SpMVAutoOptions &o, SpMVAutoPlan *p, SpMVAutoStats *st = nullptr)
{
  SpMVAutoStats s;
  if (SpMVAutoStatsHost(A.View(), &s) || SpMVAutoRank(s, o, p)) {
    Check(false, "SpMVAutoRank failed");
    return -1;
  }
  if (st) *st = s;
  if (!o.allowed) {
    Check(p->ntime >= 2 && p->time[0] == AUTO_CSR && p->time[1] == p->rank[0], "GPU plan %s must be csr, then the first ranked (%s)", Names(p->time, p->ntime).c_str(), Names(p->rank, p->nrank).c_str());
    /* within the budget, but for the first ranked, brc beside a bet on CCOO's padding and the safety net: segsum, or
       dcsr where at least half of its tiles take 16-bit columns */
    const int  net  = o.dcsr && s.Tile16Fraction() >= 0.5 ? AUTO_DCSR : AUTO_SEGSUM;
    const bool pair = net == AUTO_DCSR && s.CV() > 1.0 && (!o.deterministic || SpMVAutoDeterministic(AUTO_SEGSUM, s, o)); /* heavy-tailed rows: segsum beside dcsr */
    Check(p->ntime <= 4 + pair || p->expected <= o.budget, "plan %s expected %g over the budget %g", Names(p->time, p->ntime).c_str(), p->expected, (double)o.budget);
    Check(std::find(p->time, p->time + p->ntime, net) != p->time + p->ntime, "plan %s without the %s safety net", Names(p->time, p->ntime).c_str(), SpMVAutoNames[net]);
    if (pair) Check(p->time[p->ntime - 1] == AUTO_SEGSUM, "plan %s: heavy-tailed rows (cv %.2f), segsum not timed last beside dcsr", Names(p->time, p->ntime).c_str(), s.CV());
    else Check(std::find(p->time, p->time + p->ntime, net == AUTO_DCSR ? AUTO_SEGSUM : AUTO_DCSR) == p->time + p->ntime, "plan %s times both segsum and dcsr", Names(p->time, p->ntime).c_str());
    Check(p->host == p->rank[0], "host %d is not the first ranked", p->host);
  }
  Check(std::find(p->rank, p->rank + p->nrank, AUTO_SURAA) == p->rank + p->nrank, "suraa ranked");
  return p->host;
}

static PetscErrorCode TestRule(Rng &rng)
{
  const int       before = g_failures;
  SpMVAutoOptions o;
  SpMVAutoPlan    p;
  struct Family {
    const char *name;
    Csr         A;
    int         expect;
    int         ntime; /* GPU plan length with the default budget */
  };
  std::vector<Family> fam;

  PetscFunctionBegin;
  fam.push_back({"7-point stencil", Stencil(24, 7, false, rng), AUTO_CCOO, 4});
  /* the default budget (45) times the first two ranked formats and the segsum net; with a value table CCOO's build
     (20) leaves room for the net only */
  fam.push_back({"27-point stencil", Stencil(16, 27, false, rng), AUTO_BRC, 4});
  fam.push_back({"27-point constant", Stencil(16, 27, true, rng), AUTO_CCOO, 3});
  fam.push_back({"power law", PowerLaw(150000, rng), AUTO_BRC, 5}); /* heavy-tailed: segsum beside dcsr */
  fam.push_back({"dense rows", DenseRows(150000, 6, 20000, 6, rng), AUTO_ARGCSR, 4});
  /* mean 22-28 (it varies with the seed), std about 5x the mean: segsum's tiles (dcsr's) whatever the mean, never
     argcsr's 16-bit promotion (rows of similar length only); at about twice the mean (40-50, std 4x) CCOO's bytes
     (about 0.91 of the CSR floor's) put it first, and still not argcsr */
  fam.push_back({"irregular local", IrregularLocal(40000, rng), AUTO_SEGSUM, 5});
#if defined(PETSC_USE_COMPLEX)
  fam.push_back({"irregular local x2", IrregularLocal(40000, rng, 4.0), AUTO_SEGSUM, 4});
#else
  fam.push_back({"irregular local x2", IrregularLocal(40000, rng, 4.0), AUTO_CCOO, 5});
#endif
#if defined(PETSC_USE_COMPLEX)
  fam.push_back({"long local rows", LongLocal(40000, rng), AUTO_CCOO, 4});
#else /* rows of ~49 in 16-bit windows: argcsr's 16-bit offsets first, ccoo (promoted by its bytes) still timed */
  fam.push_back({"long local rows", LongLocal(40000, rng), AUTO_ARGCSR, 4});
#endif
  for (const Family &f : fam) {
    SpMVAutoStats st;
    g_context = f.name;
    const int h    = PlanFor(f.A, o, &p, &st);
    const int want = f.expect == AUTO_SEGSUM && o.dcsr && st.Tile16Fraction() >= 0.5 ? AUTO_DCSR : f.expect; /* dcsr in segsum's place */
    Check(h == want, "chose %s, expected %s (%s; mean %.2f cv %.2f max %lld, 16-bit windows %.2f, cover %.2f, long rows %.4f)", h >= 0 ? SpMVAutoNames[h] : "?", SpMVAutoNames[want], p.why, st.Mean(), st.CV(), (long long)st.maxlen, st.Col16Fraction(), st.ValueCover(), st.LongRowFraction());
    Check(p.ntime == f.ntime, "GPU plan %s, expected %d candidates", Names(p.time, p.ntime).c_str(), f.ntime);
    if (!std::strcmp(f.name, "long local rows")) Check(std::find(p.time, p.time + p.ntime, AUTO_CCOO) != p.time + p.ntime, "ccoo, the fastest before argcsr's 16-bit offsets, is not timed: %s", Names(p.time, p.ntime).c_str());
    std::printf("  %-18s -> %-6s GPU times %-20s expected %5.1f cuSPARSE products; ccoo bytes %.3f of csr; %s\n", f.name, h >= 0 ? SpMVAutoNames[h] : "?", Names(p.time, p.ntime).c_str(), p.expected, SpMVAutoCCOOBytesRatio(st), p.why);
  }
  { /* -mat_spmv_dcsr 0: segsum back in dcsr's place (rank, net) where the tiles are narrow, and the plans keep their length */
    SpMVAutoOptions od;
    od.dcsr = PETSC_FALSE;
    for (const Family &f : fam) {
      SpMVAutoStats st;
      SpMVAutoPlan  q;
      g_context   = f.name;
      const int h = PlanFor(f.A, od, &q, &st);
      PlanFor(f.A, o, &p);
      const bool narrow = st.Tile16Fraction() >= 0.5;
      Check(h == f.expect, "-mat_spmv_dcsr 0: chose %s (tiles narrow: %.2f)", h >= 0 ? SpMVAutoNames[h] : "?", st.Tile16Fraction());
      Check(std::find(q.time, q.time + q.ntime, AUTO_DCSR) == q.time + q.ntime, "-mat_spmv_dcsr 0: plan %s times dcsr", Names(q.time, q.ntime).c_str());
      if (narrow && st.CV() > 1.0) continue; /* heavy-tailed rows: with dcsr the plan also times segsum, outside the budget */
      Check(q.ntime == p.ntime, "-mat_spmv_dcsr 0: plan %s, with it %s", Names(q.time, q.ntime).c_str(), Names(p.time, p.ntime).c_str());
      for (int k = 0; k < p.ntime; k++) Check(q.time[k] == (narrow && p.time[k] == AUTO_DCSR ? AUTO_SEGSUM : p.time[k]), "-mat_spmv_dcsr 0: plan %s, with it %s", Names(q.time, q.ntime).c_str(), Names(p.time, p.ntime).c_str());
    }
  }
  ReportGroup("3 rule", before, "stencils, constant values, power law, dense rows, irregular and long local rows; csr + >= 1 format within the budget");

  /* --- 4. options --- */
  const int before4 = g_failures;
  const Csr &st7 = fam[0].A, &dense = fam[4].A, &pl = fam[3].A;
  g_context      = "budget";
  o.budget       = 0;
  PlanFor(fam[3].A, o, &p); /* the power law: heavy-tailed rows in narrow tiles, segsum timed beside the dcsr net */
  Check(p.ntime == 4 && p.time[p.ntime - 1] == AUTO_SEGSUM, "budget 0 (csr, the first ranked, the dcsr safety net, segsum beside it): %s", Names(p.time, p.ntime).c_str());
  o.budget = 1000;
  PlanFor(fam[3].A, o, &p);
  Check(p.ntime == 2 + p.nrank, "large budget: %s of %s and segsum", Names(p.time, p.ntime).c_str(), Names(p.rank, p.nrank).c_str());
  o = SpMVAutoOptions();

  g_context = "candidates";
  o.allowed = 1u << AUTO_BRC;
  Check(PlanFor(st7, o, &p) == AUTO_BRC && p.ntime == 1 && p.time[0] == AUTO_BRC, "-mat_spmv_candidates brc: %s", Names(p.time, p.ntime).c_str());
  o.allowed = 1u << AUTO_CSR;
  Check(PlanFor(st7, o, &p) == AUTO_CSR && p.ntime == 1, "-mat_spmv_candidates csr");
  o.allowed = 1u << AUTO_SEGSUM | 1u << AUTO_ARGCSR;
  Check(PlanFor(st7, o, &p) == AUTO_ARGCSR && Names(p.time, p.ntime) == "argcsr,segsum", "segsum,argcsr on the 7-point stencil: host %s, times %s", SpMVAutoNames[p.host], Names(p.time, p.ntime).c_str());
  o.allowed = 1u << AUTO_SURAA | 1u << AUTO_CSR;
  Check(PlanFor(st7, o, &p) == AUTO_SURAA && Names(p.time, p.ntime) == "csr,suraa", "suraa,csr: host %s, times %s", SpMVAutoNames[p.host], Names(p.time, p.ntime).c_str());
  o = SpMVAutoOptions();

  g_context       = "deterministic";
  o.deterministic = PETSC_TRUE;
  { /* ccoo is not deterministic: its runner-up on the bet, brc (rows of 7: no row split) */
    const int h = PlanFor(st7, o, &p);
    Check(h == AUTO_BRC && std::find(p.rank, p.rank + p.nrank, AUTO_CCOO) == p.rank + p.nrank, "7-point stencil: %s, ranked %s (ccoo is not deterministic)", h >= 0 ? SpMVAutoNames[h] : "?", Names(p.rank, p.nrank).c_str());
  }
  Check(PlanFor(dense, o, &p) == AUTO_ARGCSR && std::find(p.rank, p.rank + p.nrank, AUTO_BRC) == p.rank + p.nrank, "dense rows: brc splits them, ranked %s", Names(p.rank, p.nrank).c_str());
  Check(PlanFor(pl, o, &p) != AUTO_BRC, "power law: brc splits its rows");
  {
    SpMVAutoStats s;
    PetscCall(SpMVAutoStatsHost(pl.View(), &s));
    o.brc.width_max = (PetscInt)s.maxlen; /* rows up to the cap stay whole: brc deterministic again */
    Check(PlanFor(pl, o, &p) == AUTO_BRC, "power law, -mat_brc_width_max %lld: %s", (long long)s.maxlen, SpMVAutoNames[p.host]);
    o.brc.width = 32; /* an explicit width below the longest row splits again */
    Check(PlanFor(pl, o, &p) != AUTO_BRC, "power law, -mat_brc_width 32 splits");
  }
  o = SpMVAutoOptions();

  g_context = "errors";
  {
    SpMVAutoStats  s;
    PetscErrorCode ierr;
    int            id;
    PetscCall(SpMVAutoStatsHost(st7.View(), &s));
    o.deterministic = PETSC_TRUE;
    o.allowed       = 1u << AUTO_CCOO;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
    ierr = SpMVAutoRank(s, o, &p);
    Check(ierr == PETSC_ERR_ARG_INCOMP, "deterministic with only ccoo: error %d", (int)ierr);
    ierr = SpMVAutoFindName("spmv", &id);
    Check(ierr == PETSC_ERR_ARG_UNKNOWN_TYPE, "unknown name: error %d", (int)ierr);
    ierr = SpMVAutoFindName("CCOO", &id);
    Check(!ierr && id == AUTO_CCOO, "names are case-insensitive");
    PetscCall(PetscPopErrorHandler());
  }
  ReportGroup("4 options", before4, "budget 0 / large, candidate lists, deterministic (no ccoo, brc only unsplit), errors");
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  seed;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, "Automatic format (spmv) host unit tests; -seed N reruns a random sequence"));
  seed = (PetscInt)(std::chrono::system_clock::now().time_since_epoch().count() % 2147483647);
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-seed", &seed, &set));
  std::printf("test_auto_host: seed %" PetscInt_FMT " (rerun with -seed %" PetscInt_FMT ")\n", seed, seed);
  Rng rng((uint64_t)seed);
  PetscCall(TestStats(rng));
  PetscCall(TestFingerprint(rng));
  PetscCall(TestRule(rng));
  if (g_failures) std::printf("test_auto_host: %d checks FAILED (seed %" PetscInt_FMT ")\n", g_failures, seed);
  else std::printf("test_auto_host: all checks passed\n");
  std::fflush(stdout);
  PetscCall(PetscFinalize());
  return g_failures ? 1 : 0;
}
