# lab01 segmented_grid_size rounding down (n / (kBlockSize x kElementsPerThread)): an input
# shorter than one block's 65536 bytes gets no block at all, and a longer one too few threads
# for kElementsPerThread bytes each.
set(LAB lab01)
set(FIND [=[  const size_t threads = histo::ceil_div(n, kElementsPerThread);
  return static_cast<unsigned>(histo::ceil_div(threads, kBlockSize));]=])
set(REPLACE [=[  return static_cast<unsigned>(n / (kElementsPerThread * kBlockSize));]=])
set(TESTS "segmented_grid_size launches just enough threads"
          "histogram_segmented matches the CPU reference on every dataset")
set(EXPECT "REQUIRE\\( grid >= 1 \\)")
set(FORBID "race" "head/tail" "head or tail")
