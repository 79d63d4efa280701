# End-to-end runs of `rulegen eval`: bad inputs (tests/regress/bad) and true/false rule sets.
add_test(NAME regress_bad_inputs
         COMMAND ${RG_TEST_ROOT}/regress/run_bad.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress/bad)
add_test(NAME regress_eval
         COMMAND ${RG_TEST_ROOT}/regress/run_eval.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress)
# The add-an-operator checklist at the top of ir/ops.def: every listed file handles every
# operator or names it as skipped (tests/regress/ops_checklist.cmake).
add_test(NAME ir_ops_checklist
         COMMAND ${CMAKE_COMMAND} -DROOT=${CMAKE_SOURCE_DIR} -P ${RG_TEST_ROOT}/regress/ops_checklist.cmake)
