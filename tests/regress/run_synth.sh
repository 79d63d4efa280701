#!/usr/bin/env bash
# End-to-end runs of the synth pipeline (`rulegen --ops ... --depth N`) on a small input set:
# known equivalences appear as candidates, width-1 coincidences are dropped, the candidate file
# is the same for 1 and 2 threads and when a part of the records is tested in pieces.
set -u
rulegen=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # description, command...
  local what=$1
  shift
  if ! "$@"; then echo "FAIL: $what"; fail=$((fail + 1)); fi
}
has() { grep -qF -- "$2" "$1"; }
rule() { grep -qF -- "$2 => $3" "$1" || grep -qF -- "$3 => $2" "$1"; } # either orientation
lacks() { ! grep -qF -- "$2" "$1"; }

ops=ewadd,ewmul,matmul,transpose
run() { # output file, extra args...
  local out=$1
  shift
  "$rulegen" --ops $ops --depth 3 --inputs "$dir/synth.inputs" -q --stop-after test -o "$out" "$@" 2>"$out.log"
}
check "depth 3 run, 1 thread" run "$tmp/j1.rules" -j 1
check "depth 3 run, 2 threads" run "$tmp/j2.rules" -j 2
check "same candidates with 1 and 2 threads" cmp -s "$tmp/j1.rules" "$tmp/j2.rules"
check "parts in pieces under a small record cap" run "$tmp/parts.rules" -j 2 --max-records 300
check "pieces were needed" grep -q "did not fit in --mem-limit: testing it in pieces" "$tmp/parts.rules.log"
check "same candidates in pieces" cmp -s "$tmp/j1.rules" "$tmp/parts.rules"
r=$tmp/j1.rules
check "commutativity" rule "$r" "(ewadd ?y ?x)" "(ewadd ?x ?y)"
check "commutativity of ewmul" rule "$r" "(ewmul ?y ?x)" "(ewmul ?x ?y)"
check "associativity" rule "$r" "(matmul (matmul ?a ?b) ?c)" "(matmul ?a (matmul ?b ?c))"
# ewadd((x+y), z) is not enumerated (swapped commutative operands): associativity shows modulo commutativity
check "associativity of ewadd" rule "$r" "(ewadd ?x (ewadd ?y ?z))" "(ewadd ?z (ewadd ?x ?y))"
check "distributivity" rule "$r" "(ewadd (ewmul ?x ?y) (ewmul ?x ?z))" "(ewmul ?x (ewadd ?y ?z))"
check "matmul distributes" rule "$r" "(ewadd (matmul ?a ?b) (matmul ?a ?c))" "(matmul ?a (ewadd ?b ?c))"
check "transpose of transpose" rule "$r" "(transpose 10 (transpose 10 ?a))" "?a"
check "transpose of a sum" rule "$r" "(ewadd (transpose 10 ?a) (transpose 10 ?b))" "(transpose 10 (ewadd ?a ?b))"
# 1x1 matrices: matmul is ewmul, and transpose the identity, only at width 1
check "width-1 matmul = ewmul dropped" lacks "$r" "(matmul ?p ?q) => (ewmul ?p ?q)"
check "width-1 transpose dropped" lacks "$r" "(transpose 10 ?p) => ?p"
check "drops counted" grep -qE "dropped +[1-9][0-9]* +shapes-zp" "$r.log"
check "table printed" grep -q "^test .*candidate pairs tested" "$r.log"
# every candidate parses and holds under rulegen eval (float64 and Z_p, enumeration shapes)
check "candidates evaluate as true" "$rulegen" eval -q -s x=2x4 -s y=2x4 -s z=2x4 -s a=4x4 -s b=4x4 -s c=4x4 -s p=1x1 -s q=1x1 "$r"
# --all-pairs: every pair within a class, a superset of one pair per member
check "all pairs" run "$tmp/all.rules" --all-pairs
# (the header's options line says --all-pairs: compare the rules)
check "all pairs is a superset" test -z "$(comm -23 <(grep -v '^#' "$r" | sort) <(grep -v '^#' "$tmp/all.rules" | sort))"
check "all pairs has more" test "$(wc -l <"$tmp/all.rules")" -gt "$(wc -l <"$r")"
# --stop-after fingerprint writes the untested pairs, --stop-after enumerate counts graphs only
check "stop after fingerprint" run "$tmp/fp.rules" --stop-after fingerprint
check "untested candidates include the width-1 ones" has "$tmp/fp.rules" "(matmul ?p ?q) => (ewmul ?p ?q)"
check "untested: width-1 transpose" has "$tmp/fp.rules" "(transpose 10 ?p) => ?p"
check "stop after enumerate" "$rulegen" --ops $ops --depth 2 --inputs "$dir/synth.inputs" -q --stop-after enumerate 2>/dev/null
# Ctrl-C: a run interrupted at once leaves no output file (and no temporary)
"$rulegen" --ops all --depth 4 -q -o "$tmp/int.rules" 2>"$tmp/int.log" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
check "interrupted run exits 130" test "$rc" -eq 130
check "interrupted run says so" grep -q "interrupted: the work so far is kept" "$tmp/int.log"
check "interrupted run writes no file" test ! -e "$tmp/int.rules"
check "interrupted run keeps its records" test -d "$tmp/int.rules.spill"
check "no temporary left" test -z "$(ls "$tmp" | grep int.rules.tmp)"
# Merges (issue 43): two products of x become one product of x with the weights concatenated and
# a split: 3 operators at most on a side, a split counted once however many of its outputs are
# used (as TASO counts it), so depth 3 holds them. Each output pair alone could only undo the
# merge, so the pair is a candidate of its own, and pruning keeps it: graphopt could not
# re-derive it from the output pairs, nor from its generalization whose products have their own
# operands (that one can only split). A pair whose outputs only borrow each other's variables
# is not a candidate.
merge=$tmp/merge.rules
check "merge run" "$rulegen" --ops matmul,concat,split --depth 3 --inputs "$dir/merge.inputs" -q --stop-after test -o "$merge"
check "the column merge is a candidate" rule "$merge" "(matmul ?x ?w1) ; (matmul ?x ?w2)" \
  "(split.0 1 (matmul ?x (concat 1 ?w1 ?w2))) ; (split.1 1 (matmul ?x (concat 1 ?w1 ?w2)))"
