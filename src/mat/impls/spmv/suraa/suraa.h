/*
   SURAA: sorted segmented rows (Muhammed, Mehmood, Albeshri, Katib, Appl. Sci. 9(5) 947, 2019), with the
   decisions of ../shared/reference/briefs/suraa.md (cited as "brief §n").

   LAYOUT (brief §1.1, §1.2, §5.5)
     perm[m]     sorted position k -> original row. Rows sorted by DESCENDING nonzeros per row (npr), ties by
                 the column of the row's first stored entry (ascending), then by row index (the radix sort
                 is stable). Empty rows come last (their first column counts as n). One 64-bit key per row,
                 key = (maxlen - npr) << colbits | firstcol, colbits = bits(n); CUB radix sort, ascending,
                 over only the bits in use.
     rps[m+1]    row offsets of the sorted CSR (exclusive scan of the sorted lengths).
     col, val    physical mode (default, -mat_suraa_permute physical): the CSR rows gathered in sorted order
                 (brief §5.5 "physical"); the values refresh re-gathers val through perm (CUB batched copy,
                 one pass over the values). Logical mode: no copy; kernels read the CSR through rp[perm[k]].
     cstart[]    chunk offsets of the giant rows of G1 (see kernels).
     No padding. y is written through perm (y[perm[k]] = sum): no extra pass, no permuted copy (brief §1.5).

   SEGMENTS (paper Eq. (1), brief §1.3, §5.1). Quartiles read from the descending sorted lengths as the
   paper does: a = npr_sorted[floor(m/4)], b = npr_sorted[floor(3m/4)], IQR = |a - b| (the paper's
   q34 - q12 is <= 0 on a descending array). Segments are runs of S consecutive sorted rows (the last one
   shorter), with S from -mat_suraa_segments:
       literal (DEFAULT)  S = max(1, floor(2 IQR / cbrt(m)))              the paper's Eq. (1) read as a row count
       fd_bins            h = 2 IQR / cbrt(m); k = 1 if IQR = 0, else clamp(ceil((max - min) / h), 1, Kmax);
                          S = ceil(m / k)                                 brief §5.1's recommendation
       rows               S = -mat_suraa_segment_rows
   Decision (departs from brief §5.1, which recommends fd_bins): the brief worried that literal segments of
   1-2 rows mean one stream and one kernel per segment; here each group is one launch (brief §5.6, and
   "Launches" below), so segments cost nothing at run time and small ones classify rows almost one by one. fd_bins with
   Kmax = 64 puts 1/64 of the rows in the first segment: a single huge row (IQR = 0 gives k = 1: one
   segment) would land in the thread-per-row group. fd_bins stays available for the ablation.

   GROUPS (brief §1.4, §5.2: the text, not Alg. 2's literal test). Segment means never increase along the
   sorted order, so every rule below cuts the sorted rows into contiguous ranges. With T =
   -mat_suraa_vector_threshold (32):
       G1 [0, r1)   the leading segments with mean >= T, whole segments only, while their rows stay
                    <= g1_max_rows (-mat_suraa_g1_max_rows; -1 = automatic: the number of rows with
                    npr >= T, capped at 8192, brief §5.2; the paper's max_child_threads)
       G2 [r1, rv)  the other segments with mean >= T
       G3 [rv, m)   the rest (mean < T), the last partial segment and the empty rows included.
   -mat_suraa_mean_gate: the matrix-level gate of brief §5.2 (matrix mean < T: everything in G3), off.
   All comparisons of a mean with a threshold are exact integer comparisons (sum vs T * rows): the host
   and the device cut at the same rows.

   KERNELS (all write y[perm[k]] once per row, "=" for y = A x, "+=" for y += A x, which skips the empty
   rows, sorted last; brief §5.9). Streams (brief §5.6): the last group present runs on the caller's stream,
   the others on two non-blocking streams forked from it by an event and joined back by events; streams
   and events are created at build, never per product (-mat_suraa_streams 0: everything on the caller's
   stream). No host synchronization, no allocation in a product.
     G3  sub-warp groups of L lanes per row, L in {1,2,4,8,16,32}. The paper's scalar kernel is L = 1
         (-mat_suraa_g3_lanes 1). Default 0 = per segment, the smallest power of two with L >= mean/E, i.e.
         about E nonzeros per lane, E = -mat_suraa_lane_entries in {1, 2, 4, 8, 16, 32}. E = 2 is the
         paper's own rule for Y (Alg. 1), extended below 32 (brief §5.8). The default E = 8
         (kSURAALaneEntries) is measured (H200, bench/results/sweep-20261123-044425.csv): the kernels are
         latency-bound at ~2 entries per lane (27-point stencil rows get 16 lanes at E = 2, 4 at E = 8),
         and E = 2 / 4 / 8 / 16 gave 0.73 / 0.97 / 1.01 / 0.70x of cuSPARSE on cage11 kron 64, 0.64 / 0.83 /
         0.93 / 0.72x on nasa4704 kron 400, 0.81 / 1.01 / 1.18 / 0.86x on the 27-point stencil and 1.04 /
         1.21 / 1.32 / 1.32x on the 7-point one; R-MAT (0.94 -> 0.92x) and the dense-row matrix (0.76 ->
         0.67x) lose a little, their short rows going to one lane each. (A thread per row of 27 entries,
         E = 32, is the uncoalesced case brief §5.8 warns of.) Lanes stride the row, shuffle-reduce within
         the group, lane 0 writes.
     G2  vector kernel, Y lanes per row, Y in {32, 64, 128}: per segment Y = roundup32(mean/E) clamped to
         [32, 128], 96 -> 128 (brief §5.3 with E = 2), or fixed by -mat_suraa_vector_width. Warp shuffle,
         then the Y/32 warp sums through shared memory (the paper's Alg. 6 with its index bugs fixed,
         brief §2.3).
     Inner loop of every product kernel (G1, G2, G3, CDP child; StridedDot in suraa.cu): each lane walks
         its entries j, j + L, .. in batches of 4 (the last 1-3 as one predicated batch): the 4 columns and
         4 values are loaded first, then the 4 x entries, then the 4 multiply-adds in ascending j (sum =
         fma(val, x, sum), as nvcc contracts the plain loop `sum += val[j] * x[col[j]]`), so every sum is
         bit for bit that of the one-entry-at-a-time loop, which ran one dependent chain col -> x -> fma
         at a time.
     G1  block per row, host-launched (default; brief §5.7). Rows bucketed by length into up to three
         launches: npr > 2048: blocks of 1024 threads over chunks of 8192 entries (a row may take several
         blocks; partial sums per chunk, then one warp per row adds them in a fixed order: deterministic,
         no atomics); 512 < npr <= 2048: 256 threads; npr <= 512: 64 threads.
         -mat_suraa_dynamic_parallelism (only in a build with -DSPMV_SURAA_CDP, -rdc=true, cudadevrt):
         the paper's Alg. 3/4 on CDP2: a parent thread per G1 row launches a one-block child of
         min(1024, roundup32(npr/2)) threads into cudaStreamFireAndForget (brief §2.5, §5.7); a parent
         whose launch fails computes its row itself, so the product stays right. The build raises
         cudaLimitDevRuntimePendingLaunchCount to the G1 row count when it is lower.
     Launches: the plan lists one range per (group, lane count / bucket) (at most 3 + 3 + 6); G2 and G3 each
         run as ONE launch whose blocks look their lane class up in a small table passed by value (a block
         holds one class), so a product is at most 6 launches (G1: 3 + the chunk sums; G2; G3) on 3 streams.
     -mat_suraa_kernels cusparse (ablation, brief §6 "cuSPARSE on the same permuted CSR"): cusparseSpMV on
         the sorted CSR into a buffer, then y[perm[k]] (+)= buffer[k] (one extra pass of 20 bytes per row
         that our kernels avoid): the effect of sorting without our kernels. Needs the physical mode.

   BYTES per product (physical mode, the floor): 12 per nonzero (val 8 + col 4) + 16 per row (rps 4, perm 4,
   y 8) + 8 per column (x, once if it stays in L2): 12 nnz + 16 m + 8 n, the paper's own model
   (2m + 1 + nnz) 4 + (nnz + m + n) 8. Logical mode reads rp[perm[k]] (two scattered ints per row) and the
   rows in their original places (short rows then coalesce poorly).
*/
#pragma once
#include "../spmvformat.h"
#include <vector>
#include <cstdint>

