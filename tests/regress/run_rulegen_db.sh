#!/usr/bin/env bash
# rulesdb on databases that rulegen made, end to end:
# - a run that finds no rule (depth 1 over relu alone: no two graphs agree): its headers say
#   "0 rules" and "none ran", never an empty list such as "(, )";
# - TASO and TENSAT export of a depth-2 run over TASO's operators and inputs (about 10 s with
#   both solvers): every rule each format can express is written, TASO's file loads as TASO's
#   loader reads it, and the rules come back on import (run_exchange_check.sh).
set -u
rulegen=$1
rulesdb=$2
checker=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
fail() { echo "FAIL: $*"; exit 1; }
has() { grep -qF -- "$2" "$1" || { cat "$1"; fail "$1 lacks '$2'"; }; }
lacks() { ! grep -qF -- "$2" "$1" || { cat "$1"; fail "$1 holds '$2'"; }; }

"$rulesdb" keygen -o k >/dev/null 2>&1 || fail "keygen"

# ---- a run with no rule ----
"$rulegen" --depth 1 --ops relu -o e.rules 2>text.err || { cat text.err; fail "rulegen -o e.rules"; }
has e.rules "# rulegen: 0 rules (solvers: none ran)"
lacks e.rules "(, )"
has text.err "solvers: none ran; 0 rules pass"
lacks text.err "solvers: ,"
"$rulegen" --depth 1 --ops relu -o e.db --key k.key 2>db.err || { cat db.err; fail "rulegen -o e.db"; }
has db.err "output       0 rules in e.db (signed)"
"$rulesdb" show e.db --pub k.pub >show.out 2>&1 || { cat show.out; fail "show"; }
has show.out "0 rules; 0 proof, 0 test, 0 certificate and 0 pruning records"
has show.out "(no rules: no counts by status or size)"
lacks show.out "prune.records"
"$rulesdb" show e.db --pub k.pub --config >config.out 2>&1 || fail "show --config"
has config.out "prune.records = ("
lacks config.out "# rulegen prune"
"$rulesdb" show e.db --pub k.pub --list >list.out 2>&1 || fail "show --list"
has list.out "0 of 0 rules shown"
"$rulesdb" export e.db --pub k.pub --format taso -o e.pb 2>taso.err || fail "export taso of no rule"
has taso.err "0 of 0 rules written"
"$rulesdb" export e.db --pub k.pub --format json -o e.json 2>/dev/null || fail "export json of no rule"
[ ! -s e.json ] || fail "e.json is not empty"
echo "no rules: headers say so"

# ---- TASO and TENSAT export of a depth-2 run ----
"$rulegen" --depth 2 -o d2.db --key k.key >run.log 2>&1 || { cat run.log; fail "rulegen --depth 2"; }
"$here/run_exchange_check.sh" "$rulesdb" "$checker" d2.db k.pub || fail "export of the depth-2 run"
