// A private test of lab03 (see ../README.md): compiled into the lab's graders when this folder
// is present, never part of the student repository. An example to adapt: every lab03 kernel
// that must be exact, on sizes that leave the last warp partly full (warp aggregation must mask
// the missing lanes out) and on inputs that put a whole warp in one group or in two.
#include "lab03.h"

#include "histo/catch_support.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace lab03;

TEST_CASE("private: lab03 kernels on partial warps and one- or two-group warps, odd alignments",
          "[gpu][private]") {
  const size_t warp = kWarpSize, block = kBlockSize;
  histo::check_byte_cases(
      variants(),
      {warp - 1, warp + 1, 3 * warp + 17, block - 1, block + 1, 40 * block + 7, 99991},
      {1, 5, 11, 15},
      // One value (one group per warp), two values taking turns (two groups), text.
      {histo::Dataset::degenerate, histo::Dataset::alternating, histo::Dataset::text});
}
