#!/usr/bin/env bash
# bench/graphopt-eqsat.sh: graphopt's two searches side by side on the model zoo, in one run:
# TASO's backtracking (default budget and time limit) and equality saturation (default: greedy
# extraction and local moves), per model the cost found, the optimization time (backtracking's
# also up to its best model: the budget that model needs, and the time a run with that budget
# takes), the e-graph's size and eqsat's time over backtracking's, both ways; then equality saturation again with the ILP (--extract ilp): its cost, gap and time;
# with RUNS > 0 also onnxruntime's CPU latency of the two searches' default models, measured side
# by side (models/ort_compare.js: pairs in alternating order, at least RUNS pairs and 10 s; ratio
# above 1: eqsat's model is faster). Figures come from graphopt optimize --json.
# Usage: bench/graphopt-eqsat.sh RULES [OUT [COST [RUNS [MODEL...]]]]
#   RULES  rule text, or a .db (used with --allow-unsigned)
#   OUT    work directory (default build/bench-eqsat); the zoo is built in OUT/zoo if missing
#   COST   roofline (default), roofline:MACHINE or dnnl;  RUNS: onnxruntime pairs per model (default 0: none)
set -euo pipefail
. "$(dirname "$0")/zoo_args.sh" "bench/graphopt-eqsat.sh RULES [OUT [COST [RUNS [MODEL...]]]]" \
  "$(cd "$(dirname "$0")/.." && pwd)/build/bench-eqsat" 0 "$@"
field() { /usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, j))' "$@"; }
echo "| model | cost before | backtrack: cost, time (to best: budget, time) | eqsat: cost, time | e-nodes (stop) | eqsat/backtrack time (to best) | eqsat --extract ilp: cost, gap, ILP time | ort backtrack / eqsat (ms) |"
echo "|---|---|---|---|---|---|---|---|"
for m in "${models[@]}"; do
  row="| $m"
  for s in backtrack eqsat ilp; do
    rc=0 search=(--search "$s")
    [ "$s" = ilp ] && search=(--search eqsat --extract ilp)
    rm -f "$out/$m.$s.json" "$out/$m.$s.onnx" "$out/$m.$s.wall" # nothing of an earlier run is read
    /usr/bin/time -f %e -o "$out/$m.$s.wall" "$graphopt" optimize "$out/zoo/$m.onnx" "${rule_args[@]}" \
      -o "$out/$m.$s.onnx" "${cost_args[@]}" "${search[@]}" --no-guard --json "$out/$m.$s.json" -q >"$out/$m.$s.log" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ]; then # the row keeps its columns: this search's cells say why
      failed="$s: exit $rc, see $out/$m.$s.log"
      case $s in
        backtrack) row="$row | $failed | $failed" ;;
        eqsat) row="$row | $failed | $failed | $failed" ;;
        ilp) row="$row | $failed" ;;
      esac
      continue
    fi
    j=$out/$m.$s.json
    [ "$s" = backtrack ] && row="$row | $(field "$j" '"%.6g" % cost_before')"
    [ "$s" = backtrack ] && row="$row | $(field "$j" '"%.6g, %.2f s (%d, %.2f s)" % (cost_after, seconds, explored_to_best, seconds_to_best)')"
    [ "$s" = eqsat ] && row="$row | $(field "$j" '"%.6g, %.2f s" % (cost_after, seconds)')"
    if [ "$s" = eqsat ]; then
      row="$row | $(field "$j" '"%d (%s)" % (eqsat["enodes"], eqsat["stop_reason"])')"
      if [ ! -f "$out/$m.backtrack.json" ]; then row="$row | no backtracking figure"; else row="$row | $(/usr/bin/python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); print("%.3f (%.3f)" % (b["seconds"] / a["seconds"], b["seconds"] / max(a["seconds_to_best"], 1e-3)))' "$out/$m.backtrack.json" "$j")"; fi
    fi
    # the ILP's gap by its own objective (e-node costs); no incumbent (null) reads as 100%
    [ "$s" = ilp ] && row="$row | $(field "$j" '"%.6g, %.2f%%, %.2f s" % (cost_after, max(0, 100 * (1 - (eqsat["ilp_bound"] or 0) / eqsat["ilp_cost"])) if eqsat["ilp_cost"] else 100, eqsat["ilp_seconds"])')"
  done
  if [ "$runs" -gt 0 ] && [ -f "$out/$m.eqsat.onnx" ] && [ -f "$out/$m.backtrack.onnx" ]; then
    cmp=$(node "$root/models/ort_compare.js" "$out/$m.backtrack.onnx" "$out/$m.eqsat.onnx" --runs "$runs" --min-seconds 10 --json)
    row="$row | $(node -e 'const j=JSON.parse(process.argv[1]); console.log(j.a.median_ms.toFixed(2)+" / "+j.b.median_ms.toFixed(2)+" ("+j.ratio.toFixed(3)+")")' "$cmp")"
  else
    row="$row | not measured"
  fi
  echo "$row |"
done
