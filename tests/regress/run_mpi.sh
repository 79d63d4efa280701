#!/usr/bin/env bash
# rulegen under mpirun (cluster/, synth/spread.h, synth/tested.h; issue 45): the enumeration,
# the test stage and the proof rounds spread over the ranks write what one process writes, byte
# for byte; a rank killed while enumerating or testing, and the run goes on under another N or as
# one process. Derivability's searches spread, and a worker killed or stopped by a signal in them. The proof rounds at -np 1, 2 and 3 (oversubscribed), each from a proof cache of
# its own that holds only the axiom test's pass, with the ranks' work counted as asked now; two proof
# rounds (two false rules planted among the candidates put back what they derived); a whole
# depth-3 run from enumeration; a rank killed mid-round (RULEGEN_TEST_KILL_AT=rank:R, the test
# hook of ir/killpoint.h) ends the job naming it, and the same command again resumes to the same
# output; an unsound axiom stops the run before the ranks set out; other commands are refused
# under mpirun. In three parts, three ctest tests that run side by side (tests/mpi.cmake):
# proofs (the proof rounds and a whole depth-3 run), stages (enumeration and the test stage),
# generalize (and the axioms, the options and the commands refused).
#   run_mpi.sh RULEGEN DIR MPIRUN proofs|stages|generalize
set -u
rulegen=$1 dir=$2 mpirun=$3 part=$4
. "$dir/check.sh"
in_scratch
# CI runs as root; 3 ranks on 2 cores; in containers, shared memory without cross-memory attach
# (which needs ptrace rights a container may lack)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpi() { local np=$1; shift; timeout 300 "$mpirun" -np "$np" "$rulegen" "$@"; }
# MPI itself must start here: a machine where two processes cannot (no shared memory, no
# loopback) says so and skips, rather than failing rulegen for it
timeout 60 "$mpirun" -np 2 true >mpi-env.log 2>&1 || {
  echo "skipped: mpirun -np 2 true does not run here:"; tail -5 mpi-env.log; exit 77; }
same() { cmp "$1" "$2" && cmp "$1.removed" "$2.removed" && cmp "$1.unproved" "$2.unproved"; }

# The tested candidates of a depth-2 run, and two false rules planted among them (the proofs
# then take two rounds); each OUT gets its own copy.
candidates() {
  check "the tested candidates" 0 "$rulegen" --ops ewadd,ewmul,matmul,transpose --depth 2 --inputs "$dir/synth.inputs" -q \
  --stop-after test -o tested.candidates
  for o in "$@"; do
    { cat tested.candidates; echo '(ewadd ?x ?y) => (ewmul ?x ?y)'; echo '(matmul ?a ?b) => (matmul ?b ?a)'; } >$o.rules.candidates
  done
}

