#!/usr/bin/env bash
# bench/graphopt-zoo-all.sh: the graphopt benchmark in one run: bench/graphopt-zoo.sh over every
# zoo model for each rule set given and each cost model (roofline, then dnnl), one table each.
# Run it on an otherwise idle machine: the dnnl cost model and onnxruntime's latencies are
# timings (dnnl's go to its cache on first use, so the first dnnl table's search times include
# the measuring).
# Usage: bench/graphopt-zoo-all.sh OUT RUNS RULES...   e.g.
#   bench/graphopt-zoo-all.sh build/bench-graphopt 100 tests/data/taso-bias-d3.rules tests/data/taso-133.rules
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: bench/graphopt-zoo-all.sh OUT RUNS RULES...}
runs=${2:?usage: bench/graphopt-zoo-all.sh OUT RUNS RULES...}
shift 2
[ $# -gt 0 ] || { echo "usage: bench/graphopt-zoo-all.sh OUT RUNS RULES..." >&2; exit 2; }
mkdir -p "$out"
for rules in "$@"; do
  for cost in roofline dnnl; do
    name=$(basename "$rules" | sed 's/\.[a-z]*$//')
    dir=$out/$name-$cost
    mkdir -p "$dir"
    [ -e "$dir/zoo" ] || ln -s "$(cd "$out" && pwd)/zoo" "$dir/zoo"
    echo "### $name, --cost $cost ($(date -u +%H:%M:%S) UTC)"
    "$root/bench/graphopt-zoo.sh" "$rules" "$dir" "$cost" "$runs"
    echo
  done
done
