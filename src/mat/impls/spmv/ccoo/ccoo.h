/*
   CCOO: balanced and compressed COO (Aliaga, Anzt, Quintana-Orti, Tomas, Tsai, Euro-Par 2020 workshops),
   with the decisions of ../shared/reference/briefs/segsum-and-ccoo.md part B (B2-B7) and the deviations
   marked [D] below.

   LAYOUT. Rows are cut into groups of K consecutive nonzeros ("slots"); a row of length len takes
   max(1, ceil(len/K)) slots, so an empty row takes one slot (B2: "each empty row is padded") and a row is
   padded to a multiple of K. Slots are numbered in row order; chunk c = slots [c*B, c*B + B), i.e. C = B*K
   stored entries, one CUDA block of B threads, thread t = slot c*B + t. The last chunk is padded with
   empty slots that carry the last row. Per chunk:
     fmt[c]        bit 0 single-row chunk (no row offsets stored), bits 1-2 column width (0: 8, 1: 16,
                   2: 32 bits), bit 3 values from the table NOW (changes at a values refresh), bit 4 the
                   chunk stores table indices (fixed at build), bit 5 its first row continues from chunk
                   c-1, bit 6 its last row continues into chunk c+1 (B7 "bit layout of fmt", extended)
     row_base[c]   row of slot c*B;   col_base[c]   smallest column of a real entry in the chunk (0 if none)
     chunk_ptr[c]  byte offset of the chunk's index blob (64-bit, B7)
   Blob of chunk c, every section k-major (entry (t, k) at k*B + t, B7 "element order"):
     [B row offsets, 8 bit, row - row_base]  (absent in single-row chunks; always fits: <= B <= 256 rows)
     [C column offsets col - col_base, 8/16/32 bit, the narrowest allowed that fits, chosen per chunk]
     [C table indices, 8 bit]                (only when fmt bit 4)
   Values [D]: plain values live in their own array vals[c*C + k*B + t], space reserved for every chunk,
   so a chunk can switch between table and plain values at a refresh without touching the index blob
   (brief B5/B7: "keep index and value blobs separate"). The product reads either the indices or vals.
   Padding [D]: a padded entry stores the column sentinel (all ones of the width: 255, 65535, 2^32-1);
   the kernel skips it, so padding reads no x and never turns 0*Inf into NaN (empty rows give exactly
   0); real offsets are therefore limited to 254 / 65534 for 8 / 16 bits. The table needs no 0.0.
   Table (B3 "LUT"): lut[0..L) = bit patterns of values (exact bit comparison: -0.0 and +0.0 differ, NaN
   payloads are kept; with complex scalars the 128-bit pattern of both parts, CCOOKey, ordered by the real
   part's 64 bits, then the imaginary part's: (-0.0, 1) and (+0.0, 1) are two entries), stored sorted by bit
   pattern (the index is the position); rep[i] = first CSR
   position holding lut[i]. [D] Which patterns: the value sample (below: nsample = min(CCOO_SAMPLE, nnz)
   values at CCOOSamplePos) gives the candidates, its distinct bit patterns, at most CCOO_CANDIDATES of
   them (the most frequent in the sample, ties to the smaller bit pattern). One pass over every nonzero
   counts each candidate exactly, with its first position, and counts the misses: the nonzeros whose bit
   pattern is no candidate (nmiss). Then
     - nmiss <= nnz / CCOO_MISS_DIV (16): the missed values are counted too (every occurrence of a value
       that is no candidate is a miss, so their counts are exact), and the table is the lut_size most
       frequent bit patterns of ALL the values by exact count, ties to the smaller pattern: the top lut_size
       of the candidates and the distinct missed values together. This is the table of the full sort
       (before the candidates), bit for bit, rep included;
     - otherwise: the lut_size candidates of largest exact count, ties to the smaller pattern (a value
       never drawn, or drawn beyond the CCOO_CANDIDATES most frequent of the sample, stays out).
   CCOOSampleCandidates and CCOOPickTable are one host function each, for the host and the device build;
   the device collects the misses' positions while counting (a buffer of nnz / 16) and, only in the first
   case, sorts their bit patterns, counts the runs and sends the lut_size most frequent to the host.
   Why count the misses: a chunk takes table indices only if every one of its B K (256..4096) values is in
   the table, so a value left out spoils every chunk it appears in, however rare. cage11 kron 64 (36M
   nonzeros, H100): the sample saw 144 distinct values covering 98.4% of the nonzeros; the other 1.6%
   (values too rare to be drawn, but among the 256 most frequent) left almost every 2048-value chunk
   without the table with the candidates alone, and the product went from 117 us (the full sort's exact
   table) to 178 us. Why only up to nnz / 16: see CCOO_MISS_DIV. With at most CCOO_SAMPLE nonzeros the
   sample is every value, so the candidates' sample counts are their exact counts and the table is the
   lut_size most frequent of all values in either case (the candidates are then the first 2048 of all
   values in the table's own ranking).
   [D] The table is built only when the values repeat (CCOOTableBuilt): with more than CCOO_SAMPLE
   nonzeros, the lut_size most frequent bit patterns of the sample (CCOOSamplePos: one position drawn at
   random, by a fixed hash, in each of CCOO_SAMPLE equal strata of the nonzeros) must cover at least half
   of the sample; otherwise no table (L = 0, ndistinct, nmiss and lut_cover 0). Why: a chunk stores indices only
   if all its real values (B K >= 256 consecutive nonzeros) are in the table, so the chunks the table
   serves hold at most the fraction p of the nonzeros that the table covers, and only where the uncovered
   values keep away from them. Finding the table used to cost a radix sort of every nonzero's 64-bit
   pattern with its position, the run-length encoding and a sort of the run counts: as much as the rest
   of the build or more (H100: bcsstk13 kron 256, p = 0.16, built in 40-72 aijcusparse MatMults with a
   table that served 0 of its 2861 chunks; random-valued matrices without a table: 6-14; random values
   served 0 chunks either; cage11 kron 64 and the constant 27-point stencil, 36-46M nonzeros: the sort
   alone 20-30 MatMults). Now it is one read of the values with a binary search in the candidates (in
   shared memory) per nonzero, and a sort of at most nnz / 16 missed values; the gate stays, since where
   the sample does not cover a table serves nothing. The matrices whose table pays (the constant-
   coefficient stencils, cage11) have p >= 0.9. The sample is stratified and jittered, not k nnz / CCOO_SAMPLE: every nonzero is equally likely to be
   drawn, so the estimate of p is unbiased whatever the period of the values (a regular stride aliases
   with a period that divides it: kron(I_256, bcsstk13) sampled 16 distinct positions at a stride of
   nnz / 4096 and saw p = 1). With at most CCOO_SAMPLE nonzeros the sample is every value and the table
   is always built.
   A chunk stores indices iff every real value of it is in the table (B3); a chunk without real entries
   then also does.
   Slot arrays (for the build and the refresh only): slot_src = CSR position of the slot's first entry,
   slot_cnt = its real entries (0..K).

   DECISIONS where the paper and the brief leave a choice:
   - B = 256 threads (-mat_ccoo_threads 32..256, multiple of 32), K in {1,2,4,8,16} (B7: "tune K").
     K = 0 (default) chooses by a cost model fitted to the H200 sweep bench/results/sweep-20261123-041035.csv
     (types ccoo/k1..k8 = -mat_ccoo_k 1..8): the kernel is latency-bound per slot (thread), time ~=
     a * slots(K) + p * padding(K) + const with a ~ 8.5 us per million slots, and one padded stored entry
     costs about (its bytes)/20 of a slot. So (CCOOChooseK, one function for the host and the device build)
       cost(K) = w(K) slots(K) + (K slots(K) - nnz) * ebytes,   K in {1,2,4,8,16}, smallest wins, ties
     to the larger K, w = 20 (28 for K = 16, whose kernel needs 64 registers: half the occupancy; set
     from the second sweep, sweep-20261123-051454.csv: K = 8 beat K = 16 on cage11, K = 16 won on
     nasa4704 and the constant 27-point stencil), with ebytes = colbytes + vbytes the bytes of a stored entry: colbytes = 2 + 2 wide/nnz
     (wide: nonzeros of the rows whose column span, last minus first column, exceeds 32767), vbytes = 8
     without a table, else 1 + 7 (1 - lut_cover/nnz) (with complex scalars 16, else 1 + 15 (1 - lut_cover/nnz):
     sizeof(PetscScalar), see CCOOChooseK). nnz = 0: K = 1. The value table does not depend on
     K, so both builds make it before choosing K. In the sweep K = 8 beat the old byte rule's K = 4 by up
     to 25% on 27-point stencils (the fit predicts K = 16, not in the sweep, faster still: the rule takes
     16), while on R-MAT (short rows, gather-bound) K = 2..4 is best and K = 8 loses 10% (the rule takes
     4); cage11 kron 64 and 7-point stencils: 8.
   - col_base = minimum column, unsigned offsets (B7 "top-leftmost"); -mat_ccoo_col_bits sets the
     narrowest width allowed.
   - Refresh (same pattern, new values) [D]: the table is re-derived without a sort: lut[i] = new value at
     rep[i] (exact for MatScale, and for MatShift of a constant diagonal). A chunk with indices uses the
     table iff every new value equals, bit for bit, the table entry its stored index names; otherwise it
     falls back to plain values (written into its reserved space) until a later refresh matches again.
     Chunks built plain stay plain. Index blob, chunk_ptr, slots and K (chosen with the build's table
     coverage) are never touched; a new pattern rebuilds everything. Cost: one read of the values, one
     write of the plain chunks.
   - Crossing rows: a block combines its warps (B4 single-row "regular reduction", Listing 1.2 per warp,
     then a pass over the warp heads through shared memory), so a row is written once per chunk: a plain
     store (y = s, or y += s) when the row lies inside the chunk, an FP64 atomicAdd only for the first row
     (fmt bit 5) and the last row (bit 6) when they cross a chunk boundary. For y = A x, a small kernel
     first zeroes the rows of fmt bit 5 (no memset of y: every other row is stored exactly once).
   - Summation order: the kernel adds a row's K-entry partials by a shuffle tree and crossing rows by
     atomics, so its results differ from CSR in the last bits (BiCGSTAB iteration counts may move). The
     host product (no GPU) reads the same layout in storage order and sums each row sequentially, bit for
     bit SeqAIJ without inodes; CCOOEmulateKernel runs the kernel's algorithm on the host for the tests.

   KERNEL (one persistent grid, block-stride loop over chunks, B threads per block):
   - the table (<= 2 KB) is staged once per block in shared memory when the matrix has one;
   - per chunk: one byte read of fmt decides single-row / column width / table (block-uniform branches);
     thread t reads its row offset (1 byte) and its K column offsets and K values (or K table indices),
     each load coalesced across the warp (k-major), and sums a*x over the non-sentinel entries;
   - single-row chunk: warp shuffle reduction, warp sums through shared memory, one store/atomic;
   - otherwise: warp segmented suffix scan by row offset (Listing 1.2 with the lane + l < 32 guard), the
     head lane of each row segment adds the first-segment sums of the following warps while they
     continue the row, and stores the row once (atomic only for rows crossing the chunk).
   BYTES PER NONZERO moved by a product (FP64; for the floor): per stored entry cw (1, 2 or 4) + 1 (table
   index) or 8 (plain value), plus 1/K row byte unless single-row, plus 17 bytes of chunk metadata per C
   entries and the table once; stored entries = nnz + row padding (to a multiple of K, one slot per empty
   row) + the tail of the last chunk. Vectors: x once (8n, if it stays in cache), y written once (8m),
   plus 8 bytes per crossing row for the zeroing and the atomics. Compare the CSR floor 12 nnz + 20 m.
   Example: stencil7 (7 per row, 16-bit columns, K = 8 -> 8 stored per row): plain 8*(2+8)+1 = 81 B/row
   + 16 (x, y) vs CSR 104 B/row; with table values 8*(2+1)+1 = 25 + 16 B/row. stencil27 (27 per row,
   K = 16 -> 2 slots, 32 stored per row): plain 32*(2+8)+2 = 322 B/row + 16 vs CSR 344 B/row. These
   bytes are only a floor: the kernel is latency-bound per slot, and K is chosen by that (DECISIONS).

   COMPLEX SCALARS. The same layout, code and rules with a 16-byte value: plain values are PetscScalar (vals,
   16 bytes each), a table entry is the value's 128-bit pattern (CCOOKey: the real part's bits, then the
   imaginary part's, the value's own memory layout, so the values array reads as an array of keys), compared
   and sorted as the pair (real bits, imaginary bits), both exactly: a value equals a table entry iff both
   parts are bit for bit equal. The sample, the candidates, the misses, the gate (CCOOTableBuilt) and the pick
   (CCOOSampleCandidates, CCOOPickTable) are the same functions over CCOOKey. Bytes: a table index saves 15 of
   16 bytes a value (7 of 8 in real), the column offsets 2 of 20 bytes a nonzero in CSR (2 of 12 in real), so
   the value table weighs more and the columns less; CCOOChooseK and CCOOMatrixBytes take sizeof(PetscScalar).
   The kernel's thread sums are spmv::Fma (two fmas a part in a fixed order, SpMVFma on the host), which
   CCOOEmulateKernel replays; for double it is the fma the compiler made of v += a x before.
*/
#pragma once
#include "../spmvformat.h"
#include <vector>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__CUDACC__)
  #define CCOO_HD __host__ __device__