#if defined(__CUDACC__)
  #define SURAA_HD __host__ __device__
#else
  #define SURAA_HD
#endif

enum SURAASegments { SURAA_SEGMENTS_LITERAL, SURAA_SEGMENTS_FD_BINS, SURAA_SEGMENTS_ROWS };
enum SURAAPermute { SURAA_PERMUTE_PHYSICAL, SURAA_PERMUTE_LOGICAL };
enum SURAAKernels { SURAA_KERNELS_SURAA, SURAA_KERNELS_CUSPARSE };
extern const char *const SURAASegmentsTypes[];
extern const char *const SURAAPermuteTypes[];
extern const char *const SURAAKernelsTypes[];

/* E, the default of -mat_suraa_lane_entries (1, 2, 4, 8, 16 or 32; 2 = the paper's mean/2 rule; 8 measured) */
constexpr int kSURAALaneEntries = 8;

struct SURAAOptions {
  SURAASegments segments         = SURAA_SEGMENTS_LITERAL;
  PetscInt      segment_rows     = 32;    /* S for segments = rows */
  PetscInt      max_segments     = 64;    /* Kmax for segments = fd_bins */
  PetscInt      vector_threshold = 32;    /* T: segments with mean >= T go to G1/G2 */
  PetscInt      g1_max_rows      = -1;    /* -1: automatic (rows with npr >= T, at most 8192); 0: no G1 */
  PetscInt      vector_width     = 0;     /* G2 lanes per row: 0 automatic, or 32/64/128 */
  PetscInt      g3_lanes         = 0;     /* G3 lanes per row: 0 automatic, or 1 (the paper's scalar kernel), 2, .., 32 */
  PetscInt      lane_entries     = kSURAALaneEntries; /* E: automatic G2/G3 lanes give about E nonzeros per lane */
  PetscBool     mean_gate        = PETSC_FALSE;
  PetscBool     dynamic_parallelism = PETSC_FALSE;
  PetscBool     streams          = PETSC_TRUE; /* G1, G2 on their own streams, concurrent with G3 */
  SURAAPermute  permute          = SURAA_PERMUTE_PHYSICAL;
  SURAAKernels  kernels          = SURAA_KERNELS_SURAA;
  PetscInt      cusparse_alg     = 1; /* CUSPARSE_SPMV_CSR_ALG1 or 2, for kernels = cusparse */
};

