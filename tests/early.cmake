# Inputs found wrong before hours of work (tests/regress/bad/early_cases.txt): each exits with
# status 2 and a clear message, before any enumeration, proof or search starts (no progress line,
# on a pseudo-terminal, where one shows a quarter second into a stage). No time is asserted.
add_test(NAME regress_early
         COMMAND ${RG_TEST_ROOT}/regress/run_early.sh $<TARGET_FILE_DIR:rulegen> ${RG_TEST_ROOT}/regress/bad)
