# lab04 histogram_shared without the barrier between counting and the merge: a thread merges
# bins that others have yet to count into. lab04 has no 8-bit packed counters, so a deficit
# that happens to be a multiple of 256 must not be called a wrapped counter.
set(LAB lab04)
set(FIND [=[  // Barrier: every thread's adds must have landed before the merge reads the counters.
  __syncthreads();
  merge_shared_bins(s_bins, histo::kNumBins, d_bins);
  // SOLUTION(lab04) end
}

// ---- 16-byte loads]=])
set(REPLACE [=[  merge_shared_bins(s_bins, histo::kNumBins, d_bins);
  // SOLUTION(lab04) end
}

// ---- 16-byte loads]=])
set(TESTS "histogram_shared runs in order on the non-blocking stream it is given"
          "histogram_shared matches the CPU reference on every dataset")
set(EXPECT "shared-memory race|counting not finished before the merge" "missing or misplaced __syncthreads\\(\\)"
  # the race names the shared variable and element, not only a byte offset
  "s_bins\\[[0-9]+\\] in histogram_shared_kernel \\(shared-memory byte [0-9]+, lab04_shared_privatized.cu:[0-9]+\\)")
set(FORBID "8-bit" "255-count budget" "no race can lose")
set(GPU_RACECHECK ON)  # on a GPU the race may lose no count: racecheck must see it
set(NEEDS_TRACE ON)  # the cause it must name comes from the access trace (hazard checks)
