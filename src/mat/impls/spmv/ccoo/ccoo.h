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
   Table (B3 "LUT"): the lut_size (<= 256) most frequent bit patterns of the values (exact bit
   comparison: -0.0 and +0.0 differ, NaN payloads are kept), ties broken by the smaller bit pattern,
   stored sorted by bit pattern (the index is the position). rep[i] = first CSR position holding lut[i].
   A chunk stores indices iff every real value of it is in the table (B3); a chunk without real entries
   then also does.
   Slot arrays (for the build and the refresh only): slot_src = CSR position of the slot's first entry,
   slot_cnt = its real entries (0..K).

   DECISIONS where the paper and the brief leave a choice:
   - B = 256 threads (-mat_ccoo_threads 32..256, multiple of 32), K in {1,2,4,8} (B7: "tune K"); K = 0
     (default) chooses by a byte model with exact integer sums over the row lengths: minimise
     slots(K) * (80 K + 24), i.e. (10 + 3/K) bytes per stored entry (16-bit column + plain value, one row
     byte per slot and ~2 bytes of per-thread reduction work); ties go to the larger K.
   - col_base = minimum column, unsigned offsets (B7 "top-leftmost"); -mat_ccoo_col_bits sets the
     narrowest width allowed.
   - Refresh (same pattern, new values) [D]: the table is re-derived without a sort: lut[i] = new value at
     rep[i] (exact for MatScale, and for MatShift of a constant diagonal). A chunk with indices uses the
     table iff every new value equals, bit for bit, the table entry its stored index names; otherwise it
     falls back to plain values (written into its reserved space) until a later refresh matches again.
     Chunks built plain stay plain. Index blob, chunk_ptr and slots are never touched; a new pattern
     rebuilds everything. Cost: one read of the values, one write of the plain chunks.
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
   + 16 (x, y) vs CSR 104 B/row; with table values 8*(2+1)+1 = 25 + 16 B/row.
*/
#pragma once
#include "../spmvformat.h"
#include <vector>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
  #define CCOO_HD __host__ __device__
#else
  #define CCOO_HD
#endif

enum : unsigned {
  CCOO_SINGLE    = 1u,  /* whole chunk in one row: no row offsets */
  CCOO_COL_SHIFT = 1u,  /* bits 1-2: column width code */
  CCOO_LUT_MODE  = 8u,  /* values come from the table now */
  CCOO_HAS_IDX   = 16u, /* the blob holds table indices */
  CCOO_CONT_PREV = 32u, /* first row continues from the previous chunk */
  CCOO_CONT_NEXT = 64u, /* last row continues into the next chunk */
};

struct CCOOOptions {
  PetscInt  threads    = 256;         /* B: threads per block = slots per chunk */
  PetscInt  k          = 0;           /* K: nonzeros per thread; 0 = automatic */
  PetscInt  col_bits   = 8;           /* narrowest column offset width allowed: 8, 16 or 32 */
  PetscInt  lut_size   = 256;         /* value table entries, 0 = plain values only */
  PetscBool single_row = PETSC_TRUE;  /* single-row chunks drop their row offsets */
};

/* Row statistics, the parameters chosen from them and the counts of the layout (identical on both sides) */
struct CCOOStats {
  PetscInt m = 0, n = 0, nonempty = 0, maxlen = 0;
  int64_t  nnz = 0;
  int64_t  slots_k[4] = {0, 0, 0, 0}; /* slots for K = 1, 2, 4, 8 */
  PetscInt B = 256, K = 1;
  int64_t  S = 0, nchunks = 0, padded = 0, blob_bytes = 0;
  int64_t  ndistinct = 0, lut_cover = 0; /* distinct bit patterns, nonzeros whose value is in the table */
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
  std::vector<double>   vals;      /* nchunks * B * K */
  std::vector<uint64_t> lut;       /* L bit patterns */
  std::vector<int>      rep;       /* L CSR positions */
  std::vector<int>      slot_src;  /* nchunks * B */
  std::vector<uint8_t>  slot_cnt;  /* nchunks * B */
};

/* shared rules, used by the host reference and the device kernels */
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
inline uint64_t         CCOOBits(double v)
{
  uint64_t b;
  std::memcpy(&b, &v, sizeof(b));
  return b;
}
inline double CCOOFromBits(uint64_t b)
{
  double v;
  std::memcpy(&v, &b, sizeof(v));
  return v;
}

PetscErrorCode CCOOChooseK(const CCOOOptions &, const int64_t slots_k[4], PetscInt *K);
PetscErrorCode CCOOBuildHostLayout(const CCOOOptions &, const SpMVHostCsr &, CCOOLayout *, CCOOStats *);
PetscErrorCode CCOORefreshHostLayout(const SpMVHostCsr &, CCOOLayout *, CCOOStats *);
/* y = A x (add false; y need not be initialised) or y += A x. MultHost: the plugin's host product, each row
   summed in CSR order (bit for bit SeqAIJ without inodes). EmulateKernel: the kernel's algorithm step by
   step (thread sums, warp segmented scan, warp heads, crossing rows zeroed and "atomically" added,
   chunks in a scrambled order), for the tests. */
void CCOOMultHost(const CCOOLayout &, const PetscScalar *x, PetscScalar *y, bool add);
void CCOOEmulateKernel(const CCOOLayout &, const PetscScalar *x, PetscScalar *y, bool add);
/* Every invariant of a layout against the CSR it encodes (entries, offsets, sentinels, widths, flags,
   table membership, sizes); errors out with the first violation. Used by the tests and by Verify. */
PetscErrorCode CCOOCheckLayout(const CCOOOptions &, const SpMVHostCsr &, const CCOOLayout &);
/* Counts of the layout (fills the chunk counts of st) */
void CCOOCountChunks(const CCOOLayout &, CCOOStats *);
/* Bytes a product reads for the matrix (blob sections in use, values, chunk metadata, table) */
int64_t CCOOMatrixBytes(const CCOOStats &);

SpMVFormat *CCOOCreate(void);
