# lab05's merge reading column `step` for every thread instead of merge_column(step, row): the
# same sums, but the warp's 32 reads of a step fall in one bank. The failure names the merge's
# read as the line that holds the conflicts, and says how far the kernel is from the goal.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab05)
set(FIND [=[    const PairSums pair = split_pairs(s_packed[row * kBlockSize + merge_column(step, row)]);]=])
set(REPLACE [=[    const PairSums pair = split_pairs(s_packed[row * kBlockSize + step]);]=])
set(TESTS "cost: histogram_packed counts without bank conflicts")
# Catch2 wraps messages at 80 columns, also before ( and [ and after . and /: " ?" where it may.
set(EXPECT
  "shared bank conflicts per shared load or store wavefront = 0\\.[1-9]"
  "Where: lab05_per_thread_packed\\.cu: ?[0-9]+ \\(`const PairSums pair = split_pairs ?\\(s_packed ?\\[row \\* kBlockSize \\+ step\\] ?\\);`\\) has (9[0-9]|100)% of the shared load and store bank conflicts"
  "Distance to the goal, PREDICTED by the NVIDIA H200's cost model for 1 GiB of (uniform|degenerate) data \\(not measured\\): this kernel [0-9]+\\. ?[0-9] GB/ ?s, [0-9]+\\. ?[0-9]% of the read limit"
  "the technique reaches [0-9]+\\. ?[0-9] GB/ ?s, [0-9]+\\. ?[0-9]% of the read limit")
set(PASSES "histogram_packed matches the CPU reference on every dataset")
