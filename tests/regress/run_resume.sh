#!/usr/bin/env bash
# Kill-and-resume of the stages after testing (synth/checkpoint.h): a run killed with SIGKILL
# (RULEGEN_TEST_KILL_AT, the test hook of ir/killpoint.h) while pruning, while deriving (before
# and after derivability saved its progress, in either pass), in a proof round and while writing its output, resumed with the one command `rulegen --resume
# OUT.candidates -o OUT`, writes what an uninterrupted run writes, byte for byte (killed in round 2,
# round 1's removals taken from OUT.rounds); damaged
# checkpoints (tests/regress/bad/checkpoint_*) are refused or passed over with a message naming
# them. Two false rules planted among the tested candidates (refuted at other shapes before the
# solvers, as a wrong candidate would be) had rules derived from them: those are put back, so
# the proofs take two rounds. The runs share a proof cache of their own: with the tests' shared
# one, another test's later unsat for an obligation the reference run had timed out on (a loaded
# machine) would prove in a resumed run a rule the reference left unproved.
set -u
rulegen=$1
dir=$2
. "$dir/check.sh"
in_scratch
export RULEGEN_PROOF_CACHE="$tmp/proof-cache"
opts=(-q)
check "the tested candidates" 0 "$rulegen" --ops ewadd,ewmul,matmul,transpose --depth 2 --inputs "$dir/synth.inputs" -q \
  --stop-after test -o tested.candidates
{ cat tested.candidates; echo '(ewadd ?x ?y) => (ewmul ?x ?y)'; echo '(matmul ?a ?b) => (matmul ?b ?a)'; } >ref.rules.candidates
check "the uninterrupted run" 0 "$rulegen" --resume ref.rules.candidates -o ref.rules "${opts[@]}"
has "its proofs take two rounds" "rules put back"
check "it saves its checkpoints" 0 test -s ref.rules.pruned -a -s ref.rules.derived -a -s ref.rules.generalized
# Each solver's helper is asked its version once a run, not again each proof round (through
# wrappers that log their calls: RG_Z3_HELPER, RG_CVC5_HELPER)
for s in z3 cvc5; do
  printf '#!/bin/sh\necho "$*" >>%s.calls\nexec %s "$@"\n' "$PWD/$s" "$(dirname "$rulegen")/rulegen-$s" >$s.sh
  chmod +x $s.sh
done
cp ref.rules.candidates v.rules.candidates
check "a run through logged helpers" 0 env RG_Z3_HELPER="$PWD/z3.sh" RG_CVC5_HELPER="$PWD/cvc5.sh" "$rulegen" \
  --resume v.rules.candidates -o v.rules "${opts[@]}"
check "two proof rounds, each helper asked its version once" 0 \
  sh -c '[ "$(grep -c -- --version z3.calls)" = 1 ] && [ "$(grep -c -- --version cvc5.calls)" = 1 ]'
