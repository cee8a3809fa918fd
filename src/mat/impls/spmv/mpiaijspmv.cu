/*
   The MPI twin mpiaij<fmt>: an MPIAIJ matrix whose diagonal and off-diagonal blocks are seqaij<fmt>.
   Written once for every format, on top of the sequential type (aijspmv.cu).

   MatMult stays MatMult_MPIAIJ: the ghost scatter into lvec (a CUDA vector on a GPU) overlaps the
   diagonal block's product, then the off-diagonal block adds its part with MatMultAdd. The formats drop
   empty rows, so the off-diagonal block's compressed rows need nothing special. The blocks become
   seqaij<fmt> right after preallocation (the parent's preallocation creates them as SeqAIJ) and, for the
   paths that re-create them (hash assembly, MatDisAssemble), again at assembly.
*/
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "spmvimpl.h"
#include <petscdevice_cuda.h>
#include <../src/mat/impls/aij/mpi/mpiaij.h>

namespace {
struct Mat_MPIAIJSpMV {
  const SpMVFormatInfo *info = nullptr;
  SpMVFormat           *opts = nullptr; /* holds the format options for both blocks */
  PetscBool             gpu  = PETSC_FALSE;
  PetscErrorCode (*prealloc)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[]) = nullptr;
  PetscErrorCode (*assemblyend)(Mat, MatAssemblyType)                                  = nullptr;
  PetscErrorCode (*destroy)(Mat)                                                       = nullptr;
  PetscErrorCode (*setfromoptions)(Mat, PetscOptionItems)                              = nullptr;
  PetscErrorCode (*view)(Mat, PetscViewer)                                             = nullptr;
};

inline Mat_MPIAIJSpMV *Ctx(Mat A) { return (Mat_MPIAIJSpMV *)((Mat_MPIAIJ *)A->data)->spptr; }

/* Make one block seqaij<fmt> (if it is not yet) with the parent's options; 'options' re-applies them to
   a block that already is (they changed: its layout is rebuilt at the next product) */
