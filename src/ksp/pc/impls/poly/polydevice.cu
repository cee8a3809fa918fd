/*
   PCPOLY's device routines: D^-1 (and -pc_poly_local's l1 diagonal) from the diagonal where the vector lives (a CUDA
   vector on the GPU: no host round trip of the diagonal at every setup, e.g. on every level of a multigrid hierarchy
   after a Newton step), and the fused vector updates of a smoothing step.
*/
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include <petscvec.h>
#include <petscdevice_cuda.h>
#include "polyimpl.h"
#include "mat/impls/spmv/spmvdevice.cuh"
#include "mat/impls/spmv/spmvvalue.cuh"

namespace
{
/* d <- 1/(d + sgn(d) L) (L optional: 0), zero entries -> 1 (as PCJACOBI), counted; l (optional) <- sgn(d) L / (d + sgn(d) L) */
__global__ void InvertDiagonal(PetscInt n, PetscScalar *__restrict__ d, const PetscScalar *__restrict__ L, PetscScalar *__restrict__ l, unsigned long long *__restrict__ nzero)
{
  unsigned long long cnt = 0;
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscScalar sl = L ? (spmv::RealPart(d[i]) < 0 ? -L[i] : L[i]) : PetscScalar(0), v = d[i] + sl;
    if (v == PetscScalar(0)) {
      d[i] = 1.0;
      if (l) l[i] = 0.0;
      cnt++;
    } else {
      d[i] = PetscScalar(1.0) / v;
      if (l) l[i] = sl / v;
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

/* d <- D^-1 in place, zero diagonal entries replaced by 1; *nzero: how many on this process. With L (-pc_poly_local's
   l1 scaling; Baker, Falgout, Kolev, Yang, "Multigrid smoothers for ultraparallel computing", SIAM J. Sci. Comput. 33
   (2011)): L = the row sums of |off-process entries| (d's local layout), the local operator is A_d + sgn(D) L, d gets
   D_l1^-1 = (D + sgn(D) L)^-1 and l gets sgn(D) L D_l1^-1, the diagonal that D_l1^-1 (A_d + sgn(D) L) adds to
   D_l1^-1 A_d. Where the diagonal is: on the GPU for CUDA vectors, no host round trip. */
PetscErrorCode PCPolyInvertDiagonal(Vec d, Vec L, Vec l, PetscInt *nzero)
{
  PetscScalar       *a, *la = NULL;
  const PetscScalar *La = NULL;
  PetscMemType       mt, mL = PETSC_MEMTYPE_HOST, ml = PETSC_MEMTYPE_HOST;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(d, &n));
  PetscCall(VecGetArrayAndMemType(d, &a, &mt));
  if (L) {
    PetscCall(VecGetArrayReadAndMemType(L, &La, &mL));
    PetscCall(VecGetArrayWriteAndMemType(l, &la, &ml));
    PetscCheck(PetscMemTypeDevice(mt) == PetscMemTypeDevice(mL) && PetscMemTypeDevice(mt) == PetscMemTypeDevice(ml), PETSC_COMM_SELF, PETSC_ERR_SUP, "The diagonal and the off-process row sums must live in the same memory");
  }
  *nzero = 0;
  if (PetscMemTypeDevice(mt)) {
    cudaStream_t        s;
    unsigned long long *dz, hz = 0;
    PetscCall(PetscGetCurrentCUDAStream(&s));
    PetscCall(spmv::DeviceAlloc(&dz, 1, nullptr, s));
    PetscCallCUDA(cudaMemsetAsync(dz, 0, sizeof(*dz), s));
    if (n) {
      InvertDiagonal<<<spmv::GridFor(n, 256, 4096), 256, 0, s>>>(n, a, La, la, dz);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscCallCUDA(cudaMemcpyAsync(&hz, dz, sizeof(hz), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(spmv::DeviceFree({dz}, s));
    *nzero = (PetscInt)hz;
  } else {
    for (PetscInt i = 0; i < n; i++) {
      const PetscScalar sl = La ? (PetscRealPart(a[i]) < 0 ? -La[i] : La[i]) : PetscScalar(0), v = a[i] + sl;
      if (v == PetscScalar(0)) {
        a[i] = 1.0;
        if (la) la[i] = 0.0;
        (*nzero)++;
      } else {
        a[i] = PetscScalar(1.0) / v;
        if (la) la[i] = sl / v;
      }
    }
  }
  if (L) {
    PetscCall(VecRestoreArrayWriteAndMemType(l, &la));
    PetscCall(VecRestoreArrayReadAndMemType(L, &La));
  }
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

/* One fused vector operation over the local entries of the vectors in `list` (n of them, counted on `sized`): on the
   device dev(stream, n, arrays) launches its kernel, on the host host(n, arrays) loops; logged as PC_Poly_Fused with
   flops per entry */
template <class Dev, class Host>
static PetscErrorCode Fused(Vec sized, std::initializer_list<std::pair<Vec, bool>> list, PetscLogDouble flops, Dev dev, Host host)
{
  Arrays   A;
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(sized, &n));
  PetscCall(PetscLogEventBegin(PC_Poly_Fused, 0, 0, 0, 0));
  PetscCall(A.Get(list));
  if (A.dev) {
    cudaStream_t st;
    PetscCall(PetscGetCurrentCUDAStream(&st));
    PetscCall(PetscLogGpuTimeBegin());
    if (n) dev(st, n, A.a);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuFlops(flops * n));
  } else {
    host(n, A.a);
    PetscCall(PetscLogFlops(flops * n));
  }
  PetscCall(A.Restore());
  PetscCall(PetscLogEventEnd(PC_Poly_Fused, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = s .* b - w (s, w may be NULL); d = y = z / theta: the start of a Chebyshev smoothing step (b: the right-hand
   side with w = B32 x, or the residual with w = NULL; s = D^-1 or NULL) */
PetscErrorCode PCPolyChebyshevStart(Vec b, Vec w, Vec s, PetscReal theta, Vec z, Vec d, Vec y)
{
  PetscFunctionBegin;
  PetscCall(Fused(
    z, {{b, false}, {w, false}, {s, false}, {z, true}, {d, true}, {y, true}}, 4.0,
    [&](cudaStream_t st, PetscInt n, PetscScalar **a) { ChebStart<<<spmv::GridFor(n, 256, 8192), 256, 0, st>>>(n, a[0], a[1], a[2], 1.0 / theta, a[3], a[4], a[5]); },
    [&](PetscInt n, PetscScalar **a) {
      for (PetscInt i = 0; i < n; i++) {
        PetscScalar v = a[2] ? a[2][i] * a[0][i] : a[0][i];
        if (a[1]) v -= a[1][i];
        a[3][i] = v;
        a[4][i] = a[5][i] = v / theta;
      }
    }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* d = a z + bc (s .* w + l .* y) + c d (s, l may be NULL; l: the diagonal of the l1 local operator, -pc_poly_local);
   mode 0: y += d; 1: x += y + d; 2: x = y + d (x unused in mode 0) */
PetscErrorCode PCPolyChebyshevUpdate(Vec z, Vec w, Vec s, Vec l, PetscReal a, PetscReal bc, PetscReal c, Vec d, Vec y, Vec x, PetscInt mode)
{
  PetscFunctionBegin;
  PetscCall(Fused(
    z, {{z, false}, {w, false}, {s, false}, {d, mode == 0}, {y, mode == 0}, {mode ? x : NULL, true}, {l, false}}, 7.0,
    [&](cudaStream_t st, PetscInt n, PetscScalar **v) { ChebUpdate<<<spmv::GridFor(n, 256, 8192), 256, 0, st>>>(n, v[0], v[1], v[2], v[6], a, bc, c, v[3], v[4], v[5], (int)mode); },
    [&](PetscInt n, PetscScalar **v) {
      for (PetscInt i = 0; i < n; i++) {
        const PetscScalar bw = (v[2] ? v[2][i] * v[1][i] : v[1][i]) + (v[6] ? v[6][i] * v[4][i] : PetscScalar(0));
        const PetscScalar dn = a * v[0][i] + bc * bw + c * v[3][i];
        const PetscScalar yn = v[4][i] + dn;
        if (mode == 0) v[3][i] = dn, v[4][i] = yn;
        else if (mode == 1) v[5][i] += yn;
        else v[5][i] = yn;
      }
    }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w = b - w ./ s (s may be NULL): the residual b - A x from w = B32 x, B = D^-1 A with s = D^-1 (PCPOLY's MatResidual
   with the fp32 copy, -pc_poly_residual_precision single) */
PetscErrorCode PCPolyResidualFinish(Vec b, Vec s, Vec w)
{
  PetscFunctionBegin;
  PetscCall(Fused(
    w, {{b, false}, {s, false}, {w, true}}, 2.0, [](cudaStream_t st, PetscInt n, PetscScalar **a) { ResidualFinish<<<spmv::GridFor(n, 256, 8192), 256, 0, st>>>(n, a[0], a[1], a[2]); },
    [](PetscInt n, PetscScalar **a) {
      for (PetscInt i = 0; i < n; i++) a[2][i] = a[0][i] - (a[1] ? a[2][i] / a[1][i] : a[2][i]);
    }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w += l .* v (the l1 diagonal of -pc_poly_local after a diagonal-block product) */
PetscErrorCode PCPolyDiagonalAdd(Vec l, Vec v, Vec w)
{
  PetscFunctionBegin;
  PetscCall(Fused(
    w, {{l, false}, {v, false}, {w, true}}, 2.0, [](cudaStream_t st, PetscInt n, PetscScalar **a) { DiagonalAdd<<<spmv::GridFor(n, 256, 8192), 256, 0, st>>>(n, a[0], a[1], a[2]); },
    [](PetscInt n, PetscScalar **a) {
      for (PetscInt i = 0; i < n; i++) a[2][i] += a[0][i] * a[1][i];
    }));
  PetscFunctionReturn(PETSC_SUCCESS);
}
