# lab05's merge done by thread 0 alone, as a CPU's main thread adds up its workers' private
# histograms: the same sums, but one thread reads all 64 x 64 words one at a time while the
# block's other 63 threads wait, 32 times the shared instructions of a merge by whole warps.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab05)
set(FIND [=[  const unsigned row = threadIdx.x;
  const RowCounts counts = merge_row(s_packed, row);
  for (unsigned byte = 0; byte < kCountersPerWord; ++byte) {
    // Other blocks add to the same bins: atomic. Empty bins cost nothing.
    if (counts.count[byte]) atomicAdd(&d_bins[row * kCountersPerWord + byte], counts.count[byte]);
  }]=])
set(REPLACE [=[  if (threadIdx.x != 0) return;
  for (unsigned row = 0; row < kRows; ++row) {
    const RowCounts counts = merge_row(s_packed, row);
    for (unsigned byte = 0; byte < kCountersPerWord; ++byte) {
      // Other blocks add to the same bins: atomic. Empty bins cost nothing.
      if (counts.count[byte]) atomicAdd(&d_bins[row * kCountersPerWord + byte], counts.count[byte]);
    }
  }]=])
set(TESTS "cost: histogram_packed merges a row in each of its 64 threads")
set(EXPECT "shared load and store instructions per 64 input bytes = [0-9.]+ on" "thread 0")
set(PASSES "histogram_packed matches the CPU reference on every dataset"
           "the packed kernel emulated on the CPU matches the reference"
           "cost: histogram_packed counts without bank conflicts")
