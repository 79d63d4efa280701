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
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
