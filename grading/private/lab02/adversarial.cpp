// A private test of lab02 (see ../README.md): compiled into the lab's graders when this folder
// is present, never part of the student repository. An example to adapt: every lab02 kernel
// that must be exact, on sizes around whole rounds of the grid-stride loop (a round is every
// thread of a grid of kBlocksPerSm blocks per SM reading one byte) at odd alignments.
#include "lab02.h"

#include "histo/catch_support.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace lab02;

TEST_CASE("private: lab02 kernels around whole grid-stride rounds, odd alignments",
          "[gpu][private]") {
  histo::require_gpu();
  const size_t round = size_t(histo::device_sm_count()) * kBlocksPerSm * kBlockSize;
  histo::check_byte_cases(
      variants(),
      // Less than a warp, less than one round, a round and one byte either side, several rounds
      // with a ragged last one.
      {31, 33, round / 2 + 1, round - 1, round + 1, 3 * round + 5},
      {1, 3, 9, 15},
      {histo::Dataset::degenerate, histo::Dataset::alternating, histo::Dataset::uniform});
}
