/*
   ARgCSR: adaptive row-grouped CSR (Heller & Oberhuber 2012, ../shared/reference/seeds/adaptive-row-grouped-
   csr-2012.json), with the decisions of ../shared/reference/briefs/brc-and-argcsr.md part B and part C.

   LAYOUT (BS = block size = threads per CUDA block = chunks per group; D = desired chunk size)
   Consecutive rows form groups. A group owns BS chunks of one size C_g (its chunk size); a row owns one or
   more consecutive chunks (threads), and fills them contiguously, fill-first: thread j of a row holds the
   row's entries [j*C_g, (j+1)*C_g) (brief B3 phase 4, B7.4), so padding sits only at chunk tails. Chunks are
   stored column-wise: entry k of chunk t of group g is at goff[g] + k*BS + t (coalesced over t, brief B2).
     val[S], col[S]    values and columns; padding: value 0, column -1 (the kernel stops at the first -1)
     ginfo[4*G]        per group {row0, nrows, C, piece}: rows row0 .. row0+nrows-1, chunk size C;
                       piece = -1 for an ordinary group, p >= 0 for piece p of a long row (below)
     goff[G+1]         int64 start of each group in val/col (goff[G] = S)
     map[m]            threadsMapping: per group, the inclusive prefix sum of threads per row (brief B7.1):
                       row row0+i owns threads [map[row0+i-1], map[row0+i]) (begin 0 for i = 0)
     heads[G*nw]       the same mapping as a bit mask, nw = BS/32 words per group: bit t set when thread t
                       is the first thread of a row. The kernel reads this (16..128 bytes a group) instead of
                       map (4 bytes a row); map is kept as the paper's array, verified, used by nothing hot.
     lrow/lgroup/lcount  long rows: row, its first piece group, number of pieces

   DECISIONS (where the paper and the brief leave room)
   - Grouping (paper: "close a group once it holds more than D*BS nonzeros or BS rows", brief B3/B7.2).
     Default: rows are packed by their thread need at chunk size D, w_r = max(1, ceil(len_r / D)): a group
     takes consecutive rows while sum w_r <= BS (next fit). Then t_r = w_r is a feasible assignment of chunk
     size <= D, so every group's chunk size is at most D: the padding is only the per-row rounding and the
     end of the group. The paper's rule fills ~D*BS nonzeros whose rows round up past BS threads, so C
     becomes D+1 or more for nearly every group (about 25-35% padding on cage11/nasa4704/3D stencils
     against 5-10% here, by a sector-level model of the kernel's loads). The paper's rule stays behind
     -mat_argcsr_paper_grouping.
     Built on the GPU: the rows are cut into windows of 16*BS rows and each window runs the (sequential)
     rule with one thread, from a fresh group; then group counts per row are turned into the group table by
     prefix sums (CUB) and binary searches. A window costs at most one partly filled group (<= 1/16 of its
     threads for rows of one thread each, typically < 2%). The host reference uses the same windows, so
     the layouts are identical.
   - Threads per row (brief B7.3, B7.5): the paper's pure greedy: every row starts with one thread (empty
     rows too), each free thread goes to the row with the largest chunk filling ceil(len/t), ties to the
     lowest row; all BS threads are assigned. C_g = max ceil(len/t). Threads the greedy gives beyond what
     lowers C_g hold only padding (fill-first), as in the paper's figure.
   - Long rows (the paper's limit: one group, at most BS threads). A row with more than T = D*BS nonzeros
     gets groups of its own, one per piece of T nonzeros (the last one shorter): C = D for full pieces, so
     no thread does more than D entries and no group waits for one long row. The pieces' sums are combined
     deterministically in two levels: (1) inside the piece's block as for any row (below), written to
     part[g]; (2) a second small kernel, one warp per long row, sums part[] of its pieces in a fixed order
     (lane-strided, then a fixed shuffle tree) and writes y. No atomics anywhere: bitwise identical results
     run to run. -mat_argcsr_split_long_rows 0 keeps the paper's behaviour (a row stays in one group).
   - Index widths (brief B7.8): int columns (-1 sentinel), int64 group offsets; ginfo read as one int4.
   - y = A x overwrites y (brief B7.7); y += A x adds in the final write. Every row is written exactly once
     (ordinary groups, or the long-row kernel), so y is never zeroed first.

   KERNEL (one CUDA block of BS threads per group; brief B4 with a faster, still deterministic reduction)
   - thread t: reads ginfo[g] (int4), goff[g], its warp's heads word (broadcast loads), then its chunk in
     batches of 8 (kBatch): the 8 columns (coalesced over t, streaming loads; none past C), then, for
     columns >= 0, the values and x entries; acc = fma(v, x, acc) in order k = 0, 1, ...; stops after a
     batch that ends in padding. With the default D = 8 a chunk is one batch: two dependent loads a thread.
   - warp: segmented reduction with shuffles over the warp-local pieces of each row (segments start at row
     heads and at lane 0): 5 steps, a fixed tree. Segment heads store their sums in shared memory.
   - block: after one __syncthreads, thread i < nrows finds row i's thread range [begin, end) from heads
     (popcount select) and adds the warp pieces in order: psum[begin], psum[32*w] for each warp start inside
     the range (at most BS/32 terms). It writes y[row0+i] (y[perm[row0+i]] with the rows sorted, ROW ORDER; or part[g] for a long-row piece).
   Order of the sums: fixed by the layout alone, so the products are bitwise identical run to run. The
   host executor the plugin runs without a GPU (ARgCSRMultHost) walks the same layout row by row in CSR
   order, as AIJ sums (its products equal AIJ's bit for bit: ex19's BiCGSTAB tests compare iteration counts);
   ARgCSRMultHostKernelOrder replays the kernels' operations in their order with std::fma (the unit test
   checks it against CSR and for determinism; the device product should equal it bit for bit).

   BYTES PER NONZERO (for the floor, fp64)
   8 (value) + 4 (column) per nonzero; padding costs one column read (4 B) per chunk that ends early (the
   sentinel; up to 7 more inside a batch of 8) and no value read; 8 B per row (y; + 8 for y += A x); per
   group 16 (ginfo) + 8 (goff) + BS/8 (heads). No row pointers (CSR reads 4 B a row more). With 32-byte
   sectors, a padding slot next to real entries costs its bytes anyway: a sector model of the kernel's
   loads gives 13.7 (cage11), 12.6 (nasa4704), 12.5 (27-point stencil) B/nnz at BS = 256, D = 3 (the
   first defaults), against CSR's 12.8 / 12.5 / 12.5 (12 + 12/mean row length).

   16-BIT COLUMN OFFSETS (issue #29; -mat_argcsr_index16)
   A group of ~D*BS consecutive nonzeros mostly spans few columns (meshes, stencils, bands): its columns are stored as
   16-bit offsets from the group's smallest column, 2 bytes an entry instead of 4 (10 bytes a nonzero with the value).
     gbase[G]          smallest column of each group (0 for a group without entries)
     coff[G+1]         int64 start of each group in uint4 words: coff[g+1] - coff[g] = ceil(C/8)*BS
     col16[8*coff[G]]  the offsets packed by batch: the offsets of thread t's entries 8b .. 8b+7 are the 8 halves of
                       the uint4 word coff[g] + b*BS + t (coalesced over t), padding 0xFFFF
   Taken only when every group spans fewer than 65535 columns (offsets <= 0xFFFE), else the 32-bit columns stay; the
   32-bit col[] is not kept on the device then. The kernel loads a thread's batch of 8 offsets with one 16-byte load
   and then the 8 values and 8 x entries together (a padding slot reads the batch's first value again and x[0], so no
   padding value is read from memory; a batch of padding only ends the chunk), compiled with __launch_bounds__(1024, 1) (64 registers: at the
   default bound of 32 ptxas issued one entry's loads at a time, and a 16-bit layout under that bound ran 0.90-0.99x
   the 32-bit one; SASS in bench/results/NOTES.md "Session 40"). The sums are the same fmas in the same order: the
   products equal the 32-bit layout's at the same D bit for bit.
   When: with D >= 16 (two batches a thread or more: the batched kernel's 8 loads in flight per thread pay for its
   half occupancy; at D = 8, one batch, it ran 0.81-0.91x), and D defaults by the rows (ARgCSRChunkRule: from 24 nonzeros
   a row 16, 24 or 32 by the slots the batches store, or the longest row: ARgCSROneThread). If the offsets do not fit, a default D falls back to 8 with 32-bit columns
   (the layout is built again). H200, 16-bit D = 16 / 24 against 32-bit D = 8 (us, argcsr16-c.csv, run b for D = 8):
   bcsstk13 kron 256 (42 a row) 63.8 vs 71.4, 27-point n=120 142.2 vs 148.3, band of 49 137.7 vs 143.9, band of 81
   123.8 vs 158.2, EX5 kron 64 51.9 vs 62.2; nasa4704 (22 a row, stays at D = 8) 154.5 vs 151.1 at D = 16.

   ROW ORDER (-mat_argcsr_sort_rows; ARgCSRRowRule)
   A group's chunk size is its longest chunk, so in CSR order a row of 18 beside a row of 40 at D = 16 pads its two
   threads to 14 entries each (fill 0.64). Sorted, the rows of each window of R = 16*BS rows follow in order of decreasing
   length (stable: equal lengths keep their order), so a group holds rows of nearly one length; the groups, chunks and
   kernels are unchanged, on positions instead of rows:
     perm[m]           the row at each position (window by window; the device sorts by spmv::SortByLength, the host
                       by std::stable_sort: the same order)
   ginfo's first row, map and the grouping are by position; a thread's entries are the CSR entries of row perm[q]; the
   kernel writes y[perm[q]], the long-row table holds rows. A product reads 4 more bytes a row (perm) and writes y in
   the window's order (within 16*BS rows: the L2 merges the sectors). The groups' column spans grow to a window's, so
   where the 16-bit offsets no longer fit, a rule-chosen order is built again in CSR order.

   DEFAULTS (BS = 128, D = 8) come from the H200 sweep bench/results/sweep-20261123-041035.csv, not from the
   byte model above: the kernel is latency-bound, not byte-bound. At D = 3 a thread loads about 3 entries
   and a block of 256 threads about 770, so the per-group work (ginfo, heads, two dependent load rounds, the
   barrier and the row sums) is paid every 770 nonzeros: 0.90-0.93x of cuSPARSE on cage11 / nasa4704 /
   27-point stencil. D = 8 triples the entries per thread; BS = 128 halves the threads a barrier waits for.
   Measured speedups over aijcusparse (same run), D = 3 / 6 / 8 / 16 at BS = 256, and BS = 128 / 512 at D = 8:
     cage11 kron 64     0.93 1.07 1.13 1.12 | 1.17 1.06      7-pt stencil     0.88 0.86 1.32 1.32 | 1.37 1.24
     nasa4704 kron 400  0.91 1.04 1.03 1.00 | 1.07 0.98      delaunay kron    0.99 1.04 1.11 0.97 | 1.15 1.06
     27-pt stencil      0.90 1.04 1.15 1.23 | 1.18 1.08      R-MAT, dense rows, vsp: 1.06, 1.07, 0.95 at 128/8
*/
#pragma once
#include "../spmvformat.h"
#include <vector>
#include <cstdint>
#include <algorithm>

