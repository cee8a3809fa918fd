/*
   PCPOLY: a fixed polynomial preconditioner M = p(B) D^-1 ~ A^-1, with B = D^-1 A (Jacobi scaling, the default)
   or B = A, D = I. Applying it takes only MatMult, VecPointwiseMult and vector updates, so it runs wherever the
   matrix and vectors run (on the GPU for CUDA vectors and a GPU matrix type). The polynomial is fixed after
   PCSetUp() (no inner Krylov iteration), so GMRES, BiCGSTAB and (for SPD matrices with chebyshev or neumann) CG
   may use it.

   Every variant is described by the residual polynomial r(t) = 1 - t p(t), of degree k+1 with r(0) = 1; p has
   degree k = -pc_poly_degree, which is also the number of MatMults of one application:

     chebyshev  r(t) = T_{k+1}((theta - t)/delta) / T_{k+1}(theta/delta), theta = (emax+emin)/2, delta = (emax-emin)/2,
                applied by the three-term Chebyshev iteration (Saad, Iterative Methods for Sparse Linear Systems,
                2nd ed., Algorithm 12.1) from a zero initial guess; [emin, emax] given or estimated by Arnoldi.
     neumann    r(t) = (1 - omega t)^{k+1}: p(B) = omega sum_{j=0..k} (I - omega B)^j, by Horner's rule.
     gmres      r(t) = prod_i (1 - t/theta_i) over the harmonic Ritz values theta_i of k+1 Arnoldi steps with B:
                the residual polynomial of k+1 GMRES steps. Applied in product form, roots in modified Leja order,
                complex conjugate pairs together in real arithmetic, extra copies of outlying roots added for
                stability: J. A. Loe and R. B. Morgan, "Toward efficient polynomial preconditioning for GMRES",
                Numer. Linear Algebra Appl. 29 (2022) e2427; M. Embree, J. A. Loe, R. B. Morgan, "Polynomial
                preconditioned Arnoldi with stability control", SIAM J. Sci. Comput. 43 (2021) A1-A25.
*/
#include <petsc/private/pcimpl.h> /*I "petscpc.h" I*/
#include <petsc/private/matimpl.h>
#include <petscblaslapack.h>
#include <petscspmv.h>
#include "polyimpl.h"

const char *const PCPolyTypes[]      = {"chebyshev", "neumann", "gmres", "PCPolyType", "PC_POLY_", NULL};
const char *const PCPolyPrecisions[] = {"double", "single", "PCPolyPrecision", "PC_POLY_PRECISION_", NULL};
PetscLogEvent     PC_Poly_SetUp, PC_Poly_Fused;

#define PCPOLY_MAX_DEGREE 1000
#define PCPOLY_NWORK      5
#define PCPOLY_LOCAL_MAX_WEIGHT 0.05 /* -pc_poly_local_max_weight: see PCSetUp_Poly() */

typedef struct {
  PCPolyType type;
  PetscInt   degree;   /* k: degree of p, MatMults per application */
  PetscBool  jacobi;   /* p(D^-1 A) D^-1 instead of p(A) */
  PetscBool  userbnds; /* emin, emax given by the user */
  PetscReal  emin, emax;
  PetscReal  tform[4]; /* bounds from the estimates lo, hi: emin = a lo + b hi, emax = c lo + d hi */
  PetscBool  tformset; /* given by the user (else the default of the context, see PCPolyDefaultTransform()) */
  PetscInt   eststeps; /* Arnoldi steps of the estimate */
  PetscReal  estlo, esthi;
  PetscBool  estimated;
  PetscBool  estreuse;          /* keep the estimated bounds while the operator keeps its nonzero pattern */
  PetscObjectId    estid;       /* the operator and its nonzero state when the bounds were estimated */
  PetscObjectState estnz;
  PetscBool        estreused;   /* this setup reused them */
  PetscReal  userdamping; /* neumann: 0 means 1/emax */
  PetscReal  omega;
  PetscBool  addroots; /* gmres: extra copies of outlying roots */
  PetscInt   nroots;   /* roots of r in application order (length degree+1+nadded) */
  PetscReal *re, *im;
  PetscInt   nadded, arnoldi; /* gmres: added copies, Arnoldi steps done */
  PetscInt   nzerodiag;
  Mat        A;    /* the operator whose polynomial is applied (Amat or Pmat, not referenced) */
  Vec        dinv; /* D^-1 */
  PCPolyPrecision precision;
  char            sformat[64]; /* -pc_poly_single_format (empty: from the operator's type) */
  char            sused[64];   /* the format of the copy */
  Mat             S;           /* single: B = D^-1 A (A without Jacobi scaling) with fp32 values, MatSpMVSingleSetUp() */
  PetscBool       suse;        /* single: the products use S (else the operator's own was faster, see PCPolySetUpSingle()) */
  PetscObjectState snz;        /* the operator's nonzero state when suse was decided */
  PetscLogDouble  sus[2];      /* the timed product B v, microseconds: fp64 operator, fp32 copy (0: not timed) */
  PetscBool        sresidual;   /* -pc_poly_residual_precision single: MatResidual() of the operator with the copy */
  Mat              resA;        /* the operator whose MatResidual() is PCPolyMatResidual (referenced), or NULL */
  PetscObjectState resstate;    /* its state when the copy was brought up to date */
  PetscBool        local;       /* -pc_poly_local: the polynomial's products with each rank's diagonal block (block Jacobi) */
  Mat              Ad;          /* local on several ranks: the operator's diagonal block (not referenced), else NULL */
  Vec              lv[2];       /* local: sequential views of a product's two vectors */
  Vec              l1;          /* local: sgn(D) L D_l1^-1, the diagonal that the l1 term adds to D_l1^-1 A_d */
  PetscReal        lmax;        /* -pc_poly_local_max_weight: the largest off-process weight for the local polynomial */
  PetscReal        lused;       /* the operator's off-process weight at the last setup (-1: not computed) */
  Vec       *work; /* PCPOLY_NWORK work vectors */
  PetscRandom rand;
} PC_Poly;

/* -pc_poly_local on several ranks: the polynomial is one of each rank's diagonal block, so that its products exchange
   no ghost values (a block Jacobi polynomial: the processor-local smoothing of hybrid smoothers). The local operator is
   the l1 one, A_l1 = A_d + sgn(D) L with L the row sums of |off-process entries|, scaled by its diagonal D_l1 = D +
   sgn(D) L: B = D_l1^-1 A_l1, whose products are A_d's plus a diagonal (the vector l1). Why l1: without it a rank whose
   rows couple mostly to other ranks (a small coarse level) gets undamped Jacobi, and the V-cycle stopped being a
   positive definite preconditioner (CG: DIVERGED_INDEFINITE_PC, ex45 on 8 ranks); A_l1 - A = sgn(D) L - A_o is
   diagonally dominant, so for SPD A a smoother that approximates A_l1^-1 stays convergent (Baker, Falgout, Kolev and
   Yang, "Multigrid smoothers for ultraparallel computing", SIAM J. Sci. Comput. 33 (2011)). Residuals b - A x keep the
   whole operator (scaled by D_l1^-1), so a smoothing step x += p(B) D_l1^-1 (b - A x) keeps A's solution as its fixed
   point. The bounds are estimated with the products used. */

