# Complex scalars (issue #28): the checks against a complex PETSc, on its own build folder COMPLEX_BUILD (make SCALAR=complex).
# Sourced by tests/run.sh at its end (make test: the self-built PETSc route builds both), with run.sh's helpers and
# counters; `make SCALAR=complex test` runs it alone (bash tests/complex.sh), then it prints its own summary.
# No GPU: the types run their host references (-mat_spmv_host_reference through PETSC_OPTIONS) and, with `plain`, the
# parent's (aijcusparse or SeqAIJ) product.
CB=${COMPLEX_BUILD:?COMPLEX_BUILD: the complex build folder}; CBIN=$CB/bin
if ! declare -F run > /dev/null; then set -u; LOG=$CB/test-logs; STANDALONE=1; . "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"; fi # alone
echo "complex scalars: $CB (PETSc $(sed -n 's/^PETSC_DIR ?= //p' "$CB/petsc.mk" 2>/dev/null))"
CTYPES=${CTYPES:-spmv brc suraa ccoo argcsr segsum dcsr}
# every type against AIJ with complex non-Hermitian values (random phases; -spmv_phases value: equal values stay equal):
# the six products incl. the Hermitian transposes, COO assembly with complex values, PCPOLY (gmres polynomial, double and
# fp32 = complex<float> values) with GMRES on a Helmholtz-type operator; the host references, 1 and 2 ranks
for T in $CTYPES; do
  run complex_$T             "$CBIN/test_complex" -type $T
  run complex_${T}_n2        $MPIEXEC -n 2 "$CBIN/test_complex" -type $T -checks products,coo,poly -n 32
done
run complex_brc_value_phases "$CBIN/test_complex" -type brc -spmv_phases value -checks products,coo
# ccoo's value table keys on both parts (128 bits): the host unit tests (complex values, group 8: the keys); with equal
# values kept equal (-spmv_phases value) the table is built and serves the constant-coefficient stencil's chunks
# (its view says so: CCOO's -mat_view after the first product), on 1 and 2 ranks; spmv ranks ccoo first there
run complex_test_ccoo_host   "$CBIN/test_ccoo_host"
ccoo_table() { "$@" -mat_view ::ascii_info 2>&1 | tee /dev/stderr | grep -q "CCOO: value table .* covering 100.0% of the nonzeros"; }
run complex_ccoo_value_phases      ccoo_table "$CBIN/test_complex" -type ccoo -spmv_phases value -matrices "stencil7:n=14,const=1;stencil27:n=10,const=1" -checks products,coo
run complex_ccoo_value_phases_n2   ccoo_table $MPIEXEC -n 2 "$CBIN/test_complex" -type ccoo -spmv_phases value -matrices "stencil7:n=14,const=1" -checks products,coo
run complex_ccoo_random_k16        "$CBIN/test_complex" -type ccoo -mat_ccoo_k 16 -mat_ccoo_threads 64 -checks products
run complex_spmv_ranks_ccoo        grep_run "spmv: chosen: ccoo by the rule" "$CBIN/test_complex" -type spmv -spmv_phases value -matrices "stencil7:n=14,const=1" -checks coo -mat_view ::ascii_info
run complex_spmv_plain       plain "$CBIN/test_complex" -type spmv -checks products,coo,poly
run complex_brc_plain_n2     plain $MPIEXEC -n 2 "$CBIN/test_complex" -type brc -checks products,coo
# the existing operation checks, with complex values: products, refresh, duplicate, copy, convert, MatSetValues after
# assembly, pattern changes, MatBindToCPU, bad options
for T in brc segsum ccoo; do run complex_matops_$T "$CBIN/test_matops" -type $T; done
run complex_spmv_format_ccoo "$CBIN/test_complex" -type spmv -mat_spmv_format ccoo -checks products,coo
# make install of the complex build: its pkg-config file records the scalar type
cpc() { local p; p=$(mktemp -d "${TMPDIR:-/tmp}/spmv-cpc.XXXXXX") && env -u PETSC_DIR -u PETSC_ARCH make --no-print-directory SCALAR=complex BUILD="$CB" PREFIX="$p" install &&
        cat "$p/lib/pkgconfig/petsc-spmv.pc" && grep -q '^scalar_type=complex$' "$p/lib/pkgconfig/petsc-spmv.pc"; local rc=$?; rm -rf "$p"; return $rc; }
run complex_install_pkgconfig cpc
if [ "${STANDALONE:-0}" = 1 ]; then summary; fi