#if defined(__CUDACC__)
  #define ARGCSR_HD __host__ __device__
#else
  #define ARGCSR_HD
#endif

struct ARgCSROptions {
  PetscInt   block_size     = 128;                 /* BS: threads per block = chunks per group */
  PetscInt   chunk_size     = PETSC_DECIDE;        /* D: desired chunk size; PETSC_DECIDE: ARgCSRChunkRule */
  PetscBool  split_long     = PETSC_TRUE;          /* rows longer than D*BS get groups of their own */
  PetscBool  paper_grouping = PETSC_FALSE;         /* close groups by the paper's nonzero count instead of thread need */
  PetscBool3 index16        = PETSC_BOOL3_UNKNOWN; /* 16-bit column offsets: where they fit (true), never (false), or
                                                      where they fit and D >= kARgCSRIndex16MinD (unknown, the default) */
  PetscBool3 sort_rows      = PETSC_BOOL3_UNKNOWN; /* rows by length inside each window: always, never, or by ARgCSRRowRule */
  PetscInt   sort_window    = PETSC_DECIDE;        /* rows a sort window holds (PETSC_DECIDE: 16*BS, the grouping's window) */
};

/* The parameters the layout is built with, derived from the options and the matrix's mean row length (identical on
   host and device) */
struct ARgCSRParams {
  int  BS = 256, D = 3, T = 768, nw = 8, R = 4096; /* T = D*BS nonzeros; nw heads words a group; R rows a window */
  bool split = true, paper = false;
  bool want16 = false; /* try the 16-bit offsets (they are taken where every group spans fewer than 65535 columns) */
  bool autoD  = false; /* D came from ARgCSRRowRule: if the 16-bit offsets do not fit, rebuild at kARgCSRDefaultD */
  bool sort   = false; /* the rows of each window in order of decreasing length (ROW ORDER below) */
  int  W      = 4096;  /* rows of a sort window */
  bool autoSort = false; /* sort came from ARgCSRRowRule: if the 16-bit offsets do not fit, rebuild in row order first */
};

