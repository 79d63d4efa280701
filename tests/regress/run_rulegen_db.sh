#!/usr/bin/env bash
# rulesdb on databases that rulegen made, end to end:
# - a run that finds no rule (depth 1 over relu alone: no two graphs agree): its headers say
#   "0 rules" and "none ran", never an empty list such as "(, )";
# - TASO export of a depth-2 run over TASO's operators and inputs (about 10 s with both solvers):
#   every rule TASO can express is written. Their count is computed here independently from the
#   rules' text (every variable one of TASO's 20 inputs by rulegen's name, every operator one that
#   TASO's rule loader builds, no output a bare variable, no dilated conv), and the rules imported back keep their
#   content ids, exactly that set.
set -u
rulegen=$1
rulesdb=$2
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

# ---- TASO export of a depth-2 run ----
"$rulegen" --depth 2 -o d2.db --key k.key >run.log 2>&1 || { cat run.log; fail "rulegen --depth 2"; }
"$rulesdb" export d2.db --pub k.pub --format json -o d2.json 2>/dev/null || fail "export json"
"$rulesdb" export d2.db --pub k.pub --format taso -o d2.pb 2>export.log || { cat export.log; fail "export taso"; }
written=$(sed -n 's/^rulesdb export: \([0-9]*\) of \([0-9]*\) rules written.*/\1/p' export.log)
[ -n "$written" ] || { cat export.log; fail "no 'N of M rules written' line"; }
# Each skipped rule names its reason.
skipped=$(grep -c '^rule [0-9a-f]\{16\}: ' export.log)
total=$(wc -l <d2.json)
[ "$((written + skipped))" -eq "$total" ] || fail "$written written + $skipped skipped != $total rules"

# The TASO-expressible rules of d2.json, by their text alone: their ids, sorted.
python3 - d2.json >want.ids <<'PY' || fail "counting the expressible rules"
import json, re, sys
names = {"x1", "x2", "x3", "w1", "w2", "w3", "i1", "i2", "i3", "s0"} | {"w%d" % k for k in range(4, 14)}
# the operators TASO's rule loader builds (its src/core/substitution.cc: no pools, no constants;
# enlarge only with a reference tensor, which ours lacks)
ops = {"ewadd", "ewmul", "smul", "matmul", "conv2d", "relu", "tanh", "sigmoid", "transpose", "concat",
       "split.0", "split.1"}
for line in open(sys.argv[1]):
    r = json.loads(line)
    text = r["text"]
    heads = re.findall(r"\((\S+)", text)
    variables = re.findall(r"\?(\S+?)(?=[ )]|$)", text)
    bare = any(re.fullmatch(r"\?\S+", out.strip()) for side in text.split("=>") for out in side.split(";"))
    dilated = any(m.group(1) != "1 1" for m in re.finditer(r"\(conv2d \d+ \d+ \w+ \w+ (\d+ \d+)", text))
    if all(h in ops for h in heads) and all(v in names for v in variables) and not bare and not dilated:
        print(r["id"])
PY
sort -o want.ids want.ids
want=$(wc -l <want.ids)
echo "depth 2: $total rules, $want TASO-expressible, $written exported"
[ "$want" -gt 0 ] || fail "no TASO-expressible rule in the run"
[ "$written" -eq "$want" ] || { cat export.log; fail "exported $written, TASO-expressible $want"; }

# Imported back: the same rules, by content id.
"$rulesdb" import --format taso d2.pb -o back.db >import.log 2>&1 || { cat import.log; fail "import taso"; }
"$rulesdb" export back.db --allow-unsigned --format json -o back.json 2>/dev/null || fail "export back.db"
python3 -c 'import json,sys; [print(json.loads(l)["id"]) for l in open(sys.argv[1])]' back.json | sort >got.ids
cmp -s want.ids got.ids || { diff want.ids got.ids | head; fail "content ids changed on the round trip"; }
echo "round trip: $(wc -l <got.ids) rules, content ids kept"
