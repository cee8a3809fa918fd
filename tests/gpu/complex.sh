#!/usr/bin/env bash
# Complex scalars on the GPU (issue #28), run on the GPU machine from the repository root after `make SCALAR=complex gpu`
# packed .dev/bundle.tar.xz (the complex PETSc, build-complex/ and the matrices). Logs and CSVs to $OUT (default
# /tmp/gpu-out; on the lent machine, whose own $OUT brings back at most 8 files, run with OUT=/tmp/gpu-out and pack it).
#   tests/gpu/complex.sh [check|sanitize|bench|solve]...   (default: all four)
# check:    every type: the layout built on the GPU equals the host reference, products against the host AIJ (test_gpu)
#           and against aijcusparse in complex (test_complex -ref aijcusparse: MatMult(Add), the transposes and
#           Hermitian transposes, COO with complex values, PCPOLY gmres double/single), relative 1e-12
# sanitize: compute-sanitizer memcheck of the builds and products (ccoo with value phases: racecheck too)
# bench:    bench_spmv on the `make bench` matrices with complex values (random phases; the constant-coefficient one
#           also with -spmv_phases value: equal values stay equal), every type, spmv and aijcusparse:
#           $OUT/complex-<device>-<date>.csv (bench_spmv's columns)
# solve:    a complex Helmholtz-type operator (helmholtz:n=,k2=), GMRES + PCPOLY, aijcusparse against spmv: KSPSolve and
#           whole-run times in $OUT/complex-solve-<device>-<date>.csv
set -u
OUT=${OUT:-/tmp/gpu-out}; mkdir -p "$OUT"
# DEVB: where the complex bundle is (default /opt/devb, unpacked by device-unpack.sh); BUNDLE: unpack this bundle there
# first (the complex bundle beside the real one: DEVB=/opt/devc BUNDLE=.dev/bundle-complex.tar.xz)
DEVB=${DEVB:-/opt/devb}
if [ ! -d "$DEVB/extra" ]; then
  if [ -n "${BUNDLE:-}" ]; then mkdir -p "$DEVB" && tar -C "$DEVB" -xJf "$BUNDLE"; else bash .dev/device-unpack.sh; fi
fi
export PATH=$DEVB/bin:$PATH LD_LIBRARY_PATH=$DEVB/petsc/lib:$DEVB/syslib:${LD_LIBRARY_PATH:-} PETSC_OPTIONS="-use_gpu_aware_mpi 0 -mat_spmv_wait 0"
# (the checks select at the first product; the solve below runs spmv's default, waiting for the products that pay)
E=$DEVB/extra; B=$E/build-complex; BIN=$B/bin; M=$E/matrices
export LD_LIBRARY_PATH=$B/lib:$LD_LIBRARY_PATH
pass=0; fail=0
step() { local name=$1; shift; echo "== $name [$(date +%T)]"; if "$@" > "$OUT/$name.log" 2>&1; then pass=$((pass+1)); echo "ok   $name"; tail -n 2 "$OUT/$name.log"; else fail=$((fail+1)); echo "FAIL $name"; tail -n 25 "$OUT/$name.log"; fi; }
what=${*:-check sanitize bench solve}
has() { case " $what " in *" $1 "*) return 0;; esac; return 1; }
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
slug=$(echo "$device" | grep -o -i -E 'h100|h200|a100|l40s' | head -1 | tr A-Z a-z); slug=${slug:-gpu}
commit=$(cat .dev/commit 2>/dev/null || echo unknown)
echo "$device, commit $commit, $(date -u +%FT%TZ)" | tee "$OUT/device.txt"
TYPES=${TYPES:-spmv brc suraa ccoo argcsr segsum dcsr}
SMALL="stencil7:n=30,const=1;rmat:scale=14,ef=16;random:m=5000,k=9,empty=0.2,seed=4;random:m=3000,n=7000,k=12,seed=5;random:m=2000,k=3,empty=1,seed=7;banded:m=1,bw=0;denserows:m=20000,k=6,len=5000,dense=5;stencil27:n=20;$M/cage10.mtx"
if has check; then
  for T in $TYPES; do
    step ${T}_gpu        "$BIN/test_gpu" -type $T -matrices "$SMALL"
    step ${T}_complex    "$BIN/test_complex" -type $T -ref aijcusparse -vec_type cuda
    step ${T}_matops     "$BIN/test_matops" -type $T # with Inf and NaN in x: non-finite exactly where AIJ's product is
  done
  # two ranks (one GPU): the MPI types' blocks in complex against mpiaijcusparse
  for T in spmv ccoo brc; do
    step ${T}_complex_n2 mpiexec -n 2 "$BIN/test_complex" -type $T -ref aijcusparse -vec_type cuda -checks products,coo,poly -n 32
  done
  step brc_value_phases "$BIN/test_gpu" -type brc -spmv_phases value -matrices "stencil7:n=30,const=1;stencil27:n=20,const=1"
  # ccoo's value table on the GPU with 128-bit keys (equal values kept equal): the constant stencils (every chunk on the
  # table), cage10 and its kron (some values off the sample's candidates: the missed values counted by the 128-bit sort,
  # CountCandidates' dynamic shared memory); the layout built on the GPU equals the host reference bit for bit (Verify)
  step ccoo_value_phases "$BIN/test_gpu" -type ccoo -spmv_phases value -matrices "stencil7:n=30,const=1;stencil27:n=20,const=1;$M/cage10.mtx;$M/cage10.mtx:8"
  step ccoo_value_phases_complex "$BIN/test_complex" -type ccoo -spmv_phases value -matrices "stencil7:n=30,const=1;stencil27:n=20,const=1;$M/cage10.mtx" -ref aijcusparse -vec_type cuda -checks products,coo
  # spmv ranks ccoo first where the values repeat (the timing then decides: the view names the winner)
  step spmv_ranks_ccoo  bash -c "\"$BIN/test_complex\" -type spmv -spmv_phases value -matrices 'stencil27:n=40,const=1' -checks coo -ref aijcusparse -vec_type cuda -mat_view ::ascii_info 2>&1 | tee /dev/stderr | grep -q 'ranked: ccoo'"
