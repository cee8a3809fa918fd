/*
   The automatic format, -mat_type spmv (seqaijspmv / mpiaijspmv): one more format of the library, a
   composite that owns every other format (made through the registry) plus "csr", cuSPARSE's own CSR
   product (cusparseSpMV, CSR_ALG1) run on the device CSR the generic type hands to BuildDevice. At the
   first build of a nonzero pattern it chooses one of them for this matrix and from then on forwards every
   operation of the format contract (spmvformat.h) to the one chosen; the generic type is unchanged.

   HOW IT CHOOSES (the whole selection is logged as the event MatSpMVSelect):
   1. Row statistics of the pattern (integer sums, the same on host and device): row lengths (mean, std,
      max over the non-empty rows, empty rows), CCOO's slots for each K and its wide rows (so its padding is
      known without building it), rows longer than 64 (the rows BRC cuts into pieces), the
      column range of each window of 2048 consecutive nonzeros (does it fit CCOO's 16-bit column offsets?)
      and a sample of 4096 values at CCOO's jittered positions (would CCOO's 256-entry value table cover them?). Also a fingerprint
      of the pattern, so that a rebuild of the same pattern keeps the choice.
   2. The rule (SpMVAutoRank, autohost.cxx) ranks the formats that can win on such a matrix, best first,
      and drops those that cannot (SURAA never ranks: it was never the fastest on any benchmark matrix).
      Why each branch holds is written next to it in autohost.cxx and in the README.
   3. On the GPU: csr is always timed (the type is then never slower than aijcusparse beyond timing
      noise), then the ranked formats in order while the expected cost of the selection stays within a
      budget (-mat_spmv_budget, 45 cuSPARSE products: the first ranked format is always timed); on the clock
      too: once csr is timed, a later candidate is skipped if the time spent plus its scaled estimate would
      pass the budget (Select in auto.cu). Each is
      built, run once (warm-up) and timed over -mat_spmv_trials products with CUDA events on the given
      stream; the median wins. A loser's device memory is released as soon as it has lost.
      Without a GPU (or with the host reference): the first ranked format, no timing. Deterministic.
   4. -mat_spmv_format <fmt> skips all this; -mat_spmv_candidates <list> times exactly the formats listed.
      -mat_spmv_deterministic (reproducible runs) times nothing: the rule's first bitwise reproducible format, on the
      GPU too, after a wait whose length comes from the matrix's size, not from a clock (auto.cu, kModelBytesPerUs).

   WHEN IT CHOOSES. On the GPU a selection costs what about 25-45 cuSPARSE products of the matrix cost plus a fixed part
   (its launches and synchronizations, about 1 ms; the first selection of a process would also load the library's
   kernel modules, about 10 ms on the H100: a thread of its own sets up the device memory pool and loads the modules
   while the matrix waits, and the first due still counts the 10 ms: bench/results/NOTES.md, "Where spmv's selection
   time goes", "Session 24" and "Session 26"). A matrix multiplied fewer times
   than that can never win it back: an interpolation, a coarse level, a short solve, a small matrix whose product is
   a launch. So the selection waits (-mat_spmv_wait P, default 2): until then the matrix runs the parent's own product
   (aijcusparse's MatMult: the same cost, the same results as aijcusparse), and the automatic format counts those
   products and times three of them with CUDA events (no synchronization); once the matrix has been multiplied
   K = P (fixed / t_csr + budget) times, the next product selects. A matrix used less than that costs exactly what
   aijcusparse costs; one used more pays for the selection at most 1/P of what its products took so far, and from then
   on runs the chosen format. Without a GPU (host rule, no timing), for fp32 copies (csr cannot store them), with
   -mat_spmv_format and with -mat_spmv_wait 0 nothing waits.

   The choice survives values-only refreshes, rebuilds of the same pattern (MatSetFromOptions, host <->
   device), MatDuplicate and the blocks of MPI matrices (CopyOptions carries it with the fingerprint); a
   new pattern chooses again.
*/
#pragma once
#include "../spmvformat.h"
#include "../brc/brc.h"
#include "../ccoo/ccoo.h"
#include <cstdint>

#if defined(__CUDACC__)
  #define AUTO_HD __host__ __device__
#else
  #define AUTO_HD
#endif

PETSC_INTERN PetscLogEvent MAT_SpMV_Select;

/* The candidates: the library's formats (by root name, created through the registry) and cuSPARSE CSR */
enum SpMVAutoId : int {
  AUTO_CSR,
  AUTO_BRC,
  AUTO_CCOO,
  AUTO_ARGCSR,
  AUTO_SEGSUM,
  AUTO_SURAA,
  AUTO_DCSR,
  AUTO_N
};
extern const char *const SpMVAutoNames[AUTO_N]; /* "csr", "brc", "ccoo", "argcsr", "segsum", "suraa", "dcsr" */
PetscErrorCode           SpMVAutoFindName(const char *, int *); /* PETSC_ERR_ARG_UNKNOWN_TYPE for an unknown name */

