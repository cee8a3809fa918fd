// bandwidth of memory from CUDA pools of different maxSize, from the default pool and from cudaMalloc: stream and gather
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
__global__ void stream(const double4 *a, size_t n, double *out) {
  double s = 0; for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) { double4 v = a[i]; s += v.x + v.y + v.z + v.w; }
  if (s == 12345.678) *out = s;
}
__global__ void gather(const int *idx, const double *x, size_t n, double *out) {
  double s = 0; for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) s += x[idx[i]];
  if (s == 12345.678) *out = s;
}
__global__ void fillidx(int *idx, size_t n, unsigned m) { for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) idx[i] = (unsigned)((i * 2654435761u) % m); }
int main(int argc, char **argv) {
  const char *m = argv[1]; size_t total, freeb; CK(cudaFree(0)); CK(cudaMemGetInfo(&freeb, &total));
  size_t bytes = 512ull << 20, nidx = 64ull << 20; unsigned xm = 16u << 20; // 128 MB x: past L2
  void *a, *ix, *x; double *out; CK(cudaMalloc(&out, 8));
  cudaMemPool_t pool = nullptr; cudaStream_t s = nullptr;
  if (!strcmp(m, "cudaMalloc")) { CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&ix, nidx * 4)); CK(cudaMalloc(&x, (size_t)xm * 8)); }
  else {
    if (!strcmp(m, "default")) CK(cudaDeviceGetDefaultMemPool(&pool, 0));
    else { cudaMemPoolProps p = {}; p.allocType = cudaMemAllocationTypePinned; p.location.type = cudaMemLocationTypeDevice; p.location.id = 0;
      p.maxSize = !strcmp(m, "max0") ? 0 : !strcmp(m, "max4g") ? 4ull << 30 : total; CK(cudaMemPoolCreate(&pool, &p)); }
    uint64_t keep = UINT64_MAX; CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    // small allocations first, as a build does, then the big ones
    void *sm[16]; for (int i = 0; i < 16; i++) CK(cudaMallocFromPoolAsync(&sm[i], 120 + i * 4096, pool, s));
    CK(cudaMallocFromPoolAsync(&a, bytes, pool, s)); CK(cudaMallocFromPoolAsync(&ix, nidx * 4, pool, s)); CK(cudaMalloc(&x, (size_t)xm * 8));
  }
  CK(cudaMemset(a, 0, bytes)); fillidx<<<1024, 256>>>((int *)ix, nidx, xm); CK(cudaMemset(x, 0, (size_t)xm * 8)); CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1); float t1, t2;
  for (int w = 0; w < 3; w++) stream<<<132 * 16, 256>>>((double4 *)a, bytes / 32, out);
  cudaEventRecord(e0); for (int r = 0; r < 20; r++) stream<<<132 * 16, 256>>>((double4 *)a, bytes / 32, out); cudaEventRecord(e1); cudaEventSynchronize(e1); cudaEventElapsedTime(&t1, e0, e1);
  for (int w = 0; w < 3; w++) gather<<<132 * 16, 256>>>((int *)ix, (double *)x, nidx, out);
  cudaEventRecord(e0); for (int r = 0; r < 20; r++) gather<<<132 * 16, 256>>>((int *)ix, (double *)x, nidx, out); cudaEventRecord(e1); cudaEventSynchronize(e1); cudaEventElapsedTime(&t2, e0, e1);
  printf("%-10s a=%p stream %7.1f GB/s  gather(idx from pool) %7.1f Gidx/s\n", m, a, 20.0 * bytes / (t1 * 1e6), 20.0 * nidx / (t2 * 1e6));
  return 0;
}
