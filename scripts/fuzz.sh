#!/usr/bin/env bash
# Builds the parsers' libFuzzer harnesses (tests/fuzz.cmake) with clang, ASan and UBSan in
# build-fuzz/ and runs each for SECONDS (default 30; scripts/test.sh gives 20), as many at once as
# there are cores, from its seeds (tests/fuzz/corpus/NAME).
# Exit status 1 when a harness finds a crash, a leak, a sanitizer report or a broken property:
# the input is kept in build-fuzz/findings/NAME/ (add it to tests/fuzz/regress/NAME/ once
# fixed: ctest replays those). CI runs it with the default; bench/fuzz-long.sh runs for hours.
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-30}
shift || true
build=${RG_FUZZ_BUILD:-$root/build-fuzz}
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(rule_text axioms inputs cert tensat taso journal db onnx)
mkdir -p "$build"
generator=() # Ninja for a new tree, as scripts/build.sh
[ -f "$build/CMakeCache.txt" ] || generator=(-G Ninja)
CC=clang CXX=clang++ cmake "${generator[@]}" -S "$root" -B "$build" -DRG_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 2; }
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" >"$build/build.log" 2>&1 || { tail -40 "$build/build.log"; exit 2; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# One harness per core at a time (-jobs would split one harness's time, not run more of them).
run_one() { # NAME: fuzzes it, leaves its exit status in $build/fuzz_NAME.status
  local h=$1 work="$build/corpus/$1" findings="$build/findings/$1"
  mkdir -p "$work" "$findings"
  cp -n "$root/tests/fuzz/corpus/$h"/* "$work/" 2>/dev/null || true
  local rc=0
  rm -f "$build/fuzz_$h.status"
  "$build/tests/fuzz_$h" -max_total_time="$seconds" -seed=1 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$findings/" -print_final_stats=1 "$work" >"$build/fuzz_$h.log" 2>&1 || rc=$?
  echo $rc >"$build/fuzz_$h.status"
}
slots=$(nproc)
for h in "${harnesses[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$slots" ]; do wait -n || true; done
  run_one "$h" &
done
wait
fail=0
for h in "${harnesses[@]}"; do
  log="$build/fuzz_$h.log" findings="$build/findings/$h"
  if [ "$(cat "$build/fuzz_$h.status")" = 0 ]; then
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz_$h: $execs executions in ${seconds} s, no finding"
  else
    echo "fuzz_$h: FINDING (kept in $findings):"
    grep -E 'ERROR|fuzz:|SUMMARY|Test unit written' "$log" | head -8
    fail=1
  fi
done
exit $fail
