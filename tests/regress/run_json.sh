#!/usr/bin/env bash
# --json for CI: `rulegen prove --json` and `graphopt optimize --json` write JSON that parses and
# whose figures are the ones the printed summary shows.
set -u
bin=$1 # the folder holding rulegen and graphopt
dir=$2 # tests/regress/optimize: merge.rules (proved by both solvers) and small models
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/check.sh"
"$bin/rulegen" prove -j 2 --no-check-axioms "$dir/merge.rules" --json "$tmp/prove.json" >"$tmp/prove.txt" 2>/dev/null
check "rulegen prove --json parses and agrees with the summary line" 0 python3 - "$tmp/prove.json" "$tmp/prove.txt" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
m = re.search(r"^(\d+) rules: (\d+) verified", open(sys.argv[2]).read(), re.M)
assert m, "no summary line"
assert j["prove"]["n_rules"] == int(m.group(1)) > 0, (j["prove"], m.group(0))
assert j["prove"]["verified"] == int(m.group(2)), (j["prove"], m.group(0))
assert len(j["rules"]) == j["prove"]["n_rules"] and all(r["status"] for r in j["rules"])
assert j["require"] == "both"
PY
(cd "$dir" && "$bin/graphopt" optimize merge_convs.onnx --rules merge.rules --search backtrack -o "$tmp/convs.onnx" -q \
  --json "$tmp/opt.json" >"$tmp/opt.txt" 2>&1)
check "graphopt optimize --search backtrack --json parses and agrees with the printed figures" 0 python3 - "$tmp/opt.json" "$tmp/opt.txt" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
t = open(sys.argv[2]).read()
m = re.search(r"search: (\d+) rules applied; (\d+) models explored", t)
assert m and j["rules_applied"] == int(m.group(1)) > 0 and j["explored"] == int(m.group(2)), (j, t)
c = re.search(r"cost \(([^)]*)\): (\S+) -> (\S+) ", t)
assert c and j["cost_model"] == c.group(1), (j, t)
assert abs(j["cost_before"] - float(c.group(2))) <= 1e-5 * j["cost_before"], (j, c.group(0))
assert abs(j["cost_after"] - float(c.group(3))) <= 1e-5 * j["cost_before"], (j, c.group(0))
assert j["cost_after"] < j["cost_before"] and len(j["steps"]) == j["rules_applied"] and "eqsat" not in j
assert j["stopped"] in ("budget", "queue empty", "time limit") and "stopped: " + j["stopped"] in t, (j, t)
assert j["dropped"] >= 0 and "(%d dropped from the full queue)" % j["dropped"] in t, (j, t)
PY
(cd "$dir" && "$bin/graphopt" optimize merge_convs.onnx --rules merge.rules -o "$tmp/convs_eq.onnx" -q \
  --json "$tmp/eq.json" >"$tmp/eq.txt" 2>&1)
check "graphopt optimize --json (eqsat, the default) parses and agrees with the printed figures" 0 python3 - "$tmp/eq.json" "$tmp/eq.txt" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
t = open(sys.argv[2]).read()
m = re.search(r"search: (\d+) rules applied; eqsat, (\d+) iterations, (\d+) e-nodes", t)
assert m and j["rules_applied"] == int(m.group(1)) > 0, (j, t)
e = j["eqsat"]
assert e["iterations"] == int(m.group(2)) and e["enodes"] == int(m.group(3)), (e, m.group(0))
c = re.search(r"cost \(([^)]*)\): (\S+) -> (\S+) ", t)
assert c and j["cost_model"] == c.group(1), (j, t)
assert abs(j["cost_after"] - float(c.group(3))) <= 1e-5 * j["cost_before"], (j, c.group(0))
assert j["cost_after"] < j["cost_before"] and abs(e["extracted_cost"] - j["cost_after"]) <= 1e-9 * j["cost_before"], e
assert e["stop_reason"] in ("saturated", "iterations", "e-node limit", "time limit", "interrupted", "out of memory"), e
assert j["stopped"] == e["stop_reason"] and "(%s)" % e["stop_reason"] in t and "stopped: " + j["stopped"] in t, (j, t)
PY
finish