same() { # OUT: the resumed run's files are the uninterrupted run's
  cmp ref.rules "$1" && cmp ref.rules.removed "$1.removed" && cmp ref.rules.unproved "$1.unproved"
}
# A checkpoint without its times (and so its last line).
same_body() { cmp <(grep -v '^stage \|^end ' "$1") <(grep -v '^stage \|^end ' "$2"); }
# The one command (a fresh OUT per case: its candidates are the reference's).
resume() { "$rulegen" --resume "$1.candidates" -o "$1" "${opts[@]}"; }
kill_case() { # OUT STAGE WHAT-IS-SAVED RESUMES-FROM
  local o=$1 stage=$2 saved=$3 from=$4
  cp ref.rules.candidates "$o.candidates"
  check "killed at $stage (SIGKILL)" 137 env RULEGEN_TEST_KILL_AT="$stage" "$rulegen" --resume "$o.candidates" \
    -o "$o" "${opts[@]}"
  for f in $saved; do check "killed at $stage: $o.$f saved" 0 test -s "$o.$f"; done
  check "killed at $stage: no output" 0 test ! -e "$o"
  check "killed at $stage: resumed" 0 resume "$o"
  has "killed at $stage: the collapse and generalize taken" "then 14 generalizations: taken from $o.generalized"
  if [ -n "$from" ]; then
    has "killed at $stage: resumed from $o.$from" "from $o.$from (saved by an earlier run of these candidates)"
  else
    check "killed at $stage: nothing to resume from" 1 grep -q resuming <<<"$out"
  fi
  check "killed at $stage: the same output" 0 same "$o"
  check "killed at $stage: no temporary left" 0 test -z "$(ls "$o".tmp.* 2>/dev/null)"
}
kill_case p.rules prune "generalized" ""                              # entering pruning
kill_case d.rules derive "generalized pruned" pruned                   # in derivability: pruning saved
kill_case r.rules prove:1 "generalized derived" derived                # round 1 answered, not put back
kill_case w.rules write "generalized derived removed unproved" derived # the output whole in its temporary
# Killed in derivability after saving its progress (--save-every 0: before each step): it goes on
# from there, not from pruning. In the second pass, the rules that pass removed are whole again
# for it (the first pass's stay hollow, synth/hollow.h).
part_way_case() { # OUT KILL-POINT PASS-WORD CHECKPOINT-LINE
  local o=$1 point=$2 pass=$3 line=$4
  cp ref.rules.candidates "$o.candidates"
  check "killed in derivability's $pass pass, its progress saved" 137 env RULEGEN_TEST_KILL_AT="$point" "$rulegen" \
    --resume "$o.candidates" -o "$o" "${opts[@]}" --save-every 0
  check "saved part way in the $pass pass" 0 grep -q "$line" "$o.derived"
  check "resumed" 0 resume "$o"
  has "from its place in the $pass pass" "resuming in derivability's $pass pass, at place "
  check "the same output" 0 same "$o"
}
part_way_case dp.rules derive first '^derive 1 [0-9]* 0$'
part_way_case d2.rules derive2 second '^derive 2 [0-9]* [0-9]*$'

# Derivability over the proved rules (OUT.final): killed after saving its progress, it goes on
# from there; a rerun of a finished run takes it whole; one damaged is passed over with a note.
cp ref.rules.candidates fi.rules.candidates
check "killed in derivability over the proved rules, its progress saved" 137 env RULEGEN_TEST_KILL_AT=final \
  "$rulegen" --resume fi.rules.candidates -o fi.rules "${opts[@]}" --save-every 0
check "saved part way" 0 grep -q '^derive 1 [0-9]* 0$' fi.rules.final
check "resumed" 0 resume fi.rules
has "from its place" "derivability over the proved rules goes on from fi.rules.final"
check "the same output" 0 same fi.rules
check "the finished run saved it whole" 1 grep -q '^derive ' fi.rules.final
check "a rerun" 0 resume fi.rules
has "takes it" "derivability over the proved rules taken from fi.rules.final"
check "the same output again" 0 same fi.rules
sed -i '4s/./X/' fi.rules.final
check "a rerun beside a damaged one" 0 resume fi.rules
has "passes over it" "note: fi.rules.final is not used (its last line is not the SHA-256"
check "and writes the same" 0 same fi.rules

