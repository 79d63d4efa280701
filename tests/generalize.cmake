# rulegen's generalize stage end to end (verify/generalize.h, synth/generalize.c).
add_test(NAME synth_generalize
         COMMAND ${RG_TEST_ROOT}/regress/run_generalize.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress)
