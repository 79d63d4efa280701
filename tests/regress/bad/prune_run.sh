#!/usr/bin/env bash
# Runs `rulegen` on every bad input listed in prune_cases.txt (in this directory) and checks the
# exit status, that the expected message is printed, and that no sanitizer reported anything.
set -u
rulegen=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: the cases run in this directory
cd "$(dirname "$0")" || exit 1
fail=0 n=0
while IFS='|' read -r args want_rc want; do
  args=$(echo "$args" | xargs)
  [ -z "$args" ] || [ "${args#\#}" != "$args" ] && continue
  want_rc=$(echo "$want_rc" | xargs)
  want=$(echo "$want" | sed 's/^ *//; s/ *$//')
  n=$((n + 1))
  # shellcheck disable=SC2086
  err=$("$rulegen" $args 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne "$want_rc" ]; then
    echo "FAIL $args: exit status $rc, want $want_rc; stderr: $err"; fail=$((fail + 1))
  elif ! grep -qF -- "$want" <<<"$err"; then
    echo "FAIL $args: stderr lacks '$want'; got: $err"; fail=$((fail + 1))
  elif grep -qE 'Sanitizer|runtime error' <<<"$err"; then
    echo "FAIL $args: sanitizer report: $err"; fail=$((fail + 1))
  fi
done <prune_cases.txt
rm -f x.rules x.rules.removed
# A rule whose sides are trees of 131,071 operators (17 doublings, shared as a DAG: 2.9 MB of
# text, made here rather than kept): kept, it was a pattern as deep as its tree, and the lookup's
# recursion overflowed the stack in derivability's second pass (exit 139). A side that large is
# no rewriter now (prune/rewrite.h); the run ends normally and keeps it.
big=$(mktemp -d)
s='?a'
for _ in $(seq 17); do s="(ewadd $s $s)"; done
{ echo 'r1: (relu ?x) => (relu (relu (relu (relu ?x))))'; echo 'r2: (relu (relu (relu (relu ?x)))) => (sigmoid ?x)'
  echo "t: (relu $s) => (sigmoid $s)"; } >"$big/giant.rules"
n=$((n + 1))
err=$("$rulegen" prune -q -P derive "$big/giant.rules" -o "$big/x.rules" 2>&1 >/dev/null)
rc=$?
if [ "$rc" -ne 0 ] || [ "$(grep -c '^t:' "$big/x.rules")" -ne 1 ]; then
  echo "FAIL a rule of 131,071 operators a side: exit status $rc, want 0 with it kept; stderr: ${err:0:300}"; fail=$((fail + 1))
elif grep -qE 'Sanitizer|runtime error' <<<"$err"; then
  echo "FAIL a rule of 131,071 operators a side: sanitizer report: ${err:0:300}"; fail=$((fail + 1))
fi
rm -rf "$big"
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
