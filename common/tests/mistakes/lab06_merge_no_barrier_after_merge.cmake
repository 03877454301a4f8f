# lab06 periodic merge without the barrier after merging and clearing the rows: a thread
# counts its next round into rows that others have yet to merge, so a counter gains two rounds
# (up to 504) between merges and wraps. The wrap is the symptom; the barrier is the cause.
set(LAB lab06)
set(FIND [=[    merge_and_clear_row(s_packed, tid, totals);
    // Thread r clears row r, which every thread increments into: nobody may count the next
    // round before all rows are clear (and the spill bins are read after the last round).
    __syncthreads();]=])
set(REPLACE [=[    merge_and_clear_row(s_packed, tid, totals);]=])
set(TESTS "histogram_merge is right on grids of one and three blocks")
set(EXPECT "shared-memory race|__syncthreads\\(\\) after the merge" "__syncthreads\\(\\)")
set(FORBID "use an atomic")
set(GPU_RACECHECK ON)  # on a GPU the race may lose no count: racecheck must see it
