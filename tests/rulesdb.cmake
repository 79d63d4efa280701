# End-to-end runs of the `rulesdb` program: keys, signing, tampering, diff, export/import, audit
# (run_rulesdb.sh) and its bad inputs (regress/bad/db_cases.txt).
if(TARGET rulesdb)
  add_test(NAME rulesdb_tool
           COMMAND ${RG_TEST_ROOT}/regress/run_rulesdb.sh $<TARGET_FILE:rulesdb> ${RG_TEST_ROOT}/regress/anchors)
  add_test(NAME rulesdb_bad_inputs
           COMMAND ${RG_TEST_ROOT}/regress/run_cases.sh $<TARGET_FILE:rulesdb> ${RG_TEST_ROOT}/regress/bad
                   ${RG_TEST_ROOT}/regress/bad/db_cases.txt)
endif()
# Databases rulegen made: a run with no rule (headers say so), and a depth-2 run's TASO export
# (every TASO-expressible rule written, content ids kept on import).
if(TARGET rulesdb AND TARGET rulegen)
  add_test(NAME rulesdb_rulegen_db
           COMMAND ${RG_TEST_ROOT}/regress/run_rulegen_db.sh $<TARGET_FILE:rulegen> $<TARGET_FILE:rulesdb>)
endif()
