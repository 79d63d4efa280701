#!/usr/bin/env bash
# `rulegen prune` and `rulegen covers` end to end on the small sets of this directory: counts,
# the kept file, the records and their audit (also of tampered records), coverage of TASO's
# shipped rules by their own pruned set.
set -u
rulegen=$1
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$dir/../../regress/check.sh"

check "help" 0 "$rulegen" prune --help
has "help names the stages" "renaming,subgraph,derive"
check "covers help" 0 "$rulegen" covers --help

check "prune assoc.rules" 0 "$rulegen" prune -q "$dir/assoc.rules" -o "$tmp/kept.rules"
has "renaming row" "renaming                 13       12        1"
has "subgraph row" "common subgraph          12       11        1"
has "supergraph row" "common supergraph        11       10        1"
has "derivability row" "derivability             10        8        2"
kept=$(grep -vc '^#' "$tmp/kept.rules")
n=$((n + 1)); [ "$kept" -eq 8 ] || { echo "FAIL kept file has $kept rules, want 8"; fail=$((fail + 1)); }
for name in assoc dist planted tt split0 split1 relu-concat multi; do
  n=$((n + 1)); grep -q "^$name:" "$tmp/kept.rules" || { echo "FAIL $name was removed"; fail=$((fail + 1)); }
done
for name in chain mix dup inst super; do
  n=$((n + 1)); grep -q "^$name:" "$tmp/kept.rules" && { echo "FAIL $name was kept"; fail=$((fail + 1)); }
  n=$((n + 1)); grep -q "  rule: $name:" "$tmp/kept.rules.removed" || { echo "FAIL no record for $name"; fail=$((fail + 1)); }
done

check "audit of the records" 0 "$rulegen" prune --audit "$tmp/kept.rules.removed" "$tmp/kept.rules"
has "audit summary" "audit: 5 removal records check against 8 kept rules (renaming 1, subgraph 1, supergraph 1, derived 2)"
sed 's/^\(  step 1 [0-9a-f]* [a-z]*: (matmul\) ?a/\1 ?b/' "$tmp/kept.rules.removed" >"$tmp/tampered"
n=$((n + 1)); cmp -s "$tmp/tampered" "$tmp/kept.rules.removed" && { echo "FAIL tampering changed nothing"; fail=$((fail + 1)); }
check "audit of tampered records" 1 "$rulegen" prune --audit "$tmp/tampered" "$tmp/kept.rules"
has "tampered step named" "derivation does not check"
grep -v '^planted' "$tmp/kept.rules" | grep -v '^assoc' >"$tmp/fewer.rules"
check "audit against a smaller kept set" 1 "$rulegen" prune --audit "$tmp/kept.rules.removed" "$tmp/fewer.rules"

check "prune with renaming only" 0 "$rulegen" prune -q --prune renaming "$dir/assoc.rules" -o "$tmp/ren.rules" --records "$tmp/ren.removed"
has "derive skipped" "derivability        skipped"
n=$((n + 1)); [ -s "$tmp/ren.removed" ] || { echo "FAIL --records did not write the records"; fail=$((fail + 1)); }

check "deep rule" 0 "$rulegen" prune -q "$dir/deep.rules" -o "$tmp/deep.rules"
has "deep rule kept" "kept                               2"

check "prune the AC closure" 0 "$rulegen" prune -q "$dir/ac.rules" -o "$tmp/ac.rules"
has "AC closure kept" "kept                               4"
check "audit the AC closure" 0 "$rulegen" prune --audit "$tmp/ac.rules.removed" "$tmp/ac.rules"
check "AC closure covered by its pruned set" 0 "$rulegen" covers -q "$dir/ac.rules" --with "$tmp/ac.rules"
has "AC closure all covered" "covers: 134 of 134 rules"

check "prune TASO's 133" 0 "$rulegen" prune -q "$dir/../taso-133.rules" -o "$tmp/taso.rules"
check "audit TASO's pruned set" 0 "$rulegen" prune --audit "$tmp/taso.rules.removed" "$tmp/taso.rules"
check "covers TASO's 133 with its pruned set" 0 "$rulegen" covers -q "$dir/../taso-133.rules" --with "$tmp/taso.rules"
has "all covered" "covers: 133 of 133 rules"
grep '^tt:' "$tmp/kept.rules" >"$tmp/tt.rules"
check "covers with an unrelated set" 0 "$rulegen" covers "$dir/../taso-133.rules" --with "$tmp/tt.rules"
has "not covered listed" "NOT COVERED"
has "none covered" "covers: 0 of 133 rules"
check "a set covers itself" 0 "$rulegen" covers "$tmp/taso.rules" --with "$tmp/taso.rules"
k=$(grep -vc '^#' "$tmp/taso.rules")
has "contained" "covers: $k of $k rules: $k contained"

finish
