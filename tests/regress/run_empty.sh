#!/usr/bin/env bash
# A run that finds no rule (depth 1 over relu alone: no two graphs agree) and what the programs
# print for it: headers that say "0 rules" and "none ran", never an empty list such as "(, )".
set -u
rulegen=$1
rulesdb=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
fail=0
check() { # check WHAT FILE TEXT: FILE holds TEXT
  grep -qF -- "$3" "$2" || { echo "FAIL ($1): lacks '$3':"; cat "$2"; fail=$((fail + 1)); }
}
lacks() { # lacks WHAT FILE TEXT: FILE does not hold TEXT
  ! grep -qF -- "$3" "$2" || { echo "FAIL ($1): holds '$3':"; cat "$2"; fail=$((fail + 1)); }
}

"$rulesdb" keygen -o k >/dev/null || exit 2
"$rulegen" --depth 1 --ops relu -o e.rules 2>text.err || { cat text.err; echo "FAIL: rulegen -o e.rules"; exit 1; }
check "rule file header" e.rules "# rulegen: 0 rules (solvers: none ran)"
lacks "rule file header" e.rules "(, )"
check "stage table" text.err "solvers: none ran; 0 rules pass"
lacks "stage table" text.err "solvers: ,"
"$rulegen" --depth 1 --ops relu -o e.db --key k.key 2>db.err || { cat db.err; echo "FAIL: rulegen -o e.db"; exit 1; }
check "database run" db.err "output       0 rules in e.db (signed)"

"$rulesdb" show e.db --pub k.pub >show.out 2>&1 || { cat show.out; echo "FAIL: show"; exit 1; }
check "show" show.out "0 rules; 0 proof, 0 test, 0 certificate and 0 pruning records"
check "show" show.out "(no rules: no counts by status or size)"
lacks "show" show.out "prune.records"
"$rulesdb" show e.db --pub k.pub --config >config.out 2>&1
check "show --config" config.out "prune.records = ("
lacks "show --config" config.out "# rulegen prune"
"$rulesdb" show e.db --pub k.pub --list >list.out 2>&1
check "show --list" list.out "0 of 0 rules shown"
"$rulesdb" export e.db --pub k.pub --format taso -o e.pb 2>taso.err || fail=$((fail + 1))
check "taso export" taso.err "0 of 0 rules written"
"$rulesdb" export e.db --pub k.pub --format json -o e.json 2>json.err || fail=$((fail + 1))
[ ! -s e.json ] || { echo "FAIL: e.json is not empty"; fail=$((fail + 1)); }
echo "$fail failed"
[ "$fail" -eq 0 ]