#else
  #define CCOO_HD
#endif

/* The value table's key: the bit pattern of a value. A double's 64 bits; a complex value's 128 bits, the real
   part's then the imaginary part's (its memory layout: an array of complex values is an array of keys), ordered
   as that pair of unsigned integers (real bits first, then imaginary bits) and equal iff both parts are
   bit for bit equal (COMPLEX SCALARS above). 16-byte aligned, as a complex<double>: one 16-byte load. */
struct alignas(16) CCOOBits128 {
  uint64_t re, im;
};
CCOO_HD inline bool operator==(const CCOOBits128 &a, const CCOOBits128 &b) { return a.re == b.re && a.im == b.im; }
CCOO_HD inline bool operator!=(const CCOOBits128 &a, const CCOOBits128 &b) { return !(a == b); }
CCOO_HD inline bool operator<(const CCOOBits128 &a, const CCOOBits128 &b) { return a.re != b.re ? a.re < b.re : a.im < b.im; }
template <typename V>
using CCOOKeyOf = std::conditional_t<sizeof(V) == sizeof(uint64_t), uint64_t, CCOOBits128>;
using CCOOKey   = CCOOKeyOf<PetscScalar>;
static_assert(sizeof(PetscScalar) == sizeof(CCOOKey), "CCOO keys the table on the values' bits: real or complex double");

