#!/usr/bin/env bash
# Dependencies of petsc-spmv: a CUDA-enabled, shared-library PETSc 3.26.x and the private headers it needs.
#
#   config/petsc.sh            prints PETSC_DIR=... PETSC_ARCH=... NVMLSTUB=... PETSC_PRIVATE_INC=... (the makefile's build/petsc.mk)
#
# Your own PETSc: set PETSC_DIR (and PETSC_ARCH for an in-place build). It is checked (config/check-petsc.sh:
# version, CUDA, shared libraries) and used as is; nothing is built, nothing is installed with apt.
# Otherwise (the self-contained route: make run, make test, CI) Debian's MPICH + LAPACK/BLAS are installed
# and PETSc 3.26.1 with CUDA (sm_90) is built once and INSTALLED into a prefix, the way users install it:
#   $CACHE/petsc-3.26.1-prefix     (CACHE = PETSC_SPMV_CACHE, default ${XDG_CACHE_HOME:-~/.cache}/petsc-spmv)
# The build tree is removed after `make install`, so the plugin goes the users' way below.
# PETSC_SPMV_SCALAR=complex builds the same PETSc with --with-scalar-type=complex into its own prefix,
#   $CACHE/petsc-3.26.1-complex-prefix, so the real and the complex PETSc coexist (default: real);
#   PETSC_SPMV_INDICES=64 with --with-64-bit-indices into $CACHE/petsc-3.26.1-int64-prefix (default: 32-bit PetscInt).
#
# Private headers: the plugin includes PETSc's src/ headers as <../src/mat/impls/aij/...>, i.e. relative to an
# include directory. An in-place build has them (PETSC_DIR/include/../src). A prefix install ships include/
# but not src/: then every header of src/ (*.h *.hpp *.cuh) is taken from the PETSc sdist of exactly the
# installed version (petscversion.h) into $CACHE/petsc-headers-X.Y.Z/src, and -I$CACHE/petsc-headers-X.Y.Z/include-stub
# (an empty folder) is added after PETSc's own include flags, so <../src/...> resolves there. Never a second PETSc build.
# (ex19.c comes along, for `make run` against a prefix installed without its examples.)
set -euo pipefail
VER=3.26.1
# sha256 of PyPI's petsc-X.Y.Z.tar.gz sdists checked here; for other versions the hash PyPI publishes with the
# file is checked and recorded in $CACHE/petsc-X.Y.Z.tar.gz.sha256
declare -A KNOWN_SHA=([3.26.1]=a4dc46c1b4403545ac2274741ce10801366c4a9a7b2683b678d18f6663b93496)
CACHE=${PETSC_SPMV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/petsc-spmv}
CUDA=${CUDA_HOME:-/usr/local/cuda}
HERE=$(cd "$(dirname "$0")" && pwd)
log() { echo "[config] $*" >&2; }
die() { echo "petsc-spmv: $*" >&2; exit 1; }