/* fixed sizes of the G1 buckets and chunks */
constexpr int kSURAABigRow   = 2048; /* G1 rows longer than this: 1024-thread blocks over chunks */
constexpr int kSURAAMidRow   = 512;  /* G1 rows longer than this (and <= 2048): 256-thread blocks; else 64 */
constexpr int kSURAAChunk    = 8192; /* entries per 1024-thread block of a big row */
constexpr int kSURAAG1AutoCap = 8192; /* automatic g1_max_rows: at most this many rows */

/* The per-segment predicates counted to place the group and width boundaries (each holds on a prefix of
   the segments, because segment means never increase). With T = -mat_suraa_vector_threshold and E =
   -mat_suraa_lane_entries: P_VEC: mean >= T; P_Y64/P_Y128: mean > 32 E / 64 E (G2 width 64 / 128, i.e.
   mean/E > Y/2); P_L2 .. P_L32: mean > L E / 2 for L = 2, 4, 8, 16, 32 (G3 uses at least L lanes, i.e.
   mean/E > L/2). E = 2: mean > 64 / 128 and mean > 2, 4, .., 32. Exact integer comparisons (sum vs
   threshold * rows; the lane test as 2 sum > L E rows, which needs no division by 2), called with the
   same T and E by the host plan (suraahost.cxx), the device build (SegmentCounts) and the tests, so host
   and device cut at the same rows. */
enum { SURAA_P_VEC, SURAA_P_Y64, SURAA_P_Y128, SURAA_P_L2, SURAA_P_L4, SURAA_P_L8, SURAA_P_L16, SURAA_P_L32, SURAA_NPRED };

