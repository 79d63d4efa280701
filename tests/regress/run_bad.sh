#!/usr/bin/env bash
# Runs `rulegen eval` on every bad input listed in bad/cases.txt and checks that it exits with
# status 2, prints the expected message, and that no sanitizer reported anything.
# Optional: run_bad.sh RULEGEN DIR [CASES [SUBCOMMAND]] for another subcommand's cases file;
# it runs in DIR, so paths in ARGS are relative to it. Words of ARGS of the form RG_NAME=VALUE
# or RULEGEN_NAME=VALUE are put in rulegen's environment instead (a bad environment is a bad
# input too).
set -u
rulegen=$1
dir=$2
cases=${3:-$dir/cases.txt}
cmd=${4:-eval}
cd "$dir" || exit 2
fail=0 n=0
while IFS='|' read -r file args want; do
  file=$(echo "$file" | xargs)
  [ -z "$file" ] || [ "${file#\#}" != "$file" ] && continue
  want=$(echo "$want" | sed 's/^ *//; s/ *$//')
  n=$((n + 1))
  envs=() opts=()
  for a in $args; do
    case $a in
      RG_*=* | RULEGEN_*=*) envs+=("$a") ;;
      *) opts+=("$a") ;;
    esac
  done
  err=$(env "${envs[@]}" "$rulegen" "$cmd" "${opts[@]}" "$dir/$file" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 2 ]; then
    echo "FAIL $file ($args): exit status $rc, want 2; stderr: $err"; fail=$((fail + 1))
  elif ! grep -qF -- "$want" <<<"$err"; then
    echo "FAIL $file ($args): stderr lacks '$want'; got: $err"; fail=$((fail + 1))
  elif grep -qE 'Sanitizer|runtime error' <<<"$err"; then
    echo "FAIL $file ($args): sanitizer report: $err"; fail=$((fail + 1))
  fi
done <"$cases"
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
