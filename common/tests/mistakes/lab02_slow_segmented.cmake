# lab02's interleaved kernel written with lab01's segmented chunks: right bins, but each lane
# reads its own 32-byte sector. Correct and slow: the [perf] test must catch it.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab02)
set(FIND [=[  for (size_t i = grid_stride_start(blockIdx.x, blockDim.x, threadIdx.x); i < n; i += step) {]=])
set(REPLACE [=[  const size_t chunk = (n + step - 1) / step;
  const size_t begin = grid_stride_start(blockIdx.x, blockDim.x, threadIdx.x) * chunk;
  for (size_t i = begin; i < n && i < begin + chunk; ++i) {]=])
set(TESTS "cost: histogram_interleaved reads a warp's 32 bytes from one sector")
set(EXPECT "global load sectors per request = [1-9][0-9]* on" "segmented indexing")
set(PASSES "histogram_interleaved matches the CPU reference on every dataset")
