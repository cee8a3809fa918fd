"""petsc-spmv: GPU sparse matrix formats as PETSc matrix types (brc, ccoo, segsum, suraa, argcsr, spmv, ...) and
the polynomial preconditioner PCPOLY, as a plugin library that PETSc loads at start.

    import sys, petsc_spmv
    petsc_spmv.init(sys.argv)          # in place of petsc4py.init(sys.argv): PETSc starts with the plugin loaded
    from petsc4py import PETSc
    A = PETSc.Mat().create(); A.setSizes(n); A.setType('brc')   # or -mat_type brc with A.setFromOptions()

get_library() is the plugin's path (for -dll_append or PETSC_OPTIONS in programs of other languages),
get_include() and get_pkgconfig_dir() are for C programs that link it. PETSC_DIR, PETSC_ARCH and PETSC_VERSION
name the PETSc the library was built against (petsc_spmv/_build.py, written by the build backend).
"""
import os
import sys

from ._build import PETSC_ARCH, PETSC_DIR, PETSC_FOUND_BY, PETSC_VERSION, VERSION

__version__ = VERSION
__all__ = ['init', 'get_library', 'get_include', 'get_pkgconfig_dir', 'get_config',
           'PETSC_DIR', 'PETSC_ARCH', 'PETSC_VERSION']
_here = os.path.dirname(os.path.abspath(__file__))


def get_library():
    """Path of libpetscspmv.so."""
    return os.path.join(_here, 'lib', 'libpetscspmv.so')


def get_include():
    """Folder of petscspmv.h."""
    return os.path.join(_here, 'include')


def get_pkgconfig_dir():
    """Folder of petsc-spmv.pc (add it, and PETSc's lib/pkgconfig, to PKG_CONFIG_PATH)."""
    return os.path.join(_here, 'lib', 'pkgconfig')


def get_config():
    """What this petsc-spmv was built against."""
    return {'VERSION': VERSION, 'PETSC_DIR': PETSC_DIR, 'PETSC_ARCH': PETSC_ARCH, 'PETSC_VERSION': PETSC_VERSION,
            'PETSC_FOUND_BY': PETSC_FOUND_BY, 'library': get_library()}


def _version_of(petsc_dir, petsc_arch=''):
    """X.Y.Z from a PETSc's petscversion.h, or None."""
    v = {}
    for d in (os.path.join(petsc_dir, 'include'), os.path.join(petsc_dir, petsc_arch or '', 'include')):
        try:
            with open(os.path.join(d, 'petscversion.h')) as f:
                for line in f:
                    w = line.split()
                    if len(w) >= 3 and w[0] == '#define' and w[1] in ('PETSC_VERSION_MAJOR', 'PETSC_VERSION_MINOR',
                                                                     'PETSC_VERSION_SUBMINOR'):
                        v[w[1]] = w[2]
            return '%s.%s.%s' % (v['PETSC_VERSION_MAJOR'], v['PETSC_VERSION_MINOR'], v['PETSC_VERSION_SUBMINOR'])
        except (OSError, KeyError):
            continue
    return None


def _mismatch(running, where):
    built = sys.modules[__name__].PETSC_VERSION
    if running != built:
        raise RuntimeError(
            'petsc_spmv: this petsc-spmv %s was built against PETSc %s (PETSC_DIR=%s), but petsc4py runs PETSc %s (%s). '
            'The plugin uses PETSc\'s private headers and must be built against the same PETSc version: reinstall it in '
            'this environment (pip install --force-reinstall --no-cache-dir petsc-spmv, with that PETSc as PETSC_DIR or '
            'PyPI\'s petsc of that version installed).' % (VERSION, built, PETSC_DIR, running, where))


def init(args=None, comm=None):
    """Initialize petsc4py (PETSc) with the plugin loaded and its types registered; returns petsc4py.PETSc.

    args: the command line (e.g. sys.argv) or a string of options, as for petsc4py.init; comm: PETSc's world
    communicator (petsc4py.init's comm). Call it before `from petsc4py import PETSc` (as slepc4py.init): PETSc
    then loads the plugin with -dll_append, as any PETSc program would. If PETSc is already initialized the
    library is loaded and its types registered (PetscSpMVInitializePackage) in the running PETSc; args are
    ignored then. Either way the PETSc version is checked against the one the plugin was built against.
    """
    try:
        import petsc4py
    except ImportError:
        raise ImportError('petsc_spmv.init needs petsc4py %s: pip install petsc4py==%s (against the same PETSc)'
                          % (PETSC_VERSION, PETSC_VERSION)) from None
    lib = get_library()
    if not os.path.isfile(lib):
        raise ImportError('petsc_spmv: no plugin library at %s (a broken installation?)' % lib)
    PETSc = sys.modules.get('petsc4py.PETSc')
    if PETSc is None:
        # before PETSc is loaded: the version of the PETSc petsc4py was built against (a plugin of another
        # version must not even be loaded: two libpetsc would end up in one process)
        cfg = petsc4py.get_config()
        running = _version_of(cfg.get('PETSC_DIR', ''), cfg.get('PETSC_ARCH', '')) or petsc4py.__version__
        _mismatch(running, 'petsc4py %s, PETSC_DIR=%s' % (petsc4py.__version__, cfg.get('PETSC_DIR')))
        from petsc4py.lib import getInitArgs
        petsc4py.init(getInitArgs(args) + ['-dll_append', lib], comm=comm)
        from petsc4py import PETSc
    else:
        _mismatch('%d.%d.%d' % PETSc.Sys.getVersion(), 'petsc4py already initialized')
        import ctypes
        ierr = ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL).PetscSpMVInitializePackage()
        if ierr:
            raise RuntimeError('petsc_spmv: PetscSpMVInitializePackage() failed (PETSc error %d)' % ierr)
    _mismatch('%d.%d.%d' % PETSc.Sys.getVersion(), 'the running PETSc')
    return PETSc
