/*
   Device helpers over the value type of the kernels: double and float (real PETSc), thrust::complex<double> and
   thrust::complex<float> (complex PETSc; PetscScalar and SpMVSingleScalar of spmvformat.h). The kernels are
   templates over the value type and call these instead of the intrinsics, which exist for the real types only:

     Ldg(p), Ldcs(p)            the read-only / streaming loads; a complex value is one 8- or 16-byte load (float2,
                                double2: thrust::complex<T> is aligned as T[2])
     ShflDown/ShflXor/Shfl/ShflUp(v, ...)   warp shuffles; a complex value shuffles both parts
     AtomicAdd(p, v)            y[r] += v; a complex value adds its parts with two atomics (each part is one sum,
                                so the result is the same as two real atomics: as deterministic as in real)
     Widen(v)                   the stored value as the accumulation's (fp32 -> fp64, exact)
     AddRn(a, b), MulRn(a, b)   __dadd_rn, __dmul_rn (complex: per part, no contraction)
     Fma(a, b, c)               a * b + c with fmas (complex: two per part in a fixed order, as SpMVFma on the host)

   For double and float they are exactly the intrinsics they replace: the real build's code is unchanged.
*/
#pragma once
#include <petscsys.h>
#include <cuda_runtime.h>
#include <library_types.h>
#include <type_traits>
#if defined(PETSC_USE_COMPLEX)
  #include <thrust/complex.h>
#endif

namespace spmv
{
template <typename T>
struct IsComplex : std::false_type { };
#if defined(PETSC_USE_COMPLEX)
template <typename R>
struct IsComplex<thrust::complex<R>> : std::true_type { };
#endif
template <typename T>
inline constexpr bool kIsComplex = IsComplex<T>::value;

/* PetscScalar's data type for cuSPARSE */
#if defined(PETSC_USE_COMPLEX)
constexpr cudaDataType kCudaScalar = CUDA_C_64F;
#else
constexpr cudaDataType kCudaScalar = CUDA_R_64F;
#endif

/* the 8/16-byte vector type of a complex<R>: float2, double2 */
template <typename R>
struct Pair;
template <>
struct Pair<float> {
  using type = float2;
};
template <>
struct Pair<double> {
  using type = double2;
};

template <typename T>
__device__ __forceinline__ T Ldg(const T *p)
{
  if constexpr (kIsComplex<T>) {
    using R        = typename T::value_type;
    const auto v   = __ldg(reinterpret_cast<const typename Pair<R>::type *>(p));
    return T(v.x, v.y);
  } else return __ldg(p);
}

template <typename T>
__device__ __forceinline__ T Ldcs(const T *p)
{
  if constexpr (kIsComplex<T>) {
    using R        = typename T::value_type;
    const auto v   = __ldcs(reinterpret_cast<const typename Pair<R>::type *>(p));
    return T(v.x, v.y);
  } else return __ldcs(p);
}

template <typename T>
__device__ __forceinline__ T ShflDown(unsigned mask, T v, unsigned d, int w = 32)
{
  if constexpr (kIsComplex<T>) return T(__shfl_down_sync(mask, v.real(), d, w), __shfl_down_sync(mask, v.imag(), d, w));
  else return __shfl_down_sync(mask, v, d, w);
}

template <typename T>
__device__ __forceinline__ T ShflUp(unsigned mask, T v, unsigned d, int w = 32)
{
  if constexpr (kIsComplex<T>) return T(__shfl_up_sync(mask, v.real(), d, w), __shfl_up_sync(mask, v.imag(), d, w));
  else return __shfl_up_sync(mask, v, d, w);
}

template <typename T>
__device__ __forceinline__ T ShflXor(unsigned mask, T v, int o, int w = 32)
{
  if constexpr (kIsComplex<T>) return T(__shfl_xor_sync(mask, v.real(), o, w), __shfl_xor_sync(mask, v.imag(), o, w));
  else return __shfl_xor_sync(mask, v, o, w);
}

template <typename T>
__device__ __forceinline__ T Shfl(unsigned mask, T v, int src, int w = 32)
{
  if constexpr (kIsComplex<T>) return T(__shfl_sync(mask, v.real(), src, w), __shfl_sync(mask, v.imag(), src, w));
  else return __shfl_sync(mask, v, src, w);
}

template <typename T>
__device__ __forceinline__ void AtomicAdd(T *p, T v)
{
  if constexpr (kIsComplex<T>) {
    using R = typename T::value_type;
    atomicAdd(reinterpret_cast<R *>(p), v.real());
    atomicAdd(reinterpret_cast<R *>(p) + 1, v.imag());
  } else atomicAdd(p, v);
}

/* the stored value V as the accumulation's type S (fp32 -> fp64 exactly; complex<float> -> complex<double>) */
template <typename S, typename V>
__device__ __forceinline__ S Widen(V v)
{
  if constexpr (kIsComplex<S>) return S((typename S::value_type)v.real(), (typename S::value_type)v.imag());
  else return (S)v;
}

template <typename T>
__device__ __forceinline__ T Fma(T a, T b, T c)
{
  if constexpr (kIsComplex<T>) return T(fma(a.real(), b.real(), fma(-a.imag(), b.imag(), c.real())), fma(a.real(), b.imag(), fma(a.imag(), b.real(), c.imag())));
  else return fma(a, b, c);
}

/* rounded sum and product without contraction (__dadd_rn, __dmul_rn): complex parts (a+bi)(c+di) = (ac - bd, ad + bc),
   the order of a product of std::complex values compiled without fma contraction (the host references) */
template <typename T>
__device__ __forceinline__ T AddRn(T a, T b)
{
  if constexpr (kIsComplex<T>) return T(__dadd_rn(a.real(), b.real()), __dadd_rn(a.imag(), b.imag()));
  else return __dadd_rn(a, b);
}
template <typename T>
__device__ __forceinline__ T MulRn(T a, T b)
{
  if constexpr (kIsComplex<T>) return T(__dsub_rn(__dmul_rn(a.real(), b.real()), __dmul_rn(a.imag(), b.imag())), __dadd_rn(__dmul_rn(a.real(), b.imag()), __dmul_rn(a.imag(), b.real())));
  else return __dmul_rn(a, b);
}

/* the real part (the value itself for real types) */
template <typename T>
__device__ __forceinline__ auto RealPart(T v)
{
  if constexpr (kIsComplex<T>) return v.real();
  else return v;
}

/* a value that is zero (both parts) */
template <typename T>
__device__ __forceinline__ bool IsZero(T v)
{
  if constexpr (kIsComplex<T>) return v.real() == 0 && v.imag() == 0;
  else return v == 0;
}
} // namespace spmv
