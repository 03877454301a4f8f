# lab05's merge adding its row's counts to the output with a plain += instead of atomicAdd:
# every block adds to the same 256 bins, so on a GPU blocks overwrite each other's sums. In the
# simulator blocks run one after another and no count is lost: the hazard check names the race.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab05)
set(FIND [=[    if (counts.count[byte]) atomicAdd(&d_bins[row * kCountersPerWord + byte], counts.count[byte]);]=])
set(REPLACE [=[    if (counts.count[byte]) d_bins[row * kCountersPerWord + byte] += counts.count[byte];]=])
set(TESTS "histogram_packed matches the CPU reference on every dataset")
set(EXPECT "global-memory race" "needs atomicAdd")
set(FORBID "8-bit packed counter passed 255" "no race can lose")
