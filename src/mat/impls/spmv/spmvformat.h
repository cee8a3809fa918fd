/*
   The contract between the generic PETSc type (aijspmv.cu) and one sparse format (one folder each).

   A format is plain C++/CUDA: it sees CSR arrays (on the host or on the device) and vectors as raw
   pointers, never a PETSc object. Every format provides the same operations, on both sides:

     Build*    build the layout from a CSR (the device CSR for BuildDevice, already uploaded)
     Refresh*  the nonzero pattern is unchanged, only the values changed: re-gather them, no re-sort
     Mult*     y = A x (add = false) or y += A x (add = true); the device version runs on the given
               stream with no host synchronization and no allocation
     View      its statistics for -mat_view ::ascii_info
     Verify    (GPU tests) rebuild the host reference from the host CSR and compare it with the device
               layout; errors out on a difference

   The host side is the format's reference: the tests use it as the oracle and the plugin runs it
   when no GPU is present, so CI exercises every layout through real PETSc solves.

   Lifetimes: the device CSR given to BuildDevice (32-bit row offsets and columns, values) belongs to the
   generic type and stays valid until the next BuildDevice or ReleaseDevice; a values refresh rewrites
   its values in place before RefreshDevice is called. A format may therefore keep pointers to it (a
   format that runs on the CSR itself needs no copy). The same holds for the host CSR and BuildHost.
   Build* may allocate and synchronize; Mult* may do neither (scratch space is allocated at build).

   Value type: PetscScalar, real double or complex double (each format's kernels are templates over the value type;
   in a complex PETSc "fp64" and "fp32" below mean complex<double> and complex<float>, both parts rounded alike).
   The vectors and the accumulation are always fp64; the stored matrix values are fp64, or fp32
   for a format whose SupportsSingle() is true when the CSR comes with single = true (the copy of an
   operator that the polynomial preconditioner applies with -pc_poly_precision single). On the device the
   values are then a32 (a is null) and the format stores fp32 values: its kernels are templates over the
   value type, instantiated for double and float, not copies. On the host they are fp64 numbers that are
   exactly representable in fp32 (rounded by the caller), so the fp64 host reference multiplies with
   exactly the values the device stores and stays the oracle with no second code path.
*/
#pragma once
#include <petscmat.h>
#include <petscviewer.h>
#include <cuda_runtime.h>
#include <cstddef>
#include <cmath>
#if defined(PETSC_USE_COMPLEX)
  #include <complex>
#endif

/* The stored value type of an fp32 copy: float, or the complex<float> pair in a complex PETSc (thrust's in .cu
   files, std's in C++: the same layout, as PETSc's own PetscScalar). PetscScalar is the fp64 one. */
#if defined(PETSC_USE_COMPLEX)
using SpMVSingleScalar = petsccomplexlib::complex<float>;
#else
using SpMVSingleScalar = float;
#endif

/* PetscScalar is std::complex in C++ (the host references, *host.cxx) and thrust::complex in CUDA files (the same
   layout, different C++ types): a function compiled in one and called from the other is declared with SpMVHostScalar,
   std::complex in both (PetscScalar itself with real scalars), and CUDA callers pass their arrays through SpMVHostArray */
#if defined(PETSC_USE_COMPLEX)
using SpMVHostScalar = std::complex<PetscReal>;
#else
using SpMVHostScalar = PetscScalar;
#endif
inline const SpMVHostScalar *SpMVHostArray(const PetscScalar *p) { return reinterpret_cast<const SpMVHostScalar *>(p); }
inline SpMVHostScalar       *SpMVHostArray(PetscScalar *p) { return reinterpret_cast<SpMVHostScalar *>(p); }

/* a * b + c with fused multiply-adds, as the device computes it (spmv::Fma of spmvvalue.cuh): for complex values each
   part is two fmas in a fixed order, so the host reference and the kernels that use it round alike */
inline PetscScalar SpMVFma(PetscScalar a, PetscScalar b, PetscScalar c)
{
#if defined(PETSC_USE_COMPLEX)
  const PetscReal ar = PetscRealPart(a), ai = PetscImaginaryPart(a), br = PetscRealPart(b), bi = PetscImaginaryPart(b);
  return PetscScalar(std::fma(ar, br, std::fma(-ai, bi, PetscRealPart(c))), std::fma(ar, bi, std::fma(ai, br, PetscImaginaryPart(c))));
#else
  return std::fma(a, b, c);
#endif
}

