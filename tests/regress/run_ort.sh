#!/usr/bin/env bash
# graphopt's onnxruntime cost model (--cost ort) and measured guard, issue 43.
#   run_ort.sh GRAPHOPT ROOT faults   the helper faked (tests/regress/fake_ort_helper.sh): killed,
#                                     hung, garbage, refusing, not starting; the cache (a second
#                                     run measures nothing; a corrupt one moved aside and rebuilt);
#                                     the guard's verdict both ways. No node needed.
#   run_ort.sh GRAPHOPT ROOT real     the same with onnxruntime itself (exit 77 without node or
#                                     models/node_modules/onnxruntime-node): costs measured, then
#                                     cached; the guard on a model against itself writes the original.
# Every run is bounded (timeout): a hang is a failure, not a stuck test.
set -u
unset GRAPHOPT_GUARD # the guard's defaults are tested here (ctest turns it off for the other tests)
graphopt=$1 root=$2 mode=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
opt=$root/tests/regress/optimize
model=$root/tests/regress/optimize/fire.onnx # two convs with bias and relu, a concat
fake=$root/tests/regress/fake_ort_helper.sh
fail=0 n=0

# check NAME STATUS TEXT CMD...: CMD exits with STATUS within 120 s and its output holds TEXT
check() {
  local name=$1 status=$2 text=$3 why=""
  shift 3
  n=$((n + 1))
  out=$(timeout 120 "$@" 2>&1)
  local rc=$?
  [ "$rc" -ne "$status" ] && why="exit status $rc, want $status"
  [ -z "$why" ] && ! grep -qF -- "$text" <<<"$out" && why="the output lacks '$text'"
  [ -z "$why" ] && grep -qE 'Sanitizer|runtime error' <<<"$out" && why="a sanitizer report"
  [ -z "$why" ] || { echo "FAIL $name: $why; output: $out"; fail=$((fail + 1)); }
}

# same NAME A B / differ NAME A B: the files are (not) byte for byte equal
same() { n=$((n + 1)); cmp -s "$2" "$3" || { echo "FAIL $1: $3 is not a copy of $2"; fail=$((fail + 1)); }; }
differ() { n=$((n + 1)); cmp -s "$2" "$3" && { echo "FAIL $1: $3 is a copy of $2"; fail=$((fail + 1)); }; }

mm=("$graphopt" optimize "$opt/merge_matmuls.onnx" --rules "$opt/merge.rules" -q) # two products to merge

