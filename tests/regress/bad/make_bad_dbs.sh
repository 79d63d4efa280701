#!/usr/bin/env bash
# Writes the signed rule databases of model_cases.txt (committed; rerun this to remake them):
# rules_imported.db holds two imported rules and no verified one, rules_some_verified.db the same
# two with one marked verified; both are signed with a key made here, whose public half is
# rules_signer.pub (the secret half is not kept).
#   cd tests/regress/bad && ./make_bad_dbs.sh RULESDB
set -euo pipefail
rulesdb=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$rulesdb" keygen -o "$tmp/signer" >/dev/null
printf '(ewadd ?x ?y) => (ewadd ?y ?x)\n(relu (relu ?x)) => (relu ?x)\n' >"$tmp/two.rules"
rm -f rules_imported.db rules_some_verified.db
"$rulesdb" import --format text "$tmp/two.rules" -o rules_imported.db --key "$tmp/signer.key" 2>/dev/null
"$rulesdb" import --format text "$tmp/two.rules" -o rules_some_verified.db 2>/dev/null
sqlite3 rules_some_verified.db "UPDATE rules SET status = 'verified' WHERE text LIKE '(relu (relu%'"
"$rulesdb" sign rules_some_verified.db --key "$tmp/signer.key" >/dev/null 2>&1
for db in rules_imported.db rules_some_verified.db; do sqlite3 "$db" "PRAGMA page_size=512; VACUUM;"; done # small; the signature survives
cp "$tmp/signer.pub" rules_signer.pub
