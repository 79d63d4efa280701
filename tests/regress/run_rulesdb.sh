#!/usr/bin/env bash
# End-to-end runs of the rulesdb program: keys, import into a signed database, verify, tampering
# (with the sqlite3 shell), wrong key, unsigned databases, diff exit codes, export and import
# back, DOT rendered by Graphviz, audit exit codes. (Killing a writer midway is tested
# deterministically in test_rulesdb_store.c: a write of 30000 rules takes 0.2 s here, too short
# to hit with a signal from a script.)
set -u
rulesdb=$1
anchors=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
fail=0 n=0

# expect STATUS TEXT CMD...: runs CMD, wants exit STATUS and TEXT in its stdout+stderr.
expect() {
  local want=$1 text=$2
  shift 2
  n=$((n + 1))
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL ($*): exit $rc, want $want: $out"; fail=$((fail + 1))
  elif [ -n "$text" ] && ! grep -qF -- "$text" <<<"$out"; then
    echo "FAIL ($*): output lacks '$text': $out"; fail=$((fail + 1))
  elif grep -qE 'Sanitizer|runtime error' <<<"$out"; then
    echo "FAIL ($*): sanitizer report: $out"; fail=$((fail + 1))
  fi
}

expect 0 "wrote k.key" "$rulesdb" keygen -o k
expect 0 "" test "$(stat -c %a k.key)" = 600
expect 2 "never overwrites" "$rulesdb" keygen -o k
expect 0 "" "$rulesdb" keygen -o other
expect 0 "133 rules read" "$rulesdb" import --format taso "$anchors/taso-graph_subst.pb" -o taso.db --key k.key
expect 0 "signature good" "$rulesdb" verify taso.db --pub k.pub
expect 1 "signed with another key" "$rulesdb" verify taso.db --pub other.pub
expect 1 "signed with another key" "$rulesdb" show taso.db --pub other.pub
expect 2 "--pub KEY.pub" "$rulesdb" show taso.db

# Tampering: each change is refused and named.
tamper() {
  cp taso.db t.db
  sqlite3 t.db "$1" || { echo "FAIL sqlite3 $1"; fail=$((fail + 1)); }
  expect 1 "$2" "$rulesdb" verify t.db --pub k.pub
  expect 1 "$2" "$rulesdb" audit t.db --pub k.pub
}
tamper "UPDATE rules SET text=replace(text,'matmul','ewadd') WHERE rowid=(SELECT min(rowid) FROM rules WHERE text LIKE '%matmul%')" "changed since signing"
tamper "UPDATE rules SET status='verified' WHERE rowid=7" "rule "
tamper "UPDATE config SET value='elsewhere' WHERE key='import.source'" "config import.source: changed"
tamper "UPDATE signature SET sig=zeroblob(64)" "bad signature"
tamper "DELETE FROM signature" "unsigned"
tamper "INSERT INTO rules SELECT substr(id,2)||'0',text,src_size,tgt_size,n_outputs,'verified' FROM rules WHERE rowid=1;
  INSERT INTO rule_ops SELECT substr(rule_id,2)||'0',pos,op FROM rule_ops WHERE rule_id=(SELECT id FROM rules WHERE rowid=1);
  INSERT INTO rule_vars SELECT substr(rule_id,2)||'0',pos,var,shape FROM rule_vars WHERE rule_id=(SELECT id FROM rules WHERE rowid=1)" "in the database but not signed"
cp taso.db v.db && sqlite3 v.db VACUUM
expect 0 "signature good" "$rulesdb" verify v.db --pub k.pub

