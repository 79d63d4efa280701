# ONNX's backend node tests (tests/conformance/run.sh, skipped without libonnx-testdata): every
# test imported and, where graphopt evaluates all its operators, evaluated against its expected
# outputs, by graphopt's own calls in one process (tests/conformance/node_tests.c), so that it
# runs in every build: over a thousand graphopt starts took minutes, and ran past the limit where
# each start loads cuBLAS and cuDNN.
add_executable(node_tests conformance/node_tests.c)
target_link_libraries(node_tests PRIVATE rg_optimizer)
add_test(NAME optimizer_conformance COMMAND ${RG_TEST_ROOT}/conformance/run.sh $<TARGET_FILE:node_tests>)
set_tests_properties(optimizer_conformance PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS models)

# Issue 41: every model of libonnx-testdata's node, pytorch-converted, pytorch-operator and simple
# suites through `graphopt convert` and onnxruntime (tests/conformance/ort_suite.py, models/
# ort_batch.js): onnxruntime on the original against the expected outputs, on the written model
# against both bitwise; counts by suite and by reason. Fails where graphopt writes a model
# onnxruntime refuses or computes differently, or graphopt crashes, and (--strict, since every
# test onnxruntime runs is read, written and bitwise equal, and every one it refuses refused)
# where a test falls short of that: not read, not written, only close, or read though
# onnxruntime refuses it (docs/DESIGN.md's refusal table). Skipped (77) without the data, /usr/bin/python3's
# onnx, node or models/node_modules/onnxruntime-node. 1,072 graphopt runs and about 2,000 sessions:
# 42 s to 4.3 min seen on the loaded 2-core machine; the limit is a hang guard with room for that
# three times over, and for a CUDA build's slower graphopt starts (0.7 s each).
# The sanitizer build takes every 4th test of each suite: its graphopt starts take four times as
# long, and it is there for memory errors, which the whole run in the other build would not add to.
set(ort_sample 1)
if(RG_SANITIZE)
  set(ort_sample 4)
endif()
add_test(NAME optimizer_conformance_ort
         COMMAND sh -c "[ -x /usr/bin/python3 ] || { echo 'skip: no /usr/bin/python3'; exit 77; }; exec /usr/bin/python3 \"$0\" --graphopt \"$1\" --every \"$2\" --strict"
                 ${RG_TEST_ROOT}/conformance/ort_suite.py $<TARGET_FILE:graphopt> ${ort_sample})
set_tests_properties(optimizer_conformance_ort PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800 LABELS models)
