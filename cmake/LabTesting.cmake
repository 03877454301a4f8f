# How a lab is built and graded.
#
# histo_add_lab(LAB lab01 SOURCE lab01_naive.cu [SHARED files...] [PROBES])
#   Builds the lab twice when solutions are on: the student source in this folder and its twin
#   under solutions/<folder>/. Each side gets a library (labNN_student / labNN_solution) and a
#   grader executable built from grader.cpp; every Catch2 test case becomes one CTest test named
#   "labNN.<side>: <test case>" with labels labNN, <side> and cpu or gpu (from its [cpu] or
#   [gpu] tag). With HISTO_SIM the same sources are built for the CPU simulator as well
#   (labNN_<side>_sim_grader): each [gpu] case becomes "labNN.<side>.sim: <test case>",
#   labelled sim, never gpu. With solutions on, "labNN.integrity" proves the skeleton fails its
#   grader, on the GPU and in the simulator (the solution's own tests prove it passes). PROBES: the lab also
#   exports read-only probes (labNN::probes()).
#   Private tests: every grading/private/labNN/*.cpp (extra Catch2 test cases that instructors
#   keep out of the student repository, see grading/private/README.md) is compiled into each of
#   the lab's graders, both sides, GPU and simulator; its cases become CTest tests like the
#   others (label `private` for those tagged [private]).

set(HISTO_DISCOVER_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/CatchDiscover.cmake)
set(HISTO_INTEGRITY_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/CheckSkeleton.cmake)
# A hung kernel must fail its test rather than hang the suite.
set(HISTO_TEST_TIMEOUT 300 CACHE STRING "Seconds before a grader test is killed")