/* 16-bit column offsets (see "16-BIT COLUMN OFFSETS" above): the chunk size rule and the packing's constants */
constexpr int      kARgCSRBatch       = 8;      /* entries of a chunk the kernel loads together (one uint4 of offsets) */
constexpr int      kARgCSRDefaultD    = 8;      /* D where the offsets do not apply */
constexpr int      kARgCSRIndex16MinD = 16;     /* the 16-bit layout needs two or more batches a thread to pay */
constexpr unsigned kARgCSRPad16       = 0xFFFFu; /* a padding offset; a group's offsets are at most 0xFFFE */
/* The chunk sizes ARgCSRChunkRule weighs from 24 nonzeros a row, and how many more stored slots a larger one may take */
constexpr double kARgCSRSlotTolerance = 0.03;
/* how many more value slots rows of unlike length in one group may cost before the rows are sorted (ARgCSRRowRule) */
constexpr double kARgCSRSortGain = 0.10;
ARGCSR_HD constexpr int ARgCSRWideD(int k) { return 16 + 8 * k; } /* k = 0, 1, 2: 16, 24, 32 */
/* L entries (or slots) in whole batches of 8 */
ARGCSR_HD constexpr int64_t ARgCSRBatchSlots(int64_t L) { return kARgCSRBatch * ((L + kARgCSRBatch - 1) / kARgCSRBatch); }
/* a row of L entries at chunk size D: its threads w = ceil(L/D) (an empty row takes one) and chunk ceil(L/w) */
ARGCSR_HD inline void ARgCSRRowChunk(int64_t L, int D, int64_t *w, int64_t *c)
{
  *w = L > 0 ? (L - 1) / D + 1 : 1;
  *c = L > 0 ? (L - 1) / *w + 1 : 0;
}
/* The row statistics the default D and the row order read (exact integers, so that the host reference and the device
   build decide alike): rows, nonzeros, the longest row, and for each D of ARgCSRWideD the rows' threads, their longest
   chunk, and the sums over the rows of threads times the row's own chunk (exact, and in whole batches of 8) */
