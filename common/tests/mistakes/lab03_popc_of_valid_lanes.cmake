# lab03's aggregated kernel counting the group with __popc of the wrong mask: the leader adds
# the number of valid lanes of the warp (valid_lanes) instead of its group's (peers).
set(LAB lab03)
set(FIND [=[      if (int(lane) == leader_of(peers)) atomicAdd(&d_bins[value], group_count(peers));]=])
set(REPLACE [=[      if (int(lane) == leader_of(peers)) atomicAdd(&d_bins[value], group_count(valid_lanes));]=])
set(TESTS "histogram_aggregated matches the CPU reference on every dataset")
set(EXPECT "its leader add more than group_count\\(peers\\)")
set(FORBID "race" "head/tail" "head or tail")
