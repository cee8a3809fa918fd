static char help[] = "KSP solves with a petsc-spmv type against AIJ: same iteration counts, same solutions.\n"
                     "  -matrix <spec>            Matrix Market file (optionally :k) or generator (see examples/spmvexamples.h)\n"
                     "  -type <brc>               plugin type\n"
                     "  -ksp_types gmres,bicgstab -pc_types none,jacobi,ilu\n"
                     "  -sol_tol 1e-10            largest relative difference of the solutions\n\n";

#include <petscksp.h>
#include <petscspmv.h>
#include "spmvexamples.h"

static PetscErrorCode Solve(Mat A, const char *ksptype, const char *pctype, Vec b, Vec *x, PetscInt *its, KSPConvergedReason *reason)
{
  KSP ksp;
  PC  pc;
  Vec bb;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, x, &bb)); /* vectors of the matrix' own kind (CUDA for a GPU type) */
  PetscCall(VecCopy(b, bb));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, ksptype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  PetscCall(KSPSetTolerances(ksp, 1e-10, 1e-50, PETSC_DEFAULT, 2000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, bb, *x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&bb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        spec[PETSC_MAX_PATH_LEN] = "random:m=2000,k=8,seed=5", type[64] = MATBRC;
  char       *ksps[8], *pcs[8];
  PetscInt    nk = 8, np = 8, failures = 0;
  PetscReal   soltol = 1e-10;
  Mat         A, B;
  Vec         xt, b;
  PetscRandom rnd;
  PetscBool   set;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", spec, sizeof(spec), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-sol_tol", &soltol, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-ksp_types", ksps, &nk, &set));
  if (!set) { nk = 2; PetscCall(PetscStrallocpy(KSPGMRES, &ksps[0])); PetscCall(PetscStrallocpy(KSPBCGS, &ksps[1])); }
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-pc_types", pcs, &np, &set));
  if (!set) { np = 3; PetscCall(PetscStrallocpy(PCNONE, &pcs[0])); PetscCall(PetscStrallocpy(PCJACOBI, &pcs[1])); PetscCall(PetscStrallocpy(PCILU, &pcs[2])); }

  PetscCall(SpMVCreateMatrix(PETSC_COMM_WORLD, spec, &A));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatSetFromOptions(B));
  PetscCall(MatCreateVecs(A, &xt, &b));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(VecSetRandom(xt, rnd));
  PetscCall(MatMult(A, xt, b));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_ksp: %s as %s\n", spec, type));
  for (PetscInt k = 0; k < nk; k++)
    for (PetscInt p = 0; p < np; p++) {
      Vec                xa, xb, xbh;
      PetscInt           ita, itb;
      KSPConvergedReason ra, rb;
      PetscReal          na, diff;
      PetscCall(Solve(A, ksps[k], pcs[p], b, &xa, &ita, &ra));
      PetscCall(Solve(B, ksps[k], pcs[p], b, &xb, &itb, &rb));
      PetscCall(VecDuplicate(xa, &xbh));
      PetscCall(VecCopy(xb, xbh));
      PetscCall(VecNorm(xa, NORM_2, &na));
      PetscCall(VecAXPY(xbh, -1.0, xa));
      PetscCall(VecNorm(xbh, NORM_2, &diff));
      diff /= PetscMax(na, 1e-300);
      const PetscBool ok = (PetscBool)(ita == itb && ra == rb && ra > 0 && diff <= soltol);
      failures += !ok;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s  ksp %-8s pc %-7s aij %4" PetscInt_FMT " its (%s)  %s %4" PetscInt_FMT " its  |x-x_aij|/|x_aij| %.1e\n", ok ? "ok  " : "FAIL", ksps[k], pcs[p], ita, KSPConvergedReasons[ra], type, itb, (double)diff));
      PetscCall(VecDestroy(&xa)); PetscCall(VecDestroy(&xb)); PetscCall(VecDestroy(&xbh));
    }
  {
    const char *fmt;
    PetscCall(MatSpMVGetFormat(B, &fmt));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_ksp: products by %s\n", fmt ? fmt : "(no petsc-spmv format)"));
  }
  for (PetscInt k = 0; k < nk; k++) PetscCall(PetscFree(ksps[k]));
  for (PetscInt p = 0; p < np; p++) PetscCall(PetscFree(pcs[p]));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&xt)); PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A)); PetscCall(MatDestroy(&B));
  PetscCheck(!failures, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " solves differ from AIJ", failures);
  PetscCall(PetscFinalize());
  return 0;
}