PetscErrorCode ConvertBlock(Mat A, Mat S, PetscBool options)
{
  Mat_MPIAIJSpMV *c = Ctx(A);
  PetscBool       same;

  PetscFunctionBegin;
  if (!S) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)S, c->info->seqname, &same));
  if (!same) PetscCall(MatSpMVSeqAttach(S, c->info));
  if (!same || options) PetscCall(MatSpMVSeqSetup(S, c->opts, c->gpu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ConvertBlocks(Mat A, PetscBool options = PETSC_FALSE)
{
  Mat_MPIAIJ *a = (Mat_MPIAIJ *)A->data;

  PetscFunctionBegin;
  PetscCall(ConvertBlock(A, a->A, options));
  PetscCall(ConvertBlock(A, a->B, options));
  if (a->lvec && Ctx(A)->gpu) PetscCall(VecSetType(a->lvec, VECSEQCUDA));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMPIAIJSetPreallocation_MPIAIJSpMV(Mat A, PetscInt dnz, const PetscInt dnnz[], PetscInt onz, const PetscInt onnz[])
{
  PetscFunctionBegin;
  PetscCall(Ctx(A)->prealloc(A, dnz, dnnz, onz, onnz)); /* creates both blocks as SeqAIJ */
  PetscCall(ConvertBlocks(A));                          /* in place, unassembled: the preallocation stays */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAssemblyEnd_MPIAIJSpMV(Mat A, MatAssemblyType mode)
{
  PetscFunctionBegin;
  PetscCall(Ctx(A)->assemblyend(A, mode));
  if (mode == MAT_FINAL_ASSEMBLY) PetscCall(ConvertBlocks(A)); /* lvec was made from B: a CUDA vector already */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetFromOptions_MPIAIJSpMV(Mat A, PetscOptionItems PetscOptionsObjectParent)
{
  Mat_MPIAIJSpMV *c = Ctx(A);

  PetscFunctionBegin;
  if (c->setfromoptions) PetscCall(c->setfromoptions(A, PetscOptionsObjectParent));
  PetscCall(SpMVSetFromOptions(A, c->info->mpiname, c->info, c->opts, &c->gpu));
  if (((Mat_MPIAIJ *)A->data)->A) PetscCall(ConvertBlocks(A, PETSC_TRUE)); /* blocks that exist take the new options */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatView_MPIAIJSpMV(Mat A, PetscViewer viewer)
{
  Mat_MPIAIJ       *a = (Mat_MPIAIJ *)A->data;
  PetscBool         ascii;
  PetscViewerFormat format;
  PetscViewer       sv;
  PetscMPIInt       rank;

  PetscFunctionBegin;
  PetscCall(Ctx(A)->view(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii || !A->assembled) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s: diagonal and off-diagonal blocks are %s; rank 0's diagonal block:\n", Ctx(A)->info->mpiname, Ctx(A)->info->seqname));
  PetscCall(PetscViewerGetSubViewer(viewer, PETSC_COMM_SELF, &sv));
  if (rank == 0) PetscCall(MatView(a->A, sv));
  PetscCall(PetscViewerRestoreSubViewer(viewer, PETSC_COMM_SELF, &sv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ComposeMPI(Mat A, const SpMVFormatInfo *f, PetscBool on);

/* Put MPIAIJ back: blocks to SeqAIJ, the parent's operations, no context */
PetscErrorCode DetachMPI(Mat A)
{
  Mat_MPIAIJ     *a = (Mat_MPIAIJ *)A->data;
  Mat_MPIAIJSpMV *c = Ctx(A);

  PetscFunctionBegin;
  for (Mat S : {a->A, a->B}) {
    PetscBool ours;
    if (!S) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)S, c->info->seqname, &ours));
    if (ours) PetscCall(MatSpMVSeqDetach(S));
  }
  if (a->lvec) PetscCall(VecSetType(a->lvec, VECSEQ));
  A->ops->assemblyend    = c->assemblyend;
  A->ops->destroy        = c->destroy;
  A->ops->setfromoptions = c->setfromoptions;
  A->ops->view           = c->view;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", c->prealloc));
  PetscCall(ComposeMPI(A, c->info, PETSC_FALSE));
  delete c->opts;
  delete c;
  a->spptr      = nullptr;
  A->boundtocpu = PETSC_TRUE;
  PetscCall(PetscFree(A->defaultvectype));
  PetscCall(PetscStrallocpy(VECSTANDARD, &A->defaultvectype));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDestroy_MPIAIJSpMV(Mat A)
{
  PetscFunctionBegin;
  PetscCall(DetachMPI(A));
  PetscCall((*A->ops->destroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AttachMPI(Mat A, const SpMVFormatInfo *f)
{
  Mat_MPIAIJSpMV *c = new Mat_MPIAIJSpMV();

  PetscFunctionBegin;
  c->info = f;
  c->opts = f->create();
  c->gpu  = SpMVHaveGPU();
  if (c->gpu) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", &c->prealloc));
  PetscCheck(c->prealloc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MPIAIJ has no MatMPIAIJSetPreallocation_C");
  c->assemblyend                        = A->ops->assemblyend;
  c->destroy                            = A->ops->destroy;
  c->setfromoptions                     = A->ops->setfromoptions;
  c->view                               = A->ops->view;
  ((Mat_MPIAIJ *)A->data)->spptr        = c;
  A->ops->assemblyend                   = MatAssemblyEnd_MPIAIJSpMV;
  A->ops->destroy                       = MatDestroy_MPIAIJSpMV;
  A->ops->setfromoptions                = MatSetFromOptions_MPIAIJSpMV;
  A->ops->view                          = MatView_MPIAIJSpMV;
  A->boundtocpu                         = PETSC_FALSE;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", MatMPIAIJSetPreallocation_MPIAIJSpMV));
  PetscCall(PetscFree(A->defaultvectype));
  PetscCall(PetscStrallocpy(c->gpu ? VECCUDA : VECSTANDARD, &A->defaultvectype));
  PetscCall(ComposeMPI(A, f, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, f->mpiname));
  PetscCall(ConvertBlocks(A)); /* blocks that exist already (conversion of an assembled matrix) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_MPIAIJSpMV_MPIAIJ(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  PetscFunctionBegin;
  (void)type;
  if (reuse == MAT_REUSE_MATRIX) PetscCall(MatCopy(A, *B, SAME_NONZERO_PATTERN));
  else {
    if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
    PetscCall(DetachMPI(*B));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_MPIAIJ_MPIAIJSpMV(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  const SpMVFormatInfo *f = nullptr;

  PetscFunctionBegin;
  for (const char *name : {type}) {
    f = SpMVFindFormat(name);
    if (!f && !strncmp(name, "mpiaij", 6)) f = SpMVFindFormat(name + 6); /* mpiaij<fmt> -> <fmt> */
  }
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown petsc-spmv matrix type %s", type);
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
  PetscCall(AttachMPI(*B, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ComposeMPI(Mat A, const SpMVFormatInfo *f, PetscBool on)
{
  char name[256];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_mpiaij_C", f->mpiname));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, on ? MatConvert_MPIAIJSpMV_MPIAIJ : NULL));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_mpiaij_%s_C", f->mpiname));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, on ? MatConvert_MPIAIJ_MPIAIJSpMV : NULL));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_mpiaij_%s_C", f->root));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, on ? MatConvert_MPIAIJ_MPIAIJSpMV : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* The constructor behind MatSetType(A, "mpiaij<fmt>") for every format */
PetscErrorCode MatCreate_MPIAIJSpMV(Mat A, const SpMVFormatInfo *f)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIAIJ(A));
  PetscCall(AttachMPI(A, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}
