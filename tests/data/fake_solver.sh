#!/bin/sh
# A stand-in for the cvc5 binary in tests/test_verify.c: answers --version like cvc5 1.0.3, then
# behaves on a query as the name it is called by says (fake_solver_MODE.sh links): sat (always
# refutes), crash (dies on SIGSEGV), hang (never answers), mixed (by the query: one that
# mentions crash-me crashes, hang-me hangs, any other is proved with the core "fake-axiom").
# Used to check that rulegen survives broken solvers and reports disagreements.
# With --no-interactive (how rulegen starts a cvc5 worker) or --interactive it is a worker like
# cvc5's: it reads queries until each one's (echo "marker") line, answers, prints the marker,
# and goes on until its stdin ends.
if [ "$1" = "--version" ]; then
  echo "This is cvc5 version 1.0.3 [fake: tests/data/fake_solver.sh]"
  exit 0
fi
mode=${0##*/}
answer() { # $1: the query's text
  case "$mode" in
    fake_solver_sat.sh) echo sat ;;
    fake_solver_crash.sh) kill -SEGV $$ ;;
    fake_solver_hang.sh) exec sleep 600 ;;
    fake_solver_mixed.sh)
      case "$1" in
        *crash-me*) kill -SEGV $$ ;;
        *hang-me*) exec sleep 600 ;;
        *) printf 'unsat\n(\ngoal\nfake-axiom\n)\n' ;;
      esac ;;
    *) echo "(error \"unknown fake mode $0\")"; exit 1 ;;
  esac
}
for arg in "$@"; do
  if [ "$arg" = "--interactive" ] || [ "$arg" = "--no-interactive" ]; then
    query=
    while IFS= read -r line; do
      case "$line" in
        "(echo "*)
          answer "$query"
          marker=${line#"(echo "}
          echo "${marker%")"}"
          query= ;;
        *) query="$query$line " ;;
      esac
    done
    exit 0
  fi
done
answer "$(cat)"
