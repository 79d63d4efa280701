# End-to-end runs of the `rulesdb` program: keys, signing, tampering, diff, export/import, audit
# (run_rulesdb.sh) and its bad inputs (regress/bad/db_cases.txt).
if(TARGET rulesdb)
  add_test(NAME rulesdb_tool
           COMMAND ${RG_TEST_ROOT}/regress/run_rulesdb.sh $<TARGET_FILE:rulesdb> ${RG_TEST_ROOT}/regress/anchors)
  add_test(NAME rulesdb_bad_inputs
           COMMAND ${RG_TEST_ROOT}/regress/run_cases.sh $<TARGET_FILE:rulesdb> ${RG_TEST_ROOT}/regress/bad
                   ${RG_TEST_ROOT}/regress/bad/db_cases.txt)
endif()
# TASO's rule loader walked over a written rule file (tests/taso_loader_check.c): on files the
# exporter wrote from a depth-2 run (rulesdb_rulegen_db) and the depth-3 set (rulesdb_exchange_d3),
# and on files made to fail it (rulesdb_taso_loader_bad).
add_executable(taso_loader_check ${RG_TEST_ROOT}/taso_loader_check.c)
target_link_libraries(taso_loader_check PRIVATE rg_rulesdb)
target_include_directories(taso_loader_check PRIVATE ${CMAKE_BINARY_DIR}/rulesdb/gen)
add_test(NAME rulesdb_taso_loader_bad
         COMMAND ${RG_TEST_ROOT}/regress/run_taso_loader_bad.sh $<TARGET_FILE:taso_loader_check>)
# TENSAT's side of it: tests/regress/tensat_check.py reads files as TENSAT's parser does.
add_test(NAME rulesdb_tensat_check COMMAND ${RG_TEST_ROOT}/regress/run_tensat_check.sh)
# Databases rulegen made: a run with no rule (headers say so), and a depth-2 run's TASO and TENSAT
# export (run_exchange_check.sh: every expressible rule written, as TASO's loader and TENSAT's
# parser read them, and back on import). The same over the depth-3 set of tests/data.
if(TARGET rulesdb AND TARGET rulegen)
  add_test(NAME rulesdb_rulegen_db
           COMMAND ${RG_TEST_ROOT}/regress/run_rulegen_db.sh $<TARGET_FILE:rulegen> $<TARGET_FILE:rulesdb>
                   $<TARGET_FILE:taso_loader_check>)
  add_test(NAME rulesdb_exchange_d3
           COMMAND ${RG_TEST_ROOT}/regress/run_exchange_check.sh $<TARGET_FILE:rulesdb>
                   $<TARGET_FILE:taso_loader_check> ${RG_TEST_ROOT}/data/taso-bias-d3.rules)
endif()
