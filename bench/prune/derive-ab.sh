#!/usr/bin/env bash
# bench/prune/derive-ab.sh: `rulegen prune` of one rule file by two builds, in interleaved pairs
# (A B A B ..., so that the machine's load falls on both alike): per run the derivability stage's
# time and the process's CPU seconds; then the medians, their ratios A/B, and whether both wrote
# the same kept rules and removal records (they must: a faster search that decides otherwise is
# a bug).
# Usage: bench/prune/derive-ab.sh RULES RULEGEN_A RULEGEN_B [PAIRS]
# e.g. (TASO's operators at depth 3: the rules after generalize, about a minute to make)
#   build/tools/rulegen --ops taso,bias --depth 3 -q --stop-after prune -o t3.rules
#   bench/prune/derive-ab.sh t3.rules.generalized build/tools/rulegen ../old/build/tools/rulegen 5
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,11p "$0"; exit 2; }
rules=$1 a=$2 b=$3 pairs=${4:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for ((i = 1; i <= pairs; i++)); do
  for side in A B; do
    bin=$a; [ "$side" = B ] && bin=$b
    OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} /usr/bin/time -f "%U %S" -o "$dir/time" \
      "$bin" prune -q "$rules" -o "$dir/$side.rules" >"$dir/out" 2>&1
    derive=$(awk '$1 == "derivability" {sub(/s$/, "", $NF); print $NF}' "$dir/out")
    cpu=$(awk '{print $1 + $2}' "$dir/time")
    echo "$side $i: derivability $derive s, cpu $cpu s"
    echo "$side $derive $cpu" >>"$dir/all"
  done
done
median() { sort -n | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for k in 2 3; do
  what=derivability; [ $k = 3 ] && what=cpu
  ma=$(awk -v k=$k '$1 == "A" {print $k}' "$dir/all" | median)
  mb=$(awk -v k=$k '$1 == "B" {print $k}' "$dir/all" | median)
  echo "median $what: A $ma s, B $mb s, A/B $(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.3f", a / b}')"
done
if cmp -s "$dir/A.rules" "$dir/B.rules" && cmp -s "$dir/A.rules.removed" "$dir/B.rules.removed"; then
  echo "the same kept rules and removal records"
else
  echo "A and B DIFFER: kept rules or removal records"; exit 1
fi
