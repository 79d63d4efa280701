#!/bin/sh
# A stand-in for a solver helper (rulegen-z3 or rulegen-cvc5, given through RG_Z3_HELPER or
# RG_CVC5_HELPER) that speaks verify/serve.h's protocol but replies as the name it is called by
# says (fake_helper_reply_MODE.sh links), for tests/test_verify_serve.c and tests/verify.cmake:
#   good:     unsat with the goal in its core, after a line on stderr (no part of the reply);
#   unclosed: unsat and a core without its ')';
#   twice:    unsat with its core, then sat;
#   extra:    its reply (sat) and a second frame for the same query that says unsat, written
#             at once;
#   late:     its reply (sat); the second frame (unsat) comes just before the next query's
#             reply (once taken for the next query's answer: it got false rules verified);
#   seq:      a reply numbered as the next query;
#   hash:     a reply that names another obligation;
#   escape:   an (error ...) answer with terminal escape sequences and control bytes in it;
#   flood:    1 MB on stderr, then no reply.
# None of these but good may ever prove anything.
export LC_ALL=C
if [ "$1" = "--version" ]; then
  echo "rulegen-fake: z3 version 4.8.12 [fake: tests/data/fake_helper_reply.sh]"
  echo "rulegen-fake: cvc5 version 1.0.3 [fake: tests/data/fake_helper_reply.sh]"
  exit 0
fi
mode=${0##*/}
mode=${mode#fake_helper_reply_}
mode=${mode%.sh}
frame() { # SEQ SHA ANSWER: one reply frame
  printf 'rg-reply %010u %s %010u\n%s' "$1" "$2" "${#3}" "$3"
}
nl='
'
esc=$(printf '\033')
prev=
bel=$(printf '\007')
while IFS=' ' read -r tag seq timeout sha len; do
  [ "$tag" = rg-query ] || { echo "fake: not a request header" >&2; exit 1; }
  seq=$(expr "$seq" + 0)
  head -c "$(expr "$len" + 0)" >/dev/null
  case "$mode" in
    good) echo "fake: a note on stderr" >&2
          frame "$seq" "$sha" "unsat$nl($nl""goal$nl""fake-axiom$nl)$nl" ;;
    unclosed) frame "$seq" "$sha" "unsat$nl( goal fake-axiom$nl" ;;
    twice) frame "$seq" "$sha" "unsat$nl(goal)$nl""sat$nl" ;;
    extra) printf 'rg-reply %010u %s %010u\n%srg-reply %010u %s %010u\n%s' \
             "$seq" "$sha" 4 "sat$nl" "$seq" "$sha" 13 "unsat$nl(goal)$nl" ;;
    late) [ -n "$prev" ] && frame $prev "unsat$nl(goal)$nl"
          frame "$seq" "$sha" "sat$nl"
          prev="$seq $sha" ;;
    seq) frame "$((seq + 1))" "$sha" "unsat$nl(goal)$nl" ;;
    hash) frame "$seq" 0000000000000000000000000000000000000000000000000000000000000000 "unsat$nl(goal)$nl" ;;
    escape) frame "$seq" "$sha" "(error \"evil ${esc}[2J${esc}]0;pwned$bel done\")$nl" ;;
    flood) yes "fake: flooding stderr" | head -c 1000000 >&2
           exec sleep 600 ;;
    *) echo "fake: unknown mode $0" >&2; exit 1 ;;
  esac
done