struct ARgCSRRows {
  int64_t  m = 0, nnz = 0, maxlen = 0;
  uint64_t threads[3] = {0, 0, 0};
  int64_t  chunk[3]   = {0, 0, 0};
  uint64_t own[3]     = {0, 0, 0}; /* sum of w * c */
  uint64_t own8[3]    = {0, 0, 0}; /* sum of w * (c rounded up to batches of 8) */
  uint64_t rowslots   = 0;         /* sum over the rows of L rounded up to batches of 8: one thread a row, its own chunk */
  double   Mean() const { return m ? (double)nnz / (double)m : 0.0; }
  /* the stored slots at ARgCSRWideD(k) if every thread's chunk were the longest, in whole batches of 8 */
  double Slots(int k) const { return (double)threads[k] * (double)ARgCSRBatchSlots(chunk[k]); }
  /* the same if every group held rows of one chunk size (rows sorted by length): each row its own chunk */
  double SortedSlots(int k) const { return (double)own8[k]; }
  /* the value slots with every chunk the longest, against each row's own: what grouping rows of unlike length costs */
  double Mixing(int k) const { return own[k] ? (double)threads[k] * (double)chunk[k] / (double)own[k] : 1.0; }
};
/* what a row of L entries adds at ARgCSRWideD(k): threads w, chunk c, w * c, w * (c in whole batches) */
ARGCSR_HD inline void ARgCSRRowSlots(int64_t L, int k, int64_t *w, int64_t *c, int64_t *own, int64_t *own8)
{
  ARgCSRRowChunk(L, ARgCSRWideD(k), w, c);
  *own  = *w * *c;
  *own8 = *w * ARgCSRBatchSlots(*c);
}
/* does the default D take the 16-bit layout's chunk sizes (from 24 nonzeros a row; real scalars)? */
inline bool ARgCSRWideRows(double mean)
{
#if defined(PETSC_USE_COMPLEX)
  (void)mean;
  return false;
#else
  return mean >= 24;
#endif
}
/* ARgCSRWideChunk - the chunk size from 24 nonzeros a row (ARgCSRChunkRule below 24: 8; complex: 8, not measured),
   unless one thread a row is taken (ARgCSROneThread): the largest of 16, 24 and 32 whose stored slots (ARgCSRRows::Slots:
   each row's threads times the longest chunk, in batches of 8; the rows' own where sorted) are within 3% of the fewest.
   Why: a thread of a row of L entries holds ceil(L/t) <= D of them, loaded in batches of 8, and a group's chunk size is
   its longest chunk, so the slots the kernel reads are the threads times that chunk; rows of L >= 24 fill 2-4 batches at
   D = 16-32, enough loads in flight to pay the batched kernel's halved occupancy (H200,
   bench/results/session40-h200-20261202/argcsr16-c.csv). At equal slots 3-4 batches a thread beat 2 (fewer threads a
   row, more loads in flight a thread): H200, D = 16 / 24 / 32, us (session43-h200-20261203, chunk-a.csv and uni-b.csv; the
   slots' fill nnz/Slots in brackets): band of 121 137.5 / 124.6 / 116.2 (0.95 / 0.84 / 0.95), band of 49 137.6 / 145.2 /
   132.6 (0.77 / 0.68 / 0.77), 27-point stencil 140.9 / 161.2 / 129.5 (0.82 / 0.57 / 0.82), EX5 53.0 / 51.6 / 51.2 (0.94
   each), band of 81 129.0 / 124.3 / 125.5 (0.84 each). On rows of varied length the longest chunk is near D and a larger D
   pads the rest: bcsstk13 64.5 / 67.4 / 68.8 (0.84 / 0.79 / 0.76), rows of 28-52 98.1 / - / 113.7 (0.84 / 0.78 / 0.69). */