# The proof rounds' removals (OUT.rounds, synth/rounds.h): the run keeps round 1's; a run killed
# in round 2 and resumed, and a rerun, take them (printed without -q); a record altered, forged
# under a digest made again (a derivation that does not replay) or cut short is not taken: a
# note, the rules put back searched again, and the record replaced by this run's.
check "round 1's removals kept" 0 grep -q '^round [0-9a-f]\{64\} 2$' ref.rules.rounds
cp ref.rules.candidates ro.rules.candidates
check "killed in round 2" 137 env RULEGEN_TEST_KILL_AT=prove:2 "$rulegen" --resume ro.rules.candidates -o ro.rules
check "killed in round 2: round 1's removals saved" 0 grep -q '^round ' ro.rules.rounds
rounds_run() { "$rulegen" --resume ro.rules.candidates -o ro.rules; }
check "killed in round 2: resumed" 0 rounds_run
has "takes round 1's removals" "2 derived again (taken from OUT.rounds)"
check "killed in round 2: the same output" 0 same ro.rules
cp ro.rules.rounds ro.kept
rounds_case() { # WHAT NOTE: ro.rules.rounds as the caller left it
  check "a record $1" 0 rounds_run
  has "a record $1: a note" "note: ro.rules.rounds: $2"
  has "a record $1: searched again" "2 derived again, 0 renamed"
  check "a record $1: the same output" 0 same ro.rules
  check "a record $1: replaced" 0 cmp ro.kept ro.rules.rounds
}
sed -i '0,/^s /s/^\(s .*\)?a/\1?b/' ro.rules.rounds
rounds_case altered "the record after its first 0 is cut short or altered"
head -n -1 ro.kept >ro.rules.rounds
rounds_case "cut short" "the record after its first 0 is cut short or altered"
# A record made again under a digest made again (python below: MODE edits the first record):
#   term     a step's term changed (the derivation no longer replays)
#   through  the second removal's first step by the first removed rule (a rule the record removes)
#   count    a removal count far above the rules put back
#   comment  a comment after a step's term (not as rulegen prints it)
forge() { # MODE
  python3 - "$1" ro.kept ro.rules.rounds <<'EOF'
import hashlib, sys
mode, src, dst = sys.argv[1:]
lines = open(src).read().split("\n")[:-2]  # without the end line
start = next(k for k, l in enumerate(lines) if l.startswith("round "))
d = [k for k, l in enumerate(lines) if l.startswith("d ")]
s = [k for k, l in enumerate(lines) if l.startswith("s ")]
if mode == "term":
    lines[s[0]] = lines[s[0]].replace("?a", "?b", 1)
elif mode == "through":
    f = lines[d[1] + 1].split(" ", 2)
    lines[d[1] + 1] = " ".join([f[0], lines[d[0]].split()[1], f[2]])
elif mode == "count":
    lines[start] = " ".join(lines[start].split()[:2] + ["1000000000"])
elif mode == "comment":
    lines[s[0]] += " # proved by hand"
body = "\n".join(lines[start:]) + "\n"
open(dst, "w").write("\n".join(lines) + "\nend " + hashlib.sha256(body.encode()).hexdigest() + "\n")
EOF
}
forge term
rounds_case forged "round 1's record is not taken (a derivation that does not replay)"
forge through
rounds_case "deriving through a rule it removes" "round 1's record is not taken (a step by a rule neither proved nor kept"
forge count
rounds_case "with too many removals" "round 1's record is not taken (more removals than rules put back)"
forge comment
rounds_case "with a comment" "round 1's record is not taken (a step's term not as rulegen prints it)"
# Another run's file: replaced, with a note; bytes after the last whole record: dropped once.
sed '2s/depth 2/depth 9/' ro.kept >ro.rules.rounds
check "another run's rounds file" 0 rounds_run
has "a note" "ro.rules.rounds: is another run's (other candidates or options), or not a rounds file: started again"
check "replaced" 0 cmp ro.kept ro.rules.rounds
{ cat ro.kept; echo 'round 12'; } >ro.rules.rounds
check "bytes after the last record" 0 rounds_run
has "a note" "ro.rules.rounds: the record after its first 1 is cut short or altered"
has "the record before them taken" "2 derived again (taken from OUT.rounds)"
check "dropped" 0 cmp ro.kept ro.rules.rounds
check "a rerun after" 0 rounds_run
check "says nothing of them again" 1 grep -q "note: ro.rules.rounds" <<<"$out"

