static char help[] = "Every preconditioner on a petsc-spmv type against AIJ, on an SPD operator with block size 1, 2 or 3.\n"
                     "The operator: a 2D vector Laplacian on an n x n DMDA with bs dofs per node, every edge coupling two\n"
                     "nodes by c_e K (K: bs x bs SPD with off-diagonal 0.3, c_e in [0.5, 1.5) from the edge's index), Dirichlet\n"
                     "boundary; assembled with MatSetValuesBlockedStencil into DMCreateMatrix's AIJ and into the plugin type\n"
                     "(DMSetMatType), block size bs, near null space of the bs constant-per-component vectors (bs > 1).\n"
                     "Each case solves it with the AIJ matrix and with the plugin matrix under the same options (the options\n"
                     "database, prefix c<k>_ per case) and checks: both converged, iterations equal (within -its_rtol, -its_atol),\n"
                     "|x_type - x_aij| / |x_aij| <= -sol_tol. One line per case: ok|FAIL|skip type bs ranks pc its_aij its_type relerr.\n"
                     "  -type brc          the plugin type (root name)\n"
                     "  -bs 1,2,3          block sizes\n"
                     "  -pcs all           cases by name (see the table in the source; 'all' = every one)\n"
                     "  -n 33              grid nodes per direction (n = 2^k + 1 for PCMG's three levels)\n"
                     "  -rtol 1e-10        KSP relative tolerance\n"
                     "  -compare exact     exact: AIJ's arithmetic, same iterations, solutions within 1e-10; rounding (the\n"
                     "                     products summed in another order, -mat_spmv_host_reference): iterations within\n"
                     "                     10% + 2, solutions within 1e-8. -sol_tol, -its_rtol, -its_atol override.\n"
                     "  -sol_tol 1e-10     largest relative difference of the solutions\n"
                     "  -its_rtol 0 -its_atol 0   allowed iteration difference |its_type - its_aij| <= its_rtol its_aij + its_atol\n"
                     "  -list              print the cases and exit\n"
                     "  -show_errors       print PETSc's traceback of a failing case\n\n";

#include <string.h>
#include <petscksp.h>
#include <petscdmda.h>
#include <petscspmv.h>
#include "spmvexamples.h"
#include <ctype.h>

/* How a case needs the program's help beyond its options */
enum {
  CASE_DM        = 1 << 0, /* PCMG: the DMDA gives the interpolations (KSPSetDM, DM inactive for the operators) */
  CASE_FIELDS    = 1 << 1, /* fieldsplit: by component (PCFieldSplitSetBlockSize, bs > 1) or two index sets, red and black nodes (bs = 1) */
  CASE_TELESCOPE = 1 << 2, /* reduction factor = number of ranks */
  CASE_LU        = 1 << 3, /* needs an LU factorization of the whole matrix: skipped where AIJ has none (MPI) */
  CASE_CHOLESKY  = 1 << 4, /* the same for Cholesky */
  CASE_MG_AIJ    = 1 << 5, /* PCMG with the DMDA's interpolations converted to AIJ, set by PCMGSetInterpolation */
};

/* The table. The Krylov method per preconditioner: CG where the preconditioner is symmetric positive definite
   (Jacobi, point-block Jacobi, block Jacobi with LU blocks, additive Schwarz of the basic (symmetric) kind with
   ICC, symmetric SOR, GAMG/HMG/MG V-cycles with Chebyshev smoothers, redundant/telescope/LU/Cholesky, Chebyshev
   polynomial); GMRES where it is not (ILU blocks, restricted ASM, forward SOR, multiplicative fieldsplit, the
   GMRES polynomial, which need not be positive on the spectrum); FGMRES around an inner CG (a nonlinear PC). */
typedef struct {
  const char *name, *ksp, *opts;
  int         flags;
} Case;

