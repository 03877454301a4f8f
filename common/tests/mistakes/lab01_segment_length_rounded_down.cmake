# lab01 segment_bounds with the segment length rounded down (n / num_threads): the segments
# cover only num_threads x floor(n / num_threads) elements, and the last n % num_threads bytes
# are never counted (every byte, when n < num_threads).
set(LAB lab01)
set(FIND [=[  const size_t length = (n + num_threads - 1) / num_threads;]=])
set(REPLACE [=[  const size_t length = n / num_threads;]=])
set(TESTS "segment_bounds covers 0..n with contiguous non-overlapping segments"
          "histogram_segmented matches the CPU reference on every dataset")
set(EXPECT "elements up to n are never counted")
set(FORBID "race" "atomic" "head/tail" "head or tail")
