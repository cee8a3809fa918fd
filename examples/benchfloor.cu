/*
   Floor kernels of bench_spmv: what a perfectly balanced kernel that reads the CSR arrays once costs on the
   GPU, measured in the same run as the matrix types.

     floor-stream   reads the values, the column indices and the row offsets, writes y: the CSR bytes
                    (12 nnz + 4 m read, 8 m written) with no x access
     floor-gather   the same, plus x[col] for every nonzero in CSR order: the cost of the gathers that every
                    CSR-order kernel pays (x read through the cache hierarchy, one 32-byte sector a miss)

     floor-gather16 floor-gather over dcsr's compressed columns (issue #29): each 128-nonzero tile whose columns
                    span at most 65536 is read as 16-bit offsets from its smallest column (+ 4 bytes a tile), a
                    wider tile as the CSR's 32-bit columns: what the same balanced kernel costs at dcsr's bytes,
                    the floor that dcsr is measured against
     floor-gather16c floor-gather16 in dcsr's order: lane l reads entries 4l..4l+3 of each 128-nonzero tile, as
                    dcsr's segmented sums need (a lane sums consecutive entries), so that one gather instruction
                    reads the columns of entries 4 apart over the whole tile where floor-gather16's reads 32
                    consecutive entries. The same bytes; the difference is what the order alone costs
                    (bench/results/NOTES.md, "Session 31": 0.85-0.93x floor-gather16 on rows of 27-49 nonzeros,
                    1.02-1.11x on rows of 5-17)

   None computes A x (the row structure is ignored: equal tiles of 256 nonzeros a warp, a persistent
   grid); they are references for the tables, not products. A format that reads x in another order (BRC's
   sorted blocks) or fewer bytes a nonzero (CCOO) can beat floor-gather; a CSR kernel cannot, beyond noise.
*/
#include <petscmat.h>
#include <petscdevice_cuda.h>
#include "mat/impls/spmv/spmvvalue.cuh" /* loads of PetscScalar, real or complex */

namespace {
constexpr int kTile16 = 128; /* dcsr's default tile */

struct FloorCtx {
  Mat             csr; /* aijcusparse copy: owns the device CSR */
  PetscInt        mode; /* 0 stream, 1 gather, 2 gather16, 3 gather16c */
  PetscScalar    *sink;
  unsigned short *off;  /* gather16: per nonzero, the column minus its tile's base (tiles of kTile16, padded) */
  int            *base; /* gather16: per tile, its smallest column, -1 when the columns span more than 65535 */
};

/* gather16's layout from the device CSR: a warp per tile (dcsr's Compress, without the statistics) */
__global__ void __launch_bounds__(256) Compress16(long long nnz, long long ntiles, const int *__restrict__ cj, int *__restrict__ base, unsigned short *__restrict__ off)
{
  const int lane = threadIdx.x & 31;
  for (long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; t < ntiles; t += ((long long)gridDim.x * blockDim.x) >> 5) {
    const long long e0 = t * kTile16, e1 = min(e0 + kTile16, nnz);
    int             lo = 0x7fffffff, hi = -1;
    for (long long e = e0 + lane; e < e1; e += 32) lo = min(lo, cj[e]), hi = max(hi, cj[e]);
    for (int o = 16; o > 0; o >>= 1) lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, o)), hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, o));
    const bool narrow = (long long)hi - lo <= 65535;
    for (long long e = e0 + lane; e < e0 + kTile16; e += 32) off[e] = narrow && e < e1 ? (unsigned short)(cj[e] - lo) : 0;
    if (lane == 0) base[t] = narrow ? lo : -1;
  }
}

/* the gather floor on the compressed columns: the same chunks of 256 nonzeros a warp (two tiles), lane k*32+lane */
__global__ void __launch_bounds__(256) Floor16(long long nnz, int m, const int *__restrict__ rp, const int *__restrict__ cj, const unsigned short *__restrict__ off, const int *__restrict__ tbase, const PetscScalar *__restrict__ a, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, PetscScalar *__restrict__ sink)
{
  const int       lane   = threadIdx.x & 31;
  const long long warp   = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  PetscScalar     acc    = 0;

  for (long long base = warp * 256; base < nnz; base += nwarps * 256) {
    int            c[8];
    unsigned short o[8];
    PetscScalar    v[8];
    /* the offsets, the values and the two tile bases all in flight at once (a base awaited before the offsets
       are loaded costs a memory latency per chunk); a wide tile's columns then come from the CSR */
#pragma unroll
    for (int k = 0; k < 8; k++) {
      const long long e = base + k * 32 + lane;
      o[k]              = e < nnz ? __ldcs(off + e) : 0;
      v[k]              = e < nnz ? spmv::Ldcs(a + e) : PetscScalar(0.0);
    }
    const int b0 = __ldg(tbase + base / kTile16), b1 = base + kTile16 < nnz ? __ldg(tbase + base / kTile16 + 1) : 0;
#pragma unroll
    for (int k = 0; k < 8; k++) {
      const long long e = base + k * 32 + lane;
      const int       b = k < 4 ? b0 : b1;
      c[k]              = b >= 0 ? b + (int)o[k] : (e < nnz ? __ldcs(cj + e) : 0);
    }
#pragma unroll
    for (int k = 0; k < 8; k++) acc += v[k] * spmv::Ldg(x + c[k]);
  }
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < m; r += (long long)gridDim.x * blockDim.x) y[r] = PetscScalar((double)__ldg(rp + r));
  if (acc == 1.2345e-300) sink[0] = acc; /* keeps the loads; never true for the benchmark's data */
}

