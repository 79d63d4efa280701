# rulegen under mpirun (cluster/, synth/spread.h, issue 45): -np 1, 2 and 3 write what one
# process writes; a killed rank ends the job, named, and the run resumes. Where rulegen is built
# with MPI (RG_HAVE_MPI) and mpirun was found.
if(RG_HAVE_MPI AND MPIEXEC_EXECUTABLE)
  add_test(NAME regress_mpi
           COMMAND ${RG_TEST_ROOT}/regress/run_mpi.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress
                   ${MPIEXEC_EXECUTABLE})
  set_tests_properties(regress_mpi PROPERTIES TIMEOUT 600 LABELS external SKIP_RETURN_CODE 77)
endif()
