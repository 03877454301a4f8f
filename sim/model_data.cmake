# The H200 cost model's data, read at configure time from the committed files in sim/data/ and
# written as C++ headers into the build folder: the files are the only home of these numbers.
#   sim/data/h200_calibration.json  bench/calibrate.cu's run on an H200, committed by
#                                   sim/tests/gpu_validation.py apply: the model's constants
#                                   (sim/src/gpus.cpp includes histo_sim/h200_calibration.hpp)
#   sim/data/technique_goals.csv    the solutions' GB/s that the model predicts for 1 GiB, one
#                                   row per [perf] test's (kernel, dataset), written by
#                                   sim/tests/technique_goals.py --write (common/src/perf.cpp
#                                   includes histo/technique_goals.inc)
# A missing or malformed entry stops the configure step with the file and the key or line.
# Changing either file configures again.
set(histo_model_data_dir ${CMAKE_CURRENT_LIST_DIR}/data)
set(histo_model_generated_dir ${PROJECT_BINARY_DIR}/generated/model_data)

# The calibration keys the model uses, each a JSON number; the header names them as the JSON does.
set(histo_h200_calibration_keys
  launch_after_memset_us dram_read_gbps load_request_ns shared_load_latency_ns
  load_sectors_per_sm_per_s atomic_one_sector_per_s atomic_region_1k_per_s atomic_spread_per_s
  shared_wavefronts_per_sm_per_s shared_atomic_wavefronts_per_sm_per_s
  l2_read_gbps l2_load_request_ns l2_resident_bytes
  store_sectors_per_sm_per_s store_lines_per_sm_per_s constant_words_per_sm_per_s
  atomic_inc_exch_one_address_per_s)

# histo_model_data_file(<var> <name> <text>...): the path of a data
# file of sim/data/ in <var>; the configure runs again when it changes, and stops where it is
# missing, saying <text> (what it holds and what writes it).
function(histo_model_data_file var name)
  string(JOIN "" what ${ARGN})
  set(file ${histo_model_data_dir}/${name})
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
  if(NOT EXISTS ${file})
    message(FATAL_ERROR "${file} is missing: ${what}")
  endif()
  set(${var} ${file} PARENT_SCOPE)
endfunction()

function(histo_h200_calibration_header)
  histo_model_data_file(file h200_calibration.json "the H200 cost model's constants come from it "
                        "(sim/tests/gpu_validation.py apply writes it from an H200 run)")
  file(READ ${file} json)
  string(JSON gpu ERROR_VARIABLE error GET "${json}" gpu)
  if(error)
    message(FATAL_ERROR "${file}: not a calibration of a GPU (key \"gpu\"): ${error}")
  endif()
  set(lines "")
  foreach(key IN LISTS histo_h200_calibration_keys)
    string(JSON type ERROR_VARIABLE error TYPE "${json}" ${key})
    if(error)
      message(FATAL_ERROR "${file}: key \"${key}\" is missing (${error}); measure it with "
                          "bench/calibrate.cu on an H200 and apply the run (sim/tests/gpu_validation.py apply)")
    endif()
    string(JSON value GET "${json}" ${key})
    if(NOT type STREQUAL "NUMBER" OR NOT value MATCHES "^-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$")
      message(FATAL_ERROR "${file}: key \"${key}\" is \"${value}\" (${type}), not a number")
    endif()
    string(APPEND lines "constexpr double ${key} = ${value};\n")
  endforeach()
  file(CONFIGURE OUTPUT ${histo_model_generated_dir}/histo_sim/h200_calibration.hpp CONTENT
"// Generated at configure time from sim/data/h200_calibration.json (${gpu}) by
// sim/model_data.cmake: edit that file, not this one.
#pragma once

namespace histo_sim::h200_calibration {
${lines}}  // namespace histo_sim::h200_calibration
" @ONLY)
endfunction()

function(histo_technique_goals_include)
  histo_model_data_file(file technique_goals.csv "the [perf] tests' technique goals come from it "
                        "(sim/tests/technique_goals.py HISTO_BENCH --write writes it)")
  file(STRINGS ${file} rows)
  list(POP_FRONT rows header)
  if(NOT header STREQUAL "kernel,dataset,gbps")
    message(FATAL_ERROR "${file}: the first line is \"${header}\", not \"kernel,dataset,gbps\"")
  endif()
  set(lines "")
  set(number 1)
  foreach(row IN LISTS rows)
    math(EXPR number "${number} + 1")
    if(NOT row MATCHES "^(lab[0-9][0-9]/[A-Za-z0-9_]+),([a-z_]+),([0-9]+(\\.[0-9]+)?)$")
      message(FATAL_ERROR "${file}, line ${number}: \"${row}\" is not kernel,dataset,gbps "
                          "(e.g. lab04/shared,uniform,730.2)")
    endif()
    string(APPEND lines "{\"${CMAKE_MATCH_1}\", \"${CMAKE_MATCH_2}\", ${CMAKE_MATCH_3}},\n")
  endforeach()
  file(CONFIGURE OUTPUT ${histo_model_generated_dir}/histo/technique_goals.inc CONTENT
"// Generated at configure time from sim/data/technique_goals.csv by sim/model_data.cmake: edit
// that file (sim/tests/technique_goals.py --write), not this one. One {kernel, dataset, GB/s}
// per line.
${lines}" @ONLY)
endfunction()