/* (Floor16 and Floor16C are two kernels on purpose: one template for both, the same operations, compiled so that
   floor-gather16 ran 4-10% faster and floor-gather16c 0-11% slower on the H200 (bench/results/NOTES.md, "Session 31",
   floors-merged-ab.txt): these floors move with code generation, so the measured kernels stay as they are.)
   floor-gather16c: Floor16's bytes in dcsr's order: lane l holds entries 4l..4l+3 of each of the warp's two 128-nonzero
   tiles (vector loads of its 4 offsets and 4 values), so that a gather instruction reads the columns of entries 4 apart,
   as dcsr's tile kernel does, where Floor16's reads 32 consecutive entries */
__global__ void __launch_bounds__(256) Floor16C(long long nnz, int m, const int *__restrict__ rp, const int *__restrict__ cj, const unsigned short *__restrict__ off, const int *__restrict__ tbase, const PetscScalar *__restrict__ a, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, PetscScalar *__restrict__ sink)
{
  const int       lane   = threadIdx.x & 31;
  const long long warp   = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  PetscScalar     acc    = 0;

  for (long long base = warp * 256; base < nnz; base += nwarps * 256) {
    int         c[8];
    PetscScalar v[8];
    uint2       o[2];
#pragma unroll
    for (int t = 0; t < 2; t++) {
      const long long e0 = base + t * kTile16 + 4 * lane;
      if (e0 + 4 <= nnz) {
        o[t] = *reinterpret_cast<const uint2 *>(off + e0);
#pragma unroll
        for (int k = 0; k < 4; k++) v[4 * t + k] = spmv::Ldcs(a + e0 + k);
      } else {
        o[t] = make_uint2(0, 0);
#pragma unroll
        for (int k = 0; k < 4; k++) v[4 * t + k] = e0 + k < nnz ? spmv::Ldcs(a + e0 + k) : PetscScalar(0.0);
      }
    }
    const int b0 = __ldg(tbase + base / kTile16), b1 = base + kTile16 < nnz ? __ldg(tbase + base / kTile16 + 1) : 0;
#pragma unroll
    for (int k = 0; k < 8; k++) {
      const long long e = base + (k / 4) * kTile16 + 4 * lane + (k % 4);
      const int       b = k < 4 ? b0 : b1;
      const unsigned  w = (k % 4) < 2 ? o[k / 4].x : o[k / 4].y;
      c[k]              = b >= 0 ? b + (int)((w >> (16 * (k % 2))) & 0xffffu) : (e < nnz ? __ldcs(cj + e) : 0);
    }
#pragma unroll
    for (int k = 0; k < 8; k++) {
      const long long e = base + (k / 4) * kTile16 + 4 * lane + (k % 4);
      if (e < nnz) acc += v[k] * spmv::Ldg(x + c[k]);
    }
  }
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < m; r += (long long)gridDim.x * blockDim.x) y[r] = PetscScalar((double)__ldg(rp + r));
  if (acc == 1.2345e-300) sink[0] = acc; /* keeps the loads; never true for the benchmark's data */
}

template <bool GATHER>
__global__ void __launch_bounds__(256) Floor(long long nnz, int m, const int *__restrict__ rp, const int *__restrict__ cj, const PetscScalar *__restrict__ a, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, PetscScalar *__restrict__ sink)
{
  const int       lane   = threadIdx.x & 31;
  const long long warp   = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  PetscScalar     acc    = 0;

  for (long long base = warp * 256; base < nnz; base += nwarps * 256) {
    int         c[8];
    PetscScalar v[8];
#pragma unroll
    for (int k = 0; k < 8; k++) {
      const long long e = base + k * 32 + lane;
      c[k]              = e < nnz ? __ldcs(cj + e) : 0;
      v[k]              = e < nnz ? spmv::Ldcs(a + e) : PetscScalar(0.0);
    }
#pragma unroll
    for (int k = 0; k < 8; k++) acc += v[k] * (GATHER ? spmv::Ldg(x + c[k]) : PetscScalar((double)c[k]));
  }
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < m; r += (long long)gridDim.x * blockDim.x) y[r] = PetscScalar((double)__ldg(rp + r));
  if (acc == 1.2345e-300) sink[0] = acc; /* keeps the loads; never true for the benchmark's data */
}

/* a function, not a constant expression: a constant false check would make the code after it unreachable, which nvcc
   reports (as an error under -Werror) in 64-bit PetscInt builds */