faults() {
  export RG_ORT_HELPER=$fake
  check "measured" 0 "configurations: 9 measured, 0 from the cache" \
    "$graphopt" cost "$model" --cost ort --cache "$tmp/c.sqlite"
  check "second run measures nothing" 0 "configurations: 0 measured, 7 from the cache" \
    "$graphopt" cost "$model" --cost ort --cache "$tmp/c.sqlite"
  echo "not a cache" >"$tmp/c.sqlite"
  check "corrupt cache moved aside" 0 "moved aside to $tmp/c.sqlite.corrupt" \
    "$graphopt" cost "$model" --cost ort --cache "$tmp/c.sqlite"
  check "corrupt cache rebuilt" 0 "configurations: 0 measured, 7 from the cache" \
    "$graphopt" cost "$model" --cost ort --cache "$tmp/c.sqlite"
  check "no helper" 2 "the onnxruntime helper RG_ORT_HELPER=$tmp/none: not found" \
    env RG_ORT_HELPER="$tmp/none" "$graphopt" cost "$model" --cost ort --no-cache
  check "no node" 2 "failed to start: it could not be run (is node on PATH" \
    env -u RG_ORT_HELPER PATH=/nonexistent "$graphopt" cost "$model" --cost ort --no-cache
  check "helper does not start" 2 "failed to start: it exited with status 3 without answering: fake helper: cannot load" \
    env FAKE_ORT=crash-start "$graphopt" cost "$model" --cost ort --no-cache
  check "helper killed" 0 "failed timing a model: it died on signal 9" \
    env FAKE_ORT=kill "$graphopt" cost "$model" --cost ort --no-cache
  check "helper killed: the roofline's figures" 0 "0 measured, 0 from the cache, 7 by the roofline" \
    env FAKE_ORT=kill "$graphopt" cost "$model" --cost ort --no-cache
  check "helper hung" 0 "it gave no answer within 2 s and was killed" \
    env FAKE_ORT=hang RG_ORT_TIMEOUT=2 "$graphopt" cost "$model" --cost ort --no-cache
  check "helper answers garbage" 0 "it answered 'hello from a broken helper\\x0a', not a reply frame" \
    env FAKE_ORT=garbage "$graphopt" cost "$model" --cost ort --no-cache
  check "onnxruntime refuses" 0 "0 measured, 0 from the cache $tmp/r.sqlite, 7 by the roofline (7 of them refused or failed by onnxruntime, 0 with nothing to time)" \
    env FAKE_ORT=refuse "$graphopt" cost "$model" --cost ort --cache "$tmp/r.sqlite"
  check "refused: not tried again" 0 "0 measured, 0 from the cache $tmp/r.sqlite, 7 by the roofline (7 of them refused" \
    env FAKE_ORT=kill "$graphopt" cost "$model" --cost ort --cache "$tmp/r.sqlite"
  # the guard: a slower rewrite is not written, a faster one is; its figures in --json
  check "guard: slower" 0 "median 0.833, lowest 0.833, highest 0.833 (all pairs' medians: original 0.100 ms, optimized 0.120 ms)" \
    "${mm[@]}" -o "$tmp/slow.onnx" --guard --json "$tmp/slow.json"
  same "guard: slower, the original written" "$opt/merge_matmuls.onnx" "$tmp/slow.onnx"
  check "guard: slower, json" 0 '"optimized_ms": 0.12, "ratio": 0.83333333333333337' cat "$tmp/slow.json"
  check "guard: slower, json verdict" 0 '"written": "original"}}' cat "$tmp/slow.json"
  check "guard: faster" 0 "faster beyond the noise (every round above 1, the median at least 1.01): the optimized model is written" \
    env FAKE_ORT_B=80 "${mm[@]}" -o "$tmp/fast.onnx" --guard
  differ "guard: faster, the optimized model written" "$opt/merge_matmuls.onnx" "$tmp/fast.onnx"
  check "guard: no equal ratio passes" 0 "not faster beyond the noise" \
    env FAKE_ORT_B=100 "${mm[@]}" -o "$tmp/eq.onnx" --guard
  check "guard: cannot measure" 2 "(--no-guard writes the optimized model unmeasured)" \
    env FAKE_ORT=refuse "${mm[@]}" -o "$tmp/x.onnx" --guard
  n=$((n + 1))
  [ -e "$tmp/x.onnx" ] && { echo "FAIL guard: cannot measure: $tmp/x.onnx written"; fail=$((fail + 1)); }
  check "guard off: GRAPHOPT_GUARD=off" 0 '"guard": null' sh -c "GRAPHOPT_GUARD=off \"$graphopt\" optimize \
    \"$opt/merge_matmuls.onnx\" --rules \"$opt/merge.rules\" -q -o \"$tmp/off.onnx\" --json \"$tmp/off.json\" \
    && cat \"$tmp/off.json\""
  # on by default with this CPU's costs (the roofline's cpu-default): a slower rewrite is not written
  check "guard on by default" 0 "written (the original: the optimized model is not faster)" \
    "${mm[@]}" -o "$tmp/dflt.onnx"
  same "guard on by default: the original written" "$opt/merge_matmuls.onnx" "$tmp/dflt.onnx"
  check "guard on by default: said in --json" 0 '"guard": {"measured": true, "asked": false' sh -c \
    "GRAPHOPT_GUARD=auto \"$graphopt\" optimize \"$opt/merge_matmuls.onnx\" --rules \"$opt/merge.rules\" -q \
    -o \"$tmp/dj.onnx\" --json \"$tmp/dj.json\" && cat \"$tmp/dj.json\""
  check "guard off by default for another machine" 0 '"guard": null' sh -c "\"$graphopt\" optimize \
    \"$opt/merge_matmuls.onnx\" --rules \"$opt/merge.rules\" -q -o \"$tmp/gpu.onnx\" --machine gpu-h100 \
    --json \"$tmp/gpu.json\" && cat \"$tmp/gpu.json\""
  check "guard on by default for cpu-default's file" 0 "written (the original: the optimized model is not faster)" \
    "${mm[@]}" -o "$tmp/cpufile.onnx" --machine "$root/optimizer/cost/machines/cpu-default.txt"
  # on by default and unable to measure: the optimized model written unmeasured, said; asked: nothing
  check "guard by default, no helper" 0 "guard: not measured (the onnxruntime helper RG_ORT_HELPER=$tmp/none: not found" \
    env RG_ORT_HELPER="$tmp/none" "${mm[@]}" -o "$tmp/nohelper.onnx"
  differ "guard by default, no helper: the optimized model written" "$opt/merge_matmuls.onnx" "$tmp/nohelper.onnx"
  check "guard by default, onnxruntime refuses" 0 "the optimized model is written unmeasured" \
    env FAKE_ORT=refuse "${mm[@]}" -o "$tmp/refused.onnx"
  # the models run on the inputs the numeric check drew: shapes, and indices within a Gather's table
  check "guard: the inputs' shapes sent" 0 "" env FAKE_ORT_LOG="$tmp/cmds" "${mm[@]}" -o "$tmp/in1.onnx"
  check "guard: the inputs' shapes sent, logged" 0 '"inputs": {"h": {"dims": [32, 64]}}' cat "$tmp/cmds"
  check "guard: a Gather's indices bounded" 0 "" env FAKE_ORT_LOG="$tmp/cmds2" "$graphopt" optimize \
    "$opt/embedding10.onnx" --rules "$opt/merge.rules" -q -o "$tmp/in2.onnx"
  check "guard: a Gather's indices bounded, logged" 0 '"ids": {"dims": [6], "int_max": 10}' cat "$tmp/cmds2"
  # Ctrl-C while the guard waits (a hung helper): timing stops, the optimized model is written
  # unmeasured, said, as a stopped search keeps its best; --json says why. (The signal reaches
  # the helper too: which of the two ends the wait first, graphopt's flag or the helper's death,
  # is a race, and both are said as the reason.)
  check "guard: Ctrl-C while timing" 0 "the optimized model is written unmeasured" timeout --preserve-status -s INT 3 \
    env FAKE_ORT=hang "${mm[@]}" -o "$tmp/int.onnx" --guard --json "$tmp/int.json"
  differ "guard: Ctrl-C while timing, the optimized model written" "$opt/merge_matmuls.onnx" "$tmp/int.onnx"
  # the signal to graphopt alone: its flag ends the wait on a helper that lives on
  check "guard: SIGINT to graphopt alone" 0 "interrupted (Ctrl-C) waiting for its reply" sh -c "FAKE_ORT=hang \
    \"$graphopt\" optimize \"$opt/merge_matmuls.onnx\" --rules \"$opt/merge.rules\" -q -o \"$tmp/int2.onnx\" --guard & \
    p=\$!; sleep 4; kill -INT \$p; wait \$p"
  check "guard: Ctrl-C while timing, json" 0 '"unmeasured": "the onnxruntime helper' cat "$tmp/int.json"
  # onnxruntime refusing the optimized model alone: the original written, asked for or not
  check "guard: the optimized model refused" 0 "onnxruntime refuses the optimized model, not the original" \
    env FAKE_ORT=refuse-b "${mm[@]}" -o "$tmp/rb.onnx"
  same "guard: the optimized model refused, the original written" "$opt/merge_matmuls.onnx" "$tmp/rb.onnx"
  check "guard asked: the optimized model refused" 0 "written (the original: " \
    env FAKE_ORT=refuse-b "${mm[@]}" -o "$tmp/rb2.onnx" --guard
  same "guard asked: the optimized model refused, the original written" "$opt/merge_matmuls.onnx" "$tmp/rb2.onnx"
  check "GRAPHOPT_GUARD=on, no helper" 2 "RG_ORT_HELPER=$tmp/none: not found" \
    env GRAPHOPT_GUARD=on RG_ORT_HELPER="$tmp/none" "${mm[@]}" -o "$tmp/on.onnx"
  check "GRAPHOPT_GUARD misspelt" 2 "GRAPHOPT_GUARD=yes: want on, off or auto" \
    env GRAPHOPT_GUARD=yes "${mm[@]}" -o "$tmp/yes.onnx"
  n=$((n + 1))
  [ -e "$tmp/on.onnx" ] || [ -e "$tmp/yes.onnx" ] && { echo "FAIL GRAPHOPT_GUARD: a model written"; fail=$((fail + 1)); }
  check "guard on with ort" 0 "guard (onnxruntime-node 0.0.0-fake" "${mm[@]}" -o "$tmp/ort.onnx" --cost ort --no-cache
  check "--no-guard with ort" 0 '"guard": null' sh -c "\"$graphopt\" optimize \"$opt/merge_matmuls.onnx\" \
    --rules \"$opt/merge.rules\" -q -o \"$tmp/ng.onnx\" --cost ort --no-cache --no-guard --json \"$tmp/ng.json\" && cat \"$tmp/ng.json\""
}

