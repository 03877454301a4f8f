# lab04's 16-byte kernel without its tail: the bytes after the last whole vector (n - head not
# a multiple of 16) are never counted.
set(LAB lab04)
set(FIND [=[  if (thread < split.tail) atomicAdd(&s_bins[d_in[n - split.tail + thread]], 1u);]=])
set(REPLACE "")
set(TESTS "histogram_shared_vec16 matches the CPU reference on every dataset"
          "every byte kernel counts short inputs at every alignment")
# Either cause names the dropped bytes; which one the first wrong case gives depends on the
# seed's inputs where no access trace refines it (a GCC build).
set(EXPECT "the tail, when n is not a multiple of the block or load width|all of it is head or tail \\(bytes counted one by one\\): are those counted")
set(FORBID "race" "8-bit")
