#!/usr/bin/env bash
# taso_loader_check can fail: rule files written here byte by byte (a small protobuf encoder),
# each breaking one thing TASO's rule loader asserts, must be refused with that reason (exit 1);
# two good ones, one with an input past TASO's 20, load (exit 0); garbage does not decode (2).
# TASO's own shipped file (anchors/taso-graph_subst.pb), which its loader reads, loads whole.
#   run_taso_loader_bad.sh TASO_LOADER_CHECK
set -u
checker=$1
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$py" - "$tmp" <<'PY' || fail "writing the cases"
import sys

def varint(n):
    n &= (1 << 64) - 1  # negative int32 as protobuf writes it: ten bytes
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out

def ints(*pairs):  # fields of varints: (number, value) ...
    return b"".join(varint(f << 3) + varint(v) for f, v in pairs)

def sub(number, payload):  # an embedded message
    return varint(number << 3 | 2) + varint(len(payload)) + payload

def op(type_, inputs=(), params=()):
    return ints((1, type_)) + b"".join(sub(2, ints((1, i), (2, t))) for i, t in inputs) + \
        b"".join(sub(3, ints((1, k), (2, v))) for k, v in params)

def rule(src, dst, maps=((0, 0, 0, 0),)):
    return sub(1, b"".join(sub(1, o) for o in src) + b"".join(sub(2, o) for o in dst) +
               b"".join(sub(3, ints((1, a), (2, b), (3, c), (4, d))) for a, b, c, d in maps))

RELU, CONV, POOL, CONCAT, SPLIT, TRANSPOSE, EWADD, ENLARGE = 8, 3, 7, 12, 13, 15, 16, 20
conv_params = ((6, 1), (7, 1), (8, 0), (9, 0))
relu = op(RELU, [(-1, 0)])
cases = {
    "good": (rule([relu], [relu]), ""),
    "good_many_inputs": (rule([op(EWADD, [(-1, 0), (-25, 0)])], [op(EWADD, [(-25, 0), (-1, 0)])]), ""),
    "target_input": (rule([relu], [op(EWADD, [(-1, 0), (-2, 0)])]), "input opId -2 first seen in the target"),
    "conv_no_pad": (rule([op(CONV, [(-1, 0), (-2, 0)], conv_params[:2] + conv_params[3:])],
                         [op(CONV, [(-1, 0), (-2, 0)], conv_params)]), "type 3 lacks required parameter 8"),
    "pool": (rule([op(POOL, [(-1, 0), (-2, 0)], conv_params)], [relu]), "type 7: TASO's loader asserts"),
    "split_no_count": (rule([op(SPLIT, [(-1, 0)], [(11, 0)])], [relu]), "type 13 lacks required parameter 2"),
    "perm_repeats": (rule([op(TRANSPOSE, [(-1, 0)], [(10, 2), (12, 0), (13, 1)])], [relu]), "repeats a dimension"),
    "perm_left": (rule([op(TRANSPOSE, [(-1, 0)], [(10, 2), (12, 4), (13, 1)])], [relu]), "digits left"),
    "concat_rank5": (rule([op(CONCAT, [(-1, 0), (-2, 0)], [(11, 0), (10, 5)])], [relu]), "to_dim_parameter asserts"),
    "concat_7": (rule([op(CONCAT, [(-1, 0)] * 7, [(11, 0), (10, 4)])], [relu]), "more inputs than MAX_NUM_INPUTS"),
    "forward_ref": (rule([op(RELU, [(1, 0)]), relu], [relu]), "operator 1, of which there are 0: out of bounds"),
    "enlarge_one": (rule([op(ENLARGE, [(-1, 0)])], [relu]), "type 20 with 1 inputs: TASO asserts 2"),
    "map_no_op": (rule([relu], [relu], [(0, 1, 0, 0)]), "names an operator a side does not have"),
    "map_no_output": (rule([op(SPLIT, [(-1, 0)], [(11, 0), (2, 2)])], [relu], [(0, 0, 2, 0)]),
                      "names an output its operator lacks"),
}
with open(sys.argv[1] + "/cases.txt", "w") as index:
    for name, (data, why) in cases.items():
        open(f"{sys.argv[1]}/{name}.pb", "wb").write(data)
        index.write(f"{name}\t{why}\n")
open(sys.argv[1] + "/garbage.pb", "wb").write(b"\xff\xff\xff\xff")
PY

n=0
while IFS=$'\t' read -r name why; do
  out=$("$checker" "$tmp/$name.pb" 2>&1)
  rc=$?
  if [ -z "$why" ]; then
    [ $rc -eq 0 ] && grep -q "1 rules load as TASO's loader reads them" <<<"$out" || fail "$name: exit $rc: $out"
  else
    [ $rc -eq 1 ] && grep -qF -- "rule 0: " <<<"$out" && grep -qF -- "$why" <<<"$out" ||
      fail "$name: exit $rc, wanted 1 and '$why': $out"
  fi
  n=$((n + 1))
done <"$tmp/cases.txt"
"$checker" "$tmp/garbage.pb" >/dev/null 2>&1
[ $? -eq 2 ] || fail "garbage: not exit 2"
out=$("$checker" "$here/anchors/taso-graph_subst.pb") && grep -q ": 133 rules load as TASO's loader reads them" <<<"$out" ||
  fail "TASO's own file: $out"
echo "taso_loader_check: $n files judged as TASO's loader would, garbage refused"
