/*
   segsum_single: the segsum format object driven directly on the GPU with fp32 values (issue #19), before
   and independently of the generic type's single path. Build here, run on the GPU machine:

     tests/gpu/segsum_single.sh build [BUILD]   (default BUILD=build; writes BUILD/bin/test_segsum_single)
     BUILD/bin/test_segsum_single               (on the GPU; exit status nonzero on any failure)

   For every matrix (empty rows, runs of empty rows longer than a tile, a row over hundreds of warps, a
   partial last tile, nnz = 0, 1x1) and option set (tiles 64..512, tiles per warp 1..31, speculation on/off):
     1. BuildDevice with a single CSR (a null, a32 = the fp32 values): MultDevice y = A x (y prefilled with
        NaN) and y += A x equal SegSumMultHost on the fp32-rounded values (in fp64) bit for bit
     2. Verify: maxdiff 0, with the rounded host values and with the unrounded ones (it rounds itself)
     3. RefreshDevice with new fp32 values (rewritten in place): same checks
     4. rebuild the same object with fp64 values: equal to the fp64 reference bit for bit; the fp64 and fp32
        products differ somewhere (the fp32 values were really used) where the values are not representable
     5. back to fp32 by a rebuild, and by a refresh that changes the value type: same checks as 1
   and once: a32 not 16-byte aligned is refused by BuildDevice with an error, not a fault.
*/
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "mat/impls/spmv/segsum/segsum.h"
#include <petscdevice_cuda.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

static int g_fail = 0;

struct Host {
  std::string           name;
  PetscInt              m = 0, n = 0;
  std::vector<PetscInt> i{0}, j;
  std::vector<double>   a;
};

