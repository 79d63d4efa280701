#!/usr/bin/env bash
# rulegen eval end to end: every rule of true.rules agrees (exit 0), every rule of false.rules
# differs (exit 1), the built-in examples agree, and the two examples of the foundation issue
# give the documented answers.
set -u
rulegen=$1
dir=$2
shapes="-s x=2x4 -s y=2x4 -s z=2x4 -s u=2x4 -s w=4x4 -s v=4x4 -s s=scalar -s i=2x4x5x5 -s j=2x4x5x5 -s k=4x4x3x3 -s k2=4x4x3x3 -s k13=4x4x1x3"
. "$(dirname "$0")/check.sh"
# shellcheck disable=SC2086
check "true.rules all agree" 0 "$rulegen" eval -t 4 $shapes "$dir/true.rules"
while IFS= read -r line; do
  case "$line" in "#"* | "") continue ;; esac
  # shellcheck disable=SC2086
  check "false rule differs: $line" 1 "$rulegen" eval $shapes -e "$line"
done <"$dir/false.rules"
check "built-in examples" 0 "$rulegen" eval
check "issue example: matmul associativity agrees" 0 "$rulegen" eval -s 4x4 -e '(matmul (matmul ?x ?y) ?z) => (matmul ?x (matmul ?y ?z))'
check "issue example: matmul commutativity differs" 1 "$rulegen" eval -s 4x4 -e '(matmul ?x ?y) => (matmul ?y ?x)'
has "commutativity: the differing position is printed" "differ: output 1 at position [0,0]"
n=$((n + 1))
if ! "$rulegen" eval -s x=2x4x5x5 -s w=4x4x3x3 -e '(conv2d 1 1 same relu ?x ?w) ; ?x' | grep -q 'Z_p     output 2: 2x4x5x5'; then
  echo "FAIL bare graph output listing"; fail=$((fail + 1))
fi
check "shape sets found by the solver (no -s)" 0 "$rulegen" eval -n 6 -e '(split.1 ?a (concat ?a ?x ?y)) => ?y'
# Swapping a conv kernel's channel axes is harmless only when both are 1.
one='(conv2d ?i ?w) => (conv2d ?i (transpose 1023 ?w))'
check "size-1 coincidence agrees at its own shapes" 0 "$rulegen" eval -s i=2x1x5x5 -s w=1x1x3x3 -e "$one"
check "size-1 coincidence is caught at other shape sets" 1 "$rulegen" eval -n 6 -s i=2x1x5x5 -s w=1x1x3x3 -e "$one"
finish
