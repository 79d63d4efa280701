#!/bin/sh
# ONNX's backend node tests (libonnx-testdata: DATA/*/model.onnx with test_data_set_0/*.pb)
# through graphopt's import and evaluator (node_tests.c: what `graphopt info` and `graphopt eval
# --inputs --expect` do, every test in one process): every test of opset 1 to 21 is imported;
# one whose nodes all map onto the rule vocabulary ("modelled") or onto operators graphopt
# evaluates opaque is evaluated on the test's inputs and compared with its expected outputs
# (largest difference relative to each output's scale, at most 1e-4). A test listed in
# excluded.txt does not count (the file says why); one graphopt cannot import is counted by the
# reason it gives. Exit 1 if any test that counts fails, if the run stops before a test's
# verdict, or if an excluded test now passes (so the list stays true).
#   tests/conformance/run.sh NODE_TESTS [DATA] [-v]     (NODE_TESTS: the built node_tests)
set -u
here=$(cd "$(dirname "$0")" && pwd)
runner=${1:?usage: run.sh NODE_TESTS [DATA] [-v]}
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
xargs "$runner" "$tmp/res" < "$tmp/tests"
rc=$?
excluded_names=" $(sed -n 's/^\([^#:][^:]*\):.*/\1/p' "$here/excluded.txt" | tr '\n' ' ') "
modelled=0 modelled_ok=0 opaque=0 opaque_ok=0 excluded=0 unimported=0 unevaluated=0 failed=0 stale=0 seen=0
running=''
touch "$tmp/res/verdicts" "$tmp/res/reasons"
while read -r name verdict; do
  if [ "$verdict" = running ]; then running=$name; continue; fi
  running='' seen=$((seen + 1))
  case $excluded_names in
    *" $name "*)
      case $verdict in
        modelled|opaque) verdict=stale ;;
        modelled-fail|opaque-fail) verdict=excluded ;;
      esac ;;
  esac
  case $verdict in
    unimported)
      unimported=$((unimported + 1))
      [ -n "$verbose" ] && echo "not imported: $name: $(cat "$tmp/res/$name")" ;;
    unevaluated) unevaluated=$((unevaluated + 1)) ;;
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
      echo "FAIL ($kind): $name"; sed 's/^/    /' "$tmp/res/$name" ;;
  esac
done < "$tmp/res/verdicts"
missing=$(($(wc -l < "$tmp/tests") - seen))
if [ -n "$running" ]; then
  failed=$((failed + 1)) missing=$((missing - 1))
  echo "FAIL: $running: the run stopped in this test (status $rc)"
fi
[ $missing = 0 ] || echo "FAIL: $missing tests have no verdict (the run stopped before them, status $rc)"
echo "conformance: modelled operators $modelled_ok of $modelled pass; with opaque operators $opaque_ok of $opaque pass;"
echo "  $excluded excluded (tests/conformance/excluded.txt), $unimported not imported, $unevaluated not evaluated:"
# why a test does not import, without the file, node and tensor names
sed -e 's/^[^:]*: //' -e "s/node '[^']*'/node/; s/node [0-9]*/node/; s/'[^' ]*'/X/g" "$tmp/res/reasons" | sort | uniq -c | sort -rn | sed 's/^/   /'
[ $failed = 0 ] && [ $stale = 0 ] && [ $missing = 0 ] && [ $rc = 0 ]
