#!/usr/bin/env bash
# session 40, call c (#29, argcsr over 16-bit offsets, d13f28c): which of the two changes buys the long rows,
# the chunk size (D = 12, 16, 24) or the batched loads (-mat_argcsr_min_blocks), and a block of 64; long-row matrices
set -u
[ -d /opt/devb/extra/build ] || { rm -rf /opt/devb; bash .dev/device-unpack.sh > /dev/null; }
. /opt/devb/env.sh; E=/opt/devb/extra
export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH UCX_TLS=self,sm
O=$OUT/s40c; mkdir -p $O; B=$E/build/bin; M=$E/matrices
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat .dev/commit)"; date -u; } > $O/device.txt
LONG="$M/bcsstk13.mtx:256;stencil27:n=120;banded:m=1000000,bw=24;banded:m=600000,bw=40;$M/nasa4704.mtx:400;$M/EX5.mtx:64;stencil27:n=100;banded:m=400000,bw=60;$M/cage11.mtx:64"
TY="argcsr/i16,argcsr/i16d16,argcsr/i16mbd12,argcsr/i16mbd16,argcsr/i16mbd24,argcsr/i16mbd16b64,argcsr/d16,dcsr,floor-gather16,brc,ccoo,aijcusparse"
OPT="-i16_mat_argcsr_index16 1 -i16d16_mat_argcsr_index16 1 -i16d16_mat_argcsr_desired_chunk_size 16 -d16_mat_argcsr_desired_chunk_size 16"
for d in 12 16 24; do OPT="$OPT -i16mbd${d}_mat_argcsr_index16 1 -i16mbd${d}_mat_argcsr_min_blocks 1 -i16mbd${d}_mat_argcsr_desired_chunk_size $d"; done
OPT="$OPT -i16mbd16b64_mat_argcsr_index16 1 -i16mbd16b64_mat_argcsr_min_blocks 1 -i16mbd16b64_mat_argcsr_desired_chunk_size 16 -i16mbd16b64_mat_argcsr_block_size 64"
timeout 400 $B/bench_spmv -matrices "$LONG" -types $TY $OPT -floor 0 -seed 7 -trials 3 -reps 60 -csv $O/bench.csv > $O/bench.log 2>&1; echo "bench rc=$?" > $O/summary.txt
cat $O/summary.txt
cd $OUT && tar czf s40c.tar.gz s40c && rm -rf s40c
