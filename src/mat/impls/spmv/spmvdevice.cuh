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

/* Device memory of the library comes from a memory pool of its own (one per device, spmvdevice.cu), not from
   cudaMalloc/cudaFree: on the H100 these took 50-380 us each (a build makes 10-20 arrays; the selection of the
   automatic format builds several formats), a pool allocation 3 us. The pool keeps what is freed until TrimPool()
   hands it back to the driver; the generic type trims after every device (re)build and release, so between
   matrix operations the pool holds only live layouts, as cudaMalloc would.
   Stream order: an allocation or free given a stream s is ordered on s (the build's stream: no synchronization);
   without a stream, DeviceAlloc returns memory ready for any stream and DeviceFree first waits for the device
   (what cudaMalloc/cudaFree do), so callers that do not know the stream of the memory's last use stay safe. */
PetscErrorCode TrimPool(void);
/* sets up this device's pool ahead of its first use, and loads the registered kernel modules, on a thread of its own,
   once a process (spmvdevice.cu) */
PetscErrorCode WarmPool(void);
/* CUDA loads a module's kernels lazily, at their first launch: in a process's first selection that took 4.7-8 ms a
   format's build (ksp ex45 128^3 on the H100, against 1.6-1.8 ms with CUDA_MODULE_LOADING=EAGER; bench/results/NOTES.md,
   "Session 26"). Each translation unit whose kernels a selection launches registers one of them
   (SPMV_KERNEL_MODULE(kernel), at namespace scope after it); WarmPool's thread loads their modules. */
int RegisterKernelModule(const void *kernel);
#define SPMV_KERNEL_MODULE(kernel) [[maybe_unused]] static const int spmv_kernel_module_ = spmv::RegisterKernelModule(reinterpret_cast<const void *>(&(kernel)))
/* size bytes from this device's pool on s; PETSC_ERR_MEM (CUDA's error cleared) when the device is out of memory
   or the pool would hold more than -mat_spmv_device_memory_max */
PetscErrorCode PoolAllocate(void **p, std::size_t size, cudaStream_t s);

/* The device memory of a build in progress. A format's BuildDevice returns at its first error (PetscCall) with its
   temporaries still allocated: out of device memory they would stay in the pool for good, taken from the parent
   that runs the products instead. Open a BuildScope around a build that may fail: every DeviceAlloc while it is
   open is recorded and every DeviceFree struck off; after a failure, ReleaseDevice frees the layout and
   FreeLeftovers what the build still held. Scopes nest (spmv's candidates inside its own build): what an inner
   scope still holds when it closes (a candidate's layout) passes to the enclosing one. One thread, as PETSc. */
class BuildScope {
public:
  BuildScope();
  ~BuildScope();
  BuildScope(const BuildScope &)            = delete;
  BuildScope &operator=(const BuildScope &) = delete;
  PetscErrorCode FreeLeftovers(cudaStream_t s); /* every allocation still recorded, back to the pool (on s) */

  static void Allocated(void *p) { if (current) current->live.push_back(p); }
  static void Freed(void *p);

private:
  static BuildScope *current;
  BuildScope        *outer;
  std::vector<void *> live;
};

/* n entries of T (at least one, so that the pointer is never null) from the pool; adds n * sizeof(T) to *bytes
   when bytes is given (the format's device-memory count). Out of device memory (or past -mat_spmv_device_memory_max)
   is PETSC_ERR_MEM, with CUDA's error cleared: the generic type then keeps the parent's product (aijspmv.cu, Sync) */
template <typename T>
PetscErrorCode DeviceAlloc(T **p, std::size_t n, std::size_t *bytes, cudaStream_t s = nullptr)
{
  PetscFunctionBegin;
  PetscCall(PoolAllocate((void **)p, std::max<std::size_t>(n, 1) * sizeof(T), s));
  PetscCheck(((std::uintptr_t)*p & 255) == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "device memory pool: %p is not 256-byte aligned as cudaMalloc's (the formats' vector loads rely on it)", (void *)*p);
  BuildScope::Allocated(*p);
  if (!s) PetscCallCUDA(cudaStreamSynchronize(nullptr));
  if (bytes) *bytes += n * sizeof(T);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every non-null pointer of the list back to the pool, in order (on s; without s after the device is idle) */
inline PetscErrorCode DeviceFree(std::initializer_list<void *> ptrs, cudaStream_t s = nullptr)
{
  bool any = false;

  PetscFunctionBegin;
  for (void *p : ptrs) any = any || p;
  if (any && !s) PetscCallCUDA(cudaDeviceSynchronize());
  for (void *p : ptrs)
    if (p) {
      BuildScope::Freed(p);
      PetscCallCUDA(cudaFreeAsync(p, s));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CUB temporary storage *tmp of *have bytes, grown (freed and reallocated, contents lost) to need bytes
   when it holds fewer; never shrinks. On s as DeviceAlloc. */
inline PetscErrorCode GrowScratch(void **tmp, std::size_t *have, std::size_t need, cudaStream_t s = nullptr)
{
  PetscFunctionBegin;
  if (need > *have) {
    PetscCall(DeviceFree({*tmp}, s));
    *tmp = nullptr;
    PetscCall(DeviceAlloc((char **)tmp, need, nullptr, s));
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
  PetscCall(GrowScratch(tmp, have, need, s));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(*tmp, need, in, out, n, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SortByLength - srows[0..m) = rows[0..m) stably sorted by decreasing len[] inside each window of W consecutive entries
   (ties keep their order; one window when W >= m), by one radix sort of the keys (window, maxlen - len): the order of
   std::stable_sort by decreasing length window by window, which the host references use. len[i] in [0, maxlen]. With
   the growing CUB scratch (*tmp, *have) on stream s. BRC's and ARgCSR's row orders. */
PetscErrorCode SortByLength(int64_t m, int64_t W, int64_t maxlen, const int *len, const int *rows, int *srows, void **tmp, std::size_t *have, cudaStream_t s);

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
