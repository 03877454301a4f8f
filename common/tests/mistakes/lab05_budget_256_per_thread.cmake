# lab05 packed_grid_size sized for 256 elements per thread instead of 255: a thread that sees
# 256 copies of one value drives its 8-bit counter from 255 to 0.
set(LAB lab05)
set(FIND [=[  return static_cast<unsigned>(histo::ceil_div(n, size_t(kBlockSize) * kMaxPerThread));]=])
set(REPLACE [=[  return static_cast<unsigned>(histo::ceil_div(n, size_t(kBlockSize) * 256));]=])
set(TESTS "packed_grid_size keeps every thread within 255 elements for any n below 2^32"
          "histogram_packed survives inputs built to overflow an 8-bit counter")
set(EXPECT "the busiest thread sees 256 elements|255-count budget|8-bit budget")
set(FORBID "vector load" "head/tail" "head or tail" "race")
