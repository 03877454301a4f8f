// A private test of lab04 (see ../README.md): compiled into the lab's graders when this folder
// is present, never part of the student repository. An example to adapt: every lab04 kernel
// that must be exact, on inputs shorter than one 16-byte vector at every kind of misalignment
// (the head alone, or head and tail with no vector between), and around one block's trip of
// kVectorsPerThread vectors per thread, with runs that cross vector boundaries.
#include "lab04.h"

#include "histo/catch_support.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace lab04;

TEST_CASE("private: lab04 kernels on sub-vector inputs and around a block's trip, odd alignments",
          "[gpu][private]") {
  const size_t trip = kVectorBytes * kVectorsPerThread * kBlockSize;
  histo::check_byte_cases(
      variants(),
      {1, 2, 5, 15, 17, 31, kVectorBytes * 3 + 1, trip - 1, trip + 1, 2 * trip + kVectorBytes - 1},
      {1, 2, 3, 8, 13, 15},
      {histo::Dataset::runs, histo::Dataset::degenerate, histo::Dataset::image});
}