/* A CSR matrix seen through raw pointers. On the device the indices are 32-bit (checked at upload). */
template <typename Index>
struct SpMVCsr {
  PetscInt           m = 0, n = 0; /* rows, columns */
  PetscInt           nnz = 0;
  const Index       *i   = nullptr; /* m+1 row offsets */
  const Index       *j   = nullptr; /* nnz column indices */
  const PetscScalar *a   = nullptr; /* nnz values (null on the device when single) */
  const SpMVSingleScalar *a32 = nullptr; /* device, single: the nnz values in fp32 */
  bool               single = false; /* fp32 values: a32 on the device, fp32-representable a on the host */
};
using SpMVHostCsr   = SpMVCsr<PetscInt>;
using SpMVDeviceCsr = SpMVCsr<int>;

class SpMVFormat {
public:
  virtual ~SpMVFormat() = default;

  /* options: read inside the type's PetscOptionsBegin/End block; Copy takes another object's options */
  virtual PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) = 0;
  virtual PetscErrorCode CopyOptions(const SpMVFormat &from)                 = 0;

  /* host reference */
  virtual PetscErrorCode BuildHost(const SpMVHostCsr &A)                                 = 0;
  virtual PetscErrorCode RefreshHost(const SpMVHostCsr &A)                               = 0;
  virtual PetscErrorCode MultHost(const PetscScalar *x, PetscScalar *y, bool add) const = 0;

  /* device */
  virtual PetscErrorCode BuildDevice(const SpMVDeviceCsr &A, cudaStream_t s)                               = 0;
  virtual PetscErrorCode RefreshDevice(const SpMVDeviceCsr &A, cudaStream_t s)                             = 0;
  virtual PetscErrorCode MultDevice(const PetscScalar *x, PetscScalar *y, bool add, cudaStream_t s) const = 0;
  virtual PetscErrorCode ReleaseDevice()                                                                   = 0;
  virtual std::size_t    DeviceBytes() const                                                               = 0;

  /* can the format store fp32 values (Build* with single CSRs)? */
  virtual bool SupportsSingle() const { return false; }

  /* does the format hand the product back to the parent (the automatic format when cuSPARSE's CSR won)? The
     generic type then runs the parent's own MatMult/MatMultAdd after Build/Refresh on CUDA vectors; with host
     vectors (staged through device buffers) it still calls MultDevice */
  virtual bool ParentProduct() const { return false; }
  /* ... and is told of each such product, before (after = false) and after it (the automatic format counts them while
     its selection waits, and times some on PETSc's current stream, which it gets itself: the products after the
     selection pay nothing for it) */
  virtual PetscErrorCode ParentProductRan(bool after)
  {
    (void)after;
    return PETSC_SUCCESS;
  }
  /* does the format want to be built again before the next product, with the matrix unchanged (the automatic format:
     its selection, deferred until the matrix has been multiplied often enough for it to pay, is due)? */
  virtual bool Due() const { return false; }
  /* on a block of an MPI matrix, at the same product on every rank: the product count at which that selection is due,
     decided now from the products timed so far (the one in flight waited for; -1: the format does not wait), then the
     count the ranks agreed on (the largest), so that every rank selects at the same product and their selections,
     which stop each rank for a while, overlap instead of stopping the others one after the other */
  virtual PetscErrorCode WaitDue(int64_t *due)
  {
    *due = -1;
    return PETSC_SUCCESS;
  }
  virtual void AgreeDue(int64_t due) { (void)due; }

  virtual PetscErrorCode View(PetscViewer viewer) const                                    = 0;
  virtual PetscErrorCode Verify(const SpMVHostCsr &A, cudaStream_t s, PetscReal *maxdiff) = 0;

};

/* What the registration needs to know about a format: its names and a factory. */
struct SpMVFormatInfo {
  const char *root;    /* -mat_type root name, e.g. "brc" */
  const char *seqname; /* "seqaijbrc" */
  const char *mpiname; /* "mpiaijbrc" */
  const char *title;   /* one line for -help and views */
  SpMVFormat *(*create)(void);
};

/* One generic constructor per side (seq, mpi), specialized per format so MatRegister gets plain functions. */
PetscErrorCode MatCreate_SeqAIJSpMV(Mat, const SpMVFormatInfo *);
template <const SpMVFormatInfo *I>
PetscErrorCode MatCreate_SeqAIJSpMV_T(Mat A)
{
  return MatCreate_SeqAIJSpMV(A, I);
}
PetscErrorCode MatCreate_MPIAIJSpMV(Mat, const SpMVFormatInfo *);
template <const SpMVFormatInfo *I>
PetscErrorCode MatCreate_MPIAIJSpMV_T(Mat A)
{
  return MatCreate_MPIAIJSpMV(A, I);
}
PetscErrorCode MatSpMVRegisterFormat(const SpMVFormatInfo *, PetscErrorCode (*)(Mat), PetscErrorCode (*)(Mat));

/* shared helpers for format code */
#define SpMVCheckLaunch() PetscCallCUDA(cudaGetLastError())
