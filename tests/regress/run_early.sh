#!/usr/bin/env bash
# The checks before hours of work: every case of bad/early_cases.txt (a public key as --key, axioms
# that do not parse, an output folder that does not exist, ...) must exit with status 2, say what is
# wrong, take under a second and print no enumeration or proof progress.
set -u
bin=$1 # the folder holding rulegen, rulesdb and graphopt
BAD=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$bin/rulesdb" keygen -o "$TMP/k" >/dev/null || { echo "FAIL: rulesdb keygen"; exit 1; }
fail=0 n=0
# each case's fields, with $BAD and $TMP put in and the padding trimmed
grep -v -e '^#' -e '^ *$' "$BAD/early_cases.txt" | sed "s|\$BAD|$BAD|g; s|\$TMP|$TMP|g; s/ *| */|/g; s/ *$//" >"$TMP/cases"
while IFS='|' read -r prog args want; do
  n=$((n + 1))
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  err=$(timeout 5 "$bin/$prog" $args 2>&1 >/dev/null) # a check that is missing must not hang the test
  rc=$?
  t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
  if [ "$rc" -ne 2 ]; then
    echo "FAIL ($prog $args): exit status $rc, want 2; stderr: $err"; fail=$((fail + 1))
  elif ! grep -qF -- "$want" <<<"$err"; then
    echo "FAIL ($prog $args): stderr lacks '$want'; got: $err"; fail=$((fail + 1))
  elif awk -v s="$secs" 'BEGIN { exit !(s >= 1) }'; then
    echo "FAIL ($prog $args): took $secs s, want under 1 s"; fail=$((fail + 1))
  elif grep -qE 'graphs/s|\[pass|enumerate|random-tested|[0-9]\.[0-9]/s' <<<"$err"; then
    echo "FAIL ($prog $args): work started before the check: $err"; fail=$((fail + 1))
  fi
done <"$TMP/cases"
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$n" -gt 0 ]
