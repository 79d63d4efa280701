# prune/: `rulegen prune` and `rulegen covers` end to end, and their bad inputs.
add_test(NAME prune_cli COMMAND ${RG_TEST_ROOT}/data/prune/run_cli.sh $<TARGET_FILE:rulegen>)
add_test(NAME prune_bad_inputs COMMAND ${RG_TEST_ROOT}/regress/bad/prune_run.sh $<TARGET_FILE:rulegen>)