# Tampering below the values the signature covers (text past a NUL byte, ids longer than 64
# characters, integers wider than their field, columns and tables no manifest line covers): the
# reader takes exactly what the writer writes, so each is refused as an altered file (exit 2),
# with or without a key.
altered() {
  cp taso.db t.db
  sqlite3 t.db "$1" || { echo "FAIL sqlite3 $1"; fail=$((fail + 1)); }
  expect 2 "$2" "$rulesdb" verify t.db --pub k.pub
  expect 2 "$2" "$rulesdb" show t.db --allow-unsigned
}
altered "UPDATE rules SET text=text||char(0)||' ; (relu ?evil)' WHERE rowid=3" "t.db: rules row 3 (id "
altered "UPDATE rules SET text=text||char(0)||' ; (relu ?evil)' WHERE rowid=3" "text holds a NUL byte: the database was altered"
altered "UPDATE rules SET id=id||'-EVIL' WHERE rowid=4" "t.db: rules row 4: id '"
altered "UPDATE rules SET src_size=src_size+4294967296 WHERE rowid=5" "src_size is 42949672"
altered "UPDATE config SET value=CAST(value AS BLOB)" "value holds a BLOB, where this program writes text"
altered "ALTER TABLE rules ADD COLUMN evil TEXT" "t.db: table rules has a column 'evil' that this program does not write"
altered "CREATE TABLE extra(a)" "t.db: the schema holds a table 'extra' that this program does not write"
altered "CREATE INDEX evil ON rules(text)" "the schema holds an index 'evil' on rules"
altered "DELETE FROM rules WHERE rowid=2" "for no rule of the database: the database was altered"
altered "UPDATE rule_vars SET shape='9x9' WHERE rowid=1" "rule_vars rows of rule "
altered "UPDATE rule_ops SET op='matmul relu' WHERE rowid=1" "rule_ops rows of rule "
altered "DROP VIEW rule_verdicts" "the schema lacks the view 'rule_verdicts'"
# Damaged files: one byte of a database is truncated, not "not SQLite"; a page appended is not
# a truncation.
head -c 1 taso.db >one.db
expect 2 "one.db: damaged database (truncated: 1 byte" "$rulesdb" verify one.db --pub k.pub
cp taso.db long.db && head -c "$(sqlite3 taso.db 'PRAGMA page_size')" /dev/zero >>long.db
expect 2 "long.db: damaged database (its size does not match its page count" "$rulesdb" verify long.db --pub k.pub

# Unsigned databases: refused by readers unless --allow-unsigned.
printf '(ewadd ?x ?y) => (ewadd ?y ?x)\n(ewmul ?x ?y) => (ewmul ?y ?x)\n' > two.rules
expect 0 "UNSIGNED" "$rulesdb" import --format text two.rules -o unsigned.db
expect 1 "unsigned" "$rulesdb" show unsigned.db --pub k.pub
expect 0 "2 rules; 0 proof, 0 test, 0 certificate and 0 pruning records" "$rulesdb" show unsigned.db --allow-unsigned
expect 0 "imported                        2" "$rulesdb" show unsigned.db --allow-unsigned
expect 0 "2 of 2 rules shown" "$rulesdb" show unsigned.db --allow-unsigned --list

# sign: a database made by import without --key, then re-signed with another key only when its
# current signature verifies (never over tampered content).
cp unsigned.db s.db
expect 0 "signed s.db (key " "$rulesdb" sign s.db --key k.key
expect 0 "signature good" "$rulesdb" verify s.db --pub k.pub
expect 1 "signed with another key" "$rulesdb" verify s.db --pub other.pub
expect 1 "does not verify with the new key" "$rulesdb" sign s.db --key other.key
expect 0 "signature good" "$rulesdb" verify s.db --pub k.pub
expect 0 "re-signed s.db" "$rulesdb" sign s.db --key other.key --pub k.pub
expect 0 "signature good" "$rulesdb" verify s.db --pub other.pub
expect 0 "re-signed s.db" "$rulesdb" sign s.db --key other.key
cp s.db st.db && sqlite3 st.db "UPDATE rules SET status='verified' WHERE rowid=1"
expect 1 "tampered content" "$rulesdb" sign st.db --key other.key
expect 1 "changed since signing" "$rulesdb" verify st.db --pub other.pub
expect 2 "--key KEY.key is required" "$rulesdb" sign s.db
# --verified-only: graphopt's part of a run's database (its default set), signed after the whole
# one's signature verifies: the rule that is not verified, and every pruning record, go.
cp "$(dirname "$0")/optimize/unsigned.db" mix.db && sqlite3 mix.db "UPDATE rules SET status='unproved' WHERE rowid=1"
expect 0 "signed mix.db" "$rulesdb" sign mix.db --key k.key
cp mix.db mixt.db && sqlite3 mixt.db "UPDATE rules SET status='verified' WHERE rowid=1"
expect 1 "tampered content" "$rulesdb" sign mixt.db --key k.key --verified-only
expect 0 "re-signed mix.db (key " "$rulesdb" sign mix.db --key k.key --verified-only
expect 0 "4 rules; 8 proof, 8 test, 0 certificate and 0 pruning records" "$rulesdb" show mix.db --pub k.pub
expect 0 "signature good (key " "$rulesdb" verify mix.db --pub k.pub
expect 2 "cannot open key" "$rulesdb" sign s.db --key nokey.key

