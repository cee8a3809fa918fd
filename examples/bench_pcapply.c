static char help[] = "Times PCApply alone: the preconditioner set up from the options on a matrix read from a PETSc binary file\n"
                     "(e.g. a solver's operator saved with -ksp_view_mat binary:FILE), then -reps applications back to back,\n"
                     "with one device synchronization at the end (no per-event synchronization as with -log_view_gpu_time).\n"
                     "  -f FILE         the matrix (PETSc binary)\n"
                     "  -mat_type T     its type (aijcusparse, brc, spmv, ...)\n"
                     "  -reps <100>     timed applications (after 3 untimed)\n"
                     "  PC options: -pc_type poly -pc_poly_type chebyshev -pc_poly_precision single ...\n"
                     "Prints: pc_apply_us <microseconds per application>, pc_setup_us (KSPSetUp: the preconditioner's setup, with the\n"
                     "first products' format build), single_build_us (the event MatSpMVSingle: the fp32 copy, built synchronously)\n\n";

#include <petscksp.h>
#include <petscspmv.h>


int main(int argc, char **argv)
{
  char           file[PETSC_MAX_PATH_LEN] = "";
  PetscInt       reps = 100;
  Mat            A;
  KSP            ksp;
  PC             pc;
  Vec            x, y;
  PetscViewer    v;
  PetscLogDouble t0, t1;
  PetscReal      nrm;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpMVInitializePackage());
  PetscCall(PetscLogDefaultBegin()); /* for the event MatSpMVSingle's time */
  PetscCall(PetscOptionsGetString(NULL, NULL, "-f", file, sizeof(file), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCheck(file[0], PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "Give the matrix with -f FILE (PETSc binary)");
  PetscCheck(reps > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " must be positive", reps);
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &v));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatLoad(A, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(MatMult(A, x, y)); /* the matrix's own upload and format build, before the timed setup */
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPGetPC(ksp, &pc));
  {
    PetscLogEvent      ev;
    PetscEventPerfInfo info = {0};
    PetscCall(PetscLogEventGetId("MatSpMVSingle", &ev));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pc_setup_us %.2f single_build_us %.2f\n", 1e6 * (t1 - t0), 1e6 * info.time));
  }
  PetscCall(VecSetRandom(x, NULL));
  for (PetscInt r = 0; r < 3; r++) PetscCall(PCApply(pc, x, y));
  PetscCall(VecNorm(y, NORM_2, &nrm)); /* a norm waits for the device */
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(PCApply(pc, x, y));
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pc_apply_us %.2f (%" PetscInt_FMT " applications, |y| %g)\n", 1e6 * (t1 - t0) / reps, reps, (double)nrm));
  PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_WORLD)); /* the polynomial, the precision and the fp32 copy's format */
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
