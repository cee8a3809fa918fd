/*
   The generic sequential type seqaij<fmt>: a SeqAIJ matrix whose MatMult/MatMultAdd run a sparse format
   on the GPU. Written once for every format (spmvformat.h is the contract).

   - The host CSR stays the source of truth: assembly, MatSetValues, FD coloring, ILU, MatGetRow,
     MatMultTranspose ... all use the parent's (SeqAIJ) operations, saved at creation.
   - The format is built lazily at the first product after a change: a new nonzero pattern
     (A->nonzerostate) rebuilds it, changed values only (object state) refresh it. Because the GPU never
     writes the matrix, comparing the states is the whole invalidation protocol.
   - With a GPU: the CSR is uploaded, the format built from it on the device, products run on PETSc's
     current stream with no host synchronization. Host vectors are staged through the device.
   - Without a GPU (or -mat_spmv_host_reference): the format's host reference executes the products.
   - MatBindToCPU(A, PETSC_TRUE): the parent's CSR products on the host.
*/
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "spmvimpl.h"
#include "spmvdevice.cuh"
#include <petscdevice_cuda.h>
#include <../src/mat/impls/aij/seq/aij.h>
#include <vector>

PetscLogEvent MAT_SpMV_CopyToGPU = 0, MAT_SpMV_Build = 0, MAT_SpMV_Refresh = 0;

namespace {
struct Mat_SeqAIJSpMV {
  const SpMVFormatInfo *info = nullptr;
  SpMVFormat           *fmt  = nullptr;
  /* the parent's operations we replace */
  PetscErrorCode (*mult)(Mat, Vec, Vec)                        = nullptr;
  PetscErrorCode (*multadd)(Mat, Vec, Vec, Vec)                = nullptr;
  PetscErrorCode (*destroy)(Mat)                               = nullptr;
  PetscErrorCode (*duplicate)(Mat, MatDuplicateOption, Mat *)  = nullptr;
  PetscErrorCode (*view)(Mat, PetscViewer)                     = nullptr;
  PetscErrorCode (*setfromoptions)(Mat, PetscOptionItems)      = nullptr;
  PetscErrorCode (*bindtocpu)(Mat, PetscBool)                  = nullptr;

  PetscBool        gpu = PETSC_FALSE;      /* products on the device */
  PetscBool        built = PETSC_FALSE;    /* the format holds the current matrix */
  PetscBool        onhost = PETSC_FALSE;   /* ... built by the host reference */
  PetscObjectState state = 0, nzstate = 0; /* of the matrix when built */
  /* device CSR (32-bit indices) and staging buffers for host vectors */
  int             *di = nullptr, *dj = nullptr;
  PetscScalar     *da = nullptr, *dx = nullptr, *dy = nullptr;
  PetscInt         dnnz = 0;
};

inline Mat_SeqAIJSpMV *Ctx(Mat A) { return (Mat_SeqAIJSpMV *)A->spptr; }

std::vector<const SpMVFormatInfo *> &Registry()
{
  static std::vector<const SpMVFormatInfo *> r;
  return r;
}

} // namespace

const SpMVFormatInfo *SpMVFindFormat(const char *name)
{
  for (auto *f : Registry()) {
    PetscBool a, b;
    if (PetscStrcmp(name, f->root, &a) || PetscStrcmp(name, f->seqname, &b)) return nullptr;
    if (a || b) return f;
  }
  return nullptr;
}

/* The options block of a petsc-spmv type (seq or mpi): its own block, as SeqAIJ does, because -help prints a
   (prefix, title) block once and "Matrix (Mat) options" was printed when the AIJ parent was created */
