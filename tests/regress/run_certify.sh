#!/usr/bin/env bash
# End-to-end runs of `rulegen certify`: a PET Fig. 1 certificate is written, deterministic,
# the same whether the programs come from --mutant, a rule file or two program files, accepted
# by `certify check` (and by full mode), and a forged copy is rejected with exit status 1.
set -u
rulegen=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
dims=1,3,6,12,2,3,3
"$rulegen" certify --mutant fig1 --dims $dims --full -o "$tmp/a.cert" 2>"$tmp/err" && ok "certify fig1" || { bad "certify fig1: $(cat "$tmp/err")"; }
grep -q "0 outside the correction regions" "$tmp/err" && ok "full mode: corrected mutant equivalent" || bad "full mode: $(cat "$tmp/err")"
"$rulegen" certify --mutant fig1 --dims $dims -o "$tmp/b.cert" 2>/dev/null
cmp -s "$tmp/a.cert" "$tmp/b.cert" && ok "deterministic" || bad "two runs differ"
"$rulegen" certify --mutant fig1 --dims $dims --print >"$tmp/p" 2>&1
sed -n 's/^original: //p' "$tmp/p" >"$tmp/orig.rules"
sed -n 's/^mutant:   //p' "$tmp/p" >"$tmp/mut.rules"
shapes=$(sed -n 's/^shapes:   //p' "$tmp/p")
echo "$(cat "$tmp/orig.rules") => $(cat "$tmp/mut.rules")" >"$tmp/rule.rules"
# shellcheck disable=SC2086
"$rulegen" certify -s "$shapes" "$tmp/orig.rules" "$tmp/mut.rules" -o "$tmp/c.cert" 2>/dev/null
cmp -s "$tmp/a.cert" "$tmp/c.cert" && ok "two program files" || bad "two program files give another certificate"
"$rulegen" certify -s "$shapes" "$tmp/rule.rules" -o "$tmp/d.cert" 2>/dev/null
cmp -s "$tmp/a.cert" "$tmp/d.cert" && ok "rule file" || bad "rule file gives another certificate"
out=$("$rulegen" certify check "$tmp/a.cert" "$tmp/orig.rules" "$tmp/mut.rules" --full 2>&1)
[ $? -eq 0 ] && grep -q VALID <<<"$out" && ok "check accepts" || bad "check: $out"
# forge: flip the first NEQ verdict to EQ (dropping its witness)
sed '0,/ NEQ [0-9]* [0-9,]* [0-9]* [0-9]*$/s// EQ/' "$tmp/a.cert" >"$tmp/f.cert"
cmp -s "$tmp/a.cert" "$tmp/f.cert" && bad "forgery did not change the file"
out=$("$rulegen" certify check "$tmp/f.cert" "$tmp/rule.rules" 2>&1)
rc=$?
[ $rc -eq 1 ] && grep -q "REJECTED" <<<"$out" && grep -q "says EQ, re-evaluation finds NEQ" <<<"$out" &&
  ok "flipped verdict rejected" || bad "flipped verdict: rc $rc: $out"
# the certificate does not pass for another mutant
echo "(conv2d (concat 3 (slice 3 0 6 ?x) (slice 3 6 12 ?x)) ?w)" >"$tmp/mut2.rules"
out=$("$rulegen" certify check "$tmp/a.cert" "$tmp/orig.rules" "$tmp/mut2.rules" 2>&1)
[ $? -eq 1 ] && grep -q "mutant" <<<"$out" && ok "other mutant rejected" || bad "other mutant: $out"
grep -q "box checks" "$tmp/err" && bad "a short run printed progress: $(cat "$tmp/err")"
# the 127-bit field: certificate, full mode, audit, the same with p in decimal, a forged value
"$rulegen" certify --mutant fig1 --dims $dims --prime 2^127-1 --full -o "$tmp/q.cert" 2>"$tmp/errq" && ok "certify in F_(2^127-1)" ||
  bad "certify --prime 2^127-1: $(cat "$tmp/errq")"
grep -q "0 outside the correction regions" "$tmp/errq" && ok "F_q full mode: corrected mutant equivalent" || bad "F_q full mode: $(cat "$tmp/errq")"
grep -qx "field 170141183460469231731687303715884105727" "$tmp/q.cert" && ok "F_q: p recorded" || bad "F_q: no field line"
"$rulegen" certify --mutant fig1 --dims $dims --prime 170141183460469231731687303715884105727 -o "$tmp/q2.cert" 2>/dev/null
cmp -s "$tmp/q.cert" "$tmp/q2.cert" && ok "F_q: p in decimal gives the same certificate" || bad "F_q: decimal p differs"
out=$("$rulegen" certify check "$tmp/q.cert" --mutant fig1 --dims $dims --full 2>&1)
[ $? -eq 0 ] && grep -q VALID <<<"$out" && ok "F_q: check accepts" || bad "F_q check: $out"
# forge: the witnesses' mutant values lose their last digit
sed 's/\( NEQ [0-9]* [0-9,]* [0-9]* [0-9]*\)[0-9]$/\1/' "$tmp/q.cert" >"$tmp/qf.cert"
cmp -s "$tmp/q.cert" "$tmp/qf.cert" && bad "F_q forgery did not change the file"
out=$("$rulegen" certify check "$tmp/qf.cert" --mutant fig1 --dims $dims 2>&1)
rc=$?
[ $rc -eq 1 ] && grep -q "the witness" <<<"$out" && ok "F_q: altered value rejected" || bad "F_q altered value: rc $rc: $out"
grep -qE 'Sanitizer|runtime error' "$tmp/err" "$tmp/errq" && bad "sanitizer report"
[ "$fail" -eq 0 ]
