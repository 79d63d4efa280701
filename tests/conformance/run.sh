#!/bin/sh
# ONNX's backend node tests (libonnx-testdata: DATA/*/model.onnx with test_data_set_0/*.pb)
# through graphopt: every test of opset 11 to 17 is imported; one whose nodes all map onto the
# rule vocabulary ("modelled") or onto operators graphopt evaluates opaque is evaluated on the
# test's inputs and compared with its expected outputs (largest difference relative to each
# output's scale, at most 1e-4). A test listed in excluded.txt is not run (the file says why);
# one graphopt cannot import is counted by the reason it gives. Exit 1 if any test that runs
# fails, or if an excluded test now passes (so the list stays true).
#   tests/conformance/run.sh GRAPHOPT [DATA] [-v]
set -u
graphopt=${1:?usage: run.sh GRAPHOPT [DATA] [-v]}
data=${2:-/usr/share/libonnx-testdata/data/node}
verbose=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$data" ]; then
  echo "skip: no ONNX test data at $data (scripts/setup.sh installs libonnx-testdata)"; exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
modelled=0 modelled_ok=0 opaque=0 opaque_ok=0 excluded=0 unimported=0 unevaluated=0 failed=0 stale=0
: > "$tmp/reasons"
for dir in "$data"/*/; do
  name=$(basename "$dir")
  [ -f "$dir/model.onnx" ] && [ -d "$dir/test_data_set_0" ] || continue
  reason=$(grep "^$name:" "$here/excluded.txt" | cut -d: -f2-)
  if ! "$graphopt" info "$dir/model.onnx" > "$tmp/info" 2> "$tmp/err"; then
    # why it does not import, without the file, node and tensor names
    sed -e 's/^graphopt: [^:]*: //' -e "s/node '[^']*'/node/; s/node [0-9]*/node/; s/'[^' ]*'/X/g" "$tmp/err" >> "$tmp/reasons"
    unimported=$((unimported + 1))
    [ -n "$verbose" ] && echo "not imported: $name: $(cat "$tmp/err")"
    continue
  fi
  if grep -q '^  not evaluated: ' "$tmp/info"; then
    sed -n 's/^  not evaluated: \(.*\)/graphopt does not evaluate \1/p' "$tmp/info" >> "$tmp/reasons"
    unevaluated=$((unevaluated + 1))
    continue
  fi
  kind=modelled
  grep -q ', 0 opaque' "$tmp/info" || kind=opaque
  "$graphopt" eval "$dir/model.onnx" --inputs "$dir/test_data_set_0" --expect "$dir/test_data_set_0" \
    > "$tmp/out" 2>&1
  rc=$?
  if [ -n "$reason" ]; then
    excluded=$((excluded + 1))
    if [ $rc = 0 ]; then echo "EXCLUDED BUT PASSES: $name (remove it from excluded.txt)"; stale=$((stale + 1)); fi
    continue
  fi
  if [ $kind = modelled ]; then modelled=$((modelled + 1)); else opaque=$((opaque + 1)); fi
  if [ $rc = 0 ]; then
    if [ $kind = modelled ]; then modelled_ok=$((modelled_ok + 1)); else opaque_ok=$((opaque_ok + 1)); fi
  else
    failed=$((failed + 1))
    echo "FAIL ($kind): $name"; sed 's/^/    /' "$tmp/out"
  fi
done
echo "conformance: modelled operators $modelled_ok of $modelled pass; with opaque operators $opaque_ok of $opaque pass;"
echo "  $excluded excluded (tests/conformance/excluded.txt), $unimported not imported, $unevaluated not evaluated:"
sort "$tmp/reasons" | uniq -c | sort -rn | sed 's/^/   /'
[ $failed = 0 ] && [ $stale = 0 ]
