# Runs EXE with the Catch2 test spec SPEC and fails unless it exits with EXPECT (cmake -P).
execute_process(COMMAND "${EXE}" "${SPEC}" OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc STREQUAL EXPECT)
  message(FATAL_ERROR "${EXE} ${SPEC} exited with ${rc}, expected ${EXPECT}\n${out}${err}")
endif()
message(STATUS "${SPEC}: exit ${rc}, as expected")
