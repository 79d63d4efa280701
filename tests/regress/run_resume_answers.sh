#!/usr/bin/env bash
# A run killed (SIGKILL) while the solvers answer its first proof round, some answers journaled
# in its proof cache and others not, resumed with `rulegen --resume OUT.candidates -o OUT`:
# it resumes after derivability (OUT.derived), asks the solvers only what they had not
# answered, and writes what an uninterrupted run with the same answers writes. The cache is
# this test's own, cold, so that the solvers are really asked.
set -u
rulegen=$1
dir=$2
. "$dir/check.sh"
in_scratch
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
opts=(-q --proof-cache "$tmp/cache")
# Its cache starts with the shared one's key and the passes of its checks (the axioms' random
# test, comparisons at shape sets, rechecks: lines whose core is axioms-sound, refute-agrees or
# recheck-..., verify/proofcache_checks.h), none of its answers: the solvers are asked, the
# minute of the axioms' test under ASan is not paid again.
passes=' (axioms-sound|refute-agrees|recheck-[a-z]+( [0-9]+)?)$'
mkdir -m 700 cache
for j in "${RULEGEN_PROOF_CACHE:-/nonexistent}"/answers-*.journal; do
  [ -f "$j" ] && [ -f "$j.key" ] || continue
  cp -p "$j.key" cache/
  { head -1 "$j"; grep -E "$passes" "$j"; } >"cache/${j##*/}"
done
check "the candidates" 0 "$rulegen" --ops ewadd,ewmul,matmul,transpose --depth 2 --inputs "$dir/synth.inputs" -q \
  --stop-after test -o m.rules.candidates
"$rulegen" --resume m.rules.candidates -o m.rules "${opts[@]}" 2>killed.txt &
pid=$!
# Killed once the cache holds a few answers more than it was given (the solvers', not passes).
answers() { cat "$tmp"/cache/answers-*.journal 2>/dev/null | grep -cvE "$passes"; }
given=$(answers)
for _ in $(seq 1200); do
  [ "$(answers)" -ge $((given + 4)) ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null
{ wait "$pid"; } 2>/dev/null # (without bash's "Killed" line)
check "killed in its proofs (SIGKILL)" 0 test $? -eq 137
pid=
check "with some answers journaled" 0 test "$(answers)" -ge $((given + 4))
check "no output" 0 test ! -e m.rules
check "derivability saved" 0 test -s m.rules.derived
check "resumed" 0 "$rulegen" --resume m.rules.candidates -o m.rules "${opts[@]}"
resumed=$out
has "from m.rules.derived" "resuming after derivability, before the proofs from m.rules.derived"
check "took the answers given before the kill" 0 grep -qE "[1-9][0-9]* solver answers taken from the proof cache" <<<"$resumed"
check "and asked the rest" 0 grep -qE "earlier runs'\), [1-9][0-9]* asked now" <<<"$resumed"
# An uninterrupted run with the same answers (the cache is warm now) writes the same files.
check "an uninterrupted run" 0 "$rulegen" --resume m.rules.candidates -o ref.rules "${opts[@]}"
has "asks nothing" "earlier runs'), 0 asked now"
check "the same rules" 0 cmp ref.rules m.rules
check "the same removal records" 0 cmp ref.rules.removed m.rules.removed
check "the same unproved rules" 0 cmp ref.rules.unproved m.rules.unproved
finish
