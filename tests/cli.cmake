# The programs' command lines: `PROG help CMD` for every command of every program.
set(rg_cli_programs $<TARGET_FILE:rulegen>)
if(TARGET rulesdb)
  list(APPEND rg_cli_programs $<TARGET_FILE:rulesdb>)
endif()
if(TARGET graphopt)
  list(APPEND rg_cli_programs $<TARGET_FILE:graphopt>)
endif()
add_test(NAME cli_help_command COMMAND ${RG_TEST_ROOT}/regress/run_cli_help.sh ${RG_TEST_ROOT}/regress ${rg_cli_programs})
# The man pages and bash completion the build makes from the same tables (tools/CMakeLists.txt).
add_test(NAME cli_man_completion
         COMMAND ${RG_TEST_ROOT}/regress/run_cli_docs.sh ${RG_TEST_ROOT}/regress ${CMAKE_BINARY_DIR} ${rg_cli_programs})