inline int ARgCSRWideChunk(const ARgCSRRows &r, bool sorted)
{
  const auto slots  = [&](int k) { return sorted ? r.SortedSlots(k) : r.Slots(k); };
  double     fewest = slots(0);
  for (int k = 1; k < 3; k++) fewest = std::min(fewest, slots(k));
  for (int k = 2; k > 0; k--)
    if (slots(k) <= (1 + kARgCSRSlotTolerance) * fewest) return ARgCSRWideD(k);
  return ARgCSRWideD(0);
}
/* ARgCSRMixedRows - the row order of the chunk sizes 16, 24, 32 (true: sorted). Sorted where groups of rows of unlike
   length store kARgCSRSortGain (10%) more value slots than groups of rows of one chunk size: ARgCSRRows::Mixing at
   ARgCSRWideChunk's D (every thread at the longest chunk, against each row at its own). D is then ARgCSRWideChunk's over
   the sorted slots.
   Why: a group's chunk size is its longest chunk, so in CSR order every row of a group pads to the longest row's chunk;
   sorted, a group's rows are of nearly one length. But a group then gathers x from a window's columns, not from a few
   consecutive rows': on bcsstk13 DRAM throughput fell from 79% to 70% of the peak and the L2 served 20% of the loads
   against 6% (ncu), so sorting pays only past that. H200, CSR order / sorted (us; Mixing; session 44, order.csv):
   rows of 24-40 82.1 / 75.3 (1.20), of 28-52 98.6 / 93.0 (1.16), 20-60 98.5 / 93.7 (1.15), 10-70 98.9 / 95.1 (1.16),
   bcsstk13 kron 256 64.6 / 60.5 (1.16), 30-90 103.2 / 102.5 (1.10), EX5 kron 64 52.2 / 53.0 (1.06): the gain is about
   Mixing - 1.08, so the break-even lies near 1.08 and the rule asks for 1.10. */
inline bool ARgCSRMixedRows(const ARgCSRRows &r)
{
  return ARgCSRWideRows(r.Mean()) && r.Mixing((ARgCSRWideChunk(r, false) - 16) / 8) >= 1 + kARgCSRSortGain;
}
/* ONE THREAD A ROW: D = the longest row, so that every row takes one thread and reads its own entries in whole batches of
   8 (the kernel reads no padding value slot, so a thread of L entries reads 8 * ceil(L / 8) slots). At D = 16-32 a row of
   L > D splits into threads that each round up to a batch: a row of 81 reads 3 x 32 slots at D = 32 and 88 at D = 81; rows
   of 20-60 sorted read 1.16 slots a nonzero at D = 32 and 1.09 at one thread a row. Taken where
   - the rows hold 24 or more nonzeros on average (the 16-bit layout's chunk sizes; ARgCSRWideRows),
   - the longest row is at most kARgCSROneThreadMaxLen = 96 entries (12 batches: a thread's loads are a chain of batches,
     and a group waits for its longest thread), and at most kARgCSROneThreadSpread = 2 times the mean (a group of sorted
     rows takes as long as its longest: bcsstk13, rows of 5-95, mean 42, ran level at every D, while the bytes predicted
     4% less),
   - and its slots, in its own row order (sorted where the longest row stores kARgCSRSortGain more value slots than the
     rows' own, as ARgCSRMixedRows), are kARgCSROneThreadGain = 5% fewer than those of ARgCSRWideChunk's D in
     ARgCSRMixedRows' order.
   H100 (session 45, s45a: floor-gather16 / argcsr, both skipping padding; the rule's D before / one thread a row): band of
   81 0.930 / 0.953 (slots 1.185 / 1.086 a nonzero), band of 49 0.923 / 0.973 (1.306 / 1.143), rows of 20-60 sorted 0.928
   / 0.954, 24-40 0.919 / 0.948, 16-48 0.936 / 0.974, 30-90 (CSR order at D 16 before) 0.888 / 0.942; level where the
   slots are equal (band of 121, 27-point stencil); EX5 kron 64 (slots equal, rows 45 / 48) lost 3% at one thread a row. */
