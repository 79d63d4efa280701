# Inputs found wrong before hours of work (tests/regress/bad/early_cases.txt): each exits with
# status 2 and a clear message in under a second, before any enumeration or proof starts.
add_test(NAME regress_early
         COMMAND ${RG_TEST_ROOT}/regress/run_early.sh $<TARGET_FILE_DIR:rulegen> ${RG_TEST_ROOT}/regress/bad)
