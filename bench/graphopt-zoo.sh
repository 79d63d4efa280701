#!/usr/bin/env bash
# bench/graphopt-zoo.sh: graphopt over the model zoo with a rule set, one model after another:
# operators before and after, cost before and after, search time and the numeric check (from
# graphopt's own table; graphopt's default search, equality saturation, or GRAPHOPT_SEARCH=backtrack),
# then onnxruntime's latency of the original and of graphopt's output
# measured side by side (models/ort_compare.js: level 'all', 2 threads, pool threads not
# spinning, pairs of runs in alternating order, at least RUNS pairs and 10 s; the medians' ratio,
# above 1 the optimized model is faster). A model no rule improved is graphopt's copy of the
# original: its ratio measures only the noise. graphopt runs with its defaults, the measured
# guard included where they turn it on (the check column says what it decided, the rounds'
# median ratio): a model it kept is the original; GRAPHOPT_GUARD=off measures the cost model's
# choice alone.
# Usage: bench/graphopt-zoo.sh RULES [OUT [COST [RUNS [MODEL...]]]]
#   RULES  rule text, a .db (used with --allow-unsigned: say so by giving an unsigned one), or
#          default: graphopt's default set (no --rules), the run a user gets
#   OUT    work directory (default build/bench-graphopt); the zoo is built in OUT/zoo if missing
#   COST   roofline (default) or dnnl;  RUNS: interleaved onnxruntime runs per model (default 100;
#          0 measures no latency)
set -euo pipefail
. "$(dirname "$0")/zoo_args.sh" "bench/graphopt-zoo.sh RULES [OUT [COST [RUNS [MODEL...]]]]" \
  "$(cd "$(dirname "$0")/.." && pwd)/build/bench-graphopt" 100 "$@"
echo "| model | operators before -> after | cost ($cost) before -> after | search | check | ort original / optimized (ms) | ratio |"
echo "|---|---|---|---|---|---|---|"
for m in "${models[@]}"; do
  log=$out/$m.$cost.log
  rc=0
  "$graphopt" "${rule_args[@]}" "$out/zoo/$m.onnx" -o "$out/$m.opt.onnx" "${cost_args[@]}" \
    ${GRAPHOPT_SEARCH:+--search "$GRAPHOPT_SEARCH"} -q >"$log" 2>&1 || rc=$?
  ops=$(sed -n 's/^operators (before -> after): //p' "$log")
  c=$(sed -n 's/^cost ([a-z]*): \([^(]*\) (\(.*\))$/\1 (\2)/p' "$log")
  s=$(sed -n 's/^search: \([0-9]*\) rules applied; \([0-9]*\) models explored.*; \([0-9.]*\) s.*/\1 rules, \2 explored, \3 s/p
             s/^search: \([0-9]*\) rules applied; eqsat, \([0-9]*\) iterations, \([0-9]*\) e-nodes; \([0-9.]*\) s.*/\1 rules, \3 e-nodes, \4 s/p' "$log")
  chk=$(sed -n 's/^numeric check: outputs agree, largest relative difference \([^ ]*\).*/agree (\1)/p; s/^numeric check: nothing to check.*/no rewrite/p; s/^numeric check: FAILED.*/FAILED/p' "$log")
  g=$(sed -n 's/^guard (.*; ratio \([0-9.]*\) .*: \(the original\|the optimized model\) is written$/, guard \1: \2/p
             s/^guard: not measured.*/, guard: not measured/p' "$log")
  chk="$chk$g"
  if [ "$rc" -ne 0 ]; then
    echo "| $m | graphopt exit $rc: see $log | | | | | |"
    continue
  fi
  if [ "$runs" -eq 0 ]; then
    echo "| $m | $ops | $c | $s | $chk | not measured | |"
    continue
  fi
  cmp=$(node "$root/models/ort_compare.js" "$out/zoo/$m.onnx" "$out/$m.opt.onnx" --runs "$runs" --min-seconds 10 --json)
  lat=$(node -e 'const j=JSON.parse(process.argv[1]); console.log(j.a.median_ms.toFixed(2)+" / "+j.b.median_ms.toFixed(2)+" | "+j.ratio.toFixed(3))' "$cmp")
  echo "| $m | $ops | $c | $s | $chk | $lat |"
done