enum : unsigned {
  CCOO_SINGLE    = 1u,  /* whole chunk in one row: no row offsets */
  CCOO_COL_SHIFT = 1u,  /* bits 1-2: column width code */
  CCOO_LUT_MODE  = 8u,  /* values come from the table now */
  CCOO_HAS_IDX   = 16u, /* the blob holds table indices */
  CCOO_CONT_PREV = 32u, /* first row continues from the previous chunk */
  CCOO_CONT_NEXT = 64u, /* last row continues into the next chunk */
};

constexpr int     CCOO_NK        = 5;     /* K in {1, 2, 4, 8, 16} */
constexpr int     CCOO_KMAX      = 16;    /* the largest K (the Refresh kernel's register array) */
constexpr int64_t CCOO_WIDE_SPAN = 32767; /* a row of a larger column span counts as wide (CCOOChooseK) */

struct CCOOOptions {
  PetscInt  threads    = 256;         /* B: threads per block = slots per chunk */
  PetscInt  k          = 0;           /* K: nonzeros per thread, 1, 2, 4, 8 or 16; 0 = automatic */
  PetscInt  col_bits   = 8;           /* narrowest column offset width allowed: 8, 16 or 32 */
  PetscInt  lut_size   = 256;         /* value table entries, 0 = plain values only */
  PetscBool single_row = PETSC_TRUE;  /* single-row chunks drop their row offsets */
};

