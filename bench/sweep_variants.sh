#!/bin/bash
# Parameter sweep of every format in ONE bench_spmv run per matrix set (after . /opt/devb/env.sh on the GPU
# machine): each variant is a type/name whose options come with the prefix name_ (bench_spmv -help), so all
# variants, aijcusparse, sellcuda and the floor kernels are measured on the same matrix in the same process.
#   bash bench/sweep_variants.sh [argcsr|ccoo|suraa|segsum|brc|all]...   CSV/JSON/log into $OUT
# SURAA_CDP=1 adds the dynamic-parallelism G1 (a library built with make SPMV_SURAA_CDP=1 must be the one loaded).
# Environment: BUILD (build), MATRICES (.dev/matrices or ../shared/matrices), OUT (bench/results), TRIALS (5), REPS (50)
set -euo pipefail
BUILD=${BUILD:-build}; OUT=${OUT:-bench/results}; TRIALS=${TRIALS:-5}; REPS=${REPS:-50}
if [ -z "${MATRICES:-}" ]; then if [ -d .dev/matrices ]; then MATRICES=.dev/matrices; else MATRICES=../shared/matrices; fi; fi
mkdir -p "$OUT"; stamp=$(date +%Y%m%d-%H%M%S)
what=" ${*:-all} "
T="aijcusparse,sellcuda"; O=()
add() { T="$T,$1"; shift; O+=("$@"); }
case $what in *" argcsr "*|*" all "*)
  add argcsr
  for d in 3 6 12 16; do add argcsr/d$d -d${d}_mat_argcsr_desired_chunk_size $d; done
  add argcsr/b64 -b64_mat_argcsr_block_size 64
  add argcsr/b256 -b256_mat_argcsr_block_size 256
  add argcsr/nosplit -nosplit_mat_argcsr_split_long_rows 0
  add argcsr/paper -paper_mat_argcsr_paper_grouping ;;
esac
case $what in *" ccoo "*|*" all "*)
  add ccoo
  for k in 2 4 8 16; do add ccoo/k$k -k${k}_mat_ccoo_k $k; done
  add ccoo/b128 -b128_mat_ccoo_threads 128
  add ccoo/b128k16 -b128k16_mat_ccoo_threads 128 -b128k16_mat_ccoo_k 16
  add ccoo/plain -plain_mat_ccoo_lut_size 0
  add ccoo/c32 -c32_mat_ccoo_col_bits 32 -c32_mat_ccoo_lut_size 0 ;;
esac
case $what in *" suraa "*|*" all "*)
  add suraa
  for e in 2 4 8 16; do add suraa/e$e -e${e}_mat_suraa_lane_entries $e; done
  add suraa/cusp -cusp_mat_suraa_kernels cusparse
  add suraa/logical -logical_mat_suraa_permute logical
  add suraa/onestream -onestream_mat_suraa_streams 0
  add suraa/nog1 -nog1_mat_suraa_g1_max_rows 0
  [ "${SURAA_CDP:-0}" = 1 ] && add suraa/cdp -cdp_mat_suraa_dynamic_parallelism
  [ "${SURAA_CDP:-0}" = 1 ] && add suraa/cdpe8 -cdpe8_mat_suraa_dynamic_parallelism -cdpe8_mat_suraa_lane_entries 8
  true ;;
esac
case $what in *" segsum "*|*" all "*)
  add segsum
  add segsum/t64 -t64_mat_segsum_tile 64 -t64_mat_segsum_tiles_per_warp 14 -t64_mat_segsum_warps_per_block 8 ;;
esac
case $what in *" brc "*|*" all "*) add brc ;; esac
M=${SWEEP_MATRICES:-"$MATRICES/cage11.mtx:64;$MATRICES/nasa4704.mtx:400;stencil27:n=120;stencil27:n=120,const=1;stencil7:n=150;rmat:scale=21,ef=16;denserows:m=2000000,k=8,len=100000,dense=16;$MATRICES/vsp_model1_crew1_cr42_south31.mtx:64;$MATRICES/delaunay_n16.mtx:128"}
COMMIT=${COMMIT:-$(cat .dev/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
"$BUILD/bin/bench_spmv" -matrices "$M" -types "$T" -trials "$TRIALS" -reps "$REPS" -commit "$COMMIT" \
  -csv "$OUT/sweep-$stamp.csv" -json "$OUT/sweep-$stamp.json" "${O[@]}" | tee "$OUT/sweep-$stamp.log"
