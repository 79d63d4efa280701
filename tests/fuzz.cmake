# libFuzzer harnesses, one per parser (tests/fuzz/fuzz_NAME.c, seeds in tests/fuzz/corpus/NAME,
# inputs that once crashed in tests/fuzz/regress/NAME). Built with RG_FUZZ (clang;
# scripts/fuzz.sh) each is a fuzzer; otherwise a replayer, and ctest replays its seeds and
# regression inputs under the build's sanitizers.
set(RG_FUZZ_HARNESSES rule_text:rg_ir axioms:rg_verify inputs:rg_enumerate cert:rg_certify
    tensat:rg_rulesdb taso:rg_rulesdb journal:rg_verify db:rg_rulesdb onnx:rg_optimizer)
foreach(pair IN LISTS RG_FUZZ_HARNESSES)
  string(REPLACE ":" ";" parts ${pair})
  list(GET parts 0 name)
  list(GET parts 1 lib)
  set(t fuzz_${name})
  if(RG_FUZZ)
    add_executable(${t} fuzz/${t}.c fuzz/fuzz_util.c)
    target_link_options(${t} PRIVATE -fsanitize=fuzzer)
  else()
    add_executable(${t} fuzz/${t}.c fuzz/fuzz_util.c fuzz/replay_main.c)
    file(MAKE_DIRECTORY ${RG_TEST_ROOT}/fuzz/regress/${name})
    add_test(NAME ${t} COMMAND ${t} ${RG_TEST_ROOT}/fuzz/corpus/${name} ${RG_TEST_ROOT}/fuzz/regress/${name})
  endif()
  target_link_libraries(${t} PRIVATE ${lib})
  target_include_directories(${t} PRIVATE ${RG_TEST_ROOT}/fuzz)
endforeach()
