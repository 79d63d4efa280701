#!/usr/bin/env bash
# End-to-end runs of rulegen's generalize stage (between test and prune) on three equal-shaped
# inputs: the distribution of ewadd and ewmul over two concats of four tensors appears only
# through generalization, the stage has its row in the table, --no-generalize turns it off.
set -u
rulegen=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$dir/check.sh"
run() { # output file, extra args...
  local o=$1
  shift
  # TASO's pruning stages only: derivability (which runs before the proofs too) would remove
  # the instance below whether or not generalization made a law it is an instance of.
  "$rulegen" --ops ewadd,ewmul,concat --depth 3 --inputs "$dir/generalize.inputs" -j 2 -q \
    --stop-after prune --prune renaming,subgraph -o "$o" "$@"
}
covers() { # rule file, our rules, extra args...
  "$rulegen" covers "$1" --with "$2" -q "${@:3}"
}
check "help names the flag and its bounds" 0 "$rulegen" synth --help
out=$(tr -s ' \n' ' ' <<<"$out") # help texts are wrapped to 100 columns
has "flag" "--no-generalize"
has "bound" "at most 64"
check "depth 3 with generalization" 0 run "$tmp/gen.rules"
has "stage row" "generalize "
has "most general added" "most general added"
check "ewadd and ewmul over two concats of four tensors" 0 covers "$dir/generalize.laws" "$tmp/gen.rules" --steps 1 --states 2
has "both contained" "2 of 2 rules: 2 contained"
check "the repeated-operand instance" 0 covers "$dir/generalize.instance" "$tmp/gen.rules" --steps 1 --states 100
has "is removed (an instance of a kept generalization)" "1 of 1 rules: 0 contained, 1 derived"
check "same rules with 1 thread" 0 run "$tmp/gen1.rules" -j 1
check "thread count does not change the rules" 0 cmp -s "$tmp/gen.rules" "$tmp/gen1.rules"
check "--no-generalize" 0 run "$tmp/plain.rules" --no-generalize
n=$((n + 1)); if grep -q "^generalize" <<<"$out"; then echo "FAIL --no-generalize printed the stage row"; fail=$((fail + 1)); fi
check "without it, no four-tensor law" 0 covers "$dir/generalize.laws" "$tmp/plain.rules" --steps 1 --states 2
has "none covered" "0 of 2 rules"
check "and the instance is kept" 0 covers "$dir/generalize.instance" "$tmp/plain.rules" --steps 1 --states 2
has "contained" "1 of 1 rules: 1 contained"
finish
