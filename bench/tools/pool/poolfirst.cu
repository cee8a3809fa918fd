// first allocation from a CUDA memory pool: what makes it cost ms?  usage: poolfirst MODE
#include <cuda_runtime.h>
#include <cusparse.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
static double now() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
__global__ void spin(long long t) { long long s = clock64(); while (clock64() - s < t) {} }
static cudaMemPool_t mkpool(size_t maxsz) {
  cudaMemPoolProps p = {}; p.allocType = cudaMemAllocationTypePinned; p.handleTypes = cudaMemHandleTypeNone;
  p.location.type = cudaMemLocationTypeDevice; p.location.id = 0; p.maxSize = maxsz;
  cudaMemPool_t pool; CK(cudaMemPoolCreate(&pool, &p)); uint64_t keep = UINT64_MAX;
  CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep)); return pool;
}
int main(int argc, char **argv) {
  const char *m = argc > 1 ? argv[1] : "plain";
  double t0 = now(); CK(cudaFree(0)); double tinit = now() - t0;
  std::vector<void *> keep;
  if (!strcmp(m, "dev1g")) { for (int i = 0; i < 40; i++) { void *p; CK(cudaMalloc(&p, 25 << 20)); keep.push_back(p); } }
  if (!strcmp(m, "dev8g")) { for (int i = 0; i < 40; i++) { void *p; CK(cudaMalloc(&p, 200 << 20)); keep.push_back(p); } }
  if (!strcmp(m, "host4g")) { size_t n = 4ull << 30; char *h = (char *)malloc(n); memset(h, 1, n); keep.push_back(h); }
  if (!strcmp(m, "pinned")) { void *h; CK(cudaMallocHost(&h, 256 << 20)); memset(h, 1, 256 << 20); }
  if (!strcmp(m, "cusparse")) { cusparseHandle_t h; cusparseCreate(&h); }
  cudaStream_t s = nullptr;
  if (!strcmp(m, "stream")) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  if (!strcmp(m, "busy")) spin<<<1, 1>>>(2000000000LL / 100); // ~10 ms at 2 GHz, queued
  size_t maxsz = 0;
  if (!strcmp(m, "max256m")) maxsz = 256 << 20;
  if (!strcmp(m, "max4g")) maxsz = 4ull << 30;
  double a = now(); cudaMemPool_t pool = mkpool(maxsz); double b = now();
  void *p; double c0 = now();
  if (!strcmp(m, "default")) CK(cudaMallocAsync(&p, 120, s)); else CK(cudaMallocFromPoolAsync(&p, 120, pool, s));
  double c1 = now(); CK(cudaStreamSynchronize(s)); double c2 = now();
  void *q; CK(cudaMallocFromPoolAsync(&q, 1 << 20, pool, s)); double d = now();
  void *r; CK(cudaMallocFromPoolAsync(&r, 64 << 20, pool, s)); double e = now();
  cudaMemPool_t pool2 = mkpool(0); void *p2; double f0 = now(); CK(cudaMallocFromPoolAsync(&p2, 120, pool2, s)); double f1 = now();
  void *g; double g0 = now(); CK(cudaMalloc(&g, 64 << 20)); double g1 = now();
  void *h; double h0 = now(); CK(cudaMalloc(&h, 120)); double h1 = now();
  printf("%-9s init %7.2f create %6.3f first %7.3f sync %6.3f 1MB %6.3f 64MB %6.3f pool2-first %6.3f cudaMalloc64MB %6.3f cudaMalloc120 %6.3f\n",
         m, tinit, b - a, c1 - c0, c2 - c1, d - c2, e - d, f1 - f0, g1 - g0, h1 - h0);
  return 0;
}
