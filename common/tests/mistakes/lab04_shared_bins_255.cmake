# lab04 histogram_shared with 255 shared bins (the largest byte value taken for the count):
# bin 255 is never zeroed nor merged, and its adds land past the array.
set(LAB lab04)
set(FIND [=[  __shared__ uint32_t s_bins[histo::kNumBins];
  zero_shared_bins(s_bins, histo::kNumBins);
  // Barrier: every counter must be zero before any thread of the block adds to it (a thread]=])
set(REPLACE [=[  __shared__ uint32_t s_bins[255];
  zero_shared_bins(s_bins, 255);
  // Barrier: every counter must be zero before any thread of the block adds to it (a thread]=])
set(FIND_2 [=[  merge_shared_bins(s_bins, histo::kNumBins, d_bins);
  // SOLUTION(lab04) end
}

// ---- 16-byte loads]=])
set(REPLACE_2 [=[  merge_shared_bins(s_bins, 255, d_bins);
  // SOLUTION(lab04) end
}

// ---- 16-byte loads]=])
set(TESTS "histogram_shared matches the CPU reference on every dataset")
set(EXPECT "no thread of the block wrote since the block began|shared bins were not all zeroed")
set(FORBID "race" "head/tail" "head or tail" "8-bit")
set(NEEDS_TRACE ON)  # the cause it must name comes from the access trace (hazard checks)