constexpr int64_t kAutoLongRow = 64;   /* longer rows are split by BRC (its default width cap) */
constexpr int64_t kAutoWindow  = 2048; /* nonzeros per column window (a CCOO chunk: 256 threads x K = 8) */
constexpr int64_t kAutoSample  = 4096; /* values sampled for the value-table estimate */
constexpr int     kAutoTable   = 255;  /* value-table entries the estimate counts (CCOO keeps <= 256) */
constexpr int64_t kAutoSpan16  = 65534; /* largest column range of a 16-bit window (CCOO's sentinel is 65535) */
constexpr int64_t kAutoTile16  = 128;   /* nonzeros per dcsr tile (its default -mat_dcsr_tile) */
constexpr int64_t kAutoTileSpan = 65535; /* largest column range of a narrow dcsr tile (kSegSumSpan16) */

/* Row statistics of a CSR matrix: exact integer sums, identical from the host and the device code */
struct SpMVAutoStats {
  int64_t  m = 0, n = 0, nnz = 0;
  int64_t  nempty  = 0;      /* rows without entries */
  int64_t  maxlen  = 0;      /* longest row */
  uint64_t sumsq   = 0;      /* sum of squared row lengths */
  int64_t  nlong   = 0;      /* rows longer than kAutoLongRow */
  int64_t  nnzlong = 0;      /* their nonzeros */
  int64_t  nwin = 0, nwin16 = 0; /* windows of kAutoWindow consecutive nonzeros; those whose column range <= kAutoSpan16 */
  uint64_t winspan = 0;          /* sum over the windows of their column range */
  int64_t  nsample = 0, nvalued = 0, ncover = 0; /* sampled values; those not 0.0 (complex: not 0 in both parts); of these, those among the kAutoTable most frequent bit patterns (complex: of both parts, as CCOO's table) */
  uint64_t hash    = 0;             /* fingerprint of (m, n, row offsets, columns) */
  int64_t  slots_k[5] = {0, 0, 0, 0, 0}; /* CCOO's slots for K = 1, 2, 4, 8, 16: sum of max(1, ceil(len / K)) */
  int64_t  wide       = 0;               /* nonzeros of the rows whose last minus first column exceeds 32767 (CCOO's wide rows) */
  int64_t  ntile16    = 0;               /* dcsr's tiles of kAutoTile16 consecutive nonzeros whose column range <= kAutoTileSpan */

  /* derived, over the non-empty rows */
  double Mean() const { return m > nempty ? (double)nnz / (double)(m - nempty) : 0.0; }
  double Std() const;
  double CV() const { return Mean() > 0 ? Std() / Mean() : 0.0; }
  double EmptyFraction() const { return m ? (double)nempty / (double)m : 0.0; }
  double LongRowFraction() const { return m > nempty ? (double)nlong / (double)(m - nempty) : 0.0; }
  double LongNnzFraction() const { return nnz ? (double)nnzlong / (double)nnz : 0.0; }
  double Col16Fraction() const { return nwin ? (double)nwin16 / (double)nwin : 1.0; }
  int64_t NTiles() const { return (nnz + kAutoTile16 - 1) / kAutoTile16; }
  double Tile16Fraction() const { return NTiles() ? (double)ntile16 / (double)NTiles() : 1.0; }
  /* a matrix whose sampled values are mostly 0.0 has no values yet (preallocated, MatZeroEntries): no evidence */
  double ValueCover() const { return 2 * nvalued >= nsample && nvalued ? (double)ncover / (double)nvalued : 0.0; }
  bool   SamePattern(const SpMVAutoStats &o) const { return m == o.m && n == o.n && nnz == o.nnz && hash == o.hash; }
};

/* the sample: nsample = min(kAutoSample, nnz) values, CCOO's positions (CCOOSamplePos: one drawn by a fixed hash
   in each of nsample equal strata, so that every nonzero is equally likely and no period of the values aliases
   with a stride; nsample = nnz: every value) */
AUTO_HD inline int64_t SpMVAutoSamplePos(int64_t k, int64_t nnz, int64_t nsample) { return CCOOSamplePos(k, nnz, nsample); }

/* Fingerprint terms: a 64-bit mix (splitmix64's finalizer) of a position and an index; the fingerprint is
   the sum (mod 2^64) of the terms, so the device may add them in any order */
