#!/usr/bin/env bash
# Dependencies of petsc-spmv: Debian MPICH + LAPACK/BLAS and PETSc 3.26.1 with CUDA (sm_90).
#
#   config/petsc.sh            install what is missing, then print PETSC_DIR=... PETSC_ARCH=... NVMLSTUB=...
#
# A user's own PETSC_DIR (and PETSC_ARCH) is honoured as is: nothing is built then.
# Otherwise PETSc is built once, in place, into a cache outside the checkout
# (PETSC_SPMV_CACHE, default ${XDG_CACHE_HOME:-~/.cache}/petsc-spmv) and reused after that.
# The plugin reads PETSc's private headers (src/mat/impls/aij/...), so it needs an in-place build.
set -euo pipefail
VER=3.26.1
SHA=a4dc46c1b4403545ac2274741ce10801366c4a9a7b2683b678d18f6663b93496
CACHE=${PETSC_SPMV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/petsc-spmv}
CUDA=${CUDA_HOME:-/usr/local/cuda}
log() { echo "[config] $*" >&2; }

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

# ---- NVML: header from PyPI, link stub generated from it ---------------------------------------
# PETSc links libnvidia-ml.so.1; on a GPU machine the driver provides it. We make a stub whose every
# nvml* entry point returns NVML_ERROR_UNKNOWN. Link name and run-time name live apart: PETSc puts the
# link directory into libpetsc's RUNPATH, so it must not hold libnvidia-ml.so.1 (that would shadow the
# real driver library); the run-time copy is only put on LD_LIBRARY_PATH where no driver exists
# (config/env.sh).
STUB=$CACHE/nvmlstub
if [ ! -f "$STUB/runtime/libnvidia-ml.so.1" ]; then
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
fi

# ---- PETSc ------------------------------------------------------------------------------------
if [ -n "${PETSC_DIR:-}" ]; then
  ARCH=${PETSC_ARCH:-}
  [ -f "$PETSC_DIR/${ARCH:+$ARCH/}lib/libpetsc.so" ] || { log "PETSC_DIR=$PETSC_DIR PETSC_ARCH=$ARCH holds no lib/libpetsc.so"; exit 1; }
  echo "PETSC_DIR=$PETSC_DIR PETSC_ARCH=$ARCH NVMLSTUB=$STUB/runtime"
  exit 0
fi
DIR=$CACHE/petsc-$VER
ARCH=arch-spmv-cuda
if [ ! -f "$DIR/$ARCH/lib/petsc/conf/spmv-built" ]; then
  mkdir -p "$CACHE"
  TGZ=$CACHE/petsc-$VER.tar.gz
  if ! echo "$SHA  $TGZ" | sha256sum -c --status 2>/dev/null; then
    url=$(curl -fsSL https://pypi.org/simple/petsc/ | grep -oE "https://[^\"#]*/petsc-$VER\.tar\.gz" | head -1)
    log "downloading $url"
    curl -fsSL -o "$TGZ" "$url"
    echo "$SHA  $TGZ" | sha256sum -c --status || { log "checksum mismatch for $TGZ"; exit 1; }
  fi
  rm -rf "$DIR" && mkdir -p "$DIR"
  tar -C "$DIR" --strip-components=1 -xzf "$TGZ"
  cd "$DIR"
  log "configuring PETSc $VER in $DIR/$ARCH (about 7 minutes with the build)"
  python3 ./configure PETSC_ARCH=$ARCH \
    --with-cc=mpicc --with-cxx=mpicxx --with-fc=0 --with-x=0 \
    --with-debugging=0 --with-shared-libraries=1 \
    COPTFLAGS=-O2 CXXOPTFLAGS=-O2 CUDAOPTFLAGS=-O2 \
    --with-blaslapack-lib="[-llapack,-lblas]" \
    --with-cuda=1 --with-cudac="$CUDA/bin/nvcc" --with-cuda-arch=90 \
    --with-cuda-include="[$CUDA/include,$CUDA/include/cccl,$STUB/include]" \
    --with-cuda-lib="[-L$CUDA/lib64,-lcudart,-lcufft,-lcublas,-lcusparse,-lcusolver,-lcurand,-lnvtx3interop,-L$CUDA/lib64/stubs,-lcuda,-L$STUB/stubs,-lnvidia-ml]" \
    >&2
  make PETSC_DIR="$DIR" PETSC_ARCH=$ARCH -j"$(nproc)" all >&2
  touch "$DIR/$ARCH/lib/petsc/conf/spmv-built"
fi
echo "PETSC_DIR=$DIR PETSC_ARCH=$ARCH NVMLSTUB=$STUB/runtime"
