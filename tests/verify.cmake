# verify/: `rulegen prove` on bad inputs, a small subset of TASO's rules proved by both solvers
# (all 133 are in bench/prove.sh), the axioms checked by `rulegen check-axioms`.
add_test(NAME verify_bad_inputs
         COMMAND ${RG_TEST_ROOT}/regress/run_bad.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress/bad ${RG_TEST_ROOT}/regress/bad/verify_cases.txt prove)
add_test(NAME verify_check_axioms COMMAND rulegen check-axioms)
add_test(NAME verify_prove_taso_subset
         COMMAND sh -c "grep -E '^taso-(0|22|36|59|64|70|77|84|98|115|116|132):' ${RG_TEST_ROOT}/data/taso-133.rules > taso-subset.rules && $<TARGET_FILE:rulegen> prove -q --timeout-ms 10000 taso-subset.rules")
set_tests_properties(verify_prove_taso_subset PROPERTIES PASS_REGULAR_EXPRESSION "12 rules: 12 verified")
# The converted TASO rules are all true at the shapes recorded in their header, and the grouped-conv
# ones are false at the counterexample the header gives (why no proof of them may exist).
add_test(NAME verify_taso133_true_at_shapes
         COMMAND sh -c "$<TARGET_FILE:rulegen> eval -q $(sed -n 's/^# shapes://p' ${RG_TEST_ROOT}/data/taso-133.rules) ${RG_TEST_ROOT}/data/taso-133.rules")
add_test(NAME verify_taso99_false_elsewhere
         COMMAND sh -c "grep '^taso-99:' ${RG_TEST_ROOT}/data/taso-133.rules > taso-99.rules; $<TARGET_FILE:rulegen> eval -q -s i1=1x2x3x3 -s i2=1x2x3x3 -s k1=1x2x1x1 -s k2=3x2x1x1 taso-99.rules; test $? -eq 1")