proofs() {
# every derivability batch of these runs (pruning, the rules put back, the proved rules) asks the
# workers too: their small rules search faster than a turn of the talk
export RULEGEN_TEST_DERIVE_TURN=0
candidates ref n1 n2 n3 k1 k0
check "one process" 0 "$rulegen" --resume ref.rules.candidates -o ref.rules -j 2 --proof-cache pc.ref
has "one process: two proof rounds" "rules put back"
has "one process: each round's rules and time" "2 proof rounds: "
has "one process: the solvers' answers and their time" "answers: z3 "
# The other runs' caches are cold but for the axioms' random test (a pass the run above made
# too): a cache made by proving a rule of an operator these runs lack.
echo '(relu (ewadd ?x ?y)) => (relu (ewadd ?y ?x))' >seed.rules
check "a cache with the axioms' pass" 0 "$rulegen" prove -q -j 2 --proof-cache pc.seed seed.rules
for c in pc.1 pc.2 pc.3 pc.d3a pc.d3b pc.k1 pc.k0; do cp -r pc.seed $c; done
for np in 1 2 3; do
  check "-np $np" 0 mpi $np --resume n$np.rules.candidates -o n$np.rules -j 1 --proof-cache pc.$np --json n$np.json
  has "-np $np: every answer asked now" "0 solver answers taken from the proof cache pc.$np (earlier runs')"
  has "-np $np: the axioms' pass taken" "this test's pass taken from the proof cache"
  [ "$np" -gt 1 ] && has "-np $np: each rank's part said" "spread over $np MPI ranks: rules proved"
  check "-np $np: the same output" 0 same ref.rules n$np.rules
done
check "-np 3: the ranks in --json" 0 grep -q '"ranks": \[{"rank": 0, "rules": [1-9]' n3.json
check "-np 3: the ranks' answers in --json" 0 grep -q '"answers": {"z3": {"unsat": {"n": [1-9]' n3.json
check "-np 2: the workers proved some" 0 grep -qE '\{"rank": 1, "rules": [1-9]' n2.json

# a whole depth-3 run, enumeration to output
check "depth 3, one process" 0 "$rulegen" --ops ewadd,ewmul,matmul,transpose --depth 3 --inputs "$dir/synth.inputs" -q \
  -j 2 --proof-cache pc.d3a -o d3a.rules
check "depth 3, -np 2" 0 mpi 2 --ops ewadd,ewmul,matmul,transpose --depth 3 --inputs "$dir/synth.inputs" -j 1 \
  --proof-cache pc.d3b -o d3b.rules
has "depth 3, -np 2: enumeration spread" "spread over 2 MPI ranks: units enumerated"
has "depth 3, -np 2: proofs spread" "spread over 2 MPI ranks: rules proved"
check "depth 3: the same output" 0 same d3a.rules d3b.rules

# a rank that dies: the job ends naming it; the same command resumes to the same output
for r in 1 0; do
  check "rank $r killed" 1 sh -c "RULEGEN_TEST_KILL_AT=rank:$r timeout 300 '$mpirun' -np 2 '$rulegen' \
    --resume k$r.rules.candidates -o k$r.rules -j 1 --proof-cache pc.k$r >/dev/null 2>k$r.err; [ \$? -ne 0 ] && exit 1"
  check "rank $r killed: named" 0 grep -q "rank $r with PID" k$r.err
  check "rank $r killed: no output" 0 test ! -e k$r.rules
  check "rank $r killed: resumed" 0 mpi 2 --resume k$r.rules.candidates -o k$r.rules -j 1 --proof-cache pc.k$r
  check "rank $r killed: the same output" 0 same ref.rules k$r.rules
done
}