real() {
  command -v node >/dev/null && [ -d "$root/models/node_modules/onnxruntime-node" ] || {
    echo "skipped: no node, or no models/node_modules/onnxruntime-node (scripts/setup.sh)"; exit 77; }
  unset RG_ORT_HELPER
  check "measured in onnxruntime" 0 "onnxruntime-node 1.30.0" \
    "$graphopt" cost "$opt/fire.onnx" --cost ort --cache "$tmp/c.sqlite"
  check "no fallback" 0 "c.sqlite, 0 by the roofline (nothing to time)" \
    "$graphopt" cost "$opt/merge_convs.onnx" --cost ort --cache "$tmp/c.sqlite"
  check "second run measures nothing" 0 "configurations: 0 measured" \
    "$graphopt" cost "$opt/fire.onnx" --cost ort --cache "$tmp/c.sqlite"
  check "overheads" 0 "us a run (left out of every cost)" \
    "$graphopt" cost "$opt/fire.onnx" --cost ort --cache "$tmp/c.sqlite"
  # the original against itself (the test hook): certainly no faster, so the original is written.
  # Under the roofline the merge is certainly taken; under --cost ort the two small products'
  # timings decide, and on a busy machine they may keep the original, leaving nothing to guard.
  check "guard: the original against itself" 0 "RG_TEST_GUARD_SELF: the original against itself): the rounds' ratios" \
    env RG_TEST_GUARD_SELF=1 "${mm[@]}" -o "$tmp/self.onnx" --guard
  same "guard: the original written" "$opt/merge_matmuls.onnx" "$tmp/self.onnx"
  check "guard: said" 0 "written (the original: the optimized model is not faster)" cat /dev/stdin <<<"$out"
  # int64 ids into a 10-row table: drawn within it, as the numeric check draws them
  check "guard: an embedding's ids within its table" 0 "the rounds' ratios original / optimized" \
    env RG_TEST_GUARD_SELF= "$graphopt" optimize "$opt/embedding10.onnx" --rules "$opt/merge.rules" -q -o "$tmp/e.onnx" \
    --guard
  check "guard: its verdict in --json" 0 '"self": true' sh -c "RG_TEST_GUARD_SELF=1 \"$graphopt\" optimize \
    \"$opt/merge_matmuls.onnx\" --rules \"$opt/merge.rules\" -q -o \"$tmp/self2.onnx\" --guard --json \"$tmp/s.json\" \
    && cat \"$tmp/s.json\""
}

case $mode in
  faults) faults ;;
  real) real ;;
  *) echo "run_ort.sh: mode faults or real, not '$mode'"; exit 2 ;;
esac
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
