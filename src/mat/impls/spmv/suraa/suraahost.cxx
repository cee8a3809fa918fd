/* SURAA host reference: sort, segments, groups and launches (the plan), the sorted CSR, values refresh,
   executor. The device build (suraa.cu) produces the same arrays and the same plan; see suraa.h. */
#include "suraa.h"
#include <algorithm>
#include <cmath>
#include <numeric>

const char *const SURAASegmentsTypes[] = {"literal", "fd_bins", "rows", "SURAASegments", "SURAA_SEGMENTS_", nullptr};
const char *const SURAAPermuteTypes[]  = {"physical", "logical", "SURAAPermute", "SURAA_PERMUTE_", nullptr};
const char *const SURAAKernelsTypes[]  = {"suraa", "cusparse", "SURAAKernels", "SURAA_KERNELS_", nullptr};

PetscErrorCode SURAACheckOptions(const SURAAOptions &o)
{
  PetscFunctionBegin;
  PetscCheck(o.segment_rows >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_suraa_segment_rows %" PetscInt_FMT " must be >= 1", o.segment_rows);
  PetscCheck(o.max_segments >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_suraa_max_segments %" PetscInt_FMT " must be >= 1", o.max_segments);
  PetscCheck(o.vector_threshold >= 1 && o.vector_threshold <= (PetscInt)1 << 30, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_suraa_vector_threshold %" PetscInt_FMT " must be in [1, 2^30]", o.vector_threshold);
  PetscCheck(o.g1_max_rows >= -1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_suraa_g1_max_rows %" PetscInt_FMT " must be >= 0, or -1 (automatic)", o.g1_max_rows);
  PetscCheck(o.vector_width == 0 || o.vector_width == 32 || o.vector_width == 64 || o.vector_width == 128, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_suraa_vector_width %" PetscInt_FMT " must be 0 (automatic), 32, 64 or 128", o.vector_width);
  PetscCheck(o.g3_lanes == 0 || (o.g3_lanes >= 1 && o.g3_lanes <= 32 && (o.g3_lanes & (o.g3_lanes - 1)) == 0), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_suraa_g3_lanes %" PetscInt_FMT " must be 0 (automatic) or 1, 2, 4, 8, 16, 32", o.g3_lanes);
  PetscCheck(o.lane_entries >= 1 && o.lane_entries <= 32 && (o.lane_entries & (o.lane_entries - 1)) == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_suraa_lane_entries %" PetscInt_FMT " must be 1, 2, 4, 8, 16 or 32", o.lane_entries);
  PetscCheck(o.cusparse_alg == 1 || o.cusparse_alg == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_suraa_cusparse_alg %" PetscInt_FMT " must be 1 or 2 (CUSPARSE_SPMV_CSR_ALG1/ALG2)", o.cusparse_alg);
  PetscCheck(!(o.kernels == SURAA_KERNELS_CUSPARSE && o.permute == SURAA_PERMUTE_LOGICAL), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-mat_suraa_kernels cusparse runs cuSPARSE on the sorted CSR: it needs -mat_suraa_permute physical");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  SURAASegmentRows - the segment size S (rows) and the number of segments, from m, the two quartile reads
  qa, qb, and the longest and shortest rows (suraa.h "SEGMENTS"). Plain double arithmetic on integers, run
  on the host for both builds: the host reference and the device get the same S.
*/
PetscErrorCode SURAASegmentRows(const SURAAOptions &o, SURAAPlan *p)
{
  const PetscInt m = p->m;

  PetscFunctionBegin;
  p->iqr  = p->qa >= p->qb ? p->qa - p->qb : p->qb - p->qa;
  p->fd_h = m > 0 ? 2.0 * (double)p->iqr / std::cbrt((double)m) : 0.0;
  const PetscInt mm = std::max<PetscInt>(m, 1);
  PetscInt       S  = 1;
  switch (o.segments) {
  case SURAA_SEGMENTS_LITERAL: {
    const double s = std::floor(p->fd_h);
    S              = s < 1.0 ? 1 : (s >= (double)mm ? mm : (PetscInt)s);
  } break;
  case SURAA_SEGMENTS_FD_BINS: {
    PetscInt k = 1;
    if (p->iqr > 0) {
      const double kk = std::ceil((double)(p->maxlen - p->minlen) / p->fd_h);
      k               = kk < 1.0 ? 1 : (kk >= (double)o.max_segments ? o.max_segments : (PetscInt)kk);
    }
    S = std::max<PetscInt>(1, (PetscInt)(((int64_t)mm + k - 1) / k));
  } break;
  case SURAA_SEGMENTS_ROWS:
    S = std::min(std::max<PetscInt>(o.segment_rows, 1), mm);
    break;
  }
  p->S    = S;
  p->nseg = m > 0 ? (PetscInt)(((int64_t)m + S - 1) / S) : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscInt Clamp(int64_t v, int64_t lo, int64_t hi) { return (PetscInt)std::max(lo, std::min(v, hi)); }

/*
  SURAAPlanFromCounts - groups and launches (suraa.h "GROUPS", "KERNELS") from the number of leading
  segments satisfying each predicate (count[]) and the row counts rows_ge_T, rows_big, rows_mid.
*/
PetscErrorCode SURAAPlanFromCounts(const SURAAOptions &o, SURAAPlan *p)
{
  const int64_t m = p->m, S = p->S;

  PetscFunctionBegin;
  int64_t nv = p->count[SURAA_P_VEC];
  if (o.mean_gate && p->nnz < (int64_t)o.vector_threshold * m) nv = 0;
  const int64_t rv = std::min(nv * S, m);
  p->g1_max        = o.g1_max_rows >= 0 ? o.g1_max_rows : std::min<PetscInt>(kSURAAG1AutoCap, p->rows_ge_T);
  const int64_t n1 = std::min<int64_t>(nv, p->g1_max / S);
  const int64_t r1 = std::min(n1 * S, m);
  p->r1            = (PetscInt)r1;
  p->rv            = (PetscInt)rv;
  p->nlaunch       = 0;
  auto add         = [&](int kind, int lanes, int64_t b, int64_t e) {
    if (e > b) p->launch[p->nlaunch++] = {kind, lanes, (int)b, (int)e};
  };
  /* G1: buckets by row length (rows are sorted: prefixes) */
  const int64_t nbig = std::min<int64_t>(p->rows_big, r1), nmid = std::max(nbig, std::min<int64_t>(p->rows_mid, r1));
  p->nbig            = (PetscInt)nbig;
  add(SURAA_G1_CHUNKS, 1024, 0, nbig);
  add(SURAA_G1_BLOCK256, 256, nbig, nmid);
  add(SURAA_G1_BLOCK64, 64, nmid, r1);
  /* G2: Y per segment mean, or fixed */
  if (o.vector_width) add(SURAA_G2, (int)o.vector_width, r1, rv);
  else {
    const int64_t b128 = Clamp(std::min(p->count[SURAA_P_Y128] * S, m), r1, rv);
    const int64_t b64  = Clamp(std::min(p->count[SURAA_P_Y64] * S, m), b128, rv);
    add(SURAA_G2, 128, r1, b128);
    add(SURAA_G2, 64, b128, b64);
    add(SURAA_G2, 32, b64, rv);
  }
  /* G3: lanes per segment mean, or fixed */
  if (o.g3_lanes) add(SURAA_G3, (int)o.g3_lanes, rv, m);
  else {
    int64_t prev = rv;
    for (int L = 32, q = SURAA_P_L32; L >= 2; L /= 2, q--) {
      const int64_t b = Clamp(std::min(p->count[q] * S, m), prev, m);
      add(SURAA_G3, L, prev, b);
      prev = b;
    }
    add(SURAA_G3, 1, prev, m);
  }
  PetscCheck(p->nlaunch <= kSURAAMaxLaunches, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SURAA plan has %d launches", p->nlaunch);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  SURAABuildHostLayout - the layout built on the CPU exactly as the device builds it: the same sort order
  (length descending, first column ascending, row ascending), the same quartile reads, segments, counts,
  plan and chunk offsets.
*/
PetscErrorCode SURAABuildHostLayout(const SURAAOptions &o, const SpMVHostCsr &A, SURAAHostLayout *L, SURAAPlan *p)
{
  const PetscInt m = A.m, n = A.n;

  PetscFunctionBegin;
  PetscCall(SURAACheckOptions(o));
  PetscCheck(m < PETSC_INT32_MAX && n < PETSC_INT32_MAX && (m == 0 || A.i[m] < PETSC_INT32_MAX), PETSC_COMM_SELF, PETSC_ERR_SUP, "SURAA stores 32-bit indices");
  *p   = SURAAPlan();
  *L   = SURAAHostLayout();
  p->m = m;
  p->n = n;
  L->permute = o.permute;
  std::vector<PetscInt> len(m), fc(m);
  for (PetscInt r = 0; r < m; r++) {
    len[r] = A.i[r + 1] - A.i[r];
    fc[r]  = len[r] ? A.j[A.i[r]] : n;
    p->nnz += len[r];
    p->maxlen = std::max(p->maxlen, len[r]);
    p->nonempty += len[r] > 0;
    p->rows_ge_T += len[r] >= o.vector_threshold;
    p->rows_big += len[r] > kSURAABigRow;
    p->rows_mid += len[r] > kSURAAMidRow;
  }
  L->perm.resize(m);
  std::iota(L->perm.begin(), L->perm.end(), 0);
  std::stable_sort(L->perm.begin(), L->perm.end(), [&](int a, int b) { return len[a] != len[b] ? len[a] > len[b] : fc[a] < fc[b]; });
  L->rps.assign(m + 1, 0);
  for (PetscInt k = 0; k < m; k++) L->rps[k + 1] = L->rps[k] + (int)len[L->perm[k]];
  auto slen = [&](PetscInt k) { return (PetscInt)(L->rps[k + 1] - L->rps[k]); };
  if (m > 0) {
    p->qa     = slen(m / 4);
    p->qb     = slen((PetscInt)((3 * (int64_t)m) / 4));
    p->minlen = slen(m - 1);
  }
  PetscCall(SURAASegmentRows(o, p));
  for (PetscInt s = 0; s < p->nseg; s++) {
    const int64_t b = (int64_t)s * p->S, e = std::min<int64_t>(b + p->S, m);
    for (int q = 0; q < SURAA_NPRED; q++) p->count[q] += SURAASegmentPredicate(q, L->rps[e] - L->rps[b], e - b, o.vector_threshold, o.lane_entries);
  }
  PetscCall(SURAAPlanFromCounts(o, p));
  L->cstart.assign(p->nbig + 1, 0);
  for (PetscInt k = 0; k < p->nbig; k++) L->cstart[k + 1] = L->cstart[k] + (int)((slen(k) + kSURAAChunk - 1) / kSURAAChunk);
  p->nchunks = L->cstart[p->nbig];
  if (o.permute == SURAA_PERMUTE_PHYSICAL) {
    L->col.resize(p->nnz);
    L->val.resize(p->nnz);
    for (PetscInt k = 0; k < m; k++) {
      const PetscInt src = A.i[L->perm[k]];
      for (PetscInt t = 0; t < slen(k); t++) {
        L->col[L->rps[k] + t] = (int)A.j[src + t];
        L->val[L->rps[k] + t] = A.a[src + t];
      }
    }
  }
  L->i = A.i;
  L->j = A.j;
  L->a = A.a;
  p->group_nnz[0] = m ? L->rps[p->r1] : 0;
  p->group_nnz[1] = m ? L->rps[p->rv] - L->rps[p->r1] : 0;
  p->group_nnz[2] = m ? L->rps[m] - L->rps[p->rv] : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SURAARefreshHostLayout - same pattern, new values: re-gather through perm (physical), or point at them */
PetscErrorCode SURAARefreshHostLayout(const SpMVHostCsr &A, SURAAHostLayout *L)
{
  PetscFunctionBegin;
  L->i = A.i;
  L->j = A.j;
  L->a = A.a;
  if (L->permute == SURAA_PERMUTE_PHYSICAL) {
    const PetscInt m = (PetscInt)L->perm.size();
    PetscCheck(A.m == m && (m == 0 || (int64_t)A.i[m] == (int64_t)L->val.size()), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "SURAA refresh: the pattern changed");
    for (PetscInt k = 0; k < m; k++) {
      const PetscInt src = A.i[L->perm[k]];
      for (int t = L->rps[k]; t < L->rps[k + 1]; t++) L->val[t] = A.a[src + (t - L->rps[k])];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  SURAAMultHost - y = A x (add false) or y += A x, launch by launch as the device runs them: every sorted
  row k of a launch writes y[perm[k]] once; with add, the empty rows (sorted last) are left alone. Each
  row is summed in its stored order (the CSR order), so the host reference rounds as plain CSR does.
*/
void SURAAMultHost(const SURAAHostLayout &L, const SURAAPlan &p, const PetscScalar *x, PetscScalar *y, bool add)
{
  const bool physical = L.permute == SURAA_PERMUTE_PHYSICAL;
  for (int l = 0; l < p.nlaunch; l++) {
    const SURAALaunch &c   = p.launch[l];
    const int          end = add ? std::min<int>(c.end, (int)p.nonempty) : c.end;
    for (int k = c.begin; k < end; k++) {
      const int   row = L.perm[k];
      PetscScalar sum = 0;
      if (physical)
        for (int t = L.rps[k]; t < L.rps[k + 1]; t++) sum += L.val[t] * x[L.col[t]];
      else
        for (PetscInt t = L.i[row]; t < L.i[row + 1]; t++) sum += L.a[t] * x[L.j[t]];
      y[row] = add ? y[row] + sum : sum;
    }
  }
}

static const char *KindName(int kind)
{
  switch (kind) {
  case SURAA_G1_CHUNKS:
    return "G1 block/row, 1024 threads over chunks of 8192";
  case SURAA_G1_BLOCK256:
    return "G1 block/row, 256 threads";
  case SURAA_G1_BLOCK64:
    return "G1 block/row, 64 threads";
  case SURAA_G2:
    return "G2 vector";
  default:
    return "G3 sub-warp";
  }
}

/* SURAAViewPlan - the statistics and the plan, for -mat_view ::ascii_info */
PetscErrorCode SURAAViewPlan(PetscViewer v, const SURAAOptions &o, const SURAAPlan &p)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, "SURAA: rows %" PetscInt_FMT " (%" PetscInt_FMT " nonempty), nnz %" PetscInt64_FMT ", npr mean %.2f max %" PetscInt_FMT " min %" PetscInt_FMT ", quartile reads %" PetscInt_FMT " / %" PetscInt_FMT " (IQR %" PetscInt_FMT ")\n", p.m, p.nonempty, p.nnz, p.m ? (double)p.nnz / (double)p.m : 0.0, p.maxlen, p.minlen, p.qa, p.qb, p.iqr));
  PetscCall(PetscViewerASCIIPrintf(v, "SURAA: segments %s: 2 IQR / cbrt(m) = %.3g, %" PetscInt_FMT " segments of %" PetscInt_FMT " rows; threshold T %" PetscInt_FMT ", G1 cap %" PetscInt_FMT " rows%s\n", SURAASegmentsTypes[o.segments], p.fd_h, p.nseg, p.S, o.vector_threshold, p.g1_max, o.mean_gate ? ", mean gate on" : ""));
  PetscCall(PetscViewerASCIIPrintf(v, "SURAA: lane rule: about E = %" PetscInt_FMT " nonzeros per lane (-mat_suraa_lane_entries); G2 width %s, G3 lanes %s\n", o.lane_entries, o.vector_width ? "fixed (-mat_suraa_vector_width)" : "roundup32(mean/E) in [32, 128]", o.g3_lanes ? "fixed (-mat_suraa_g3_lanes)" : "the smallest power of two >= mean/E"));
  PetscCall(PetscViewerASCIIPrintf(v, "SURAA: G1 rows [0, %" PetscInt_FMT ") nnz %" PetscInt64_FMT " (%" PetscInt_FMT " rows over %" PetscInt_FMT " chunks), G2 rows [%" PetscInt_FMT ", %" PetscInt_FMT ") nnz %" PetscInt64_FMT ", G3 rows [%" PetscInt_FMT ", %" PetscInt_FMT ") nnz %" PetscInt64_FMT "\n", p.r1, p.group_nnz[0], p.nbig, p.nchunks, p.r1, p.rv, p.group_nnz[1], p.rv, p.m, p.group_nnz[2]));
  for (int l = 0; l < p.nlaunch; l++) {
    const SURAALaunch &c = p.launch[l];
    if (c.kind >= SURAA_G2) PetscCall(PetscViewerASCIIPrintf(v, "SURAA:   launch %d: %s, %d lanes per row, sorted rows [%d, %d)\n", l, KindName(c.kind), c.lanes, c.begin, c.end));
    else PetscCall(PetscViewerASCIIPrintf(v, "SURAA:   launch %d: %s, sorted rows [%d, %d)\n", l, KindName(c.kind), c.begin, c.end));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
