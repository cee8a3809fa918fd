#!/usr/bin/env bash
# Sweep of unmodified PETSc tutorials (tests/tutorial_cases.txt: name|ranks|arguments) with the plugin's types against
# PETSc's own, loaded with -dll_append. One table line per tutorial and type: exit status, PETSc error, linear solves and
# their iterations, Newton iterations, time steps, the program's last printed norm; the verdict compares with the
# reference type's run (same = identical counts; close = every linear solve within 10% (+2) of the reference's, as
# tests/run.sh's same_solves, every Newton solve within 10% (+1); DIFF(what) otherwise, DIFF(norm) where the last
# printed norm line's numbers differ by more than 1% (a wrong answer with the same counts); ERROR where the reference
# ran cleanly; both-error where both fail).
#
#   tests/gpu/tutorial_sweep.sh host [OUT]   no GPU: aij against spmv, brc, ccoo with -mat_spmv_host_reference (the
#                                            formats' host references run the products), and a -mat_view pass that
#                                            checks the type was used
#   tests/gpu/tutorial_sweep.sh gpu [OUT]    on a GPU: aij (CPU), aijcusparse, spmv, brc, ccoo, the last four with
#                                            -vec_type cuda -dm_vec_type cuda; GPU types against aijcusparse, and
#                                            aijcusparse against aij (what rounding alone does)
# Environment: BUILD (build folder: bin/ and lib/), MPIEXEC, JOBS (runs at once), CASES (case file), ONLY (regex of
# case names), TYPES (plugin types), TMO (seconds a run), TABLE_ONLY=1 (no runs: the table again from OUT's logs). OUT gets logs/, table.txt, and tutorial-sweep.tar.gz.
set -u
export UCX_TLS=${UCX_TLS-self,sm} # one host: shared memory. Over UCX's TCP the GPU machine's MPICH hung in MPI_Finalize in ~10% of 2-rank runs (NOTES.md, "Session 25")
if [ "${1:-}" = __runone ]; then MODE=$2; OUT=$3; else MODE=${1:-host}; OUT=${2:-${OUT:-/tmp/tutorial-sweep}}; fi
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/tutorial_case.sh"
BUILD=${BUILD:-build}; BIN=$(cd "$BUILD/bin" && pwd); LIB=$(cd "$BUILD/lib" && pwd)/libpetscspmv.so
CASES=${CASES:-$HERE/../tutorial_cases.txt}; MPIEXEC=${MPIEXEC:-mpiexec}; JOBS=${JOBS:-4}; TMO=${TMO:-60}
TYPES=${TYPES:-spmv brc ccoo}; ONLY=${ONLY:-.}
mkdir -p "$OUT/logs"
COMMON="-ksp_converged_reason -snes_converged_reason -ts_monitor -options_left 0"
GPUVEC="-vec_type cuda -dm_vec_type cuda -use_gpu_aware_mpi 0"
if [ "$MODE" = gpu ]; then
  CONFIGS="aij aijcusparse $TYPES"; REF=aijcusparse
else
  CONFIGS="aij $TYPES"; REF=aij
fi
config_opts() { # CONFIG [dmonly]: the options of one configuration
  if [ -n "${2:-}" ]; then config_opts "$1" | sed -e 's/-mat_type [^ ]* //' -e 's/-vec_type cuda //'; return; fi
  case "$MODE:$1" in
    host:aij|gpu:aij) echo "-mat_type aij -dm_mat_type aij" ;;
    host:*) echo "-mat_type $1 -dm_mat_type $1 -mat_spmv_host_reference" ;;
    gpu:*) echo "-mat_type $1 -dm_mat_type $1 $GPUVEC" ;;
  esac
}

# summary of one log: rc, first PETSc error message, solves/iterations
summarize() { # LOG RC
  awk -v rc="$2" '
    /PETSC ERROR: / && err == "" && !/----/ && !/See https/ && !/PETSc Release/ && !/^\[[0-9]*\]PETSC ERROR: #/ && !/Configure options/ && !/Petsc Release/ && !/on a .* named/ {
      e = $0; sub(/.*PETSC ERROR: /, "", e); if (e != "" && e !~ /^(Option left|Error message)/) err = e }
    /Linear .*solve converged due to/ { nk++; kits += $NF; klast = $NF }
    /Linear .*solve did not converge due to/ { nk++; kdiv++; kits += $NF }
    /Nonlinear .*solve converged due to/ { ns++; sits += $NF }
    /Nonlinear .*solve did not converge due to/ { ns++; sdiv++; sits += $NF }
    /^ *[0-9]+ TS dt/ { ts = $1 }
    /[Nn]orm|[Ee]rror/ && /[0-9]\.[0-9]/ && !/^#/ && !/PETSC ERROR|Function norm|Linear|Nonlinear|KSP|TS dt|tolerance/ { l3 = l2; l2 = l1; l1 = $0; nl = (l3 != "" ? l3 " ; " : "") (l2 != "" ? l2 " ; " : "") l1 }
    END {
      gsub(/[|]/, "/", err); gsub(/[|]/, "/", nl); gsub(/^ +| +$/, "", nl)
      printf "rc=%s|err=%s|nk=%d|kits=%d|kdiv=%d|ns=%d|sits=%d|sdiv=%d|ts=%s|norm=%s\n", rc, substr(err, 1, 90), nk, kits, kdiv+0, ns, sits, sdiv+0, ts, substr(nl, 1, 60)
    }' "$1"
}

