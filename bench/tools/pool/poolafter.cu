// does setting up a stream-ordered pool (first cudaMallocFromPoolAsync) slow later cudaMalloc/cudaFree, copies, launches?
// usage: poolafter [thread]   (thread: the pool's first allocation on another thread, joined)
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>
static double now() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
__global__ void k(double *a) { if (a) a[threadIdx.x] += 1; }
static void measure(const char *tag) {
  std::vector<double> h(1 << 17, 1.0); double *d; void *p;
  cudaMalloc(&d, 1 << 20);
  double t0 = now(); for (int i = 0; i < 200; i++) { cudaMalloc(&p, (1 << 20) + i * 4096); cudaFree(p); } double t1 = now();
  for (int i = 0; i < 200; i++) cudaMemcpy(d, h.data(), 1 << 20, cudaMemcpyHostToDevice); double t2 = now();
  for (int i = 0; i < 200; i++) { k<<<1, 32>>>(d); cudaDeviceSynchronize(); } double t3 = now();
  for (int i = 0; i < 200; i++) { cudaMalloc(&p, 64 << 20); cudaFree(p); } double t4 = now();
  cudaFree(d);
  printf("%-14s malloc+free 1MB %6.1f us  memcpy 1MB %6.1f us  launch+sync %5.1f us  malloc+free 64MB %6.1f us\n", tag, (t1 - t0) / 200, (t2 - t1) / 200, (t3 - t2) / 200, (t4 - t3) / 200);
}
int main(int argc, char **argv) {
  bool thr = argc > 1 && !strcmp(argv[1], "thread");
  cudaFree(0); measure("before"); measure("before");
  cudaMemPoolProps pp = {}; pp.allocType = cudaMemAllocationTypePinned; pp.location.type = cudaMemLocationTypeDevice; pp.location.id = 0;
  cudaMemPool_t pool; cudaMemPoolCreate(&pool, &pp); uint64_t keep = UINT64_MAX; cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  auto first = [pool] { void *q; cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); cudaMallocFromPoolAsync(&q, 1, pool, s); cudaFreeAsync(q, s); cudaStreamSynchronize(s); cudaStreamDestroy(s); };
  double a = now(); if (thr) { std::thread t(first); t.join(); } else first(); printf("pool set up in %.1f us (%s)\n", now() - a, thr ? "thread" : "main");
  measure("after"); measure("after");
  return 0;
}
