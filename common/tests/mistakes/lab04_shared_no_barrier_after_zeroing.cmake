# lab04 histogram_shared without the barrier between zeroing the shared bins and counting. In
# the simulator a block's threads take turns, so later threads zero bins the earlier ones
# counted into: the hazard check names that race (a zeroing write and a counting atomic with
# no barrier between), and the barrier is the cause (not the head or tail of vector loads:
# this kernel reads bytes one by one).
set(LAB lab04)
set(FIND [=[  zero_shared_bins(s_bins, histo::kNumBins);
  // Barrier: every counter must be zero before any thread of the block adds to it (a thread
  // could otherwise add to a bin that another thread zeroes afterwards).
  __syncthreads();]=])
set(REPLACE [=[  zero_shared_bins(s_bins, histo::kNumBins);]=])
set(TESTS "histogram_shared matches the CPU reference on every dataset")
set(EXPECT "shared-memory race|missing __syncthreads\\(\\) after zeroing" "__syncthreads\\(\\)"
  # the race names the shared variable and element, not only a byte offset
  "s_bins\\[[0-9]+\\] in histogram_shared_kernel \\(shared-memory byte [0-9]+, lab04_shared_privatized.cu:[0-9]+\\)")
set(FORBID "16-byte" "head or tail" "no race can lose")
set(GPU_RACECHECK ON)  # on a GPU the race may lose no count: racecheck must see it
set(NEEDS_TRACE ON)  # the cause it must name comes from the access trace (hazard checks)
