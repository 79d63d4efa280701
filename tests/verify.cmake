# verify/: `rulegen prove` on bad inputs, a small subset of TASO's rules proved by both solvers
# (all 133 are in bench/prove.sh), the axioms checked by `rulegen check-axioms`.
add_test(NAME verify_bad_inputs
         COMMAND ${RG_TEST_ROOT}/regress/run_bad.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress/bad ${RG_TEST_ROOT}/regress/bad/verify_cases.txt prove)
add_test(NAME verify_check_axioms COMMAND rulegen check-axioms)
add_test(NAME verify_prove_taso_subset
         COMMAND sh -c "grep -E '^taso-(0|22|36|59|64|70|77|84|98|115|116|132):' ${RG_TEST_ROOT}/data/taso-133.rules > taso-subset.rules && $<TARGET_FILE:rulegen> prove -q --timeout-ms 10000 taso-subset.rules")
set_tests_properties(verify_prove_taso_subset PROPERTIES PASS_REGULAR_EXPRESSION "12 rules: 12 verified")