PetscErrorCode SpMVSetFromOptions(Mat A, const char *typename_, const SpMVFormatInfo *info, SpMVFormat *fmt, PetscBool *gpu)
{
  PetscBool ref = (PetscBool)!*gpu, set;
  char      title[256];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(title, sizeof(title), "Options for %s matrices (%s)", typename_, info->title));
  PetscOptionsBegin(PetscObjectComm((PetscObject)A), ((PetscObject)A)->prefix, title, "Mat");
  PetscCall(PetscOptionsBool("-mat_spmv_host_reference", "Run the format's host reference instead of the GPU kernels (debugging, testing)", "MatSetType", ref, &ref, &set));
  if (set) {
    PetscCheck(ref || SpMVHaveGPU(), PETSC_COMM_SELF, PETSC_ERR_SUP, "-mat_spmv_host_reference 0 needs a GPU, and this process sees none");
    *gpu = (PetscBool)!ref;
  }
  PetscCall(fmt->SetFromOptions(PetscOptionsObject));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Is there a device this process can use? (no driver, no device: the host reference runs) */
PetscBool SpMVHaveGPU(void)
{
  static int have = -1;
  if (have < 0) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      n = 0;
    }
    have = n > 0;
  }
  return have ? PETSC_TRUE : PETSC_FALSE;
}

