# verify/: `rulegen prove` on bad inputs, a small subset of TASO's rules proved by both solvers
# (all 133 are in bench/prove.sh), the axioms checked by `rulegen check-axioms`.
add_test(NAME verify_bad_inputs
         COMMAND ${RG_TEST_ROOT}/regress/run_bad.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress/bad ${RG_TEST_ROOT}/regress/bad/verify_cases.txt prove)
# A helper's extra frame is never taken for the next query's answer (the false rule it once got
# verified under --require any -R 0 stays unproved; well-formed replies still prove).
add_test(NAME verify_bad_extra_frame
         COMMAND ${RG_TEST_ROOT}/regress/bad/verify_extra_frame.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT})
add_test(NAME verify_check_axioms COMMAND rulegen check-axioms)
# Every axiom holds both ways round at twice the default draws, under another seed (not in the
# sanitizer build, where it takes minutes: the default check runs there).
if(NOT RG_SANITIZE)
  add_test(NAME verify_check_axioms_more COMMAND rulegen check-axioms --assignments 48 -S 7)
endif()
# False rules unsound axioms once proved: unproved now, refuted by the recheck; a planted
# unsound axiom caught by check-axioms and by the recheck of its proofs.
add_test(NAME verify_false_proved
         COMMAND ${RG_TEST_ROOT}/regress/run_false_proved.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress
                 ${CMAKE_SOURCE_DIR}/verify/axioms.rules)
add_test(NAME verify_prove_taso_subset
         COMMAND sh -c "grep -E '^taso-(0|22|36|59|64|70|77|84|98|115|116|132):' ${RG_TEST_ROOT}/data/taso-133.rules > taso-subset.rules && $<TARGET_FILE:rulegen> prove -q --timeout-ms 10000 taso-subset.rules")
set_tests_properties(verify_prove_taso_subset PROPERTIES PASS_REGULAR_EXPRESSION "12 rules: 12 verified")
# The converted TASO rules are all true at the shapes recorded in their header. The grouped-conv
# one (taso-99) holds at every shape set where it type-checks, and where its kernels differ in
# output channels (where it would be false) its sides have different types.
add_test(NAME verify_taso133_true_at_shapes
         COMMAND sh -c "$<TARGET_FILE:rulegen> eval -q $(sed -n 's/^# shapes://p' ${RG_TEST_ROOT}/data/taso-133.rules) ${RG_TEST_ROOT}/data/taso-133.rules")
add_test(NAME verify_taso99_holds_where_typed
         COMMAND sh -c "grep '^taso-99:' ${RG_TEST_ROOT}/data/taso-133.rules > taso-99.rules && $<TARGET_FILE:rulegen> eval -q -n 12 $(sed -n 's/^# shapes://p' ${RG_TEST_ROOT}/data/taso-133.rules) taso-99.rules")
add_test(NAME verify_taso99_mistyped_elsewhere
         COMMAND sh -c "grep '^taso-99:' ${RG_TEST_ROOT}/data/taso-133.rules > taso-99b.rules; $<TARGET_FILE:rulegen> eval -s i1=1x2x3x3 -s i2=1x2x3x3 -s k1=1x2x1x1 -s k2=3x2x1x1 taso-99b.rules")
set_tests_properties(verify_taso99_mistyped_elsewhere PROPERTIES PASS_REGULAR_EXPRESSION "is 1x4\\[1\\]x3x3 on the source but 1x4x3x3 on the target")