fi
if has bench; then
  csv=$OUT/complex-$slug-$(date +%Y%m%d).csv
  MB="$M/cage11.mtx:64;stencil27:n=120;rmat:scale=21,ef=16;denserows:m=2000000,k=8,len=100000,dense=16;$M/nasa4704.mtx:400;$M/vsp_model1_crew1_cr42_south31.mtx:64;$M/delaunay_n16.mtx:128;stencil7:n=150;stencil27:n=120,const=1"
  step bench_phases "$BIN/bench_spmv" -matrices "$MB" -types spmv,brc,suraa,ccoo,argcsr,segsum,aijcusparse -commit "$commit" -trials ${TRIALS:-5} -csv "$csv.random"
  step bench_value  "$BIN/bench_spmv" -matrices "stencil27:n=120,const=1;stencil7:n=150,const=1" -spmv_phases value -types spmv,brc,suraa,ccoo,argcsr,segsum,aijcusparse -commit "$commit" -trials ${TRIALS:-5} -csv "$csv.value"
  # one file: the random-phase rows, then the repeated-value rows with "(value phases)" after the matrix name
  { cat "$csv.random"; tail -n +2 "$csv.value" | sed 's/,"\([^"]*\)",/,"\1 (value phases)",/'; } > "$csv" && rm -f "$csv.random" "$csv.value"
fi
if has solve; then
  scsv=$OUT/complex-solve-$slug-$(date +%Y%m%d).csv
  echo "device,commit,operator,type,its,kspsolve_s,wholerun_s" > "$scsv"
  for T in aijcusparse spmv brc; do
    for rep in 1 2; do
      t0=$(date +%s.%N)
      PETSC_OPTIONS="-use_gpu_aware_mpi 0" "$BIN/spmv_solve" -f helmholtz:n=100,k2=0.05 -mat_type $T -vec_type cuda -ksp_type gmres -ksp_gmres_restart 50 -pc_type poly -pc_poly_type gmres -pc_poly_degree 10 -ksp_rtol 1e-8 -ksp_converged_reason -log_view :"$OUT/solve-$T-$rep.txt" > "$OUT/solve-$T-$rep.log" 2>&1
      t1=$(date +%s.%N)
      its=$(grep -o 'iterations [0-9]*' "$OUT/solve-$T-$rep.log" | head -1 | awk '{print $2}')
      ks=$(awk '/^KSPSolve / {print $4; exit}' "$OUT/solve-$T-$rep.txt")
      echo "\"$device\",$commit,helmholtz:n=100:k2=0.05,$T,$its,$ks,$(awk -v a=$t0 -v b=$t1 'BEGIN {printf "%.3f", b - a}')" >> "$scsv"
    done
  done
  cat "$scsv"
fi
if has sanitize; then
  for T in brc segsum argcsr ccoo spmv; do
    step ${T}_memcheck compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$BIN/test_gpu" -type $T -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3;banded:m=1,bw=0;stencil7:n=12,const=1"
  done
  step ccoo_value_memcheck compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$BIN/test_gpu" -type ccoo -spmv_phases value -matrices "stencil7:n=12,const=1;$M/cage10.mtx"
  # the 128-bit table build's shared memory (CountCandidates' dynamic 50 KB, the staged misses; Analyze/Fill/Refresh tables)
  step ccoo_value_racecheck timeout 600 compute-sanitizer --tool racecheck --error-exitcode 9 "$BIN/test_gpu" -type ccoo -spmv_phases value -matrices "stencil7:n=12,const=1;$M/cage10.mtx"
  step suraa_memcheck compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$BIN/test_gpu" -type suraa -matrices "random:m=3000,k=9,empty=0.2;denserows:m=5000,k=6,len=3000,dense=3"
  step poly_single_memcheck compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$BIN/test_complex" -type brc -checks poly -n 24 -vec_type cuda
fi
echo "complex GPU: $pass passed, $fail failed"