constexpr int64_t kARgCSROneThreadMaxLen = 96;
constexpr double  kARgCSROneThreadSpread = 2.0;
constexpr double  kARgCSROneThreadGain   = 0.05;
inline bool ARgCSROneThread(const ARgCSRRows &r, bool *sorted)
{
  *sorted = false;
  if (!ARgCSRWideRows(r.Mean()) || r.maxlen > kARgCSROneThreadMaxLen || (double)r.maxlen > kARgCSROneThreadSpread * r.Mean()) return false;
  const bool   s0 = ARgCSRMixedRows(r);
  const int    k0 = (ARgCSRWideChunk(r, s0) - 16) / 8;
  const double S0 = s0 ? r.SortedSlots(k0) : r.Slots(k0);
  *sorted         = (double)r.m * (double)r.maxlen >= (1 + kARgCSRSortGain) * (double)r.nnz; /* Mixing at one thread a row */
  const double S1 = *sorted ? (double)r.rowslots : (double)r.m * (double)ARgCSRBatchSlots(r.maxlen);
  return (1 + kARgCSROneThreadGain) * S1 <= S0;
}
/* ARgCSRChunkRule - the default D for the row order sorted: kARgCSRDefaultD below 24 nonzeros a row; one thread a row
   (D = the longest row) where ARgCSROneThread takes it in this order; else ARgCSRWideChunk's. */
inline int ARgCSRChunkRule(const ARgCSRRows &r, bool sorted = false)
{
  bool one;
  if (!ARgCSRWideRows(r.Mean())) return kARgCSRDefaultD;
  if (ARgCSROneThread(r, &one) && one == sorted) return (int)r.maxlen;
  return ARgCSRWideChunk(r, sorted);
}
/* ARgCSRRowRule - the default row order (true: sorted): one thread a row's where ARgCSROneThread takes it, else
   ARgCSRMixedRows'. */
inline bool ARgCSRRowRule(const ARgCSRRows &r)
{
  bool one;
  if (ARgCSROneThread(r, &one)) return one;
  return ARgCSRMixedRows(r);
}
/* ARgCSRFallBack - the parameters to build again with where the 16-bit offsets were wanted but a group spans 65535
   columns or more: a rule-chosen row order goes back to CSR order (at CSR order's D), else a rule-chosen D above the
   default goes to kARgCSRDefaultD with 32-bit columns. False (p unchanged): the layout stays with 32-bit columns. The host
   reference and the device build take the same steps. */
inline bool ARgCSRFallBack(const ARgCSRRows &rows, ARgCSRParams *p)
{
  if (p->autoSort) {
    p->sort = p->autoSort = false;
    p->D                  = ARgCSRChunkRule(rows);
  } else if (p->autoD && p->D != kARgCSRDefaultD) {
    p->D      = kARgCSRDefaultD;
    p->want16 = false;
  } else return false;
  p->T = p->BS * p->D;
  return true;
}
/* The rows in the layout's order: position q holds row Row(q) (perm == nullptr: CSR order); rp the CSR row offsets */
template <typename I>
struct ARgCSRRowOrder {
  const I   *rp   = nullptr;
  const int *perm = nullptr;
  ARGCSR_HD int64_t Row(int64_t q) const { return perm ? (int64_t)perm[q] : q; }
  ARGCSR_HD int64_t Start(int64_t q) const { return (int64_t)rp[Row(q)]; }
  ARGCSR_HD int64_t End(int64_t q) const { return (int64_t)rp[Row(q) + 1]; }
  ARGCSR_HD int64_t Len(int64_t q) const
  {
    const int64_t r = Row(q);
    return (int64_t)rp[r + 1] - (int64_t)rp[r];
  }
};

/* the rows of a host CSR matrix */
ARgCSRRows ARgCSRHostRows(const SpMVHostCsr &);

