# Kill-and-resume of the stages after testing (synth/checkpoint.h): a run killed (SIGKILL, through
# the test hook RULEGEN_TEST_KILL_AT) while pruning, while deriving, in a proof round and while
# writing, resumed with `rulegen --resume OUT.candidates -o OUT`, writes what an uninterrupted run
# writes; damaged and foreign checkpoints (tests/regress/bad/checkpoint_*) are refused or passed
# over, named. The proofs' answers come from the tests' shared proof cache.
add_test(NAME regress_resume
         COMMAND ${RG_TEST_ROOT}/regress/run_resume.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress)
set_tests_properties(regress_resume PROPERTIES TIMEOUT 900) # about 140 s alone under ASan beside other work
# Killed while the solvers answer a proof round (its own cold cache, some answers in it).
add_test(NAME regress_resume_answers
         COMMAND ${RG_TEST_ROOT}/regress/run_resume_answers.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress)
set_tests_properties(regress_resume_answers PROPERTIES TIMEOUT 300)
