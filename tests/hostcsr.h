/* CSR test matrices for the formats' host unit tests (brc, argcsr, suraa, ccoo): a CSR held in vectors,
   random values (never trivial), builders from row lists and random columns, the same pattern with new values. */
#pragma once
#include <petscsys.h>
#include "../src/mat/impls/spmv/spmvformat.h"
#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

using Rng = std::mt19937_64;

/* A CSR matrix that owns its arrays; View() gives the raw-pointer form the BRC code takes */
struct Csr {
  PetscInt                 m = 0, n = 0;
  std::vector<PetscInt>    i{0}, j;
  std::vector<PetscScalar> a;

  PetscInt    Len(PetscInt r) const { return i[r + 1] - i[r]; }
  PetscInt    Nnz() const { return (PetscInt)j.size(); }
  SpMVHostCsr View() const
  {
    SpMVHostCsr A;
    A.m   = m;
    A.n   = n;
    A.nnz = Nnz();
    A.i   = i.data();
    A.j   = j.data();
    A.a   = a.data();
    return A;
  }
};

/* A non-trivial nonzero value: magnitude in [0.25, 4), random sign */
inline PetscScalar RandomValue(Rng &rng)
{
  std::uniform_real_distribution<double> mag(0.25, 4.0);
  return (rng() & 1 ? -1.0 : 1.0) * mag(rng);
}

inline std::vector<PetscScalar> RandomVector(Rng &rng, PetscInt n)
{
  std::vector<PetscScalar> v(n);
  for (auto &e : v) e = RandomValue(rng);
  return v;
}

/* uniform in [lo, hi] */
inline PetscInt Uniform(Rng &rng, PetscInt lo, PetscInt hi) { return std::uniform_int_distribution<PetscInt>(lo, hi)(rng); }

/* From explicit (column, value) lists, one per row */
inline Csr CsrFromEntries(PetscInt n, const std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> &rows)
{
  Csr A;
  A.m = (PetscInt)rows.size();
  A.n = n;
  for (const auto &row : rows) {
    for (const auto &[c, v] : row) {
      A.j.push_back(c);
      A.a.push_back(v);
    }
    A.i.push_back(A.Nnz());
  }
  return A;
}

/* From column lists, one per row, with random values */
inline Csr CsrFromRows(PetscInt n, const std::vector<std::vector<PetscInt>> &rows, Rng &rng)
{
  std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> e(rows.size());
  for (std::size_t r = 0; r < rows.size(); r++)
    for (PetscInt c : rows[r]) e[r].push_back({c, RandomValue(rng)});
  return CsrFromEntries(n, e);
}

/* len distinct columns of [0, n), sorted (or in random order) */
inline std::vector<PetscInt> RandomColumns(Rng &rng, PetscInt n, PetscInt len, bool sorted = true)
{
  len = std::min(len, n);
  std::vector<PetscInt> c;
  if (2 * len > n) { /* dense: partial Fisher-Yates */
    c.resize(n);
    std::iota(c.begin(), c.end(), 0);
    for (PetscInt k = 0; k < len; k++) std::swap(c[k], c[Uniform(rng, k, n - 1)]);
    c.resize(len);
  } else { /* sparse: rejection, no O(n) work per row */
    std::set<PetscInt> taken;
    while ((PetscInt)c.size() < len) {
      const PetscInt v = Uniform(rng, 0, n - 1);
      if (taken.insert(v).second) c.push_back(v);
    }
  }
  if (sorted) std::sort(c.begin(), c.end());
  return c;
}

/* m x n with row r holding len(r) random columns (clamped to n), random values */
template <typename LenFn>
inline Csr RandomCsr(Rng &rng, PetscInt m, PetscInt n, LenFn len, bool sorted = true)
{
  std::vector<std::vector<PetscInt>> rows(m);
  for (PetscInt r = 0; r < m; r++) rows[r] = RandomColumns(rng, n, len(r), sorted);
  return CsrFromRows(n, rows, rng);
}

/* A named test matrix */
struct TestMatrix {
  std::string name;
  Csr         A;
};

/* Same pattern, new random values */
inline Csr WithNewValues(const Csr &A, Rng &rng)
{
  Csr B = A;
  for (auto &v : B.a) v = RandomValue(rng);
  return B;
}

/* The value sample's k-th position, written out from its documentation (ccoo.h, CCOOSamplePos): the nnz
   positions cut into ns strata [k nnz / ns, (k+1) nnz / ns); in stratum k the position splitmix64(k) modulo
   the stratum's length (splitmix64: the state k advanced by the golden gamma, then its finalizer) */
inline int64_t JitteredPos(int64_t k, int64_t nnz, int64_t ns)
{
  const int64_t lo = k * nnz / ns, hi = (k + 1) * nnz / ns;
  uint64_t z = (uint64_t)k + 0x9e3779b97f4a7c15ULL;
  z          = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z          = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z          = z ^ (z >> 31);
  return hi - lo > 1 ? lo + (int64_t)(z % (uint64_t)(hi - lo)) : lo;
}
