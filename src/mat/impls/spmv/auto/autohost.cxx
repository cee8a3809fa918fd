/*
   The automatic format's host side: the row statistics of a host CSR (the reference of the device kernels
   in auto.cu: the same integers come out) and the rule that ranks the formats from them.
*/
#include "auto.h"
#include "../ccoo/ccoo.h"
#include "../argcsr/argcsr.h"
#include <petscviewer.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

const char *const SpMVAutoNames[AUTO_N] = {"csr", "brc", "ccoo", "argcsr", "segsum", "suraa", "dcsr"};

PetscErrorCode SpMVAutoFindName(const char *name, int *id)
{
  PetscFunctionBegin;
  *id = -1;
  for (int k = 0; k < AUTO_N; k++) {
    PetscBool same;
    PetscCall(PetscStrcasecmp(name, SpMVAutoNames[k], &same));
    if (same) *id = k;
  }
  PetscCheck(*id >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown format \"%s\" for the automatic type spmv: use csr, brc, ccoo, argcsr, segsum, suraa or dcsr", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

double SpMVAutoStats::Std() const
{
  const int64_t ne = m - nempty;
  if (ne <= 0) return 0.0;
  const double mu = (double)nnz / (double)ne, var = (double)sumsq / (double)ne - mu * mu;
  return var > 0 ? std::sqrt(var) : 0.0;
}

int64_t SpMVAutoSampleCover(const PetscScalar *v, int64_t n, int64_t *nvalued)
{
  std::vector<CCOOKey> bits; /* a double's 64 bits; complex: the 128 of both parts, as CCOO's table */
  std::vector<int64_t> counts;
  for (int64_t k = 0; k < n; k++) {
    if (v[k] == 0.0) continue; /* complex: both parts 0 (or -0) */
    bits.push_back(CCOOBits(v[k]));
  }
  std::sort(bits.begin(), bits.end());
  *nvalued = (int64_t)bits.size();
  n        = *nvalued;
  for (int64_t k = 0; k < n;) {
    int64_t e = k;
    while (e < n && bits[(std::size_t)e] == bits[(std::size_t)k]) e++;
    counts.push_back(e - k);
    k = e;
  }
  std::sort(counts.begin(), counts.end(), std::greater<int64_t>());
  int64_t cover = 0;
  for (std::size_t k = 0; k < counts.size() && k < (std::size_t)kAutoTable; k++) cover += counts[k];
  return cover;
}

PetscErrorCode SpMVAutoStatsHost(const SpMVHostCsr &A, SpMVAutoStats *st)
{
  PetscFunctionBegin;
  *st     = SpMVAutoStats();
  st->m   = A.m;
  st->n   = A.n;
  st->nnz = A.nnz;
  for (PetscInt r = 0; r < A.m; r++) {
    const int64_t len = (int64_t)(A.i[r + 1] - A.i[r]);
    if (!len) st->nempty++;
    st->maxlen = std::max(st->maxlen, len);
    st->sumsq += (uint64_t)len * (uint64_t)len;
    if (len > kAutoLongRow) {
      st->nlong++;
      st->nnzlong += len;
    }
    st->hash += SpMVAutoMix((uint64_t)r, (uint64_t)A.i[r + 1], kAutoSaltRow);
    for (int e = 0; e < 5; e++) st->slots_k[e] += len ? (len + (1 << e) - 1) >> e : 1;
    if (len && (int64_t)A.j[A.i[r + 1] - 1] - A.j[A.i[r]] > CCOO_WIDE_SPAN) st->wide += len;
  }
  st->nwin = (A.nnz + kAutoWindow - 1) / kAutoWindow;
  for (int64_t w = 0; w < st->nwin; w++) {
    const int64_t e = std::min<int64_t>((w + 1) * kAutoWindow, A.nnz);
    int64_t       lo = A.j[w * kAutoWindow], hi = lo;
    for (int64_t k = w * kAutoWindow; k < e; k++) {
      lo = std::min<int64_t>(lo, A.j[k]);
      hi = std::max<int64_t>(hi, A.j[k]);
      st->hash += SpMVAutoMix((uint64_t)k, (uint64_t)A.j[k], kAutoSaltCol);
    }
    st->winspan += (uint64_t)(hi - lo);
    st->nwin16 += hi - lo <= kAutoSpan16;
  }
  for (int64_t t = 0; t < st->NTiles(); t++) { /* dcsr's tiles */
    const int64_t e = std::min<int64_t>((t + 1) * kAutoTile16, A.nnz);
    int64_t       lo = A.j[t * kAutoTile16], hi = lo;
    for (int64_t k = t * kAutoTile16; k < e; k++) lo = std::min<int64_t>(lo, A.j[k]), hi = std::max<int64_t>(hi, A.j[k]);
    st->ntile16 += hi - lo <= kAutoTileSpan;
  }
  st->hash += SpMVAutoMix((uint64_t)A.m, (uint64_t)A.n, kAutoSaltShape);
  st->nsample = std::min<int64_t>(kAutoSample, A.nnz);
  std::vector<PetscScalar> v((std::size_t)st->nsample);
  for (int64_t k = 0; k < st->nsample; k++) v[(std::size_t)k] = A.a[SpMVAutoSamplePos(k, A.nnz, st->nsample)];
  st->ncover = SpMVAutoSampleCover(v.data(), st->nsample, &st->nvalued);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* vs = sizeof(PetscScalar) bytes a value, in the matrix and in x and y: 8, or 16 with complex scalars. There CCOO's
   16-bit column offsets save 2 of CSR's 20 bytes a nonzero (2 of 12 in real), while each padded entry costs 18
   bytes (10 in real): its lead without a table is about half as large and its padding costs more, so fewer
   matrices fall under the ratios of the rule (the 7-point stencil: 0.94 in real, about 1.0 in complex); the value
   table (the first branch of the rule, from the sample's cover) saves 15 of 16 bytes a value instead of 7 of 8. */
double SpMVAutoCCOOBytesRatio(const SpMVAutoStats &st)
{
  CCOOStats    c;
  PetscInt     K   = 1;
  const double vs  = (double)sizeof(PetscScalar);
  const double csr = SpMVAutoCSRBytes(st.m, st.n, st.nnz);

  if (!st.nnz || !st.m) return 1.0;
  c.m    = (PetscInt)st.m;
  c.n    = (PetscInt)st.n;
  c.nnz  = st.nnz;
  c.wide = st.wide;
  std::copy(st.slots_k, st.slots_k + 5, c.slots_k);
  if (CCOOChooseK(CCOOOptions(), c, &K)) return 1.0;
  const double slots = (double)st.slots_k[CCOOKIndex(K)], stored = slots * (double)K, col16 = st.Col16Fraction();
  const double ccoo  = stored * (2.0 * col16 + 4.0 * (1.0 - col16) + vs) + slots + 17.0 * std::ceil(slots / 256.0) + vs * (double)st.n + vs * (double)st.m;
  return ccoo / csr;
}

double SpMVAutoDCSRBytesRatio(const SpMVAutoStats &st)
{
  if (!st.nnz) return 1.0;
  const double nt = (double)st.NTiles(), n16 = (double)st.ntile16, rows = 4.0 * (double)(st.m + 1), vs = (double)sizeof(PetscScalar);
  const double dcsr = vs * (double)st.nnz + (double)kAutoTile16 * (2.0 * n16 + 4.0 * (nt - n16)) + 8.0 * nt + rows; /* + a base and a boundary a tile */
  return dcsr / ((4.0 + vs) * (double)st.nnz + rows);
}

bool SpMVAutoBRCSplits(const SpMVAutoStats &st, const SpMVAutoOptions &o)
{
  const int64_t s[3] = {st.nnz, (int64_t)st.sumsq, st.maxlen};
  BRCStats      b;
  if (BRCComputeStats(o.brc, (PetscInt)st.m, s, (PetscInt)(st.m - st.nempty), &b)) return true;
  return st.maxlen > b.B2;
}

/* Bitwise reproducible products run to run on the GPU: ARgCSR (fixed shuffle trees, long rows combined by a
   second kernel in a fixed order), segsum (fixed-order fix-up, no atomics), SURAA (long rows: chunk sums added
   by one warp in a fixed order), csr (cuSPARSE CSR_ALG2, documented as deterministic; ALG1 is not, so the
   deterministic mode runs ALG2), BRC only when no row is split (split rows are combined with FP64 atomics).
   CCOO combines rows that cross a chunk with atomics: never. */
bool SpMVAutoDeterministic(int id, const SpMVAutoStats &st, const SpMVAutoOptions &o)
{
  switch (id) {
  case AUTO_CCOO:
    return false;
  case AUTO_BRC:
    return !SpMVAutoBRCSplits(st, o);
  default:
    return true;
  }
}

/*
   THE RULE. Every kernel here is memory-bound: its time is the bytes it streams (matrix, x gathers, y) over
   the bandwidth it reaches, and the bandwidth it reaches falls with load imbalance (a few warps left with
   long rows) and with lost x locality. The branches below say which format moves the fewest bytes or keeps
   the best balance for the kind of matrix the statistics describe; the numbers quoted are the H200
   benchmark (README table, bench/results/spmv-20261123-141225.csv, layout-stats-20261123.txt), speedups
   over cuSPARSE. Ranks are preferences, not verdicts: on the GPU the timing decides among csr and the
   formats ranked first; on the host the first ranked one is taken.
*/
namespace {
constexpr double kRepeatCover  = 0.9;  /* values repeat: CCOO's table would hold >= 90% of them */
constexpr double kLocalColumns = 0.9;  /* >= 90% of the 2048-nonzero windows span <= 65534 columns */
constexpr double kShortRows    = 12;   /* mean row length at most this: per-row costs weigh */
constexpr double kUniformCV    = 0.5;  /* rows this uniform pad little to a multiple of K */
constexpr double kRegularCV    = 1.0;  /* beyond: irregular, even without long rows */
constexpr double kFewEmpty     = 0.1;  /* CCOO stores a slot per empty row */
constexpr double kPowerLaw     = 0.01; /* long rows (> 64) are at least 1% of the rows: a power law, not a few huge rows */
constexpr double kSureBytes    = 0.95; /* CCOO streams 5% fewer bytes than the CSR floor: no brc beside it */
constexpr double kComplexSure  = 0.9;  /* complex scalars: CCOO first below, timed beside the first up to kComplexNever */
constexpr double kComplexNever = 1.1;
constexpr double kDCSRFit      = 0.5;  /* dcsr replaces segsum where at least half its tiles take 16-bit columns */

/* Expected cost of timing one candidate, in cuSPARSE products of the same matrix: its build plus 1 + trials
   products (each at most about one cuSPARSE product). The builds: medians over two H100 runs of the nine unseen
   matrices (bench/results/spmv-unseen-h100-20261125-*.csv, commits 2d5053f and 0f09223, after device memory came
   from the library's pool) of MatSpMVBuild / aijcusparse MatMult of each type alone: brc 7.6-18.5 (median 11.8),
   argcsr 8.1-21.4 (13.0), segsum 1.4-5.7 (2.6), ccoo without a value table 7.2-16.7 (11.7); csr only makes
   descriptors and a buffer; suraa (never ranked) from the older run spmv-20261123-141225.csv. Before the pool
   cudaMalloc/cudaFree took 50-380 us each and the builds 15-40% more. dcsr: segsum's build plus one pass over the
   columns that writes the 16-bit offsets (6 bytes a nonzero, about half a product): 3.2, an estimate. */
constexpr double kBuildCost[AUTO_N] = {0.5, 11.8, 20.0, 13.0, 2.6, 13.3, 3.2};
constexpr double kStatsCost         = 1.0; /* the statistics: one pass over the row offsets and the columns */
/* CCOO builds its value table only where the sampled values repeat (CCOOTableBuilt: the table's values cover
   at least 1/CCOO_COVER_DIV of the sample); the 20.0 above is a build with the table (constant 27-point stencil
   21.4, cage11 16.0 at 0f09223), found from the sample's candidates counted in one pass over the values
   instead of a sort of all the nonzeros (30-72 MatMults with the sort). */
constexpr double kCCOOPlainCost = 11.7;
/* The builds and the statistics read and sort indices: their time does not grow with the value's size, a product's
   does (4 + sizeof(PetscScalar) bytes a nonzero), so in units of a product they cost 12/20 as much with complex
   scalars. H100, commit 1e7c1c8 (bench/results/complex-h100-20261126-1e7c1c8.csv): brc 7.8-10.2, ccoo 9.1-10.2,
   argcsr 10.2-12.7, segsum 1.3-2.1 complex products, against 7.1, 7.0, 7.8 and 1.6 from the constants so scaled;
   unscaled, the plan left ccoo out of the budget on the matrices where it was the fastest. */
constexpr double kValueScale = 12.0 / (4.0 + (double)sizeof(PetscScalar));
double           BuildCost(int id, bool table) { return kValueScale * (id == AUTO_CCOO && !table ? kCCOOPlainCost : kBuildCost[id]); }

bool TableBuilt(const SpMVAutoStats &st) { return st.ValueCover() * (double)CCOO_COVER_DIV >= 1.0; } /* CCOO would build its value table (its own sample decides, at the same positions) */
} // namespace

double SpMVAutoStatsCost(void) { return kValueScale * kStatsCost; }
double SpMVAutoCandidateCost(int id, const SpMVAutoStats &st, const SpMVAutoOptions &o) { return BuildCost(id, TableBuilt(st)) + (double)(1 + o.trials); }

namespace {
void Push(int *list, int *n, int id)
{
  for (int k = 0; k < *n; k++)
    if (list[k] == id) return;
  list[(*n)++] = id;
}
} // namespace

PetscErrorCode SpMVAutoRank(const SpMVAutoStats &st, const SpMVAutoOptions &o, SpMVAutoPlan *p)
{
  const double mean = st.Mean(), cv = st.CV(), empty = st.EmptyFraction(), col16 = st.Col16Fraction(), cover = st.ValueCover();
  const bool   regular = st.maxlen <= kAutoLongRow && cv <= kRegularCV, local = col16 >= kLocalColumns;
  int          order[AUTO_N], n = 0;
  const char  *why;
  bool         bet = false; /* the first ranked is a bet on a padding estimate: time the runner-up CSR-order format too */
  const double ccoobytes = SpMVAutoCCOOBytesRatio(st); /* CCOO's bytes over the CSR floor's, without a table */
  bool         promoted  = false; /* CCOO moved to the front by its bytes (below) */
  const bool   table     = TableBuilt(st);
  /* Complex scalars (16-byte values): the same rule. The value-table branch weighs more there (a 1-byte index saves 15
     of 16 bytes a value), the column offsets less: SpMVAutoCCOOBytesRatio counts 16-byte values, so the short-uniform
     branch and the promotion below take fewer matrices (the 7-point stencil with random phases: ratio about 1.01,
     against 0.94 in real: it goes to the next branch, brc first; measured before CCOO was ported, at commit 9c1221c,
     H100, bench/results/complex-h100-20261125.csv, brc was the fastest there, argcsr 0.971x of it). */

  PetscFunctionBegin;
  *p = SpMVAutoPlan();
  if (cover >= kRepeatCover && empty <= kFewEmpty) {
    /* CCOO stores a 1-byte index into a table of the 256 most frequent values instead of an 8-byte value,
       and 8-16-bit column offsets: 3-6 bytes a nonzero against CSR's 12 + 20/mean, less than half the bytes
       any CSR kernel streams (cage11 1.61x, constant 27-point stencil 1.76x, both under the CSR copy floor;
       the others 1.36-1.42x). Nothing else compresses values. */
    why      = "the values repeat (CCOO's value table covers them): ccoo streams the fewest bytes";
    order[n++] = AUTO_CCOO, order[n++] = AUTO_BRC, order[n++] = AUTO_ARGCSR, order[n++] = AUTO_SEGSUM;
  } else if (regular && local && mean <= kShortRows && cv <= kUniformCV && empty <= kFewEmpty && ccoobytes < 1.0) {
    /* With 8-byte values CCOO saves only the column bytes (16-bit offsets: 12 -> 10 bytes a nonzero) and gives
       them back as padding when rows are padded to a multiple of K: it wins only where rows are uniform (little
       padding) and short, where CSR-order kernels pay most per row (a row offset, a y store and a reduction
       for every <= 12 products) while CCOO gives a thread K entries of one row without row offsets: 7-point
       stencil 1.74x vs ARgCSR 1.57x, delaunay 1.40x vs segsum 1.33x. At 22-27 entries a row (nasa4704, the
       27-point stencil with random values) the 20-24% padding costs more and BRC wins (1.29x, 1.38x vs
       1.24x, 1.25x): that is the next branch. */
    why      = "short uniform rows in 16-bit column windows: ccoo saves the column bytes at little padding";
    order[n++] = AUTO_CCOO, order[n++] = AUTO_ARGCSR, order[n++] = AUTO_BRC, order[n++] = AUTO_SEGSUM;
    /* ... but only if the rows pad little to CCOO's K, which the mean and std do not tell: measured on an H100,
       CCOO won on the 7-point stencil (1.16x over the next) and lost on delaunay (brc 4% faster), a random
       geometric graph (segsum 6%) and a bandwidth-4 band (9 a row: brc 17%). The statistics now count CCOO's
       slots for every K, so its padding and bytes are known without building it (SpMVAutoCCOOBytesRatio):
       this branch takes only matrices where CCOO streams fewer bytes than the CSR floor (stencil7 n=150 0.94;
       delaunay 1.09 goes to the next branch: it streams more than any CSR kernel, so it cannot win, and its
       build is 37 MatMults). Within 5% of the floor the bytes do not decide (at 0.96-1.0 of the CSR bytes
       CCOO ran 2-3% behind the best CSR-order format: dense rows, vsp, the random 27-point stencil), so brc is
       timed beside it there; below, CCOO's byte lead exceeds what the CSR-order kernels gain in bandwidth
       (they reach 91-96% of the copy bandwidth) and segsum, the safety net, is enough. */
    bet = ccoobytes > kSureBytes;
  } else if (regular) {
    /* Rows of similar length (none longer than 64): every row-based kernel is balanced, so the bytes decide.
       BRC stores length-sorted rows in 32-row blocks padded only to the block's longest row (0.1-3%) and
       loads each block column with one coalesced warp access: 91-96% of the copy bandwidth on cage11,
       nasa4704 and the stencils, the best of the library there. ARgCSR pads a group of consecutive rows to
       its longest (15% on cage11): 3-10% slower, but it is the runner-up on uniform rows. segsum's per-tile
       segmented scan balances what needs no balancing: the slowest of the four at 14-27 entries a row, but
       level with BRC on short rows (delaunay 1.33x vs 1.32x), where BRC's blocks carry more row overhead. */
    why      = mean <= kShortRows ? "regular short rows: brc's sorted blocks, segsum next" : "regular rows: brc's sorted 32-row blocks pad least";
    order[n++] = AUTO_BRC;
    if (mean <= kShortRows) order[n++] = AUTO_SEGSUM;
    order[n++] = AUTO_ARGCSR;
    if (local) order[n++] = AUTO_CCOO;
  } else if (local) {
    /* Irregular rows (rows longer than 64, or std > mean) whose columns stay within 16-bit windows: x gathers
       hit the cache, so the time is streaming the matrix at the balance the kernel keeps. segsum cuts the
       nonzeros into equal tiles whatever the row lengths and keeps CSR order (x locality): vsp 1.10x. BRC
       cuts long rows into 64-entry pieces added with atomics and its length sort moves rows apart (0.93x);
       ARgCSR gives long rows groups of their own (1.00x); CCOO pads short rows and crosses chunks (1.03x). */
    why      = "irregular rows, local columns: segsum's equal tiles balance them in CSR order";
    order[n++] = AUTO_SEGSUM, order[n++] = AUTO_ARGCSR, order[n++] = AUTO_CCOO, order[n++] = AUTO_BRC;
  } else if (st.LongRowFraction() >= kPowerLaw) {
    /* Irregular rows, columns anywhere (32-bit offsets: CCOO saves nothing), many long rows (a power law):
       the x gathers go to L2 and every CSR-order kernel is within 1.2x of the gather floor. BRC's length sort
       gives each warp 32 rows of similar length and spreads the long rows' 64-entry pieces over many warps:
       R-MAT 1.17x, at the gather floor; ARgCSR 1.06x, segsum 1.03x. */
    why      = "power-law rows, columns anywhere: brc's sorted blocks and 64-wide pieces balance the warps";
    order[n++] = AUTO_BRC, order[n++] = AUTO_ARGCSR, order[n++] = AUTO_SEGSUM;
  } else {
    /* Irregular rows, columns anywhere, and only a few (< 1% of the rows) long ones: each long row is
       thousands of BRC pieces adding into the same y entry with atomics (16 rows of 10^5: 0.93x), while
       ARgCSR gives each long row groups of its own and sums their pieces in a second kernel in a fixed
       order: 1.07x (dense rows), segsum 1.01x. */
    why      = "a few very long rows, columns anywhere: argcsr's own groups for long rows, no atomics";
    order[n++] = AUTO_ARGCSR, order[n++] = AUTO_BRC, order[n++] = AUTO_SEGSUM;
  }
  /* CCOO by its bytes, whatever the row shape (its chunks of equal size balance any row lengths, long rows
     included; SpMVAutoCCOOBytesRatio counts its padding from the slot counts):
     - where, without a value table, it streams at least 5% fewer bytes than the CSR floor, its byte lead
       exceeds what any CSR-order kernel gains in bandwidth (they reach 91-96% of the copy bandwidth), so it
       is ranked first and timed. The short-uniform branch already does so; the others rank by the row shape
       and left it outside the budget. H100, bcsstk13 kron 256 (42 a row, rows up to 95: the irregular-local
       branch; ratio 0.917): ccoo 85.6 us, segsum 98.1, argcsr 98.4, brc 101.5.
     - where, without a table, it streams as many bytes as the CSR floor or more, it cannot win: it ran 2-3%
       behind the best CSR-order format at 0.96-1.0 (dense rows, vsp, the random 27-point stencil) and 4%
       behind at 1.09 (delaunay); it is not ranked, so that the budget, now that its build without a table
       is cheap, does not spend it on CCOO. */
  {
    int k = 0;
    while (k < n && order[k] != AUTO_CCOO) k++;
#if defined(PETSC_USE_COMPLEX)
    /* With 16-byte values the bytes do not decide near the CSR floor's: on the H100 (commit 6c7fd95,
       bench/results/complex-h100-20261126-6c7fd95.csv, random phases, no table) CCOO won at 1.02 of the CSR bytes (7-point
       stencil: 187 us against brc's 201), 0.97 (nasa4704: 310 against 329) and 0.99 (cage11: 284 against 288) and
       lost at 0.95 (27-point stencil: 368 against 343) and 1.17 (delaunay: 504 against 463): its work per row (no row
       offsets, K entries a thread) weighs as much as its bytes there. So within 10% of the floor it is timed beside
       the first ranked format, below that it is ranked first, above not at all. */
    if (k < n && k > 0 && local && !table && ccoobytes > kComplexNever) {
      for (; k + 1 < n; k++) order[k] = order[k + 1];
      n--;
    } else if (k < n && k > 0 && local && !table) {
      const int c = order[k], to = ccoobytes < kComplexSure ? 0 : 1;
      for (; k > to; k--) order[k] = order[k - 1];
      order[to] = c;
      promoted  = to == 0;
    }
#else
    if (k < n && k > 0 && local && ccoobytes < kSureBytes) {
      for (; k > 0; k--) order[k] = order[k - 1];
      order[0] = AUTO_CCOO;
      promoted = true;
    } else if (k < n && k > 0 && !table && ccoobytes >= 1.0) {
      for (; k + 1 < n; k++) order[k] = order[k + 1];
      n--;
    }
#endif
  }
  /* the bet: brc, the runner-up beside CCOO at 0.95-1.0 of the CSR bytes, comes second */
  if (bet) {
    int k = 0;
    while (k < n && order[k] != AUTO_BRC) k++;
    if (k < n)
      for (; k > 1; k--) std::swap(order[k], order[k - 1]);
  }
  /* SURAA is never ranked: it was the fastest on none of the nine benchmark matrices (0.53-1.34x, behind BRC
     or CCOO on every one): its global sort by length breaks x locality and its three kernel groups cost
     launches. It runs when asked for (-mat_spmv_format, -mat_spmv_candidates). */
  /* dcsr is segsum's balance over 16-bit column offsets (a tile whose columns span more keeps the CSR's 32-bit
     columns): the same order of operations, 2 bytes a nonzero fewer in every narrow tile. Where at least half of its
     tiles are narrow, it takes segsum's place, in the ranking and as the safety net below (so it pushes no other
     candidate out of the budget: the net is reserved at segsum's cost); elsewhere segsum stays (a wide tile costs
     dcsr its base read on top of segsum's bytes). Only where dcsr is allowed (-mat_spmv_candidates without it keeps
     segsum). On by default (-mat_spmv_dcsr) since dcsr's own kernel (13cae5c) runs 1.06-1.17x segsum on narrow
     tiles; measured in one run on the H100 (6a0be22, bench/results/spmv-dcsr-default-h100-20261126-6a0be22.*, 15
     matrices): spmv 1.354x aijcusparse in geometric mean against 1.293x without, its worst 0.990x the fastest type
     against 0.878x (without it, dcsr was the fastest type on 9 of the 15 and spmv never timed it).
     Earlier kernels lost to segsum (bench/results/spmv-dcsr-h100-20261125-*: 12-14% behind on narrow tiles). */
  const bool d16 = o.dcsr && st.Tile16Fraction() >= kDCSRFit && (!o.allowed || (o.allowed >> AUTO_DCSR & 1u));
  const int  net = d16 ? AUTO_DCSR : AUTO_SEGSUM;
  const bool heavy = d16 && cv > kRegularCV; /* heavy-tailed rows: segsum is timed beside dcsr (the plan, below) */
  if (d16)
    for (int k = 0; k < n; k++)
      if (order[k] == AUTO_SEGSUM) order[k] = AUTO_DCSR;
  /* argcsr over 16-bit offsets (argcsr.h, "16-BIT COLUMN OFFSETS"): where its own rule takes them (D >= 16 from 24 nonzeros a
     row, real scalars) and the columns are local, it is timed first, ahead of the branch's order: on the H200
     (bench/results/session41-h200-20261203) it was the fastest type on bcsstk13 kron 256 (63.96 us against ccoo 66.1,
     dcsr 67.7), EX5 kron 64 (53.2 against brc 56.1) and the bands of 81 and 121 (1.10x, 1.01x brc) and 0.92-0.98x brc on
     the 27-point stencils and the band of 49; ranked second its build (18-30 products with the packing) made the clock
     skip it (spmv 0.940x the fastest on EX5, 0.966x on bcsstk13). The formats after it keep their order, so the plan
     times the same set: only where values repeat (CCOO's table, 20+ products to build) it stays behind ccoo.
     Only on rows of similar length (cv <= kRegularCV; the measured ones: 0.04 EX5, 0.54 bcsstk13, ~0 bands and
     stencils): argcsr's D comes from the mean row length, which describes a thread's work only there. On heavy-tailed
     rows (std several times the mean: most rows far shorter than the mean, a few hundreds long) a mean of 24 says
     nothing about the 16-bit batches' fill, and segsum's (dcsr's) equal tiles stay first; argcsr keeps its rank. */
  bool a16 = false;
  if (!table && local && cv <= kRegularCV && ARgCSRWideRows(st.m ? (double)st.nnz / (double)st.m : 0.0)) {
    int k = 0;
    while (k < n && order[k] != AUTO_ARGCSR) k++;
    if (k < n && k > 0) {
      for (; k > 0; k--) order[k] = order[k - 1];
      order[0] = AUTO_ARGCSR;
      a16      = true;
    }
  }
#if defined(PETSC_USE_COMPLEX)
  const char *promotedwhy = "; but ccoo streams < 0.9 of the CSR floor's bytes: ccoo first";
#else
  const char *promotedwhy = "; but ccoo streams < 0.95 of the CSR floor's bytes: ccoo first";
#endif
  PetscCall(PetscSNPrintf(p->why, sizeof(p->why), "%s%s%s%s", why, promoted ? promotedwhy : "", heavy ? "; dcsr's 16-bit columns in place of segsum, segsum timed beside it (rows heavy-tailed)" : d16 ? "; dcsr's 16-bit columns in place of segsum" : "", a16 ? "; similar rows of 24+ in 16-bit windows: argcsr's 16-bit offsets first" : ""));

  auto usable = [&](int id) { return (!o.allowed || (o.allowed >> id & 1u)) && (!o.deterministic || SpMVAutoDeterministic(id, st, o)); };
  for (int k = 0; k < n; k++)
    if (usable(order[k])) p->rank[p->nrank++] = order[k];

  /* the host takes the first ranked; with a list that the rule ranks nothing of, the first listed usable */
  const int fallback[AUTO_N] = {AUTO_BRC, AUTO_CCOO, AUTO_ARGCSR, AUTO_SEGSUM, AUTO_DCSR, AUTO_SURAA, AUTO_CSR};
  p->host = p->nrank ? p->rank[0] : -1;
  for (int k = 0; k < AUTO_N && p->host < 0; k++)
    if (o.allowed && usable(fallback[k])) p->host = fallback[k];
  PetscCheck(p->host >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "spmv: no candidate format is left%s", o.deterministic ? " (-mat_spmv_deterministic keeps only argcsr, segsum, suraa, csr, and brc where it splits no row)" : "");

  /* the GPU times: a given list entirely (ranked ones first); else csr, then the ranked formats while the
     expected cost stays within the budget (the first ranked always) */
  const double trial = (double)(1 + o.trials);
  if (o.allowed) {
    if (usable(AUTO_CSR)) Push(p->time, &p->ntime, AUTO_CSR);
    for (int k = 0; k < p->nrank; k++) Push(p->time, &p->ntime, p->rank[k]);
    for (int k = 0; k < AUTO_N; k++)
      if (usable(fallback[k])) Push(p->time, &p->ntime, fallback[k]);
    p->expected = SpMVAutoStatsCost();
    for (int k = 0; k < p->ntime; k++) p->expected += BuildCost(p->time[k], table) + trial;
  } else {
    Push(p->time, &p->ntime, AUTO_CSR);
    p->expected = SpMVAutoStatsCost() + BuildCost(AUTO_CSR, table) + trial;
    /* the budget bounds the whole selection, so the segsum safety net below is reserved in it up front (it is
       timed in any case): a format ranked after the first is timed only if it fits beside csr, the first ranked
       and the net (with CCOO's build cheap without a table, the 7-point stencil's plan would otherwise grow
       from csr, ccoo, segsum to 45 expected products with argcsr) */
    const double netc = usable(net) ? BuildCost(AUTO_SEGSUM, table) + trial : 0.0; /* dcsr's net at segsum's cost, see d16 */
    /* heavy-tailed rows (std above the mean): dcsr in segsum's place is not a sure gain there, so segsum is timed
       beside it, outside the budget as brc beside the bet (reserved, it pushed argcsr out of the power-law plan and
       ccoo out of the irregular-local one; its build is a few small arrays on the CSR, about 7 products with the
       trial). On rows of similar length dcsr ran 0.82-0.86x segsum's time on every such matrix of
       bench/results/session36-h200-20261129/margins.csv; on heavy-tailed ones either may win: vsp (cv 14) 0.956x,
       R-MAT and dense rows 0.98-1.0x, heavy-tailed local rows (mean 25-42, cv 4-5, bench/tools/heavylocal.py; H200,
       bench/results/session42-h200-20261203) 1.05-1.07x, where spmv without segsum ran 0.945-0.953x the fastest type. */
    const bool pair = heavy && usable(AUTO_SEGSUM);
    for (int k = 0; k < p->nrank; k++) {
      const double c = p->rank[k] == net ? netc : BuildCost(p->rank[k], table) + trial;
      const bool   netin = p->rank[k] == net || std::find(p->time, p->time + p->ntime, net) != p->time + p->ntime;
      if (k == 0 || p->expected + c + (netin ? 0.0 : netc) <= o.budget) {
        Push(p->time, &p->ntime, p->rank[k]);
        p->expected += c;
      }
    }
    if (bet && usable(AUTO_BRC) && std::find(p->time, p->time + p->ntime, AUTO_BRC) == p->time + p->ntime) {
      Push(p->time, &p->ntime, AUTO_BRC); /* outside the budget, see the branch */
      p->expected += BuildCost(AUTO_BRC, table) + trial;
    }
    /* the safety net, outside the budget: segsum runs on the CSR arrays themselves (its build is a few small
       arrays, about 4 cuSPARSE products) and balances any row lengths, so it is timed whenever the rule left it
       out; on the H100 it was within 3% of the fastest on 12 of 14 matrices (rgg: the fastest) */
    if (usable(net) && std::find(p->time, p->time + p->ntime, net) == p->time + p->ntime) {
      Push(p->time, &p->ntime, net);
      p->expected += BuildCost(net, table) + trial;
    }
    if (pair) { /* segsum beside dcsr on heavy-tailed rows, outside the budget (above) */
      Push(p->time, &p->ntime, AUTO_SEGSUM);
      p->expected += BuildCost(AUTO_SEGSUM, table) + trial;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SpMVAutoViewStats(PetscViewer v, const SpMVAutoStats &st)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, "spmv: rows %" PetscInt64_FMT " (%" PetscInt64_FMT " empty), columns %" PetscInt64_FMT ", nnz %" PetscInt64_FMT "; non-empty row length mean %.2f std %.2f max %" PetscInt64_FMT "; rows longer than %" PetscInt64_FMT ": %" PetscInt64_FMT " (%.1f%% of the nonzeros)\n", st.m, st.nempty, st.n, st.nnz, st.Mean(), st.Std(), st.maxlen, kAutoLongRow, st.nlong, 100.0 * st.LongNnzFraction()));
  PetscCall(PetscViewerASCIIPrintf(v, "spmv: CCOO without a value table would stream %.3f of the CSR floor's bytes (its K and padding from the slot counts; %" PetscInt64_FMT " nonzeros in rows spanning more than %" PetscInt64_FMT " columns)\n", SpMVAutoCCOOBytesRatio(st), st.wide, (PetscInt64)CCOO_WIDE_SPAN));
  PetscCall(PetscViewerASCIIPrintf(v, "spmv: dcsr: %.1f%% of the %" PetscInt64_FMT "-nonzero tiles span at most %" PetscInt64_FMT " columns (16-bit offsets); it would stream %.3f of the CSR's matrix bytes\n", 100.0 * st.Tile16Fraction(), kAutoTile16, kAutoTileSpan + 1, SpMVAutoDCSRBytesRatio(st)));
  PetscCall(PetscViewerASCIIPrintf(v, "spmv: column spread: %.1f%% of the %" PetscInt64_FMT "-nonzero windows span at most %" PetscInt64_FMT " columns (mean span %.4g); values: the %d most frequent of %" PetscInt64_FMT " sampled nonzero values cover %.1f%%%s\n", 100.0 * st.Col16Fraction(), kAutoWindow, kAutoSpan16, st.nwin ? (double)st.winspan / (double)st.nwin : 0.0, kAutoTable, st.nvalued, 100.0 * st.ValueCover(), 2 * st.nvalued < st.nsample ? " (most sampled values are 0.0: not counted)" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}
