# scripts/ruleset-regress.sh, the CI guard of a regenerated rule set against its signed reference
# (README.md, "Guarding a rule set in CI"): a small rulegen run regenerated and edited
# (run_ruleset_regress.sh), and its bad inputs (regress/bad/regress_cases.txt: a reference with
# a byte changed, the wrong key, missing or unreadable files), each exit 2 with a clear message.
if(TARGET rulesdb AND TARGET rulegen)
  add_test(NAME ruleset_regress
           COMMAND ${RG_TEST_ROOT}/regress/run_ruleset_regress.sh $<TARGET_FILE:rulegen> $<TARGET_FILE:rulesdb>
                   ${CMAKE_SOURCE_DIR}/scripts/ruleset-regress.sh ${RG_TEST_ROOT}/regress/synth.inputs
                   ${CMAKE_SOURCE_DIR}/verify/axioms.rules)
  set_tests_properties(ruleset_regress PROPERTIES TIMEOUT 180)
  add_test(NAME ruleset_regress_bad_inputs
           COMMAND ${CMAKE_COMMAND} -E env RULESDB=$<TARGET_FILE:rulesdb> ${RG_TEST_ROOT}/regress/run_cases.sh
                   ${CMAKE_SOURCE_DIR}/scripts/ruleset-regress.sh ${RG_TEST_ROOT}/regress/bad
                   ${RG_TEST_ROOT}/regress/bad/regress_cases.txt)
endif()