# Schema version 1 (a database signed by the rulesdb before version 2, data/rulesdb/): read as
# it is (not upgraded by reading), migrated with its signature kept, re-signed (which upgrades).
v1=$(cd "$(dirname "$0")/../data/rulesdb" && pwd)
cp "$v1/schema_v1.db" old.db && chmod 644 old.db
expect 0 "signature good (key 1fb802a094146752..., 4 rules)" "$rulesdb" verify old.db --pub "$v1/schema_v1.pub"
expect 0 "4 of 4 rules shown" "$rulesdb" show old.db --pub "$v1/schema_v1.pub" --list
expect 0 "" test "$(sqlite3 old.db 'PRAGMA user_version')" = 1
expect 0 "schema version 1 -> 2, 4 rules; its signature is kept" "$rulesdb" migrate old.db
expect 0 "" test "$(sqlite3 old.db 'PRAGMA user_version')" = 2
expect 0 "signature good (key 1fb802a094146752..., 4 rules)" "$rulesdb" verify old.db --pub "$v1/schema_v1.pub"
expect 0 "already of schema version 2" "$rulesdb" migrate old.db
expect 0 "" test "$(sqlite3 old.db "SELECT shape FROM rule_vars WHERE var='w13_1'")" = 4x1x3x3
expect 0 "" test "$(sqlite3 old.db "SELECT group_concat(op,' ') FROM rule_ops WHERE rule_id LIKE '64167bfb%'")" = "concat relu"
expect 0 "" test "$(sqlite3 old.db "SELECT count(*) FROM rule_verdicts WHERE status='imported'")" = 4
cp "$v1/schema_v1.db" old2.db && chmod 644 old2.db
expect 0 "re-signed old2.db" "$rulesdb" sign old2.db --key k.key --pub "$v1/schema_v1.pub"
expect 0 "" test "$(sqlite3 old2.db 'PRAGMA user_version')" = 2
expect 0 "signature good" "$rulesdb" verify old2.db --pub k.pub
expect 0 "4 of 4 rules written" "$rulesdb" export "$v1/schema_v1.db" --pub "$v1/schema_v1.pub" --format tensat -o old.txt
expect 2 "cannot open" "$rulesdb" migrate no_such.db

# show ID: the rule with its records; JSON export carries the proofs.
cp taso.db p.db
sqlite3 p.db "INSERT INTO proofs SELECT id,0,'z3','4.8.12','unsat',0.25,'assoc',id FROM rules WHERE rowid=3;
  INSERT INTO proofs SELECT id,0,'cvc5','1.0.3','unsat',0.5,'',id FROM rules WHERE rowid=3;
  INSERT INTO tests SELECT id,'Z_p',4,9,'input_1=2x4','','agree' FROM rules WHERE rowid=3;
  INSERT INTO stages VALUES(0,'enumerate',0,1000,'',1.5),(1,'test',1000,7,'value:993',0.5)"
