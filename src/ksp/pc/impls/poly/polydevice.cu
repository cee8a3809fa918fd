/*
   PCPOLY's one device routine: D^-1 from the diagonal where the vector lives (a CUDA vector on the GPU: no host
   round trip of the diagonal at every setup, e.g. on every level of a multigrid hierarchy after a Newton step).
*/
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include <petscvec.h>
#include <petscdevice_cuda.h>
#include "polyimpl.h"
#include "mat/impls/spmv/spmvdevice.cuh"

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