/* Layout statistics (shape of the layout; identical for the host reference and the device build) */
struct ARgCSRStats {
  PetscInt m = 0, n = 0;
  int64_t  nnz = 0;
  int64_t  groups = 0, pieces = 0, long_rows = 0; /* all groups, the long rows' piece groups, long rows */
  int64_t  stored = 0;                            /* S = sum over groups of C*BS */
  PetscInt max_chunk = 0, max_rows = 0;           /* largest chunk size, most rows in a group */
  bool     index16 = false;                       /* the columns are stored as 16-bit offsets */
  int64_t  packed  = 0;                           /* uint4 words of 16-bit offsets (coff[G]) */
  int64_t  span    = 0;                           /* the widest group's column span (largest - smallest column) */
  bool     sorted  = false;                       /* the rows of each window by decreasing length (ROW ORDER) */
};

/* The host reference layout: the arrays described above, plus src (CSR position of each stored entry, -1
   for padding) for the values refresh */
struct ARgCSRHostLayout {
  ARgCSRParams             p;
  std::vector<int>         ginfo; /* 4 per group */
  std::vector<int64_t>     goff;  /* groups + 1 */
  std::vector<uint32_t>    heads; /* nw per group */
  std::vector<int>         map;   /* m */
  std::vector<int>         col;
  std::vector<PetscScalar> val;
  std::vector<int64_t>     src;
  std::vector<int>         lrow, lgroup, lcount;
  /* 16-bit offsets (index16): each group's smallest column, its start in uint4 words, the offsets packed by batch */
  std::vector<int>      gbase;
  std::vector<int64_t>  coff;
  std::vector<uint16_t> col16;
  std::vector<int>      perm; /* ROW ORDER: the row at each position (empty: CSR order) */
};

PetscErrorCode ARgCSRCheckOptions(const ARgCSROptions &);
PetscErrorCode ARgCSRSetParams(const ARgCSROptions &, const ARgCSRRows &, ARgCSRParams *);
PetscErrorCode ARgCSRBuildHostLayout(const ARgCSROptions &, const SpMVHostCsr &, ARgCSRHostLayout *, ARgCSRStats *);
PetscErrorCode ARgCSRRefreshHostLayout(const SpMVHostCsr &, ARgCSRHostLayout *);
void           ARgCSRMultHost(const ARgCSRHostLayout &, PetscInt m, const SpMVHostScalar *x, SpMVHostScalar *y, bool add);
void           ARgCSRMultHostKernelOrder(const ARgCSRHostLayout &, const SpMVHostScalar *x, SpMVHostScalar *y, bool add);

SpMVFormat *ARgCSRCreate(void);

/* ------------------------------------------------------------------------------------------------ */
/* Rules shared by the host reference and the device build/kernels (compiled by both compilers)     */
/* ------------------------------------------------------------------------------------------------ */

ARGCSR_HD inline int ARgCSRPopc(uint32_t v)
{
#if defined(__CUDA_ARCH__)
  return __popc(v);
#else
  return __builtin_popcount(v);
#endif
}
/* index of the lowest set bit, v != 0 */
ARGCSR_HD inline int ARgCSRLowBit(uint32_t v)
{
#if defined(__CUDA_ARCH__)
  return __ffs((int)v) - 1;
#else
  return __builtin_ctz(v);
#endif
}
/* index of the highest set bit, v != 0 */
ARGCSR_HD inline int ARgCSRHighBit(uint32_t v)
{
#if defined(__CUDA_ARCH__)
  return 31 - __clz((int)v);
#else
  return 31 - __builtin_clz(v);
#endif
}
/* bits 0..b set (b in [0, 31]) */
ARGCSR_HD inline uint32_t ARgCSRUpTo(int b) { return (uint32_t)((2ull << b) - 1ull); }

/* position of the j-th (0-based) set bit of m; requires popc(m) > j */
ARGCSR_HD inline int ARgCSRSelect32(uint32_t m, int j)
{
  int pos = 0;
  for (int w = 16; w >= 1; w >>= 1) {
    const uint32_t lo = m & ((1u << w) - 1u);
    const int      c  = ARgCSRPopc(lo);
    if (j >= c) {
      j -= c;
      m >>= w;
      pos += w;
    } else m = lo;
  }
  return pos;
}

/* 16-bit offsets: the uint4 words a group of chunk size C takes (its threads' batches), and where the offset of the
   stored entry k of thread t of a group goes: half k % 8 of word coff[g] + (k / 8) * BS + t */
ARGCSR_HD inline int64_t ARgCSRPackedWords(int BS, int C) { return (int64_t)((C + kARgCSRBatch - 1) / kARgCSRBatch) * BS; }
ARGCSR_HD inline int64_t ARgCSRPackedHalf(int64_t coff, int BS, int k, int t) { return (coff + (int64_t)(k / kARgCSRBatch) * BS + t) * kARgCSRBatch + k % kARgCSRBatch; }

