#!/usr/bin/env bash
# Progress output (ir/progress.h): to a file, plain lines without a carriage return; on a
# terminal (script(1) gives the run one), one line per stage rewritten with \r and cleared with
# ESC[K; either way the stage table printed once, whole, after the last progress line.
set -u
rulegen=$1
dir=$2
. "$dir/check.sh"
in_scratch
# --shape-sets 8: the test stage then lasts past the 0.25 s before a terminal's first line (at the
# default 3 it took 0.13 s on an idle machine, and no line came)
run="'$rulegen' --ops ewadd,ewmul,matmul,transpose --depth 3 --inputs '$dir/synth.inputs' --stop-after prune --shape-sets 8"
sh -c "$run -o log.rules" 2>log.txt
check "a log has no carriage return" 0 sh -c "! grep -q \$'\\r' log.txt"
check "nor an escape sequence" 0 sh -c "! grep -q \$'\\033' log.txt"
check "a log has the stage table once" 0 test "$(grep -c '^stage  ' log.txt)" -eq 1
check "with its rows" 0 grep -q "^prune        derivability" log.txt
"$rulegen" prove -q --no-check-axioms log.rules 2>prove.txt >/dev/null
check "rulegen prove's log has no carriage return" 0 sh -c "! grep -q \$'\\r' prove.txt"
if ! command -v script >/dev/null; then
  echo "script(1) (util-linux) missing: the terminal half cannot run"
  exit 1
fi
script -qec "$run -o tty.rules" /dev/null >tty.txt 2>&1
check "the terminal run succeeds" 0 test -s tty.rules
check "a stage line is rewritten in place" 0 grep -qE $'\r(test|generalize): [0-9]+/[0-9]+ [a-z]+ .*/s.*\033\\[K' tty.txt
check "the terminal gets the table once" 0 test "$(grep -c '^stage  ' tty.txt)" -eq 1
last_line=$(grep -n $'\033\\[K' tty.txt | tail -1 | cut -d: -f1)
table_line=$(grep -n '^stage  ' tty.txt | cut -d: -f1)
check "the table comes after the last progress line" 0 test "${table_line:-0}" -gt "${last_line:-0}"
check "the same rules either way" 0 cmp -s log.rules tty.rules
finish
