# lab05's merge reading column `step` for every thread instead of merge_column(step, row): the
# same sums, but the warp's 32 reads of a step fall in one bank.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab05)
set(FIND [=[    const PairSums pair = split_pairs(s_packed[row * kBlockSize + merge_column(step, row)]);]=])
set(REPLACE [=[    const PairSums pair = split_pairs(s_packed[row * kBlockSize + step]);]=])
set(TESTS "cost: histogram_packed counts without bank conflicts")
set(EXPECT "shared bank conflicts per shared load or store wavefront = 0\\.[1-9]")
set(PASSES "histogram_packed matches the CPU reference on every dataset")
