# lab04 merge_shared_bins stepping by 1 instead of blockDim.x: thread t merges bins t .. 255,
# so bin b is added to the output b + 1 times by each block.
set(LAB lab04)
set(FIND [=[  for (uint32_t b = threadIdx.x; b < count; b += blockDim.x) {
    const uint32_t count_b = s_bins[b];]=])
set(REPLACE [=[  for (uint32_t b = threadIdx.x; b < count; ++b) {
    const uint32_t count_b = s_bins[b];]=])
set(TESTS "histogram_shared matches the CPU reference on every dataset")
set(EXPECT "merged a bin into the output more than once")
set(FORBID "race" "head/tail" "head or tail" "8-bit" "output must be zeroed")