runone() { # NAME NP CONFIG ARGS...
  local name=$1 np=$2 cfg=$3; shift 3
  local CASE_PROG CASE_DMONLY CASE_ARGS
  tutorial_case "$name" "$@"
  local prog=$CASE_PROG args=("${CASE_ARGS[@]}") dmonly=$CASE_DMONLY
  local log="$OUT/logs/$name.$cfg.log" t0=$SECONDS
  # shellcheck disable=SC2046
  ( cd "$OUT/logs/run.$name.$cfg" 2>/dev/null || { mkdir -p "$OUT/logs/run.$name.$cfg" && cd "$OUT/logs/run.$name.$cfg"; }
    echo "# $MPIEXEC -n $np $BIN/$prog -dll_append $LIB ${args[*]} $COMMON $(config_opts "${cfg%+view}" $dmonly) $( [ "${cfg%+view}" != "$cfg" ] && echo "-mat_view ::ascii_info" )"
    timeout "$TMO" $MPIEXEC -n "$np" "$BIN/$prog" -dll_append "$LIB" "${args[@]}" $COMMON $(config_opts "${cfg%+view}" $dmonly) \
      $( [ "${cfg%+view}" != "$cfg" ] && echo "-mat_view ::ascii_info" ) ) > "$log" 2>&1
  local rc=$?
  rm -rf "$OUT/logs/run.$name.$cfg"
  echo "$(summarize "$log" $rc)|s=$((SECONDS - t0))" > "$OUT/logs/$name.$cfg.sum"
}

if [ "${1:-}" = __runone ]; then # __runone MODE OUT "name|np|config|args"
  IFS='|' read -r name np cfg args <<< "$4"
  # shellcheck disable=SC2086
  runone "$name" "$np" "$cfg" $args; exit 0; fi

# the job list: one line per run (name|np|config|args), run JOBS at a time
jobs_file=$OUT/jobs.txt
if [ -z "${TABLE_ONLY:-}" ]; then : > "$jobs_file"
while IFS='|' read -r name np args; do
  case "$name" in ''|\#*) continue ;; esac
  [[ $name =~ $ONLY ]] || continue
  for cfg in $CONFIGS; do echo "$name|$np|$cfg|$args" >> "$jobs_file"; done
  # host: which matrix types the program made with brc asked (its -mat_view)
  [ "$MODE" = host ] && echo "$name|$np|brc+view|$args" >> "$jobs_file"
