#!/usr/bin/env bash
# bench/prove-ab.sh: two `rulegen prove` set-ups side by side on one rule file, in interleaved
# pairs (A B A B ..., so that the machine's load falls on both alike): per run the wall time, the
# statuses, and per solver and answer the queries, their summed time and median.
# Usage: bench/prove-ab.sh RULES 'A: rulegen and options' 'B: rulegen and options' [PAIRS]
# e.g. bench/prove-ab.sh bench/data/d4-pruned-sample1000.rules \
#        'build/tools/rulegen prove -T 300 -F -Y -j 1 -E 0 --no-proof-cache' \
#        'build/tools/rulegen prove -T 300 -F -Y -j 1 -E 0 --no-proof-cache --no-core-hint' 2
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,9p "$0"; exit 2; }
rules=$1 a=$2 b=$3 pairs=${4:-2}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((i = 1; i <= pairs; i++)); do
  for side in A B; do
    cmd=$a; [ "$side" = B ] && cmd=$b
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086 # the command is a list of words
    $cmd "$rules" >"$out" 2>/dev/null || true
    t1=$(date +%s.%N)
    printf '%s %d: %.1f s wall; %s\n' "$side" "$i" "$(echo "$t1 - $t0" | bc)" \
      "$(tail -1 "$out" | grep -o '[0-9]* verified, [0-9]* proved-by-z3-only, [0-9]* proved-by-cvc5-only, [0-9]* unproved')"
    awk '$1 ~ /^(z3|cvc5)$/ && $4 == "ms" {print $1 "/" $2, $3}' "$out" | sort -k1,1 -k2,2n |
      awk 'function put() {if (m) printf "    %-14s %5d queries, %7.1f s, median %.0f ms\n", k, m, s / 1000, v[int((m + 1) / 2)]}
           $1 != k {put(); k = $1; m = 0; s = 0} {v[++m] = $2; s += $2} END {put()}'
  done
done
