# lab03's histogram64 with an unsigned element index: past 2^32 - 1 it wraps to a small value,
# still below an n past 2^32, so the loop starts over and never ends. Only the [large] test has
# an input that long; the simulator stops the launch once it has made twice as many atomic
# updates as the input has bytes (on a GPU it runs until the test's time limit).
set(LAB lab03)
set(LARGE ON)
set(FIND [=[  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
    // The 64-bit overload]=])
set(REPLACE [=[  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += unsigned(stride)) {
    // The 64-bit overload]=])
set(TESTS "histogram64 counts 2^32 + 2^20 + 3 bytes with one bin past 2^32")
set(EXPECT "an unsigned index \\(or stride\\) that passes 2\\^32 - 1")
set(GPU_HANGS "its loop never ends on a GPU (the simulator stops it)")