/* row lengths from len(r); columns random in [0, n); values random, not fp32-representable */
template <class F>
static Host Make(const char *name, PetscInt m, PetscInt n, F len, unsigned seed)
{
  Host                                   A;
  std::mt19937_64                        g(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  A.name = name;
  A.m    = m;
  A.n    = n;
  for (PetscInt r = 0; r < m; r++) {
    const PetscInt k = n ? len(r, g) : 0;
    for (PetscInt q = 0; q < k; q++) {
      A.j.push_back((PetscInt)(g() % (unsigned long long)n));
      A.a.push_back(u(g) * (1.0 + 1e-3 * (double)(q % 5)));
    }
    A.i.push_back((PetscInt)A.j.size());
  }
  return A;
}

static std::vector<double> Rounded(const std::vector<double> &a)
{
  std::vector<double> r(a.size());
  for (std::size_t k = 0; k < a.size(); k++) r[k] = (double)(float)a[k];
  return r;
}

struct Device {
  int    *i = nullptr, *j = nullptr;
  double *a = nullptr;
  float  *a32 = nullptr;
  double *x = nullptr, *y = nullptr;
};

static PetscErrorCode Upload(const Host &A, const std::vector<double> &a, Device *D)
{
  std::vector<int>   i(A.i.begin(), A.i.end()), j(A.j.begin(), A.j.end());
  std::vector<float> f(a.begin(), a.end());
  const std::size_t  nz = std::max<std::size_t>(j.size(), 1);

  PetscFunctionBegin;
  if (!D->i) {
    PetscCallCUDA(cudaMalloc((void **)&D->i, i.size() * sizeof(int)));
    PetscCallCUDA(cudaMalloc((void **)&D->j, nz * sizeof(int)));
    PetscCallCUDA(cudaMalloc((void **)&D->a, nz * sizeof(double)));
    PetscCallCUDA(cudaMalloc((void **)&D->a32, (nz + 4) * sizeof(float)));
    PetscCallCUDA(cudaMalloc((void **)&D->x, std::max<PetscInt>(A.n, 1) * sizeof(double)));
    PetscCallCUDA(cudaMalloc((void **)&D->y, std::max<PetscInt>(A.m, 1) * sizeof(double)));
    PetscCallCUDA(cudaMemcpy(D->i, i.data(), i.size() * sizeof(int), cudaMemcpyHostToDevice));
    if (!j.empty()) PetscCallCUDA(cudaMemcpy(D->j, j.data(), j.size() * sizeof(int), cudaMemcpyHostToDevice));
  }
  if (!j.empty()) {
    PetscCallCUDA(cudaMemcpy(D->a, a.data(), a.size() * sizeof(double), cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(D->a32, f.data(), f.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Free(Device *D)
{
  PetscFunctionBegin;
  for (void *p : {(void *)D->i, (void *)D->j, (void *)D->a, (void *)D->a32, (void *)D->x, (void *)D->y})
    if (p) PetscCallCUDA(cudaFree(p));
  *D = Device();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static SpMVDeviceCsr DevCsr(const Host &A, const Device &D, bool single)
{
  SpMVDeviceCsr d;
  d.m      = A.m;
  d.n      = A.n;
  d.nnz    = (PetscInt)A.j.size();
  d.i      = D.i;
  d.j      = D.j;
  d.single = single;
  if (single) d.a32 = D.a32;
  else d.a = D.a;
  return d;
}

static SpMVHostCsr HostCsr(const Host &A, const std::vector<double> &a, bool single)
{
  SpMVHostCsr h;
  h.m      = A.m;
  h.n      = A.n;
  h.nnz    = (PetscInt)A.j.size();
  h.i      = A.i.data();
  h.j      = A.j.data();
  h.a      = a.data();
  h.single = single;
  return h;
}

/* device product (y = A x, y += A x) == host reference on the values a, bit for bit; returns y = A x */
static PetscErrorCode Products(SpMVFormat *f, const SegSumOptions &o, const Host &A, const std::vector<double> &a, bool single, const Device &D, const std::vector<double> &x, const char *what, std::vector<double> *yout)
{
  SegSumHostLayout    L;
  SegSumStats         st;
  const SpMVHostCsr   h = HostCsr(A, a, single);
  std::vector<double> y0(A.m), yh(A.m), yd(A.m);
  cudaStream_t        s = 0;

  PetscFunctionBegin;
  PetscCall(SegSumBuildHostLayout(o, h, &L, &st));
  for (PetscInt r = 0; r < A.m; r++) y0[r] = 0.25 - (double)((r * 40503ull) % 997) / 997.0;
  if (A.n) PetscCallCUDA(cudaMemcpy(D.x, x.data(), A.n * sizeof(double), cudaMemcpyHostToDevice));
  for (int add = 0; add < 2; add++) {
    if (add) {
      if (A.m) PetscCallCUDA(cudaMemcpy(D.y, y0.data(), A.m * sizeof(double), cudaMemcpyHostToDevice));
      yh = y0;
    } else {
      PetscCallCUDA(cudaMemset(D.y, 0xff, std::max<PetscInt>(A.m, 1) * sizeof(double)));
      std::fill(yh.begin(), yh.end(), NAN);
    }
    PetscCall(f->MultDevice(D.x, D.y, add, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    if (A.m) PetscCallCUDA(cudaMemcpy(yd.data(), D.y, A.m * sizeof(double), cudaMemcpyDeviceToHost));
    SegSumMultHost(st, L, h, x.data(), yh.data(), add);
    PetscInt bad = 0, first = -1;
    for (PetscInt r = 0; r < A.m; r++)
      if (std::memcmp(&yd[r], &yh[r], sizeof(double))) {
        if (first < 0) first = r;
        bad++;
      }
    if (bad) {
      g_fail++;
      std::printf("FAIL %s %s %s: %" PetscInt_FMT " rows differ from the host reference, first %" PetscInt_FMT ": device %.17g host %.17g\n", A.name.c_str(), what, add ? "y+=Ax" : "y=Ax", bad, first, yd[first], yh[first]);
    }
    if (!add && yout) *yout = yd;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VerifyZero(SpMVFormat *f, const Host &A, const std::vector<double> &a, bool single, const char *what)
{
  PetscReal d = -1;

  PetscFunctionBegin;
  PetscCall(f->Verify(HostCsr(A, a, single), 0, &d));
  if (d != 0) {
    g_fail++;
    std::printf("FAIL %s %s: Verify maxdiff %g\n", A.name.c_str(), what, (double)d);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Run(const Host &A, const SegSumOptions &o)
{
  char                opts[256];
  Device              D;
  SpMVFormat         *f = SegSumCreate();
  std::vector<double> a = A.a, ar = Rounded(A.a), x(std::max<PetscInt>(A.n, 1)), y32, y64;
  const int           fail0 = g_fail;
  std::mt19937_64     g(7);

  PetscFunctionBegin;
  for (auto &v : x) v = std::uniform_real_distribution<double>(-1.0, 1.0)(g);
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-mat_segsum_tile %" PetscInt_FMT " -mat_segsum_tiles_per_warp %" PetscInt_FMT " -mat_segsum_warps_per_block %" PetscInt_FMT " -mat_segsum_speculate %d", o.tile, o.S, o.warps, (int)o.speculate));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscOptionsBegin(PETSC_COMM_SELF, NULL, "segsum", NULL);
  PetscCall(f->SetFromOptions(PetscOptionsObject));
  PetscOptionsEnd();
  PetscCheck(f->SupportsSingle(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "segsum: SupportsSingle() is false");
  /* 1, 2 */
  PetscCall(Upload(A, a, &D));
  PetscCall(f->BuildDevice(DevCsr(A, D, true), 0));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(Products(f, o, A, ar, true, D, x, "fp32 build", &y32));
  PetscCall(VerifyZero(f, A, ar, true, "fp32 build, rounded host values"));
  PetscCall(VerifyZero(f, A, a, false, "fp32 build, unrounded host values"));
  /* 3: new values in place */
  for (auto &v : a) v = 0.5 - 1.25 * v;
  ar = Rounded(a);
  PetscCall(Upload(A, a, &D));
  PetscCall(f->RefreshDevice(DevCsr(A, D, true), 0));
  PetscCall(Products(f, o, A, ar, true, D, x, "fp32 refresh", &y32));
  PetscCall(VerifyZero(f, A, ar, true, "fp32 refresh"));
  /* 4: fp64 on the same object */
  PetscCall(f->BuildDevice(DevCsr(A, D, false), 0));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(Products(f, o, A, a, false, D, x, "fp64 rebuild", &y64));
  PetscCall(VerifyZero(f, A, a, false, "fp64 rebuild"));
  if (A.j.size() > 16 && y32 == y64) {
    g_fail++;
    std::printf("FAIL %s: the fp32 and fp64 products are equal (fp32 values not used?)\n", A.name.c_str());
  }
  /* 5: back to fp32, by a rebuild and by a refresh that changes the value type */
  PetscCall(f->BuildDevice(DevCsr(A, D, true), 0));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(Products(f, o, A, ar, true, D, x, "fp32 rebuild", nullptr));
  PetscCall(f->RefreshDevice(DevCsr(A, D, false), 0));
  PetscCall(Products(f, o, A, a, false, D, x, "refresh to fp64", nullptr));
  PetscCall(f->RefreshDevice(DevCsr(A, D, true), 0));
  PetscCall(Products(f, o, A, ar, true, D, x, "refresh to fp32", nullptr));
  PetscCall(VerifyZero(f, A, ar, true, "refresh to fp32"));
  std::printf("%s %-40s %-70s nnz %8zu\n", g_fail == fail0 ? "ok  " : "FAIL", A.name.c_str(), opts, A.j.size());
  delete f;
  PetscCall(Free(&D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a32 that is not 16-byte aligned: BuildDevice must return an error (the float4 loads would fault) */
static PetscErrorCode Misaligned(const Host &A)
{
  Device         D;
  SpMVFormat    *f = SegSumCreate();
  SpMVDeviceCsr  d;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(Upload(A, A.a, &D));
  d = DevCsr(A, D, true);
  d.a32++;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = f->BuildDevice(d, 0);
  PetscCall(PetscPopErrorHandler());
  if (ierr == PETSC_SUCCESS) {
    g_fail++;
    std::printf("FAIL misaligned a32 accepted by BuildDevice\n");
  } else std::printf("ok   misaligned a32 refused by BuildDevice (error %d)\n", (int)ierr);
  delete f;
  PetscCall(Free(&D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  using G = std::mt19937_64;
  std::vector<Host> mats;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  mats.push_back(Make("random 5000x7000, 20% empty rows", 5000, 7000, [](PetscInt, G &g) { return g() % 5 == 0 ? (PetscInt)0 : (PetscInt)(g() % 20); }, 1));
  mats.push_back(Make("stencil-like 20000 rows, 7 per row", 20000, 20000, [](PetscInt, G &) { return (PetscInt)7; }, 2));
  mats.push_back(Make("one row of 40000 among short rows", 60, 50000, [](PetscInt r, G &g) { return r == 7 ? (PetscInt)40000 : (PetscInt)(g() % 4); }, 3));
  mats.push_back(Make("runs of empty rows longer than a tile", 3000, 900, [](PetscInt r, G &) { return r % 700 == 3 ? (PetscInt)5 : (PetscInt)0; }, 4));
  mats.push_back(Make("every row empty but the last", 2000, 10, [](PetscInt r, G &) { return r == 1999 ? (PetscInt)3 : (PetscInt)0; }, 5));
  mats.push_back(Make("dense rows over warps, 3000 x 3000", 3000, 3000, [](PetscInt r, G &g) { return r % 1000 == 1 ? (PetscInt)2999 : (PetscInt)(1 + g() % 6); }, 6));
  mats.push_back(Make("1x1", 1, 1, [](PetscInt, G &) { return (PetscInt)1; }, 7));
  mats.push_back(Make("nnz 0, 50 x 40", 50, 40, [](PetscInt, G &) { return (PetscInt)0; }, 8));
  mats.push_back(Make("nnz 131 (partial tiles)", 17, 300, [](PetscInt r, G &) { return (PetscInt)(r < 16 ? 8 : 3); }, 9));
  const SegSumOptions cfg[] = {
    {128, 7, 5, PETSC_TRUE},   /* the defaults */
    {64, 1, 1, PETSC_TRUE},  {64, 3, 2, PETSC_FALSE}, {128, 31, 8, PETSC_TRUE}, {256, 8, 4, PETSC_TRUE},
    {256, 1, 1, PETSC_FALSE}, {512, 31, 8, PETSC_FALSE}, {512, 2, 3, PETSC_TRUE},
  };
  for (const Host &A : mats)
    for (const SegSumOptions &o : cfg) PetscCall(Run(A, o));
  PetscCall(Misaligned(mats[0]));
  std::printf("%s: %d failures\n", g_fail ? "FAILED" : "all passed", g_fail);
  PetscCall(PetscFinalize());
  return g_fail ? 1 : 0;
}
