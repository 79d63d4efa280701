# End-to-end runs of `rulegen certify`: bad inputs (tests/regress/bad/cert_cases.txt) and a
# certify / check / forge round (tests/regress/run_certify.sh).
add_test(NAME regress_certify_bad_inputs
         COMMAND ${RG_TEST_ROOT}/regress/run_cert_bad.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress/bad)
add_test(NAME regress_certify
         COMMAND ${RG_TEST_ROOT}/regress/run_certify.sh $<TARGET_FILE:rulegen>)
