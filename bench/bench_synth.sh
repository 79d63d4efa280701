#!/usr/bin/env bash
# Benchmarks of the synth pipeline (not a ctest test: it runs for minutes).
#   bench/bench_synth.sh RULEGEN [depth3|depth4]
# depth3: TASO's operator set and inputs (the defaults), depth 3, with 1 and 2 threads;
# depth4: --ops all, depth 4, 2 threads, up to the tested candidates (long: tens of minutes).
# Prints one table row per run: wall time, CPU time (user + system: on a machine shared with
# other jobs the wall time of a 2-thread run depends on whether the second core was free),
# graphs enumerated, graphs/s over the enumerate stage, peak RSS (from /usr/bin/time), buckets,
# candidates tested and passed.
set -eu
rulegen=$1
what=${2:-depth3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
row() { # label, args...
  local label=$1
  shift
  /usr/bin/time -v "$rulegen" -q -o "$out/c.rules" "$@" 2>"$out/log" || { cat "$out/log"; exit 1; }
  local wall cpu graphs enum_s rss buckets tested pass
  wall=$(sed -n 's/^total *\([0-9.]*\) s wall.*/\1/p' "$out/log")
  graphs=$(sed -n 's/^enumerate *\([0-9]*\) graphs.*/\1/p' "$out/log")
  enum_s=$(sed -n 's/^enumerate .* \([0-9.]*\) s$/\1/p' "$out/log")
  cpu=$(sed -n 's/.*\(User\|System\) time (seconds): \([0-9.]*\)/\2/p' "$out/log" | paste -sd+ | bc)
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\)/\1/p' "$out/log")
  buckets=$(sed -n 's/^fingerprint .*, \([0-9]*\) buckets.*/\1/p' "$out/log")
  tested=$(sed -n 's/^test *\([0-9]*\) candidate pairs tested, \([0-9]*\) pass.*/\1/p' "$out/log")
  pass=$(sed -n 's/^test *\([0-9]*\) candidate pairs tested, \([0-9]*\) pass.*/\2/p' "$out/log")
  printf "| %-28s | %8s s | %7s s | %10s | %9.0f | %7.0f MB | %8s | %8s | %8s |\n" "$label" "$wall" "$cpu" \
    "$graphs" "$(echo "$graphs / $enum_s" | bc -l)" "$(echo "$rss / 1024" | bc -l)" "$buckets" \
    "$tested" "$pass"
}
echo "| run                          |      wall |       CPU |     graphs | graphs/s (enum+fp) | peak RSS | buckets | tested | pass |"
echo "|---|---|---|---|---|---|---|---|---|"
case $what in
depth3)
  row "depth 3, TASO ops, 1 thread" --depth 3 -j 1 --stop-after test
  row "depth 3, TASO ops, 2 threads" --depth 3 -j 2 --stop-after test
  row "depth 3 enumerate only, 1 thr" --depth 3 -j 1 --stop-after enumerate
  row "depth 3 enumerate only, 2 thr" --depth 3 -j 2 --stop-after enumerate
  ;;
depth4)
  row "depth 4, --ops all, 2 threads" --ops all --depth 4 -j 2 --stop-after test
  ;;
*) echo "unknown benchmark $what (depth3 or depth4)"; exit 2 ;;
esac
