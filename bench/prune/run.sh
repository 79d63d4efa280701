#!/usr/bin/env bash
# Times `rulegen prune` (every stage) and its audit on rule sets made from TASO's 133 shipped
# rules by gen_variants.py (K rounds of implied variants; --mutate adds rules that are not
# implied). Prints one markdown table row per set. Usage: bench/prune/run.sh [RULEGEN] [K...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rulegen=${1:-$root/build/tools/rulegen}
shift || true
ks=${*:-8 32}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| set | rules | after renaming | subgraph | supergraph | derivability | kept | prune wall | audit wall |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for k in $ks; do
  for mode in "" --mutate; do
    set_name="taso-133 x$k${mode:+ mutate}"
    # shellcheck disable=SC2086
    python3 "$here/gen_variants.py" $mode "$root/tests/data/taso-133.rules" "$k" >"$tmp/in.rules"
    t0=$(date +%s.%N)
    "$rulegen" prune -q "$tmp/in.rules" -o "$tmp/out.rules" >"$tmp/table"
    t1=$(date +%s.%N)
    "$rulegen" prune --audit "$tmp/out.rules.removed" "$tmp/out.rules" >/dev/null
    t2=$(date +%s.%N)
    col() { awk -v s="$1" '$0 ~ "^"s {print $(NF-2)}' "$tmp/table"; }
    n=$(awk '/^input/ {print $2}' "$tmp/table")
    kept=$(awk '$1 == "kept" && NF == 2 {print $2}' "$tmp/table")
    printf "| %s | %s | %s | %s | %s | %s | %s | %.2f s | %.2f s |\n" "$set_name" "$n" "$(col renaming)" \
      "$(col 'common subgraph')" "$(col 'common supergraph')" "$(col derivability)" "$kept" \
      "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
  done
done
