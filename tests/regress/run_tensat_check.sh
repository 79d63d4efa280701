#!/usr/bin/env bash
# tensat_check.py can tell: TENSAT's own files (anchors/) parse; lines TENSAT would not read
# (a right side with a variable the left does not bind, a one-digit permutation, which egg reads
# as a number, a three-input concat, an operator TENSAT lacks, a trailing newline) are refused.
set -u
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$py" "$here/tensat_check.py" "$here/anchors/tensat-converted.txt" | grep -q ": 120 rules parse$" || fail "converted.txt"
"$py" "$here/tensat_check.py" "$here/anchors/tensat-converted_multi.txt" --multi | grep -q ": 13 rules parse$" ||
  fail "converted_multi.txt"
n=0
while IFS='|' read -r line why; do
  printf '%s' "$line" >"$tmp/bad.txt"
  out=$("$py" "$here/tensat_check.py" "$tmp/bad.txt") && fail "accepted: $line"
  grep -qF -- "$why" <<<"$out" || fail "$line: wanted '$why', got: $out"
  n=$((n + 1))
done <<'CASES'
(relu ?input_1)=>(ewadd ?input_1 ?input_2)|right side uses ['?input_2']
(transpose ?input_1 0 1)=>?input_1|transpose: a n where TENSAT asserts a s
(concat 0 2 ?input_1 ?input_2 ?input_3)=>?input_1|concat takes 4 children, not 5
(bias ?input_1 ?input_2)=>?input_1|operator bias is not in TENSAT's Mdl
CASES
printf '(relu ?input_1)=>(relu ?input_1)\n' >"$tmp/bad.txt"
"$py" "$here/tensat_check.py" "$tmp/bad.txt" | grep -q "ends in a newline" || fail "a trailing newline accepted"
echo "tensat_check.py: TENSAT's files parse, $n bad files refused"
