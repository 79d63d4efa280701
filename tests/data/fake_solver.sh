#!/bin/sh
# A stand-in for the cvc5 binary in tests/test_verify.c: answers --version like cvc5 1.0.3, then
# behaves on a query as the name it is called by says (fake_solver_MODE.sh links): sat (always refutes), crash (dies on SIGSEGV),
# hang (never answers). Used to check that rulegen survives broken solvers and reports
# disagreements.
if [ "$1" = "--version" ]; then
  echo "This is cvc5 version 1.0.3 [fake: tests/data/fake_solver.sh]"
  exit 0
fi
cat >/dev/null
case "${0##*/}" in
  fake_solver_sat.sh) echo sat ;;
  fake_solver_crash.sh) kill -SEGV $$ ;;
  fake_solver_hang.sh) exec sleep 600 ;;
  *) echo "(error \"unknown fake mode $0\")"; exit 1 ;;
esac
