/* Registration: every matrix type of the library, the polynomial preconditioner PCPOLY, their log events, and the
   dynamic-library entry point. A new format is one new folder plus one line in Formats[] below. */
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "../mat/impls/spmv/spmvimpl.h"
#include "../mat/impls/spmv/brc/brc.h"
#include "../mat/impls/spmv/suraa/suraa.h"
#include "../mat/impls/spmv/ccoo/ccoo.h"
#include "../mat/impls/spmv/argcsr/argcsr.h"
#include "../mat/impls/spmv/segsum/segsum.h"
#include "../mat/impls/spmv/auto/auto.h"
#include "../ksp/pc/impls/poly/polyimpl.h"
#include <petscspmv.h>

namespace {
const SpMVFormatInfo BRCInfo = {MATBRC, MATSEQAIJBRC, MATMPIAIJBRC, "blocked row-column, Ashari et al. ICS'14", BRCCreate};
const SpMVFormatInfo SURAAInfo = {MATSURAA, MATSEQAIJSURAA, MATMPIAIJSURAA, "sorted segmented rows, Muhammed et al. Appl. Sci. 2019", SURAACreate};
const SpMVFormatInfo CCOOInfo = {MATCCOO, MATSEQAIJCCOO, MATMPIAIJCCOO, "balanced compressed COO, Aliaga et al. Euro-Par 2020", CCOOCreate};
const SpMVFormatInfo ARgCSRInfo = {MATARGCSR, MATSEQAIJARGCSR, MATMPIAIJARGCSR, "adaptive row-grouped CSR, Heller and Oberhuber 2012", ARgCSRCreate};
const SpMVFormatInfo SegSumInfo = {MATSEGSUM, MATSEQAIJSEGSUM, MATMPIAIJSEGSUM, "speculative segmented sum on CSR, Liu & Vinter 2015", SegSumCreate};
const SpMVFormatInfo DCSRInfo = {MATDCSR, MATSEQAIJDCSR, MATMPIAIJDCSR, "segmented sum on CSR order with 16-bit column offsets per tile", DCSRCreate};
const SpMVFormatInfo AutoInfo = {MATSPMV, MATSEQAIJSPMV, MATMPIAIJSPMV, "automatic: the fastest format for each matrix", SpMVAutoCreate};

struct Entry {
  const SpMVFormatInfo *info;
  PetscErrorCode (*createseq)(Mat), (*creatempi)(Mat);
};
const Entry Formats[] = {
  {&BRCInfo, MatCreate_SeqAIJSpMV_T<&BRCInfo>, MatCreate_MPIAIJSpMV_T<&BRCInfo>},
  {&SURAAInfo, MatCreate_SeqAIJSpMV_T<&SURAAInfo>, MatCreate_MPIAIJSpMV_T<&SURAAInfo>},
  {&CCOOInfo, MatCreate_SeqAIJSpMV_T<&CCOOInfo>, MatCreate_MPIAIJSpMV_T<&CCOOInfo>},
  {&ARgCSRInfo, MatCreate_SeqAIJSpMV_T<&ARgCSRInfo>, MatCreate_MPIAIJSpMV_T<&ARgCSRInfo>},
  {&SegSumInfo, MatCreate_SeqAIJSpMV_T<&SegSumInfo>, MatCreate_MPIAIJSpMV_T<&SegSumInfo>},
  {&DCSRInfo, MatCreate_SeqAIJSpMV_T<&DCSRInfo>, MatCreate_MPIAIJSpMV_T<&DCSRInfo>},
  {&AutoInfo, MatCreate_SeqAIJSpMV_T<&AutoInfo>, MatCreate_MPIAIJSpMV_T<&AutoInfo>},
};
PetscBool initialized = PETSC_FALSE;

PetscErrorCode PetscSpMVFinalizePackage(void)
{
  PetscFunctionBegin;
  initialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* -mg_poly (double|single): the GPU multigrid smoother in one option (README, "Multigrid smoothing on the GPU"): adds
   the options of the polynomial smoother on every level of PCMG/PCGAMG, each one only where the user did not give it
   (so any of them can still be changed), for the solver without an options prefix */
PetscErrorCode PetscSpMVMGPolyOption(void)
{
  const char *const precisions[] = {"double", "single"};
  const char *const opts[][2]    = {
    {"-mg_levels_ksp_type", "richardson"},
    {"-mg_levels_ksp_max_it", "1"},
    {"-mg_levels_pc_type", "poly"},
    {"-mg_levels_pc_poly_type", "chebyshev"},
    {"-mg_levels_pc_poly_degree", "2"},
    {"-mg_levels_pc_poly_precision", nullptr},
    {"-mg_levels_pc_poly_residual_precision", nullptr}, /* the level residuals with the same copies */
    {"-mg_levels_pc_poly_local", "true"},                /* several ranks: no ghost exchange on levels of off-process weight <= 0.05 */
  };
  PetscInt  p = 1;
  PetscBool set;

  PetscFunctionBegin;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "petsc-spmv: the multigrid smoother", "PCPOLY");
  PetscCall(PetscOptionsEList("-mg_poly", "PCPOLY (chebyshev, degree 2, one richardson step) as the smoother of every multigrid level, with fp64 or fp32 matrix values (smoother and level residuals); the options it stands for may still be given", "PCPOLY", precisions, 2, precisions[p], &p, &set));
  PetscOptionsEnd();
  if (!set) PetscFunctionReturn(PETSC_SUCCESS);
  for (const auto &o : opts) {
    PetscBool has;
    PetscCall(PetscOptionsHasName(NULL, NULL, o[0], &has));
    if (!has) PetscCall(PetscOptionsSetValue(NULL, o[0], o[1] ? o[1] : precisions[p]));
  }
  PetscCall(PetscInfo(NULL, "-mg_poly %s: the polynomial smoother on every multigrid level\n", precisions[p]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/*@C
  PetscSpMVInitializePackage - Registers the petsc-spmv matrix types (`MATSPMV`, `MATBRC`, ...), the preconditioner `PCPOLY`
  and their log events.

  Not Collective

  Level: beginner

  Note:
  Called automatically when the library is loaded with `-dll_append /path/libpetscspmv.so`; a program
  that links the library calls it once after `PetscInitialize()`. Calling it again does nothing. It reads the
  option `-mg_poly double|single`: the polynomial smoother (`PCPOLY`, chebyshev of degree 2, one richardson step)
  on every multigrid level, i.e. the options -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1
  -mg_levels_pc_type poly -mg_levels_pc_poly_type chebyshev -mg_levels_pc_poly_degree 2
  -mg_levels_pc_poly_precision double|single -mg_levels_pc_poly_residual_precision double|single
  -mg_levels_pc_poly_local, each where not given (the last matters on several processes only: levels whose off-process
  weight is at most -mg_levels_pc_poly_local_max_weight, 0.05, smooth with their own rows' l1 block, no ghost exchange).

.seealso: `MatSetType()`, `MATBRC`, `MatSpMVVerify()`, `PCPOLY`
@*/
PetscErrorCode PetscSpMVInitializePackage(void)
{
  PetscFunctionBegin;
  if (initialized) PetscFunctionReturn(PETSC_SUCCESS);
  initialized = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(PetscSpMVFinalizePackage));
  PetscCall(MatInitializePackage());
  PetscCall(PetscLogEventRegister("MatSpMVBuild", MAT_CLASSID, &MAT_SpMV_Build));
  PetscCall(PetscLogEventRegister("MatSpMVRefresh", MAT_CLASSID, &MAT_SpMV_Refresh));
  PetscCall(PetscLogEventRegister("MatSpMVSelect", MAT_CLASSID, &MAT_SpMV_Select));
  PetscCall(PetscLogEventRegister("MatSpMVSingle", MAT_CLASSID, &MAT_SpMV_Single));
  for (const Entry &e : Formats) PetscCall(MatSpMVRegisterFormat(e.info, e.createseq, e.creatempi));
  PetscCall(SpMVRegisterDM());
  PetscCall(PCInitializePackage());
  PetscCall(PetscLogEventRegister("PCPolySetUp", PC_CLASSID, &PC_Poly_SetUp));
  PetscCall(PetscLogEventRegister("PCPolyFused", PC_CLASSID, &PC_Poly_Fused));
  PetscCall(PCRegister(PCPOLY, PCCreate_Poly));
  PetscCall(PetscSpMVMGPolyOption());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entry point found by -dll_append .../libpetscspmv.so */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscspmv(void)
{
  PetscFunctionBegin;
  PetscCall(PetscSpMVInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
