# graphopt (optimizer/, tools/graphopt*.c): bad models refused clearly (tests/regress/bad/
# model_cases.txt), and round trips checked against onnxruntime (models/roundtrip_test.sh:
# skipped without python3-onnx or onnxruntime-node) of models/cases.py's corner cases and of the
# small zoo models_zoo_small builds.
add_test(NAME optimizer_bad_models
         COMMAND ${RG_TEST_ROOT}/regress/run_cases.sh $<TARGET_FILE:graphopt> ${RG_TEST_ROOT}/regress/bad
                 ${RG_TEST_ROOT}/regress/bad/model_cases.txt)
add_test(NAME optimizer_cases
         COMMAND ${CMAKE_SOURCE_DIR}/models/roundtrip_test.sh $<TARGET_FILE:graphopt>
                 ${CMAKE_BINARY_DIR}/roundtrip/cases --cases)
# What graphopt does not model (other element types, empty and rank-7 tensors, control flow,
# sequences, other domains, metadata) and exporters' idioms pass through convert untouched, with
# onnxruntime's outputs bitwise equal; optimize rewrites the float part, checking the whole model
# where graphopt evaluates it and each rewritten region alone where it does not, saying why
# (models/passthrough.py).
add_test(NAME optimizer_passthrough
         COMMAND ${CMAKE_SOURCE_DIR}/models/roundtrip_test.sh $<TARGET_FILE:graphopt>
                 ${CMAKE_BINARY_DIR}/roundtrip/passthrough --rules ${RG_TEST_ROOT}/regress/optimize/concat.rules
                 --passthrough)
set_tests_properties(optimizer_passthrough PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS models
                     FIXTURES_REQUIRED proof_cache)
# The numeric check by regions: float regions between com.microsoft nodes, an int32 path and an
# If optimized and run in onnxruntime with the original's outputs; a false rule caught by the
# region check alone (models/regions.py).
add_test(NAME optimizer_regions
         COMMAND ${CMAKE_SOURCE_DIR}/models/roundtrip_test.sh $<TARGET_FILE:graphopt>
                 ${CMAKE_BINARY_DIR}/roundtrip/regions --rules ${RG_TEST_ROOT}/regress/optimize/concat.rules --regions)
set_tests_properties(optimizer_regions PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS models
                     FIXTURES_REQUIRED proof_cache)
# Symbolic dimensions stay symbolic: models with a batch 'N' (PyTorch's Reshape [-1, K] and
# Shape -> Gather -> Concat -> Reshape) converted and optimized, run in onnxruntime at N=2 and 3
# against the original; a rewrite that holds only at the N imported dropped, none kept where the
# model cannot be evaluated at other N, auto_pad SAME at stride 2 over symbolic H, W kept as read
# (models/dyn_dims.py).
add_test(NAME optimizer_dims
         COMMAND ${CMAKE_SOURCE_DIR}/models/roundtrip_test.sh $<TARGET_FILE:graphopt>
                 ${CMAKE_BINARY_DIR}/roundtrip/dims --rules ${RG_TEST_ROOT}/regress/optimize/merge.rules --dims)
set_tests_properties(optimizer_dims PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180 LABELS models
                     FIXTURES_REQUIRED proof_cache)
# models/opsets.py's models at opsets 1, 6, 7, 9, 10, 18 and 21 (each operator in its form there):
# converted, and optimized with the depth-3 rules, against onnxruntime; written at their own opset.
add_test(NAME optimizer_opsets
         COMMAND ${CMAKE_SOURCE_DIR}/models/roundtrip_test.sh $<TARGET_FILE:graphopt>
                 ${CMAKE_BINARY_DIR}/roundtrip/opsets --opsets)
add_test(NAME optimizer_opsets_optimize
         COMMAND ${CMAKE_SOURCE_DIR}/models/roundtrip_test.sh $<TARGET_FILE:graphopt>
                 ${CMAKE_BINARY_DIR}/roundtrip/opsets_optimized --rules ${RG_TEST_ROOT}/data/taso-bias-d3.rules --opsets)
