#!/usr/bin/env bash
# Runs PROGRAM on every case of CASES (a bad/*_cases.txt file: FILE | STATUS | ARGS | TEXT, where
# ARGS has {} for the file and {tmp} for a scratch directory), from inside DIR so messages name
# files as the cases do, and checks the exit status, that the output (stdout and stderr) holds
# TEXT, and that no sanitizer reported anything.
#   run_cases.sh PROGRAM DIR CASES
set -u
program=$1
dir=$2
cases=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
trim() { sed 's/^[[:space:]]*//; s/[[:space:]]*$//' <<<"$1"; } # not xargs: it reads quotes
while IFS='|' read -r file status args want; do
  file=$(trim "$file")
  [ -z "$file" ] || [ "${file#\#}" != "$file" ] && continue
  status=$(trim "$status")
  want=$(trim "$want")
  args=${args//\{\}/$file}
  args=${args//\{tmp\}/$tmp}
  n=$((n + 1))
  # shellcheck disable=SC2086
  err=$(cd "$dir" && "$program" $args 2>&1)
  rc=$?
  if [ "$rc" -ne "$status" ]; then
    echo "FAIL $file ($args): exit status $rc, want $status; output: $err"; fail=$((fail + 1))
  elif ! grep -qF -- "$want" <<<"$err"; then
    echo "FAIL $file ($args): output lacks '$want'; got: $err"; fail=$((fail + 1))
  elif grep -qE 'Sanitizer|runtime error' <<<"$err"; then
    echo "FAIL $file ($args): sanitizer report: $err"; fail=$((fail + 1))
  fi
done <"$cases"
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
