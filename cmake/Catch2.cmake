# Catch2 v3 (>= 3.4): an installed package first, then a download for users with internet. Where
# neither works, HISTO_CATCH2_MISSING says in one sentence what to install: the top CMakeLists.txt
# stops with it (no download's error, no call stack).
set(HISTO_CATCH2_INSTALL "install it (Debian/Ubuntu: sudo apt-get install libcatch2-dev, from a "
    "release that ships v3, or scripts/install_tools.sh, or on macOS brew install catch2), then "
    "configure again")
string(CONCAT HISTO_CATCH2_INSTALL ${HISTO_CATCH2_INSTALL})
set(HISTO_CATCH2_MISSING "")
find_package(Catch2 3.4 CONFIG QUIET)
if(Catch2_FOUND)
  message(STATUS "Catch2 ${Catch2_VERSION} (installed)")
elseif(HISTO_FETCH_CATCH2)
  set(catch2_url https://github.com/catchorg/Catch2.git)
  find_package(Git QUIET)
  if(DEFINED FETCHCONTENT_SOURCE_DIR_CATCH2 OR FETCHCONTENT_FULLY_DISCONNECTED)
    # A source folder given, or a download that is not to happen: nothing to ask the network.
  elseif(NOT GIT_FOUND)
    set(HISTO_CATCH2_MISSING "Catch2 3.4 or newer is not installed, and git (to download it) is "
        "not either: ${HISTO_CATCH2_INSTALL}")
  else()
    # FetchContent fails deep in a sub-build where there is no network: ask first, briefly.
    execute_process(COMMAND ${GIT_EXECUTABLE} ls-remote --exit-code ${catch2_url} v3.7.1
      RESULT_VARIABLE reachable OUTPUT_QUIET ERROR_QUIET TIMEOUT 30)
    if(NOT reachable EQUAL 0)
      set(HISTO_CATCH2_MISSING "Catch2 3.4 or newer is not installed, and it cannot be downloaded "
          "here (no network?): ${HISTO_CATCH2_INSTALL}")
    endif()
  endif()
  if(NOT HISTO_CATCH2_MISSING)
    message(STATUS "Catch2 3 not installed: fetching v3.7.1")
    include(FetchContent)
    FetchContent_Declare(Catch2
      GIT_REPOSITORY ${catch2_url}
      GIT_TAG v3.7.1
      GIT_SHALLOW TRUE)
    FetchContent_MakeAvailable(Catch2)
  endif()
else()
  set(HISTO_CATCH2_MISSING "Catch2 3.4 or newer was not found: ${HISTO_CATCH2_INSTALL} (or "
      "configure with -DHISTO_FETCH_CATCH2=ON to download it)")
endif()
string(CONCAT HISTO_CATCH2_MISSING ${HISTO_CATCH2_MISSING})
