/*
   The library's device memory pool (spmvdevice.cuh says why): one cudaMemPool_t per device, made at the first
   allocation on it, with no release threshold (freed memory stays in the pool, ready for the next allocation,
   until TrimPool), destroyed at PetscFinalize (the driver frees it when its last allocation is freed); at most
   -mat_spmv_device_memory_max MB in use (0: no cap), checked by PoolAllocate itself: CUDA's maxSize is rounded up to
   the pool's reservation granularity (tens of MB), so a cap of a few MB let layouts of 26-56 MB fit.
   The first allocation from a pool in a process sets up CUDA's stream-ordered allocator: 7-12 ms of host time on the
   H100 in any process, whatever the pool (bench/tools/pool/poolfirst.cu), 9-21 ms inside ksp ex45's solve, which the
   first selection of the automatic format paid. WarmPool makes that allocation on a thread of its own, started when the
   process creates its first plugin matrix on a GPU (MatCreate_SeqAIJSpMV, MatCreate_MPIAIJSpMV; the parent has
   initialized the device), so that it overlaps the matrix' assembly rather than the first solve (sessions 28-29:
   bench_kspsolve's solve 1.6-3 ms faster than with the thread started at the first product, its assembly no slower),
   else (a matrix converted to a plugin type) at the first product of a waiting selection (bench/results/NOTES.md,
   "Session 24" for the first version), and then loads the registered kernel modules (the formats' first
   builds' lazy loading, 9-11 ms of ex45's first selection: "Session 26"). The 2-rank teardown hangs that once got the
   thread reverted are MPICH's: both ranks inside PMPI_Finalize, one in UCX's progress, the other in the PMI barrier's
   read (cuda-gdb backtraces, "Session 25"), with and without the thread; aijcusparse and brc runs hung too.
*/
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include <petscsys.h>
#include "spmvdevice.cuh"
#include <cuda.h>
#include <cstdlib>
#include <iterator>
#include <thread>

namespace spmv
{
namespace
{
constexpr int kMaxDevices = 64;
cudaMemPool_t pools[kMaxDevices];
std::size_t   caps[kMaxDevices]; /* bytes in use allowed (0: no cap) */
bool          registered = false;
std::thread  *warmer = nullptr; /* WarmPool's, joined before the pool serves anyone or is destroyed, and at exit */

/* one kernel of every registered module (SPMV_KERNEL_MODULE; filled by static initializers, read by WarmPool's thread) */
std::vector<const void *> &KernelModules(void)
{
  static std::vector<const void *> anchors;
  return anchors;
}

/* a driver function through the runtime (cudaGetDriverEntryPointByVersion): the library does not link libcuda, which
   a CUDA build of PETSc run on a node without a GPU driver does not have */
template <typename F>
bool DriverFunction(const char *name, unsigned version, F *f)
{
  void                           *p = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &p, version, cudaEnableDefault, &q) != cudaSuccess || q != cudaDriverEntryPointSuccess || !p) return false;
  *f = reinterpret_cast<F>(p);
  return true;
}

/* The module of every registered anchor loaded into the current context (WarmPool's thread), by loading the anchor;
   the module's other kernels still load at their first launch, which is cheap once the module is there (ksp ex45's
   first ccoo build 1.9-2.2 ms against 6-7.8 ms). Loading every kernel of the modules instead cost solves that never
   select 5-14 ms (bench_kspsolve); loading the modules on the main thread at the selection took 11-30 ms
   (bench/results/NOTES.md, "Session 26"). Errors are dropped: a module not loaded here loads at its first launch. */
void LoadKernelModules(void)
{
  decltype(&cuKernelGetFunction) getFunction;
  decltype(&cuFuncLoad)          load;
  if (!DriverFunction("cuKernelGetFunction", 12000, &getFunction) || !DriverFunction("cuFuncLoad", 12040, &load)) return;
  for (const void *anchor : KernelModules()) {
    cudaKernel_t k = nullptr;
    CUfunction   f = nullptr;
    if (cudaGetKernel(&k, anchor) == cudaSuccess && getFunction(&f, (CUkernel)k) == CUDA_SUCCESS) (void)load(f);
  }
}

