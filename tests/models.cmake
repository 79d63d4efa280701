# The model zoo (models/): build the small test models, SqueezeNet and bert2 into the build tree
# (${CMAKE_BINARY_DIR}/zoo, where other tests and benchmarks may use them), check that the builds
# repeat byte for byte, and that each model passes the ONNX checker and runs in onnxruntime with
# finite outputs of its declared shapes (models/zoo_test.sh). Skipped (77) where
# /usr/bin/python3 lacks onnx or models/node_modules lacks onnxruntime-node. The limit leaves
# room for a loaded machine (a limit is a hang guard, three times the slowest time seen).
add_test(NAME models_zoo_small
         COMMAND ${CMAKE_SOURCE_DIR}/models/zoo_test.sh ${CMAKE_BINARY_DIR}/zoo)
set_tests_properties(models_zoo_small PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS models
                     FIXTURES_SETUP zoo_small)
