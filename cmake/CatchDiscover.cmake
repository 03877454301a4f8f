# Run as a post-build step (cmake -P): lists a grader's test cases by tag and writes a CTest
# file with one test per case. Catch2 exits with 4 when every test it ran was skipped, which
# CTest then reports as skipped (not passed), whatever Catch2 version is installed. A test case
# that runs without a single assertion fails (--warn NoAssertions): every test must check something.
foreach(var EXE OUT PREFIX LABELS TIMEOUT MODE WITH_CPU)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CatchDiscover.cmake needs -D ${var}=...")
  endif()
endforeach()
string(REPLACE "," ";" labels "${LABELS}")

function(list_cases spec out_var)
  execute_process(COMMAND "${EXE}" "${spec}" --list-tests --verbosity quiet
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  # Catch2 returns the number of listed tests (or 0) here; a crash gives a text code.
  if(NOT rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "Listing the tests of ${EXE} failed: ${rc}\n${err}")
  endif()
  string(REPLACE "\n" ";" lines "${out}")
  set(cases "")
  foreach(line IN LISTS lines)
    string(STRIP "${line}" line)
    if(line STREQUAL "")
      continue()
    endif()
    list(APPEND cases "${line}")
  endforeach()
  set(${out_var} "${cases}" PARENT_SCOPE)
endfunction()

list_cases("[gpu]" gpu_cases)
list_cases("[cpu]" cpu_cases)
# Private tests (grading/private/) carry the tag [private]: labelled `private` as well.
list_cases("[private]" private_cases)
# Performance tests (the simulator's counters) carry the tag [perf]: labelled `perf` as well.
list_cases("[perf]" perf_cases)
# Tests on inputs of gigabytes carry the tag [large]: labelled `large` as well; on a GPU they
# take the GPU lock (below).
list_cases("[large]" large_cases)
list_cases("*" all_cases)
list(LENGTH all_cases total)
list(LENGTH gpu_cases n_gpu)
list(LENGTH cpu_cases n_cpu)
math(EXPR tagged "${n_gpu} + ${n_cpu}")
if(NOT tagged EQUAL total)
  message(FATAL_ERROR "${EXE}: every test case needs exactly one of the tags [cpu] or [gpu]")
endif()

set(content "# Generated from ${EXE}\n")
set(kinds gpu)
if(WITH_CPU)
  list(APPEND kinds cpu)
endif()
foreach(kind IN LISTS kinds)
  foreach(case IN LISTS ${kind}_cases)
    set(name "${PREFIX}: ${case}")
    set(label ${kind})
    if(kind STREQUAL "gpu" AND MODE STREQUAL "sim")
      # The kernel tests of a simulator build: labelled sim, never counted as GPU passes.
      set(name "${PREFIX}.sim: ${case}")
      set(label sim)
    endif()
    # As a Catch2 test spec, the name needs its commas and backslashes escaped.
    string(REPLACE "\\" "\\\\" spec "${case}")
    string(REPLACE "," "\\," spec "${spec}")
    set(case_labels "${labels};${label}")
    list(FIND private_cases "${case}" private_index)
    if(NOT private_index EQUAL -1)
      string(APPEND case_labels ";private")
    endif()
    list(FIND perf_cases "${case}" perf_index)
    if(NOT perf_index EQUAL -1)
      string(APPEND case_labels ";perf")
    endif()
    list(FIND large_cases "${case}" large_index)
    if(NOT large_index EQUAL -1)
      string(APPEND case_labels ";large")
      if(MODE STREQUAL "sim" AND TIER STREQUAL "quick")
        # Up to 45 s each in the simulator: the full tier's (the mistakes made on
        # purpose that only they catch stay in the quick tier, common/tests/mistakes).
        string(APPEND case_labels ";full")
      endif()
    endif()
    set(props "LABELS \"${case_labels}\" SKIP_RETURN_CODE 4 TIMEOUT ${TIMEOUT}")
    if(label STREQUAL "gpu" AND NOT large_index EQUAL -1)
      # GPU tests share the device, but one whose input fills gigabytes of it never overlaps
      # another such test, the integrity check, bench.smoke or a sanitizer run (their lock too).
      string(APPEND props " RESOURCE_LOCK gpu")
    endif()
    string(APPEND content
      "add_test([==[${name}]==] \"${EXE}\" [==[${spec}]==] --warn NoAssertions --reporter histo)\n"
      "set_tests_properties([==[${name}]==] PROPERTIES ${props})\n")
  endforeach()
endforeach()
file(WRITE "${OUT}" "${content}")
