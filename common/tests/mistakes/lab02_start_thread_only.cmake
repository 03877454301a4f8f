# lab02 grid_stride_start returning threadIdx.x alone: every block starts at the same element
# and reads the same bytes, so a few bytes are counted once per block and the rest never.
set(LAB lab02)
set(FIND [=[  return size_t(block) * block_dim + thread;]=])
set(REPLACE [=[  return thread;]=])
set(TESTS "the grid-stride partition visits every index once, in coalesced rounds"
          "histogram_interleaved matches the CPU reference on every dataset")
set(EXPECT "some elements were counted twice \\(do thread ranges overlap")
set(FORBID "race" "head/tail" "head or tail" "the byte stored just outside the input")
