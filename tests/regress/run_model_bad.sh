#!/usr/bin/env bash
# Runs `graphopt` on every bad input listed in bad/model_cases.txt (from inside bad/, so messages
# name files as the cases do) and checks the exit status, the message, and that no sanitizer
# reported anything. Outputs a case might write go to a scratch directory.
set -u
graphopt=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
while IFS='|' read -r file status args want; do
  file=$(echo "$file" | xargs)
  [ -z "$file" ] || [ "${file#\#}" != "$file" ] && continue
  status=$(echo "$status" | xargs)
  want=$(echo "$want" | sed 's/^ *//; s/ *$//')
  args=${args//\{\}/$file}
  args=${args//-o x.onnx/-o $tmp/x.onnx}
  n=$((n + 1))
  # shellcheck disable=SC2086
  err=$(cd "$dir" && "$graphopt" $args 2>&1)
  rc=$?
  if [ "$rc" -ne "$status" ]; then
    echo "FAIL $file ($args): exit status $rc, want $status; stderr: $err"; fail=$((fail + 1))
  elif ! grep -qF -- "$want" <<<"$err"; then
    echo "FAIL $file ($args): stderr lacks '$want'; got: $err"; fail=$((fail + 1))
  elif grep -qE 'Sanitizer|runtime error' <<<"$err"; then
    echo "FAIL $file ($args): sanitizer report: $err"; fail=$((fail + 1))
  fi
done <"$dir/model_cases.txt"
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
