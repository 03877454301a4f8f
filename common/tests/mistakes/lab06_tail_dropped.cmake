# lab06's packed kernels without the tail: the 1 to 3 bytes after the last whole 32-bit word
# are never counted.
set(LAB lab06)
set(FIND [=[  if (tid < split.tail) atomicAdd(&d_bins[d_in[n - split.tail + tid]], 1u);]=])
set(REPLACE "")
set(TESTS "histogram_check matches the CPU reference on every dataset")
set(EXPECT "the tail, when n is not a multiple of the block or load width")
set(FORBID "use an atomic" "race" "8-bit")
