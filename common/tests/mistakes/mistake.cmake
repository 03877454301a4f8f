# One realistic mistake made on purpose on a lab's solution (cmake -P). MISTAKE names a file
# that sets:
#   LAB      the lab (lab04)
#   FIND     text of the solution's .cu that occurs exactly once, and REPLACE, what the mistake
#            puts there instead
#   FIND_2, REPLACE_2  optionally a second change of the same mistake
#   TESTS    the names of the grader's test cases to run
#   EXPECT   regular expressions the graders' output must match: the right likely cause
#   FORBID   regular expressions it must not match: causes this kernel cannot have
#   PASSES   optionally, test cases that must still pass: a correct but slow kernel (its
#            TESTS are then the [perf] tests it must fail)
#   NEEDS_TRACE  ON where only the simulator's access trace (a Clang build) catches it
#   LARGE        ON where only the [large] tests (inputs of gigabytes) catch it: label large
#   GPU_HANGS    why its kernel never ends on a GPU: not run there (skipped, saying why)
#   GPU_TESTS, GPU_EXPECT, GPU_FORBID  what the GPU grader runs and must and must not say;
#            by default TESTS, and only failure is required (the simulator's hazard sentences
#            and its 0xA5 fill are absent on a GPU)
#   GPU_MAY_PASS   why a GPU's run may come out right by chance (memory it never zeroes that
#            happens to hold zeros): where the GPU grader passes it, the test says skipped, why
#   NVCC_REJECTS   a regular expression of nvcc's error, where nvcc does not compile the mistake
#            at all (a device intrinsic in host code): a GPU build checks that nvcc refuses it, and
#            the simulator's build of it leaves out its nvcc pass (the simulator must catch it)
#   GPU_RACECHECK  ON for a race that a GPU's run may not lose a count to (a missing barrier):
#            where the GPU grader passes it, compute-sanitizer racecheck (-D SANITIZER=...) is
#            asked, on inputs up to 64 KiB; where it reports no hazard either (a store racing
#            an atomic is none to it), the run proves nothing and the test says skipped
# MODE apply: writes the solution SOLUTION with the mistake made into MUTATED.
# MODE check: runs GRADER (the simulator's grader built from MUTATED) on TESTS, which must FAIL
# (so the mistake is caught) and say what EXPECT says, and nothing that FORBID names. With
# -D ON_GPU=ON, GRADER is the GPU grader: GPU_TESTS must fail, saying GPU_EXPECT and nothing
# of GPU_FORBID; a grader that skipped every test (no usable GPU) reports "skipped:".
# -D SAVE=FILE also writes the grader's output there, and its Catch2 XML report to FILE.xml;
# -D SEED=N runs the grader with --rng-seed N.
foreach(var MODE MISTAKE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "mistake.cmake needs -D ${var}=...")
  endif()
endforeach()
include("${MISTAKE}")
get_filename_component(name "${MISTAKE}" NAME_WE)

if(MODE STREQUAL "apply")
  file(READ "${SOLUTION}" text)
  string(FIND "${text}" "${FIND}" first)
  string(FIND "${text}" "${FIND}" last REVERSE)
  if(first EQUAL -1 OR NOT first EQUAL last)
    message(FATAL_ERROR "${name}: its FIND text must occur exactly once in ${SOLUTION}, and it "
      "occurs ${first} / ${last} (the solution changed: update ${MISTAKE})")
  endif()
  string(REPLACE "${FIND}" "${REPLACE}" text "${text}")
  if(DEFINED FIND_2)
    string(FIND "${text}" "${FIND_2}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${name}: its FIND_2 text does not occur in ${SOLUTION}")
    endif()
    string(REPLACE "${FIND_2}" "${REPLACE_2}" text "${text}")
  endif()
  if(EXISTS "${MUTATED}")
    file(READ "${MUTATED}" old)
    if(old STREQUAL text)
      return()
    endif()
  endif()
  file(WRITE "${MUTATED}" "${text}")
  return()
endif()

if(ON_GPU)
  if(DEFINED GPU_TESTS)
    set(TESTS "${GPU_TESTS}")
  endif()
  set(EXPECT "${GPU_EXPECT}")
  set(FORBID "${GPU_FORBID}")
  unset(PASSES)
endif()
list(JOIN TESTS "," spec)
set(reporters --reporter console)
if(DEFINED SEED)  # one seed for every run (scripts/mistakes_table.py): the same cases each time
  list(APPEND reporters --rng-seed "${SEED}")