stages() {
# the enumeration and the test stage spread: work units, then groups of parts, each rank writing
# the shared spill folder (a small enumeration in some 14 groups: --max-records caps a group)
T="--ops ewadd,ewmul,matmul,transpose --depth 3 --inputs $dir/synth.inputs --max-records 4000 --stop-after test -q"
check "records: one process" 0 "$rulegen" $T -j 2 -o r1.cand
check "records: -np 3" 0 mpi 3 $T -j 1 -o r3.cand
has "records: the units spread" "spread over 3 MPI ranks: units enumerated"
has "records: the groups spread" "part groups tested"
check "records: the same candidates" 0 cmp r1.cand r3.cand
# a rank killed while enumerating (rank 1) or testing (rank 2): the same command goes on under
# another N, or as one process, to the same candidates
for k in rank-enumerate:1 rank-test:2; do
  for how in np2 one; do
    c=k-${k%%:*}-$how.cand
    check "$k: killed" 1 sh -c "RULEGEN_TEST_KILL_AT=$k timeout 300 '$mpirun' -np 3 '$rulegen' $T -j 1 -o $c \
      >/dev/null 2>$c.err; [ \$? -ne 0 ] && exit 1"
    check "$k: named" 0 grep -q "rank ${k#*:} with PID" $c.err
    check "$k: the records kept" 0 test -d $c.spill
    if [ $how = np2 ]; then check "$k: resumed by -np 2" 0 mpi 2 $T -j 1 -o $c
    else check "$k: resumed by one process" 0 "$rulegen" $T -j 2 -o $c; fi
    check "$k, $how: the same candidates" 0 cmp r1.cand $c
  done
done

# a rank stopped by a signal while enumerating (SIGTERM: it stops its units) fails the job, named,
# and never yields candidates from part of the records; the same command goes on
c=kt.cand
check "a rank stopped: the job fails" 1 sh -c "RULEGEN_TEST_KILL_SIGNAL=TERM RULEGEN_TEST_KILL_AT=rank-enumerate:1 \
  timeout 300 '$mpirun' -np 2 '$rulegen' $T -j 1 -o $c >/dev/null 2>$c.err; [ \$? -ne 0 ] && exit 1"
check "a rank stopped: said" 0 grep -q "rank 1: stopped by a signal before its work was done" $c.err
check "a rank stopped: no candidates" 0 test ! -e $c
check "a rank stopped: went on" 0 mpi 2 $T -j 1 -o $c
check "a rank stopped: the same candidates" 0 cmp r1.cand $c
# ranks of different thread counts (each its own slots of the spill folder)
check "ranks of 2 and 1 threads" 0 timeout 300 "$mpirun" -np 1 env OMP_NUM_THREADS=2 "$rulegen" $T -o th.cand : \
  -np 1 env OMP_NUM_THREADS=1 "$rulegen" $T -o th.cand
check "ranks of 2 and 1 threads: the same candidates" 0 cmp r1.cand th.cand

}

