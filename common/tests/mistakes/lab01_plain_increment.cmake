# lab01's kernel counting with a plain ++ on the global bins, as histogram_racy does: two
# threads read the same old count and one increment is lost. In the simulator threads take
# turns and nothing is lost: the hazard check names the race between threads.
# Needs the access trace (a Clang build): the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab01)
set(FIND [=[    atomicAdd(&d_bins[d_in[i]], 1u);]=])
set(REPLACE [=[    d_bins[d_in[i]]++;]=])
set(TESTS "histogram_segmented matches the CPU reference on every dataset")
set(EXPECT "global-memory race")
set(FORBID "no race can lose" "head/tail" "head or tail")
