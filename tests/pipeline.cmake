# The whole rulegen run (enumerate .. prove .. derivability) on a small input set, to rule text
# and to a signed database, checked by prove, eval, prune --audit and rulesdb verify/audit.
add_test(NAME regress_pipeline
         COMMAND ${RG_TEST_ROOT}/regress/run_pipeline.sh $<TARGET_FILE:rulegen> $<TARGET_FILE:rulesdb> ${RG_TEST_ROOT}/regress)

# The run through its proof cache (verify/proofcache.h, proofcache_checks.h), each in a fresh
# cache of its own: cold then warm (nothing asked, no axiom test, no recheck) and lines altered
# on disk refused and redone; two runs at once on one cache; one axiom edited, and only the
# queries of the obligations that assert it asked again.
foreach(mode warm concurrent axiom)
  add_test(NAME pipeline_proof_cache_${mode}
           COMMAND ${RG_TEST_ROOT}/regress/proof_cache_run.sh ${mode} $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress
                   ${CMAKE_SOURCE_DIR}/verify/axioms.rules)
  set_tests_properties(pipeline_proof_cache_${mode} PROPERTIES TIMEOUT 300)
endforeach()
