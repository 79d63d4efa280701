#!/usr/bin/env bash
# bench/prove.sh: `rulegen prove` on a rule file (default: TASO's 133 shipped rules,
# tests/data/taso-133.rules) with 1 and 2 threads: rules verified by both solvers, and per-solver
# median / 95th-percentile time per obligation, for each thread count.
# Usage: bench/prove.sh [RULES] [BUILD_DIR] [TIMEOUT_MS]   (defaults: taso-133, build, 5000)
# Environment: THREADS (default "1 2"), PROVE_ARGS (more options for rulegen prove, e.g. -Y for
# rules already tested at their shapes).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rules=${1:-$root/tests/data/taso-133.rules}
build=${2:-$root/build}
timeout=${3:-5000}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for threads in ${THREADS:-1 2}; do
  # shellcheck disable=SC2086 # PROVE_ARGS is a list of options
  "$build/tools/rulegen" prove -N ${PROVE_ARGS:-} -j "$threads" --timeout-ms "$timeout" "$rules" >"$out" 2>/dev/null || true
  echo "threads=$threads: $(tail -1 "$out")"
  for solver in z3 cvc5; do
    grep -E "^    $solver " "$out" | awk '{print $3}' | sort -n |
      awk -v s="$solver" '{v[NR]=$1} END {printf "  %s: %d queries, median %.1f ms, p95 %.1f ms\n", s, NR, v[int((NR+1)/2)], v[int(NR*0.95+0.5)]}'
  done
done
