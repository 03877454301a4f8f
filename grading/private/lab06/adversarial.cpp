// A private test of lab06 (see ../README.md): compiled into the lab's graders when this folder
// is present, never part of the student repository. An example to adapt: every lab06 kernel
// that must be exact, on one value repeated (the fastest way to fill an 8-bit counter) at sizes
// around a merge period of kWordsPerMerge words per thread, with heads and tails of 1 to 3
// bytes from the odd alignments, and inputs shorter than one word.
#include "lab06.h"

#include "histo/catch_support.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace lab06;

TEST_CASE("private: lab06 kernels around a merge period on one repeated value, odd alignments",
          "[gpu][private]") {
  const size_t period = kWordsPerMerge * kBytesPerWord * kBlockSize;  // one block, one period
  histo::check_byte_cases(
      variants(),
      {1, 3, 5, period - 1, period + 3, 2 * period + 1, 5 * period - 2, 33 * period + 7},
      {1, 2, 3, 14},
      {histo::Dataset::degenerate, histo::Dataset::runs});
}
