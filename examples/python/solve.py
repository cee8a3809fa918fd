#!/usr/bin/env python3
"""petsc-spmv from Python: a 2D convection-diffusion matrix (nonsymmetric) built with SciPy as CSR arrays, solved
with GMRES and the plugin's polynomial preconditioner (-pc_type poly), once with AIJ, once with aijcusparse where
there is a GPU, and once with each plugin type given by -mat_type. Prints iterations and solve times, and how far
each solution is from AIJ's.

  make petsc4py                                   # once: petsc4py of the same PETSc, in a cached venv
  build/python examples/python/solve.py -mat_type brc
  python examples/python/solve.py -mat_type brc   # in a venv where petsc-spmv is pip-installed (petsc_spmv.init)
  build/python examples/python/solve.py -mat_type brc,ccoo -grid 300 -pc_poly_degree 10 -ksp_monitor

Own options: -mat_type T[,T...] (plugin types; default brc), -grid N (N x N interior points, default 100), -lib PATH
(libpetscspmv.so, loaded with -dll_append; default: $PETSC_SPMV_LIB; else, where the Python package petsc-spmv is
installed, petsc_spmv.init() sets PETSc up with its library; else build/lib/ of this checkout), -check TOL (exit 1 unless every
solve converged and every solution is within TOL of AIJ's). Every other argument goes to PETSc.
Without an NVIDIA driver, the NVML stub must be on LD_LIBRARY_PATH (`make` prints the line).
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp
import petsc4py

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                             allow_abbrev=False)
ap.add_argument('-mat_type', default='brc')
ap.add_argument('-grid', type=int, default=100)
ap.add_argument('-lib', default=os.environ.get('PETSC_SPMV_LIB'))
ap.add_argument('-check', type=float, default=None)
args, petsc_args = ap.parse_known_args()

# The plugin is loaded by PetscInitialize through the options database (-dll_append), exactly as for a C
# program: petsc4py.init() must see it before `from petsc4py import PETSc` initializes PETSc.
# (Equivalent: PETSC_OPTIONS="-dll_append /path/libpetscspmv.so" in the environment.) The pip-installed package
# does the same in petsc_spmv.init(argv), with its own library and a check of the PETSc version.
petsc_spmv = None
if args.lib is None:
    try:
        import petsc_spmv
    except ImportError:
        args.lib = os.path.join(here, '..', '..', 'build', 'lib', 'libpetscspmv.so')
if petsc_spmv is not None:
    lib = petsc_spmv.get_library() + ' (petsc_spmv.init)'
    PETSc = petsc_spmv.init([sys.argv[0]] + petsc_args)
else:
    lib = os.path.abspath(args.lib)
    if not os.path.exists(lib):
        sys.exit(f'solve.py: no plugin library {lib} (build it with make, or give -lib PATH)')
    petsc4py.init([sys.argv[0], '-dll_append', lib] + petsc_args)
    from petsc4py import PETSc  # noqa: E402


def convection_diffusion(n, beta=(40.0, 20.0)):
    """-laplace(u) + beta . grad(u) on the unit square, n x n interior points, central differences, scaled by h^2:
    a nonsymmetric 5-point matrix (cell Peclet number beta*h/2 < 1)."""
    h = 1.0 / (n + 1)
    e = np.ones(n)
    tri = lambda c: sp.diags([-(1 + c) * e[1:], 2 * e, -(1 - c) * e[1:]], [-1, 0, 1])  # noqa: E731
    A = sp.kron(sp.identity(n), tri(beta[0] * h / 2)) + sp.kron(tri(beta[1] * h / 2), sp.identity(n))
    A = sp.csr_matrix(A)
    A.sort_indices()
    return A


def solve(mat_type, A, b):
    """Build a PETSc matrix of mat_type from the CSR arrays (-mat_type through the options database), solve."""
    opts = PETSc.Options()
    opts['mat_type'] = mat_type  # set before the Mat reads its options
    M = PETSc.Mat().create(comm=PETSc.COMM_SELF)
    M.setSizes(A.shape)
    M.setFromOptions()
    M.setPreallocationCSR((A.indptr.astype(PETSc.IntType), A.indices.astype(PETSc.IntType), A.data))
    M.assemble()
    x, bb = M.createVecs()  # vectors of the matrix' own kind (CUDA vectors for GPU types on a GPU)
    bb.array = b
    ksp = PETSc.KSP().create(comm=PETSc.COMM_SELF)
    ksp.setOperators(M)
    ksp.setType('gmres')
    ksp.getPC().setType('poly')
    ksp.setTolerances(rtol=1e-12, max_it=5000)
    ksp.setFromOptions()  # -ksp_*, -pc_poly_* from the command line win
    ksp.setUp()
    t0 = time.perf_counter()
    ksp.solve(bb, x)
    t = time.perf_counter() - t0
    its, reason, actual = ksp.getIterationNumber(), ksp.getConvergedReason(), M.getType()
    sol = x.array.copy()
    for o in (ksp, M, x, bb):
        o.destroy()
    del opts['mat_type']
    return actual, its, reason, t, sol


gpu = shutil.which('nvidia-smi') is not None and subprocess.run(['nvidia-smi', '-L'], capture_output=True).returncode == 0
A = convection_diffusion(args.grid)
rng = np.random.default_rng(1)
b = A @ rng.uniform(-1, 1, A.shape[0])
print(f'2D convection-diffusion {args.grid}x{args.grid}: {A.shape[0]} unknowns, {A.nnz} nonzeros; GMRES + poly, rtol 1e-12; '
      f'plugin {lib}; {"GPU" if gpu else "no GPU: the plugin types run their host reference"}')
types = ['aij'] + (['aijcusparse'] if gpu else []) + [t for t in args.mat_type.split(',') if t]
ref, ok = None, True
print(f'{"-mat_type":<13} {"matrix":<16} {"iterations":>10} {"solve [s]":>10} {"rel. diff to aij":>17}  converged')
for t in types:
    actual, its, reason, sec, sol = solve(t, A, b)
    if ref is None:
        ref = sol
    diff = np.linalg.norm(sol - ref) / np.linalg.norm(ref)
    conv = reason > 0
    ok = ok and conv and (args.check is None or diff <= args.check)
    print(f'{t:<13} {actual:<16} {its:>10} {sec:>10.4f} {diff:>17.3e}  {"yes" if conv else f"no ({reason})"}')
if args.check is not None:
    print('check:', 'every solve converged, solutions within %g of aij' % args.check if ok else 'FAILED')
    sys.exit(0 if ok else 1)
