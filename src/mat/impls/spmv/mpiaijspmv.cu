/*
   The MPI twin mpiaij<fmt>: an MPIAIJCUSPARSE matrix (MPIAIJ without a GPU) whose diagonal and off-diagonal
   blocks carry the format (the overlay of aijspmv.cu, under the parent's block type name seqaijcusparse, so
   the MPI parent's code, COO assembly and the GPU products of GAMG see plain aijcusparse blocks).
   Written once for every format, on top of the sequential type.

   MatMult stays the parent's: the ghost scatter into lvec (a CUDA vector on a GPU) overlaps the diagonal
   block's product, then the off-diagonal block adds its part with MatMultAdd. The formats drop empty rows,
   so the off-diagonal block's compressed rows need nothing special. The blocks get the format right after
   preallocation (the parent's preallocation creates them) and, for the paths that re-create them (hash
   assembly, COO preallocation, MatDisAssemble), again at assembly.
*/
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "spmvimpl.h"
#include "spmvdevice.cuh"
#include <petscdevice_cuda.h>
#include <../src/mat/impls/aij/mpi/mpiaij.h>

PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJCUSPARSE(Mat);


namespace {
struct Mat_MPIAIJSpMV : SpMVOverlay {
  const SpMVFormatInfo *info    = nullptr;
  SpMVFormat           *opts    = nullptr; /* holds the format options for both blocks */
  PetscBool             gpu     = PETSC_FALSE; /* an mpiaijcusparse parent */
  PetscBool             hostref = PETSC_FALSE; /* the blocks run their format's host reference */
  PetscErrorCode (*prealloc)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[]) = nullptr;
  PetscErrorCode (*assemblyend)(Mat, MatAssemblyType)                                  = nullptr;
  PetscErrorCode (*setfromoptions)(Mat, PetscOptionItems)                              = nullptr;
  PetscErrorCode (*view)(Mat, PetscViewer)                                             = nullptr;
  PetscErrorCode (*duplicate)(Mat, MatDuplicateOption, Mat *)                          = nullptr;
  PetscErrorCode (*createsubmatrix)(Mat, IS, IS, MatReuse, Mat *)                      = nullptr;
  PetscErrorCode (*anytype)(void)                                                      = nullptr; /* the parent's composed _anytype_C */
  PetscErrorCode (*mult)(Mat, Vec, Vec)                                                = nullptr;
  PetscErrorCode (*multadd)(Mat, Vec, Vec, Vec)                                        = nullptr;
  PetscObjectState      state    = -1; /* the nonzero pattern the products are counted for (the same on every rank) */
  PetscInt              products = 0;
  ~Mat_MPIAIJSpMV() override { delete opts; }
};

Mat_MPIAIJSpMV *Ctx(Mat A)
{
  SpMVOverlay *o = SpMVGetOverlay(A);
  return o && o->mpi ? static_cast<Mat_MPIAIJSpMV *>(o) : nullptr;
}

/* Make one block seqaij<fmt> (if it is not yet) with the parent's options; 'options' re-applies them to
   a block that already is (they changed: its layout is rebuilt at the next product) */
