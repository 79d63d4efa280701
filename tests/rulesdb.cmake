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
# TASO's rule loader walked over a rule file (tests/taso_loader_check.c): TASO's own file loads,
# files made to break what it asserts do not (rulesdb_taso_loader_bad).
add_executable(taso_loader_check ${RG_TEST_ROOT}/taso_loader_check.c)
target_link_libraries(taso_loader_check PRIVATE rg_rulesdb)
target_include_directories(taso_loader_check PRIVATE ${CMAKE_BINARY_DIR}/rulesdb/gen)
add_test(NAME rulesdb_taso_loader_bad
         COMMAND ${RG_TEST_ROOT}/regress/run_taso_loader_bad.sh $<TARGET_FILE:taso_loader_check>)
# TENSAT's side of it: tests/regress/tensat_check.py reads files as TENSAT's parser does.
add_test(NAME rulesdb_tensat_check COMMAND ${RG_TEST_ROOT}/regress/run_tensat_check.sh)
