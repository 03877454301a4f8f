# lab02's interleaved kernel with four neighbouring bytes per thread and trip (to save loop
# overhead): right bins, but a warp's 32 loads now span four sectors.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab02)
set(FIND [=[  for (size_t i = grid_stride_start(blockIdx.x, blockDim.x, threadIdx.x); i < n; i += step) {
    // Still one global atomic per byte: the reads are cheap now, the atomics are not.
    atomicAdd(&d_bins[d_in[i]], 1u);
  }]=])
set(REPLACE [=[  for (size_t base = 4 * grid_stride_start(blockIdx.x, blockDim.x, threadIdx.x); base < n;
       base += 4 * step) {
    for (size_t i = base; i < base + 4 && i < n; ++i) atomicAdd(&d_bins[d_in[i]], 1u);
  }]=])
set(TESTS "cost: histogram_interleaved reads a warp's 32 bytes from one sector")
set(EXPECT "global load sectors per request = 4")
set(PASSES "histogram_interleaved matches the CPU reference on every dataset")
