# lab03's aggregated kernel that finds the groups but lets every lane add 1: right bins, no
# aggregation.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab03)
set(FIND [=[      if (int(lane) == leader_of(peers)) atomicAdd(&d_bins[value], group_count(peers));]=])
set(REPLACE [=[      (void)peers;
      atomicAdd(&d_bins[value], 1u);]=])
set(TESTS "cost: histogram_aggregated sends one atomic per distinct value of a warp")
set(EXPECT "global atomic passes per request \\(degenerate data: one value\\) = 32")
set(PASSES "histogram_aggregated matches the CPU reference on every dataset")
