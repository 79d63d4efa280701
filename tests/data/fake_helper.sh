#!/bin/sh
# A stand-in for a solver helper (rulegen-z3 or rulegen-cvc5) in tests/test_verify_serve.c, given
# through RG_Z3_HELPER or RG_CVC5_HELPER: answers --version like either helper, then breaks on a
# query as the name it is called by says (fake_helper_MODE.sh links): crash (dies on SIGSEGV),
# hang (never answers), exit (says why on stderr and exits with status 3), all without a reply
# frame. Used to check that a query whose helper ends without a whole reply gets the answer of
# its end.
if [ "$1" = "--version" ]; then
  echo "rulegen-fake: z3 version 4.8.12 [fake: tests/data/fake_helper.sh]"
  echo "rulegen-fake: cvc5 version 1.0.3 [fake: tests/data/fake_helper.sh]"
  exit 0
fi
case "${0##*/}" in
  fake_helper_crash.sh) kill -SEGV $$ ;;
  fake_helper_hang.sh) exec sleep 600 ;;
  fake_helper_exit.sh) echo "rulegen-fake: broken on purpose" >&2; exit 3 ;;
esac
echo "unknown fake mode $0" >&2
exit 1