SURAA_HD inline bool SURAASegmentPredicate(int p, int64_t sum, int64_t rows, int64_t T, int64_t E)
{
  switch (p) {
  case SURAA_P_VEC:
    return sum >= T * rows;
  case SURAA_P_Y64:
    return sum > 32 * E * rows;
  case SURAA_P_Y128:
    return sum > 64 * E * rows;
  default: /* SURAA_P_L2 .. SURAA_P_L32: mean > L E / 2 with L = 2^(p - SURAA_P_L2 + 1) */
    return 2 * sum > ((int64_t)2 << (p - SURAA_P_L2)) * E * rows;
  }
}

/* One launch of the plan: sorted rows [begin, end) run by one kernel */
enum SURAAKind { SURAA_G1_CHUNKS, SURAA_G1_BLOCK256, SURAA_G1_BLOCK64, SURAA_G2, SURAA_G3 };
struct SURAALaunch {
  int kind;  /* SURAAKind */
  int lanes; /* threads per row: G2 / G3 lanes, G1 block size */
  int begin, end;
  bool operator==(const SURAALaunch &o) const { return kind == o.kind && lanes == o.lanes && begin == o.begin && end == o.end; }
};
constexpr int kSURAAMaxLaunches = 12;

/* Row statistics and the plan computed from them: identical on host and device (integer inputs) */
struct SURAAPlan {
  PetscInt m = 0, n = 0, nonempty = 0, maxlen = 0, minlen = 0;
  int64_t  nnz = 0;
  PetscInt rows_ge_T = 0, rows_big = 0, rows_mid = 0; /* rows with npr >= T, > 2048, > 512 */
  PetscInt qa = 0, qb = 0, iqr = 0;                   /* npr_sorted[floor(m/4)], npr_sorted[floor(3m/4)], |qa - qb| */
  double   fd_h = 0;                                  /* 2 IQR / cbrt(m) */
  PetscInt S = 1, nseg = 0;                           /* segment rows, segments */
  PetscInt count[SURAA_NPRED] = {};                   /* segments satisfying each predicate */
  PetscInt g1_max = 0, r1 = 0, rv = 0;                /* G1 = [0, r1), G2 = [r1, rv), G3 = [rv, m) */
  PetscInt nbig = 0, nchunks = 0;                     /* G1 rows over chunks and their chunks */
  int      nlaunch = 0;
  SURAALaunch launch[kSURAAMaxLaunches] = {};
  int64_t  group_nnz[3] = {0, 0, 0};
};

/* Host reference layout */
struct SURAAHostLayout {
  std::vector<int>    perm, rps, cstart;
  std::vector<int>    col;          /* physical mode only */
  std::vector<PetscScalar> val;         /* physical mode only */
  SURAAPermute        permute = SURAA_PERMUTE_PHYSICAL;
  const PetscInt     *i = nullptr;  /* the host CSR (logical mode; the executor reads it through perm) */
  const PetscInt     *j = nullptr;
  const PetscScalar  *a = nullptr;
};

/* The plan, step by step (shared by BuildHost and BuildDevice) */
PetscErrorCode SURAASegmentRows(const SURAAOptions &, SURAAPlan *);                 /* S, nseg, fd_h from m, qa, qb, maxlen, minlen */
PetscErrorCode SURAAPlanFromCounts(const SURAAOptions &, SURAAPlan *);              /* groups and launches from count[], rows_* */
PetscErrorCode SURAACheckOptions(const SURAAOptions &);
PetscErrorCode SURAABuildHostLayout(const SURAAOptions &, const SpMVHostCsr &, SURAAHostLayout *, SURAAPlan *);
PetscErrorCode SURAARefreshHostLayout(const SpMVHostCsr &, SURAAHostLayout *);
void           SURAAMultHost(const SURAAHostLayout &, const SURAAPlan &, const SpMVHostScalar *x, SpMVHostScalar *y, bool add);
PetscErrorCode SURAAViewPlan(PetscViewer, const SURAAOptions &, const SURAAPlan &);

SpMVFormat *SURAACreate(void);
