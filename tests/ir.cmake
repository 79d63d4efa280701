# End-to-end runs of `rulegen eval`: bad inputs (tests/regress/bad) and true/false rule sets.
add_test(NAME regress_bad_inputs
         COMMAND ${RG_TEST_ROOT}/regress/run_bad.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress/bad)
add_test(NAME regress_eval
         COMMAND ${RG_TEST_ROOT}/regress/run_eval.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress)
