/*
   Speculative segmented sum SpMV on CSR (Liu & Vinter, Parallel Computing 2015), with the decisions of
   ../shared/reference/briefs/segsum-and-ccoo.md part A and the changes listed below.

   The kernel runs on the CSR arrays themselves: the format keeps pointers to the device CSR that the
   generic type owns (spmvformat.h, "Lifetimes") and builds only small auxiliary arrays.

   Decomposition (paper): the nonzeros are cut into tiles of W*T consecutive entries (W = 32 lanes, T
   entries per lane); warp g takes the S consecutive tiles [g*S, g*S+S); lane t owns the T contiguous
   entries [t*T, t*T+T) of a tile (the "matrix" segmented scan), loaded with 16-byte vector loads.
   Per tile the warp builds the segment descriptor on the fly from row_ptr (one head flag per row start
   inside the tile, in shared memory), sums each lane's run sequentially, joins the runs that span lanes
   with a shuffle segmented scan, and writes each segment's sum to y at the row r_lo + (its rank among
   the tile's heads): the speculation that no row in the tile is empty.  A row that continues into the
   next tile is carried in a register.  Tiles inside a single row take the fast track (one warp sum).

   Checking the prediction: the descriptor pass sees every row of the tile, so an empty row marks the
   tile dirty on the fly, as in the paper.  A dirty tile takes each segment's row from the descriptor
   (the row index that set the head flag, kept beside it in shared memory) instead of the speculative
   index, which is the paper's re-arrangement done while the sums are still on chip: no packed-left
   values land in y, so there is no second pass over y, no copy of y, and MatMultAdd works the same way.
   A tile whose row range is longer than the tile (only possible with empty rows) finds its row starts
   by binary search instead of walking the range.

   Carries between warps (the paper's synchronizer; its CPU stage runs here as a GPU kernel, launched on
   the same stream with no host synchronization, on compute capability 9.0 and up as a programmatic dependent
   launch that starts during the product's last wave and waits for it): the warp in which a row starts stores y[row]; every
   later warp that holds part of that row (always as its first row) writes its partial sum to a
   synchronizer slot, and the fix-up kernel adds each row's slots to y in a fixed order.  The fix-up also
   zeroes the empty rows (y = A x only), so y is never cleared with a memset.  Results are deterministic
   and equal to the host reference bit for bit (no FMA contraction, fixed summation orders).

   Value type (spmvformat.h, SupportsSingle): the device values are fp64, or fp32 for a single CSR (the
   kernel reads a32 with float2/float4 loads, 4 bytes per nonzero); each fp32 value is widened to fp64
   before the product and the rest is unchanged, so the host reference on the fp32-rounded values (in fp64)
   is still equal bit for bit. The host side needs no change.

   Auxiliary arrays (pattern only: built at assembly, kept on values-only refresh, which costs nothing):
     bound[ntiles+1]  row of each tile boundary (rightmost r with row_ptr[r] <= min(t*W*T, nnz)); the
                      paper's per-warp binary searches, done once
     wslot[nwarps]    synchronizer slot of the warp, -1 if its first row starts inside it
     run_off[nruns+1], run_row[nruns]  slots grouped by row (consecutive warps inside one long row)
     erow[nempty]     the empty rows, zeroed by the fix-up kernel
     sval[nslots]     the synchronizer values (written by every product)

   Compressed columns (the format dcsr, issue #29: the same class, kernels and host reference with C16 on):
   the kernel reads 16-bit column offsets instead of the CSR's 32-bit columns wherever a tile's columns span
   at most 65536 (the tile's smallest column is its base):
     cbase[ntiles]    the tile's smallest column, or -1: a wide tile, whose columns the kernel reads from the
                      CSR itself (32-bit; nothing is copied for it)
     c16[ntiles*W*T]  column - cbase[tile] of every nonzero of a narrow tile (0 in wide tiles and past nnz)
   Values stay where they are (the CSR's fp64, or the fp32 copy's), so a values refresh re-encodes nothing.
   A product then streams 8 (4 in fp32) + 2 bytes a nonzero in narrow tiles (+ 4 a tile for the base) instead
   of 8 + 4; the row offsets are still read by the descriptor walk. The order of the floating-point operations
   is segsum's: dcsr's product equals segsum's bit for bit. dcsr has a kernel of its own (segsum.cu, SpMVKernel16:
   the same tile sums, its loads arranged so that a warp's first tile does not wait for the tile bases, 32-bit
   element indices) and runs 4 warps a block by default (segsum: 5).

   dcsr's row kernel (long rows): a group of L lanes takes a row (the CSR-vector kernel): lane l sums the row's
   entries l, l+L, l+2L, ... in order (their columns from the same 16-bit offsets and tile bases, a wide tile's from
   the CSR), then the L partial sums are joined by an xor butterfly (offsets L/2, ..., 1) and lane 0 writes the row.
   No descriptor, no carries, no fix-up; its own summation order, which the host reference executes the same way
   (bit for bit). Measured on the H100 (bench/results/NOTES.md, "dcsr's row kernel") against the tile kernel: level
   at 42 nonzeros a row, 2-15% slower at 22-81, 3-7% faster at 97-201 (32 lanes). So by default (SegSumRowLanes) only rows of
   at least kSegSumRowMin nonzeros on average, none longer than kSegSumRowSkew times the average (a longer row would
   keep its group busy alone), take it, with 32 lanes; -mat_dcsr_row_lanes 8, 16 or 32 forces it, 0 forbids it.
*/
#pragma once
#include "../spmvformat.h"
#include <vector>
#include <cstdint>

