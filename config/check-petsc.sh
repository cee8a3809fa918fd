#!/usr/bin/env bash
# Is PETSC_DIR (and PETSC_ARCH) a PETSc that petsc-spmv can build against?
#
#   config/check-petsc.sh PETSC_DIR [PETSC_ARCH]
#
# Reads petscversion.h, petscconf.h and the library folder only (nothing is compiled). On success prints
#   VERSION=X.Y.Z RELEASE=0|1 LAYOUT=prefix|inplace SCALAR=real|complex
# and exits 0; otherwise prints ONE message naming the problem and how to fix it, and exits 1.
# Supported: PETSc 3.26.x (the plugin uses PETSc's private AIJ headers, whose layout changes between minor
# versions), configured with CUDA, shared libraries, double precision with real or complex scalars.
set -u
SUPPORTED="3.26"                      # MAJOR.MINOR, space separated
D=${1:-}; A=${2:-}
die() { echo "petsc-spmv: $*" >&2; exit 1; }
[ -n "$D" ] || die "no PETSC_DIR given"
D=${D%/}
what="PETSC_DIR=$D${A:+ PETSC_ARCH=$A}"
[ -f "$D/include/petscversion.h" ] ||
  die "$what is not a PETSc: no include/petscversion.h there. Set PETSC_DIR to a PETSc install prefix (the folder holding include/ and lib/) or to a configured PETSc source tree, and PETSC_ARCH to its build for an in-place build."

# prefix install: PETSC_DIR/include/petscconf.h; in-place build: PETSC_DIR/PETSC_ARCH/include/petscconf.h
if [ -n "$A" ] && [ -f "$D/$A/include/petscconf.h" ]; then
  LAYOUT=inplace; CONF=$D/$A/include/petscconf.h; LIBDIR=$D/$A/lib
elif [ -f "$D/include/petscconf.h" ]; then
  [ -z "$A" ] || die "$what: PETSC_DIR is an installed (prefix) PETSc, which has no PETSC_ARCH: unset PETSC_ARCH (or pass PETSC_ARCH=)."
  LAYOUT=prefix; CONF=$D/include/petscconf.h; LIBDIR=$D/lib
else
  archs=$(cd "$D" && ls -d */include/petscconf.h 2>/dev/null | sed 's,/include/petscconf.h,,' | tr '\n' ' ' | sed 's/ $//')
  if [ -n "$A" ]; then
    die "$what: PETSC_DIR is a PETSc source tree without a configured $A (no $A/include/petscconf.h).${archs:+ Configured builds there: $archs}"
  elif [ -n "$archs" ]; then
    die "$what is a PETSc source tree (in-place build): set PETSC_ARCH to one of its builds: $archs"
  else
    die "$what is a PETSc source tree that was never configured (no petscconf.h): configure and build it (see README), or point PETSC_DIR at an installed PETSc."
  fi
fi

def() { awk -v n="$1" '$1 == "#define" && $2 == n {print $3; exit}' "$2"; }
MAJ=$(def PETSC_VERSION_MAJOR "$D/include/petscversion.h"); MIN=$(def PETSC_VERSION_MINOR "$D/include/petscversion.h")
SUB=$(def PETSC_VERSION_SUBMINOR "$D/include/petscversion.h"); REL=$(def PETSC_VERSION_RELEASE "$D/include/petscversion.h")
[ -n "$MAJ" ] && [ -n "$MIN" ] && [ -n "$SUB" ] || die "$what: cannot read PETSC_VERSION_MAJOR/MINOR/SUBMINOR from include/petscversion.h: not a PETSc?"
VER=$MAJ.$MIN.$SUB
ok=; for s in $SUPPORTED; do [ "$MAJ.$MIN" = "$s" ] && ok=1; done
[ -n "$ok" ] || die "$what is PETSc $VER, which petsc-spmv does not support: it builds against PETSc $(echo $SUPPORTED | sed 's/\([0-9.]*\)/\1.x/g; s/ /, /g') (it uses PETSc's private AIJ headers, which change between minor versions)."

grep -q '^#define PETSC_HAVE_CUDA 1' "$CONF" ||
  die "$what (PETSc $VER) was configured without CUDA (no PETSC_HAVE_CUDA in $CONF): petsc-spmv needs a CUDA-enabled PETSc. Reconfigure PETSc with --with-cuda=1 (and --with-cuda-arch=<your GPU's compute capability, e.g. 90>)."
if [ ! -e "$LIBDIR/libpetsc.so" ] || ! grep -q '^#define PETSC_USE_SHARED_LIBRARIES 1' "$CONF"; then
  die "$what (PETSc $VER) is a static PETSc (no $LIBDIR/libpetsc.so): the plugin is a shared library that PETSc loads with -dll_append. Reconfigure PETSc with --with-shared-libraries=1."
fi
if ! grep -q '^#define PETSC_USE_REAL_DOUBLE 1' "$CONF"; then
  die "$what (PETSc $VER) does not have double-precision scalars: petsc-spmv supports PETSc with --with-precision=double (the default), real or complex scalars (--with-scalar-type=real or complex). Single precision is not supported: the fp32 values of -pc_poly_precision single are the single-precision path. Reconfigure PETSc with --with-precision=double."
fi
SCALAR=real; grep -q '^#define PETSC_USE_COMPLEX 1' "$CONF" && SCALAR=complex
[ -f "$D/lib/petsc/conf/variables" ] ||
  die "$what (PETSc $VER): no lib/petsc/conf/variables, which the makefile includes: an incomplete PETSc install?"
echo "VERSION=$VER RELEASE=${REL:-1} LAYOUT=$LAYOUT SCALAR=$SCALAR"