bad=$dir/bad
# Cut short, with no earlier checkpoint: refused, saying which file, why and what to do.
cp ref.rules.candidates t.rules.candidates
cp "$bad/checkpoint_truncated.derived" t.rules.derived
check "a cut checkpoint is refused" 2 resume t.rules
has "naming it and why" "t.rules.derived: a damaged checkpoint: its last line is not the SHA-256 of what precedes it"
has "and what to do" "remove it (rm t.rules.derived) and run the same command again"
check "nothing written" 0 test ! -e t.rules
# Cut short beside a usable earlier checkpoint: passed over with a note.
cp ref.rules.pruned t.rules.pruned
check "a cut checkpoint beside a usable one" 0 resume t.rules
has "a note" "note: t.rules.derived is damaged (its last line is not the SHA-256"
has "resumed from the earlier one" "resuming after pruning, before derivability from t.rules.pruned"
check "the same output" 0 same t.rules
check "this run's checkpoint replaces it" 0 same_body ref.rules.derived t.rules.derived
# Counts that disagree under a digest made again (a writer's bug, or a forgery): refused only
# once its entries are read, when the rules they removed were let go of already; pruning's
# checkpoint is taken instead, and the rules it keeps are whole again.
cp ref.rules.candidates c.rules.candidates
cp ref.rules.pruned c.rules.pruned
head -n -1 ref.rules.derived | awk '/^prune-state /{$3 = $3 + 1} {print}' >c.rules.derived
echo "end $(sha256sum <c.rules.derived | cut -d' ' -f1)" >>c.rules.derived
check "a checkpoint whose counts disagree" 0 resume c.rules
has "a note" "note: c.rules.derived is damaged (line "
has "resumed from pruning's" "resuming after pruning, before derivability from c.rules.pruned"
check "the same output" 0 same c.rules
# A checkpoint, well formed under a digest made again, that keeps a candidate renaming one before
# it (let go of while parsing): not this run's. Passed over with a note; pruning runs again.
cp ref.rules.candidates k.rules.candidates
python3 - ref.rules.pruned k.rules.pruned <<'EOF'
import hashlib, sys
lines = open(sys.argv[1]).read().split("\n")[:-2]  # without the end line
entries = [k for k, l in enumerate(lines) if l.startswith("e ")]
rule = next(r for r, k in enumerate(entries) if lines[k].startswith("e 1 "))  # removed as a renaming
lines[entries[rule]] = "e 0 0 0 " + lines[entries[rule]].split()[-1]
for k, l in enumerate(lines):
    f = l.split()
    if f[:1] == ["prune-state"]:
        f[2], f[4] = str(int(f[2]) + 1), str(int(f[4]) - 1)
    if f[:1] == ["seq"]:
        f = ["seq"] + [x for x in f[1:] if x != str(rule)]
    lines[k] = " ".join(f)