# sdist V: path of PETSc's source tarball of version V in the cache (downloaded and checked once)
sdist() {
  local v=$1 tgz=$CACHE/petsc-$1.tar.gz sha url
  mkdir -p "$CACHE"
  sha=${KNOWN_SHA[$v]:-$(cat "$tgz.sha256" 2>/dev/null || true)}
  if [ -n "$sha" ] && echo "$sha  $tgz" | sha256sum -c --status 2>/dev/null; then echo "$tgz"; return; fi
  url=$(curl -fsSL https://pypi.org/simple/petsc/ | grep -oE "https://[^\"]*/petsc-$v\.tar\.gz#sha256=[0-9a-f]{64}" | head -1) ||
    die "PETSc $v: no sdist petsc-$v.tar.gz on PyPI (or PyPI not reachable)"
  [ -n "$sha" ] || sha=${url##*#sha256=}
  log "downloading ${url%%#*}"
  curl -fsSL -o "$tgz.part" "${url%%#*}"
  echo "$sha  $tgz.part" | sha256sum -c --status || { rm -f "$tgz.part"; die "checksum mismatch for petsc-$v.tar.gz (expected $sha)"; }
  mv "$tgz.part" "$tgz"
  [ -n "${KNOWN_SHA[$v]:-}" ] || { echo "$sha" > "$tgz.sha256"; log "petsc-$v.tar.gz: sha256 $sha (PyPI's), recorded in $tgz.sha256"; }
  echo "$tgz"
}

# private_inc DIR ARCH: the -I that makes <../src/...> resolve; empty where PETSC_DIR/include/../src has them
private_inc() {
  local d=$1 v hd tgz tmp
  [ -f "$d/src/mat/impls/aij/seq/aij.h" ] && return 0
  eval "$(bash "$HERE/check-petsc.sh" "$d" "$2" | sed 's/ /; /g')"   # VERSION RELEASE LAYOUT
  v=$VERSION; hd=$CACHE/petsc-headers-$v
  if [ ! -f "$hd/.complete-2" ]; then
    [ "$RELEASE" = 1 ] || die "PETSC_DIR=$d is a development PETSc ($v, PETSC_VERSION_RELEASE 0) installed without its src/ tree: its private headers are in no release tarball. Build the plugin against the in-place build of that source tree instead (PETSC_DIR=<source> PETSC_ARCH=<arch>)."
    tgz=$(sdist "$v")
    log "PETSc $v at $d has no src/ (a prefix install): taking its private headers from petsc-$v.tar.gz into $hd"
    tmp=$hd.tmp.$$; rm -rf "$tmp"; mkdir -p "$tmp/include-stub"
    tar -tzf "$tgz" | grep -E "^petsc-$v/(src/.*\.(h|hpp|cuh)|src/snes/tutorials/ex19\.c|include/petscversion\.h)\$" > "$tmp.list"
    tar -C "$tmp" --strip-components=1 -xzf "$tgz" -T "$tmp.list"; rm -f "$tmp.list"
    # the sdist must be the installed version (a patched or mislabelled PETSc would give wrong struct layouts)
    cmp -s "$tmp/include/petscversion.h" "$d/include/petscversion.h" ||
      log "warning: petscversion.h of petsc-$v.tar.gz differs from $d/include/petscversion.h"
    touch "$tmp/.complete-2"; rm -rf "$hd"; mv "$tmp" "$hd"
  fi
  echo "-I$hd/include-stub"
}

# ---- NVML: header from PyPI, link stub generated from it ---------------------------------------
# PETSc links libnvidia-ml.so.1; on a GPU machine the driver provides it. We make a stub whose every
# nvml* entry point returns NVML_ERROR_UNKNOWN. Link name and run-time name live apart: PETSc puts the
# link directory into libpetsc's RUNPATH, so it must not hold libnvidia-ml.so.1 (that would shadow the
# real driver library); the run-time copy is only put on LD_LIBRARY_PATH where no driver exists
# (RUNENV in the makefile).
nvml_stub() {
  STUB=$CACHE/nvmlstub
  [ -f "$STUB/runtime/libnvidia-ml.so.1" ] && return 0
  log "making the NVML header and link stub in $STUB"
  rm -rf "$STUB" && mkdir -p "$STUB/include" "$STUB/stubs" "$STUB/runtime" "$STUB/wheel"
  python3 -m pip download -q --no-deps "nvidia-nvml-dev==13.0.87" -d "$STUB/wheel" >&2
  (cd "$STUB/wheel" && python3 -m zipfile -e ./*.whl .)
  cp "$STUB"/wheel/nvidia/cu13/include/nvml.h "$STUB/include/"
  # names after the header's versioning macros (nvmlInit -> nvmlInit_v2, ...)
  echo '#include <nvml.h>' | gcc -E -I"$STUB/include" - |
    grep -oE '\bnvml[A-Za-z0-9_]+[[:space:]]*\(' | tr -d ' (' | sort -u |
    awk '{printf "int %s(void) { return 999; }\n", $1}' > "$STUB/stub.c"
  gcc -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o "$STUB/runtime/libnvidia-ml.so.1" "$STUB/stub.c"
  cp "$STUB/runtime/libnvidia-ml.so.1" "$STUB/stubs/libnvidia-ml.so"
}

# ---- the user's PETSc -------------------------------------------------------------------------
if [ -n "${PETSC_DIR:-}" ]; then
  ARCH=${PETSC_ARCH:-}
  bash "$HERE/check-petsc.sh" "$PETSC_DIR" "$ARCH" > /dev/null || exit 1
  INC=$(private_inc "$PETSC_DIR" "$ARCH")
  nvml_stub
  echo "PETSC_DIR=${PETSC_DIR%/} PETSC_ARCH=$ARCH NVMLSTUB=$STUB/runtime PETSC_PRIVATE_INC=$INC"
  exit 0
fi

# ---- Debian packages --------------------------------------------------------------------------
need=()
for p in mpich libmpich-dev liblapack-dev libblas-dev; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  log "installing ${need[*]}"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi
nvml_stub

# ---- PETSc, built once and installed into a prefix --------------------------------------------
SCALAR=${PETSC_SPMV_SCALAR:-real}
case $SCALAR in
  real) SFX=; SCALARFLAGS=;;
  complex) SFX=-complex; SCALARFLAGS=--with-scalar-type=complex;;
  *) die "PETSC_SPMV_SCALAR=$SCALAR: the self-built PETSc is real (default) or complex";;
esac
INDICES=${PETSC_SPMV_INDICES:-32}
case $INDICES in
  32) ;;
  64) SFX=$SFX-int64; SCALARFLAGS="$SCALARFLAGS --with-64-bit-indices";;
  *) die "PETSC_SPMV_INDICES=$INDICES: the self-built PETSc has 32-bit (default) or 64-bit PetscInt";;
esac
PREFIX=$CACHE/petsc-$VER$SFX-prefix
ARCH=arch-spmv-cuda$SFX
if [ ! -f "$PREFIX/lib/petsc/conf/spmv-built" ]; then
  TGZ=$(sdist $VER)
  SRC=$CACHE/petsc-$VER$SFX-build
  rm -rf "$SRC" "$PREFIX" && mkdir -p "$SRC"
  tar -C "$SRC" --strip-components=1 -xzf "$TGZ"
  cd "$SRC"
  log "configuring PETSc $VER in $SRC/$ARCH, to be installed into $PREFIX (about 8 minutes with the build)"
  python3 ./configure PETSC_ARCH=$ARCH --prefix="$PREFIX" \
    --with-cc=mpicc --with-cxx=mpicxx --with-fc=0 --with-x=0 \
    --with-debugging=0 --with-shared-libraries=1 $SCALARFLAGS \
    COPTFLAGS=-O2 CXXOPTFLAGS=-O2 CUDAOPTFLAGS=-O2 \
    --with-blaslapack-lib="[-llapack,-lblas]" \
    --with-cuda=1 --with-cudac="$CUDA/bin/nvcc" --with-cuda-arch=90 \
    --with-cuda-include="[$CUDA/include,$CUDA/include/cccl,$STUB/include]" \
    --with-cuda-lib="[-L$CUDA/lib64,-lcudart,-lcufft,-lcublas,-lcusparse,-lcusolver,-lcurand,-lnvtx3interop,-L$CUDA/lib64/stubs,-lcuda,-L$STUB/stubs,-lnvidia-ml]" \
    >&2
  make PETSC_DIR="$SRC" PETSC_ARCH=$ARCH -j"$(nproc)" all >&2
  make PETSC_DIR="$SRC" PETSC_ARCH=$ARCH install >&2
  cp "$SRC/$ARCH/lib/petsc/conf/configure.log" "$PREFIX/lib/petsc/conf/configure.log"
  cd "$CACHE" && rm -rf "$SRC"
  touch "$PREFIX/lib/petsc/conf/spmv-built"
fi
bash "$HERE/check-petsc.sh" "$PREFIX" "" > /dev/null || exit 1
INC=$(private_inc "$PREFIX" "")
echo "PETSC_DIR=$PREFIX PETSC_ARCH= NVMLSTUB=$STUB/runtime PETSC_PRIVATE_INC=$INC"
