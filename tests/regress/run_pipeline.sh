#!/usr/bin/env bash
# The whole rulegen run on a small input set: enumerate, test, prune, prove with z3 and cvc5,
# derivability, output. Checks that every output rule is verified again by `rulegen prove`, holds
# under `rulegen eval` at other shapes, that the removal records audit, and that a signed .db
# verifies and audits clean, and is refused once tampered with.
set -u
rulegen=$1
rulesdb=$2
dir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0 n=0
check() { # description, command...
  local what=$1
  shift
  n=$((n + 1))
  if ! "$@" >"$tmp/last.log" 2>&1; then echo "FAIL: $what"; tail -5 "$tmp/last.log"; fail=$((fail + 1)); fi
}
run() { "$rulegen" --ops ewadd,ewmul,matmul,transpose --depth 2 --inputs "$dir/synth.inputs" -q "$@"; }

check "whole run to rule text" run -o out.rules
run -o out2.rules --json out2.json 2>table.txt
for stage in enumerate fingerprint test "prune        renaming" "common subgraph" "prove  " derivability output; do
  check "table row: $stage" grep -q "$stage" table.txt
done
check "header says verified by both" grep -q "verified by both z3 and cvc5" out.rules
check "at least 8 rules" test "$(grep -vc '^#' out.rules)" -ge 8
check "same result twice" cmp -s out.rules out2.rules
# --json: the counters, the whole stage table and the proof summary, as the table printed them
json_agrees() {
  python3 - out2.json table.txt <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
table = open(sys.argv[2]).read()
stages = [r["stage"] for r in j["stages"]]
assert stages[:2] == ["enumerate", "fingerprint"] and "prove" in stages and "derivability" in stages, stages
assert j["synth"]["graphs"] == j["stages"][0]["out"] > 0
rows = {r["stage"]: r for r in j["stages"]}
assert rows["fingerprint"]["dropped"] == "alone:%d" % j["synth"]["singles"], rows["fingerprint"]
assert rows["generalize"]["dropped"].startswith("tested:"), rows["generalize"]
assert rows["prove"]["dropped"].startswith("z3-only:"), rows["prove"]
m = re.search(r"prove +(\d+) rules: (\d+) verified", table)
assert m and j["prove"]["n_rules"] == int(m.group(1)) and j["prove"]["verified"] == int(m.group(2)), m
assert set(j["prove"]["only"]) == {"z3", "cvc5"}
PY
}
check "--json agrees with the table" json_agrees
check "removal records audit" "$rulegen" prune --audit out.rules.removed out.rules
check "every rule verified again" "$rulegen" prove -q out.rules
check "every rule holds at other shapes" "$rulegen" eval -q -n 4 out.rules
echo '(matmul (matmul ?x ?y) ?z) => (matmul ?x (matmul ?y ?z))' >assoc.rules
check "associativity kept or derived" sh -c "'$rulegen' covers assoc.rules --with out.rules | grep -q ', 0 not covered'"
check "tested candidates saved" grep -q "^# rulegen synth: depth 2" out.rules.candidates
check "a resumed run" run --resume out.rules.candidates -o resumed.rules
check "resumed from the saved candidates: same rules" cmp -s out.rules resumed.rules
# Without the proof cache the solvers' answers are journaled in OUT.proofs: a rerun into the same
# OUT asks them nothing.
# (These runs random-test only the axioms their operators' obligations assert, as the proof-cache
# tests do: the same obligations, and the axiom test of 179 took 15 s a run under ASan.)
python3 "$dir/axioms_for_ops.py" "$dir/../../verify/axioms.rules" ewadd,ewmul,matmul,transpose >small.rules
run --no-proof-cache --axioms small.rules --resume out.rules.candidates -o np.rules
run --no-proof-cache --axioms small.rules --resume out.rules.candidates -o np.rules 2>rerun.txt
check "a rerun takes the solvers' answers from OUT.proofs" grep -q "solver answers taken from np.rules.proofs (earlier runs'), 0 asked now" rerun.txt
check "and gives the same rules" cmp -s out.rules np.rules
# With a proof cache (its own here, not the tests' shared one), a cold run asks the solvers, and
# a second run, into another OUT, asks them nothing and gives the same rules.
run --proof-cache "$tmp/cache" --axioms small.rules --resume out.rules.candidates -o cold.rules 2>cold.txt
run --proof-cache "$tmp/cache" --axioms small.rules --resume out.rules.candidates -o warm.rules 2>warm.txt
check "a cold cache: the solvers asked" sh -c "grep -q ' 0 solver answers taken from the proof cache' cold.txt && ! grep -q ', 0 asked now' cold.txt"
check "a warm cache: the solvers asked nothing" grep -q "answers taken from the proof cache $tmp/cache (earlier runs'), 0 asked now" warm.txt
check "and the same rules" sh -c "cmp -s out.rules cold.rules && cmp -s out.rules warm.rules"
check "the cache is the user's alone" sh -c "test -z \"\$(find '$tmp/cache' -perm /022)\""
# An answer altered on disk (unsat made sat, or the reverse: its MAC no longer matches) is not
# believed: the run says so, asks that query again, and gives the same rules.
journal=$(ls "$tmp"/cache/answers-*.journal)
line=$(awk 'NR > 1 && $4 != 1 { print NR; exit }' "$journal") # a solver's answer, not a check's pass (time limit 1)
sed -i "${line}s/ unsat / UNSAT /; ${line}s/ sat / unsat /; ${line}s/ UNSAT / sat /" "$journal"
run --proof-cache "$tmp/cache" --axioms small.rules --resume out.rules.candidates -o altered.rules 2>altered.txt
check "an altered cache line is not believed" grep -q "1 lines not believed (altered, forged or garbled)" altered.txt
check "and asked again" grep -q "answers taken from the proof cache $tmp/cache (earlier runs'), 1 asked now" altered.txt
check "the same rules" cmp -s out.rules altered.rules
check "a resumed run takes its options from the candidates' header" "$rulegen" -q --resume out.rules.candidates -o bare.rules
check "and gives the same rules" cmp -s out.rules bare.rules
check "resuming with other options is refused" sh -c "! '$rulegen' --ops ewadd,ewmul,matmul,transpose --depth 3 --inputs '$dir/synth.inputs' -q --resume out.rules.candidates -o x.rules"
check "stop after prune" run --stop-after prune -o pruned.rules
check "pruned candidates written" test -s pruned.rules
check "unproved rules are not called verified" sh -c "head -1 pruned.rules | grep -q 'not proved' && ! grep -q verified pruned.rules"
# A renamed copy of a candidate (?x and ?y swapped: equal shapes) collapses with it before
# generalization and pruning: same rules out, one more line in, as many kept.
{ cat out.rules.candidates; grep '?x' out.rules.candidates | head -1 | sed 's/?x/?T/g; s/?y/?x/g; s/?T/?y/g'; } >planted.candidates
run --resume out.rules.candidates --stop-after prune -o resumed-pruned.rules 2>collapse1.txt
run --resume planted.candidates --stop-after prune -o planted.rules 2>collapse2.txt
check "a renamed copy planted among the candidates: same rules" cmp -s resumed-pruned.rules planted.rules
row() { grep -o 'renaming  *[0-9]* -> [0-9]* candidates' "$1" | awk '{print $2, $4}'; }
read -r in1 out1 <<<"$(row collapse1.txt)"
read -r in2 out2 <<<"$(row collapse2.txt)"
check "the planted copy is read and collapsed" test "$in2" -eq $((in1 + 1)) -a "$out2" -eq "$out1"
# the signed database: generate, sign, verify, audit; tamper and be refused
check "keygen" "$rulesdb" keygen -o k
check "whole run to a signed db" run -o out.db --key k.key
check "db verifies" "$rulesdb" verify out.db --pub k.pub
check "db audits clean" sh -c "'$rulesdb' audit out.db --pub k.pub | grep -q 'audit: passed'"
check "db shows its stage table" sh -c "'$rulesdb' show out.db --pub k.pub | grep -q derivability"
cp out.db bad.db
sqlite3 bad.db "UPDATE rules SET text = replace(text, 'matmul', 'ewmul') WHERE rowid = (SELECT min(rowid) FROM rules WHERE text LIKE '%matmul%')"
check "tampered db refused" sh -c "! '$rulesdb' verify bad.db --pub k.pub"
check "db audits clean, deep" sh -c "'$rulesdb' audit out.db --pub k.pub --deep=16 | grep -q 'audit: passed'"
# --fail-fast: cvc5 is given z3's core only; its proof records name that obligation, which the
# audit regenerates from z3's record of the same output and re-runs.
check "whole run fail-fast to a signed db" run -F -o ff.db --key k.key
check "cvc5's obligations cut to z3's core" sh -c "'$rulegen' prove -F --no-proof-cache --no-check-axioms out.rules | grep -q 'after z3, obligation'"
check "fail-fast db audits clean, cvc5 re-run on the cut obligations" sh -c "'$rulesdb' audit ff.db --pub k.pub | grep -q 'audit: passed'"
# An output that cannot be written (its path is a folder) is refused before any work.
mkdir dir.db
check "an unwritable db is refused first" sh -c "! '$rulegen' --ops ewadd,ewmul,matmul,transpose --depth 2 --inputs '$dir/synth.inputs' -q --resume out.rules.candidates -o dir.db 2>unwritable.txt"
check "and says why" grep -q "dir.db: is a folder" unwritable.txt
check "before the stages ran" sh -c "! grep -q renaming unwritable.txt"
check "a .db needs the proof stage" sh -c "! '$rulegen' --ops ewadd --depth 1 --inputs '$dir/synth.inputs' -q --stop-after prune -o x.db"
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