PetscErrorCode ConvertBlock(Mat A, Mat S, PetscBool options)
{
  Mat_MPIAIJSpMV *c = Ctx(A);
  PetscBool       same;

  PetscFunctionBegin;
  if (!S) PetscFunctionReturn(PETSC_SUCCESS);
  same = MatSpMVSeqHasOverlay(S);
  if (!same) PetscCall(MatSpMVSeqAttach(S, c->info, c->hostref));
  if (!same || options) PetscCall(MatSpMVSeqSetup(S, c->opts, c->hostref));
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

/* The blocks' selections (the automatic format) wait until the products paid for them, each rank by its own timing,
   and stop that rank while they run: at different products, each would stop every rank in turn (the others wait for it
   in the next scatter or reduction). At the kAgreeAt-th product of a new nonzero pattern, the same product on every
   rank (MatMult and MatMultAdd are collective), the ranks agree on one due product count for each block, the largest */
constexpr PetscInt kAgreeAt = 8;

PetscErrorCode AgreeDue(Mat A)
{
  Mat_MPIAIJ     *a = (Mat_MPIAIJ *)A->data;
  Mat_MPIAIJSpMV *c = Ctx(A);
  Mat             blocks[2] = {a->A, a->B};
  SpMVFormat     *fmt[2];
  int64_t         due[2];

  PetscFunctionBegin;
  if (A->nonzerostate != c->state) {
    c->state    = A->nonzerostate;
    c->products = 0;
  }
  if (c->products == kAgreeAt || ++c->products < kAgreeAt) PetscFunctionReturn(PETSC_SUCCESS); /* agreed, or not yet */
  for (int i = 0; i < 2; i++) {
    const SpMVFormatInfo *info;

    due[i] = -1;
    PetscCall(MatSpMVSeqGetFormat(blocks[i], PETSC_FALSE, &info, &fmt[i]));
    if (fmt[i]) PetscCall(fmt[i]->WaitDue(&due[i]));
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, due, 2, MPI_INT64_T, MPI_MAX, PetscObjectComm((PetscObject)A)));
  for (int i = 0; i < 2; i++)
    if (fmt[i] && due[i] >= 0) fmt[i]->AgreeDue(due[i]);
  if (due[0] >= 0 || due[1] >= 0) PetscCall(PetscInfo(A, "spmv: the ranks' selections are due after %" PetscInt64_FMT " (diagonal blocks) and %" PetscInt64_FMT " (off-diagonal) products\n", due[0], due[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMult_MPIAIJSpMV(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(AgreeDue(A));
  PetscCall(Ctx(A)->mult(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultAdd_MPIAIJSpMV(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(AgreeDue(A));
  PetscCall(Ctx(A)->multadd(A, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetFromOptions_MPIAIJSpMV(Mat A, PetscOptionItems PetscOptionsObjectParent)
{
  Mat_MPIAIJSpMV *c = Ctx(A);

  PetscFunctionBegin;
  if (c->setfromoptions) PetscCall(c->setfromoptions(A, PetscOptionsObjectParent));
  PetscCall(SpMVSetFromOptions(A, c->info->mpiname, c->info, c->opts, &c->hostref, NULL)); /* MPI products take A's type already */
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
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s: diagonal and off-diagonal blocks are %s matrices with the %s format; rank 0's diagonal block:\n", Ctx(A)->info->mpiname, ((PetscObject)a->A)->type_name, Ctx(A)->info->root));
  PetscCall(PetscViewerGetSubViewer(viewer, PETSC_COMM_SELF, &sv));
  if (rank == 0) PetscCall(MatView(a->A, sv));
  PetscCall(PetscViewerRestoreSubViewer(viewer, PETSC_COMM_SELF, &sv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPIAIJ's duplicate makes a matrix of A's type name, which inside a product's phases is the parent's, lent (PETSc's
   A * MATDIAGONAL duplicates A into the product: mat/tests/ex309 on 2 ranks got an mpiaij product of an mpiaijspmv A):
   the copy is made under A's own name */
PetscErrorCode MatDuplicate_MPIAIJSpMV(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_MPIAIJSpMV *c    = Ctx(A);
  char           *name = ((PetscObject)A)->type_name;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  ((PetscObject)A)->type_name = const_cast<char *>(c->info->mpiname);
  ierr                        = c->duplicate(A, op, B);
  ((PetscObject)A)->type_name = name;
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ComposeMPI(Mat A, PetscBool on);
PetscErrorCode AttachMPI(Mat A, const SpMVFormatInfo *f, const Mat_MPIAIJSpMV *from = nullptr);

/* MPIAIJ makes a submatrix of A's type on some paths and, on others (MatCreateMPIAIJWithSeqAIJ: PCFIELDSPLIT's blocks
   when rows and columns share a distribution), of its diagonal block's MPI type, the parent's (mpiaijcusparse). A
   submatrix of a plugin matrix is one of its type and options, as AIJ's is AIJ: a parent-typed block lost the format,
   and PETSc cannot form the Galerkin product of an mpiaijcusparse block with a DM's mpiaij interpolation (DMStag and
   DMDA make their interpolation plain AIJ for any -dm_mat_type not named aij*; dm/impls/stag/tutorials/ex4 on 2 ranks
   with PCMG inside PCFIELDSPLIT), while the plugin type's product dispatch forms it as AIJ does */
PetscErrorCode MatCreateSubMatrix_MPIAIJSpMV(Mat A, IS isrow, IS iscol, MatReuse reuse, Mat *B)
{
  Mat_MPIAIJSpMV *c = Ctx(A);
  PetscBool       parent;

  PetscFunctionBegin;
  PetscCall(c->createsubmatrix(A, isrow, iscol, reuse, B));
  if (reuse == MAT_REUSE_MATRIX || Ctx(*B)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)*B, c->parent, &parent));
  if (parent) PetscCall(AttachMPI(*B, c->info, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Put MPIAIJ back: blocks to SeqAIJ, the parent's operations, no overlay */
PetscErrorCode DetachMPI(Mat A)
{
  Mat_MPIAIJ     *a = (Mat_MPIAIJ *)A->data;
  Mat_MPIAIJSpMV *c = Ctx(A);

  PetscFunctionBegin;
  for (Mat S : {a->A, a->B})
    if (S && MatSpMVSeqHasOverlay(S)) PetscCall(MatSpMVSeqDetach(S));
  A->ops->assemblyend           = c->assemblyend;
  A->ops->setfromoptions        = c->setfromoptions;
  A->ops->view                  = c->view;
  A->ops->duplicate             = c->duplicate;
  A->ops->createsubmatrix       = c->createsubmatrix;
  A->ops->productsetfromoptions = c->productsetfromoptions;
  if (c->mult) {
    A->ops->mult    = c->mult;
    A->ops->multadd = c->multadd;
  }
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", c->prealloc));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_anytype_C", c->anytype));
  PetscCall(ComposeMPI(A, PETSC_FALSE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, c->parent));
  PetscCall(SpMVComposeOverlay(A, nullptr)); /* frees the overlay */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The MPI parent's code compares type names only in its product dispatch (MatProductSetFromOptions_MPIAIJBACKEND
   takes the GPU only when both operands have the same type): products go through the generic dispatch of
   aijspmv.cu, which lends the parent's name; mixed operands (a plain parent matrix with ours) find it as
   MatProductSetFromOptions_anytype_C. 'from': a plugin matrix whose format options and host-reference choice A takes
   (a submatrix of it) instead of the defaults */
PetscErrorCode AttachMPI(Mat A, const SpMVFormatInfo *f, const Mat_MPIAIJSpMV *from)
{
  Mat_MPIAIJSpMV *c = new Mat_MPIAIJSpMV();

  PetscFunctionBegin;
  c->mpi     = PETSC_TRUE;
  c->info    = f;
  c->opts    = f->create();
  c->hostref = from ? from->hostref : SpMVHostReferenceDefault(A);
  if (from) PetscCall(c->opts->CopyOptions(*from->opts));
  PetscCall(PetscStrncpy(c->parent, ((PetscObject)A)->type_name, sizeof(c->parent)));
  PetscCall(PetscStrcmp(c->parent, MATMPIAIJCUSPARSE, &c->gpu));
  PetscCall(SpMVComposeOverlay(A, c));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", &c->prealloc));
  PetscCheck(c->prealloc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MPIAIJ has no MatMPIAIJSetPreallocation_C");
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatProductSetFromOptions_anytype_C", &c->anytype));
  c->assemblyend                = A->ops->assemblyend;
  c->setfromoptions             = A->ops->setfromoptions;
  c->view                       = A->ops->view;
  c->duplicate                  = A->ops->duplicate;
  c->createsubmatrix            = A->ops->createsubmatrix;
  c->productsetfromoptions      = A->ops->productsetfromoptions;
  A->ops->assemblyend           = MatAssemblyEnd_MPIAIJSpMV;
  A->ops->setfromoptions        = MatSetFromOptions_MPIAIJSpMV;
  A->ops->view                  = MatView_MPIAIJSpMV;
  A->ops->duplicate             = MatDuplicate_MPIAIJSpMV;
  A->ops->createsubmatrix       = MatCreateSubMatrix_MPIAIJSpMV;
  A->ops->productsetfromoptions = SpMVProductSetFromOptions;
  if (c->gpu) { /* the products of a GPU parent count towards the blocks' agreement (AgreeDue) */
    c->mult         = A->ops->mult;
    c->multadd      = A->ops->multadd;
    A->ops->mult    = MatMult_MPIAIJSpMV;
    A->ops->multadd = MatMultAdd_MPIAIJSpMV;
  } else A->boundtocpu = PETSC_FALSE; /* the blocks' products run unless bound */
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", MatMPIAIJSetPreallocation_MPIAIJSpMV));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_anytype_C", SpMVProductSetFromOptions));
  PetscCall(ComposeMPI(A, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, f->mpiname));
  PetscCall(ConvertBlocks(A)); /* blocks that exist already (conversion of an assembled matrix) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* to the parent family (mpiaij, mpiaijcusparse): the overlay comes off, then the parent converts */
PetscErrorCode MatConvert_MPIAIJSpMV_Parent(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  PetscBool aij;

  PetscFunctionBegin;
  PetscCall(PetscStrcmpAny(type, &aij, MATMPIAIJ, MATAIJ, ""));
  if (reuse == MAT_INITIAL_MATRIX && aij && Ctx(A)->gpu) { /* not through a copy and PETSc's basic converter (aijspmv.cu) */
    PetscCall(SpMVConvertToAIJ(A, type, B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SpMVConvertThroughParent(A, type, reuse, B, true, DetachMPI));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* from any matrix (the new matrix' "convertfrom", as in aijspmv.cu): through the parent, then the overlay */
PetscErrorCode MatConvert_Parent_MPIAIJSpMV(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  const SpMVFormatInfo *f = SpMVFindFormat(type);

  PetscFunctionBegin;
  if (!f && !strncmp(type, "mpiaij", 6)) f = SpMVFindFormat(type + 6); /* mpiaij<fmt> -> <fmt> */
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown petsc-spmv matrix type %s", type);
  PetscCall(SpMVConvertThroughParent(A, SpMVHaveGPU() ? MATMPIAIJCUSPARSE : MATMPIAIJ, reuse, B, false, [f](Mat C) { return AttachMPI(C, f); }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* to the parents (the overlay comes off) and to any other type (as PETSc converts the parent without a converter) */
PetscErrorCode MatConvert_General_MPIAIJSpMV(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(SpMVConvertGeneral(A, type, reuse, B, MATMPIAIJ, MATMPIAIJCUSPARSE, MatConvert_MPIAIJSpMV_Parent));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatConvert's general converter (to any type) and the new matrix' "convertfrom" (from any type); MPIAIJ has neither */
PetscErrorCode ComposeMPI(Mat A, PetscBool on)
{
  PetscFunctionBegin;
  A->ops->convert     = on ? MatConvert_General_MPIAIJSpMV : NULL;
  A->ops->convertfrom = on ? MatConvert_Parent_MPIAIJSpMV : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* The constructor behind MatSetType(A, "mpiaij<fmt>") for every format */
PetscErrorCode MatCreate_MPIAIJSpMV(Mat A, const SpMVFormatInfo *f)
{
  PetscFunctionBegin;
  if (SpMVHaveGPU()) {
    PetscCall(MatCreate_MPIAIJCUSPARSE(A)); /* initializes the device */
    PetscCall(spmv::WarmPool());            /* as the sequential constructor: the pool and kernel modules, on a thread */
  } else PetscCall(MatCreate_MPIAIJ(A));
  PetscCall(AttachMPI(A, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}