constexpr int kSegSumW        = 32; /* lanes per warp (the paper's W) */
constexpr int kSegSumShortRun = 32; /* fix-up: runs of at most this many slots are summed by one thread */

/* Defaults: the paper's NVIDIA double-precision values (T = 4, S = 7, B = 5), which were also the fastest
   of the configurations measured on the H200 (bench/results/segsum-h200-*) */
struct SegSumOptions {
  PetscInt  tile      = 128;  /* nonzeros per tile, W*T: T = tile/32 in {2, 4, 8, 16} */
  PetscInt  S         = 7;    /* tiles per warp, 1..31 */
  PetscInt  warps     = 5;    /* warps per CUDA block (the paper's B), 1..8; dcsr: 0 (its default) from the x footprint (SegSumWarps) */
  PetscBool speculate = PETSC_TRUE; /* false: every tile takes its rows from the descriptor (ablation) */
  bool      c16       = false;       /* 16-bit column offsets per tile (the format dcsr) */
  PetscInt  rowlanes  = -1;          /* dcsr: lanes a row of the row kernel, 8, 16 or 32; 0 the tiles; -1 from the rows */
  PetscBool masks     = PETSC_TRUE;  /* dcsr: tile head masks instead of the descriptor walk, where there are no empty rows (SegSumUsesMasks) */
  PetscBool worder    = PETSC_TRUE;  /* dcsr: tiles inside one row read in the warp's order (SegSumWarpOrder) */
  const char *name    = "segsum";    /* the format's root name: options -mat_<name>_*, messages */
};
constexpr int64_t kSegSumSpan16 = 65535; /* the largest column range of a narrow (16-bit) tile */
constexpr int     kSegSumRowUnroll = 4;  /* the row kernel: entries a lane loads before it sums them */
constexpr double  kSegSumRowMin    = 96; /* the row kernel by default from this many nonzeros a row on average ... */
constexpr double  kSegSumRowSkew   = 4;  /* ... and no row longer than this times the average */