AUTO_HD inline uint64_t SpMVAutoMix(uint64_t a, uint64_t b, uint64_t salt)
{
  uint64_t z = (a << 32 ^ b) + salt * 0x9e3779b97f4a7c15ULL;
  z          = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z          = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
constexpr uint64_t kAutoSaltRow = 1, kAutoSaltCol = 2, kAutoSaltShape = 3;

/* the statistics of a host CSR (the host reference of the device kernels in auto.cu) */
PetscErrorCode SpMVAutoStatsHost(const SpMVHostCsr &, SpMVAutoStats *);
/* of the sampled values that are not 0.0 (*nvalued of them): how many are among the kAutoTable most frequent
   (bit patterns, as CCOO's table: CCOOKey, with complex scalars the 128 bits of both parts) */
int64_t SpMVAutoSampleCover(const SpMVHostScalar *v, int64_t n, int64_t *nvalued);

/* What the user asked for (-mat_spmv_*) */
struct SpMVAutoOptions {
  unsigned  allowed       = 0;     /* bit per SpMVAutoId: -mat_spmv_candidates (0: not given) */
  PetscInt  trials        = 3;     /* timed products per candidate, after one warm-up */
  int       format        = -1;    /* -mat_spmv_format (-1: choose) */
  PetscBool deterministic = PETSC_FALSE;
  PetscReal budget        = 45;    /* expected selection cost allowed, in cuSPARSE products (README, "The rule": 45 times argcsr beside the first ranked format and the segsum net) */
  PetscReal margin        = 0.02;  /* a format replaces csr when its timed product is at least this much faster: above the
                                      selection's usual error on a ratio of two products (-0.5% to +1.3% against the
                                      benchmark's on random matrices, H200, session 36), and small enough that keeping csr
                                      costs at most ~3% against the fastest format (0.03 kept csr at 0.969x) */
  PetscReal wait          = 2;     /* on the GPU the selection waits until the matrix's products took this many times its
                                      expected cost (cuSPARSE's product runs meanwhile); 0: at the first product */
  PetscBool dcsr          = PETSC_TRUE; /* -mat_spmv_dcsr: rank dcsr in segsum's place where its tiles are narrow (on since
                                           dcsr's own kernel runs ahead of segsum there, see autohost.cxx) */
  BRCOptions brc          = BRCPluginDefaults(); /* BRC's width options (read, not printed, by the auto format): does BRC split rows? */
  bool operator==(const SpMVAutoOptions &o) const
  {
    return allowed == o.allowed && trials == o.trials && format == o.format && deterministic == o.deterministic && budget == o.budget && margin == o.margin && wait == o.wait && dcsr == o.dcsr && brc.width == o.brc.width && brc.width_max == o.brc.width_max && brc.paper_width == o.brc.paper_width && brc.width_c == o.brc.width_c;
  }
};

/* The rule's result for one matrix */
struct SpMVAutoPlan {
  int    rank[AUTO_N]; /* plugin formats that can win, best first (csr never: it is the baseline) */
  int    nrank = 0;
  int    time[AUTO_N]; /* what the GPU times, in this order: csr first, then the ranked formats within the budget */
  int    ntime = 0;
  int    host  = -1;   /* the choice without a GPU: the first ranked (or allowed) format */
  double expected = 0; /* expected cost of timing them, in cuSPARSE products (constants from bench/results) */
  char   why[256] = "";
};

/* The rule: rank the formats by the statistics, then what the GPU times and what the host takes */
PetscErrorCode SpMVAutoRank(const SpMVAutoStats &, const SpMVAutoOptions &, SpMVAutoPlan *);
/* the rule's estimates (bench/results, in cuSPARSE products of the matrix): the statistics, and timing candidate id
   (its build, the warm-up and the trials) on a matrix with these statistics */
double SpMVAutoStatsCost(void);
double SpMVAutoCandidateCost(int id, const SpMVAutoStats &, const SpMVAutoOptions &);
/* would BRC split a row of this matrix (its products then use atomics: not reproducible run to run)? */
bool SpMVAutoBRCSplits(const SpMVAutoStats &, const SpMVAutoOptions &);
/* CCOO's bytes per product (matrix, x once, y) over the CSR floor's ((4 + vs) nnz + 4 (m + 1) + vs n + vs m, vs =
   sizeof(PetscScalar): 8, complex 16), predicted from the statistics for the layout CCOO would build without a
   value table: its own K (CCOOChooseK), its padding (slots_k), 16-bit columns in the windows that fit them, 32-bit
   elsewhere */
double SpMVAutoCCOOBytesRatio(const SpMVAutoStats &);
/* the CSR floor's bytes of one product: values and 32-bit columns, the row offsets, x and y once each */
inline double SpMVAutoCSRBytes(int64_t m, int64_t n, int64_t nnz)
{
  const double vs = (double)sizeof(PetscScalar);
  return (4.0 + vs) * (double)nnz + 4.0 * (double)(m + 1) + vs * (double)n + vs * (double)m;
}
/* dcsr's matrix bytes per product over the CSR's ((4 + vs) nnz + 4 (m + 1)), from the narrow-tile count (the last
   tile counted as full) */
double SpMVAutoDCSRBytesRatio(const SpMVAutoStats &);
/* is the format's product bitwise reproducible run to run on the GPU (for this matrix)? */
bool SpMVAutoDeterministic(int id, const SpMVAutoStats &, const SpMVAutoOptions &);
PetscErrorCode SpMVAutoViewStats(PetscViewer, const SpMVAutoStats &);

SpMVFormat *SpMVAutoCreate(void);
/* root name of the format chosen by the automatic format fmt ("none" before the first build) */
const char *SpMVAutoChosenName(const SpMVFormat *fmt);
