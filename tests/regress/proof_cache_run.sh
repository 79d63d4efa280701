#!/usr/bin/env bash
# The rulegen run through its proof cache (verify/proofcache.h, proofcache_checks.h), on the
# small input set of the pipeline test, with the axioms its operators' obligations assert
# (axioms_for_ops.py), in a fresh cache of its own:
#   warm:       cold then warm: the same rules and statuses; the warm run asks the solvers
#               nothing and runs neither the axiom test nor a recheck; then lines altered on
#               disk (an answer, the axiom test's pass, a recheck's pass) are refused, counted,
#               and their work done again, with the same result; a run killed in its recheck
#               keeps the passes of the rules it had rechecked.
#   concurrent: two cold runs at once on one cache both succeed with the same output, and the
#               journal they leave is whole: a third run takes everything and refuses nothing.
#   axiom:      after one axiom is edited (its variables renamed: the same axiom, another
#               text), the queries asked again are exactly those of the obligations whose text
#               asserts it (from `rulegen prove --dump` of every rule the run sent), some, not all
#               (with --no-fail-fast: each solver asked the whole obligation).
# Usage: proof_cache_run.sh MODE RULEGEN REGRESS_DIR AXIOMS
set -u
mode=$1 rulegen=$2 dir=$3 axioms=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
die() { echo "FAIL: $*"; fail=1; }
ops=ewadd,ewmul,matmul,transpose
# The axioms these operators' obligations assert (the same obligations as with all of them): the
# axiom test of 18 axioms, not of every one (minutes under ASan).
python3 "$dir/axioms_for_ops.py" "$axioms" $ops >small.rules || die "cannot select the axioms"
# [AX=FILE] run CACHE OUT [options]: the small run into OUT (.rules or .db), its table in
# OUT.table and its counters in OUT.json
run() {
  local cache=$1 out=$2
  shift 2
  "$rulegen" --ops $ops --depth 2 --inputs "$dir/synth.inputs" -q --axioms "${AX:-small.rules}" \
    --proof-cache "$cache" -o "$out" --json "$out.json" "$@" 2>"$out.table"
}
# prove OUT.json FIELD: a counter of the run's proof summary
prove() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["prove"][sys.argv[2]])' "$1" "$2"; }
journal() { ls "$1"/answers-*.journal | grep -v '\.key$' | head -1; }
# same A B: the two runs' rules, and their unproved rules with their statuses, are the same
same() {
  cmp -s "$1" "$2" || die "$1 and $2 differ"
  cmp -s "$1.unproved" "$2.unproved" || die "$1.unproved and $2.unproved differ"
}
# taken_all OUT: the run asked nothing and ran no check again (everything from the cache)
taken_all() {
  [ "$(prove "$1.json" asked)" = 0 ] || die "$1: $(prove "$1.json" asked) queries asked, want 0"
  [ "$(prove "$1.json" reused)" -gt 0 ] || die "$1: no answer taken from the cache"
  [ "$(prove "$1.json" axioms_tested)" = 0 ] || die "$1: the axiom test ran again"
  [ "$(prove "$1.json" axioms_taken)" = 1 ] || die "$1: the axiom test's pass not taken"
  [ "$(prove "$1.json" recheck_taken)" = "$(prove "$1.json" rechecked)" ] || die "$1: some recheck ran again"
  [ "$(prove "$1.json" rechecked)" -gt 0 ] || die "$1: nothing rechecked"
  [ "$(prove "$1.json" refute_taken)" = "$(prove "$1.json" compared)" ] || die "$1: some comparison at shape sets ran again"
  [ "$(prove "$1.json" compared)" -gt 0 ] || die "$1: nothing compared at shape sets"
  [ "$(prove "$1.json" cache_refused)" = 0 ] || die "$1: $(prove "$1.json" cache_refused) cache lines refused"
  grep -q "0 asked now" "$1.table" || die "$1: the table does not say 0 asked now"
}
mkdir -m 700 cache

case $mode in
warm)
  run cache cold.rules || die "cold run failed"
  [ "$(prove cold.rules.json asked)" -gt 0 ] || die "the cold run asked nothing"
  [ "$(prove cold.rules.json axioms_tested)" = 1 ] || die "the cold run did not test the axioms"
  [ "$(prove cold.rules.json recheck_taken)" = 0 ] || die "the cold run took a recheck"
  [ "$(prove cold.rules.json refute_taken)" = 0 ] || die "the cold run took a comparison at shape sets"
  run cache warm.rules || die "warm run failed"
  same cold.rules warm.rules
  taken_all warm.rules
  # alter four lines on disk: an answer's time, the passes of the axiom test, a comparison and a recheck
  j=$(journal cache)
  python3 - "$j" <<'PY' || die "could not alter the journal"
import sys
path = sys.argv[1]
lines = open(path).read().split("\n")
done = set()
for i, l in enumerate(lines[1:], 1):
    f = l.split(" ")
    if len(f) < 7:
        continue
    kind = "answer" if f[3] != "1" else "axioms" if f[6] == "axioms-sound" else \
        "refute" if f[6] == "refute-agrees" else "recheck"
    if kind in done:
        continue
    f[4] = "99999.0"  # its time: the MAC no longer matches
    lines[i] = " ".join(f)
    done.add(kind)
