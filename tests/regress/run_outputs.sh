#!/usr/bin/env bash
# graphopt's outputs (issue 39): every path is checked before any work, and what a path names is
# respected: -o and --json naming one file, the input or the rules (without --force), an empty
# name, a folder, a name too long for the temporary beside it, a read-only file, a dangling
# link are refused with exit 2 and the model untouched; /dev/null and FIFOs are written in
# place, never replaced; a symbolic link's target is written and the link stays; a --json that
# cannot be written at the end is exit 3 (the model is written), never 1 (the check failed); a
# full disk is said as such.
#   run_outputs.sh GRAPHOPT DIR   (DIR: tests/regress/optimize)
set -u
g=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$dir/merge_convs.onnx" "$dir/merge.rules" "$tmp/"
m=$tmp/merge_convs.onnx r=$tmp/merge.rules
fail=0 n=0
# expect STATUS TEXT ARGS...: graphopt optimize exits with STATUS and its output holds TEXT
expect() {
  local want=$1 text=$2
  shift 2
  n=$((n + 1))
  out=$(timeout 120 "$g" optimize "$m" --rules "$r" -q "$@" 2>&1)
  local rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qF -- "$text" <<<"$out"; then
    echo "FAIL (optimize ... $*): exit $rc (want $want), want '$text' in: $out"
    fail=$((fail + 1))
  fi
}
check() { # check DESCRIPTION COMMAND...: the command must succeed
  n=$((n + 1))
  "${@:2}" || { echo "FAIL: $1"; fail=$((fail + 1)); }
}

sum_before=$(cksum <"$m")
expect 2 "-o and --json name one file" -o "$tmp/o.onnx" --json "$tmp/o.onnx"
check "nothing written when -o and --json are one file" test ! -e "$tmp/o.onnx"
expect 2 "names a file this run reads ($m)" -o "$m"
expect 2 "names a file this run reads ($r)" -o "$r"
expect 2 "names a file this run reads ($m)" -o "$tmp/ok.onnx" --json "$m"
check "the input is untouched" test "$(cksum <"$m")" = "$sum_before"
expect 2 "an empty file name" -o ""
expect 2 "is a folder" -o "$tmp"
expect 2 "leaves no room for the temporary" -o "$tmp/$(printf 'n%.0s' $(seq 1 250)).onnx"
touch "$tmp/ro.onnx" && chmod 444 "$tmp/ro.onnx"
expect 2 "is read-only" -o "$tmp/ro.onnx"
check "a read-only file is left as it was" test ! -s "$tmp/ro.onnx"
ln -s "$tmp/nowhere/x.onnx" "$tmp/dangling.onnx"
expect 2 "a symbolic link that leads nowhere" -o "$tmp/dangling.onnx"
expect 2 "does not exist" -o "$tmp/no_such_folder/x.onnx"

# written in place: /dev/null stays a device
expect 0 "/dev/null: written" -o /dev/null
check "/dev/null is still a character device" test -c /dev/null
# a link is written through: the target gets the model, the link stays a link
touch "$tmp/target.onnx" && ln -s "$tmp/target.onnx" "$tmp/link.onnx"
expect 0 "written" -o "$tmp/link.onnx"
check "the link is still a link" test -L "$tmp/link.onnx"
check "the link's target holds the model" test -s "$tmp/target.onnx"
# a FIFO: read by a reader, it gets the model; with none, a clear error, not a hang
mkfifo "$tmp/fifo"
(cat "$tmp/fifo" >"$tmp/from_fifo") &
reader=$!
sleep 1 # the reader opens the FIFO first
expect 0 "written" -o "$tmp/fifo"
wait "$reader"
check "the FIFO's reader got the model" test -s "$tmp/from_fifo"
check "the FIFO is still a FIFO" test -p "$tmp/fifo"
expect 2 "a FIFO that no process reads" -o "$tmp/fifo"
# --json that cannot be written at the end (a FIFO nobody reads): exit 3, the model written
rm -f "$tmp/j.onnx"
expect 3 "--json" -o "$tmp/j.onnx" --json "$tmp/fifo"
check "the model is written although its --json is not" test -s "$tmp/j.onnx"
# a full disk (/dev/full): the reason is said
n=$((n + 1))
out=$(timeout 60 "$g" convert "$m" -o /dev/full -q 2>&1)
rc=$?
if [ "$rc" -ne 2 ] || ! grep -qF "No space left on device" <<<"$out"; then
  echo "FAIL (convert -o /dev/full): exit $rc (want 2), want 'No space left on device' in: $out"; fail=$((fail + 1))
fi
# nor any other file the run reads: a public key, the axioms
echo key >"$tmp/k.pub"
expect 2 "names a file this run reads ($tmp/k.pub)" -o "$tmp/k.pub" --pub "$tmp/k.pub"
check "the key is untouched" test "$(cat "$tmp/k.pub")" = key
# a pipe whose reader leaves early: a write error, said (not a silent death by SIGPIPE)
n=$((n + 1))
big=$tmp/big.onnx
/usr/bin/python3 - "$big" <<'PY' 2>/dev/null || cp "$m" "$big"
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
w = numpy_helper.from_array(np.ones((1024, 1024), np.float32), "w")
g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 1024])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 1024])], [w])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PY
out=$("$g" convert "$big" -o /dev/stdout -q 2>&1 >/dev/null | head -c 0; "$g" convert "$big" -o /dev/stdout -q 2>"$tmp/err" | head -c 10 >/dev/null; echo "rc=${PIPESTATUS[0]}")
if ! grep -q "rc=2" <<<"$out" || ! grep -qF "Broken pipe" "$tmp/err"; then
  echo "FAIL (convert into a pipe closed early): $out; $(cat "$tmp/err")"; fail=$((fail + 1))
fi
# --force lets -o replace the input
expect 0 "written" -o "$m" --force

echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
