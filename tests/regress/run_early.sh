#!/usr/bin/env bash
# The checks before hours of work: every case of bad/early_cases.txt (a public key as --key, axioms
# that do not parse, an output folder that does not exist, ...) must exit with status 2, say what is
# wrong, and show no sign of work begun before the check: no enumeration or proof progress, no
# search or numeric-check lines. Each case runs on a pseudo-terminal (script(1)) where there is one,
# so that a stage's progress line shows a quarter second into it (in a log, only after 5 s).
# No time is asserted (how fast is bench/'s business); a case still running after HANG seconds
# (default 120) is stopped and fails, so a missing check cannot hang the test.
#   run_early.sh BIN BAD [HANG]
set -u
bin=$1 # the folder holding rulegen, rulesdb and graphopt
BAD=$2
hang=${3:-120}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$bin/rulesdb" keygen -o "$TMP/k" >/dev/null || { echo "FAIL: rulesdb keygen"; exit 1; }
tty=1
if ! script -qefc true /dev/null </dev/null >/dev/null 2>&1; then
  tty=0
  echo "note: no pseudo-terminal (script(1)): only progress lines 5 s into a stage can show"
fi
# a line any stage prints once its work has begun (progress, the prover's axiom test, graphopt's
# search and check), and never before the checks
work='graphs/s|\[pass|enumerate|random-tested|[0-9]\.[0-9]/s|eqsat iteration|^search: |^cost \(|^numeric check:'
fail=0 n=0
# each case's fields, with $BAD and $TMP put in and the padding trimmed
grep -v -e '^#' -e '^ *$' "$BAD/early_cases.txt" | sed "s|\$BAD|$BAD|g; s|\$TMP|$TMP|g; s/ *| */|/g; s/ *$//" >"$TMP/cases"
while IFS='|' read -r prog args want; do
  n=$((n + 1))
  # stdout and stderr together: work shows on either
  if [ $tty = 1 ]; then
    # shellcheck disable=SC2086
    out=$(script -qefc "$(printf '%q ' timeout "$hang" "$bin/$prog" $args)" /dev/null </dev/null 2>&1)
  else
    # shellcheck disable=SC2086
    out=$(timeout "$hang" "$bin/$prog" $args </dev/null 2>&1)
  fi
  rc=$?
  if [ "$rc" -eq 124 ]; then
    echo "FAIL ($prog $args): still running after $hang s (a check missing, or made after the work)"; fail=$((fail + 1))
  elif [ "$rc" -ne 2 ]; then
    echo "FAIL ($prog $args): exit status $rc, want 2; output: $out"; fail=$((fail + 1))
  elif ! grep -qF -- "$want" <<<"$out"; then
    echo "FAIL ($prog $args): output lacks '$want'; got: $out"; fail=$((fail + 1))
  elif grep -qE "$work" <<<"$out"; then
    echo "FAIL ($prog $args): work started before the check: $out"; fail=$((fail + 1))
  fi
done <"$TMP/cases"
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$n" -gt 0 ]
