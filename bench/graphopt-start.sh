#!/usr/bin/env bash
# bench/graphopt-start.sh A B [PAIRS]: what a program's start costs in build A against build B
# (each a build folder with tools/graphopt and tools/rulegen): `graphopt --version` and `rulegen
# --version` (each runs the z3 and cvc5 helpers too, as every start that asks a solver does),
# timed as PAIRS interleaved pairs (default 200; A first in odd pairs, B first in even ones, so
# neither always runs on the other's warm caches), after 5 pairs not counted. Prints each
# build's median wall time and the ratio A/B taken pair by pair: its median, the middle half
# and the 10th to 90th percentile (pairing keeps the ratio meaningful while the machine's load
# drifts). Ordinary tools only: bash's $EPOCHREALTIME, sort, awk.
#   bench/graphopt-start.sh build-cuda build-nocuda 200
set -euo pipefail
export LC_ALL=C # $EPOCHREALTIME with a decimal point
a=$1 b=$2 pairs=${3:-200} warm=5
for build in "$a" "$b"; do
  for prog in graphopt rulegen; do
    if [ ! -x "$build/tools/$prog" ]; then
      echo "graphopt-start.sh: no $build/tools/$prog (A and B are build folders)" >&2
      exit 2
    fi
  done
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run VAR PROG ARGS...: one run of PROG, its wall time in microseconds into VAR (no subshell:
# a failure stops the script)
run() {
  local -n us=$1
  shift
  local t0=$EPOCHREALTIME t1
  "$@" >/dev/null 2>&1 || { echo "graphopt-start.sh: failed: $*" >&2; exit 1; }
  t1=$EPOCHREALTIME
  us=$((${t1/./} - ${t0/./}))
}

# time_pairs PROG N: N pairs, "A_us B_us" a line
time_pairs() {
  local prog=$1 n=$2 i ta=0 tb=0
  for ((i = 1; i <= n; i++)); do
    if ((i % 2)); then
      run ta "$a/tools/$prog" --version && run tb "$b/tools/$prog" --version
    else
      run tb "$b/tools/$prog" --version && run ta "$a/tools/$prog" --version
    fi
    echo "$ta $tb"
  done
}

# quantiles: sorted numbers on stdin -> "p10 p25 p50 p75 p90"
quantiles() {
  awk '{ v[NR] = $1 }
       function q(p,  k) { k = int(p * (NR - 1) + 0.5) + 1; return v[k] }
       END { printf "%s %s %s %s %s\n", q(0.10), q(0.25), q(0.50), q(0.75), q(0.90) }'
}

echo "graphopt-start: $(date -u +%F), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $pairs pairs"
for build in "$a" "$b"; do
  echo "  $build: $(ldd "$build/tools/graphopt" | grep -cE 'libcudart|libcublas|libcudnn' || true) CUDA libraries linked into graphopt"
done
for prog in graphopt rulegen; do
  time_pairs "$prog" "$warm" >/dev/null
  time_pairs "$prog" "$pairs" >"$tmp/$prog"
  read -r _ _ ma _ _ < <(cut -d' ' -f1 "$tmp/$prog" | sort -n | quantiles)
  read -r _ _ mb _ _ < <(cut -d' ' -f2 "$tmp/$prog" | sort -n | quantiles)
  read -r r10 r25 r50 r75 r90 < <(awk '{ printf "%.4f\n", $1 / $2 }' "$tmp/$prog" | sort -g | quantiles)
  printf '%s --version: A %.1f ms, B %.1f ms (medians); A/B per pair: median %.2f, middle half %.2f to %.2f, 10%% to 90%% %.2f to %.2f\n' \
    "$prog" "$(awk "BEGIN { print $ma / 1000 }")" "$(awk "BEGIN { print $mb / 1000 }")" "$r50" "$r25" "$r75" "$r10" "$r90"
done
