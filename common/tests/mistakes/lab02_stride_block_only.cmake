# lab02 grid_stride_step returning blockDim.x instead of gridDim.x x blockDim.x: every block
# walks the whole input, so with g blocks each byte is counted g times.
set(LAB lab02)
set(FIND [=[  return size_t(grid) * block_dim;]=])
set(REPLACE [=[  return block_dim;]=])
set(TESTS "the grid-stride partition visits every index once, in coalesced rounds"
          "histogram_interleaved matches the CPU reference on every dataset")
set(EXPECT "some elements were counted twice \\(do thread ranges overlap")
set(FORBID "race" "head/tail" "head or tail" "the byte stored just outside the input")