/* w = A v (trans: A^T v), or with -pc_poly_local the diagonal block's product on each rank */
static PetscErrorCode PCPolyMultA(PC_Poly *poly, PetscBool trans, Vec v, Vec w)
{
  PetscFunctionBegin;
  if (!poly->Ad) {
    if (trans) PetscCall(MatMultTranspose(poly->A, v, w));
    else PetscCall(MatMult(poly->A, v, w));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetLocalVectorRead(v, poly->lv[0]));
  PetscCall(VecGetLocalVector(w, poly->lv[1]));
  if (trans) PetscCall(MatMultTranspose(poly->Ad, poly->lv[0], poly->lv[1]));
  else PetscCall(MatMult(poly->Ad, poly->lv[0], poly->lv[1]));
  PetscCall(VecRestoreLocalVector(w, poly->lv[1]));
  PetscCall(VecRestoreLocalVectorRead(v, poly->lv[0]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w = B32 v with the fp32 copy of D^-1 A, or with -pc_poly_local its diagonal block's */
static PetscErrorCode PCPolyMultS(PC_Poly *poly, Vec v, Vec w)
{
  PetscFunctionBegin;
  if (poly->Ad) PetscCall(MatSpMVSingleMultDiagonalBlock(poly->S, v, w));
  else PetscCall(MatMult(poly->S, v, w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w = B v (trans: w = B^T v = A^T D^-1 v); tmp is a work vector for the transpose. With -pc_poly_precision single the
   product B v is the fp32 copy's; transposed products keep the fp64 operator (no format stores a transpose). */
static PetscErrorCode PCPolyOp(PC_Poly *poly, PetscBool trans, Vec v, Vec w, Vec tmp)
{
  PetscFunctionBegin;
  if (!trans && poly->S && poly->suse) PetscCall(PCPolyMultS(poly, v, w)); /* the fp32 copy holds D^-1 A itself */
  else if (!trans) {
    PetscCall(PCPolyMultA(poly, PETSC_FALSE, v, w));
    if (poly->jacobi) PetscCall(VecPointwiseMult(w, poly->dinv, w));
  } else if (poly->jacobi) {
    PetscCall(VecPointwiseMult(tmp, poly->dinv, v));
    PetscCall(PCPolyMultA(poly, PETSC_TRUE, tmp, w));
  } else PetscCall(PCPolyMultA(poly, PETSC_TRUE, v, w));
  if (poly->Ad) PetscCall(PCPolyDiagonalAdd(poly->l1, v, w)); /* the l1 term, B^T's as B's (a diagonal) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------
   Setup: Arnoldi, Ritz and harmonic Ritz values, modified Leja order, added roots
   --------------------------------------------------------------------------------------------------------------- */

/* m steps of Arnoldi with B from a fixed pseudo-random start, classical Gram-Schmidt `passes` times (VecMDot/VecMAXPY,
   so one reduction per pass): twice for the GMRES polynomial's harmonic Ritz values (its roots), once for the bounds
   of chebyshev and neumann (the extreme Ritz values of 10 steps do not need the second pass; one pass is what PETSc's
   own estimate pays, KSPGMRES's classical Gram-Schmidt without refinement). H is (m+1) x m, column major, leading
   dimension m+1. Stops early at an invariant subspace (*mdone < m, H(mdone, mdone-1) = 0). */
/* Complex scalars: the Hessenberg matrix is complex, its eigenvalues come alone (no conjugate pairs), and the GMRES
   polynomial is applied one root at a time with complex coefficients; with real scalars a complex root comes with its
   conjugate and the pair is applied in real arithmetic. PCPOLY_PAIRS says which. */
#if PetscDefined(USE_COMPLEX)
  #define PCPOLY_PAIRS 0
#else
  #define PCPOLY_PAIRS 1
#endif

static PetscErrorCode PCPolyArnoldi(PC pc, PetscInt m, PetscInt passes, PetscScalar *H, PetscInt *mdone)
{
  PC_Poly     *poly = (PC_Poly *)pc->data;
  Vec         *V;
  PetscScalar *h;
  PetscReal    nrm;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(H, (m + 1) * m));
  *mdone = 0;
  {
    PetscInt N;
    PetscCall(VecGetSize(poly->dinv, &N));
    if (!N) PetscFunctionReturn(PETSC_SUCCESS); /* an empty operator has no Ritz values */
  }
  PetscCall(VecDuplicateVecs(poly->dinv, m + 1, &V));
  PetscCall(PetscMalloc1(m + 1, &h));
  if (!poly->rand) {
    PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)pc), &poly->rand));
    PetscCall(PetscRandomSetInterval(poly->rand, -1.0, 1.0));
  }
  PetscCall(PetscRandomSetSeed(poly->rand, 0x5eed));
  PetscCall(PetscRandomSeed(poly->rand)); /* the same start vector at every setup */
  PetscCall(VecSetRandom(V[0], poly->rand));
  PetscCall(VecNormalize(V[0], &nrm));
  *mdone = 0;
  for (PetscInt j = 0; j < m; j++) {
    PetscReal wnorm, hn;

    PetscCall(PCPolyOp(poly, PETSC_FALSE, V[j], V[j + 1], NULL));
    PetscCall(VecNorm(V[j + 1], NORM_2, &wnorm));
    PetscCheck(!PetscIsInfOrNanReal(wnorm), PetscObjectComm((PetscObject)pc), PETSC_ERR_FP, "PCPOLY: Inf or NaN in the Arnoldi run (matrix or diagonal not finite?)");
    for (PetscInt pass = 0; pass < passes; pass++) {
      PetscCall(VecMDot(V[j + 1], j + 1, V, h));
      for (PetscInt i = 0; i <= j; i++) {
        H[i + j * (m + 1)] += h[i];
        h[i] = -h[i];
      }
      PetscCall(VecMAXPY(V[j + 1], j + 1, h, V));
    }
    PetscCall(VecNorm(V[j + 1], NORM_2, &hn));
    *mdone = j + 1;
    if (hn <= 1e-12 * wnorm) { /* invariant subspace: the roots found so far are exact eigenvalues */
      PetscCall(PetscInfo(pc, "Arnoldi found an invariant subspace after %" PetscInt_FMT " steps\n", j + 1));
      break;
    }
    H[j + 1 + j * (m + 1)] = hn;
    PetscCall(VecScale(V[j + 1], 1.0 / hn));
  }
  PetscCall(PetscFree(h));
  PetscCall(VecDestroyVecs(m + 1, &V));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Eigenvalues of the leading n x n block of H (leading dimension ld, n+1 rows available): Ritz values, or with
   harmonic, the harmonic Ritz values = eigenvalues of H_n + h_{n+1,n}^2 H_n^-T e_n e_n^T (zeros of the GMRES
   residual polynomial; complex scalars: H_n^-H). Real scalars: conjugate pairs come adjacent, positive imaginary
   part first (LAPACK geev); complex scalars: each eigenvalue alone (zgeev). */
static PetscErrorCode PCPolyHessenbergEigenvalues(PC pc, PetscInt n, PetscInt ld, const PetscScalar *H, PetscBool harmonic, PetscReal *wr, PetscReal *wi)
{
  PetscScalar *G, *T, *f, *work, sdummy;
  PetscBLASInt bn, one = 1, lwork, info, idummy = 1, *piv;
#if PetscDefined(USE_COMPLEX)
  PetscScalar *w;
  PetscReal   *rwork;
#endif

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(8 * n, &lwork));
  PetscCall(PetscMalloc5(n * n, &G, n * n, &T, n, &f, 8 * n, &work, n, &piv));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) {
      G[i + j * n] = H[i + j * ld];
      T[j + i * n] = PetscConj(H[i + j * ld]); /* H_n^H (H_n^T with real scalars) */
    }
  if (harmonic && H[n + (n - 1) * ld] != 0.0) {
    const PetscReal hl = PetscRealPart(H[n + (n - 1) * ld]); /* a norm: real */

    PetscCall(PetscArrayzero(f, n));
    f[n - 1] = 1.0;
    PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bn, &one, T, &bn, piv, f, &bn, &info));
    PetscCall(PetscFPTrapPop());
    PetscCheck(info == 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_CONV_FAILED, "PCPOLY: the %" PetscInt_FMT " x %" PetscInt_FMT " Hessenberg matrix of the Arnoldi run is singular (LAPACK gesv info %d): the matrix is singular or the polynomial degree too high for it; try another -pc_poly_degree", n, n, (int)info);
    for (PetscInt i = 0; i < n; i++) G[i + (n - 1) * n] += hl * hl * f[i];
  }
  PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
#if PetscDefined(USE_COMPLEX)
  PetscCall(PetscMalloc2(n, &w, 2 * n, &rwork));
  PetscCallBLAS("LAPACKgeev", LAPACKgeev_("N", "N", &bn, G, &bn, w, &sdummy, &idummy, &sdummy, &idummy, work, &lwork, rwork, &info));
  for (PetscInt i = 0; i < n; i++) {
    wr[i] = PetscRealPart(w[i]);
    wi[i] = PetscImaginaryPart(w[i]);
  }
  PetscCall(PetscFree2(w, rwork));
#else
  PetscCallBLAS("LAPACKgeev", LAPACKgeev_("N", "N", &bn, G, &bn, wr, wi, &sdummy, &idummy, &sdummy, &idummy, work, &lwork, &info));