bool IndicesAre32Bit(void)
{
  return sizeof(PetscInt) == sizeof(int);
}

PetscErrorCode FloorMult(Mat S, Vec x, Vec y)
{
  FloorCtx          *ctx;
  const PetscInt    *i, *j;
  const PetscScalar *a, *xa;
  PetscScalar       *ya;
  PetscMemType       mt;
  PetscInt           m, n;
  MatInfo            info;
  cudaStream_t       s;
  int                dev, sms;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &ctx));
  PetscCall(MatGetSize(ctx->csr, &m, &n));
  PetscCall(MatGetInfo(ctx->csr, MAT_LOCAL, &info));
  PetscCall(MatSeqAIJGetCSRAndMemType(ctx->csr, &i, &j, (PetscScalar **)&a, &mt));
  PetscCheck(PetscMemTypeDevice(mt), PETSC_COMM_SELF, PETSC_ERR_PLIB, "floor kernels need the device CSR");
  PetscCall(VecCUDAGetArrayRead(x, &xa));
  PetscCall(VecCUDAGetArrayWrite(y, &ya));
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  if (ctx->mode == 3) Floor16C<<<sms * 8, 256, 0, s>>>((long long)info.nz_used, (int)m, (const int *)i, (const int *)j, ctx->off, ctx->base, a, xa, ya, ctx->sink);
  else if (ctx->mode == 2) Floor16<<<sms * 8, 256, 0, s>>>((long long)info.nz_used, (int)m, (const int *)i, (const int *)j, ctx->off, ctx->base, a, xa, ya, ctx->sink);
  else if (ctx->mode == 1) Floor<true><<<sms * 8, 256, 0, s>>>((long long)info.nz_used, (int)m, (const int *)i, (const int *)j, a, xa, ya, ctx->sink);
  else Floor<false><<<sms * 8, 256, 0, s>>>((long long)info.nz_used, (int)m, (const int *)i, (const int *)j, a, xa, ya, ctx->sink);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(VecCUDARestoreArrayRead(x, &xa));
  PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FloorDestroy(Mat S)
{
  FloorCtx *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &ctx));
  PetscCall(MatDestroy(&ctx->csr));
  PetscCallCUDA(cudaFree(ctx->sink));
  PetscCallCUDA(cudaFree(ctx->off));
  PetscCallCUDA(cudaFree(ctx->base));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* A shell matrix whose MatMult runs the floor kernel (mode 0 "stream", 1 "gather", 2 "gather16", 3 "gather16c") on A's
   device CSR; CUDA vectors */
PETSC_EXTERN PetscErrorCode SpMVBenchFloorCreate(Mat A, PetscInt mode, Mat *S)
{
  FloorCtx *ctx;
  PetscInt  m, n;

  PetscFunctionBegin;
  PetscCheck(IndicesAre32Bit(), PETSC_COMM_SELF, PETSC_ERR_SUP, "floor kernels need 32-bit PetscInt");
  PetscCall(PetscNew(&ctx));
  ctx->mode = mode;
  PetscCall(MatConvert(A, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &ctx->csr));
  PetscCallCUDA(cudaMalloc((void **)&ctx->sink, sizeof(PetscScalar)));
  if (mode >= 2) {
    const PetscInt    *i, *j;
    const PetscScalar *a;
    PetscMemType       mt;
    MatInfo            info;
    long long          nnz, ntiles;

    PetscCall(MatBindToCPU(ctx->csr, PETSC_FALSE));
    PetscCall(MatGetInfo(ctx->csr, MAT_LOCAL, &info));
    PetscCall(MatSeqAIJGetCSRAndMemType(ctx->csr, &i, &j, (PetscScalar **)&a, &mt));
    PetscCheck(PetscMemTypeDevice(mt), PETSC_COMM_SELF, PETSC_ERR_PLIB, "floor kernels need the device CSR");
    nnz    = (long long)info.nz_used;
    ntiles = (nnz + kTile16 - 1) / kTile16;
    PetscCallCUDA(cudaMalloc((void **)&ctx->off, (size_t)PetscMax(ntiles, 1) * kTile16 * sizeof(unsigned short)));
    PetscCallCUDA(cudaMalloc((void **)&ctx->base, (size_t)PetscMax(ntiles, 1) * sizeof(int)));
    if (ntiles) Compress16<<<(unsigned)PetscMin((ntiles * 32 + 255) / 256, 65535), 256>>>(nnz, ntiles, (const int *)j, ctx->base, ctx->off);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaDeviceSynchronize());
  }
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatCreateShell(PETSC_COMM_SELF, m, n, m, n, ctx, S));
  PetscCall(MatShellSetOperation(*S, MATOP_MULT, (PetscErrorCodeFn *)FloorMult));
  PetscCall(MatShellSetOperation(*S, MATOP_DESTROY, (PetscErrorCodeFn *)FloorDestroy));
  PetscCall(MatShellSetVecType(*S, VECCUDA));
  PetscFunctionReturn(PETSC_SUCCESS);
}