assert done == {"answer", "axioms", "refute", "recheck"}, done
open(path, "w").write("\n".join(lines))
PY
  run cache altered.rules || die "run after the alteration failed"
  same cold.rules altered.rules
  [ "$(prove altered.rules.json cache_refused)" = 4 ] || die "refused $(prove altered.rules.json cache_refused) lines, want 4"
  grep -q "4 lines not believed" altered.rules.table || die "the table does not say 4 lines not believed"
  [ "$(prove altered.rules.json asked)" = 1 ] || die "asked $(prove altered.rules.json asked) queries again, want 1"
  [ "$(prove altered.rules.json axioms_tested)" = 1 ] || die "the axiom test was not run again"
  n=$(prove altered.rules.json rechecked) t=$(prove altered.rules.json recheck_taken)
  [ $((n - t)) = 1 ] || die "$((n - t)) rechecks run again, want 1"
  n=$(prove altered.rules.json compared) t=$(prove altered.rules.json refute_taken)
  [ $((n - t)) = 1 ] || die "$((n - t)) comparisons at shape sets run again, want 1"
  # killed in its recheck after 3 rules, as a machine restart would: their passes were kept as
  # they came, and the same command takes them
  mkdir -m 700 kcache
  RULEGEN_TEST_KILL_AT=recheck:3 run kcache killed.rules -j 1
  [ $? = 137 ] || die "the run was not killed in its recheck"
  run kcache killed.rules || die "the run after the kill failed"
  same cold.rules killed.rules
  [ "$(prove killed.rules.json recheck_taken)" -ge 3 ] || die "$(prove killed.rules.json recheck_taken) rechecks taken after the kill, want 3 or more"
  ;;
concurrent)
  run cache a.rules & pa=$!
  run cache b.rules & pb=$!
  wait $pa || die "the first of two runs at once failed"
  wait $pb || die "the second of two runs at once failed"
  same a.rules b.rules
  run cache c.rules || die "the third run failed"
  same a.rules c.rules
  taken_all c.rules
  ;;
axiom)
  # Both solvers on the whole obligation (--no-fail-fast): under fail-fast, the default, cvc5's
  # obligation is cut to z3's core, which only z3's answer says, so the dump below cannot list it.
  run() {
    local cache=$1 out=$2
    shift 2
    "$rulegen" --ops $ops --depth 2 --inputs "$dir/synth.inputs" -q --axioms "${AX:-small.rules}" \
      --proof-cache "$cache" -o "$out" --json "$out.json" --no-fail-fast "$@" 2>"$out.table"
  }
  run cache cold.db || die "cold run failed"
  # the axiom edited: transpose-ewadd's variables renamed (?x ?y -> ?u ?v): the same axiom
  grep -q '^transpose-ewadd: (transpose ?p (ewadd ?x ?y)) => (ewadd (transpose ?p ?x) (transpose ?p ?y))' small.rules ||
    die "transpose-ewadd is not in $axioms as this test knows it: update the test"
  sed '/^transpose-ewadd:/{s/?x/?u/g;s/?y/?v/g}' small.rules >edited.rules
  [ "$(diff small.rules edited.rules | grep -c '^>')" = 1 ] || die "not one axiom changed"
  # every obligation the run had (rules sent to the solvers: the .db's), with the old axioms,
  # from a copy of the cache (nothing asked that the run did not); those asserting the axiom
  python3 -c 'import sqlite3,sys; [print(t) for (t,) in sqlite3.connect(sys.argv[1]).execute("select text from rules")]' \
    cold.db >sent.rules || die "cannot read cold.db"
  cp -a cache cache-copy
  mkdir dump
  "$rulegen" prove --axioms small.rules --proof-cache cache-copy --dump dump sent.rules >/dev/null 2>&1
  [ "$(ls dump | wc -l)" -gt 0 ] || die "prove --dump wrote no obligation"
  grep -l ':named transpose-ewadd)' dump/*.smt2 | sed 's|dump/||; s|\.smt2$||' >asserting.txt
  # the queries the cold run asked about those obligations (one journal line each)
  want=$(awk 'NR == FNR { a[$1] = 1; next } FNR > 1 && ($1 in a) { q[$1 " " $2] = 1 } END { print length(q) }' \
    asserting.txt "$(journal cache)")
  all=$(prove cold.db.json asked)
  [ "$want" -gt 0 ] && [ "$want" -lt "$all" ] || die "$want of $all queries assert the axiom: want some, not all"
  AX=edited.rules run cache edited.db || die "run with the edited axiom failed"
  got=$(prove edited.db.json asked)
  [ "$got" = "$want" ] || die "asked $got queries after the edit, want $want (of $all)"
  [ "$(prove edited.db.json axioms_tested)" = 1 ] || die "the edited axioms were not tested"
  [ "$(prove edited.db.json recheck_taken)" = "$(prove edited.db.json rechecked)" ] ||
    die "a recheck ran again (it does not depend on the axioms)"
  for s in verified unproved shipped; do
    [ "$(prove cold.db.json $s)" = "$(prove edited.db.json $s)" ] || die "$s differs after the edit"
  done
  echo "after the edit: $got of $all queries asked again"
  ;;
*) die "unknown mode $mode" ;;
esac
[ $fail = 0 ] && echo "proof cache $mode: ok"
exit $fail
