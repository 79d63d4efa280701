#!/bin/sh
# A stand-in for the cvc5 binary (rulegen prove --cvc5 PATH) that answers as the name it is called
# by says (fake_solver_reply_MODE.sh links), for tests/test_verify.c:
#   good:     unsat with the goal in its core, after a line on stderr (no part of the answer);
#   unclosed: unsat and a core without its ')';
#   twice:    unsat with its core, then sat;
#   after:    sat, then its end marker and unsat with a core at once (an answer after the end);
#   nomarker: unsat with its core, then it exits without printing its end marker;
#   escape:   an (error ...) answer with terminal escape sequences and control bytes in it;
#   flood:    1 MB on stderr, then no answer.
# Run with --no-interactive (how rulegen starts a cvc5 worker) it reads queries until each one's
# (echo "marker") line, answers, prints the marker and goes on; else it answers stdin once.
# None of these but good may ever prove anything.
export LC_ALL=C
if [ "$1" = "--version" ]; then
  echo "This is cvc5 version 1.0.3 [fake: tests/data/fake_solver_reply.sh]"
  exit 0
fi
mode=${0##*/}
mode=${mode#fake_solver_reply_}
mode=${mode%.sh}
esc=$(printf '\033')
answer() {
  case "$mode" in
    good) echo "fake: a note on stderr" >&2; printf 'unsat\n(\ngoal\nfake-axiom\n)\n' ;;
    unclosed) printf 'unsat\n( goal fake-axiom\n' ;;
    twice) printf 'unsat\n(goal)\nsat\n' ;;
    after) echo sat ;;
    nomarker) printf 'unsat\n(goal)\n'; exit 0 ;;
    escape) printf '(error "evil %s[2J%s]0;pwned\007 done")\n' "$esc" "$esc" ;;
    flood) yes "fake: flooding stderr" | head -c 1000000 >&2; exec sleep 600 ;;
    *) echo "(error \"unknown fake mode $0\")"; exit 1 ;;
  esac
}
for arg in "$@"; do
  if [ "$arg" = "--no-interactive" ]; then
    while IFS= read -r line; do
      case "$line" in
        "(echo "*)
          answer
          marker=${line#"(echo "}
          marker=${marker%")"}
          if [ "$mode" = after ]; then # written with the marker, at once
            printf '%s\nunsat\n(goal)\n' "$marker"
          else
            echo "$marker"
          fi ;;
      esac
    done
    exit 0
  fi
done
cat >/dev/null
answer