done < "$CASES"
t0=$SECONDS
tr '\n' '\0' < "$jobs_file" | xargs -0 -n 1 -P "$JOBS" bash "$HERE/$(basename "$0")" __runone "$MODE" "$OUT"
echo "runs: $(wc -l < "$jobs_file") in $((SECONDS - t0)) s ($JOBS at once)" >&2
else # the summaries again from the logs (the exit status and time kept)
  for f in "$OUT"/logs/*.log; do
    o=$(cat "${f%.log}.sum"); rc=$(sed 's/|/\n/g' <<< "$o" | sed -n 's/^rc=//p')
    echo "$(summarize "$f" "$rc")|${o##*|}" > "${f%.log}.sum"
  done
fi # TABLE_ONLY

# the table
field() { sed 's/|/\n/g' <<< "$1" | sed -n "s/^$2=//p"; }
verdict() { # REFSUM SUM
  local a=$1 b=$2
  local ra=$(field "$a" rc) rb=$(field "$b" rc)
  if [ "$rb" = 124 ] || [ "$rb" = 137 ]; then [ "$ra" = "$rb" ] && echo both-timeout || echo TIMEOUT; return; fi
  if [ "$ra" != 0 ] && [ "$rb" != 0 ]; then echo both-error; return; fi
  if [ "$rb" != 0 ]; then echo ERROR; return; fi
  if [ "$ra" != 0 ]; then echo ref-error; return; fi
  local k
  for k in nk ns ts kdiv sdiv; do [ "$(field "$a" $k)" = "$(field "$b" $k)" ] || { echo "DIFF($k)"; return; }; done
  # the program's last printed norm (an error norm, mostly): each number within 1% (+1e-10) of the reference's
  if ! paste <(grep -oE '[0-9.]+e[-+][0-9]+|[0-9]+\.[0-9]*' <<< "$(field "$a" norm)") <(grep -oE '[0-9.]+e[-+][0-9]+|[0-9]+\.[0-9]*' <<< "$(field "$b" norm)") |
    awk '{ d = $1 - $2; if (d < 0) d = -d; m = ($1 > $2 ? $1 : $2); if ($1 == "" || $2 == "" || d > 1e-2 * m + 1e-10) bad = 1 } END { exit bad }'; then
    echo "DIFF(norm)"; return; fi
  if [ "$(field "$a" kits)" = "$(field "$b" kits)" ] && [ "$(field "$a" sits)" = "$(field "$b" sits)" ]; then echo same; return; fi
  # per-solve comparison from the logs
  echo close?
}
per_solve_close() { # REFLOG LOG: every linear solve within 10% (+2) of the reference's, every Newton solve within 10% (+1)
  paste <(awk '/Linear .*solve (converged|did not)/ {print $NF}' "$1") <(awk '/Linear .*solve (converged|did not)/ {print $NF}' "$2") |
    awk '{ if ($1 == "" || $2 == "" || $2 > 1.1 * $1 + 2 || $2 < 0.9 * $1 - 2) bad = 1; n++ } END { exit (bad || n == 0) }' &&
  paste <(awk '/Nonlinear .*solve (converged|did not)/ {print $NF}' "$1") <(awk '/Nonlinear .*solve (converged|did not)/ {print $NF}' "$2") |
    awk '{ if ($1 == "" || $2 == "" || $2 > 1.1 * $1 + 1 || $2 < 0.9 * $1 - 1) bad = 1 } END { exit bad }'
}
{
  echo "# tutorial sweep, mode $MODE, reference $REF, $(date -u +%Y-%m-%dT%H:%MZ), $(hostname), ${DEVICE:-}"
  printf '%-18s %-2s %-12s %-9s %-6s %-10s %-6s %-4s %s\n' case np type verdict solves lin_its newton ts "error / last norm line"
  while IFS='|' read -r name np args; do
    case "$name" in ''|\#*) continue ;; esac
    [[ $name =~ $ONLY ]] || continue
    refsum=$(cat "$OUT/logs/$name.$REF.sum" 2>/dev/null)
    for cfg in $CONFIGS; do
      s=$(cat "$OUT/logs/$name.$cfg.sum" 2>/dev/null) || continue
      if [ "$cfg" = "$REF" ]; then
        if [ "$MODE" = gpu ]; then v="vs-aij:$(verdict "$(cat "$OUT/logs/$name.aij.sum")" "$s")"
          [ "$v" = "vs-aij:close?" ] && { per_solve_close "$OUT/logs/$name.aij.log" "$OUT/logs/$name.$cfg.log" && v=vs-aij:close || v="vs-aij:DIFF(its)"; }
        else v=reference; fi
      elif [ "$cfg" = aij ]; then v=cpu
      else v=$(verdict "$refsum" "$s")
        [ "$v" = "close?" ] && { per_solve_close "$OUT/logs/$name.$REF.log" "$OUT/logs/$name.$cfg.log" && v=close || v="DIFF(its)"; }
      fi
      e=$(field "$s" err); [ -n "$e" ] || e=$(field "$s" norm | sed 's/.* ; //' | cut -c1-70)
      kd=$(field "$s" kdiv); [ "$kd" = 0 ] && kd= || kd="!$kd"
      printf '%-18s %-2s %-12s %-9s %-6s %-10s %-6s %-4s %s\n' "$name" "$np" "$cfg" "$v" "$(field "$s" nk)$kd" "$(field "$s" kits)" "$(field "$s" sits)" "$(field "$s" ts)" "$e"
    done
    if [ "$MODE" = host ]; then
      used=$(grep -ohE "type: (seq|mpi)aij[a-z]*" "$OUT/logs/$name.brc+view.log" 2>/dev/null | sort | uniq -c | awk '{printf "%s%s:%s", sep, $3, $1; sep=","}')
      printf '%-18s %-2s %-12s %-9s %s\n' "$name" "$np" "brc+view" "types" "${used:-no -mat_view output}"
    fi
  done < "$CASES"
} > "$OUT/table.txt"
cat "$OUT/table.txt"
tar -C "$OUT" -czf "$OUT/tutorial-sweep.tar.gz" table.txt logs jobs.txt 2>/dev/null
echo "archive: $OUT/tutorial-sweep.tar.gz"