/* Row statistics, the parameters chosen from them and the counts of the layout (identical on both sides) */
struct CCOOStats {
  PetscInt m = 0, n = 0, nonempty = 0, maxlen = 0;
  int64_t  nnz = 0;
  int64_t  slots_k[CCOO_NK] = {0, 0, 0, 0, 0}; /* slots for K = 1, 2, 4, 8, 16 (index CCOOKIndex(K)) */
  int64_t  wide             = 0;               /* nonzeros of the rows whose column span exceeds 32767 */
  PetscInt B = 256, K = 1;
  int64_t  S = 0, nchunks = 0, padded = 0, blob_bytes = 0;
  int64_t  ndistinct = 0, lut_cover = 0; /* distinct bit patterns ranked for the table: the candidates (at most CCOO_CANDIDATES), plus the distinct missed values when the misses were counted (CCOOMissesCounted: then every distinct value of the matrix); nonzeros whose value is in the table (all 0 without a table) */
  int64_t  nmiss     = 0;                /* nonzeros whose value is no candidate (0 without a table) */
  int64_t  nsample = 0, nscover = 0;     /* sampled values (0: no table asked for), of which among the lut_size most frequent sampled (CCOOTableBuilt) */
  PetscInt L = 0;                       /* table entries */
  /* chunk counts */
  int64_t nsingle = 0, ncol[3] = {0, 0, 0}, nidx = 0, nlut = 0, ncross = 0;
};

