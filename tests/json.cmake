# --json for CI (rulegen prove, graphopt optimize): the file parses and its figures are the
# printed ones. (rulegen synth's --json is checked in regress_pipeline.)
add_test(NAME regress_json
         COMMAND ${RG_TEST_ROOT}/regress/run_json.sh $<TARGET_FILE_DIR:rulegen> ${RG_TEST_ROOT}/regress/optimize)
