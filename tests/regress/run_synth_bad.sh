#!/usr/bin/env bash
# Runs `rulegen` (the synth pipeline) on every bad invocation in bad/enum_cases.txt and checks
# that it exits with status 2, prints the expected message, and that no sanitizer reported.
set -u
rulegen=$1
BAD=$2
fail=0 n=0
while IFS='|' read -r args want; do
  args=$(echo "$args" | xargs)
  [ -z "$args" ] || [ "${args#\#}" != "$args" ] && continue
  want=$(echo "$want" | sed 's/^ *//; s/ *$//')
  args=${args//\$BAD/$BAD}
  n=$((n + 1))
  # shellcheck disable=SC2086
  err=$("$rulegen" $args -q -o /dev/null 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 2 ]; then
    echo "FAIL ($args): exit status $rc, want 2; stderr: $err"; fail=$((fail + 1))
  elif ! grep -qF -- "$want" <<<"$err"; then
    echo "FAIL ($args): stderr lacks '$want'; got: $err"; fail=$((fail + 1))
  elif grep -qE 'Sanitizer|runtime error' <<<"$err"; then
    echo "FAIL ($args): sanitizer report: $err"; fail=$((fail + 1))
  fi
done <"$BAD/enum_cases.txt"
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
