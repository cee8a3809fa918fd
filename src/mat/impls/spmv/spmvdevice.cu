/*
   The library's device memory pool (spmvdevice.cuh says why): one cudaMemPool_t per device, made at the first
   allocation on it, with no release threshold (freed memory stays in the pool, ready for the next allocation,
   until TrimPool), destroyed at PetscFinalize (the driver frees it when its last allocation is freed); at most
   -mat_spmv_device_memory_max MB in use (0: no cap), checked by PoolAllocate itself: CUDA's maxSize is rounded up to
   the pool's reservation granularity (tens of MB), so a cap of a few MB let layouts of 26-56 MB fit.
   The first allocation from a pool in a process sets up CUDA's stream-ordered allocator: 9-21 ms of host time inside
   ksp ex45's solve on the H100 (0.5 ms in bench_kspsolve), paid by the first selection. Making it ahead on a thread of
   its own hid it, but 2-rank runs then hung at teardown more often (6 of 27 against 0 of 17): not done
   (bench/results/NOTES.md, "Session 24").
*/
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include <petscsys.h>
#include "spmvdevice.cuh"
#include <iterator>

namespace spmv
{
namespace
{
constexpr int kMaxDevices = 64;
cudaMemPool_t pools[kMaxDevices];
std::size_t   caps[kMaxDevices]; /* bytes in use allowed (0: no cap) */
bool          registered = false;

PetscErrorCode DestroyPools(void)
{
  PetscFunctionBegin;
  for (cudaMemPool_t &p : pools)
    if (p) {
      std::size_t used = 0;
      PetscCallCUDA(cudaMemPoolGetAttribute(p, cudaMemPoolAttrUsedMemCurrent, &used));
      if (used) PetscCall(PetscInfo(NULL, "petsc-spmv: the device memory pool still holds %zu bytes at PetscFinalize (a matrix not destroyed, or a leak)\n", used));
      PetscCallCUDA(cudaMemPoolDestroy(p));
      p = nullptr;
    }
  registered = false;
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

static PetscErrorCode DevicePool(cudaMemPool_t *pool)
{
  int dev;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCheck(dev >= 0 && dev < kMaxDevices, PETSC_COMM_SELF, PETSC_ERR_SUP, "device %d: the library keeps memory pools for devices 0..%d", dev, kMaxDevices - 1);
  if (!pools[dev]) {
    cudaMemPoolProps props = {};
    const uint64_t   keep  = UINT64_MAX;
    PetscInt         mb    = 0;
    /* a cap on the device memory of the formats (the parent's CSR and vectors are PETSc's, not counted): a format that
       does not fit keeps the parent's product; read once, when the device's pool is made */
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-mat_spmv_device_memory_max", &mb, NULL));
    PetscCheck(mb >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_spmv_device_memory_max %" PetscInt_FMT ": a size in MB, 0 for no cap", mb);
    caps[dev]              = (std::size_t)mb << 20;
    props.allocType        = cudaMemAllocationTypePinned;
    props.handleTypes      = cudaMemHandleTypeNone;
    props.location.type    = cudaMemLocationTypeDevice;
    props.location.id      = dev;
    PetscCallCUDA(cudaMemPoolCreate(&pools[dev], &props));
    PetscCallCUDA(cudaMemPoolSetAttribute(pools[dev], cudaMemPoolAttrReleaseThreshold, (void *)&keep));
    if (!registered) PetscCall(PetscRegisterFinalize(DestroyPools));
    registered = true;
  }
  *pool = pools[dev];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PoolAllocate(void **p, std::size_t size, cudaStream_t s)
{
  cudaMemPool_t pool = nullptr;
  std::size_t   used = 0;
  int           dev;

  PetscFunctionBegin;
  PetscCall(DevicePool(&pool));
  PetscCallCUDA(cudaGetDevice(&dev));
  if (caps[dev]) PetscCallCUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  cudaError_t e = caps[dev] && used + size > caps[dev] ? cudaErrorMemoryAllocation : cudaMallocFromPoolAsync(p, size, pool, s);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError(); /* not sticky: cleared, so that the next CUDA call does not report it again */
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "petsc-spmv: out of device memory for %zu bytes (the library's pool holds %zu; -mat_spmv_device_memory_max)", size, used);
  }
  PetscCallCUDA(e);
  PetscFunctionReturn(PETSC_SUCCESS);
}

BuildScope *BuildScope::current = nullptr;

BuildScope::BuildScope() : outer(current) { current = this; }

BuildScope::~BuildScope()
{
  if (outer) outer->live.insert(outer->live.end(), live.begin(), live.end());
  current = outer;
}

void BuildScope::Freed(void *p)
{
  for (BuildScope *b = current; b; b = b->outer)
    for (auto it = b->live.rbegin(); it != b->live.rend(); ++it)
      if (*it == p) {
        b->live.erase(std::next(it).base());
        return;
      }
}

PetscErrorCode BuildScope::FreeLeftovers(cudaStream_t s)
{
  PetscFunctionBegin;
  if (!live.empty()) PetscCall(PetscInfo(NULL, "petsc-spmv: %zu device arrays of a failed build freed\n", live.size()));
  std::vector<void *> left;
  left.swap(live);
  for (void *p : left) PetscCall(DeviceFree({p}, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TrimPool(void)
{
  PetscFunctionBegin;
  for (cudaMemPool_t p : pools)
    if (p) PetscCallCUDA(cudaMemPoolTrimTo(p, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace spmv
