#!/usr/bin/env bash
# Runs `rulegen prove` on every bad input of verify_cases.txt (paths relative to tests/) and
# checks exit status 2, the expected message, and no sanitizer report.
set -u
rulegen=$1
cd "$(dirname "$0")/../.." || exit 2
fail=0 n=0
while IFS='|' read -r file args want; do
  file=$(echo "$file" | xargs)
  [ -z "$file" ] || [ "${file#\#}" != "$file" ] && continue
  want=$(echo "$want" | sed 's/^ *//; s/ *$//')
  n=$((n + 1))
  # shellcheck disable=SC2086
  err=$("$rulegen" prove $args "regress/bad/$file" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 2 ]; then
    echo "FAIL $file ($args): exit status $rc, want 2; stderr: $err"; fail=$((fail + 1))
  elif ! grep -qF -- "$want" <<<"$err"; then
    echo "FAIL $file ($args): stderr lacks '$want'; got: $err"; fail=$((fail + 1))
  elif grep -qE 'Sanitizer|runtime error' <<<"$err"; then
    echo "FAIL $file ($args): sanitizer report: $err"; fail=$((fail + 1))
  fi
done <regress/bad/verify_cases.txt
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
