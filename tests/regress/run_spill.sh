#!/usr/bin/env bash
# The enumeration's records on disk (fingerprint/spill.h) and a run that goes on after a kill:
# a run killed (SIGKILL, at a named point: ir/killpoint.h) during the enumeration or the test
# stage, then run again with the same command (another thread count), writes the candidates
# of a run never stopped; a whole run to rules likewise, also killed after its candidates were
# saved; the folder is removed once the candidates are kept; a damaged or foreign folder is
# refused or repaired, never mixed in.
set -u
rulegen=$1
dir=$2
. "$dir/check.sh"
in_scratch
lacks() { # description, text the last check's output must not hold
  n=$((n + 1))
  if grep -qF -- "$2" <<<"$out"; then echo "FAIL $1: output has '$2'"; fail=$((fail + 1)); fi
}

ops=ewadd,ewmul,matmul,transpose
run() { # output file, extra args...; a small record cap: the test stage loads a few dozen groups
  local o=$1
  shift
  "$rulegen" --ops $ops --depth 3 --inputs "$dir/synth.inputs" -q --stop-after test --max-records 2000 -o "$o" "$@"
}
killed() { # stage:n, then run's arguments: a run that kills itself there
  local at=$1
  shift
  RULEGEN_TEST_KILL_AT=$at run "$@"
}

check "reference run" 0 run ref.rules -j 2
check "its records are removed once the candidates are kept" 0 test ! -e ref.rules.spill

# killed in the enumeration after 3 units, gone on with one thread
check "killed in the enumeration" 137 killed enumerate:3 a.rules -j 2
check "no output yet" 0 test ! -e a.rules
check "the records are kept" 0 test -n "$(cat a.rules.spill/s*.log)"
check "the same command goes on" 0 run a.rules -j 1
check "it says where it goes on from" 0 grep -qE "a.rules.spill: [3-9] of [0-9]+ work units enumerated already" <<<"$out"
check "candidates as if never stopped" 0 cmp ref.rules a.rules
check "records removed after" 0 test ! -e a.rules.spill

# killed twice: in the enumeration, then in the test stage after 5 groups of parts
check "killed in the enumeration (again)" 137 killed enumerate:2 b.rules -j 2
check "killed in the test stage" 137 killed test:5 b.rules -j 2
check "tested groups kept" 0 test "$(ls b.rules.spill/test-*.cand | wc -l)" -eq 5
check "goes on again" 0 run b.rules -j 2
check "it takes the tested parts" 0 grep -qE "[1-9][0-9]* of 64 parts' candidates taken" <<<"$out"
check "candidates as if never stopped (twice)" 0 cmp ref.rules b.rules

# a torn log line and a cut tested group: dropped and redone
check "killed in the test stage (torn)" 137 killed test:3 c.rules -j 2
printf 'u 1 9 12 0 0 0 1 2' >>c.rules.spill/s1.log
part=$(ls c.rules.spill/test-*.cand | sed -n 2p)
sed -i '$d' "$part" # its last line gone
check "goes on over a torn line" 0 run c.rules -j 2
has "says the group is tested again" "$(basename "$part") is not a whole tested part"
check "candidates as if never stopped (torn)" 0 cmp ref.rules c.rules

# lines moved between the logs or out of order are not taken (a line's checksum covers its
# thread); a unit committed twice is refused
check "killed in the enumeration (logs)" 137 killed enumerate:6 l.rules -j 2
mv l.rules.spill/s0.log l.rules.spill/x && mv l.rules.spill/s1.log l.rules.spill/s0.log && mv l.rules.spill/x l.rules.spill/s1.log
check "goes on over swapped logs" 0 run l.rules -j 2
check "candidates as if never stopped (swapped)" 0 cmp ref.rules l.rules
check "killed in the enumeration (order)" 137 killed enumerate:6 m.rules -j 1
head -1 m.rules.spill/s0.log >>m.rules.spill/s0.log
check "goes on over a line out of order" 0 run m.rules -j 2
check "candidates as if never stopped (order)" 0 cmp ref.rules m.rules
check "killed in the enumeration (twice)" 137 killed enumerate:6 t.rules -j 1
sed -i '2p' t.rules.spill/s0.log
check "a unit committed twice" 2 run t.rules -j 1
has "says the folder is damaged" "committed twice: the folder is damaged"

# a record file shorter than its log says (a machine stopped before it reached the disk): the
# units whose records it lost are enumerated again
check "killed in the test stage (cut)" 137 killed test:1 d.rules -j 2
big=$(ls -S d.rules.spill/s0-p*.rec | head -1)
truncate -s 24 "$big"
check "goes on over a cut record file" 0 run d.rules -j 2
check "it enumerates the lost units again" 0 grep -qE "d.rules.spill: [0-9]+ of [0-9]+ work units enumerated already" <<<"$out"
check "candidates as if never stopped (cut)" 0 cmp ref.rules d.rules

# another run's folder is refused, not mixed in; a folder that is not one is refused
check "killed at once" 137 killed enumerate:1 e.rules -j 1
check "another run's records" 2 run e.rules -j 1 --seed 7
has "says whose" "holds the records of another run"
mkdir notmine && echo keep >notmine/file
check "a foreign folder" 2 run f.rules --spill notmine
has "says what it is" "notmine is not empty and holds no rulegen records"
check "it is left alone" 0 test -s notmine/file
check "a file as --spill" 2 run g.rules --spill notmine/file
check "the output as --spill" 2 run o.rules --spill o.rules
has "says so" "is the output"
check "killed at once (lock)" 137 killed enumerate:1 k.rules -j 1
check "two runs into one folder: the second is refused" 2 flock k.rules.spill/lock "$rulegen" --ops $ops --depth 3 \
  --inputs "$dir/synth.inputs" -q --stop-after test --max-records 2000 -o k.rules
has "says another run is using it" "another rulegen run is using k.rules.spill"
check "--spill elsewhere" 0 run h.rules --spill elsewhere
check "same candidates through --spill" 0 cmp ref.rules h.rules
check "--spill folder removed after" 0 test ! -e elsewhere

# a whole run to rules (depth 2), killed in the enumeration or after its candidates were saved,
# goes on to the same rules with the same command (the runs' own proof cache: run_resume.sh says
# why not the tests' shared one)
export RULEGEN_PROOF_CACHE="$tmp/proof-cache"
whole() { "$rulegen" --ops $ops --depth 2 --inputs "$dir/synth.inputs" -q -j 2 -o "$1"; }
whole_killed() { RULEGEN_TEST_KILL_AT=$1 whole "$2"; } # stage, output
check "whole reference run" 0 whole w.rules
check "whole run killed in the enumeration" 137 whole_killed enumerate:2 v.rules
check "whole run goes on" 0 whole v.rules
check "the same rules" 0 cmp w.rules v.rules
check "killed while pruning" 137 whole_killed prune u.rules
check "its candidates saved" 0 test -s u.rules.candidates
check "the same command goes on from them" 0 whole u.rules
has "it says so" "going on from u.rules.candidates, which this command saved"
check "the same rules (after candidates)" 0 cmp w.rules u.rules
# candidates of other options are not taken: this run makes its own
check "--keep-redundant starts afresh" 0 "$rulegen" --ops $ops --depth 2 --inputs "$dir/synth.inputs" -q -j 2 -K -o u.rules
lacks "without going on (-K)" "going on from"
check "other options start afresh" 0 "$rulegen" --ops ewadd,ewmul --depth 2 --inputs "$dir/synth.inputs" -q -j 2 -o u.rules
lacks "without going on" "going on from"
finish