static const Case cases[] = {
  {"jacobi",         KSPCG,     "-pc_type jacobi",                                                              0},
  {"pbjacobi",       KSPCG,     "-pc_type pbjacobi",                                                            0},
  {"bjacobi_ilu",    KSPGMRES,  "-pc_type bjacobi -sub_pc_type ilu",                                            0},
  {"bjacobi_lu",     KSPCG,     "-pc_type bjacobi -sub_pc_type lu",                                             0},
  {"asm_ilu",        KSPGMRES,  "-pc_type asm -pc_asm_overlap 1 -sub_pc_type ilu",                              0},
  {"asm_icc",        KSPCG,     "-pc_type asm -pc_asm_type basic -pc_asm_overlap 1 -sub_pc_type icc",           0},
  {"sor",            KSPCG,     "-pc_type sor",                                                                 0},
  {"sor_forward",    KSPGMRES,  "-pc_type sor -pc_sor_local_forward",                                           0},
  {"gamg",           KSPCG,     "-pc_type gamg",                                                                0},
  {"gamg_nosmooth",  KSPCG,     "-pc_type gamg -pc_gamg_agg_nsmooths 0",                                        0},
  {"gamg_classical", KSPCG,     "-pc_type gamg -pc_gamg_type classical",                                        0},
  {"hmg",            KSPCG,     "-pc_type hmg",                                                                 0}, /* inner PC: GAMG (this PETSc has no hypre) */
  {"mg_galerkin_aij", KSPCG,    "-pc_type mg -pc_mg_levels 3 -pc_mg_galerkin both",                            CASE_MG_AIJ}, /* P: AIJ */
  {"fieldsplit",     KSPGMRES,  "-pc_type fieldsplit",                                                          CASE_FIELDS},
  {"redundant",      KSPCG,     "-pc_type redundant",                                                           0},
  {"telescope",      KSPCG,     "-pc_type telescope -telescope_pc_type lu",                                    CASE_TELESCOPE},
  {"ksp",            KSPFGMRES, "-pc_type ksp -ksp_ksp_type cg -ksp_pc_type jacobi -ksp_ksp_max_it 10",         0},
  {"poly_gmres",     KSPGMRES,  "-pc_type poly",                                                                0},
  {"poly_chebyshev", KSPCG,     "-pc_type poly -pc_poly_type chebyshev",                                        0},
  {"lu",             KSPCG,     "-pc_type lu",                                                                  CASE_LU},
  {"cholesky",       KSPCG,     "-pc_type cholesky",                                                            CASE_CHOLESKY},
  /* last: PCMG on the DMDA (its interpolations are MAIJ for bs > 1): a signal ends the process, and this case has
     crashed (SIGSEGV in the product of a plugin matrix with a MAIJ one), so nothing comes after it */
  {"mg_galerkin",    KSPCG,     "-pc_type mg -pc_mg_levels 3 -pc_mg_galerkin both",                            CASE_DM},
};
#define NCASES ((PetscInt)(sizeof(cases) / sizeof(cases[0])))

/* the edge coefficient c_e in [0.5, 1.5): a hash of the edge's lower node and direction */
static PetscReal EdgeCoef(PetscInt i, PetscInt j, PetscInt dir)
{
  uint64_t z = (uint64_t)(i * 7919 + j * 104729 + dir * 15485863) + 0x9e3779b97f4a7c15ULL;
  z          = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z          = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return 0.5 + (PetscReal)(z >> 11) * (1.0 / 9007199254740992.0);
}

/* Assemble the operator into M (preallocated by DMCreateMatrix, block size bs) */
static PetscErrorCode Assemble(DM da, PetscInt bs, Mat M)
{
  PetscInt    xs, ys, xm, ym, n;
  PetscScalar K[9], blk[5][9];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  for (PetscInt a = 0; a < bs; a++)
    for (PetscInt b = 0; b < bs; b++) K[a * bs + b] = a == b ? 1.0 : 0.3;
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      MatStencil row = {.i = i, .j = j}, col[5];
      PetscInt   nc  = 1;
      /* the four edges of node (i, j); a missing neighbour (Dirichlet) still adds to the diagonal */
      const PetscInt  di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
      const PetscReal ce[4] = {EdgeCoef(i - 1, j, 0), EdgeCoef(i, j, 0), EdgeCoef(i, j - 1, 1), EdgeCoef(i, j, 1)};
      PetscReal       diag  = 0;
      col[0]                = row;
      for (int e = 0; e < 4; e++) {
        PetscInt ii = i + di[e], jj = j + dj[e];
        diag += ce[e];
        if (ii < 0 || jj < 0 || ii >= n || jj >= n) continue;
        col[nc].i = ii;
        col[nc].j = jj;
        for (PetscInt k = 0; k < bs * bs; k++) blk[nc][k] = -ce[e] * K[k];
        nc++;
      }
      for (PetscInt k = 0; k < bs * bs; k++) blk[0][k] = diag * K[k];
      /* one block row: the blocks side by side (row-major bs x (nc bs)) */
      {
        PetscScalar v[5 * 9];
        for (PetscInt a = 0; a < bs; a++)
          for (PetscInt c = 0; c < nc; c++)
            for (PetscInt b = 0; b < bs; b++) v[a * nc * bs + c * bs + b] = blk[c][a * bs + b];
        PetscCall(MatSetValuesBlockedStencil(M, 1, &row, nc, col, v, INSERT_VALUES));
      }
    }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options of case k under the prefix c<k>_: every option name "-x" becomes "-c<k>_x" */