/* Is a row of length L a long row (groups of its own)? How many pieces? */
ARGCSR_HD inline bool    ARgCSRIsLong(const ARgCSRParams &p, int64_t L) { return p.split && L > p.T; }
ARGCSR_HD inline int64_t ARgCSRPieces(const ARgCSRParams &p, int64_t L) { return (L - 1) / p.T + 1; }
/* threads a row of length L needs at chunk size D (an empty row still takes one) */
ARGCSR_HD inline int64_t ARgCSRThreadNeed(const ARgCSRParams &p, int64_t L)
{
  int64_t w, c;
  ARgCSRRowChunk(L, p.D, &w, &c);
  return w;
}

/* The grouping rule inside one window: Step() tells whether the (non-long) row of length L starts a new
   group; Break() after a long row, so that the next row starts one. */
struct ARgCSRGrouper {
  int64_t cost = 0, nnz = 0;
  int     rows = 0;
  bool    open = false;
  ARGCSR_HD void Break() { open = false; }
  ARGCSR_HD bool Step(const ARgCSRParams &p, int64_t L)
  {
    bool start;
    if (p.paper) { /* the paper: close once the group holds more than D*BS nonzeros or BS rows */
      start = !open || rows == p.BS || nnz > p.T;
      if (start) rows = 0, nnz = 0;
      rows++;
      nnz += L;
    } else start = StepNeed(p, ARgCSRThreadNeed(p, L)); /* next fit on the thread need at chunk size D */
    open = true;
    return start;
  }
  /* next fit of a (non-long) row that needs w threads: does it start a new group? */
  ARGCSR_HD bool StepNeed(const ARgCSRParams &p, int64_t w)
  {
    const bool start = !open || cost + w > p.BS;
    cost             = start ? w : cost + w;
    open             = true;
    return start;
  }
};

/* the last row r in [0, m) with gfirst[r] <= g, for gfirst the exclusive prefix sum of groups per row
   (gfirst[0] = 0): the row that group g starts at (a long row's pieces all start at the row) */
ARGCSR_HD inline int64_t ARgCSRRowOfGroup(const int64_t *gfirst, int64_t m, int64_t g)
{
  int64_t lo = 0, hi = m; /* the first index with gfirst > g lies in [lo, hi] */
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (gfirst[mid] <= g) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/* greedy key of a row (local index i, length L, t threads): larger chunk filling first, then lower index */
ARGCSR_HD inline uint64_t ARgCSRKey(int64_t L, int t, int i) { return ((uint64_t)((L + t - 1) / t) << 32) | (uint64_t)(~(uint32_t)i); }

/* Thread t of an ordinary group: its row (local index) and the first thread of that row, from the heads
   words h (bit 0 of h[0] is always set) */
ARGCSR_HD inline void ARgCSRThreadRow(const uint32_t *h, int t, int *li, int *first)
{
  const int      w = t >> 5;
  const uint32_t m = h[w] & ARgCSRUpTo(t & 31);
  int            c = ARgCSRPopc(m);
  for (int v = 0; v < w; v++) c += ARgCSRPopc(h[v]);
  *li = c - 1;
  if (m) *first = w * 32 + ARgCSRHighBit(m);
  else {
    int v = w - 1;
    while (v > 0 && !h[v]) v--;
    *first = v * 32 + ARgCSRHighBit(h[v]);
  }
}

/* Row i (local) of a group: its threads [begin, end), from the heads words h (nw words, BS threads) */
ARGCSR_HD inline void ARgCSRRowThreads(const uint32_t *h, int nw, int BS, int i, int *begin, int *end)
{
  int      j = i, v = 0;
  uint32_t m = h[0];
  while (j >= ARgCSRPopc(m) && v + 1 < nw) {
    j -= ARgCSRPopc(m);
    m = h[++v];
  }
  const int b = v * 32 + ARgCSRSelect32(m, j);
  int       e = BS;
  uint32_t  rest = m & ~ARgCSRUpTo(b & 31);
  while (true) {
    if (rest) {
      e = v * 32 + ARgCSRLowBit(rest);
      break;
    }
    if (++v >= nw) break;
    rest = h[v];
  }
  *begin = b;
  *end   = e;
}

/* End (exclusive, warp-local) of the shuffle segment of lane l: the next segment head above l, else the
   number of lanes. segs = the warp's heads word with bit 0 set. */
ARGCSR_HD inline int ARgCSRSegEnd(uint32_t segs, int l, int lanes)
{
  const uint32_t above = segs & ~ARgCSRUpTo(l);
  const int      e     = above ? ARgCSRLowBit(above) : 32;
  return e < lanes ? e : lanes;
}