/* The layout; the host reference and a copy of the device arrays (Verify) use the same struct */
struct CCOOLayout {
  PetscInt              B = 256, K = 1;
  PetscInt              m = 0, n = 0;
  int64_t               nnz = 0, S = 0, nchunks = 0;
  std::vector<uint8_t>  fmt;
  std::vector<int>      row_base, col_base;
  std::vector<int64_t>  chunk_ptr; /* nchunks + 1 */
  std::vector<uint8_t>  blob;
  std::vector<SpMVHostScalar> vals; /* nchunks * B * K */
  std::vector<CCOOKey>  lut;       /* L bit patterns */
  std::vector<int>      rep;       /* L CSR positions */
  std::vector<int>      slot_src;  /* nchunks * B */
  std::vector<uint8_t>  slot_cnt;  /* nchunks * B */
};

/* shared rules, used by the host reference and the device kernels */
CCOO_HD inline bool CCOOValidK(int64_t K) { return K == 1 || K == 2 || K == 4 || K == 8 || K == 16; }
/* log2 K, the index of K in slots_k (K valid) */
CCOO_HD inline int CCOOKIndex(int64_t K)
{
  int e = 0;
  while (e < CCOO_NK - 1 && ((int64_t)1 << e) < K) e++;
  return e;
}
CCOO_HD inline int64_t CCOOSlots(int64_t len, int K) { return len > 0 ? (len + K - 1) / K : 1; }
CCOO_HD inline int     CCOOWidthCode(int64_t maxoff, int col_bits)
{
  if (col_bits <= 8 && maxoff <= 254) return 0;
  if (col_bits <= 16 && maxoff <= 65534) return 1;
  return 2;
}
CCOO_HD inline int64_t CCOOChunkBytes(unsigned f, int B, int K)
{
  const int64_t C = (int64_t)B * K;
  return ((f & CCOO_SINGLE) ? 0 : B) + (C << ((f >> 1) & 3)) + ((f & CCOO_HAS_IDX) ? C : 0);
}
CCOO_HD inline uint32_t CCOOSentinel(int code) { return code == 0 ? 0xffu : code == 1 ? 0xffffu : 0xffffffffu; }
/* The bit pattern of a value, the table's key: CCOOKeyOf<V> for the value type V (double, or a complex<double> of
   std or thrust), CCOOKey for PetscScalar. */
template <typename V>
inline CCOOKeyOf<V> CCOOBits(const V &v)
{
  CCOOKeyOf<V> b;
  static_assert(sizeof(b) == sizeof(v), "a key is the value's bits");
  std::memcpy(&b, static_cast<const void *>(&v), sizeof(b));
  return b;
}
inline SpMVHostScalar CCOOFromBits(const CCOOKey &b)
{
  SpMVHostScalar v;
  std::memcpy(static_cast<void *>(&v), &b, sizeof(v)); /* std::complex is trivially copyable in all but name */
  return v;
}

/* The value-table decision (see Table above), identical on the host and the device: CCOOSampleCandidates
   counts the sampled bit patterns (taken at CCOOSamplePos(k), k < nsample = min(CCOO_SAMPLE, nnz)) that are
   among the L most frequent of the sample (nscover); the table is built iff CCOOTableBuilt(st) (lut_size > 0
   and nnz > 0 assumed). CCOOSamplePos: position k nnz / ns of stratum k plus a hash of k modulo the stratum's
   length (ns = nnz: position k, every value). The automatic format samples at the same positions. */
