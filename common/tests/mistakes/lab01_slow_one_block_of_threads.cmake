# lab01's segmented kernel dividing the input among one block's threads (blockDim.x, as if a
# block were the whole GPU) instead of the grid's: the bins are right, since threads past
# block 0 get empty segments, but block 0 reads all of the input on one SM while the rest wait.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab01)
set(FIND [=[  const size_t num_threads = size_t(gridDim.x) * blockDim.x;]=])
set(REPLACE [=[  const size_t num_threads = blockDim.x;]=])
set(TESTS "cost: histogram_segmented keeps every SM reading")
set(EXPECT "SMs whose blocks read the input = 1 on" "num_threads is blockDim.x")
set(FORBID "blocks launched = [0-9.]+ on")
set(PASSES "histogram_segmented matches the CPU reference on every dataset"
           "histogram_segmented runs in order on the non-blocking stream it is given"
           "the segmented partition counts every element once, emulated on the CPU")
