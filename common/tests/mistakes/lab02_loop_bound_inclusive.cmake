# lab02's kernel looping while i <= n: the thread whose index reaches n reads the byte just
# past the input and counts it.
set(LAB lab02)
set(FIND [=[  for (size_t i = grid_stride_start(blockIdx.x, blockDim.x, threadIdx.x); i < n; i += step) {]=])
set(REPLACE [=[  for (size_t i = grid_stride_start(blockIdx.x, blockDim.x, threadIdx.x); i <= n; i += step) {]=])
set(TESTS "histogram_interleaved matches the CPU reference on every dataset")
set(EXPECT "the byte stored just outside the input, a value the input does not hold\\) gained some"
           "a loop bound past n")
set(FORBID "race" "head/tail" "head or tail")