endif()
if(DEFINED SAVE)  # also Catch2's XML report, whose messages are not wrapped
  list(APPEND reporters --reporter "xml::out=${SAVE}.xml")
endif()
execute_process(COMMAND "${GRADER}" "${spec}" ${reporters}
  OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
string(REGEX MATCH "test cases:[^\n]*" summary "${out}")
if(DEFINED SAVE)  # the grader's output, for scripts/mistakes_table.py
  file(WRITE "${SAVE}" "${out}")
endif()
if(ON_GPU AND rc EQUAL 4)
  # Catch2's exit code when every test case it ran skipped (no usable GPU, say): nothing graded.
  string(REGEX REPLACE "[ \t\r\n]+" " " flat_out "${out}")
  string(REGEX MATCH "SKIPPED: explicitly with message: ([^=]*)" why "${flat_out}")
  message(STATUS "skipped: ${name}: the GPU grader skipped every test case it ran: "
    "${CMAKE_MATCH_1}\n${out}")
  return()
endif()
if(ON_GPU AND DEFINED GPU_MAY_PASS AND rc EQUAL 0)
  # What the mistake leaves to chance on a GPU came out right on this run: it proves nothing.
  message(STATUS "skipped: ${name}: the GPU grader passed it on this run: ${GPU_MAY_PASS}")
  return()
endif()
if(ON_GPU AND GPU_RACECHECK AND rc EQUAL 0)
  # The race lost no count on this run: the GPU's tool for races must see it.
  if(NOT SANITIZER)
    message(FATAL_ERROR "${name}: the GPU grader passed this race, and compute-sanitizer, which "
      "would find it, is not installed (-D SANITIZER=...)")
  endif()
  set(ENV{HISTO_GRADER_MAX_N} 65536)
  execute_process(COMMAND "${SANITIZER}" --tool racecheck --error-exitcode 86 --print-limit 3
                          "${GRADER}" "${spec}" --reporter console
    OUTPUT_VARIABLE race_out ERROR_VARIABLE race_out RESULT_VARIABLE race_rc)
  string(REGEX MATCH "RACECHECK SUMMARY: [1-9][0-9]* hazards?" race_summary "${race_out}")
  if(DEFINED SAVE)
    file(WRITE "${SAVE}" "${out}\n${race_out}")
  endif()
  if(race_rc EQUAL 86 AND race_summary)
    message(STATUS "${name}: the GPU grader passed it (the race lost no count on this run); "
      "compute-sanitizer racecheck caught it: ${race_summary}")
    return()
  endif()
  # A shared store racing an atomic is no racecheck hazard, and it loses counts on some runs
  # only: this run proves nothing either way (the simulator catches it every time).
  message(STATUS "skipped: ${name}: the GPU grader passed it on this run (the race lost no "
    "count) and compute-sanitizer racecheck reported no hazard (it exited ${race_rc})")
endif()
if(rc EQUAL 0 OR rc EQUAL 4 OR summary STREQUAL "")
  message(FATAL_ERROR "${name}: the mistake was not caught: the grader exited ${rc} on "
    "\"${spec}\" (${summary}); it must fail:\n${out}")
endif()
# Catch2 wraps messages at 80 columns: matched with every run of white space made one space.
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}")
set(problems "")
foreach(regex IN LISTS EXPECT)
  if(NOT flat MATCHES "${regex}")
    string(APPEND problems "\n  the output does not say \"${regex}\" (the right cause)")
  endif()
endforeach()
foreach(regex IN LISTS FORBID)
  if(flat MATCHES "${regex}")
    string(APPEND problems "\n  the output says \"${regex}\", a cause this kernel cannot have")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "${name}: caught, but the likely cause is wrong:${problems}\n"
    "Grader output:\n${out}")
endif()
if(DEFINED PASSES)
  list(JOIN PASSES "," pass_spec)
  execute_process(COMMAND "${GRADER}" "${pass_spec}" --reporter console
    OUTPUT_VARIABLE pass_out ERROR_VARIABLE pass_out RESULT_VARIABLE pass_rc)
  if(NOT pass_rc EQUAL 0)
    message(FATAL_ERROR "${name}: a correct but slow kernel must pass \"${pass_spec}\", and the "
      "grader exited ${pass_rc}:\n${pass_out}")
  endif()
endif()
message(STATUS "${name}: caught (${summary}), with the right likely cause")