constexpr int64_t CCOO_SAMPLE    = 4096;
constexpr int64_t CCOO_COVER_DIV = 2; /* the table's values cover at least nsample / 2 of the sample */
CCOO_HD inline uint64_t CCOOHash(uint64_t z)
{
  z = (z + 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
CCOO_HD inline int64_t CCOOSamplePos(int64_t k, int64_t nnz, int64_t ns)
{
  if (!ns) return 0;
  const int64_t lo = k * nnz / ns, len = (k + 1) * nnz / ns - lo;
  return len > 1 ? lo + (int64_t)(CCOOHash((uint64_t)k) % (uint64_t)len) : lo;
}
/* The sample's cover and candidates, from its nsample bit patterns: returns the number of them that are among
   the L most frequent distinct patterns (ties to the smaller pattern; the cover does not depend on the
   ties), and sets *cand to the distinct patterns, at most CCOO_CANDIDATES of them: the most frequent, ties
   to the smaller pattern, sorted ascending. Both builds call it on the same sample. */
constexpr int64_t CCOO_CANDIDATES = 2048;
int64_t CCOOSampleCandidates(std::vector<CCOOKey> sample, int64_t L, std::vector<CCOOKey> *cand);
/* The misses (Table above): nonzeros whose bit pattern is no candidate. They are counted by value, and the
   table is then the top lut_size of all values, iff nmiss <= CCOOMissCap(nnz) = nnz / CCOO_MISS_DIV. Why 16:
   with more than 1/16 of the nonzeros outside the sample's values, a 2048-value chunk is almost never fully
   covered unless the misses cluster (spread, it holds 128 misses on average), so an exact table would
   serve hardly more chunks; and the extra sort (of the missed bit patterns with their positions, on the
   device) would approach the cost the candidates removed (the sort of every nonzero). Up to 1/16 the sort
   has at most nnz / 16 keys, and the device keeps the misses' positions in a buffer of nnz / 16 (past it
   they are only counted). */
constexpr int64_t  CCOO_MISS_DIV = 16;
CCOO_HD inline int64_t CCOOMissCap(int64_t nnz) { return nnz / CCOO_MISS_DIV; }
inline bool            CCOOMissesCounted(int64_t nmiss, int64_t nnz) { return nmiss <= CCOOMissCap(nnz); }
/* A bit pattern ranked for the table: its exact count over every nonzero (> 0) and its first CSR position */
struct CCOORun {
  CCOOKey  bits;
  int64_t  count;
  int      first;
};
/* The table from the ranked patterns (distinct bit patterns, any order): the candidates with their exact
   counts and first positions, plus, when the misses were counted, the missed values with theirs (or only the
   lut_size most frequent of them, by (count desc, bits asc): the result is the same). Picks the
   min(lut_size, runs) of largest count, ties to the smaller pattern, sorted ascending into *lut with their
   first positions in *rep; *cover = the sum of their counts. Both builds call it: the host build with every
   missed value, the device build with the lut_size most frequent. */
void CCOOPickTable(std::vector<CCOORun> runs, int64_t lut_size, std::vector<CCOOKey> *lut, std::vector<int> *rep, int64_t *cover);
inline bool CCOOTableBuilt(const CCOOStats &st) { return st.nsample > 0 && (st.nsample >= st.nnz || st.nscover * CCOO_COVER_DIV >= st.nsample); }

/* The explicit K, or the automatic one from slots_k, nnz, wide, lut_cover and L (see DECISIONS) */
PetscErrorCode CCOOChooseK(const CCOOOptions &, const CCOOStats &, PetscInt *K);
PetscErrorCode CCOOBuildHostLayout(const CCOOOptions &, const SpMVHostCsr &, CCOOLayout *, CCOOStats *);
PetscErrorCode CCOORefreshHostLayout(const SpMVHostCsr &, CCOOLayout *, CCOOStats *);
/* y = A x (add false; y need not be initialised) or y += A x. MultHost: the plugin's host product, each row
   summed in CSR order (bit for bit SeqAIJ without inodes). EmulateKernel: the kernel's algorithm step by
   step (thread sums, warp segmented scan, warp heads, crossing rows zeroed and "atomically" added,
   chunks in a scrambled order), for the tests. */
void CCOOMultHost(const CCOOLayout &, const SpMVHostScalar *x, SpMVHostScalar *y, bool add);
void CCOOEmulateKernel(const CCOOLayout &, const SpMVHostScalar *x, SpMVHostScalar *y, bool add);
/* Every invariant of a layout against the CSR it encodes (entries, offsets, sentinels, widths, flags,
   table membership, sizes); errors out with the first violation. Used by the tests and by Verify. */
PetscErrorCode CCOOCheckLayout(const CCOOOptions &, const SpMVHostCsr &, const CCOOLayout &);
/* Counts of the layout (fills the chunk counts of st) */
void CCOOCountChunks(const CCOOLayout &, CCOOStats *);
/* Bytes a product reads for the matrix (blob sections in use, values, chunk metadata, table) */
int64_t CCOOMatrixBytes(const CCOOStats &);

SpMVFormat *CCOOCreate(void);