# Limits: three times the slowest seen on the loaded 2-core machine (the sanitizer build's optimize
# took 753 s, most of it waiting for the proof cache that other graphopt runs held).
set_tests_properties(optimizer_opsets PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS models)
set_tests_properties(optimizer_opsets_optimize PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 2400 LABELS models)
# SqueezeNet and bert2 take minutes in the unoptimized sanitizer build: there, the tiny ones only
set(small_zoo tiny_cnn tiny_mlp)
if(NOT RG_SANITIZE)
  list(APPEND small_zoo squeezenet bert2)
endif()
list(TRANSFORM small_zoo PREPEND ${CMAKE_BINARY_DIR}/zoo/)
list(TRANSFORM small_zoo APPEND .onnx)
add_test(NAME optimizer_roundtrip_small
         COMMAND ${CMAKE_SOURCE_DIR}/models/roundtrip_test.sh $<TARGET_FILE:graphopt>
                 ${CMAKE_BINARY_DIR}/roundtrip/zoo ${small_zoo})
# The small zoo models optimized with TASO's 133 rules (verified by both solvers: ctest
# verify_prove_taso_subset and bench/prove.sh): graphopt's numeric check, onnx.checker, and
# onnxruntime on the original against the optimized model within 1e-4.
add_test(NAME optimizer_optimize_small
         COMMAND ${CMAKE_SOURCE_DIR}/models/roundtrip_test.sh $<TARGET_FILE:graphopt>
                 ${CMAKE_BINARY_DIR}/roundtrip/optimized --rules ${RG_TEST_ROOT}/data/taso-133.rules ${small_zoo})
# The same with our own depth-3 rule set over TASO's operators and bias (tests/data/
# taso-bias-d3.rules: `rulegen --ops taso,bias --depth 3`, 1,119 rules, each proved by z3 and cvc5).
add_test(NAME optimizer_optimize_small_d3
         COMMAND ${CMAKE_SOURCE_DIR}/models/roundtrip_test.sh $<TARGET_FILE:graphopt>
                 ${CMAKE_BINARY_DIR}/roundtrip/optimized_d3 --rules ${RG_TEST_ROOT}/data/taso-bias-d3.rules ${small_zoo})
# and by the backtracking search (the default is equality saturation)
add_test(NAME optimizer_optimize_small_backtrack
         COMMAND ${CMAKE_SOURCE_DIR}/models/roundtrip_test.sh $<TARGET_FILE:graphopt>
                 ${CMAKE_BINARY_DIR}/roundtrip/optimized_bt --rules ${RG_TEST_ROOT}/data/taso-bias-d3.rules
                 --search backtrack ${small_zoo})
# Q, K and V merged under gpu-h100's costs (the bias Adds on 3-D products, imported onto the
# flattened ones): onnxruntime on the original against the merged model.
add_test(NAME optimizer_merge_linear_ort
         COMMAND ${CMAKE_SOURCE_DIR}/models/roundtrip_test.sh $<TARGET_FILE:graphopt>
                 ${CMAKE_BINARY_DIR}/roundtrip/merge_linear --rules ${RG_TEST_ROOT}/regress/optimize/merge_family.rules
                 --optimize-args "--machine gpu-h100 --multi-rounds 4"
                 ${RG_TEST_ROOT}/regress/optimize/merge_linear3d.onnx)
# Limits leave room for a loaded 2-core machine: three times the slowest time seen, at least.
set_tests_properties(optimizer_cases optimizer_roundtrip_small optimizer_merge_linear_ort optimizer_optimize_small
                     optimizer_optimize_small_d3 optimizer_optimize_small_backtrack
                     PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1500 LABELS models)
set_tests_properties(optimizer_roundtrip_small optimizer_optimize_small optimizer_optimize_small_d3
                     optimizer_optimize_small_backtrack PROPERTIES FIXTURES_REQUIRED zoo_small)
