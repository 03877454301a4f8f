# lab05 merge_row adding whole packed words over the 64 columns instead of 16-bit pairs: a
# byte's sum passes 255 and carries into the next byte. The mechanism is a wrapped 8-bit count;
# the fix is split_pairs in the merge, not the grid budget.
set(LAB lab05)
set(FIND [=[  PairSums sums{0, 0};
  for (unsigned step = 0; step < kBlockSize; ++step) {
    // Rotated column: at each step the warp's 32 threads read 32 different banks. Reading column
    // `step` for everyone would put all 32 reads in bank step % 32, a 32-way conflict.
    const PairSums pair = split_pairs(s_packed[row * kBlockSize + merge_column(step, row)]);
    sums.even += pair.even;  // 64 x 255 = 16320: the 16-bit halves never carry into each other
    sums.odd += pair.odd;
  }
  RowCounts counts;
  for (unsigned byte = 0; byte < kCountersPerWord; ++byte) counts.count[byte] = unpack(sums, byte);]=])
set(REPLACE [=[  uint32_t sum = 0;
  for (unsigned step = 0; step < kBlockSize; ++step)
    sum += s_packed[row * kBlockSize + merge_column(step, row)];
  RowCounts counts;
  for (unsigned byte = 0; byte < kCountersPerWord; ++byte)
    counts.count[byte] = (sum >> (8 * byte)) & 0xFFu;]=])
set(TESTS "the packed kernel emulated on the CPU matches the reference"
          "histogram_packed survives inputs built to overflow an 8-bit counter")
set(EXPECT "split_pairs" "merge_row\\(row [0-9]+\\) of block [0-9]+ gives")
set(FORBID "keep every thread within the 255-count budget" "use an atomic")