check "borrowing pairs are not" lacks "$merge" "(concat 0 (matmul ?x (concat 1 ?w1 ?w2)) (matmul ?x (concat 1 ?w1 ?w2))) ; (split.1 1"
check "merge prune" "$rulegen" prune -q "$merge" -o "$tmp/merge.kept" --records "$tmp/merge.removed"
check "pruning keeps the merge" rule "$tmp/merge.kept" "(matmul ?x ?w1) ; (matmul ?x ?w2)" \
  "(split.0 1 (matmul ?x (concat 1 ?w1 ?w2))) ; (split.1 1 (matmul ?x (concat 1 ?w1 ?w2)))"
# The steps that carry a merged product's bias and activation: over y (a seamed input, the halves
# of a merged product), the two biases become one along the whole of it, and relu passes the
# split. rulegen finds them (depth 3), keeps them through pruning and proves them.
bias=$tmp/bias.rules
check "biased merge run" "$rulegen" --ops matmul,concat,split,bias,relu --depth 3 --inputs "$dir/merge_bias.inputs" -q \
  --stop-after test -o "$bias"
check "the bias through the split is a candidate" rule "$bias" "(bias (split.0 1 ?y) ?b1) ; (bias (split.1 1 ?y) ?b2)" \
  "(split.0 1 (bias ?y (concat 0 ?b1 ?b2))) ; (split.1 1 (bias ?y (concat 0 ?b1 ?b2)))"
check "relu through the split is a candidate" rule "$bias" "(relu (split.0 1 ?y))" "(split.0 1 (relu ?y))"
check "biased merge prune" "$rulegen" prune -q "$bias" -o "$tmp/bias.kept"
grep -F -e "(bias (split.0 1 ?y) ?b" -e "(relu (split.0 1 ?y)) =>" -e "(split.0 1 (relu ?y)) =>" \
  -e "(matmul ?x ?w1) ; (matmul ?x ?w2) =>" -e "(split.0 1 (matmul ?x (concat 1 ?w1 ?w2))) ; (split.1 1 (matmul" \
  "$tmp/bias.kept" >"$tmp/bias.steps"
check "pruning keeps the three steps" test "$(wc -l <"$tmp/bias.steps")" -ge 3
check "the steps are proved" "$rulegen" prove -q "$tmp/bias.steps"
echo "synth: $fail failed"
[ "$fail" -eq 0 ]
