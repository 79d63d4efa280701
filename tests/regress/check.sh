# tests/regress/check.sh: sourced by the shell test drivers. check runs a command and compares
# its exit status (and refuses any sanitizer report); has looks for text in that command's
# output; finish prints the closing "N passed, M failed" line and returns the verdict;
# in_scratch moves the test into a folder of its own, removed when the script ends.
fail=0 n=0 out=
in_scratch() {
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cd "$tmp" || exit 1
}
check() { # description, expected status, command...
  local what=$1 want=$2
  shift 2
  n=$((n + 1))
  out=$("$@" 2>&1)
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL $what: exit status $rc, want $want"; echo "$out" | tail -5; fail=$((fail + 1))
  elif grep -qE 'Sanitizer|runtime error' <<<"$out"; then
    echo "FAIL $what: sanitizer report"; echo "$out" | tail -5; fail=$((fail + 1))
  fi
}
has() { # description, text expected in the last check's output
  n=$((n + 1))
  if ! grep -qF -- "$2" <<<"$out"; then echo "FAIL $1: output lacks '$2'"; echo "$out" | tail -8; fail=$((fail + 1)); fi
}
finish() {
  echo "$((n - fail)) passed, $fail failed"
  [ "$fail" -eq 0 ]
}
