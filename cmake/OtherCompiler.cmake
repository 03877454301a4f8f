# The tests again with the other C++ compiler (cmake -P): GCC where this build's is Clang, Clang
# where it is GCC. Configures the sim-instructor preset in BUILD with COMPILER, builds it and runs
# the labs' solutions, the skeleton integrity check, the mistakes and common/ there (the CPU
# simulator: no nvcc, no GPU), in the tier TIER (HISTO_CHECK_TIER: quick leaves the simulator's
# [large] cases to the full tier, as the build that runs it does). A check that holds with one
# compiler only checks the compiler.
# Its graders are split as grading's build slots split them (HISTO_SPLIT_GRADERS, grading/worker):
# every lab's solution and skeleton graded through a worker, with the other compiler.
foreach(var SOURCE BUILD COMPILER JOBS TIER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "OtherCompiler.cmake needs -D ${var}=...")
  endif()
endforeach()
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(LENGTH "${out}" n)
    if(n GREATER 12000)
      math(EXPR from "${n} - 12000")
      string(SUBSTRING "${out}" ${from} -1 out)
    endif()
    message(FATAL_ERROR "${what} with ${COMPILER} failed (exit ${rc}):\n${out}")
  endif()
  message(STATUS "${what} with ${COMPILER}: ok")
endfunction()
step("configure" ${CMAKE_COMMAND} -S ${SOURCE} -B ${BUILD} --preset sim-instructor
     -DCMAKE_CXX_COMPILER=${COMPILER} -DHISTO_BUILD_BENCH=OFF -DHISTO_SPLIT_GRADERS=ON
     -DHISTO_CHECK_TIER=${TIER} ${EXTRA_ARGS})
step("build" ${CMAKE_COMMAND} --build ${BUILD} -j ${JOBS})
step("tests" ${CMAKE_CTEST_COMMAND} --test-dir ${BUILD} -j ${JOBS} --output-on-failure
     -L "solution|integrity|mistakes|common" -LE "student|sanitize|full|grading|release")
