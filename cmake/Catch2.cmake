# Catch2 v3 (>= 3.4): an installed package first, then a download for users with internet.
find_package(Catch2 3.4 CONFIG QUIET)
if(Catch2_FOUND)
  message(STATUS "Catch2 ${Catch2_VERSION} (installed)")
elseif(HISTO_FETCH_CATCH2)
  message(STATUS "Catch2 3 not installed: fetching v3.7.1")
  include(FetchContent)
  FetchContent_Declare(Catch2
    GIT_REPOSITORY https://github.com/catchorg/Catch2.git
    GIT_TAG v3.7.1
    GIT_SHALLOW TRUE)
  FetchContent_MakeAvailable(Catch2)
else()
  message(FATAL_ERROR
    "Catch2 3.4 or newer was not found. Install it (Debian/Ubuntu: libcatch2-dev from a release "
    "that ships v3; macOS: brew install catch2) or configure with -DHISTO_FETCH_CATCH2=ON.")
endif()
