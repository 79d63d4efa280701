#!/usr/bin/env bash
# Derivability's rate over a window, from one saved checkpoint: each set-up goes on from a copy
# (hard links) of the same OUT.candidates, OUT.generalized, OUT.pruned and OUT.derived, and is
# stopped with Ctrl-C (its work kept in its copy, then deleted) DUR seconds after its first
# derivability progress line. Set-ups run one after the other, in the order given; interleave
# them (A B B A) to see the machine's drift.
#   bench/derive-window.sh SNAP OUTNAME 'NAME|LAUNCHER RULEGEN OPTIONS' ...
# SNAP: the folder holding SNAP/OUTNAME.candidates etc.; each set-up runs in SNAP.NAME with
# -o SNAP.NAME/OUTNAME and --stop-after prune added. An MPI set-up needs rulegen's helpers and
# data found from its workers too (`mpirun -x RULEGEN_DATA_DIR`). DUR (default 240) in the
# environment. Prints the first and last progress lines of each, with the seconds since start,
# and at the window's end each process's peak and resident memory (VmHWM, VmRSS).
set -euo pipefail
if [ $# -lt 3 ] || [ ! -d "$1" ]; then echo "usage: $0 SNAP OUTNAME 'NAME|COMMAND...' ..." >&2; exit 2; fi
snap=$1 out=$2
shift 2
dur=${DUR:-240}
stamp() { # each line with the seconds since it began
  local t0=${EPOCHREALTIME/./} t
  stdbuf -o0 tr '\r' '\n' | while IFS= read -r line; do
    t=$((${EPOCHREALTIME/./} - t0))
    printf '%6d.%d %s\n' $((t / 1000000)) $((t / 100000 % 10)) "$line"
  done
}
for spec in "$@"; do
  name=${spec%%|*} cmd=${spec#*|} dir=$snap.$name
  rm -rf "$dir" && mkdir -p "$dir"
  for f in candidates generalized pruned derived; do
    [ -e "$snap/$out.$f" ] && ln "$snap/$out.$f" "$dir/$out.$f"
  done
  # shellcheck disable=SC2086 # cmd is words on purpose
  # the pid written is the command's own: bash writes it, then becomes the command
  (cd "$dir" && exec bash -c 'echo $$ > "$0/pid"; exec "$@"' "$dir" $cmd --stop-after prune \
    -o "$dir/$out" 2>&1) | stamp > "$dir/log" &
  runner=$!
  until grep -q "derivability:" "$dir/log" 2>/dev/null; do
    kill -0 $runner 2>/dev/null || { echo "$name: ended before derivability (see $dir/log)" >&2; break; }
    sleep 2
  done
  sleep "$dur"
  for p in $(cat "$dir/pid") $(pgrep -P "$(cat "$dir/pid")"); do # the process, or mpirun's ranks
    echo "$name: pid $p $(grep -E 'VmHWM|VmRSS' /proc/"$p"/status 2>/dev/null | tr -s ' \t\n' ' ')"
  done
  kill -INT "$(cat "$dir/pid")" 2>/dev/null || true # rulegen, or mpirun, which passes it on
  wait $runner || true
  echo "$name: $(grep "derivability:" "$dir/log" | sed -n '1p;$p' | tr '\n' ' ')"
  rm -f "$dir/$out".*
done