# Registers every test case of a Catch2 executable with CTest, once it is built. mode gpu: [cpu]
# and [gpu] cases as "<prefix>: <case>". mode sim (a simulator build of the same tests): [gpu]
# cases as "<prefix>.sim: <case>" labelled sim; its [cpu] cases only when there is no GPU build
# to register them.
function(histo_add_catch_tests target prefix labels mode)
  if(mode STREQUAL "sim" AND HISTO_GPU)
    set(with_cpu OFF)
  else()
    set(with_cpu ON)
  endif()
  set(ctest_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake)
  string(REPLACE ";" "," label_arg "${labels}")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND}
      -D EXE=$<TARGET_FILE:${target}>
      -D OUT=${ctest_file}
      -D PREFIX=${prefix}
      -D LABELS=${label_arg}
      -D TIMEOUT=${HISTO_TEST_TIMEOUT}
      -D MODE=${mode}
      -D WITH_CPU=${with_cpu}
      -D TIER=${HISTO_CHECK_TIER}
      -P ${HISTO_DISCOVER_SCRIPT}
    BYPRODUCTS ${ctest_file}
    VERBATIM)
  # Until the target is built, its tests show up as one failing "<target>_NOT_BUILT" test.
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_include.cmake)
  file(WRITE ${include_file}
    "if(EXISTS \"${ctest_file}\")\n"
    "  include(\"${ctest_file}\")\n"
    "else()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()

function(histo_add_lab)
  cmake_parse_arguments(ARG "PROBES" "LAB;SOURCE" "SHARED" ${ARGN})
  # The benchmark's registry is generated from this list (bench/CMakeLists.txt): a lab that
  # exists is benchmarked, with nothing listed by hand.
  set_property(GLOBAL APPEND PROPERTY HISTO_LABS ${ARG_LAB})
  if(ARG_PROBES)
    set_property(GLOBAL APPEND PROPERTY HISTO_PROBE_LABS ${ARG_LAB})
  endif()
  get_filename_component(folder ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  # Where the lab lives, for targets built from its files elsewhere (common/tests/mistakes).
  set(shared_abs "")
  foreach(file IN LISTS ARG_SHARED)
    get_filename_component(abs ${file} ABSOLUTE)
    list(APPEND shared_abs ${abs})
  endforeach()
  set_property(GLOBAL PROPERTY HISTO_${ARG_LAB}_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  set_property(GLOBAL PROPERTY HISTO_${ARG_LAB}_SOLUTION
               ${PROJECT_SOURCE_DIR}/solutions/${folder}/${ARG_SOURCE})
  set_property(GLOBAL PROPERTY HISTO_${ARG_LAB}_SHARED ${shared_abs})
  set(sides student)
  set(student_src ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_SOURCE})
  if(HISTO_BUILD_SOLUTIONS)
    list(APPEND sides solution)
    set(solution_src ${PROJECT_SOURCE_DIR}/solutions/${folder}/${ARG_SOURCE})
    if(NOT EXISTS ${solution_src})
      message(FATAL_ERROR "${ARG_LAB}: HISTO_BUILD_SOLUTIONS is on but ${solution_src} is missing")
    endif()
  endif()
  # CONFIGURE_DEPENDS: a private test file added or removed reconfigures on the next build.
  file(GLOB private_tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/grading/private/${ARG_LAB}/*.cpp)
  if(private_tests)
    list(LENGTH private_tests n_private)
    message(STATUS "${ARG_LAB}: ${n_private} private test file(s) from grading/private/${ARG_LAB}/ "
                   "compiled into its graders")
  endif()
  # grader.cpp and the private tests are the same for both sides and for every mistake made on
  # the lab: compiled once per engine (object libraries), linked into each of those graders.
  set(private_objects "")
  set(private_sim_objects "")
  foreach(engine IN ITEMS gpu sim)
    if(engine STREQUAL "gpu")
      set(objects ${ARG_LAB}_grader_objects)
      set(course histo_grading histo_common Catch2::Catch2)
      if(NOT HISTO_GPU)
        continue()
      endif()
    else()
      set(objects ${ARG_LAB}_grader_sim_objects)
      set(course histo_grading_sim histo_common_sim histo_sim Catch2::Catch2)
      if(NOT HISTO_SIM)
        continue()
      endif()
    endif()
    add_library(${objects} OBJECT ${CMAKE_CURRENT_SOURCE_DIR}/grader.cpp)
    if(private_tests)
      add_library(${objects}_private OBJECT ${private_tests})
    endif()
    foreach(target IN ITEMS ${objects} ${objects}_private)
      if(TARGET ${target})
        target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
        target_link_libraries(${target} PRIVATE ${course})
      endif()
    endforeach()
    if(private_tests)
      if(engine STREQUAL "gpu")
        set(private_objects $<TARGET_OBJECTS:${objects}_private>)
      else()
        set(private_sim_objects $<TARGET_OBJECTS:${objects}_private>)
      endif()
    endif()
  endforeach()
  foreach(side IN LISTS sides)
    if(HISTO_GPU)
      set(lib ${ARG_LAB}_${side})
      add_library(${lib} STATIC ${${side}_src} ${ARG_SHARED})
      target_include_directories(${lib} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
      target_link_libraries(${lib} PUBLIC histo_common)
      set(grader ${ARG_LAB}_${side}_grader)
      if(HISTO_SPLIT_GRADERS)
        histo_add_split_grader(${grader} ${lib} ${ARG_LAB} gpu "${private_objects}" "${ARG_SHARED}")
      else()
        add_executable(${grader} $<TARGET_OBJECTS:${ARG_LAB}_grader_objects> ${private_objects})
        # The course's libraries before the lab's (here and for the simulator's grader): where
        # both define the same inline function or template instantiation, the linker keeps the
        # first, the course's. Every copy and memset goes through the runtime watch first
        # (common/src/runtime_watch.cpp).
        target_link_libraries(${grader} PRIVATE histo_grading histo_common Catch2::Catch2 ${lib}
                              histo_runtime_watch)
      endif()
      histo_add_catch_tests(${grader} "${ARG_LAB}.${side}" "${ARG_LAB};${side}" gpu)
      histo_add_sanitizer_tests(${grader} ${ARG_LAB} ${side})
    endif()
    if(HISTO_SIM)
      set(lib ${ARG_LAB}_${side}_sim)
      histo_sim_sources(sim_sources TARGET ${lib} ${${side}_src} ${ARG_SHARED})
      add_library(${lib} STATIC ${sim_sources})
      target_include_directories(${lib} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
      target_link_libraries(${lib} PUBLIC histo_common_sim)
      histo_sim_trace(${lib})
      set(grader ${ARG_LAB}_${side}_sim_grader)
      if(HISTO_SPLIT_GRADERS)
        histo_add_split_grader(${grader} ${lib} ${ARG_LAB} sim "${private_sim_objects}" "${ARG_SHARED}")
      else()
        add_executable(${grader} $<TARGET_OBJECTS:${ARG_LAB}_grader_sim_objects> ${private_sim_objects})
        target_link_libraries(${grader} PRIVATE histo_grading_sim histo_common_sim histo_sim
                              Catch2::Catch2 ${lib})
      endif()
      histo_add_catch_tests(${grader} "${ARG_LAB}.${side}" "${ARG_LAB};${side}" sim)
    endif()
  endforeach()
  if(HISTO_BUILD_SOLUTIONS)
    set(graders "")
    if(HISTO_GPU)
      list(APPEND graders "$<TARGET_FILE:${ARG_LAB}_student_grader>")
    endif()
    if(HISTO_SIM)
      list(APPEND graders "$<TARGET_FILE:${ARG_LAB}_student_sim_grader>")
    endif()
    string(REPLACE ";" "|" graders "${graders}")
    add_test(NAME ${ARG_LAB}.integrity
      COMMAND ${CMAKE_COMMAND}
        -D LAB=${ARG_LAB}
        -D GRADERS=${graders}
        -D STUDENT_SOURCE=${student_src}
        -D SOLUTION_SOURCE=${solution_src}
        -P ${HISTO_INTEGRITY_SCRIPT})
    set_tests_properties(${ARG_LAB}.integrity PROPERTIES
      LABELS "${ARG_LAB};integrity" RESOURCE_LOCK gpu TIMEOUT 1800)
  endif()
endfunction()

# HISTO_SPLIT_GRADERS (grade.py's build slots): each grader is two programs
# (grading/worker/remote.hpp). GRADER, the trusted side, holds the tests and never links the
# submission: every call it makes into the engine (the simulator, or the CUDA runtime on a GPU),
# the student-callable code or the lab is a stub generated by grading/worker/seams.py that sends
# it to GRADER_worker, which links LIB (the submission), the course's code and the engine, and
# which grade.py runs in the sandbox.
option(HISTO_SPLIT_GRADERS "Build each grader as a trusted program and a worker that runs the submission (grading)" OFF)
if(HISTO_SPLIT_GRADERS AND NOT EXISTS ${PROJECT_SOURCE_DIR}/grading/worker/seams.py)
  message(FATAL_ERROR "HISTO_SPLIT_GRADERS needs grading/worker/, which this tree does not have "
                      "(a student repository): configure with -DHISTO_SPLIT_GRADERS=OFF")
endif()
function(histo_add_split_grader grader lib lab engine private_objects shared)
  # The system's Python where there is one: the build slots' sandbox sees the system's folders.
  find_program(HISTO_SEAMS_PYTHON python3 PATHS /usr/bin /bin NO_DEFAULT_PATH)
  if(NOT HISTO_SEAMS_PYTHON)
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
    set(HISTO_SEAMS_PYTHON ${Python3_EXECUTABLE} CACHE FILEPATH "Python for grading/worker/seams.py")
  endif()
  find_package(Threads REQUIRED)
  set(worker_dir ${PROJECT_SOURCE_DIR}/grading/worker)
  if(engine STREQUAL "sim")
    set(suffix _sim)
    set(common histo_common_sim)
    set(grader_objects ${lab}_grader_sim_objects)
    # The engine: the simulator and the course's code built for it.
    set(engine_files $<TARGET_FILE:histo_sim> $<TARGET_FILE:histo_common_sim>)
    set(engine_targets histo_sim histo_common_sim)
    set(worker_libs ${lib} histo_common_sim histo_sim)
    set(c_api "")
  else()
    set(suffix "")
    set(common histo_common)
    set(grader_objects ${lab}_grader_objects)
    # The engine: the CUDA runtime, the course's code and the runtime watch (whose wrappers see
    # the worker's copies: common/src/runtime_watch.cpp). The runtime's functions are C's: their
    # parameters come from its header.
    set(engine_files $<TARGET_FILE:CUDA::cudart_static> $<TARGET_FILE:histo_common>
        $<TARGET_OBJECTS:histo_runtime_watch>)
    set(engine_targets histo_common histo_runtime_watch)
    set(worker_libs histo_common ${lib} histo_runtime_watch)
    find_file(HISTO_CUDA_RUNTIME_API cuda_runtime_api.h PATHS ${CUDAToolkit_INCLUDE_DIRS}
              NO_DEFAULT_PATH REQUIRED)
    set(c_api --c-header ${HISTO_CUDA_RUNTIME_API})
  endif()
  # The lab's registry is the trusted side's too (in the simulator, compiled without the
  # access trace).
  if(NOT TARGET ${lab}_registry_trusted${suffix})
    add_library(${lab}_registry_trusted${suffix} OBJECT ${shared})
    target_include_directories(${lab}_registry_trusted${suffix} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
    target_link_libraries(${lab}_registry_trusted${suffix} PRIVATE ${common})
  endif()
  set(trusted_objects $<TARGET_OBJECTS:${grader_objects}> ${private_objects}
      $<TARGET_OBJECTS:${lab}_registry_trusted${suffix}> $<TARGET_OBJECTS:histo_grading_trusted${suffix}>
      $<TARGET_OBJECTS:histo_remote_trusted${suffix}>)
  set(stubs ${CMAKE_CURRENT_BINARY_DIR}/${grader}_stubs.cpp)
  set(table ${CMAKE_CURRENT_BINARY_DIR}/${grader}_table.cpp)
  add_custom_command(OUTPUT ${stubs} ${table}
    COMMAND ${HISTO_SEAMS_PYTHON} ${worker_dir}/seams.py --lab ${lab} --header ${lab}.h
            --trusted ${trusted_objects} --engine ${engine_files} ${c_api}
            --stubs ${stubs} --table ${table}
    DEPENDS ${trusted_objects} ${worker_dir}/seams.py ${engine_targets}
    COMMENT "The seams of ${grader}"
    COMMAND_EXPAND_LISTS VERBATIM)
  foreach(part stubs table)
    add_library(${grader}_${part} OBJECT ${${part}})
    target_include_directories(${grader}_${part} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${worker_dir})
    target_link_libraries(${grader}_${part} PRIVATE ${common})
  endforeach()
  add_executable(${grader}_worker $<TARGET_OBJECTS:histo_remote_worker${suffix}>
                 $<TARGET_OBJECTS:${grader}_table>)
  target_link_libraries(${grader}_worker PRIVATE ${worker_libs})
  add_executable(${grader} ${trusted_objects} $<TARGET_OBJECTS:${grader}_stubs>)
  target_link_libraries(${grader} PRIVATE Catch2::Catch2 Threads::Threads)
  add_dependencies(${grader} ${grader}_worker)
endfunction()

# compute-sanitizer, when this machine has it: each grader then also gets racecheck and memcheck
# tests (label `sanitize`, small inputs, no [large] tests). The test presets leave them out;
# run them with `ctest --test-dir build/<preset> -L sanitize` on a machine with a GPU.
find_program(HISTO_COMPUTE_SANITIZER compute-sanitizer
  HINTS ${CUDAToolkit_BIN_DIR} ${CUDAToolkit_BIN_DIR}/../compute-sanitizer)
set(HISTO_SANITIZER_MAX_N 1048576 CACHE STRING "Largest grader input (bytes) under compute-sanitizer")

function(histo_add_sanitizer_tests grader lab side)
  if(NOT HISTO_COMPUTE_SANITIZER)
    return()
  endif()
  foreach(tool racecheck memcheck)
    set(name ${lab}.${side}.${tool})
    add_test(NAME ${name}
      COMMAND ${HISTO_COMPUTE_SANITIZER} --tool ${tool} --error-exitcode 99
              $<TARGET_FILE:${grader}> "[gpu]~[large]" --reporter console)
    # Catch2 exits 4 when every test was skipped (no GPU): reported as skipped, not passed.
    set_tests_properties(${name} PROPERTIES
      LABELS "${lab};${side};sanitize" RESOURCE_LOCK gpu SKIP_RETURN_CODE 4 TIMEOUT 1800
      ENVIRONMENT "HISTO_GRADER_MAX_N=${HISTO_SANITIZER_MAX_N}")
  endforeach()
endfunction()