# graphopt optimize on small models (tests/regress/optimize/cases.txt): known rules fire where
# they must and not where they must not, the result agrees with the original, a false rule is
# caught by the numeric check, bad rules and databases are refused; and the rules it uses are
# proved by both solvers (the axioms themselves are checked by verify_check_axioms).
add_test(NAME optimizer_optimize_cases
         COMMAND ${RG_TEST_ROOT}/regress/run_cases.sh $<TARGET_FILE:graphopt> ${RG_TEST_ROOT}/regress/optimize
                 ${RG_TEST_ROOT}/regress/optimize/cases.txt)
# A generous solver timeout: the test is about what is proved, not how fast (cvc5 took 2.6 s on
# conv-merge's obligation on a machine with load 16, past the default 2 s).
add_test(NAME optimizer_rules_proved
         COMMAND $<TARGET_FILE:rulegen> prove -j 2 --no-check-axioms -T 60000 ${RG_TEST_ROOT}/regress/optimize/merge.rules)
# The merge family's steps, as rulegen made them (merge_family.rules says how): still proved.
add_test(NAME optimizer_merge_steps_proved
         COMMAND $<TARGET_FILE:rulegen> prove -j 2 --no-check-axioms -T 60000 ${RG_TEST_ROOT}/regress/optimize/merge_family.rules)
# graphopt without --rules: the default set (optimizer/optimize/rules/, unpacked in the build), checked with its key; altered,
# wrongly keyed or missing, refused.
add_test(NAME optimizer_default_rules
         COMMAND ${RG_TEST_ROOT}/regress/run_default_rules.sh $<TARGET_FILE:graphopt> $<TARGET_FILE:rulesdb>
                 ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/optimizer/rules/default.db)
set_tests_properties(optimizer_default_rules PROPERTIES TIMEOUT 300)
# A model no rule makes cheaper is written as a byte-for-byte copy of the input.
add_test(NAME optimizer_no_rule_copy
         COMMAND sh -c "\"$0\" optimize \"$1\" --rules \"$2\" -o \"$3\" -q && cmp \"$1\" \"$3\""
                 $<TARGET_FILE:graphopt> ${RG_TEST_ROOT}/regress/optimize/no_rule.onnx
                 ${RG_TEST_ROOT}/regress/optimize/merge.rules ${CMAKE_BINARY_DIR}/no_rule_copy.onnx)
# --cost cuda with no device to see: exit 2 and a clear message, in a build with CUDA and in one
# without (CI has no GPU). test_optimizer_cuda (the GPU side against the interpreter, and stable
# timings) skips with 77 where there is no device: bench/gpu-check.sh runs it on a GPU.
add_test(NAME optimizer_cuda_no_device
         COMMAND ${RG_TEST_ROOT}/regress/cuda_no_device.sh $<TARGET_FILE:graphopt>
                 ${RG_TEST_ROOT}/regress/bad/model_good.onnx ${RG_HAVE_CUDA})
