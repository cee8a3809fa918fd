// LD_PRELOAD shim: POOL_MAX=bytes sets the maxSize of pools made by cudaMemPoolCreate; the first 3 cudaMallocFromPoolAsync timed to stderr
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }
cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const struct cudaMemPoolProps *props) {
  static cudaError_t (*real)(cudaMemPool_t *, const struct cudaMemPoolProps *);
  if (!real) real = dlsym(RTLD_NEXT, "cudaMemPoolCreate");
  struct cudaMemPoolProps p = *props; const char *e = getenv("POOL_MAX"); if (e) p.maxSize = strtoull(e, 0, 10);
  double a = ms(); cudaError_t r = real(pool, &p); fprintf(stderr, "shim: cudaMemPoolCreate maxSize %zu %.3f ms\n", p.maxSize, ms() - a); return r;
}
cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t s) {
  static cudaError_t (*real)(void **, size_t, cudaMemPool_t, cudaStream_t); static int n;
  if (!real) real = dlsym(RTLD_NEXT, "cudaMallocFromPoolAsync");
  double a = ms(); cudaError_t r = real(ptr, size, pool, s); double b = ms();
  if (n++ < 3) fprintf(stderr, "shim: cudaMallocFromPoolAsync #%d %zu B %.3f ms\n", n, size, b - a);
  return r;
}
