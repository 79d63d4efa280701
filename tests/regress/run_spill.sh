#!/usr/bin/env bash
# The enumeration's records on disk (fingerprint/spill.h) and a run that goes on after a kill:
# a run killed (SIGKILL, at a named point: ir/killpoint.h) during the enumeration or the test
# stage, then run again with the same command (another thread count), writes the candidates
# of a run never stopped; a whole run to rules likewise; the folder is removed once the
# candidates are kept; a damaged or foreign folder is refused or repaired, never mixed in.
set -u
rulegen=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # description, command...
  local what=$1
  shift
  if ! "$@"; then echo "FAIL: $what"; fail=$((fail + 1)); fi
}
has() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -qF -- "$2" "$1"; }
status_is() { test "$1" -eq "$2"; }

ops=ewadd,ewmul,matmul,transpose
run() { # output file, extra args... (the log is OUT.log, appended)
  local out=$1
  shift
  # a small record cap: the test stage loads its records in a few dozen groups of parts
  "$rulegen" --ops $ops --depth 3 --inputs "$dir/synth.inputs" -q --stop-after test --max-records 2000 -o "$out" "$@" \
    2>>"$out.log"
}
killed() { # stage:n output args...: a run killed there (in the background: no "Killed" line)
  local at=$1
  shift
  RULEGEN_TEST_KILL_AT=$at run "$@" &
  wait $! 2>/dev/null
}

check "reference run" run "$tmp/ref.rules" -j 2
check "its records are removed once the candidates are kept" test ! -e "$tmp/ref.rules.spill"

# killed in the enumeration after 3 units, gone on with one thread
killed enumerate:3 "$tmp/a.rules" -j 2
check "killed in the enumeration: status 137" status_is $? 137
check "no output yet" test ! -e "$tmp/a.rules"
check "the records are kept" test -n "$(cat "$tmp/a.rules.spill"/s*.log)"
check "the same command goes on" run "$tmp/a.rules" -j 1
check "it says where it goes on from" grep -qE "a.rules.spill: [3-9] of [0-9]+ work units enumerated already" "$tmp/a.rules.log"
check "candidates as if never stopped" cmp -s "$tmp/ref.rules" "$tmp/a.rules"
check "records removed after" test ! -e "$tmp/a.rules.spill"

# killed twice: in the enumeration, then in the test stage after 5 parts
killed enumerate:2 "$tmp/b.rules" -j 2
killed test:5 "$tmp/b.rules" -j 2
check "killed in the test stage: status 137" status_is $? 137
check "tested parts kept" test "$(ls "$tmp/b.rules.spill"/test-*.cand | wc -l)" -eq 5
check "goes on again" run "$tmp/b.rules" -j 2
check "it takes the tested parts" grep -qE "[1-9][0-9]* of 64 parts' candidates taken" "$tmp/b.rules.log"
check "candidates as if never stopped (twice)" cmp -s "$tmp/ref.rules" "$tmp/b.rules"

# a torn log line and a damaged tested part: dropped and redone
killed test:3 "$tmp/c.rules" -j 2
printf 'u 1 9 12 0 0 0 1 2' >>"$tmp/c.rules.spill/s1.log"
part=$(ls "$tmp/c.rules.spill"/test-*.cand | sed -n 2p)
sed -i '$d' "$part" # its last line gone
check "goes on over a torn line" run "$tmp/c.rules" -j 2
check "says the part is tested again" has "$tmp/c.rules.log" "$(basename "$part") is not a whole tested part"
check "candidates as if never stopped (torn)" cmp -s "$tmp/ref.rules" "$tmp/c.rules"

# a record file shorter than its log says (a machine stopped before it reached the disk): the
# units whose records it lost are enumerated again
killed test:1 "$tmp/d.rules" -j 2
big=$(ls -S "$tmp/d.rules.spill"/s0-p*.rec | head -1)
truncate -s 24 "$big"
check "goes on over a cut record file" run "$tmp/d.rules" -j 2
check "it enumerates the lost units again" grep -q "d.rules.spill: [0-9]* of [0-9]* work units enumerated already" "$tmp/d.rules.log"
check "candidates as if never stopped (cut)" cmp -s "$tmp/ref.rules" "$tmp/d.rules"

# another run's folder is refused, not mixed in; a folder that is not one is refused
killed enumerate:1 "$tmp/e.rules" -j 1
run "$tmp/e.rules" -j 1 --seed 7
check "another run's records: status 2" status_is $? 2
check "says whose" has "$tmp/e.rules.log" "holds the records of another run"
mkdir "$tmp/notmine" && echo keep >"$tmp/notmine/file"
run "$tmp/f.rules" --spill "$tmp/notmine"
check "a foreign folder: status 2" status_is $? 2
check "it is left alone" test -s "$tmp/notmine/file"
run "$tmp/g.rules" --spill "$tmp/notmine/file"
check "a file as --spill: status 2" status_is $? 2
check "--spill elsewhere" run "$tmp/h.rules" --spill "$tmp/elsewhere"
check "same candidates through --spill" cmp -s "$tmp/ref.rules" "$tmp/h.rules"
check "--spill folder removed after" test ! -e "$tmp/elsewhere"

# a whole run to rules (depth 2), killed in the enumeration or after its candidates were saved,
# goes on to the same rules with the same command
whole() { "$rulegen" --ops $ops --depth 2 --inputs "$dir/synth.inputs" -q -j 2 -o "$1" 2>>"$1.log"; }
check "whole reference run" whole "$tmp/w.rules"
RULEGEN_TEST_KILL_AT=enumerate:2 whole "$tmp/v.rules" &
wait $! 2>/dev/null
check "whole run killed: status 137" status_is $? 137
check "whole run goes on" whole "$tmp/v.rules"
check "the same rules" cmp -s "$tmp/w.rules" "$tmp/v.rules"
# killed after its candidates were saved (while pruning): the same command goes on from them
RULEGEN_TEST_KILL_AT=prune whole "$tmp/u.rules" &
wait $! 2>/dev/null
check "killed while pruning: status 137" status_is $? 137
check "its candidates saved" test -s "$tmp/u.rules.candidates"
check "the same command goes on from them" whole "$tmp/u.rules"
check "it says so" has "$tmp/u.rules.log" "going on from $tmp/u.rules.candidates, which this command saved"
check "the same rules (after candidates)" cmp -s "$tmp/w.rules" "$tmp/u.rules"
# candidates of other options are not taken: this run makes its own
"$rulegen" --ops ewadd,ewmul --depth 2 --inputs "$dir/synth.inputs" -q -j 2 -o "$tmp/u.rules" 2>"$tmp/u2.log"
check "other options start afresh" status_is $? 0
check "without going on" lacks "$tmp/u2.log" "going on from"
echo "spill: $fail failed"
[ "$fail" -eq 0 ]