generalize() {
# generalize spread: its chunks (16 candidates each, RULEGEN_TEST_GENERALIZE_CHUNK) made by the
# ranks into OUT.generalize; a rank killed there, and -np 2 goes on from the chunks kept
G="--ops ewadd,ewmul,matmul,transpose --depth 3 --inputs $dir/synth.inputs --stop-after prune -q"
check "generalize: one process" 0 env RULEGEN_TEST_GENERALIZE_CHUNK=16 "$rulegen" $G -j 2 -o g1.rules
check "generalize: -np 3" 0 env RULEGEN_TEST_GENERALIZE_CHUNK=16 "$mpirun" -np 3 "$rulegen" $G -j 1 -o g3.rules
has "generalize: spread" "generalize chunks"
check "generalize: the same rules" 0 cmp g1.rules g3.rules
check "generalize: rank 1 killed" 1 sh -c "RULEGEN_TEST_GENERALIZE_CHUNK=16 RULEGEN_TEST_KILL_AT=rank-generalize:1 \
  timeout 300 '$mpirun' -np 3 '$rulegen' $G -j 1 -o gk.rules >/dev/null 2>gk.err; [ \$? -ne 0 ] && exit 1"
check "generalize: rank 1 named" 0 grep -q "rank 1 with PID" gk.err
check "generalize: went on" 0 env RULEGEN_TEST_GENERALIZE_CHUNK=16 "$mpirun" -np 2 "$rulegen" $G -j 1 -o gk.rules
check "generalize, killed and gone on: the same rules" 0 cmp g1.rules gk.rules

# derivability's searches spread (synth/derive_spread.h), every batch asked of the workers
# (RULEGEN_TEST_DERIVE_TURN=0): the same rules and removal records as one process; a worker
# killed in the talk ends the job, named, and the same command goes on to the same rules
D="--ops all --depth 2 --stop-after prune"
check "derivability: one process" 0 "$rulegen" $D -q -j 2 -o d1.rules
for np in 2 3; do
  check "derivability: -np $np" 0 env RULEGEN_TEST_DERIVE_TURN=0 "$mpirun" -np $np "$rulegen" $D -j 1 -o d$np.rules
  echo "$out" >d$np.log
  check "derivability, -np $np: the workers searched" 0 grep -qE "derivability's searches on the workers \(rank 0: none counted\) 0, [1-9]" \
    d$np.log
  check "derivability, -np $np: the same rules" 0 cmp d1.rules d$np.rules
  check "derivability, -np $np: the same removals" 0 bash -c "diff <(grep -Ev '^(stage|end) ' d1.rules.derived) \
    <(grep -Ev '^(stage|end) ' d$np.rules.derived)" # the stages' seconds aside
done
check "derivability: rank 2 killed" 1 sh -c "RULEGEN_TEST_DERIVE_TURN=0 RULEGEN_TEST_KILL_AT=rank-derive:2 \
  timeout 300 '$mpirun' -np 3 '$rulegen' $D -j 1 -o dk.rules >/dev/null 2>dk.err; [ \$? -ne 0 ] && exit 1"
check "derivability: rank 2 named" 0 grep -q "rank 2 with PID" dk.err
check "derivability: no rules written" 0 test ! -e dk.rules
check "derivability: went on" 0 env RULEGEN_TEST_DERIVE_TURN=0 "$mpirun" -np 2 "$rulegen" $D -j 1 -o dk.rules
check "derivability, killed and gone on: the same rules" 0 cmp d1.rules dk.rules
# a worker a signal stops (a scheduler's SIGTERM) answers its batch and says so: rank 0 stops as
# on Ctrl-C (130), derivability's place kept, and the same command goes on from it
check "derivability: rank 2 stopped by a signal" 0 sh -c "RULEGEN_TEST_DERIVE_TURN=0 RULEGEN_TEST_KILL_SIGNAL=TERM \
  RULEGEN_TEST_KILL_AT=rank-derive:2 timeout 300 '$mpirun' -np 3 '$rulegen' $D -j 1 -o ds.rules >/dev/null 2>ds.err
  [ \$? -eq 130 ]"
check "derivability, rank 2 stopped: said" 0 grep -q "rank 2 was stopped by a signal: the run stops as on Ctrl-C" ds.err
check "derivability, rank 2 stopped: its place kept" 0 grep -q "^derive 1 " ds.rules.derived
check "derivability, rank 2 stopped: no rules written" 0 test ! -e ds.rules
check "derivability, rank 2 stopped: went on" 0 env RULEGEN_TEST_DERIVE_TURN=0 "$mpirun" -np 3 "$rulegen" $D -j 1 -o ds.rules
has "derivability, rank 2 stopped: went on from its place" "resuming in derivability's first pass"
check "derivability, stopped and gone on: the same rules" 0 cmp d1.rules ds.rules

# an unsound axiom stops the run before the ranks set out
candidates u
check "an unsound axiom" 1 mpi 2 --resume u.rules.candidates -o u.rules -j 1 --proof-cache pc.u \
  -a "$dir/bad/verify_unsound_axiom.rules"
has "an unsound axiom: said" "axiom bad-axiom is UNSOUND"
check "an unsound axiom: no solver asked (the journal holds its header only)" 0 \
  sh -c '[ "$(cat pc.u/answers-*.journal | grep -vc "^#")" -eq 0 ]'

check "bad options: every rank says so, no abort" 2 mpi 2 --ops bogus --depth 2
has "bad options: said" "unknown operator 'bogus'"
n=$((n + 1))
grep -q MPI_ABORT <<<"$out" && { echo "FAIL bad options: the job was aborted"; fail=$((fail + 1)); }
check "help under mpirun, printed once" 0 mpi 2 help
[ "$(grep -c '^usage: rulegen' <<<"$out")" -eq 1 ] || { echo "FAIL help printed $(grep -c '^usage: rulegen' <<<"$out") times"; fail=$((fail + 1)); }
n=$((n + 1))
check "other commands refused under mpirun" 2 mpi 2 prove --help
has "other commands refused: said" "this command does not spread over MPI ranks"
}

case $part in
  proofs | stages | generalize) $part ;;
  *) echo "run_mpi.sh: no part '$part' (proofs, stages, generalize)"; exit 2 ;;
esac
finish