static PetscErrorCode InsertCaseOptions(PetscInt k, const char *opts)
{
  char   buf[1024], *p = buf;
  size_t left = sizeof(buf);

  PetscFunctionBeginUser;
  for (const char *s = opts; *s;) {
    int w;
    if (s[0] == '-' && (s == opts || s[-1] == ' ') && isalpha((unsigned char)s[1])) {
      w = snprintf(p, left, "-c%d_", (int)k);
      s++;
    } else {
      w = snprintf(p, left, "%c", *s);
      s++;
    }
    PetscCheck(w >= 0 && (size_t)w < left, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "case options too long");
    p += w;
    left -= (size_t)w;
  }
  PetscCall(PetscOptionsInsertString(NULL, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ... and removed at the end (so that -options_left reports only the user's own options) */
static PetscErrorCode ClearCaseOptions(PetscInt k, const char *opts)
{
  PetscFunctionBeginUser;
  for (const char *s = opts; *s; s++)
    if (s[0] == '-' && (s == opts || s[-1] == ' ') && isalpha((unsigned char)s[1])) {
      char   name[256];
      size_t l = strcspn(s + 1, " ");
      PetscCall(PetscSNPrintf(name, sizeof(name), "-c%d_%.*s", (int)k, (int)l, s + 1));
      PetscCall(PetscOptionsClearValue(NULL, name));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Red-black split of the nodes (bs = 1 fieldsplit): the locally owned rows of each colour */
static PetscErrorCode RedBlack(DM da, PetscInt bs, IS *red, IS *black)
{
  PetscInt xs, ys, xm, ym, rstart, nr = 0, nb = 0, *ir, *ib, l = 0;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  {
    Vec g;
    PetscCall(DMGetGlobalVector(da, &g));
    PetscCall(VecGetOwnershipRange(g, &rstart, NULL));
    PetscCall(DMRestoreGlobalVector(da, &g));
  }
  PetscCall(PetscMalloc2(xm * ym * bs, &ir, xm * ym * bs, &ib));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++, l++)
      for (PetscInt c = 0; c < bs; c++) {
        if ((i + j) % 2) ib[nb++] = rstart + l * bs + c;
        else ir[nr++] = rstart + l * bs + c;
      }
  PetscCall(ISCreateGeneral(PetscObjectComm((PetscObject)da), nr, ir, PETSC_COPY_VALUES, red));
  PetscCall(ISCreateGeneral(PetscObjectComm((PetscObject)da), nb, ib, PETSC_COPY_VALUES, black));
  PetscCall(PetscFree2(ir, ib));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  DM           da;
  PetscInt     bs;
  Mat          A, B;    /* AIJ and the plugin type, the same operator */
  Vec          b;       /* right-hand side A x_true, x_true random */
  MatNullSpace nsp;     /* near null space (bs > 1) */
  Mat          Paij[2]; /* AIJ interpolations: coarsest to middle, middle to fine */
  PetscReal    rtol;
  PetscBool    show_errors;
} Problem;

static char reftype[64] = MATAIJ; /* -reference: the type the solves are compared with (aijcusparse on a GPU: the same PETSc paths) */

/* The problem of block size bs: A (AIJ) and B (the plugin type, assembled as its own type), checked to have the
   expected type name and block size, and to give A's products (also when converted from A) */
static PetscErrorCode SetUpProblem(const char *type, PetscInt bs, PetscInt n, PetscReal rtol, PetscBool show_errors, Problem *P)
{
  DM          da;
  Mat         A, B, C;
  Vec         xt;
  PetscRandom rnd;
  PetscMPIInt size;
  PetscBool   ok, isaij;
  PetscInt    rbs, cbs;
  MatType     got;
  char        expect[80];

  PetscFunctionBeginUser;
  PetscCheck(bs >= 1 && bs <= 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bs: block sizes 1, 2, 3");
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscStrbeginswith(type, MATAIJ, &isaij)); /* -type aij (the table against itself: a check of the test) or aijcusparse (PETSc's GPU type: the baseline) */
  PetscCall(PetscSNPrintf(expect, sizeof(expect), "%s%s%s", size > 1 ? "mpi" : "seq", strncmp(type, "aij", 3) ? "aij" : "", type)); /* brc: seqaijbrc; aijcusparse: seqaijcusparse */
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, bs, 1, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(DMSetMatType(da, reftype));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Assemble(da, bs, A));
  /* the plugin matrix assembled as its own type (DMCreateMatrix preallocates it, block size bs) */
  PetscCall(DMSetMatType(da, type));
  PetscCall(DMCreateMatrix(da, &B));
  PetscCall(MatSetFromOptions(B)); /* -mat_spmv_host_reference, format options */
  PetscCall(Assemble(da, bs, B));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, expect, &ok));
  PetscCall(MatGetType(B, &got));
  PetscCheck(ok, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "DMCreateMatrix with -dm_mat_type %s gave %s, expected %s", type, got, expect);
  PetscCall(MatGetBlockSizes(B, &rbs, &cbs));
  PetscCheck(rbs == bs && cbs == bs, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "block sizes %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT, rbs, cbs, bs);
  PetscCall(MatMultEqual(B, A, 3, &ok));
  PetscCheck(ok, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s assembled by DMCreateMatrix: products differ from AIJ", type);
  /* and converted from AIJ: the same block size, the same products */
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatGetBlockSizes(C, &rbs, &cbs));
  PetscCheck(rbs == bs && cbs == bs, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatConvert: block sizes %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT, rbs, cbs, bs);
  PetscCall(MatMultEqual(C, A, 3, &ok));
  PetscCheck(ok, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatConvert to %s: products differ from AIJ", type);
  PetscCall(MatDestroy(&C));
  P->nsp = NULL;
  if (bs > 1) { /* near null space: one constant vector per component */
    Vec v[3];
    for (PetscInt c = 0; c < bs; c++) {
      PetscCall(DMCreateGlobalVector(da, &v[c]));
      PetscCall(VecSet(v[c], 0.0));
      PetscCall(VecStrideSet(v[c], c, 1.0));
      PetscCall(VecNormalize(v[c], NULL));
    }
    PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_FALSE, bs, v, &P->nsp));
    PetscCall(MatSetNearNullSpace(A, P->nsp));
    PetscCall(MatSetNearNullSpace(B, P->nsp));
    for (PetscInt c = 0; c < bs; c++) PetscCall(VecDestroy(&v[c]));
  }
  PetscCall(MatCreateVecs(A, &xt, &P->b)); /* the reference's own vector kind (CUDA for aijcusparse) */
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 17 + (unsigned long)bs));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(xt, rnd));
  PetscCall(MatMult(A, xt, P->b));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&xt));
  { /* the interpolations of the DMDA's hierarchy (MAIJ for bs > 1) as AIJ matrices */
    DM dac[2];
    PetscCall(DMCoarsenHierarchy(da, 2, dac));
    for (PetscInt l = 0; l < 2; l++) {
      Mat Pl;
      PetscCall(DMCreateInterpolation(dac[1 - l], l ? da : dac[0], &Pl, NULL));
      PetscCall(MatConvert(Pl, MATAIJ, MAT_INITIAL_MATRIX, &P->Paij[l]));
      PetscCall(MatDestroy(&Pl));
    }
    PetscCall(DMDestroy(&dac[0]));
    PetscCall(DMDestroy(&dac[1]));
  }
  P->da          = da;
  P->bs          = bs;
  P->A           = A;
  P->B           = B;
  P->rtol        = rtol;
  P->show_errors = show_errors;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DestroyProblem(Problem *P)
{
  PetscFunctionBeginUser;
  PetscCall(MatDestroy(&P->Paij[0]));
  PetscCall(MatDestroy(&P->Paij[1]));
  PetscCall(MatNullSpaceDestroy(&P->nsp));
  PetscCall(VecDestroy(&P->b));
  PetscCall(MatDestroy(&P->A));
  PetscCall(MatDestroy(&P->B));
  PetscCall(DMDestroy(&P->da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A case that kills the process (a signal) still gets its FAIL line, on the rank that caught it */
static char current[256];
static PetscErrorCode SignalHandler(int sig, void *ctx)
{
  if (current[0]) {
    fprintf(stdout, "FAIL %s -1 (signal %d)\n", current, sig);
    fflush(stdout);
  }
  return PetscSignalHandlerDefault(sig, ctx);
}

/* One solve of case k with operator M; errors are returned (not fatal): the caller prints them as a FAIL */
static PetscErrorCode Solve(const Problem *P, PetscInt k, Mat M, Vec b, Vec *x, PetscInt *its, KSPConvergedReason *reason)
{
  KSP  ksp;
  PC   pc;
  char prefix[16];
  Vec  bb;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(M, x, &bb)); /* the matrix' own vector kind */
  PetscCall(SpMVCopyValues(b, bb));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)M), &ksp));
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "c%d_", (int)k));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  if (cases[k].flags & CASE_DM) {
    PetscCall(KSPSetDM(ksp, P->da));
    PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_ALL, PETSC_FALSE));
  }
  PetscCall(KSPSetOperators(ksp, M, M));
  PetscCall(KSPSetType(ksp, cases[k].ksp));
  PetscCall(KSPSetTolerances(ksp, P->rtol, 1e-50, PETSC_CURRENT, 5000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  if ((cases[k].flags & CASE_FIELDS) && P->bs > 1) PetscCall(PCFieldSplitSetBlockSize(pc, P->bs)); /* a split per component */
  if ((cases[k].flags & CASE_FIELDS) && P->bs == 1) {
    IS red, black;
    PetscCall(RedBlack(P->da, P->bs, &red, &black));
    PetscCall(PCFieldSplitSetIS(pc, "red", red));
    PetscCall(PCFieldSplitSetIS(pc, "black", black));
    PetscCall(ISDestroy(&red));
    PetscCall(ISDestroy(&black));
  }
  if (cases[k].flags & CASE_MG_AIJ)
    for (PetscInt l = 1; l <= 2; l++) PetscCall(PCMGSetInterpolation(pc, l, P->Paij[l - 1]));
  PetscCall(KSPSolve(ksp, bb, *x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&bb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solve with the PETSc error handler returning instead of aborting; the error's message on failure */
static PetscErrorCode TrySolve(const Problem *P, PetscInt k, Mat M, Vec b, Vec *x, PetscInt *its, KSPConvergedReason *reason, char *err, size_t lerr)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  err[0] = 0;
  *x     = NULL;
  if (!P->show_errors) PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); /* else PETSc's traceback, still returning */
  ierr = Solve(P, k, M, b, x, its, reason);
  if (!P->show_errors) PetscCall(PetscPopErrorHandler());
  if (ierr) {
    const char *text, *specific;
    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    PetscCall(PetscSNPrintf(err, lerr, "PETSc error %d: %s", (int)ierr, specific && specific[0] ? specific : text));
    *its = -1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        type[64] = MATBRC, *pcsel[64], telescope[64], compare[16] = "exact";
  Problem     prob[3];
  PetscInt    bss[3] = {1, 2, 3}, nbs = 3, npcs = 64, n = 33, nok = 0, nfail = 0, nskip = 0;
  PetscReal   rtol = 1e-10, soltol = 1e-10, itsrtol = 0, itsatol = 0;
  PetscBool   set, list = PETSC_FALSE, all = PETSC_TRUE, want[NCASES], show_errors = PETSC_FALSE, exact;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "test_pcs: every preconditioner on a plugin type against AIJ", NULL);
  PetscCall(PetscOptionsString("-type", "plugin type (root name)", NULL, type, type, sizeof(type), NULL));
  PetscCall(PetscOptionsString("-reference", "the type compared with (aij; aijcusparse on a GPU, whose paths the plugin types share: SOR without inodes, ...)", NULL, reftype, reftype, sizeof(reftype), NULL));
  PetscCall(PetscOptionsIntArray("-bs", "block sizes (1, 2, 3)", NULL, bss, &nbs, &set));
  if (!set) nbs = 3;
  PetscCall(PetscOptionsStringArray("-pcs", "cases by name, or all", NULL, pcsel, &npcs, &set));
  PetscCall(PetscOptionsInt("-n", "grid nodes per direction", NULL, n, &n, NULL));
  PetscCall(PetscOptionsReal("-rtol", "KSP relative tolerance", NULL, rtol, &rtol, NULL));
  PetscCall(PetscOptionsString("-compare", "exact: AIJ's arithmetic (same iterations, solutions within 1e-10); rounding: products summed in another order (-mat_spmv_host_reference): iterations within 10% + 2, solutions within 1e-8", NULL, compare, compare, sizeof(compare), NULL));
  PetscCall(PetscStrcmp(compare, "exact", &exact));
  if (!exact) {
    PetscBool rounding;
    PetscCall(PetscStrcmp(compare, "rounding", &rounding));
    PetscCheck(rounding, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-compare exact or rounding, not %s", compare);
    soltol  = 1e-8;
    itsrtol = 0.1;
    itsatol = 2;
  }
  PetscCall(PetscOptionsReal("-sol_tol", "largest relative difference of the solutions", NULL, soltol, &soltol, NULL));
  PetscCall(PetscOptionsReal("-its_rtol", "allowed relative iteration difference", NULL, itsrtol, &itsrtol, NULL));
  PetscCall(PetscOptionsReal("-its_atol", "allowed absolute iteration difference", NULL, itsatol, &itsatol, NULL));
  PetscCall(PetscOptionsBool("-list", "print the cases and exit", NULL, list, &list, NULL));
  PetscCall(PetscOptionsBool("-show_errors", "print PETSc's traceback of a failing case", NULL, show_errors, &show_errors, NULL));
  PetscOptionsEnd();
  if (!set) npcs = 0;
  for (PetscInt k = 0; k < NCASES; k++) want[k] = PETSC_FALSE;
  for (PetscInt p = 0; p < npcs; p++) {
    PetscBool found = PETSC_FALSE, isall;
    PetscCall(PetscStrcmp(pcsel[p], "all", &isall));
    for (PetscInt k = 0; k < NCASES; k++) {
      PetscBool eq;
      PetscCall(PetscStrcmp(pcsel[p], cases[k].name, &eq));
      if (eq || isall) want[k] = found = PETSC_TRUE;
    }
    PetscCheck(found, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-pcs: no case named %s (-list shows them)", pcsel[p]);
    all = PETSC_FALSE;
  }
  if (all)
    for (PetscInt k = 0; k < NCASES; k++) want[k] = PETSC_TRUE;
  for (PetscInt p = 0; p < npcs; p++) PetscCall(PetscFree(pcsel[p]));
  if (list) {
    for (PetscInt k = 0; k < NCASES; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-15s -ksp_type %-6s %s\n", cases[k].name, cases[k].ksp, cases[k].opts));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(PetscSNPrintf(telescope, sizeof(telescope), "-pc_telescope_reduction_factor %d", (int)size));
  for (PetscInt k = 0; k < NCASES; k++) {
    PetscCall(InsertCaseOptions(k, cases[k].opts));
    if (cases[k].flags & CASE_TELESCOPE) PetscCall(InsertCaseOptions(k, telescope));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_pcs: %s on %d rank(s), %" PetscInt_FMT " x %" PetscInt_FMT " nodes, rtol %g; -compare %s: solutions within %g, iterations within %g its + %g\n", type, (int)size, n, n, (double)rtol, compare, (double)soltol, (double)itsrtol, (double)itsatol));

  PetscCall(PetscPushSignalHandler(SignalHandler, NULL));
  for (PetscInt ib = 0; ib < nbs; ib++) PetscCall(SetUpProblem(type, bss[ib], n, rtol, show_errors, &prob[ib]));
  /* cases outside, block sizes inside: a case that crashes the process (a signal) hides as little as possible */
  for (PetscInt k = 0; k < NCASES; k++) {
    if (!want[k]) continue;
    for (PetscInt ib = 0; ib < nbs; ib++) {
      const Problem     *P  = &prob[ib];
      const PetscInt     bs = P->bs;
      Vec                xa = NULL, xb = NULL;
      PetscInt           ita = -1, itb = -1;
      KSPConvergedReason ra = KSP_CONVERGED_ITERATING, rb = KSP_CONVERGED_ITERATING;
      char               erra[512], errb[512], skip[256] = "";
      PetscReal          rel = -1;
      PetscBool          ok;

      if (cases[k].flags & (CASE_LU | CASE_CHOLESKY)) {
        PetscBool avail;
        MatType   at;
        PetscCall(MatGetType(P->A, &at));
        PetscCall(MatGetFactorAvailable(P->A, NULL, cases[k].flags & CASE_LU ? MAT_FACTOR_LU : MAT_FACTOR_CHOLESKY, &avail));
        if (!avail) PetscCall(PetscSNPrintf(skip, sizeof(skip), "this PETSc has no %s factorization for %s (MUMPS, SuperLU_DIST: not installed); the redundant and telescope cases factor on one rank", cases[k].flags & CASE_LU ? "LU" : "Cholesky", at));
      }
      if (skip[0]) {
        nskip++;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "skip %s %" PetscInt_FMT " %d %s: %s\n", type, bs, (int)size, cases[k].name, skip));
        continue;
      }
      PetscCall(TrySolve(P, k, P->A, P->b, &xa, &ita, &ra, erra, sizeof(erra)));
      if (erra[0] || ra <= 0) { /* PETSc cannot do this case with AIJ here: a skip, said */
        nskip++;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "skip %s %" PetscInt_FMT " %d %s: AIJ itself %s\n", type, bs, (int)size, cases[k].name, erra[0] ? erra : KSPConvergedReasons[ra]));
        PetscCall(VecDestroy(&xa));
        continue;
      }
      PetscCall(PetscSNPrintf(current, sizeof(current), "%s %" PetscInt_FMT " %d %s %" PetscInt_FMT, type, bs, (int)size, cases[k].name, ita));
      PetscCall(TrySolve(P, k, P->B, P->b, &xb, &itb, &rb, errb, sizeof(errb)));
      current[0] = 0;
      if (!errb[0]) {
        Vec       d;
        PetscReal na, nd;
        PetscCall(VecDuplicate(xa, &d));
        PetscCall(SpMVCopyValues(xb, d));
        PetscCall(VecAXPY(d, -1.0, xa));
        PetscCall(VecNorm(d, NORM_2, &nd));
        PetscCall(VecNorm(xa, NORM_2, &na));
        rel = nd / PetscMax(na, 1e-300);
        PetscCall(VecDestroy(&d));
      }
      ok = (PetscBool)(!errb[0] && rb > 0 && PetscAbsInt(itb - ita) <= itsrtol * ita + itsatol && rel <= soltol);
      if (ok) nok++;
      else nfail++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-4s %s %" PetscInt_FMT " %d %s %" PetscInt_FMT " %" PetscInt_FMT " %.2e", ok ? "ok" : "FAIL", type, bs, (int)size, cases[k].name, ita, itb, (double)rel));
      if (errb[0]) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  (%s)\n", errb));
      else if (rb <= 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  (%s)\n", KSPConvergedReasons[rb]));
      else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", ok ? "" : "  (iterations or solution differ)"));
      PetscCall(VecDestroy(&xa));
      PetscCall(VecDestroy(&xb));
    }
  }
  for (PetscInt ib = 0; ib < nbs; ib++) PetscCall(DestroyProblem(&prob[ib]));
  PetscCall(PetscPopSignalHandler());
  for (PetscInt k = 0; k < NCASES; k++) {
    PetscCall(ClearCaseOptions(k, cases[k].opts));
    if (cases[k].flags & CASE_TELESCOPE) PetscCall(ClearCaseOptions(k, telescope));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_pcs: %s on %d rank(s): %" PetscInt_FMT " ok, %" PetscInt_FMT " FAIL, %" PetscInt_FMT " skipped\n", type, (int)size, nok, nfail, nskip));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
