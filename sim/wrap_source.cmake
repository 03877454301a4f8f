# Writes the host C++ wrapper that compiles one .cu file for the CPU simulator (cmake -P, run at
# build time by histo_sim_sources). Usually the wrapper only #includes the .cu file, so messages
# name the real file and line. A dynamic shared array declared the CUDA way,
#     extern __shared__ unsigned int privHist[];        (as in The CUDA Handbook's listings)
# has no host C++ meaning; inside a function the wrapper then holds the file's text with that
# line rewritten to the same array through the simulator's dynamic shared memory,
#     unsigned int* const privHist = ::histo::dynamic_shared<unsigned int>();
# and a #line directive first, so messages still name the real file and line. A form it cannot
# rewrite (at file scope, several names in one declaration) becomes an #error saying what to
# write instead. The wrapper file is rewritten only when its text changes.
foreach(var SOURCE WRAPPER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "wrap_source.cmake needs -D ${var}=...")
  endif()
endforeach()

set(header "// Generated: compiles ${SOURCE} for the CPU simulator.\n")
file(READ "${SOURCE}" text)
string(REGEX MATCH "\n[ \t]*extern[ \t]+__shared__[ \t]" found "\n${text}")
if(NOT found)
  set(content "${header}#include \"${SOURCE}\"\n")
else()
  # Line by line, keeping every line (and so every line number). CMake lists split at ';', so
  # those are escaped first, with the backslashes and brackets that would change the split.
  string(REPLACE "\\" "<backslash>" text "${text}")
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REPLACE "[" "<lbracket>" text "${text}")
  string(REPLACE "]" "<rbracket>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(out "")
  set(ident "[A-Za-z_][A-Za-z0-9_]*")
  set(instead "in the CPU simulator write T* name = histo::dynamic_shared<T>() inside the kernel")
  foreach(line IN LISTS lines)
    if(line MATCHES "^([ \t]*)extern[ \t]+__shared__[ \t]+(.*)$")
      set(indent "${CMAKE_MATCH_1}")
      set(decl "${CMAKE_MATCH_2}")
      # type name[] ; with an optional __align__(n) and a trailing // comment.
      string(REGEX REPLACE "__align__[ \t]*\\([^)]*\\)[ \t]*" "" decl "${decl}")
      if(indent STREQUAL "")
        set(line "#error \"extern __shared__ at file scope: ${instead} (histo/kernel_launch.cuh)\"")
      elseif(decl MATCHES "^(.*[^ \t])[ \t]+(${ident})[ \t]*<lbracket>[ \t]*<rbracket>[ \t]*<semicolon>(.*)$")
        set(line "${indent}${CMAKE_MATCH_1}* const ${CMAKE_MATCH_2} = ::histo::dynamic_shared<${CMAKE_MATCH_1}>()<semicolon>${CMAKE_MATCH_3}")
      else()
        set(line "#error \"this extern __shared__ declaration has no simulator form: ${instead}\"")
      endif()
    endif()
    list(APPEND out "${line}")
  endforeach()
  string(REPLACE ";" "\n" text "${out}")
  string(REPLACE "<semicolon>" ";" text "${text}")
  string(REPLACE "<lbracket>" "[" text "${text}")
  string(REPLACE "<rbracket>" "]" text "${text}")
  string(REPLACE "<backslash>" "\\" text "${text}")
  set(content "${header}#include \"histo/kernel_launch.cuh\"\n#line 1 \"${SOURCE}\"\n${text}")
endif()

if(EXISTS "${WRAPPER}")
  file(READ "${WRAPPER}" old)
  if(old STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${WRAPPER}" "${content}")
