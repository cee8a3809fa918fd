/*
   cudatrace: a development tool that times the CUDA runtime calls of a program (LD_PRELOAD), to see where
   a build or a selection spends its wall time (allocations, frees, synchronizations, launches) where no
   Nsight Systems is available. Not part of the library.

     cc -O2 -shared -fPIC -o libcudatrace.so bench/tools/cudatrace.c -ldl -I/usr/local/cuda/include
     CUDATRACE=trace.txt LD_PRELOAD=$PWD/libcudatrace.so ./program ...

   One line per call at exit: start (us since the first call), duration (us), call, bytes or kernel name.
   Only the program's own calls through the shared libcudart are seen (cuSPARSE's own runtime is static).
*/
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  double      t, d;
  const char *call;
  size_t      bytes;
  const void *func;
} Rec;

static Rec    *recs;
static size_t  nrec, cap;
static double  t0 = -1;

static double Now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e6 * ts.tv_sec + 1e-3 * ts.tv_nsec;
}

static void Dump(void)
{
  const char *path = getenv("CUDATRACE");
  FILE       *f    = path ? fopen(path, "w") : NULL;
  cudaError_t (*getname)(const char **, const void *) = (cudaError_t (*)(const char **, const void *))dlsym(RTLD_NEXT, "cudaFuncGetName");
  if (!f) return;
  for (size_t k = 0; k < nrec; k++) {
    const char *name = NULL;
    if (recs[k].func && getname) getname(&name, recs[k].func);
    fprintf(f, "%12.1f %10.1f %-22s %zu %s\n", recs[k].t - t0, recs[k].d, recs[k].call, recs[k].bytes, name ? name : "");
  }
  fclose(f);
}

static void Add(const char *call, double t, size_t bytes, const void *func)
{
  if (t0 < 0) {
    t0 = t;
    atexit(Dump);
  }
  if (nrec == cap) {
    cap  = cap ? 2 * cap : 1 << 16;
    recs = (Rec *)realloc(recs, cap * sizeof(Rec));
  }
  recs[nrec++] = (Rec){t, Now() - t, call, bytes, func};
}

#define NEXT(name) static __typeof__(&name) real; if (!real) real = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

cudaError_t cudaMalloc(void **p, size_t n) { NEXT(cudaMalloc); double t = Now(); cudaError_t e = real(p, n); Add("cudaMalloc", t, n, NULL); return e; }
cudaError_t cudaFree(void *p) { NEXT(cudaFree); double t = Now(); cudaError_t e = real(p); Add("cudaFree", t, 0, NULL); return e; }
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s) { NEXT(cudaMallocAsync); double t = Now(); cudaError_t e = real(p, n, s); Add("cudaMallocAsync", t, n, NULL); return e; }
cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t m, cudaStream_t s) { NEXT(cudaMallocFromPoolAsync); double t = Now(); cudaError_t e = real(p, n, m, s); Add("cudaMallocFromPool", t, n, NULL); return e; }
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t m, size_t k) { NEXT(cudaMemPoolTrimTo); double t = Now(); cudaError_t e = real(m, k); Add("cudaMemPoolTrimTo", t, k, NULL); return e; }
cudaError_t cudaFreeAsync(void *p, cudaStream_t s) { NEXT(cudaFreeAsync); double t = Now(); cudaError_t e = real(p, s); Add("cudaFreeAsync", t, 0, NULL); return e; }
cudaError_t cudaStreamSynchronize(cudaStream_t s) { NEXT(cudaStreamSynchronize); double t = Now(); cudaError_t e = real(s); Add("cudaStreamSynchronize", t, 0, NULL); return e; }
cudaError_t cudaEventSynchronize(cudaEvent_t v) { NEXT(cudaEventSynchronize); double t = Now(); cudaError_t e = real(v); Add("cudaEventSynchronize", t, 0, NULL); return e; }
cudaError_t cudaDeviceSynchronize(void) { NEXT(cudaDeviceSynchronize); double t = Now(); cudaError_t e = real(); Add("cudaDeviceSynchronize", t, 0, NULL); return e; }
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k) { NEXT(cudaMemcpy); double t = Now(); cudaError_t e = real(d, s, n, k); Add("cudaMemcpy", t, n, NULL); return e; }
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st) { NEXT(cudaMemcpyAsync); double t = Now(); cudaError_t e = real(d, s, n, k, st); Add("cudaMemcpyAsync", t, n, NULL); return e; }
cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st) { NEXT(cudaMemsetAsync); double t = Now(); cudaError_t e = real(d, v, n, st); Add("cudaMemsetAsync", t, n, NULL); return e; }
cudaError_t cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **a, size_t sh, cudaStream_t s) { NEXT(cudaLaunchKernel); double t = Now(); cudaError_t e = real(f, g, b, a, sh, s); Add("cudaLaunchKernel", t, (size_t)g.x * g.y * g.z, f); return e; }
cudaError_t cudaEventRecord(cudaEvent_t v, cudaStream_t s) { NEXT(cudaEventRecord); double t = Now(); cudaError_t e = real(v, s); Add("cudaEventRecord", t, 0, NULL); return e; }
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *f) { NEXT(cudaFuncGetAttributes); double t = Now(); cudaError_t e = real(a, f); Add("cudaFuncGetAttributes", t, 0, f); return e; }
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const void *f, int b, size_t sh) { NEXT(cudaOccupancyMaxActiveBlocksPerMultiprocessor); double t = Now(); cudaError_t e = real(n, f, b, sh); Add("cudaOccupancyMaxActive", t, 0, f); return e; }
