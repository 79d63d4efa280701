# rulegen under mpirun (cluster/, synth/spread.h, issue 45): -np 1, 2 and 3 write what one
# process writes; a killed rank ends the job, named, and the run resumes. Where rulegen is built
# with MPI (RG_HAVE_MPI) and mpirun was found. Three parts, side by side under ctest -j.
if(RG_HAVE_MPI AND MPIEXEC_EXECUTABLE)
  foreach(part proofs stages generalize)
    add_test(NAME regress_mpi_${part}
             COMMAND ${RG_TEST_ROOT}/regress/run_mpi.sh $<TARGET_FILE:rulegen> ${RG_TEST_ROOT}/regress
                     ${MPIEXEC_EXECUTABLE} ${part})
    set_tests_properties(regress_mpi_${part} PROPERTIES TIMEOUT 900 LABELS external SKIP_RETURN_CODE 77)
  endforeach()
endif()
