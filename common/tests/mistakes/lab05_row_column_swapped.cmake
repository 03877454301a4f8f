# lab05 count_into_column addressing word (column, row) instead of (row, column): each thread
# counts into its own row, which the merge reads as one value group's row over all threads.
set(LAB lab05)
set(FIND [=[    s_packed[packed_row(value) * kBlockSize + column] += packed_increment(value);]=])
set(REPLACE [=[    s_packed[column * kBlockSize + packed_row(value)] += packed_increment(value);]=])
set(TESTS "the packed kernel emulated on the CPU matches the reference"
          "histogram_packed matches the CPU reference on every dataset")
set(EXPECT "a thread writes only its own column")
set(FORBID "vector load" "head/tail" "head or tail")
