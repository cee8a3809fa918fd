/*
   PCPOLY's one device routine: D^-1 from the diagonal where the vector lives (a CUDA vector on the GPU: no host
   round trip of the diagonal at every setup, e.g. on every level of a multigrid hierarchy after a Newton step).
*/
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include <petscvec.h>
#include <petscdevice_cuda.h>
#include "polyimpl.h"
#include "mat/impls/spmv/spmvdevice.cuh"
#include "mat/impls/spmv/spmvvalue.cuh"

namespace
{
/* d[i] -> 1/d[i], zero entries -> 1 (as PCJACOBI), counted */
__global__ void InvertDiagonal(PetscInt n, PetscScalar *__restrict__ d, unsigned long long *__restrict__ nzero)
{
  unsigned long long cnt = 0;
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscScalar v = d[i];
    if (v == 0.0) {
      d[i] = 1.0;
      cnt++;
    } else d[i] = 1.0 / v;
  }
  if (cnt) atomicAdd(nzero, cnt);
}
} // namespace

/* d <- D^-1 in place, zero diagonal entries replaced by 1; *nzero: how many on this process */
PetscErrorCode PCPolyInvertDiagonal(Vec d, PetscInt *nzero)
{
  PetscScalar *a;
  PetscMemType mt;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(d, &n));
  PetscCall(VecGetArrayAndMemType(d, &a, &mt));
  *nzero = 0;
  if (PetscMemTypeDevice(mt)) {
    cudaStream_t        s;
    unsigned long long *dz, hz = 0;
    PetscCall(PetscGetCurrentCUDAStream(&s));
    PetscCall(spmv::DeviceAlloc(&dz, 1, nullptr, s));
    PetscCallCUDA(cudaMemsetAsync(dz, 0, sizeof(*dz), s));
    if (n) {
      InvertDiagonal<<<spmv::GridFor(n, 256, 4096), 256, 0, s>>>(n, a, dz);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscCallCUDA(cudaMemcpyAsync(&hz, dz, sizeof(hz), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(spmv::DeviceFree({dz}, s));
    *nzero = (PetscInt)hz;
  } else {
    for (PetscInt i = 0; i < n; i++) {
      if (a[i] == 0.0) {
        a[i] = 1.0;
        (*nzero)++;
      } else a[i] = 1.0 / a[i];
    }
  }
  PetscCall(VecRestoreArrayAndMemType(d, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace
{
/* the l1 diagonal of -pc_poly_local: d <- 1/(d + sgn(d) L) (zero -> 1, counted), l <- sgn(d) L / (d + sgn(d) L) */
__global__ void L1Diagonal(PetscInt n, PetscScalar *__restrict__ d, const PetscScalar *__restrict__ L, PetscScalar *__restrict__ l, unsigned long long *__restrict__ nzero)
{
  unsigned long long cnt = 0;
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscScalar sl = spmv::RealPart(d[i]) < 0 ? -L[i] : L[i], v = d[i] + sl;
    if (v == PetscScalar(0)) {
      d[i] = 1.0;
      l[i] = 0.0;
      cnt++;
    } else {
      d[i] = PetscScalar(1.0) / v;
      l[i] = sl / v;
    }
  }
  if (cnt) atomicAdd(nzero, cnt);
}

/* w += l .* v */
__global__ void DiagonalAdd(PetscInt n, const PetscScalar *__restrict__ l, const PetscScalar *__restrict__ v, PetscScalar *__restrict__ w)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) w[i] += l[i] * v[i];
}
} // namespace

/* -pc_poly_local's l1 scaling (Baker, Falgout, Kolev, Yang, "Multigrid smoothers for ultraparallel computing", SIAM J.
   Sci. Comput. 33 (2011)): with L = the row sums of |off-process entries|, the local operator is A_d + sgn(D) L, its
   diagonal D + sgn(D) L. d holds D on entry, D_l1^-1 on return (zero entries replaced by 1 and counted in *nzero); l
   gets sgn(D) L D_l1^-1, the diagonal that D_l1^-1 (A_d + sgn(D) L) adds to D_l1^-1 A_d. L has d's local layout. */
PetscErrorCode PCPolyL1Diagonal(Vec d, Vec L, Vec l, PetscInt *nzero)
{
  PetscScalar *a, *la;
  const PetscScalar *La;
  PetscMemType mt, mL, ml;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(d, &n));
  PetscCall(VecGetArrayAndMemType(d, &a, &mt));
  PetscCall(VecGetArrayReadAndMemType(L, &La, &mL));
  PetscCall(VecGetArrayWriteAndMemType(l, &la, &ml));
  *nzero = 0;
  if (PetscMemTypeDevice(mt) && PetscMemTypeDevice(mL) && PetscMemTypeDevice(ml)) {
    cudaStream_t        s;
    unsigned long long *dz, hz = 0;
    PetscCall(PetscGetCurrentCUDAStream(&s));
    PetscCall(spmv::DeviceAlloc(&dz, 1, nullptr, s));
    PetscCallCUDA(cudaMemsetAsync(dz, 0, sizeof(*dz), s));
    if (n) {
      L1Diagonal<<<spmv::GridFor(n, 256, 4096), 256, 0, s>>>(n, a, La, la, dz);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscCallCUDA(cudaMemcpyAsync(&hz, dz, sizeof(hz), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(spmv::DeviceFree({dz}, s));
    *nzero = (PetscInt)hz;
  } else {
    PetscCheck(!PetscMemTypeDevice(mt) && !PetscMemTypeDevice(mL) && !PetscMemTypeDevice(ml), PETSC_COMM_SELF, PETSC_ERR_SUP, "The diagonal and the off-process row sums must live in the same memory");
    for (PetscInt i = 0; i < n; i++) {
      const PetscScalar sl = PetscRealPart(a[i]) < 0 ? -La[i] : La[i], v = a[i] + sl;
      if (v == PetscScalar(0)) {
        a[i]  = 1.0;
        la[i] = 0.0;
        (*nzero)++;
      } else {
        a[i]  = PetscScalar(1.0) / v;
        la[i] = sl / v;
      }
    }
  }
  PetscCall(VecRestoreArrayWriteAndMemType(l, &la));
  PetscCall(VecRestoreArrayReadAndMemType(L, &La));
  PetscCall(VecRestoreArrayAndMemType(d, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------
   The fused vector updates of a Chebyshev smoothing step (PCApplyRichardson_Poly): one kernel where PETSc's Vec
   operations take three to five (a multigrid V-cycle is launch-bound on its coarse levels: ex56 on the H100 spent
   about 1.3 ms an iteration above the bytes of its products, ~90 vector launches an iteration)
   --------------------------------------------------------------------------------------------------------------- */
namespace
{
/* z = s .* b - w (s, w optional); d = z * itheta; y = d */
__global__ void ChebStart(PetscInt n, const PetscScalar *__restrict__ b, const PetscScalar *__restrict__ w, const PetscScalar *__restrict__ s, PetscReal itheta, PetscScalar *__restrict__ z, PetscScalar *__restrict__ d, PetscScalar *__restrict__ y)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    PetscScalar v = s ? s[i] * b[i] : b[i];
    if (w) v -= w[i];
    z[i] = v;
    d[i] = v * itheta;
    y[i] = v * itheta;
  }
}

/* r = b - w ./ s (s optional): A x = D (D^-1 A x) from the fp32 copy's product w = B32 x, B = D^-1 A, s = D^-1 */
__global__ void ResidualFinish(PetscInt n, const PetscScalar *__restrict__ b, const PetscScalar *__restrict__ s, PetscScalar *__restrict__ w)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) w[i] = b[i] - (s ? w[i] / s[i] : w[i]);
}

/* d = a z + bc (s .* w + l .* y) + c d (s, l optional); then mode 0: y += d; 1: x += y + d; 2: x = y + d */
__global__ void ChebUpdate(PetscInt n, const PetscScalar *__restrict__ z, const PetscScalar *__restrict__ w, const PetscScalar *__restrict__ s, const PetscScalar *__restrict__ l, PetscReal a, PetscReal bc, PetscReal c, PetscScalar *__restrict__ d, PetscScalar *__restrict__ y, PetscScalar *__restrict__ x, int mode)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscScalar bw = (s ? s[i] * w[i] : w[i]) + (l ? l[i] * y[i] : PetscScalar(0));
    const PetscScalar dn = a * z[i] + bc * bw + c * d[i];
    const PetscScalar yn = y[i] + dn;
    if (mode == 0) {
      d[i] = dn;
      y[i] = yn;
    } else if (mode == 1) x[i] += yn;
    else x[i] = yn;
  }
}

/* the arrays of the vectors of one fused operation: on the device when every vector is a CUDA vector not bound to
   the CPU (whose *AndMemType arrays are device arrays), else all on the host */
struct Arrays {
  static constexpr int kMax = 7;
  Vec                  v[kMax] = {};
  PetscScalar         *a[kMax] = {};
  bool                 write[kMax] = {};
  int                  n = 0;
  bool                 dev = true;

  PetscErrorCode Get(std::initializer_list<std::pair<Vec, bool>> list)
  {
    PetscFunctionBegin;
    for (const auto &p : list) {
      v[n]     = p.first;
      write[n] = p.second;
      if (v[n]) {
        PetscBool cuda, cpu;
        PetscCall(PetscObjectTypeCompareAny((PetscObject)v[n], &cuda, VECSEQCUDA, VECMPICUDA, ""));
        PetscCall(VecBoundToCPU(v[n], &cpu)); /* e.g. a coarse level pinned to the CPU */
        dev = dev && cuda && !cpu;
      }
      n++;
    }
    for (int k = 0; k < n; k++) {
      if (!v[k]) continue;
      if (dev) {
        PetscMemType m;
        if (write[k]) PetscCall(VecGetArrayAndMemType(v[k], &a[k], &m));
        else PetscCall(VecGetArrayReadAndMemType(v[k], (const PetscScalar **)&a[k], &m));
        PetscCheck(PetscMemTypeDevice(m), PETSC_COMM_SELF, PETSC_ERR_PLIB, "a CUDA vector gave a host array");
      } else if (write[k]) PetscCall(VecGetArray(v[k], &a[k]));
      else PetscCall(VecGetArrayRead(v[k], (const PetscScalar **)&a[k]));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode Restore()
  {
    PetscFunctionBegin;
    for (int k = 0; k < n; k++) {
      if (!v[k]) continue;
      if (dev && write[k]) PetscCall(VecRestoreArrayAndMemType(v[k], &a[k]));
      else if (dev) PetscCall(VecRestoreArrayReadAndMemType(v[k], (const PetscScalar **)&a[k]));
      else if (write[k]) PetscCall(VecRestoreArray(v[k], &a[k]));
      else PetscCall(VecRestoreArrayRead(v[k], (const PetscScalar **)&a[k]));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
} // namespace

/* z = s .* b - w (s, w may be NULL); d = y = z / theta: the start of a Chebyshev smoothing step (b: the right-hand
   side with w = B32 x, or the residual with w = NULL; s = D^-1 or NULL) */
PetscErrorCode PCPolyChebyshevStart(Vec b, Vec w, Vec s, PetscReal theta, Vec z, Vec d, Vec y)
{
  Arrays   A;
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(z, &n));
  PetscCall(PetscLogEventBegin(PC_Poly_Fused, 0, 0, 0, 0));
  PetscCall(A.Get({{b, false}, {w, false}, {s, false}, {z, true}, {d, true}, {y, true}}));
  if (A.dev) {
    cudaStream_t st;
    PetscCall(PetscGetCurrentCUDAStream(&st));
    PetscCall(PetscLogGpuTimeBegin());
    if (n) ChebStart<<<spmv::GridFor(n, 256, 8192), 256, 0, st>>>(n, A.a[0], A.a[1], A.a[2], 1.0 / theta, A.a[3], A.a[4], A.a[5]);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuFlops(4.0 * n));
  } else {
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar v = A.a[2] ? A.a[2][i] * A.a[0][i] : A.a[0][i];
      if (A.a[1]) v -= A.a[1][i];
      A.a[3][i] = v;
      A.a[4][i] = A.a[5][i] = v / theta;
    }
    PetscCall(PetscLogFlops(4.0 * n));
  }
  PetscCall(A.Restore());
  PetscCall(PetscLogEventEnd(PC_Poly_Fused, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* d = a z + bc (s .* w + l .* y) + c d (s, l may be NULL; l: the diagonal of the l1 local operator, -pc_poly_local);
   mode 0: y += d; 1: x += y + d; 2: x = y + d (x unused in mode 0) */
PetscErrorCode PCPolyChebyshevUpdate(Vec z, Vec w, Vec s, Vec l, PetscReal a, PetscReal bc, PetscReal c, Vec d, Vec y, Vec x, PetscInt mode)
{
  Arrays   A;
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(z, &n));
  PetscCall(PetscLogEventBegin(PC_Poly_Fused, 0, 0, 0, 0));
  PetscCall(A.Get({{z, false}, {w, false}, {s, false}, {d, mode == 0}, {y, mode == 0}, {mode ? x : NULL, true}, {l, false}}));
  if (A.dev) {
    cudaStream_t st;
    PetscCall(PetscGetCurrentCUDAStream(&st));
    PetscCall(PetscLogGpuTimeBegin());
    if (n) ChebUpdate<<<spmv::GridFor(n, 256, 8192), 256, 0, st>>>(n, A.a[0], A.a[1], A.a[2], A.a[6], a, bc, c, A.a[3], A.a[4], A.a[5], (int)mode);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuFlops(7.0 * n));
  } else {
    for (PetscInt i = 0; i < n; i++) {
      const PetscScalar bw = (A.a[2] ? A.a[2][i] * A.a[1][i] : A.a[1][i]) + (A.a[6] ? A.a[6][i] * A.a[4][i] : PetscScalar(0));
      const PetscScalar dn = a * A.a[0][i] + bc * bw + c * A.a[3][i];
      const PetscScalar yn = A.a[4][i] + dn;
      if (mode == 0) A.a[3][i] = dn, A.a[4][i] = yn;
      else if (mode == 1) A.a[5][i] += yn;
      else A.a[5][i] = yn;
    }
    PetscCall(PetscLogFlops(7.0 * n));
  }
  PetscCall(A.Restore());
  PetscCall(PetscLogEventEnd(PC_Poly_Fused, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w = b - w ./ s (s may be NULL): the residual b - A x from w = B32 x, B = D^-1 A with s = D^-1 (PCPOLY's MatResidual
   with the fp32 copy, -pc_poly_residual_precision single) */
PetscErrorCode PCPolyResidualFinish(Vec b, Vec s, Vec w)
{
  Arrays   A;
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(w, &n));
  PetscCall(PetscLogEventBegin(PC_Poly_Fused, 0, 0, 0, 0));
  PetscCall(A.Get({{b, false}, {s, false}, {w, true}}));
  if (A.dev) {
    cudaStream_t st;
    PetscCall(PetscGetCurrentCUDAStream(&st));
    PetscCall(PetscLogGpuTimeBegin());
    if (n) ResidualFinish<<<spmv::GridFor(n, 256, 8192), 256, 0, st>>>(n, A.a[0], A.a[1], A.a[2]);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuFlops(2.0 * n));
  } else {
    for (PetscInt i = 0; i < n; i++) A.a[2][i] = A.a[0][i] - (A.a[1] ? A.a[2][i] / A.a[1][i] : A.a[2][i]);
    PetscCall(PetscLogFlops(2.0 * n));
  }
  PetscCall(A.Restore());
  PetscCall(PetscLogEventEnd(PC_Poly_Fused, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w += l .* v (the l1 diagonal of -pc_poly_local after a diagonal-block product) */
PetscErrorCode PCPolyDiagonalAdd(Vec l, Vec v, Vec w)
{
  Arrays   A;
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(w, &n));
  PetscCall(PetscLogEventBegin(PC_Poly_Fused, 0, 0, 0, 0));
  PetscCall(A.Get({{l, false}, {v, false}, {w, true}}));
  if (A.dev) {
    cudaStream_t st;
    PetscCall(PetscGetCurrentCUDAStream(&st));
    PetscCall(PetscLogGpuTimeBegin());
    if (n) DiagonalAdd<<<spmv::GridFor(n, 256, 8192), 256, 0, st>>>(n, A.a[0], A.a[1], A.a[2]);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuFlops(2.0 * n));
  } else {
    for (PetscInt i = 0; i < n; i++) A.a[2][i] += A.a[0][i] * A.a[1][i];
    PetscCall(PetscLogFlops(2.0 * n));
  }
  PetscCall(A.Restore());
  PetscCall(PetscLogEventEnd(PC_Poly_Fused, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