id=$(sqlite3 p.db "SELECT substr(id,1,10) FROM rules WHERE rowid=3")
expect 0 "proof of output 0: cvc5 1.0.3: unsat in 0.500 s" "$rulesdb" show p.db "$id" --allow-unsigned
# the verdict view: one column per solver
expect 0 "" test "$(sqlite3 p.db "SELECT rule_id LIKE '$id%', status, z3, cvc5 FROM rule_verdicts WHERE z3 IS NOT NULL")" = "1|imported|unsat|unsat"
expect 0 "test: Z_p, 4 trials, seed 9, input_1=2x4: agree" "$rulesdb" show p.db "$id" --allow-unsigned
expect 0 "test                         1000            7       0.50  value:993" "$rulesdb" show p.db --allow-unsigned
# A filter prints only what it asks for: no stage table, no configuration.
"$rulesdb" show p.db --allow-unsigned --status imported --op matmul >f.out 2>/dev/null
expect 0 "of 129 rules shown" cat f.out
expect 1 "" grep -qE "^stage|configuration|import.source|^(verified|unproved) " f.out
expect 1 "" grep -qv "matmul\|^id  \|rules shown" f.out
expect 0 "import.format = taso" "$rulesdb" show p.db --allow-unsigned --config
expect 0 '"proofs":[{"output":0,"solver":"z3","version":"4.8.12","result":"unsat","seconds":0.25' "$rulesdb" export p.db --format json --allow-unsigned
expect 1 "proof " "$rulesdb" verify p.db --pub k.pub
# audit of those records: their obligation hash is not the one the rule text gives -> failure;
# without solver re-runs nothing fails but the audit is incomplete.
expect 1 "the obligation regenerated from the rule text hashes to" "$rulesdb" audit p.db --allow-unsigned
expect 1 "signature: FAILED" "$rulesdb" audit p.db --pub k.pub --allow-unsigned --no-solvers
cp p.db p2.db && sqlite3 p2.db "DELETE FROM tests; DELETE FROM signature"
expect 3 "INCOMPLETE: 2 records not re-checked" "$rulesdb" audit p2.db --pub k.pub --allow-unsigned --no-solvers

# diff exit codes: added only 0; removed or downgraded verified rule 1; --json.
printf '(ewadd ?x ?y) => (ewadd ?y ?x)\n' > one.rules
"$rulesdb" import --format text one.rules -o base.db --key k.key 2>/dev/null
"$rulesdb" import --format text two.rules -o new.db --key k.key 2>/dev/null
expect 0 "1 added, 0 removed, 0 changed, 0 regressions" "$rulesdb" diff base.db new.db --pub k.pub
cp base.db vbase.db && sqlite3 vbase.db "UPDATE rules SET status='verified'"
cp new.db vnew.db && sqlite3 vnew.db "UPDATE rules SET status='verified'"
expect 0 "0 regressions" "$rulesdb" diff vbase.db vnew.db --allow-unsigned
expect 1 "REGRESSION" "$rulesdb" diff vnew.db vbase.db --allow-unsigned
cp vnew.db vdown.db && sqlite3 vdown.db "UPDATE rules SET status='unproved' WHERE text LIKE '(ewmul%'"
expect 1 "verified -> unproved" "$rulesdb" diff vnew.db vdown.db --allow-unsigned
expect 1 '"regressions":1' "$rulesdb" diff vnew.db vdown.db --allow-unsigned --json -
expect 1 "" "$rulesdb" diff vnew.db vdown.db --allow-unsigned --json diff.json
expect 0 '"regressions":1' cat diff.json
expect 2 "no_such_dir/d.json" "$rulesdb" diff vnew.db vdown.db --allow-unsigned --json no_such_dir/d.json
expect 1 "refused: tampered content" "$rulesdb" diff vnew.db vdown.db --pub k.pub

