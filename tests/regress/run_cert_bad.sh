#!/usr/bin/env bash
# Runs `rulegen certify` on every bad input listed in bad/cert_cases.txt (from inside bad/) and
# checks that it exits with status 2, prints the expected message, and that no sanitizer
# reported anything.
set -u
rulegen=$1
dir=$2
fail=0 n=0
cd "$dir" || exit 1
while IFS='|' read -r args want; do
  args=$(echo "$args" | sed 's/^ *//; s/ *$//')
  [ -z "$args" ] || [ "${args#\#}" != "$args" ] && continue
  want=$(echo "$want" | sed 's/^ *//; s/ *$//')
  n=$((n + 1))
  # shellcheck disable=SC2086
  err=$("$rulegen" certify $args 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 2 ]; then
    echo "FAIL certify $args: exit status $rc, want 2; stderr: $err"; fail=$((fail + 1))
  elif ! grep -qF -- "$want" <<<"$err"; then
    echo "FAIL certify $args: stderr lacks '$want'; got: $err"; fail=$((fail + 1))
  elif grep -qE 'Sanitizer|runtime error' <<<"$err"; then
    echo "FAIL certify $args: sanitizer report: $err"; fail=$((fail + 1))
  fi
done <cert_cases.txt
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
