# lab02's kernel with an int element index: past 2^31 the index turns negative, compares as a
# huge size_t and the loop ends, so bytes past 2^31 are never counted. Only the [large] tests
# have inputs that long (in the simulator too: their memset runs share pages).
set(LAB lab02)
set(LARGE ON)
set(FIND [=[  for (size_t i = grid_stride_start(blockIdx.x, blockDim.x, threadIdx.x); i < n; i += step) {]=])
set(REPLACE [=[  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {]=])
set(TESTS "histogram_interleaved counts inputs past 2^31 bytes")
set(EXPECT "n is past 2\\^31")
set(GPU_EXPECT "n is past 2\\^31")
