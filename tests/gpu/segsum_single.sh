#!/usr/bin/env bash
# Build (here, with the library's flags) or run (on the GPU machine) tests/gpu/segsum_single.cu, which drives
# the segsum format object directly with fp32 values (issue #19). See the header of the .cu file.
#   tests/gpu/segsum_single.sh build [BUILD]   -> BUILD/bin/test_segsum_single (BUILD defaults to build)
#   tests/gpu/segsum_single.sh run [BUILD]     -> runs it (plus compute-sanitizer memcheck when available)
set -eu
what=${1:-build}; B=${2:-build}
SEG=$B/obj/src/mat/impls/spmv/segsum
POOL=$B/obj/src/mat/impls/spmv/spmvdevice.o
case $what in
build)
  make BUILD="$B" "$SEG/segsum.o" "$SEG/segsumhost.o" "$POOL"
  make BUILD="$B" --no-print-directory \
    --eval "$B/obj/tests/gpu/segsum_single.o: tests/gpu/segsum_single.cu $SEG/segsum.o ; @mkdir -p \$(@D); \$(CUDAC) -c -o \$@ \$(CUFLAGS) \$<" \
    --eval "$B/bin/test_segsum_single: $B/obj/tests/gpu/segsum_single.o $SEG/segsum.o $SEG/segsumhost.o $POOL ; @mkdir -p \$(@D); \$(CXX_LINKER) -o \$@ \$^ \$(PETSC_LIB)" \
    "$B/bin/test_segsum_single" ;;
run)
  "$B/bin/test_segsum_single"
  if command -v compute-sanitizer > /dev/null; then compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$B/bin/test_segsum_single" > "${OUT:-/tmp}/segsum_single_memcheck.log" 2>&1 && echo "memcheck: clean" || { echo "memcheck: FAILED, see ${OUT:-/tmp}/segsum_single_memcheck.log"; exit 1; }; fi ;;
*) echo "usage: $0 build|run [BUILD]"; exit 2 ;;
esac