#endif
  PetscCall(PetscFPTrapPop());
  PetscCheck(info == 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_CONV_FAILED, "PCPOLY: LAPACK geev failed on the %" PetscInt_FMT " x %" PetscInt_FMT " Hessenberg matrix (info %d)", n, n, (int)info);
  /* make pairs exact conjugates (geev returns them so; guard against a lone complex value); complex scalars: no pairs */
  for (PetscInt i = 0; i < n && PCPOLY_PAIRS; i++) {
    if (wi[i] > 0.0 && i + 1 < n && wi[i + 1] < 0.0) {
      wr[i + 1] = wr[i];
      wi[i + 1] = -wi[i];
      i++;
    } else if (wi[i] != 0.0) {
      PetscCall(PetscInfo(pc, "Unpaired complex eigenvalue %g%+gi: real part kept\n", (double)wr[i], (double)wi[i]));
      wi[i] = 0.0;
    }
  }
  PetscCall(PetscFree5(G, T, f, work, piv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Modified Leja order (Bai, Hu, Reichel, IMA J. Numer. Anal. 14 (1994); as in Loe and Morgan): the root of largest
   modulus first, then repeatedly the root maximizing the product of distances to those already placed (summed
   logarithms). A complex root with positive imaginary part is placed with its conjugate right after it; conjugate
   pairs must be adjacent on input, positive imaginary part first. Equal roots (added copies) are kept apart by a
   small distance floor, which places them late. */
static PetscErrorCode PCPolyLejaOrder(PetscInt n, PetscReal *re, PetscReal *im)
{
  PetscReal *ore, *oim, *score, scale = 0.0, floor;
  PetscBool *used;
  PetscInt   m = 0;

  PetscFunctionBegin;
  if (n <= 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc4(n, &ore, n, &oim, n, &score, n, &used));
  for (PetscInt i = 0; i < n; i++) {
    used[i]  = (PetscBool)(PCPOLY_PAIRS && im[i] < 0.0); /* conjugates follow their partner */
    score[i] = 0.0;
    scale    = PetscMax(scale, PetscSqrtReal(re[i] * re[i] + im[i] * im[i]));
  }
  floor = 1e-8 * scale;
  while (m < n) {
    PetscInt  best = -1;
    PetscReal bs   = PETSC_NINFINITY;

    for (PetscInt i = 0; i < n; i++) {
      if (used[i]) continue;
      const PetscReal s = m == 0 ? PetscSqrtReal(re[i] * re[i] + im[i] * im[i]) : score[i];
      if (best < 0 || s > bs) {
        best = i;
        bs   = s;
      }
    }
    PetscCheck(best >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Leja order: unpaired complex roots");
    used[best] = PETSC_TRUE;
    ore[m]     = re[best];
    oim[m++]   = im[best];
    if (PCPOLY_PAIRS && im[best] > 0.0) {
      PetscCheck(m < n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Leja order: unpaired complex roots");
      ore[m]   = re[best];
      oim[m++] = -im[best];
    }
    for (PetscInt i = 0; i < n; i++) { /* add the log distances to the root(s) just placed */
      if (used[i]) continue;
      score[i] += PetscLogReal(PetscMax(PetscSqrtReal(PetscSqr(re[i] - re[best]) + PetscSqr(im[i] - im[best])), floor));
      if (PCPOLY_PAIRS && im[best] > 0.0) score[i] += PetscLogReal(PetscMax(PetscSqrtReal(PetscSqr(re[i] - re[best]) + PetscSqr(im[i] + im[best])), floor));
    }
  }
  PetscCall(PetscArraycpy(re, ore, n));
  PetscCall(PetscArraycpy(im, oim, n));
  PetscCall(PetscFree4(ore, oim, score, used));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Loe and Morgan's stability control: for each root theta_j, pof(j) = prod_{i != j} |1 - theta_j/theta_i| (the size
   of the other factors at theta_j); a root with pof(j) > 1e4 gets ceil((log10 pof(j) - 4)/14) extra copies (a
   complex root: copies of the pair). Returns the new arrays (owned by the caller) and the number added. */
static PetscErrorCode PCPolyAddRoots(PC pc, PetscInt n, const PetscReal *re, const PetscReal *im, PetscInt *nnew, PetscReal **nre, PetscReal **nim)
{
  PetscInt *extra, total = 0, c;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(n, &extra));
  for (PetscInt j = 0; j < n; j++) {
    PetscReal lpof = 0.0;

    if (PCPOLY_PAIRS && im[j] < 0.0) continue; /* counted with its partner */
    for (PetscInt i = 0; i < n; i++) {
      if (i == j) continue;
      const PetscReal d = PetscSqrtReal(PetscSqr(re[i] - re[j]) + PetscSqr(im[i] - im[j])), a = PetscSqrtReal(re[i] * re[i] + im[i] * im[i]);
      lpof += d > 0.0 ? PetscLog10Real(d / a) : PETSC_NINFINITY;
    }
    if (lpof > 4.0) {
      extra[j] = (PetscInt)PetscCeilReal((lpof - 4.0) / 14.0);
      total += (PCPOLY_PAIRS && im[j] > 0.0 ? 2 : 1) * extra[j];
      PetscCall(PetscInfo(pc, "Root %g%+gi: log10 pof %.1f, %" PetscInt_FMT " extra copies\n", (double)re[j], (double)im[j], (double)lpof, extra[j]));
    }
  }
  *nnew = n + total;
  PetscCall(PetscMalloc2(n + total, nre, n + total, nim));
  PetscCall(PetscArraycpy(*nre, re, n));
  PetscCall(PetscArraycpy(*nim, im, n));
  c = n;
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt e = 0; e < extra[j]; e++) {
      (*nre)[c]   = re[j];
      (*nim)[c++] = im[j];
      if (PCPOLY_PAIRS && im[j] > 0.0) {
        (*nre)[c]   = re[j];
        (*nim)[c++] = -im[j];
      }
    }
  PetscCall(PetscFree(extra));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bounds for chebyshev/neumann: given, or from eststeps Arnoldi steps (lo = smallest real part, hi = largest modulus
   of the Ritz values) through the transform */
static PetscErrorCode PCPolyBounds(PC pc)
{
  PC_Poly *poly = (PC_Poly *)pc->data;

  PetscFunctionBegin;
  if (!poly->userbnds && poly->estimated) { /* kept by PCSetUp_Poly (-pc_poly_esteig_reuse, same pattern) */
    PetscCall(PetscInfo(pc, "Bounds [%g, %g] reused (-pc_poly_esteig_reuse: the operator keeps its nonzero pattern)\n", (double)poly->emin, (double)poly->emax));
  } else if (!poly->userbnds) {
    const PetscInt m = poly->eststeps;
    PetscScalar   *H;
    PetscReal     *wr, *wi, lo = PETSC_MAX_REAL, hi = 0.0, a, b, c, d;
    PetscInt       md;

    PetscCall(PetscMalloc3((m + 1) * m, &H, m, &wr, m, &wi));
    PetscCall(PCPolyArnoldi(pc, m, 1, H, &md));
    if (md) PetscCall(PCPolyHessenbergEigenvalues(pc, md, m + 1, H, PETSC_FALSE, wr, wi));
    else lo = hi = 1.0; /* an empty operator (a rank's empty block, a level with no rows): any interval will do */
    for (PetscInt i = 0; i < md; i++) {
      lo = PetscMin(lo, wr[i]);
      hi = PetscMax(hi, PetscSqrtReal(wr[i] * wr[i] + wi[i] * wi[i]));
    }
    PetscCall(PetscFree3(H, wr, wi));
    a = poly->tform[0];
    b = poly->tform[1];
    c = poly->tform[2];
    d = poly->tform[3];
    poly->estlo     = lo;
    poly->esthi     = hi;
    poly->estimated = PETSC_TRUE;
    poly->estid     = ((PetscObject)poly->A)->id;
    PetscCall(MatGetNonzeroState(poly->A, &poly->estnz));
    poly->emin      = a * lo + b * hi;
    poly->emax      = c * lo + d * hi;
    PetscCall(PetscInfo(pc, "Ritz values of %" PetscInt_FMT " Arnoldi steps: smallest real part %g, largest modulus %g; bounds [%g, %g]\n", md, (double)lo, (double)hi, (double)poly->emin, (double)poly->emax));
    PetscCheck(poly->emin < poly->emax && (poly->emin > 0.0 || poly->emax < 0.0), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
               "PCPOLY: estimated bounds [%g, %g] (Ritz values: smallest real part %g, largest modulus %g) are not a valid interval (emin < emax, 0 outside): give -pc_poly_eigenvalues emin,emax or another -pc_poly_esteig", (double)poly->emin, (double)poly->emax, (double)lo, (double)hi);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The default interval from the Ritz values: as a preconditioner of a Krylov method the polynomial approximates B^-1 on
   the whole spectrum, [0.01 hi, 1.1 hi]; as a multigrid smoother (PCMG and PCGAMG give their smoothers the options
   prefix mg_levels_) it only has to damp the upper part, PETSc's Chebyshev smoother's [0.1 hi, 1.1 hi]. The wide
   interval is wrong for a smoother: a low-degree Chebyshev polynomial on [0.01 hi, 1.1 hi] grows fast just above the
   estimated top, and 10 Arnoldi steps underestimate the top of a Laplacian's spectrum by ~10% (1.74 for 1.99 on a
   20^3 7-point stencil), so the V-cycle amplified those modes and CG + GAMG did not converge. */
static PetscErrorCode PCPolyDefaultTransform(PC pc)
{
  PC_Poly    *poly = (PC_Poly *)pc->data;
  const char *prefix;
  char       *found = NULL;

  PetscFunctionBegin;
  if (poly->tformset) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  if (prefix) PetscCall(PetscStrstr(prefix, "mg_levels_", &found));
  poly->tform[0] = 0.0;
  poly->tform[1] = found ? 0.1 : 0.01;
  poly->tform[2] = 0.0;
  poly->tform[3] = 1.1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPolySetRoots(PC_Poly *poly, PetscInt n)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(poly->re, poly->im));
  PetscCall(PetscCalloc2(n, &poly->re, n, &poly->im));
  poly->nroots = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The fp32 copy of B: in the format asked for, else the operator's own when it stores fp32 values (brc, segsum),
   else spmv's choice among those; built or refreshed from the current values at every setup (Newton steps) */
static PetscErrorCode PCPolySetUpSingle(PC pc)
{
  PC_Poly    *poly = (PC_Poly *)pc->data;
  const char      *t    = ((PetscObject)poly->A)->type_name, *fmt = "spmv";
  PetscBool        seq, mpi;
  PetscObjectState nzs;

  PetscFunctionBegin;
  PetscCall(PetscStrbeginswith(t, "seqaij", &seq));
  PetscCall(PetscStrbeginswith(t, "mpiaij", &mpi));
  if (!seq && !mpi) { /* a shell, BAIJ, dense, ...: no copy can be made; the fp64 operator it is */
    PetscCall(MatDestroy(&poly->S));
    poly->snz = -1;
    PetscCall(PetscInfo(pc, "The fp32 copy needs an AIJ operator, not %s: the products stay in double precision\n", t));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (poly->sformat[0]) fmt = poly->sformat;
  else {
    if (seq || mpi) {
      PetscBool brc, segsum, dcsr;
      PetscCall(PetscStrcmp(t + 6, "brc", &brc));
      PetscCall(PetscStrcmp(t + 6, "segsum", &segsum));
      PetscCall(PetscStrcmp(t + 6, "dcsr", &dcsr));
      if (brc || segsum || dcsr) fmt = t + 6;
    }
  }
  PetscCall(PetscStrncpy(poly->sused, fmt, sizeof(poly->sused)));
  PetscCall(MatSpMVSingleSetUp(poly->A, poly->jacobi ? poly->dinv : NULL, fmt, &poly->S));
  PetscCall(MatGetNonzeroState(poly->A, &nzs));
  if (poly->snz != nzs) { /* a new copy or a new pattern: decide again */
    PetscBool gpu;
    poly->snz    = nzs;
    poly->suse   = PETSC_TRUE;
    poly->sus[0] = poly->sus[1] = 0;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)poly->dinv, &gpu, VECSEQCUDA, VECMPICUDA, ""));
    if (gpu) { /* fp32 values read fewer bytes than any fp64 layout except one that already compresses them (CCOO's
                  value table: 1-byte indices), so the operator's own product may be the faster one: time both */
      for (PetscInt k = 0; k < 2; k++) {
        Vec            v = poly->work[0], w = poly->work[1];
        PetscReal      nrm;
        PetscLogDouble t0, t1;
        poly->suse = (PetscBool)k;
        PetscCall(VecSet(v, 1.0));
        PetscCall(PCPolyOp(poly, PETSC_FALSE, v, w, NULL)); /* warm-up */
        PetscCall(VecNorm(w, NORM_2, &nrm));                /* waits for the device */
        PetscCall(PetscTime(&t0));
        for (PetscInt r = 0; r < 5; r++) PetscCall(PCPolyOp(poly, PETSC_FALSE, w, v, NULL));
        PetscCall(VecNorm(v, NORM_2, &nrm));
        PetscCall(PetscTime(&t1));
        poly->sus[k] = 1e6 * (t1 - t0) / 5;
      }
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, poly->sus, 2, MPIU_PETSCLOGDOUBLE, MPI_MAX, PetscObjectComm((PetscObject)pc)));
      poly->suse = (PetscBool)(poly->sus[1] <= poly->sus[0]);
      PetscCall(PetscInfo(pc, "B v: fp64 operator %.1f us, fp32 copy (%s) %.1f us: %s\n", poly->sus[0], fmt, poly->sus[1], poly->suse ? "the copy" : "the operator (its format reads fewer bytes)"));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -pc_poly_residual_precision single. A multigrid level computes its residual b - A x after pre-smoothing with
   MatResidual() of the smoother's operator (PCMG's default residual; nothing else in PETSc calls MatResidual()). With
   this option that product reads the smoother's fp32 copy, as the smoother's own products do: b - D (B32 x), B32 the
   copy of D^-1 A. The operator's residual operation (no PETSc matrix type sets one) points here while the PC is set up
   with it, and the PC is composed on the operator. The copy is used only while it is up to date (the operator's
   state unchanged since this PC's setup, the same PC); otherwise, or on a duplicate that copied the operation, the
   basic residual A x in fp64. */
#define PCPOLY_RESIDUAL_KEY "PCPolyResidual"

static PetscErrorCode PCPolyMatResidual(Mat A, Vec b, Vec x, Vec r)
{
  PC               pc = NULL;
  PetscObjectState st;

  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)A, PCPOLY_RESIDUAL_KEY, (void **)&pc));
  PetscCall(PetscObjectStateGet((PetscObject)A, &st));
  if (pc) {
    PC_Poly *poly = (PC_Poly *)pc->data;
    if (poly->resA == A && poly->S && poly->suse && st == poly->resstate) {
      PetscCall(MatMult(poly->S, x, r));
      PetscCall(PCPolyResidualFinish(b, poly->jacobi ? poly->dinv : NULL, r));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPolyResidualRelease(PC pc)
{
  PC_Poly *poly = (PC_Poly *)pc->data;
  PC       owner = NULL;

  PetscFunctionBegin;
  if (!poly->resA) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectContainerQuery((PetscObject)poly->resA, PCPOLY_RESIDUAL_KEY, (void **)&owner));
  if (owner == pc) { /* another PCPOLY on the same operator may have taken it over */
    PetscCall(PetscObjectCompose((PetscObject)poly->resA, PCPOLY_RESIDUAL_KEY, NULL));
    if (poly->resA->ops->residual == PCPolyMatResidual) poly->resA->ops->residual = NULL;
  }
  PetscCall(MatDestroy(&poly->resA));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPolyResidualSetUp(PC pc)
{
  PC_Poly *poly = (PC_Poly *)pc->data;
  Mat      A    = poly->A;

  PetscFunctionBegin;
  if (!poly->sresidual || !poly->S || !poly->suse) {
    if (poly->sresidual) PetscCall(PetscInfo(pc, "-pc_poly_residual_precision single: no fp32 copy in use, MatResidual() stays in double\n"));
    PetscCall(PCPolyResidualRelease(pc));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (poly->resA != A) PetscCall(PCPolyResidualRelease(pc));
  if (A->ops->residual && A->ops->residual != PCPolyMatResidual) {
    PetscCall(PetscInfo(pc, "-pc_poly_residual_precision single: the operator (%s) has a residual operation of its own, kept\n", ((PetscObject)A)->type_name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!poly->resA) {
    PetscCall(PetscObjectReference((PetscObject)A));
    poly->resA = A;
  }
  PetscCall(PetscObjectContainerCompose((PetscObject)A, PCPOLY_RESIDUAL_KEY, pc, NULL)); /* not referenced: released by PCReset */
  A->ops->residual = PCPolyMatResidual;
  PetscCall(PetscObjectStateGet((PetscObject)A, &poly->resstate));
  PetscCall(PetscInfo(pc, "MatResidual() of the operator with the fp32 copy (format %s)\n", poly->sused));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_Poly(PC pc)
{
  PC_Poly *poly = (PC_Poly *)pc->data;
  PetscInt M, N, k = poly->degree;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_Poly_SetUp, pc, 0, 0, 0));
  poly->A = pc->useAmat ? pc->mat : pc->pmat;
  PetscCall(MatGetSize(poly->A, &M, &N));
  PetscCheck(M == N, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_SIZ, "PCPOLY needs a square matrix, not %" PetscInt_FMT " x %" PetscInt_FMT, M, N);
  if (!poly->dinv) {
    PetscCall(MatCreateVecs(poly->A, &poly->dinv, NULL));
    PetscCall(VecDuplicateVecs(poly->dinv, PCPOLY_NWORK, &poly->work));
  }
  poly->Ad    = NULL;
  poly->lused = -1.0;
  if (poly->local) {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)poly->A), &size));
    if (size > 1) {
      PetscBool aij;
      PetscCall(PetscStrbeginswith(((PetscObject)poly->A)->type_name, MATMPIAIJ, &aij));
      if (aij && poly->jacobi) PetscCall(MatMPIAIJGetSeqAIJ(poly->A, &poly->Ad, NULL, NULL));
      else { /* as the fp32 copy, a request the operator cannot serve falls back to the whole operator and says so */
        poly->lused = -2.0;
        PetscCall(PetscInfo(pc, "-pc_poly_local needs an MPIAIJ operator (or one derived from it, not %s) and the Jacobi scaling: the whole operator's polynomial\n", ((PetscObject)poly->A)->type_name));
      }
      if (poly->Ad && !poly->lv[0]) {
        PetscCall(VecCreateLocalVector(poly->dinv, &poly->lv[0]));
        PetscCall(VecCreateLocalVector(poly->dinv, &poly->lv[1]));
        PetscCall(VecDuplicate(poly->dinv, &poly->l1));
      }
    }
  }
  if (poly->jacobi) { /* D^-1, zero diagonal entries replaced by 1 as in PCJACOBI, where the diagonal is (GPU or host);
                         -pc_poly_local: D_l1^-1 and the vector l1 */
    PetscInt nz;
    Vec      L = NULL;

    PetscCall(MatGetDiagonal(poly->A, poly->dinv));
    if (poly->Ad) { /* the off-process weight f = sum L / sum |D|: the part of the operator the local polynomial leaves
                       to the residuals; above -pc_poly_local_max_weight the whole operator's polynomial it is */
      Mat       Ao;
      PetscReal wl, wd;
      PetscCall(MatMPIAIJGetSeqAIJ(poly->A, NULL, &Ao, NULL));
      PetscCall(MatCreateVecs(Ao, NULL, &L));
      PetscCall(MatGetRowSumAbs(Ao, L));
      PetscCall(VecNorm(L, NORM_1, &wl)); /* this rank's */
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &wl, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)pc)));
      PetscCall(VecNorm(poly->dinv, NORM_1, &wd));
      poly->lused = wd > 0 ? wl / wd : 0.0;
      PetscCall(PetscInfo(pc, "-pc_poly_local: off-process weight %g (max %g) on %" PetscInt_FMT " rows: %s\n", (double)poly->lused, (double)poly->lmax, M, poly->lused <= poly->lmax ? "the local polynomial" : "the whole operator's"));
      if (poly->lused > poly->lmax) {
        poly->Ad = NULL;
        PetscCall(VecDestroy(&L));
      }
    }
    PetscCall(PCPolyInvertDiagonal(poly->dinv, L, L ? poly->l1 : NULL, &nz));
    PetscCall(VecDestroy(&L));
    PetscCallMPI(MPIU_Allreduce(&nz, &poly->nzerodiag, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)pc)));
    if (poly->nzerodiag) PetscCall(PetscInfo(pc, "%" PetscInt_FMT " zero diagonal entries replaced by 1\n", poly->nzerodiag));
  }
  if (poly->precision == PC_POLY_PRECISION_SINGLE) PetscCall(PCPolySetUpSingle(pc));
  else {
    PetscCall(MatDestroy(&poly->S));
    poly->snz = -1;
  }
  { /* estimated bounds are kept only when asked, for the same operator with the same nonzero pattern */
    PetscObjectState nzs;
    PetscCall(MatGetNonzeroState(poly->A, &nzs));
    poly->estreused = (PetscBool)(poly->estreuse && poly->estimated && !poly->userbnds && poly->estid == ((PetscObject)poly->A)->id && poly->estnz == nzs);
    if (!poly->estreused) poly->estimated = PETSC_FALSE;
  }
  poly->nadded    = 0;
  poly->arnoldi   = 0;
  switch (poly->type) {
  case PC_POLY_CHEBYSHEV: {
    PetscCall(PCPolyDefaultTransform(pc));
    PetscCall(PCPolyBounds(pc));
    const PetscReal theta = 0.5 * (poly->emax + poly->emin), delta = 0.5 * (poly->emax - poly->emin);
    PetscCall(PCPolySetRoots(poly, k + 1));
    for (PetscInt i = 0; i <= k; i++) poly->re[i] = theta - delta * PetscCosReal((2 * i + 1) * PETSC_PI / (2 * (k + 1)));
  } break;
  case PC_POLY_NEUMANN:
    if (poly->userdamping > 0.0) poly->omega = poly->userdamping;
    else {
      PetscCall(PCPolyDefaultTransform(pc));
      PetscCall(PCPolyBounds(pc));
      PetscCheck(poly->emax > 0.0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCPOLY neumann: upper bound %g is not positive: give -pc_poly_neumann_damping", (double)poly->emax);
      poly->omega = 1.0 / poly->emax;
    }
    PetscCall(PCPolySetRoots(poly, k + 1));
    for (PetscInt i = 0; i <= k; i++) poly->re[i] = 1.0 / poly->omega;
    break;
  case PC_POLY_GMRES: {
    const PetscInt m = k + 1;
    PetscScalar   *H;
    PetscReal     *wr, *wi, tiny = 0.0;
    PetscInt       md;

    PetscCall(PetscMalloc3((m + 1) * m, &H, m, &wr, m, &wi));
    PetscCall(PCPolyArnoldi(pc, m, 2, H, &md));
    poly->arnoldi = md;
    if (!md) { /* an empty operator: r(t) = 1 - t, no products */
      md    = 1;
      wr[0] = 1.0;
      wi[0] = 0.0;
    } else PetscCall(PCPolyHessenbergEigenvalues(pc, md, m + 1, H, PETSC_TRUE, wr, wi));
    for (PetscInt i = 0; i < md; i++) tiny = PetscMax(tiny, PetscSqrtReal(wr[i] * wr[i] + wi[i] * wi[i]));
    tiny *= 100 * PETSC_MACHINE_EPSILON;
    for (PetscInt i = 0; i < md; i++)
      PetscCheck(PetscSqrtReal(wr[i] * wr[i] + wi[i] * wi[i]) > tiny, PetscObjectComm((PetscObject)pc), PETSC_ERR_CONV_FAILED, "PCPOLY gmres: a harmonic Ritz value is (nearly) zero: the matrix is (nearly) singular; try a lower -pc_poly_degree");
    PetscCall(PCPolyLejaOrder(md, wr, wi));
    if (poly->addroots) {
      PetscReal *nre, *nim;
      PetscInt   nn = 0;

      PetscCall(PCPolyAddRoots(pc, md, wr, wi, &nn, &nre, &nim));
      PetscCall(PCPolyLejaOrder(nn, nre, nim));
      PetscCall(PCPolySetRoots(poly, nn));
      PetscCall(PetscArraycpy(poly->re, nre, nn));
      PetscCall(PetscArraycpy(poly->im, nim, nn));
      poly->nadded = nn - md;
      PetscCall(PetscFree2(nre, nim));
    } else {
      PetscCall(PCPolySetRoots(poly, md));
      PetscCall(PetscArraycpy(poly->re, wr, md));
      PetscCall(PetscArraycpy(poly->im, wi, md));
    }
    PetscCall(PetscFree3(H, wr, wi));
    PetscCall(PetscInfo(pc, "GMRES polynomial: %" PetscInt_FMT " Arnoldi steps, %" PetscInt_FMT " roots (%" PetscInt_FMT " added), %" PetscInt_FMT " MatMults per application\n", md, poly->nroots, poly->nadded, poly->nroots - 1));
  } break;
  }
  PetscCall(PCPolyResidualSetUp(pc));
  PetscCall(PetscLogEventEnd(PC_Poly_SetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------
   Application: y = p(B) D^-1 x (trans: y = D^-1 p(B^T) x); only Mat and Vec operations
   --------------------------------------------------------------------------------------------------------------- */
/* 1/theta for the root theta = re + i im (im = 0 with real scalars). The transposed application p(B)^T = p(B^T) has
   the same coefficients (a transpose, not a conjugate transpose) */
static inline PetscScalar PCPolyInverse(PetscReal re, PetscReal im)
{
#if PetscDefined(USE_COMPLEX)
  return 1.0 / PetscCMPLX(re, im);
#else
  (void)im;
  return 1.0 / re;
#endif
}

/* y = p(B) z for z in work[0] (overwritten), y not a work vector */
static PetscErrorCode PCPolyApplyScaled(PC pc, Vec y, PetscBool trans)
{
  PC_Poly       *poly = (PC_Poly *)pc->data;
  Vec            z = poly->work[0], w = poly->work[1], t = poly->work[2], d = poly->work[3], tmp = poly->work[4];
  const PetscInt k = poly->degree;

  PetscFunctionBegin;
  switch (poly->type) {
  case PC_POLY_CHEBYSHEV: { /* Chebyshev iteration for B y = z from y = 0 (Saad, Alg. 12.1) with the residual
                               recomputed as z - B y, so the update d_i = 2 rho_i/delta (z - B y_i) + rho_i rho_{i-1} d_{i-1}
                               is one fused vector operation */
    const PetscReal theta = 0.5 * (poly->emax + poly->emin), delta = 0.5 * (poly->emax - poly->emin), sigma = theta / delta;
    PetscReal       rho = 1.0 / sigma;

    PetscCall(VecCopy(z, d));
    PetscCall(VecScale(d, 1.0 / theta));
    PetscCall(VecCopy(d, y));
    for (PetscInt i = 0; i < k; i++) {
      const PetscReal rhon = 1.0 / (2.0 * sigma - rho);

      PetscCall(PCPolyOp(poly, trans, y, w, tmp));
      PetscCall(VecAXPBYPCZ(d, 2.0 * rhon / delta, -2.0 * rhon / delta, rhon * rho, z, w));
      PetscCall(VecAXPY(y, 1.0, d));
      rho = rhon;
    }
  } break;
  case PC_POLY_NEUMANN: { /* y <- omega z + (I - omega B) y, k times from y = omega z */
    const PetscReal om = poly->omega;

    PetscCall(VecCopy(z, y));
    PetscCall(VecScale(y, om));
    for (PetscInt i = 0; i < k; i++) {
      PetscCall(PCPolyOp(poly, trans, y, w, tmp));
      PetscCall(VecAXPBYPCZ(y, om, -om, 1.0, z, w));
    }
  } break;
  case PC_POLY_GMRES: { /* p = sum_i (1/theta_i) prod_{j<i} (1 - t/theta_j); z holds the running product */
    const PetscInt   n  = poly->nroots;
    const PetscReal *re = poly->re, *im = poly->im;
    PetscInt         i  = 0;

    PetscCall(VecSet(y, 0.0));
    while (i < n - 1) {
      if (!PCPOLY_PAIRS || im[i] == 0.0) { /* a real root, or any root with complex scalars: 1/theta a scalar */
        const PetscScalar c = PCPolyInverse(re[i], im[i]);

        PetscCall(VecAXPY(y, c, z));
        PetscCall(PCPolyOp(poly, trans, z, w, tmp));
        PetscCall(VecAXPY(z, -c, w));
        i++;
      } else { /* (1 - t/theta)(1 - t/conj(theta)) = 1 - t (2a - t)/|theta|^2: y += (2a - B) z/|theta|^2,
                  z -= B (2a - B) z/|theta|^2, with w = B z and t = B w */
        const PetscReal mod = re[i] * re[i] + im[i] * im[i], a2 = 2.0 * re[i] / mod;

        PetscCall(PCPolyOp(poly, trans, z, w, tmp));
        PetscCall(VecAXPBYPCZ(y, a2, -1.0 / mod, 1.0, z, w));
        if (i < n - 2) {
          PetscCall(PCPolyOp(poly, trans, w, t, tmp));
          PetscCall(VecAXPBYPCZ(z, -a2, 1.0 / mod, 1.0, w, t));
        }
        i += 2;
      }
    }
    if (i == n - 1) PetscCall(VecAXPY(y, PCPolyInverse(re[i], im[i]), z));
  } break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPolyApply_Private(PC pc, Vec x, Vec y, PetscBool trans)
{
  PC_Poly *poly = (PC_Poly *)pc->data;

  PetscFunctionBegin;
  if (poly->jacobi && !trans) PetscCall(VecPointwiseMult(poly->work[0], poly->dinv, x));
  else PetscCall(VecCopy(x, poly->work[0]));
  PetscCall(PCPolyApplyScaled(pc, y, trans));
  if (poly->jacobi && trans) PetscCall(VecPointwiseMult(y, poly->dinv, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The smoothing step of a multigrid level (KSPRICHARDSON calls it, PCMG's smoothers have no convergence test):
   x <- x + p(B) D^-1 (b - A x), its times. With the fp32 copy in use, the residual is computed with it too,
   D^-1 (b - A x) = D^-1 b - B32 x, so that every product of the step reads fp32 values: the smoother only has to
   damp the error, and an fp32 residual (relative error ~1e-7 of A x) does not change what it damps. As richardson's
   own loop, without the copy: b - A x with the fp64 operator (MatResidual). From a zero guess the first residual is b.
   Chebyshev: the vector updates of the step are fused, one kernel after each product (a V-cycle's coarse levels are
   bound by launches, not bytes: README, "Multigrid smoothing on the GPU"). More than one step (KSPRICHARDSON as a
   solver, -ksp_max_it > 1): every step tests ||D^-1 (b - A x)|| against rtol (relative to the first), abstol, dtol
   and Inf/NaN, as PCMG's PCApplyRichardson does, instead of running all the steps blind. */
static PetscErrorCode PCApplyRichardson_Poly(PC pc, Vec b, Vec x, Vec w, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  PC_Poly        *poly = (PC_Poly *)pc->data;
  Vec             z = poly->work[0], w0 = poly->work[1], y = poly->work[2], d = poly->work[3], s = poly->jacobi ? poly->dinv : NULL;
  const PetscBool s32 = (PetscBool)(poly->S && poly->suse), cheb = (PetscBool)(poly->type == PC_POLY_CHEBYSHEV);
  const PetscReal theta = 0.5 * (poly->emax + poly->emin), delta = 0.5 * (poly->emax - poly->emin);
  const PetscReal sigma = cheb ? theta / delta : 0.0; /* gmres/neumann have no interval: no 0/0 under -fp_trap */
  PetscReal       z0    = 0.0;

  PetscFunctionBegin;
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  for (PetscInt i = 0; i < its; i++) {
    const PetscBool zero = (PetscBool)(guesszero && i == 0);
    /* z = D^-1 (b - A x): from a zero guess D^-1 b; with the copy D^-1 b - B32 x; else the fp64 residual. Chebyshev
       (fused, polydevice.cu): the same kernel also starts the iteration, d = y = z / theta */
    if (cheb) {
      if (zero) PetscCall(PCPolyChebyshevStart(b, NULL, s, theta, z, d, y));
      else if (s32) {
        PetscCall(MatMult(poly->S, x, w0));
        PetscCall(PCPolyChebyshevStart(b, w0, s, theta, z, d, y));
      } else {
        PetscCall(MatResidual(poly->A, b, x, w0));
        PetscCall(PCPolyChebyshevStart(w0, NULL, s, theta, z, d, y));
      }
    } else if (zero) {
      if (s) PetscCall(VecPointwiseMult(z, s, b));
      else PetscCall(VecCopy(b, z));
    } else {
      if (s32) PetscCall(MatMult(poly->S, x, w));
      else PetscCall(MatResidual(poly->A, b, x, w));
      if (s32 && s) PetscCall(VecPointwiseMult(z, s, b));
      else if (s32) PetscCall(VecCopy(b, z));
      if (s32) PetscCall(VecAXPY(z, -1.0, w));
      else if (s) PetscCall(VecPointwiseMult(z, s, w));
      else PetscCall(VecCopy(w, z));
    }
    if (its > 1) { /* iterating to a tolerance (KSPRICHARDSON as a solver), not one smoothing step: test the scaled
                      residual (one reduction a step; a multigrid smoother of one step pays none) */
      PetscReal nz;
      PetscCall(VecNorm(z, NORM_2, &nz));
      if (i == 0) z0 = nz;
      if (PetscIsInfOrNanReal(nz) || (dtol > 0 && i > 0 && nz > dtol * z0)) {
        *outits = i;
        *reason = PCRICHARDSON_DIVERGED_DTOL;
        break;
      }
      if (nz <= PetscMax(rtol * z0, abstol)) {
        *outits = i;
        *reason = nz <= abstol ? PCRICHARDSON_CONVERGED_ATOL : PCRICHARDSON_CONVERGED_RTOL;
        break;
      }
    }
    if (cheb) { /* d = a z + b B y + c d, y += d; at the last product x += y (x = y from a zero guess) */
      PetscReal rho = 1.0 / sigma;
      for (PetscInt j = 0; j < poly->degree; j++) {
        const PetscReal rhon = 1.0 / (2.0 * sigma - rho);
        if (s32) PetscCall(PCPolyMultS(poly, y, w0));
        else PetscCall(PCPolyMultA(poly, PETSC_FALSE, y, w0));
        PetscCall(PCPolyChebyshevUpdate(z, w0, s32 ? NULL : s, poly->Ad ? poly->l1 : NULL, 2.0 * rhon / delta, -2.0 * rhon / delta, rhon * rho, d, y, x, j < poly->degree - 1 ? 0 : (zero ? 2 : 1)));
        rho = rhon;
      }
    } else if (zero) PetscCall(PCPolyApplyScaled(pc, x, PETSC_FALSE));
    else {
      PetscCall(PCPolyApplyScaled(pc, w, PETSC_FALSE));
      PetscCall(VecAXPY(x, 1.0, w));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_Poly(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCPolyApply_Private(pc, x, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyTranspose_Poly(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCPolyApply_Private(pc, x, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------
   Options, view, create/destroy
   --------------------------------------------------------------------------------------------------------------- */
static PetscErrorCode PCReset_Poly(PC pc)
{
  PC_Poly *poly = (PC_Poly *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCPolyResidualRelease(pc));
  PetscCall(VecDestroy(&poly->dinv));
  PetscCall(MatDestroy(&poly->S));
  poly->suse = PETSC_FALSE;
  poly->snz  = -1;
  if (poly->work) PetscCall(VecDestroyVecs(PCPOLY_NWORK, &poly->work));
  PetscCall(VecDestroy(&poly->lv[0]));
  PetscCall(VecDestroy(&poly->lv[1]));
  PetscCall(VecDestroy(&poly->l1));
  poly->Ad = NULL;
  PetscCall(PetscFree2(poly->re, poly->im));
  poly->nroots    = 0;
  poly->estimated = PETSC_FALSE;
  poly->A         = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_Poly(PC pc)
{
  PC_Poly *poly = (PC_Poly *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCReset_Poly(pc));
  PetscCall(PetscRandomDestroy(&poly->rand));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolySetType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolySetDegree_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetDegree_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolySetEigenvalues_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetEigenvalues_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolySetDamping_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetDamping_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolySetJacobi_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetJacobi_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetRoots_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolySetPrecision_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetPrecision_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the value of a precision option (-pc_poly_precision, -pc_poly_residual_precision), case-insensitive */
static PetscErrorCode PCPolyPrecisionFromString(PC pc, const char *opt, const char *value, PCPolyPrecision *p)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < 2; i++) {
    PetscBool match;
    PetscCall(PetscStrcasecmp(value, PCPolyPrecisions[i], &match));
    if (match) {
      *p = (PCPolyPrecision)i;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "Unknown %s %s: use double or single", opt, value);
}

static PetscErrorCode PCSetFromOptions_Poly(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_Poly  *poly = (PC_Poly *)pc->data;
  char      tname[64];
  PetscInt  k = poly->degree, n;
  PetscReal e[2] = {poly->emin, poly->emax}, tf[4], om = poly->userdamping;
  PetscBool flg, jac = poly->jacobi;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Polynomial preconditioner (PCPOLY) options");
  PetscCall(PetscOptionsString("-pc_poly_type", "Polynomial: chebyshev, neumann or gmres", "PCPolySetType", PCPolyTypes[poly->type], tname, sizeof(tname), &flg));
  if (flg) {
    PetscInt t = -1;
    for (PetscInt i = 0; i < 3; i++) {
      PetscBool match;
      PetscCall(PetscStrcasecmp(tname, PCPolyTypes[i], &match));
      if (match) t = i;
    }
    PetscCheck(t >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "Unknown -pc_poly_type %s: use chebyshev, neumann or gmres", tname);
    PetscCall(PCPolySetType(pc, (PCPolyType)t));
  }
  PetscCall(PetscOptionsInt("-pc_poly_degree", "Degree k of p (MatMults per application)", "PCPolySetDegree", k, &k, &flg));
  if (flg) PetscCall(PCPolySetDegree(pc, k));
  PetscCall(PetscOptionsBool("-pc_poly_jacobi", "Polynomial in D^-1 A, then scaled by D^-1 (D = diag(A))", "PCPolySetJacobi", jac, &jac, &flg));
  if (flg) PetscCall(PCPolySetJacobi(pc, jac));
  n = 2;
  PetscCall(PetscOptionsRealArray("-pc_poly_eigenvalues", "emin,emax: spectrum bounds of D^-1 A (of A with -pc_poly_jacobi 0) for chebyshev and neumann; default: estimated", "PCPolySetEigenvalues", e, &n, &flg));
  if (flg) {
    PetscCheck(n == 2, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "-pc_poly_eigenvalues needs two values emin,emax, not %" PetscInt_FMT, n);
    PetscCall(PCPolySetEigenvalues(pc, e[0], e[1]));
  }
  PetscCall(PetscArraycpy(tf, poly->tform, 4));
  n = 4;
  PetscCall(PetscOptionsRealArray("-pc_poly_esteig", "a,b,c,d: estimated bounds emin = a*lo + b*hi, emax = c*lo + d*hi (lo, hi: smallest real part, largest modulus of the Ritz values)", "", tf, &n, &flg));
  if (flg) {
    PetscCheck(n == 4, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "-pc_poly_esteig needs four values a,b,c,d, not %" PetscInt_FMT, n);
    PetscCheck(tf[3] > 0.0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_poly_esteig: the safety factor d = %g on the largest eigenvalue must be positive", (double)tf[3]);
    PetscCall(PetscArraycpy(poly->tform, tf, 4));
    poly->tformset  = PETSC_TRUE;
    poly->estimated = PETSC_FALSE;
  }
  PetscCall(PetscOptionsInt("-pc_poly_esteig_steps", "Arnoldi steps of the eigenvalue estimate (chebyshev, neumann)", "", poly->eststeps, &n, &flg));
  if (flg) {
    PetscCheck(n >= 1 && n <= PCPOLY_MAX_DEGREE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_poly_esteig_steps %" PetscInt_FMT " must be in [1, %d]", n, PCPOLY_MAX_DEGREE);
    poly->eststeps  = n;
    poly->estimated = PETSC_FALSE;
  }
  PetscCall(PetscOptionsBool("-pc_poly_esteig_reuse", "Keep the estimated bounds at a new setup while the operator keeps its nonzero pattern (new values: Newton steps, GAMG re-setup with -pc_gamg_reuse_interpolation)", "", poly->estreuse, &poly->estreuse, NULL));
  PetscCall(PetscOptionsReal("-pc_poly_neumann_damping", "Damping omega of the Neumann series (0: 1/emax)", "PCPolySetDamping", om, &om, &flg));
  if (flg) PetscCall(PCPolySetDamping(pc, om));
  PetscCall(PetscOptionsString("-pc_poly_precision", "Precision of the matrix values in the products: double, or single (an fp32 copy of the operator, fp64 vectors)", "PCPolySetPrecision", PCPolyPrecisions[poly->precision], tname, sizeof(tname), &flg));
  if (flg) {
    PCPolyPrecision prec;
    PetscCall(PCPolyPrecisionFromString(pc, "-pc_poly_precision", tname, &prec));
    PetscCall(PCPolySetPrecision(pc, prec));
  }
  PetscCall(PetscOptionsString("-pc_poly_single_format", "Format of the fp32 copy: brc, segsum, dcsr or spmv (default: the operator's when brc, segsum or dcsr, else spmv)", "PCPolySetPrecision", poly->sformat, tname, sizeof(tname), &flg));
  if (flg) {
    PetscBool ok = PETSC_FALSE;
    for (PetscInt i = 0; i < 4; i++) {
      PetscBool match;
      PetscCall(PetscStrcasecmp(tname, ((const char *[]){"brc", "segsum", "dcsr", "spmv"})[i], &match));
      ok = (PetscBool)(ok || match);
    }
    PetscCheck(ok, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "-pc_poly_single_format %s: use brc, segsum, dcsr or spmv (the formats that store fp32 values, or the choice between them)", tname);
    PetscCall(PetscStrncpy(poly->sformat, tname, sizeof(poly->sformat)));
  }
  PetscCall(PetscOptionsString("-pc_poly_residual_precision", "Precision of MatResidual() with the operator (a multigrid level's residual after pre-smoothing): double, or single (the fp32 copy of -pc_poly_precision single)", "", PCPolyPrecisions[poly->sresidual ? 1 : 0], tname, sizeof(tname), &flg));
  if (flg) {
    PCPolyPrecision prec;
    PetscCall(PCPolyPrecisionFromString(pc, "-pc_poly_residual_precision", tname, &prec));
    poly->sresidual = (PetscBool)(prec == PC_POLY_PRECISION_SINGLE);
  }
  PetscCall(PetscOptionsBool("-pc_poly_local", "The polynomial's products with each process's diagonal block only (block Jacobi: no ghost values exchanged; residuals keep the whole operator)", "", poly->local, &poly->local, NULL));
  PetscCall(PetscOptionsReal("-pc_poly_local_max_weight", "-pc_poly_local only on an operator whose off-process weight (sum of |off-process entries| / sum of |diagonal|) is at most this", "", poly->lmax, &poly->lmax, NULL));
  PetscCall(PetscOptionsBool("-pc_poly_gmres_add_roots", "Add copies of outlying harmonic Ritz values for stability (Loe-Morgan)", "", poly->addroots, &poly->addroots, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_Poly(PC pc, PetscViewer viewer)
{
  PC_Poly  *poly = (PC_Poly *)pc->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  %s polynomial of degree %" PetscInt_FMT " in %s%s\n", PCPolyTypes[poly->type], poly->nroots ? poly->nroots - 1 : poly->degree, poly->jacobi ? "D^-1 A, times D^-1 (Jacobi scaling)" : "A", pc->useAmat ? " (Amat)" : ""));
  if (!pc->setupcalled || !poly->nroots) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  (not set up yet)\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  %" PetscInt_FMT " MatMults per application\n", poly->nroots - 1));
  if (poly->type == PC_POLY_CHEBYSHEV || (poly->type == PC_POLY_NEUMANN && poly->userdamping <= 0.0)) {
    if (poly->estimated) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "  bounds [emin, emax] = [%g, %g], estimated%s: %" PetscInt_FMT " Arnoldi steps, Ritz values with real parts >= %g, moduli <= %g, transform %g, %g, %g, %g\n", (double)poly->emin, (double)poly->emax,
                                       poly->estreused ? " at an earlier setup (-pc_poly_esteig_reuse)" : "", poly->eststeps, (double)poly->estlo, (double)poly->esthi, (double)poly->tform[0], (double)poly->tform[1], (double)poly->tform[2], (double)poly->tform[3]));
    } else PetscCall(PetscViewerASCIIPrintf(viewer, "  bounds [emin, emax] = [%g, %g], given\n", (double)poly->emin, (double)poly->emax));
  }
  if (poly->type == PC_POLY_NEUMANN) PetscCall(PetscViewerASCIIPrintf(viewer, "  damping omega = %g%s\n", (double)poly->omega, poly->userdamping > 0.0 ? " (given)" : " (1/emax)"));
  if (poly->type == PC_POLY_GMRES) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  GMRES polynomial of %" PetscInt_FMT " Arnoldi steps; %" PetscInt_FMT " harmonic Ritz values%s, %" PetscInt_FMT " added copies; roots in application (modified Leja) order:\n", poly->arnoldi, poly->nroots - poly->nadded,
                                     poly->arnoldi < poly->degree + 1 ? " (invariant subspace found)" : "", poly->nadded));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
    PetscCall(PetscViewerASCIIPrintf(viewer, "    "));
    for (PetscInt i = 0; i < poly->nroots; i++) {
      if (poly->im[i] < 0.0) continue;
      if (poly->im[i] > 0.0) PetscCall(PetscViewerASCIIPrintf(viewer, "%s%.4g+-%.4gi", i ? ", " : "", (double)poly->re[i], (double)poly->im[i]));
      else PetscCall(PetscViewerASCIIPrintf(viewer, "%s%.4g", i ? ", " : "", (double)poly->re[i]));
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  if (poly->jacobi && poly->nzerodiag) PetscCall(PetscViewerASCIIPrintf(viewer, "  %" PetscInt_FMT " zero diagonal entries replaced by 1\n", poly->nzerodiag));
  if (poly->local && poly->Ad) PetscCall(PetscViewerASCIIPrintf(viewer, "  products with each process's diagonal block plus the l1 diagonal of its off-process entries: a block Jacobi polynomial, no ghost values exchanged (-pc_poly_local; off-process weight %g <= %g)\n", (double)poly->lused, (double)poly->lmax));
  else if (poly->local && poly->lused == -2.0) PetscCall(PetscViewerASCIIPrintf(viewer, "  products with the whole operator: -pc_poly_local needs an MPIAIJ operator and the Jacobi scaling\n"));
  else if (poly->local && poly->lused >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  products with the whole operator: its off-process weight %g is above -pc_poly_local_max_weight %g\n", (double)poly->lused, (double)poly->lmax));
  else if (poly->local) PetscCall(PetscViewerASCIIPrintf(viewer, "  products with the whole operator (one process; -pc_poly_local)\n"));
  if (poly->S && !poly->suse) PetscCall(PetscViewerASCIIPrintf(viewer, "  precision: single asked, double used: the operator's own product (%.1f us) was faster than the fp32 copy's in format %s (%.1f us)\n", poly->sus[0], poly->sused, poly->sus[1]));
  else if (poly->S) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  precision: single (the polynomial's products with an fp32 copy of %s in format %s; transposed products in double)\n", poly->jacobi ? "D^-1 A" : "A", poly->sused));
    if (poly->sus[1] > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  B v timed at setup: fp32 copy %.1f us, fp64 operator %.1f us\n", poly->sus[1], poly->sus[0]));
    if (poly->resA) PetscCall(PetscViewerASCIIPrintf(viewer, "  MatResidual() of the operator with the fp32 copy (-pc_poly_residual_precision single)\n"));
    {
      PetscCount nf;
      PetscCall(MatSpMVSingleGetFlushed(poly->S, &nf));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  %" PetscCount_FMT " nonzeros of %s below fp32's smallest normal number flushed to 0\n", nf, poly->jacobi ? "D^-1 A" : "A"));
    }
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(PetscViewerPushFormat(viewer, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(poly->S, viewer));
    PetscCall(PetscViewerPopFormat(viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  } else if (poly->precision == PC_POLY_PRECISION_SINGLE) PetscCall(PetscViewerASCIIPrintf(viewer, "  precision: single asked, double used: the fp32 copy needs an AIJ operator, not %s\n", poly->A ? ((PetscObject)poly->A)->type_name : "?"));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  precision: double\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPolySetType_Poly(PC pc, PCPolyType type)
{
  PC_Poly *poly = (PC_Poly *)pc->data;

  PetscFunctionBegin;
  if (poly->type != type) pc->setupcalled = PETSC_FALSE;
  poly->type = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCPolyGetType_Poly(PC pc, PCPolyType *type)
{
  PetscFunctionBegin;
  *type = ((PC_Poly *)pc->data)->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCPolySetDegree_Poly(PC pc, PetscInt k)
{
  PC_Poly *poly = (PC_Poly *)pc->data;

  PetscFunctionBegin;
  if (poly->degree != k) pc->setupcalled = PETSC_FALSE;
  poly->degree = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCPolyGetDegree_Poly(PC pc, PetscInt *k)
{
  PetscFunctionBegin;
  *k = ((PC_Poly *)pc->data)->degree;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCPolySetEigenvalues_Poly(PC pc, PetscReal emin, PetscReal emax)
{
  PC_Poly *poly = (PC_Poly *)pc->data;

  PetscFunctionBegin;
  poly->emin        = emin;
  poly->emax        = emax;
  poly->userbnds    = PETSC_TRUE;
  poly->estimated   = PETSC_FALSE;
  pc->setupcalled   = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCPolyGetEigenvalues_Poly(PC pc, PetscReal *emin, PetscReal *emax)
{
  PC_Poly *poly = (PC_Poly *)pc->data;

  PetscFunctionBegin;
  if (emin) *emin = poly->emin;
  if (emax) *emax = poly->emax;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCPolySetDamping_Poly(PC pc, PetscReal omega)
{
  PC_Poly *poly = (PC_Poly *)pc->data;

  PetscFunctionBegin;
  if (poly->userdamping != omega) pc->setupcalled = PETSC_FALSE;
  poly->userdamping = omega;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCPolyGetDamping_Poly(PC pc, PetscReal *omega)
{
  PC_Poly *poly = (PC_Poly *)pc->data;

  PetscFunctionBegin;
  *omega = poly->nroots ? poly->omega : poly->userdamping;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCPolySetJacobi_Poly(PC pc, PetscBool flg)
{
  PC_Poly *poly = (PC_Poly *)pc->data;

  PetscFunctionBegin;
  if (poly->jacobi != flg) pc->setupcalled = PETSC_FALSE;
  poly->jacobi = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCPolyGetJacobi_Poly(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((PC_Poly *)pc->data)->jacobi;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCPolySetPrecision_Poly(PC pc, PCPolyPrecision p)
{
  PC_Poly *poly = (PC_Poly *)pc->data;

  PetscFunctionBegin;
  if (poly->precision != p) pc->setupcalled = PETSC_FALSE;
  poly->precision = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCPolyGetPrecision_Poly(PC pc, PCPolyPrecision *p)
{
  PetscFunctionBegin;
  *p = ((PC_Poly *)pc->data)->precision;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCPolyGetRoots_Poly(PC pc, PetscInt *n, const PetscReal *re[], const PetscReal *im[])
{
  PC_Poly *poly = (PC_Poly *)pc->data;

  PetscFunctionBegin;
  if (n) *n = poly->nroots;
  if (re) *re = poly->re;
  if (im) *im = poly->im;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPolySetType - Sets the polynomial of a `PCPOLY` preconditioner

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- type - `PC_POLY_CHEBYSHEV`, `PC_POLY_NEUMANN` or `PC_POLY_GMRES`

  Options Database Key:
. -pc_poly_type (chebyshev|neumann|gmres) - the polynomial

  Level: intermediate

.seealso: [](ch_ksp), `PCPOLY`, `PCPolyType`, `PCPolyGetType()`, `PCPolySetDegree()`
@*/
PetscErrorCode PCPolySetType(PC pc, PCPolyType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscCheck(type >= PC_POLY_CHEBYSHEV && type <= PC_POLY_GMRES, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "Unknown PCPolyType %d", (int)type);
  PetscTryMethod(pc, "PCPolySetType_C", (PC, PCPolyType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPolyGetType - Gets the polynomial of a `PCPOLY` preconditioner

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - the `PCPolyType`

  Level: intermediate

.seealso: [](ch_ksp), `PCPOLY`, `PCPolySetType()`
@*/
PetscErrorCode PCPolyGetType(PC pc, PCPolyType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(type, 2);
  PetscUseMethod(pc, "PCPolyGetType_C", (PC, PCPolyType *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPolySetDegree - Sets the degree k of the polynomial p of a `PCPOLY` preconditioner: one application costs k
  `MatMult()`s (the `PC_POLY_GMRES` polynomial may get a few more from added roots, see `PCPOLY`)

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- k  - the degree, 1 <= k <= 1000

  Options Database Key:
. -pc_poly_degree k - the degree

  Level: intermediate

.seealso: [](ch_ksp), `PCPOLY`, `PCPolyGetDegree()`
@*/
PetscErrorCode PCPolySetDegree(PC pc, PetscInt k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, k, 2);
  PetscCheck(k >= 1 && k <= PCPOLY_MAX_DEGREE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCPOLY degree %" PetscInt_FMT " must be in [1, %d]", k, PCPOLY_MAX_DEGREE);
  PetscTryMethod(pc, "PCPolySetDegree_C", (PC, PetscInt), (pc, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPolyGetDegree - Gets the requested degree of the polynomial of a `PCPOLY` preconditioner

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. k - the degree

  Level: intermediate

.seealso: [](ch_ksp), `PCPOLY`, `PCPolySetDegree()`, `PCPolyGetRoots()`
@*/
PetscErrorCode PCPolyGetDegree(PC pc, PetscInt *k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(k, 2);
  PetscUseMethod(pc, "PCPolyGetDegree_C", (PC, PetscInt *), (pc, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPolySetEigenvalues - Sets the interval [emin, emax] for the `PC_POLY_CHEBYSHEV` polynomial (and, through emax,
  the default damping of `PC_POLY_NEUMANN`) instead of estimating it

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
. emin - lower bound of the (real parts of the) spectrum of D^-1 A (of A with `PCPolySetJacobi`(pc, `PETSC_FALSE`))
- emax - upper bound

  Options Database Key:
. -pc_poly_eigenvalues emin,emax - the bounds

  Level: intermediate

  Note:
  The interval must not contain 0: emin < emax and either 0 < emin or emax < 0.

.seealso: [](ch_ksp), `PCPOLY`, `PCPolyGetEigenvalues()`
@*/
PetscErrorCode PCPolySetEigenvalues(PC pc, PetscReal emin, PetscReal emax)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, emin, 2);
  PetscValidLogicalCollectiveReal(pc, emax, 3);
  PetscCheck(emin < emax, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCPOLY eigenvalue bounds need emin < emax, not emin %g >= emax %g", (double)emin, (double)emax);
  PetscCheck(emin > 0.0 || emax < 0.0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCPOLY eigenvalue bounds [%g, %g] must not contain 0", (double)emin, (double)emax);
  PetscTryMethod(pc, "PCPolySetEigenvalues_C", (PC, PetscReal, PetscReal), (pc, emin, emax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPolyGetEigenvalues - Gets the interval [emin, emax] used by `PC_POLY_CHEBYSHEV` (and `PC_POLY_NEUMANN`'s default
  damping): given, or estimated at `PCSetUp()`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ emin - lower bound (or `NULL`)
- emax - upper bound (or `NULL`)

  Level: intermediate

.seealso: [](ch_ksp), `PCPOLY`, `PCPolySetEigenvalues()`
@*/
PetscErrorCode PCPolyGetEigenvalues(PC pc, PetscReal *emin, PetscReal *emax)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCPolyGetEigenvalues_C", (PC, PetscReal *, PetscReal *), (pc, emin, emax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPolySetDamping - Sets the damping omega of the `PC_POLY_NEUMANN` series omega sum_{j=0..k} (I - omega B)^j

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- omega - the damping, > 0; 0 restores the default 1/emax (emax given or estimated)

  Options Database Key:
. -pc_poly_neumann_damping omega - the damping

  Level: intermediate

.seealso: [](ch_ksp), `PCPOLY`, `PCPolyGetDamping()`
@*/
PetscErrorCode PCPolySetDamping(PC pc, PetscReal omega)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, omega, 2);
  PetscCheck(omega >= 0.0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCPOLY Neumann damping %g must be positive (0: default)", (double)omega);
  PetscTryMethod(pc, "PCPolySetDamping_C", (PC, PetscReal), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPolyGetDamping - Gets the damping of the `PC_POLY_NEUMANN` series (after `PCSetUp()`: the one in use)

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. omega - the damping

  Level: intermediate

.seealso: [](ch_ksp), `PCPOLY`, `PCPolySetDamping()`
@*/
PetscErrorCode PCPolyGetDamping(PC pc, PetscReal *omega)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(omega, 2);
  PetscUseMethod(pc, "PCPolyGetDamping_C", (PC, PetscReal *), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPolySetJacobi - Sets whether `PCPOLY` applies p(D^-1 A) D^-1 (Jacobi scaling, D = diag(A), the default) or p(A)

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- flg - `PETSC_TRUE` for the Jacobi scaling

  Options Database Key:
. -pc_poly_jacobi (true|false) - the scaling

  Level: intermediate

.seealso: [](ch_ksp), `PCPOLY`, `PCPolyGetJacobi()`
@*/
PetscErrorCode PCPolySetJacobi(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCPolySetJacobi_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPolyGetJacobi - Gets whether `PCPOLY` uses the Jacobi scaling

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. flg - `PETSC_TRUE` when it applies p(D^-1 A) D^-1

  Level: intermediate

.seealso: [](ch_ksp), `PCPOLY`, `PCPolySetJacobi()`
@*/
PetscErrorCode PCPolyGetJacobi(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(flg, 2);
  PetscUseMethod(pc, "PCPolyGetJacobi_C", (PC, PetscBool *), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PCPolyGetRoots - Gets the roots of the residual polynomial r(t) = 1 - t p(t) of a set-up `PCPOLY`, in the order of
  application: p has degree n-1 and r(t) = prod_i (1 - t/theta_i), theta_i = re[i] + i im[i], t an eigenvalue of
  D^-1 A (of A without Jacobi scaling)

  Not Collective

  Input Parameter:
. pc - the preconditioner context (after `PCSetUp()`)

  Output Parameters:
+ n  - number of roots (0 before `PCSetUp()`)
. re - real parts (or `NULL`)
- im - imaginary parts (or `NULL`); complex roots come in adjacent conjugate pairs, positive imaginary part first

  Level: advanced

  Note:
  For `PC_POLY_GMRES` these are the harmonic Ritz values in modified Leja order with the added copies, for
  `PC_POLY_CHEBYSHEV` the Chebyshev points of [emin, emax], for `PC_POLY_NEUMANN` 1/omega repeated. The arrays belong
  to the preconditioner and change at the next `PCSetUp()`.

.seealso: [](ch_ksp), `PCPOLY`, `PCPolyGetDegree()`
@*/
PetscErrorCode PCPolyGetRoots(PC pc, PetscInt *n, const PetscReal *re[], const PetscReal *im[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCPolyGetRoots_C", (PC, PetscInt *, const PetscReal *[], const PetscReal *[]), (pc, n, re, im));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPolySetPrecision - Sets the precision of the matrix values in the products of a `PCPOLY` preconditioner

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- p  - `PC_POLY_PRECISION_DOUBLE` (default) or `PC_POLY_PRECISION_SINGLE`

  Options Database Keys:
+ -pc_poly_precision (double|single) - the precision
- -pc_poly_single_format fmt         - the format of the fp32 copy: brc, segsum, dcsr or spmv

  Level: intermediate

  Notes:
  In single precision `PCSetUp()` builds a copy of B = D^-1 A (A without -pc_poly_jacobi) with fp32 values in one of
  the formats that store them (`MatSpMVSingleSetUp()`), from the device values when the matrix is on the GPU, and every
  product of the polynomial (and of its setup's Arnoldi run) uses it: 4 bytes a value instead of 8, fp64 vectors and
  sums. The outer Krylov method keeps the fp64 operator; `PCApplyTranspose()` uses it too. The copy's format is the
  operator's own when it is `brc` or `segsum`, else `spmv` times both on the GPU and keeps the faster. On the GPU the
  setup also times the product B v with the copy and with the operator itself (5 products each) and keeps the
  operator when it is faster: a format that compresses the values (`ccoo`'s value table, 1-byte indices) may read
  fewer bytes than any fp32 layout; `-ksp_view` and `-info` say which ran. An operator that is not AIJ (a shell,
  BAIJ, ...) keeps its fp64 products. Entries of B
  below fp32's smallest normal number (about 1.2e-38; against B's unit diagonal they carry nothing a smoother can use,
  and Galerkin coarse operators leave them behind) are stored as 0 and counted (`-ksp_view`, `-info`); entries that
  overflow fp32 and values that are not finite are an error (`PETSC_ERR_FP`).

.seealso: [](ch_ksp), `PCPOLY`, `PCPolyGetPrecision()`, `MatSpMVSingleSetUp()`
@*/
PetscErrorCode PCPolySetPrecision(PC pc, PCPolyPrecision p)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, p, 2);
  PetscCheck(p == PC_POLY_PRECISION_DOUBLE || p == PC_POLY_PRECISION_SINGLE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Unknown PCPolyPrecision %d", (int)p);
  PetscTryMethod(pc, "PCPolySetPrecision_C", (PC, PCPolyPrecision), (pc, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPolyGetPrecision - Gets the precision of the matrix values in the products of a `PCPOLY` preconditioner

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. p - `PC_POLY_PRECISION_DOUBLE` or `PC_POLY_PRECISION_SINGLE`

  Level: intermediate

.seealso: [](ch_ksp), `PCPOLY`, `PCPolySetPrecision()`
@*/
PetscErrorCode PCPolyGetPrecision(PC pc, PCPolyPrecision *p)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(p, 2);
  PetscUseMethod(pc, "PCPolyGetPrecision_C", (PC, PCPolyPrecision *), (pc, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  PCPOLY - A fixed polynomial preconditioner p(A) ~ A^-1 applied with `MatMult()` and vector operations only, so it
  runs on the GPU with CUDA vectors and any GPU matrix type (and in parallel, for every matrix type)

  Options Database Keys:
+ -pc_poly_type (chebyshev|neumann|gmres)   - the polynomial (default gmres)
. -pc_poly_degree k                         - degree of p = `MatMult()`s per application (default 10)
. -pc_poly_jacobi (true|false)              - polynomial in B = D^-1 A, applied as p(B) D^-1 (default true)
. -pc_poly_eigenvalues emin,emax            - chebyshev: the interval (of the spectrum of B); default: estimated
. -pc_poly_esteig a,b,c,d                   - estimated interval emin = a lo + b hi, emax = c lo + d hi from the Ritz values
                                              (lo: smallest real part, hi: largest modulus; default 0,0.01,0,1.1, as a
                                              multigrid smoother, options prefix mg_levels_: 0,0.1,0,1.1)
. -pc_poly_esteig_steps m                   - Arnoldi steps of the estimate (default 10)
. -pc_poly_esteig_reuse (true|false)        - keep the estimated bounds at later setups while the operator keeps its nonzero
                                              pattern (default false: estimated at every setup)
. -pc_poly_neumann_damping omega            - neumann: the damping (default 1/emax)
. -pc_poly_gmres_add_roots (true|false)     - gmres: add copies of outlying roots (default true)
. -pc_poly_precision (double|single)        - precision of the matrix values in the products (default double), see `PCPolySetPrecision()`
. -pc_poly_single_format (brc|segsum|dcsr|spmv)  - single: the format of the fp32 copy (default: the operator's when brc, segsum or dcsr, else spmv)
. -pc_poly_residual_precision (double|single)    - single: `MatResidual()` with the operator (a multigrid level's residual after
                                                   pre-smoothing, `PCMG`) reads the fp32 copy too (default double)
- -pc_poly_local <bool>                     - on several processes, the polynomial of each process's diagonal block (block
                                              Jacobi: its products exchange no ghost values; a smoothing step's residual
                                              keeps the whole operator), default false

  Level: intermediate

  Notes:
  With residual polynomial r(t) = 1 - t p(t) (degree k+1, r(0) = 1):
+ chebyshev - r is the scaled Chebyshev polynomial of [emin, emax], applied by the Chebyshev iteration (k `MatMult()`s);
              for symmetric positive definite B it gives an SPD preconditioner usable with `KSPCG`
. neumann   - r(t) = (1 - omega t)^{k+1}, p(B) = omega sum_{j<=k} (I - omega B)^j by Horner's rule; SPD for SPD B when
              0 < omega emax < 2
- gmres     - r is the residual polynomial of k+1 steps of GMRES on B from a fixed pseudo-random vector, built at
              setup from the harmonic Ritz values of an Arnoldi run (Loe and Morgan 2022): applied in product form with
              the roots in modified Leja order, complex conjugate pairs together in real arithmetic; a root theta_j whose
              other factors are large there (pof(j) = prod_{i!=j} |1 - theta_j/theta_i| > 1e4) gets
              ceil((log10 pof(j) - 4)/14) extra copies, as in Loe and Morgan, which adds that many `MatMult()`s.
              Not symmetric in general: use it with `KSPGMRES`, `KSPBCGS`, ...

  The polynomial is fixed once set up (at every `PCSetUp()`, e.g. each Newton step), so the preconditioner is a
  linear operator and non-flexible Krylov methods may use it. Uses Pmat (Amat with -pc_use_amat). `PCApplyTranspose()`
  is supported. The setup is logged as the event PCPolySetUp.

  References:
+ * - J. A. Loe and R. B. Morgan, Toward efficient polynomial preconditioning for GMRES, Numer. Linear Algebra Appl. 29 (2022)
. * - M. Embree, J. A. Loe and R. B. Morgan, Polynomial preconditioned Arnoldi with stability control, SIAM J. Sci. Comput. 43 (2021)
- * - Y. Saad, Iterative Methods for Sparse Linear Systems, 2nd ed., SIAM 2003, Sec. 12.3 (Chebyshev iteration)

.seealso: [](ch_ksp), `PCCreate()`, `PCSetType()`, `PCType`, `PC`, `PCPolySetType()`, `PCPolySetDegree()`,
          `PCPolySetEigenvalues()`, `PCPolySetDamping()`, `PCPolySetJacobi()`, `PCPolyGetRoots()`, `KSPCHEBYSHEV`, `PCKSP`
M*/
PETSC_INTERN PetscErrorCode PCCreate_Poly(PC pc)
{
  PC_Poly *poly;

  PetscFunctionBegin;
  PetscCall(PetscNew(&poly));
  pc->data          = (void *)poly;
  poly->type        = PC_POLY_GMRES;
  poly->degree      = 10;
  poly->jacobi      = PETSC_TRUE;
  poly->tform[0]    = 0.0;
  poly->tform[1]    = 0.01;
  poly->tform[2]    = 0.0;
  poly->tform[3]    = 1.1;
  poly->eststeps    = 10;
  poly->userdamping = 0.0;
  poly->addroots    = PETSC_TRUE;
  poly->snz         = -1;
  poly->lmax        = PCPOLY_LOCAL_MAX_WEIGHT;
  poly->lused       = -1.0;

  pc->ops->setup          = PCSetUp_Poly;
  pc->ops->apply          = PCApply_Poly;
  pc->ops->applytranspose = PCApplyTranspose_Poly;
  pc->ops->applyrichardson = PCApplyRichardson_Poly;
  pc->ops->reset          = PCReset_Poly;
  pc->ops->destroy        = PCDestroy_Poly;
  pc->ops->setfromoptions = PCSetFromOptions_Poly;
  pc->ops->view           = PCView_Poly;

  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolySetType_C", PCPolySetType_Poly));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetType_C", PCPolyGetType_Poly));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolySetDegree_C", PCPolySetDegree_Poly));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetDegree_C", PCPolyGetDegree_Poly));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolySetEigenvalues_C", PCPolySetEigenvalues_Poly));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetEigenvalues_C", PCPolyGetEigenvalues_Poly));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolySetDamping_C", PCPolySetDamping_Poly));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetDamping_C", PCPolyGetDamping_Poly));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolySetJacobi_C", PCPolySetJacobi_Poly));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetJacobi_C", PCPolyGetJacobi_Poly));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetRoots_C", PCPolyGetRoots_Poly));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolySetPrecision_C", PCPolySetPrecision_Poly));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPolyGetPrecision_C", PCPolyGetPrecision_Poly));
  PetscFunctionReturn(PETSC_SUCCESS);
}
