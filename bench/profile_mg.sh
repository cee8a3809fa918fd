#!/usr/bin/env bash
# Where a GAMG V-cycle's time goes (issue #26), on the GPU machine: ex56 (and ex45) with -pc_mg_log (events per level)
# and -log_view_gpu_time (GPU time per event: each event synchronizes, so the totals are slower than an untimed run;
# the split is what counts), plus -ksp_view for the level sizes. One process per configuration.
# Usage (repository root, GPU machine): OUT=dir bash bench/profile_mg.sh "label|type|extra options" ...
set -uo pipefail
if [ ! -d /opt/devb/extra ]; then bash .dev/device-unpack.sh > /dev/null; fi
. /opt/devb/env.sh
E=/opt/devb/extra; BIN=$E/build/bin; LIB=$E/build/lib/libpetscspmv.so; export LD_LIBRARY_PATH=$E/build/lib:$LD_LIBRARY_PATH
OUT=${OUT:-/tmp/profmg}; mkdir -p "$OUT"; NE=${NE:-59}
for cfg in "$@"; do
  IFS='|' read -r label type extra <<< "$cfg"
  log=$OUT/$label.log
  timeout ${RUN_TIMEOUT:-120} "$BIN/${PROG:-ex56}" -dll_append "$LIB" -mat_type "$type" -ne $NE -ksp_type cg -ksp_norm_type unpreconditioned \
    -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason $extra -use_gpu_aware_mpi 0 > "$log" 2>&1
  echo "== $label: exit $? $(grep -m1 'Linear solve' "$log")"
  grep -m1 -E '^KSPSolve ' "$log" | awk '{print "  KSPSolve time " $4}'
  # stage "Solve" (ex56 pushes it): name, count, time (synchronized per event with -log_view_gpu_time), GPU time from the
  # GPU Mflop/s (events with flops only), % of the stage
  awk '/Event Stage 2: Solve/ {s = 1} /Event Stage 3/ {s = 0} s && NF >= 27 && $2 ~ /^[0-9]+$/ {g = ($22 + 0 > 0) ? sprintf("%.4f", $6 / ($22 * 1e6)) : "-"; printf "  %-18s %6d time %10s gpu %8s %%T %3s\n", $1, $2, $4, g, $16}' "$log" | head -70
done
