#!/bin/sh
# ONNX's backend node tests (libonnx-testdata: DATA/*/model.onnx with test_data_set_0/*.pb)
# through graphopt: every test of opset 11 to 17 is imported; one whose nodes all map onto the
# rule vocabulary ("modelled") or onto operators graphopt evaluates opaque is evaluated on the
# test's inputs and compared with its expected outputs (largest difference relative to each
# output's scale, at most 1e-4). A test listed in excluded.txt is not run (the file says why);
# one graphopt cannot import is counted by the reason it gives. Exit 1 if any test that runs
# fails, if one gives no verdict, or if an excluded test now passes (so the list stays true).
# The tests run JOBS at a time (default: one per processor; almost all of a test's time is
# graphopt's start), each leaving its verdict in a folder that is read in name order, so the
# report is the same whatever the order they finish in.
#   tests/conformance/run.sh GRAPHOPT [DATA] [-v]      (JOBS=n in the environment)
set -u
here=$(cd "$(dirname "$0")" && pwd)

# run.sh --one GRAPHOPT RESULTS DIR...: those tests. RESULTS/NAME holds a test's verdict
# (unimported, unevaluated, excluded, stale, modelled, opaque, modelled-fail, opaque-fail);
# RESULTS/NAME.why what graphopt said (import or evaluation messages, or the failed check's output).
one() {
  name=${1##*/} dir=$1
  out=$res/$name
  if ! "$graphopt" info "$dir/model.onnx" > "$out.info" 2> "$out.why"; then
    echo unimported > "$out"; return
  fi
  if grep -q '^  not evaluated: ' "$out.info"; then
    sed -n 's/^  not evaluated: \(.*\)/graphopt does not evaluate \1/p' "$out.info" > "$out.why"
    echo unevaluated > "$out"; return
  fi
  kind=modelled
  grep -q ', 0 opaque' "$out.info" || kind=opaque
  "$graphopt" eval "$dir/model.onnx" --inputs "$dir/test_data_set_0" --expect "$dir/test_data_set_0" \
    > "$out.why" 2>&1
  rc=$?
  if grep -q "^$name:" "$here/excluded.txt"; then
    if [ $rc = 0 ]; then echo stale > "$out"; else echo excluded > "$out"; fi
  elif [ $rc = 0 ]; then echo $kind > "$out"
  else echo $kind-fail > "$out"
  fi
}
if [ "${1:-}" = --one ]; then
  graphopt=$2 res=$3
  shift 3
  for dir; do one "$dir"; done
  exit 0
fi

graphopt=${1:?usage: run.sh GRAPHOPT [DATA] [-v]}
data=${2:-/usr/share/libonnx-testdata/data/node}
verbose=${3:-}
if [ ! -d "$data" ]; then
  echo "skip: no ONNX test data at $data (scripts/setup.sh installs libonnx-testdata)"; exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/res"
for dir in "$data"/*/; do
  [ -f "$dir/model.onnx" ] && [ -d "$dir/test_data_set_0" ] && echo "${dir%/}"
done > "$tmp/tests"
if ! xargs -P "${JOBS:-$(nproc)}" -n 8 sh "$here/run.sh" --one "$graphopt" "$tmp/res" < "$tmp/tests"; then
  echo "FAIL: a test's run stopped before its verdict"; exit 1
fi
modelled=0 modelled_ok=0 opaque=0 opaque_ok=0 excluded=0 unimported=0 unevaluated=0 failed=0 stale=0
: > "$tmp/reasons"
while read -r dir; do
  name=$(basename "$dir")
  out=$tmp/res/$name
  verdict=$(cat "$out" 2>/dev/null)
  case $verdict in
    unimported)
      # why it does not import, without the file, node and tensor names
      sed -e 's/^graphopt: [^:]*: //' -e "s/node '[^']*'/node/; s/node [0-9]*/node/; s/'[^' ]*'/X/g" "$out.why" >> "$tmp/reasons"
      unimported=$((unimported + 1))
      [ -n "$verbose" ] && echo "not imported: $name: $(cat "$out.why")" ;;
    unevaluated) cat "$out.why" >> "$tmp/reasons"; unevaluated=$((unevaluated + 1)) ;;
    excluded) excluded=$((excluded + 1)) ;;
    stale)
      excluded=$((excluded + 1)) stale=$((stale + 1))
      echo "EXCLUDED BUT PASSES: $name (remove it from excluded.txt)" ;;
    modelled) modelled=$((modelled + 1)) modelled_ok=$((modelled_ok + 1)) ;;
    opaque) opaque=$((opaque + 1)) opaque_ok=$((opaque_ok + 1)) ;;
    modelled-fail|opaque-fail)
      kind=${verdict%-fail}
      if [ "$kind" = modelled ]; then modelled=$((modelled + 1)); else opaque=$((opaque + 1)); fi
      failed=$((failed + 1))
      echo "FAIL ($kind): $name"; sed 's/^/    /' "$out.why" ;;
    *) failed=$((failed + 1)); echo "FAIL: $name: no verdict" ;;
  esac
done < "$tmp/tests"
echo "conformance: modelled operators $modelled_ok of $modelled pass; with opaque operators $opaque_ok of $opaque pass;"
echo "  $excluded excluded (tests/conformance/excluded.txt), $unimported not imported, $unevaluated not evaluated:"
sort "$tmp/reasons" | uniq -c | sort -rn | sed 's/^/   /'
[ $failed = 0 ] && [ $stale = 0 ]
