# The installed copy on its own (run_install.sh): cmake --install into a prefix that is then
# moved; --version of each program; rulegen prove and synth, graphopt cost with the installed
# data only (renaming it breaks them, RULEGEN_DATA_DIR mends them); a C program reading a rule
# database built with pkg-config and with find_package(rulegen). Not in the sanitizer build:
# there it takes 1.5 minutes of CI to run code every other test of that build runs too (the
# install rules and path lookups are the same in both builds).
if(NOT RG_SANITIZE)
  add_test(NAME install COMMAND ${RG_TEST_ROOT}/regress/run_install.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
  set_tests_properties(install PROPERTIES TIMEOUT 300)
endif()