/* WarmPool's thread finished and joined (a heap object: a process that exits without PetscFinalize finds no joinable
   std::thread to destroy, which would abort it) */
void JoinWarmer(void)
{
  if (warmer && warmer->joinable()) warmer->join();
}

PetscErrorCode DestroyPools(void)
{
  PetscFunctionBegin;
  JoinWarmer();
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
  JoinWarmer(); /* WarmPool's thread is done before the pool serves anyone else */
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

/* Once a process: the current device's pool made here, its first allocation (and free) on a thread of its own, with
   a stream of its own, then the registered kernel modules loaded; only CUDA calls there, no PETSc (not thread-safe).
   Errors are dropped: the thread's CUDA error state is its own, and a failure there leaves the first allocation to
   PoolAllocate and the modules to their first launches, as without it. The
   thread is joined at the next PoolAllocate (the selection's first allocation: by then it has long finished), at
   PetscFinalize, or at exit (before CUDA's own exit handlers, registered earlier), so it never outlives the pool's
   first use nor runs while CUDA shuts down. */
PetscErrorCode WarmPool(void)
{
  static bool   started = false;
  cudaMemPool_t pool;
  int           dev;

  PetscFunctionBegin;
  if (started) PetscFunctionReturn(PETSC_SUCCESS);
  started = true;
  PetscCall(DevicePool(&pool));
  PetscCallCUDA(cudaGetDevice(&dev));
  try {
    warmer = new std::thread([pool, dev] {
      void        *p = nullptr;
      cudaStream_t s = nullptr;
      if (cudaSetDevice(dev) == cudaSuccess && cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess) {
        if (cudaMallocFromPoolAsync(&p, 1, pool, s) == cudaSuccess) (void)cudaFreeAsync(p, s);
        (void)cudaStreamSynchronize(s);
        (void)cudaStreamDestroy(s);
        LoadKernelModules();
      }
      (void)cudaGetLastError();
    });
    (void)std::atexit(JoinWarmer); /* without it (no slot left) the join at PetscFinalize remains */
  } catch (...) { /* no thread: PoolAllocate makes the first allocation */
    PetscCall(PetscInfo(NULL, "petsc-spmv: no thread to set up the device memory pool ahead\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int RegisterKernelModule(const void *kernel)
{
  KernelModules().push_back(kernel);
  return (int)KernelModules().size();
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
namespace
{
__global__ void WindowKeys(int64_t m, int64_t W, int lbits, int64_t maxlen, const int *__restrict__ len, unsigned long long *__restrict__ key)
{
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < m; r += (int64_t)gridDim.x * blockDim.x) key[r] = ((unsigned long long)(r / W) << lbits) | (unsigned long long)(maxlen - len[r]);
}
} // namespace

PetscErrorCode SortByLength(int64_t m, int64_t W, int64_t maxlen, const int *len, const int *rows, int *srows, void **tmp, std::size_t *have, cudaStream_t s)
{
  unsigned long long *key = nullptr, *skey = nullptr;
  std::size_t         need = 0;

  PetscFunctionBegin;
  if (m <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(m <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_INT_OVERFLOW, "petsc-spmv: %" PetscInt64_FMT " rows overflow the row sort", m);
  const int64_t nwin  = (m + W - 1) / W;
  const int     lbits = std::max(1, 64 - __builtin_clzll((unsigned long long)std::max<int64_t>(maxlen, 1)));
  const int     wbits = nwin > 1 ? 64 - __builtin_clzll((unsigned long long)(nwin - 1)) : 0;
  PetscCall(DeviceAlloc(&key, m, nullptr, s));
  PetscCall(DeviceAlloc(&skey, m, nullptr, s));
  WindowKeys<<<GridFor(m, 128, 4096), 128, 0, s>>>(m, W, lbits, maxlen, len, key);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(nullptr, need, key, skey, rows, srows, (int)m, 0, lbits + wbits, s));
  PetscCall(GrowScratch(tmp, have, need, s));
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(*tmp, need, key, skey, rows, srows, (int)m, 0, lbits + wbits, s));
  PetscCall(DeviceFree({key, skey}, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace spmv