namespace {

PetscErrorCode FreeDeviceCsr(Mat_SeqAIJSpMV *c)
{
  PetscFunctionBegin;
  PetscCall(spmv::DeviceFree({c->di, c->dj, c->da, c->dx, c->dy}));
  c->di = c->dj = nullptr;
  c->da = c->dx = c->dy = nullptr;
  c->dnnz               = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

SpMVHostCsr HostCsr(Mat A)
{
  Mat_SeqAIJ *a = (Mat_SeqAIJ *)A->data;
  SpMVHostCsr h;
  h.m   = A->rmap->n;
  h.n   = A->cmap->n;
  h.nnz = A->rmap->n ? a->i[A->rmap->n] : 0;
  h.i   = a->i;
  h.j   = a->j;
  h.a   = a->a;
  return h;
}

SpMVDeviceCsr DeviceCsr(Mat A)
{
  Mat_SeqAIJSpMV *c = Ctx(A);
  SpMVDeviceCsr   d;
  d.m   = A->rmap->n;
  d.n   = A->cmap->n;
  d.nnz = c->dnnz;
  d.i   = c->di;
  d.j   = c->dj;
  d.a   = c->da;
  return d;
}

/* Upload the CSR (pattern too when 'pattern') as 32-bit indices */
PetscErrorCode UploadCsr(Mat A, PetscBool pattern, cudaStream_t s)
{
  Mat_SeqAIJSpMV   *c = Ctx(A);
  const SpMVHostCsr h = HostCsr(A);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MAT_SpMV_CopyToGPU, A, 0, 0, 0));
  if (pattern) {
    PetscCheck(h.nnz < PETSC_INT32_MAX && h.m < PETSC_INT32_MAX && h.n < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s stores 32-bit indices: %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT " nonzeros does not fit", c->info->seqname, h.m, h.n, h.nnz);
    PetscCall(FreeDeviceCsr(c));
    PetscCallCUDA(cudaMalloc((void **)&c->di, (h.m + 1) * sizeof(int)));
    PetscCallCUDA(cudaMalloc((void **)&c->dj, PetscMax(h.nnz, 1) * sizeof(int)));
    PetscCallCUDA(cudaMalloc((void **)&c->da, PetscMax(h.nnz, 1) * sizeof(PetscScalar)));
    c->dnnz = h.nnz;
    if (sizeof(PetscInt) == sizeof(int)) {
      PetscCallCUDA(cudaMemcpyAsync(c->di, h.i, (h.m + 1) * sizeof(int), cudaMemcpyHostToDevice, s));
      PetscCallCUDA(cudaMemcpyAsync(c->dj, h.j, h.nnz * sizeof(int), cudaMemcpyHostToDevice, s));
    } else { /* 64-bit PetscInt: narrow once here */
      std::vector<int> ii(h.i, h.i + h.m + 1), jj(h.j, h.j + h.nnz);
      PetscCallCUDA(cudaMemcpyAsync(c->di, ii.data(), ii.size() * sizeof(int), cudaMemcpyHostToDevice, s));
      PetscCallCUDA(cudaMemcpyAsync(c->dj, jj.data(), jj.size() * sizeof(int), cudaMemcpyHostToDevice, s));
      PetscCallCUDA(cudaStreamSynchronize(s));
    }
    PetscCall(PetscLogCpuToGpu((h.m + 1 + h.nnz) * sizeof(int)));
  }
  PetscCallCUDA(cudaMemcpyAsync(c->da, h.a, h.nnz * sizeof(PetscScalar), cudaMemcpyHostToDevice, s));
  PetscCall(PetscLogCpuToGpu(h.nnz * sizeof(PetscScalar)));
  PetscCallCUDA(cudaStreamSynchronize(s));
  PetscCall(PetscLogEventEnd(MAT_SpMV_CopyToGPU, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bring the format up to date with the host matrix: build (new pattern) or refresh (new values) */
PetscErrorCode Sync(Mat A, PetscBool onhost)
{
  Mat_SeqAIJSpMV  *c = Ctx(A);
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (c->built && c->onhost == onhost && state == c->state) PetscFunctionReturn(PETSC_SUCCESS);
  const PetscBool rebuild = (PetscBool)(!c->built || c->onhost != onhost || A->nonzerostate != c->nzstate);
  if (onhost) {
    PetscCall(PetscLogEventBegin(rebuild ? MAT_SpMV_Build : MAT_SpMV_Refresh, A, 0, 0, 0));
    if (rebuild) PetscCall(c->fmt->BuildHost(HostCsr(A)));
    else PetscCall(c->fmt->RefreshHost(HostCsr(A)));
    PetscCall(PetscLogEventEnd(rebuild ? MAT_SpMV_Build : MAT_SpMV_Refresh, A, 0, 0, 0));
  } else {
    cudaStream_t s;
    PetscCall(PetscGetCurrentCUDAStream(&s));
    PetscCall(UploadCsr(A, rebuild, s));
    PetscCall(PetscLogEventBegin(rebuild ? MAT_SpMV_Build : MAT_SpMV_Refresh, A, 0, 0, 0));
    if (rebuild) PetscCall(c->fmt->BuildDevice(DeviceCsr(A), s));
    else PetscCall(c->fmt->RefreshDevice(DeviceCsr(A), s));
    PetscCallCUDA(cudaStreamSynchronize(s)); /* once per (re)assembly: honest event times, errors surface here */
    PetscCall(PetscLogEventEnd(rebuild ? MAT_SpMV_Build : MAT_SpMV_Refresh, A, 0, 0, 0));
  }
  if (rebuild) PetscCall(PetscInfo(A, "%s: built the format %s (%" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " nonzeros)\n", c->info->seqname, onhost ? "on the host" : "on the GPU", A->rmap->n, A->cmap->n, HostCsr(A).nnz));
  c->built   = PETSC_TRUE;
  c->onhost  = onhost;
  c->state   = state;
  c->nzstate = A->nonzerostate;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool UseHost(Mat A) { return (PetscBool)!Ctx(A)->gpu; }

/* z = A x (+ y when y is given). The one product routine behind MatMult and MatMultAdd. */
PetscErrorCode MultAddImpl(Mat A, Vec x, Vec y, Vec z)
{
  Mat_SeqAIJSpMV  *c   = Ctx(A);
  Mat_SeqAIJ      *a   = (Mat_SeqAIJ *)A->data;
  const PetscInt   nnz = HostCsr(A).nnz;
  const bool       add = y != nullptr;

  PetscFunctionBegin;
  if (add && y != z) PetscCall(VecCopy(y, z));
  if (nnz == 0) { /* nothing to multiply: z = 0 or z = y */
    if (!add) PetscCall(VecSet(z, 0.0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(Sync(A, UseHost(A)));
  if (UseHost(A)) {
    const PetscScalar *xa;
    PetscScalar       *za;
    PetscCall(VecGetArrayRead(x, &xa));
    if (add) PetscCall(VecGetArray(z, &za));
    else PetscCall(VecGetArrayWrite(z, &za));
    PetscCall(c->fmt->MultHost(xa, za, add));
    PetscCall(VecRestoreArrayRead(x, &xa));
    if (add) PetscCall(VecRestoreArray(z, &za));
    else PetscCall(VecRestoreArrayWrite(z, &za));
    PetscCall(PetscLogFlops(add ? 2.0 * nnz : 2.0 * nnz - a->nonzerorowcnt));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  cudaStream_t       s;
  const PetscScalar *xa;
  PetscScalar       *za;
  PetscMemType       mx, mz;
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
  if (add) PetscCall(VecGetArrayAndMemType(z, &za, &mz));
  else PetscCall(VecGetArrayWriteAndMemType(z, &za, &mz));
  const PetscBool staged = (PetscBool)(!PetscMemTypeDevice(mx) || !PetscMemTypeDevice(mz));
  const PetscScalar *dxa = xa;
  PetscScalar       *dza = za;
  if (staged) { /* host vectors: stage through device buffers (the slow path: prefer CUDA vectors) */
    if (!c->dx) {
      PetscCallCUDA(cudaMalloc((void **)&c->dx, PetscMax(A->cmap->n, 1) * sizeof(PetscScalar)));
      PetscCallCUDA(cudaMalloc((void **)&c->dy, PetscMax(A->rmap->n, 1) * sizeof(PetscScalar)));
    }
    if (!PetscMemTypeDevice(mx)) {
      PetscCallCUDA(cudaMemcpyAsync(c->dx, xa, A->cmap->n * sizeof(PetscScalar), cudaMemcpyHostToDevice, s));
      PetscCall(PetscLogCpuToGpu(A->cmap->n * sizeof(PetscScalar)));
      dxa = c->dx;
    }
    if (!PetscMemTypeDevice(mz)) {
      if (add) PetscCallCUDA(cudaMemcpyAsync(c->dy, za, A->rmap->n * sizeof(PetscScalar), cudaMemcpyHostToDevice, s));
      dza = c->dy;
    }
  }
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(c->fmt->MultDevice(dxa, dza, add, s));
  PetscCall(PetscLogGpuTimeEnd());
  if (staged && !PetscMemTypeDevice(mz)) {
    PetscCallCUDA(cudaMemcpyAsync(za, dza, A->rmap->n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(PetscLogGpuToCpu(A->rmap->n * sizeof(PetscScalar)));
  }
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  if (add) PetscCall(VecRestoreArrayAndMemType(z, &za));
  else PetscCall(VecRestoreArrayWriteAndMemType(z, &za));
  PetscCall(PetscLogGpuFlops(add ? 2.0 * nnz : 2.0 * nnz - a->nonzerorowcnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMult_SeqAIJSpMV(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  if (A->boundtocpu) PetscCall(Ctx(A)->mult(A, x, y));
  else PetscCall(MultAddImpl(A, x, nullptr, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultAdd_SeqAIJSpMV(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  if (A->boundtocpu) PetscCall(Ctx(A)->multadd(A, x, y, z));
  else PetscCall(MultAddImpl(A, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBindToCPU_SeqAIJSpMV(Mat A, PetscBool flg)
{
  PetscFunctionBegin;
  (void)A;
  (void)flg; /* A->boundtocpu is set by MatBindToCPU(); the products read it */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetFromOptions_SeqAIJSpMV(Mat A, PetscOptionItems PetscOptionsObjectParent)
{
  Mat_SeqAIJSpMV *c = Ctx(A);

  PetscFunctionBegin;
  if (c->setfromoptions) PetscCall(c->setfromoptions(A, PetscOptionsObjectParent));
  PetscCall(SpMVSetFromOptions(A, c->info->seqname, c->info, c->fmt, &c->gpu));
  c->built = PETSC_FALSE; /* options may change the layout */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatView_SeqAIJSpMV(Mat A, PetscViewer viewer)
{
  Mat_SeqAIJSpMV   *c = Ctx(A);
  PetscBool         ascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall(c->view(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s (%s), products %s\n", c->info->seqname, c->info->title, A->boundtocpu ? "bound to the CPU (parent CSR)" : (c->gpu ? "on the GPU" : "by the host reference (no GPU)")));
  if (!A->assembled || !HostCsr(A).nnz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Sync(A, UseHost(A)));
  PetscCall(c->fmt->View(viewer));
  if (c->gpu) PetscCall(PetscViewerASCIIPrintf(viewer, "device CSR kept for refresh: %.3g MB\n", (double)(HostCsr(A).nnz * (sizeof(int) + sizeof(PetscScalar)) + (A->rmap->n + 1) * sizeof(int)) / 1e6));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDuplicate_SeqAIJSpMV(Mat A, MatDuplicateOption op, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(Ctx(A)->duplicate(A, op, B)); /* MatDuplicate_SeqAIJ: MatSetType(B, our type) runs our constructor */
  PetscCall(Ctx(*B)->fmt->CopyOptions(*Ctx(A)->fmt));
  Ctx(*B)->gpu = Ctx(A)->gpu;
  PetscFunctionReturn(PETSC_SUCCESS);
}


} // namespace

/* Put the parent's operations back and forget the format: A becomes a plain SeqAIJ */
PetscErrorCode MatSpMVSeqDetach(Mat A)
{
  Mat_SeqAIJSpMV *c = Ctx(A);

  PetscFunctionBegin;
  A->ops->mult           = c->mult;
  A->ops->multadd        = c->multadd;
  A->ops->destroy        = c->destroy;
  A->ops->duplicate      = c->duplicate;
  A->ops->view           = c->view;
  A->ops->setfromoptions = c->setfromoptions;
  A->ops->bindtocpu      = c->bindtocpu;
  PetscCall(SpMVComposeConverters(A, c->info, PETSC_FALSE));
  PetscCall(c->fmt->ReleaseDevice()); /* frees only what was allocated: nothing without a GPU */
  delete c->fmt;
  PetscCall(FreeDeviceCsr(c));
  delete c;
  A->spptr      = nullptr;
  A->boundtocpu = PETSC_TRUE;
  PetscCall(PetscFree(A->defaultvectype));
  PetscCall(PetscStrallocpy(VECSTANDARD, &A->defaultvectype));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATSEQAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {
PetscErrorCode MatDestroy_SeqAIJSpMV(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSpMVSeqDetach(A));
  PetscCall((*A->ops->destroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_SeqAIJSpMV_SeqAIJ(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  PetscFunctionBegin;
  (void)type;
  if (reuse == MAT_REUSE_MATRIX) PetscCall(MatCopy(A, *B, SAME_NONZERO_PATTERN));
  else {
    if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
    PetscCall(MatSpMVSeqDetach(*B));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

/* Make the SeqAIJ matrix B a seqaij<fmt> in place (B may be unassembled) */
PetscErrorCode MatSpMVSeqAttach(Mat B, const SpMVFormatInfo *f)
{
  Mat_SeqAIJSpMV *c = new Mat_SeqAIJSpMV();

  PetscFunctionBegin;
  c->info = f;
  c->fmt  = f->create();
  c->gpu  = SpMVHaveGPU();
  if (c->gpu) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  c->mult              = B->ops->mult;
  c->multadd           = B->ops->multadd;
  c->destroy           = B->ops->destroy;
  c->duplicate         = B->ops->duplicate;
  c->view              = B->ops->view;
  c->setfromoptions    = B->ops->setfromoptions;
  c->bindtocpu         = B->ops->bindtocpu;
  B->spptr             = c;
  B->ops->mult           = MatMult_SeqAIJSpMV;
  B->ops->multadd        = MatMultAdd_SeqAIJSpMV;
  B->ops->destroy        = MatDestroy_SeqAIJSpMV;
  B->ops->duplicate      = MatDuplicate_SeqAIJSpMV;
  B->ops->view           = MatView_SeqAIJSpMV;
  B->ops->setfromoptions = MatSetFromOptions_SeqAIJSpMV;
  B->ops->bindtocpu      = MatBindToCPU_SeqAIJSpMV;
  B->offloadmask         = PETSC_OFFLOAD_CPU; /* the host CSR is always current */
  B->boundtocpu          = PETSC_FALSE;       /* MatCreate() starts every matrix bound; device types unbind */
  PetscCall(PetscFree(B->defaultvectype));
  PetscCall(PetscStrallocpy(c->gpu ? VECCUDA : VECSTANDARD, &B->defaultvectype));
  PetscCall(SpMVComposeConverters(B, f, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, f->seqname));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block of an MPI matrix takes the options and the execution side of its parent */
PetscErrorCode MatSpMVSeqSetup(Mat B, const SpMVFormat *opts, PetscBool gpu)
{
  PetscFunctionBegin;
  if (opts) PetscCall(Ctx(B)->fmt->CopyOptions(*opts));
  Ctx(B)->gpu   = gpu;
  Ctx(B)->built = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {
PetscErrorCode MatConvert_SeqAIJ_SeqAIJSpMV(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  const SpMVFormatInfo *f = SpMVFindFormat(type);

  PetscFunctionBegin;
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown petsc-spmv matrix type %s", type);
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
  PetscCall(MatSpMVSeqAttach(*B, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

/* MatConvert() finds converters by name: MatConvert_seqaij_<root>_C / _seqaij<fmt>_C on the target,
   MatConvert_seqaij<fmt>_seqaij_C on the source */
PetscErrorCode SpMVComposeConverters(Mat A, const SpMVFormatInfo *f, PetscBool on)
{
  char name[256];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_seqaij_C", f->seqname));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, on ? MatConvert_SeqAIJSpMV_SeqAIJ : NULL));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_seqaij_%s_C", f->seqname));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, on ? MatConvert_SeqAIJ_SeqAIJSpMV : NULL));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_seqaij_%s_C", f->root));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, on ? MatConvert_SeqAIJ_SeqAIJSpMV : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The constructor behind MatSetType(A, "seqaij<fmt>") for every format */
PetscErrorCode MatCreate_SeqAIJSpMV(Mat A, const SpMVFormatInfo *f)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqAIJ(A));
  PetscCall(MatSpMVSeqAttach(A, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpMVRegisterFormat(const SpMVFormatInfo *f, PetscErrorCode (*createseq)(Mat), PetscErrorCode (*creatempi)(Mat))
{
  PetscFunctionBegin;
  if (!SpMVFindFormat(f->root)) Registry().push_back(f);
  PetscCall(MatRegister(f->seqname, createseq));
  PetscCall(MatRegister(f->mpiname, creatempi));
  PetscCall(MatRegisterRootName(f->root, f->seqname, f->mpiname));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The format object of a seqaij<fmt> matrix (for queries such as MatSpMVGetFormat()), brought up to date first
   (built or refreshed, as at a product) when 'sync' and the matrix is assembled with nonzeros */
PetscErrorCode MatSpMVSeqGetFormat(Mat A, PetscBool sync, const SpMVFormatInfo **info, SpMVFormat **fmt)
{
  PetscFunctionBegin;
  PetscCheck(A->spptr && SpMVFindFormat(((PetscObject)A)->type_name), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Not a petsc-spmv matrix: %s", ((PetscObject)A)->type_name);
  if (sync && A->assembled && HostCsr(A).nnz) PetscCall(Sync(A, UseHost(A)));
  *info = Ctx(A)->info;
  *fmt  = Ctx(A)->fmt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpMVVerify - Developer check: rebuilds the format's host reference from the host CSR and compares
  it entry by entry with the layout built on the GPU (the same arrays must come out).

  Collective

  Input Parameter:
. A - an assembled matrix of a petsc-spmv type, with products on the GPU

  Output Parameter:
. maxdiff - the largest difference between device and host values (0 when the build is exact)

  Level: developer

.seealso: `MatSetType()`, `PetscSpMVInitializePackage()`
@*/
PetscErrorCode MatSpMVVerify(Mat A, PetscReal *maxdiff)
{
  Mat_SeqAIJSpMV *c;
  cudaStream_t    s;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(A->spptr && SpMVFindFormat(((PetscObject)A)->type_name), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Not a petsc-spmv sequential matrix: %s", ((PetscObject)A)->type_name);
  c = Ctx(A);
  PetscCheck(c->gpu, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSpMVVerify compares the GPU layout; this matrix runs on the host");
  PetscCall(Sync(A, PETSC_FALSE));
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCall(c->fmt->Verify(HostCsr(A), s, maxdiff));
  PetscFunctionReturn(PETSC_SUCCESS);
}