/* What the layout looks like; identical on host and device (Verify compares them) */
struct SegSumStats {
  PetscInt m = 0, n = 0;
  int64_t  nnz = 0;
  PetscInt T = 0, S = 0, warps = 0;
  int64_t  ntiles = 0, nwarps = 0;
  int64_t  nfast = 0, ndirty = 0, nlong = 0; /* tiles: inside one row, with empty rows, range longer than the tile */
  int64_t  nslots = 0, nruns = 0, nlongruns = 0, nempty = 0;
  int64_t  auxbytes = 0; /* the auxiliary arrays, see above */
  bool     c16 = false;   /* compressed columns (dcsr) */
  int64_t  nwide = 0;     /* dcsr: tiles whose columns span more than kSegSumSpan16 (32-bit columns) */
  int64_t  nwidennz = 0;  /* dcsr: the nonzeros of the wide tiles */
  int64_t  maxrow = 0;    /* dcsr: the longest row */
  int      rowlanes = 0;  /* dcsr: lanes a row of the row kernel (0: the tile kernel) */
  bool     masks = false; /* dcsr: the tile kernel reads head masks (SegSumUsesMasks) */
  bool     worder = false; /* dcsr: the tile kernel reads tiles inside one row in the warp's order (SegSumWarpOrder) */
  int64_t  xgroups = 0, xsampled = 0; /* dcsr, warps from the x footprint: distinct 4-column groups in the sampled windows, their nonzeros */
};
/* dcsr's head masks: for 128-nonzero tiles (T = 4) of the tile kernel, on a matrix without empty rows, a bit at
   every row start of a tile (16 bytes a tile), built once with the layout; the kernel then reads a tile's
   segment heads instead of walking its row offsets into shared memory, and takes each segment's row as r_lo + the
   heads before it (no row is empty): the same sums in the same order. Used wherever the tile kernel runs on such
   tiles, whatever the rows' length: on rows of fewer than 32 nonzeros the masks are also fewer bytes than the row
   offsets they replace (16 a tile against 4 a row); on longer rows they cost at most 1/8 byte a nonzero more
   (about 1% of dcsr's 10), and they save the tile the walk's instructions, which is what long rows wait for on
   an H200. Measured (bench/results/NOTES.md, "dcsr's head masks", "Session 35"): H100, 3-4% faster on meshes of 6-7
   nonzeros a row, level (-0.7% to +1.5%) on rows of 22-49; H200, 2.5-2.7% faster on rows of 42 and 49, level
   elsewhere */
inline bool SegSumUsesMasks(const SegSumOptions &o, const SegSumStats &s) { return o.c16 && o.masks && s.T == 4 && s.nempty == 0 && !s.rowlanes && s.ntiles > 0; }
/* dcsr's warp order for tiles inside one row: a full tile that lies inside one row (the fast track: one warp sum, no
   segments) is read with lane l holding entries l, l + 32, ..., l + 32 (T-1) instead of its T consecutive entries, so
   that each x gather of the warp reads 32 consecutive entries of the row (the gather floor's order) and not 32 entries
   T apart. Nothing else changes: the same bytes, the same warp sum (the lane's T products in order, then the xor
   butterfly), which the host reference executes in the same order. Where it matters: long rows (rows of hundreds or
   thousands of nonzeros, as in power-law graphs and heavy-tailed meshes), whose tiles are mostly inside one row and
   whose columns are close together, so the warp's gather touches fewer sectors and cache lines. */
inline bool SegSumWarpOrder(const SegSumOptions &o, const SegSumStats &s) { return o.c16 && o.worder && !s.rowlanes && s.ntiles > 0; }
/* dcsr's warps a block from the x footprint (-mat_dcsr_warps_per_block 0, the default). The tile kernel runs 32 warps an
   SM at its 64 registers, as blocks of 4 warps (8 blocks an SM) or of 8 (4 blocks): the same occupancy, but the warps of
   a block hold consecutive tiles, so with 8 warps a block the SM's warps gather x from 4 stretches of the matrix instead
   of 8, and neighbouring warps share the x lines their rows read in L1. That pays where a warp's gathers reach many
   distinct x sectors that its neighbours also read: rows whose columns spread over a wide band (heavy-tailed rows around
   the diagonal, graphs of census blocks ordered by region). Where a warp's columns are few and close (meshes, stencils,
   bands: its x fits in L1 at any block size) the larger block only coarsens the grid's tail (0.7-1.9% slower, measured), and
   where columns are anywhere (random, R-MAT) nothing is shared (level). The measure: the distinct 4-column groups (a 32-byte
   x sector in fp64) among kDCSRFootWindow consecutive nonzeros, at kDCSRFootSamples windows evenly spaced, a nonzero; 8 warps
   at kDCSRFootWide or more (measured: 0.47-0.71 where 8 warps ran 1.03-1.18x faster, at most 0.20 where they lost), else 4.
   The same integers on the host and the device (Verify compares them). Measured: bench/results/NOTES.md, "Session 46". */
