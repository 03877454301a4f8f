# lab05 count_into_column without zeroing its column: it counts on top of the 0xA5 bytes the
# simulator fills shared memory with. lab05 reads bytes one by one: no vector loads, no head or
# tail. Both the CPU replay of count_into_column and the kernel in the simulator say so.
set(LAB lab05)
set(FIND [=[  for (unsigned row = 0; row < kRows; ++row) s_packed[row * kBlockSize + column] = 0;]=])
set(REPLACE "")
set(TESTS "the packed kernel emulated on the CPU matches the reference"
          "histogram_packed matches the CPU reference on every dataset"
          "histogram_packed runs in order on the non-blocking stream it is given")
set(EXPECT "the column was not zeroed first" "column of packed counters was not zeroed")
set(FORBID "vector load" "head/tail" "head or tail")
