#!/usr/bin/env bash
# Writes the bad inputs of regress_cases.txt (committed; rerun this to remake them):
# regress_tampered.db and regress_altered.db are rules_some_verified.db (make_bad_dbs.sh) with
# one byte changed, the signature left as it was; regress_wrong.pub is a well-formed public key
# that signed nothing here (its secret half is not kept).
#   cd tests/regress/bad && ./make_regress_dbs.sh RULESDB
set -euo pipefail
rulesdb=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$rulesdb" keygen -o "$tmp/wrong" >/dev/null
cp "$tmp/wrong.pub" regress_wrong.pub
# One byte each: in a configuration value (only the signature can tell), in a rule's text (the
# reader already sees its variables' rows disagree).
python3 - rules_some_verified.db <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
for out, old, new in (("regress_tampered.db", b"two.rules", b"twO.rules"),
                      ("regress_altered.db", b"(relu (relu ?x)) => (relu ?x)", b"(relu (relu ?x)) => (relu ?y)")):
    assert data.count(old) == 1, (old, data.count(old))
    open(out, "wb").write(data.replace(old, new))
PY
