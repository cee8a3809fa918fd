/* The interpolation of DMDA and DMStag in the DM's matrix type.

   DMDA and DMStag make their interpolation (DMStag its restriction too) of the DM's matrix type only when that type's name
   starts with aij, seqaij or mpiaij (ConvertToAIJ in PETSc's dainterp.c and stag.c: "so that users can select matrix
   types of base MATAIJ for accelerators"), plain AIJ otherwise, and a MAIJ for several degrees of freedom. With
   -dm_mat_type aijcusparse PCMG's transfers run on the GPU; with -dm_mat_type spmv (brc, ...) they ran on the CPU, the
   vectors copied each way at every level of every cycle: ksp ex45 on 129^3 with CG + PCMG, KSPSolve 0.70 s against
   aijcusparse's 0.050 s on an H100 (bench/results/NOTES.md, "Session 28"). The plugin registers its own DMDA and DMStag
   constructors in PETSc's: each calls PETSc's and wraps the DM's interpolation (and restriction), which converts what
   PETSc made to the coarse DM's matrix type, in place, when that type is a plugin type's root name: what ConvertToAIJ and
   MatCreateMAIJ do for aijcusparse (a MAIJ of a cusparse matrix becomes an explicit aijcusparse matrix). On a GPU PETSc
   makes it as aijcusparse in the first place (InParentType), so the conversion only attaches the overlay. Any other
   matrix type passes through untouched. */
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "../mat/impls/spmv/spmvimpl.h"
#include <petscdmda.h>
#include <petscdmstag.h>
#include <petsc/private/dmimpl.h>

namespace {
PetscErrorCode (*createDA)(DM)                                 = nullptr; /* PETSc's constructors */
PetscErrorCode (*createStag)(DM)                               = nullptr;
PetscErrorCode (*interpDA)(DM, DM, Mat *, Vec *)               = nullptr; /* and the operations they set */
PetscErrorCode (*interpStag)(DM, DM, Mat *, Vec *)             = nullptr;
PetscErrorCode (*restrictStag)(DM, DM, Mat *)                  = nullptr;

/* dmc's matrix type when it is a plugin type's root name (which ConvertToAIJ replaces by aij), else NULL */
const SpMVFormatInfo *PluginRoot(DM dmc)
{
  const SpMVFormatInfo *f;
  PetscBool             root = PETSC_FALSE;

  if (!dmc->mattype || !(f = SpMVFindFormat(dmc->mattype))) return nullptr;
  if (PetscStrcmp(dmc->mattype, f->root, &root)) return nullptr;
  return root ? f : nullptr;
}

/* PETSc's transfer matrix, made by make(), in the parent's type when a GPU is there: PETSc makes it of the DM's type for
   aij* names only and plain AIJ for ours, whose assembly then runs SeqAIJ's inode check, which an aijcusparse matrix
   skips (15.5M instructions of ksp ex45 65^3 with PCMG's 4 levels on the GPU machine, counted by callgrind: the one place
   where spmv's host work exceeded aijcusparse's; bench/results/NOTES.md, "Session 32"). Made as aijcusparse, the
   matrix takes aijcusparse's own path, and ToDMType's conversion only attaches the overlay. */
template <typename F>
PetscErrorCode InParentType(DM dmc, F make)
{
  char          *saved = nullptr;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  if (!PluginRoot(dmc) || !SpMVHaveGPU()) {
    PetscCall(make());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrallocpy(dmc->mattype, &saved));
  PetscCall(DMSetMatType(dmc, MATAIJCUSPARSE));
  ierr = make();
  if (!ierr) ierr = DMSetMatType(dmc, saved);
  else (void)DMSetMatType(dmc, saved);
  PetscCall(PetscFree(saved));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a transfer matrix made for the coarse DM dmc: to dmc's matrix type if that is a plugin type's root name */
PetscErrorCode ToDMType(DM dmc, Mat *P)
{
  MatType t;

  PetscFunctionBegin;
  if (!*P || !PluginRoot(dmc)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetType(*P, &t));
  PetscCall(PetscInfo(dmc, "petsc-spmv: the DM's %s transfer matrix converted to its matrix type %s (PETSc made it for aij* names only)\n", t, dmc->mattype));
  PetscCall(MatConvert(*P, dmc->mattype, MAT_INPLACE_MATRIX, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DMDA's interpolation ends with its scale (DMCreateInterpolationScale: MatRestrict of ones); made here after the
   conversion, the restriction runs in the DM's type, as with aijcusparse: on the GPU, where it also moves the matrix to
   the device during PCSetUp. Made by PETSc before the conversion, the scale ran on the host and the converted matrix
   went to the GPU in the first MatMultTranspose of KSPSolve: 15 ms of ksp ex45 129^3's 61 ms solve on an H200, the
   gap to aijcusparse's 45 ms (bench/results/NOTES.md, "Session 29") */
PetscErrorCode InterpolationDA(DM dmc, DM dmf, Mat *P, Vec *scale)
{
  PetscFunctionBegin;
  PetscCall(InParentType(dmc, [&] { return interpDA(dmc, dmf, P, NULL); }));
  PetscCall(ToDMType(dmc, P));
  if (scale) PetscCall(DMCreateInterpolationScale(dmc, dmf, *P, scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode InterpolationStag(DM dmc, DM dmf, Mat *P, Vec *scale)
{
  PetscFunctionBegin;
  PetscCall(InParentType(dmc, [&] { return interpStag(dmc, dmf, P, scale); }));
  PetscCall(ToDMType(dmc, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RestrictionStag(DM dmc, DM dmf, Mat *R)
{
  PetscFunctionBegin;
  PetscCall(InParentType(dmc, [&] { return restrictStag(dmc, dmf, R); }));
  PetscCall(ToDMType(dmc, R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CreateDA(DM dm)
{
  PetscFunctionBegin;
  PetscCall(createDA(dm));
  interpDA                     = dm->ops->createinterpolation;
  dm->ops->createinterpolation = InterpolationDA;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CreateStag(DM dm)
{
  PetscFunctionBegin;
  PetscCall(createStag(dm));
  interpStag                   = dm->ops->createinterpolation;
  restrictStag                 = dm->ops->createrestriction;
  dm->ops->createinterpolation = InterpolationStag;
  dm->ops->createrestriction   = RestrictionStag;
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* In PETSc's DM list, in place of DMDA's and DMStag's constructors (PetscSpMVInitializePackage; once: DMRegisterAll has
   run, so it does not register PETSc's again) */
PetscErrorCode SpMVRegisterDM(void)
{
  PetscErrorCode (*f)(DM) = nullptr;

  PetscFunctionBegin;
  PetscCall(DMInitializePackage());
  PetscCall(PetscFunctionListFind(DMList, DMDA, &f));
  if (f && f != CreateDA) {
    createDA = f;
    PetscCall(DMRegister(DMDA, CreateDA));
  }
  f = nullptr;
  PetscCall(PetscFunctionListFind(DMList, DMSTAG, &f));
  if (f && f != CreateStag) {
    createStag = f;
    PetscCall(DMRegister(DMSTAG, CreateStag));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
