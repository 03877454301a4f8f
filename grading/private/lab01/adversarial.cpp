// A private test of lab01 (see ../README.md): compiled into the lab's graders when this folder
// is present, never part of the student repository. An example to adapt: every lab01 kernel
// that must be exact, on sizes at the edges of its partition (one thread's segment of
// kElementsPerThread bytes, one block's kBlockSize segments) at odd alignments.
#include "lab01.h"

#include "histo/catch_support.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace lab01;

TEST_CASE("private: lab01 kernels at segment and block edges, odd alignments", "[gpu][private]") {
  const size_t segment = kElementsPerThread, block = size_t(kBlockSize) * kElementsPerThread;
  histo::check_byte_cases(
      variants(),
      // A last thread with one byte, a last segment one short, a block plus one, three blocks
      // and a bit (the grid's last block mostly idle), and a prime.
      {segment - 1, segment + 1, 7 * segment + segment - 1, block - 1, block + 1, 3 * block + 17,
       262139},
      {1, 7, 13, 15},
      {histo::Dataset::degenerate, histo::Dataset::runs, histo::Dataset::uniform});
}
