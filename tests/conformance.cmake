# ONNX's backend node tests (tests/conformance/run.sh, skipped without libonnx-testdata): every
# test imported and, where graphopt evaluates all its operators, evaluated against its expected
# outputs, by graphopt's own calls in one process (tests/conformance/node_tests.c), so that it
# runs in every build: over a thousand graphopt starts took minutes, and ran past the limit where
# each start loads cuBLAS and cuDNN.
add_executable(node_tests conformance/node_tests.c)
target_link_libraries(node_tests PRIVATE rg_optimizer)
add_test(NAME optimizer_conformance COMMAND ${RG_TEST_ROOT}/conformance/run.sh $<TARGET_FILE:node_tests>)
set_tests_properties(optimizer_conformance PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS models)