set_tests_properties(test_optimizer_cuda PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
# The CUDA module (optimizer/cuda/: rulegen-cuda.so, opened with dlopen for --cost cuda only):
# the programs neither link (ldd) nor load (LD_DEBUG=libs on --version) cudart, cuBLAS or cuDNN;
# and modules graphopt cannot use are refused with exit 2 and a message naming them: no file, a
# text file, the two bad shared objects made here from tests/regress/bad/cuda_module_fake.c,
# and (with CUDA) the installed layout's lookup.
set(rg_cuda_module "")
if(TARGET rulegen-cuda)
  set(rg_cuda_module $<TARGET_FILE:rulegen-cuda>)
endif()
foreach(fake wrong_abi no_table)
  add_library(cuda_module_${fake} MODULE ${RG_TEST_ROOT}/regress/bad/cuda_module_fake.c)
  target_include_directories(cuda_module_${fake} PRIVATE ${CMAKE_SOURCE_DIR})
  set_target_properties(cuda_module_${fake} PROPERTIES PREFIX "")
endforeach()
target_compile_definitions(cuda_module_no_table PRIVATE FAKE_NO_TABLE)
file(RELATIVE_PATH rg_cuda_from_bin /p/${CMAKE_INSTALL_BINDIR} /p/${CMAKE_INSTALL_LIBDIR}/rulegen)
add_test(NAME optimizer_cuda_module
         COMMAND ${RG_TEST_ROOT}/regress/cuda_module.sh $<TARGET_FILE:graphopt>
                 ${RG_TEST_ROOT}/regress/bad/model_good.onnx ${RG_TEST_ROOT}/regress/bad
                 $<TARGET_FILE:cuda_module_wrong_abi> $<TARGET_FILE:cuda_module_no_table>
                 ${rg_cuda_from_bin} ${rg_cuda_module})
foreach(mode ldd start)
  add_test(NAME optimizer_cuda_not_loaded_${mode}
           COMMAND ${RG_TEST_ROOT}/regress/cuda_not_loaded.sh ${mode} $<TARGET_FILE:graphopt>
                   $<TARGET_FILE:rulegen> $<TARGET_FILE:rulesdb> ${RG_TEST_ROOT}/regress/bad/model_good.onnx
                   ${rg_cuda_module})
endforeach()
# graphopt's outputs: checked before any work, devices, FIFOs, links and read-only files respected,
# exit statuses that mean one thing (tests/regress/run_outputs.sh).
add_test(NAME optimizer_outputs
         COMMAND ${RG_TEST_ROOT}/regress/run_outputs.sh $<TARGET_FILE:graphopt> ${RG_TEST_ROOT}/regress/optimize)
# graphopt proves rule text before it applies it, through the proof cache (verify/proofcache.h).
# Every test shares one cache (RG_TEST_PROOF_CACHE, tests/CMakeLists.txt), filled once here with
# the rule sets the optimizer tests use, so that each later run takes its verdicts from it.
add_test(NAME optimizer_proof_cache
         COMMAND sh -c "g=$0 m=$1 o=$2; shift 2; for r; do \"$g\" optimize \"$m\" --rules \"$r\" -o \"$o\" -q || exit 1; done"
                 $<TARGET_FILE:graphopt> ${RG_TEST_ROOT}/regress/optimize/fire.onnx
                 ${CMAKE_BINARY_DIR}/proof-cache-warm.onnx ${RG_TEST_ROOT}/data/taso-133.rules
                 ${RG_TEST_ROOT}/data/taso-bias-d3.rules ${RG_TEST_ROOT}/regress/optimize/merge.rules
                 ${RG_TEST_ROOT}/regress/optimize/concat.rules)
# (1,250 rules proved by both solvers, one at a time: minutes alone, and the loaded machine's
# three times the slowest time seen)
set_tests_properties(optimizer_proof_cache PROPERTIES FIXTURES_SETUP proof_cache TIMEOUT 1800)
set_tests_properties(optimizer_optimize_small optimizer_optimize_small_d3 optimizer_optimize_small_backtrack
                     PROPERTIES FIXTURES_REQUIRED "zoo_small;proof_cache")
set_tests_properties(optimizer_optimize_cases optimizer_no_rule_copy optimizer_outputs
                     PROPERTIES FIXTURES_REQUIRED proof_cache)
# Searches stopped early keep the best model found so far and say why: at --mem-limit (both
# searches), and by Ctrl-C while CBC solves the ILP with no time limit; backtracking's queue
# bound counts what it drops (tests/regress/run_stop.sh; test_optimizer_stop fakes the memory
# reading, an allocation failure and Ctrl-C).
add_test(NAME optimizer_stop
         COMMAND ${RG_TEST_ROOT}/regress/run_stop.sh $<TARGET_FILE:graphopt> ${RG_TEST_ROOT}/regress/stop)
set_tests_properties(optimizer_stop PROPERTIES TIMEOUT 1200)
# Weights in a side file (ONNX's external data, issue 41 item 5): read and written by convert
# and optimize, onnxruntime's outputs bitwise equal; hostile side files and unsafe output side
# files refused (models/external.py; the bad files themselves: optimizer_bad_models).
# Its memory part (a side file's weight held once) runs only without sanitizers: under ASan the
# peak RSS is its allocator's (with scripts/test.sh's 16 MB quarantine, 0.88x the weight).
add_test(NAME optimizer_external
         COMMAND ${CMAKE_SOURCE_DIR}/models/roundtrip_test.sh $<TARGET_FILE:graphopt>
                 ${CMAKE_BINARY_DIR}/roundtrip/external --rules ${RG_TEST_ROOT}/regress/optimize/merge.rules
                 --external --only ways_through,refusals)
set(rg_external_tests optimizer_external)
if(NOT RG_SANITIZE)
  add_test(NAME optimizer_external_memory
           COMMAND ${CMAKE_SOURCE_DIR}/models/roundtrip_test.sh $<TARGET_FILE:graphopt>
                   ${CMAKE_BINARY_DIR}/roundtrip/external_memory --rules ${RG_TEST_ROOT}/regress/optimize/merge.rules
                   --external --only memory)
  list(APPEND rg_external_tests optimizer_external_memory)
endif()
set_tests_properties(${rg_external_tests} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS models
                     FIXTURES_REQUIRED proof_cache)
# --cost ort and the measured guard (issue 43; tests/regress/run_ort.sh): the onnxruntime helper
# faked (killed, hung, answering garbage, refusing models, not starting: a fallback or an exit
# with a message naming what happened, never a hang), the cost cache (a second run measures
# nothing; a corrupt one moved aside and rebuilt), the guard's verdict both ways; then with
# onnxruntime itself (skipped without node or onnxruntime-node), where the guard times a model
# against itself (RG_TEST_GUARD_SELF) and must write the original.
add_test(NAME optimizer_ort_faults
         COMMAND ${RG_TEST_ROOT}/regress/run_ort.sh $<TARGET_FILE:graphopt> ${CMAKE_SOURCE_DIR} faults)
add_test(NAME optimizer_ort
         COMMAND ${RG_TEST_ROOT}/regress/run_ort.sh $<TARGET_FILE:graphopt> ${CMAKE_SOURCE_DIR} real)
set_tests_properties(optimizer_ort_faults optimizer_ort PROPERTIES TIMEOUT 900 FIXTURES_REQUIRED proof_cache)
set_tests_properties(optimizer_ort PROPERTIES SKIP_RETURN_CODE 77 LABELS models)
# graphopt --pet (optimizer/pet/): a model per PET kind and two where none types, through graphopt
# optimize --pet --certs: what it finds, and every certificate it writes audited by rulegen
# certify check (one altered must fail); and the models test_optimizer_pet --export writes (each
# kind's rewrite applied, its correction included) against their originals in onnxruntime and in
# graphopt's evaluator.
add_test(NAME optimizer_pet_cli
         COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/models/pet.py --graphopt $<TARGET_FILE:graphopt>
                 --rulegen $<TARGET_FILE:rulegen> --work ${CMAKE_BINARY_DIR}/pet/cli --cli)
add_test(NAME optimizer_pet_ort
         COMMAND sh -c "rm -rf \"$1\" && mkdir -p \"$1\" && \"$0\" --export \"$1\" && /usr/bin/python3 \"$2\" --graphopt \"$3\" --work \"$1\" --ort \"$1\""
                 $<TARGET_FILE:test_optimizer_pet> ${CMAKE_BINARY_DIR}/pet/ort ${CMAKE_SOURCE_DIR}/models/pet.py
                 $<TARGET_FILE:graphopt>)
set_tests_properties(optimizer_pet_cli optimizer_pet_ort PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