body = "\n".join(lines) + "\n"
open(sys.argv[2], "w").write(body + "end " + hashlib.sha256(body.encode()).hexdigest() + "\n")
EOF
check "a checkpoint that keeps a renaming" 0 resume k.rules
has "passed over with a note" "renames one before it: it is not this run's, not used (pruning again"
check "the same output" 0 same k.rules
# Another run's checkpoint: not used, with a note, and replaced.
cp ref.rules.candidates o.rules.candidates
cp "$bad/checkpoint_other_run.derived" o.rules.derived
check "another run's checkpoint" 0 resume o.rules
has "a note" "note: o.rules.derived is not this run's checkpoint (made from other candidates (# rulegen synth: depth 2, 2 operator variants"
check "not used" 1 grep -q resuming <<<"$out"
check "the same output" 0 same o.rules
check "replaced by this run's" 0 same_body ref.rules.derived o.rules.derived
# This run's checkpoint, garbled though its last line matches the rest: refused, with the line.
cp ref.rules.candidates g.rules.candidates
head -n -1 ref.rules.derived | sed '5s/^stage 0 1 /stage 0 7 /' >g.rules.derived
echo "end $(sha256sum g.rules.derived | cut -c1-64)" >>g.rules.derived
check "a garbled checkpoint is refused" 2 resume g.rules
has "naming its line" "g.rules.derived: a damaged checkpoint: line 5: a number out of range"
# OUT.generalized cut short, altered, or another run's: passed over with a line saying why, the
# stages run again and this run's replaces it.
same_gen() { cmp <(grep -v '^# counts: \|^end ' "$1") <(grep -v '^# counts: \|^end ' "$2"); }
cp ref.rules.candidates z.rules.candidates
cp "$bad/generalized_truncated" z.rules.generalized
check "a cut generalized file" 0 resume z.rules
has "is passed over, saying why" "z.rules.generalized: not used (cut short or altered"
check "the same output" 0 same z.rules
check "replaced by this run's" 0 same_gen ref.rules.generalized z.rules.generalized
cp ref.rules.candidates y.rules.candidates
sed '$!s/^(\(ewadd\|ewmul\) /(\1  /' ref.rules.generalized >y.rules.generalized
check "an altered generalized file" 0 resume y.rules
has "is passed over" "y.rules.generalized: not used (cut short or altered"
check "the same output" 0 same y.rules
cp ref.rules.candidates x.rules.candidates
head -n -1 ref.rules.generalized | sed '2s/generalize yes/generalize no/' >x.rules.generalized
echo "end $(sha256sum x.rules.generalized | cut -c1-64)" >>x.rules.generalized
check "another run's generalized file" 0 resume x.rules
has "is not used" "x.rules.generalized: not used (made from other candidates or options)"
check "the same output" 0 same x.rules
# Other pruning options (--prune): the checkpoint is not used.
cp ref.rules.candidates s.rules.candidates
cp ref.rules.pruned s.rules.pruned
check "other pruning options" 0 "$rulegen" --resume s.rules.candidates -o s.rules "${opts[@]}" --prune renaming,subgraph
has "the checkpoint is not used" "note: s.rules.pruned is not this run's checkpoint (made by a run with other candidate text or pruning options)"
# Killed in generalize once its first chunk was kept (OUT.generalize, synth/generalize_chunks.h):
# the same command goes on from that chunk; a chunk torn or altered on disk
# (bad/generalize_chunk_torn.gen, or a byte changed), or another run's, is made again, never
# believed; the folder
# goes once OUT.generalized holds the stage.
# (RULEGEN_TEST_GENERALIZE_CHUNK, a test hook: 16 candidates a chunk)
export RULEGEN_TEST_GENERALIZE_CHUNK=16
G="--ops ewadd,ewmul,matmul,transpose --depth 3 --inputs $dir/synth.inputs -q -j 2"
# (each run from the same tested candidates, tested once here; another run's chunk from a run
# of another seed, tested anew)
check "generalize: the tested candidates" 0 "$rulegen" $G --stop-after test -o gt.candidates
gen() { # OUT: from the tested candidates (a copy, kept for the same command again) to prune
  [ -e "$1.candidates" ] || cp gt.candidates "$1.candidates"
  "$rulegen" --resume "$1.candidates" $G --stop-after prune -o "$1"
}
killed_gen() { RULEGEN_TEST_KILL_AT=generalize:1 gen "$1"; }
check "generalize: the uninterrupted run" 0 gen gu.rules
check "generalize: no folder left" 0 test ! -e gu.rules.generalize
check "generalize: another run's chunk" 137 env RULEGEN_TEST_KILL_AT=generalize:1 "$rulegen" $G --stop-after prune \
  --seed 5 -o gf.rules
for how in kept torn altered foreign; do
  o=gu-$how.rules
  check "generalize ($how): killed after its first chunk" 137 killed_gen $o
  check "generalize ($how): the chunk kept" 0 test -s $o.generalize/c-0.gen
  [ $how = torn ] && cp "$dir/bad/generalize_chunk_torn.gen" $o.generalize/c-0.gen
  [ $how = altered ] && sed -i '2 s/^/1/' $o.generalize/c-0.gen # a candidate's count, under the digest
  [ $how = foreign ] && cp gf.rules.generalize/c-0.gen $o.generalize/c-0.gen # whole, but another key's
  check "generalize ($how): went on" 0 gen $o
  if [ $how = kept ]; then has "generalize: the chunk taken" "rulegen: 1 of "
    has "generalize: from the folder" "generalize chunks taken from $o.generalize (made by an earlier run)"
  else has "generalize ($how): made again" "$o.generalize/c-0.gen is not a whole generalize chunk 0: making it again"; fi
  check "generalize ($how): the same rules" 0 cmp gu.rules $o
  check "generalize ($how): the folder gone" 0 test ! -e $o.generalize
done
finish
