#!/usr/bin/env bash
# scripts/ruleset-regress.sh as a CI job runs it (README.md, "Guarding a rule set in CI"): a
# small rulegen run signed as the reference, regenerated and checked against it. Identical sets
# (as a database and as rule text) pass; a proved rule removed without a pruning record, a
# status lowered or a shipped rule missing from the text fail naming the rule; an added rule
# passes. The proofs come from the tests' shared proof cache after the first run; the axioms are
# the five of verify/axioms.rules that ewadd and ewmul need (the whole file's random test costs
# about 10 s a run).
#   run_ruleset_regress.sh RULEGEN RULESDB SCRIPT INPUTS AXIOMS
set -u
rulegen=$1 script=$3 inputs=$4 axioms=$5 fail=0 n=0
export RULESDB=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
expect() { # status, text the output must hold ("" none), command...
  local want=$1 text=$2
  shift 2
  n=$((n + 1))
  "$@" >out.log 2>&1
  local rc=$?
  if [ "$rc" -ne "$want" ] || { [ -n "$text" ] && ! grep -qF -- "$text" out.log; }; then
    echo "FAIL: $* -> exit $rc (want $want${text:+, output with '$text'}):"
    sed 's/^/  /' out.log | head -20
    fail=$((fail + 1))
  fi
}
also() { # an extended regex the last expect's output must also hold
  n=$((n + 1))
  grep -qE -- "$1" out.log || { echo "FAIL: the output above lacks /$1/:"; sed 's/^/  /' out.log | head -20; fail=$((fail + 1)); }
}
regen() { "$rulegen" --ops ewadd,ewmul --depth 2 --inputs "$inputs" -a small.axioms -q "$@"; }
# Rewrites DB with the SQL given, then signs it again with ci.key (as a job's own run would be).
edit() {
  sqlite3 "$1" "$2; DELETE FROM signature" && "$RULESDB" sign "$1" --key ci.key >/dev/null 2>&1
}

grep -E '^(ewadd|ewmul)-(assoc|comm|distrib):' "$axioms" >small.axioms
[ "$(wc -l <small.axioms)" -eq 5 ] || { cat small.axioms; echo "FAIL: the five axioms are not in $axioms"; exit 1; }
"$RULESDB" keygen -o ref >/dev/null && "$RULESDB" keygen -o ci >/dev/null || { echo "FAIL: keygen"; exit 1; }
regen -o ref.db --key ref.key >ref.log 2>&1 || { cat ref.log; echo "FAIL: the reference run"; exit 1; }
regen -o new.db --key ci.key >new.log 2>&1 || { cat new.log; echo "FAIL: the regenerated run"; exit 1; }
regen -o new.rules >text.log 2>&1 || { cat text.log; echo "FAIL: the regenerated run to text"; exit 1; }
# The rule removed below: a verified one; the one lowered: another.
ids=$(sqlite3 ref.db "SELECT id FROM rules WHERE status = 'verified' ORDER BY id LIMIT 2")
gone=$(sed -n 1p <<<"$ids") down=$(sed -n 2p <<<"$ids")
[ -n "$down" ] || { echo "FAIL: the reference has fewer than 2 verified rules"; exit 1; }
text=$(sqlite3 ref.db "SELECT text FROM rules WHERE id = '$gone'")
echo "reference: $(sqlite3 ref.db 'SELECT count(*) FROM rules') rules, $(sqlite3 ref.db 'SELECT count(*) FROM prunes') pruning records"

expect 0 "nothing lost: every rule and proof of ref.db is kept" "$script" --new-pub ci.pub ref.db ref.pub new.db
also '^0 lost \(0 rules gone, 0 proofs lost\) of [1-9][0-9]* rules in the reference; 0 added, 0 removed, 0 changed$'
expect 0 "every rule ref.db ships is in new.rules" "$script" ref.db ref.pub new.rules
expect 0 "" "$script" --help

cp new.db removed.db && edit removed.db "DELETE FROM rules WHERE id = '$gone'; DELETE FROM rule_ops WHERE rule_id = '$gone';
  DELETE FROM rule_vars WHERE rule_id = '$gone'; DELETE FROM proofs WHERE rule_id = '$gone';
  DELETE FROM tests WHERE rule_id = '$gone'"
expect 1 "LOST rule  $gone verified $text" "$script" --new-pub ci.pub ref.db ref.pub removed.db
also '^1 lost \(1 rule gone, 0 proofs lost\)'
# A pruning record for it (derivable from kept rules) accounts for it.
cp removed.db derived.db && edit derived.db "INSERT INTO prunes VALUES('$gone', '$text', 'derivable(k=2)', '$down')"
expect 0 "nothing lost" "$script" --new-pub ci.pub ref.db ref.pub derived.db

cp new.db lowered.db && edit lowered.db "UPDATE rules SET status = 'unproved' WHERE id = '$down'"
expect 1 "LOST proof $down verified -> unproved" "$script" --new-pub ci.pub ref.db ref.pub lowered.db
also '^1 lost \(0 rules gone, 1 proof lost\)'

# One more operator: matmul's rules added (unproved: these axioms say nothing of it), none lost.
"$rulegen" --ops ewadd,ewmul,matmul --depth 2 --inputs "$inputs" -a small.axioms -q -o added.db --key ci.key 2>/dev/null
expect 0 "nothing lost" "$script" --new-pub ci.pub ref.db ref.pub added.db
also '^0 lost \(0 rules gone, 0 proofs lost\) of [0-9]+ rules in the reference; [1-9][0-9]* added'

grep -vxF -- "$text" new.rules >short.rules
expect 1 "LOST rule  $gone verified $text" "$script" ref.db ref.pub short.rules
printf '%s\n' '(relu (relu ?x)) => (relu ?x)' >>new.rules
expect 0 "every rule ref.db ships" "$script" ref.db ref.pub new.rules

# The reference is checked before anything: tampered, wrong key; then the new set: other key,
# unsigned.
# (A forged reference that expects less: a rule's status lowered, the signature kept.)
cp ref.db tampered.db && sqlite3 tampered.db "UPDATE rules SET status = 'unproved' WHERE id = '$gone'"
expect 2 "the reference tampered.db does not verify with ref.pub" "$script" --new-pub ci.pub tampered.db ref.pub new.db
also "rules $gone: changed since signing|tampered"
expect 2 "refusing to compare" "$script" --new-pub ci.pub ref.db ci.pub new.db
expect 2 "new.db must be readable and verify with ref.pub (sign what the job regenerates" "$script" ref.db ref.pub new.db
cp new.db unsigned.db && sqlite3 unsigned.db "DELETE FROM signature"
expect 2 "cannot compare ref.db with unsigned.db" "$script" --new-pub ci.pub ref.db ref.pub unsigned.db
also "unsigned"
# rulesdb diff --lost itself: a refused BASE is bad input (2), never "lost" (1).
expect 2 "refused" "$RULESDB" diff tampered.db new.db --pub ref.pub --new-pub ci.pub --lost
expect 2 "give --pub BASE.pub, not --allow-unsigned" "$RULESDB" diff ref.db new.db --allow-unsigned --lost
expect 1 '"mode":"lost"' "$RULESDB" diff ref.db lowered.db --pub ref.pub --new-pub ci.pub --lost --json -
also '"lost_rules":0,"lost_proofs":1'

echo "$((n - fail)) of $n passed"
[ "$fail" -eq 0 ]
