# Runs of the synth pipeline (rulegen --ops ... --depth N): known equivalences found, false
# collisions dropped, identical output for 1 and 2 threads and over several passes, Ctrl-C;
# and bad invocations (tests/regress/bad/enum_cases.txt), each a clear error.
add_test(NAME regress_synth
         COMMAND ${RG_TEST_ROOT}/regress/run_synth.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress)
# A run killed in the enumeration or the test stage goes on with the same command
# (tests/regress/run_spill.sh).
add_test(NAME regress_spill
         COMMAND ${RG_TEST_ROOT}/regress/run_spill.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress)
add_test(NAME regress_synth_bad
         COMMAND ${RG_TEST_ROOT}/regress/run_synth_bad.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress/bad)
# Progress lines (ir/progress.h): plain in a log, rewritten in place on a terminal, and the stage
# table printed once at the end.
add_test(NAME regress_progress
         COMMAND ${RG_TEST_ROOT}/regress/run_progress.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress)
