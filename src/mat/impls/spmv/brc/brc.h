/*
   BRC: blocked row-column format (Ashari, Sedaghati, Eisenlohr, Sadayappan, ICS'14), with the decisions
   of ../shared/reference/briefs/brc-and-argcsr.md part A.

   Rows are sorted by descending length (stable), empty rows dropped. Every row is cut into pieces of at
   most B2 nonzeros; pieces are queued FIFO (all first pieces in sorted order, then all second pieces, ...)
   and taken 32 (B1) at a time into blocks. Block b is a dense 32 x T_b tile stored column-major, with
   T_b the longest piece in it; padding repeats the column of the nearest lower lane that has an entry at
   that position (else the lowest lane that has one), so the x load hits an address a neighbour loads (the paper;
   the host reference keeps it). The device layout marks padding with a column no entry has and skips it: a lane's
   sum stops at its piece's end on both, so Inf or NaN in x reaches only the rows AIJ sends it to.
   One warp runs one block; a lane owns one piece: unsplit rows store their sum, split rows add it with
   FP64 atomics.

   Because rows are sorted, pass p of the queue is exactly the prefix of sorted rows longer than
   (p-1)*B2: the device build finds every slot's (pass, row) by a binary search over a scan, no queue.
*/
#pragma once
#include "../spmvformat.h"
#include <vector>
#include <cstdint>

/* The struct's defaults are the paper's (Eq. (3), B2max = 200, automatic coarsening); the plugin starts
   from the defaults measured on the H200 instead (BRCPluginDefaults(), see bench/results/NOTES.md). */
struct BRCOptions {
  PetscInt  width       = 0;       /* B2; 0 = automatic */
  PetscInt  width_max   = 200;     /* cap on B2 (the paper's B2max) */
  PetscReal width_c     = 1.0;     /* C of Eq. (3) */
  PetscInt  coarsen     = 0;       /* blocks per warp (rep); 0 = automatic (brief A8.6) */
  PetscBool paper_width = PETSC_TRUE; /* automatic B2 by Eq. (3); else rows up to width_max stay whole */
  PetscInt  window      = 0;          /* rows per sort window: sort and queue within it; 0 = all rows (paper) */
  PetscBool offsets16   = PETSC_TRUE; /* 16-bit column offsets from the row where every column is within 32767 of its row */
};
inline BRCOptions BRCPluginDefaults(void)
{
  BRCOptions o;
  o.width_max   = 64;
  o.coarsen     = 1;
  o.paper_width = PETSC_FALSE;
  o.window      = 65536;
  return o;
}

/* Row statistics and the parameters chosen from them (identical on host and device: integer sums) */
struct BRCStats {
  PetscInt  m = 0, nonempty = 0, maxlen = 0, nsplit = 0;
  int64_t   nnz = 0, sumsq = 0;
  PetscReal mu = 0, sigma = 0;
  PetscInt  B2 = 1, passes = 0, rep = 1;
  int64_t   nslots = 0, nblocks = 0, padded = 0;
};

/* The host reference: the paper's arrays, built by Algorithm 1 with an explicit FIFO queue */
struct BRCHostLayout {
  PetscInt               B1 = 32;
  std::vector<int>       width;    /* T_b */
  std::vector<int64_t>   offset;   /* nblocks+1 */
  std::vector<PetscScalar> data;    /* column-major blocks */
  std::vector<int>       col;
  std::vector<int>       row_perm; /* original row of each slot; -1 for dummy slots */
  std::vector<int>       split;    /* 1 if the slot's row is cut into several pieces */
  std::vector<int64_t>   src;      /* CSR position of each entry, -1 for padding (values refresh) */
};

PetscErrorCode BRCComputeStats(const BRCOptions &, PetscInt m, const int64_t *lensum_sumsq_max, PetscInt nonempty, BRCStats *);
PetscErrorCode BRCBuildHostLayout(const BRCOptions &, const SpMVHostCsr &, PetscInt B1, BRCHostLayout *, BRCStats *);
PetscErrorCode BRCRefreshHostLayout(const SpMVHostCsr &, BRCHostLayout *);
void           BRCMultHost(const BRCHostLayout &, const SpMVHostScalar *x, SpMVHostScalar *y);

/* device layout (brcdevice.cu) */
struct BRCDeviceLayout {
  int      *width = nullptr, *col = nullptr, *slot_row = nullptr, *slot_start = nullptr, *slot_take = nullptr;
  int64_t  *offset = nullptr;
  PetscScalar      *data   = nullptr; /* fp64 values, or null when single */
  SpMVSingleScalar *data32 = nullptr; /* fp32 values (spmvformat.h, "Value type") */
  short    *col16  = nullptr; /* column - (the slot's row) when every one fits 16 bits (BRCOptions::offsets16); col is then null */
  std::size_t bytes = 0;
};

SpMVFormat *BRCCreate(void);
