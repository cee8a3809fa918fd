/*
   Host-side CUDA helpers shared by the format .cu files (argcsr, brc, ccoo, segsum, suraa) and the
   generic type (aijspmv.cu): grid sizes,
   device allocation and release, the CUB scratch buffer and its scans, downloads for Verify. Host code
   only, no kernels; every function behaves exactly as the per-file copies it replaces.

   Include it after the format's own header (which brings in PETSc after the .cu file's
   #define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND).
*/
#pragma once
#include <petscsys.h>
#include <petscdevice_cuda.h>
#include <cub/cub.cuh>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace spmv
{
/* Blocks of `block` threads for `threads` threads, clamped to [1, cap]: the kernels loop with a grid
   stride over what a capped grid does not cover. Each format passes its own block size and cap. */
inline unsigned GridFor(int64_t threads, int block, int64_t cap)
{
  return (unsigned)std::max<int64_t>(1, std::min<int64_t>((threads + block - 1) / block, cap));
}

/* cudaMalloc of n entries of T (at least one, so that the pointer is never null); adds n * sizeof(T) to
   *bytes when bytes is given (the format's device-memory count) */
template <typename T>
PetscErrorCode DeviceAlloc(T **p, std::size_t n, std::size_t *bytes)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)p, std::max<std::size_t>(n, 1) * sizeof(T)));
  if (bytes) *bytes += n * sizeof(T);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cudaFree of every non-null pointer of the list, in order */
inline PetscErrorCode DeviceFree(std::initializer_list<void *> ptrs)
{
  PetscFunctionBegin;
  for (void *p : ptrs)
    if (p) PetscCallCUDA(cudaFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CUB temporary storage *tmp of *have bytes, grown (freed and reallocated, contents lost) to need bytes
   when it holds fewer; never shrinks */
inline PetscErrorCode GrowScratch(void **tmp, std::size_t *have, std::size_t need)
{
  PetscFunctionBegin;
  if (need > *have) {
    if (*tmp) PetscCallCUDA(cudaFree(*tmp));
    *tmp = nullptr;
    PetscCallCUDA(cudaMalloc(tmp, need));
    *have = need;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* out[0..n) = exclusive prefix sum of in[0..n) on stream s (in == out: in place), with the growing CUB
   scratch (*tmp, *have). The count type N is passed to CUB as given (int or int64_t: CUB's offset type) */
template <typename T, typename N>
PetscErrorCode ExclusiveSum(const T *in, T *out, N n, void **tmp, std::size_t *have, cudaStream_t s)
{
  std::size_t need = 0;

  PetscFunctionBegin;
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(nullptr, need, in, out, n, s));
  PetscCall(GrowScratch(tmp, have, need));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(*tmp, need, in, out, n, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* multiprocessors of the current device */
inline PetscErrorCode DeviceSMCount(int *sms)
{
  int dv;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dv));
  PetscCallCUDA(cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* h.size() entries of device array d into h (blocking cudaMemcpy; for Verify) */
template <typename T>
PetscErrorCode Download(std::vector<T> &h, const T *d)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpy(h.data(), d, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace spmv
