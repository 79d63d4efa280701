#!/usr/bin/env bash
# verify_extra_frame (tests/verify.cmake): a solver helper that followed its reply (sat) to one
# query with an extra frame (unsat) had that frame taken for the next query's answer: swap in
# verify_extra_frame.rules, false, was verified under --require any -R 0. Every reply must now
# echo its query's number and obligation hash; with that helper as both solvers
# (tests/data/fake_helper_reply_late.sh) nothing is proved, and the run says why. The same run
# with a helper whose replies are well-formed (the fakes prove whatever they are asked) proves
# both rules: the control, so it is the framing that refuses the proof. No proof cache: the fakes
# name the real solvers' versions, and their answers must be neither taken nor kept.
# Usage: verify_extra_frame.sh RULEGEN TESTS_DIR
set -u
rulegen=$1
tests=$2
. "$tests/regress/check.sh"
rules=$tests/regress/bad/verify_extra_frame.rules
prove() { # the fake helper's mode
  RG_Z3_HELPER="$tests/data/fake_helper_reply_$1.sh" RG_CVC5_HELPER="$tests/data/fake_helper_reply_$1.sh" \
    "$rulegen" prove -N --refute-sets 0 -E 0 -j 1 --require any --no-proof-cache "$rules"
}
check "an extra frame proves nothing" 1 prove late
has "nothing verified" "2 rules: 0 verified, 0 proved-by-z3-only, 0 proved-by-cvc5-only, 2 unproved"
has "z3's error says why" "z3    error"
has "the frame is named" "a reply to query 1 where query 2's was due (an extra or a missing frame)"
check "well-formed replies prove" 0 prove good
has "both verified" "2 rules: 2 verified"
finish