constexpr int    kDCSRFootWindow  = 1024;
constexpr int    kDCSRFootSamples = 64;
constexpr double kDCSRFootWide    = 0.35;
inline bool      SegSumSamplesFootprint(const SegSumOptions &o, const SegSumStats &s) { return o.c16 && o.warps == 0 && !s.rowlanes && s.nnz > 0; }
#if defined(__CUDACC__)
  #define SEGSUM_HD __host__ __device__
#else
  #define SEGSUM_HD
#endif
SEGSUM_HD inline int64_t SegSumFootStart(int64_t nnz, int k) { return nnz * k / kDCSRFootSamples; }
inline int       SegSumWarps(const SegSumOptions &o, const SegSumStats &s)
{
  if (o.warps > 0) return (int)o.warps;
  return s.xsampled > 0 && (double)s.xgroups >= kDCSRFootWide * (double)s.xsampled ? 8 : 4;
}
inline int64_t SegSumAuxBytes(const SegSumStats &s) { return 4 * (s.ntiles + 1 + s.nwarps + 2 * s.nruns + 1 + s.nempty) + 8 * s.nslots + (s.c16 ? 4 * s.ntiles + 2 * s.ntiles * 32 * s.T : 0) + (s.masks ? 16 * s.ntiles : 0); }
/* bytes a product reads from the matrix, per nonzero: values, columns (16-bit in narrow tiles, 32-bit in wide
   ones, the tile bases), row offsets, tile boundaries (the synchronizer and the empty rows are left out: small) */
inline double SegSumBytesPerNnz(const SegSumStats &s, bool single)
{
  if (!s.nnz) return 0.0;
  const double nnz = (double)s.nnz, cols = s.c16 ? 2.0 * (nnz - (double)s.nwidennz) + 4.0 * (double)s.nwidennz + 4.0 * (double)s.ntiles : 4.0 * nnz;
  return (single ? 4.0 : 8.0) + (cols + (s.masks ? 16.0 * (double)s.ntiles : 4.0 * (double)(s.m + 1)) + (s.rowlanes ? 0.0 : 4.0 * (double)(s.ntiles + 1))) / nnz;
}

/* The auxiliary arrays on the host (the device holds the same, see above) */
struct SegSumHostLayout {
  std::vector<int>            bound, wslot, run_off, run_row, erow;
  std::vector<int>                 cbase; /* dcsr: see above */
  std::vector<unsigned short>      c16;
  std::vector<unsigned>            heads; /* dcsr: 4 words a tile, bit b of word w: a row starts at entry 32 w + b */
  mutable std::vector<PetscScalar> sval; /* scratch of the host executor */
};

PetscErrorCode SegSumCheckOptions(const SegSumOptions &);
/* dcsr: the row kernel's lanes a row for m rows, nnz nonzeros, the longest row maxrow (0: the tile kernel) */
int SegSumRowLanes(const SegSumOptions &, int64_t m, int64_t nnz, int64_t maxrow);
PetscErrorCode SegSumBuildHostLayout(const SegSumOptions &, const SpMVHostCsr &, SegSumHostLayout *, SegSumStats *);
/* y = A x (add = false) or y += A x: the device algorithm executed lane by lane on the CPU */
void SegSumMultHost(const SegSumStats &, const SegSumHostLayout &, const SpMVHostCsr &, const SpMVHostScalar *x, SpMVHostScalar *y, bool add);

SpMVFormat *SegSumCreate(void);
SpMVFormat *DCSRCreate(void); /* segsum with 16-bit column offsets (opt.c16), options -mat_dcsr_* */
