# The whole rulegen run (enumerate .. prove .. derivability) on a small input set, to rule text
# and to a signed database, checked by prove, eval, prune --audit and rulesdb verify/audit.
add_test(NAME regress_pipeline
         COMMAND ${RG_TEST_ROOT}/regress/run_pipeline.sh $<TARGET_FILE:rulegen> $<TARGET_FILE:rulesdb> ${RG_TEST_ROOT}/regress)