# Export and import back: TENSAT text, no trailing newline, same rules.
expect 0 "129 of 129 rules written" "$rulesdb" export taso.db --pub k.pub --format tensat -o t.txt
expect 0 "" test "$(tail -c 1 t.txt | od -An -c | tr -d ' ')" != '\n'
expect 0 "" "$rulesdb" import --format tensat t.txt -o a.rules
expect 0 "" "$rulesdb" import --format tensat-multi t_multi.txt -o b.rules
"$rulesdb" export taso.db --pub k.pub --format json -o all.json
expect 0 "" test "$(wc -l <all.json)" -eq 129
grep -o '"text":"[^"]*"' all.json | sed 's/"text":"//; s/"$//' | sort >want.txt
cat a.rules b.rules | sort >got.txt
expect 0 "" cmp want.txt got.txt
expect 0 "129 of 129 rules written" "$rulesdb" export taso.db --pub k.pub --format taso -o t.pb
expect 0 "129 rules read" "$rulesdb" import --format taso t.pb -o t2.rules
# DOT: a folder of one file per rule and an index; every file renders with no warning; one
# rule drawn by show --png; without Graphviz a message that says how to get it.
expect 0 "129 of 129 rules written to dots" "$rulesdb" export taso.db --pub k.pub --format dot -o dots
expect 0 "" test "$(ls dots/*.dot | wc -l)" -eq 129
expect 0 "" test "$(wc -l <dots/index.txt)" -eq 129
expect 0 "" grep -q "operator\|conv2d" dots/index.txt
warned=0
for f in dots/*.dot; do
  dot -Tsvg "$f" -o "${f%.dot}.svg" 2>dot.err && [ ! -s dot.err ] || { warned=$((warned + 1)); cat dot.err; }
done
expect 0 "" test "$warned" -eq 0
expect 0 "" grep -q 'label="?i1\\n2x4x5x5"' dots/*.dot
expect 2 "give -o DIR" "$rulesdb" export taso.db --pub k.pub --format dot
expect 0 "" "$rulesdb" export taso.db --pub k.pub --format dot --per-rule dots2
expect 0 "" test "$(ls dots2/*.dot | wc -l)" -eq 129
one=$(ls dots/*.dot | head -1 | xargs basename | cut -c1-12)
# dot reads an unnamed temporary file in $TMPDIR: none is left there or beside the image, when
# dot succeeds or fails
mkdir scratch fakebin
printf '#!/bin/sh\ncat >/dev/null\nexit 3\n' >fakebin/dot && chmod +x fakebin/dot
expect 0 "wrote one.png" env TMPDIR="$PWD/scratch" "$rulesdb" show taso.db "$one" --pub k.pub --png one.png
expect 0 "" test "$(head -c 4 one.png | od -An -c | tr -d ' ')" = '211PNG'
expect 0 "" test ! -e one.png.dot.tmp
expect 2 "dot failed rendering bad.png (exit status 3)" env TMPDIR="$PWD/scratch" PATH="$PWD/fakebin:$PATH" \
  "$rulesdb" show taso.db "$one" --pub k.pub --png bad.png
expect 0 "" test -z "$(ls -A scratch)"
expect 2 "cannot make a temporary file in $PWD/none for dot's input" env TMPDIR="$PWD/none" \
  "$rulesdb" show taso.db "$one" --pub k.pub --png none.png
expect 2 "matches 129 rules" "$rulesdb" show taso.db "" --pub k.pub --png all.png
expect 2 "give its ID-PREFIX" "$rulesdb" show taso.db --pub k.pub --png all.png
expect 2 "apt-get install graphviz" env PATH=/nonexistent "$rulesdb" show taso.db "$one" --pub k.pub --png x.png

# Output files take the user's umask (0666 & ~umask); a secret key is 0600 whatever the umask.
(
  umask 022
  "$rulesdb" export taso.db --pub k.pub --format json -o m022.json
  "$rulesdb" export taso.db --pub k.pub --format taso -o m022.pb
  "$rulesdb" import --format taso m022.pb -o m022.db
  "$rulesdb" keygen -o m022
  umask 002
  "$rulesdb" export taso.db --pub k.pub --format tensat -o m002.txt
  "$rulesdb" import --format taso m022.pb -o m002.db
  "$rulesdb" keygen -o m002
) >/dev/null 2>&1
expect 0 "" test "$(stat -c %a m022.json m022.pb m022.db m022.pub m022.key | tr '\n' ' ')" = "644 644 644 644 600 "
expect 0 "" test "$(stat -c %a m002.txt m002_multi.txt m002.db m002.pub m002.key | tr '\n' ' ')" = "664 664 664 664 600 "

# Audit: everything re-checked and clean -> 0; a sample; unsigned (signature unchecked) -> 3.
expect 0 "audit: passed" "$rulesdb" audit taso.db --pub k.pub
expect 0 "1 of 129 rules audited" "$rulesdb" audit taso.db --pub k.pub --sample 1
# The deep recheck of every verified rule at drawn shapes: TASO's rules hold everywhere.
expect 0 "deep rechecks                   129        0" "$rulesdb" audit taso.db --pub k.pub --no-solvers --deep=32
expect 3 "INCOMPLETE" "$rulesdb" audit unsigned.db --allow-unsigned

echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
