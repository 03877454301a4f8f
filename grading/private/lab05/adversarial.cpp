// A private test of lab05 (see ../README.md): compiled into the lab's graders when this folder
// is present, never part of the student repository. An example to adapt: every lab05 kernel
// that must be exact, on one value repeated (every byte of a thread's packed counters lands on
// the same 8-bit counter) at sizes around one block's budget of kMaxPerThread elements per
// thread, where one element too many wraps a counter to zero.
#include "lab05.h"

#include "histo/catch_support.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace lab05;

TEST_CASE("private: lab05 kernels at the 255-element budget on one repeated value",
          "[gpu][private]") {
  const size_t budget = size_t(kBlockSize) * kMaxPerThread;  // one block's worth, 16320 bytes
  histo::check_byte_cases(
      variants(),
      {budget - 1, budget, budget + 1, 2 * budget + 63, 7 * budget - 1, 16 * budget + 5},
      {1, 3, 15},
      {histo::Dataset::degenerate, histo::Dataset::alternating});
}
