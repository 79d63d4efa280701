#!/usr/bin/env bash
# False rules that unsound axioms once let both solvers prove (false_proved.rules): no solver
# proves any of them now, `rulegen recheck` refutes each with a counterexample, and an axiom
# planted without the guard that makes both of its sides type (conv-concat-sum, as it was) is
# caught by `rulegen check-axioms` and by the recheck of what the solvers then prove from it.
set -u
rulegen=$1
dir=$2
axioms=$3
. "$(dirname "$0")/check.sh"
rules="$dir/false_proved.rules"
count=$(grep -cE '^[a-z0-9-]+: ' "$rules")
check "no false rule is proved" 1 "$rulegen" prove -N --refute-sets 0 -E 0 -j 2 -T 1000 "$rules"
has "every rule unproved" "0 verified, 0 proved-by-z3-only, 0 proved-by-cvc5-only, $count unproved"
check "the recheck refutes every one" 1 "$rulegen" recheck -j 2 "$rules"
has "each with a counterexample" "$count rules rechecked at up to 64 assignments each (seed 1): $count differ"
has "counterexample shapes" "DIFFERS  $rules:5  conv-concat-swap"
planted=$(mktemp)
trap 'rm -f "$planted" "$planted.one"' EXIT
sed 's/^\(conv-concat-sum: .*(conv2d ?h ?w ?p none ?z ?u))\) if [^#]*#/\1  #/' "$axioms" >"$planted"
# (check-axioms of that axiom alone: verify_check_axioms tests the others)
grep '^conv-concat-sum:' "$planted" >"$planted.one"
check "the planted axiom is unsound" 1 "$rulegen" check-axioms "$planted.one"
has "check-axioms names it" "UNSOUND conv-concat-sum"
has "check-axioms says why" "one side types and the other does not"
check "proofs from the planted axiom are caught" 3 "$rulegen" prove -N --refute-sets 0 -j 2 -T 2000 -a "$planted" "$rules"
has "false proof reported" "FALSE PROOF: proved, but the sides differ"
n=$((n + 1))
if ! grep -qE '^  suspect axioms \(its unsat cores\): .*conv-concat-sum' <<<"$out"; then
  echo "FAIL the planted axiom is among the suspects"; fail=$((fail + 1))
fi
finish
