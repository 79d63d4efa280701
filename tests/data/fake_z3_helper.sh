#!/bin/sh
# A stand-in for the rulegen-z3 helper in tests/test_verify.c (given through RG_Z3_HELPER):
# answers --version like the helper, then breaks on a query as the name it is called by says
# (fake_z3_helper_MODE.sh links): crash (dies on SIGSEGV), hang (never answers), exit (says why
# on stderr and exits with status 3), all without a reply frame. Used to check that a z3 query
# whose helper ends without a whole reply gets the answer of its end.
if [ "$1" = "--version" ]; then
  echo "rulegen-z3: z3 version 4.8.12 [fake: tests/data/fake_z3_helper.sh]"
  exit 0
fi
case "${0##*/}" in
  fake_z3_helper_crash.sh) kill -SEGV $$ ;;
  fake_z3_helper_hang.sh) exec sleep 600 ;;
  fake_z3_helper_exit.sh) echo "rulegen-z3: broken on purpose" >&2; exit 3 ;;
esac
echo "unknown fake mode $0" >&2
exit 1
