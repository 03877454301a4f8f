# lab03's aggregated kernel that aggregates only when the whole warp holds one value (a
# __match_any_sync result equal to every valid lane), and otherwise lets each lane add 1.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab03)
set(FIND [=[      if (int(lane) == leader_of(peers)) atomicAdd(&d_bins[value], group_count(peers));]=])
set(REPLACE [=[      if (peers != valid_lanes)
        atomicAdd(&d_bins[value], 1u);
      else if (int(lane) == leader_of(peers))
        atomicAdd(&d_bins[value], group_count(peers));]=])
set(TESTS "cost: histogram_aggregated stays a single atomic per value on text")
set(EXPECT "English-like text\\) = ")
set(PASSES "histogram_aggregated matches the CPU reference on every dataset"
           "cost: histogram_aggregated sends one atomic per distinct value of a warp")
