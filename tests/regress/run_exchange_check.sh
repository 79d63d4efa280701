#!/usr/bin/env bash
# rulesdb's TASO and TENSAT export of one rule set, checked from outside the exporter:
#   run_exchange_check.sh RULESDB TASO_LOADER_CHECK SET [PUB]
# SET is a database (verified with PUB, else read with --allow-unsigned) or rule text (imported
# into a database first). For each format: the rules written are exactly those that
# exchange_expressible.py finds expressible from the rules' text and variable shapes (same
# ids), every other rule is skipped with a reason, and the export line counts them by reason.
# TASO's file loads as TASO's loader reads it (taso_loader_check: every rule), and imported
# back gives the written rules again up to the names of variables outside TASO's 20. TENSAT's
# files parse as TENSAT reads them (tensat_check.py). Prints the figures.
set -u
rulesdb=$1
checker=$2
set_path=$3
pub=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

db=$tmp/set.db
case $set_path in
*.db) cp "$set_path" "$db" ;;
*) "$rulesdb" import --format text "$set_path" -o "$db" >"$tmp/import.log" 2>&1 || { cat "$tmp/import.log"; fail "import $set_path"; } ;;
esac
if [ -n "$pub" ]; then auth=(--pub "$pub"); else auth=(--allow-unsigned); fi
"$rulesdb" export "$db" "${auth[@]}" --format json -o "$tmp/all.json" 2>/dev/null || fail "export json"
total=$(wc -l <"$tmp/all.json")
name=$(basename "$set_path")

# The ids a format wrote: the rules not named as skipped, in the database's order.
written_ids() {
  "$py" -c 'import json,sys
skipped = {l.split(":")[0][5:] for l in open(sys.argv[2]) if l.startswith("rule ")}
for l in open(sys.argv[1]):
    i = json.loads(l)["id"]
    if i[:16] not in skipped: print(i)' "$tmp/all.json" "$1" | sort
}

# Export in format $1 to $2; checks the counts against exchange_expressible.py.
check_counts() {
  local fmt=$1 out=$2 log=$tmp/$1.log
  "$rulesdb" export "$db" "${auth[@]}" --format "$fmt" -o "$out" 2>"$log" || { cat "$log"; fail "export $fmt"; }
  local written skipped want
  written=$(sed -n 's/^rulesdb export: \([0-9]*\) of [0-9]* rules written.*/\1/p' "$log")
  skipped=$(grep -c '^rule [0-9a-f]\{16\}: [^:]*: ' "$log")
  [ -n "$written" ] && [ "$((written + skipped))" -eq "$total" ] ||
    { cat "$log"; fail "$fmt: $written written + $skipped skipped (each with a reason) != $total"; }
  [ "$skipped" -eq 0 ] || grep -q "^rulesdb export: $written of $total rules written; $skipped skipped (not expressible in this format): [0-9]" "$log" ||
    { cat "$log"; fail "$fmt: no count of the skipped rules by reason"; }
  "$py" "$here/exchange_expressible.py" "$db" "$fmt" | sort >"$tmp/$fmt.want" || fail "exchange_expressible.py $fmt"
  written_ids "$log" >"$tmp/$fmt.got"
  want=$(wc -l <"$tmp/$fmt.want")
  cmp -s "$tmp/$fmt.want" "$tmp/$fmt.got" ||
    { diff "$tmp/$fmt.want" "$tmp/$fmt.got" | head; fail "$fmt: written $written, expressible $want: not the same rules"; }
  echo "$name: $fmt: $written of $total rules written = $want expressible; skipped by reason: $(sed -n 's/.*(not expressible in this format): //p' "$log")"
}

# ---- TASO ----
check_counts taso "$tmp/set.pb"
"$checker" "$tmp/set.pb" >"$tmp/check.out" || { cat "$tmp/check.out"; fail "TASO's loader would fail on the file"; }
grep -q "^$tmp/set.pb: $(wc -l <"$tmp/taso.got") rules load as TASO's loader reads them" "$tmp/check.out" ||
  { cat "$tmp/check.out"; fail "the checker read another count"; }
echo "$name: taso: $(sed "s|^$tmp/set.pb: ||" "$tmp/check.out")"
# Imported back: the written rules, variables outside TASO's 20 renamed ?input_21, ... by first use.
"$rulesdb" import --format taso "$tmp/set.pb" -o "$tmp/back.rules" >"$tmp/back.log" 2>&1 || { cat "$tmp/back.log"; fail "import taso"; }
"$py" - "$tmp/all.json" "$tmp/taso.got" "$tmp/back.rules" <<'PY' || fail "the round trip through TASO's format changed rules"
import json, re, sys
taso = {"x1", "x2", "x3", "w1", "w2", "w3", "i1", "i2", "i3", "s0"} | {"w%d" % k for k in range(4, 14)}
text = {json.loads(l)["id"]: json.loads(l)["text"] for l in open(sys.argv[1])}
want = []
for i in open(sys.argv[2]).read().split():
    t = text[i]
    order = []
    for v in re.findall(r"\?([A-Za-z0-9_]+)", t.split("=>")[0]):
        if v not in taso and v not in order:
            order.append(v)
    names = {v: "input_%d" % (21 + k) for k, v in enumerate(order)}
    want.append(re.sub(r"\?([A-Za-z0-9_]+)", lambda m: "?" + names.get(m.group(1), m.group(1)), t))
got = open(sys.argv[3]).read().split("\n")[:-1]
bad = [(w, g) for w, g in zip(sorted(want), sorted(got)) if w != g]
if len(want) != len(got) or bad:
    print(f"{len(want)} written, {len(got)} back; first differences: {bad[:3]}")
    sys.exit(1)
print(f"round trip: {len(got)} rules back, the same up to renaming ({sum(1 for w in want if '?input_' in w)} renamed)")
PY

# ---- TENSAT ----
check_counts tensat "$tmp/set.txt"
"$py" "$here/tensat_check.py" "$tmp/set.txt" || fail "TENSAT would not read the single-output file"
"$py" "$here/tensat_check.py" "$tmp/set_multi.txt" --multi || fail "TENSAT would not read the two-output file"
